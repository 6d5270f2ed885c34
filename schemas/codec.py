"""Avro encoding of events, framed with the writer schema's id (Confluent wire format).

Frame: magic byte 0, schema id as 4-byte big-endian unsigned int, then the schemaless Avro
body (STACK.md section 6). The registry is ``registry.json`` beside this file: ids are never
reused, so a reader can always find the schema a payload was written with.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import json
import struct
import uuid
from functools import cache
from importlib import resources
from typing import Any

from fastavro import parse_schema, schemaless_reader, schemaless_writer
from fastavro.schema import load_schema

from schemas.events import AVRO_NAMES, PAYLOAD_TYPES, EventError, RoundEvent

MAGIC = 0
CURRENT_SCHEMA_ID = 1
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MICRO = dt.timedelta(microseconds=1)


class DecodeError(ValueError):
    """Bytes that are not an event of ours; the message says why."""


@cache
def writer_schema(schema_id: int) -> Any:
    """The parsed writer schema registered under ``schema_id``."""
    registry = json.loads(resources.files("schemas").joinpath("registry.json").read_text())
    name = registry["schemas"].get(str(schema_id))
    if name is None:
        raise DecodeError(f"unknown schema id {schema_id} (known: {sorted(registry['schemas'])})")
    with resources.as_file(resources.files("schemas").joinpath(name)) as path:
        return parse_schema(load_schema(str(path)))


def _to_avro(event: RoundEvent) -> dict[str, Any]:
    payload = {
        f.name: list(v) if isinstance(v := getattr(event.payload, f.name), tuple) else v
        for f in dataclasses.fields(event.payload)
    }
    return {
        "event_id": event.event_id,
        "casino": event.casino,
        "table_id": event.table_id,
        "table_seq": event.table_seq,
        "round_id": event.round_id,
        "occurred_at": event.occurred_at_us,
        "recorded_by": event.recorded_by,
        "payload": (AVRO_NAMES[type(event.payload)], payload),
    }


def encode(event: RoundEvent, *, schema_id: int = CURRENT_SCHEMA_ID) -> bytes:
    """Frame and encode one event with the writer schema ``schema_id``."""
    buf = io.BytesIO()
    buf.write(struct.pack(">bI", MAGIC, schema_id))
    schemaless_writer(buf, writer_schema(schema_id), _to_avro(event), strict_allow_default=True)
    return buf.getvalue()


def decode(raw: bytes) -> RoundEvent:
    """Decode one framed payload into an event, or raise DecodeError saying what is wrong."""
    if len(raw) < 5:
        raise DecodeError(f"payload is {len(raw)} bytes, shorter than the 5-byte frame header")
    magic, schema_id = struct.unpack(">bI", raw[:5])
    if magic != MAGIC:
        raise DecodeError(f"first byte is {magic}, not the magic byte {MAGIC}: not a framed event")
    schema = writer_schema(schema_id)
    body = io.BytesIO(raw[5:])
    try:
        record: Any = schemaless_reader(body, schema, schema, return_record_name=True)
    except (EOFError, StopIteration, ValueError, IndexError, UnicodeDecodeError, TypeError) as exc:
        raise DecodeError(f"Avro body does not match schema id {schema_id}: {exc!r}") from exc
    if body.tell() != len(raw) - 5:
        raise DecodeError(
            f"{len(raw) - 5 - body.tell()} bytes left over after the Avro body "
            f"of schema id {schema_id}"
        )
    try:
        name, fields = record["payload"]
        cls = PAYLOAD_TYPES[name]
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                                   for k, v in fields.items()}
        payload = cls(**values)
        occurred = record["occurred_at"]
        occurred_us = (
            (occurred - _EPOCH) // _MICRO if isinstance(occurred, dt.datetime) else int(occurred)
        )
        event_id = record["event_id"]
        return RoundEvent(
            event_id=str(event_id) if isinstance(event_id, uuid.UUID) else event_id,
            casino=record["casino"],
            table_id=record["table_id"],
            table_seq=record["table_seq"],
            round_id=record["round_id"],
            occurred_at_us=occurred_us,
            recorded_by=record["recorded_by"],
            payload=payload,
        )
    except EventError as exc:
        raise DecodeError(f"impossible event: {exc}") from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise DecodeError(f"malformed event: {exc!r}") from exc
