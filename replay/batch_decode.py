"""The log's records decoded many at a time, at the speed of an Avro container file.

Decoding messages one by one (``schemas.decode``) pays for a reader call, a frame check and
the envelope's logical types on every message. The bodies of a run of records written
under the same schema id can instead be read as one block of an in-memory Avro object
container file (header with the writer schema, one block of the concatenated bodies, sync
marker), the way ``fastavro.reader`` reads a file.

Nothing may be misread or lost on the way (docs/design.md principle 8): what ``decode`` rejects
must still become the same finding, word for word. So the fast path takes a record only
when it can show that the record decodes exactly as ``decode`` would decode it:

- the frame is well formed (magic byte, a registered schema id), else ``decode`` says why;
- the record's Avro body ends exactly where its message ends: after every record the
  block's read position must equal the sum of the body lengths so far. A malformed body
  in the middle of a block (too short, too long, a bad union index, bad UTF-8) either
  raises or moves that position, and from that record on the block is decoded message by
  message with ``decode``, so the bad record is reported exactly as today and the records
  after it are read from their own bytes;
- the container's schema is the writer schema with the logical types of the envelope's
  ``event_id`` (uuid) and ``occurred_at`` (timestamp-micros) left out. Logical types do not
  change the bytes, only what they become: the fast path takes a record only when its
  event id is a UUID in canonical form (so ``str(UUID(x)) == x``) and its time is one a
  ``datetime`` can hold (so the round trip through a datetime is the identity); anything
  else goes to ``decode``;
- the record then becomes an event exactly as in ``decode`` (the same payload builder and
  upcasts, the same validating classes); any exception on the way sends the record to
  ``decode``.

The log segments themselves are read without schema resolution when a segment's writer
schema is the log record schema (its Parsing Canonical Form is the same), which makes
resolution the identity; any other segment is read by ``schemas.logformat.read_segment``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from fastavro import block_reader, reader
from fastavro.schema import to_parsing_canonical_form
from fastavro.write import Writer

from replay.fold import Finding
from schemas import SCHEMA_IDS, DecodeError, RoundEvent, decode, writer_schema
from schemas.codec import _UPCAST, _payload
from schemas.events import PAYLOAD_TYPES
from schemas.logformat import (
    SEGMENT_READ_ERRORS,
    WORKERS,
    Chain,
    LogError,
    chain_of,
    chains,
    open_regular,
    read_segment,
    record_forms,
    segments,
)

Entry = tuple[int, str, bytes | None, bytes, int]
"""One log record as replay needs it: (ordinal in the log, where, Kafka key, value, the
broker's timestamp in milliseconds, which replay/clock.py compares with the event's
occurred-at; an entry of four has none). The
ordinal counts records in the order they are read; where is ``log position P (topic[p]@o)``,
the words every finding uses (``log of worker NAME position P (topic[p]@o)`` for a record
of worker NAME's chain)."""

BLOCK = 2048
"""Records per in-memory container block: large enough that the block's header costs
little, small enough that a bad record sends few others to the slow path."""

_SYNC = b"catwalk-replay-1"
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_LAST_US = (dt.datetime.max.replace(tzinfo=dt.UTC) - _EPOCH) // dt.timedelta(microseconds=1)
"""The last microsecond a timestamp-micros can be read as (9999-12-31 23:59:59.999999)."""
_PLAIN = {"event_id": "uuid", "occurred_at": "timestamp-micros"}


def _where(position: int, topic: str, partition: int, offset: int, label: str = "log") -> str:
    return f"{label} position {position} ({topic}[{partition}]@{offset})"


@cache
def _record_form() -> frozenset[str]:
    return record_forms()


def _segment_entries(segment: Path, first: int, label: str = "log") -> Iterator[Entry]:
    """A segment's records as entries, numbered from ``first``; LogError as
    ``read_segment`` words it when the segment cannot be read."""
    try:
        with open_regular(segment) as fo:
            records = reader(fo)
            if to_parsing_canonical_form(records.writer_schema) not in _record_form():
                for n, kept in enumerate(read_segment(segment), start=first):
                    yield (n, _where(kept.position, kept.topic, kept.partition, kept.offset,
                                     label), kept.key, kept.value, kept.timestamp_ms)
                return
            rec: Any
            for n, rec in enumerate(records, start=first):
                yield (n, _where(rec["position"], rec["topic"], rec["partition"],
                                 rec["offset"], label), rec["key"], rec["value"],
                       rec["timestamp_ms"])
    except SEGMENT_READ_ERRORS as exc:
        raise LogError(f"{segment.name}: cannot be read as a log segment: {exc!r}") from exc


def log_chains(log_dir: Path) -> list[Chain]:
    """The chains a log directory stands for: every chain of the data directory
    (``schemas.logformat.chains``) when ``log_dir`` is a data directory's ``log/``; the
    worker's own chain for ``log/workers/NAME``; else the one chain ``log_dir`` holds."""
    if log_dir.name == "log":
        return chains(log_dir.parent)
    if log_dir.parent.name == WORKERS and log_dir.parent.parent.name == "log":
        try:
            return [chain_of(log_dir.parent.parent.parent, log_dir.name)]
        except ValueError:
            pass
    return [Chain(name="", log=log_dir, quarantine=log_dir.parent / "quarantine",
                  checkpoints=log_dir.parent / "checkpoints")]


def chain_entries(chain: Chain, first: int = 0) -> Iterator[Entry]:
    """One chain's records as entries in the order written, numbered from ``first``, each
    ``where`` naming the chain (``log position P ...`` for the lone ingest's)."""
    count = first
    for seg in segments(chain.log):
        for entry in _segment_entries(seg, count, chain.label):
            count += 1
            yield entry


Placed = tuple[str, int, int, str, bytes | None, bytes, int]
"""(topic, partition, offset, where, key, value, broker timestamp): a record before the
merge numbers it."""


def _placed(chain: Chain) -> Iterator[Placed]:
    for seg in segments(chain.log):
        try:
            with open_regular(seg) as fo:
                avro = reader(fo)
                records: Iterable[Any] = avro
                rec: Any
                if to_parsing_canonical_form(avro.writer_schema) not in _record_form():
                    records = (
                        {"position": r.position, "topic": r.topic, "partition": r.partition,
                         "offset": r.offset, "key": r.key, "value": r.value,
                         "timestamp_ms": r.timestamp_ms}
                        for r in read_segment(seg))
                for rec in records:
                    yield (rec["topic"], rec["partition"], rec["offset"],
                           _where(rec["position"], rec["topic"], rec["partition"],
                                  rec["offset"], chain.label), rec["key"], rec["value"],
                           rec["timestamp_ms"])
        except SEGMENT_READ_ERRORS as exc:
            raise LogError(f"{seg.name}: cannot be read as a log segment: {exc!r}") from exc


class KeptRecords:
    """The log's records as verification read them, to replay without reading the log
    again (``python -m replay``): give it as ``keep`` to ``schemas.log_verify.verify_data``,
    then, if the log verified, pass it as ``records`` to :func:`log_entries` (through
    ``replay.run.replay``). Holds every record (where, Kafka key and value; the values are
    the bytes verification read).

    ``deal``, when given, is handed each entry of the lone ingest's chain as verification
    reads it, when that chain is all the data directory holds (so the entries, their order
    and their ordinals are those :func:`log_entries` gives): ``replay.parallel.Workers.deal``
    starts replay's helpers on their tables while the log is still being verified. What is
    dealt is unverified until the verdict: the caller writes nothing unless the log verified
    (``python -m replay``), and the helpers' work is only used for entries that are the ones
    replayed (``replay.parallel.replay_entries`` compares them)."""

    def __init__(self, deal: Callable[[Entry], None] | None = None) -> None:
        self.placed: dict[Chain, list[Placed]] = {}
        self.entries: dict[Chain, list[Entry]] = {}
        """The lone ingest's chain, when it is the only chain, kept as entries (the very
        tuples dealt)."""
        self.deal = deal

    def __call__(self, chain: Chain) -> Callable[[dict[str, Any]], None]:
        """What keeps ``chain``'s records (``schemas.log_verify.Keep``)."""
        label = chain.label
        if (not chain.name and chain not in self.entries and chain not in self.placed
                and log_chains(chain.log) == [chain]):
            entries = self.entries[chain] = []
            add, deal = entries.append, self.deal

            def keep_entry(rec: dict[str, Any]) -> None:
                entry = (len(entries), f"{label} position {rec['position']} ({rec['topic']}"
                         f"[{rec['partition']}]@{rec['offset']})", rec["key"], rec["value"],
                         rec["timestamp_ms"])
                add(entry)
                if deal is not None:
                    deal(entry)

            return keep_entry
        kept = self.placed.setdefault(chain, [])

        def keep(rec: dict[str, Any]) -> None:
            topic, partition, offset = rec["topic"], rec["partition"], rec["offset"]
            kept.append((topic, partition, offset,
                         _where(rec["position"], topic, partition, offset, label),
                         rec["key"], rec["value"], rec["timestamp_ms"]))

        return keep


def data_entries(data_dir: Path) -> Iterator[Entry]:
    """Every record of every chain of ``data_dir`` (:func:`entries_of`)."""
    return entries_of(chains(data_dir))


def entries_of(found: list[Chain], records: KeptRecords | None = None,
               twice: list[tuple[int, Finding]] | None = None) -> Iterator[Entry]:
    """The records of the chains as entries. The lone ingest's chain alone: in the order
    written, streamed (as ``schemas.logformat.read_log``). Any other set of chains (several
    workers, whose partitions may have moved between them any number of times): all
    records merged in the order of (topic, partition, offset), ties (a message in two
    chains, which verification names) in chain order then position; the ordinals count in
    that order. The merge holds every record in memory.

    With ``records``, a chain's records are those kept when the log was verified (the same
    entries, the log not read again); a chain it does not hold is read.

    A Kafka message in two chains with the same key and value (which verification passes
    as a finding, ``schemas.log_epochs``) is taken once, from the first chain; each copy left
    out is a ``message_in_two_chains`` finding put in ``twice`` with the kept one's
    ordinal. Copies with other bytes (replayed only ``--unverified``) are all taken."""
    kept = records.placed if records is not None else {}
    if len(found) == 1 and not found[0].name:
        entries = records.entries.get(found[0]) if records is not None else None
        held = kept.get(found[0])
        if entries is not None:
            yield from entries
        elif held is None:
            yield from chain_entries(found[0])
        else:
            for n, (_, _, _, where, key, value, ts) in enumerate(held):
                yield n, where, key, value, ts
        return
    merged: list[Placed] = []
    for chain in found:
        held = kept.get(chain)
        merged.extend(_placed(chain) if held is None else held)
    merged.sort(key=lambda p: (p[0], p[1], p[2]))  # stable: chain order, then position
    n = 0
    taken: Placed | None = None
    for placed in merged:
        if taken is not None and placed[:3] == taken[:3] and placed[4:] == taken[4:]:
            if twice is not None:
                twice.append((n - 1, _twice_finding(taken, placed)))
            continue
        yield n, placed[3], placed[4], placed[5], placed[6]
        n, taken = n + 1, placed


def _twice_finding(kept: Placed, dropped: Placed) -> Finding:
    """The finding for a message taken once though two chains hold it."""
    try:
        event = decode(dropped[5])
        casino, table, round_id = event.casino, event.table_id, event.round_id
    except DecodeError:
        casino, table, round_id = None, "", None
    return Finding(kind="message_in_two_chains", table_id=table, where=dropped[3],
                   detail=f"the same Kafka message ({kept[0]}[{kept[1]}]@{kept[2]}, the same "
                   f"key and value) is also at {kept[3]}: written twice, taken once",
                   round_id=round_id, casino=casino)


def log_entries(log_dir: Path, records: KeptRecords | None = None,
                twice: list[tuple[int, Finding]] | None = None) -> Iterator[Entry]:
    """Every record of the log as an entry (the records and the errors of
    ``schemas.logformat.read_log``): of every chain :func:`log_chains` finds, in the order
    of :func:`entries_of` (for the lone ingest's chain, the order written); with
    ``records``, those verification kept (:class:`KeptRecords`); a message two chains
    hold with the same bytes is taken once, its finding put in ``twice``."""
    return entries_of(log_chains(log_dir), records, twice)


def _zigzag(n: int) -> bytes:
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


@cache
def _container_header(schema_id: int) -> bytes | None:
    """The header of an in-memory container for bodies of ``schema_id``: its writer schema
    without the envelope's two logical types. None when the schema does not have them as
    expected (then every record of that id goes to ``decode``)."""
    parsed = writer_schema(schema_id)
    fields = []
    plain = set()
    for f in parsed["fields"]:
        t = f["type"]
        if f["name"] in _PLAIN:
            if not isinstance(t, dict) or t.get("logicalType") != _PLAIN[f["name"]]:
                return None
            t = {k: v for k, v in t.items() if k != "logicalType"}
            plain.add(f["name"])
        fields.append({**f, "type": t})
    if plain != set(_PLAIN):
        return None
    schema = {k: v for k, v in parsed.items() if not k.startswith("__")}
    schema["fields"] = fields
    buf = io.BytesIO()
    Writer(buf, schema, codec="null", sync_marker=_SYNC).flush()
    return buf.getvalue()


_PRIMITIVE = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})


def _plain_type(t: Any) -> bool:
    return (isinstance(t, str) and t in _PRIMITIVE) or (
        isinstance(t, list) and all(isinstance(u, str) and u in _PRIMITIVE for u in t))


def _named_records(schema: Any, found: dict[str, Any]) -> dict[str, Any]:
    """Every record defined anywhere in a parsed schema, by full name: a record is defined
    where it first appears (a payload of schema id 3 first appears in a correction's
    replacement union) and named by a bare string afterwards."""
    if isinstance(schema, list):
        for branch in schema:
            _named_records(branch, found)
    elif isinstance(schema, dict):
        if schema.get("type") == "record" and isinstance(schema.get("name"), str):
            found.setdefault(schema["name"], schema)
            for f in schema.get("fields", ()):
                _named_records(f.get("type"), found)
        elif schema.get("type") == "array":
            _named_records(schema.get("items"), found)
    return found


@cache
def _payload_plans(schema_id: int) -> dict[str, tuple[type, tuple[str, ...]]]:
    """Per payload name of ``schema_id``, its class and its array fields, for the payloads
    whose fields are all primitive (or unions of primitives) or arrays of primitives, with
    no logical type: for those, what ``schemas.codec._payload`` does to the values read
    comes down to making each array a tuple (no nested record, no UUID), so the class is
    called with the same arguments. Any other payload (a correction, say) goes through
    ``_payload``."""
    plans: dict[str, tuple[type, tuple[str, ...]]] = {}
    schema = writer_schema(schema_id)
    named = _named_records(schema, {})
    payload: Any = next((f["type"] for f in schema["fields"] if f["name"] == "payload"), [])
    for branch in payload if isinstance(payload, list) else []:
        record = named.get(branch) if isinstance(branch, str) else branch
        if not isinstance(record, dict) or record.get("name") not in PAYLOAD_TYPES:
            continue
        arrays = []
        for f in record.get("fields", ()):
            t = f["type"]
            if isinstance(t, dict) and t.get("type") == "array" and set(t) == {"type", "items"} \
                    and _plain_type(t["items"]):
                arrays.append(f["name"])
            elif not _plain_type(t):
                break
        else:
            plans[record["name"]] = (PAYLOAD_TYPES[record["name"]], tuple(arrays))
    return plans


def _event(record: Any, schema_id: int) -> RoundEvent | None:
    """The event ``decode`` makes of this record, or None when only ``decode`` may say."""
    event_id = record["event_id"]
    occurred = record["occurred_at"]
    if (type(event_id) is not str or not _UUID.fullmatch(event_id)
            or type(occurred) is not int or not 0 <= occurred <= _LAST_US):
        return None
    name, fields = record["payload"]
    upcast = _UPCAST.get(schema_id)
    plan = None
    if upcast is not None:
        name, fields = upcast(name, fields)
    else:
        plan = _payload_plans(schema_id).get(name)
    if plan is None:
        payload = _payload(name, fields)
    else:
        cls, arrays = plan
        for array in arrays:  # fields is this record's own dict, read a moment ago
            fields[array] = tuple(fields[array])
        payload = cls(**fields)
    return RoundEvent(
        event_id=event_id, casino=record["casino"], table_id=record["table_id"],
        table_seq=record["table_seq"], round_id=record["round_id"],
        occurred_at_us=occurred, recorded_by=record["recorded_by"],
        payload=payload,
    )


Decoded = tuple[Entry, RoundEvent | DecodeError]


def _one(entry: Entry) -> Decoded:
    try:
        return entry, decode(entry[3])
    except DecodeError as exc:
        return entry, exc


def _fast(entries: list[Entry], schema_id: int) -> list[Decoded]:
    """The leading entries the container fast path can vouch for (see the module
    docstring); it stops at the first body whose end is not its message's end, or that the
    reader cannot read."""
    header = _container_header(schema_id)
    out: list[Decoded] = []
    if header is None:
        return out
    bodies = [e[3][5:] for e in entries]
    data = b"".join(bodies)
    blob = b"".join((header, _zigzag(len(bodies)), _zigzag(len(data)), data, _SYNC))
    with contextlib.suppress(Exception):  # what the reader cannot take, decode() words
        for block in block_reader(io.BytesIO(blob), return_record_name=True):
            tell = block.bytes_.tell  # type: ignore[attr-defined]  # where the last body ended
            end = 0
            for record in block:
                entry = entries[len(out)]
                end += len(bodies[len(out)])
                if tell() != end:
                    break
                try:
                    event = _event(record, schema_id)
                except Exception:  # decode() says what is wrong, in its words
                    event = None
                out.append(_one(entry) if event is None else (entry, event))
            break
    return out


def _block(entries: list[Entry], schema_id: int) -> Iterator[Decoded]:
    """Entries of one schema id, in order: the fast path while it can vouch for a record,
    ``decode`` from the first record it cannot."""
    done = _fast(entries, schema_id)
    yield from done
    for entry in entries[len(done):]:
        yield _one(entry)


def _schema_id(value: bytes) -> int | None:
    if len(value) < 5 or value[0] != 0:
        return None
    sid = int.from_bytes(value[1:5], "big")
    return sid if sid in SCHEMA_IDS else None


def decode_entries(entries: Iterable[Entry]) -> Iterator[Decoded]:
    """Every entry with its event, or with the DecodeError ``decode`` raises for it, in the
    order given. Runs of records of one schema id go through the container fast path."""
    run: list[Entry] = []
    run_id = 0
    for entry in entries:
        sid = _schema_id(entry[3])
        if run and (sid != run_id or len(run) >= BLOCK):
            yield from _block(run, run_id)
            run = []
        if sid is None:
            yield _one(entry)
            continue
        run_id = sid
        run.append(entry)
    if run:
        yield from _block(run, run_id)


def undecodable_finding(where: str, exc: DecodeError) -> Finding:
    """The log-level finding for a record that does not decode."""
    return Finding(kind="undecodable_record", table_id="", where=where,
                   detail=f"cannot be decoded: {exc}")


def events_of(
    entries: Iterable[Entry], undecodable: Callable[[Entry, DecodeError], None]
) -> Iterator[tuple[str, RoundEvent]]:
    """``(where, event)`` for the fold; a record that does not decode goes to
    ``undecodable`` and is skipped."""
    for entry, got in decode_entries(entries):
        if isinstance(got, DecodeError):
            undecodable(entry, got)
        else:
            yield entry[1], got
