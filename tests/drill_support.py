"""What the drills (tests/test_drill_kill.py, tests/test_drill_disk.py) share: a stream of
real simulator events with a few malformed messages among them, produced to a fresh topic
with the coordinates the broker gave each message; ingest started as a user starts it; and
what the log and its quarantine hold afterwards, checked against what was produced.

The truth of a drill is the topic itself: every message produced is known by its
``(partition, offset)`` and its bytes, so "every event once, in order, nothing lost" is a
comparison of two maps, not a count.
"""

from __future__ import annotations

import base64
import json
import math
import os
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest.kafka_io import ensure_topic, producer, topic_settings
from ingest.simulate import simulate_shift
from schemas import DecodeError, decode, encode
from schemas.logformat import read_log, segment_name, segments

REPO = Path(__file__).resolve().parent.parent
TABLES = 12
EVENTS_PER_ROUND = 26
"""A little under the simulator's mean (about 27.5 events a round over all four games)."""


@dataclass(frozen=True, slots=True)
class Message:
    key: bytes
    value: bytes | None
    good: bool
    """A well-formed event (it must end in the log); otherwise it must end in quarantine."""


def drill_messages(events: int, *, seed: int, bad_every: int = 0) -> list[Message]:
    """``events`` simulated events (all four games, the shift's time order), and after every
    ``bad_every``-th of them one malformed message: bytes that are not an event, or (every
    other time) a tombstone. Same arguments, same bytes."""
    rounds = max(1, math.ceil(events / TABLES / EVENTS_PER_ROUND))
    while True:
        shift, _ = simulate_shift(tables=TABLES, rounds=rounds, seed=seed, fault_rate=0.0)
        if len(shift) >= events:
            break
        rounds = math.ceil(rounds * 1.2)
    ids = [e.event_id for e in shift[:events]]
    assert len(set(ids)) == len(ids), "the simulator repeated an event id"
    out: list[Message] = []
    for i, event in enumerate(shift[:events], start=1):
        out.append(Message(event.table_id.encode(), encode(event), True))
        if bad_every and i % bad_every == 0:
            n = i // bad_every
            if n % 2:
                out.append(Message(event.table_id.encode(),
                                   f"drill garbage {n}: not an event".encode(), False))
            else:
                out.append(Message(event.table_id.encode(), None, False))
    return out


@dataclass
class Produced:
    """What the broker acknowledged: each message at its ``(partition, offset)``."""

    topic: str
    good: dict[tuple[int, int], bytes] = field(default_factory=dict)
    bad: dict[tuple[int, int], bytes | None] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def ends(self) -> dict[int, int]:
        """The next offset of every partition written to."""
        ends: dict[int, int] = {}
        for p, o in [*self.good, *self.bad]:
            ends[p] = max(ends.get(p, 0), o + 1)
        return ends


def new_topic(servers: str, prefix: str, partitions: int = 3) -> str:
    topic = f"{prefix}-{uuid.uuid4().hex[:10]}"
    assert ensure_topic(servers, topic, topic_settings(f"{partitions},1,1"))
    return topic


def produce(servers: str, topic: str, messages: list[Message], *,
            per_second: float | None = None, chunk: int = 500) -> Produced:
    """Send every message (keyed by table, the way the tables do), at most ``per_second``
    a second, and wait for every acknowledgement."""
    out = Produced(topic)
    start = time.monotonic()
    futures = []
    with producer(servers) as kp:
        for i in range(0, len(messages), chunk):
            if per_second:
                due = start + i / per_second
                while (now := time.monotonic()) < due:
                    time.sleep(min(0.05, due - now))
            for m in messages[i:i + chunk]:
                futures.append((m, kp.send(topic, value=m.value, key=m.key)))
        kp.flush()
        for m, future in futures:
            meta = future.get(timeout=60)
            place = (meta.partition, meta.offset)
            if m.good:
                assert m.value is not None
                out.good[place] = m.value
            else:
                out.bad[place] = m.value
    out.seconds = time.monotonic() - start
    return out


class Producing(threading.Thread):
    """:func:`produce` in the background; ``result()`` waits and re-raises its failure."""

    def __init__(self, servers: str, topic: str, messages: list[Message], *,
                 per_second: float | None) -> None:
        super().__init__(name="drill-producer", daemon=True)
        self.args = (servers, topic, messages)
        self.per_second = per_second
        self.produced: Produced | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.produced = produce(*self.args, per_second=self.per_second)
        except BaseException as exc:
            self.error = exc

    def result(self, timeout: float = 300) -> Produced:
        self.join(timeout)
        if self.error is not None:
            raise self.error
        assert self.produced is not None, "the producer did not finish"
        return self.produced


def ingest_cmd(data: Path, topic: str, servers: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ingest", "--data", str(data), "--topic", topic,
            "--bootstrap", servers, *extra]


def run_ingest(data: Path, topic: str, servers: str, *extra: str,
               timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(ingest_cmd(data, topic, servers, *extra), capture_output=True,
                          text=True, timeout=timeout, cwd=REPO, env=dict(os.environ))


def verify_cli(data: Path) -> subprocess.CompletedProcess[str]:
    """``python -m ingest verify --data D --key "$(cat D/keys/signing.pub)"``."""
    key = (data / "keys" / "signing.pub").read_text().strip()
    return subprocess.run([sys.executable, "-m", "ingest", "verify", "--data", str(data),
                           "--key", key], capture_output=True, text=True, timeout=300,
                          cwd=REPO, env=dict(os.environ))


def last_segment_number(log_dir: Path) -> int:
    segs = segments(log_dir)
    return int(segs[-1].name.split("-")[1].split(".")[0]) if segs else 0


def segment_path(log_dir: Path, number: int) -> Path:
    return log_dir / segment_name(number)


@dataclass
class Holding:
    """What the log and the quarantine hold, by ``(partition, offset)``."""

    log: list[tuple[int, int, bytes]]
    """Every log record of the drill's topic, in log order."""
    quarantine: list[dict[str, Any]]
    """Every quarantine line, in file order."""


def holding(data: Path, topic: str) -> Holding:
    log = []
    for rec in read_log(data / "log"):
        assert rec.topic == topic, f"{rec.coordinates}: not the drill's topic"
        log.append((rec.partition, rec.offset, rec.value))
    quarantine = [json.loads(line) for q in sorted((data / "quarantine").glob("*.jsonl"))
                  for line in q.read_text(encoding="utf-8").splitlines() if line.strip()]
    return Holding(log, quarantine)


def well_formed(value: bytes | None) -> bool:
    if value is None:
        return False
    try:
        decode(value)
    except DecodeError:
        return False
    except Exception:
        return False
    return True


def exactly_once_problems(held: Holding, produced: Produced) -> list[str]:
    """Everything wrong with the log and quarantine against what the broker acknowledged
    (an empty list when every message is where it belongs, once, in order)."""
    problems = []
    in_log = Counter((p, o) for p, o, _ in held.log)
    repeated = sorted(k for k, n in in_log.items() if n > 1)
    if repeated:
        problems.append(f"{len(repeated)} messages in the log more than once, first "
                        f"{repeated[:5]}")
    logged = {(p, o): v for p, o, v in held.log}
    missing = sorted(set(produced.good) - set(logged))
    if missing:
        problems.append(f"{len(missing)} events produced but not in the log, first "
                        f"{missing[:5]}")
    extra = sorted(set(logged) - set(produced.good))
    if extra:
        problems.append(f"{len(extra)} log records that are not produced events, first "
                        f"{extra[:5]}")
    changed = sorted(k for k in set(logged) & set(produced.good) if logged[k] != produced.good[k])
    if changed:
        problems.append(f"{len(changed)} log records whose bytes differ from what was "
                        f"produced, first {changed[:5]}")
    if Counter(logged.values()) != Counter(produced.good.values()):
        problems.append("the log's event bytes are not the produced events' bytes, once each")
    last: dict[int, int] = {}
    for p, o, _ in held.log:
        if o <= last.get(p, -1):
            problems.append(f"partition {p}: offset {o} after offset {last[p]} in the log")
            break
        last[p] = o
    quarantined = Counter((q["partition"], q["offset"]) for q in held.quarantine)
    twice = sorted(k for k, n in quarantined.items() if n > 1)
    if twice:
        problems.append(f"{len(twice)} messages quarantined more than once, first {twice[:5]}")
    for q in held.quarantine:
        raw = q.get("value_b64")
        value = None if raw is None else base64.b64decode(raw)
        if well_formed(value):
            problems.append(f"{q['coordinates']}: a well-formed event in quarantine "
                            f"({q['reason']})")
            break
    if set(quarantined) != set(produced.bad):
        problems.append(f"quarantine holds {sorted(quarantined)[:5]}..., the malformed "
                        f"messages were {sorted(produced.bad)[:5]}...")
    both = set(quarantined) & set(logged)
    if both:
        problems.append(f"{len(both)} messages both in the log and in quarantine")
    for p, end in sorted(produced.ends.items()):
        seen = {o for (pp, o) in [*logged, *quarantined] if pp == p}
        gaps = sorted(set(range(end)) - seen)
        if gaps:
            problems.append(f"partition {p}: offsets {gaps[:5]}... neither in the log nor in "
                            f"quarantine (gaps)")
    return problems


def recreate_topic(servers: str, topic: str, partitions: int = 1,
                   timeout_s: float = 30) -> None:
    """Delete ``topic`` and create it again, empty (deletion is asynchronous: recreate as
    soon as the broker lets us)."""
    from kafka import KafkaAdminClient

    with KafkaAdminClient(bootstrap_servers=servers) as admin:
        admin.delete_topics([topic])
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            ensure_topic(servers, topic, topic_settings(f"{partitions},1,1"))
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
