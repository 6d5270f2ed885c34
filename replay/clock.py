"""A table's clock against the broker's: an event whose occurred-at is far from the time
Kafka received it.

Every event carries the table device's own time (``occurred_at``) and every log record the
broker's timestamp of the message (the producer's create time, or the broker's append
time, as the topic is configured). A device's clock that is wrong (a dead battery, no
time service: a round dated 1971) misdates its rounds, and the ruleset in force is chosen
by the date a round was dealt. So each event whose two times differ by more than
:data:`TOLERANCE_US` (5 minutes) is a log-level finding ``clock_skew`` with both times and
the difference (the check ``clock_skew`` flags it, docs/checks.md), and a round whose
RoundStarted is so skewed has its ruleset chosen by the broker's time of that RoundStarted
instead (:func:`judged_at`, docs/rules.md 8.7): the broker's clock is the one time source
the table does not control. What the table recorded is kept as recorded (the timeline,
``dealt_at``); the finding says which time chose the ruleset.

The comparison means something only when the broker's timestamp is not the device's own
clock: the topic's ``message.timestamp.type=LogAppendTime``, or a producer (a gateway) that
stamps create time with a clock of its own. No clock is read here: both times come from the
log (docs/design.md: replay is a fold).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from replay.fold import Finding, RoundKey, RoundState
from schemas import RoundEvent, RoundStarted

TOLERANCE_US = 5 * 60 * 1_000_000
"""How far (microseconds) an event's occurred-at may be from its broker timestamp before it
is a finding and before a RoundStarted's broker time chooses the round's ruleset: 5 minutes,
well beyond the seconds a table device's buffering and a producer's retries add, well below
the hours a clock that was never set is off. The check ``clock_skew`` flags findings beyond
its own ``tolerance_seconds`` (default the same 300 s; it can be raised, not lowered below
what replay records)."""

EARLIEST_BROKER_MS = 1_000_000_000_000
"""A broker timestamp before this (2001-09-09 01:46:40 UTC, long before any Kafka) is not a
time: a producer that set none, or a broker whose own clock is unset. Nothing is compared
with it and it chooses no ruleset (a round is then judged by its own date, as always)."""

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _broker_us(broker_ms: int | None) -> int | None:
    if broker_ms is None or broker_ms < EARLIEST_BROKER_MS:
        return None
    return broker_ms * 1000


def _iso(us: int) -> str:
    try:
        return (_EPOCH + dt.timedelta(microseconds=us)).isoformat(timespec="milliseconds"
                                                                 ).replace("+00:00", "Z")
    except OverflowError:
        return f"{us} us after the epoch"


def skew_finding(where: str, event: RoundEvent, broker_ms: int | None,
                 tolerance_us: int = TOLERANCE_US) -> Finding | None:
    """The ``clock_skew`` finding of ``event`` (at ``where`` in the log) when its occurred-at
    differs from its record's broker timestamp (``broker_ms``; None or before
    :data:`EARLIEST_BROKER_MS`: no time, no finding) by more than ``tolerance_us``;
    the detail gives both times and the difference in seconds (``... the table's clock is
    1763000000.000 s behind ...``, the number the check reads)."""
    broker_us = _broker_us(broker_ms)
    if broker_us is None:
        return None
    diff = event.occurred_at_us - broker_us
    if abs(diff) <= tolerance_us:
        return None
    side = "behind" if diff < 0 else "ahead of"
    chosen = ("; the round's ruleset is chosen by the broker's time"
              if isinstance(event.payload, RoundStarted) else "")
    return Finding(kind="clock_skew", table_id=event.table_id, where=where,
                   detail=f"{event.kind} (table_seq {event.table_seq}) occurred_at "
                          f"{_iso(event.occurred_at_us)}, broker timestamp {_iso(broker_us)}: "
                          f"the table's clock is {abs(diff) / 1e6:.3f} s {side} the "
                          f"broker's{chosen}",
                   round_id=event.round_id, casino=event.casino)


def started_clock(event: RoundEvent, broker_ms: int | None,
                  tolerance_us: int = TOLERANCE_US) -> tuple[RoundKey, int] | None:
    """(round key, the broker's time in microseconds) when ``event`` is a RoundStarted whose
    occurred-at is skewed beyond ``tolerance_us``: the time its round's ruleset is chosen
    by (:func:`judged_at`); else None."""
    broker_us = _broker_us(broker_ms)
    if (broker_us is None or not isinstance(event.payload, RoundStarted)
            or abs(event.occurred_at_us - broker_us) <= tolerance_us):
        return None
    return (event.casino, event.table_id, event.round_id), broker_us


def judged_at(state: RoundState, clocks: dict[RoundKey, int]) -> RoundState:
    """``state`` with the time its ruleset is chosen by: the broker's time of its
    RoundStarted when that was skewed (``clocks``, from :func:`started_clock`), else as
    it is."""
    at = clocks.get((state.casino, state.table_id, state.round_id))
    if at is None or state.started_at_us is None:
        return state
    return dataclasses.replace(state, clock_at_us=at)


def clock(entry: tuple[Any, ...], event: RoundEvent, findings: list[tuple[int, Finding]],
          clocks: dict[RoundKey, int]) -> None:
    """Look at one decoded log entry (``replay.batch_decode.Entry``: ordinal, where, key,
    value, broker timestamp): its ``clock_skew`` finding, if any, goes to ``findings`` with
    the entry's ordinal, and a skewed RoundStarted's broker time to ``clocks``. Replay and
    its live loop both call it, so the two record the same."""
    broker_ms = entry[4] if len(entry) > 4 else None
    found = skew_finding(entry[1], event, broker_ms)
    if found is None:
        return
    findings.append((entry[0], found))
    started = started_clock(event, broker_ms)
    if started is not None:
        clocks[started[0]] = started[1]
