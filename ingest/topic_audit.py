"""Compare the log with the topic it was ingested from (``verify --against-topic``).

The audit topic is kept forever (retention -1), so it is a second witness of what the tables
sent: every message in it must be in the log, byte for byte (key and value, at its
``topic[partition]@offset``), or in quarantine with its reason. A message in neither is
named: it was lost or removed after ingest, or ingest has not reached it yet (run it again
after ingest has caught up).
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from pathlib import Path

from kafka import KafkaConsumer, TopicPartition
from kafka.errors import KafkaError

from schemas.log_verify import LOG_ERRORS, data_chains
from schemas.logformat import LogError, open_regular, read_log

Where = tuple[str, int, int]


class TopicAuditError(Exception):
    """The comparison cannot be made (the log, the quarantine or the topic cannot be read);
    the message says which."""


def _digest(key: bytes | None, value: bytes | None) -> bytes:
    h = hashlib.sha256()
    for part in (key, value):
        h.update(b"\x00" if part is None else b"\x01" + len(part).to_bytes(8, "big") + part)
    return h.digest()


def _held(data: Path, topic: str) -> dict[Where, bytes]:
    """What the log holds of ``topic``: every chain's records and every chain's quarantine
    (the lone ingest's and each worker's)."""
    held: dict[Where, bytes] = {}
    found = data_chains(data)
    for chain in found:
        try:
            for rec in read_log(chain.log):
                if rec.topic == topic:
                    held[(rec.topic, rec.partition, rec.offset)] = _digest(rec.key, rec.value)
        except LOG_ERRORS as exc:
            named = "" if len(found) == 1 and not chain.name else f" ({chain.label})"
            raise TopicAuditError(f"the log cannot be read{named}: {exc}") from exc
    for path in [p for chain in found for p in sorted(chain.quarantine.glob("segment-*.jsonl"))]:
        try:  # a regular file only: a FIFO or a symlink there is named, never read
            with open_regular(path, "quarantine file") as fo:
                text = fo.read().decode("utf-8")
        except (LogError, OSError, UnicodeDecodeError) as exc:
            raise TopicAuditError(f"the quarantine cannot be read: {exc}") from exc
        for n, line in enumerate(text.splitlines(), start=1):
            try:
                entry = json.loads(line)
                key = None if entry["key_b64"] is None else base64.b64decode(entry["key_b64"])
                value = (None if entry["value_b64"] is None
                         else base64.b64decode(entry["value_b64"]))
                where = (entry["topic"], int(entry["partition"]), int(entry["offset"]))
            except (ValueError, KeyError, TypeError) as exc:
                raise TopicAuditError(f"{path}:{n}: not a quarantine line ({exc})") from exc
            if where[0] == topic:
                held[where] = _digest(key, value)
    return held


def missing_messages(data: Path, topic: str, servers: str,
                     timeout_s: float = 60.0) -> tuple[list[str], int]:
    """(what the log lacks, one line each; messages read from the topic)."""
    held = _held(data, topic)
    try:
        consumer = KafkaConsumer(bootstrap_servers=servers, group_id=None,
                                 enable_auto_commit=False, client_id="catwalk-verify",
                                 isolation_level="read_committed")
    except KafkaError as exc:
        raise TopicAuditError(f"cannot reach Kafka at {servers}: {exc!r}") from exc
    try:
        partitions = consumer.partitions_for_topic(topic)
        if not partitions:
            raise TopicAuditError(f"topic {topic} does not exist at {servers}")
        tps = [TopicPartition(topic, p) for p in sorted(partitions)]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        ends = consumer.end_offsets(tps)
        missing: list[str] = []
        checked = 0
        deadline = time.monotonic() + timeout_s
        while any(consumer.position(tp) < ends[tp] for tp in tps):
            if time.monotonic() > deadline:
                raise TopicAuditError(
                    f"the topic could not be read to its end in {timeout_s:.0f} s")
            for batch in consumer.poll(timeout_ms=1000).values():
                for m in batch:
                    checked += 1
                    where = (m.topic, m.partition, m.offset)
                    got = held.get(where)
                    if got is None:
                        missing.append(f"{m.topic}[{m.partition}]@{m.offset}: in the topic, "
                                       "neither in the log nor in quarantine")
                    elif got != _digest(m.key, m.value):
                        missing.append(f"{m.topic}[{m.partition}]@{m.offset}: the log holds "
                                       "other bytes than the topic")
    except KafkaError as exc:
        raise TopicAuditError(f"reading topic {topic}: {exc!r}") from exc
    finally:
        consumer.close()
    return missing, checked
