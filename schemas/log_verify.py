"""Verify the log offline: every record, its hash chain, its Merkle tree and every signed
checkpoint, against a public key the verifier chooses (docs/log-integrity.md).

The walk reads every segment in order and stops at the first thing that does not fit,
naming it: the segment file, the record's number in that file, its position in the log,
its ``topic[partition]@offset`` and, when its bytes still decode, its event id. What it
checks, in this order:

- each record: its position follows the one before (nothing removed, inserted or
  reordered), its ``prev_hash`` is the previous record's hash and its own hash is that of
  its contents (nothing altered);
- each segment's header: its signed checkpoint verifies with the key, covers exactly the
  records up to the segment's last (a segment cut short is named), gives the root of the
  tree of those records (a chain recomputed by someone without the key is caught here),
  names this segment and the chain's last hash, carries the same log id as the others,
  and states the same Kafka offsets as the unsigned ``next_offsets`` header ingest resumes
  from (an edited header is caught);
- every other checkpoint given (``--checkpoint`` files, the ``checkpoints/`` beside the
  log): signed by the key, of this log, and either the root of the log's first ``size``
  records or, when it covers more records than the log holds, proof that the tail was
  removed.

A missing directory, a log without a segment and a segment that is not a log segment fail
the verification too.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastavro import reader
from fastavro.schema import to_parsing_canonical_form

from schemas.checkpoint import Checkpoint, CheckpointError, Verifier, open_signed
from schemas.logformat import (
    GENESIS,
    META_CHECKPOINT,
    META_LOG_ID,
    META_NEXT_OFFSETS,
    META_TREE,
    chain_next,
    leaf_input,
    record_schema,
    segments,
)
from schemas.merkle import Tree, leaf_hash

READ_ERRORS = (OSError, ValueError, EOFError, StopIteration, zlib.error, KeyError, TypeError,
               IndexError, UnicodeDecodeError, OverflowError, MemoryError)
"""What fastavro may raise on a damaged container file (a bad block, bad deflate data, a
cut header); every one becomes a named failure, never a traceback."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LogVerdict:
    """What verifying a log found."""

    records: int
    """Records that verified before the first problem (all of them when ok)."""
    segments: int
    root: bytes
    """The Merkle root of the records that verified."""
    checkpoint: Checkpoint | None
    """The last signed checkpoint that verified (the log's own, in its last segment)."""
    checkpoint_text: str | None
    key: Verifier
    problem: str | None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        """One line for a person: what was verified, or the first problem."""
        if self.problem is not None:
            return f"FAILED after {self.records:,} good records: {self.problem}"
        signed = (f"signed checkpoint of {self.checkpoint.signed_at}" if self.checkpoint
                  else "no checkpoint")
        return (f"OK: {self.records:,} records in {self.segments:,} segments, Merkle root "
                f"{self.root.hex()}, {signed}, key {self.key.name} ({self.key.key_hash.hex()})")


class _Failed(Exception):
    pass


def _event_id(value: bytes) -> str:
    from schemas.codec import decode

    try:
        return f"event {decode(value).event_id}"
    except Exception:  # the bytes were altered: say so rather than guess
        return "event id unreadable"


def _records(segment: Path, meta: dict[str, str]) -> Iterator[dict[str, Any]]:
    with segment.open("rb") as fo:
        records = reader(fo)
        if to_parsing_canonical_form(records.writer_schema) != to_parsing_canonical_form(
                record_schema()):
            raise _Failed(f"{segment.name}: not a log segment (its schema is not "
                          "catwalk.log.LogRecord)")
        meta.update({k: v for k, v in records.metadata.items() if not k.startswith("avro.")})
        for rec in records:
            if not isinstance(rec, dict):
                raise _Failed(f"{segment.name}: a record that is not a log record")
            yield rec


def checkpoints_beside(log_dir: Path) -> list[tuple[str, str]]:
    """The signed checkpoints ingest wrote beside the log (``checkpoints/*.checkpoint`` in
    the log's data directory), as (file, text); one that cannot be read is given as an empty
    text, which fails verification with its name."""
    found = []
    for path in sorted((log_dir.parent / "checkpoints").glob("*.checkpoint")):
        try:
            found.append((str(path), path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            found.append((str(path), ""))
    return found


def verify_log(log_dir: Path, key: Verifier, *,
               checkpoints: Sequence[tuple[str, str]] = (),
               progress: Callable[[int], None] | None = None) -> LogVerdict:
    """Verify the log in ``log_dir`` and the ``checkpoints`` given as (name, text) against
    ``key`` (see the module docstring). ``progress`` gets the records verified so far."""
    state: dict[str, Any] = {"records": 0, "segments": 0, "tree": Tree(),
                             "checkpoint": None, "text": None}
    try:
        _walk(log_dir, key, checkpoints, progress, state)
        problem = None
    except _Failed as failed:
        problem = str(failed)
    tree: Tree = state["tree"]
    return LogVerdict(records=state["records"], segments=state["segments"], root=tree.root(),
                      checkpoint=state["checkpoint"], checkpoint_text=state["text"], key=key,
                      problem=problem)


def _opened(name: str, text: str, key: Verifier) -> Checkpoint:
    try:
        return open_signed(text, key)
    except CheckpointError as exc:
        raise _Failed(f"{name}: {exc}") from None


def _walk(log_dir: Path, key: Verifier, extra: Sequence[tuple[str, str]],
          progress: Callable[[int], None] | None, state: dict[str, Any]) -> None:
    if not log_dir.is_dir():
        raise _Failed(f"there is no log at {log_dir} (no such directory): nothing to verify; "
                      "check --data")
    segs = segments(log_dir)
    if not segs:
        raise _Failed(f"the log at {log_dir} is empty (no segment): nothing to verify")
    wanted = {name: _opened(name, text, key) for name, text in extra}
    roots: dict[int, bytes] = {}
    sizes = {cp.size for cp in wanted.values()}
    tree: Tree = state["tree"]
    prev, count, log_id = GENESIS, 0, None
    if 0 in sizes:
        roots[0] = tree.root()
    for seg in segs:
        meta: dict[str, str] = {}
        number = 0
        first = count
        try:
            for number, rec in enumerate(_records(seg, meta), start=1):
                where = (f"{seg.name} record {number} (position {count}, "
                         f"{rec['topic']}[{rec['partition']}]@{rec['offset']}")
                if rec["position"] != count:
                    raise _Failed(f"{where}, {_event_id(rec['value'])}): position "
                                  f"{rec['position']} where {count} was expected (a record "
                                  "was removed, inserted or reordered before it)")
                if rec["prev_hash"] != prev:
                    raise _Failed(f"{where}, {_event_id(rec['value'])}): prev_hash does not "
                                  "match the record before it")
                leaf = leaf_input(position=rec["position"], topic=rec["topic"],
                                  partition=rec["partition"], offset=rec["offset"],
                                  timestamp_ms=rec["timestamp_ms"], key=rec["key"],
                                  value=rec["value"])
                if rec["hash"] != chain_next(prev, leaf):
                    raise _Failed(f"{where}, {_event_id(rec['value'])}): its contents do not "
                                  "match its hash (the record was altered)")
                tree.append(leaf_hash(leaf))
                prev, count = rec["hash"], count + 1
                state["records"] = count
                if count in sizes:
                    roots[count] = tree.root()
                if progress is not None and count % 10_000 == 0:
                    progress(count)
        except _Failed:
            raise
        except READ_ERRORS as exc:
            raise _Failed(f"{seg.name}: cannot be read after record {number} (position "
                          f"{count}): the file is damaged ({type(exc).__name__}: {exc})") from None
        state["segments"] += 1
        log_id = _check_header(seg, meta, key, tree, prev, count, first, log_id, state)
    if progress is not None:
        progress(count)
    for name, cp in wanted.items():
        if cp.log_id != log_id:
            raise _Failed(f"{name}: a checkpoint of another log ({cp.log_id}, this log is "
                          f"{log_id})")
        if cp.size > count:
            raise _Failed(
                f"{name}: signed at {cp.signed_at}, it covers {cp.size:,} records but the log "
                f"holds {count:,}: records {count:,} to {cp.size - 1:,} were removed (the "
                f"log's tail, up to {cp.segment}, is missing or was cut)")
        if roots[cp.size] != cp.root:
            raise _Failed(f"{name}: the log's first {cp.size:,} records do not give the root "
                          f"this checkpoint signed at {cp.signed_at}: they were rewritten")


def _check_header(seg: Path, meta: dict[str, str], key: Verifier, tree: Tree, chain: bytes,
                  count: int, first: int, log_id: str | None, state: dict[str, Any]) -> str:
    text = meta.get(META_CHECKPOINT)
    if text is None:
        raise _Failed(f"{seg.name}: has no signed checkpoint (written by a version of ingest "
                      "before checkpoints, or its header was replaced)")
    cp = _opened(f"{seg.name} header", text, key)
    span = f"records {first:,} to {count - 1:,}" if count > first else "no record"
    if cp.size > count:
        raise _Failed(f"{seg.name}: its signed checkpoint covers {cp.size:,} records but the "
                      f"log holds {count:,} up to the segment's end: the segment was cut "
                      f"(records {count:,} to {cp.size - 1:,} are missing)")
    if cp.size < count:
        raise _Failed(f"{seg.name}: holds {count - cp.size:,} more records than its signed "
                      f"checkpoint covers ({cp.size:,}): records were inserted")
    if cp.root != tree.root() or cp.chain != chain:
        raise _Failed(f"{seg.name} ({span}): the records do not give the Merkle root its "
                      f"signed checkpoint holds: a record in it was altered and the hash chain "
                      "recomputed (the signature cannot be)")
    if cp.segment != seg.name:
        raise _Failed(f"{seg.name}: its signed checkpoint was written for {cp.segment}: "
                      "segments were renamed or swapped")
    if log_id is not None and cp.log_id != log_id:
        raise _Failed(f"{seg.name}: a segment of another log ({cp.log_id}, the log before it "
                      f"is {log_id})")
    try:
        header_offsets = json.loads(meta.get(META_NEXT_OFFSETS, "null"))
        tree_meta = json.loads(meta.get(META_TREE, "null"))
    except ValueError:
        header_offsets = tree_meta = None
    if header_offsets != dict(cp.next_offsets):
        raise _Failed(f"{seg.name}: the header's {META_NEXT_OFFSETS} {header_offsets} differ "
                      f"from the signed checkpoint's {dict(cp.next_offsets)}: the header was "
                      "edited (ingest would skip or repeat messages)")
    if tree_meta != {"size": tree.size, "subtrees": [h.hex() for h in tree.subtrees]}:
        raise _Failed(f"{seg.name}: the header's {META_TREE} is not the log's tree: the "
                      "header was edited")
    if meta.get(META_LOG_ID) != cp.log_id:
        raise _Failed(f"{seg.name}: the header's {META_LOG_ID} is not the signed log id: the "
                      "header was edited")
    state["checkpoint"], state["text"] = cp, text
    return cp.log_id
