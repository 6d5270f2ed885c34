"""One append-only, hash-chained JSON-lines file: the dashboard's users, access log and cases.

Each line is one entry, written in canonical JSON (keys sorted, no spaces, ASCII only) and
carrying four fields the journal adds:

- ``seq``: 1, 2, 3 ... (the line number);
- ``at``: when it was appended, UTC ISO-8601 with microseconds and ``Z``;
- ``prev``: the ``hash`` of the line before (``""`` on the first line);
- ``hash``: SHA-256 (hex) of the canonical JSON of the entry without ``hash``.

Editing, inserting or removing a line in the middle breaks the chain and is named by
:meth:`Journal.verify` as ``FILE line N: ...``. A last line without its newline (a writer killed
mid-write, a full disk) is a torn tail: it is reported, never repaired or dropped, and
:meth:`Journal.append` refuses to extend a journal that does not verify (the operator decides
what happens to it: ``python -m dashboard --help``). What a chain alone cannot show is the
removal of whole lines at the end or a chain recomputed after an edit: for that every append
also signs the journal's new head into ``FILE.checkpoints`` (dashboard/anchor.py), under the
same lock, and refuses to append when the journal no longer matches the last head signed.
A journal removed whole together with its signed heads is not visible from the host: note
the head (``python -m dashboard access verify`` prints each journal's last ``seq`` and
``hash``) somewhere the dashboard's host cannot rewrite, as with the event log's checkpoints
(docs/log-integrity.md).

Writers take an exclusive ``flock`` on the file while they read its tail and append (``O_APPEND``,
then ``fsync``), so two processes or threads appending at once never interleave lines or fork
the chain; readers take a shared one. The file is created with mode 0600 in a directory created
with mode 0700.

To keep appends cheap on a long access log, a process verifies the whole file the first time it
appends to it, and afterwards only the lines added since (by any process) and that the last line
it verified is still in place. :meth:`Journal.verify` and :meth:`Journal.entries` check every
byte each time, but quickly: the part this process verified before is compared by its SHA-256
(a change anywhere in it sends the whole file through the line-by-line check again), the rest
line by line.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import os
import stat
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dashboard import anchor
from schemas.checkpoint import Signer, Verifier

RESERVED = ("seq", "at", "prev", "hash")
"""The fields the journal writes itself; an entry handed to :meth:`Journal.append` may not
carry them."""

MAX_LINE_BYTES = 1 << 20
"""The longest line :meth:`Journal.append` writes (1 MiB): the dashboard's entries are a few
hundred bytes; anything near this is a bug upstream, refused rather than stored."""

FILE_MODE = 0o600
DIR_MODE = 0o700


class JournalError(Exception):
    """A journal that cannot be read, trusted or written. The message names the file, the
    line when there is one, what is wrong and what to do."""

    def __init__(self, message: str, *, path: Path | None = None, line: int | None = None):
        super().__init__(message)
        self.path = path
        self.line = line


def canonical(obj: Mapping[str, Any]) -> bytes:
    """The one byte form of an entry: JSON with sorted keys, no spaces, ASCII only, no NaN."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


def entry_hash(entry: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of ``entry`` without its ``hash`` field."""
    return hashlib.sha256(canonical({k: v for k, v in entry.items() if k != "hash"})).hexdigest()


def utc_now() -> str:
    """Now, as the journal writes ``at``: ``2026-12-01T09:30:00.123456Z``."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True, slots=True, kw_only=True)
class _Scan:
    """What reading a run of lines found: the entries (when kept), where the chain ends, and
    the first problem (None when every line holds)."""

    entries: list[dict[str, Any]]
    seq: int
    """The last good line's ``seq`` (0 before the first)."""
    head: str
    """The last good line's ``hash`` (``""`` before the first)."""
    last_start: int
    """Offset of the last good line in the file (-1 before the first)."""
    problem: str | None


def _scan(path: Path, data: bytes, *, offset: int = 0, seq: int = 0, head: str = "",
          last_start: int = -1, keep: bool = True) -> _Scan:
    """Check ``data`` (the file's bytes from ``offset``) line by line, continuing a chain whose
    last good line is ``seq`` with hash ``head``."""
    entries: list[dict[str, Any]] = []
    pos = 0

    def stop(problem: str) -> _Scan:
        return _Scan(entries=entries, seq=seq, head=head, last_start=last_start,
                     problem=f"{path} line {seq + 1}: {problem}")

    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            return stop(f"the last line is incomplete ({len(data) - pos} bytes without a "
                        "newline): the journal was cut off mid-write (a killed process or a "
                        "full disk)")
        raw = data[pos:end]
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            return stop(f"not a JSON line ({exc})")
        if not isinstance(entry, dict):
            return stop(f"a JSON {type(entry).__name__}, not an entry (a JSON object)")
        for name, kind in (("seq", int), ("at", str), ("prev", str), ("hash", str)):
            value = entry.get(name)
            if not isinstance(value, kind) or isinstance(value, bool):
                return stop(f"the {name!r} field is missing or not a {kind.__name__}")
        if entry["seq"] != seq + 1:
            return stop(f"seq is {entry['seq']}, expected {seq + 1} (a line was removed, "
                        "inserted or reordered)")
        if entry["prev"] != head:
            return stop("prev does not match the hash of the line before (a line before it "
                        "was changed or removed)")
        try:
            expected = entry_hash(entry)
        except ValueError as exc:
            return stop(f"cannot be put in canonical form ({exc})")
        if entry["hash"] != expected:
            return stop("its hash does not match its content (the line was changed after it "
                        "was written)")
        if raw != canonical(entry):
            return stop("not in the canonical form the journal writes (the line was edited)")
        if keep:
            entries.append(entry)
        seq, head, last_start = entry["seq"], entry["hash"], offset + pos
        pos = end + 1
    return _Scan(entries=entries, seq=seq, head=head, last_start=last_start, problem=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Tail:
    """What this process last verified of a journal file: enough to check only what follows."""

    device: int
    inode: int
    size: int
    seq: int
    head: str
    last_start: int
    last_line: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class _Verified:
    """A journal file as this process last read and verified it whole: its first ``size``
    bytes hash to ``digest``."""

    device: int
    inode: int
    size: int
    digest: bytes
    seq: int
    head: str
    last_start: int


_TAILS: dict[str, _Tail] = {}
_VERIFIED: dict[str, _Verified] = {}
_TAILS_LOCK = threading.Lock()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_all(fd: int, start: int, size: int) -> bytes:
    chunks: list[bytes] = []
    pos = start
    while pos < size:
        chunk = os.pread(fd, min(size - pos, 1 << 24), pos)
        if not chunk:
            break
        chunks.append(chunk)
        pos += len(chunk)
    return b"".join(chunks)


@dataclass(frozen=True, slots=True, kw_only=True)
class _History:
    """The end of a journal's history of signed heads as this process last wrote it."""

    device: int
    inode: int
    size: int
    note: anchor.Note


_HISTORIES: dict[str, _History] = {}


class Journal:
    """An append-only, hash-chained JSON-lines file (see the module's docstring).

    ``anchored`` (the default): every append signs the new head into ``FILE.checkpoints``
    with the key :func:`dashboard.anchor.signer_for` gives (or ``signer``, when given)."""

    def __init__(self, path: Path, *, anchored: bool = True, signer: Signer | None = None
                 ) -> None:
        self.path = Path(path)
        self.anchored = anchored
        self._given_signer = signer

    @property
    def history_path(self) -> Path:
        """``FILE.checkpoints``: the signed heads of this journal."""
        return anchor.history_path(self.path)

    def signer(self) -> Signer:
        if self._given_signer is not None:
            return self._given_signer
        try:
            return anchor.signer_for(self.path.parent)
        except (ValueError, OSError) as exc:
            raise JournalError(f"cannot sign the head of {self.path}, so nothing was appended: "
                               f"{exc}", path=self.path) from exc

    def __repr__(self) -> str:
        return f"Journal({str(self.path)!r})"

    # Reading -------------------------------------------------------------------------------

    def _read(self) -> tuple[bytes, _Scan]:
        """The file's bytes and what checking them found. Every byte is checked: the part this
        process verified before is compared by its SHA-256 (any change there, however small,
        sends the whole file through the line-by-line check again); the rest, line by line."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return b"", _Scan(entries=[], seq=0, head="", last_start=-1, problem=None)
        except OSError as exc:
            raise JournalError(f"cannot open {self.path}: {exc.strerror or exc}. Check the "
                               "file's owner and permissions.", path=self.path) from exc
        try:
            self._check_regular(fd)
            fcntl.flock(fd, fcntl.LOCK_SH)
            info = os.fstat(fd)
            data = _read_all(fd, 0, info.st_size)
        except OSError as exc:
            raise JournalError(f"cannot read {self.path}: {exc.strerror or exc}",
                               path=self.path) from exc
        finally:
            os.close(fd)  # closing releases the lock
        key = str(self.path.resolve())
        with _TAILS_LOCK:
            known = _VERIFIED.get(key)
        digest = None
        if (known is not None and (known.device, known.inode) == (info.st_dev, info.st_ino)
                and len(data) >= known.size):
            prefix = hashlib.sha256(memoryview(data)[:known.size])
            if prefix.digest() == known.digest:
                scan = _scan(self.path, data[known.size:], offset=known.size, seq=known.seq,
                             head=known.head, last_start=known.last_start, keep=False)
                digest = prefix
                digest.update(memoryview(data)[known.size:])
        if digest is None:
            scan = _scan(self.path, data, keep=False)
            digest = hashlib.sha256(data)
        if scan.problem is None:
            with _TAILS_LOCK:
                _VERIFIED[key] = _Verified(device=info.st_dev, inode=info.st_ino,
                                           size=len(data), digest=digest.digest(), seq=scan.seq,
                                           head=scan.head, last_start=scan.last_start)
        return data, scan

    def _verified(self) -> tuple[bytes, _Scan]:
        data, scan = self._read()
        if scan.problem is not None:
            raise JournalError(f"{scan.problem}. {self._advice()}", path=self.path,
                               line=scan.seq + 1)
        return data, scan

    def entries(self, *, newest_first: bool = False,
                where: Callable[[dict[str, Any]], bool] | None = None,
                limit: int | None = None) -> list[dict[str, Any]]:
        """The entries, oldest first (or newest first), those ``where`` accepts when given, at
        most ``limit``; [] when the file does not exist yet. The whole file is checked first:
        raises :class:`JournalError` naming ``FILE line N`` when any line does not hold."""
        data, _ = self._verified()
        lines = data.split(b"\n")[:-1]  # a verified file ends with a newline
        if newest_first:
            lines.reverse()
        found: list[dict[str, Any]] = []
        if limit is not None and limit <= 0:
            return found
        for line in lines:
            entry = json.loads(line)
            if where is None or where(entry):
                found.append(entry)
                if limit is not None and len(found) >= limit:
                    break
        return found

    def verify(self) -> str | None:
        """None when every line holds; else the first problem, ``"FILE line N: ..."``.
        A file that cannot be read at all is a problem too (named, never an exception)."""
        try:
            return self._read()[1].problem
        except JournalError as exc:
            return str(exc)

    def head(self) -> tuple[int, str]:
        """The last entry's ``seq`` and ``hash`` (``(0, "")`` when empty), to note down
        elsewhere: a later file must still hold that line. Raises :class:`JournalError` when
        the file does not verify."""
        scan = self._verified()[1]
        return scan.seq, scan.head

    # Writing -------------------------------------------------------------------------------

    def append(self, entry: Mapping[str, Any], *,
               guard: Callable[[list[dict[str, Any]]], None] | None = None) -> dict[str, Any]:
        """Append ``entry`` with its ``seq``, ``at``, ``prev`` and ``hash``; return it as
        written. Refuses (:class:`JournalError`, nothing written) when the journal does not
        verify or cannot be written.

        ``guard``, when given, is called under the lock with every entry so far and may raise
        to refuse the append (e.g. "this user already exists"), so that a check and its write
        cannot be raced by another process."""
        clash = [name for name in RESERVED if name in entry]
        if clash:
            raise ValueError(f"an entry may not carry {', '.join(clash)}: the journal writes "
                             "those fields itself")
        try:
            canonical(entry)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the entry cannot be written as JSON: {exc}") from exc
        existed = self.path.exists()
        if guard is not None and not existed:
            guard([])  # a refusal creates no file (and the guard runs again under the lock)
        fd = self._open_for_append()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            info = os.fstat(fd)
            if guard is not None:
                scan = _scan(self.path, _read_all(fd, 0, info.st_size))
                if scan.problem is None:
                    guard(scan.entries)
            else:
                scan = self._scan_since_last(fd, info)
            if scan.problem is not None:
                raise JournalError(
                    f"the journal does not verify, so nothing was appended: {scan.problem}. "
                    f"{self._advice()}", path=self.path, line=scan.seq + 1)
            history = self._history_before(scan.seq, scan.head) if self.anchored else None
            full = {**entry, "seq": scan.seq + 1, "at": utc_now(), "prev": scan.head}
            full["hash"] = entry_hash(full)
            line = canonical(full) + b"\n"
            try:
                if len(line) > MAX_LINE_BYTES:
                    raise ValueError(f"the entry is {len(line):,} bytes written out, over the "
                                     f"journal's limit of {MAX_LINE_BYTES:,}")
                self._write(fd, line)
            except BaseException:
                if history is not None:
                    os.close(history[0])
                raise
            self._remember(info, size=info.st_size + len(line), seq=full["seq"],
                           head=full["hash"], last_start=info.st_size, last_line=line[:-1])
            if history is not None:
                self._sign_head(history, full["seq"], full["hash"], full["at"])
        finally:
            os.close(fd)  # closing releases the lock
        if not existed:
            try:
                _fsync_dir(self.path.parent)
            except OSError as exc:
                raise JournalError(f"{self.path} was created but its directory could not be "
                                   f"synced to disk: {exc.strerror or exc}",
                                   path=self.path) from exc
        written: dict[str, Any] = json.loads(line)  # as the file holds it (a tuple is a list)
        return written

    def _open_for_append(self) -> int:
        try:
            self._make_parent()
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                         FILE_MODE)
        except OSError as exc:
            raise JournalError(f"cannot open {self.path} to append: {exc.strerror or exc}. "
                               "Check that the directory exists and is writable by this user.",
                               path=self.path) from exc
        try:
            self._check_regular(fd)
            if stat.S_IMODE(os.fstat(fd).st_mode) != FILE_MODE:
                os.fchmod(fd, FILE_MODE)
        except (OSError, JournalError) as exc:
            os.close(fd)
            if isinstance(exc, JournalError):
                raise
            raise JournalError(f"cannot set {self.path} to mode 0600: {exc.strerror or exc}",
                               path=self.path) from exc
        return fd

    def _make_parent(self) -> None:
        parent = self.path.parent
        if parent.is_dir():
            return
        parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        os.chmod(parent, DIR_MODE)

    def _check_regular(self, fd: int) -> None:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise JournalError(f"{self.path} is not a regular file; a journal must be one",
                               path=self.path)

    def _scan_since_last(self, fd: int, info: os.stat_result) -> _Scan:
        with _TAILS_LOCK:
            tail = _TAILS.get(str(self.path.resolve()))
        if (tail is not None and tail.device == info.st_dev and tail.inode == info.st_ino
                and info.st_size >= tail.size):
            data = _read_all(fd, tail.last_start, info.st_size)
            if data.startswith(tail.last_line + b"\n"):
                rest = len(tail.last_line) + 1
                return _scan(self.path, data[rest:], offset=tail.last_start + rest,
                             seq=tail.seq, head=tail.head, last_start=tail.last_start,
                             keep=False)
        return _scan(self.path, _read_all(fd, 0, info.st_size), keep=False)

    def _remember(self, info: os.stat_result, *, size: int, seq: int, head: str,
                  last_start: int, last_line: bytes) -> None:
        tail = _Tail(device=info.st_dev, inode=info.st_ino, size=size, seq=seq, head=head,
                     last_start=last_start, last_line=last_line)
        with _TAILS_LOCK:
            _TAILS[str(self.path.resolve())] = tail

    def _write(self, fd: int, line: bytes) -> None:
        written = 0
        try:
            while written < len(line):
                written += os.write(fd, line[written:])
            os.fsync(fd)
        except OSError as exc:
            torn = (f" {written} of its {len(line)} bytes reached the file, which now ends in a "
                    "torn line that the next append will refuse" if written else "")
            raise JournalError(f"cannot append to {self.path}: {exc.strerror or exc}.{torn}",
                               path=self.path) from exc

    # Signed heads ----------------------------------------------------------------------------

    def _open_history(self) -> int:
        try:
            fd = os.open(self.history_path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
                         | os.O_NOFOLLOW | os.O_NONBLOCK, FILE_MODE)
        except OSError as exc:
            raise JournalError(f"cannot open {self.history_path}, the signed heads of "
                               f"{self.path.name}: {exc.strerror or exc} (a symlink there is "
                               "never followed)", path=self.path) from exc
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise JournalError(f"{self.history_path} is not a regular file", path=self.path)
        return fd

    def _history_before(self, seq: int, head: str) -> tuple[int, os.stat_result,
                                                            anchor.Note | None, Signer]:
        """Under the journal's lock, before an append: the history's end, checked against
        the journal as it stands (``seq``, ``head``). Refuses (JournalError) when the last
        signed head is not this journal's, or there is none for a journal with entries."""
        signer = self.signer()
        fd = self._open_history()
        try:
            info = os.fstat(fd)
            key = str(self.history_path.resolve())
            with _TAILS_LOCK:
                known = _HISTORIES.get(key)
            if known is not None and (known.device, known.inode, known.size) == (
                    info.st_dev, info.st_ino, info.st_size):
                note: anchor.Note | None = known.note
            else:
                start = max(0, info.st_size - anchor.TAIL_BYTES)
                note = anchor.last_note(_read_all(fd, start, info.st_size), self.history_path)
                if note is not None and note.signed_by([signer.verifier]) is None:
                    raise anchor.AnchorError(
                        f"{note.where}: the last signed head does not verify with the journal "
                        f"key {signer.verifier.vkey}: it was forged or altered, or the key was "
                        "changed")
        except anchor.AnchorError as exc:
            os.close(fd)
            raise JournalError(f"the signed heads of {self.path.name} cannot be trusted, so "
                               f"nothing was appended: {exc}. {self._advice()}",
                               path=self.path) from exc
        except BaseException:
            os.close(fd)
            raise
        problem = None
        if note is None and seq > 0:
            problem = (f"{self.path} is not anchored: its {seq:,} entries were written before "
                       "signed heads were kept, or its history was removed. Check it, then "
                       "run python -m dashboard access anchor")
        elif note is not None and note.anchor.entries > seq:
            problem = (f"{self.path} holds {seq:,} entries but a head was signed at entry "
                       f"{note.anchor.entries:,} ({note.anchor.signed_at}): entries were "
                       "removed at the end")
        elif note is not None and note.anchor.entries < seq:
            problem = (f"{self.path}: entries {note.anchor.entries + 1:,} to {seq:,} are after "
                       "the last signed head (added without a signature, or the newest heads "
                       "were removed). Check them, then run python -m dashboard access anchor")
        elif note is not None and note.anchor.head != head:
            problem = (f"entry {seq:,} of {self.path} is not the head signed at "
                       f"{note.anchor.signed_at}: the journal was rewritten")
        if problem is not None:
            os.close(fd)
            raise JournalError(f"{problem}; nothing was appended. {self._advice()}",
                               path=self.path)
        return fd, info, note, signer

    def _sign_head(self, history: tuple[int, os.stat_result, anchor.Note | None, Signer],
                   seq: int, head: str, at: str, *, first: str = "") -> None:
        """Append the signed note of the new head (``seq``, ``head``) to the history, and
        close the history's file. ``first``: the first entry's hash, for a journal's first
        note when that is not entry 1's own."""
        fd, info, last, signer = history
        try:
            ident = (last.anchor.journal_id if last is not None
                     else anchor.journal_id(first or head))
            made = anchor.Anchor(
                name=anchor.journal_name(self.path), journal_id=ident, entries=seq, head=head,
                signed_at=at, number=last.anchor.number + 1 if last else 1,
                prev=anchor.note_hash(last.text) if last else "-")
            text = anchor.sign(signer, made)
            data = text.encode("utf-8")
            written = 0
            try:
                while written < len(data):
                    written += os.write(fd, data[written:])
                os.fsync(fd)
            except OSError as exc:
                raise JournalError(
                    f"entry {seq:,} was written to {self.path} but its signed head could not "
                    f"be written to {self.history_path}: {exc.strerror or exc}. The next "
                    "append will refuse until python -m dashboard access anchor signs it",
                    path=self.path) from exc
            note = anchor.Note(anchor=made, text=text, signatures=(text.split("\n")[-2],),
                               where=f"{self.history_path} note {made.number}")
            with _TAILS_LOCK:
                _HISTORIES[str(self.history_path.resolve())] = _History(
                    device=info.st_dev, inode=info.st_ino, size=info.st_size + len(data),
                    note=note)
        finally:
            os.close(fd)

    def anchor_head(self) -> tuple[int, str] | None:
        """Sign the journal's current head when entries are after the last signed head (a
        journal written before signed heads were kept, or a process stopped between its
        line and its note); return the head signed, or None when it was signed already.
        Refuses (JournalError) a journal or a history that does not verify otherwise."""
        fd = self._open_for_append()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            scan = _scan(self.path, _read_all(fd, 0, os.fstat(fd).st_size))
            if scan.problem is not None:
                raise JournalError(f"the journal does not verify, so nothing was signed: "
                                   f"{scan.problem}. {self._advice()}", path=self.path)
            hashes = [e["hash"] for e in scan.entries]
            signer = self.signer()
            verdict = anchor.check(self.path, hashes, self._history_text(),
                                   [signer.verifier])
            if verdict.ok or not hashes:
                return None
            if verdict.tail == 0:
                raise JournalError(f"the signed heads do not match, so nothing was signed: "
                                   f"{verdict.problem}. {self._advice()}", path=self.path)
            hfd = self._open_history()
            try:
                hinfo = os.fstat(hfd)
                start = max(0, hinfo.st_size - anchor.TAIL_BYTES)
                last = anchor.last_note(_read_all(hfd, start, hinfo.st_size),
                                        self.history_path)
            except (anchor.AnchorError, OSError) as exc:
                os.close(hfd)
                raise JournalError(f"cannot read {self.history_path}: {exc}",
                                   path=self.path) from exc
            self._sign_head((hfd, hinfo, last, signer), scan.seq, scan.head, utc_now(),
                            first=hashes[0])
            return scan.seq, scan.head
        finally:
            os.close(fd)

    def _history_text(self) -> str:
        try:
            fd = os.open(self.history_path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW
                         | os.O_NONBLOCK)
        except FileNotFoundError:
            return ""
        except OSError as exc:
            raise JournalError(f"cannot read {self.history_path}: {exc.strerror or exc} (a "
                               "symlink there is never followed)", path=self.path) from exc
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise JournalError(f"{self.history_path} is not a regular file",
                                   path=self.path)
            raw = _read_all(fd, 0, info.st_size)
        finally:
            os.close(fd)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JournalError(f"{self.history_path} is not text", path=self.path) from exc

    def check_anchors(self, verifiers: list[Verifier], *, every: bool = False
                      ) -> anchor.Verdict:
        """Check the journal whole and its signed heads against it, with ``verifiers`` (the
        keys to trust: schemas/keyring.py ``choose("journal", ...)``). Both are read under
        the journal's shared lock, so an append in between is not mistaken for a cut.
        ``every``: check each note's signature, not only the last's."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return anchor.check(self.path, [], self._history_text(), verifiers, every=every)
        except OSError as exc:
            raise JournalError(f"cannot open {self.path}: {exc.strerror or exc}",
                               path=self.path) from exc
        try:
            self._check_regular(fd)
            fcntl.flock(fd, fcntl.LOCK_SH)
            data = _read_all(fd, 0, os.fstat(fd).st_size)
            text = self._history_text()
        finally:
            os.close(fd)
        scan = _scan(self.path, data)
        if scan.problem is not None:
            return anchor.Verdict(ok=False, anchored=True, notes=0, problem=scan.problem)
        return anchor.check(self.path, [e["hash"] for e in scan.entries], text, verifiers,
                            every=every)

    def _advice(self) -> str:
        return (f"Nothing repairs a journal silently: keep {self.path.name} as evidence, find "
                "out what happened to it, and restore it from a backup or move it aside "
                "before the dashboard writes to it again (python -m dashboard --help)")
