"""Every reader reads every earlier writer: golden Avro bytes per schema id, checked in.

``tests/golden/events/v1`` holds bytes written by the schema id 1 encoder as it was
released (generated from the commit before schema id 2 existed); ``v2`` holds the bytes of
the schema id 2 writer; ``v3`` holds frames written by hand from the Avro specification
(``V3_HAND_WRITTEN`` below spells each one out, byte by byte, without the encoder under test,
and a test holds the files to it). Each file must decode to the event written out below by
hand, in the newest vocabulary (schema id 1 events upcast: ``banker "seat 3"`` becomes
``banker_seat 3``; schema id 1 and 2 events have no patron id, no banker's cover: None).
A new schema id must add its own folder here: the last test refuses a registry id without
golden bytes. Regenerate v2 only on purpose: ``CATWALK_WRITE_GOLDEN=1 pytest this file``.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest
from fastavro import parse_schema, schemaless_reader
from fastavro.schema import load_schema

import schemas
from schemas import (
    SCHEMA_IDS,
    BankerSettled,
    BankPassed,
    CardsDealt,
    EnvyBonusPaid,
    EventCorrected,
    HandChanged,
    HandCollected,
    HandSet,
    HandsExposed,
    JackpotHit,
    JackpotVerified,
    PlayerActed,
    ProgressiveMeterRead,
    RoundEnded,
    RoundEvent,
    RoundStarted,
    RoundVoided,
    Shuffled,
    TilesDealt,
    WagerPlaced,
    WagerSettled,
    decode,
    encode,
)

GOLDEN = Path(__file__).parent / "golden" / "events"
T0 = 1_795_888_800_000_000


def _event(seq: int, payload) -> RoundEvent:
    return RoundEvent(event_id=f"00000000-0000-4000-8000-{seq:012d}", casino="C01",
                      table_id="T01", table_seq=seq, round_id="T01-000001",
                      occurred_at_us=T0 + seq, recorded_by="E011", payload=payload)


V1_EXPECTED = {
    "01_RoundStarted": RoundStarted(game="pai_gow_poker", dealer_id="E011"),
    "02_RoundStarted_banker": RoundStarted(game="pai_gow_poker", dealer_id="E011",
                                           ruleset="pai_gow_poker-classic-v1", banker_seat=3),
    "03_WagerPlaced": WagerPlaced(seat=3, wager="main", amount_cents=2500),
    "04_CardsDealt": CardsDealt(seat=None, cards=("As", "Kd", "Qh", "Jc", "Tc", "9s", "Jk")),
    "05_HandSet": HandSet(seat=2, high=("As", "Kd", "Qh", "Jc", "Tc"), low=("9s", "Jk")),
    "06_WagerSettled": WagerSettled(seat=1, wager="main", outcome="win", net_cents=2375,
                                    commission_cents=125),
    "07_RoundEnded": RoundEnded(note="shift change"),
}

V2_EXPECTED = {
    "01_RoundStarted": RoundStarted(game="pai_gow_tiles", dealer_id="E011",
                                    ruleset="pai_gow_tiles-pr-v1", banker_seat=4, co_bank=True),
    "02_WagerPlaced_dealer": WagerPlaced(seat=None, wager="main", amount_cents=1000),
    "03_TilesDealt": TilesDealt(seat=2, tiles=("6-6", "1-3", "2-4", "1-2")),
    "04_CardsDealt": CardsDealt(seat=1, cards=("Ah", "Kd", "9c", "5s", "2d")),
    "05_HandSet_tiles": HandSet(seat=2, high=("6-6", "1-3"), low=("2-4", "1-2")),
    "06_PlayerActed": PlayerActed(seat=5, action="concede"),
    "07_HandsExposed": HandsExposed(seat=None),
    "08_WagerSettled": WagerSettled(seat=None, wager="main", outcome="loss", net_cents=-1000,
                                    commission_cents=0),
    "09_BankerSettled": BankerSettled(seat=4, net_cents=-1750, commission_cents=0),
    "10_EnvyBonusPaid": EnvyBonusPaid(seat=2, for_seat=1, amount_cents=500),
    "11_ProgressiveMeterRead": ProgressiveMeterRead(meter_cents=2_500_000, meter_id="M1"),
    "12_JackpotHit": JackpotHit(seat=1, hand="royal_flush", award_cents=2_500_000),
    "13_JackpotVerified": JackpotVerified(seat=1, step="paid", employee_id="F07",
                                          role="floorperson", paid_from="meter"),
    "14_RoundVoided": RoundVoided(reason="misdeal: dealer exposed a card"),
    "15_EventCorrected": EventCorrected(
        corrects="00000000-0000-4000-8000-000000000008", reason="wrong net keyed",
        replacement=WagerSettled(seat=None, wager="main", outcome="loss", net_cents=-900,
                                 commission_cents=0)),
    "16_EventCorrected_strike": EventCorrected(corrects="00000000-0000-4000-8000-000000000010",
                                               reason="entered twice"),
    "17_RoundEnded": RoundEnded(),
}

V3_EXPECTED = {
    "01_RoundStarted_cover": RoundStarted(game="pai_gow_poker", dealer_id="E011", banker_seat=3,
                                          banker_cover_cents=50_000),
    "02_WagerPlaced_patron": WagerPlaced(seat=3, wager="main", amount_cents=2500,
                                         patron_id="P-000417"),
    "03_WagerPlaced_no_patron": WagerPlaced(seat=1, wager="main", amount_cents=1000),
    "04_HandChanged": HandChanged(seat=2, high=("As", "Kd", "Qh", "Jc", "Tc"), low=("9s", "Jk")),
    "05_HandCollected": HandCollected(seat=3),
    "06_HandCollected_dealer": HandCollected(seat=None),
    "07_Shuffled": Shuffled(kind="reshuffle"),
    "08_Shuffled_deck_change": Shuffled(kind="deck_change", deck_id="D-0042"),
    "09_BankPassed": BankPassed(to_seat=4, reason="rotation"),
    "10_BankPassed_dealer": BankPassed(to_seat=None, reason="cannot_cover"),
    "11_EventCorrected_shuffled": EventCorrected(
        corrects="00000000-0000-4000-8000-000000000008", reason="deck id keyed wrong",
        replacement=Shuffled(kind="deck_change", deck_id="D-0043")),
    "12_RoundEnded": RoundEnded(),
}

EXPECTED = {1: V1_EXPECTED, 2: V2_EXPECTED, 3: V3_EXPECTED}


# Schema id 3 by hand (Avro 1.11 specification, binary encoding): an int or a long is
# zig-zag then a base-128 varint, low group first; a string is its UTF-8 length as a long,
# then the bytes; a union is the branch's index as a long, then the branch; an array is a
# block count as a long, the items, then 0; a boolean is one byte; a record is its fields in
# order. The branches of the v3 RoundEvent payload are numbered as listed in its .avsc.

def _long(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        if z < 0x80:
            return bytes(out + bytes([z]))
        out.append((z & 0x7F) | 0x80)
        z >>= 7


def _str(text: str) -> bytes:
    return _long(len(text.encode())) + text.encode()


def _null() -> bytes:
    return b"\x00"                 # branch 0 of ["null", X]


def _some(value: bytes) -> bytes:
    return b"\x02" + value         # branch 1 of ["null", X]: zig-zag(1) = 2


def _strings(items: tuple[str, ...]) -> bytes:
    return _long(len(items)) + b"".join(_str(s) for s in items) + b"\x00"


ROUND_STARTED, WAGER_PLACED, EVENT_CORRECTED, ROUND_ENDED = 0, 1, 14, 15
HAND_CHANGED, HAND_COLLECTED, SHUFFLED, BANK_PASSED = 16, 17, 18, 19
"""Payload branches of the schema id 3 RoundEvent (and of EventCorrected's replacement:
null 0, then WagerPlaced 1 ... JackpotVerified 11, HandChanged 12, HandCollected 13,
Shuffled 14, BankPassed 15)."""


def _frame3(seq: int, branch: int, payload: bytes) -> bytes:
    return (b"\x00" + (3).to_bytes(4, "big")            # magic byte, schema id 3
            + _str(f"00000000-0000-4000-8000-{seq:012d}") + _str("C01") + _str("T01")
            + _long(seq) + _str("T01-000001") + _long(T0 + seq) + _str("E011")
            + _long(branch) + payload)


V3_HAND_WRITTEN = {
    "01_RoundStarted_cover": _frame3(1, ROUND_STARTED, _str("pai_gow_poker") + _null()
                                     + _str("E011") + _some(_long(3)) + b"\x00"
                                     + _some(_long(50_000))),
    "02_WagerPlaced_patron": _frame3(2, WAGER_PLACED, _some(_long(3)) + _str("main")
                                     + _long(2500) + _some(_str("P-000417"))),
    "03_WagerPlaced_no_patron": _frame3(3, WAGER_PLACED, _some(_long(1)) + _str("main")
                                        + _long(1000) + _null()),
    "04_HandChanged": _frame3(4, HAND_CHANGED, _some(_long(2))
                              + _strings(("As", "Kd", "Qh", "Jc", "Tc")) + _strings(("9s", "Jk"))),
    "05_HandCollected": _frame3(5, HAND_COLLECTED, _some(_long(3))),
    "06_HandCollected_dealer": _frame3(6, HAND_COLLECTED, _null()),
    "07_Shuffled": _frame3(7, SHUFFLED, _str("reshuffle") + _null()),
    "08_Shuffled_deck_change": _frame3(8, SHUFFLED, _str("deck_change") + _some(_str("D-0042"))),
    "09_BankPassed": _frame3(9, BANK_PASSED, _some(_long(4)) + _str("rotation")),
    "10_BankPassed_dealer": _frame3(10, BANK_PASSED, _null() + _str("cannot_cover")),
    "11_EventCorrected_shuffled": _frame3(
        11, EVENT_CORRECTED, _str("00000000-0000-4000-8000-000000000008")
        + _str("deck id keyed wrong") + _long(14) + _str("deck_change") + _some(_str("D-0043"))),
    "12_RoundEnded": _frame3(12, ROUND_ENDED, _null()),
}


def test_the_v3_golden_files_are_the_frames_written_by_hand():
    assert set(V3_HAND_WRITTEN) == set(V3_EXPECTED)
    for name, raw in V3_HAND_WRITTEN.items():
        assert (GOLDEN / "v3" / f"{name}.bin").read_bytes() == raw, name


def test_the_hand_writing_is_the_avro_specification():
    """The spec's own examples of zig-zag varints (0, -1, 1, -2, 2, -64, 64), and a cover of
    500.00 dollars: 50000 -> zig-zag 100000 = 0x186a0 -> varint a0 8d 06."""
    assert [_long(n) for n in (0, -1, 1, -2, 2, -64, 64)] == [
        b"\x00", b"\x01", b"\x02", b"\x03", b"\x04", b"\x7f", b"\x80\x01"]
    assert _long(50_000) == bytes.fromhex("a08d06")
    assert _str("main") == b"\x08main"


def _cases():
    for version, expected in EXPECTED.items():
        for name, payload in expected.items():
            yield pytest.param(version, name, payload, id=f"v{version}-{name}")


if os.environ.get("CATWALK_WRITE_GOLDEN") == "1":  # pragma: no cover - on purpose only
    (GOLDEN / "v2").mkdir(parents=True, exist_ok=True)
    for _name, _payload in V2_EXPECTED.items():
        _seq = int(_name[:2])
        (GOLDEN / "v2" / f"{_name}.bin").write_bytes(encode(_event(_seq, _payload)))


@pytest.mark.parametrize(("version", "name", "payload"), list(_cases()))
def test_the_reader_reads_every_writer_version(version, name, payload):
    raw = (GOLDEN / f"v{version}" / f"{name}.bin").read_bytes()
    assert struct.unpack(">bI", raw[:5]) == (0, version)
    assert decode(raw) == _event(int(name[:2]), payload)


@pytest.mark.parametrize(("version", "name", "payload"), list(_cases()))
def test_the_writer_still_writes_the_golden_bytes(version, name, payload):
    """Writing the same event under the same id gives the checked-in bytes: a writer change
    that would alter stored bytes is caught here."""
    raw = (GOLDEN / f"v{version}" / f"{name}.bin").read_bytes()
    assert encode(_event(int(name[:2]), payload), schema_id=version) == raw


def test_every_golden_file_is_expected_and_every_expectation_has_a_file():
    for version, expected in EXPECTED.items():
        files = {p.stem for p in (GOLDEN / f"v{version}").glob("*.bin")}
        assert files == set(expected)


def test_every_registered_schema_id_has_golden_bytes_and_a_reader():
    registry = json.loads((Path(schemas.__file__).parent / "registry.json").read_text())
    ids = sorted(int(i) for i in registry["schemas"])
    assert ids == sorted(SCHEMA_IDS) == sorted(EXPECTED)


def test_the_v1_reader_schema_still_reads_v1_bytes_alone():
    """The schema id 1 reader (its .avsc, as released) reads what it wrote: moving the file
    into v1/ changed nothing in it."""
    path = Path(schemas.__file__).parent / "v1" / "catwalk.RoundEvent.avsc"
    schema = parse_schema(load_schema(str(path)))
    import io

    for name in V1_EXPECTED:
        raw = (GOLDEN / "v1" / f"{name}.bin").read_bytes()
        record = schemaless_reader(io.BytesIO(raw[5:]), schema, schema,
                                   return_record_name=True)
        assert record["table_seq"] == int(name[:2])


def test_a_v1_banker_that_is_not_dealer_or_a_seat_is_refused_with_its_value():
    raw = (GOLDEN / "v1" / "02_RoundStarted_banker.bin").read_bytes()
    bad = raw.replace(b"\x0cseat 3", b"\x0cseat X")
    assert bad != raw
    with pytest.raises(schemas.DecodeError, match="'seat X'"):
        decode(bad)


def test_new_events_have_no_v1_form():
    with pytest.raises(schemas.EventError, match="no schema id 1 form"):
        encode(_event(1, TilesDealt(seat=1, tiles=("6-6", "1-1", "2-2", "3-3"))), schema_id=1)
