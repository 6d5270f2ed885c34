"""The commission checks on a tiny hand-built table: the exact flagged wagers, and their
false-positive traps (a push and a loss without commission, a lawfully rounded vigorish, a
foul that loses, a round not judged, the player banker's own account)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.runner import run_all
from replay.run import TABLES
from tests.outputs_support import sign_replay
from tests.test_checks import _round, _wager


def _tiles(round_id, seat, amount, recorded, expected):
    return {**_wager(round_id, seat, amount, recorded, expected), "game": "pai_gow_tiles"}


@pytest.fixture
def data(tmp_path):
    rounds = [_round("C1"), _round("C2"), _round("C3", evaluated=False, problems=["x"])]
    bank = {**_wager("C1", 6, 0, ("push", 0, 150), ("push", 0, 0)), "position": "banker"}
    wagers = [
        _wager("C1", 1, 2000, ("push", 0, 200), ("push", 0, 0)),       # commission on a push,
        _wager("C1", 2, 1000, ("loss", -1000, 50), ("loss", -1000, 0)),  # net right; on a loss
        _wager("C1", 3, 1000, ("push", 0, 0), ("push", 0, 0)),         # trap: a plain push
        _wager("C1", 4, 2500, ("win", 2375, 125), ("win", 2375, 125)),  # trap: right
        bank,                                                           # trap: the bank
        _wager("C2", 1, 2500, ("win", 2400, 100), ("win", 2375, 125)),  # 100 where 125 is due
        _tiles("C2", 2, 1500, ("win", 1425, 75), ("win", 1425, 75)),    # trap: vig rounded
        _wager("C2", 3, 1000, ("loss", -1000, 0), ("loss", -1000, 0)),  # trap: a foul loses
        _wager("C2", 4, 2500, ("win", 2350, 150), ("win", 2375, 125)),  # 150 where 125 is due
        _wager("C3", 1, 2500, ("win", 2500, 0), None),                  # trap: not judged
        _wager("C3", 2, 1000, ("push", 0, 10), None),                   # a push: judged or not
    ]
    replay_dir = tmp_path / "replay"
    replay_dir.mkdir()
    given = {"rounds": rounds, "wagers": wagers}
    for name, schema in TABLES.items():
        rows = [{"casino": "C01", **row} for row in given.get(name, [])]
        pq.write_table(pa.Table.from_pylist(rows, schema=schema),
                       replay_dir / f"{name}.parquet")
    sign_replay(replay_dir.parent)
    run_all(replay_dir, tmp_path / "checks")
    return pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()


def _of(flags, check_id):
    return [(f["round_id"], f["seat"], f["recorded_cents"], f["expected_cents"],
             f["amount_at_stake_cents"], f["direction"])
            for f in flags if f["check_id"] == check_id]


def test_commission_on_a_push_or_a_loss_is_flagged_even_with_the_right_net(data):
    # amounts are the commission's effect on the patron's net: charged wrongly, underpaid
    assert _of(data, "commission_on_push_or_loss") == [
        ("C1", 1, -200, 0, 200, "under"),
        ("C1", 2, -50, 0, 50, "under"),
        ("C3", 2, -10, 0, 10, "under"),
    ]
    # the nets the wrong commissions made: C2's, counted by the settlement checks
    assert [(f["check_id"], f["round_id"], f["seat"]) for f in data
            if f["check_id"] in ("paid_loser", "collected_winner", "overpay", "underpay")] == [
        ("overpay", "C2", 1), ("underpay", "C2", 4)]


def test_a_commission_of_the_wrong_amount_is_flagged_both_ways(data):
    assert _of(data, "commission_wrong") == [
        ("C2", 1, -100, -125, 25, "over"),   # too small a commission: the patron got more
        ("C2", 4, -150, -125, 25, "under"),
    ]
    detail = next(f["detail"] for f in data if f["check_id"] == "commission_wrong")
    assert detail == ("pai_gow_poker seat 1 main: commission recorded 100, the rules require "
                      "125 (cents)")
