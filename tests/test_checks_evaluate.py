"""Scoring the flags against the labels of a simulated shift (checks/evaluate.py): a fault
caught, missed, caught at the wrong seat; a false alarm; a statistical lead never scored;
bad labels named by file and line; the answer key covers every fault kind with a real
check."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.evaluate import (
    FAULT_CHECKS,
    EvaluationError,
    evaluate,
    fault_checks,
    main,
    markdown,
    read_labels,
)
from checks.runner import FLAG_SCHEMA, load_checks, parse_check, run_checks
from ingest.log import LogWriter, Received
from ingest.sim_faults import FAULT_KINDS
from ingest.simulate import simulate_shift, with_layouts
from replay.run import replay
from schemas import encode
from tests.outputs_support import sign_replay


def _label(round_id, kind, seat=None, casino="C01"):
    return {"casino": casino, "round_id": round_id, "kind": kind, "seat": seat,
            "wager": None, "amount_cents": 100}


def _flag(check, round_id, seat=None, casino="C01", kind="rule"):
    return {"check_id": check, "kind": kind, "casino": casino, "round_id": round_id,
            "seat": seat}


def test_the_answer_key_covers_every_fault_kind_with_a_check_of_the_catalogue():
    assert set(FAULT_CHECKS) == set(FAULT_KINDS)
    rule_checks = {c.id for c in load_checks() if c.kind == "rule"}
    assert set(FAULT_CHECKS.values()) <= rule_checks


def test_caught_missed_wrong_seat_and_false_alarms_are_told_apart():
    labels = [_label("T01-000001", "overpay", 2),           # caught at its seat
              _label("T01-000002", "overpay", 3),           # flagged at another seat: missed
              _label("T01-000003", "underpay", 1),          # not flagged: missed
              _label("T01-000004", "wrong_commission", 4),  # caught; overpay too (labelled)
              _label("T01-000005", "missing_events", 2)]    # a round-level check: any seat
    flags = [_flag("overpay", "T01-000001", 2), _flag("overpay", "T01-000001", 2),
             _flag("overpay", "T01-000002", 1),
             _flag("commission_wrong", "T01-000004", 4), _flag("overpay", "T01-000004", 4),
             _flag("sequence_gap", "T01-000005"),
             _flag("overpay", "T01-000001", 2, casino="C02"),   # same id, other casino
             _flag("log_findings", None),                        # no round: a false alarm
             _flag("peer_outlier", None, kind="statistical")]    # a lead: never scored
    ev = evaluate(labels, flags)
    kinds = {k.kind: (k.labelled, k.caught, k.missed) for k in ev.kinds}
    assert kinds["overpay"] == (2, 1, (("C01", "T01-000002"),))
    assert kinds["underpay"] == (1, 0, (("C01", "T01-000003"),))
    assert kinds["wrong_commission"] == (1, 1, ())
    assert kinds["missing_events"] == (1, 1, ())
    assert kinds["dealt_twice"] == (0, 0, ())
    checks = {c.check: (c.flagged, c.labelled, c.false_alarm_count, c.false_alarms)
              for c in ev.checks}
    assert checks["overpay"] == (4, 3, 1, (("C02", "T01-000001"),))
    assert checks["log_findings"] == (1, 0, 1, (None,))
    assert "peer_outlier" not in checks and ev.leads == 1
    assert not ev.perfect
    table = markdown(ev)
    assert "| overpay | overpay | 2 | 1 | 1 | 50.0% |" in table
    assert "| overpay | 4 | 3 | 1 | 75.0% |" in table
    assert "- log_findings false alarms: a flag naming no round" in table


def test_all_caught_and_no_false_alarm_is_perfect():
    ev = evaluate([_label("T02-000009", "dealt_twice", 5)],
                  [_flag("card_dealt_twice", "T02-000009", None),
                   _flag("not_evaluated", "T02-000009")])
    assert ev.perfect
    assert "| **all** | | **1** | **1** | **0** | **100.0%** |" in markdown(ev)


def test_a_bad_label_line_is_named_by_file_and_line(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps(_label("T01-000001", "overpay")) + "\n\n"
                    + json.dumps(_label("T01-000002", "teleported")) + "\n")
    with pytest.raises(EvaluationError, match=r"labels.jsonl line 3: not a label "
                       r"\(unknown fault kind 'teleported'\)"):
        read_labels([path])
    path.write_text("[1, 2]\n")
    with pytest.raises(EvaluationError, match="line 1: not a label"):
        read_labels([path])
    old = tmp_path / "old.jsonl"
    old.write_text('{"round_id": "T01-000001", "kind": "overpay"}\n')
    assert read_labels([old])[0]["casino"] == "C01"


def test_the_command_exits_1_on_a_miss_0_when_perfect_and_2_on_bad_input(tmp_path, capsys):
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps(_label("T01-000001", "overpay", 2)) + "\n")
    flags = tmp_path / "checks" / "flags.parquet"
    assert main(["--data", str(tmp_path), "--labels", str(labels)]) == 2
    assert "run `python -m checks` first" in capsys.readouterr().err
    flags.parent.mkdir()
    row = {name: None for name in FLAG_SCHEMA.names}
    pq.write_table(pa.Table.from_pylist([], schema=FLAG_SCHEMA), flags)
    assert main(["--data", str(tmp_path), "--labels", str(labels)]) == 1
    pq.write_table(pa.Table.from_pylist(
        [{**row, **_flag("overpay", "T01-000001", 2)}], schema=FLAG_SCHEMA), flags)
    assert main(["--data", str(tmp_path), "--labels", str(labels)]) == 0
    assert "| overpay | overpay | 1 | 1 | 0 | 100.0% |" in capsys.readouterr().out


# The answer key derived from the checks' '-- catches:' lines --------------------------------

OLD_MAP = {
    "overpay": "overpay",
    "underpay": "underpay",
    "paid_loser": "paid_loser",
    "collected_winner": "collected_winner",
    "commission_on_push_or_loss": "commission_on_push_or_loss",
    "wrong_commission": "commission_wrong",
    "jackpot_step_missing": "jackpot_unverified",
    "award_from_inventory": "award_from_inventory",
    "dealer_not_house_way": "house_way",
    "foul_paid": "foul_settled_as_win",
    "envy_for_own_or_dealer_hand": "envy_own_or_dealer_hand",
    "envy_without_qualifying_wager": "envy_without_qualifying_wager",
    "raise_paid_not_qualified": "raise_not_qualified",
    "raise_not_twice_ante": "raise_not_twice_ante",
    "past_posting": "wager_after_deal",
    "dealt_twice": "card_dealt_twice",
    "missing_events": "sequence_gap",
    "duplicated_events": "duplicate_event",
}
"""The hand-kept map evaluate.py had before the catches lines, written out by hand."""


def test_every_fault_kind_is_caught_by_exactly_the_check_it_was_mapped_to_before():
    for kind, check in OLD_MAP.items():
        assert FAULT_CHECKS[kind] == check
        claimed = [c.id for c in load_checks() if kind in (c.catches or ())]
        assert claimed == [check], kind


def test_every_shipped_check_says_what_it_catches():
    assert all(c.catches is not None for c in load_checks())
    assert {c.id for c in load_checks() if c.catches == ()} >= {
        "not_evaluated", "peer_outlier", "log_findings", "envy_mispay"}


def _check(check_id, catches):
    return parse_check(f"-- id: {check_id}\n-- title: t\n-- severity: low\n-- rule: r\n"
                       f"-- next: n\n-- catches: {catches}\nSELECT 1", f"{check_id}.sql")


def test_a_fault_kind_no_check_catches_is_an_error_naming_it():
    checks = [_check("a", "overpay"), _check("b", "none")]
    with pytest.raises(EvaluationError, match="no check catches fault kind underpay"):
        fault_checks(checks, ["overpay", "underpay"])


def test_a_fault_kind_two_checks_claim_is_an_error_naming_both():
    checks = [_check("a", "overpay"), _check("b", "overpay, underpay")]
    with pytest.raises(EvaluationError, match=r"overpay \(a, b\)"):
        fault_checks(checks, ["overpay", "underpay"])


def test_the_map_follows_the_catches_lines_in_the_order_of_the_kinds():
    checks = [_check("b", "underpay"), _check("a", "overpay, paid_loser"), _check("c", "none")]
    assert list(fault_checks(checks, ["overpay", "underpay", "paid_loser"]).items()) == [
        ("overpay", "a"), ("underpay", "b"), ("paid_loser", "a")]


def test_a_small_simulated_shift_is_caught_whole_by_the_map_the_catches_lines_give(tmp_path):
    """Every fault kind at a high rate, all four games, without a broker: the log written as
    ingest writes it, replayed, checked; each labelled fault is flagged by the check whose
    catches line names its kind, and no rule check flags a round without a label. The
    tables' layouts are filed (ingest.simulate.with_layouts): the simulator deals by them and
    puts players out of turn, and replay judges by them."""
    book = with_layouts(tables=8)
    events, labels = simulate_shift(tables=8, rounds=40, seed=5, fault_rate=0.6,
                                    rich_hands=0.3, book=book)
    log = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    log.append([Received(topic="round-events", partition=0, offset=i, timestamp_ms=i,
                         key=e.table_id.encode(), value=encode(e))
                for i, e in enumerate(events)], [])
    replay(tmp_path / "log", tmp_path / "replay", book=book)
    sign_replay(tmp_path)
    run_checks(tmp_path / "replay", tmp_path / "checks")
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    ev = evaluate([{**json.loads(x.to_json()), "casino": x.casino or "C01"} for x in labels],
                  flags)
    assert sum(k.labelled for k in ev.kinds) > 100  # 199 faults of 18 kinds when written
    assert ev.perfect, markdown(ev)
