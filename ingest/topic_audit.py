"""Compare the log with the topic it was ingested from (``verify --against-topic``).

The audit topic is kept forever (retention -1), so it is a second witness of what the tables
sent: every message in it must be in the log, byte for byte (key and value, at its
``topic[partition]@offset``), or in quarantine with its reason. A message in neither is
named: it was lost or removed after ingest, or ingest has not reached it yet (run it again
after ingest has caught up).

A quarantined message counts only when it is in the signed quarantine of a chain that
verified (``schemas.quarantine``: its file is one of the chain's segments, its lines give
the quarantine root of the chain's last checkpoint) and below the Kafka offset that
checkpoint signs for its partition. A line in a quarantine that is not signed (written
before checkpoints signed it), or added after verification, is named, not trusted.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time

from kafka import KafkaConsumer, TopicPartition
from kafka.errors import KafkaError

from schemas.log_verify import LOG_ERRORS, DataVerdict, LogVerdict
from schemas.logformat import Chain, read_log
from schemas.merkle import Tree
from schemas.quarantine import (
    QuarantineUnreadable,
    committed_files,
    grown,
    leaves,
    read_lines,
    shown,
)

Where = tuple[str, int, int]


class TopicAuditError(Exception):
    """The comparison cannot be made (the log, the quarantine or the topic cannot be read);
    the message says which."""


def _digest(key: bytes | None, value: bytes | None) -> bytes:
    h = hashlib.sha256()
    for part in (key, value):
        h.update(b"\x00" if part is None else b"\x01" + len(part).to_bytes(8, "big") + part)
    return h.digest()


def _held(verdict: DataVerdict, topic: str) -> tuple[dict[Where, bytes], dict[Where, str]]:
    """What the log holds of ``topic``: every chain's records and every chain's signed
    quarantine (the lone ingest's and each worker's), given the verdict of a log that
    verified; and why each quarantined message that is not trusted is not."""
    held: dict[Where, bytes] = {}
    doubtful: dict[Where, str] = {}
    found = [chain for chain, _ in verdict.chains]
    for chain in found:
        try:
            for rec in read_log(chain.log):
                if rec.topic == topic:
                    held[(rec.topic, rec.partition, rec.offset)] = _digest(rec.key, rec.value)
        except LOG_ERRORS as exc:
            named = "" if len(found) == 1 and not chain.name else f" ({chain.label})"
            raise TopicAuditError(f"the log cannot be read{named}: {exc}") from exc
    for chain, chained in verdict.chains:
        for where, digest, why in _quarantined(chain, chained, topic):
            if why is None:
                held[where] = digest
            elif where not in held:
                doubtful[where] = why
    return held, doubtful


def _quarantined(chain: Chain, verdict: LogVerdict,
                 topic: str) -> list[tuple[Where, bytes, str | None]]:
    """The quarantined messages of ``topic`` in one chain, each with None when it is in the
    chain's signed quarantine, else why it is not trusted."""
    cp = verdict.checkpoint
    if cp is None or not cp.segment:
        return []
    upto = int(cp.segment.split("-")[1].split(".")[0])
    tree = Tree()
    out: list[tuple[Where, bytes, str | None]] = []
    for path in committed_files(chain.quarantine, upto):
        try:
            lines = read_lines(path) or []
        except QuarantineUnreadable as exc:
            raise TopicAuditError(str(exc)) from exc
        tree = grown(tree, leaves(lines))
        for n, line in enumerate(lines, start=1):
            try:
                entry = json.loads(line)
                key = None if entry["key_b64"] is None else base64.b64decode(entry["key_b64"])
                value = (None if entry["value_b64"] is None
                         else base64.b64decode(entry["value_b64"]))
                where = (entry["topic"], int(entry["partition"]), int(entry["offset"]))
            except (ValueError, KeyError, TypeError) as exc:
                raise TopicAuditError(f"{shown(path)}:{n}: not a quarantine line "
                                      f"({exc})") from exc
            if where[0] != topic:
                continue
            why = None
            if not verdict.quarantine_signed or cp.quarantine is None:
                why = (f"only in the quarantine of the {chain.label}, which is not signed "
                       "(written before checkpoints signed the quarantine): not trusted")
            elif where[2] >= cp.next_offsets.get(f"{where[0]}[{where[1]}]", 0):
                why = (f"in the quarantine of the {chain.label} ({shown(path)} line {n}), "
                       "past the offsets its signed checkpoint holds")
            out.append((where, _digest(key, value), why))
    if cp.quarantine is not None and (tree.size, tree.root()) != cp.quarantine:
        raise TopicAuditError(f"the quarantine of the {chain.label} is no longer the one "
                              "that verified (a file was changed since): verify again")
    return out


def missing_messages(verdict: DataVerdict, topic: str, servers: str,
                     timeout_s: float = 60.0) -> tuple[list[str], int]:
    """(what the log lacks, one line each; messages read from the topic), given the verdict
    of the log that verified (``schemas.log_verify.verify_data``)."""
    held, doubtful = _held(verdict, topic)
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
                    if got is None and where in doubtful:
                        missing.append(f"{m.topic}[{m.partition}]@{m.offset}: "
                                       f"{doubtful[where]}")
                    elif got is None:
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
