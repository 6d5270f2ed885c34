"""Fencing epochs per partition (ingest/fence.py), signed in the checkpoints, without a broker."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from kafka import TopicPartition

from ingest import consume
from ingest.event_index import EventIndex
from ingest.fence import LONE, FenceError, Fences, fence_path, fences_for
from ingest.log import LogWriter, Received
from schemas import WagerPlaced, encode
from schemas.checkpoint import Checkpoint, CheckpointError, open_signed, parse
from schemas.logformat import META_CHECKPOINT, read_log, segment_metadata, segments
from tests.events_factory import Table

TOPIC = "round-events"


def test_each_assignment_raises_the_epoch_and_the_older_holder_is_fenced(tmp_path: Path) -> None:
    w1, w2 = Fences(tmp_path, "w1"), Fences(tmp_path, "w2")
    assert w1.raise_epoch(TOPIC, 0) == 1
    assert w1.raise_epoch(TOPIC, 1) == 1
    assert w2.raise_epoch(TOPIC, 1) == 2  # the group moved partition 1 to w2
    with w1.hold([(TOPIC, 0), (TOPIC, 1)]) as (epochs, fenced):
        assert epochs == {f"{TOPIC}[0]": 1}
        assert list(fenced) == [(TOPIC, 1)]
        assert fenced[(TOPIC, 1)].taken
        assert "its epoch is 2 (raised by w2)" in fenced[(TOPIC, 1)].why
    with w2.hold([(TOPIC, 1)]) as (epochs, fenced):
        assert epochs == {f"{TOPIC}[1]": 2} and not fenced
    # The file says who holds it, and survives the process (a new Fences reads it).
    assert '"epoch": 2' in fence_path(tmp_path, TOPIC, 1).read_text()
    assert Fences(tmp_path, "w1").raise_epoch(TOPIC, 1) == 3
    w1.close()
    w2.close()


def test_a_partition_never_raised_is_not_written(tmp_path: Path) -> None:
    with Fences(tmp_path, "w1").hold([(TOPIC, 4)]) as (epochs, fenced):
        assert epochs == {}
        assert fenced[(TOPIC, 4)].why == "this worker holds no epoch for it"


def test_a_lock_held_while_appending_bounds_the_wait_of_the_next_owner(tmp_path: Path) -> None:
    said: list[str] = []
    w1 = Fences(tmp_path, "w1")
    w2 = Fences(tmp_path, "w2", wait_s=0.3, say=said.append)
    w1.raise_epoch(TOPIC, 0)
    with w1.hold([(TOPIC, 0)]) as (epochs, _):
        assert epochs == {f"{TOPIC}[0]": 1}
        start = time.monotonic()
        with pytest.raises(FenceError, match=r"round-events\[0\]: its fence lock .* not had "
                                             r"within 0.3 s"):
            w2.raise_epoch(TOPIC, 0)
        assert 0.25 <= time.monotonic() - start < 2.0
    assert any("was not had within 0.3 s" in line for line in said)
    assert w2.raise_epoch(TOPIC, 0) == 2  # once the append is done
    with w1.hold([(TOPIC, 0)]) as (_, fenced):  # the old holder, locking to find out
        assert fenced[(TOPIC, 0)].taken
        with w2.hold([(TOPIC, 0)]) as (epochs, fenced):  # the owner waits, bounded
            assert epochs == {}
            assert not fenced[(TOPIC, 0)].taken and "was not had within 0.3 s" in \
                fenced[(TOPIC, 0)].why
    with w2.hold([(TOPIC, 0)]) as (epochs, fenced):
        assert epochs == {f"{TOPIC}[0]": 2} and not fenced


def test_a_fence_file_that_is_a_symlink_or_a_fifo_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_text("keep me\n")
    (tmp_path / "data" / "fences").mkdir(parents=True)
    fence_path(tmp_path / "data", TOPIC, 0).symlink_to(outside)
    with pytest.raises(FenceError, match="symbolic link"):
        Fences(tmp_path / "data", "w1").raise_epoch(TOPIC, 0)
    assert outside.read_text() == "keep me\n"
    os.mkfifo(fence_path(tmp_path / "data", TOPIC, 1))
    with pytest.raises(FenceError, match="not a regular file"):
        Fences(tmp_path / "data", "w1").raise_epoch(TOPIC, 1)


def test_a_damaged_fence_file_is_named(tmp_path: Path) -> None:
    path = fence_path(tmp_path, TOPIC, 0)
    path.parent.mkdir(parents=True)
    path.write_text("garbage")
    with pytest.raises(FenceError, match=r"fence file .*round-events-0 is not a fence"):
        Fences(tmp_path, "w1").raise_epoch(TOPIC, 0)


def test_fence_names(tmp_path: Path) -> None:
    assert fence_path(tmp_path, "a-1", 2).name == "a-1-2"
    for bad in ("..", "a/b", ""):
        with pytest.raises(ValueError, match="not a Kafka topic name"):
            fence_path(tmp_path, bad, 0)
    worker = fences_for(tmp_path / "log" / "workers" / "w7")
    assert (worker.data_dir, worker.worker) == (tmp_path, "w7")
    lone = fences_for(tmp_path / "log")
    assert (lone.data_dir, lone.worker) == (tmp_path, LONE)


def _signed(**extra: Any) -> Checkpoint:
    return Checkpoint(log_id="ab" * 16, size=3, root=bytes(32), signed_at="2026-12-01T00:00:00Z",
                      next_offsets={f"{TOPIC}[0]": 3}, segment="segment-000001.avro",
                      chain=bytes(32), **extra)


def test_epochs_are_signed_in_the_checkpoint_and_read_back(tmp_path: Path) -> None:
    log = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    text = log.signer.sign(_signed(epochs={f"{TOPIC}[0]": 7, f"{TOPIC}[1]": 2}))
    assert 'catwalk-epochs {"round-events[0]":7,"round-events[1]":2}\n' in text
    cp = open_signed(text, log.signer.verifier)
    assert dict(cp.epochs) == {f"{TOPIC}[0]": 7, f"{TOPIC}[1]": 2}
    # Without last messages the epochs line is the first extension: read by its name.
    assert "catwalk-last-messages" not in text
    both = open_signed(log.signer.sign(_signed(last_messages={f"{TOPIC}[0]": "d" * 64},
                                               epochs={f"{TOPIC}[0]": 1})),
                       log.signer.verifier)
    assert dict(both.epochs) == {f"{TOPIC}[0]": 1}
    assert dict(both.last_messages) == {f"{TOPIC}[0]": "d" * 64}
    assert dict(parse(log.signer.sign(_signed())).epochs) == {}
    log.close()


@pytest.mark.parametrize("line", ['catwalk-epochs {"round-events[0]":0}',
                                  'catwalk-epochs {"round-events[0]":"1"}',
                                  "catwalk-epochs [1]"])
def test_an_epochs_line_that_is_not_a_map_of_epochs_is_refused(tmp_path: Path,
                                                               line: str) -> None:
    log = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    body = _signed().body() + line + "\n"
    with pytest.raises(CheckpointError, match="catwalk-epochs is not a map of epochs"):
        parse(body + "\n\u2014 x AAAA\n")
    log.close()


def test_an_extension_line_twice_is_refused() -> None:
    body = _signed(epochs={f"{TOPIC}[0]": 1}).body()
    body += 'catwalk-epochs {"round-events[0]":2}\n'
    with pytest.raises(CheckpointError, match="line 9: a second catwalk-epochs line"):
        parse(body + "\n\u2014 x AAAA\n")


def _received(offset: int, partition: int) -> Received:
    value = encode(Table().event("T01-000001", WagerPlaced(seat=1, wager="main",
                                                           amount_cents=100 + offset),
                                 seq=offset + 1 + 100 * partition))
    return Received(topic=TOPIC, partition=partition, offset=offset,
                    timestamp_ms=1_000 + offset, key=b"T01", value=value)


class _Ticket:
    def __init__(self, n: int) -> None:
        self.n = n

    def verdicts(self) -> list[tuple[str | None, bytes | None]]:
        return [(None, None)] * self.n  # accepted, the writer reads the id itself


class _Consumer:
    """What _finish asks of a consumer: the offsets committed, the partitions set aside."""

    def __init__(self) -> None:
        self.committed: dict[TopicPartition, int] = {}
        self.paused: set[TopicPartition] = set()
        self.seeks: dict[TopicPartition, int] = {}

    def commit_async(self, offsets: dict[TopicPartition, Any]) -> None:
        self.committed.update({tp: o.offset for tp, o in offsets.items()})

    def pause(self, *tps: TopicPartition) -> None:
        self.paused |= set(tps)

    def assignment(self) -> set[TopicPartition]:
        return {TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1)}

    def seek(self, tp: TopicPartition, offset: int) -> None:
        self.seeks[tp] = offset


def test_a_fenced_partitions_messages_are_neither_written_nor_committed(
        tmp_path: Path) -> None:
    data = tmp_path
    log = LogWriter(data / "log" / "workers" / "w1", data / "quarantine" / "workers" / "w1",
                    checkpoint_dir=data / "checkpoints" / "workers" / "w1")
    mine, other = fences_for(log.log_dir), Fences(data, "w2")
    mine.raise_epoch(TOPIC, 0)
    mine.raise_epoch(TOPIC, 1)
    other.raise_epoch(TOPIC, 1)  # w1 was stopped past its session; w2 took partition 1
    fresh = [_received(0, 0), _received(1, 0), _received(0, 1), _received(1, 1),
             _received(2, 1)]
    batch = consume._Batch(fresh=fresh, ticket=_Ticket(len(fresh)))  # type: ignore[arg-type]
    kc = _Consumer()
    stats = consume.IngestStats()
    said: list[str] = []
    consume._finish(batch, kc=kc, log=log, index=EventIndex(), stats=stats,  # type: ignore[arg-type]
                    say=said.append, fences=mine)
    held = [(r.partition, r.offset) for r in read_log(log.log_dir)]
    assert held == [(0, 0), (0, 1)]
    assert (stats.appended, stats.fenced) == (2, 3)
    assert kc.committed == {TopicPartition(TOPIC, 0): 2}
    assert kc.paused == {TopicPartition(TOPIC, 1)}
    assert len(said) == 1 and said[0].startswith(
        "ingest: FENCED round-events[1]: its epoch is 2 (raised by w2), this worker holds 1")
    assert "3 messages of this batch (round-events[1]@0..2) are dropped" in said[0]
    cp = parse(segment_metadata(segments(log.log_dir)[-1])[META_CHECKPOINT])
    assert dict(cp.epochs) == {f"{TOPIC}[0]": 1}
    log.close()


class _Assigning:
    """What the rebalance listener asks of a consumer."""

    def __init__(self) -> None:
        self.paused_: set[TopicPartition] = set()
        self.sought: dict[TopicPartition, int | None] = {}

    def pause(self, *tps: TopicPartition) -> None:
        self.paused_ |= set(tps)

    def seek(self, tp: TopicPartition, offset: int) -> None:
        self.sought[tp] = offset

    def seek_to_beginning(self, tp: TopicPartition) -> None:
        self.sought[tp] = None


def test_a_partition_whose_lock_a_stopped_worker_holds_waits_paused_then_is_taken(
        tmp_path: Path) -> None:
    data = tmp_path
    log = LogWriter(data / "log" / "workers" / "w2", data / "quarantine" / "workers" / "w2",
                    checkpoint_dir=data / "checkpoints" / "workers" / "w2")
    old = Fences(data, "w1")
    old.raise_epoch(TOPIC, 0)
    said: list[str] = []
    kc = _Assigning()
    listener = consume._ResumeFromLog(kc, log, Fences(data, "w2", wait_s=0.2), said.append)
    tp = TopicPartition(TOPIC, 0)
    with old.hold([(TOPIC, 0)]):  # w1 stopped in the middle of an append
        listener.on_partitions_assigned([tp])
    assert listener.unfenced == {tp} and listener.unchecked == set()
    assert kc.paused_ == {tp} and kc.sought == {}  # not read: not where to resume from yet
    assert said[-1].startswith("ingest: round-events[0] is not read yet: round-events[0]: its "
                               "fence lock")
    listener.take(set(listener.unfenced))  # the main loop's next turn; w1 is done
    assert listener.unfenced == set() and listener.unchecked == {tp}
    assert kc.sought == {tp: None}  # no chain holds it: from the beginning
    assert listener.fences.held == {(TOPIC, 0): 2}
    listener.on_partitions_revoked([tp])
    assert listener.fences.held == {}
    log.close()


def test_a_fence_file_unusable_at_assignment_is_kept_for_the_main_loop_to_raise(
        tmp_path: Path) -> None:
    log = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    (tmp_path / "fences").mkdir()
    fence_path(tmp_path, TOPIC, 0).symlink_to(tmp_path / "elsewhere")
    listener = consume._ResumeFromLog(_Assigning(), log, fences_for(log.log_dir), print)
    listener.on_partitions_assigned([TopicPartition(TOPIC, 0)])  # the client swallows raises
    assert isinstance(listener.failure, FenceError)
    assert "symbolic link" in str(listener.failure)
    assert listener.unchecked == set() and listener.unfenced == set()
    assert not (tmp_path / "elsewhere").exists()
    log.close()
