"""The statistical surveillance checks (``-- kind: statistical``) on hand-built shifts whose
answer is known by construction: peers alike but one, a dealer below the minimum sample, too
few peers; and the collusion pattern with its traps (twice only, two days, two dealers,
underpaid)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.runner import load_checks, run_checks
from replay.run import TABLES
from tests.outputs_support import sign_replay

DAY1 = datetime(2026, 3, 14, 18, 0, tzinfo=UTC)


def _round(table, dealer, n, when, *, evaluated=True):
    return {"round_id": f"{table}-{n:06d}", "casino": "C01", "table_id": table,
            "game": "pai_gow_poker", "ruleset": "pai_gow_poker-classic-v1", "dealt_at": when,
            "dealer_id": dealer, "evaluated": evaluated, "problems": None, "notation": None}


def _wager(r, seat, recorded, expected, *, amount=1000, position=None):
    return {"round_id": r["round_id"], "casino": "C01", "table_id": r["table_id"],
            "game": r["game"], "dealt_at": r["dealt_at"], "dealer_id": r["dealer_id"],
            "seat": seat, "position": position or f"seat {seat}", "wager": "main",
            "amount_cents": amount, "recorded_outcome": None, "recorded_net_cents": recorded,
            "recorded_commission_cents": 0, "expected_outcome": None,
            "expected_net_cents": expected if r["evaluated"] else None,
            "expected_commission_cents": 0}


def _write(tmp_path: Path, rounds, wagers) -> Path:
    replay = tmp_path / "replay"
    replay.mkdir(parents=True)
    given = {"rounds": rounds, "wagers": wagers}
    for name, schema in TABLES.items():
        pq.write_table(pa.Table.from_pylist(given.get(name, []), schema=schema),
                       replay / f"{name}.parquet")
    sign_replay(replay.parent)
    return replay


def _shift(tmp_path, dealers, *, lucky=()):
    """``dealers``: (dealer, rounds, overpaid rounds); dealer Di deals table Ti alone. Every
    round has one seat of 1,000 cents: won 950 on even rounds, lost 1,000 on odd ones (a
    ``lucky`` dealer's patrons win every round); an overpaid round is paid 100 more than
    the rules require."""
    rounds, wagers = [], []
    for i, (dealer, count, overpaid) in enumerate(dealers, 1):
        for n in range(count):
            r = _round(f"T{i}", dealer, n, DAY1 + timedelta(minutes=n))
            rounds.append(r)
            expected = 950 if n % 2 == 0 or dealer in lucky else -1000
            recorded = expected + (100 if n < overpaid else 0)
            wagers.append(_wager(r, 1, recorded, expected))
            # the round's totals over the patrons' wagers, as replay writes them
            r.update(wagered_cents=1000, house_win_cents=-recorded,
                     mispay_cents=recorded - expected, mispaid_wagers=int(n < overpaid))
            # the player banker's own account never counts towards a hold
            wagers.append(_wager(r, 6, 5000, 5000, amount=0, position="banker"))
        bad = _round(f"T{i}", dealer, count, DAY1, evaluated=False)  # never counts
        bad.update(wagered_cents=1000, house_win_cents=-99_999)
        rounds.append(bad)
        wagers.append(_wager(bad, 1, 99_999, None))
    return _write(tmp_path, rounds, wagers)


def _leads(replay, check_id, **params):
    run_checks(replay, replay.parent / "checks", only=[check_id], params=params or None)
    return pq.read_table(replay.parent / "checks" / "flags.parquet").to_pylist()


def _found(leads):
    return sorted((f["dealer_id"] or f["table_id"], f["detail"].split(": ")[1].split(" ")[0])
                  for f in leads)


PEERS = [(f"D{i}", 250, 0) for i in range(1, 6)]


def test_a_dealer_with_many_mispaid_rounds_is_a_lead_on_errors_and_net_mispay(tmp_path):
    replay = _shift(tmp_path, [*PEERS, ("D6", 250, 10), ("D7", 150, 75)])
    leads = _leads(replay, "peer_outlier")
    # Pooled over D1-D6 (D7 has fewer than 200 rounds: neither a lead nor a peer): error
    # rate p = 10 / 1,500; D6's z = (10 - 250p) / sqrt(250 p (1 - p)) = 8.333 / 1.2867 = 6.48.
    # Net mispay: mean 0.667 cents a round, per-round variance (10 x 99.33^2 + 1,490 x
    # 0.667^2) / 1,500 = 66.22, z = (1,000 - 166.7) / sqrt(66.22 x 250) = 6.48 too. The hold:
    # 10 dollars against swings of about 10 dollars a round is no signal (z = -0.05).
    assert _found(leads) == [("D6", "error"), ("D6", "net"), ("T6", "error"), ("T6", "net")]
    assert {f["kind"] for f in leads} == {"statistical"}
    error = next(f for f in leads if f["dealer_id"] == "D6" and "error rate" in f["detail"])
    assert error["detail"] == (
        "dealer D6 (pai_gow_poker, 250 judged rounds): error rate 4.00% against the peers' "
        "0.67% (z +6.5, threshold 3.5, 6 dealers); 10 rounds in error, net mispay 1000 "
        "cents, house win 5250 of 250000 cents wagered")
    assert (error["game"], error["table_id"], error["round_id"]) == ("pai_gow_poker", None,
                                                                     None)


def test_a_dealer_whose_patrons_always_win_is_a_lead_on_hold(tmp_path):
    replay = _shift(tmp_path, [*PEERS, ("D6", 250, 0)], lucky={"D6"})
    leads = _leads(replay, "peer_outlier")
    # pooled hold (5 x 6,250 - 237,500) / 1,500,000 = -13.75%; residuals -812.5 on a won
    # round, +1,137.5 on a lost one; per-round variance 924,219; D6: 250 x -812.5 /
    # sqrt(924,219 x 250) = -13.4. Each peer: 40,625 / 15,201 = +2.7, under 3.5.
    assert _found(leads) == [("D6", "hold"), ("T6", "hold")]
    assert "hold -95.00% against the peers' -13.75% (z -13.4," in leads[0]["detail"]


def test_a_smaller_minimum_sample_brings_the_small_dealer_in(tmp_path):
    replay = _shift(tmp_path, [*PEERS, ("D6", 250, 10), ("D7", 150, 75)])
    leads = _leads(replay, "peer_outlier", min_rounds=100)
    errors = sorted(f["dealer_id"] for f in leads
                    if f["dealer_id"] and "error rate" in f["detail"])
    # p = 85 / 1,650: z(D7) = (75 - 7.73) / 2.71 = 24.9; z(D6) = (10 - 12.88) / 3.50 = -0.8
    assert errors == ["D7"]


def test_too_few_peers_or_alike_dealers_give_no_lead(tmp_path):
    few = _shift(tmp_path / "few", [*PEERS[:3], ("D6", 250, 10)])  # 4 units < 5
    assert _leads(few, "peer_outlier") == []
    alike = _shift(tmp_path / "alike", [*PEERS, ("D6", 250, 0)])
    assert _leads(alike, "peer_outlier") == []


def test_a_low_error_rate_is_never_a_lead(tmp_path):
    # five dealers at 4% errors and one at 0%: z(D6) = -2.9 on errors; only high is a lead
    replay = _shift(tmp_path, [(f"D{i}", 250, 10) for i in range(1, 6)] + [("D6", 250, 0)])
    assert not [f for f in _leads(replay, "peer_outlier") if "error rate" in f["detail"]]
    assert not [f for f in _leads(replay, "peer_outlier", threshold=2.5)
                if "error rate" in f["detail"]]


def _table(table, dealer, count, overpays, *, day=0, first=0):
    """``count`` rounds of ``dealer`` at ``table`` on day ``day``, every one with seats 1 to
    7 each winning 950; ``overpays`` maps a round's index to {seat: cents paid too much}
    (negative: too little)."""
    rounds, wagers = [], []
    for n in range(first, first + count):
        r = _round(table, dealer, n, DAY1 + timedelta(days=day, minutes=n))
        rounds.append(r)
        for seat in range(1, 8):
            wagers.append(_wager(r, seat, 950 + overpays.get(n, {}).get(seat, 0), 950))
    return rounds, wagers


def _seat_shift(tmp_path, *tables):
    rounds = [r for t in tables for r in t[0]]
    return _write(tmp_path, rounds, [w for t in tables for w in t[1]])


def test_a_seat_overpaid_far_more_often_than_the_dealers_other_seats_is_a_lead(tmp_path):
    replay = _seat_shift(
        tmp_path,
        # the lead: all 4 of D1's overpayments on seat 3, which played 10 of 70 seat-rounds:
        # chance (1/7)^4 = 0.00042
        _table("T1", "D1", 10, {0: {3: 100}, 2: {3: 250}, 4: {3: 25}, 6: {3: 100}}),
        # trap: errors spread over the seats (seat 3 has 3 of 9): chance 0.13
        _table("T2", "D2", 10, {0: {1: 50, 2: 50, 3: 50}, 1: {4: 50, 5: 50, 3: 50},
                                2: {6: 50, 7: 50, 3: 50}}),
        # 3 of 3 on one seat: chance (1/7)^3 = 0.0029, not below 0.001
        _table("T3", "D3", 10, {0: {3: 100}, 1: {3: 100}, 2: {3: 100}}),
        # trap: two dealers, twice each, on seat 4
        _table("T4", "D4", 5, {0: {4: 100}, 1: {4: 100}}),
        _table("T4", "D5", 5, {5: {4: 100}, 6: {4: 100}}, first=5),
        # trap: underpaid four times
        _table("T5", "D5", 10, {n: {5: -100} for n in range(4)}),
        # trap: twice on one day, twice the next
        _table("T6", "D6", 5, {0: {6: 100}, 1: {6: 100}}),
        _table("T6", "D6", 5, {5: {6: 100}, 6: {6: 100}}, day=1, first=5),
    )
    leads = _leads(replay, "repeat_overpay_seat")
    assert [(f["table_id"], f["seat"], f["dealer_id"], f["recorded_cents"],
             f["expected_cents"], f["amount_at_stake_cents"], f["direction"], f["kind"])
            for f in leads] == [("T1", 3, "D1", 4 * 950 + 475, 4 * 950, 475, "over",
                                 "statistical")]
    assert leads[0]["detail"] == (
        "seat 3 at table T1 overpaid in 4 of the 4 overpaid seat-rounds of dealer D1 on "
        "2026-03-14, though it played 10 of the 70 seat-rounds (chance 0.00042, threshold "
        "0.001): 475 cents in all; rounds T1-000000, T1-000002, T1-000004, T1-000006")
    looser = _leads(replay, "repeat_overpay_seat", max_p=0.01)
    assert [(f["table_id"], f["seat"]) for f in looser] == [("T1", 3), ("T3", 3)]
    assert [(f["table_id"], f["seat"]) for f in _leads(replay, "repeat_overpay_seat",
                                                       min_overpays=5)] == []


def test_statistical_checks_are_declared_so_and_rule_checks_are_not():
    kinds = {c.id: c.kind for c in load_checks()}
    statistical = ("peer_outlier", "repeat_overpay_seat", "repeat_overpay_patron")
    assert {kinds[i] for i in statistical} == {"statistical"}
    assert {k for i, k in kinds.items() if i not in statistical} == {"rule"}


@pytest.mark.parametrize("check_id", ["peer_outlier", "repeat_overpay_seat",
                                      "repeat_overpay_patron"])
def test_a_statistical_check_on_an_empty_shift_gives_nothing(tmp_path, check_id):
    assert _leads(_write(tmp_path, [], []), check_id) == []
