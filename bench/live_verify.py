"""A live pass's verification of a long log of small segments: the whole log (as before)
against going on from the last pass (schemas/log_resume.py), measured in the same run.

Usage: .venv/bin/python bench/live_verify.py [--segments 20000 100000] [--new 5]
       [--repeat 5] [--seed 1] [--step] [--dir DIR]

Writes a log as live ingest does (``ingest.log.LogWriter``: each segment signed, its
checkpoint beside it in ``checkpoints/``, ``latest.checkpoint`` rewritten), of simulated
events of every game in segments of 1 to 5 records (a trickle: live ingest makes about 5
segments a second, 144,000 in an 8-hour shift), growing it to each ``--segments`` count in
turn (fsync is left out while writing: what is timed is reading). At each count it
verifies the log once with a ``ResumableVerifier`` (a whole verification, which it keeps),
then ``--repeat`` times appends ``--new`` segments and times, in alternating order:

- before: ``schemas.log_verify.verify_data`` of the whole log, keeping every record as
  entries (what each live pass did: ``replay.__main__._provenance`` with ``KeptRecords``);
- after: the ``ResumableVerifier`` going on from its last call, keeping the new records;
- ``ResumableVerifier.spot``, which the loop calls every second while the log looks
  unchanged (a share of the files verified, looked at again: median of 10 calls, and how
  many calls look at every file once);
- the follow loop's look at the log, every second, which decides whether a pass runs:
  before, every file's size and time (``checks.follow.log_signature``); after, with
  replay resident, the directories and ``latest.checkpoint`` (``checks.follow.log_mark``).

Both verdicts must be the same (records, root, checkpoint) or the bench stops. Prints one
Markdown table (median and best seconds), and what the verifier keeps between passes.

``--step``: then, at the largest count, the whole live pass of replay
(``replay.live.LiveReplay.step``: verify, decode and judge the new records, write
``replay/``), ``--repeat`` times each way after ``--new`` segments: going on, and after
``verifier.forget()`` (a whole verification, as every pass did before; the records taken
are recognised by their root, so only the new ones are replayed either way); a second
table gives the medians of its parts. The events are simulated shifts of 8 tables, each
shift under its own casino (C001, C002, ...) so that rounds never repeat.
``--dir`` keeps the log there (and reuses one already written there), else a temporary
directory is removed at the end.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from unittest import mock

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from checks.follow import log_mark, log_signature  # noqa: E402
from ingest.keys import load_signer  # noqa: E402
from ingest.log import LogWriter, Received  # noqa: E402
from ingest.simulate import simulate_shift  # noqa: E402
from replay.batch_decode import KeptRecords  # noqa: E402
from replay.live import LiveReplay, StepResult  # noqa: E402
from schemas import encode  # noqa: E402
from schemas.log_resume import _SEGMENT, SPOT_FILES, ResumableVerifier  # noqa: E402
from schemas.log_verify import DataVerdict, verify_data  # noqa: E402
from schemas.logformat import segments  # noqa: E402

T = TypeVar("T")


class _Writer:
    """Appends segments of 1 to 5 simulated events to ``data``'s log."""

    def __init__(self, data: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        self.events: Iterator[Any] = iter(())
        self.seed = seed
        self.writer = LogWriter(data / "log", data / "quarantine", signer=load_signer(data))
        self.offset = sum(self.writer.next_offsets().values())

    def _next(self) -> bytes:
        for _ in range(2):
            for event in self.events:
                return encode(event)
            self.seed += 1
            events, _ = simulate_shift(tables=8, rounds=100, seed=self.seed,
                                       fault_rate=0.02, casino=f"C{self.seed:03d}")
            self.events = iter(events)
        raise RuntimeError("the simulator dealt nothing")

    def append(self, n: int) -> None:
        with mock.patch("os.fsync"):  # durability is not what is measured
            for _ in range(n):
                batch = [Received(topic="round-events", partition=0, offset=self.offset + i,
                                  timestamp_ms=self.offset + i, key=b"T", value=self._next())
                         for i in range(self.rng.randint(1, 5))]
                self.writer.append(batch, [])
                self.offset += len(batch)

    def close(self) -> None:
        self.writer.close()


def _timed(fn: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    got = fn()
    return time.perf_counter() - start, got


def _same(a: DataVerdict, b: DataVerdict) -> None:
    if (a.ok, a.records, a.root, a.checkpoint_text) != (b.ok, b.records, b.root,
                                                         b.checkpoint_text) or not a.ok:
        sys.exit(f"the verdicts differ or failed: {a.line()} / {b.line()}")


def _held_bytes(rv: ResumableVerifier) -> int:
    held = rv._held
    if held is None:
        return 0
    return (len(held.segments) + len(held.roots) + held.ends.itemsize * len(held.ends)
            + sys.getsizeof(held.beside)
            + sum(sys.getsizeof(k) + sys.getsizeof(v) for k, v in held.beside.items()))


Row = tuple[int, int, list[float], list[float], list[float], list[float], int, list[float],
            int]


def _measure(data: Path, writer: _Writer, new: int, repeat: int) -> Row:
    """One count of segments: verified once whole, then ``repeat`` passes after ``new``
    segments each, before and after."""
    key = load_signer(data).verifier
    rv = ResumableVerifier(full_every=None)
    rv(data, key, keep=KeptRecords())
    before: list[float] = []
    after: list[float] = []
    look: list[float] = []
    mark: list[float] = []
    runs = [("before", lambda: verify_data(data, key, keep=KeptRecords())),
            ("after", lambda: rv(data, key, keep=KeptRecords()))]
    records = 0
    for turn in range(repeat):
        writer.append(new)
        got = {name: _timed(fn) for name, fn in (runs if turn % 2 == 0 else runs[::-1])}
        if not rv.resumed or not rv.said.startswith(f"{new} new segment"):
            sys.exit(f"the verifier did not go on: {rv.said}")
        _same(got["before"][1], got["after"][1])
        before.append(got["before"][0])
        after.append(got["after"][0])
        look.append(_timed(lambda: log_signature(data))[0])
        mark.append(_timed(lambda: log_mark(data))[0])
        records = got["after"][1].records
    spot = [_timed(rv.spot)[0] for _ in range(10)]
    files = len(rv._held.segments) // _SEGMENT.size + len(rv._held.beside) if rv._held else 0
    return (len(segments(data / "log")), records, before, after, look, mark, _held_bytes(rv),
            spot, files)


def _steps(data: Path, writer: _Writer, new: int, repeat: int) -> dict[str, list[StepResult]]:
    """LiveReplay.step after ``new`` segments, going on and after a whole verification."""
    live = LiveReplay(data, full_every=None)
    first = live.step()
    if not first.ok:
        sys.exit(f"the first step failed: {first.message}")
    print(f"live_verify: the first step replayed {first.records:,} records in "
          f"{first.seconds:.0f} s", file=sys.stderr, flush=True)
    got: dict[str, list[StepResult]] = {"going on (after)": [], "whole (before)": []}
    for turn in range(2 * repeat):
        writer.append(new)
        whole = turn % 2 == 1
        if whole:
            live.verifier.forget()
        step = live.step()
        if not step.ok or step.rebuilt or step.verified.startswith("the whole") != whole:
            sys.exit(f"the step did not go as meant: {step}")
        got["whole (before)" if whole else "going on (after)"].append(step)
    return got


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--segments", type=int, nargs="+", default=[20_000, 100_000])
    p.add_argument("--new", type=int, default=5, help="segments appended before each pass")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--step", action="store_true",
                   help="also time LiveReplay.step at the largest count, both ways")
    p.add_argument("--dir", type=Path, default=None,
                   help="keep the log here (an existing one is reused and grown)")
    args = p.parse_args()
    rows = []
    steps: dict[str, list[StepResult]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = args.dir or Path(tmp) / "data"
        for target in sorted(args.segments):
            writer = _Writer(data, args.seed)
            try:
                missing = max(0, target - len(segments(data / "log")))
                wrote, _ = _timed(lambda: writer.append(missing))  # noqa: B023
                print(f"live_verify: {target:,} segments ({wrote:.0f} s to write "
                      f"{missing:,})", file=sys.stderr, flush=True)
                rows.append(_measure(data, writer, args.new, args.repeat))
                if args.step and target == max(args.segments):
                    steps = _steps(data, writer, args.new, args.repeat)
            finally:
                writer.close()
    print(f"\n{platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; a pass after "
          f"{args.new} new segments, {args.repeat} turns (median / best, seconds)\n")
    print("| segments | records | verify: whole log (before) | verify: going on (after) | "
          "speed-up (medians) | follow's look: every file (before) | follow's look: "
          "log_mark (after) | kept between passes | spot: a call / calls to see every file |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for segs, records, before, after, look, mark, held, spot, files in rows:
        mb, ma = statistics.median(before), statistics.median(after)
        print(f"| {segs:,} | {records:,} | {mb:.3f} / {min(before):.3f} | "
              f"{ma:.4f} / {min(after):.4f} | {mb / ma:.0f}x | "
              f"{statistics.median(look):.3f} | {statistics.median(mark):.5f} | "
              f"{held / 1e6:.1f} MB | {statistics.median(spot) * 1e3:.0f} ms / "
              f"{-(-files // SPOT_FILES)} |")
    if steps:
        print(f"\nreplay/live.py LiveReplay.step after {args.new} new segments, "
              f"{segs:,} segments (median seconds of {args.repeat})\n")
        print("| verification | whole pass | verify | new records | write | records new |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, got in steps.items():
            med = {part: statistics.median(getattr(r, part) for r in got)
                   for part in ("seconds", "verify_s", "replay_s", "write_s")}
            print(f"| {name} | {med['seconds']:.3f} | {med['verify_s']:.3f} | "
                  f"{med['replay_s']:.3f} | {med['write_s']:.3f} | "
                  f"{statistics.median(r.new for r in got):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
