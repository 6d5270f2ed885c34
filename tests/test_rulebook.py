"""The rulebook (replay/rulebook.py): which ruleset judges a round of a casino, in one place
(docs/rulesets.md "Which ruleset judges a round"). Rulesets are built by hand here."""

from __future__ import annotations

import datetime as dt
import pickle
from typing import Any

import pytest

from replay.errors import NoRulesetInForceError, RulesetError, UnknownRulesetError
from replay.rulebook import FiledFile, Rulebook, shipped_book
from replay.rulesets import load_ruleset, ruleset_from_dict, shipped_rulesets

SHIPPED_STUD = "caribbean_stud-standard-v1"


def _stud(ruleset_id: str, casino: str | None, start: str, end: str | None,
          royal: int = 250) -> Any:
    data: dict[str, Any] = {
        "id": ruleset_id, "game": "caribbean_stud", "title": "t", "casino": casino,
        "effective_from": start, "effective_to": end,
        "commission": {"rate_bps": 0, "rounding": "down"},
        "paytables": {"raise": {"royal_flush": {"odds": [royal, 1]}}},
    }
    return ruleset_from_dict(data, source="test")


C02_2026 = _stud("caribbean_stud-c02-a-v1", "C02", "2026-01-01", "2026-07-01")
C02_LATER = _stud("caribbean_stud-c02-b-v1", "C02", "2026-09-01", None, royal=300)
BOOK = Rulebook(shipped=shipped_rulesets(), filed=(C02_2026, C02_LATER))


def test_a_casino_is_judged_by_its_own_ruleset_in_force_that_day():
    assert BOOK.in_force("C02", "caribbean_stud", dt.date(2026, 3, 14)) is C02_2026
    assert BOOK.in_force("C02", "caribbean_stud", dt.date(2026, 11, 28)) is C02_LATER
    # effective_to is exclusive: 2026-07-01 is not a day of the first
    with pytest.raises(NoRulesetInForceError):
        BOOK.in_force("C02", "caribbean_stud", dt.date(2026, 7, 1))


def test_a_casino_without_filings_for_a_game_is_judged_by_the_shipped_ruleset():
    day = dt.date(2026, 11, 28)
    assert BOOK.in_force("C01", "caribbean_stud", day).id == SHIPPED_STUD
    assert BOOK.in_force("C02", "pai_gow_tiles", day).id == "pai_gow_tiles-pr-v1"


@pytest.mark.parametrize("day", [dt.date(2025, 12, 31), dt.date(2026, 8, 15)])
def test_a_day_no_filing_of_the_casino_covers_is_never_the_shipped_default(day):
    with pytest.raises(NoRulesetInForceError) as caught:
        BOOK.in_force("C02", "caribbean_stud", day)
    text = str(caught.value)
    assert "casino C02" in text and day.isoformat() in text
    assert "caribbean_stud-c02-a-v1 2026-01-01 to 2026-07-01" in text
    assert "never judged by the shipped default" in text


def test_a_ruleset_the_table_names_must_be_its_casinos_or_shipped():
    assert BOOK.find("caribbean_stud-c02-a-v1", casino="C02") is C02_2026
    assert BOOK.find(SHIPPED_STUD, casino="C02").id == SHIPPED_STUD
    with pytest.raises(UnknownRulesetError, match="is casino C02's: a table of casino C01"):
        BOOK.find("caribbean_stud-c02-a-v1", casino="C01")
    with pytest.raises(UnknownRulesetError, match="unknown ruleset 'caribbean_stud-x-v9'"):
        BOOK.find("caribbean_stud-x-v9", casino="C02")


def test_ids_are_unique_and_a_casino_may_not_reuse_a_shipped_one():
    with pytest.raises(RulesetError, match="used twice"):
        Rulebook(shipped=shipped_rulesets(),
                 filed=(C02_2026, _stud("caribbean_stud-c02-a-v1", "C03", "2026-01-01", None)))
    with pytest.raises(RulesetError, match=f"{SHIPPED_STUD} is used twice"):
        Rulebook(shipped=shipped_rulesets(),
                 filed=(_stud(SHIPPED_STUD, "C02", "2026-01-01", None),))


def test_one_casinos_rulesets_of_a_game_may_not_overlap():
    with pytest.raises(RulesetError, match="in force on the same days"):
        Rulebook(shipped=(), filed=(C02_2026, _stud("caribbean_stud-c02-c-v1", "C02",
                                                     "2026-06-30", None)))
    # the same days at another casino are no overlap
    Rulebook(shipped=(), filed=(C02_2026, _stud("caribbean_stud-c03-c-v1", "C03",
                                                 "2026-06-30", None)))


def test_a_filed_ruleset_names_its_casino_and_a_shipped_one_none():
    with pytest.raises(RulesetError, match="names its casino"):
        Rulebook(shipped=(), filed=(load_ruleset(SHIPPED_STUD),))
    with pytest.raises(RulesetError, match="belongs to no casino"):
        Rulebook(shipped=(C02_2026,))


def test_the_shipped_book_chooses_as_the_shipped_rulesets_do():
    book = shipped_book()
    assert book.in_force("C09", "pai_gow_poker", dt.date(2026, 11, 28)).id == \
        "pai_gow_poker-classic-v1"
    assert book.default("face_up_pai_gow").id == "face_up_pai_gow-pa688a-v1"
    assert book.manifest_files() == []


def test_a_rulebook_survives_pickling_for_spawned_workers():
    book = Rulebook(shipped=shipped_rulesets(), filed=(C02_2026,),
                    files=(FiledFile(path="C02/caribbean_stud-c02-a-v1.json", sha256="0" * 64),))
    again = pickle.loads(pickle.dumps(book))
    assert again == book
    assert again.find("caribbean_stud-c02-a-v1").paytable("raise")["royal_flush"].odds == (250, 1)


def test_a_filed_file_is_relative_with_a_sha256():
    with pytest.raises(RulesetError, match="relative"):
        FiledFile(path="/etc/x.json", sha256="0" * 64)
    with pytest.raises(RulesetError, match="64 lowercase hex"):
        FiledFile(path="C02/x.json", sha256="ABC")


def test_a_ruleset_reads_its_casino_and_names_a_bad_one():
    assert C02_2026.casino == "C02"
    assert load_ruleset(SHIPPED_STUD).casino is None
    with pytest.raises(RulesetError, match="casino must be a casino id"):
        _stud("caribbean_stud-x-v1", "C 02/..", "2026-01-01", None)


def test_every_shipped_ruleset_survives_pickling_and_validates_again():
    for ruleset in shipped_rulesets():
        assert pickle.loads(pickle.dumps(ruleset)) == ruleset


@pytest.mark.parametrize(("cards", "hand_class"), [
    ("As Ks Qs Js Ts", "royal_flush"),   # docs/rules.md 4.2: the raise table's top line
    ("Ah Kd 9c 5s 2d", "ace_king"),      # the lowest line: one pair, ace-king
    ("Qh Jd 9c 5s 2d", "high_card"),     # below ace-king: no line, never beats a qualifier
])
def test_caribbean_stud_paytable_classes_are_the_classes_its_hands_have(cards, hand_class):
    from replay.cards import parse_card
    from replay.games import find_game
    from replay.games.caribbean_stud import hand_class as class_of
    from replay.games.caribbean_stud import rank_hand

    got = class_of(rank_hand([parse_card(c) for c in cards.split()]))
    assert got == hand_class
    raise_lines = find_game("caribbean_stud").paytable_classes["raise"]
    assert got in raise_lines.classes
    assert (got in raise_lines.required) is (hand_class != "high_card")


def test_the_pai_gow_bonus_paytables_must_post_what_docs_rules_md_says_they_pay():
    from replay.games import find_game

    for game in ("pai_gow_poker", "face_up_pai_gow"):
        lines = find_game(game).paytable_classes
        # docs/rules.md 2.4: Fortune pays a straight or better, all eleven classes
        assert len(lines["fortune"].required) == 11 and lines["fortune"].pays == {"odds"}
        # docs/rules.md 6: the Progressive pays a full house or better, eight classes
        assert lines["progressive"].required[-1] == "full_house"
        assert len(lines["progressive"].required) == 8
        # § 688a.1: Envy on four of a kind or better, seven classes, fixed sums
        assert lines["envy"].classes == lines["envy"].required
        assert lines["envy"].required[-1] == "four_of_a_kind" and \
            len(lines["envy"].required) == 7
