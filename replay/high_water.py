"""The largest tree replay verified, per chain, remembered durably: a log cannot shrink or
fork under replay without a refusal.

Certificate Transparency's monitors keep the largest signed tree head they have seen and
accept a new one only when it is consistent with it (RFC 9162 section 8.2). Replay (``python
-m replay`` and the live loop of ``python -m checks --follow``) does the same for the log it
reads: after every verification it keeps, in ``DATA/replay.trusted-tree.json``, for each
chain (``-`` the lone ingest's, else the worker's name) the log id, the number of records
and the Merkle root it verified, the signed checkpoint of that tree and when. A later
verification must find each chain again, of the same log id, at least as large, and with
the same root at that size (the first ``size`` records unchanged); otherwise replay refuses
the log (replay/refusal.py), in words such as "the log is shorter than the 590 records
verified at 2026-12-01T23:10:04+00:00 (it holds 162): a rollback".

The file is written whole or not at all (a temporary file, fsync, rename, directory fsync),
only once the log verified, and only when a chain grew. It lives in the data directory, so
whoever can write that directory can remove it (replay then starts again from the log as it
is): keep checkpoints apart too (docs/log-integrity.md). A real restore from a backup is
accepted only deliberately: ``python -m replay --restored REASON`` replaces the marks with the
log as it now verifies and keeps, in the same file, when, why and what was dropped.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import json
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay.errors import ReplayError
from schemas.log_verify import LONE, DataVerdict

FILE = "replay.trusted-tree.json"
FORMAT = "catwalk-trusted-tree/1"
MAX_BYTES = 8 << 20
"""No trusted-tree file is larger (a checkpoint per chain); a larger one is refused unread."""


class HighWaterError(ReplayError):
    """The trusted-tree file cannot be read or written; the message names it and says what
    to do."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Mark:
    """The largest tree verified of one chain."""

    chain: str
    """``-`` for the lone ingest's chain, else the worker's name."""
    log_id: str
    size: int
    root: str
    """The Merkle root of the first ``size`` records, hex."""
    checkpoint: str | None
    """The signed checkpoint of that tree (evidence, and checked again by ``python -m
    replay``: schemas.log_verify ties its size and root to the log)."""
    at: str
    """When it was verified (UTC, ISO 8601)."""

    def __post_init__(self) -> None:
        if type(self.size) is not int or self.size < 0:
            raise ValueError(f"chain {self.chain}: size {self.size!r} is not a count")
        if not isinstance(self.root, str) or len(self.root) != 64:
            raise ValueError(f"chain {self.chain}: root {self.root!r} is not a SHA-256 (hex)")


def path_of(data: Path) -> Path:
    return data / FILE


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def load(data: Path) -> dict[str, Mark]:
    """The marks kept for ``data`` (none before the first verification). A file that is not
    a regular file, not of this format or damaged is HighWaterError (fail closed: the marks
    are not guessed at)."""
    path = path_of(data)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        why = ("a symlink, which is never followed" if exc.errno == errno.ELOOP
               else exc.strerror)
        raise HighWaterError(f"{path}: cannot read the largest tree verified: {why}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise HighWaterError(f"{path}: not a regular file: the largest tree verified "
                                 "cannot be read")
        if st.st_size > MAX_BYTES:
            raise HighWaterError(f"{path}: {st.st_size:,} bytes, more than {MAX_BYTES:,}")
        raw = os.read(fd, MAX_BYTES + 1)
    finally:
        os.close(fd)
    try:
        body = json.loads(raw.decode("utf-8"))
        if not isinstance(body, dict) or body.get("format") != FORMAT:
            raise ValueError(f"not {FORMAT}")
        chains = body["chains"]
        if not isinstance(chains, dict):
            raise ValueError("'chains' is not an object")
        return {name: Mark(chain=name, log_id=str(m["log_id"]), size=m["size"],
                           root=m["root"], checkpoint=m.get("checkpoint"), at=str(m["at"]))
                for name, m in chains.items()}
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise HighWaterError(
            f"{path}: the largest tree verified cannot be read ({type(exc).__name__}: "
            f"{' '.join(str(exc).split())[:200]}): the log is refused until it is restored, "
            "or until `python -m replay --restored REASON` replaces it") from exc


def _history(data: Path) -> list[Any]:
    """The restores recorded so far (kept across writes; empty when unreadable)."""
    try:
        body = json.loads(path_of(data).read_bytes()[:MAX_BYTES])
        restored = body.get("restored") if isinstance(body, dict) else None
        return restored if isinstance(restored, list) else []
    except (OSError, ValueError, RecursionError):
        return []


def marks_of(verdict: DataVerdict, at: str | None = None) -> dict[str, Mark]:
    """The marks a verdict that is ok gives: every chain with a signed checkpoint."""
    when = at or _now()
    found = {}
    for chain, v in verdict.chains:
        if v.checkpoint is None:
            continue
        name = chain.name or LONE
        found[name] = Mark(chain=name, log_id=v.checkpoint.log_id, size=v.records,
                           root=v.root.hex(), checkpoint=v.checkpoint_text, at=when)
    return found


def checkpoints(marks: Mapping[str, Mark], data: Path) -> list[tuple[str, str]]:
    """The marks' signed checkpoints as (name, text), for schemas.log_verify.verify_data to
    tie to the log (size and root at that size); named by :func:`mark_name`."""
    return [(mark_name(data, m), m.checkpoint) for m in marks.values() if m.checkpoint]


def mark_name(data: Path, mark: Mark) -> str:
    return f"{path_of(data)} (chain {mark.chain}: {mark.size:,} records verified at {mark.at})"


RootAt = Callable[[str, int], bytes | None]
"""The Merkle root of a chain's first ``size`` records as just verified (None: not known)."""


def judge(marks: Mapping[str, Mark], verdict: DataVerdict, root_at: RootAt | None,
          ) -> str | None:
    """Why the log verified in ``verdict`` is not to be taken given the ``marks`` (a chain
    gone, of another log, shorter, or whose first records no longer give the root kept), or
    None. ``root_at`` None: the verification tied every mark's checkpoint to the log
    already (a smaller chain is still named here, in these words); a root it cannot say
    (None) is taken as consistent only when the verdict is ok."""
    by_name = {(c.name or LONE): v for c, v in verdict.chains}
    for mark in marks.values():
        label = "the log" if mark.chain == LONE else f"the log of worker {mark.chain}"
        v = by_name.get(mark.chain)
        if v is None or v.records == 0:
            return (f"{label} holds no record, but {mark.size:,} were verified at {mark.at} "
                    f"(log {mark.log_id}): a rollback (the chain was removed)")
        log_id = v.checkpoint.log_id if v.checkpoint is not None else None
        if log_id is not None and log_id != mark.log_id:
            return (f"{label} is log {log_id}, not log {mark.log_id} of which {mark.size:,} "
                    f"records were verified at {mark.at}: the log was replaced")
        if v.records < mark.size:
            return (f"{label} is shorter than the {mark.size:,} records verified at "
                    f"{mark.at} (it holds {v.records:,}): a rollback")
        root = v.root if v.records == mark.size else (
            root_at(mark.chain, mark.size) if root_at is not None else None)
        if root is None:
            if not verdict.ok:
                return (f"{label}: its first {mark.size:,} records do not give the root "
                        f"verified at {mark.at}: not consistent with the tree verified then "
                        "(the log was rewritten)")
            continue
        if root.hex() != mark.root:
            return (f"{label}: its first {mark.size:,} records do not give the root "
                    f"{mark.root[:16]}... verified at {mark.at}: not consistent with the tree "
                    "verified then (the log was rewritten)")
    return None


TIED = ("it covers", "do not give the root", "a checkpoint of another log")
"""How schemas.log_verify says a checkpoint given does not hold for the log (its size, its
root, its log id), as opposed to a checkpoint that does not verify at all."""


def about_marks(problem: str | None, marks: Mapping[str, Mark], data: Path) -> bool:
    """Whether a verdict's problem is a mark's checkpoint not holding for the log (shorter,
    rewritten, another log): :func:`judge` then says so in its words."""
    return problem is not None and any(
        f"{mark_name(data, m)}: " in problem for m in marks.values()) and any(
        words in problem for words in TIED)


def remember(data: Path, verdict: DataVerdict, marks: Mapping[str, Mark], *,
             restored: str | None = None) -> bool:
    """Keep the larger tree of each chain of the ok ``verdict`` (``restored``: the
    operator's reason for replacing the marks by the log as it is, recorded with what was
    dropped); whether the file was written. Written whole or not at all; a full disk or any
    other failure is HighWaterError (one line)."""
    now = _now()
    new = marks_of(verdict, now)
    kept = dict(marks) if restored is None else {}
    changed = restored is not None
    for name, mark in new.items():
        old = kept.get(name)
        if old is None or mark.size > old.size or mark.log_id != old.log_id:
            kept[name] = mark
            changed = True
    if not changed:
        return False
    history = _history(data)
    if restored is not None:
        history.append({"at": now, "reason": " ".join(restored.split())[:2000],
                        "dropped": {n: {"log_id": m.log_id, "size": m.size, "root": m.root,
                                        "at": m.at} for n, m in marks.items()}})
    body = {"format": FORMAT,
            "chains": {n: {"log_id": m.log_id, "size": m.size, "root": m.root,
                           "checkpoint": m.checkpoint, "at": m.at}
                       for n, m in sorted(kept.items())},
            "restored": history}
    write_atomic(path_of(data), (json.dumps(body, indent=2, sort_keys=True,
                                             ensure_ascii=False) + "\n").encode())
    return True


def write_atomic(path: Path, raw: bytes) -> None:
    """``raw`` into ``path`` whole or not at all (temporary file, fsync, rename, directory
    fsync); HighWaterError names the file and the reason (a full disk: one line)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        try:
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        directory = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise HighWaterError(f"cannot record the largest tree verified in {path}: "
                             f"{exc.strerror or exc}") from exc
