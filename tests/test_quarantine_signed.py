"""The quarantine is part of the signed account: each checkpoint signs the size and root of a
Merkle tree over every quarantined message of its chain (``catwalk-quarantine``), and
verify names the quarantine file and line that was removed, edited, added, reordered or
moved to another chain. A log written before that verifies and says its quarantine is not
signed."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
from pathlib import Path

import pytest
from fastavro import reader, writer

from ingest.keys import load_signer
from ingest.log import LogWriter, Quarantined, Received
from ingest.topic_audit import _held
from schemas.checkpoint import open_signed, parse, read_verifier
from schemas.log_verify import verify_data, verify_log
from schemas.logformat import META_CHECKPOINT, chain_of, record_schema, segments
from schemas.quarantine import META_QUARANTINE
from tests.test_log_integrity import _received


def _bad(offset: int, value: bytes = b"junk", partition: int = 0) -> Quarantined:
    return Quarantined(message=Received(topic="round-events", partition=partition,
                                        offset=offset, timestamp_ms=5_000 + offset,
                                        key=b"T01", value=value),
                       reason="not a framed Avro event")


def _key(data: Path):
    return read_verifier(data / "keys" / "signing.pub")


def _verify(data: Path):
    return verify_log(data / "log", _key(data),
                      checkpoints=[(str(p), p.read_text())
                                   for p in sorted((data / "checkpoints").glob("*"))])


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Segment 1: three records; segment 2: one record and two quarantined messages;
    segment 3: one record; segment 4: one quarantined message."""
    with LogWriter(tmp_path / "log", tmp_path / "quarantine") as log:
        log.append([_received(0), _received(1), _received(2)], [])
        log.append([_received(3)], [_bad(4), _bad(5, b"\x00\x01")])
        log.append([_received(6)], [])
        log.append([], [_bad(7, b"tombstone?")])
    return tmp_path


def _root(lines: list[bytes]) -> bytes:
    """RFC 9162 2.1.1 by hand, for at most four leaves."""
    def leaf(x: bytes) -> bytes:
        return hashlib.sha256(b"\x00" + x).digest()

    def node(a: bytes, b: bytes) -> bytes:
        return hashlib.sha256(b"\x01" + a + b).digest()

    hashes = [leaf(x) for x in lines]
    if len(hashes) == 3:
        return node(node(hashes[0], hashes[1]), hashes[2])
    assert len(hashes) == 2
    return node(hashes[0], hashes[1])


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def test_every_checkpoint_signs_the_quarantine_tree_over_the_exact_lines(data: Path) -> None:
    q2 = _lines(data / "quarantine" / "segment-000002.jsonl")
    q4 = _lines(data / "quarantine" / "segment-000004.jsonl")
    assert len(q2) == 2 and len(q4) == 1
    key = _key(data)
    second = open_signed((data / "checkpoints" / "segment-000002.checkpoint").read_text(), key)
    last = open_signed((data / "checkpoints" / "latest.checkpoint").read_text(), key)
    assert second.quarantine == (2, _root(q2))
    assert last.quarantine == (3, _root([*q2, *q4]))
    text = (data / "checkpoints" / "latest.checkpoint").read_text()
    assert f"catwalk-quarantine 3 {base64.b64encode(_root([*q2, *q4])).decode()}\n" in text
    verdict = _verify(data)
    assert verdict.ok, verdict.problem
    assert verdict.quarantined == 3 and verdict.quarantine_signed
    assert verdict.line().endswith("; 3 quarantined messages signed")


def test_a_deleted_quarantine_file_fails_named(data: Path) -> None:
    (data / "quarantine" / "segment-000004.jsonl").unlink()
    verdict = _verify(data)
    assert verdict.problem == (
        "quarantine/segment-000004.jsonl is missing: segment-000004.avro's signed checkpoint "
        "counts 1 quarantined messages in it (the file was removed)")


def test_every_quarantine_file_deleted_fails(data: Path) -> None:
    for path in (data / "quarantine").glob("*.jsonl"):
        path.unlink()
    assert _verify(data).problem.startswith("quarantine/segment-000002.jsonl is missing")


def test_an_edited_line_is_named_with_its_coordinates(data: Path) -> None:
    path = data / "quarantine" / "segment-000002.jsonl"
    lines = path.read_text().splitlines()
    entry = json.loads(lines[1])
    entry["reason"] = "duplicate (harmless)"
    lines[1] = json.dumps(entry, sort_keys=True)
    path.write_text("\n".join(lines) + "\n")
    assert _verify(data).problem == (
        "quarantine/segment-000002.jsonl line 2 (round-events[0]@5) is not the line "
        "segment-000002.avro's checkpoint signed: it was edited, or is another chain's")


def test_a_removed_an_added_and_reordered_line_are_named(data: Path, tmp_path: Path) -> None:
    path = data / "quarantine" / "segment-000002.jsonl"
    original = path.read_bytes()
    first, second = original.splitlines()
    path.write_bytes(first + b"\n")
    assert _verify(data).problem.startswith(
        "quarantine/segment-000002.jsonl line 2 is missing: segment-000002.avro's signed "
        "checkpoint counts 2 quarantined messages in the file, it holds 1")
    path.write_bytes(second + b"\n" + first + b"\n")
    assert _verify(data).problem == (
        "quarantine/segment-000002.jsonl line 1 (round-events[0]@5) is line 2 of the signed "
        "quarantine: lines were reordered")
    path.write_bytes(original + second.replace(b'"offset": 5', b'"offset": 99') + b"\n")
    assert _verify(data).problem.startswith(
        "quarantine/segment-000002.jsonl line 3 (round-events[0]@5) is not in the signed "
        "quarantine (segment-000002.avro's checkpoint signs 2 lines)")
    path.write_bytes(original.rstrip(b"\n"))  # the last newline cut
    assert _verify(data).problem == ("quarantine/segment-000002.jsonl line 2: no newline at "
                                     "its end (the file was cut or edited)")
    path.write_bytes(original)
    assert _verify(data).ok


def test_a_quarantine_file_for_a_segment_that_had_none_is_named(data: Path) -> None:
    line = _lines(data / "quarantine" / "segment-000002.jsonl")[0]
    (data / "quarantine" / "segment-000003.jsonl").write_bytes(line + b"\n")
    assert _verify(data).problem.startswith(
        "quarantine/segment-000003.jsonl line 1 (round-events[0]@4) is not in the signed "
        "quarantine (segment-000003.avro's checkpoint signs 0 lines)")


def test_a_file_of_a_batch_not_yet_committed_is_left_alone(data: Path) -> None:
    """Ingest writes a batch's quarantine file before its segment: verify, running beside
    it, must not fail on it (and the next ingest removes it)."""
    (data / "quarantine" / "segment-000005.jsonl").write_text('{"offset": 8}\n')
    assert _verify(data).ok


def test_a_fifo_in_quarantine_is_named_not_waited_on(data: Path) -> None:
    import os

    (data / "quarantine" / "segment-000003.jsonl").unlink(missing_ok=True)
    os.mkfifo(data / "quarantine" / "segment-000003.jsonl")
    assert _verify(data).problem == "quarantine/segment-000003.jsonl: not a regular file"


def test_an_edited_quarantine_header_is_named(data: Path) -> None:
    seg = data / "log" / "segment-000002.avro"
    with seg.open("rb") as fo:
        r = reader(fo)
        meta = {k: v for k, v in r.metadata.items() if k.startswith("catwalk.")}
        records = list(r)
    q = json.loads(meta[META_QUARANTINE])
    q["leaves"] = list(reversed(q["leaves"]))
    meta[META_QUARANTINE] = json.dumps(q)
    with seg.open("wb") as fo:
        writer(fo, record_schema(), records, metadata=meta, codec="deflate")
    assert _verify(data).problem == (
        "segment-000002.avro: the header's catwalk.quarantine is not the signed quarantine: "
        "the header was edited")


@pytest.fixture
def two(tmp_path: Path) -> Path:
    """w1 quarantines round-events[0]@3, w2 round-events[1]@2."""
    data = tmp_path / "two"
    signer = None
    writers = []
    for name in ("w1", "w2"):
        chain = chain_of(data, name)
        signer = signer or load_signer(data)
        writers.append(LogWriter(chain.log, chain.quarantine, signer=signer,
                                 checkpoint_dir=chain.checkpoints))
    w1, w2 = writers
    w1.append([_received(0), _received(1), _received(2)], [_bad(3)])
    w2.append([dataclasses.replace(_received(i), partition=1) for i in range(2)],
              [_bad(2, b"other junk", partition=1)])
    w1.close()
    w2.close()
    return data


def test_a_line_moved_from_one_workers_quarantine_to_anothers_fails(two: Path) -> None:
    assert verify_data(two, _key(two)).ok
    w1 = two / "quarantine" / "workers" / "w1" / "segment-000001.jsonl"
    w2 = two / "quarantine" / "workers" / "w2" / "segment-000001.jsonl"
    line = w1.read_bytes()
    w2.write_bytes(w2.read_bytes() + line)
    copied = verify_data(two, _key(two))
    assert copied.problem == (
        "log of worker w2: quarantine/workers/w2/segment-000001.jsonl line 2 "
        "(round-events[0]@3) is not in the signed quarantine (segment-000001.avro's "
        "checkpoint signs 1 lines): a line was added, or copied from another chain's "
        "quarantine; that line is log of worker w1's quarantine/workers/w1/segment-000001.jsonl"
        " line 1")
    w1.write_bytes(b"")
    moved = verify_data(two, _key(two))
    assert moved.problem.startswith(
        "log of worker w1: quarantine/workers/w1/segment-000001.jsonl line 1 is missing")
    assert moved.problem.endswith(
        "; that line is log of worker w2's quarantine/workers/w2/segment-000001.jsonl line 2")


def test_a_workers_quarantine_swapped_with_anothers_fails(two: Path) -> None:
    w1 = two / "quarantine" / "workers" / "w1" / "segment-000001.jsonl"
    w2 = two / "quarantine" / "workers" / "w2" / "segment-000001.jsonl"
    a, b = w1.read_bytes(), w2.read_bytes()
    w1.write_bytes(b)
    w2.write_bytes(a)
    assert verify_data(two, _key(two)).problem == (
        "log of worker w1: quarantine/workers/w1/segment-000001.jsonl line 1 "
        "(round-events[1]@2) is not the line segment-000001.avro's checkpoint signed: it "
        "was edited, or is another chain's")


def test_topic_audit_trusts_only_the_signed_quarantine(two: Path) -> None:
    verdict = verify_data(two, _key(two))
    held, doubtful = _held(verdict, "round-events")
    assert ("round-events", 0, 3) in held and ("round-events", 1, 2) in held
    assert doubtful == {}
    w2 = two / "quarantine" / "workers" / "w2" / "segment-000001.jsonl"
    w2.write_bytes(w2.read_bytes() + w2.read_bytes().replace(b'"offset": 2', b'"offset": 7'))
    from ingest.topic_audit import TopicAuditError

    with pytest.raises(TopicAuditError, match="no longer the one that verified"):
        _held(verdict, "round-events")


def _unsign(data: Path) -> None:
    """Make the log what ingest wrote before checkpoints signed the quarantine: every
    checkpoint re-signed without ``catwalk-quarantine`` (with the data directory's key) and
    no quarantine in the segment headers."""
    signer = load_signer(data)
    for seg in segments(data / "log"):
        with seg.open("rb") as fo:
            r = reader(fo)
            meta = {k: v for k, v in r.metadata.items() if k.startswith("catwalk.")}
            records = list(r)
        cp = dataclasses.replace(parse(meta[META_CHECKPOINT]), quarantine=None)
        meta[META_CHECKPOINT] = signer.sign(cp)
        meta.pop(META_QUARANTINE)
        with seg.open("wb") as fo:
            writer(fo, record_schema(), records, metadata=meta, codec="deflate")
        (data / "checkpoints" / seg.name.replace(".avro", ".checkpoint")).write_text(
            meta[META_CHECKPOINT])
    (data / "checkpoints" / "latest.checkpoint").write_text(meta[META_CHECKPOINT])


def test_an_old_unsigned_quarantine_verifies_and_says_so(data: Path) -> None:
    _unsign(data)
    assert "catwalk-quarantine" not in (data / "checkpoints" / "latest.checkpoint").read_text()
    verdict = _verify(data)
    assert verdict.ok, verdict.problem
    assert not verdict.quarantine_signed
    assert verdict.line().endswith(
        "; quarantine not signed (written before checkpoints signed the quarantine)")
    (data / "quarantine" / "segment-000002.jsonl").unlink()
    assert _verify(data).ok  # what cannot be seen: the reason the report says so


def test_ingest_goes_on_signing_the_old_quarantine_as_it_stands(data: Path) -> None:
    _unsign(data)
    with LogWriter(data / "log", data / "quarantine") as log:
        log.append([_received(8)], [_bad(9)])
    verdict = _verify(data)
    assert verdict.ok, verdict.problem
    assert verdict.quarantine_signed and verdict.quarantined == 4
    (data / "quarantine" / "segment-000002.jsonl").unlink()
    assert _verify(data).problem.startswith(
        "quarantine/segment-000005.jsonl: the quarantine up to it does not give the "
        "quarantine root that segment-000005.avro's signed checkpoint holds (4 messages)")


def test_a_checkpoint_that_stops_signing_the_quarantine_fails(data: Path) -> None:
    signer = load_signer(data)
    seg = data / "log" / "segment-000004.avro"
    with seg.open("rb") as fo:
        r = reader(fo)
        meta = {k: v for k, v in r.metadata.items() if k.startswith("catwalk.")}
        records = list(r)
    meta[META_CHECKPOINT] = signer.sign(dataclasses.replace(parse(meta[META_CHECKPOINT]),
                                                            quarantine=None))
    with seg.open("wb") as fo:
        writer(fo, record_schema(), records, metadata=meta, codec="deflate")
    problem = verify_log(data / "log", _key(data)).problem
    assert problem == ("segment-000004.avro: its signed checkpoint does not sign the "
                       "quarantine, which the checkpoint before it did: the quarantine's "
                       "account was cut off")


def test_a_restarted_writer_goes_on_with_the_signed_quarantine_tree(data: Path) -> None:
    with LogWriter(data / "log", data / "quarantine") as log:
        log.append([], [_bad(8)])
    q = [*_lines(data / "quarantine" / "segment-000002.jsonl"),
         *_lines(data / "quarantine" / "segment-000004.jsonl"),
         *_lines(data / "quarantine" / "segment-000005.jsonl")]
    last = open_signed((data / "checkpoints" / "latest.checkpoint").read_text(), _key(data))
    h = [hashlib.sha256(b"\x00" + x).digest() for x in q]
    node = lambda a, b: hashlib.sha256(b"\x01" + a + b).digest()  # noqa: E731
    assert last.quarantine == (4, node(node(h[0], h[1]), node(h[2], h[3])))
    assert _verify(data).ok


@pytest.mark.kafka
def test_against_topic_trusts_the_signed_quarantine_through_the_broker(
        kafka_bootstrap: str, tmp_path: Path) -> None:
    import uuid

    from kafka import KafkaProducer

    from ingest.kafka_io import TopicSettings, ensure_topic
    from tests.conftest import run_cli
    from tests.test_log_headers import _event

    topic = f"qsigned-{uuid.uuid4().hex[:10]}"
    ensure_topic(kafka_bootstrap, topic, TopicSettings(partitions=1))
    with KafkaProducer(bootstrap_servers=kafka_bootstrap) as kp:
        for value in (_event(1), b"not an event", _event(2)):
            kp.send(topic, key=b"T01", value=value).get(timeout=30)
    data = tmp_path / "data"
    done = run_cli("ingest", "--data", str(data), "--topic", topic, "--bootstrap",
                   kafka_bootstrap, "--until-idle", "1", "--quiet", timeout=120)
    assert done.returncode == 0, done.stderr
    vkey = _key(data).vkey

    def verify() -> object:
        return run_cli("ingest", "verify", "--data", str(data), "--key", vkey,
                       "--against-topic", topic, "--bootstrap", kafka_bootstrap)

    ok = verify()
    assert ok.returncode == 0, ok.stderr
    assert "; 1 quarantined messages signed" in ok.stdout
    assert f"all 3 messages of topic {topic} are in the log or in quarantine" in ok.stdout
    (quarantined,) = (data / "quarantine").glob("segment-*.jsonl")
    quarantined.unlink()
    removed = verify()
    assert removed.returncode == 1
    assert f"quarantine/{quarantined.name} is missing" in removed.stderr


def test_against_topic_names_a_message_only_in_an_unsigned_quarantine(data: Path) -> None:
    _unsign(data)
    verdict = verify_data(data, _key(data))
    assert verdict.ok, verdict.problem
    held, doubtful = _held(verdict, "round-events")
    assert sorted(held) == [("round-events", 0, i) for i in (0, 1, 2, 3, 6)]
    assert sorted(doubtful) == [("round-events", 0, i) for i in (4, 5, 7)]
    assert doubtful[("round-events", 0, 4)] == (
        "only in the quarantine of the log, which is not signed (written before checkpoints "
        "signed the quarantine): not trusted")
