"""Consume round events from Kafka into the append-only log (see ingest/log.py).

Every message ends in the log exactly once or in quarantine with its reason: the batch is
fsynced before offsets are committed, and on (re)assignment the consumer seeks to the
offsets the log itself records, so neither a crash nor a rebalance repeats or skips one.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer, OffsetAndMetadata, TopicPartition
from kafka.errors import KafkaError

from ingest.log import LogWriter, Quarantined, Received
from schemas import DecodeError, decode


def judge(message: Received) -> str | None:
    """The broker-free seam: why this message cannot enter the log, or None."""
    if message.value is None:
        return "empty message (tombstone): no event"
    try:
        event = decode(message.value)
    except DecodeError as exc:
        return str(exc)
    except Exception as exc:  # untrusted bytes: no decoder surprise may stop ingest
        return f"undecodable payload ({type(exc).__name__}: {exc})"
    if message.key is not None and message.key != event.table_id.encode():
        return (
            f"key {message.key!r} does not match table_id {event.table_id!r} "
            f"(events of a table must share its partition to stay in order)"
        )
    return None


@dataclass(kw_only=True)
class IngestStats:
    appended: int = 0
    quarantined: int = 0
    batches: int = 0
    kafka_errors: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


class _ResumeFromLog(ConsumerRebalanceListener):  # type: ignore[misc]
    """On assignment, continue from the offsets the log holds (the log is the truth)."""

    def __init__(self, consumer: KafkaConsumer, log: LogWriter) -> None:
        self.consumer, self.log = consumer, log

    def on_partitions_revoked(self, revoked: Any) -> None:
        return None

    def on_partitions_assigned(self, assigned: Any) -> None:
        for tp in assigned:
            nxt = self.log.next_offset(tp.topic, tp.partition)
            if nxt is None:
                self.consumer.seek_to_beginning(tp)
            else:
                self.consumer.seek(tp, nxt)


def run(
    *,
    consumer: KafkaConsumer,
    topic: str,
    log: LogWriter,
    until_idle: float | None,
    progress: Callable[[IngestStats, bool], None],
    poll_ms: int = 500,
) -> IngestStats:
    """Poll, judge, append, fsync, commit, until stopped (SIGTERM/SIGINT) or idle and caught up."""
    stats = IngestStats()
    stopping = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    consumer.subscribe([topic], listener=_ResumeFromLog(consumer, log))
    last_data = time.monotonic()
    last_report = 0.0
    reported_batches = 0
    backoff = 0.5
    try:
        while not stopping:
            try:
                polled = consumer.poll(timeout_ms=poll_ms)
            except KafkaError as exc:
                stats.kafka_errors += 1
                print(
                    f"ingest: Kafka error {exc!r}; retrying in {backoff:.1f} s "
                    "(check the broker with `make kafka-status`)",
                    file=sys.stderr,
                )
                time.sleep(backoff)
                backoff = min(backoff * 2, 10.0)
                continue
            backoff = 0.5
            messages = sorted(
                (m for batch in polled.values() for m in batch),
                key=lambda m: (m.topic, m.partition, m.offset),
            )
            accepted: list[Received] = []
            quarantined: list[Quarantined] = []
            commit: dict[TopicPartition, OffsetAndMetadata] = {}
            for m in messages:
                expected = log.next_offset(m.topic, m.partition)
                if expected is not None and m.offset < expected:
                    continue  # already in the log: a redelivery after a rebalance
                received = Received(
                    topic=m.topic, partition=m.partition, offset=m.offset,
                    timestamp_ms=m.timestamp, key=m.key, value=m.value,
                )
                reason = judge(received)
                if reason is None:
                    accepted.append(received)
                else:
                    quarantined.append(Quarantined(message=received, reason=reason))
                    kind = reason.split(":")[0]
                    stats.reasons[kind] = stats.reasons.get(kind, 0) + 1
                    print(f"ingest: quarantined {received.coordinates}: {reason}", file=sys.stderr)
                commit[TopicPartition(m.topic, m.partition)] = OffsetAndMetadata(
                    m.offset + 1, "", -1
                )
            if accepted or quarantined:
                log.append(accepted, quarantined)
                stats.appended += len(accepted)
                stats.quarantined += len(quarantined)
                stats.batches += 1
                try:
                    consumer.commit(commit)
                except KafkaError as exc:
                    # Harmless for correctness: the log records its offsets and resumes from them.
                    print(f"ingest: offset commit failed ({exc!r}); the log holds the offsets",
                          file=sys.stderr)
                last_data = time.monotonic()
            now = time.monotonic()
            if now - last_report >= 2.0 and stats.batches != reported_batches:
                progress(stats, False)
                last_report, reported_batches = now, stats.batches
            if until_idle is not None and now - last_data >= until_idle and _caught_up(consumer):
                break
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        progress(stats, True)
    return stats


def _caught_up(consumer: KafkaConsumer) -> bool:
    assigned = consumer.assignment()
    if not assigned:
        return False
    try:
        ends = consumer.end_offsets(list(assigned))
        return all(consumer.position(tp) >= ends[tp] for tp in assigned)
    except KafkaError:
        return False


def open_log(data_dir: Path) -> LogWriter:
    return LogWriter(data_dir / "log", data_dir / "quarantine")
