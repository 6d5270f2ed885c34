"""End to end through the real Apache Kafka broker: simulate, ingest, replay, check.

These tests talk to the project's own local broker (tests/conftest.py); nothing is mocked.
"""

from __future__ import annotations

import json
import uuid

import pyarrow.parquet as pq
import pytest
from kafka import KafkaProducer

from ingest.simulate import simulate_shift
from schemas import WagerPlaced, decode, encode
from schemas.logformat import read_log, verify
from tests.conftest import run_cli
from tests.events_factory import Table

pytestmark = pytest.mark.kafka


def _ok(proc):
    assert proc.returncode == 0, (
        f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    )
    return proc


def _labels(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_flags_equal_the_injected_mispays_exactly(kafka_bootstrap, tmp_path):
    topic = f"it-{uuid.uuid4().hex[:10]}"
    labels_file = tmp_path / "labels.jsonl"
    kafka = ["--bootstrap", kafka_bootstrap, "--topic", topic]
    _ok(run_cli("ingest.simulate", "--tables", "4", "--rounds", "50", "--seed", "11",
                "--fault-rate", "0.1", "--labels", str(labels_file), *kafka))
    _ok(run_cli("ingest", "--data", str(tmp_path), "--until-idle", "3", "--quiet", *kafka))
    _ok(run_cli("replay", "--data", str(tmp_path)))
    checks = _ok(run_cli("checks", "--data", str(tmp_path)))

    expected_events, _ = simulate_shift(tables=4, rounds=50, seed=11, fault_rate=0.1)
    logged = [decode(r.value) for r in read_log(tmp_path / "log")]
    assert sorted(e.event_id for e in logged) == sorted(e.event_id for e in expected_events)
    assert verify(tmp_path / "log").ok
    assert not list((tmp_path / "quarantine").glob("*.jsonl"))

    labels = _labels(labels_file)
    assert len(labels) >= 10, "the seed should inject a meaningful number of mispays"
    expected_flags = {
        (f["round_id"], f["seat"], f["amount"] if f["fault"] == "overpay" else -f["amount"])
        for f in labels
    }
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    assert len({f["round_id"] for f in pq.read_table(
        tmp_path / "replay" / "rounds.parquet").to_pylist()}) == 200
    mispays = {(f["round_id"], f["seat"], f["difference_cents"])
               for f in flags if f["check_id"] == "mispay"}
    assert mispays == expected_flags
    assert [f for f in flags if f["check_id"] != "mispay"] == []
    assert f"{len(labels)} flags" in checks.stdout


def test_undecodable_message_goes_to_quarantine_and_ingest_keeps_going(kafka_bootstrap,
                                                                        tmp_path):
    topic = f"it-{uuid.uuid4().hex[:10]}"
    table = Table()
    good = [table.event("T01-000001", WagerPlaced(seat=1, wager="main", amount_cents=500 * i))
            for i in range(1, 4)]
    from ingest.kafka_io import ensure_topic
    ensure_topic(kafka_bootstrap, topic, partitions=1)
    with KafkaProducer(bootstrap_servers=kafka_bootstrap) as kp:
        kp.send(topic, value=encode(good[0]), key=b"T01")
        kp.send(topic, value=b"\x00\x00\x00\x00\x01garbage", key=b"T01")
        kp.send(topic, value=encode(good[1]), key=b"T01")
        kp.send(topic, value=b"not avro at all", key=b"T01")
        kp.send(topic, value=encode(good[2]), key=b"T01")
        kp.flush()
    proc = _ok(run_cli("ingest", "--data", str(tmp_path), "--until-idle", "3",
                       "--bootstrap", kafka_bootstrap, "--topic", topic))
    assert f"quarantined {topic}[0]@1" in proc.stderr
    assert [decode(r.value) for r in read_log(tmp_path / "log")] == good
    entries = [json.loads(line) for q in sorted((tmp_path / "quarantine").glob("*.jsonl"))
               for line in q.read_text().splitlines()]
    assert [e["coordinates"] for e in entries] == [f"{topic}[0]@1", f"{topic}[0]@3"]
    assert "does not match schema id 1" in entries[0]["reason"]
    assert "not the magic byte" in entries[1]["reason"]


def test_restart_resumes_exactly_once(kafka_bootstrap, tmp_path):
    """Two ingest runs with more events in between: every event in the log once, in order."""
    topic = f"it-{uuid.uuid4().hex[:10]}"
    table = Table()
    events = [table.event("T01-000001", WagerPlaced(seat=1, wager="main", amount_cents=100 * i))
              for i in range(1, 41)]
    from ingest.kafka_io import ensure_topic
    ensure_topic(kafka_bootstrap, topic)
    args = ["--data", str(tmp_path), "--until-idle", "2", "--quiet",
            "--bootstrap", kafka_bootstrap, "--topic", topic]
    with KafkaProducer(bootstrap_servers=kafka_bootstrap) as kp:
        for e in events[:25]:
            kp.send(topic, value=encode(e), key=b"T01")
        kp.flush()
        _ok(run_cli("ingest", *args))
        # A different consumer group has no committed offsets: the log alone must say where
        # to resume, so this also proves the log, not Kafka, is the truth.
        for e in events[25:]:
            kp.send(topic, value=encode(e), key=b"T01")
        kp.flush()
    _ok(run_cli("ingest", *args, "--group", f"other-{uuid.uuid4().hex[:6]}"))
    _ok(run_cli("ingest", *args))
    logged = [decode(r.value) for r in read_log(tmp_path / "log")]
    assert logged == events
    assert verify(tmp_path / "log").records == 40
