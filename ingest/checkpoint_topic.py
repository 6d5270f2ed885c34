"""Publish the log's signed checkpoints to a checkpoint topic, and read that topic back as
a whole history (docs/log-integrity.md).

A checkpoint on a topic kept forever is a witness outside the data directory: whoever
deletes the newest segments of the log and the checkpoints beside it cannot take back what
the topic holds. ``python -m ingest verify --against-topic`` reads the topic from its log
start offset to its end (:func:`read_history`) and checks every signed checkpoint of the
log's chains against the chain whose log id it carries, so that re-publishing an older
checkpoint hides nothing: the largest checkpoint ever published still stands, and a log
shorter than it is a rollback. Like a Certificate Transparency monitor (RFC 9162 section
8.3), verify keeps what a message proves and discards what it does not: a tombstone, bytes
that are not a checkpoint, a note signed by another key or with a bad signature, and a
message larger than any checkpoint are each named (``topic[partition]@offset``), counted
and skipped, so that no message placed on the topic can blind verify or make it fail. A
topic that can no longer be a witness is a failure (:meth:`History.problems`): deleted,
trimmed (its log start offset above 0) or compacted.

Publishing never stops or slows ingest: :meth:`CheckpointPublisher.publish` only queues the
text, and a thread of its own sends it. A checkpoint that cannot be delivered (the broker is
gone) is reported once per outage and counted; the same checkpoint is in its segment and
beside the log, and the next one delivered covers it. Ingest creates the topic with one
partition, ``retention.ms=-1`` and ``cleanup.policy=delete`` (``ingest.kafka_io
.ensure_topic``); an existing topic is not altered, and verify reports its settings.
"""

from __future__ import annotations

import contextlib
import enum
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import KafkaError

from ingest.kafka_io import TopicSettings, ensure_topic, producer
from ingest.topic_audit import (
    STALL_S,
    TopicAuditError,
    TopicState,
    read_to_end,
    topic_state,
    verify_consumer,
)
from schemas.checkpoint import MAX_NOTE, Checkpoint, CheckpointError, Verifier, open_signed

SUFFIX = "-checkpoints"
QUEUE = 1_000
"""Checkpoints waiting to be sent; beyond this the oldest waiting ones are dropped (each
checkpoint covers every record of the ones before it)."""


def checkpoint_topic(topic: str) -> str:
    """The checkpoint topic of an event topic."""
    return topic + SUFFIX


class CheckpointPublisher:
    """Sends each checkpoint to the checkpoint topic (one partition, kept forever) from a
    thread of its own."""

    def __init__(self, servers: str, topic: str,
                 say: Callable[[str], None] = lambda line: print(line, file=sys.stderr)) -> None:
        self.topic = checkpoint_topic(topic)
        self._servers = servers
        self._say = say
        self._queue: queue.Queue[str | None] = queue.Queue(maxsize=QUEUE)
        self._producer: KafkaProducer | None = None
        self.sent = 0
        self.failed = 0
        self.dropped = 0
        self._failing = False
        self._thread: threading.Thread | None = None

    def publish(self, text: str) -> None:
        """Queue a checkpoint; never blocks."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="checkpoint-publisher",
                                            daemon=True)
            self._thread.start()
        while True:
            try:
                self._queue.put_nowait(text)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                    self.dropped += 1
                except queue.Empty:
                    pass

    def _run(self) -> None:
        while True:
            text = self._queue.get()
            if text is None:
                return
            try:
                if self._producer is None:
                    ensure_topic(self._servers, self.topic, TopicSettings(partitions=1))
                    self._producer = producer(self._servers)
                self._producer.send(self.topic, value=text.encode(), partition=0).get(
                    timeout=30)
                self.sent += 1
                self._failing = False
            except Exception as exc:  # the broker is gone: the checkpoint waits on disk
                self.failed += 1
                if not self._failing:
                    self._failing = True
                    self._say(f"ingest: a checkpoint could not be published to {self.topic} "
                              f"({type(exc).__name__}); ingest goes on: every checkpoint is "
                              "also in the log and beside it")
                time.sleep(1.0)

    def close(self, timeout_s: float = 10.0) -> None:
        """Send what is queued (for at most ``timeout_s``), then stop."""
        if self._thread is not None:
            with contextlib.suppress(queue.Full):
                self._queue.put(None, timeout=timeout_s)
            self._thread.join(timeout_s)
            self._thread = None
        if self._producer is not None:
            with contextlib.suppress(KafkaError):
                self._producer.close(timeout=timeout_s)
            self._producer = None


def latest_checkpoints(servers: str, topic: str, last: int = 1,
                       timeout_s: float = 20.0) -> list[str]:
    """The last ``last`` checkpoints on the checkpoint topic of ``topic`` (none when the
    topic does not exist)."""
    name = checkpoint_topic(topic)
    kc: Any = KafkaConsumer(bootstrap_servers=servers, group_id=None, enable_auto_commit=False,
                            client_id="catwalk-verify")
    try:
        if not kc.partitions_for_topic(name):
            return []
        tp = TopicPartition(name, 0)
        kc.assign([tp])
        end = kc.end_offsets([tp])[tp]
        if end == 0:
            return []
        kc.seek(tp, max(0, end - last))
        out: list[str] = []
        deadline = time.monotonic() + timeout_s
        while kc.position(tp) < end and time.monotonic() < deadline:
            for batch in kc.poll(timeout_ms=500).values():
                out.extend(m.value.decode("utf-8", "replace") for m in batch
                           if m.value is not None)
        return out
    finally:
        kc.close()


MAX_MESSAGE = MAX_NOTE
"""The largest message that can be a checkpoint (bytes); a larger one is skipped unread."""
NAMED = 20
"""How many skipped messages a history names one by one (all are counted)."""


class Skip(enum.Enum):
    """Why a message of the checkpoint topic proves nothing, and is skipped."""

    TOMBSTONE = "tombstone (no value)"
    OVERSIZED = "oversized"
    NOT_TEXT = "not UTF-8 text"
    NOT_A_CHECKPOINT = "not a checkpoint"
    ANOTHER_KEY = "signed by another key"
    BAD_SIGNATURE = "bad signature"


@dataclass(frozen=True, slots=True, kw_only=True)
class Skipped:
    """One skipped message: where it is, why, and what was wrong with it."""

    where: str
    """``topic[partition]@offset``."""
    kind: Skip
    detail: str = ""

    def line(self) -> str:
        return f"{self.where}: {self.kind.value}" + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True, slots=True, kw_only=True)
class Witnessed:
    """A signed checkpoint read from the topic (its first copy): where, its text, and the
    log id and size it states (all that is kept of it, to keep a long history small)."""

    where: str
    text: str
    log_id: str
    size: int


@dataclass(frozen=True, slots=True, kw_only=True)
class History:
    """What the checkpoint topic holds, read whole (:func:`read_history`)."""

    state: TopicState
    read: int
    """Messages read, from each partition's log start offset to its end."""
    signed: int
    """Messages that are checkpoints signed by the key (copies of one counted each)."""
    witnessed: tuple[Witnessed, ...]
    """The distinct signed checkpoints (one per log id, size and root), the largest first."""
    skipped: Mapping[Skip, int] = field(default_factory=dict)
    named: tuple[Skipped, ...] = ()
    """The first :data:`NAMED` skipped messages."""

    @property
    def checkpoints(self) -> list[tuple[str, str]]:
        """(name, text) of every distinct signed checkpoint, the largest first: what
        ``schemas.log_verify.verify_data`` checks against the chain of its log id. A name is
        the message's ``topic[partition]@offset``."""
        return [(w.where, w.text) for w in self.witnessed]

    def largest(self) -> dict[str, Witnessed]:
        """log id -> the largest signed checkpoint of it on the topic."""
        out: dict[str, Witnessed] = {}
        for w in self.witnessed:
            out.setdefault(w.log_id, w)
        return out

    def problems(self, chains: Sequence[tuple[str, Checkpoint]]) -> list[str]:
        """What makes the topic no witness of the log whose ``chains`` are given as (label,
        the chain's last signed checkpoint), one line each: the topic deleted while the log
        has checkpoints, trimmed (a log start offset above 0), compacted, or holding no
        checkpoint of a chain that has one (deleted and recreated)."""
        topic = self.state.topic
        if not self.state.exists:
            if not chains:
                return []
            return [f"the checkpoint topic {topic} does not exist, but the log has signed "
                    f"checkpoints ({chains[0][0]}: {chains[0][1].size:,} records signed at "
                    f"{chains[0][1].signed_at}): the topic was deleted"]
        out = []
        for p, start in sorted(self.state.starts.items()):
            if start > 0:
                out.append(f"the checkpoint topic {topic}[{p}] starts at offset {start:,}: the "
                           f"{start:,} checkpoints before it were deleted (DeleteRecords, or "
                           "retention): the topic no longer holds the log's history")
        if self.state.compacted:
            out.append(f"the checkpoint topic {topic} is compacted (cleanup.policy="
                       f"{self.state.config.get('cleanup.policy')}): compaction deletes "
                       "checkpoints, so the topic no longer holds the log's history")
        held = self.largest()
        for label, cp in chains:
            if cp.log_id not in held:
                out.append(f"the checkpoint topic {topic} holds no checkpoint of {label} "
                           f"(log {cp.log_id}, {cp.size:,} records signed at {cp.signed_at}): "
                           "the topic was deleted and recreated, or ingest has not published "
                           "yet (verify again once it has)")
        return out

    def summary(self) -> str:
        """``N messages read, M signed checkpoints matched, K skipped (why)``."""
        why = ", ".join(f"{n:,} {kind.value}" for kind, n in self.skipped.items())
        skipped = sum(self.skipped.values())
        return (f"{self.read:,} messages read, {self.signed:,} signed checkpoints matched, "
                f"{skipped:,} skipped" + (f" ({why})" if why else ""))


def _judge(where: str, value: bytes | None,
           verifier: Verifier) -> tuple[Witnessed, bytes] | Skipped:
    """A message's value as a signed checkpoint of ``verifier``'s (and its root), or why it
    is not one."""
    if value is None:
        return Skipped(where=where, kind=Skip.TOMBSTONE)
    if len(value) > MAX_MESSAGE:
        return Skipped(where=where, kind=Skip.OVERSIZED,
                       detail=f"{len(value):,} bytes; a checkpoint is at most {MAX_MESSAGE:,}")
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Skipped(where=where, kind=Skip.NOT_TEXT, detail=str(exc)[:120])
    try:
        cp = open_signed(text, verifier)
    except CheckpointError as exc:
        words = str(exc)
        kind = (Skip.BAD_SIGNATURE if words.startswith("bad signature") else
                Skip.ANOTHER_KEY if words.startswith("the checkpoint is not signed by") else
                Skip.NOT_A_CHECKPOINT)
        return Skipped(where=where, kind=kind, detail=words[:200])
    return Witnessed(where=where, text=text, log_id=sys.intern(cp.log_id), size=cp.size), cp.root


def history_of(state: TopicState, messages: Iterable[tuple[str, bytes | None]],
               verifier: Verifier) -> History:
    """The history of a checkpoint topic from its messages, (``topic[partition]@offset``,
    value) in order, judged one at a time (the broker-free half of :func:`read_history`):
    only the distinct signed checkpoints are kept (one per log id, size and root, the first
    copy), so copies of one, and messages that prove nothing, cost no memory. Only the
    holder of the signing key can add to what is kept, as many as the log has segments."""
    kept: dict[tuple[str, int, bytes], Witnessed] = {}
    skipped: dict[Skip, int] = {}
    named: list[Skipped] = []
    read = signed = 0
    for where, value in messages:
        read += 1
        judged = _judge(where, value, verifier)
        if isinstance(judged, Skipped):
            skipped[judged.kind] = skipped.get(judged.kind, 0) + 1
            if len(named) < NAMED:
                named.append(judged)
            continue
        signed += 1
        witnessed, root = judged
        kept.setdefault((witnessed.log_id, witnessed.size, root), witnessed)
    ordered = tuple(sorted(kept.values(), key=lambda w: -w.size))
    order = list(Skip)
    return History(state=state, read=read, signed=signed, witnessed=ordered,
                   skipped=dict(sorted(skipped.items(), key=lambda kv: order.index(kv[0]))),
                   named=tuple(named))


def read_history(servers: str, topic: str, verifier: Verifier, *,
                 stall_s: float = STALL_S) -> History:
    """Read the checkpoint topic of ``topic`` whole, streaming, from each partition's log
    start offset to the end offset it had when reading began (:func:`history_of`).
    TopicAuditError when the topic cannot be read (the broker is unreachable, or a read
    makes no progress for ``stall_s``)."""
    name = checkpoint_topic(topic)
    state = topic_state(servers, name)
    if not state.exists:
        return History(state=state, read=0, signed=0, witnessed=())
    kc = verify_consumer(servers)
    try:
        return history_of(state, ((f"{m.topic}[{m.partition}]@{m.offset}", m.value)
                                  for m in read_to_end(kc, state, stall_s=stall_s)), verifier)
    except KafkaError as exc:
        raise TopicAuditError(f"reading the checkpoint topic {name}: {exc!r}") from exc
    finally:
        kc.close()
