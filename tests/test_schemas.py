"""The event vocabulary and its framed Avro encoding."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from fastavro import parse_schema
from fastavro.schema import load_schema

import schemas
from schemas import (
    CardsDealt,
    DecodeError,
    EventError,
    HandSet,
    JackpotVerified,
    PlayerActed,
    RoundEnded,
    RoundStarted,
    TilesDealt,
    WagerPlaced,
    WagerSettled,
    decode,
    encode,
)
from tests.events_factory import Table

SCHEMA_DIR = Path(schemas.__file__).parent

PAYLOADS = [
    RoundStarted(game="pai_gow_poker", dealer_id="E011"),
    RoundStarted(game="pai_gow_poker", dealer_id="E011", ruleset="x-v1", banker_seat=3),
    WagerPlaced(seat=3, wager="main", amount_cents=2500),
    CardsDealt(seat=None, cards=("As", "Kd", "Qh", "Jc", "Tc", "9s", "Jk")),
    HandSet(seat=2, high=("As", "Kd", "Qh", "Jc", "Tc"), low=("9s", "Jk")),
    WagerSettled(seat=1, wager="main", outcome="win", net_cents=2375, commission_cents=125),
    WagerSettled(seat=1, wager="main", outcome="loss", net_cents=-2500, commission_cents=0),
    RoundEnded(),
]


@pytest.mark.parametrize("payload", PAYLOADS, ids=lambda p: type(p).__name__)
def test_every_event_round_trips_through_avro(payload):
    event = Table().event("T01-000001", payload)
    raw = encode(event)
    assert raw[0] == 0 and struct.unpack(">I", raw[1:5])[0] == 3
    assert decode(raw) == event


def test_frame_carries_the_registered_schema_id():
    registry = json.loads((SCHEMA_DIR / "registry.json").read_text())
    assert registry["schemas"]["2"] == "v2/catwalk.RoundEvent.avsc"
    assert registry["schemas"]["3"] == "v3/catwalk.RoundEvent.avsc"
    for name in registry["schemas"].values():
        parse_schema(load_schema(str(SCHEMA_DIR / name)))


@pytest.mark.parametrize(
    ("mangle", "reason"),
    [
        (lambda raw: b"", "shorter than the 5-byte frame header"),
        (lambda raw: b"\x07" + raw[1:], "not the magic byte"),
        (lambda raw: raw[:1] + struct.pack(">I", 99) + raw[5:], "unknown schema id 99"),
        (lambda raw: raw[:30], "does not match schema id 3"),
        (lambda raw: raw + b"\x00", "1 bytes left over"),
    ],
    ids=["empty", "magic", "schema-id", "truncated", "trailing"],
)
def test_undecodable_bytes_say_why(mangle, reason):
    raw = encode(Table().event("T01-000001", PAYLOADS[2]))
    with pytest.raises(DecodeError, match=reason):
        decode(mangle(raw))


def test_impossible_event_is_refused_when_decoded():
    """A negative wager fits the Avro schema but is not a fact; decode names the field."""
    good = encode(Table().event("T01-000001", WagerPlaced(seat=3, wager="main",
                                                          amount_cents=2500)))
    # The amount comes before the patron id (null: branch 0): zig-zag 2500 -> 5000 ->
    # varint 0x88 0x27; -2500 -> 4999.
    assert good.endswith(b"\x88\x27\x00")
    bad = good[:-3] + b"\x87\x27\x00"
    with pytest.raises(DecodeError, match="amount_cents must not be negative, got -2500"):
        decode(bad)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: WagerPlaced(seat=1, wager="main", amount_cents=25.0), "integer cents"),
        (lambda: WagerPlaced(seat=1, wager="main", amount_cents=True), "integer cents"),
        (lambda: WagerPlaced(seat=0, wager="main", amount_cents=100), "seat must be"),
        (lambda: WagerPlaced(seat=1, wager="tip", amount_cents=100), "unknown wager 'tip'"),
        (lambda: CardsDealt(seat=1, cards=("As", "1s")), r"cards\[1\] is not a card: '1s'"),
        (lambda: RoundStarted(game="baccarat", dealer_id="E1"), "unknown game 'baccarat'"),
        (lambda: RoundStarted(game="pai_gow_poker", dealer_id="E1", co_bank=True),
         "co_bank needs a player banker seat"),
        (lambda: TilesDealt(seat=1, tiles=("6-6", "3-1")), r"tiles\[1\] is not a tile"),
        (lambda: HandSet(seat=1, high=("6-6", "As"), low=("1-1", "2-2")),
         r"high\[1\] is not a tile"),
        (lambda: PlayerActed(seat=1, action="surrender"), "unknown action 'surrender'"),
        (lambda: JackpotVerified(seat=1, step="blessed", employee_id="F1", role="floorperson"),
         "unknown jackpot step 'blessed'"),
        (lambda: JackpotVerified(seat=1, step="paid", employee_id="F1", role="floorperson",
                                 paid_from="pocket"), "paid_from must be one of"),
        (lambda: WagerSettled(seat=1, wager="main", outcome="win", net_cents=1 << 63,
                              commission_cents=0), "does not fit a 64-bit amount"),
        (lambda: WagerSettled(seat=1, wager="main", outcome="won", net_cents=1,
                              commission_cents=0), "unknown outcome 'won'"),
    ],
)
def test_events_name_the_bad_value(make, message):
    with pytest.raises(EventError, match=message):
        make()
