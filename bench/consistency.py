"""A consistency proof between two checkpoints a million records apart: made and checked.

Usage: .venv/bin/python bench/consistency.py [--records 1000000] [--old 2000]
       [--batch 2000] [--repeat 5] [--dir DIR]

Writes a log with ``ingest.log.LogWriter`` (segments of ``--batch`` records, each signed
with its tree's perfect subtrees in its header, as ingest writes them; the records are
small opaque values: what is timed is the tree, not decoding), of ``--old`` records and
then ``--records`` more, keeping the checkpoint signed at ``--old`` records. Then times:

- reading: ``schemas.consistency.read_tree`` (every record read from the log, its leaf
  input and leaf hash, and each segment header's subtrees), once;
- proof: ``schemas.merkle.consistency_proof`` from the old checkpoint's size to the new
  one's over what was read (the kept subtrees and the leaves near a segment's end);
- check: ``schemas.merkle.verify_consistency`` against both signed roots;
- for comparison, the proof from the leaves alone (no kept subtrees: every node hashed)
  and from ``Levels`` (which hashes the whole tree first);
- the whole file: ``schemas.consistency.consistency_proof_of`` (reading included) and
  ``check_consistency`` (both signatures and the proof), as the two commands run them.

Prints a Markdown table (median and best of ``--repeat`` for the parts that repeat).
``--dir`` keeps the log there (and reuses one already written), else a temporary
directory is removed at the end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ingest.log import LogWriter, Received
from schemas.checkpoint import open_signed, read_verifier
from schemas.consistency import (
    check_consistency,
    consistency_proof_of,
    read_tree,
)
from schemas.log_verify import DataVerdict, LogVerdict
from schemas.logformat import chain_of
from schemas.merkle import Levels, Subtrees, consistency_proof, verify_consistency


def _write(data: Path, old: int, records: int, batch: int) -> None:
    def message(offset: int) -> Received:
        return Received(topic="bench", partition=0, offset=offset, timestamp_ms=offset,
                        key=b"T01", value=offset.to_bytes(8, "big") * 8)

    with LogWriter(data / "log", data / "quarantine") as log:
        offset = 0
        for size in (old, old + records):
            while offset < size:
                n = min(batch, size - offset)
                log.append([message(offset + i) for i in range(n)], [])
                offset += n
            if size == old:
                (data / "old.checkpoint").write_text(
                    (data / "checkpoints" / "latest.checkpoint").read_text())


def _timed(fn: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times), result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--old", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    tmp = None
    if args.dir is None:
        tmp = tempfile.TemporaryDirectory()
        data = Path(tmp.name)
    else:
        data = args.dir
    try:
        if not (data / "old.checkpoint").is_file():
            t = time.perf_counter()
            _write(data, args.old, args.records, args.batch)
            print(f"wrote {args.old + args.records:,} records in "
                  f"{time.perf_counter() - t:.1f} s", file=sys.stderr)
        key = read_verifier(data / "keys" / "signing.pub")
        old_text = (data / "old.checkpoint").read_text()
        new_text = (data / "checkpoints" / "latest.checkpoint").read_text()
        old, new = open_signed(old_text, key), open_signed(new_text, key)
        chain = chain_of(data)

        t = time.perf_counter()
        nodes = read_tree(chain)
        reading = time.perf_counter() - t
        leaves = nodes.leaves
        rows = [("reading the log (records, leaf hashes, headers' subtrees)", reading, reading)]

        med, best, proof = _timed(lambda: consistency_proof(nodes, old.size, new.size),
                                  args.repeat)
        assert isinstance(proof, list)
        rows.append((f"proof from kept subtrees ({len(proof)} hashes)", med, best))
        med, best, ok = _timed(lambda: verify_consistency(old.size, new.size, old.root,
                                                          new.root, proof), args.repeat)
        assert ok is True, "the proof does not verify"
        rows.append(("check (RFC 9162 2.1.4.2)", med, best))
        med, best, _ = _timed(lambda: consistency_proof(Subtrees(leaves), old.size, new.size),
                              1)
        rows.append(("proof from the leaves alone (every node hashed)", med, best))
        med, best, _ = _timed(lambda: consistency_proof(Levels(leaves), old.size, new.size), 1)
        rows.append(("proof from Levels (the whole tree hashed first)", med, best))

        # The file, as `python -m ingest consistency` builds it once the log verified
        # (here the verdict is taken as given: the verification is not what is measured).
        verdict = DataVerdict(chains=((chain, LogVerdict(
            records=new.size, segments=0, root=new.root, checkpoint=new,
            checkpoint_text=new_text, key=key, problem=None)),), key=key, problem=None)
        med, best, doc = _timed(lambda: consistency_proof_of(verdict, old_text, new_text), 1)
        rows.append(("the file: consistency_proof_of (reading included)", med, best))
        med, best, check = _timed(lambda: check_consistency(doc, key), args.repeat)
        assert getattr(check, "ok", False), getattr(check, "problem", None)
        rows.append(("the file checked offline: check_consistency", med, best))
    finally:
        if tmp is not None:
            tmp.cleanup()
    print(f"\nConsistency proof from {old.size:,} to {new.size:,} records "
          f"({new.size - old.size:,} apart, segments of {args.batch:,})\n")
    print("| step | median s | best s |\n|---|---:|---:|")
    for name, m, b in rows:
        print(f"| {name} | {m:.4f} | {b:.4f} |")
    made_and_checked = rows[1][1] + rows[2][1]
    print(f"\nproof made and checked: {made_and_checked * 1000:.1f} ms (target < 1 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
