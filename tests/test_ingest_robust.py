"""Ingest never stops on input and never guesses: the broker-free parts (settings, the
event-id index, the refusal of a topic that went backwards)."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import pytest

from ingest.consume import offsets_problem
from ingest.event_index import Conflicts, EventIndex, event_key, key_of
from ingest.kafka_io import SettingsError, TopicSettings, topic_settings
from ingest.log import LogWriter, Received
from schemas import RoundEnded, decode, encode
from tests.events_factory import Table


def _event(n: int, recorded_by: str = "E011") -> bytes:
    e = Table().event("T01-000001", RoundEnded(), seq=n)
    return encode(dataclasses.replace(e, recorded_by=recorded_by))


def _received(offset: int, value: bytes, partition: int = 0) -> Received:
    return Received(topic="t", partition=partition, offset=offset, timestamp_ms=0,
                    key=b"T01", value=value)


def test_topic_settings_come_from_the_option_then_the_environment_then_the_defaults():
    assert topic_settings(environ={}) == TopicSettings(partitions=3, replication_factor=1,
                                                       min_insync_replicas=1)
    env = {"CATWALK_TOPIC_PARTITIONS": "6", "CATWALK_REPLICATION_FACTOR": "3",
           "CATWALK_MIN_INSYNC_REPLICAS": "2"}
    assert topic_settings(environ=env) == TopicSettings(partitions=6, replication_factor=3,
                                                        min_insync_replicas=2)
    assert topic_settings("12,,", environ=env) == TopicSettings(
        partitions=12, replication_factor=3, min_insync_replicas=2)
    with pytest.raises(SettingsError, match=r"min\.insync\.replicas 2 is more than the "
                       "replication factor 1"):
        topic_settings(",1,2", environ={})
    with pytest.raises(SettingsError, match="CATWALK_TOPIC_PARTITIONS must be a whole number, "
                       "got 'three'"):
        topic_settings(environ={"CATWALK_TOPIC_PARTITIONS": "three"})
    with pytest.raises(SettingsError, match="partitions in --topic-settings must be at least 1"):
        topic_settings("0", environ={})


def test_the_event_key_read_from_the_bytes_is_the_decoded_id():
    for n in range(1, 40):
        value = _event(n)
        assert event_key(value) == key_of(decode(value).event_id)
        assert len(event_key(value) or b"") == 16
    assert event_key(b"\x00\x00\x00\x00\x02\x04") is None  # truncated: no event
    assert event_key(b"garbage") is None


def test_every_schema_id_is_accepted_by_ingest_and_keyed_from_its_bytes():
    """Schema id 3 (the current one) and the older ids 1 and 2 a device may still send: each
    passes ingest's judging, one by one and a block at a time, and its event id is read from
    the bytes; an id the registry does not hold is quarantined as unknown."""
    from ingest.judging import judge_all, judge_one
    from schemas import SCHEMA_IDS, Shuffled

    assert SCHEMA_IDS == (1, 2, 3)
    table = Table()
    values = [encode(table.event("T01-000001", RoundEnded(), seq=n), schema_id=sid)
              for n, sid in enumerate((1, 2, 3, 3, 2, 1), start=1)]
    values.append(encode(table.event("T01-000001", Shuffled(kind="deck_change",
                                                            deck_id="D-1"), seq=7)))
    assert [v[4] for v in values] == [1, 2, 3, 3, 2, 1, 3]
    for value in values:
        assert judge_one(b"T01", value) is None
        assert event_key(value) == key_of(decode(value).event_id)
    assert judge_all([_received(i, v) for i, v in enumerate(values)]) == [None] * len(values)
    unknown = values[2][:4] + b"\x04" + values[2][5:]
    assert (judge_one(b"T01", unknown) or "").startswith("unknown schema id 4")


def test_a_reused_id_with_other_bytes_is_a_conflict_an_exact_repeat_is_not(tmp_path: Path):
    writer = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    first, other = _event(1), _event(1, recorded_by="E999")
    assert event_key(first) == event_key(other) and first != other
    writer.append([_received(0, first), _received(1, _event(2))], [])
    writer.close()
    index = EventIndex.from_log(tmp_path / "log")  # what a restarted ingest builds
    assert (len(index), index.records) == (2, 2)
    conflicts = Conflicts(index)
    eid = decode(first).event_id
    assert conflicts.check(first, "t", 0, 7, event_key(first)) is None
    assert conflicts.check(other, "t", 0, 8, event_key(other)) == (
        f"conflicting event id {eid}: already in the log at t[0]@0 with different content")
    fresh, fresh_other = _event(3), _event(3, recorded_by="E999")
    assert conflicts.check(fresh, "t", 2, 9, event_key(fresh)) is None
    assert conflicts.check(fresh_other, "t", 1, 10, event_key(fresh_other)) == (
        f"conflicting event id {decode(fresh).event_id}: already in the log at t[2]@9 "
        "with different content")
    conflicts.commit([(fresh, "t", 2, 9, event_key(fresh))])
    seen = index.seen(key_of(decode(fresh).event_id))
    assert seen is not None and seen.coordinates == "t[2]@9"


def test_a_topic_that_went_backwards_is_named_with_what_to_do():
    words = offsets_problem(topic="round-events", log_dir=Path("/d/log"),
                            expected={0: 12, 1: 5, 2: 7, 3: 1}, partitions={0, 1, 2},
                            begin={0: 0, 1: 0, 2: 9}, end={0: 4, 1: 0, 2: 20})
    assert words == (
        "topic round-events was recreated or truncated since the log under /d/log was "
        "written: the log holds partition 3 that the topic no longer has (it has 3 "
        "partitions); round-events[0]: the log expects next offset 12 but the topic holds "
        "offsets 0..3; round-events[1]: the log expects next offset 5 but the partition is "
        "empty (next offset 0); round-events[2]: the log expects next offset 7 but the "
        "topic's first offset is 9 (offsets 7..8 are gone). Going on would skip or repeat "
        "messages, so nothing was read. Ingest into a new data directory (--data NEW_DIR) "
        "to start a new log from the topic as it is, or restore the topic (or name the "
        "right one with --topic) and run ingest again.")
    assert offsets_problem(topic="t", log_dir=Path("/d"), expected={0: 4}, partitions={0, 1},
                           begin={0: 0}, end={0: 4}) is None


def test_non_uuid_ids_are_keyed_by_their_text():
    assert key_of("not-a-uuid") == b"s:not-a-uuid"
    assert key_of(str(uuid.UUID(int=5))) == uuid.UUID(int=5).bytes
