"""The fault kinds of the facts of schema id 3, end to end without a broker: a simulated
shift whose only fault is one of them, written as ingest writes it, replayed and checked, is
flagged by the check that answers the kind at every labelled round, and by no rule check on
a round without a label; a clean shift with all the new facts is flagged by no rule check
(the lawful orderings and choices the checks must pass)."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from checks.evaluate import FAULT_CHECKS
from checks.runner import run_all
from ingest.simulate import simulate_shift
from replay.run import replay
from schemas import encode
from tests.test_replay_workers import _write as _write_log

CLASSIC, FACE_UP, TILES, CARIBBEAN = ("pai_gow_poker", "face_up_pai_gow", "pai_gow_tiles",
                                      "caribbean_stud")
SHIFTS = {
    # kind: (the check that must flag it, games dealt, rounds per table, seed)
    "reshuffle_skipped": ("reshuffle_missing", (CLASSIC,), 20, 31),
    "optional_settled_after_collected": ("optional_settled_after_collected", (FACE_UP,), 20,
                                         31),
    "jackpot_hand_collected_early": ("jackpot_hand_collected_before_paid",
                                     (FACE_UP, CARIBBEAN), 30, 31),
    "envy_hand_collected_early": ("envy_hand_collected_before_envy_paid", (FACE_UP,), 40, 31),
    "hand_changed_after_banker_exposed": ("hand_changed_after_banker_exposed", (CLASSIC,), 60,
                                          31),
    "player_reset_after_banker_exposed": ("hand_changed_after_banker_exposed", (CLASSIC,), 60,
                                          31),
    "bank_passed_not_followed": ("bank_passed_not_followed", (CLASSIC, TILES), 40, 31),
    "co_bank_without_cover": ("bank_not_covered", (CLASSIC, TILES), 60, 31),
    "bank_without_cover": ("bank_not_covered", (CLASSIC, TILES), 60, 31),
    "dealer_wager_not_preceding_patron": ("dealer_wager_not_preceding", (CLASSIC,), 60, 31),
}
"""Per kind, the check the common brief names for it and a shift of the games it strikes."""


def _flags(tmp_path, events):
    log = _write_log(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=500)
    replay(log, tmp_path / "replay")
    run_all(tmp_path / "replay", tmp_path / "checks")
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    return [f for f in flags if f["kind"] == "rule"]


@pytest.mark.parametrize("kind", list(SHIFTS))
def test_a_simulated_shift_of_one_new_kind_is_flagged_by_its_check_and_nothing_unlabelled(
        tmp_path, kind):
    check, games, rounds, seed = SHIFTS[kind]
    assert FAULT_CHECKS[kind] == check  # the check's own catches line says so too
    events, labels = simulate_shift(tables=4, rounds=rounds, seed=seed, fault_rate=0.5,
                                    faults=[kind], rich_hands=0.5, games=games)
    rule = _flags(tmp_path, events)
    assert len(labels) >= 3 and {label.kind for label in labels} == {kind}
    mine = {f["round_id"] for f in rule if f["check_id"] == check}
    labelled = {label.round_id for label in labels}
    assert labelled <= mine, sorted(labelled - mine)
    assert mine <= labelled, sorted(mine - labelled)
    assert [f for f in rule if f["round_id"] not in labelled] == []


def test_a_clean_shift_with_every_new_fact_is_flagged_by_no_rule_check(tmp_path):
    events, labels = simulate_shift(tables=8, rounds=40, seed=31, fault_rate=0.0,
                                    rich_hands=0.3)
    assert labels == []
    names = {type(e.payload).__name__ for e in events}
    assert {"HandCollected", "Shuffled", "BankPassed", "HandChanged"} <= names
    assert _flags(tmp_path, events) == []
