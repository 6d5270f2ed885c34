"""Kafka headers kept in the log record: in the record, in its leaf input and hash only
when the message has any, so that every leaf and tree head signed before stays as it was."""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import uuid
from pathlib import Path

import pytest
from fastavro import parse_schema, reader, writer
from kafka import KafkaProducer

from ingest.kafka_io import TopicSettings, ensure_topic
from ingest.log import LogWriter, Quarantined, Received
from replay.batch_decode import log_entries
from schemas import RoundEnded, RoundStarted, WagerPlaced, encode
from schemas.checkpoint import read_verifier
from schemas.log_verify import verify_data, verify_log
from schemas.logformat import (
    chain_hash,
    is_log_schema,
    leaf_input,
    parse_leaf_input,
    read_log,
    record_schema,
    segments,
)
from schemas.proof import check_round_proof, round_proof
from tests.conftest import run_cli
from tests.events_factory import Table

OLD_LEAF = ("00000000000000070000019adc5be07b000000030000000000000028000000000000000c726f756e64"
            "2d6576656e7473010000000000000003543031000000000000000dc3016672616d6564206176726f")
"""The leaf input of a record, as ingest wrote it before headers were kept."""
OLD_EMPTY_LEAF = ("0000000000000000000000000000000000000000000000000000000000000000000000017400"
                  "0000000000000000")
OLD_CHAIN = "cc2a8118cfa6ac76236c9411b47a64c3b41186e2f29ebb9116546b8185384328"
OLD_SCHEMA = {
    "type": "record", "name": "LogRecord", "namespace": "catwalk.log",
    "fields": [
        {"name": "position", "type": "long"},
        {"name": "topic", "type": "string"},
        {"name": "partition", "type": "int"},
        {"name": "offset", "type": "long"},
        {"name": "timestamp_ms", "type": "long"},
        {"name": "key", "type": ["null", "bytes"], "default": None},
        {"name": "value", "type": "bytes"},
        {"name": "prev_hash", "type": {"type": "fixed", "name": "Sha256", "size": 32}},
        {"name": "hash", "type": "catwalk.log.Sha256"},
    ],
}
"""The log record's schema before it kept headers."""
RECORD = {"position": 7, "topic": "round-events", "partition": 3, "offset": 40,
          "timestamp_ms": 1764633600123, "key": b"T01", "value": b"\xc3\x01framed avro"}
HEADERS = (("traceparent", b"00-4bf92f-01"), ("dealer", "Zoë".encode()), ("empty", None))


def test_a_record_without_headers_keeps_its_leaf_and_hash_byte_for_byte() -> None:
    assert leaf_input(**RECORD).hex() == OLD_LEAF
    assert leaf_input(**RECORD, headers=()).hex() == OLD_LEAF
    assert leaf_input(position=0, topic="t", partition=0, offset=0, timestamp_ms=0, key=None,
                      value=b"").hex() == OLD_EMPTY_LEAF
    assert chain_hash(prev_hash=bytes(32), **RECORD).hex() == OLD_CHAIN
    back = parse_leaf_input(bytes.fromhex(OLD_LEAF))
    assert (back.offset, back.key, back.value, back.headers) == (40, b"T01",
                                                                b"\xc3\x01framed avro", ())


def test_headers_follow_the_value_marked_counted_and_length_prefixed() -> None:
    def field(b: bytes) -> bytes:
        return struct.pack(">Q", len(b)) + b

    want = (bytes.fromhex(OLD_LEAF) + b"\x01" + struct.pack(">Q", 3)
            + field(b"traceparent") + b"\x01" + field(b"00-4bf92f-01")
            + field(b"dealer") + b"\x01" + field("Zoë".encode())
            + field(b"empty") + b"\x00")
    got = leaf_input(**RECORD, headers=HEADERS)
    assert got == want
    assert parse_leaf_input(got).headers == HEADERS
    assert chain_hash(prev_hash=bytes(32), **RECORD, headers=HEADERS).hex() != OLD_CHAIN
    for bad in (bytes.fromhex(OLD_LEAF) + b"\x02", bytes.fromhex(OLD_LEAF) + b"\x01" +
                struct.pack(">Q", 0), got[:-1], got + b"\x00"):
        with pytest.raises(ValueError, match="not a leaf input"):
            parse_leaf_input(bad)


def _event(seq: int, round_id: str = "T01-000001") -> bytes:
    return encode(Table().event(round_id, WagerPlaced(seat=1, wager="main",
                                                      amount_cents=100 + seq), seq=seq))


def _round_event(seq: int) -> bytes:
    """Event ``seq`` of a whole round of three: RoundStarted, a wager, RoundEnded (a proof
    is of a whole round)."""
    payload = (RoundStarted(game="pai_gow_poker", dealer_id="E011") if seq == 1 else
               RoundEnded() if seq == 3 else
               WagerPlaced(seat=1, wager="main", amount_cents=100 + seq))
    return encode(Table().event("T01-000001", payload, seq=seq))


def _msg(offset: int, headers=(), *, whole: bool = False) -> Received:
    value = _round_event(offset + 1) if whole else _event(offset + 1)
    return Received(topic="round-events", partition=0, offset=offset,
                    timestamp_ms=2_000 + offset, key=b"T01", value=value, headers=headers)


def test_the_writer_keeps_headers_and_a_proof_carries_them(tmp_path: Path) -> None:
    with LogWriter(tmp_path / "log", tmp_path / "quarantine") as log:
        log.append([_msg(0, whole=True), _msg(1, HEADERS, whole=True),
                    _msg(2, (("k", b"v"),), whole=True)],
                   [Quarantined(message=Received(topic="round-events", partition=0, offset=3,
                                                 timestamp_ms=1, key=None, value=b"junk",
                                                 headers=(("why", b"test"),)),
                                reason="not framed")])
    records = list(read_log(tmp_path / "log"))
    assert [r.headers for r in records] == [(), HEADERS, (("k", b"v"),)]
    with (tmp_path / "log" / "segment-000001.avro").open("rb") as fo:
        raw = list(reader(fo))
    assert raw[0]["headers"] is None
    assert raw[1]["headers"] == [{"key": k, "value": v} for k, v in HEADERS]
    line = json.loads((tmp_path / "quarantine" / "segment-000001.jsonl").read_text())
    assert line["headers"] == [["why", base64.b64encode(b"test").decode()]]
    key = read_verifier(tmp_path / "keys" / "signing.pub")
    verdict = verify_data(tmp_path, key)
    assert verdict.ok, verdict.problem
    # The tree by hand: the leaves of the records as they were received.
    leaves = [hashlib.sha256(b"\x00" + leaf_input(
        position=i, topic="round-events", partition=0, offset=i, timestamp_ms=2_000 + i,
        key=b"T01", value=_round_event(i + 1), headers=h)).digest()
        for i, h in enumerate([(), HEADERS, (("k", b"v"),)])]

    def node(a: bytes, b: bytes) -> bytes:
        return hashlib.sha256(b"\x01" + a + b).digest()

    assert verdict.chains[0][1].root == node(node(leaves[0], leaves[1]), leaves[2])
    proof = round_proof(verdict, "T01-000001")
    shown = [parse_leaf_input(base64.b64decode(e["leaf_input"])).headers
             for e in proof["events"]]
    assert shown == [(), HEADERS, (("k", b"v"),)]
    assert check_round_proof(proof, key).ok
    # Replay reads the records as before: headers play no part in what it decodes.
    assert [entry[3] for entry in log_entries(tmp_path / "log")] == [
        _round_event(1), _round_event(2), _round_event(3)]


def test_a_record_with_its_headers_altered_fails_verification(tmp_path: Path) -> None:
    with LogWriter(tmp_path / "log", tmp_path / "quarantine") as log:
        log.append([_msg(0, HEADERS)], [])
    seg = tmp_path / "log" / "segment-000001.avro"
    with seg.open("rb") as fo:
        r = reader(fo)
        meta = {k: v for k, v in r.metadata.items() if k.startswith("catwalk.")}
        records = list(r)
    records[0]["headers"] = None  # the headers removed, nothing else
    with seg.open("wb") as fo:
        writer(fo, record_schema(), records, metadata=meta, codec="deflate")
    verdict = verify_log(tmp_path / "log", read_verifier(tmp_path / "keys" / "signing.pub"))
    assert "its contents do not match its hash (the record was altered)" in verdict.problem


def test_a_segment_written_with_the_schema_before_headers_verifies_and_reads(
        tmp_path: Path) -> None:
    with LogWriter(tmp_path / "log", tmp_path / "quarantine") as log:
        log.append([_msg(0), _msg(1)], [])
    seg = tmp_path / "log" / "segment-000001.avro"
    with seg.open("rb") as fo:
        r = reader(fo)
        meta = {k: v for k, v in r.metadata.items() if k.startswith("catwalk.")}
        records = [{k: v for k, v in rec.items() if k != "headers"} for rec in r]
    with seg.open("wb") as fo:
        writer(fo, parse_schema(OLD_SCHEMA), records, metadata=meta, codec="deflate")
    with seg.open("rb") as fo:
        written = reader(fo).writer_schema
    assert "headers" not in [f["name"] for f in written["fields"]] and is_log_schema(written)
    key = read_verifier(tmp_path / "keys" / "signing.pub")
    assert verify_log(tmp_path / "log", key).ok
    assert [r.headers for r in read_log(tmp_path / "log")] == [(), ()]
    assert len(list(log_entries(tmp_path / "log"))) == 2
    with LogWriter(tmp_path / "log", tmp_path / "quarantine") as log:  # goes on after it
        log.append([_msg(2, HEADERS)], [])
    assert verify_log(tmp_path / "log", key).ok
    assert len(segments(tmp_path / "log")) == 2


def test_a_reader_of_the_schema_before_headers_reads_a_segment_with_them(
        tmp_path: Path) -> None:
    """Avro schema resolution both ways: the old schema reads the new records (the writer's
    extra field skipped), the new schema reads the old (its default)."""
    with LogWriter(tmp_path / "log", tmp_path / "quarantine") as log:
        log.append([_msg(0, HEADERS)], [])
    with (tmp_path / "log" / "segment-000001.avro").open("rb") as fo:
        (old,) = list(reader(fo, reader_schema=parse_schema(OLD_SCHEMA)))
    assert "headers" not in old and old["value"] == _event(1) and old["offset"] == 0


@pytest.mark.kafka
def test_headers_sent_through_the_broker_are_in_the_log(kafka_bootstrap: str,
                                                        tmp_path: Path) -> None:
    topic = f"headers-{uuid.uuid4().hex[:10]}"
    ensure_topic(kafka_bootstrap, topic, TopicSettings(partitions=1))
    sent = [(), HEADERS[:2], (("traceparent", b"00-aa-01"), ("traceparent", b"twice"))]
    with KafkaProducer(bootstrap_servers=kafka_bootstrap) as kp:
        for i, headers in enumerate(sent):
            kp.send(topic, key=b"T01", value=_event(i + 1), headers=list(headers)).get(
                timeout=30)
    data = tmp_path / "data"
    done = run_cli("ingest", "--data", str(data), "--topic", topic, "--bootstrap",
                   kafka_bootstrap, "--until-idle", "1", "--quiet", timeout=120)
    assert done.returncode == 0, done.stderr
    assert [r.headers for r in read_log(data / "log")] == sent
    vkey = read_verifier(data / "keys" / "signing.pub").vkey
    ok = run_cli("ingest", "verify", "--data", str(data), "--key", vkey, "--against-topic",
                 topic, "--bootstrap", kafka_bootstrap)
    assert ok.returncode == 0, ok.stderr
