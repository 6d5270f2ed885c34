"""The append-only event log on disk: its record schema, hash chain and reader.

Layout of a log directory (written only by ``ingest``; read by ``replay`` and ``verify``):

- ``segment-000001.avro``, ``segment-000002.avro`` ...: Avro object container files of
  ``catwalk.log.LogRecord`` (schema beside this file). A segment is written whole under a
  temporary name, fsynced and renamed, so a segment on disk is always complete.
- Each segment's header metadata holds ``catwalk.next_offsets``: for every partition the
  log has seen, the next Kafka offset to consume, counting quarantined messages too. Ingest
  resumes from the last segment's value, so a restart neither skips nor repeats a message.
- Every record carries the hash of the one before it (docs/design.md principle 4), and
  every record is a leaf of the log's Merkle tree (schemas/merkle.py), whose root each
  segment's header signs in a checkpoint (schemas/checkpoint.py). ``schemas.log_verify``
  names the first record, header or checkpoint that does not fit.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
import struct
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO

from fastavro import parse_schema, reader
from fastavro.schema import load_schema

GENESIS = bytes(32)
"""The prev_hash of the first record of a log."""

SEGMENT_READ_ERRORS: tuple[type[BaseException], ...] = (
    OSError, ValueError, EOFError, StopIteration, zlib.error, KeyError, TypeError, IndexError,
    OverflowError, MemoryError)
"""What fastavro may raise on a damaged segment (a bad block, bad deflate data, a cut
header): every reader turns it into a LogError naming the segment, never a traceback."""

SEGMENT = re.compile(r"^segment-(\d{6,})\.avro$")
META_NEXT_OFFSETS = "catwalk.next_offsets"
META_CHECKPOINT = "catwalk.checkpoint"
"""The signed checkpoint of the log as of the segment's last record (schemas/checkpoint.py):
written in the same file, so a committed segment is always signed."""
META_TREE = "catwalk.tree"
"""The Merkle tree's size and perfect subtrees after the segment (schemas/merkle.py), so a
restarted writer goes on without re-reading the log; trusted only once it gives the signed
root."""
META_LOG_ID = "catwalk.log_id"


Headers = tuple[tuple[str, bytes | None], ...]
"""A Kafka message's headers (RFC-free: Kafka's record format, KIP-82): (key, value or
None) in the order received."""


def headers_of(raw: object) -> Headers:
    """Headers as a record holds them (None, or a list of ``{"key", "value"}``), or as a
    Kafka client gives them (a list of (key, value)), as :data:`Headers`."""
    if not raw:
        return ()
    out = []
    for item in raw:  # type: ignore[attr-defined]
        key, value = (item["key"], item["value"]) if isinstance(item, dict) else item
        out.append((str(key), None if value is None else bytes(value)))
    return tuple(out)


def headers_field(headers: Headers) -> list[dict[str, object]] | None:
    """:data:`Headers` as the record's ``headers`` field (None when there are none)."""
    return [{"key": k, "value": v} for k, v in headers] or None


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
    headers: Headers = ()
    """The Kafka message's headers (none in a record written before they were kept)."""

    @property
    def coordinates(self) -> str:
        """``topic[partition]@offset``, the way every error names a Kafka message."""
        return f"{self.topic}[{self.partition}]@{self.offset}"


@cache
def record_schema() -> Any:
    with resources.as_file(resources.files("schemas").joinpath("catwalk.log.LogRecord.avsc")) as p:
        return parse_schema(load_schema(str(p)))


@cache
def record_forms() -> frozenset[str]:
    """The Parsing Canonical Forms (Avro specification, "Parsing Canonical Form for
    Schemas") of every schema a log segment may have been written with: the record schema
    as it is, and as it was before it kept Kafka headers (the same without ``headers``)."""
    from fastavro.schema import to_parsing_canonical_form

    with resources.as_file(resources.files("schemas").joinpath("catwalk.log.LogRecord.avsc")) as p:
        raw = json.loads(p.read_text(encoding="utf-8"))
    before = {**raw, "fields": [f for f in raw["fields"] if f["name"] != "headers"]}
    return frozenset({to_parsing_canonical_form(record_schema()),
                      to_parsing_canonical_form(parse_schema(before))})


def is_log_schema(schema: Any) -> bool:
    """Whether a segment's writer schema is one of :func:`record_forms`."""
    from fastavro.schema import to_parsing_canonical_form

    return to_parsing_canonical_form(schema) in record_forms()


_HEAD = struct.Struct(">qqiq").pack
_LEN = struct.Struct(">Q").pack


def _field(data: bytes) -> bytes:
    return _LEN(len(data)) + data


def leaf_input(
    *,
    position: int,
    topic: str,
    partition: int,
    offset: int,
    timestamp_ms: int,
    key: bytes | None,
    value: bytes,
    headers: Sequence[tuple[str, bytes | None]] = (),
) -> bytes:
    """The bytes a record contributes to the Merkle tree (its leaf input): every field,
    each length-prefixed, so that no two different records share a leaf.

    The Kafka headers follow the value only when the message has any: a marker byte 0x01,
    their count (8 bytes, big-endian), then each key (UTF-8) and value (marked present or
    absent, like the key), length-prefixed. A record without headers has exactly the leaf
    input it had before headers were kept, so every tree head signed before stands."""
    tb = topic.encode()
    out = b"".join((_HEAD(position, timestamp_ms, partition, offset), _LEN(len(tb)), tb,
                    b"\x00" if key is None else b"\x01" + _LEN(len(key)) + key,
                    _LEN(len(value)), value))
    if headers:
        out += b"\x01" + struct.pack(">Q", len(headers)) + b"".join(
            _field(k.encode()) + (b"\x00" if v is None else b"\x01" + _field(v))
            for k, v in headers)
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Leaf:
    """A leaf input read back: what an inclusion proof shows of its record."""

    position: int
    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    key: bytes | None
    value: bytes
    headers: Headers = ()

    @property
    def coordinates(self) -> str:
        return f"{self.topic}[{self.partition}]@{self.offset}"


def parse_leaf_input(data: bytes) -> Leaf:
    """The record a leaf input encodes; ValueError when the bytes are not one."""
    view = memoryview(data)
    try:
        position, timestamp_ms, partition, offset = struct.unpack_from(">qqiq", view)
        at = struct.calcsize(">qqiq")

        def field() -> bytes:
            nonlocal at
            (n,) = struct.unpack_from(">Q", view, at)
            if at + 8 + n > len(view):
                raise ValueError("a field runs past the end of the leaf")
            out = bytes(view[at + 8:at + 8 + n])
            at += 8 + n
            return out

        topic = field().decode()
        marker = view[at]
        at += 1
        key = field() if marker == 1 else None
        if marker not in (0, 1):
            raise ValueError("bad key marker")
        value = field()
        headers: list[tuple[str, bytes | None]] = []
        if at < len(view):
            if view[at] != 1:
                raise ValueError("not a leaf input: bytes after the value that are not headers")
            (count,) = struct.unpack_from(">Q", view, at + 1)
            at += 9
            if count == 0 or count > len(view):
                raise ValueError(f"not a leaf input: {count} headers")
            for _ in range(count):
                name = field().decode()
                present = view[at]
                at += 1
                if present not in (0, 1):
                    raise ValueError("not a leaf input: bad header value marker")
                headers.append((name, field() if present == 1 else None))
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise ValueError(f"not a leaf input: {exc}") from exc
    if at != len(view):
        raise ValueError("not a leaf input: bytes after the value")
    return Leaf(position=position, topic=topic, partition=partition, offset=offset,
                timestamp_ms=timestamp_ms, key=key, value=value, headers=tuple(headers))


def chain_next(prev_hash: bytes, leaf: bytes) -> bytes:
    """:func:`chain_hash` from the record's :func:`leaf_input`: the chain hashes the same
    length-prefixed fields, after the previous hash."""
    return hashlib.sha256(prev_hash + leaf).digest()


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
    headers: Sequence[tuple[str, bytes | None]] = (),
) -> bytes:
    """SHA-256 over the previous hash and every field of the record, each length-prefixed so
    that no two different records share an input (the record's :func:`leaf_input`)."""
    return chain_next(prev_hash, leaf_input(position=position, topic=topic,
                                            partition=partition, offset=offset,
                                            timestamp_ms=timestamp_ms, key=key, value=value,
                                            headers=headers))


WORKER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
WORKERS = "workers"


@dataclass(frozen=True, slots=True, kw_only=True)
class Chain:
    """One hash chain of the log, with its own Merkle tree, checkpoints and quarantine.

    A data directory holds the chain of a lone ingest (``log/``, ``quarantine/``,
    ``checkpoints/``) and, when several ingest workers share a topic's partitions, one chain
    per worker (``log/workers/NAME/``, ``quarantine/workers/NAME/``,
    ``checkpoints/workers/NAME/``). Each is verified on its own and all together
    (docs/log-integrity.md, "Several workers")."""

    name: str
    """The worker's name; empty for the chain of a lone ingest."""
    log: Path
    quarantine: Path
    checkpoints: Path

    @property
    def label(self) -> str:
        """How findings and verdicts name the chain."""
        return "log" if not self.name else f"log of worker {self.name}"


def chain_of(data_dir: Path, worker: str | None = None) -> Chain:
    """The chain a lone ingest (``worker`` None) or worker ``worker`` writes under
    ``data_dir``; ValueError for a name that is not a worker name."""
    if not worker:
        return Chain(name="", log=data_dir / "log", quarantine=data_dir / "quarantine",
                     checkpoints=data_dir / "checkpoints")
    if not WORKER_NAME.fullmatch(worker):
        raise ValueError(f"worker name {worker!r}: use 1 to 64 letters, digits, - or _")
    return Chain(name=worker, log=data_dir / "log" / WORKERS / worker,
                 quarantine=data_dir / "quarantine" / WORKERS / worker,
                 checkpoints=data_dir / "checkpoints" / WORKERS / worker)


def chains(data_dir: Path) -> list[Chain]:
    """Every chain under ``data_dir``: the lone ingest's (when it has a segment or nothing
    else exists), then each worker's, by name."""
    workers_dir = data_dir / "log" / WORKERS
    named = sorted(p.name for p in workers_dir.iterdir()
                   if p.is_dir() and WORKER_NAME.fullmatch(p.name)) if workers_dir.is_dir() else []
    main = chain_of(data_dir)
    out = [main] if not named or has_segment(main.log) else []
    return out + [chain_of(data_dir, name) for name in named]


def has_segment(log_dir: Path) -> bool:
    """Whether ``log_dir`` holds a segment (:func:`segments` not empty), found without
    listing them all: the live loop asks at every pass, of a log of many segments."""
    try:
        with os.scandir(log_dir) as found:
            return any(SEGMENT.match(entry.name) for entry in found)
    except (FileNotFoundError, NotADirectoryError):
        return False


def segments(log_dir: Path) -> list[Path]:
    """The complete segments of a log, in order. Temporary files are not segments."""
    if not log_dir.is_dir():
        return []
    found = sorted(
        (int(m.group(1)), p) for p in log_dir.iterdir() if (m := SEGMENT.match(p.name))
    )
    return [p for _, p in found]


def open_regular(path: Path, what: str = "log segment") -> BinaryIO:
    """``path`` opened for reading only when it is a regular file: never through a symlink
    (O_NOFOLLOW: a link in the data directory may point anywhere outside it) and never
    blocking on a FIFO (opened non-blocking, then checked with fstat before any read).
    LogError names the file and what it is instead."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as exc:
        kind = ("a symlink, which is never followed (it may point outside the data "
                "directory)" if exc.errno == errno.ELOOP else exc.strerror)
        raise LogError(f"{path}: the {what} cannot be read: {kind}") from exc
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode)
                    else "a socket" if stat.S_ISSOCK(mode) else "a device")
            raise LogError(f"{path}: the {what} is {kind}, not a regular file: refused, "
                           "never read")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def segment_name(number: int) -> str:
    return f"segment-{number:06d}.avro"


def segment_metadata(segment: Path) -> dict[str, str]:
    """A segment's header metadata (the Avro header only is read)."""
    try:
        with open_regular(segment) as fo:
            meta = reader(fo).metadata
    except SEGMENT_READ_ERRORS as exc:
        raise LogError(f"{segment.name}: cannot read its header: {exc!r}") from exc
    return {k: v for k, v in meta.items() if not k.startswith("avro.")}


def next_offsets(segment: Path) -> dict[str, int]:
    """``{"topic[partition]": next offset}`` recorded in a segment's header."""
    with open_regular(segment) as fo:
        meta = reader(fo).metadata
    raw = meta.get(META_NEXT_OFFSETS)
    if raw is None:
        raise LogError(f"{segment}: header has no {META_NEXT_OFFSETS}")
    return {k: int(v) for k, v in json.loads(raw).items()}


def read_segment(segment: Path) -> Iterator[LogRecord]:
    try:
        with open_regular(segment) as fo:
            records: Iterator[Any] = reader(fo, reader_schema=record_schema())
            for number, rec in enumerate(records, start=1):
                try:
                    rec["headers"] = headers_of(rec.get("headers"))
                    yield LogRecord(**rec)
                except TypeError as exc:
                    raise LogError(f"{segment.name} record {number}: {exc}") from exc
    except SEGMENT_READ_ERRORS as exc:
        raise LogError(f"{segment.name}: cannot be read as a log segment: {exc!r}") from exc


def read_log(log_dir: Path) -> Iterator[LogRecord]:
    """Every record of the log, in the order it was written."""
    for seg in segments(log_dir):
        yield from read_segment(seg)
