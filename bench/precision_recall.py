"""Precision and recall of the checks over a large simulated shift, through the real pipeline
(each simulated fault must be flagged by its check, and nothing unlabelled).

Usage: .venv/bin/python bench/precision_recall.py [--casinos 10] [--tables 20]
       [--rounds 1000] [--seed 1] [--fault-rate 0.05] [--workers 2] [--data DIR]
       [--rulesets DIR] [--first-casino N] [--games GAME,...] [--rich-hands P]

``--rulesets DIR`` deals and judges each casino by its own filings (docs/rulesets.md):
``--rulesets docs/examples/rulesets --first-casino 2 --casinos 1 --games pai_gow_poker``
measures a shift of casino C02, whose dealers set by the Flamingo house way of its filing
(docs/house-way.md), not by Catwalk's reference-1.3. Either way the tables' layouts (which
seat is at the dealer's right: the simulator's own for the tables a casino did not lay out)
are filed beside the rulesets in DATA/filings, the simulators deal by them and put players
out of turn, and replay judges by them (docs/rulesets.md, "Table layouts").

Needs the local broker (`make kafka-up`) or KAFKA_BOOTSTRAP. Simulates one shift per casino
(C01, C02 ...; seed + casino number), every game and every fault kind at --fault-rate, each
fault labelled (``--labels``), all into one fresh topic; then runs the pipeline as a user
runs it, each stage a ``python -m`` subprocess: ingest (until the topic is idle), replay
(which verifies the signed log first), the checks, and ``python -m checks.evaluate`` with
every casino's labels. Prints the stages' wall times and the confusion tables (recall per
fault kind by the check that answers it, precision per rule check); exits with
``checks.evaluate``'s status (0: every labelled fault caught, no unlabelled round flagged by
a rule check). The default is 10 x 20 x 1,000 = 200,000 rounds (about 5.6 million events).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from ingest.simulate import layout_files, write_layout_files  # noqa: E402
from replay.filings import load_rulebook  # noqa: E402

TIMES: list[tuple[str, float]] = []
"""Each stage's wall time, in order."""


def _run(name: str, args: list[str], env: dict[str, str], *, check: bool = True
         ) -> subprocess.CompletedProcess[str]:
    start = time.perf_counter()
    print(f"-- {name} ...", file=sys.stderr, flush=True)
    proc = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          cwd=REPO, env=env, check=False)
    elapsed = time.perf_counter() - start
    print(f"-- {name}: {elapsed:.1f} s, exit {proc.returncode}", file=sys.stderr, flush=True)
    if check and proc.returncode != 0:
        sys.exit(f"{name} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n"
                 f"{proc.stderr[-4000:]}")
    TIMES.append((name, elapsed))
    return proc


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--casinos", type=int, default=10)
    p.add_argument("--tables", type=int, default=20, help="tables per casino")
    p.add_argument("--rounds", type=int, default=1000, help="rounds per table")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fault-rate", type=float, default=0.05)
    p.add_argument("--workers", type=int, default=2, help="replay worker processes")
    p.add_argument("--rulesets", type=Path, default=None, metavar="DIR",
                   help="the casinos' filings the tables deal by and replay judges by")
    p.add_argument("--against-shipped", action="store_true",
                   help="with --rulesets: judge the same log again by the shipped rulesets "
                   "alone (Catwalk's own house ways and paytables) and score that too")
    p.add_argument("--first-casino", type=int, default=1, metavar="N",
                   help="number of the first casino (C01 by default)")
    p.add_argument("--games", default=None, metavar="GAME,...",
                   help="the games dealt (default all four)")
    p.add_argument("--rich-hands", default=None, metavar="P",
                   help="share of rounds with a strong hand dealt (the simulator's default)")
    p.add_argument("--data", type=Path, default=None,
                   help="data directory to keep (default: a temporary one, removed)")
    args = p.parse_args()
    sys.path.insert(0, str(REPO))
    from ingest.kafka_io import bootstrap_servers

    servers = bootstrap_servers()
    env = {**os.environ, "KAFKA_BOOTSTRAP": servers}
    topic = f"precision-{uuid.uuid4().hex[:8]}"
    tmp = None if args.data else tempfile.mkdtemp(prefix="catwalk-precision-")
    data = args.data or Path(tmp or ".")
    data.mkdir(parents=True, exist_ok=True)
    rounds = args.casinos * args.tables * args.rounds
    try:
        labels = []
        # the tables' layouts filed beside the casinos' rulesets (the simulator's own for
        # the tables a casino did not lay out): the simulators deal by them and put players
        # out of turn, and replay judges by them
        filings = data / "filings"
        shutil.rmtree(filings, ignore_errors=True)
        if args.rulesets is not None:
            shutil.copytree(args.rulesets, filings, symlinks=True)
        own = None if args.rulesets is None else load_rulebook(args.rulesets)
        for i in range(args.first_casino, args.first_casino + args.casinos):
            write_layout_files(filings, layout_files(tables=args.tables, casino=f"C{i:02d}",
                                                     book=own))
        rulesets = ["--rulesets", str(filings)]
        dealing = [*rulesets, *(["--games", args.games] if args.games else []),
                   *(["--rich-hands", args.rich_hands] if args.rich_hands else [])]
        for i in range(args.first_casino, args.first_casino + args.casinos):
            casino = f"C{i:02d}"
            labels.append(data / f"labels-{casino}.jsonl")
            _run(f"simulate {casino}", [
                "ingest.simulate", "--casino", casino, "--tables", str(args.tables),
                "--rounds", str(args.rounds), "--seed", str(args.seed + i),
                "--fault-rate", str(args.fault_rate), "--labels", str(labels[-1]),
                "--topic", topic, *dealing], env)
        _run("ingest", ["ingest", "--data", str(data), "--topic", topic, "--until-idle", "10",
                        "--quiet"], env)
        _run("replay", ["replay", "--data", str(data), "--workers", str(args.workers),
                        *rulesets], env)
        checks = _run("checks", ["checks", "--data", str(data)], env)
        evaluation = _run("evaluate", ["checks.evaluate", "--data", str(data),
                                       *[x for path in labels for x in ("--labels", str(path))]],
                          env, check=False)
        if evaluation.returncode not in (0, 1):
            sys.exit(f"checks.evaluate failed:\n{evaluation.stderr}")
        games = args.games or "all four games"
        judged = ("" if args.rulesets is None
                  else f", judged by the filings in {args.rulesets}")
        print(f"{rounds:,} rounds ({args.casinos} casinos x {args.tables} tables x "
              f"{args.rounds}), {games}, every fault kind at --fault-rate "
              f"{args.fault_rate}, seed {args.seed}{judged} and the tables' layouts; Python "
              f"{platform.python_version()}, {os.cpu_count()} CPUs\n")
        print("| stage | wall s |\n|---|---:|")
        for name, elapsed in TIMES:
            print(f"| {name} | {elapsed:.1f} |")
        print()
        print(evaluation.stdout)
        print("python -m checks said:\n" + "\n".join(
            "    " + line for line in checks.stdout.splitlines()))
        if args.against_shipped and args.rulesets is not None:
            shipped = data.parent / f"{data.name}-shipped"
            shutil.rmtree(shipped, ignore_errors=True)
            shutil.copytree(data, shipped, ignore=shutil.ignore_patterns("replay*", "checks"))
            _run("replay, shipped rulesets", ["replay", "--data", str(shipped), "--workers",
                                              str(args.workers)], env)
            _run("checks, shipped rulesets", ["checks", "--data", str(shipped)], env)
            against = _run("evaluate, shipped rulesets", [
                "checks.evaluate", "--data", str(shipped),
                *[x for path in labels for x in ("--labels", str(path))]], env, check=False)
            print("\nThe same log judged by the shipped rulesets alone (no --rulesets):\n")
            print(against.stdout)
            if tmp is not None:
                shutil.rmtree(shipped, ignore_errors=True)
        return evaluation.returncode
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
