"""The append-only event log on disk: its record schema, hash chain and reader.

Layout of a log directory (written only by ``ingest``; read by ``replay`` and ``verify``):

- ``segment-000001.avro``, ``segment-000002.avro`` ...: Avro object container files of
  ``catwalk.log.LogRecord`` (schema beside this file). A segment is written whole under a
  temporary name, fsynced and renamed, so a segment on disk is always complete.
- Each segment's header metadata holds ``catwalk.next_offsets``: for every partition the
  log has seen, the next Kafka offset to consume, counting quarantined messages too. Ingest
  resumes from the last segment's value, so a restart neither skips nor repeats a message.
- Every record carries the hash of the one before it (docs/design.md principle 4): ``verify``
  names the first record that does not fit, whether it was modified, removed, inserted or
  reordered.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from fastavro import parse_schema, reader
from fastavro.schema import load_schema

GENESIS = bytes(32)
"""The prev_hash of the first record of a log."""

SEGMENT = re.compile(r"^segment-(\d{6,})\.avro$")
META_NEXT_OFFSETS = "catwalk.next_offsets"


class LogError(Exception):
    """The log on disk is not what it should be; the message names file and record."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LogRecord:
    """One Kafka message kept in the log, with its place in the hash chain."""

    position: int
    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    key: bytes | None
    value: bytes
    prev_hash: bytes
    hash: bytes

    @property
    def coordinates(self) -> str:
        """``topic[partition]@offset``, the way every error names a Kafka message."""
        return f"{self.topic}[{self.partition}]@{self.offset}"


@cache
def record_schema() -> Any:
    with resources.as_file(resources.files("schemas").joinpath("catwalk.log.LogRecord.avsc")) as p:
        return parse_schema(load_schema(str(p)))


def _field(data: bytes) -> bytes:
    return struct.pack(">Q", len(data)) + data


def chain_hash(
    *,
    prev_hash: bytes,
    position: int,
    topic: str,
    partition: int,
    offset: int,
    timestamp_ms: int,
    key: bytes | None,
    value: bytes,
) -> bytes:
    """SHA-256 over the previous hash and every field of the record, each length-prefixed so
    that no two different records share an input."""
    h = hashlib.sha256(prev_hash)
    h.update(struct.pack(">qqiq", position, timestamp_ms, partition, offset))
    h.update(_field(topic.encode()))
    h.update(b"\x00" if key is None else b"\x01" + _field(key))
    h.update(_field(value))
    return h.digest()


def segments(log_dir: Path) -> list[Path]:
    """The complete segments of a log, in order. Temporary files are not segments."""
    if not log_dir.is_dir():
        return []
    found = sorted(
        (int(m.group(1)), p) for p in log_dir.iterdir() if (m := SEGMENT.match(p.name))
    )
    return [p for _, p in found]


def segment_name(number: int) -> str:
    return f"segment-{number:06d}.avro"


def next_offsets(segment: Path) -> dict[str, int]:
    """``{"topic[partition]": next offset}`` recorded in a segment's header."""
    with segment.open("rb") as fo:
        meta = reader(fo).metadata
    raw = meta.get(META_NEXT_OFFSETS)
    if raw is None:
        raise LogError(f"{segment}: header has no {META_NEXT_OFFSETS}")
    return {k: int(v) for k, v in json.loads(raw).items()}


def read_segment(segment: Path) -> Iterator[LogRecord]:
    try:
        with segment.open("rb") as fo:
            records: Iterator[Any] = reader(fo, reader_schema=record_schema())
            for number, rec in enumerate(records, start=1):
                try:
                    yield LogRecord(**rec)
                except TypeError as exc:
                    raise LogError(f"{segment.name} record {number}: {exc}") from exc
    except (OSError, ValueError, EOFError, StopIteration) as exc:
        raise LogError(f"{segment.name}: cannot be read as a log segment: {exc!r}") from exc


def read_log(log_dir: Path) -> Iterator[LogRecord]:
    """Every record of the log, in the order it was written."""
    for seg in segments(log_dir):
        yield from read_segment(seg)


@dataclass(frozen=True, slots=True, kw_only=True)
class Verification:
    records: int
    segments: int
    last_hash: bytes
    problem: str | None

    @property
    def ok(self) -> bool:
        return self.problem is None


def verify(log_dir: Path) -> Verification:
    """Walk the hash chain from the first record; report the first record that does not fit."""
    prev, count = GENESIS, 0
    segs = segments(log_dir)
    for seg in segs:
        for number, rec in enumerate(read_segment(seg), start=1):
            where = f"{seg.name} record {number} ({rec.coordinates}, position {rec.position})"
            if rec.position != count:
                return Verification(
                    records=count, segments=len(segs), last_hash=prev,
                    problem=f"{where}: position {rec.position} where {count} was expected "
                    "(a record was removed, inserted or reordered before it)",
                )
            if rec.prev_hash != prev:
                return Verification(
                    records=count, segments=len(segs), last_hash=prev,
                    problem=f"{where}: prev_hash does not match the record before it",
                )
            expected = chain_hash(
                prev_hash=prev, position=rec.position, topic=rec.topic, partition=rec.partition,
                offset=rec.offset, timestamp_ms=rec.timestamp_ms, key=rec.key, value=rec.value,
            )
            if rec.hash != expected:
                return Verification(
                    records=count, segments=len(segs), last_hash=prev,
                    problem=f"{where}: contents do not match its hash (the record was altered)",
                )
            prev, count = rec.hash, count + 1
    return Verification(records=count, segments=len(segs), last_hash=prev, problem=None)
