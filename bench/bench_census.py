"""The census from the command line, timed, and cross-checked by a second enumeration
(the target: all 154,143,080 seven-card hands in under 2 minutes on 2 cores).

    .venv/bin/python bench/bench_census.py [--cross-check]

1. Runs ``python -m replay census --game G --cards N`` for both games and 5 and 7 cards as a
   fresh process each (so table building and imports are in the time), printing the wall
   clock time, the CPU time of the child and its JSON.
2. With ``--cross-check``: counts every seven-card hand of the 53-card deck a second way, by
   building every hand as a row of a (n, 7) array and ranking it through the numpy batch
   path (``FastEvaluator.keys``: the state machine, not the census's prefix and suffix
   tables), and compares the two results. This takes longer (about 154 million rows).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from itertools import combinations
from math import comb

import numpy as np

from replay.census import census
from replay.games.fast_eval import evaluator
from replay.games.pai_gow_poker import HandCategory


def run_cli(game: str, cards: int) -> dict[str, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "replay", "census", "--game", game, "--cards", str(cards)],
        capture_output=True, text=True, check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"census --game {game} --cards {cards}: {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(f"  {done.stdout.strip()}")
    result: dict[str, int] = json.loads(done.stdout)
    return result


def batch_census_7() -> dict[str, int]:
    """Every 7-card hand of the 53-card deck, as array rows, through ``keys``."""
    tables = evaluator().tables
    keys = evaluator().keys
    counts = np.zeros(256, dtype=np.int64)
    # Lexicographic order: the 5-card hands whose lowest card is at least s are the last
    # comb(53 - s, 5) rows.
    all5 = np.array(list(combinations(range(53), 5)), dtype=np.uint8)
    start = time.perf_counter()
    done = 0
    for b in range(1, 53 - 5):
        suffix = all5[len(all5) - comb(53 - (b + 1), 5):]
        rows = np.empty((len(suffix), 7), dtype=np.uint8)
        rows[:, 2:] = suffix
        rows[:, 1] = b
        for a in range(b):
            rows[:, 0] = a
            counts += np.bincount(tables.strength(keys(rows, chunk=1 << 18)), minlength=256)
            done += len(rows)
        print(f"  batch cross-check: {done:,} of {comb(53, 7):,} hands, "
              f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - start
    print(f"batch path over all {done:,} hands: {elapsed:.1f} s "
          f"({done / elapsed / 1e6:.1f} M hands/s, one core)")
    out = {c.value: int(counts[c.strength]) for c in HandCategory if counts[c.strength]}
    out["total"] = int(counts.sum())
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cross-check", action="store_true")
    args = p.parse_args()
    for game in ("caribbean_stud", "pai_gow_poker"):
        for cards in (5, 7):
            run_cli(game, cards)
    if args.cross_check:
        by_census = census("pai_gow_poker", 7)
        by_batch = batch_census_7()
        print(f"  {json.dumps(by_batch)}")
        print("batch path and census agree" if by_batch == by_census
              else f"MISMATCH: census {by_census}")


if __name__ == "__main__":
    main()
