"""The catalogue run on several cursors at once (checks.runner ``CATWALK_CHECKS_WORKERS``):
the same flags, byte for byte, as one check after the other; a relation or a check that
fails still fails the run, the first in the catalogue's order, and nothing waits forever."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from checks import runner
from checks.runner import CheckFailed, InputError, parse_check, run_checks

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def shift(tmp_path_factory) -> Path:
    """A small faulty shift: bench/synthetic_replay.py's replay outputs (every file, the
    timeline included, signed as replay signs them), faults in about 5% of the rounds."""
    sys.path.insert(0, str(REPO / "bench"))
    import synthetic_replay

    data = tmp_path_factory.mktemp("shift")
    p = synthetic_replay.Params(rounds=6_000, chunk=2_500, fault_rate=0.05)
    synthetic_replay.write(p, data / "replay", progress=False)
    return data


def _run(shift: Path, out: Path, monkeypatch, workers: str) -> bytes:
    monkeypatch.setenv(runner.WORKERS_ENV, workers)
    run_checks(shift / "replay", out)
    return (out / "flags.parquet").read_bytes()


def test_one_worker_and_several_write_the_same_flags_file_byte_for_byte(
        shift, tmp_path, monkeypatch):
    one = _run(shift, tmp_path / "one", monkeypatch, "1")
    for n in ("2", "5"):
        assert _run(shift, tmp_path / n, monkeypatch, n) == one
    flags = pq.read_table(tmp_path / "one" / "flags.parquet")
    flagged = set(flags.column("check_id").to_pylist())
    # a shift where most of the catalogue has rows, those of the order of play (which read
    # the relations built beside the other checks) among them
    assert len(flagged) >= 30
    assert {"winner_paid_before_losers", "hands_set_out_of_order", "overpay",
            "meter_discontinuity", "not_evaluated"} <= flagged


def test_the_rows_of_every_check_are_those_of_the_connection_that_built_everything_first(
        shift):
    checks = runner.load_checks()
    con = runner.connect(shift / "replay")  # every relation built, then one check at a time
    try:
        alone = [runner.run_check(con, c) for c in checks]
    finally:
        con.close()
    con = runner.connect(shift / "replay", prepare=False)
    try:
        together = runner._check_rows(con, checks, None, None, runner.PREPARED, 3)
    finally:
        con.close()
    assert [t.num_rows for t in together] == [t.num_rows for t in alone]
    assert all(a.equals(b) for a, b in zip(alone, together, strict=True))
    assert sum(t.num_rows for t in alone) > 0


def test_a_check_waits_for_each_relation_its_sql_names_and_only_those():
    check = parse_check("-- id: x\n-- title: t\n-- severity: low\n-- rule: r\n-- next: n\n"
                        "SELECT * FROM wager_exceptions ANTI JOIN UNJUDGED USING (round_id)",
                        "x.sql")
    assert runner.reads(check, runner.PREPARED) == ("wager_exceptions", "unjudged")
    assert runner.reads(check, (("play_marks", "SELECT 1"),)) == ()
    # a name inside a longer word is not a read
    assert runner.reads(check, (("wager", "SELECT 1"),)) == ()


def _check(cid: str, sql: str):
    return parse_check(f"-- id: {cid}\n-- title: t\n-- severity: low\n-- rule: r\n"
                       f"-- next: n\n{sql}", f"checks/sql/{cid}.sql")


def test_a_relation_that_fails_to_build_fails_the_run_and_no_check_waits_forever(shift):
    checks = [_check("a", "SELECT casino, table_id, round_id, NULL::INTEGER AS seat "
                          "FROM broken"),
              _check("b", "SELECT casino, table_id, round_id, NULL::INTEGER AS seat "
                          "FROM rounds LIMIT 1")]
    con = runner.connect(shift / "replay", prepare=False)
    try:
        with pytest.raises(duckdb.Error, match="no_such_table"):
            runner.flag_table(con, checks, prepare=(("broken", "SELECT * FROM no_such_table"),),
                              n_workers=2)
    finally:
        con.close()


def test_the_first_failing_check_in_the_catalogues_order_is_the_one_named(shift):
    ok = "SELECT casino, table_id, round_id, NULL::INTEGER AS seat FROM rounds LIMIT 1"
    checks = [_check("fine", ok), _check("first_bad", "SELECT nope FROM rounds"),
              _check("later_bad", "SELECT casino FROM unjudged"), _check("also_fine", ok)]
    for n in (1, 3):
        con = runner.connect(shift / "replay", prepare=False)
        try:
            with pytest.raises(CheckFailed, match=r"checks/sql/first_bad\.sql failed to run"):
                runner.flag_table(con, checks, prepare=runner.PREPARED, n_workers=n)
        finally:
            con.close()


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_a_workers_setting_that_is_not_a_positive_integer_is_refused(monkeypatch, value):
    monkeypatch.setenv(runner.WORKERS_ENV, value)
    with pytest.raises(InputError, match=f"{runner.WORKERS_ENV}="):
        runner.workers()


def test_by_default_as_many_checks_run_at_once_as_there_are_cores_up_to_four(monkeypatch):
    monkeypatch.delenv(runner.WORKERS_ENV, raising=False)
    assert 1 <= runner.workers() <= 4
