"""The quarantine as part of the signed account: its own Merkle tree in every checkpoint.

A message that cannot enter the log (a tombstone, bytes that do not decode, an event id the
log holds with other bytes) goes to the quarantine of its chain, one JSON line per message
in ``quarantine/segment-NNNNNN.jsonl`` (``quarantine/workers/NAME/`` for a worker), the file
written with the segment of the same number. Its offsets count in the log's Kafka offsets,
so a quarantine line removed would hide a message for good: the quarantine is signed.

- **The tree.** Every quarantined message of a chain, in the order written (segment by
  segment, line by line), is a leaf of a second Merkle tree built as RFC 9162 section 2.1
  builds one (``schemas.merkle``). The leaf input is the exact bytes of the quarantine line
  (UTF-8 JSON, without its newline), so a regulator's own tools recompute it from the files.
- **The checkpoint.** Each checkpoint carries the tree's size and root as the extension line
  ``catwalk-quarantine <size> <base64 root>`` (``schemas.checkpoint``), signed with the rest.
- **The segment header.** ``catwalk.quarantine`` (unsigned, like ``catwalk.tree``) holds the
  tree after the segment (so a restarted writer goes on without re-reading) and the leaf
  hash of each line of the segment's quarantine file: once they give the signed root, they
  name the exact line that was removed, edited, added or moved.

Verification (:func:`check_segment`, run by ``schemas.log_verify`` after each segment's
header) recomputes the tree from the files and fails, naming the file and line, on a file
missing, edited, cut, extra, reordered, or holding a line of another chain. A checkpoint
written before the quarantine was signed has no such line: its quarantine is reported
"not signed", never failed; but once a chain's checkpoint signed it, every later one must.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from schemas.checkpoint import Checkpoint
from schemas.logformat import SEGMENT, WORKERS
from schemas.merkle import Tree, leaf_hash

META_QUARANTINE = "catwalk.quarantine"
"""Segment header key: ``{"size", "subtrees", "leaves"}`` (hex) of the quarantine tree."""
MAX_FILE = 1 << 30
"""A quarantine file larger than this is not read (a batch is at most a few hundred MB)."""
UNSIGNED = "quarantine not signed (written before checkpoints signed the quarantine)"


def quarantine_dir(log_dir: Path) -> Path:
    """The quarantine directory of the chain whose records are in ``log_dir``:
    ``DATA/quarantine`` for ``DATA/log``, ``DATA/quarantine/workers/NAME`` for
    ``DATA/log/workers/NAME`` (``schemas.logformat.chain_of``)."""
    return Path(_quarantine_dir(os.fspath(log_dir)))


@lru_cache(maxsize=256)
def _quarantine_dir(log_dir: str) -> str:
    parent, name = os.path.split(log_dir)
    grand, middle = os.path.split(parent)
    if middle == WORKERS and os.path.basename(grand) == "log":
        return os.path.join(os.path.dirname(grand), "quarantine", WORKERS, name)
    return os.path.join(parent, "quarantine")


def quarantine_file(qdir: Path, segment: str) -> Path:
    """The quarantine file written with ``segment`` (``segment-NNNNNN.avro``)."""
    return qdir / segment.replace(".avro", ".jsonl")


def shown(path: Path | str) -> str:
    """How findings name a quarantine file: from ``quarantine/`` on."""
    parts = Path(path).parts
    if "quarantine" in parts:
        at = len(parts) - 1 - parts[::-1].index("quarantine")
        return "/".join(parts[at:])
    return str(path)


class QuarantineUnreadable(Exception):
    """A quarantine file that is not a regular file or cannot be read (named)."""


def read_lines(path: Path | str) -> list[bytes] | None:
    """The lines of a quarantine file (without their newlines; every line ends in one, or
    the file is refused as cut); None when there is no such file. Only a regular
    file is read, never through a link and never waiting on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise QuarantineUnreadable(f"{shown(path)}: cannot be read ({exc.strerror}: a link "
                                   "or not a file)") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise QuarantineUnreadable(f"{shown(path)}: not a regular file")
        if info.st_size > MAX_FILE:
            raise QuarantineUnreadable(f"{shown(path)}: {info.st_size:,} bytes, more than a "
                                       "quarantine file holds")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    lines = data.split(b"\n")
    if lines[-1]:
        raise QuarantineUnreadable(f"{shown(path)} line {len(lines)}: no newline at its end "
                                   "(the file was cut or edited)")
    return lines[:-1]


def leaves(lines: Iterable[bytes]) -> list[bytes]:
    """The leaf hashes (RFC 9162 2.1.1) of quarantine lines."""
    return [leaf_hash(line) for line in lines]


def grown(tree: Tree, hashes: Iterable[bytes]) -> Tree:
    """A copy of ``tree`` with ``hashes`` appended."""
    out = Tree(tree.size, tree.subtrees)
    for h in hashes:
        out.append(h)
    return out


def header(tree: Tree, batch: Sequence[bytes]) -> str:
    """The segment header's ``catwalk.quarantine``: the tree after the segment and the leaf
    hashes of the segment's own lines."""
    return json.dumps({"size": tree.size, "subtrees": [h.hex() for h in tree.subtrees],
                       "leaves": [h.hex() for h in batch]}, sort_keys=True)


def header_tree(raw: str | None) -> tuple[Tree, list[bytes]] | None:
    """(tree, the segment's leaf hashes) from a header's ``catwalk.quarantine``; None when
    absent or malformed (it is trusted only once it gives the signed root)."""
    if raw is None:
        return None
    try:
        meta = json.loads(raw)
        tree = Tree(int(meta["size"]), [bytes.fromhex(h) for h in meta["subtrees"]])
        batch = [bytes.fromhex(h) for h in meta["leaves"]]
    except (ValueError, KeyError, TypeError):
        return None
    return tree, batch


def rebuilt(qdir: Path, upto: int) -> Tree:
    """The quarantine tree of the files of segments 1 to ``upto``, read from disk: how a
    writer starts signing the quarantine of a log whose checkpoints did not yet."""
    tree = Tree()
    for path in committed_files(qdir, upto):
        tree = grown(tree, leaves(read_lines(path) or []))
    return tree


def committed_files(qdir: Path, upto: int) -> list[Path]:
    """The quarantine files of segments 1 to ``upto``, in order."""
    if not qdir.is_dir():
        return []
    found = []
    for p in qdir.iterdir():
        m = SEGMENT.match(p.name.replace(".jsonl", ".avro")) if p.suffix == ".jsonl" else None
        if m is not None and int(m.group(1)) <= upto:
            found.append((int(m.group(1)), p))
    return [p for _, p in sorted(found)]


@dataclass(slots=True, kw_only=True)
class Account:
    """Where the check of a chain's quarantine stands after its last segment."""

    tree: Tree
    signed: bool = False
    """Whether the last checkpoint signed the quarantine (``catwalk-quarantine``)."""
    suspect: bytes | None = None
    """After a failure: the leaf hash of the line found missing, edited or added, so that
    the line can be looked for in the other chains' quarantines (:func:`find_line`)."""

    _root: tuple[int, bytes] | None = None
    _empty: tuple[int, str] | None = None

    def empty_header(self) -> str:
        """The header ``catwalk.quarantine`` of a segment without quarantine after this
        tree (computed once per size)."""
        if self._empty is None or self._empty[0] != self.tree.size:
            self._empty = (self.tree.size, header(self.tree, []))
        return self._empty[1]

    def copy(self) -> Account:
        return Account(tree=Tree(self.tree.size, self.tree.subtrees), signed=self.signed)

    def root(self) -> bytes:
        """The tree's root, computed once per size (the tree only grows)."""
        if self._root is None or self._root[0] != self.tree.size:
            self._root = (self.tree.size, self.tree.root())
        return self._root[1]


def _coordinates(line: bytes) -> str:
    try:
        entry = json.loads(line)
        return f" ({entry['coordinates']})" if isinstance(entry, dict) else ""
    except (ValueError, KeyError, TypeError):
        return ""


def check_segment(seg: Path, meta: dict[str, str], cp: Checkpoint, account: Account,
                  qdir: Path | None = None) -> str | None:
    """Check the quarantine file of segment ``seg`` against its signed checkpoint ``cp``
    (the header ``meta`` already checked against it) and move ``account`` past it; the
    problem, naming the file and line, or None."""
    where = os.fspath(qdir) if qdir is not None else _quarantine_dir(os.path.dirname(seg))
    path = os.path.join(where, seg.name[:-5] + ".jsonl")
    try:
        lines = read_lines(path)
    except QuarantineUnreadable as exc:
        return str(exc)
    mine = leaves(lines or [])
    if cp.quarantine is None:
        if account.signed:
            return (f"{seg.name}: its signed checkpoint does not sign the quarantine, which "
                    "the checkpoint before it did: the quarantine's account was cut off")
        account.tree = grown(account.tree, mine)
        return None
    count, root = cp.quarantine
    before = account.tree
    raw = meta.get(META_QUARANTINE)
    if (lines is None and raw == account.empty_header()
            and (before.size, account.root()) == (count, root)):
        account.signed = True  # no quarantine in this segment, the tree as it was
        return None
    parsed = header_tree(raw)
    batch = parsed[1] if parsed is not None else None
    if lines is None and batch == []:  # no quarantine in this segment: the tree as it was
        assert parsed is not None
        if (before.size, account.root()) != (count, root):
            return (f"{seg.name}: its signed checkpoint's quarantine ({count:,} messages) is "
                    f"not the quarantine before it ({before.size:,}): a quarantine file "
                    "before it was edited, removed, added or cut")
        if parsed[0].size != before.size or parsed[0].subtrees != before.subtrees:
            return (f"{seg.name}: the header's {META_QUARANTINE} is not the quarantine's "
                    "tree: the header was edited")
        account.signed = True
        return None
    name = shown(path)
    signed_batch = batch is not None and _gives(grown(before, batch), count, root)
    if not signed_batch:
        after = grown(before, mine)
        if _gives(after, count, root):
            return (f"{seg.name}: the header's {META_QUARANTINE} is not the signed "
                    "quarantine: the header was edited")
        return (f"{name}: the quarantine up to it does not give the quarantine root that "
                f"{seg.name}'s signed checkpoint holds ({count:,} messages): a quarantine "
                "file up to this one was edited, removed, added or cut")
    assert batch is not None and parsed is not None
    if lines is None and batch:
        return (f"{name} is missing: {seg.name}'s signed checkpoint counts {len(batch):,} "
                f"quarantined messages in it (the file was removed)")
    problem, account.suspect = _line_problem(name, seg.name, lines or [], mine, batch)
    if problem is not None:
        return problem
    after = grown(before, mine)
    if parsed[0].size != after.size or parsed[0].subtrees != after.subtrees:
        return (f"{seg.name}: the header's {META_QUARANTINE} is not the quarantine's tree: the "
                "header was edited")
    account.tree, account.signed = after, True
    return None


def _gives(tree: Tree, count: int, root: bytes) -> bool:
    return tree.size == count and tree.root() == root


def _line_problem(name: str, segment: str, lines: list[bytes], mine: list[bytes],
                  batch: list[bytes]) -> tuple[str | None, bytes | None]:
    """The first line that differs from the signed ones, and its leaf hash."""
    for i in range(max(len(mine), len(batch))):
        if i >= len(mine):
            return (f"{name} line {i + 1} is missing: {segment}'s signed checkpoint counts "
                    f"{len(batch):,} quarantined messages in the file, it holds {len(mine):,} "
                    "(lines were removed, or moved to another chain's quarantine)"), batch[i]
        if i >= len(batch):
            return (f"{name} line {i + 1}{_coordinates(lines[i])} is not in the signed "
                    f"quarantine ({segment}'s checkpoint signs {len(batch):,} lines): a line "
                    "was added, or copied from another chain's quarantine"), mine[i]
        if mine[i] != batch[i]:
            if mine[i] in batch:
                return (f"{name} line {i + 1}{_coordinates(lines[i])} is line "
                        f"{batch.index(mine[i]) + 1} of the signed quarantine: lines were "
                        "reordered"), None
            return (f"{name} line {i + 1}{_coordinates(lines[i])} is not the line "
                    f"{segment}'s checkpoint signed: it was edited, or is another "
                    "chain's"), mine[i]
    return None, None


def find_line(qdirs: Iterable[tuple[str, Path]], suspect: bytes) -> str | None:
    """Where a quarantine line (by its leaf hash) is among the quarantines ``qdirs`` (each
    given with the label of its chain): ``log of worker w2's quarantine/workers/w2/
    segment-000001.jsonl line 2``; None when in none of them."""
    for label, qdir in qdirs:
        for path in committed_files(qdir, 1 << 62):
            try:
                lines = read_lines(path) or []
            except QuarantineUnreadable:
                continue
            for n, line in enumerate(lines, start=1):
                if leaf_hash(line) == suspect:
                    return f"{label}'s {shown(path)} line {n}"
    return None


def extra_files(qdir: Path, walked: Iterable[str], last: int) -> str | None:
    """A quarantine file of a segment number up to ``last`` (the last segment walked) that
    belongs to no segment walked, or a non-file there, named; files past ``last`` are a
    batch not yet committed (ingest writes the quarantine file first) and are left alone."""
    names = {quarantine_file(qdir, s).name for s in walked}
    for path in committed_files(qdir, last):
        if path.name not in names:
            return (f"{shown(path)}: a quarantine file of no segment of the log (the log has "
                    "no segment of that number): it was added")
    return None
