"""The whole check catalogue over millions of rounds against DuckDB's scan floor (the
target: 10,000,000 rounds in under 20 seconds on 2 cores).

Usage: .venv/bin/python bench/checks_speed.py [--rounds 10000000] [--out DIR] [--seed 1]
       [--fault-rate 0.01] [--chunk N] [--repeat 3] [--no-cli] [--no-per-check | --per-check]

Target: every check in checks/sql over 10,000,000 rounds in under 20 s on this 2-core
machine, reported as a ratio to the floor measured in the same run.

The data are synthetic replay output (bench/synthetic_replay.py: the eight Parquet files
with replay's schemas and writer options, and a manifest with their SHA-256; written once,
then reused from --out). Then, in turns, so that the machine's drift touches every row
alike (best and median of --repeat):

- the floor: one DuckDB in-memory connection set up as ``checks.runner.connect`` sets it up
  (without the relations it prepares for the checks: they are part of the catalogue's work)
  (``memory_limit='2GB'``, ``TimeZone='UTC'``, DuckDB's default threads: one per core; the
  eight files as views) running ONE statement that scans every file once with one aggregate
  over one column each: ``count(*)`` and ``sum(recorded_net_cents)`` of wagers,
  ``count_if(evaluated)`` of rounds, ``count_if(house_way)`` of hands, ``sum(recorded_cents)``
  of envy, ``sum(recorded_net_cents)`` of bankers, ``sum(recorded_award_cents)`` of jackpots,
  ``count(kind)`` of findings, ``sum(net_cents)`` of timeline;
- for reference, the key floor: the same connection, one statement reading the three key
  columns every check joins on (casino, table_id, round_id) of every file, all their values
  (the sum of their byte lengths);
- the catalogue in process: ``checks.runner.run_checks(replay_dir, out_dir)``, everything it
  does (the manifest and the files' SHA-256, every check, the join of the flags with their
  rounds, flags.parquet written atomically, the summary);
- with the CLI (unless --no-cli): ``python -m checks --data OUT``, the whole command
  (interpreter start-up and imports included).

Then, once each: ``run_checks`` instrumented by phase, and on one connection each relation
the runner prepares, then every check's SQL alone (the query to Arrow: where the time goes;
the checks of the order of play pay for ``play_marks`` and ``marked_play`` there), wall and
CPU seconds (the process's, DuckDB's threads included: on a machine shared with other jobs
the CPU seconds say more than the wall's). ``--per-check`` does only that (no turns).
The load average is printed before and after. Prints Markdown.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import duckdb  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import synthetic_replay  # noqa: E402
from timing import cpu_model  # noqa: E402

from checks import runner  # noqa: E402

TARGET_SECONDS = 20.0
TARGET_ROUNDS = 10_000_000

FLOOR_SQL = """
SELECT * FROM
    (SELECT count(*) AS wagers, sum(recorded_net_cents) AS wagers_net FROM wagers),
    (SELECT count_if(evaluated) AS rounds_evaluated FROM rounds),
    (SELECT count_if(house_way) AS hands_house_way FROM hands),
    (SELECT sum(recorded_cents) AS envy_recorded FROM envy),
    (SELECT sum(recorded_net_cents) AS bankers_net FROM bankers),
    (SELECT sum(recorded_award_cents) AS jackpots_award FROM jackpots),
    (SELECT count(kind) AS findings FROM findings),
    (SELECT sum(net_cents) AS timeline_net FROM timeline)
"""
KEY_FLOOR_SQL = " UNION ALL ".join(
    f"SELECT '{name}', sum(strlen(casino) + strlen(table_id) + strlen(round_id)) FROM {name}"
    for name in (*runner.INPUTS, *runner.OPTIONAL_INPUTS))
"""max() of a column is answered from the Parquet statistics without reading it: the byte
lengths are summed instead, so that every value of the three keys is decoded."""


def floor_connection(replay_dir: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB set up as checks.runner.connect does (its settings and views),
    without the relations the runner prepares for the checks (they are the checks' work)."""
    return runner.connect(replay_dir, prepare=False)


def run_floor(replay_dir: Path, sql: str) -> list[Any]:
    con = floor_connection(replay_dir)
    try:
        return con.sql(sql).fetchall()
    finally:
        con.close()


def run_cli(out: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "checks", "--data", str(out)], cwd=REPO,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"python -m checks failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def clock(run: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    value = run()
    return time.perf_counter() - start, value


def each_alone(replay_dir: Path, checks: list[runner.Check]
               ) -> list[tuple[float, float, str, int]]:
    """Wall and CPU seconds and rows of each relation the runner prepares (``prepared:
    name``), then of each check's SQL, on one runner connection (the views, then the
    prepared relations, built once: a check reading one pays for it there, not in its own
    row), to Arrow, one at a time."""
    con = runner.connect(replay_dir, prepare=False)
    out = []
    try:
        for name, sql in runner.PREPARED:
            start, cpu = time.perf_counter(), time.process_time()
            con.execute(f"CREATE TEMP TABLE {name} AS {sql}")
            spent, used = time.perf_counter() - start, time.process_time() - cpu
            rows = con.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0]
            out.append((spent, used, f"prepared: {name}", int(rows)))
            print(f"prepared {name}: {spent:.2f} s", file=sys.stderr)
        for check in checks:
            params = runner.bind(check)
            start, cpu = time.perf_counter(), time.process_time()
            table = con.sql(check.sql, params=params or None).to_arrow_table()
            out.append((time.perf_counter() - start, time.process_time() - cpu, check.id,
                        table.num_rows))
            print(f"check {check.id}: {out[-1][0]:.2f} s", file=sys.stderr)
    finally:
        con.close()
    return out


def phases(replay_dir: Path, out_dir: Path) -> dict[str, float]:
    """``run_checks`` once, its phases timed by wrapping the runner's own functions."""
    spent: dict[str, float] = {}
    saved = {name: getattr(runner, name) for name in (
        "outputs_trust", "connect", "run_check", "flag_table", "write_atomically",
        "summarize")}

    def wrap(name: str) -> Callable[..., Any]:
        inner = saved[name]

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - start
        return timed

    for name in saved:
        setattr(runner, name, wrap(name))
    try:
        total, _ = clock(lambda: runner.run_checks(replay_dir, out_dir))
    finally:
        for name, fn in saved.items():
            setattr(runner, name, fn)
    for name in saved:
        spent.setdefault(name, 0.0)
    return {
        # run_checks hashes the files in a thread beside the checks: this overlaps the rest
        "manifest and SHA-256 of the files (outputs_trust, beside the checks)":
            spent["outputs_trust"],
        "connect (views, and the relations prepared for the checks)": spent["connect"],
        "the checks' queries, to Arrow (run_check, all)": spent["run_check"],
        "join with rounds, money at stake (flag_table less run_check)":
            spent["flag_table"] - spent["run_check"],
        "flags.parquet written and fsynced (write_atomically)": spent["write_atomically"],
        "summary by check (summarize)": spent["summarize"],
        "rest (load_checks, metadata, ...)": total - sum(spent[n] for n in (
            "connect", "flag_table", "write_atomically", "summarize")),
        "total": total,
    }


def fmt(seconds: float) -> str:
    return f"{seconds:.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    synthetic_replay.add_arguments(ap)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-cli", action="store_true", help="do not time python -m checks")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--no-per-check", action="store_true",
                      help="do not time each check alone, nor the phases")
    mode.add_argument("--per-check", action="store_true",
                      help="only time the phases and each prepared relation and check alone "
                           "(no turns against the floor)")
    args = ap.parse_args(argv)
    p = synthetic_replay.params_of(args)
    out = args.out or synthetic_replay.default_out(p)
    free = os.statvfs(out.parent if not out.exists() else out)
    print(f"data: {out} ({free.f_bavail * free.f_frsize / 1e9:.0f} GB free there)",
          file=sys.stderr)
    seconds, (replay_dir, counts, reused) = clock(lambda: synthetic_replay.ensure(p, out))
    print(f"data: {'reused' if reused else f'written in {seconds:.0f} s'}", file=sys.stderr)
    out_dir = out / "checks"
    checks = runner.load_checks()

    load_before = os.getloadavg()
    if args.per_check:
        per_check(replay_dir, out_dir, checks, p.rounds, load_before)
        return 0
    times: dict[str, list[float]] = {"floor": [], "key floor": [], "run_checks": [], "cli": []}
    flags = 0
    cpu_run: list[float] = []  # the process's CPU seconds in run_checks, DuckDB's threads too
    for turn in range(args.repeat):
        times["floor"].append(clock(lambda: run_floor(replay_dir, FLOOR_SQL))[0])
        times["key floor"].append(clock(lambda: run_floor(replay_dir, KEY_FLOOR_SQL))[0])
        cpu = time.process_time()
        t, done = clock(lambda: runner.run_checks(replay_dir, out_dir))
        times["run_checks"].append(t)
        cpu_run.append(time.process_time() - cpu)
        flags = sum(done.counts.values())  # type: ignore[attr-defined]
        if not args.no_cli:
            times["cli"].append(clock(lambda: run_cli(out))[0])
        print(f"turn {turn + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s"
                                                 for k, v in times.items() if v),
              file=sys.stderr)
    cli_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e6

    def best(k: str) -> float:
        return min(times[k])

    def median(k: str) -> float:
        return statistics.median(times[k])

    files = (*runner.INPUTS, *runner.OPTIONAL_INPUTS)
    size = {n: (replay_dir / f"{n}.parquet").stat().st_size for n in files}
    print(f"# Checks over {p.rounds:,} synthetic rounds ({datetime.now(UTC):%Y-%m-%d})\n")
    print(f"CPU: {cpu_model()}; nproc {os.cpu_count()}; RAM "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB; "
          f"Python {platform.python_version()}, duckdb {duckdb.__version__}; "
          f"{len(checks)} checks ({sum(c.kind == 'rule' for c in checks)} rule, "
          f"{sum(c.kind != 'rule' for c in checks)} statistical); best and median of "
          f"{args.repeat}, in turns\n")
    print("| file | rows | MB | row groups |\n|---|---:|---:|---:|")
    for n in files:
        groups = pq.ParquetFile(replay_dir / f"{n}.parquet").metadata.num_row_groups
        print(f"| {n} | {counts[n]:,} | {size[n] / 1e6:,.0f} | {groups} |")
    print(f"| all | {sum(counts.values()):,} | {sum(size.values()) / 1e6:,.0f} | |\n")
    print("| what | s best | s median | median / floor |\n|---|---:|---:|---:|")
    labels = {"floor": "floor: every file scanned once, one aggregate (one column each)",
              "key floor": "key floor: casino, table_id, round_id of every file, every value",
              "run_checks": "the catalogue: checks.runner.run_checks (in process)",
              "cli": "the catalogue: python -m checks --data OUT (whole command)"}
    for k, label in labels.items():
        if times[k]:
            print(f"| {label} | {fmt(best(k))} | {fmt(median(k))} | "
                  f"{median(k) / median('floor'):.1f}x |")
    print(f"\nrun_checks CPU seconds (DuckDB's threads included): best {min(cpu_run):.2f}, "
          f"median {statistics.median(cpu_run):.2f}")
    print(f"\nflags written: {flags:,}; python -m checks peak RSS {cli_rss:.2f} GB; "
          f"load average "
          f"{load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after")
    if p.rounds >= TARGET_ROUNDS:
        verdict = "met" if median("run_checks") < TARGET_SECONDS else "NOT met"
        print(f"target: catalogue over {p.rounds:,} rounds under {TARGET_SECONDS:.0f} s: "
              f"{verdict} (median {median('run_checks'):.1f} s; ratio to the floor "
              f"{median('run_checks') / median('floor'):.1f}x)\n")
    else:  # the target is of 10,000,000 rounds: a smaller run does not meet it
        linear = median("run_checks") * TARGET_ROUNDS / p.rounds
        print(f"target ({TARGET_ROUNDS:,} rounds under {TARGET_SECONDS:.0f} s): not judged "
              f"at {p.rounds:,} rounds; linear, {linear:.0f} s (median "
              f"{median('run_checks'):.1f} s; ratio to the floor "
              f"{median('run_checks') / median('floor'):.1f}x)\n")
    if args.no_per_check:
        return 0
    per_check(replay_dir, out_dir, checks, p.rounds, load_before)
    return 0


def per_check(replay_dir: Path, out_dir: Path, checks: list[runner.Check], rounds: int,
              load_before: tuple[float, float, float]) -> None:
    print(f"## run_checks by phase, and each relation and check alone ({rounds:,} rounds)\n")
    print("| phase of run_checks (once) | s |\n|---|---:|")
    for name, s in phases(replay_dir, out_dir).items():
        print(f"| {name} | {fmt(s)} |")
    per = sorted(each_alone(replay_dir, checks), reverse=True)
    total = sum(s for s, _, _, _ in per)
    cpu = sum(c for _, c, _, _ in per)
    print("\n| prepared relation, or check alone (once, one connection) | s | CPU s | share "
          "| rows |\n|---|---:|---:|---:|---:|")
    for s, c, cid, n in per:
        print(f"| {cid} | {fmt(s)} | {fmt(c)} | {s / total:.0%} | {n:,} |")
    print(f"| sum | {fmt(total)} | {fmt(cpu)} | | |")
    print(f"\nload average {load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    sys.exit(main())
