"""``python -m replay whatif`` on a 200,000-round shift, beside plain ``python -m replay`` on
the same log, in the same run.

Usage: .venv/bin/python bench/whatif.py [--tables 80] [--rounds 2500] [--seed 1]
       [--fault-rate 0.01] [--workers 2] [--check-workers]

Simulates a mixed shift (all four games, one per table in turn, faults at --fault-rate)
round by round across the tables, and writes it into a real signed log with
``ingest.log.LogWriter`` as it goes (batches of 2,000 messages, key = table, 3 partitions,
the events of each batch of rounds in time order), so the shift is never held whole. Then
it runs, as a user runs them, one after the other:

- ``python -m replay run --data D --workers N`` (verify, fold, judge every round, Parquet);
- ``python -m replay whatif --ruleset royal250.json --data D --workers N --since .. --until
  ..``: Caribbean stud's raise paying 250 to 1 on a royal flush instead of 100 to 1, over
  the shift's dealt days (verify, fold every round, judge the Caribbean stud rounds twice).

For each: wall seconds, rounds of the log per second, CPU seconds (the command and its
helpers), the largest resident set of the command or a helper, and the load average before
and after. It checks that the what-if left replay's outputs byte for byte as they were,
and with --check-workers runs the what-if again with one worker and compares the files.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BATCH = 2_000
PARTITIONS = 3
ROUNDS_AT_A_TIME = 25


def write_shift(data: Path, *, tables: int, rounds: int, seed: int,
                fault_rate: float) -> tuple[int, set[dt.date]]:
    """The shift's events written into ``data/log``; (events written, days dealt)."""
    from ingest.log import LogWriter, Received
    from ingest.simulate import DEFAULT_RICH_HANDS, FAULT_KINDS, GAMES, TableSimulator
    from schemas import encode

    sims = [TableSimulator(casino="C01", table_index=t, seed=seed, fault_rate=fault_rate,
                           game=GAMES[(t - 1) % len(GAMES)], faults=tuple(FAULT_KINDS),
                           rich_hands=DEFAULT_RICH_HANDS) for t in range(1, tables + 1)]
    log = LogWriter(data / "log", data / "quarantine")
    offsets = [0] * PARTITIONS
    batch = []
    written = 0
    days: set[dt.date] = set()
    for first in range(1, rounds + 1, ROUNDS_AT_A_TIME):
        events = [e for sim in sims for n in range(first, min(first + ROUNDS_AT_A_TIME,
                                                              rounds + 1))
                  for e in sim.round(n)]
        events.sort(key=lambda e: (e.occurred_at_us, e.table_id, e.table_seq))
        for e in events:
            if e.kind == "RoundStarted":
                days.add((dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
                          + dt.timedelta(microseconds=e.occurred_at_us)).date())
            key = e.table_id.encode()
            p = zlib.crc32(key) % PARTITIONS
            batch.append(Received(topic="round-events", partition=p, offset=offsets[p],
                                  timestamp_ms=e.occurred_at_us // 1000, key=key,
                                  value=encode(e)))
            offsets[p] += 1
            if len(batch) == BATCH:
                log.append(batch, [])
                written += len(batch)
                batch = []
    if batch:
        log.append(batch, [])
        written += len(batch)
    return written, days


def royal_250(path: Path) -> Path:
    sys.path.insert(0, str(REPO))
    from replay.rulesets import load_ruleset
    from replay.whatif import ruleset_data

    data = ruleset_data(load_ruleset("caribbean_stud-standard-v1"))
    data["id"], data["title"] = "caribbean_stud-royal250-v1", "royal flush 250 to 1"
    data["paytables"]["raise"]["royal_flush"] = {"odds": [250, 1]}
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def run(cmd: list[str]) -> dict[str, object]:
    """Run ``python -m <cmd>``: wall and CPU seconds and the largest resident set (of the
    command, or of a helper it waited for: ``wait4``'s usage of the command), the load
    average before and after, and what it printed."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", *cmd], cwd=REPO, env=env,
                                 stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        printed, said = out.read(), err.read()
    if child.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({child.returncode}):\n{said}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "maxrss_mb": usage.ru_maxrss / 1024, "load_before": load,
            "load_after": os.getloadavg()[0], "stdout": printed}


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=80)
    p.add_argument("--rounds", type=int, default=2500, help="rounds per table")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fault-rate", type=float, default=0.01)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--check-workers", action="store_true",
                   help="also run the what-if with one worker and compare the files")
    args = p.parse_args()
    sys.path.insert(0, str(REPO))
    from bench.timing import cpu_model

    n_rounds = args.tables * args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        start = time.perf_counter()
        events, days = write_shift(data, tables=args.tables, rounds=args.rounds,
                                   seed=args.seed, fault_rate=args.fault_rate)
        built = time.perf_counter() - start
        ruleset = royal_250(Path(tmp) / "royal250.json")
        print(f"{events:,} events, {n_rounds:,} rounds ({args.tables} tables x "
              f"{args.rounds}; all four games; faults at {args.fault_rate}; seed {args.seed}), "
              f"dealt {min(days)} to {max(days)}; log written in {built:.1f} s")
        print(f"CPU: {cpu_model()}; Python {sys.version.split()[0]}; --workers {args.workers}")
        rows = []

        def timed(label: str, cmd: list[str]) -> dict[str, object]:
            got = run(cmd)
            rows.append((label, got))
            return got

        timed(f"python -m replay --workers {args.workers}",
              ["replay", "run", "--data", str(data), "--workers", str(args.workers)])
        production = digests(data / "replay")
        period = ["--since", min(days).isoformat(), "--until", max(days).isoformat()]
        whatif = ["replay", "whatif", "--ruleset", str(ruleset), "--data", str(data), *period]
        out_n = Path(tmp) / f"whatif-{args.workers}"
        got = timed(f"python -m replay whatif --workers {args.workers}",
                    [*whatif, "--workers", str(args.workers), "--out", str(out_n)])
        unchanged = digests(data / "replay") == production
        same = None
        if args.check_workers and args.workers != 1:
            out_1 = Path(tmp) / "whatif-1"
            timed("python -m replay whatif --workers 1", [*whatif, "--workers", "1",
                                                          "--out", str(out_1)])
            same = digests(out_1) == digests(out_n)
        print()
        print("| command | wall s | rounds/s | CPU s | max RSS MB | load before, after |")
        print("|---|---:|---:|---:|---:|---|")
        for label, r in rows:
            print(f"| {label} | {r['wall']:.1f} | {n_rounds / r['wall']:,.0f} | {r['cpu']:.1f} "
                  f"| {r['maxrss_mb']:,.0f} | {r['load_before']:.2f}, {r['load_after']:.2f} |")
        manifest = json.loads((out_n / "whatif.json").read_text())
        print()
        print(f"what-if counts: {json.dumps(manifest['counts'])}")
        print("what-if report:")
        print(str(got["stdout"]).rstrip())
        print(f"replay's outputs unchanged by the what-if: {'yes' if unchanged else 'NO'}")
        if same is not None:
            print(f"what-if with 1 and {args.workers} workers wrote the same bytes: "
                  f"{'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
