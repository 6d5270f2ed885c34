"""Replay from a log on disk to Parquet: right settlements, honest gaps, identical bytes."""

from __future__ import annotations

import hashlib

import pyarrow.parquet as pq

from ingest.log import LogWriter, Received
from replay.run import replay
from schemas import encode
from tests.conftest import run_cli
from tests.events_factory import Table

# Dealer: pair of kings behind, A-Q in front. Seat 1 (trips, A-K) beats both: wins.
# Seat 2 (pair of nines behind, A-J in front) loses the high hand and the low hand: loses.
# Seat 3 (straight behind, 8-6 in front): wins high, loses low: push.
DEALER = ("Kc Kd 9s 7h 3c", "Ah Qs")
SEATS = {
    1: {"main": 2500, "hand": ("5s 5h 5d Tc 2c", "As Kh"), "settled": ("win", 2375, 125)},
    2: {"main": 1000, "hand": ("9c 9d 7c 4h 2d", "Ad Jd"), "settled": ("loss", -1000, 0)},
    3: {"main": 4000, "hand": ("6c 5c 4d 3h 2h", "8s 6d"), "settled": ("push", 0, 0)},
}


def _write_log(tmp_path, events):
    log = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    log.append([Received(topic="round-events", partition=0, offset=i, timestamp_ms=i,
                         key=e.table_id.encode(), value=encode(e))
                for i, e in enumerate(events)], [])


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_replay_judges_each_main_wager(tmp_path):
    table = Table()
    seats = {**SEATS, 1: {**SEATS[1], "settled": ("win", 2500, 0)}}  # commission not taken
    _write_log(tmp_path, table.round("T01-000001", dealer=DEALER, seats=seats))
    summary = replay(tmp_path / "log", tmp_path / "replay")
    assert (summary.rounds, summary.evaluated, summary.wagers) == (1, 1, 3)
    wagers = pq.read_table(tmp_path / "replay" / "wagers.parquet").to_pylist()
    got = {w["seat"]: (w["expected_outcome"], w["expected_net_cents"],
                       w["expected_commission_cents"], w["recorded_net_cents"]) for w in wagers}
    assert got == {1: ("win", 2375, 125, 2500), 2: ("loss", -1000, 0, -1000),
                   3: ("push", 0, 0, 0)}
    (rnd,) = pq.read_table(tmp_path / "replay" / "rounds.parquet").to_pylist()
    assert rnd["evaluated"] is True and rnd["problems"] == []
    assert rnd["notation"].startswith("T01-000001 pai_gow_poker D=KcKd9s7h3c/AhQs S1(main 2500)")
    assert rnd["ruleset"] == "pai_gow_poker-classic-v1"


def test_a_round_missing_the_dealers_cards_is_not_evaluated(tmp_path):
    table = Table()
    events = [e for e in table.round("T01-000001", dealer=DEALER, seats=SEATS)
              if not (e.kind == "CardsDealt" and e.payload.seat is None)]
    _write_log(tmp_path, events)
    replay(tmp_path / "log", tmp_path / "replay")
    (rnd,) = pq.read_table(tmp_path / "replay" / "rounds.parquet").to_pylist()
    assert rnd["evaluated"] is False
    assert any("dealer has no 'cards'" in p for p in rnd["problems"])
    wagers = pq.read_table(tmp_path / "replay" / "wagers.parquet").to_pylist()
    assert all(w["expected_net_cents"] is None for w in wagers)
    assert [w["recorded_net_cents"] for w in wagers] == [2375, -1000, 0]


def test_same_log_byte_identical_output(tmp_path):
    table = Table()
    events = [*table.round("T01-000001", dealer=DEALER, seats=SEATS),
              *table.round("T01-000002", dealer=DEALER, seats=SEATS)]
    _write_log(tmp_path, events)
    first = tmp_path / "a"
    second = tmp_path / "b"
    replay(tmp_path / "log", first)
    replay(tmp_path / "log", second)
    for name in ("rounds", "hands", "wagers"):
        assert _sha(first / f"{name}.parquet") == _sha(second / f"{name}.parquet")


def test_replay_cli_says_what_to_run_when_there_is_no_log(tmp_path):
    proc = run_cli("replay", "--data", str(tmp_path))
    assert proc.returncode == 2
    assert "no log at" in proc.stderr and "python -m ingest" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_past_posting_is_judged_and_reported_not_hidden(tmp_path):
    """A wager placed after the deal is an irregularity to flag, not a reason to stop judging
    the round (docs/design.md principle 8)."""
    from schemas import WagerPlaced

    table = Table()
    events = table.round("T01-000001", dealer=DEALER, seats=SEATS)
    late = table.event("T01-000001", WagerPlaced(seat=1, wager="fortune", amount_cents=500))
    events.insert(len(events) - 1, late)
    _write_log(tmp_path, events)
    replay(tmp_path / "log", tmp_path / "replay")
    (rnd,) = pq.read_table(tmp_path / "replay" / "rounds.parquet").to_pylist()
    assert rnd["evaluated"] is True
    assert any("seat 1 placed fortune 500 after the cards were dealt" in p for p in rnd["problems"])
    assert any("past-posting" in p for p in rnd["problems"])
    wagers = pq.read_table(tmp_path / "replay" / "wagers.parquet").to_pylist()
    main = {w["seat"]: w["expected_net_cents"] for w in wagers if w["wager"] == "main"}
    assert main == {1: 2375, 2: -1000, 3: 0}
