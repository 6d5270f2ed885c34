"""A table's clock against the broker's (replay/clock.py, checks/sql/clock_skew.sql).

An event whose occurred-at is more than 5 minutes from its record's broker timestamp is a
log finding with both times and the difference; the check flags those beyond its
``tolerance_seconds``; a round whose RoundStarted is so skewed (a device dated 1971) is
judged under the ruleset in force at the broker's time instead of under none."""

from __future__ import annotations

import dataclasses

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.runner import run_checks
from ingest.log import LogWriter, Received
from replay.clock import TOLERANCE_US, skew_finding
from replay.run import TABLES, replay
from schemas import RoundEvent, encode
from tests.events_factory import T0, Table
from tests.outputs_support import sign_replay
from tests.test_checks import _round
from tests.test_replay import DEALER, SEATS

BROKER_MS = T0 // 1000  # 2026-11-28 18:00:00 UTC, the broker's time of the shift
Y1971_US = 31_536_000_000_000  # 1971-01-01 00:00:00 UTC


def _finding(round_id: str, detail: str, *, kind: str = "clock_skew",
             where: str = "log position 1 (round-events[0]@1)") -> dict:
    return {"kind": kind, "casino": "C01", "table_id": "T01", "round_id": round_id,
            "where": where, "detail": detail}


def _skew(seconds: str, side: str = "behind") -> str:
    return (f"WagerPlaced (table_seq 2) occurred_at ..., broker timestamp ...: the table's "
            f"clock is {seconds} s {side} the broker's")


@pytest.fixture
def replay_dir(tmp_path):
    """A hand-built findings table: skews on both sides of the 300 s tolerance."""
    findings = [
        _finding("K1", _skew("299.999")),                        # trap: inside
        _finding("K2", _skew("300.000")),                        # trap: at the tolerance
        _finding("K3", _skew("300.001")),                        # just beyond
        _finding("K4", _skew("86400.000", "ahead of")),          # a day ahead
        _finding("K5", "the clock is wrong, in words the check cannot read"),  # fail closed
        _finding("K6", "table T01 sequence gap: 9 after 7", kind="sequence_gap"),
    ]
    out = tmp_path / "replay"
    out.mkdir()
    given = {"rounds": [_round(f"K{i}") for i in range(1, 7)], "findings": findings}
    for name, schema in TABLES.items():
        rows = [{"casino": "C01", **row} for row in given.get(name, [])]
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), out / f"{name}.parquet")
    sign_replay(tmp_path)  # signed as replay signs its outputs: the checks read nothing else
    return out


def _flagged(run_dir, check_id):
    return [f["round_id"] for f in pq.read_table(run_dir / "flags.parquet").to_pylist()
            if f["check_id"] == check_id]


def test_the_check_flags_only_what_is_beyond_the_tolerance(replay_dir, tmp_path):
    run_checks(replay_dir, tmp_path / "checks")
    assert _flagged(tmp_path / "checks", "clock_skew") == ["K3", "K4", "K5"]
    assert "K3" not in _flagged(tmp_path / "checks", "log_findings")  # named once only
    assert _flagged(tmp_path / "checks", "sequence_gap") == ["K6"]
    run_checks(replay_dir, tmp_path / "wider", params={"tolerance_seconds": 3600})
    assert _flagged(tmp_path / "wider", "clock_skew") == ["K4", "K5"]


def test_a_finding_only_beyond_five_minutes_and_only_against_a_real_broker_time():
    event = Table().event("R-1", Table().round("R-1", dealer=DEALER, seats=SEATS)[1].payload)
    at_ms = event.occurred_at_us // 1000
    assert TOLERANCE_US == 300_000_000
    assert skew_finding("here", event, at_ms + 300_000) is None        # exactly 5 minutes
    beyond = skew_finding("here", event, at_ms - 300_001)
    assert beyond is not None and beyond.kind == "clock_skew"
    assert beyond.detail.endswith("the table's clock is 300.001 s ahead of the broker's")
    assert "occurred_at 2026-11-28T18:00:01.000Z" in beyond.detail
    assert skew_finding("here", event, 5) is None       # a broker time of 1970 is no time
    assert skew_finding("here", event, None) is None


def _dated_1971(events: list[RoundEvent]) -> list[RoundEvent]:
    return [dataclasses.replace(e, occurred_at_us=Y1971_US + e.table_seq * 1_000_000)
            for e in events]


def test_a_round_dated_1971_is_judged_by_the_brokers_time_and_found(tmp_path):
    table = Table()
    right = table.round("T01-000001", dealer=DEALER, seats=SEATS)
    wrong = _dated_1971(table.round("T01-000002", dealer=DEALER, seats=SEATS))
    near = [dataclasses.replace(e, occurred_at_us=e.occurred_at_us + 240_000_000)
            for e in table.round("T01-000003", dealer=DEALER, seats=SEATS)]  # 4 min: inside
    events = [*right, *wrong, *near]
    with LogWriter(tmp_path / "log", tmp_path / "quarantine") as log:
        log.append([Received(topic="round-events", partition=0, offset=i,
                             timestamp_ms=BROKER_MS + i * 1000, key=b"T01", value=encode(e))
                    for i, e in enumerate(events)], [])
    summary = replay(tmp_path / "log", tmp_path / "replay")
    rounds = {r["round_id"]: r for r in
              pq.read_table(tmp_path / "replay" / "rounds.parquet").to_pylist()}
    assert rounds["T01-000002"]["evaluated"] is True
    assert rounds["T01-000002"]["ruleset"] == rounds["T01-000001"]["ruleset"] == (
        "pai_gow_poker-classic-v1")
    assert rounds["T01-000002"]["dealt_at"].year == 1971  # what the table recorded stays
    skewed = [f for f in summary.findings if f.kind == "clock_skew"]
    assert [f.round_id for f in skewed] == ["T01-000002"] * len(wrong)
    first = skewed[0]
    n = len(right)
    assert first.where == f"log position {n} (round-events[0]@{n})"
    assert first.detail == (
        f"RoundStarted (table_seq {n + 1}) occurred_at 1971-01-01T00:00:{n + 1:02d}.000Z, "
        f"broker timestamp 2026-11-28T18:00:{n:02d}.000Z: the table's clock is "
        f"{(BROKER_MS + n * 1000) / 1000 - (Y1971_US / 1e6 + n + 1):.3f} s behind the "
        "broker's; the round's ruleset is chosen by the broker's time")
    assert not skewed[1].detail.endswith("chosen by the broker's time")
    run_checks(tmp_path / "replay", tmp_path / "checks")
    flagged = _flagged(tmp_path / "checks", "clock_skew")
    assert flagged == ["T01-000002"] * len(wrong)
    assert "T01-000002" not in _flagged(tmp_path / "checks", "not_evaluated")


def test_the_live_loop_finds_and_judges_as_replay_does(tmp_path):
    """The live loop (replay/live.py), taking the log in two steps, writes the files a
    batch replay writes: the same findings, the 1971 round judged the same way."""
    from ingest.keys import load_signer
    from replay.live import LiveReplay
    from tests.test_replay_live import _same_as_batch

    table = Table()
    events = [*table.round("T01-000001", dealer=DEALER, seats=SEATS),
              *_dated_1971(table.round("T01-000002", dealer=DEALER, seats=SEATS))]
    data = tmp_path / "data"
    writer = LogWriter(data / "log", data / "quarantine", signer=load_signer(data),
                       checkpoint_dir=data / "checkpoints")
    live = LiveReplay(data, full_every=None)
    try:
        for start, part in ((0, events[:15]), (15, events[15:])):
            writer.append([Received(topic="round-events", partition=0, offset=start + i,
                                    timestamp_ms=BROKER_MS + (start + i) * 1000, key=b"T01",
                                    value=encode(e)) for i, e in enumerate(part)], [])
            got = live.step()
            assert got.ok, got.message
    finally:
        writer.close()
    files = _same_as_batch(data, tmp_path)
    assert b"clock_skew" in files["findings.parquet"]
    rounds = pq.read_table(data / "replay" / "rounds.parquet").to_pylist()
    assert [r["evaluated"] for r in rounds] == [True, True]
