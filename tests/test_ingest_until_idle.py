"""``python -m ingest --until-idle`` stops only when every partition of the topic is read to
its end (ingest/consume.py ``run`` and ``_caught_up``).

Two ways it used to stop early, each leaving events in Kafka that no log held:

- the group handed this consumer a partition after the last probe found everything read,
  and the poll that did it returned nothing (the new partition is paused until checked):
  the stale "caught up" stopped ingest with the partition unread. Tested here without a
  broker: a stand-in consumer and clock make that poll happen exactly when ingest is idle;
- a worker that stopped stays in the group (a static member, KIP-345) and keeps its
  partitions until its session times out, so a worker restarted alone with --until-idle
  was assigned only its own partitions, read them, and stopped. Tested against the real
  broker in tests/test_ingest_until_idle_kafka.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from kafka import TopicPartition

from ingest import consume
from ingest.consume import IngestStats, open_log, run
from schemas.logformat import chain_of, read_log
from tests.drill_support import drill_messages

TOPIC = "until-idle"
P0, P1 = TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1)
POLL_S = 0.5
UNTIL_IDLE_S = 3.0
MAX_POLLS = 400


class _Clock:
    """``time`` for ingest.consume: a poll advances it; nothing waits for real."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class _Record:
    topic: str
    partition: int
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]] = field(default_factory=list)
    """kafka-python's ConsumerRecord carries the message's headers (none here)."""


@dataclass
class _Consumer:
    """Just what ``run`` asks of a KafkaConsumer. Partition 0 holds three events from the
    start; partition 1 is empty and not assigned until the poll that finds ingest idle,
    which assigns it (incrementally, as the cooperative protocol does), while three events
    arrive in it, and returns nothing."""

    clock: _Clock
    records: dict[TopicPartition, list[_Record]]
    config: dict[str, Any] = field(default_factory=lambda: {
        "group_id": "g", "session_timeout_ms": 10_000, "bootstrap_servers": "stand-in:9"})
    assigned: set[TopicPartition] = field(default_factory=set)
    positions: dict[TopicPartition, int] = field(default_factory=dict)
    paused_: set[TopicPartition] = field(default_factory=set)
    listener: Any = None
    later: list[_Record] = field(default_factory=list)
    last_delivery: float | None = None
    polls: int = 0
    rebalanced_at_poll: int | None = None

    def subscribe(self, topics: list[str], listener: Any) -> None:
        self.listener = listener

    def poll(self, timeout_ms: int) -> dict[TopicPartition, list[_Record]]:
        self.polls += 1
        assert self.polls < MAX_POLLS, "ingest did not stop"
        self.clock.now += timeout_ms / 1000
        if not self.assigned:
            self.assigned.add(P0)
            self.listener.on_partitions_assigned([P0])
            return {}
        if (self.rebalanced_at_poll is None and self.last_delivery is not None
                and self.clock.now - self.last_delivery >= UNTIL_IDLE_S):
            self.rebalanced_at_poll = self.polls
            self.records[P1].extend(self.later)
            self.assigned.add(P1)
            self.listener.on_partitions_assigned([P1])
            return {}
        out = {}
        for tp in sorted(self.assigned - self.paused_):
            batch = self.records[tp][self.positions[tp]:]
            if batch:
                out[tp] = batch
                self.positions[tp] += len(batch)
        if out:
            self.last_delivery = self.clock.now
        return out

    def assignment(self) -> set[TopicPartition]:
        return set(self.assigned)

    def partitions_for_topic(self, topic: str) -> set[int]:
        return {0, 1}

    def topics(self) -> set[str]:
        return {TOPIC}

    def end_offsets(self, tps: list[TopicPartition], timeout_ms: int) -> dict:
        return {tp: len(self.records[tp]) for tp in tps}

    def beginning_offsets(self, tps: list[TopicPartition], timeout_ms: int) -> dict:
        return {tp: 0 for tp in tps}

    def position(self, tp: TopicPartition, timeout_ms: int) -> int:
        return self.positions[tp]

    def seek(self, tp: TopicPartition, offset: int) -> None:
        self.positions[tp] = offset

    def seek_to_beginning(self, tp: TopicPartition) -> None:
        self.positions[tp] = 0

    def pause(self, *tps: TopicPartition) -> None:
        self.paused_ |= set(tps)

    def resume(self, *tps: TopicPartition) -> None:
        self.paused_ -= set(tps)

    def paused(self) -> set[TopicPartition]:
        return set(self.paused_)

    def commit_async(self, offsets: dict) -> None:
        pass

    def close(self, autocommit: bool, timeout_ms: int) -> None:
        pass


def test_a_partition_assigned_after_the_last_probe_is_read_before_stopping(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CATWALK_SIGNING_KEY", raising=False)
    clock = _Clock()
    monkeypatch.setattr(consume, "time", clock)
    events = [m for m in drill_messages(6, seed=7) if m.good]
    records: dict[TopicPartition, list[_Record]] = {
        P0: [_Record(TOPIC, 0, i, 0, m.key, m.value) for i, m in enumerate(events[:3])],
        P1: []}
    later = [_Record(TOPIC, 1, i, 0, m.key, m.value) for i, m in enumerate(events[3:])]
    kc = _Consumer(clock=clock, records=records, later=later)
    log = open_log(tmp_path)
    said: list[str] = []
    try:
        stats = run(connect=lambda: kc, topic=TOPIC, log=log, log_dir=log.log_dir,
                    until_idle=UNTIL_IDLE_S, progress=lambda s, f: None,
                    poll_ms=int(POLL_S * 1000), say=said.append)
    finally:
        log.close()
    # The stand-in did what the test is about: it handed partition 1 over in a poll that
    # found ingest idle, after a probe had found partition 0 read to its end.
    assert kc.rebalanced_at_poll is not None
    assert isinstance(stats, IngestStats)
    held = sorted((r.partition, r.offset) for r in read_log(chain_of(tmp_path, None).log))
    assert held == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert stats.appended == 6
    assert kc.polls > kc.rebalanced_at_poll
    assert said == []
