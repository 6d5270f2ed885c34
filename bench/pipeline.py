"""The whole pipeline through the real local Kafka broker, stage by stage.

Usage: .venv/bin/python bench/pipeline.py [--tables 20] [--rounds 250] [--seed 1]

Starts nothing itself: needs the local broker (`make kafka-up`) or KAFKA_BOOTSTRAP. Each stage
runs as the user runs it (`python -m ...` in a subprocess) on a fresh topic and a temporary
data directory, so the figures include interpreter start-up, like a real batch run. Prints one
Markdown table row per stage with events (or rounds) per second.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _stage(name: str, args: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          cwd=REPO, env=env, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{name} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    lines = (proc.stdout.strip() or proc.stderr.strip()).splitlines()
    return elapsed, lines[-1] if lines else ""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=20)
    p.add_argument("--rounds", type=int, default=250, help="rounds per table")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    sys.path.insert(0, str(REPO))
    from ingest.kafka_io import bootstrap_servers
    from ingest.simulate import simulate_shift

    servers = bootstrap_servers()
    events, faults = simulate_shift(tables=args.tables, rounds=args.rounds, seed=args.seed,
                                    fault_rate=0.01)
    n_events, n_rounds = len(events), args.tables * args.rounds
    topic = f"bench-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "KAFKA_BOOTSTRAP": servers}
    with tempfile.TemporaryDirectory() as tmp:
        data = str(Path(tmp) / "data")
        stages = [
            ("simulate + produce", ["ingest.simulate", "--tables", str(args.tables), "--rounds",
                                    str(args.rounds), "--seed", str(args.seed), "--fault-rate",
                                    "0.01", "--topic", topic], n_events, "events"),
            ("ingest (consume, log, fsync, commit)",
             ["ingest", "--data", data, "--topic", topic, "--until-idle", "1", "--quiet"],
             n_events, "events"),
            ("verify the hash chain", ["ingest", "verify", "--data", data], n_events, "events"),
            ("replay (fold, judge, Parquet)", ["replay", "--data", data], n_rounds, "rounds"),
            ("checks (DuckDB)", ["checks", "--data", data], n_rounds, "rounds"),
        ]
        print(f"{n_events:,} events, {n_rounds:,} rounds ({args.tables} tables x {args.rounds}), "
              f"{len(faults)} injected faults; Python {platform.python_version()}, "
              f"{os.cpu_count()} CPUs, {platform.processor() or platform.machine()}")
        print("\n| stage | wall s | per second | last line |\n|---|---:|---:|---|")
        for name, cmd, count, unit in stages:
            elapsed, last = _stage(name, cmd, env)
            print(f"| {name} | {elapsed:.2f} | {count / elapsed:,.0f} {unit}/s | {last[:70]} |")
        print("\n(ingest's wall time includes --until-idle 1: one idle second before it stops)")


if __name__ == "__main__":
    main()
