"""Publish the log's signed checkpoints to a checkpoint topic (docs/log-integrity.md).

A checkpoint on a topic kept forever is a witness outside the data directory: whoever
deletes the newest segments of the log and the checkpoints beside it cannot take back what
the topic holds, and ``python -m ingest verify --against-topic`` checks the log against the
last checkpoint there.

Publishing never stops or slows ingest: :meth:`CheckpointPublisher.publish` only queues the
text, and a thread of its own sends it. A checkpoint that cannot be delivered (the broker is
gone) is reported once per outage and counted; the same checkpoint is in its segment and
beside the log, and the next one delivered covers it.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import KafkaError

from ingest.kafka_io import TopicSettings, ensure_topic, producer

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
