"""docs/events.md, the contract a table-device vendor implements from, kept true: every list
of allowed values in it equals the code (schemas/vocabulary.py, the schemas, the engine and
the checks), every quarantine reason it promises is what ingest says, and every example round
in it is real: its lines, framed as the vendor frames them, decode with the codec (which
writes the very same bytes back), fold into one round without a finding or a problem, and
are judged evaluated, settled as the rules require, with the notation the doc shows. The
same lines under schema id 2 decode to the same events (older feeds stay valid), and the
lines showing what schema id 3 adds decode under schema id 3 and have no schema id 2 form."""

from __future__ import annotations

import io
import json
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from fastavro import schemaless_writer

from checks.runner import load_checks
from ingest.judging import judge_one
from replay.batch_decode import undecodable_finding
from replay.fold import ProblemKind, fold
from replay.games import GAMES as REGISTRY
from replay.games import caribbean_stud, face_up_pai_gow, pai_gow_poker_round, pai_gow_tiles
from replay.games.results import Outcome
from replay.reconstruct import judge_state, judged_hand
from replay.rulesets import shipped_rulesets
from replay.tiles import FACES
from schemas import (
    CURRENT_SCHEMA_ID,
    DecodeError,
    EventError,
    JackpotHit,
    decode,
    encode,
    events,
    vocabulary,
    writer_schema,
)
from tests.test_replay_games import _replay

REPO = Path(__file__).resolve().parents[1]
DOC = (REPO / "docs" / "events.md").read_text(encoding="utf-8")
SQL = REPO / "checks" / "sql"

_ENUM = re.compile(r"<!-- enum: (?P<name>\w+)(?: (?P<game>\w+))? -->\n(?P<body>(?:- .*\n)+)")
_EXAMPLE = re.compile(r"<!-- example: (?P<game>\w+) -->\n```jsonl\n(?P<lines>.*?)```\n\n"
                      r"<!-- notation: (?P=game) -->\n```text\n(?P<notation>.*?)\n```", re.S)


def _enums() -> dict[tuple[str, str | None], list[str]]:
    found: dict[tuple[str, str | None], list[str]] = {}
    for m in _ENUM.finditer(DOC):
        key = (m.group("name"), m.group("game"))
        assert key not in found, f"docs/events.md lists {key} twice"
        found[key] = m.group("body").splitlines()
    return found


ENUMS = _enums()


def words(name: str, game: str | None = None) -> list[str]:
    """The backticked words of each bullet of a list, before its first colon."""
    out = []
    for line in ENUMS[(name, game)]:
        out += re.findall(r"`([^`]+)`", line[2:].split(":")[0])
    return out


def test_games_are_the_vocabulary_the_events_and_the_registry():
    assert words("games") == list(vocabulary.GAMES)
    assert set(words("games")) == events.GAMES == set(REGISTRY)


@pytest.mark.parametrize("game", vocabulary.GAMES)
def test_each_games_wagers_are_those_its_judge_reads(game):
    assert words("wagers", game) == list(vocabulary.GAME_WAGERS[game])
    engine = {
        "pai_gow_poker": pai_gow_poker_round.DOCUMENT_WAGERS - {pai_gow_poker_round.ACE_HIGH},
        "face_up_pai_gow": face_up_pai_gow.WAGER_NAMES,
        "pai_gow_tiles": pai_gow_tiles._WAGERS,
        "caribbean_stud": frozenset(caribbean_stud.WAGER_NAMES),
    }
    assert set(words("wagers", game)) == engine[game]


def test_every_wager_name_is_accepted_by_the_events_and_no_other():
    every = {w for game in vocabulary.GAMES for w in words("wagers", game)}
    assert every == events.WAGERS


def test_outcomes_are_the_results_outcomes():
    assert words("outcomes") == list(vocabulary.OUTCOMES) == [o.value for o in Outcome]
    assert set(words("outcomes")) == events.OUTCOMES


def test_seat_actions_by_game_are_the_engines():
    assert words("actions", "caribbean_stud") == list(
        vocabulary.GAME_ACTIONS["caribbean_stud"])
    assert set(words("actions", "caribbean_stud")) == {a.value for a in caribbean_stud.Action}
    assert words("actions", "pai_gow_tiles") == [pai_gow_tiles.WITHDRAW]
    listed = {g for name, g in ENUMS if name == "actions"}
    assert listed == {g for g, names in vocabulary.GAME_ACTIONS.items() if names}
    assert set(words("actions", "caribbean_stud") + words("actions", "pai_gow_tiles")) == (
        events.ACTIONS)


@pytest.mark.parametrize("game", vocabulary.GAMES)
def test_jackpot_hand_classes_are_the_progressive_paytables_lines(game):
    tables = [list(r.paytables["progressive"]) for r in shipped_rulesets()
              if r.game == game and "progressive" in r.paytables]
    if not tables:
        assert ("jackpot_hands", game) not in ENUMS
        return
    assert all(t == tables[0] for t in tables)
    assert words("jackpot_hands", game) == tables[0]


def test_jackpot_steps_and_where_an_award_is_paid_from():
    assert words("jackpot_steps") == list(vocabulary.JACKPOT_STEPS) == list(events.JACKPOT_STEPS)
    assert words("paid_from") == list(vocabulary.PAID_FROM)
    assert set(words("paid_from")) == events.PAID_FROM


def test_roles_and_the_validators_the_check_accepts():
    assert words("roles") == list(vocabulary.ROLES)
    text = (SQL / "jackpot_unverified.sql").read_text(encoding="utf-8")
    lists = re.findall(r"validator_role NOT IN \(([^)]*)\)", text)
    assert len(lists) == 2
    for found in lists:
        assert re.findall(r"'(\w+)'", found) == list(vocabulary.VALIDATOR_ROLES)


def test_banker_kinds_and_the_games_that_take_a_player_banker():
    assert words("bankers") == list(vocabulary.BANKER_KINDS)
    by_game = {}
    for line in ENUMS[("bankers_by_game", None)]:
        game, kinds = line[2:].split(":")
        by_game[game.strip("` ")] = tuple(k.strip() for k in kinds.split(","))
    assert by_game == dict(vocabulary.GAME_BANKERS)
    for game, kinds in by_game.items():  # the engine reads co-bank options where it banks so
        assert ("co_bank" in kinds) == ("co_bank_share_bps" in REGISTRY[game].option_names)


def test_shuffle_kinds_and_why_the_bank_passed_are_the_vocabulary():
    assert words("shuffle_kinds") == list(vocabulary.SHUFFLE_KINDS)
    assert set(words("shuffle_kinds")) == events.SHUFFLE_KINDS
    assert words("bank_pass_reasons") == list(vocabulary.BANK_PASS_REASONS)
    assert set(words("bank_pass_reasons")) == events.BANK_PASS_REASONS


def _avsc(version: int, record: str) -> dict[str, Any]:
    return json.loads((REPO / "schemas" / f"v{version}" / f"{record}.avsc").read_text())


def test_the_records_table_lists_every_record_of_the_current_schema_with_its_fields():
    """Section 3: one row per payload record of the current schema id, its fields named in
    the order of the .avsc, and the envelope's payload union counted right."""
    rows = dict(re.findall(r"^\| `(catwalk\.\w+)` \| (.*?) \| .* \|$", DOC, re.M))
    union = _avsc(CURRENT_SCHEMA_ID, "catwalk.RoundEvent")["fields"][-1]["type"]
    assert set(rows) == set(union) == set(events.PAYLOAD_TYPES)
    for name, fields in rows.items():
        listed = re.findall(r"`(\w+)` \(", fields)
        assert listed == [f["name"] for f in _avsc(CURRENT_SCHEMA_ID, name)["fields"]], name
    assert f"union of the {len(union)} records below" in DOC


def test_the_doc_says_which_schema_id_is_current_and_that_older_feeds_remain_valid():
    assert f"(`{CURRENT_SCHEMA_ID}`)" in DOC
    assert f"A new device sends schema id {CURRENT_SCHEMA_ID}." in DOC
    assert "Schema ids 1 and 2 remain valid feeds" in DOC
    assert "*not evaluated*" in DOC.split("## 2.")[0]


def test_card_notation_is_the_events_card_tokens():
    ranks, suits = words("card_ranks"), words("card_suits")
    assert ranks == list("23456789TJQKA") and suits == list("cdhs")
    assert {r + s for r in ranks for s in suits} | {"Jk"} == events.CARD_TOKENS


def test_tile_notation_and_copies_are_the_set_of_32():
    listed = [(m.group(1), int(m.group(2)))
              for line in ENUMS[("tiles", None)]
              for m in [re.match(r"- `(\d-\d)`: (\d)", line)] if m]
    assert len(listed) == len(ENUMS[("tiles", None)])
    assert listed == [(str(face), face.copies) for face in FACES]
    assert {t for t, _ in listed} == events.TILE_TOKENS
    assert sum(n for _, n in listed) == 32


def test_problem_kinds_and_findings_are_every_one_replay_reports_with_a_check_that_exists():
    assert words("problem_kinds") == [k.value for k in ProblemKind]
    known = re.findall(r"'(\w+)'", re.search(
        r"NOT IN \(([^)]*)\)", (SQL / "log_findings.sql").read_text(encoding="utf-8")).group(1))
    undecodable = undecodable_finding("log position 1", DecodeError("x")).kind
    assert set(words("finding_kinds")) == {*known, undecodable}
    checks = {c.id for c in load_checks()}
    for name in ("problem_kinds", "finding_kinds"):
        for line in ENUMS[(name, None)]:
            flags = re.findall(r"`(\w+)`", line.split("Flag:")[1])
            assert flags and set(flags) <= checks, line


# Quarantine ---------------------------------------------------------------------------------

def _frame(body: bytes, schema_id: int = 2) -> bytes:
    return struct.pack(">bI", 0, schema_id) + body


def _event_bytes(**payload_fields: Any) -> bytes:
    datum = {"event_id": "68fe1285-5e92-5384-b89e-752a866b20e6", "casino": "C01",
             "table_id": "T01", "table_seq": 1, "round_id": "T01-000001",
             "occurred_at": 1_795_888_800_000_000, "recorded_by": "D0117",
             "payload": ("catwalk.WagerPlaced", {"seat": 1, "wager": "main",
                                                 "amount_cents": 2500, **payload_fields})}
    buf = io.BytesIO()
    schemaless_writer(buf, writer_schema(2), datum)
    return _frame(buf.getvalue())


QUARANTINED = [
    (b"T01", None),
    (b"T01", b"\x00\x00"),
    (b"T01", b"\x07" + _event_bytes()[1:]),
    (b"T01", _frame(b"", schema_id=99)),
    (b"T01", _frame(b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff")),
    (b"T01", _event_bytes() + b"\x00"),
    (b"T01", _event_bytes(wager="mian")),
    (b"T02", _event_bytes()),
]
"""What a device might send, one for each quarantine row of docs/events.md 7.1 but the
last (a conflict needs a log holding the event already: tests/test_ingest_robust.py)."""


def test_every_quarantine_reason_the_doc_promises_is_what_ingest_says():
    block = DOC.split("<!-- quarantine -->", 1)[1].split("\n\n", 1)[0]
    reasons = re.findall(r"^\|.*\| `([^`]*)` \|$", block, re.M)
    assert len(reasons) == len(QUARANTINED) + 1
    for (key, value), reason in zip(QUARANTINED, reasons, strict=False):
        said = judge_one(key, value)
        assert said is not None and said.startswith(reason.split("<")[0]), (reason, said)
    assert judge_one(b"T01", _event_bytes()) is None  # the same event, right, is accepted


# The example rounds -------------------------------------------------------------------------

def _examples() -> dict[str, tuple[list[dict[str, Any]], str]]:
    return {m.group("game"): ([json.loads(line) for line in m.group("lines").splitlines()],
                              m.group("notation"))
            for m in _EXAMPLE.finditer(DOC)}


EXAMPLES = _examples()


def _wire(line: dict[str, Any], schema_id: int = CURRENT_SCHEMA_ID) -> bytes:
    """The bytes a vendor sends for one line: the record, its payload union by record name,
    Avro binary under the schema id (the current one unless told), a field the line leaves
    out written as its default, framed (docs/events.md section 1)."""
    ((name, fields),) = line["payload"].items()
    buf = io.BytesIO()
    schemaless_writer(buf, writer_schema(schema_id), {**line, "payload": (name, fields)})
    return _frame(buf.getvalue(), schema_id)


def test_there_is_one_example_round_per_game():
    assert set(EXAMPLES) == set(vocabulary.GAMES)


@pytest.mark.parametrize("game", vocabulary.GAMES)
def test_each_example_round_decodes_folds_and_is_judged_as_the_doc_says(game):
    lines, notation = EXAMPLES[game]
    wire = [_wire(line) for line in lines]
    decoded = [decode(raw) for raw in wire]
    assert [encode(e) for e in decoded] == wire  # the codec writes what the vendor writes
    assert [decode(_wire(line, 2)) for line in lines] == decoded  # a schema id 2 feed: the same
    assert [judge_one(e.table_id.encode(), raw) for e, raw in zip(decoded, wire, strict=True)
            ] == [None] * len(wire)
    assert [e.table_seq for e in decoded] == list(range(decoded[0].table_seq,
                                                       decoded[0].table_seq + len(wire)))
    replayed = fold([(f"{game} line {i}", e) for i, e in enumerate(decoded, 1)])
    assert replayed.findings == ()
    (state,) = replayed.rounds
    assert state.game == game and state.ended and state.problems == ()
    judged = judge_state(state)
    assert judged.evaluated and judged.problems == ()
    assert judged.notation == notation
    assert judged.result is not None and judged.result["dealer"]["house_way"] is not False
    recorded = {(seat, wager): (s.outcome, s.net_cents, s.commission_cents)
                for seat, wager, s in state.settled}
    expected = {key: (e.outcome, e.net_cents, e.commission_cents)
                for key, e in judged.expected.items()}
    assert recorded == expected
    for e in decoded:
        if isinstance(e.payload, JackpotHit):
            assert judged_hand(state, e.payload.seat, judged.ruleset) == e.payload.hand


def test_the_example_rounds_raise_no_flag_through_replay_and_the_checks(tmp_path):
    decoded = [decode(_wire(line)) for game in vocabulary.GAMES for line in EXAMPLES[game][0]]
    table, flags = _replay(tmp_path, decoded)
    assert [r["evaluated"] for r in table("rounds")] == [True] * len(vocabulary.GAMES)
    assert [f["check_id"] for f in flags if f["kind"] == "rule"] == []


# What schema id 3 adds ----------------------------------------------------------------------

V3_LINES = [json.loads(line) for line in re.search(
    r"<!-- v3 lines -->\n```jsonl\n(.*?)```", DOC, re.S).group(1).splitlines()]


def test_the_schema_id_3_lines_show_every_new_record_and_field():
    names = {name for line in V3_LINES for name in line["payload"]}
    assert {f"catwalk.{cls.__name__}" for cls in events.V3_TYPES} <= names
    fields = {k for line in V3_LINES for p in line["payload"].values() for k, v in p.items()
              if v is not None}
    assert {"banker_cover_cents", "patron_id", "deck_id"} <= fields


def test_the_schema_id_3_lines_decode_are_accepted_and_have_no_schema_id_2_form():
    wire = [_wire(line) for line in V3_LINES]
    decoded = [decode(raw) for raw in wire]
    assert [encode(e) for e in decoded] == wire
    assert [judge_one(e.table_id.encode(), raw) for e, raw in zip(decoded, wire, strict=True)
            ] == [None] * len(wire)
    for line, event in zip(V3_LINES, decoded, strict=True):
        ((_, fields),) = line["payload"].items()
        carries_v3 = (type(event.payload) in events.V3_TYPES
                      or fields.get("patron_id") is not None
                      or fields.get("banker_cover_cents") is not None)
        if carries_v3:
            with pytest.raises(EventError, match="no schema id 2 form"):
                encode(event, schema_id=2)
        else:  # an unrated patron's wager is the same fact in schema id 2
            assert decode(encode(event, schema_id=2)) == event
