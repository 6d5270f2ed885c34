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
    BankPassed,
    CardsDealt,
    DecodeError,
    EventCorrected,
    EventError,
    HandChanged,
    HandCollected,
    HandSet,
    JackpotVerified,
    PlayerActed,
    RoundEnded,
    RoundStarted,
    Shuffled,
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


# Schema id 3 ---------------------------------------------------------------------------------

V3_PAYLOADS = [
    Shuffled(),
    Shuffled(kind="deck_change", deck_id="D-0042"),
    Shuffled(kind="deck_change"),
    HandCollected(seat=4),
    HandCollected(seat=None),
    BankPassed(to_seat=5, reason="rotation"),
    BankPassed(to_seat=2, reason="declined"),
    BankPassed(to_seat=None, reason="cannot_cover"),
    HandChanged(seat=3, high=("As", "Kd", "Qh", "Jc", "Tc"), low=("9s", "Jk")),
    HandChanged(seat=None, high=("6-6", "1-3"), low=("2-4", "1-2")),
    RoundStarted(game="pai_gow_poker", dealer_id="E011", banker_seat=3, banker_cover_cents=0),
    RoundStarted(game="pai_gow_tiles", dealer_id="E011", banker_seat=6, co_bank=True,
                 banker_cover_cents=2**63 - 1),
    WagerPlaced(seat=1, wager="fortune", amount_cents=500, patron_id="P-000417"),
    WagerPlaced(seat=2, wager="main", amount_cents=500, patron_id="é-ünïcödé ☃"),
    EventCorrected(corrects="00000000-0000-4000-8000-000000000001", reason="keyed wrong",
                   replacement=HandCollected(seat=2)),
    EventCorrected(corrects="00000000-0000-4000-8000-000000000001", reason="keyed wrong",
                   replacement=HandChanged(seat=2, high=("As", "Kd", "Qh", "Jc", "Tc"),
                                           low=("9s", "Jk"))),
    EventCorrected(corrects="00000000-0000-4000-8000-000000000001", reason="keyed wrong",
                   replacement=Shuffled(kind="deck_change", deck_id="D-7")),
    EventCorrected(corrects="00000000-0000-4000-8000-000000000001", reason="keyed wrong",
                   replacement=BankPassed(to_seat=None, reason="declined")),
    EventCorrected(corrects="00000000-0000-4000-8000-000000000001", reason="keyed wrong",
                   replacement=WagerPlaced(seat=1, wager="main", amount_cents=100,
                                           patron_id="P-9")),
]


@pytest.mark.parametrize("payload", V3_PAYLOADS, ids=lambda p: type(p).__name__)
def test_every_schema_id_3_payload_round_trips_through_avro_at_id_3(payload):
    event = Table().event("T01-000001", payload)
    raw = encode(event)
    assert struct.unpack(">bI", raw[:5]) == (0, 3)
    assert decode(raw) == event
    assert decode(encode(event, schema_id=3)) == event


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (Shuffled(), "Shuffled has no schema id 2 form"),
        (HandCollected(seat=1), "HandCollected has no schema id 2 form"),
        (BankPassed(to_seat=None, reason="rotation"), "BankPassed has no schema id 2 form"),
        (HandChanged(seat=1, high=("As", "Kd", "Qh", "Jc", "Tc"), low=("9s", "Jk")),
         "HandChanged has no schema id 2 form"),
        (WagerPlaced(seat=1, wager="main", amount_cents=100, patron_id="P-1"),
         "WagerPlaced with patron_id set has no schema id 2 form"),
        (RoundStarted(game="pai_gow_poker", dealer_id="E1", banker_seat=2,
                      banker_cover_cents=10_000),
         "RoundStarted with banker_cover_cents set has no schema id 2 form"),
        (EventCorrected(corrects="00000000-0000-4000-8000-000000000001", reason="x",
                        replacement=Shuffled()),
         "correction whose replacement has no schema id 2 form: Shuffled"),
        (EventCorrected(corrects="00000000-0000-4000-8000-000000000001", reason="x",
                        replacement=WagerPlaced(seat=1, wager="main", amount_cents=1,
                                                patron_id="P-1")),
         "correction whose replacement has no schema id 2 form: a WagerPlaced with patron_id"),
    ],
    ids=lambda x: x if isinstance(x, str) else type(x).__name__,
)
def test_schema_id_2_refuses_what_it_cannot_carry_and_says_why(payload, why):
    event = Table().event("T01-000001", payload)
    with pytest.raises(EventError, match=why):
        encode(event, schema_id=2)
    with pytest.raises(EventError, match="no schema id 1 form"):
        encode(event, schema_id=1)


def test_schema_ids_1_and_2_still_write_what_they_can_carry_and_read_back_the_same():
    """An event with none of the new facts (no patron id, no cover recorded) is the same
    fact under every id: nothing added on the way back."""
    for payload in (WagerPlaced(seat=1, wager="main", amount_cents=100),
                    RoundStarted(game="pai_gow_poker", dealer_id="E1", banker_seat=2)):
        event = Table().event("T01-000001", payload)
        for sid in (1, 2):
            raw = encode(event, schema_id=sid)
            assert struct.unpack(">bI", raw[:5]) == (0, sid)
            assert decode(raw) == event
    corrected = Table().event("T01-000001", EventCorrected(
        corrects="00000000-0000-4000-8000-000000000001", reason="x",
        replacement=WagerPlaced(seat=1, wager="main", amount_cents=1)))
    assert decode(encode(corrected, schema_id=2)) == corrected


GOLDEN = Path(__file__).parent / "golden" / "events"


@pytest.mark.parametrize(("version", "name", "field"), [
    (1, "01_RoundStarted", "banker_cover_cents"),
    (1, "02_RoundStarted_banker", "banker_cover_cents"),
    (1, "03_WagerPlaced", "patron_id"),
    (2, "01_RoundStarted", "banker_cover_cents"),
    (2, "02_WagerPlaced_dealer", "patron_id"),
])
def test_v1_and_v2_frames_upcast_to_the_newest_classes_with_the_new_facts_not_recorded(
        version, name, field):
    raw = (GOLDEN / f"v{version}" / f"{name}.bin").read_bytes()
    assert struct.unpack(">bI", raw[:5]) == (0, version)
    event = decode(raw)
    assert type(event.payload) in (RoundStarted, WagerPlaced)
    assert getattr(event.payload, field) is None


def _v3(branch: int, payload: bytes) -> bytes:
    from tests.test_schema_versions import _frame3

    return _frame3(1, branch, payload)


def _hostile_v3() -> list[tuple[str, bytes, str]]:
    from tests.test_schema_versions import (
        BANK_PASSED,
        HAND_CHANGED,
        HAND_COLLECTED,
        ROUND_STARTED,
        SHUFFLED,
        WAGER_PLACED,
        _long,
        _null,
        _some,
        _str,
    )
    started = _str("pai_gow_poker") + _null() + _str("E011")
    return [
        ("payload branch past the last record", _v3(20, _null()),
         "Avro body does not match schema id 3"),
        ("negative payload branch", _v3(-1, _null()), "Avro body does not match schema id 3"),
        ("deck id union branch 2 of 2", _v3(SHUFFLED, _str("reshuffle") + _long(2)),
         "Avro body does not match schema id 3"),
        ("collected seat union branch 5", _v3(HAND_COLLECTED, _long(5) + _long(1)),
         "Avro body does not match schema id 3"),
        ("negative cover", _v3(ROUND_STARTED, started + _some(_long(3)) + b"\x00"
                               + _some(_long(-1))),
         "impossible event: banker_cover_cents must not be negative, got -1"),
        ("a cover without a player banker", _v3(ROUND_STARTED, started + _null() + b"\x00"
                                                + _some(_long(100))),
         "impossible event: banker_cover_cents needs a player banker seat"),
        ("unknown shuffle kind", _v3(SHUFFLED, _str("riffle") + _null()),
         "impossible event: unknown shuffle kind 'riffle'"),
        ("unknown reason the bank passed", _v3(BANK_PASSED, _null() + _str("bored")),
         "impossible event: unknown reason the bank passed 'bored'"),
        ("seat 0 passed the bank", _v3(BANK_PASSED, _some(_long(0)) + _str("rotation")),
         "impossible event: seat must be a seat number from 1, got 0"),
        ("empty patron id", _v3(WAGER_PLACED, _some(_long(1)) + _str("main") + _long(100)
                                + _some(_str(""))),
         "impossible event: patron_id must be non-empty text"),
        ("a changed hand that is no hand", _v3(HAND_CHANGED, _null() + _long(1) + _str("Zz")
                                               + b"\x00" + _long(0)),
         "impossible event: "),
        ("truncated changed hand", _v3(HAND_CHANGED, _null() + _long(2) + _str("As")),
         "Avro body does not match schema id 3"),
        ("a byte after a shuffle", _v3(SHUFFLED, _str("reshuffle") + _null() + b"\x00"),
         "1 bytes left over after the Avro body of schema id 3"),
    ]


@pytest.mark.parametrize(("raw", "reason"), [pytest.param(r, w, id=n)
                                             for n, r, w in _hostile_v3()])
def test_hostile_schema_id_3_bytes_are_a_decode_error_and_a_quarantine_reason(raw, reason):
    """Inside a valid frame: a bad union index, a negative cover, a word outside the
    vocabulary. decode says why (no traceback), ingest quarantines with those words, and the
    batch decoder says the same."""
    from ingest.judging import judge_one
    from replay.batch_decode import decode_entries

    with pytest.raises(DecodeError) as caught:
        decode(raw)
    assert str(caught.value).startswith(reason), str(caught.value)
    assert judge_one(b"T01", raw) == str(caught.value)
    ((_, got),) = decode_entries([(0, "log position 0 (round-events[0]@0)", b"T01", raw)])
    assert isinstance(got, DecodeError) and str(got) == str(caught.value)


def test_the_hostile_frames_differ_from_good_ones_only_where_they_say():
    """The hostile frames are built as the good golden frames are: the same builder writes a
    frame that decodes (so a failure above is the fault named, not the builder)."""
    from tests.test_schema_versions import SHUFFLED, _null, _str

    good = decode(_v3(SHUFFLED, _str("reshuffle") + _null()))
    assert good.payload == Shuffled()
