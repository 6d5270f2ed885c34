"""The event vocabulary (Avro schemas in this folder) and its framed encoding."""

from schemas.codec import CURRENT_SCHEMA_ID, DecodeError, decode, encode, writer_schema
from schemas.events import (
    CardsDealt,
    EventError,
    HandSet,
    Payload,
    RoundEnded,
    RoundEvent,
    RoundStarted,
    WagerPlaced,
    WagerSettled,
)

__all__ = [
    "CURRENT_SCHEMA_ID",
    "CardsDealt",
    "DecodeError",
    "EventError",
    "HandSet",
    "Payload",
    "RoundEnded",
    "RoundEvent",
    "RoundStarted",
    "WagerPlaced",
    "WagerSettled",
    "decode",
    "encode",
    "writer_schema",
]
