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

A witness is only as good as what it still holds, so the topic itself is checked too
(:func:`topic_state`: its partitions' log start and end offsets, and its ``cleanup.policy``
and ``retention.ms`` read with the admin client, Kafka's DescribeConfigs), and these are
failures, each named (:func:`audit_topic`):

- a partition whose log start offset moved past offsets the log and the quarantine do not
  hold: messages deleted from the topic (DeleteRecords, or a retention that is not -1)
  before the log took them, named by the partition, the start offset and the first offset
  the log lacks;
- a partition that ends below the offsets the log holds of it, or that the topic no longer
  has: the topic was deleted and recreated (or truncated);
- a compacted topic (``cleanup.policy`` containing ``compact``): compaction keeps only the
  last message of each key, and the tables key by table;
- a topic that does not exist while the log holds messages of it: it was deleted.

Reading is bounded: the topic is read to the end offsets it had when reading began, and a
read that makes no progress for :data:`STALL_S` seconds stops, said.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType
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

STALL_S = 30.0
"""A topic read that receives nothing for this long, short of the end offsets it set out to
reach, stops and says so (the broker is gone or the topic cannot be fetched)."""
CONFIG_KEYS = ("cleanup.policy", "retention.ms")
"""The topic settings verify reads and reports: what decides whether the topic keeps what it
was given."""


class TopicAuditError(Exception):
    """The comparison cannot be made (the log, the quarantine or the topic cannot be read);
    the message says which."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TopicState:
    """What the broker says of a topic: whether it exists, each partition's log start
    offset and end offset, and its settings (:data:`CONFIG_KEYS`)."""

    topic: str
    exists: bool
    starts: Mapping[int, int] = field(default_factory=dict)
    """partition -> log start offset (the first offset the topic still holds; 0 unless
    messages were deleted)."""
    ends: Mapping[int, int] = field(default_factory=dict)
    """partition -> end offset (the next offset to be written)."""
    config: Mapping[str, str] = field(default_factory=dict)

    @property
    def compacted(self) -> bool:
        return "compact" in self.config.get("cleanup.policy", "").replace(" ", "").split(",")

    def settings(self) -> str:
        """The settings, for a person: ``cleanup.policy=delete, retention.ms=-1 (kept
        forever)``."""
        text = ", ".join(f"{k}={self.config.get(k, '?')}" for k in CONFIG_KEYS)
        forever = self.config.get("retention.ms") == "-1" and not self.compacted
        return text + (" (kept forever)" if forever else
                       " (NOT kept forever: messages will be deleted, and verify will then "
                       "fail)")


def verify_consumer(servers: str) -> Any:
    """A consumer that reads without a group and never creates a topic by asking for it."""
    try:
        return KafkaConsumer(bootstrap_servers=servers, group_id=None,
                             enable_auto_commit=False, client_id="catwalk-verify",
                             isolation_level="read_committed", allow_auto_create_topics=False,
                             auto_offset_reset="earliest")
    except KafkaError as exc:
        raise TopicAuditError(f"cannot reach Kafka at {servers}: {exc!r}") from exc


def topic_state(servers: str, topic: str) -> TopicState:
    """The topic as the broker has it now (:class:`TopicState`); TopicAuditError when the
    broker cannot say (unreachable, or the settings cannot be read: DescribeConfigs)."""
    kc = verify_consumer(servers)
    try:
        partitions = kc.partitions_for_topic(topic)
        if not partitions:
            return TopicState(topic=topic, exists=False)
        tps = [TopicPartition(topic, p) for p in sorted(partitions)]
        starts = {tp.partition: o for tp, o in kc.beginning_offsets(tps).items()}
        ends = {tp.partition: o for tp, o in kc.end_offsets(tps).items()}
    except KafkaError as exc:
        raise TopicAuditError(f"cannot read the offsets of topic {topic}: {exc!r}") from exc
    finally:
        kc.close()
    try:
        with KafkaAdminClient(bootstrap_servers=servers, client_id="catwalk-verify",
                              request_timeout_ms=15_000) as admin:
            found = admin.describe_configs(
                [ConfigResource(ConfigResourceType.TOPIC, topic, list(CONFIG_KEYS))],
                config_filter="all")
    except KafkaError as exc:
        raise TopicAuditError(f"cannot read the settings of topic {topic} (DescribeConfigs): "
                              f"{exc!r}") from exc
    entries = found.get("topic", {}).get(topic, {})
    config = {k: str(entries[k]["value"]) for k in CONFIG_KEYS
              if k in entries and entries[k].get("value") is not None}
    if set(config) != set(CONFIG_KEYS):
        raise TopicAuditError(f"the broker did not give the settings {', '.join(CONFIG_KEYS)} "
                              f"of topic {topic} (DescribeConfigs gave {sorted(entries)})")
    return TopicState(topic=topic, exists=True, starts=starts, ends=ends, config=config)


def read_to_end(kc: Any, state: TopicState, *, stall_s: float = STALL_S) -> Iterator[Any]:
    """Every message of the topic from each partition's log start offset to the end offset
    ``state`` saw, in order per partition (``kc`` is a :func:`verify_consumer`); a read that
    gets nothing for ``stall_s`` seconds stops (TopicAuditError, naming where it stood)."""
    tps = [TopicPartition(state.topic, p) for p in sorted(state.ends)]
    kc.assign(tps)
    for tp in tps:
        kc.seek(tp, state.starts.get(tp.partition, 0))
    ends = {tp: state.ends[tp.partition] for tp in tps}
    last = time.monotonic()
    while True:
        behind = [tp for tp in tps if kc.position(tp) < ends[tp]]
        if not behind:
            return
        if time.monotonic() - last > stall_s:
            where = ", ".join(f"{tp.topic}[{tp.partition}]@{kc.position(tp)} of "
                              f"{ends[tp]}" for tp in behind)
            raise TopicAuditError(f"topic {state.topic} could not be read to its end: nothing "
                                  f"arrived for {stall_s:.0f} s at {where}")
        for tp, batch in kc.poll(timeout_ms=1000, max_records=1000).items():
            last = time.monotonic()
            for m in batch:
                if m.offset < ends[tp]:
                    yield m


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


@dataclass(frozen=True, slots=True, kw_only=True)
class TopicAudit:
    """What comparing the log with its topic found."""

    state: TopicState
    checked: int
    """Messages read from the topic."""
    missing: tuple[str, ...]
    """Messages in the topic that the log and the quarantine lack (or hold other bytes of),
    one line each: ``topic[partition]@offset: ...``."""
    failures: tuple[str, ...]
    """What is wrong with the topic as a witness (trimmed, recreated, compacted, deleted),
    one line each."""
    notes: tuple[str, ...]
    """What is worth saying but proves nothing wrong (messages deleted from the topic that
    the log holds every one of)."""


def _first_lacking(offsets: list[int], below: int) -> tuple[int, int] | None:
    """(the first offset below ``below`` that ``offsets`` (sorted) lacks, how many it lacks
    below ``below``), or None when it holds them all."""
    held = [o for o in offsets if o < below]
    lacking = below - len(held)
    if lacking == 0:
        return None
    expected = 0
    for o in held:
        if o != expected:
            break
        expected = o + 1
    return expected, lacking


def trim_problems(state: TopicState, held: Mapping[int, list[int]]) -> tuple[list[str],
                                                                            list[str]]:
    """(failures, notes) of a topic against what the log and the quarantine hold of it
    (partition -> the offsets held, sorted): a log start offset past offsets the log lacks;
    a partition that ends below, or lacks, offsets the log holds; compaction; deletion."""
    topic = state.topic
    failures: list[str] = []
    notes: list[str] = []
    if not state.exists:
        if any(held.values()):
            count = sum(len(v) for v in held.values())
            failures.append(f"topic {topic} does not exist, but the log holds {count:,} "
                            "messages of it: the topic was deleted")
        return failures, notes
    if state.compacted:
        failures.append(f"topic {topic} is compacted (cleanup.policy="
                        f"{state.config.get('cleanup.policy')}): compaction deletes every "
                        "message but the last of each key, so the topic is no witness of what "
                        "was sent")
    for p in sorted(set(held) | set(state.ends)):
        offsets = held.get(p, [])
        if p not in state.ends:
            if offsets:
                failures.append(f"{topic}[{p}]: the topic has no partition {p}, but the log "
                                f"holds {len(offsets):,} messages of it: the topic was deleted "
                                "and recreated")
            continue
        start, end = state.starts.get(p, 0), state.ends[p]
        if offsets and end <= offsets[-1]:
            failures.append(f"{topic}[{p}]: the topic ends at offset {end:,}, but the log holds "
                            f"{topic}[{p}]@{offsets[-1]}: the topic was deleted and recreated, "
                            "or truncated")
        if start > 0:
            lacking = _first_lacking(offsets, start)
            if lacking is None:
                notes.append(f"{topic}[{p}]: its log start offset is {start:,}: the {start:,} "
                             "messages before it were deleted from the topic, and the log or "
                             "the quarantine holds every one of them")
            else:
                first, count = lacking
                failures.append(
                    f"{topic}[{p}]: its log start offset is {start:,} (messages were deleted "
                    f"from the topic: DeleteRecords, or retention), and the log lacks "
                    f"{topic}[{p}]@{first} ({count:,} of the offsets before {start:,} are "
                    "neither in the log nor in quarantine)")
    return failures, notes


def audit_topic(verdict: DataVerdict, topic: str, servers: str, *,
                stall_s: float = STALL_S) -> TopicAudit:
    """Every message of ``topic`` must be in the log (same bytes) or in its signed quarantine,
    and the topic must still be a witness of what was sent (:func:`trim_problems`), given the
    verdict of the log that verified (``schemas.log_verify.verify_data``)."""
    held, doubtful = _held(verdict, topic)
    state = topic_state(servers, topic)
    by_partition: dict[int, list[int]] = {}
    for _, p, o in held:
        by_partition.setdefault(p, []).append(o)
    for offsets in by_partition.values():
        offsets.sort()
    failures, notes = trim_problems(state, by_partition)
    if not state.exists and not failures:
        raise TopicAuditError(f"topic {topic} does not exist at {servers}, and the log holds "
                              "no message of it: check the topic's name")
    missing: list[str] = []
    checked = 0
    if state.exists:
        kc = verify_consumer(servers)
        try:
            for m in read_to_end(kc, state, stall_s=stall_s):
                checked += 1
                where = (m.topic, m.partition, m.offset)
                got = held.get(where)
                if got is None and where in doubtful:
                    missing.append(f"{m.topic}[{m.partition}]@{m.offset}: {doubtful[where]}")
                elif got is None:
                    missing.append(f"{m.topic}[{m.partition}]@{m.offset}: in the topic, "
                                   "neither in the log nor in quarantine")
                elif got != _digest(m.key, m.value):
                    missing.append(f"{m.topic}[{m.partition}]@{m.offset}: the log holds "
                                   "other bytes than the topic")
        except KafkaError as exc:
            raise TopicAuditError(f"reading topic {topic}: {exc!r}") from exc
        finally:
            kc.close()
    return TopicAudit(state=state, checked=checked, missing=tuple(missing),
                      failures=tuple(failures), notes=tuple(notes))
