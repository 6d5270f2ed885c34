"""Publish the log's signed checkpoints to a checkpoint topic (docs/log-integrity.md).

A checkpoint on a topic kept forever is a witness outside the data directory: whoever
deletes the newest segments of the log and the checkpoints beside it cannot take back what
the topic holds, and ``python -m ingest verify --against-topic`` checks the log against the
last checkpoint there. Publishing never stops ingest: a checkpoint that cannot be delivered
is reported (the same checkpoint is in the segment and beside the log, and the next one
covers it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import KafkaError

from ingest.kafka_io import TopicSettings, ensure_topic, producer

SUFFIX = "-checkpoints"


def checkpoint_topic(topic: str) -> str:
    """The checkpoint topic of an event topic."""
    return topic + SUFFIX


class CheckpointPublisher:
    """Sends each checkpoint to the checkpoint topic (one partition, kept forever)."""

    def __init__(self, servers: str, topic: str,
                 say: Callable[[str], None] = lambda line: print(line, file=sys.stderr)) -> None:
        self.topic = checkpoint_topic(topic)
        self._servers = servers
        self._say = say
        self._producer: KafkaProducer | None = None
        self.sent = 0
        self.failed = 0
        self._first_error: str | None = None

    def _ready(self) -> KafkaProducer:
        if self._producer is None:
            ensure_topic(self._servers, self.topic, TopicSettings(partitions=1))
            self._producer = producer(self._servers)
        return self._producer

    def _failed(self, exc: BaseException) -> None:
        self.failed += 1
        if self._first_error is None:
            self._first_error = repr(exc)
            self._say(f"ingest: a checkpoint could not be published to {self.topic} ({exc!r}); "
                      "ingest goes on: the checkpoints are also in the log and beside it")

    def publish(self, text: str) -> None:
        try:
            future = self._ready().send(self.topic, value=text.encode(), partition=0)
            future.add_errback(self._failed)
            self.sent += 1
        except KafkaError as exc:
            self._failed(exc)

    def close(self, timeout_s: float = 10.0) -> None:
        if self._producer is not None:
            try:
                self._producer.flush(timeout=timeout_s)
            except KafkaError as exc:
                self._failed(exc)
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
        import time

        deadline = time.monotonic() + timeout_s
        while kc.position(tp) < end and time.monotonic() < deadline:
            for batch in kc.poll(timeout_ms=500).values():
                out.extend(m.value.decode("utf-8", "replace") for m in batch
                           if m.value is not None)
        return out
    finally:
        kc.close()
