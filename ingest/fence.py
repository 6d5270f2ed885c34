"""Fencing tokens for the partitions of a data directory (docs/log-integrity.md, "Several
workers").

A consumer group hands a partition to another worker when the one that held it misses its
session (a long GC pause, a frozen VM, SIGSTOP). The old owner does not know yet: when it
runs again it would append the batch it had polled, and the message would be in two chains.
A fencing token closes that gap (Kleppmann, *Designing Data-Intensive Applications*, 8.4
"Fencing tokens"; the same idea as Kafka's own producer epochs, KIP-98):

- every partition has an **epoch**, a number kept in ``<data>/fences/<topic>-<partition>``
  with the name of the worker that raised it last;
- a worker the group assigns a partition to **raises** its epoch (``epoch + 1``, its name)
  before it reads where the other chains stopped, so nothing an older owner writes after
  that point can be missed;
- before every append the worker takes the lock of each partition of its batch, checks the
  file still holds its own epoch, and keeps the lock until the segment is written and
  fsynced. A partition whose epoch moved on is **fenced**: its messages are dropped from
  the batch (neither written nor committed), and the worker says so.

The epoch a segment was written under is signed in its checkpoint (``catwalk-epochs``), so
``verify`` can show that, per partition, the epochs never go back as offsets grow.

Each file is opened without following a symbolic link (``O_NOFOLLOW``), must be a regular
file, and is locked with ``flock``; every wait for a lock is bounded (:data:`WAIT_S`) and a
wait that runs out is said, never hidden.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import json
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

WAIT_S = 2.0
"""The longest a worker waits for one partition's lock (another worker appends while
holding it: a few milliseconds, unless that worker is stopped in the middle)."""
_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")


class FenceError(Exception):
    """A fence file that cannot be used (not a regular file, unreadable, not a fence); the
    message names the file."""


class FenceBusy(FenceError):
    """A partition's lock not had in time: another worker holds it (a wait, not a fault)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Fenced:
    """Why a worker may not write a partition now."""

    why: str
    taken: bool
    """Another worker holds the partition now (else its lock was not had in time: a wait,
    not a loss)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Epoch:
    """What a partition's fence file says: its epoch and who raised it."""

    epoch: int
    worker: str

    def __post_init__(self) -> None:
        if type(self.epoch) is not int or self.epoch < 0:
            raise ValueError(f"an epoch is a count (0 or more), got {self.epoch!r}")


def fence_path(data_dir: Path, topic: str, partition: int) -> Path:
    """``<data>/fences/<topic>-<partition>`` (a Kafka topic name is letters, digits, ``.``,
    ``_`` and ``-``, so the last ``-`` separates the partition)."""
    if not _TOPIC.fullmatch(topic) or topic in {".", ".."}:
        raise ValueError(f"not a Kafka topic name: {topic!r}")
    if type(partition) is not int or partition < 0:
        raise ValueError(f"not a partition number: {partition!r}")
    return data_dir / "fences" / f"{topic}-{partition}"


class Fences:
    """The fence files of ``data_dir`` as worker ``worker`` holds them: the epoch it raised
    for each partition assigned to it (``topic[partition]`` -> epoch).

    ``say`` is told of every wait longer than a moment, and of what a wait that ran out
    means."""

    def __init__(self, data_dir: Path, worker: str, *, wait_s: float = WAIT_S,
                 say: Callable[[str], None] | None = None) -> None:
        self.data_dir, self.worker, self.wait_s = data_dir, worker, wait_s
        self.say = say or (lambda line: None)
        self.held: dict[tuple[str, int], int] = {}
        self._fds: dict[tuple[str, int], int] = {}

    def raise_epoch(self, topic: str, partition: int, wait_s: float | None = None) -> int:
        """Take the partition: its epoch + 1, written with this worker's name and fsynced
        under the partition's lock. Returns the new epoch. FenceBusy when the lock is not
        had within ``wait_s`` (default :attr:`wait_s`: another worker is stopped while
        appending to it), FenceError when the file cannot be used."""
        where = (topic, partition)
        fd = self._fd(topic, partition)
        with self._locked(fd, topic, partition, wait_s):
            now = _read(fd, self._path(topic, partition))
            mine = Epoch(epoch=now.epoch + 1, worker=self.worker)
            _write(fd, mine)
        self.held[where] = mine.epoch
        return mine.epoch

    def give_up(self, topic: str, partition: int) -> None:
        """Forget a partition the group took away (its file stays: the next owner raises
        it)."""
        self.held.pop((topic, partition), None)

    @contextmanager
    def hold(self, partitions: Iterable[tuple[str, int]]
             ) -> Iterator[tuple[dict[str, int], dict[tuple[str, int], Fenced]]]:
        """Lock ``partitions`` (sorted, so two workers never wait on each other in a cycle)
        and yield ``(epochs, fenced)``: ``topic[partition]`` -> the epoch this worker still
        holds, for each it may write now; and each partition it may not, with why (its
        epoch moved on, it never raised one, or its lock was not had in time). The locks
        are held until the block ends: append inside it."""
        epochs: dict[str, int] = {}
        fenced: dict[tuple[str, int], Fenced] = {}
        locked: list[int] = []
        try:
            for topic, partition in sorted(set(partitions)):
                mine = self.held.get((topic, partition))
                if mine is None:
                    fenced[(topic, partition)] = Fenced(
                        why="this worker holds no epoch for it", taken=True)
                    continue
                fd = self._fd(topic, partition)
                if not self._lock(fd, topic, partition):
                    fenced[(topic, partition)] = Fenced(
                        why=f"its lock ({self._path(topic, partition)}) was not had within "
                        f"{self.wait_s:.1f} s", taken=False)
                    continue
                locked.append(fd)
                now = _read(fd, self._path(topic, partition))
                if now.epoch != mine or now.worker != self.worker:
                    fenced[(topic, partition)] = Fenced(
                        why=f"its epoch is {now.epoch} (raised by {now.worker}), this "
                        f"worker holds {mine}: the group gave it to another worker",
                        taken=True)
                    self.held.pop((topic, partition), None)
                    continue
                epochs[f"{topic}[{partition}]"] = mine
            yield epochs, fenced
        finally:
            for fd in locked:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        self.held.clear()

    def _path(self, topic: str, partition: int) -> Path:
        return fence_path(self.data_dir, topic, partition)

    def _fd(self, topic: str, partition: int) -> int:
        """The partition's fence file, opened once (created empty: epoch 0), never through
        a symbolic link, and only if it is a regular file."""
        where = (topic, partition)
        fd = self._fds.get(where)
        if fd is not None:
            return fd
        path = self._path(topic, partition)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                         | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            why = ("it is a symbolic link" if exc.errno == errno.ELOOP else
                   exc.strerror or str(exc))
            raise FenceError(f"fence file {path} cannot be opened: {why}; fencing needs a "
                             "regular file there") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise FenceError(f"fence file {path} is not a regular file; fencing needs one")
        self._fds[where] = fd
        return fd

    def _lock(self, fd: int, topic: str, partition: int, wait_s: float | None = None) -> bool:
        """The partition's exclusive lock within ``wait_s`` (default :attr:`wait_s`: True),
        or not (False, said)."""
        wait_s = self.wait_s if wait_s is None else wait_s
        deadline = time.monotonic() + wait_s
        pause = 0.001
        said = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                pass
            left = deadline - time.monotonic()
            if left <= 0:
                self.say(f"ingest: {topic}[{partition}]: its fence lock was not had within "
                         f"{wait_s:.1f} s ({self._path(topic, partition)}): another "
                         "worker holds it (stopped while appending?)")
                return False
            if not said and pause >= 0.1:
                said = True
                self.say(f"ingest: {topic}[{partition}]: waiting for its fence lock "
                         f"(another worker is appending to it), at most {wait_s:.1f} s")
            time.sleep(min(pause, left))
            pause = min(pause * 2, 0.2)

    @contextmanager
    def _locked(self, fd: int, topic: str, partition: int,
                wait_s: float | None) -> Iterator[None]:
        if not self._lock(fd, topic, partition, wait_s):
            raise FenceBusy(f"{topic}[{partition}]: its fence lock "
                            f"({self._path(topic, partition)}) was not had within "
                            f"{self.wait_s if wait_s is None else wait_s:.1f} s")
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)


def _read(fd: int, path: Path) -> Epoch:
    """The epoch in a fence file (an empty file: epoch 0, no one)."""
    try:
        raw = os.pread(fd, 4096, 0)
    except OSError as exc:
        raise FenceError(f"fence file {path} cannot be read: {exc.strerror}") from None
    if not raw.strip():
        return Epoch(epoch=0, worker="")
    try:
        got = json.loads(raw)
        return Epoch(epoch=got["epoch"], worker=str(got["worker"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise FenceError(f"fence file {path} is not a fence ({exc}): expected "
                         '{"epoch": N, "worker": NAME, ...}') from None


def _write(fd: int, epoch: Epoch) -> None:
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    data = (json.dumps({"epoch": epoch.epoch, "worker": epoch.worker, "raised_at": now},
                       sort_keys=True) + "\n").encode()
    os.pwrite(fd, data, 0)
    os.ftruncate(fd, len(data))
    os.fsync(fd)


LONE = "-"
"""The name the lone ingest (no ``--worker``) raises epochs under."""


def fences_for(log_dir: Path, *, say: Callable[[str], None] | None = None) -> Fences:
    """The fences of the data directory a chain's log directory belongs to, held under the
    chain's worker name: ``<data>/log/workers/NAME`` is worker NAME of ``<data>``, any
    other ``<data>/log`` the lone ingest (:data:`LONE`) of ``<data>``."""
    if log_dir.parent.name == "workers" and log_dir.parent.parent.name == "log":
        return Fences(log_dir.parent.parent.parent, log_dir.name, say=say)
    return Fences(log_dir.parent, LONE, say=say)
