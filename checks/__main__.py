"""``python -m checks``: run the SQL checks over replay's output and write the flags."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from checks.runner import CheckError, load_checks, run_checks

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m checks",
        description="Run every check in checks/sql/ with DuckDB over replay's Parquet "
        "(DATA/replay/*.parquet) and write the flags to DATA/checks/flags.parquet.",
        epilog="example: python -m checks --data var/demo     (then: make serve DATA=var/demo)",
    )
    p.add_argument("--data", type=Path, default=None,
                   help="data directory (default $CATWALK_DATA or ./var)")
    p.add_argument("--list", action="store_true", help="list the checks and exit")
    args = p.parse_args(argv)
    if args.list:
        for c in load_checks():
            print(f"{c.id:15} {c.severity:7} {c.title}  [{c.rule}]")
        return 0
    data = args.data or Path(os.environ.get("CATWALK_DATA") or REPO / "var")
    try:
        done = run_checks(data / "replay", data / "checks")
    except CheckError as exc:
        print(f"checks: {exc}", file=sys.stderr)
        return 2
    total = sum(done.counts.values())
    detail = ", ".join(f"{k} {v}" for k, v in done.counts.items())
    print(f"checks: {total} flags ({detail}) -> {data / 'checks' / 'flags.parquet'}")
    warning = done.provenance.warning()
    if warning is None:
        print(f"checks: log verified: {done.provenance.verification}")
    else:
        print(f"checks: {'!' * 78}\nchecks: {warning}\nchecks: {'!' * 78}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
