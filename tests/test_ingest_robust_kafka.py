"""Ingest against the real broker: a hostile corpus, a recreated topic, a dead broker for the
simulator. Every offset and count is exact (one-partition topics)."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import random
import socket
import struct
import time
import uuid
from pathlib import Path

import pytest
from fastavro import schemaless_reader, schemaless_writer
from kafka import KafkaProducer

from ingest.kafka_io import TopicSettings, ensure_topic
from schemas import RoundEnded, WagerPlaced, decode, encode, writer_schema
from schemas.logformat import read_log
from tests.conftest import run_cli
from tests.drill_support import recreate_topic
from tests.events_factory import Table

pytestmark = pytest.mark.kafka


def _topic(servers: str, partitions: int = 1) -> str:
    topic = f"robust-{uuid.uuid4().hex[:10]}"
    ensure_topic(servers, topic, TopicSettings(partitions=partitions))
    return topic


def _send(servers: str, topic: str, messages: list[tuple[bytes | None, bytes | None]]) -> None:
    with KafkaProducer(bootstrap_servers=servers, max_request_size=1_100_000) as kp:
        for key, value in messages:
            kp.send(topic, key=key, value=value).get(timeout=30)


def _ingest(servers: str, topic: str, data: Path, *extra: str):
    return run_cli("ingest", "--data", str(data), "--topic", topic, "--bootstrap", servers,
                   "--until-idle", "1", "--quiet", *extra, timeout=120)


def _quarantine(data: Path) -> dict[int, str]:
    lines = [json.loads(line) for q in sorted((data / "quarantine").glob("*.jsonl"))
             for line in q.read_text().splitlines()]
    return {q["offset"]: q["reason"] for q in lines}


def _negative_wager() -> bytes:
    """A WagerPlaced whose amount is -500 cents: valid Avro, not a valid event."""
    good = encode(Table().event("T01-000001", WagerPlaced(seat=1, wager="main",
                                                          amount_cents=500), seq=90))
    schema = writer_schema(struct.unpack(">I", good[1:5])[0])  # the id the body is written in
    record = schemaless_reader(io.BytesIO(good[5:]), schema, schema)
    assert isinstance(record, dict) and record["payload"]["amount_cents"] == 500
    record["payload"]["amount_cents"] = -500
    out = io.BytesIO()
    schemaless_writer(out, schema, record)
    return good[:5] + out.getvalue()


def test_a_hostile_corpus_is_quarantined_with_reasons_and_good_events_land_once(
        kafka_bootstrap, tmp_path):
    table = Table()
    good = [encode(table.event("T01-000001", RoundEnded(), seq=n)) for n in range(1, 9)]
    rng = random.Random(7)
    noise = rng.randbytes(64)
    first = decode(good[0])
    conflicting = encode(dataclasses.replace(first, recorded_by="E999"))
    huge = b"\x00" + struct.pack(">I", 2) + rng.randbytes(1_000_000)
    extreme = encode(table.event("T01-000001", WagerPlaced(seat=2, wager="main",
                                                           amount_cents=2**63 - 1), seq=50))
    corpus: list[tuple[bytes | None, bytes | None]] = [
        (b"T01", good[0]),                      # 0 good
        (b"T01", None),                         # 1 tombstone
        (b"T01", good[1]),                      # 2 good
        (b"T01", good[1][:-7]),                 # 3 truncated
        (b"T01", noise),                        # 4 random bytes
        (b"T01", b"\x00\x00\x00\x00\x63" + good[2][5:]),  # 5 unknown schema id 99
        (b"T01", good[2]),                      # 6 good
        (b"T01", _negative_wager()),            # 7 negative amount
        (b"T01", extreme),                      # 8 the largest amount a long holds: an event
        (b"T01", huge),                         # 9 a message near the broker's maximum
        (b"T01", conflicting),                  # 10 the id of offset 0, other bytes
        (b"T01", good[1]),                      # 11 an exact repeat of offset 2: kept
        (b"T01", good[3]),                      # 12 good
    ]
    topic = _topic(kafka_bootstrap)
    _send(kafka_bootstrap, topic, corpus)
    proc = _ingest(kafka_bootstrap, topic, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    logged = [(r.offset, r.value) for r in read_log(tmp_path / "log")]
    assert [o for o, _ in logged] == [0, 2, 6, 8, 11, 12]
    assert [v for _, v in logged] == [good[0], good[1], good[2], extreme, good[1], good[3]]
    reasons = _quarantine(tmp_path)
    assert sorted(reasons) == [1, 3, 4, 5, 7, 9, 10]
    assert reasons[1] == "empty message (tombstone): no event"
    assert "unknown schema id 99" in reasons[5]
    assert reasons[4] == (f"first byte is {struct.unpack('>b', noise[:1])[0]}, not the magic "
                          "byte 0: not a framed event")
    assert "amount_cents" in reasons[7]
    assert reasons[10] == (f"conflicting event id {first.event_id}: already in the log at "
                           f"{topic}[0]@0 with different content")
    assert f"quarantined {topic}[0]@1: empty message (tombstone): no event" in proc.stderr
    assert "7 quarantined (1 conflicting ids)" in proc.stderr

    # The index survives a restart: a conflict with an event of the first run is still seen,
    # and a good event after it lands.
    _send(kafka_bootstrap, topic, [(b"T01", conflicting), (b"T01", good[4])])
    again = _ingest(kafka_bootstrap, topic, tmp_path)
    assert again.returncode == 0, again.stderr
    assert [r.offset for r in read_log(tmp_path / "log")] == [0, 2, 6, 8, 11, 12, 14]
    assert _quarantine(tmp_path)[13] == reasons[10]
    assert "6 event ids of 6 log records indexed" not in again.stderr  # --quiet says nothing


def test_a_recreated_topic_is_refused_with_what_to_do(kafka_bootstrap, tmp_path):
    table = Table()
    events = [encode(table.event("T01-000001", RoundEnded(), seq=n)) for n in range(1, 8)]
    topic = _topic(kafka_bootstrap)
    _send(kafka_bootstrap, topic, [(b"T01", v) for v in events[:5]])
    assert _ingest(kafka_bootstrap, topic, tmp_path).returncode == 0
    recreate_topic(kafka_bootstrap, topic)
    _send(kafka_bootstrap, topic, [(b"T01", v) for v in events[5:]])
    before = sorted(p.name for p in (tmp_path / "log").iterdir())
    proc = _ingest(kafka_bootstrap, topic, tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert (f"ingest: REFUSED: topic {topic} was recreated or truncated since the log under "
            f"{tmp_path / 'log'} was written: {topic}[0]: the log expects next offset 5 but "
            "the topic holds offsets 0..1.") in proc.stderr
    assert "Ingest into a new data directory (--data NEW_DIR)" in proc.stderr
    assert "restore the topic" in proc.stderr
    assert sorted(p.name for p in (tmp_path / "log").iterdir()) == before
    assert [r.offset for r in read_log(tmp_path / "log")] == [0, 1, 2, 3, 4]
    # A new data directory takes the topic as it is.
    fresh = _ingest(kafka_bootstrap, topic, tmp_path / "new")
    assert fresh.returncode == 0, fresh.stderr
    assert [r.value for r in read_log(tmp_path / "new" / "log")] == events[5:]


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_simulator_fails_fast_and_clearly_against_a_stopped_broker(tmp_path):
    port = _dead_port()
    started = time.monotonic()
    proc = run_cli("ingest.simulate", "--tables", "1", "--rounds", "2",
                   "--bootstrap", f"127.0.0.1:{port}", "--topic", "nowhere", timeout=60)
    took = time.monotonic() - started
    assert proc.returncode == 1, proc.stderr
    assert took < 20, took
    assert (f"simulate: FAILED: cannot reach Kafka at 127.0.0.1:{port} (KafkaTimeoutError: "
            f"Unable to bootstrap from 127.0.0.1:{port}); nothing was sent") in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ingest_refuses_bad_topic_settings_before_touching_kafka(tmp_path):
    proc = run_cli("ingest", "--data", str(tmp_path), "--bootstrap", "127.0.0.1:9",
                   "--topic-settings", "3,1,2", env={"PYTHONWARNINGS": "ignore"}, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "ingest: min.insync.replicas 2 is more than the replication factor 1: no "
        "acknowledged write could ever succeed")
    assert not (tmp_path / "log").exists()
    assert os.path.isdir(tmp_path)
