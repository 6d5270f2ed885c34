"""Replay of a mixed shift against its decode floor, measured in the same run (issue 6).

Usage: .venv/bin/python bench/replay_floor.py [--tables 20] [--rounds 250] [--seed 1]
       [--fault-rate 0.01] [--repeat 5] [--cli]

Simulates a shift (every game, faults at --fault-rate), writes its events into a real log
with ``ingest.log.LogWriter`` (batches of 2,000 messages, key = table, 3 partitions, as
ingest writes them) and the same events' Avro bodies into an Avro object container file
(the writer schema of id 2, no codec, fastavro's own writer). Then, in turns, so that the
machine's drift touches every row alike, it times:

- the floor: ``fastavro.reader`` over that container file, every record;
- ``schemas.decode`` of every message, one at a time (the values already in memory), and
  the old input path of replay: ``read_log`` and ``decode`` per message;
- the new input path: ``replay.batch_decode`` (log segments read without schema
  resolution, bodies decoded a block at a time);
- ``replay.run.replay`` into Parquet with 1 worker and with 2 (fold, judge, write);
- two lower bounds of replay's own work: reading the log segments without decoding the
  bodies, and the rules engine alone (``replay.adjudicate.judge_document``) on the round
  documents of the same shift, built beforehand (no I/O, no fold, no rows);
- with --cli, also the whole command ``python -m replay --workers N`` (interpreter start-up
  and imports included).

Prints one Markdown table: best and median events/s (rounds/s for replay), the median's
ratio to the floor's median, the median wall seconds and CPU seconds (this process and the
processes it waited for: replay's helpers, the command and its helpers), with --cli the
whole command's 2-against-1 ratios, then whether 1 and 2 workers wrote the same bytes;
with --phases, wall and CPU seconds per phase, verification of the log first.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BATCH = 2_000
PARTITIONS = 3


def _write_log(events: list, data: Path) -> None:
    from ingest.log import LogWriter, Received
    from schemas import encode

    log = LogWriter(data / "log", data / "quarantine")
    offsets = [0] * PARTITIONS
    batch = []
    for e in events:
        key = e.table_id.encode()
        p = zlib.crc32(key) % PARTITIONS
        batch.append(Received(topic="round-events", partition=p, offset=offsets[p],
                              timestamp_ms=e.occurred_at_us // 1000, key=key, value=encode(e)))
        offsets[p] += 1
        if len(batch) == BATCH:
            log.append(batch, [])
            batch = []
    if batch:
        log.append(batch, [])


def _write_floor_file(values: list[bytes], path: Path) -> None:
    """The same events' Avro bodies as a container file written by fastavro itself; checks
    that its blocks hold exactly those bodies, in order."""
    from fastavro import block_reader, schemaless_reader, writer

    from schemas import CURRENT_SCHEMA_ID, writer_schema

    schema = writer_schema(CURRENT_SCHEMA_ID)
    records = [schemaless_reader(io.BytesIO(v[5:]), schema, None, return_record_name=True)
               for v in values]
    with path.open("wb") as fo:
        writer(fo, schema, records, codec="null")
    with path.open("rb") as fo:
        held = b"".join(block.bytes_.getvalue() for block in block_reader(fo))
    if held != b"".join(v[5:] for v in values):
        sys.exit("the container file does not hold the log's bodies byte for byte")


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(run: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds): the CPU time of this process and of the processes it
    started and waited for meanwhile (replay's helpers, the command and its helpers)."""
    start, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    run()
    return (time.perf_counter() - start,
            time.process_time() - cpu + _children_cpu() - children)


def _digests(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.glob("*.parquet"))}


def _phases(log: Path, out: Path) -> dict[str, tuple[float, float]]:
    """One replay taken apart: each phase timed on its own, after the one before it ran
    (the first judgement of each game includes what the game builds on first use), with
    the collector paused as replay pauses it."""
    from replay.heap import collector_paused

    with collector_paused():
        return _timed_phases(log, out)


def _since(start: tuple[float, float]) -> tuple[float, float]:
    return time.perf_counter() - start[0], time.process_time() - start[1]


def _timed_phases(log: Path, out: Path) -> dict[str, tuple[float, float]]:
    from replay.batch_decode import _container_header, decode_entries, log_entries
    from replay.fold import fold
    from replay.parallel import arrow_table, write_parquet
    from replay.run import TABLES, judge_rounds, rows_of
    from schemas import CURRENT_SCHEMA_ID
    from schemas.checkpoint import read_verifier
    from schemas.log_verify import verify_data

    t: dict[str, tuple[float, float]] = {}
    start = (time.perf_counter(), time.process_time())
    verdict = verify_data(log.parent, read_verifier(log.parent / "keys" / "signing.pub"))
    if not verdict.ok:
        sys.exit(f"the log does not verify: {verdict.line()}")
    t["verify the log (schemas/log_verify.py; python -m replay does it first)"] = _since(start)
    start = (time.perf_counter(), time.process_time())
    entries = list(log_entries(log))
    t["read the log segments (fastavro, deflate)"] = _since(start)
    _container_header(CURRENT_SCHEMA_ID)
    start = (time.perf_counter(), time.process_time())
    decoded = [e for _, e in decode_entries(entries)]
    t["decode: Avro bodies and validated event objects"] = _since(start)
    start = (time.perf_counter(), time.process_time())
    replayed = fold(("", e) for e in decoded if not isinstance(e, Exception))
    t["fold (replay/fold.py)"] = _since(start)
    start = (time.perf_counter(), time.process_time())
    judged = list(judge_rounds(replayed))
    t["judge (replay/reconstruct.py, replay/games)"] = _since(start)
    start = (time.perf_counter(), time.process_time())
    rows: dict[str, list] = {name: [] for name in TABLES}
    for state, judgement in judged:
        for name, got in rows_of(state, judgement).items():
            rows[name].extend(got)
    t["rows_of (replay/run.py)"] = _since(start)
    start = (time.perf_counter(), time.process_time())
    tables = {name: arrow_table(rows[name], s) for name, s in TABLES.items()}
    t["Arrow tables from the rows (replay.parallel.arrow_table)"] = _since(start)
    start = (time.perf_counter(), time.process_time())
    out.mkdir(parents=True, exist_ok=True)
    for name, table in tables.items():
        write_parquet(table, out / f"{name}.parquet")
    t["Parquet files"] = _since(start)
    return t


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=20)
    p.add_argument("--rounds", type=int, default=250, help="rounds per table")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fault-rate", type=float, default=0.01)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--phases", action="store_true",
                   help="also time one replay phase by phase (read, decode, fold, judge ...)")
    p.add_argument("--cli", action="store_true",
                   help="also time the whole command, python -m replay --workers N")
    args = p.parse_args()
    sys.path.insert(0, str(REPO))
    from fastavro import reader

    from bench.timing import cpu_model
    from ingest.simulate import simulate_shift
    from replay.batch_decode import decode_entries, log_entries
    from replay.run import replay
    from schemas import decode
    from schemas.logformat import read_log

    events, labels = simulate_shift(tables=args.tables, rounds=args.rounds, seed=args.seed,
                                    fault_rate=args.fault_rate)
    games = sorted({e.payload.game for e in events if e.kind == "RoundStarted"})
    n_events, n_rounds = len(events), args.tables * args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        _write_log(events, data)
        log = data / "log"
        values = [rec.value for rec in read_log(log)]
        floor_file = Path(tmp) / "events.avro"
        _write_floor_file(values, floor_file)

        def floor() -> None:
            with floor_file.open("rb") as fo:
                if sum(1 for _ in reader(fo)) != n_events:
                    sys.exit("floor: wrong record count")

        def per_message() -> None:
            for v in values:
                decode(v)

        def old_input() -> None:
            for rec in read_log(log):
                decode(rec.value)

        in_memory = list(log_entries(log))

        def batched() -> None:
            for _ in decode_entries(in_memory):
                pass

        def new_input() -> None:
            for _ in decode_entries(log_entries(log)):
                pass

        def segments_only() -> None:
            for _ in log_entries(log):
                pass

        from replay.adjudicate import judge_document
        from replay.fold import fold
        from replay.reconstruct import round_document
        states = fold((w, e) for (_, w, *_), e in decode_entries(in_memory)
                      if not isinstance(e, Exception)).rounds
        documents = []
        for state in states:
            with contextlib.suppress(Exception):
                documents.append(round_document(state))

        def engine_only() -> None:
            for doc in documents:
                with contextlib.suppress(Exception):
                    judge_document(doc)

        def replay_with(workers: int) -> Callable[[], None]:
            return lambda: replay(log, data / f"replay-{workers}", workers=workers)

        def cli_with(workers: int) -> Callable[[], None]:
            env = {**os.environ, "PYTHONPATH": str(REPO)}
            cmd = [sys.executable, "-m", "replay", "run", "--data", str(data),
                   "--workers", str(workers)]
            return lambda: subprocess.run(cmd, cwd=REPO, env=env, check=True,
                                          capture_output=True)

        rows: list[tuple[str, Callable[[], None], bool]] = [
            ("floor: fastavro.reader over the container file", floor, False),
            ("schemas.decode, one message at a time (values in memory)", per_message, False),
            ("decode_entries, a block at a time (values in memory)", batched, False),
            ("read_log + schemas.decode (replay's input until now)", old_input, False),
            ("log_entries + decode_entries (replay's input now)", new_input, False),
            ("lower bound: log_entries alone (segments read, bodies not decoded)",
             segments_only, False),
            ("lower bound: the rules engine alone on round documents already built",
             engine_only, True),
            ("replay(), 1 worker: read, decode, fold, judge, Parquet", replay_with(1), True),
            ("replay(), 2 workers", replay_with(2), True),
        ]
        if args.cli:
            rows += [("python -m replay --workers 1 (whole command)", cli_with(1), True),
                     ("python -m replay --workers 2 (whole command)", cli_with(2), True)]
        times: dict[str, list[float]] = {name: [] for name, *_ in rows}
        cpus: dict[str, list[float]] = {name: [] for name, *_ in rows}
        for _ in range(args.repeat):
            for name, run, _ in rows:
                wall, cpu = _timed(run)
                times[name].append(wall)
                cpus[name].append(cpu)
        phases = _phases(log, data / "phases") if args.phases else None
        one, two = _digests(data / "replay-1"), _digests(data / "replay-2")
        differ = sorted(name for name in one.keys() | two.keys()
                        if one.get(name) != two.get(name))
        if differ and os.environ.get("KEEP"):
            import shutil
            shutil.copytree(data, os.environ["KEEP"], dirs_exist_ok=True)

    floor_median = sorted(times[rows[0][0]])[len(times[rows[0][0]]) // 2]
    print(f"{n_events:,} events, {n_rounds:,} rounds ({args.tables} tables x {args.rounds}; "
          f"games {', '.join(games)}; {len(labels)} faults injected, seed {args.seed})")
    print(f"CPU: {cpu_model()}; Python {platform.python_version()}; "
          f"best and median of {args.repeat}, in turns\n")
    print("| what | events/s best | events/s median | rounds/s median | median vs floor "
          "| wall s median | CPU s median |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, _, per_round in rows:
        ts = sorted(times[name])
        best, median = ts[0], ts[len(ts) // 2]
        cpu = sorted(cpus[name])[len(ts) // 2]
        rounds = f"{n_rounds / median:,.0f}" if per_round else ""
        print(f"| {name} | {n_events / best:,.0f} | {n_events / median:,.0f} | {rounds} | "
              f"{floor_median / median:.0%} | {median:.2f} | {cpu:.2f} |")
    if args.cli:
        one_w, two_w = (sorted(times[rows[i][0]])[args.repeat // 2] for i in (-2, -1))
        one_c, two_c = (sorted(cpus[rows[i][0]])[args.repeat // 2] for i in (-2, -1))
        print(f"\nThe whole command, 2 workers against 1 (medians): {one_w / two_w:.2f}x the "
              f"speed (wall), {two_c / one_c:.2f}x the CPU time")
    print("\n1 and 2 workers wrote the same bytes: "
          + ("yes" if not differ else f"NO, {', '.join(differ)} differ"))
    if phases is not None:
        total = sum(w for w, _ in phases.values())
        total_cpu = sum(c for _, c in phases.values())
        print(f"\nWhere one worker's time goes (one pass, phase by phase, {total:.2f} s wall, "
              f"{total_cpu:.2f} s CPU):\n")
        print("| phase | s | share | us per event | CPU s |")
        print("|---|---:|---:|---:|---:|")
        for name, (secs, cpu) in phases.items():
            print(f"| {name} | {secs:.2f} | {secs / total:.0%} | "
                  f"{secs / n_events * 1e6:.1f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
