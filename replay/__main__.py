"""``python -m replay``: rebuild every round from the log and judge it under its rules."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

EPILOG = """\
examples:
  python -m replay                   replay ./var/log into ./var/replay
  python -m replay --data var/demo   replay the demo's log

output (under DATA/replay/), one row each:
  rounds.parquet   round: table, dealer, ruleset, evaluated or why not, one-line notation
  hands.parquet    hand: cards, high and low hand as set, ranks, foul, house way (dealer)
  wagers.parquet   wager: recorded and expected outcome, net and commission, in cents
Same log and rulesets give byte-identical files.
"""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m replay",
        description="Fold the append-only log into rounds, judge each under the ruleset in "
        "force when it was dealt, and write the recorded and expected settlements as Parquet.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--data", type=Path, default=None,
                   help="data directory holding log/ (default $CATWALK_DATA or ./var)")
    args = p.parse_args(argv)
    data = args.data or Path(os.environ.get("CATWALK_DATA") or REPO / "var")

    from replay.run import replay
    from schemas.logformat import LogError

    if not (data / "log").is_dir():
        print(f"replay: no log at {data / 'log'}: run `python -m ingest` first "
              "(or `make demo`)", file=sys.stderr)
        return 2

    def progress(n: int) -> None:
        print(f"replay: {n:,} rounds judged", file=sys.stderr, flush=True)

    try:
        summary = replay(data / "log", data / "replay", progress)
    except LogError as exc:
        print(f"replay: the log cannot be read: {exc}. Run `python -m ingest verify`.",
              file=sys.stderr)
        return 1
    for finding in summary.findings:
        print(f"replay: finding: {finding}", file=sys.stderr)
    print(f"replay: {summary.rounds} rounds ({summary.evaluated} evaluated), "
          f"{summary.wagers} wagers, {len(summary.findings)} log findings -> {data / 'replay'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
