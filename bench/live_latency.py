"""How long a flag takes to reach ``checks/flags.parquet`` while a shift is dealt live
(the target: new flags appear within 10 seconds while ingest and replay run live).

Usage (after ``make kafka-up``): .venv/bin/python bench/live_latency.py [--tables 4]
       [--rounds 60] [--pace 40] [--fault-rate 0.1] [--every 1] [--child-processes]
       [--prefill SEGMENTS]

Runs what ``make live`` runs, on the real local broker: ``python -m ingest`` (continuous)
and ``python -m checks --follow --every SECONDS``, then the simulator dealing overpays and
underpays at ``--pace`` events a second. The events are the simulator's own (the same
seed and arguments give the same list), so the moment the last event of each faulty round
was handed to Kafka is known: the simulator's start (taken before its process starts, so
its start-up counts against us) plus the event's index over the pace. The bench polls the
flags file every 0.1 s and notes when each labelled round first shows up. The dashboard's
Flags page reads the file again every ``dashboard/screens/flags.py`` REFRESH_S seconds, so
the delay a user sees is at most the figure here plus that interval.
Prints Markdown: the delays' median, 90th percentile and maximum, and the passes' times
(replay, checks) from the follow loop's own lines. ``--child-processes``: the loop as it was
before its replay stayed resident (``checks.follow.follow(resident=False)``: ``python -m
replay`` and ``python -m checks --live`` as child processes every pass), to compare.
``--prefill SEGMENTS``: the live shift is dealt at the end of a long one: before ingest
starts, the data directory's log is given that many segments of 1 to 5 events each, written
as live ingest writes them (``bench/live_verify.py``'s writer: simulated shifts of every
game under their own casinos, on another topic), e.g. 144,000 for the end of an 8-hour
shift at 5 segments a second; the dealing starts once the follow loop's first pass (which
verifies and replays all of it) is done.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ingest.simulate import simulate_shift  # noqa: E402


def _flagged(path: Path, casino: str) -> set[str]:
    """The rounds of ``casino`` flagged in ``path`` (the prefill's rounds are of others)."""
    try:
        rows = pq.read_table(path, columns=["casino", "round_id"]).to_pylist()
        return {r["round_id"] for r in rows if r["round_id"] and r["casino"] == casino}
    except (OSError, ValueError):
        return set()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=4)
    p.add_argument("--rounds", type=int, default=60)
    p.add_argument("--pace", type=float, default=40.0)
    p.add_argument("--fault-rate", type=float, default=0.1)
    p.add_argument("--every", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--prefill", type=int, default=0, metavar="SEGMENTS",
                   help="segments of 1 to 5 events written into the log before the live "
                   "shift (144000: the end of an 8-hour shift)")
    p.add_argument("--child-processes", action="store_true",
                   help="replay and checks as child processes every pass (the loop before)")
    args = p.parse_args()
    status = subprocess.run(["bash", "deploy/kafka/kafka.sh", "status"], cwd=REPO,
                            capture_output=True, text=True)
    if status.returncode != 0:
        print("no broker: run `make kafka-up` first", file=sys.stderr)
        return 2
    bootstrap = status.stdout.strip().splitlines()[-1]
    shift = {"tables": args.tables, "rounds": args.rounds, "seed": args.seed,
             "fault_rate": args.fault_rate, "games": ["pai_gow_poker", "face_up_pai_gow",
                                                      "pai_gow_tiles", "caribbean_stud"],
             "faults": ["overpay", "underpay"]}
    events, labels = simulate_shift(**shift)
    last_index = {e.round_id: i for i, e in enumerate(events, start=1)}
    casino = events[0].casino
    with tempfile.TemporaryDirectory(prefix="catwalk-live-") as tmp:
        data = Path(tmp) / "data"
        topic = f"latency-{uuid.uuid4().hex[:8]}"
        py = sys.executable
        follow_log = Path(tmp) / "follow.out"
        loop = [py, "-m", "checks", "--data", str(data), "--follow", "--every", str(args.every)]
        if args.child_processes:
            loop = [py, "-c", "import sys; from pathlib import Path; from checks.follow import "
                    f"follow; sys.exit(follow(Path({str(data)!r}), every={args.every!r}, "
                    "resident=False))"]
        if args.prefill:  # before ingest: one writer at a time
            _prefill(data, args.prefill)
        ingest = subprocess.Popen([py, "-m", "ingest", "--data", str(data), "--topic", topic,
                                   "--bootstrap", bootstrap, "--quiet"], cwd=REPO,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with follow_log.open("wb") as out:
            follow = subprocess.Popen(loop, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
        try:
            time.sleep(2.0)  # both started and waiting
            if args.prefill:
                _first_pass(follow_log, follow)
            start = time.monotonic()
            sim = subprocess.Popen(
                [py, "-m", "ingest.simulate", "--tables", str(args.tables), "--rounds",
                 str(args.rounds), "--seed", str(args.seed), "--fault-rate",
                 str(args.fault_rate), "--faults", "overpay,underpay", "--games",
                 ",".join(shift["games"]), "--topic", topic, "--bootstrap", bootstrap,
                 "--pace", str(args.pace)], cwd=REPO, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
            due = {lb.round_id: start + last_index[lb.round_id] / args.pace for lb in labels}
            seen: dict[str, float] = {}
            end = start + len(events) / args.pace + 120
            while time.monotonic() < end and len(seen) < len(due):
                now = time.monotonic()
                flagged = _flagged(data / "checks" / "flags.parquet", casino)
                for r in flagged & due.keys() - seen.keys():
                    seen[r] = now
                time.sleep(0.1)
            sim.wait(timeout=60)
        finally:
            for proc in (follow, ingest):
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=60)
        delays = sorted(seen[r] - due[r] for r in seen)
        passes = [line for line in follow_log.read_text().splitlines() if "up to date" in line]
        segments = len(list((data / "log").glob("segment-*.avro")))
    print(f"## Flags while a shift is dealt live ({time.strftime('%Y-%m-%d')})\n")
    print(f"- command: `.venv/bin/python bench/live_latency.py --tables {args.tables} "
          f"--rounds {args.rounds} --pace {args.pace:g} --fault-rate {args.fault_rate:g} "
          f"--every {args.every:g}{' --child-processes' if args.child_processes else ''}"
          f"{f' --prefill {args.prefill}' if args.prefill else ''}`; "
          f"machine load {os.getloadavg()[0]:.2f} at the end")
    print(f"- {len(events):,} events at {args.pace:g}/s; {len(due)} faulty rounds, "
          f"{len(seen)} flagged; {len(passes)} passes of replay and checks")
    if delays:
        p90 = delays[min(len(delays) - 1, int(0.9 * len(delays)))]
        print(f"- from the round's last event sent to its flag in checks/flags.parquet: "
              f"median {statistics.median(delays):.1f} s, 90th percentile {p90:.1f} s, "
              f"max {delays[-1]:.1f} s")
    for stage in ("replay", "checks"):
        took = sorted(float(m.group(1)) for line in passes
                      if (m := re.search(rf"{stage} ([0-9.]+) s", line)))
        if took:
            print(f"- {stage} per pass: median {statistics.median(took):.2f} s, max "
                  f"{took[-1]:.2f} s; last pass {took_last(passes, stage)}")
    for part in ("verify", "new records", "write"):  # the resident replay's own split
        took = sorted(float(m.group(1)) for line in passes
                      if (m := re.search(rf"{part} ([0-9.]+) s", line)))
        if took:
            print(f"  - of which {part}: median {statistics.median(took):.2f} s, max "
                  f"{took[-1]:.2f} s")
    if args.prefill:
        print(f"- dealt after a log of {args.prefill:,} segments written beforehand "
              "(the end of a long shift)")
    print(f"- the log was {segments:,} segments at the end")
    records = [int(m.group(1).replace(",", "")) for line in passes
               if (m := re.search(r"([0-9,]+) records", line))]
    if records:
        print(f"- the log held {records[-1]:,} records at the last pass")
    missing = sorted(due.keys() - seen.keys())
    if missing:
        print(f"- never flagged: {json.dumps(missing)}")
    return 0 if not missing else 1


def _prefill(data: Path, count: int) -> None:
    """``count`` segments of 1 to 5 simulated events in ``data``'s log, on another topic."""
    sys.path.insert(0, str(REPO / "bench"))
    from live_verify import _Writer

    writer = _Writer(data, seed=1000)
    start = time.monotonic()
    try:
        for done in range(0, count, 5_000):
            writer.append(min(5_000, count - done))
            print(f"live_latency: prefill {done + min(5_000, count - done):,} of {count:,} "
                  f"segments ({time.monotonic() - start:.0f} s)", file=sys.stderr, flush=True)
    finally:
        writer.close()


def _first_pass(follow_log: Path, follow: subprocess.Popen[bytes]) -> None:
    """Wait for the follow loop's first pass over the prefilled log."""
    start = time.monotonic()
    while "up to date" not in follow_log.read_text(errors="replace"):
        if follow.poll() is not None:
            sys.exit(f"the follow loop stopped: {follow_log.read_text(errors='replace')}")
        time.sleep(0.5)
    print(f"live_latency: the first pass over the prefilled log took "
          f"{time.monotonic() - start + 2:.0f} s", file=sys.stderr, flush=True)


def took_last(passes: list[str], stage: str) -> str:
    """The last pass's time of ``stage``, as the loop printed it."""
    m = re.search(rf"{stage} ([0-9.]+) s", passes[-1]) if passes else None
    return f"{m.group(1)} s" if m else "unknown"


if __name__ == "__main__":
    sys.exit(main())
