"""Why a message cannot enter the log: the broker-free seam of ingest, and a helper process
that judges one batch while ingest writes the one before.

``judge`` says it of one message; ``judge_all`` of many, the bodies decoded a block at a
time (replay/batch_decode.py: the same events and the same errors as ``decode``, at the
speed of an Avro container file). :class:`Judges` runs ``judge_keyed`` in a second process,
so that on two cores the decoding of batch k+1 overlaps the hashing, signing and writing of
batch k (bench/ingest_vs_bare.py); the words are the same, as it is the same function. If
the helper cannot be started or dies, batches are judged in this process and ingest says so
once.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Protocol

from ingest.event_index import key_of
from replay.batch_decode import decode_entries
from schemas import DecodeError, RoundEvent, decode

TOMBSTONE = "empty message (tombstone): no event"
HELPER_TIMEOUT_S = 120.0
"""A helper that does not answer a batch within this is given up (the batch is judged here)."""
INLINE_BELOW = 200
"""Batches smaller than this are judged in this process (a trickle of live events gains
nothing from a round trip to the helper)."""


class Message(Protocol):
    @property
    def key(self) -> bytes | None: ...
    @property
    def value(self) -> bytes | None: ...


def _key_problem(key: bytes | None, event: RoundEvent) -> str | None:
    if key is not None and key != event.table_id.encode():
        return (
            f"key {key!r} does not match table_id {event.table_id!r} "
            f"(events of a table must share its partition to stay in order)"
        )
    return None


def judge_one(key: bytes | None, value: bytes | None) -> str | None:
    """Why the message (key, value) cannot enter the log, or None."""
    if value is None:
        return TOMBSTONE
    try:
        event = decode(value)
    except DecodeError as exc:
        return str(exc)
    except Exception as exc:  # untrusted bytes: no decoder surprise may stop ingest
        return f"undecodable payload ({type(exc).__name__}: {exc})"
    return _key_problem(key, event)


def judge(message: Message) -> str | None:
    """The broker-free seam: why this message cannot enter the log, or None."""
    return judge_one(message.key, message.value)


Verdict = tuple[str | None, bytes | None]
"""Why a message cannot enter the log (None: it can), and the index key of its event id
(ingest/event_index.py ``event_key``; None when the message is refused, or when the key was
not worked out here and the writer works it out itself)."""


def judge_keyed(pairs: Sequence[tuple[bytes | None, bytes | None]]) -> list[Verdict]:
    """:func:`judge_one` of every (key, value), the bodies decoded a block at a time, each
    with its event's index key (``key_of`` of the event id the decoder read: what
    ``event_key`` finds in the bytes, worked out where the body is decoded anyway, so that
    the writer does not read the bytes again). Should the batch decoder itself fail, each
    message is judged alone, without its key."""
    verdicts: list[Verdict] = [(None, None)] * len(pairs)
    entries = []
    for i, (key, value) in enumerate(pairs):
        if value is None:
            verdicts[i] = (TOMBSTONE, None)
        else:
            entries.append((i, "", key, value, 0))  # no broker time is judged here
    try:
        decoded = list(decode_entries(entries))
    except Exception:  # a decoder surprise: the slow path says what each message is
        return [(judge_one(k, v), None) for k, v in pairs]
    for (i, _, key, _, _), got in decoded:
        if isinstance(got, DecodeError):
            verdicts[i] = (str(got), None)
        else:
            why = _key_problem(key, got)
            verdicts[i] = (why, None if why is not None else key_of(got.event_id))
    return verdicts


def judge_pairs(pairs: Sequence[tuple[bytes | None, bytes | None]]) -> list[str | None]:
    """:func:`judge_one` of every (key, value) (the reasons of :func:`judge_keyed`)."""
    return [why for why, _ in judge_keyed(pairs)]


def judge_all(messages: Sequence[Message]) -> list[str | None]:
    """:func:`judge` of every message (see :func:`judge_pairs`)."""
    return judge_pairs([(m.key, m.value) for m in messages])


def _serve(conn: Connection) -> None:
    """The helper: judge each batch it is sent until ingest closes the pipe (or dies)."""
    while True:
        try:
            pairs = conn.recv()
        except (EOFError, OSError):
            return
        if pairs is None:
            return
        try:
            conn.send(judge_keyed(pairs))
        except (OSError, EOFError):  # ingest is gone (killed): so is its helper
            return


class Ticket:
    """A batch handed to the judges; :meth:`verdicts` waits for them."""

    def __init__(self, judges: Judges, pairs: list[tuple[bytes | None, bytes | None]],
                 verdicts: list[Verdict] | None) -> None:
        self._judges, self._pairs, self._verdicts = judges, pairs, verdicts

    def verdicts(self) -> list[Verdict]:
        if self._verdicts is None:
            self._verdicts = self._judges._receive(self._pairs)
        return self._verdicts

    def reasons(self) -> list[str | None]:
        return [why for why, _ in self.verdicts()]


class Judges:
    """Judging one batch ahead in a helper process (one batch in flight at a time)."""

    def __init__(self, say: object = None) -> None:
        self._say = say if callable(say) else (lambda line: print(line, file=sys.stderr))
        self._conn: Connection | None = None
        self._proc: multiprocessing.process.BaseProcess | None = None
        self._failed = False
        self._in_flight = False

    def _start(self) -> Connection | None:
        if self._failed:
            return None
        if self._conn is None:
            try:
                ctx = multiprocessing.get_context("spawn")
                parent, child = ctx.Pipe()
                proc = ctx.Process(target=_serve, args=(child,), name="ingest-judge",
                                   daemon=True)
                proc.start()
                child.close()
            except Exception as exc:  # no helper: judge here
                self._give_up(exc)
                return None
            self._conn, self._proc = parent, proc
        return self._conn

    def _give_up(self, exc: BaseException) -> None:
        self._failed = True
        self._say(f"ingest: the judging helper process is not available ({type(exc).__name__}: "
                  f"{exc}); messages are judged in this process (slower, same verdicts)")
        self.close()

    def submit(self, pairs: list[tuple[bytes | None, bytes | None]]) -> Ticket:
        """Hand a batch over; judged here at once when small or when there is no helper."""
        if self._in_flight:
            raise RuntimeError("one batch at a time: take the reasons of the last one first")
        if len(pairs) < INLINE_BELOW or (conn := self._start()) is None:
            return Ticket(self, pairs, judge_keyed(pairs))
        try:
            conn.send(pairs)
        except (OSError, EOFError, ValueError) as exc:
            self._give_up(exc)
            return Ticket(self, pairs, judge_keyed(pairs))
        self._in_flight = True
        return Ticket(self, pairs, None)

    def _receive(self, pairs: list[tuple[bytes | None, bytes | None]]) -> list[Verdict]:
        self._in_flight = False
        try:
            assert self._conn is not None
            if not self._conn.poll(HELPER_TIMEOUT_S):
                raise TimeoutError(f"no answer in {HELPER_TIMEOUT_S:.0f} s")
            verdicts = self._conn.recv()
        except (OSError, EOFError, AssertionError) as exc:
            self._give_up(exc)
            return judge_keyed(pairs)
        if not isinstance(verdicts, list) or len(verdicts) != len(pairs):
            self._give_up(ValueError("the helper answered something else"))
            return judge_keyed(pairs)
        return verdicts

    def close(self) -> None:
        conn, proc = self._conn, self._proc
        self._conn = self._proc = None
        if conn is not None:
            with contextlib.suppress(OSError, EOFError, ValueError):
                conn.send(None)
            conn.close()
        if proc is not None:
            proc.join(5)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)

