"""Avro encoding of events, framed with the writer schema's id (Confluent wire format).

Frame: magic byte 0, schema id as 4-byte big-endian unsigned int, then the schemaless Avro
body (the Confluent wire format). The registry is ``registry.json`` beside this file: ids are
never reused, so a reader can always find the schema a payload was written with.

Versions: schema id 1 is the first vocabulary (six events, the banker as text); schema id 2
adds tiles, player actions, exposure, Envy, the progressive meter, jackpots and their
verification, voids, corrections and the player banker's account; schema id 3
(``CURRENT_SCHEMA_ID``) adds the reshuffle and the deck change (``Shuffled``), the collection
of a hand (``HandCollected``), the passing of the bank (``BankPassed``), the dealer's change of
an exposed hand (``HandChanged``), the patron's tracking id on a wager
(``WagerPlaced.patron_id``) and the player banker's cover (``RoundStarted.banker_cover_cents``).

Every id is read, into the classes of ``schemas.events`` (the newest vocabulary). An event
written under id 1 is upcast (``_UPCAST``: the banker as text becomes ``banker_seat``); one
written under id 2 needs nothing, since every field id 3 added is nullable and its class
defaults it to None (not recorded). ``encode(event, schema_id=1)`` and ``schema_id=2`` write
the old forms, for as long as old table devices must be imitated in tests, and raise
EventError naming why when the event has no such form (a payload an older id does not know,
a field it cannot carry set, a correction whose replacement has none): an older form never
drops a fact silently.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import json
import re
import struct
import uuid
from functools import cache
from importlib import resources
from typing import Any

from fastavro import parse_schema, schemaless_reader, schemaless_writer
from fastavro.schema import load_schema

from schemas.events import (
    AVRO_NAMES,
    PAYLOAD_TYPES,
    V3_TYPES,
    CardsDealt,
    EventCorrected,
    EventError,
    HandSet,
    RoundEnded,
    RoundEvent,
    RoundStarted,
    WagerPlaced,
    WagerSettled,
)

MAGIC = 0
CURRENT_SCHEMA_ID = 3
SCHEMA_IDS = (1, 2, 3)
"""Every schema id this reader reads (registry.json)."""
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


def _fields(payload: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(payload):
        v = getattr(payload, f.name)
        if isinstance(v, tuple):
            v = list(v)
        elif type(v) in AVRO_NAMES:
            v = (AVRO_NAMES[type(v)], _fields(v))
        out[f.name] = v
    return out


_V1_TYPES = (RoundStarted, WagerPlaced, CardsDealt, HandSet, WagerSettled, RoundEnded)
_V3_FIELDS: dict[type, tuple[str, ...]] = {
    RoundStarted: ("banker_cover_cents",),
    WagerPlaced: ("patron_id",),
}
"""The fields schema id 3 added to payloads older ids know (nullable: None is not recorded)."""


def _older_payload(payload: Any, schema_id: int) -> tuple[str, dict[str, Any]]:
    """The schema id 1 or 2 form of a payload, for payloads that have one: EventError naming
    why otherwise (never a fact dropped on the way)."""
    name = type(payload).__name__
    if schema_id == 1 and type(payload) not in _V1_TYPES:
        raise EventError(f"{name} has no schema id 1 form")
    if type(payload) in V3_TYPES:
        raise EventError(f"{name} has no schema id {schema_id} form (schema id 3 added it)")
    added = _V3_FIELDS.get(type(payload), ())
    for field in added:
        if getattr(payload, field) is not None:
            raise EventError(f"a {name} with {field} set has no schema id {schema_id} form "
                             f"(schema id 3 added {field})")
    if isinstance(payload, EventCorrected) and payload.replacement is not None:
        try:
            replacement = _older_payload(payload.replacement, schema_id)
        except EventError as exc:
            raise EventError(f"a correction whose replacement has no schema id {schema_id} "
                             f"form: {exc}") from exc
        return AVRO_NAMES[EventCorrected], {"corrects": payload.corrects,
                                            "reason": payload.reason,
                                            "replacement": replacement}
    fields = {k: v for k, v in _fields(payload).items() if k not in added}
    if schema_id == 1:
        return _v1_form(payload, fields)
    return AVRO_NAMES[type(payload)], fields


def _v1_form(payload: Any, fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The schema id 1 form of a payload of a schema id 1 type (its v2 fields given)."""
    if isinstance(payload, RoundStarted):
        if payload.co_bank:
            raise EventError("a co-banked round has no schema id 1 form")
        fields = {"game": payload.game, "ruleset": payload.ruleset, "banker": payload.banker,
                  "dealer_id": payload.dealer_id}
    elif getattr(payload, "seat", 0) is None and not isinstance(payload, CardsDealt | HandSet):
        raise EventError(f"a dealer's {type(payload).__name__} has no schema id 1 form")
    return AVRO_NAMES[type(payload)], fields


def _to_avro(event: RoundEvent, schema_id: int) -> dict[str, Any]:
    payload = (_older_payload(event.payload, schema_id) if schema_id in (1, 2)
               else (AVRO_NAMES[type(event.payload)], _fields(event.payload)))
    return {
        "event_id": event.event_id,
        "casino": event.casino,
        "table_id": event.table_id,
        "table_seq": event.table_seq,
        "round_id": event.round_id,
        "occurred_at": event.occurred_at_us,
        "recorded_by": event.recorded_by,
        "payload": payload,
    }


def encode(event: RoundEvent, *, schema_id: int = CURRENT_SCHEMA_ID) -> bytes:
    """Frame and encode one event with the writer schema ``schema_id``; EventError when the
    event has no form in that schema (a tile deal in schema id 1, a reshuffle or a wager
    with a patron's tracking id in schema id 2, say)."""
    buf = io.BytesIO()
    buf.write(struct.pack(">bI", MAGIC, schema_id))
    schemaless_writer(buf, writer_schema(schema_id), _to_avro(event, schema_id),
                      strict_allow_default=True)
    return buf.getvalue()


_V1_BANKER = re.compile(r"seat ([1-9][0-9]{0,8})")


def _upcast_v1(name: str, fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A schema id 1 payload in the newest vocabulary. Only RoundStarted changed: its
    ``banker`` text ("dealer" or "seat N") became ``banker_seat``."""
    if name == "catwalk.RoundStarted":
        fields = dict(fields)
        banker = fields.pop("banker", "dealer")
        if banker == "dealer":
            fields["banker_seat"] = None
        elif isinstance(banker, str) and (m := _V1_BANKER.fullmatch(banker)):
            fields["banker_seat"] = int(m.group(1))
        else:
            raise EventError(f"schema id 1 banker {banker!r} is neither 'dealer' nor 'seat N'")
    return name, fields


_UPCAST = {1: _upcast_v1}
"""Per older schema id: how its payloads become the newest vocabulary."""


def _payload(name: str, fields: dict[str, Any]) -> Any:
    cls = PAYLOAD_TYPES[name]
    values: dict[str, Any] = {}
    for k, v in fields.items():
        if isinstance(v, list):
            v = tuple(v)
        elif isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str):
            v = _payload(v[0], v[1])
        elif isinstance(v, uuid.UUID):
            v = str(v)
        values[k] = v
    return cls(**values)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
"""A memory address in a decoder's message (``<_io.BytesIO object at 0x7f...>``): left out,
so that the same bytes always give the same words (docs/design.md principle 5)."""


def decode(raw: bytes) -> RoundEvent:
    """Decode one framed payload of any registered schema id into an event of the newest
    vocabulary, or raise DecodeError saying what is wrong."""
    if len(raw) < 5:
        raise DecodeError(f"payload is {len(raw)} bytes, shorter than the 5-byte frame header")
    magic, schema_id = struct.unpack(">bI", raw[:5])
    if magic != MAGIC:
        raise DecodeError(f"first byte is {magic}, not the magic byte {MAGIC}: not a framed event")
    schema = writer_schema(schema_id)
    body = io.BytesIO(raw[5:])
    try:
        record: Any = schemaless_reader(body, schema, schema, return_record_name=True)
    except (EOFError, StopIteration, ValueError, IndexError, UnicodeDecodeError, TypeError,
            OverflowError, KeyError) as exc:
        raise DecodeError(f"Avro body does not match schema id {schema_id}: "
                          f"{_ADDRESS.sub('', repr(exc))}") from exc
    if body.tell() != len(raw) - 5:
        raise DecodeError(
            f"{len(raw) - 5 - body.tell()} bytes left over after the Avro body "
            f"of schema id {schema_id}"
        )
    try:
        name, fields = record["payload"]
        upcast = _UPCAST.get(schema_id)
        if upcast is not None:
            name, fields = upcast(name, fields)
        payload = _payload(name, fields)
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


__all__ = ["CURRENT_SCHEMA_ID", "SCHEMA_IDS", "DecodeError", "decode", "encode", "writer_schema"]
