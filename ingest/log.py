"""The writer of the append-only event log and its quarantine (format: schemas/logformat.py).

A batch is made durable in this order, so that every message ends in the log exactly once
or in quarantine with its reason, whatever crashes (docs/design.md principles 2 and 3):

1. the quarantine file of the batch (``quarantine/segment-NNNNNN.jsonl``) is written and
   fsynced, when the batch has bad messages;
2. the log segment is written under a temporary name, fsynced, renamed into place, and the
   directory fsynced. The rename is the commit point: the segment header records the next
   Kafka offset of every partition, quarantined messages included;
3. only then does the caller commit the offsets to Kafka.

On opening, a quarantine file without its segment (a crash between 1 and 2) and temporary
files are removed: that batch was not committed and will be consumed again.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from fastavro import writer

from schemas.logformat import (
    GENESIS,
    META_NEXT_OFFSETS,
    SEGMENT,
    LogError,
    LogRecord,
    chain_hash,
    next_offsets,
    read_segment,
    record_schema,
    segment_name,
    segments,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Received:
    """A message as it came off Kafka."""

    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    key: bytes | None
    value: bytes | None
    """None for a tombstone (a message without a value): it goes to quarantine, never to
    the log."""

    @property
    def coordinates(self) -> str:
        return f"{self.topic}[{self.partition}]@{self.offset}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Quarantined:
    """A message that could not enter the log, with the reason."""

    message: Received
    reason: str

    def to_json(self) -> str:
        m = self.message
        return json.dumps(
            {
                "coordinates": m.coordinates,
                "topic": m.topic,
                "partition": m.partition,
                "offset": m.offset,
                "timestamp_ms": m.timestamp_ms,
                "reason": self.reason,
                "key_b64": None if m.key is None else base64.b64encode(m.key).decode(),
                "value_b64": None if m.value is None else base64.b64encode(m.value).decode(),
            },
            sort_keys=True,
        )


def _last(records: Iterator[LogRecord]) -> LogRecord | None:
    """The last record of a segment (segments are read whole; they are small)."""
    last = None
    for last in records:  # noqa: B007 - only the last one is wanted
        pass
    return last


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class LogWriter:
    """Appends batches to the log in ``log_dir`` and bad messages to ``quarantine_dir``."""

    def __init__(self, log_dir: Path, quarantine_dir: Path) -> None:
        self.log_dir = log_dir
        self.quarantine_dir = quarantine_dir
        log_dir.mkdir(parents=True, exist_ok=True)
        quarantine_dir.mkdir(parents=True, exist_ok=True)
        for tmp in log_dir.glob("*.tmp"):
            tmp.unlink()
        segs = segments(log_dir)
        self._number = 0
        self._position = 0
        self._last_hash = GENESIS
        self._next: dict[str, int] = {}
        if segs:
            last = segs[-1]
            match = SEGMENT.match(last.name)
            assert match is not None
            self._number = int(match.group(1))
            self._next = next_offsets(last)
            tail = _last(read_segment(last))
            if tail is not None:
                self._position, self._last_hash = tail.position + 1, tail.hash
            else:
                self._position, self._last_hash = self._tail_before(segs[:-1])
        for q in quarantine_dir.glob("segment-*.jsonl"):
            if int(q.stem.split("-")[1]) > self._number:
                q.unlink()

    @staticmethod
    def _tail_before(segs: list[Path]) -> tuple[int, bytes]:
        for seg in reversed(segs):
            tail = _last(read_segment(seg))
            if tail is not None:
                return tail.position + 1, tail.hash
        return 0, GENESIS

    def next_offset(self, topic: str, partition: int) -> int | None:
        """The next Kafka offset the log expects from a partition; None if never seen."""
        return self._next.get(f"{topic}[{partition}]")

    @property
    def records(self) -> int:
        return self._position

    def append(self, accepted: list[Received], quarantined: list[Quarantined]) -> Path | None:
        """Make one batch durable (see the module docstring); returns the new segment."""
        consumed = sorted([*accepted, *(q.message for q in quarantined)],
                          key=lambda m: (m.topic, m.partition, m.offset))
        if not consumed:
            return None
        nxt = dict(self._next)
        for m in consumed:
            key = f"{m.topic}[{m.partition}]"
            expected = nxt.get(key)
            if expected is not None and m.offset < expected:
                raise LogError(f"{m.coordinates} is already in the log (next expected {expected})")
            nxt[key] = m.offset + 1
        number = self._number + 1
        name = segment_name(number)
        if quarantined:
            qpath = self.quarantine_dir / name.replace(".avro", ".jsonl")
            with qpath.open("w", encoding="utf-8") as fo:
                for q in quarantined:
                    fo.write(q.to_json() + "\n")
                fo.flush()
                os.fsync(fo.fileno())
            _fsync_dir(self.quarantine_dir)
        records = []
        position, prev = self._position, self._last_hash
        for m in sorted(accepted, key=lambda m: (m.topic, m.partition, m.offset)):
            if m.value is None:
                raise LogError(f"{m.coordinates} has no value (a tombstone): it belongs in "
                               "quarantine, not in the log")
            digest = chain_hash(
                prev_hash=prev, position=position, topic=m.topic, partition=m.partition,
                offset=m.offset, timestamp_ms=m.timestamp_ms, key=m.key, value=m.value,
            )
            records.append(
                {
                    "position": position, "topic": m.topic, "partition": m.partition,
                    "offset": m.offset, "timestamp_ms": m.timestamp_ms, "key": m.key,
                    "value": m.value, "prev_hash": prev, "hash": digest,
                }
            )
            position, prev = position + 1, digest
        tmp = self.log_dir / (name + ".tmp")
        with tmp.open("wb") as fo:
            writer(
                fo, record_schema(), records, codec="deflate",
                metadata={META_NEXT_OFFSETS: json.dumps(nxt, sort_keys=True)},
                strict_allow_default=True,
            )
            fo.flush()
            os.fsync(fo.fileno())
        final = self.log_dir / name
        os.replace(tmp, final)
        _fsync_dir(self.log_dir)
        self._number, self._position, self._last_hash, self._next = number, position, prev, nxt
        return final
