"""Replay as a pure fold: events, in log order, into the state of every round.

``apply(state, event)`` takes a frozen round state and returns the next one; there is no
clock and no I/O. What happened is kept apart from whether it was allowed: an event that
does not fit (a card dealt twice to a seat, a settlement for a round that never started, a
hand set again after it was exposed) is kept as a :class:`Problem` on the round, never
dropped and never a crash (docs/design.md principle 8). The fold names no game: what a game
makes of the facts is the rules engine's question (``replay/reconstruct.py``).

Conventions of the record (docs/rules.md):

- a seat's hands may be set again before they are exposed (pai gow poker procedure (9): the
  dealer may change a hand until the player banker's is exposed); the last setting before
  :class:`~schemas.HandsExposed` counts and a re-set is no irregularity; a setting after
  exposure is one, and the exposed setting stands;
- the dealer's change of an exposed hand (:class:`~schemas.HandChanged`) counts when pai gow
  poker procedure (9) allows it: in pai gow poker, of a hand already exposed, before the
  banker's hand (the player banker's; the dealer's own when the dealer banks) is exposed.
  Any other change is a problem naming the seat and the clause, and the setting before it
  stands;
- the facts of schema id 3 that judge nothing here (:class:`~schemas.Shuffled`,
  :class:`~schemas.HandCollected`, :class:`~schemas.BankPassed`) are kept in the round's
  history, in any game, without a problem: like a setting or an exposure, a collection is
  not checked against the deal (a party never dealt is the judge's question, a lost deal
  the log's sequence gap), and their order is for the checks;
- a round's ``vocabulary`` is the smallest schema id among its events (the frame's id, given
  with each event by whoever read it from the log; None when any event came without one);
- a wager placed after the first cards or tiles are dealt is past-posting, except the
  Caribbean stud raise, which is placed after the deal by rule (the ``raise`` wager);
- an :class:`~schemas.EventCorrected` strikes or replaces an earlier event of its round:
  the round is folded again from its events with the correction applied, and the
  correction is kept (corrections are new events, docs/design.md principle 1).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any

from replay.tiles import COPIES, parse_tile
from schemas import (
    BankerSettled,
    BankPassed,
    CardsDealt,
    EnvyBonusPaid,
    EventCorrected,
    HandChanged,
    HandCollected,
    HandSet,
    HandsExposed,
    JackpotHit,
    JackpotVerified,
    PlayerActed,
    ProgressiveMeterRead,
    RoundEnded,
    RoundEvent,
    RoundStarted,
    RoundVoided,
    Shuffled,
    TilesDealt,
    WagerPlaced,
    WagerSettled,
    vocabulary,
)

DEALER = 0
"""Key of the dealer in the per-seat maps (seats are numbered from 1)."""

LATE_WAGERS = vocabulary.LATE_WAGERS
"""Wagers placed after the deal by rule (Caribbean stud: raise after seeing the cards)."""

CHANGE_GAMES = frozenset({"pai_gow_poker"})
"""The games whose rules let the dealer change an exposed hand (pai gow poker procedure (9));
Face Up pai gow poker (58 Pa. Code § 688a.7(b)(3)), pai gow tiles and Caribbean stud have no
such provision."""

Sourced = tuple[str, RoundEvent] | tuple[str, RoundEvent, int | None]
"""What the fold takes: where the event was read (for messages), the event, and optionally
the schema id of its frame (replay/batch_decode.py ``schema_id_of``)."""

RoundKey = tuple[str, str, str]
"""(casino, table_id, round_id): a round id is only unique at its casino's table, so two
casinos' (or two tables') rounds with the same id are two rounds."""


class ProblemKind(StrEnum):
    """What kind of irregularity a problem is: a value a SQL check can select."""

    EVENT_BEFORE_START = "event_before_start"
    STARTED_TWICE = "started_twice"
    EVENT_AFTER_END = "event_after_end"
    WRONG_TABLE = "wrong_table"
    """No longer raised: rounds are keyed by casino, table and round id, so an event recorded
    at another table belongs to a round of that table (kept for outputs of older versions)."""
    PAST_POSTING = "past_posting"
    WAGER_PLACED_TWICE = "wager_placed_twice"
    DEALT_TWICE = "dealt_twice"
    SET_AFTER_EXPOSED = "set_after_exposed"
    HAND_CHANGED_AFTER_BANKER_EXPOSED = "hand_changed_after_banker_exposed"
    """A ``HandChanged`` after the banker's hand was exposed (the player banker's; the
    dealer's own when the dealer banks): pai gow poker procedure (9) permits no change then;
    the setting before it stands."""
    HAND_CHANGED_NOT_PROVIDED = "hand_changed_not_provided"
    """A ``HandChanged`` in a game whose rules give the dealer no right to change a hand (any
    game but pai gow poker, or a round never started); the setting before it stands."""
    HAND_CHANGED_NOT_EXPOSED = "hand_changed_not_exposed"
    """A ``HandChanged`` of a hand not yet exposed (procedure (9) lets the dealer change an
    exposed hand) or never dealt; the setting before it stands."""
    ACTION_REPEATED = "action_repeated"
    SETTLED_TWICE = "settled_twice"
    SETTLED_NOT_PLACED = "settled_not_placed"
    BANKER_SETTLED_TWICE = "banker_settled_twice"
    BANKER_SETTLED_OTHER_SEAT = "banker_settled_other_seat"
    """A ``BankerSettled`` naming another seat than the one RoundStarted says banks the round:
    the account is judged as the banker's, the record names the wrong patron."""
    METER_CHANGED = "meter_changed"
    ENDED_TWICE = "ended_twice"
    VOIDED_TWICE = "voided_twice"
    VOID_WITHOUT_REASON = "void_without_reason"
    CORRECTION_OF_UNKNOWN_EVENT = "correction_of_unknown_event"
    NEVER_STARTED = "never_started"
    """The log holds events of the round but no RoundStarted (seen at the end of the fold)."""
    NOT_ENDED = "not_ended"
    """The round started but the log holds no RoundEnded (seen at the end of the fold): its
    end was lost, or the round was still being dealt when the log was read."""
    NOT_JUDGEABLE = "not_judgeable"
    """The round could not be judged: the rules engine's reason is the detail."""
    NOT_JUDGED = "wager_not_judged"
    """A recorded wager that the judgement does not cover (fail closed)."""
    RULE_IRREGULARITY = "rule_irregularity"
    """Settled as recorded, but worth a look (a raise not twice the ante ...)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """One irregularity of a round: its kind and the detail in words (with the table
    sequence number of the event where there is one)."""

    kind: ProblemKind
    detail: str

    def __str__(self) -> str:
        return self.detail


@dataclass(frozen=True, slots=True, kw_only=True)
class Settled:
    """A settlement as the table recorded it."""

    outcome: str
    net_cents: int
    commission_cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class JackpotStep:
    """One recorded verification step of a seat's jackpot."""

    seat: int
    step: str
    employee_id: str
    role: str
    paid_from: str | None
    table_seq: int


def _wager_in(wagers: Sequence[tuple[int, str, int]], seat: int, wager: str) -> int | None:
    return next((a for s, w, a in wagers if s == seat and w == wager), None)


def _action_in(actions: Sequence[tuple[int, str]], seat: int) -> str | None:
    return next((a for s, a in reversed(actions) if s == seat), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundState:
    """Everything the log says about one round, and what did not fit. Seats are keyed by
    number, the dealer by :data:`DEALER`."""

    round_id: str
    casino: str
    table_id: str
    game: str | None = None
    ruleset: str | None = None
    dealer_id: str | None = None
    banker_seat: int | None = None
    co_bank: bool = False
    banker_cover_cents: int | None = None
    """What the player banker put up to cover the wagers (RoundStarted, schema id 3)."""
    started_at_us: int | None = None
    meter_cents: int | None = None
    meter_id: str | None = None
    wagers: tuple[tuple[int, str, int], ...] = ()
    patrons: tuple[tuple[int, str, str], ...] = ()
    """(seat, wager, patron_id) of each wager placed with a player-tracking id (schema id 3),
    in the order placed."""
    dealt: tuple[tuple[int, tuple[str, ...]], ...] = ()
    tiles: bool = False
    sets: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...] = ()
    resets: tuple[int, ...] = ()
    changed: tuple[int, ...] = ()
    """The parties whose exposed hand the dealer changed lawfully (HandChanged that counts),
    once per change."""
    exposed: tuple[int, ...] = ()
    actions: tuple[tuple[int, str], ...] = ()
    settled: tuple[tuple[int, str, Settled], ...] = ()
    banker_settled: tuple[int, int, int] | None = None
    envy: tuple[tuple[int, int | None, int], ...] = ()
    jackpots: tuple[tuple[int, str, int], ...] = ()
    jackpot_steps: tuple[JackpotStep, ...] = ()
    voided: str | None = None
    ended: bool = False
    events: int = 0
    history: tuple[RoundEvent, ...] = ()
    corrections: tuple[RoundEvent, ...] = ()
    problems: tuple[Problem, ...] = ()
    vocabulary: int | None = None
    """The smallest schema id among the round's events (corrections included), the frame's
    id each was read under; None when any event was folded without one (a hand-built
    event)."""
    clock_at_us: int | None = None
    """The broker's time of the RoundStarted when the table's clock was skewed beyond the
    tolerance (replay/clock.py): the round's ruleset is chosen by it; set after the fold."""

    def cards(self, seat: int) -> tuple[str, ...] | None:
        """The cards or tiles dealt to ``seat`` (:data:`DEALER` for the dealer)."""
        return next((c for s, c in self.dealt if s == seat), None)

    def hand_set(self, seat: int) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """The setting that counts: the last one before the hands were exposed."""
        return next(((h, lo) for s, h, lo in self.sets if s == seat), None)

    def wager(self, seat: int, wager: str) -> int | None:
        return _wager_in(self.wagers, seat, wager)

    def patron(self, seat: int, wager: str) -> str | None:
        """The player-tracking id recorded with the wager (None: not recorded)."""
        return next((pid for s, w, pid in self.patrons if s == seat and w == wager), None)

    def settlement(self, seat: int, wager: str) -> Settled | None:
        return next((x for s, w, x in self.settled if s == seat and w == wager), None)

    def action(self, seat: int) -> str | None:
        """The seat's last decision (fold, raise, concede, withdraw), if any."""
        return _action_in(self.actions, seat)

    @property
    def seats(self) -> tuple[int, ...]:
        """Every seat that wagered, was dealt, set or acted, in order (never the dealer)."""
        found = ({s for s, _, _ in self.wagers} | {s for s, _ in self.dealt}
                 | {s for s, _, _ in self.sets} | {s for s, _ in self.actions})
        if self.banker_seat is not None:
            found.add(self.banker_seat)
        return tuple(sorted(found - {DEALER}))

    @property
    def problem_kinds(self) -> tuple[str, ...]:
        return tuple(p.kind.value for p in self.problems)

    @property
    def key(self) -> RoundKey:
        """What identifies the round: (casino, table, round id)."""
        return (self.casino, self.table_id, self.round_id)


def _who(seat: int | None) -> str:
    return "dealer" if seat in (None, DEALER) else f"seat {seat}"


def _key(seat: int | None) -> int:
    return DEALER if seat is None else seat


_FIELDS = tuple(f.name for f in fields(RoundState))
_LISTS = frozenset({"wagers", "patrons", "dealt", "sets", "resets", "changed", "exposed",
                    "actions", "settled", "envy", "jackpots", "jackpot_steps", "history",
                    "corrections", "problems"})


class _Round:
    """A round being folded: the same fields as :class:`RoundState`, with lists where the
    state has tuples. It never leaves this module: :func:`fold` folds each round's events
    into one and freezes it at the end, and :func:`apply` thaws, applies and freezes, so the
    fold stays a pure function of its events while each event costs one small update
    instead of a copy of the whole state."""

    __slots__ = (*_FIELDS, "counts")

    def __init__(self, state: RoundState) -> None:
        for name in _FIELDS:
            value = getattr(state, name)
            setattr(self, name, list(value) if name in _LISTS else value)
        self.counts: dict[str, int] | None = None
        """How many times each card or tile was dealt so far (built on the first deal)."""

    def freeze(self) -> RoundState:
        values: dict[str, Any] = {name: tuple(getattr(self, name)) if name in _LISTS
                                  else getattr(self, name) for name in _FIELDS}
        return RoundState(**values)

    def problem(self, kind: ProblemKind, text: str) -> None:
        self.problems.append(Problem(kind=kind, detail=text))  # type: ignore[attr-defined]

    def wager(self, seat: int, wager: str) -> int | None:
        return _wager_in(self.wagers, seat, wager)  # type: ignore[attr-defined]

    def has_cards(self, seat: int) -> bool:
        return any(s == seat for s, _ in self.dealt)  # type: ignore[attr-defined]

    def action(self, seat: int) -> str | None:
        return _action_in(self.actions, seat)  # type: ignore[attr-defined]


def _started(r: Any, e: RoundEvent, p: RoundStarted) -> None:
    if r.game is not None:
        r.problem(ProblemKind.STARTED_TWICE, f"RoundStarted again at table_seq {e.table_seq}")
        return
    r.game, r.ruleset, r.dealer_id = p.game, p.ruleset, p.dealer_id
    r.banker_seat, r.co_bank, r.started_at_us = p.banker_seat, p.co_bank, e.occurred_at_us
    r.banker_cover_cents = p.banker_cover_cents


def _meter(r: Any, e: RoundEvent, p: ProgressiveMeterRead) -> None:
    if r.meter_cents is not None and r.meter_cents != p.meter_cents:
        r.problem(ProblemKind.METER_CHANGED,
                  f"progressive meter read {p.meter_cents} after {r.meter_cents} in the same "
                  f"round (table_seq {e.table_seq}); the last reading counts")
    r.meter_cents, r.meter_id = p.meter_cents, p.meter_id


def _placed(r: Any, e: RoundEvent, p: WagerPlaced) -> None:
    seat = _key(p.seat)
    if r.wager(seat, p.wager) is not None:
        r.problem(ProblemKind.WAGER_PLACED_TWICE,
                  f"{_who(p.seat)} placed a second {p.wager} wager at table_seq {e.table_seq}")
        return
    if r.dealt and p.wager not in LATE_WAGERS:
        r.problem(ProblemKind.PAST_POSTING,
                  f"{_who(p.seat)} placed {p.wager} {p.amount_cents} after the cards were "
                  f"dealt (table_seq {e.table_seq}): past-posting")
    r.wagers.append((seat, p.wager, p.amount_cents))
    if p.patron_id is not None:
        r.patrons.append((seat, p.wager, p.patron_id))


def _copies(token: str, tiles: bool) -> int:
    """How many of ``token`` a round may deal: a card once (one deck), a tile as many times
    as the set holds its face (docs/rules.md 3.2; a token that is no tile: once)."""
    if not tiles:
        return 1
    try:
        return COPIES[parse_tile(token)]
    except (ValueError, KeyError):
        return 1


def _deal(r: Any, e: RoundEvent, seat: int, tokens: tuple[str, ...], tiles: bool) -> None:
    if r.has_cards(seat):
        r.problem(ProblemKind.DEALT_TWICE, f"{_who(seat)} dealt {'tiles' if tiles else 'cards'} "
                                           f"twice (table_seq {e.table_seq})")
        return
    counts = r.counts
    if counts is None:  # how many times each token was dealt in the round so far
        counts = r.counts = {}
        for _, dealt in r.dealt:
            for token in dealt:
                counts[token] = counts.get(token, 0) + 1
    for token in tokens:
        counts[token] = counts.get(token, 0) + 1
    over = [t for t in dict.fromkeys(tokens) if counts[t] > 1 and counts[t] > _copies(t, tiles)]
    if over:
        held: dict[str, list[int]] = {}
        for holder, dealt in (*r.dealt, (seat, tokens)):
            for token in dealt:
                held.setdefault(token, []).append(holder)
        for token in over:
            copies = _copies(token, tiles)
            holders = ", ".join(_who(h) for h in held[token])
            more = f"; the set holds {copies}" if copies > 1 else ""
            r.problem(ProblemKind.DEALT_TWICE,
                      f"{'tile' if tiles else 'card'} {token} dealt {len(held[token])} times "
                      f"in the round ({holders}) at table_seq {e.table_seq}{more}")
    r.dealt.append((seat, tokens))
    r.tiles = r.tiles or tiles


def _cards(r: Any, e: RoundEvent, p: CardsDealt) -> None:
    _deal(r, e, _key(p.seat), p.cards, False)


def _tiles(r: Any, e: RoundEvent, p: TilesDealt) -> None:
    _deal(r, e, _key(p.seat), p.tiles, True)


def _set(r: Any, e: RoundEvent, p: HandSet) -> None:
    seat = _key(p.seat)
    if seat in r.exposed:
        r.problem(ProblemKind.SET_AFTER_EXPOSED,
                  f"{_who(p.seat)} set its hand again after it was exposed "
                  f"(table_seq {e.table_seq}); the exposed setting stands")
        return
    before = len(r.sets)
    r.sets[:] = [x for x in r.sets if x[0] != seat]
    if len(r.sets) != before:
        r.resets.append(seat)
    r.sets.append((seat, p.high, p.low))


def _exposed(r: Any, e: RoundEvent, p: HandsExposed) -> None:
    seat = _key(p.seat)
    if seat not in r.exposed:
        r.exposed.append(seat)


def _changed(r: Any, e: RoundEvent, p: HandChanged) -> None:
    """The dealer's change of an exposed hand: it counts only as pai gow poker procedure (9)
    allows (see the module docstring); otherwise the setting before it stands."""
    seat = _key(p.seat)
    whose = "its own" if p.seat is None else f"seat {p.seat}'s"
    banker = DEALER if r.banker_seat is None else r.banker_seat
    banker_words = "the dealer's" if banker == DEALER else f"the player banker's (seat {banker})"
    where = f"(table_seq {e.table_seq})"
    stands = "the setting before it stands"
    if r.game not in CHANGE_GAMES:
        game = "a round never started" if r.game is None else r.game.replace("_", " ")
        r.problem(ProblemKind.HAND_CHANGED_NOT_PROVIDED,
                  f"the dealer changed {whose} hand {where}, but the rules of "
                  f"{game} give the dealer no right to change a hand (pai gow poker "
                  f"procedure (9) is pai gow poker's); {stands}")
        return
    if not r.has_cards(seat) or seat not in r.exposed:
        what = "never dealt" if not r.has_cards(seat) else "not yet exposed"
        r.problem(ProblemKind.HAND_CHANGED_NOT_EXPOSED,
                  f"the dealer changed {whose} hand {where}, which was {what}: "
                  f"pai gow poker procedure (9) lets the dealer change an exposed hand; "
                  f"{stands}")
        return
    if banker in r.exposed:
        r.problem(ProblemKind.HAND_CHANGED_AFTER_BANKER_EXPOSED,
                  f"the dealer changed {whose} hand {where} after {banker_words} "
                  f"hand was exposed: pai gow poker procedure (9) permits no change once the "
                  f"banker's hand is exposed; {stands}")
        return
    r.sets[:] = [x for x in r.sets if x[0] != seat]
    r.sets.append((seat, p.high, p.low))
    r.changed.append(seat)


def _kept(r: Any, e: RoundEvent, p: Any) -> None:
    """An event the fold keeps in the history and the timeline and judges nothing by."""


def _acted(r: Any, e: RoundEvent, p: PlayerActed) -> None:
    earlier = r.action(p.seat)
    if p.action in ("fold", "raise", "withdraw") and earlier is not None:
        r.problem(ProblemKind.ACTION_REPEATED,
                  f"seat {p.seat} {p.action} after it already chose {earlier} "
                  f"(table_seq {e.table_seq}); the last counts")
    r.actions.append((p.seat, p.action))


def _settled(r: Any, e: RoundEvent, p: WagerSettled) -> None:
    seat = _key(p.seat)
    if any(s == seat and w == p.wager for s, w, _ in r.settled):
        r.problem(ProblemKind.SETTLED_TWICE,
                  f"{_who(p.seat)} {p.wager} settled twice (table_seq {e.table_seq})")
        return
    if r.wager(seat, p.wager) is None:
        r.problem(ProblemKind.SETTLED_NOT_PLACED,
                  f"{_who(p.seat)} {p.wager} settled but never placed (table_seq {e.table_seq})")
    r.settled.append((seat, p.wager, Settled(outcome=p.outcome, net_cents=p.net_cents,
                                             commission_cents=p.commission_cents)))


def _banker(r: Any, e: RoundEvent, p: BankerSettled) -> None:
    if r.banker_settled is not None:
        r.problem(ProblemKind.BANKER_SETTLED_TWICE,
                  f"the banker's account settled twice (table_seq {e.table_seq})")
        return
    r.banker_settled = (p.seat, p.net_cents, p.commission_cents)
    if r.banker_seat is not None and p.seat != r.banker_seat:
        r.problem(ProblemKind.BANKER_SETTLED_OTHER_SEAT,
                  f"the banker's account recorded for seat {p.seat}, but seat {r.banker_seat} "
                  f"banks the round (table_seq {e.table_seq}); judged as seat "
                  f"{r.banker_seat}'s account")


def _envy(r: Any, e: RoundEvent, p: EnvyBonusPaid) -> None:
    r.envy.append((p.seat, p.for_seat, p.amount_cents))


def _jackpot(r: Any, e: RoundEvent, p: JackpotHit) -> None:
    r.jackpots.append((p.seat, p.hand, p.award_cents))


def _verified(r: Any, e: RoundEvent, p: JackpotVerified) -> None:
    r.jackpot_steps.append(JackpotStep(seat=p.seat, step=p.step, employee_id=p.employee_id,
                                       role=p.role, paid_from=p.paid_from,
                                       table_seq=e.table_seq))


def _voided(r: Any, e: RoundEvent, p: RoundVoided) -> None:
    if r.voided is not None:
        r.problem(ProblemKind.VOIDED_TWICE, f"round voided twice (table_seq {e.table_seq})")
        return
    if not p.reason.strip():
        r.problem(ProblemKind.VOID_WITHOUT_REASON,
                  f"round voided without a reason (table_seq {e.table_seq})")
    r.voided = p.reason.strip() or "(no reason given)"


def _ended(r: Any, e: RoundEvent, p: RoundEnded) -> None:
    if r.ended:
        r.problem(ProblemKind.ENDED_TWICE, f"RoundEnded twice (table_seq {e.table_seq})")
        return
    r.ended = True


_APPLY: dict[type, Callable[[Any, RoundEvent, Any], None]] = {
    RoundStarted: _started,
    ProgressiveMeterRead: _meter,
    WagerPlaced: _placed,
    CardsDealt: _cards,
    TilesDealt: _tiles,
    HandSet: _set,
    HandsExposed: _exposed,
    HandChanged: _changed,
    PlayerActed: _acted,
    WagerSettled: _settled,
    BankerSettled: _banker,
    EnvyBonusPaid: _envy,
    JackpotHit: _jackpot,
    JackpotVerified: _verified,
    HandCollected: _kept,
    Shuffled: _kept,
    BankPassed: _kept,
    RoundVoided: _voided,
    RoundEnded: _ended,
}


def _step(r: Any, event: RoundEvent) -> None:
    if r.ended:
        r.problem(ProblemKind.EVENT_AFTER_END,
                  f"{event.kind} after RoundEnded (table_seq {event.table_seq})")
    if (event.casino, event.table_id) != (r.casino, r.table_id):  # only through apply()
        r.problem(ProblemKind.WRONG_TABLE, f"{event.kind} recorded at table {event.table_id}, "
                                           f"round is at {r.table_id}")
    _APPLY[type(event.payload)](r, event, event.payload)


def _fresh(event: RoundEvent) -> Any:
    r = _Round(RoundState(round_id=event.round_id, casino=event.casino,
                          table_id=event.table_id))
    if not isinstance(event.payload, RoundStarted):
        r.problem(ProblemKind.EVENT_BEFORE_START,
                  f"{event.kind} before RoundStarted (table_seq {event.table_seq})")
    return r


def _correct(r: Any, event: RoundEvent) -> Any:
    """The round after a correction: folded again from its events, every correction applied
    in its place (the correction of an event the round does not hold is a problem)."""
    assert isinstance(event.payload, EventCorrected)
    corrected = event.payload.corrects
    if not any(e.event_id == corrected for e in r.history):
        r.problem(ProblemKind.CORRECTION_OF_UNKNOWN_EVENT,
                  f"EventCorrected names event {corrected}, which this round does not hold "
                  f"(table_seq {event.table_seq})")
        r.corrections.append(event)
        r.events += 1
        return r
    corrections = [*r.corrections, event]
    fixes: dict[str, Any] = {}
    for c in corrections:
        assert isinstance(c.payload, EventCorrected)
        fixes[c.payload.corrects] = c.payload.replacement
    new = _fresh(r.history[0])
    for e in r.history:
        if e.event_id in fixes:
            if fixes[e.event_id] is None:
                continue
            e = replace(e, payload=fixes[e.event_id])
        _step(new, e)
    new.problems.extend(p for p in r.problems
                        if p.kind is ProblemKind.CORRECTION_OF_UNKNOWN_EVENT)
    new.history, new.corrections, new.events = r.history, corrections, r.events + 1
    new.vocabulary = r.vocabulary
    return new


def _apply(r: Any, event: RoundEvent, schema_id: int | None = None) -> Any:
    if r is None:
        r = _fresh(event)
    if r.events == 0:  # the round's vocabulary: the smallest id, None once one is unknown
        r.vocabulary = schema_id
    elif schema_id is None or r.vocabulary is None:
        r.vocabulary = None
    elif schema_id < r.vocabulary:
        r.vocabulary = schema_id
    if isinstance(event.payload, EventCorrected):
        return _correct(r, event)
    _step(r, event)
    r.history.append(event)
    r.events += 1
    return r


def apply(state: RoundState | None, event: RoundEvent,
          schema_id: int | None = None) -> RoundState:
    """The round after ``event`` (read under ``schema_id``, None: not known): one handler
    per event type, nothing else changes."""
    r = _apply(None if state is None else _Round(state), event, schema_id)
    frozen: RoundState = r.freeze()
    return frozen


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """A log-level finding: a repeated event, a gap in a table's sequence numbers."""

    kind: str
    table_id: str
    where: str
    detail: str
    round_id: str | None = None
    """The round of the event where the finding showed (a repeat's, the event after a gap)."""
    casino: str | None = None
    """The casino of that event (None for a record that did not decode)."""

    def __str__(self) -> str:
        return f"{self.where}: {self.detail}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Replayed:
    """The fold's result: rounds in order of first appearance, and log-level findings."""

    rounds: tuple[RoundState, ...]
    findings: tuple[Finding, ...]


def _incomplete(r: Any) -> None:
    """What only the end of the log tells about a round: it never started, or never ended."""
    seqs = [e.table_seq for e in (*r.history, *r.corrections)]
    if r.game is None:
        r.problem(ProblemKind.NEVER_STARTED,
                  f"the log holds {r.events} event(s) of this round (table_seq {min(seqs)} to "
                  f"{max(seqs)}) but no RoundStarted")
    elif not r.ended:
        r.problem(ProblemKind.NOT_ENDED,
                  f"the round has no RoundEnded in the log (last event at table_seq "
                  f"{max(seqs)}): its end was lost, or it was still being dealt when the log "
                  f"was read")


class Folding:
    """The fold in progress, to be given more events later (replay/live.py keeps one
    between passes over a growing log): :meth:`add` folds events exactly as :func:`fold`
    does, and :meth:`state` is a round as :func:`fold` would give it were the log to end
    here, without changing what is kept. ``rounds`` (in order of first appearance) and
    ``findings`` only grow."""

    def __init__(self) -> None:
        self.rounds: dict[RoundKey, Any] = {}
        self.seen: dict[str, RoundEvent] = {}
        self.last_seq: dict[tuple[str, str], int] = {}
        self.findings: list[Finding] = []

    def add(self, events: Iterable[Sourced]) -> None:
        """Fold ``(where, event)`` pairs or ``(where, event, schema_id)`` triples after those
        already folded (see :func:`fold`)."""
        rounds, seen, last_seq, findings = self.rounds, self.seen, self.last_seq, self.findings
        for item in events:
            where, event = item[0], item[1]
            schema_id = item[2] if len(item) > 2 else None
            event_id = event.event_id
            first = seen.get(event_id)
            if first is not None:
                kind = "duplicate_event" if first == event else "conflicting_duplicate_event"
                text = ("repeated; kept once" if first == event
                        else "repeated with a different content; the first copy counts")
                findings.append(Finding(kind=kind, table_id=event.table_id, where=where,
                                        detail=f"event {event_id} {text}",
                                        round_id=event.round_id, casino=event.casino))
                continue
            seen[event_id] = event
            casino, table_id, seq = event.casino, event.table_id, event.table_seq
            table = (casino, table_id)
            prev = last_seq.get(table)
            if prev is None or seq > prev:  # table_seq counts from 1
                last_seq[table] = seq
            if prev is not None and seq != prev + 1:
                kind = "sequence_gap" if seq > prev + 1 else "sequence_out_of_order"
                word = "gap" if seq > prev + 1 else "out of order"
                findings.append(Finding(kind=kind, table_id=table_id, where=where,
                                        detail=f"table {table_id} sequence {word}: "
                                               f"{seq} after {prev}",
                                        round_id=event.round_id, casino=casino))
            key = (casino, table_id, event.round_id)
            rounds[key] = _apply(rounds.get(key), event, schema_id)

    def state(self, key: RoundKey) -> RoundState:
        """The round ``key`` as :func:`fold` would end it now (never started, not ended),
        the round kept as it was."""
        r = _Round(self.rounds[key].freeze())
        _incomplete(r)
        frozen: RoundState = r.freeze()
        return frozen


def fold(events: Iterable[Sourced]) -> Replayed:
    """Fold ``(where, event)`` pairs (where = the record's place, for messages) into rounds,
    one per (casino, table, round id): the same round id at another table or casino is
    another round. A triple ``(where, event, schema_id)`` also says the schema id the
    event's frame was written under (the round's ``vocabulary`` is the smallest; a pair
    leaves it unknown).

    Log-level findings: a repeated event id (an exact repeat is kept once; the
    same id with a different content is a conflicting duplicate, also kept once, the first
    copy counting), and a gap or repeat in a (casino's) table's sequence numbers. At the end,
    a round without RoundStarted, or started without RoundEnded, gets a problem
    (:attr:`ProblemKind.NEVER_STARTED`, :attr:`ProblemKind.NOT_ENDED`)."""
    folding = Folding()
    folding.add(events)
    for r in folding.rounds.values():
        _incomplete(r)
    return Replayed(rounds=tuple(r.freeze() for r in folding.rounds.values()),
                    findings=tuple(folding.findings))
