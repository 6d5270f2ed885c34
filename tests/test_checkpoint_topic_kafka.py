"""Drills through the real broker: the checkpoint topic read as a whole history, and the
event topic checked as a witness (``python -m ingest verify --against-topic``).

An insider without the signing key rolls the log back (deletes its newest segments and
their checkpoint files, re-publishes an older signed checkpoint, trims the event topic
with DeleteRecords), or tries to blind verify (a tombstone, garbage, compaction, deletion
of the checkpoint topic). Every rollback must fail; nothing placed on the topic may make a
log that is whole fail.
"""

from __future__ import annotations

import re
import shutil
import time
import uuid
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType

from ingest.kafka_io import TopicSettings, ensure_topic
from schemas import WagerPlaced, encode
from schemas.checkpoint import Checkpoint, Signer, open_signed, parse, read_verifier
from schemas.logformat import segments
from tests.conftest import run_cli
from tests.drill_support import recreate_topic
from tests.events_factory import Table

pytestmark = [pytest.mark.kafka, pytest.mark.drills]


def _events(first: int, n: int) -> list[bytes]:
    table = Table()
    return [encode(table.event("T01-000001", WagerPlaced(seat=1, wager="main",
                                                         amount_cents=100 + i), seq=i + 1))
            for i in range(first, first + n)]


def _send(servers: str, topic: str, values: list[bytes | None], key: bytes | None = b"T01",
          ) -> list[int]:
    """Send, and return the offset the broker gave each message."""
    with KafkaProducer(bootstrap_servers=servers) as kp:
        return [kp.send(topic, key=key, value=v).get(timeout=30).offset for v in values]


def _ingest(servers: str, topic: str, data: Path) -> None:
    done = run_cli("ingest", "--data", str(data), "--topic", topic, "--bootstrap", servers,
                   "--until-idle", "1", "--quiet", timeout=180)
    assert done.returncode == 0, done.stderr


def _verify(data: Path, topic: str | None, servers: str):
    vkey = (data / "keys" / "signing.pub").read_text().strip()
    extra = [] if topic is None else ["--against-topic", topic, "--bootstrap", servers]
    return run_cli("ingest", "verify", "--data", str(data), "--key", vkey, *extra)


def _raw(servers: str, topic: str) -> list[tuple[int, bytes | None]]:
    """Every message of a one-partition topic, (offset, value), read here without the code
    under test."""
    tp = TopicPartition(topic, 0)
    kc = KafkaConsumer(bootstrap_servers=servers, enable_auto_commit=False,
                       auto_offset_reset="earliest")
    try:
        kc.assign([tp])
        kc.seek_to_beginning(tp)
        end = kc.end_offsets([tp])[tp]
        out: list[tuple[int, bytes | None]] = []
        deadline = time.monotonic() + 30
        while kc.position(tp) < end and time.monotonic() < deadline:
            for batch in kc.poll(timeout_ms=500).values():
                out.extend((m.offset, m.value) for m in batch)
        return out
    finally:
        kc.close()


def _published(servers: str, topic: str, data: Path) -> list[tuple[int, Checkpoint]]:
    key = read_verifier(data / "keys" / "signing.pub")
    return [(o, open_signed(v.decode(), key)) for o, v in _raw(servers, topic + "-checkpoints")
            if v is not None]


def _roll_back(data: Path, keep: int) -> str:
    """The insider's rollback: every segment after the first ``keep`` deleted with its
    checkpoint file, ``latest.checkpoint`` replaced by the last kept segment's; returns that
    (older, genuinely signed) checkpoint."""
    segs = segments(data / "log")
    assert len(segs) > keep
    for seg in segs[keep:]:
        seg.unlink()
        (data / "checkpoints" / seg.name.replace(".avro", ".checkpoint")).unlink()
    text = (data / "checkpoints" / segs[keep - 1].name.replace(".avro", ".checkpoint")
            ).read_text()
    (data / "checkpoints" / "latest.checkpoint").write_text(text)
    return text


def _logged(servers: str, tmp_path: Path, prefix: str,
            batches: tuple[int, ...]) -> tuple[str, Path, list[int]]:
    """A one-partition topic, each batch of events sent and ingested in turn; the topic, the
    data directory and the number of segments after each ingest."""
    topic = f"{prefix}-{uuid.uuid4().hex[:10]}"
    assert ensure_topic(servers, topic, TopicSettings(partitions=1))  # as ingest creates it
    data = tmp_path / "data"
    counts = []
    first = 0
    for n in batches:
        _send(servers, topic, list(_events(first, n)))
        first += n
        _ingest(servers, topic, data)
        counts.append(len(segments(data / "log")))
    return topic, data, counts


def _set_config(servers: str, topic: str, policy: str) -> None:
    """Set the topic's cleanup.policy, and wait until the broker says it is set."""
    with KafkaAdminClient(bootstrap_servers=servers) as admin:
        admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic,
                                            {"cleanup.policy": policy})])
    deadline = time.monotonic() + 30
    while _config(servers, topic)["cleanup.policy"] != policy:
        assert time.monotonic() < deadline, "the broker did not take the setting"
        time.sleep(0.2)


def _config(servers: str, topic: str) -> dict[str, str]:
    with KafkaAdminClient(bootstrap_servers=servers) as admin:
        found = admin.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, topic, ["cleanup.policy",
                                                              "retention.ms"])],
            config_filter="all")
    return {k: v["value"] for k, v in found["topic"][topic].items()}


def _delete_records(servers: str, topic: str, before: int) -> None:
    with KafkaAdminClient(bootstrap_servers=servers) as admin:
        admin.delete_records({TopicPartition(topic, 0): before})


def test_a_rollback_fails_with_and_without_the_event_topic_trimmed(
        kafka_bootstrap: str, tmp_path: Path) -> None:
    topic, data, counts = _logged(kafka_bootstrap, tmp_path, "rollback", (5, 4, 4))
    cp_topic = topic + "-checkpoints"
    published = _published(kafka_bootstrap, topic, data)
    largest = max(cp.size for _, cp in published)
    assert largest == 13
    offset, newest = min((o, cp) for o, cp in published if cp.size == 13)

    older = _roll_back(data, counts[0])
    assert parse(older).size == 5
    _send(kafka_bootstrap, cp_topic, [older.encode()], key=None)  # the last message: older
    alone = _verify(data, None, kafka_bootstrap)
    assert alone.returncode == 0, alone.stderr  # the directory alone looks whole

    rolled = _verify(data, topic, kafka_bootstrap)
    assert rolled.returncode == 1, rolled.stdout
    assert (f"{cp_topic}[0]@{offset}: signed at {newest.signed_at}, it covers 13 records but "
            "the log holds 5: records 5 to 12 were removed") in rolled.stderr, rolled.stderr
    assert f"MISSING: {topic}[0]@5: in the topic, neither in the log nor in quarantine" \
        in rolled.stderr
    assert "Traceback" not in rolled.stderr

    # Trim the event topic too, so that it no longer shows the messages the log lost.
    _delete_records(kafka_bootstrap, topic, 13)
    trimmed = _verify(data, topic, kafka_bootstrap)
    assert trimmed.returncode == 1, trimmed.stdout
    assert (f"{cp_topic}[0]@{offset}: signed at {newest.signed_at}, it covers 13 records but "
            "the log holds 5") in trimmed.stderr
    assert (f"FAILED: {topic}[0]: its log start offset is 13 (messages were deleted from the "
            f"topic: DeleteRecords, or retention), and the log lacks {topic}[0]@5 (8 of the "
            "offsets before 13 are neither in the log nor in quarantine)") in trimmed.stderr
    assert "MISSING" not in trimmed.stderr
    assert "all 0 messages" not in trimmed.stdout


def test_a_tombstone_is_skipped_and_does_not_blind_verify(kafka_bootstrap: str,
                                                           tmp_path: Path) -> None:
    topic, data, counts = _logged(kafka_bootstrap, tmp_path, "tombstone", (5, 4))
    cp_topic = topic + "-checkpoints"
    [tomb] = _send(kafka_bootstrap, cp_topic, [None], key=b"latest")
    messages = _raw(kafka_bootstrap, cp_topic)
    assert messages[-1] == (tomb, None)
    ok = _verify(data, topic, kafka_bootstrap)
    assert ok.returncode == 0, ok.stderr
    assert (f"checkpoint topic {cp_topic}: {len(messages)} messages read, "
            f"{len(messages) - 1} signed checkpoints matched, 1 skipped (1 tombstone (no "
            "value))") in ok.stdout, ok.stdout
    assert f"skipped: {cp_topic}[0]@{tomb}: tombstone (no value)" in ok.stderr

    _roll_back(data, counts[0])
    rolled = _verify(data, topic, kafka_bootstrap)
    assert rolled.returncode == 1
    assert "it covers 9 records but the log holds 5: records 5 to 8 were removed" \
        in rolled.stderr, rolled.stderr


def test_garbage_on_the_checkpoint_topic_is_named_skipped_and_never_fails_verify(
        kafka_bootstrap: str, tmp_path: Path) -> None:
    topic, data, _ = _logged(kafka_bootstrap, tmp_path, "garbage", (5,))
    cp_topic = topic + "-checkpoints"
    genuine = (data / "checkpoints" / "latest.checkpoint").read_text()
    cp = parse(genuine)
    # A checkpoint of this very log claiming 999 records, signed by a key of the insider's.
    forged = Signer(cp_name := "catwalk-ingest", Ed25519PrivateKey.generate()).sign(
        Checkpoint(log_id=cp.log_id, size=999, root=bytes(32), signed_at=cp.signed_at,
                   next_offsets=dict(cp.next_offsets), segment=cp.segment, chain=cp.chain))
    lines = genuine.split("\n")
    lines[1] = "999"  # the body altered under the genuine signature
    altered = "\n".join(lines)
    offsets = _send(kafka_bootstrap, cp_topic,
                    [b"x" * 70_000, b"\xff\xfe not text", b"not a checkpoint at all",
                     forged.encode(), altered.encode()], key=None)
    assert cp_name in forged
    messages = _raw(kafka_bootstrap, cp_topic)
    ok = _verify(data, topic, kafka_bootstrap)
    assert ok.returncode == 0, ok.stderr
    assert (f"{len(messages)} messages read, {len(messages) - 5} signed checkpoints matched, "
            "5 skipped (1 oversized, 1 not UTF-8 text, 1 not a checkpoint, 1 signed by another "
            "key, 1 bad signature)") in ok.stdout, ok.stdout
    for offset, words in zip(offsets, ["oversized (70,000 bytes; a checkpoint is at most "
                                       "65,536)", "not UTF-8 text", "not a checkpoint",
                                       "signed by another key", "bad signature"],
                             strict=True):
        assert f"skipped: {cp_topic}[0]@{offset}: {words}" in ok.stderr, ok.stderr
    assert "all 5 messages of topic" in ok.stdout


def test_a_compacted_checkpoint_topic_fails_and_the_settings_are_reported(
        kafka_bootstrap: str, tmp_path: Path) -> None:
    topic, data, _ = _logged(kafka_bootstrap, tmp_path, "compacted", (5,))
    cp_topic = topic + "-checkpoints"
    # Ingest created the checkpoint topic, and the event topic, to be kept forever.
    for created in (cp_topic, topic):
        assert _config(kafka_bootstrap, created) == {"cleanup.policy": "delete",
                                                     "retention.ms": "-1"}
    ok = _verify(data, topic, kafka_bootstrap)
    assert ok.returncode == 0, ok.stderr
    assert (f"verify: checkpoint topic {cp_topic}: cleanup.policy=delete, retention.ms=-1 "
            "(kept forever)") in ok.stdout, ok.stdout

    _set_config(kafka_bootstrap, cp_topic, "compact")
    compacted = _verify(data, topic, kafka_bootstrap)
    assert compacted.returncode == 1, compacted.stdout
    assert (f"FAILED: the checkpoint topic {cp_topic} is compacted (cleanup.policy=compact): "
            "compaction deletes checkpoints") in compacted.stderr, compacted.stderr

    _set_config(kafka_bootstrap, cp_topic, "delete")
    _set_config(kafka_bootstrap, topic, "compact,delete")
    event_compacted = _verify(data, topic, kafka_bootstrap)
    assert event_compacted.returncode == 1
    assert (f"FAILED: topic {topic} is compacted (cleanup.policy=compact,delete)"
            in event_compacted.stderr), event_compacted.stderr


def test_a_trimmed_deleted_or_recreated_checkpoint_topic_fails(kafka_bootstrap: str,
                                                               tmp_path: Path) -> None:
    topic, data, _ = _logged(kafka_bootstrap, tmp_path, "cpdeleted", (5,))
    cp_topic = topic + "-checkpoints"
    last = segments(data / "log")[-1].name.replace(".avro", ".checkpoint")
    signed_at = parse((data / "checkpoints" / last).read_text()).signed_at  # the log's own
    _delete_records(kafka_bootstrap, cp_topic, 1)
    trimmed = _verify(data, topic, kafka_bootstrap)
    assert trimmed.returncode == 1
    assert (f"FAILED: the checkpoint topic {cp_topic}[0] starts at offset 1: the 1 "
            "checkpoints before it were deleted") in trimmed.stderr, trimmed.stderr

    with KafkaAdminClient(bootstrap_servers=kafka_bootstrap) as admin:
        admin.delete_topics([cp_topic])
        deadline = time.monotonic() + 60
        while cp_topic in admin.list_topics():
            assert time.monotonic() < deadline
            time.sleep(0.5)
    deleted = _verify(data, topic, kafka_bootstrap)
    assert deleted.returncode == 1, deleted.stdout
    assert (f"FAILED: the checkpoint topic {cp_topic} does not exist, but the log has signed "
            f"checkpoints (log: 5 records signed at {signed_at}): the topic was deleted"
            in deleted.stderr), deleted.stderr
    with KafkaAdminClient(bootstrap_servers=kafka_bootstrap) as admin:
        assert cp_topic not in admin.list_topics()  # verify did not create it by asking

    with KafkaAdminClient(bootstrap_servers=kafka_bootstrap) as admin:
        admin.create_topics({cp_topic: {"num_partitions": 1, "replication_factor": 1}},
                            wait_for_metadata=True)
    empty = _verify(data, topic, kafka_bootstrap)
    assert empty.returncode == 1
    assert (f"FAILED: the checkpoint topic {cp_topic} holds no checkpoint of log" in
            empty.stderr), empty.stderr


def test_an_event_topic_trimmed_past_the_log_or_recreated_fails(kafka_bootstrap: str,
                                                                tmp_path: Path) -> None:
    topic, data, _ = _logged(kafka_bootstrap, tmp_path, "trimmed", (5,))
    _delete_records(kafka_bootstrap, topic, 3)  # messages the log holds: a note, no failure
    ok = _verify(data, topic, kafka_bootstrap)
    assert ok.returncode == 0, ok.stderr
    assert (f"note: {topic}[0]: its log start offset is 3: the 3 messages before it were "
            "deleted from the topic, and the log or the quarantine holds every one of them"
            in ok.stderr)
    assert f"all 2 messages of topic {topic} are in the log or in quarantine" in ok.stdout

    _send(kafka_bootstrap, topic, list(_events(5, 4)))  # offsets 5 to 8, never ingested
    _delete_records(kafka_bootstrap, topic, 9)
    lost = _verify(data, topic, kafka_bootstrap)
    assert lost.returncode == 1, lost.stdout
    assert (f"FAILED: {topic}[0]: its log start offset is 9 (messages were deleted from the "
            f"topic: DeleteRecords, or retention), and the log lacks {topic}[0]@5 (4 of the "
            "offsets before 9 are neither in the log nor in quarantine)") in lost.stderr

    recreate_topic(kafka_bootstrap, topic)  # empty again: offsets start at 0
    recreated = _verify(data, topic, kafka_bootstrap)
    assert recreated.returncode == 1, recreated.stdout
    assert (f"FAILED: {topic}[0]: the topic ends at offset 0, but the log holds {topic}[0]@4: "
            "the topic was deleted and recreated, or truncated") in recreated.stderr
    assert "all 0 messages" not in recreated.stdout


def test_a_whole_worker_chain_removed_is_shown_by_its_checkpoints_on_the_topic(
        kafka_bootstrap: str, tmp_path: Path) -> None:
    """Two workers' chains, the second one's directories removed together: the data
    directory alone looks like the first worker's whole log; the topic still holds the
    checkpoints of the second chain's log id."""
    topic = f"workers-{uuid.uuid4().hex[:10]}"
    assert ensure_topic(kafka_bootstrap, topic, TopicSettings(partitions=1))
    data = tmp_path / "data"
    for worker, first, n in (("w1", 0, 5), ("w2", 5, 4)):
        _send(kafka_bootstrap, topic, list(_events(first, n)))
        done = run_cli("ingest", "--data", str(data), "--topic", topic, "--bootstrap",
                       kafka_bootstrap, "--worker", worker, "--until-idle", "1", "--quiet",
                       timeout=180)
        assert done.returncode == 0, done.stderr
    w2 = [data / "log" / "workers" / "w2", data / "checkpoints" / "workers" / "w2"]
    assert segments(w2[0]), "the second worker wrote no segment"
    w2_log = parse((w2[1] / "latest.checkpoint").read_text()).log_id
    whole = _verify(data, topic, kafka_bootstrap)
    assert whole.returncode == 0, whole.stderr

    for path in [*w2, data / "quarantine" / "workers" / "w2"]:
        shutil.rmtree(path, ignore_errors=True)
    alone = _verify(data, None, kafka_bootstrap)
    assert alone.returncode == 0, alone.stderr  # the directory alone looks whole
    removed = _verify(data, topic, kafka_bootstrap)
    assert removed.returncode == 1
    assert re.search(rf"{topic}-checkpoints\[0\]@\d+: a checkpoint of log {w2_log} \(4 "
                     r"records, signed at \S+Z\), which no chain of .* is .*: a whole chain "
                     "was removed", removed.stderr), removed.stderr
