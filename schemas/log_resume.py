"""Verification of a growing log that costs what its new segments cost (the live loop,
``python -m checks --follow``), trusting nothing less than a whole verification.

:class:`ResumableVerifier` is called as ``schemas.log_verify.verify_data`` is and gives the
same verdict. For the lone ingest's chain, after a whole verification that succeeded it
keeps where the walk stood after each segment (``schemas.log_verify.Walked``: records,
prev hash, Merkle tree, log id, last checkpoint and its text; the tree's root at every
segment's end) and a fingerprint of every file it read: each segment, and each checkpoint
file beside the log (name, inode, size, modification and change times in ns).

The next call, in the order ``verify_data`` reads:

1. lists the checkpoint files beside the log and reads only those new or changed since;
2. lists the segments; those verified must be the same names in the same order with the
   same fingerprints. A segment is written once, header first, under a temporary name,
   fsynced and renamed into place, and never rewritten (ingest/log.py ``LogWriter.append``),
   so any difference (a segment altered, truncated, replaced, removed, renamed or swapped)
   means the log is not the one verified: the whole log is then verified again, exactly as
   today, which finds and names what changed;
3. walks only the new segments from the kept state, with the walk's own per-segment routine
   (``schemas.log_verify.walk_segment``: the same checks, the same words);
4. checks the new or changed checkpoint files as a whole walk checks them
   (``schemas.log_verify.check_checkpoints``), against the roots kept. Ingest writes one
   beside each segment (``checkpoints/segment-NNNNNN.checkpoint``, after the segment) and
   rewrites ``checkpoints/latest.checkpoint`` after each segment and at shutdown, always of
   the log up to a segment's end; so the roots at segment ends are kept (32 bytes a
   segment), which check a checkpoint file that appears after its segment was verified. A
   checkpoint of any other size (not written by ingest) makes the call verify the whole log.

Anything that does not verify in the new segments or checkpoints also makes the call verify
the whole log, so that a verdict that is not ok is always the one a whole verification
gives (its words, its counts). A verdict that is ok is the one a whole verification would
give: the same records, segments, root and last checkpoint.

What a fingerprint cannot see (a bit flipped on disk, a tamperer able to set a file's change
time back) is caught by a whole verification run every ``full_every`` seconds in a child
process (schemas/log_recheck.py), which never delays a call: when it fails, or gives for a
prefix another root than the one kept, what is kept is dropped, and the next call verifies
the whole log itself, so it refuses in the words it always did. :meth:`ResumableVerifier.poll`
says when that happened, for a loop that would otherwise wait for the log to change.

Ingest workers' chains (several chains, whose checks across chains need every record's
offsets) and any checkpoints given by the caller are verified whole every call
(``verify_data``), as before.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import struct
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemas.checkpoint import Verifier
from schemas.log_recheck import Recheck, Rechecked
from schemas.log_verify import (
    DataVerdict,
    Hooks,
    Keep,
    VerifyFailed,
    Walked,
    check_checkpoints,
    checkpoint_files,
    data_chains,
    open_checkpoints,
    read_checkpoint,
    symlinked,
    verify_data,
    verify_log,
    walk_segment,
)
from schemas.logformat import SEGMENT, Chain, segment_name
from schemas.merkle import Tree

FULL_EVERY = 600.0
"""Seconds between whole verifications in the background, by default: at the end of an
8-hour shift of a live trickle (about 144,000 segments) one takes about 15 s of the other
core, so about 2.5% of it, and a change a fingerprint cannot see is found within 10 minutes."""

SPOT_FILES = 10_000
"""Files :meth:`ResumableVerifier.spot` looks at a call: about 26 ms on the development
machine (2.6 us a file, mostly the ``stat`` itself; measured on a log of 144,000 segments),
so that a loop calling it every second while the log looks unchanged spends under 3% of a
core on it and has looked at each of the
288,000 files of an 8-hour shift (a segment and its checkpoint file each) again within about
30 s."""

_SEGMENT = struct.Struct("<QQqqq")
"""A segment's number and fingerprint, packed (40 bytes a segment)."""
_FILE = struct.Struct("<Qqqq")
_NUMBER = struct.Struct("<Q")


def fingerprint(st: os.stat_result) -> tuple[int, int, int, int]:
    """What must stay the same for a file verified once to be trusted without reading it
    again: inode, size, modification and change time (ns). The change time cannot be set
    back without setting the clock back."""
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class _Restart(Exception):
    """Why the call verifies the whole log instead of going on."""


@dataclass(slots=True, kw_only=True)
class _Held:
    """What a whole verification left, grown by each call that went on from it."""

    data_dir: Path
    chain: Chain
    key: Verifier
    at: Walked
    segments: bytearray = field(default_factory=bytearray)
    """Each segment verified: :data:`_SEGMENT`, in order."""
    ends: array[int] = field(default_factory=lambda: array("q"))
    """The records up to each segment's end."""
    roots: bytearray = field(default_factory=bytearray)
    """The tree's root at each of ``ends`` (32 bytes each)."""
    beside: dict[str, bytes] = field(default_factory=dict)
    """Each checkpoint file verified, by file name: :data:`_FILE`."""

    def root_at(self, size: int) -> bytes | None:
        if size == 0:
            return Tree().root()
        i = bisect.bisect_left(self.ends, size)
        if i == len(self.ends) or self.ends[i] != size:
            return None
        return bytes(self.roots[32 * i:32 * i + 32])


class _Trail:
    """Fingerprints each segment before a whole walk reads it, keeps the root after it."""

    def __init__(self) -> None:
        self.segments = bytearray()
        self.ends: array[int] = array("q")
        self.roots = bytearray()
        self.at: Walked | None = None
        self.unsure: str | None = None

    def entered(self, seg: Path) -> None:
        try:
            self.segments += _packed(seg, os.stat(seg))
        except (OSError, _Restart) as exc:  # the walk names it, or goes on without resuming
            self.unsure = f"{seg.name}: {exc}"

    def verified(self, seg: Path, at: Walked) -> None:
        self.ends.append(at.records)
        self.roots += at.tree.root()
        self.at = at


def _packed(seg: Path, st: os.stat_result) -> bytes:
    match = SEGMENT.match(seg.name)
    number = int(match.group(1)) if match else -1
    if number < 0 or seg.name != segment_name(number):
        raise _Restart(f"{seg.name} is not named as ingest names a segment "
                       f"({segment_name(max(number, 0))})")
    return _SEGMENT.pack(number, *fingerprint(st))


class ResumableVerifier:
    """``verify_data`` that goes on from where its last call stopped (see the module
    docstring). ``full_every``: seconds between whole verifications in the background (None:
    none, for tests that step it); ``clock``: monotonic seconds. Not thread-safe: one
    caller calls it."""

    def __init__(self, *, full_every: float | None = FULL_EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.full_every = full_every
        self.clock = clock
        self._held: _Held | None = None
        self._why = "the first pass"
        self._recheck: Recheck | None = None
        self._full_at = 0.0
        self._spot_at = 0
        self._spot_beside: tuple[dict[str, bytes] | None, list[tuple[str, bytes]]] = (None, [])
        self.base = 0
        """Records before those the last call gave to ``keep``: 0 after a whole
        verification, else the records the call before had verified."""
        self.resumed = False
        """Whether the last call went on from the one before (else it verified all)."""
        self.said = ""
        """What the last call did, in words (e.g. ``3 new segments after 10,422`` or ``the
        whole log (first pass)``)."""
        self.rechecked: Rechecked | None = None
        """What the last whole verification in the background found."""

    @property
    def records(self) -> int:
        """Records verified and kept to go on from (0 when the next call verifies all)."""
        return 0 if self._held is None else self._held.at.records

    def root_at(self, size: int) -> bytes | None:
        """The Merkle root of the log's first ``size`` records as last verified, when
        ``size`` is a segment's end (None otherwise, or when nothing is kept)."""
        return None if self._held is None else self._held.root_at(size)

    def forget(self, why: str = "the caller dropped what it had taken") -> None:
        """Drop what is kept: the next call verifies the whole log."""
        if self._held is not None:
            self._held = None
            self._why = why

    def close(self) -> None:
        """Stop a whole verification still running in the background."""
        if self._recheck is not None:
            self._recheck.stop()

    def __call__(self, data_dir: Path, key: Verifier, *,
                 checkpoints: Sequence[tuple[str, str]] = (),
                 progress: Callable[[int], None] | None = None,
                 keep: Callable[[Chain], Keep] | None = None) -> DataVerdict:
        """Verify ``data_dir`` as ``verify_data(data_dir, key, ...)`` does, going on from
        the last call when it can."""
        self.poll()
        found = data_chains(data_dir)
        if checkpoints or len(found) != 1 or found[0].name or any(
                symlinked(data_dir, c) for c in found):
            self.forget("the log is not the lone ingest's chain alone")
            self.base, self.resumed = 0, False
            self.said = "the whole log (ingest workers' chains, or checkpoints given)"
            return verify_data(data_dir, key, checkpoints=checkpoints, progress=progress,
                               keep=keep)
        chain = found[0]
        held = self._held
        why = self._why
        if held is not None and (held.data_dir != data_dir or held.chain != chain
                                 or held.key != key):
            why = "another data directory or another key than the last pass"
        elif held is not None:
            try:
                return self._resume(held, key, keep)
            except _Restart as exc:
                why = str(exc)
        return self._whole(data_dir, chain, key, keep, progress, why)

    def spot(self, files: int = SPOT_FILES) -> str | None:
        """Look again at the next ``files`` of the files verified (the segments, then the
        checkpoint files beside the log, round and round): why a pass is due when one is
        no longer as verified (changed in place, replaced or removed), else None. For a
        loop that looks at the directories only while the log seems unchanged
        (checks/follow.py): a segment edited in place is seen within (segments + checkpoint
        files) / ``files`` calls, instead of at the next whole verification in the
        background. Nothing is dropped here: the pass compares every fingerprint, verifies
        the whole log when a segment differs (and refuses it in its words) and reads a
        checkpoint file that differs again (ingest rewrites ``latest.checkpoint``)."""
        held = self._held
        if held is None or files < 1:
            return None
        size = _SEGMENT.size
        count = len(held.segments) // size
        if self._spot_beside[0] is not held.beside:  # a list of it once per pass
            self._spot_beside = (held.beside, list(held.beside.items()))
        beside = self._spot_beside[1]
        total = count + len(beside)
        if total == 0:
            return None
        start = self._spot_at % total
        take = min(files, total)
        self._spot_at = (start + take) % total
        indexes = [n % total for n in range(start, start + take)]
        segs = held.segments
        pack, stat = _SEGMENT.pack, os.stat
        try:
            fd = os.open(held.chain.log, os.O_RDONLY | os.O_DIRECTORY)
            try:
                for i in indexes:
                    if i >= count:
                        continue
                    at = size * i
                    number = _NUMBER.unpack_from(segs, at)[0]
                    name = segment_name(number)
                    if pack(number, *fingerprint(stat(name, dir_fd=fd))) != segs[at:at + size]:
                        return f"{name} changed since it was verified"
            finally:
                os.close(fd)
            if any(i >= count for i in indexes):
                fd = os.open(held.chain.checkpoints, os.O_RDONLY | os.O_DIRECTORY)
                try:
                    for i in indexes:
                        if i >= count:
                            name, packed = beside[i - count]
                            if _FILE.pack(*fingerprint(stat(name, dir_fd=fd))) != packed:
                                return f"{name} changed since it was verified"
                finally:
                    os.close(fd)
        except OSError as exc:
            return f"a file verified cannot be looked at ({exc.strerror or exc}: {exc.filename})"
        return None

    def poll(self) -> bool:
        """Look at the whole verification in the background, and start one when it is due.
        True when it found the log not as verified: what was kept is dropped, and the next
        call verifies the whole log itself (and refuses in its words if the log is bad)."""
        recheck = self._recheck
        got = recheck.poll() if recheck is not None else None
        dropped = got is not None and self._judge(got)
        self._start_if_due()
        return dropped

    def settle(self, timeout: float | None = None) -> bool:
        """Wait for the whole verification in the background to end (at most ``timeout``
        seconds), then as :meth:`poll` (for tests and benchmarks)."""
        recheck = self._recheck
        got = recheck.wait(timeout) if recheck is not None else None
        return got is not None and self._judge(got)

    @property
    def rechecking(self) -> bool:
        return self._recheck is not None and self._recheck.running

    def _judge(self, got: Rechecked) -> bool:
        self.rechecked = got
        held = self._held
        if held is None:
            return False
        if not got.finished:
            why = f"the whole verification in the background did not finish ({got.problem})"
        elif not got.ok:
            why = f"the whole verification in the background found: {got.problem}"
        elif not got.lone:
            why = "the whole verification in the background found more than one chain"
        elif got.records > held.at.records:
            return False  # a longer prefix verified: the next calls walk its new segments
        else:
            root = held.root_at(got.records)
            if root is not None and root.hex() == got.root:
                return False
            why = (f"the whole verification in the background gave the log's first "
                   f"{got.records:,} records another root than the one verified: the log "
                   "changed since")
        self.forget(why)
        return True

    def _start_if_due(self) -> None:
        held = self._held
        if (held is None or self.full_every is None
                or self.clock() - self._full_at < self.full_every):
            return
        if self._recheck is None:
            self._recheck = Recheck(held.data_dir)
        if not self._recheck.running:
            self._full_at = self.clock()
            self._recheck.start(held.key)

    def _whole(self, data_dir: Path, chain: Chain, key: Verifier,
               keep: Callable[[Chain], Keep] | None,
               progress: Callable[[int], None] | None, why: str) -> DataVerdict:
        self._held = None
        self._full_at = self.clock()
        beside: dict[str, bytes] = {}
        texts = []
        for path in checkpoint_files(chain):
            with contextlib.suppress(OSError):  # unreadable, it fails below, named
                beside[path.name] = _FILE.pack(*fingerprint(os.stat(path)))
            texts.append((str(path), read_checkpoint(path)))
        trail = _Trail()
        verdict = verify_log(chain.log, key, checkpoints=texts, progress=progress,
                             keep=None if keep is None else keep(chain), trail=trail)
        self.base, self.resumed = 0, False
        self.said = f"the whole log ({why})"
        if verdict.ok and trail.at is not None and trail.unsure is None:
            self._held = _Held(data_dir=data_dir, chain=chain, key=key, at=trail.at,
                               segments=trail.segments, ends=trail.ends, roots=trail.roots,
                               beside=beside)
        else:
            self._why = ("the last pass did not verify" if not verdict.ok
                         else f"a segment could not be fingerprinted ({trail.unsure})")
        self._start_if_due()
        return DataVerdict(chains=((chain, verdict),), key=key, problem=verdict.problem)

    def _resume(self, held: _Held, key: Verifier,
                keep: Callable[[Chain], Keep] | None) -> DataVerdict:
        chain = held.chain
        changed, beside = _beside(held)
        names = _segment_names(chain.log)
        before = held.at.segments
        if len(names) < before:
            raise _Restart(f"the log holds {len(names):,} segments, {before:,} were verified: "
                           "segments were removed")
        packed = _fingerprints(chain.log, names)
        size = _SEGMENT.size
        if packed[:size * before] != held.segments:
            raise _Restart(_first_change(names, packed, held.segments))
        at = held.at.copy()
        got: list[dict[str, Any]] = []
        ends: array[int] = array("q")
        roots = bytearray()
        hooks = Hooks(keep=got.append)
        try:
            for name in names[before:]:
                walk_segment(chain.log / name, key, at, hooks)
                ends.append(at.records)
                roots += at.tree.root()
            wanted = open_checkpoints(changed, key)
            known: dict[int, bytes] = {}
            for name, cp in wanted.items():
                if cp.size <= at.records:
                    root = held.root_at(cp.size) if cp.size <= held.at.records else None
                    if root is None:
                        i = bisect.bisect_left(ends, cp.size)
                        if i == len(ends) or ends[i] != cp.size:
                            raise _Restart(f"{name} covers {cp.size:,} records, not the end "
                                           "of a segment")
                        root = bytes(roots[32 * i:32 * i + 32])
                    known[cp.size] = root
            check_checkpoints(wanted, at, known)
        except VerifyFailed as exc:
            raise _Restart(f"what was appended did not verify ({exc})") from None
        new = len(names) - before
        self.base, self.resumed = held.at.records, True
        self.said = (f"{new:,} new segment{'s' if new != 1 else ''} after {before:,}"
                     if new else f"no new segment after {before:,}")
        held.at = at
        held.segments += packed[size * before:]
        held.ends.extend(ends)
        held.roots += roots
        held.beside = beside
        if keep is not None and got:
            take = keep(chain)
            for rec in got:
                take(rec)
        self._start_if_due()
        return DataVerdict(chains=((chain, at.verdict(key, None)),), key=key, problem=None)


def _segment_names(log_dir: Path) -> list[str]:
    """``schemas.logformat.segments``: the same files in the same order, as names, without
    a Path each (the live loop lists every segment at every pass)."""
    try:
        names = [name for name in os.listdir(log_dir) if SEGMENT.match(name)]
    except OSError as exc:
        raise _Restart(f"{log_dir} cannot be listed ({exc.strerror or exc})") from None
    if len({len(name) for name in names}) <= 1:
        names.sort()  # numbers of as many digits: their text's order is their order
        return names
    return [name for _, name in sorted((int(name[8:-5]), name) for name in names)]


def _fingerprints(log_dir: Path, names: list[str]) -> bytearray:
    """Every segment's number and fingerprint (:data:`_SEGMENT`), in order. (A name that
    is not ingest's for its number never passes a whole verification, whose segment's
    signed checkpoint names it; a second name for a number gives another sequence of
    numbers than the one verified.)"""
    out = bytearray()
    pack = _SEGMENT.pack
    stat = os.stat
    try:
        fd = os.open(log_dir, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise _Restart(f"{log_dir} cannot be opened ({exc.strerror or exc})") from None
    try:
        for name in names:
            out += pack(int(name[8:-5]), *fingerprint(stat(name, dir_fd=fd)))
    except FileNotFoundError as exc:
        raise _Restart(f"{exc.filename} was removed while the log was looked at") from None
    except OSError as exc:
        raise _Restart(f"a segment cannot be looked at ({exc})") from None
    finally:
        os.close(fd)
    return out


def _beside(held: _Held) -> tuple[list[tuple[str, str]], dict[str, bytes]]:
    """The checkpoint files beside the log (``schemas.log_verify.checkpoint_files``) new or
    changed since verified, as (name, text), and every one's fingerprint by name. (Their
    order does not matter here: any that does not verify makes the call verify the whole
    log, which checks them in order.)"""
    where = held.chain.checkpoints
    try:
        names = [name for name in os.listdir(where) if name.endswith(".checkpoint")]
        fd = os.open(where, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return [], {}
    except OSError as exc:
        raise _Restart(f"{where} cannot be listed ({exc.strerror or exc})") from None
    changed = []
    now: dict[str, bytes] = {}
    pack = _FILE.pack
    stat = os.stat
    was = held.beside.get
    try:
        for name in names:
            fp = now[name] = pack(*fingerprint(stat(name, dir_fd=fd)))
            if was(name) != fp:
                changed.append(name)
    except OSError as exc:
        raise _Restart(f"a checkpoint file in {where} cannot be looked at ({exc})") from None
    finally:
        os.close(fd)
    return [(str(where / name), read_checkpoint(where / name)) for name in changed], now


def _first_change(names: list[str], packed: bytearray, held: bytearray) -> str:
    """Which segment verified before is not as it was."""
    size = _SEGMENT.size
    for i, name in enumerate(names):
        now, was = packed[size * i:size * (i + 1)], held[size * i:size * (i + 1)]
        if now != was:
            number = _SEGMENT.unpack(was)[0]
            if _SEGMENT.unpack(now)[0] != number:
                return (f"{name} is where {segment_name(number)} was verified: segments "
                        "were removed, renamed or inserted")
            return f"{name} changed since it was verified (its inode, size or times differ)"
    return "the segments are not those verified"
