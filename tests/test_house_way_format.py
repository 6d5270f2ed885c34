"""The house-way file format (docs/house-way.md): the parser's errors, each naming the file,
the line and the rule; the shipped files; alternatives judged as the set of lawful settings;
a ruleset linked to a house-way file, failing closed when it cannot be."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from replay.cards import parse_cards
from replay.errors import RulesetError
from replay.games import pai_gow_house_way as poker_way
from replay.games import pai_gow_tiles_house_way as tiles_way
from replay.games.house_way_text import HouseWayFormatError, UnknownHouseWayError
from replay.games.pai_gow_house_way_words import parse_poker_house_way
from replay.house_ways import house_way_from_file, parse_house_way
from replay.rulesets import Ruleset, load_ruleset, ruleset_from_dict
from replay.tiles import parse_tiles

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "replay" / "rulesets" / "house_ways"
SOURCE = "C02/flamingo.way"

HEADER = """format catwalk-house-way 1
game pai_gow_poker
name test-way
title A test way
source written for the tests
"""
# the catch-alls of every class: a way that sets every hand (lines 6 to 42 after HEADER)
TAIL = """
rule five_aces
  clause 1
  when five_aces
  front pair_of_aces
rule four_split
  clause 2
  when four_of_a_kind
  front split_four
rule two_trips
  clause 3
  when two_three_of_a_kind
  front split_higher_three
rule full_house
  clause 4
  when full_house
  front highest_pair
rule three_pair
  clause 5
  when three_pair
  front highest_pair
rule two_pair
  clause 6
  when two_pair
  front lower_pair
rule trips
  clause 7
  when three_of_a_kind
  front two_highest_singles
rule one_pair
  clause 8
  when one_pair
  front two_highest_singles
rule no_pair
  clause 9
  when no_pair
  front second_and_third_singles
"""


def poker(text: str) -> poker_way.HouseWay:
    return parse_poker_house_way(text, source=SOURCE)


def refused(text: str) -> str:
    with pytest.raises(HouseWayFormatError) as info:
        parse_house_way(text, source=SOURCE)
    return str(info.value)


def test_a_minimal_way_of_catch_alls_parses_and_sets_by_its_rules() -> None:
    way = poker(HEADER + TAIL)
    assert (way.name, way.title, way.source) == ("test-way", "A test way", "written for the tests")
    assert [r.name for r in way.rules][:3] == ["five_aces", "four_split", "two_trips"]
    # kings and fours: this way always splits two pair, the fours in front
    setting = poker_way.house_way_setting(parse_cards("Kh Kd 4s 4c 9h 7d 2s"), way=way)
    assert setting.rule.name == "two_pair" and {str(c) for c in setting.low} == {"4s", "4c"}


RULE = "rule two_pair_aces\n  clause 1.3 Two pair (a)\n  when two_pair high A\n"


@pytest.mark.parametrize(("text", "expected"), [
    # HEADER is lines 1-5; RULE starts at line 6, its 'front' is line 9
    (HEADER + RULE + "  front lower_pairs\n" + TAIL,
     "C02/flamingo.way line 9 (rule two_pair_aces): unknown choice 'lower_pairs'; choices: "
     "pair_of_aces, highest_pair, lower_pair,"),
    (HEADER + RULE.replace("high A", "hihg A") + "  front lower_pair\n" + TAIL,
     "C02/flamingo.way line 8 (rule two_pair_aces): unknown word 'hihg' after two_pair"),
    (HEADER + RULE.replace("high A", "high K-J") + "  front lower_pair\n" + TAIL,
     "C02/flamingo.way line 8 (rule two_pair_aces): bad rank range 'K-J'"),
    (HEADER + RULE.replace("high A", "high 1-5") + "  front lower_pair\n" + TAIL,
     "C02/flamingo.way line 8 (rule two_pair_aces): bad rank range '1-5'"),
    (HEADER + RULE.replace("two_pair high A", "two_pairs") + "  front lower_pair\n" + TAIL,
     "C02/flamingo.way line 8 (rule two_pair_aces): unknown hand class 'two_pairs'"),
    (HEADER + RULE.replace("high A", "ranks A") + "  front lower_pair\n" + TAIL,
     "C02/flamingo.way line 8 (rule two_pair_aces): 'ranks' does not apply to two_pair"),
    (HEADER + TAIL + "rule no_pair\n  clause 10\n  when no_pair\n  front straight\n",
     "C02/flamingo.way line 43 (rule no_pair): duplicate rule name; first at line 39"),
    # two_highest_singles fouls a no-pair hand (the two highest cards in front)
    (HEADER + "rule bad\n  clause 1\n  when no_pair\n  front two_highest_singles\n" + TAIL,
     "C02/flamingo.way line 9 (rule bad): choice 'two_highest_singles' fouls or has no cards "
     "for some hands this rule takes (groups 1+1+1+1+1+1+1)"),
    # highest_pair with two pair fouls (the lower pair behind the higher one in front)
    (HEADER + "rule bad\n  clause 1\n  when two_pair\n  front highest_pair\n" + TAIL,
     "C02/flamingo.way line 9 (rule bad): choice 'highest_pair' fouls or has no cards for "
     "some hands this rule takes (groups 2+2+1+1+1)"),
    (HEADER + TAIL
     + "rule late\n  clause 10\n  when one_pair ranks A\n  front two_highest_singles\n",
     "C02/flamingo.way line 45 (rule late): can never apply: earlier rules take every hand it "
     "names ('one_pair ranks A'): one_pair"),
    (HEADER + TAIL.replace("rule no_pair\n  clause 9\n  when no_pair\n  front "
                           "second_and_third_singles\n", ""),
     "C02/flamingo.way line 35 (rule one_pair): no catch-all at the end: some hands are set by "
     "no rule (no_pair; groups 1+1+1+1+1+1+1)"),
    (HEADER.replace("catwalk-house-way 1", "catwalk-house-way 2") + TAIL,
     "C02/flamingo.way line 1: format 'catwalk-house-way 2' is not known"),
    ("game pai_gow_poker\n" + TAIL,
     "C02/flamingo.way line 1: the first line must be 'format catwalk-house-way 1'"),
    (HEADER.replace("title A test way\n", "") + TAIL,
     "C02/flamingo.way line 6: missing header title"),
    (HEADER.replace("pai_gow_poker", "blackjack") + TAIL,
     "C02/flamingo.way line 2: game 'blackjack' has no house way; known: pai_gow_poker, "
     "pai_gow_tiles"),
    (HEADER + "rule x\n  clause 1\n  when no_pair\n  front second_and_third_singles\n"
     "exception y\n  clause 2\n  when one_pair\n  front two_highest_singles\n",
     "C02/flamingo.way line 10 (rule y): exceptions (PR pai gow tiles ¶ E) come before the "
     "general rules"),
    (HEADER + "rule x\n  when no_pair\n  front second_and_third_singles\n",
     "C02/flamingo.way line 6 (rule x): no clause line"),
    (HEADER + "rule x\n  clause 1\n  whne no_pair\n",
     "C02/flamingo.way line 8 (rule x): unknown word 'whne'"),
    (HEADER + "rule x\n  clause 1\n  when no_pair\n  plays any\n" + TAIL,
     "C02/flamingo.way line 6 (rule x): no 'front' line"),
    (HEADER + "rule bad\n  clause 1\n  when one_pair\n  front straight\n" + TAIL,
     "C02/flamingo.way line 9 (rule bad): choice 'straight' keeps a straight behind; its "
     "rule's 'when' must name straight"),
])
def test_every_error_names_the_file_line_and_rule(text: str, expected: str) -> None:
    assert refused(text).startswith(expected), refused(text)


@pytest.mark.parametrize(("text", "expected"), [
    (HEADER + "rule x\n  clause " + "y" * 1_000 + "\n",
     "C02/flamingo.way line 7 (rule x): line longer than 1000 characters"),
    (HEADER + "rule x\n  clause a\x07b\n", "C02/flamingo.way line 7 (rule x): control characters"),
    (HEADER + TAIL + "title again\n",
     "C02/flamingo.way line 43 (rule no_pair): header line 'title' after the first rule"),
    (HEADER + "text a rule's words\n" + TAIL,
     "C02/flamingo.way line 6: 'text' outside a rule (start one with 'rule NAME')"),
    (HEADER + TAIL + "completion C9 late\n",
     "C02/flamingo.way line 43 (rule no_pair): completion lines belong to the header"),
    (HEADER.replace("name test-way", "name Test Way") + TAIL,
     "C02/flamingo.way line 3: bad name 'Test Way'"),
    ("", "C02/flamingo.way: empty: the first line must be 'format catwalk-house-way 1'"),
])
def test_lines_that_are_not_a_house_way_are_named(text: str, expected: str) -> None:
    assert refused(text).startswith(expected), refused(text)


def test_tiles_errors_name_the_file_line_and_rule() -> None:
    head = HEADER.replace("pai_gow_poker", "pai_gow_tiles")
    last = "rule d4\n  clause D.4\n  plays highest_with_lowest\n"
    assert refused(head + "rule d3\n  clause D.3\n  plays points 9 8 x\n" + last).startswith(
        "C02/flamingo.way line 8 (rule d3): 'points' takes values 0 to 9")
    assert refused(head + "rule d3\n  clause D.3\n  plays pair\n" + last).startswith(
        "C02/flamingo.way line 8 (rule d3): unknown plays word 'pair'")
    assert refused(head + "rule d3\n  clause D.3\n  plays any\n  prefer hgih\n" + last
                   ).startswith("C02/flamingo.way line 9 (rule d3): unknown prefer key 'hgih'")
    assert refused(head + last + "rule d5\n  clause X\n  plays any\n").startswith(
        "C02/flamingo.way line 9 (rule d5): can never apply: the earlier rule d4 plays some "
        "setting of every hand")
    assert refused(head + "rule d3\n  clause D.3\n  plays points 9\n").startswith(
        "C02/flamingo.way line 6 (rule d3): no catch-all at the end")


def test_a_way_for_one_game_is_refused_for_another() -> None:
    text = (SHIPPED / "pr-11.2-d.way").read_text(encoding="utf-8")
    with pytest.raises(HouseWayFormatError, match="a house way for pai_gow_tiles, but the "
                       "ruleset is for face_up_pai_gow"):
        parse_house_way(text, source="x.way", game="face_up_pai_gow")


def test_the_shipped_ways_are_the_files_and_keep_their_names_and_rules() -> None:
    poker = house_way_from_file("pai_gow_poker", SHIPPED / "reference-1.3.way")
    tiles = house_way_from_file("pai_gow_tiles", SHIPPED / "pr-11.2-d.way")
    assert poker == poker_way.HOUSE_WAY_REFERENCE_1_3
    assert tiles == tiles_way.HOUSE_WAY_PR_11_2_D
    assert len(poker.rules) == 20 and len(tiles.rules) == 4
    assert [c for c, _ in poker.completions] == [f"C{i}" for i in range(1, 9)]
    assert [c for c, _ in tiles.completions] == [f"C{i}" for i in range(1, 7)]
    assert set(poker_way.HOUSE_WAYS) == {"reference-1.3"}
    assert set(tiles_way.HOUSE_WAYS) == {"pr-11.2-d"}


def test_the_shipped_files_are_package_data() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"replay.rulesets" = ["*.json", "house_ways/*.way"]' in pyproject


ALTERNATIVES = HEADER + """
rule two_pair_low
  clause casino rule 7: two small pair may be split or kept
  when two_pair high 2-6
  front two_highest_singles or lower_pair
""" + TAIL


def test_a_rule_listing_two_choices_allows_both_and_prefers_the_first() -> None:
    way = poker(ALTERNATIVES)
    cards = parse_cards("6h 6d 4s 4c Kh 9d 2s")
    setting = poker_way.house_way_setting(cards, way=way)
    # preferred: both pairs behind, K-9 in front; also lawful: the fours in front
    assert {str(c) for c in setting.low} == {"Kh", "9d"}
    assert [{str(c) for c in low} for _, low in setting.others] == [{"4s", "4c"}]
    kept = (parse_cards("6h 6d 4s 4c 2s"), parse_cards("Kh 9d"))
    split = (parse_cards("6h 6d Kh 9d 2s"), parse_cards("4s 4c"))
    neither = (parse_cards("4s 4c Kh 9d 2s"), parse_cards("6h 6d"))  # a foul, by no choice
    for high, low in (kept, split):
        assert poker_way.follows_house_way(cards, high, low, way=way)
    assert not poker_way.follows_house_way(cards, *neither, way=way)
    # the shipped way has one lawful setting here: the split is not it
    assert not poker_way.follows_house_way(cards, *split)


def test_an_exception_goes_before_the_general_rules_and_wins() -> None:
    text = HEADER + """
exception aces_and_kings_kept
  clause ¶ E exception 1
  when two_pair high A low K
  front two_highest_singles
""" + TAIL
    way = poker(text)
    assert way.rules[0].exception and not way.rules[1].exception
    setting = poker_way.house_way_setting(parse_cards("As Ad Kc Kd 9h 7s 2c"), way=way)
    assert setting.rule.name == "aces_and_kings_kept"
    assert {str(c) for c in setting.low} == {"9h", "7s"}


def _ruleset_file(folder: Path, house_way: str, game: str = "pai_gow_poker") -> Path:
    data = json.loads((REPO / "replay" / "rulesets" / "pai_gow_poker-classic-v1.json")
                      .read_text(encoding="utf-8"))
    data["id"] = f"{game}-casino-v1"
    data["game"] = game
    data["options"]["house_way"] = house_way
    path = folder / f"{data['id']}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _load(path: Path) -> Ruleset:
    return ruleset_from_dict(json.loads(path.read_text(encoding="utf-8")), source=str(path),
                             base=path.parent)


def test_a_ruleset_naming_a_way_file_carries_the_parsed_way(tmp_path: Path) -> None:
    (tmp_path / "alt.way").write_text(ALTERNATIVES, encoding="utf-8")
    ruleset = _load(_ruleset_file(tmp_path, "alt.way"))
    assert ruleset.house_way == "alt.way"
    assert ruleset.house_way_spec is not None and ruleset.house_way_spec.name == "test-way"
    assert poker_way.find_house_way(ruleset) is ruleset.house_way_spec
    assert poker_way.find_house_way(load_ruleset("pai_gow_poker-classic-v1")) is (
        poker_way.HOUSE_WAY_REFERENCE_1_3)


def test_ruleset_errors_name_the_ruleset_file_and_the_way_file(tmp_path: Path) -> None:
    (tmp_path / "bad.way").write_text(HEADER + RULE + "  front lower_pairs\n" + TAIL,
                                      encoding="utf-8")
    path = _ruleset_file(tmp_path, "bad.way")
    with pytest.raises(RulesetError) as info:
        _load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: house_way 'bad.way': {tmp_path / 'bad.way'} line 9 "
                              f"(rule two_pair_aces): unknown choice 'lower_pairs'")
    with pytest.raises(RulesetError, match="no such house-way file"):
        _load(_ruleset_file(tmp_path, "missing.way"))
    with pytest.raises(RulesetError, match="relative to the ruleset's folder"):
        _load(_ruleset_file(tmp_path, "../elsewhere.way"))
    (tmp_path / "tiles.way").write_text(
        (SHIPPED / "pr-11.2-d.way").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(RulesetError, match="a house way for pai_gow_tiles"):
        _load(_ruleset_file(tmp_path, "tiles.way"))


def test_a_way_file_not_loaded_fails_closed(tmp_path: Path) -> None:
    # read without base: the file is never read, and the games refuse to judge by it
    path = _ruleset_file(tmp_path, "alt.way")
    ruleset = ruleset_from_dict(json.loads(path.read_text(encoding="utf-8")), source=str(path))
    assert ruleset.house_way_spec is None
    with pytest.raises(UnknownHouseWayError,
                       match=re.escape("'alt.way'; known for pai_gow_poker: reference-1.3")):
        poker_way.find_house_way(ruleset)
    from replay.games.pai_gow_poker import adjudicate
    from replay.notation import parse_round

    result = adjudicate(parse_round(
        "r-1 pai_gow_poker D=KdQhJcTc9s/As2d S1(main 2500)=Ac2h3h4s5c/KcQc"), ruleset)
    assert not result.evaluated
    assert any("'alt.way'" in p for p in result.problems)


def test_the_complete_example_of_the_doc_parses_and_sets_by_its_exception() -> None:
    doc = (REPO / "docs" / "house-way.md").read_text(encoding="utf-8")
    start = doc.index("```\n", doc.index("## A complete example")) + 4
    way = parse_poker_house_way(doc[start:doc.index("```", start)], source="docs/house-way.md")
    assert way.name == "example-casino" and way.rules[0].exception
    # aces and kings with 9-7-2: the exception keeps both pairs behind, 9-7 in front
    setting = poker_way.house_way_setting(parse_cards("As Ad Kc Kd 9h 7s 2c"), way=way)
    assert (setting.rule.name, {str(c) for c in setting.low}) == ("kings_up_kept", {"9h", "7s"})


def test_the_doc_names_every_word_of_the_vocabulary() -> None:
    from replay.games.pai_gow_house_way_words import CHOICES, CLASSES, PARAMETERS
    from replay.games.pai_gow_tiles_house_way_words import PLAYS, PREFER

    doc = (REPO / "docs" / "house-way.md").read_text(encoding="utf-8")
    for word in (*CHOICES, *CLASSES, *PARAMETERS, *PLAYS, *PREFER):
        assert f"`{word}" in doc, word


TILES_WAY = """format catwalk-house-way 1
game pai_gow_tiles
name any-setting
title A tiles way that plays any setting after the pairs
source written for the tests
rule supreme_pair
  clause D.1
  plays supreme_pair
rule pair_wong_gong
  clause D.2
  plays pair_wong_gong
  prefer special_hands high low
rule anything
  clause casino rule 3: any setting, the best low hand preferred
  plays any
  prefer low high
"""


def _with_way(json_name: str, folder: Path, house_way: str) -> Path:
    data = json.loads((REPO / "replay" / "rulesets" / json_name).read_text(encoding="utf-8"))
    data["id"] = f"{data['game']}-casino-v1"
    data["options"]["house_way"] = house_way
    path = folder / f"{data['id']}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_tiles_ruleset_naming_a_file_judges_the_dealer_by_it(tmp_path: Path) -> None:
    from replay.games.pai_gow_tiles import judge_document
    from tests.test_pai_gow_tiles import SEAT_PUSHES, doc, hand

    (tmp_path / "casino.way").write_text(TILES_WAY, encoding="utf-8")
    ruleset = _load(_with_way("pai_gow_tiles-pr-v1.json", tmp_path, "casino.way"))
    assert tiles_way.find_house_way(ruleset).name == "any-setting"
    # 6-6 5-5 / 1-6 2-3: 2 Teen over 2 Tit; ¶ D.3 plays a 9, 8 or 7 together, this way any
    dealer = hand("6-6 5-5 1-6 2-3", "6-6 5-5 / 1-6 2-3")
    assert judge_document(doc(SEAT_PUSHES, dealer=dealer), ruleset)["dealer"]["house_way"]
    shipped = load_ruleset("pai_gow_tiles-pr-v1")
    assert not judge_document(doc(SEAT_PUSHES, dealer=dealer), shipped)["dealer"]["house_way"]
    # the preferred setting is the best low hand: 6-6 2-3 (7) / 5-5 1-6 (7 points, Mooy high)
    chosen = tiles_way.house_way_setting(parse_tiles("6-6 5-5 1-6 2-3"),
                                         way=tiles_way.find_house_way(ruleset))
    assert chosen.rule.name == "anything"
    assert str(chosen.setting).startswith("6-6 2-3 / ")


def test_face_up_takes_a_pai_gow_poker_way_and_tiles_refuse_one(tmp_path: Path) -> None:
    flamingo = REPO / "docs" / "examples" / "rulesets" / "C02" / "flamingo.way"
    (tmp_path / "flamingo.way").write_text(flamingo.read_text(encoding="utf-8"),
                                           encoding="utf-8")
    face_up = _load(_with_way("face_up_pai_gow-pa688a-v1.json", tmp_path, "flamingo.way"))
    assert poker_way.find_house_way(face_up).name == "flamingo"
    with pytest.raises(RulesetError, match="a house way for pai_gow_poker, but the ruleset is "
                       "for pai_gow_tiles"):
        _load(_with_way("pai_gow_tiles-pr-v1.json", tmp_path, "flamingo.way"))


def test_a_parsed_way_pickles_as_its_text_and_sets_hands_the_same() -> None:
    import pickle

    way = poker(ALTERNATIVES)
    again = pickle.loads(pickle.dumps(way))
    assert again == way and again.origin == SOURCE
    cards = parse_cards("6h 6d 4s 4c Kh 9d 2s")
    assert poker_way.house_way_setting(cards, way=again) == poker_way.house_way_setting(
        cards, way=way)
    tiles = pickle.loads(pickle.dumps(tiles_way.HOUSE_WAY_PR_11_2_D))
    assert tiles == tiles_way.HOUSE_WAY_PR_11_2_D
