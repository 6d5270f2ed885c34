"""The fault kinds of the simulator that the catalogue's Envy, Ace High, bank, placement
and order-around-the-table checks answer: a simulated shift whose only fault is one of them
is flagged by its check (the one whose ``-- catches:`` line names the kind) at every
labelled round and seat, and by no rule check on a round without a label."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from checks.evaluate import FAULT_CHECKS
from checks.runner import run_all
from ingest.simulate import simulate_shift, with_layouts
from replay.run import replay
from schemas import encode
from tests.test_replay_workers import _write as _write_log

SHIFTS = {
    # kind: (games dealt, rounds per table, seed)
    "envy_underpaid": (("pai_gow_poker", "face_up_pai_gow"), 60, 18),
    "ace_high_mispaid": (("face_up_pai_gow",), 40, 18),
    "banker_mispaid": (("pai_gow_poker", "pai_gow_tiles"), 60, 18),
    "banker_commission_wrong": (("pai_gow_poker", "pai_gow_tiles"), 60, 18),
    "co_bank_share_wrong": (("pai_gow_poker", "pai_gow_tiles"), 60, 18),
    "settled_not_placed": (("pai_gow_poker", "face_up_pai_gow"), 30, 18),
    "tiles_exposed_out_of_order": (("pai_gow_tiles",), 30, 18),
    "tiles_winners_paid_out_of_order": (("pai_gow_tiles",), 40, 18),
    "players_exposed_out_of_order": (("pai_gow_poker",), 30, 18),
}
"""A shift per kind, of the games where the kind can strike."""


def _shift(tmp_path, kind):
    games, rounds, seed = SHIFTS[kind]
    book = with_layouts(tables=4)  # the tables' layouts filed, for the order around the table
    events, labels = simulate_shift(tables=4, rounds=rounds, seed=seed, fault_rate=0.5,
                                    faults=[kind], rich_hands=0.5, games=games, book=book)
    log = _write_log(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=500)
    replay(log, tmp_path / "replay", book=book)
    run_all(tmp_path / "replay", tmp_path / "checks")
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    return labels, [f for f in flags if f["kind"] == "rule"]


@pytest.mark.parametrize("kind", list(SHIFTS))
def test_a_simulated_shift_of_one_kind_is_flagged_by_its_check_and_nothing_unlabelled(
        tmp_path, kind):
    labels, rule = _shift(tmp_path, kind)
    check = FAULT_CHECKS[kind]
    assert len(labels) >= 5 and {label.kind for label in labels} == {kind}
    mine = {(f["round_id"], f["seat"]) for f in rule if f["check_id"] == check}
    for label in labels:
        assert (label.round_id, label.seat) in mine, label
    labelled = {label.round_id for label in labels}
    assert [f for f in rule if f["round_id"] not in labelled] == []
    # the check flags the labelled rounds only, and there the labelled seat (and wager)
    seats = {(label.round_id, label.seat) for label in labels}
    assert mine == seats
    wagers = {(label.round_id, label.seat, label.wager) for label in labels}
    assert {(f["round_id"], f["seat"], f["wager"]) for f in rule
            if f["check_id"] == check} == wagers
