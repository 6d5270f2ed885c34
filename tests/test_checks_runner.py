"""The runner of the checks: ``python -m checks [--data DIR] [--since DATE] [--check ID ...]
[--list]``, the flags' columns (time, dealer, game, ruleset, amount at stake, direction), the
64-bit edge, and the atomic replacement of ``flags.parquet``."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks import runner
from checks.runner import (
    FLAG_SCHEMA,
    INT64_MAX,
    CheckError,
    CheckFailed,
    InputError,
    load_checks,
    parse_check,
    run_checks,
)
from replay.run import TABLES
from tests.conftest import run_cli
from tests.outputs_support import sign_replay

SETTLEMENT = ("paid_loser", "collected_winner", "overpay", "underpay")
"""The four settlement checks (a wrong net is exactly one of them)."""

T1 = datetime(2026, 3, 14, 20, 15, 0, tzinfo=UTC)
T2 = datetime(2026, 3, 14, 22, 40, 5, tzinfo=UTC)
T3 = datetime(2026, 3, 15, 3, 0, 0, tzinfo=UTC)


def _round(round_id, dealt_at, dealer, game="pai_gow_poker", ruleset="pai_gow_poker-classic-v1",
           *, evaluated=True, problems=None):
    return {"round_id": round_id, "casino": "C01", "table_id": "T01", "game": game,
            "ruleset": ruleset, "dealt_at": dealt_at, "dealer_id": dealer,
            "evaluated": evaluated, "problems": problems, "notation": None}


def _wager(round_id, seat, wager, amount, recorded, expected):
    return {"round_id": round_id, "casino": "C01", "table_id": "T01", "seat": seat,
            "game": "pai_gow_poker", "position": f"seat {seat}", "wager": wager,
            "amount_cents": amount,
            "recorded_outcome": "win" if recorded is not None else None,
            "recorded_net_cents": recorded, "recorded_commission_cents": 0,
            "expected_outcome": "win", "expected_net_cents": expected,
            "expected_commission_cents": 0}


def _write(replay_dir: Path, given: dict[str, list[dict]]) -> None:
    replay_dir.mkdir(parents=True, exist_ok=True)
    for name, schema in TABLES.items():
        pq.write_table(pa.Table.from_pylist(given.get(name, []), schema=schema),
                       replay_dir / f"{name}.parquet")
    sign_replay(replay_dir.parent)


@pytest.fixture
def data(tmp_path):
    """Three rounds at one table: R1 (dealer E011, 20:15 UTC) overpays seat 2 by 125 cents;
    R2 (E022, tiles, 22:40) underpays seat 1 by 500 and leaves seat 3 unsettled; R3 (E011,
    the next day) was not evaluated."""
    rounds = [_round("R1", T1, "E011"),
              _round("R2", T2, "E022", "pai_gow_tiles", "pai_gow_tiles-classic-v1"),
              _round("R3", T3, "E011", evaluated=False, problems=["dealer was never dealt cards"])]
    wagers = [_wager("R1", 1, "main", 2500, 2375, 2375),
              _wager("R1", 2, "main", 2500, 2500, 2375),
              _wager("R2", 1, "main", 5000, -5500, -5000),
              _wager("R2", 3, "main", 1000, None, 950)]
    _write(tmp_path / "replay", {"rounds": rounds, "wagers": wagers})
    sign_replay(tmp_path)
    return tmp_path


def _flags(data: Path) -> list[dict]:
    return pq.read_table(data / "checks" / "flags.parquet").to_pylist()


def _ids(data: Path) -> list[tuple[str, str, int | None]]:
    return [(f["check_id"], f["round_id"], f["seat"]) for f in _flags(data)]


# The flags' columns ------------------------------------------------------------------------

def test_flags_carry_time_dealer_game_ruleset_amount_at_stake_and_direction(data):
    run_checks(data / "replay", data / "checks")
    assert pq.read_schema(data / "checks" / "flags.parquet").remove_metadata() == FLAG_SCHEMA
    by_id = {(f["check_id"], f["round_id"], f["seat"]): f for f in _flags(data)}
    assert list(by_id) == [("not_evaluated", "R3", None), ("overpay", "R1", 2),
                           ("underpay", "R2", 1), ("unsettled", "R2", 3)]
    over, under = by_id["overpay", "R1", 2], by_id["underpay", "R2", 1]
    assert {k: over[k] for k in ("occurred_at", "casino", "table_id", "dealer_id", "game",
                                 "ruleset", "wager", "recorded_cents", "expected_cents",
                                 "amount_at_stake_cents", "direction", "difference_cents",
                                 "severity")} == {
        "occurred_at": T1, "casino": "C01", "table_id": "T01", "dealer_id": "E011",
        "game": "pai_gow_poker", "ruleset": "pai_gow_poker-classic-v1", "wager": "main",
        "recorded_cents": 2500, "expected_cents": 2375, "amount_at_stake_cents": 125,
        "direction": "over", "difference_cents": 125, "severity": "high"}
    assert (under["occurred_at"], under["dealer_id"], under["game"], under["ruleset"]) == (
        T2, "E022", "pai_gow_tiles", "pai_gow_tiles-classic-v1")
    assert (under["recorded_cents"], under["expected_cents"], under["amount_at_stake_cents"],
            under["direction"], under["difference_cents"]) == (-5500, -5000, 500, "under", -500)
    # not a money flag: no amount at stake, no direction; still the round's time and dealer
    unsettled, unjudged = by_id["unsettled", "R2", 3], by_id["not_evaluated", "R3", None]
    assert (unsettled["recorded_cents"], unsettled["expected_cents"]) == (None, 950)
    assert (unsettled["amount_at_stake_cents"], unsettled["direction"]) == (None, None)
    assert (unjudged["occurred_at"], unjudged["dealer_id"], unjudged["wager"]) == (
        T3, "E011", None)
    assert (unjudged["amount_at_stake_cents"], unjudged["direction"]) == (None, None)


def test_an_amount_at_the_64_bit_limit_is_a_flag_never_a_failure(data):
    """-2^63 recorded against 2^63 - 1 expected is 2^64 - 1 cents at stake, which no int64
    holds: the flag says so in its detail and clamps the amount to the int64 maximum. 2^63 - 1
    against 0 fits exactly and is not clamped."""
    path = data / "replay" / "wagers.parquet"
    rows = pq.read_table(path).to_pylist()
    rows += [_wager("R1", 5, "main", 100, -(2**63), 2**63 - 1),
             _wager("R1", 6, "main", 100, 2**63 - 1, 0)]
    pq.write_table(pa.Table.from_pylist(rows, schema=TABLES["wagers"]), path)
    sign_replay(data)
    done = run_checks(data / "replay", data / "checks")
    flags = {f["seat"]: f for f in _flags(data) if f["check_id"] in SETTLEMENT}
    absurd, edge = flags[5], flags[6]
    assert (absurd["amount_at_stake_cents"], absurd["direction"],
            absurd["difference_cents"]) == (INT64_MAX, "under", None)
    assert "amount at stake 18446744073709551615 cents does not fit a 64-bit integer" \
        in absurd["detail"]
    assert (edge["amount_at_stake_cents"], edge["direction"], edge["difference_cents"]) == (
        INT64_MAX, "over", INT64_MAX)
    assert "does not fit" not in edge["detail"]
    assert (flags[5]["check_id"], flags[6]["check_id"]) == ("collected_winner", "overpay")
    by_check = {s.id: (s.flags, s.over_cents, s.under_cents) for s in done.summary
                if s.id in SETTLEMENT}
    assert by_check == {"collected_winner": (1, 0, INT64_MAX),
                        "overpay": (2, 125 + INT64_MAX, 0),  # exact, beyond 64 bits
                        "paid_loser": (0, 0, 0), "underpay": (1, 0, 500)}


def test_file_paths_are_bound_not_formatted_into_sql(tmp_path):
    """A data directory whose name holds a quote, a semicolon and a comment still works."""
    odd = tmp_path / "it's; -- data"
    _write(odd / "replay", {"rounds": [_round("R1", T1, "E011")],
                            "wagers": [_wager("R1", 2, "main", 2500, 2500, 2375)]})
    proc = run_cli("checks", "--data", str(odd))
    assert proc.returncode == 0, proc.stderr
    assert _ids(odd) == [("overpay", "R1", 2)]


# The command line -------------------------------------------------------------------------

def test_list_prints_every_check_with_its_rule_and_what_to_do_next():
    proc = run_cli("checks", "--list")
    assert proc.returncode == 0, proc.stderr
    checks = load_checks()
    shipped = sorted(p.stem for p in (Path(__file__).resolve().parent.parent / "checks" / "sql")
                     .glob("*.sql"))
    assert sorted(c.id for c in checks) == shipped
    for c in checks:
        assert f"{c.id} [{c.severity}] {c.title}\n  rule: {c.rule}\n  next: {c.next}\n" \
            in proc.stdout
        assert len(c.next) > 20
    assert "58 Pa. Code § 688a.7(h)(2)(ii)" in proc.stdout
    # the fault kinds a check answers, where it answers any; none for a check that answers none
    assert "\noverpay [high]" in proc.stdout
    block = proc.stdout.split("\noverpay [high]", 1)[1].split("\n\n", 1)[0]
    assert "\n  catches: overpay (" in block
    block = proc.stdout.split("\nnot_evaluated [", 1)[1].split("\n\n", 1)[0]
    assert "catches" not in block


def test_a_check_without_a_next_step_is_refused():
    with pytest.raises(Exception, match=r"x\.sql: header lacks next"):
        parse_check("-- id: x\n-- title: t\n-- severity: high\n-- rule: r\nSELECT 1", "x.sql")


_HEAD = "-- id: x\n-- title: t\n-- severity: high\n-- rule: r\n-- next: n\n"


def test_a_catches_line_names_the_fault_kinds_the_check_must_flag():
    check = parse_check(_HEAD + "-- catches: overpay, wrong_commission\nSELECT 1", "x.sql")
    assert check.catches == ("overpay", "wrong_commission")
    assert parse_check(_HEAD + "-- catches: none\nSELECT 1", "x.sql").catches == ()
    assert parse_check(_HEAD + "SELECT 1", "x.sql").catches is None


@pytest.mark.parametrize("catches, words", [
    ("overpay, overpaid", r"x\.sql line 6: catches names unknown fault kind 'overpaid'"),
    ("none, overpay", r"x\.sql line 6: catches 'none, overpay' is not a list"),
    ("overpay,", r"x\.sql line 6: catches 'overpay,' is not a list"),
    ("overpay, overpay", r"x\.sql line 6: catches names a fault kind twice"),
])
def test_a_catches_line_naming_an_unknown_fault_kind_is_refused_with_file_and_line(
        catches, words):
    with pytest.raises(CheckError, match=words):
        parse_check(_HEAD + f"-- catches: {catches}\nSELECT 1", "x.sql")


def test_a_shipped_check_without_a_catches_line_is_refused(monkeypatch):
    real = runner.parse_check
    monkeypatch.setattr(runner, "parse_check", lambda text, source: real(
        text.replace("-- catches:", "-- caught:"), source))
    with pytest.raises(CheckError, match=r"checks/sql/\w+\.sql: header lacks catches"):
        load_checks()


def test_the_summary_gives_count_and_money_at_stake_by_check(data):
    proc = run_cli("checks", "--data", str(data))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    rule_checks = sum(c.kind == "rule" for c in load_checks())
    assert lines[0] == (f"checks: 4 flags from {rule_checks} rule checks; money at stake: "
                        "overpaid $1.25, underpaid $5.00 (each mispaid amount once; the rows "
                        "below count it under every check that flagged it) -> "
                        f"{data / 'checks' / 'flags.parquet'}")
    overpay = next(x for x in lines if x.startswith("checks:   overpay "))
    assert overpay.split() == ["checks:", "overpay", "high", "1", "flags", "over", "$1.25",
                               "under", "$0.00"]
    underpay = next(x for x in lines if x.startswith("checks:   underpay "))
    assert underpay.split()[1:] == ["underpay", "high", "1", "flags", "over", "$0.00",
                                    "under", "$5.00"]
    unsettled = next(x for x in lines if x.startswith("checks:   unsettled "))
    assert unsettled.split()[3:] == ["1", "flags", "over", "$0.00", "under", "$0.00"]
    assert "WARNING" in proc.stdout  # no manifest: provenance unknown, said loudly


def test_check_runs_only_the_named_checks(data):
    proc = run_cli("checks", "--data", str(data), "--check", "unsettled")
    assert proc.returncode == 0, proc.stderr
    assert _ids(data) == [("unsettled", "R2", 3)]
    assert proc.stdout.startswith("checks: 1 flags from 1 rule checks;")
    proc = run_cli("checks", "--data", str(data), "--check", "unsettled", "--check", "overpay",
                   "--check", "underpay")
    assert proc.returncode == 0, proc.stderr
    assert _ids(data) == [("overpay", "R1", 2), ("underpay", "R2", 1), ("unsettled", "R2", 3)]


def test_an_unknown_check_is_exit_2_naming_the_known_ones(data):
    before = (data / "checks" / "flags.parquet")
    run_checks(data / "replay", data / "checks")
    old = before.read_bytes()
    proc = run_cli("checks", "--data", str(data), "--check", "overpay", "--check", "mispay")
    assert proc.returncode == 2
    assert "unknown check id mispay" in proc.stderr  # split into four settlement checks
    assert all(c.id in proc.stderr for c in load_checks())
    assert before.read_bytes() == old


@pytest.mark.parametrize(("since", "expected"), [
    ("2026-03-14T21:00:00", [("not_evaluated", "R3", None), ("underpay", "R2", 1),
                             ("unsettled", "R2", 3)]),
    ("2026-03-14T22:40:05Z", [("not_evaluated", "R3", None), ("underpay", "R2", 1),
                              ("unsettled", "R2", 3)]),   # at, not only after
    ("2026-03-14T22:40:06+00:00", [("not_evaluated", "R3", None)]),
    ("2026-03-15T01:00:00+02:00", [("not_evaluated", "R3", None)]),  # 23:00 UTC
    ("2026-03-15", [("not_evaluated", "R3", None)]),
    ("2026-03-14", [("not_evaluated", "R3", None), ("overpay", "R1", 2), ("underpay", "R2", 1),
                    ("unsettled", "R2", 3)]),
    ("2026-03-16", []),
])
def test_since_keeps_only_rounds_dealt_at_or_after_it(data, since, expected):
    proc = run_cli("checks", "--data", str(data), "--since", since)
    assert proc.returncode == 0, proc.stderr
    assert _ids(data) == expected
    assert "rounds dealt at or after 20" in proc.stdout


def test_since_also_filters_findings_and_the_other_tables(data):
    findings = [{"kind": "undecodable_record", "casino": "C01", "table_id": "T01",
                 "round_id": rid, "where": "log position 7", "detail": "bad bytes"}
                for rid in ("R1", "R2")]
    pq.write_table(pa.Table.from_pylist(findings, schema=TABLES["findings"]),
                   data / "replay" / "findings.parquet")
    sign_replay(data)
    run_checks(data / "replay", data / "checks", since=datetime(2026, 3, 14, 21, tzinfo=UTC),
               only=["log_findings"])
    (flag,) = _flags(data)
    assert (flag["round_id"], flag["occurred_at"], flag["dealer_id"]) == ("R2", T2, "E022")


def test_a_bad_since_or_missing_inputs_are_exit_2_saying_what_to_do(tmp_path, data):
    proc = run_cli("checks", "--data", str(data), "--since", "yesterday")
    assert proc.returncode == 2 and "not an ISO date or datetime" in proc.stderr
    proc = run_cli("checks", "--data", str(tmp_path / "nothing"))
    assert proc.returncode == 2 and "run `python -m replay` first" in proc.stderr
    with pytest.raises(InputError, match="time zone"):
        run_checks(data / "replay", data / "checks", since=datetime(2026, 3, 14))


# Atomic replacement ------------------------------------------------------------------------

def test_a_check_that_fails_is_exit_1_naming_it_and_nothing_is_replaced(data):
    path = data / "checks" / "flags.parquet"
    run_checks(data / "replay", data / "checks")
    old = path.read_bytes()
    # a jackpots file without the column award_from_inventory.sql reads
    jackpots = pq.read_table(data / "replay" / "jackpots.parquet")
    pq.write_table(jackpots.drop_columns(["paid_from"]), data / "replay" / "jackpots.parquet")
    sign_replay(data)
    proc = run_cli("checks", "--data", str(data))
    assert proc.returncode == 1
    assert "checks/sql/award_from_inventory.sql failed to run" in proc.stderr
    assert "nothing was replaced" in proc.stderr
    assert path.read_bytes() == old
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "flags.parquet", "manifest.json", "manifest.sig"]


def test_a_failing_check_through_the_api_leaves_the_old_file(data):
    path = data / "checks" / "flags.parquet"
    run_checks(data / "replay", data / "checks")
    old = path.read_bytes()
    broken = parse_check("-- id: broken\n-- title: t\n-- severity: low\n-- rule: r\n"
                         "-- next: n\nSELECT * FROM no_such_table", "checks/sql/broken.sql")
    with pytest.raises(CheckFailed, match=r"checks/sql/broken\.sql failed to run"):
        run_checks(data / "replay", data / "checks", checks=[*load_checks(), broken])
    lacking = parse_check("-- id: lacking\n-- title: t\n-- severity: low\n-- rule: r\n"
                          "-- next: n\nSELECT round_id FROM rounds", "checks/sql/lacking.sql")
    with pytest.raises(CheckFailed, match=r"lacking\.sql: the query must return columns "
                                          r"casino, table_id, seat"):
        run_checks(data / "replay", data / "checks", checks=[lacking])
    assert path.read_bytes() == old


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(data, monkeypatch):
    path = data / "checks" / "flags.parquet"
    run_checks(data / "replay", data / "checks", only=["overpay", "underpay"])
    old = path.read_bytes()

    def no_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_disk)
    with pytest.raises(CheckFailed, match=r"No space left on device.*previous flags file is "
                                          r"unchanged"):
        run_checks(data / "replay", data / "checks")
    assert path.read_bytes() == old
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "flags.parquet", "manifest.json", "manifest.sig"]
    monkeypatch.undo()
    run_checks(data / "replay", data / "checks")
    assert len(_flags(data)) == 4


def test_running_twice_gives_the_same_flags(data):
    run_checks(data / "replay", data / "checks")
    first = pq.read_table(data / "checks" / "flags.parquet")
    run_checks(data / "replay", data / "checks")
    assert pq.read_table(data / "checks" / "flags.parquet").equals(first)


# Statistical checks: kind and bound parameters ---------------------------------------------

_LEAD = """-- id: busy_dealer
-- title: A dealer with many settled wagers
-- severity: info
-- kind: statistical
-- params: min_wagers=2, share=0.5
-- rule: a test lead
-- next: look
SELECT NULL AS casino, NULL AS table_id, NULL AS round_id, NULL::INTEGER AS seat,
       r.dealer_id, 'settled ' || count(*) AS detail
FROM wagers AS w JOIN rounds AS r USING (casino, table_id, round_id)
WHERE w.recorded_net_cents IS NOT NULL
GROUP BY r.dealer_id
HAVING count(*) >= $min_wagers AND count(*) >= $share * 2
ORDER BY r.dealer_id
"""


def _lead_rows(data: Path, **params) -> list[tuple]:
    check = parse_check(_LEAD, "test")
    run_checks(data / "replay", data / "checks", checks=[check], params=params or None)
    return [(f["check_id"], f["kind"], f["dealer_id"], f["round_id"], f["detail"])
            for f in _flags(data)]


def test_a_statistical_check_binds_its_parameters_and_names_its_dealer(data):
    # R1 (E011) has two settled wagers, R2 (E022) one: only E011 reaches min_wagers=2
    assert _lead_rows(data) == [("busy_dealer", "statistical", "E011", None, "settled 2")]
    assert _lead_rows(data, min_wagers=1) == [
        ("busy_dealer", "statistical", "E011", None, "settled 2"),
        ("busy_dealer", "statistical", "E022", None, "settled 1")]


def test_an_unknown_parameter_or_a_bad_header_is_refused(data):
    with pytest.raises(InputError, match="unknown parameter nope"):
        _lead_rows(data, nope=3)
    with pytest.raises(CheckError, match="kind 'hunch'"):
        parse_check(_LEAD.replace("kind: statistical", "kind: hunch"), "t")
    with pytest.raises(CheckError, match="'min=x' is not name=number"):
        parse_check(_LEAD.replace("min_wagers=2", "min=x"), "t")
    with pytest.raises(CheckError, match="severity 'urgent'"):
        parse_check(_LEAD.replace("severity: info", "severity: urgent"), "t")


def test_param_on_the_command_line_is_bound_and_a_bad_one_is_exit_2(data):
    proc = run_cli("checks", "--data", str(data), "--param", "min_wagers=abc")
    assert proc.returncode == 2 and "is not name=number" in proc.stderr
    proc = run_cli("checks", "--data", str(data), "--param", "no_such=1")
    assert proc.returncode == 2 and "unknown parameter no_such" in proc.stderr


def test_rule_flags_are_of_kind_rule(data):
    run_checks(data / "replay", data / "checks")
    assert {f["kind"] for f in _flags(data)} == {"rule"}


def test_a_mispaid_amount_flagged_by_two_checks_counts_once_in_the_totals(tmp_path):
    """A win paid 2,400 where 2,375 is due because the commission taken was 100, not 125:
    overpay and commission_wrong both flag the same 25 cents; the totals count it once.
    A commission on a push (net right) is counted: no other check holds that money."""
    rounds = [_round("R1", T1, "E011")]
    wrong = {**_wager("R1", 2, "main", 2500, 2400, 2375), "recorded_commission_cents": 100,
             "expected_commission_cents": 125}
    push = {**_wager("R1", 3, "main", 1000, 0, 0), "recorded_outcome": "push",
            "expected_outcome": "push", "recorded_commission_cents": 50}
    _write(tmp_path / "replay", {"rounds": rounds, "wagers": [wrong, push]})
    done = run_checks(tmp_path / "replay", tmp_path / "checks")
    flags = [(f["check_id"], f["seat"], f["amount_at_stake_cents"], f["direction"],
              f["counted"]) for f in _flags(tmp_path)]
    # of the two flags on seat 2's 25 cents, the first in check order is the counted one
    assert sorted(flags) == [("commission_on_push_or_loss", 3, 50, "under", True),
                             ("commission_wrong", 2, 25, "over", True),
                             ("overpay", 2, 25, "over", False)]
    assert (done.over_cents, done.under_cents) == (25, 50)
    per_check = {s.id: (s.over_cents, s.under_cents) for s in done.summary if s.flags}
    assert per_check == {"commission_on_push_or_loss": (0, 50), "commission_wrong": (25, 0),
                         "overpay": (25, 0)}


def test_a_memory_limit_duckdb_does_not_understand_is_exit_2_naming_the_variable(data):
    proc = run_cli("checks", "--data", str(data), env={"CATWALK_CHECKS_MEMORY": "lots"})
    assert proc.returncode == 2, proc.stderr
    assert "CATWALK_CHECKS_MEMORY='lots' is not a memory size DuckDB understands" in proc.stderr
    proc = run_cli("checks", "--data", str(data), env={"CATWALK_CHECKS_MEMORY": "1GB"})
    assert proc.returncode == 0, proc.stderr


# The shared relations of checks/sql/_views/ ---------------------------------------------------

def test_the_shared_relations_are_read_from_the_views_folder_in_file_name_order():
    assert [name for name, _ in runner.load_views()] == [
        "wager_exceptions", "round_problems", "unjudged", "envy_paid", "play_marks",
        "marked_play", "jackpot_award_exceptions", "preceding_dealer_hand",
        "dealer_wager_against", "seat_turns", "tiles_out_of_turn"]
    assert runner.load_views() == runner.PREPARED
    assert all(sql.lstrip().startswith("--") for _, sql in runner.PREPARED)  # each says why
    # the rounds still in play, built before the views with --follow, are read apart
    assert runner.IN_PLAY.startswith("-- in_play: with live")


def test_no_file_of_the_views_folder_is_taken_for_a_check():
    views = {name for name, _ in runner.load_views()}
    sources = {c.source for c in load_checks()}
    assert not views & {c.id for c in load_checks()}
    assert not [s for s in sources if "_views" in s]


def test_every_shared_relation_is_built_before_the_checks_run(data):
    con = runner.connect(data / "replay")
    try:
        for name, _ in runner.PREPARED:
            con.sql(f"SELECT count(*) FROM {name}").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("name", ["wager_exceptions.sql", "10_rounds.sql", "10_Bad-name.sql"])
def test_a_file_in_the_views_folder_that_names_no_relation_is_refused(tmp_path, name):
    (tmp_path / "05_fine.sql").write_text("SELECT 1", encoding="utf-8")
    (tmp_path / name).write_text("SELECT 1", encoding="utf-8")
    with pytest.raises(CheckError, match=f"_views/{name}: not a shared relation"):
        runner.load_views(tmp_path)
