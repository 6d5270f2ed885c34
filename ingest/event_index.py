"""Which event ids the log already holds, with a digest of their bytes and where they are.

Ingest keeps an exact repeat of an event (the same bytes again: replay reports the
duplicate) but must not let a *different* event take an id the log already holds: that
message is quarantined as a conflict, naming where the first one is. The index is rebuilt
from the log at every start (so it survives restarts without a file of its own that could
disagree with the log) and updated as batches are appended. It is built from every chain of
the data directory (the lone ingest's and each ingest worker's, ``schemas.logformat.chains``),
so a worker does not let an event in that another worker's chain holds with other bytes.

An event id is read from the message's own bytes: in every registered writer schema the
envelope's first field is ``event_id``, an Avro string, so it is the first thing after the
5-byte frame. When that id is not a UUID in canonical form, the message is decoded and the
decoded id is used instead, exactly as replay would see it.
"""

from __future__ import annotations

import hashlib
import re
import struct
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from replay.batch_decode import chain_entries, log_chains
from schemas import SCHEMA_IDS, DecodeError, decode, writer_schema
from schemas.logformat import WORKERS, Chain, chains, read_log

_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_PLACE = struct.Struct(">Iiq")  # topic number, partition, offset
_WHERE = re.compile(r"log(?: of worker [A-Za-z0-9_-]+)? position \d+ \((.*)\[(\d+)\]@(\d+)\)")
"""The place of a record as ``replay.batch_decode.log_entries`` words it."""
DIGEST_SIZE = 16


def digest(value: bytes) -> bytes:
    """The fingerprint of a message's bytes (BLAKE2b, 128 bits)."""
    return hashlib.blake2b(value, digest_size=DIGEST_SIZE).digest()


@cache
def _id_first(schema_id: int) -> bool:
    """Is ``event_id`` (a string) the first field of this writer schema?"""
    try:
        schema = writer_schema(schema_id)
        first = schema["fields"][0]
    except (DecodeError, KeyError, IndexError, TypeError):
        return False
    kind = first["type"]
    if isinstance(kind, dict):
        kind = kind.get("type")
    return bool(first["name"] == "event_id" and kind == "string")


def _varint(data: bytes, at: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if at >= len(data) or shift > 63:
            raise ValueError("truncated or overlong varint")
        byte = data[at]
        at += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return (result >> 1) ^ -(result & 1), at
        shift += 7


def event_key(value: bytes) -> bytes | None:
    """The index key of a message's event id (the UUID's 16 bytes, or the id's UTF-8 after
    ``b"s:"`` when it is not a canonical UUID); None when the bytes hold no event."""
    if len(value) >= 6 and value[0] == 0:
        sid = int.from_bytes(value[1:5], "big")
        if sid in SCHEMA_IDS and _id_first(sid):
            try:
                length, start = _varint(value, 5)
            except ValueError:
                length, start = -1, 0
            if length == 36:
                raw = value[start:start + 36]
                if _UUID.fullmatch(raw):
                    return bytes.fromhex(raw.replace(b"-", b"").decode())
    try:
        event_id = decode(value).event_id
    except Exception:  # not an event: nothing to index
        return None
    return key_of(event_id)


def key_of(event_id: str) -> bytes:
    """The index key of an event id given as text."""
    raw = event_id.encode()
    if _UUID.fullmatch(raw):
        return bytes.fromhex(event_id.replace("-", ""))
    return b"s:" + raw


@dataclass(frozen=True, slots=True)
class Seen:
    """Where an event id is in the log, and the digest of the bytes it came with."""

    digest: bytes
    topic: str
    partition: int
    offset: int

    @property
    def coordinates(self) -> str:
        return f"{self.topic}[{self.partition}]@{self.offset}"


class EventIndex:
    """event id -> (digest of the value bytes, topic[partition]@offset of its first record).

    Entries are packed into one small bytes object each (about 150 bytes an event with the
    dictionary's own cost), so a log of millions of events fits in memory."""

    def __init__(self) -> None:
        self._entries: dict[bytes, bytes] = {}
        self._topics: list[str] = []
        self._topic_numbers: dict[str, int] = {}
        self.records = 0
        """Log records read or added (events without an id included)."""
        self.seconds = 0.0
        """Time :meth:`from_log` took."""

    def __len__(self) -> int:
        return len(self._entries)

    @classmethod
    def from_log(cls, log_dir: Path) -> EventIndex:
        """The index of every record of the log (LogError when the log cannot be read): of
        every chain of the data directory when ``log_dir`` is its ``log/`` or a worker's
        ``log/workers/NAME`` (:meth:`from_data`), else of the one chain in ``log_dir``."""
        data = _data_of(log_dir)
        if data is not None:
            return cls.from_data(data)
        return cls._from_chains(log_chains(log_dir))

    @classmethod
    def from_data(cls, data_dir: Path) -> EventIndex:
        """The index of every record of every chain of ``data_dir`` (the lone ingest's and
        each worker's, in the order of ``schemas.logformat.chains``; an id in several
        chains keeps its place in the first); LogError when a chain cannot be read."""
        return cls._from_chains(chains(data_dir))

    @classmethod
    def _from_chains(cls, found: list[Chain]) -> EventIndex:
        started = time.perf_counter()
        index = cls()
        for chain in found:  # one chain at a time: nothing held but the index
            # The replay's reader of the log (no schema resolution): 2.5x read_log's speed.
            for _, where, _, value, _ in chain_entries(chain):
                place = _WHERE.fullmatch(where)
                if place is None:  # worded otherwise: read the records the slow way
                    return cls._from_records(found, started)
                index.add(value, place.group(1), int(place.group(2)), int(place.group(3)))
        index.seconds = time.perf_counter() - started
        return index

    @classmethod
    def _from_records(cls, found: list[Chain], started: float) -> EventIndex:
        index = cls()
        for chain in found:
            for rec in read_log(chain.log):
                index.add(rec.value, rec.topic, rec.partition, rec.offset)
        index.seconds = time.perf_counter() - started
        return index

    def _topic(self, topic: str) -> int:
        number = self._topic_numbers.get(topic)
        if number is None:
            number = self._topic_numbers[topic] = len(self._topics)
            self._topics.append(topic)
        return number

    def add(self, value: bytes, topic: str, partition: int, offset: int,
            key: bytes | None = None, fingerprint: bytes | None = None) -> None:
        """Record a message that entered the log; the first place of an id is kept.
        ``fingerprint``: :func:`digest` of ``value``, when the caller has it already."""
        self.records += 1
        key = event_key(value) if key is None else key
        if key is None or key in self._entries:
            return
        mine = digest(value) if fingerprint is None else fingerprint
        self._entries[key] = mine + _PLACE.pack(self._topic(topic), partition, offset)

    def seen(self, key: bytes) -> Seen | None:
        packed = self._entries.get(key)
        if packed is None:
            return None
        number, partition, offset = _PLACE.unpack_from(packed, DIGEST_SIZE)
        return Seen(packed[:DIGEST_SIZE], self._topics[number], partition, offset)


class Conflicts:
    """The conflict check of one batch: ids of the log plus those accepted earlier in the
    same batch (not yet in the index until the batch is durable)."""

    def __init__(self, index: EventIndex) -> None:
        self.index = index
        self.pending: dict[bytes, tuple[bytes, str, int, int]] = {}
        """The ids first seen in this batch: (fingerprint, topic, partition, offset)."""

    def check(self, value: bytes, topic: str, partition: int, offset: int,
              key: bytes | None) -> str | None:
        """Why this accepted message must be quarantined as a conflict, or None. An exact
        repeat (the same bytes) is not a conflict."""
        if key is None:
            return None
        mine = digest(value)
        first = self.pending.get(key)
        if first is None:
            seen = self.index.seen(key)
            if seen is None:
                self.pending[key] = (mine, topic, partition, offset)
                return None
            first = (seen.digest, seen.topic, seen.partition, seen.offset)
        if first[0] == mine:
            return None
        # The first one of a batch enters the log with this batch (same commit point).
        return (f"conflicting event id {_show(key)}: already in the log at "
                f"{first[1]}[{first[2]}]@{first[3]} with different content")

    def commit(self, accepted: Iterable[tuple[bytes, str, int, int, bytes | None]]) -> None:
        """The batch is durable: index its accepted messages (the fingerprint of a message
        this check saw first is not worked out again)."""
        pending, add = self.pending, self.index.add
        for value, topic, partition, offset, key in accepted:
            first = pending.get(key) if key is not None else None
            mine = first[0] if first is not None and first[1:] == (topic, partition, offset) \
                else None
            add(value, topic, partition, offset, key=key, fingerprint=mine)
        pending.clear()


def _data_of(log_dir: Path) -> Path | None:
    """The data directory whose chains ``log_dir`` stands for (its ``log/``, or a worker's
    ``log/workers/NAME``), or None."""
    if log_dir.name == "log":
        return log_dir.parent
    if log_dir.parent.name == WORKERS and log_dir.parent.parent.name == "log":
        return log_dir.parent.parent.parent
    return None


def _show(key: bytes) -> str:
    if key.startswith(b"s:"):
        return repr(key[2:].decode(errors="replace"))
    h = key.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
