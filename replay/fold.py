"""Replay as a pure fold: events, in log order, into the state of every round (STYLE.md 6).

``apply(state, event)`` takes a frozen round state and returns the next one; there is no
clock and no I/O. What happened is kept apart from whether it was allowed: an event that
does not fit (a card dealt twice to a seat, a settlement for a round that never started)
is kept as a problem on the round, never dropped and never a crash (DESIGN.md principle 8).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from schemas import (
    CardsDealt,
    HandSet,
    RoundEnded,
    RoundEvent,
    RoundStarted,
    WagerPlaced,
    WagerSettled,
)

DEALER = 0
"""Key of the dealer's hand in the per-seat maps (seats are numbered from 1)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Settled:
    """A settlement as the table recorded it."""

    outcome: str
    net_cents: int
    commission_cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundState:
    """Everything the log says about one round, and what did not fit."""

    round_id: str
    casino: str
    table_id: str
    game: str | None = None
    ruleset: str | None = None
    dealer_id: str | None = None
    started_at_us: int | None = None
    wagers: tuple[tuple[int, str, int], ...] = ()
    dealt: tuple[tuple[int, tuple[str, ...]], ...] = ()
    sets: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...] = ()
    settled: tuple[tuple[int, str, Settled], ...] = ()
    ended: bool = False
    events: int = 0
    problems: tuple[str, ...] = field(default=())

    def cards(self, seat: int) -> tuple[str, ...] | None:
        return next((c for s, c in self.dealt if s == seat), None)

    def hand_set(self, seat: int) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        return next(((h, lo) for s, h, lo in self.sets if s == seat), None)

    def wager(self, seat: int, wager: str) -> int | None:
        return next((a for s, w, a in self.wagers if s == seat and w == wager), None)

    def settlement(self, seat: int, wager: str) -> Settled | None:
        return next((x for s, w, x in self.settled if s == seat and w == wager), None)

    @property
    def seats(self) -> tuple[int, ...]:
        """Every seat that wagered or was dealt, in order."""
        return tuple(sorted({s for s, _, _ in self.wagers} | {s for s, _ in self.dealt} - {DEALER}))


def _who(seat: int | None) -> str:
    return "dealer" if seat is None else f"seat {seat}"


def _problem(state: RoundState, text: str) -> RoundState:
    return replace(state, problems=(*state.problems, text))


def _started(state: RoundState, e: RoundEvent, p: RoundStarted) -> RoundState:
    if state.game is not None:
        return _problem(state, f"RoundStarted again at table_seq {e.table_seq}")
    return replace(state, game=p.game, ruleset=p.ruleset, dealer_id=p.dealer_id,
                   started_at_us=e.occurred_at_us)


def _placed(state: RoundState, e: RoundEvent, p: WagerPlaced) -> RoundState:
    if state.wager(p.seat, p.wager) is not None:
        return _problem(state, f"seat {p.seat} placed a second {p.wager} wager "
                               f"at table_seq {e.table_seq}")
    if state.dealt:
        state = _problem(state, f"seat {p.seat} placed {p.wager} {p.amount_cents} after the "
                                f"cards were dealt (table_seq {e.table_seq}): past-posting")
    return replace(state, wagers=(*state.wagers, (p.seat, p.wager, p.amount_cents)))


def _dealt(state: RoundState, e: RoundEvent, p: CardsDealt) -> RoundState:
    seat = DEALER if p.seat is None else p.seat
    if state.cards(seat) is not None:
        return _problem(state, f"{_who(p.seat)} dealt cards twice (table_seq {e.table_seq})")
    return replace(state, dealt=(*state.dealt, (seat, p.cards)))


def _set(state: RoundState, e: RoundEvent, p: HandSet) -> RoundState:
    seat = DEALER if p.seat is None else p.seat
    if state.hand_set(seat) is not None:
        return _problem(state, f"{_who(p.seat)} set its hand twice (table_seq {e.table_seq})")
    return replace(state, sets=(*state.sets, (seat, p.high, p.low)))


def _settled(state: RoundState, e: RoundEvent, p: WagerSettled) -> RoundState:
    if state.settlement(p.seat, p.wager) is not None:
        return _problem(state, f"seat {p.seat} {p.wager} settled twice (table_seq {e.table_seq})")
    if state.wager(p.seat, p.wager) is None:
        state = _problem(state, f"seat {p.seat} {p.wager} settled but never placed")
    s = Settled(outcome=p.outcome, net_cents=p.net_cents, commission_cents=p.commission_cents)
    return replace(state, settled=(*state.settled, (p.seat, p.wager, s)))


def _ended(state: RoundState, e: RoundEvent, p: RoundEnded) -> RoundState:
    if state.ended:
        return _problem(state, f"RoundEnded twice (table_seq {e.table_seq})")
    return replace(state, ended=True)


_APPLY: dict[type, Callable[[RoundState, RoundEvent, Any], RoundState]] = {
    RoundStarted: _started,
    WagerPlaced: _placed,
    CardsDealt: _dealt,
    HandSet: _set,
    WagerSettled: _settled,
    RoundEnded: _ended,
}


def apply(state: RoundState | None, event: RoundEvent) -> RoundState:
    """The round after ``event``: one handler per event type, nothing else changes."""
    if state is None:
        state = RoundState(round_id=event.round_id, casino=event.casino, table_id=event.table_id)
        if not isinstance(event.payload, RoundStarted):
            state = _problem(state, f"{event.kind} before RoundStarted "
                                    f"(table_seq {event.table_seq})")
    elif state.ended:
        state = _problem(state, f"{event.kind} after RoundEnded (table_seq {event.table_seq})")
    if event.table_id != state.table_id:
        state = _problem(state, f"{event.kind} recorded at table {event.table_id}, "
                                f"round is at {state.table_id}")
    state = _APPLY[type(event.payload)](state, event, event.payload)
    return replace(state, events=state.events + 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class Replayed:
    """The fold's result: rounds in order of first appearance, and log-level findings."""

    rounds: tuple[RoundState, ...]
    findings: tuple[str, ...]


def fold(events: Iterable[tuple[str, RoundEvent]]) -> Replayed:
    """Fold ``(where, event)`` pairs (where = the record's place, for messages) into rounds.

    Log-level findings: a repeated event id (kept once), and a gap or repeat in a table's
    sequence numbers (STYLE.md 6)."""
    rounds: dict[str, RoundState] = {}
    seen: set[str] = set()
    last_seq: dict[str, int] = {}
    findings: list[str] = []
    for where, event in events:
        if event.event_id in seen:
            findings.append(f"{where}: event {event.event_id} repeated; kept once")
            continue
        seen.add(event.event_id)
        prev = last_seq.get(event.table_id)
        if prev is not None and event.table_seq != prev + 1:
            kind = "gap" if event.table_seq > prev + 1 else "out of order"
            findings.append(f"{where}: table {event.table_id} sequence {kind}: "
                            f"{event.table_seq} after {prev}")
        last_seq[event.table_id] = max(event.table_seq, prev or 0)
        rounds[event.round_id] = apply(rounds.get(event.round_id), event)
    return Replayed(rounds=tuple(rounds.values()), findings=tuple(findings))
