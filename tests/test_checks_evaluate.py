"""Scoring the flags against the labels of a simulated shift (checks/evaluate.py): a fault
caught, missed, caught at the wrong seat; a false alarm; a statistical lead never scored;
bad labels named by file and line; the answer key covers every fault kind with a real
check."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.evaluate import FAULT_CHECKS, EvaluationError, evaluate, main, markdown, read_labels
from checks.runner import FLAG_SCHEMA, load_checks
from ingest.sim_faults import FAULT_KINDS


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
