"""A round's timeline: every event the table recorded for it, in the table's order, in words.

What a dispute needs beside the judgement: when each thing happened, who recorded it, and
what it was ("seat 3 placed Fortune $5.00", "seat 2 main settled: win +$10.00, commission
$0.50"). :func:`timeline_rows` gives one row per event of a folded round (replay writes them
to ``timeline.parquet``): the events of :attr:`RoundState.history` and the corrections of
:attr:`RoundState.corrections`, ordered by ``table_seq`` (then event id), each correction
naming the event it corrects (``corrects``) and each event a correction replaced or struck
marked ``superseded`` (docs/rules.md 8.5: events are never edited, a correction stays
visible). Money is rendered from integer cents (:func:`replay.money.format_cents`).
Pure: the same round gives the same rows.

Beside the words, each row carries what the event says as typed columns (:func:`facts`), so
that a check of the order of play reads them and never the summary: ``seat`` (null for the
dealer and for an event of the whole round), ``position`` (``dealer``, ``banker`` for the
round's player banker, ``seat N``; null for an event of the whole round), ``wager``,
``outcome``, ``action``, ``for_seat`` (an Envy Bonus's holder; null: the dealer's hand),
``net_cents`` (a settlement's recorded net, integer cents: what was paid or collected,
whatever the word), and the facts of schema id 3: ``bank_to`` (``dealer`` or ``seat N``: who
banks the next round) and ``bank_reason`` of a bank passed, ``shuffle`` (``reshuffle`` or
``deck_change``) and ``deck_id`` of a shuffle (both round-wide: no seat or position),
``patron_id`` of a wager placed with a player-tracking id, where the event has them; a hand
collected or changed has the ``seat`` and ``position`` of the hand. A correction that
replaces an event carries its replacement's facts and names the replacement's kind in
``replacement`` (``wager settled``); a correction that strikes one carries none.
``stands_at`` is where what the row says stands in the round as corrected (the fold's
reading, :mod:`replay.fold`): an event's own ``table_seq``; for the correction that
replaced an event (the last one naming it), the ``table_seq`` of the event it replaced; null
for an event struck or replaced, a correction that strikes, one that a later correction of
the same event overrode, or one naming an event the round does not hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replay.fold import RoundState
from replay.money import format_cents
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
    Payload,
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
)

WAGER_WORDS = {"main": "main", "ace_high": "Ace High", "fortune": "Fortune",
               "progressive": "Progressive", "ante": "ante", "raise": "raise"}
"""How a wager is named in words (docs/rules.md, Words); an unknown name is shown as is."""

EVENT_WORDS: dict[type, str] = {
    RoundStarted: "round started", ProgressiveMeterRead: "progressive meter read",
    WagerPlaced: "wager placed", CardsDealt: "cards dealt", TilesDealt: "tiles dealt",
    HandSet: "hand set", PlayerActed: "player acted", HandsExposed: "hands exposed",
    WagerSettled: "wager settled", BankerSettled: "banker settled",
    EnvyBonusPaid: "Envy Bonus paid", JackpotHit: "jackpot hit",
    JackpotVerified: "jackpot step recorded", RoundVoided: "round voided",
    EventCorrected: "event corrected", RoundEnded: "round ended",
    Shuffled: "shuffled", HandCollected: "hand collected", BankPassed: "bank passed",
    HandChanged: "hand changed",
}
"""The payload kind of each event, in words (``timeline.parquet`` ``event``)."""

_ACTED = {"fold": "folded", "raise": "raised", "concede": "conceded", "withdraw": "withdrew"}
_GAMES = {"pai_gow_poker": "pai gow poker", "face_up_pai_gow": "Face Up pai gow poker",
          "pai_gow_tiles": "pai gow tiles", "caribbean_stud": "Caribbean stud"}


def _who(seat: int | None) -> str:
    return "dealer" if seat is None else f"seat {seat}"


def _whose(seat: int | None) -> str:
    return "dealer's" if seat is None else f"seat {seat}'s"


def _wager(name: str) -> str:
    return WAGER_WORDS.get(name, name)


def _started(p: RoundStarted) -> str:
    banker = "the dealer banks" if p.banker_seat is None else (
        f"seat {p.banker_seat} banks" + (" with the house (co-bank)" if p.co_bank else "")
        + ("" if p.banker_cover_cents is None
           else f", covering {format_cents(p.banker_cover_cents)}"))
    ruleset = f"ruleset {p.ruleset}" if p.ruleset else "the ruleset in force that day"
    return f"dealer {p.dealer_id} opened a round of {_GAMES.get(p.game, p.game)}; {banker}; " \
           f"{ruleset}"


def _meter(p: ProgressiveMeterRead) -> str:
    meter = f" ({p.meter_id})" if p.meter_id else ""
    return f"progressive meter{meter} read {format_cents(p.meter_cents)}"


def _placed(p: WagerPlaced) -> str:
    patron = f" (patron {p.patron_id})" if p.patron_id is not None else ""
    return f"{_who(p.seat)} placed {_wager(p.wager)} {format_cents(p.amount_cents)}{patron}"


def _cards(p: CardsDealt) -> str:
    return f"{_who(p.seat)} dealt {' '.join(p.cards)}"


def _tiles(p: TilesDealt) -> str:
    return f"{_who(p.seat)} dealt tiles {' '.join(p.tiles)}"


def _set(p: HandSet) -> str:
    return f"{_whose(p.seat)} hand set: high {' '.join(p.high)}, low {' '.join(p.low)}"


def _acted(p: PlayerActed) -> str:
    return f"seat {p.seat} {_ACTED.get(p.action, p.action)}"


def _exposed(p: HandsExposed) -> str:
    return f"{_whose(p.seat)} hands exposed"


def _settled(p: WagerSettled) -> str:
    commission = f", commission {format_cents(p.commission_cents)}" if p.commission_cents else ""
    return (f"{_who(p.seat)} {_wager(p.wager)} settled: {p.outcome} "
            f"{format_cents(p.net_cents, signed=True)}{commission}")


def _banker(p: BankerSettled) -> str:
    commission = f", commission {format_cents(p.commission_cents)}" if p.commission_cents else ""
    return (f"banker's account (seat {p.seat}) settled: "
            f"{format_cents(p.net_cents, signed=True)}{commission}")


def _envy(p: EnvyBonusPaid) -> str:
    return (f"seat {p.seat} paid an Envy Bonus of {format_cents(p.amount_cents)} for "
            f"{'the dealer' if p.for_seat is None else f'seat {p.for_seat}'}'s hand")


def _jackpot(p: JackpotHit) -> str:
    return (f"seat {p.seat} declared a progressive winner: {p.hand.replace('_', ' ')}, award "
            f"{format_cents(p.award_cents)}")


def _verified(p: JackpotVerified) -> str:
    paid = f", paid from the {p.paid_from.replace('_', ' ')}" if p.paid_from else ""
    return (f"seat {p.seat} jackpot: {p.step.replace('_', ' ')} by {p.employee_id} "
            f"({p.role}){paid}")


def _voided(p: RoundVoided) -> str:
    reason = p.reason.strip()
    return f"round voided: {reason}" if reason else "round voided without a reason"


def _corrected(p: EventCorrected) -> str:
    reason = f" (reason: {p.reason.strip()})" if p.reason.strip() else " (no reason given)"
    if p.replacement is None:
        return f"event {p.corrects} struck{reason}"
    return f"event {p.corrects} replaced by: {summary(p.replacement)}{reason}"


def _shuffled(p: Shuffled) -> str:
    if p.kind == "deck_change":
        return f"deck changed to {p.deck_id}" if p.deck_id else "deck changed"
    return f"reshuffled (deck {p.deck_id})" if p.deck_id else "reshuffled"


def _collected(p: HandCollected, things: str = "cards") -> str:
    return f"{_whose(p.seat)} {things} collected"


BANK_REASON_WORDS = {"rotation": "rotation", "declined": "declined",
                     "cannot_cover": "cannot cover the wagers"}
"""Why the bank passed, in words (``BankPassed.reason``; an unknown word is shown as is)."""


def _bank_to(seat: int | None) -> str:
    return "dealer" if seat is None else f"seat {seat}"


def _bank_passed(p: BankPassed) -> str:
    to = "the dealer" if p.to_seat is None else f"seat {p.to_seat}"
    return f"the bank passes to {to}: {BANK_REASON_WORDS.get(p.reason, p.reason)}"


def _changed(p: HandChanged) -> str:
    whose = "its own" if p.seat is None else f"seat {p.seat}'s"
    return f"dealer changed {whose} hand to high {' '.join(p.high)}, low {' '.join(p.low)}"


def _ended(p: RoundEnded) -> str:
    return f"round ended ({p.note})" if p.note else "round ended"


_SUMMARY: dict[type, Callable[[Any], str]] = {
    RoundStarted: _started, ProgressiveMeterRead: _meter, WagerPlaced: _placed,
    CardsDealt: _cards, TilesDealt: _tiles, HandSet: _set, PlayerActed: _acted,
    HandsExposed: _exposed, WagerSettled: _settled, BankerSettled: _banker,
    EnvyBonusPaid: _envy, JackpotHit: _jackpot, JackpotVerified: _verified,
    RoundVoided: _voided, EventCorrected: _corrected, RoundEnded: _ended,
    Shuffled: _shuffled, HandCollected: _collected, BankPassed: _bank_passed,
    HandChanged: _changed,
}


def summary(payload: Payload, tiles: bool = False) -> str:
    """What an event says, in plain words, money from integer cents; ``tiles``: the round
    is dealt tiles (a hand collected is its tiles)."""
    if tiles:
        if isinstance(payload, HandCollected):
            return _collected(payload, "tiles")
        if isinstance(payload, EventCorrected) and isinstance(payload.replacement,
                                                              HandCollected):
            reason = payload.reason.strip()
            return (f"event {payload.corrects} replaced by: "
                    f"{_collected(payload.replacement, 'tiles')}"
                    f"{f' (reason: {reason})' if reason else ' (no reason given)'}")
    return _SUMMARY[type(payload)](payload)


def event_words(payload: Payload) -> str:
    """The kind of an event in words (``wager placed``)."""
    return EVENT_WORDS[type(payload)]


def ordered_events(state: RoundState) -> list[RoundEvent]:
    """Every event of the round, corrections included, in the order the table recorded
    them: by ``table_seq``, then event id (two events of a round never share both)."""
    return sorted((*state.history, *state.corrections),
                  key=lambda e: (e.table_seq, e.event_id))


def superseded_ids(state: RoundState) -> frozenset[str]:
    """The ids of the round's events that a correction struck or replaced."""
    held = {e.event_id for e in state.history}
    return frozenset(c.payload.corrects for c in state.corrections
                     if isinstance(c.payload, EventCorrected) and c.payload.corrects in held)


FACT_COLUMNS = ("seat", "position", "wager", "outcome", "action", "for_seat", "net_cents",
                "bank_to", "bank_reason", "shuffle", "deck_id", "patron_id")
"""The typed columns of a timeline row beside the words (:func:`facts`)."""

_ROUND_WIDE = (RoundStarted, ProgressiveMeterRead, RoundVoided, RoundEnded, Shuffled,
               BankPassed)


def facts(payload: Payload, banker_seat: int | None) -> dict[str, Any]:
    """What ``payload`` says, as the typed columns :data:`FACT_COLUMNS` (null where the
    event has no such fact); ``banker_seat`` is the round's player banker (None: the dealer
    banks). A correction gives its replacement's facts (none when it strikes)."""
    if isinstance(payload, EventCorrected):
        payload_or_none = payload.replacement
        if payload_or_none is None:
            return dict.fromkeys(FACT_COLUMNS)
        payload = payload_or_none
    if isinstance(payload, _ROUND_WIDE):
        out = dict.fromkeys(FACT_COLUMNS)
        if isinstance(payload, Shuffled):
            out["shuffle"], out["deck_id"] = payload.kind, payload.deck_id
        elif isinstance(payload, BankPassed):
            out["bank_to"], out["bank_reason"] = _bank_to(payload.to_seat), payload.reason
        return out
    seat: int | None = getattr(payload, "seat", None)
    position = ("dealer" if seat is None else
                "banker" if seat == banker_seat else f"seat {seat}")
    return {"seat": seat, "position": position, "wager": getattr(payload, "wager", None),
            "outcome": getattr(payload, "outcome", None),
            "action": getattr(payload, "action", None),
            "for_seat": payload.for_seat if isinstance(payload, EnvyBonusPaid) else None,
            "net_cents": payload.net_cents if isinstance(payload, WagerSettled) else None,
            "bank_to": None, "bank_reason": None, "shuffle": None, "deck_id": None,
            "patron_id": payload.patron_id if isinstance(payload, WagerPlaced) else None}


def timeline_rows(state: RoundState) -> list[dict[str, Any]]:
    """The rows of ``timeline.parquet`` for one folded round (see the module docstring);
    ``occurred_at`` in microseconds since the epoch, UTC."""
    gone = superseded_ids(state) if state.corrections else frozenset()
    held = {e.event_id: e.table_seq for e in state.history} if state.corrections else {}
    last = {c.payload.corrects: c.event_id for c in state.corrections
            if isinstance(c.payload, EventCorrected)}
    rows = []
    tiles = state.tiles
    for e in ordered_events(state):
        p = e.payload
        if isinstance(p, EventCorrected):
            stands = (held.get(p.corrects) if p.replacement is not None
                      and last.get(p.corrects) == e.event_id else None)
        else:
            stands = None if e.event_id in gone else e.table_seq
        rows.append({
            "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
            "game": state.game, "table_seq": e.table_seq, "occurred_at": e.occurred_at_us,
            "recorded_by": e.recorded_by, "event": EVENT_WORDS[type(p)],
            "summary": summary(p, tiles) if tiles else _SUMMARY[type(p)](p),
            "event_id": e.event_id,
            "corrects": p.corrects if isinstance(p, EventCorrected) else None,
            "superseded": e.event_id in gone,
            "replacement": (EVENT_WORDS[type(p.replacement)] if isinstance(p, EventCorrected)
                            and p.replacement is not None else None),
            **facts(p, state.banker_seat), "stands_at": stands,
        })
    return rows
