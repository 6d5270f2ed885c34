"""What signing each journal head costs: an access-log append with and without its signed
head, and ``access verify``'s check of a long history.

    .venv/bin/python bench/journal_append.py [--appends 500] [--runs 5] [--verify 20000]

Each run appends ``--appends`` page views to a fresh access log in a temporary directory on
the same disk as the repository (so ``fsync`` costs what it costs there), once with the
journal's signed heads (``Journal(anchored=True)``, the default: one more write and fsync and
one Ed25519 signature per append) and once without (the journal as it was before), and
prints the best and median milliseconds per append of ``--runs`` runs. Then it times
:meth:`~dashboard.journal.Journal.check_anchors` (the journal read whole and every note's
signature checked) on a journal of ``--verify`` entries.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dashboard import anchor  # noqa: E402
from dashboard.journal import Journal  # noqa: E402


def _entry(n: int) -> dict[str, object]:
    return {"user": "ann", "action": "page_view", "target": f"flags{n}",
            "detail": {"role": "analyst"}}


def per_append(anchored: bool, appends: int, work: Path) -> float:
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        home = Path(tmp) / "data" / "dashboard"
        journal = Journal(home / "access.jsonl", anchored=anchored)
        journal.append(_entry(0))  # creates the file (and the key): not timed
        start = time.perf_counter()
        for n in range(appends):
            journal.append(_entry(n))
        return (time.perf_counter() - start) * 1000 / appends


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--appends", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--verify", type=int, default=20_000)
    args = parser.parse_args()
    work = ROOT / "var" / "bench-journal"
    work.mkdir(parents=True, exist_ok=True)
    for anchored in (False, True):
        times = [per_append(anchored, args.appends, work) for _ in range(args.runs)]
        print(f"{'signed heads' if anchored else 'chain only  '}: {min(times):.3f} ms per "
              f"append best, {statistics.median(times):.3f} ms median "
              f"({args.runs} runs of {args.appends})")
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        home = Path(tmp) / "data" / "dashboard"
        journal = Journal(home / "access.jsonl")
        for n in range(args.verify):
            journal.append(_entry(n))
        verifier = anchor.signer_for(home).verifier
        start = time.perf_counter()
        verdict = journal.check_anchors([verifier])
        took = time.perf_counter() - start
        print(f"check_anchors: {args.verify:,} entries and {verdict.notes:,} signed heads in "
              f"{took:.2f} s ({'ok' if verdict.ok else verdict.problem})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
