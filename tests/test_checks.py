"""Each check on a tiny hand-built table, with the exact flagged ids (STYLE.md 10)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.runner import CheckError, load_checks, parse_check, run_all
from replay.run import HANDS, ROUNDS, WAGERS


def _round(round_id, *, evaluated=True, problems=None):
    return {"round_id": round_id, "casino": "C01", "table_id": "T01", "game": "pai_gow_poker",
            "ruleset": "pai_gow_poker-classic-v1", "dealt_at": None, "dealer_id": "E011",
            "evaluated": evaluated, "problems": problems, "notation": None}


def _wager(round_id, seat, amount, recorded, expected):
    rec_outcome, rec_net, rec_comm = recorded if recorded else (None, None, None)
    exp_outcome, exp_net, exp_comm = expected if expected else (None, None, None)
    return {"round_id": round_id, "casino": "C01", "table_id": "T01", "seat": seat,
            "wager": "main", "amount_cents": amount,
            "recorded_outcome": rec_outcome, "recorded_net_cents": rec_net,
            "recorded_commission_cents": rec_comm, "expected_outcome": exp_outcome,
            "expected_net_cents": exp_net, "expected_commission_cents": exp_comm}


@pytest.fixture
def data(tmp_path):
    rounds = [_round("R1"), _round("R2"), _round("R3", evaluated=False,
                                                 problems="dealer was never dealt cards"),
              _round("R4", problems="seat 2 placed main 5000 after the cards were dealt "
                                    "(table_seq 9): past-posting")]
    wagers = [
        _wager("R1", 1, 2500, ("win", 2375, 125), ("win", 2375, 125)),     # right
        _wager("R1", 2, 2500, ("win", 2500, 0), ("win", 2375, 125)),       # overpay 125
        _wager("R1", 3, 1000, ("push", 0, 0), ("push", 0, 0)),             # trap: push
        _wager("R1", 4, 1000, ("loss", -1000, 0), ("loss", -1000, 0)),     # trap: foul loses
        _wager("R2", 1, 5000, ("loss", -5500, 0), ("loss", -5000, 0)),     # underpay 500
        _wager("R2", 2, 5000, None, ("win", 4750, 250)),                    # never settled
        _wager("R3", 1, 5000, ("win", 9999, 0), None),                      # not judged: no mispay
    ]
    replay_dir = tmp_path / "replay"
    replay_dir.mkdir()
    pq.write_table(pa.Table.from_pylist(rounds, schema=ROUNDS), replay_dir / "rounds.parquet")
    pq.write_table(pa.Table.from_pylist([], schema=HANDS), replay_dir / "hands.parquet")
    pq.write_table(pa.Table.from_pylist(wagers, schema=WAGERS), replay_dir / "wagers.parquet")
    return tmp_path


def _flags(data, check_id):
    rows = pq.read_table(data / "checks" / "flags.parquet").to_pylist()
    return [(r["round_id"], r["seat"], r["difference_cents"]) for r in rows
            if r["check_id"] == check_id]


def test_mispay_flags_exactly_the_over_and_underpaid_seats(data):
    counts = run_all(data / "replay", data / "checks")
    assert _flags(data, "mispay") == [("R1", 2, 125), ("R2", 1, -500)]
    assert counts["mispay"] == 2


def test_unsettled_and_not_evaluated_are_flagged_on_their_own(data):
    run_all(data / "replay", data / "checks")
    assert _flags(data, "unsettled") == [("R2", 2, None)]
    assert _flags(data, "not_evaluated") == [("R3", None, None)]


def test_flag_money_is_integer_cents(data):
    run_all(data / "replay", data / "checks")
    schema = pq.read_schema(data / "checks" / "flags.parquet")
    for name in ("recorded_cents", "expected_cents", "difference_cents"):
        assert schema.field(name).type == pa.int64()


def test_every_shipped_check_has_a_full_header():
    checks = load_checks()
    assert {c.id for c in checks} >= {"mispay", "unsettled", "not_evaluated", "irregular_round"}
    assert all(c.rule and c.severity in {"high", "medium", "low"} for c in checks)


def test_a_check_without_header_is_refused():
    with pytest.raises(CheckError, match=r"x\.sql: header lacks id, title"):
        parse_check("-- severity: high\n-- rule: none\nSELECT 1", "x.sql")


def test_missing_replay_output_says_what_to_run(tmp_path):
    with pytest.raises(CheckError, match=r"run `python -m replay` first"):
        run_all(tmp_path / "replay", tmp_path / "checks")


def test_irregular_round_flags_judged_rounds_with_problems_only(data):
    """R4 was judged but its record holds a past-posted wager; R3 (not evaluated) belongs to
    not_evaluated, and R1/R2 have no problems."""
    run_all(data / "replay", data / "checks")
    assert _flags(data, "irregular_round") == [("R4", None, None)]
    rows = pq.read_table(data / "checks" / "flags.parquet").to_pylist()
    (r4,) = [r for r in rows if r["check_id"] == "irregular_round"]
    assert "past-posting" in r4["detail"]
