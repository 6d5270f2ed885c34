"""Decoding many log records at once gives what decoding them one by one gives, hostile
bytes included: the same events, the same findings word for word, nothing misread."""

from __future__ import annotations

import io
import struct
import uuid

import pytest
from fastavro import schemaless_writer
from hypothesis import given, settings
from hypothesis import strategies as st

import replay.batch_decode as bd
from ingest.log import LogWriter, Received
from replay.batch_decode import Entry, decode_entries, log_entries
from replay.run import events_from_log
from schemas import DecodeError, RoundEvent, decode, encode, writer_schema
from schemas.events import V3_TYPES
from schemas.logformat import LogError, read_log
from tests.events_factory import Table

DEALER = ("Kc Kd 9s 7h 3c", "Ah Qs")
SEATS = {
    1: {"main": 2500, "hand": ("5s 5h 5d Tc 2c", "As Kh"), "settled": ("win", 2375, 125)},
    2: {"main": 1000, "hand": ("9c 9d 7c 4h 2d", "Ad Jd"), "settled": ("loss", -1000, 0)},
}


def _events(rounds: int = 3) -> list[RoundEvent]:
    table = Table()
    return [e for n in range(1, rounds + 1)
            for e in table.round(f"T01-{n:06d}", dealer=DEALER, seats=SEATS)]


def _entries(values: list[bytes]) -> list[Entry]:
    return [(i, f"log position {i} (round-events[0]@{i})", b"T01", v)
            for i, v in enumerate(values)]


def _one_by_one(values: list[bytes]) -> list[object]:
    out: list[object] = []
    for v in values:
        try:
            out.append(decode(v))
        except DecodeError as exc:
            out.append(f"DecodeError: {exc}")
    return out


def _batched(values: list[bytes]) -> list[object]:
    got = []
    for entry, result in decode_entries(_entries(values)):
        got.append(f"DecodeError: {result}" if isinstance(result, DecodeError) else result)
        assert entry[3] is values[len(got) - 1]
    return got


def _frame(body: bytes, schema_id: int = 2) -> bytes:
    return struct.pack(">bI", 0, schema_id) + body


def _body(record: dict, plain: bool = True) -> bytes:
    """A schema id 2 body written with the envelope's logical types left out (so that any
    string can be the event id and any long the time)."""
    schema = writer_schema(2)
    if plain:
        schema = {k: v for k, v in schema.items() if not k.startswith("__")}
        schema["fields"] = [
            {**f, "type": {"type": f["type"]["type"]}} if f["name"] in bd._PLAIN else f
            for f in writer_schema(2)["fields"]]
    buf = io.BytesIO()
    schemaless_writer(buf, schema, record)
    return buf.getvalue()


def _record(**changes: object) -> dict:
    base = {"event_id": str(uuid.uuid4()), "casino": "C01", "table_id": "T01",
            "table_seq": 1, "round_id": "T01-000001", "occurred_at": 1_795_888_800_000_000,
            "recorded_by": "E011",
            "payload": ("catwalk.HandSet", {"seat": 1, "high": ["5s", "5h", "5d", "Tc", "2c"],
                                            "low": ["As", "Kh"]})}
    return {**base, **changes}


def test_a_clean_block_decodes_as_one_by_one_without_calling_decode(monkeypatch):
    values = [encode(e) for e in _events(3)]
    values += [encode(e, schema_id=1) for e in _events(1)]
    calls = []
    monkeypatch.setattr(bd, "decode", lambda raw: calls.append(raw) or decode(raw))
    assert _batched(values) == _one_by_one(values)
    assert calls == []


def test_blocks_are_cut_by_size_and_schema_id(monkeypatch):
    monkeypatch.setattr(bd, "BLOCK", 4)
    values = [encode(e, schema_id=1 + (i // 3) % 3) for i, e in enumerate(_events(2))]
    assert _batched(values) == _one_by_one(values)


def test_event_ids_and_times_only_decode_may_judge_go_to_decode():
    """Logical types: decode makes an upper-case UUID lower case, refuses a non-UUID and a
    time no datetime holds; the fast path must neither pass these through nor differ."""
    good = _frame(_body(_record()))
    odd = [
        _frame(_body(_record(event_id=str(uuid.uuid4()).upper()))),
        _frame(_body(_record(event_id=uuid.uuid4().hex))),
        _frame(_body(_record(event_id="not-a-uuid"))),
        _frame(_body(_record(occurred_at=2**62))),
        _frame(_body(_record(occurred_at=-1))),
        _frame(_body(_record(table_seq=0))),
        _frame(_body(_record(payload=("catwalk.HandSet", {"seat": 1, "high": ["Zz"],
                                                          "low": []})))),
    ]
    values = [good, *odd, good]
    expected = _one_by_one(values)
    assert _batched(values) == expected
    assert isinstance(expected[1], RoundEvent) and expected[1].event_id.islower()
    assert all(isinstance(x, str) for x in expected[3:8])


def _hostile(values: list[bytes]) -> dict[str, list[bytes]]:
    a, b = values[3], values[4]
    return {
        "truncated": [a[:-1]],
        "trailing byte": [a + b"\x00"],
        "bad union index": [a[:5] + _body(_record())[:-30] + b"\x7f" * 30],
        "empty body": [a[:5]],
        "header only, short": [b"\x00\x00"],
        "bad magic": [b"\x01" + a[1:]],
        "unknown schema id": [_frame(a[5:], 99)],
        "last byte moved to the next message": [a[:-1], a[:5] + a[-1:] + b[5:]],
        "two bodies in one message": [a + b[5:]],
        "random bytes": [_frame(bytes(range(7, 250, 3)))],
        "invalid utf-8": [a.replace(b"C01", b"\xff\xfe\xfd", 1)],
    }


HOSTILE = ["truncated", "trailing byte", "bad union index", "empty body",
           "header only, short", "bad magic", "unknown schema id",
           "last byte moved to the next message", "two bodies in one message",
           "random bytes", "invalid utf-8"]


@pytest.mark.parametrize("case", HOSTILE)
def test_a_malformed_body_in_the_middle_of_a_block_is_reported_as_today(case):
    """Between good records, in one block: the bad record is the same finding as when
    decoded alone, and the records after it are read from their own bytes."""
    values = [encode(e) for e in _events(2)]
    mixed = [*values[:10], *_hostile(values)[case], *values[10:]]
    expected = _one_by_one(mixed)
    assert _batched(mixed) == expected
    assert any(isinstance(x, str) for x in expected)
    assert expected[:10] == _one_by_one(values[:10])
    assert expected[-len(values[10:]):] == _one_by_one(values[10:])


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_any_damage_to_any_record_decodes_as_one_by_one(data):
    values = [encode(e) for e in _events(1)]
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(values) - 1))
        raw = bytearray(values[i]) or bytearray(b"\x00")
        what = data.draw(st.sampled_from(["flip", "insert", "delete", "cut", "join"]))
        at = data.draw(st.integers(0, len(raw) - 1))
        if what == "flip":
            raw[at] ^= data.draw(st.integers(1, 255))
        elif what == "insert":
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=4))
        elif what == "delete":
            del raw[at]
        elif what == "cut":
            raw = raw[:at]
        elif i + 1 < len(values):  # join: this message takes the next one's first bytes
            nxt = values[i + 1]
            raw += nxt[5:5 + at % 8]
            values[i + 1] = nxt[:5] + nxt[5 + at % 8:]
        values[i] = bytes(raw)
    assert _batched(values) == _one_by_one(values)


def test_a_record_decode_cannot_take_sends_only_the_rest_of_its_block_to_decode(monkeypatch):
    monkeypatch.setattr(bd, "BLOCK", 8)
    values = [encode(e) for e in _events(2)]
    values[3] = values[3][:-1]
    calls = []
    monkeypatch.setattr(bd, "decode", lambda raw: calls.append(raw) or decode(raw))
    assert _batched(values) == _one_by_one(values)
    assert calls == values[3:8]


def _log(tmp_path, values: list[bytes], batches: int = 2):
    log = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    step = -(-len(values) // batches)
    for start in range(0, len(values), step):
        log.append([Received(topic="round-events", partition=0, offset=i, timestamp_ms=i,
                             key=b"T01", value=v)
                    for i, v in enumerate(values[start:start + step], start=start)], [])
    return tmp_path / "log"


def test_log_entries_are_the_records_of_read_log(tmp_path):
    log = _log(tmp_path, [encode(e) for e in _events(2)], batches=3)
    assert [(e[0], e[1], e[2], e[3]) for e in log_entries(log)] == [
        (i, f"log position {r.position} ({r.coordinates})", r.key, r.value)
        for i, r in enumerate(read_log(log))]


def test_a_damaged_segment_is_the_same_log_error(tmp_path):
    log = _log(tmp_path, [encode(e) for e in _events(2)])
    seg = sorted(log.iterdir())[1]
    seg.write_bytes(seg.read_bytes()[:-40])
    with pytest.raises(LogError) as old:
        list(read_log(log))
    with pytest.raises(LogError) as new:
        list(log_entries(log))
    assert str(new.value) == str(old.value)


def test_events_from_log_keeps_its_findings_and_order(tmp_path):
    values = [encode(e) for e in _events(2)]
    values.insert(5, b"\x00\x00\x00\x00\x02garbage")
    log = _log(tmp_path, values)
    findings: list = []
    got = list(events_from_log(log, findings))
    assert [e for _, e in got] == [decode(v) for i, v in enumerate(values) if i != 5]
    assert [f.where for f in findings] == ["log position 5 (round-events[0]@5)"]
    assert findings[0].detail.startswith("cannot be decoded: ")


def test_every_payload_kind_decodes_as_one_by_one(monkeypatch):
    """Every kind of event of the vocabulary, a correction with a replacement and one that
    strikes included, decodes as ``decode`` decodes it; only the correction's payload (a
    UUID and a nested record) is built by the codec's general payload builder."""
    from dataclasses import replace as replaced

    from ingest.simulate import simulate_shift
    from schemas import (
        BankPassed,
        EventCorrected,
        HandChanged,
        HandCollected,
        RoundStarted,
        RoundVoided,
        Shuffled,
        WagerPlaced,
    )

    events, _ = simulate_shift(tables=8, rounds=30, seed=3, fault_rate=0.3)
    last = events[-1]
    events += [
        replaced(last, event_id=str(uuid.uuid4()), table_seq=last.table_seq + 1,
                 payload=RoundVoided(reason="a misdeal")),
        replaced(last, event_id=str(uuid.uuid4()), table_seq=last.table_seq + 2,
                 payload=EventCorrected(corrects=events[-3].event_id, reason="keyed wrong",
                                        replacement=WagerPlaced(seat=2, wager="fortune",
                                                                amount_cents=500))),
        replaced(last, event_id=str(uuid.uuid4()), table_seq=last.table_seq + 3,
                 payload=EventCorrected(corrects=events[-4].event_id, reason="struck")),
    ]
    v3 = [  # schema id 3's events and fields, whether or not the simulator records them yet
        RoundStarted(game="pai_gow_poker", dealer_id="E011", banker_seat=3,
                     banker_cover_cents=40_000),
        WagerPlaced(seat=2, wager="main", amount_cents=2500, patron_id="P-000417"),
        HandChanged(seat=2, high=("As", "Kd", "Qh", "Jc", "Tc"), low=("9s", "Jk")),
        HandCollected(seat=2), HandCollected(seat=None),
        Shuffled(), Shuffled(kind="deck_change", deck_id="D-7"),
        BankPassed(to_seat=4, reason="rotation"), BankPassed(to_seat=None, reason="declined"),
        EventCorrected(corrects=events[-5].event_id, reason="wrong seat",
                       replacement=HandCollected(seat=1)),
    ]
    events += [replaced(last, event_id=str(uuid.uuid4()), table_seq=last.table_seq + 4 + i,
                        payload=p) for i, p in enumerate(v3)]
    kinds = {e.kind for e in events}
    assert kinds == {name.split(".")[1] for name in bd.PAYLOAD_TYPES}
    values = [encode(e) for e in events]
    general: list[str] = []
    builder = bd._payload
    monkeypatch.setattr(bd, "_payload",
                        lambda name, fields: (general.append(name), builder(name, fields))[1])
    monkeypatch.setattr(bd, "decode", lambda raw: pytest.fail("went to decode"))
    assert _batched(values) == [decode(v) for v in values] == events
    assert set(general) == {"catwalk.EventCorrected"}
    v2_names = {f"catwalk.{t.__name__}" for t in bd.PAYLOAD_TYPES.values()
                if t not in V3_TYPES}
    assert set(bd._payload_plans(2)) == v2_names - {"catwalk.EventCorrected"}
    assert set(bd._payload_plans(3)) == set(bd.PAYLOAD_TYPES) - {"catwalk.EventCorrected"}


def test_an_impossible_payload_is_the_finding_decode_gives():
    """A payload the fast path builds that its class refuses (a negative wager, a card that
    is no card) is decoded by ``decode``, word for word."""
    values = [
        _frame(_body(_record(payload=("catwalk.WagerPlaced", {
            "seat": 1, "wager": "main", "amount_cents": -5})))),
        _frame(_body(_record(payload=("catwalk.CardsDealt", {"seat": None,
                                                             "cards": ["As", "Zz"]})))),
        _frame(_body(_record(payload=("catwalk.RoundStarted", {
            "game": "pai_gow_poker", "ruleset": None, "dealer_id": "D1", "banker_seat": None,
            "co_bank": True})))),
    ]
    got = _batched(values)
    assert got == _one_by_one(values)
    assert all(isinstance(g, str) and g.startswith("DecodeError: impossible event")
               for g in got), got
