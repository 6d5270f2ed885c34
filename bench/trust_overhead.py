"""What verifying the signed outputs adds to ``python -m checks``.

Usage: .venv/bin/python bench/trust_overhead.py [--rounds 1000000] [--out DIR] [--seed 1]
       [--repeat 5]

Target: checking replay's signed manifest (replay/outputs.py ``trust``: the Ed25519
signature of ``manifest.sig``, the SHA-256 and size of every listed file, the files not
listed, the refusal record) adds under 5% to the checks.

The data are synthetic replay output (bench/synthetic_replay.py: replay's schemas and writer
options, a signed manifest; written once, then reused from --out). In the same process, over
the same files, in alternating turns so the machine's drift touches both alike:

- with: ``checks.runner.run_checks(OUT/replay, OUT/checks)`` as ``python -m checks`` runs
  it: the trust of the outputs, computed while the checks run, the catalogue, flags.parquet
  and the checks' signed manifest;
- without: the same call with ``checks.runner.outputs_trust`` replaced by one returning the
  verdict computed beforehand (no signature checked, no file hashed);
- the verification alone, cold (a new process's hash cache: the cache is cleared), for
  reference.

The SHA-256 of a file is remembered per process by (device, inode, size, mtime_ns,
ctime_ns); each timed turn clears it, so every turn hashes every file as a new
``python -m checks`` process does. Prints Markdown: median and best of --repeat for each,
and the overhead of the median.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic_replay  # noqa: E402
from timing import cpu_model  # noqa: E402

from checks import runner  # noqa: E402
from replay import outputs  # noqa: E402


def _clear_cache() -> None:
    outputs._DIGESTS.clear()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    synthetic_replay.add_arguments(ap)
    ap.add_argument("--repeat", type=int, default=5)
    ap.set_defaults(rounds=1_000_000)
    args = ap.parse_args(argv)
    p = synthetic_replay.params_of(args)
    out = args.out or synthetic_replay.default_out(p)
    replay_dir, counts, reused = synthetic_replay.ensure(p, out, progress=True)
    data = replay_dir.parent
    found = outputs.trust(data)
    if not found.usable:  # tampered, unsigned, missing, or an older replay's format
        print(f"trust_overhead: the synthetic outputs do not verify ({found.state}: "
              f"{'; '.join(found.reasons)}); remove {out} and run again", file=sys.stderr)
        return 1
    size = sum(f.stat().st_size for f in replay_dir.glob("*.parquet"))
    real = runner.outputs_trust
    times: dict[str, list[float]] = {"with": [], "without": [], "alone": []}
    for turn in range(args.repeat + 1):  # the first turn warms the page cache, untimed
        for what in ("with", "without", "alone") if turn % 2 == 0 else (
                "without", "with", "alone"):
            _clear_cache()
            start = time.perf_counter()
            if what == "alone":
                outputs.trust(data)
            else:
                runner.outputs_trust = real if what == "with" else (lambda _d: found)
                try:
                    runner.run_checks(data / "replay", data / "checks")
                finally:
                    runner.outputs_trust = real
            seconds = time.perf_counter() - start
            if turn:
                times[what].append(seconds)
    med = {k: statistics.median(v) for k, v in times.items()}
    best = {k: min(v) for k, v in times.items()}
    overhead = (med["with"] - med["without"]) / med["without"] * 100
    print(f"## Verifying the signed outputs in `python -m checks` "
          f"({datetime_now()})\n")
    print(f"{p.rounds:,} synthetic rounds ({'reused' if reused else 'written'}: "
          f"{size / 1e6:,.0f} MB of Parquet, {counts['wagers']:,} wagers), "
          f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"median (best) of {args.repeat}; the trust state: {found.state}.\n")
    print("| run | median s | best s |\n|---|---:|---:|")
    for what, words in (("without", "checks, verification replaced by a known verdict"),
                        ("with", "checks with the verification (as `python -m checks`)"),
                        ("alone", "the verification alone (signature, every file hashed)")):
        print(f"| {words} | {med[what]:.3f} | {best[what]:.3f} |")
    print(f"\nOverhead of the verification: {overhead:+.1f}% of the median "
          f"(target under 5%).")
    return 0


def datetime_now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


if __name__ == "__main__":
    sys.exit(main())
