"""Every reader reads every earlier writer: golden Avro bytes per schema id, checked in.

``tests/golden/events/v1`` holds bytes written by the schema id 1 encoder as it was
released (generated from the commit before schema id 2 existed); ``v2`` holds the bytes of
the current writer. Each file must decode to the event written out below by hand, in the
newest vocabulary (schema id 1 events upcast: ``banker "seat 3"`` becomes ``banker_seat 3``).
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
    CardsDealt,
    EnvyBonusPaid,
    EventCorrected,
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

EXPECTED = {1: V1_EXPECTED, 2: V2_EXPECTED}


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
