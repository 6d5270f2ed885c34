"""The Flamingo house way (docs/examples/house_ways/flamingo.way, written from the Flamingo
Hilton text published in cammoore/PaiGow-Poker, docs/rules.md 1.3): hands set by hand from its
written rules, and a dealer judged under a ruleset that names the file."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from replay.cards import DECK_53, Card, parse_cards
from replay.games import pai_gow_house_way as poker_way
from replay.games.pai_gow_poker import judge_document
from replay.house_ways import house_way_from_file
from replay.rulesets import Ruleset, ruleset_from_dict
from tests.test_golden_house_way import SAMPLE, SEED
from tests.test_pai_gow_poker import document

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "docs" / "examples" / "house_ways"
FLAMINGO = house_way_from_file("pai_gow_poker", EXAMPLES / "flamingo.way")

# (cards, the Flamingo rule, the 2-card hand as ranks, worked from the written rules)
WORKED = [
    # no pair: the second and third highest cards in front
    ("Ks Jd 9h 7c 5s 3d 2c", "no_pair", "J9"),
    # a straight 5-9 with 8s and 7s, no ace: "always play straight or flush in the high hand"
    # (none of the three two-pair exceptions holds): the spare 8 and 7 go in front
    ("9h 8s 8d 7c 7h 6s 5d", "straight", "87"),
    # a straight 7-J with jacks and tens: "both pairs 10's or over": play as two pair, split
    ("Js Jd Th Tc 9s 8d 7c", "straight_two_pair_tens_up", "TT"),
    # the wheel A-5 with 5s and 3s: "10's or under with an ace singleton": play as two pair,
    # both pairs behind, the ace and the next highest single (the 4) in front
    ("As 2d 3h 4c 5s 5d 3c", "straight_two_pair_ace", "A4"),
    # four queens and a pair of 8s: "jack through king: split unless a pair of 10's or higher"
    ("Qs Qc Qh Qd 8h 8d 2s", "four_split", "QQ"),
    # four aces and a pair of 6s: "aces: split unless a pair of 7's or higher"
    ("As Ac Ah Ad 6h 6d 2s", "four_split", "AA"),
    # four aces and a pair of 9s: kept, the 9s in front
    ("As Ac Ah Ad 9h 9d 2s", "four_aces_sevens_up", "99"),
    # four 8s, an ace and a 5: "7 through 10: split unless an ace and a face card": split
    ("8s 8c 8h 8d As 5d 3c", "four_split", "88"),
    # four 8s, an ace and a king: kept, ace-king in front
    ("8s 8c 8h 8d As Kd 3c", "four_seven_to_ten_ace_face", "AK"),
    # 5s full of 2s with an ace and a king: "split except with pair of 2's and an ace/king"
    ("5s 5c 5h 2d 2c Ah Kd", "full_house_twos_ace_king", "AK"),
    # jacks and 4s with an ace: "a pair of face cards, a pair of 5's or less, an ace": kept
    ("Js Jc 4h 4d Ah 9c 7d", "two_pair_face_five_ace", "A9"),
    # kings and 8s with an ace: a face pair with a pair above 5: split, the 8s in front
    ("Ks Kc 8h 8d Ah 9c 7d", "two_pair_split", "88"),
    # three pair: the highest pair in front
    ("Ks Kd Qh Qc 9h 9d 2s", "three_pair", "KK"),
    # five aces (the joker one) and a pair of kings: the kings in front
    ("Jk As Ah Ad Ac Ks Kd", "five_aces_with_kings", "KK"),
]


def _ranks(low: tuple[Card, ...]) -> str:
    """The ranks of a 2-card hand, highest first (the joker as an ace)."""
    return "".join(sorted((("A" if c.is_joker else str(c)[0]) for c in low),
                          key="23456789TJQKA".index, reverse=True))


@pytest.mark.parametrize(("cards", "rule", "low"), WORKED)
def test_flamingo_sets_hands_as_its_written_rules_say(cards: str, rule: str, low: str) -> None:
    setting = poker_way.house_way_setting(parse_cards(cards), way=FLAMINGO)
    assert (setting.rule.name, _ranks(setting.low)) == (rule, low)


def test_flamingo_sevens_to_tens_with_a_pair_allows_both_readings() -> None:
    # four 10s and kings: "split unless an ace and a face card or better": kings in front
    # (preferred) or the 10s split; both conform (F1); kings and 10s in front together do not
    cards = parse_cards("Ts Tc Th Td Kh Kd 2s")
    setting = poker_way.house_way_setting(cards, way=FLAMINGO)
    assert _ranks(setting.low) == "KK" and [_ranks(lo) for _, lo in setting.others] == ["TT"]
    split = (parse_cards("Ts Tc Kh Kd 2s"), parse_cards("Th Td"))
    assert poker_way.follows_house_way(cards, *split, way=FLAMINGO)
    assert not poker_way.follows_house_way(cards, *split)  # reference-1.3 keeps the four


def _flamingo_ruleset() -> Ruleset:
    data = json.loads((REPO / "replay" / "rulesets" / "pai_gow_poker-classic-v1.json")
                      .read_text(encoding="utf-8"))
    data["id"] = "pai_gow_poker-flamingo-v1"
    data["options"]["house_way"] = "flamingo.way"
    return ruleset_from_dict(data, source="C02/pai_gow_poker-flamingo-v1.json", base=EXAMPLES)


# the dealer holds four queens and a pair of 8s
SPLIT = "Qs Qc 8h 8d 2s / Qh Qd"        # Flamingo: J-K split unless 10s or higher beside
KEPT = "Qs Qc Qh Qd 2s / 8h 8d"         # reference-1.3 (C2): keep it, the pair in front
NEITHER = "Qs Qc Qh Qd 8h / 8d 2s"       # neither way
SEAT = (1, "Ac Kc 9c 7c 3d / Jd Tc", 2500)


@pytest.mark.parametrize(("dealer", "flamingo", "reference"), [
    (SPLIT, True, False), (KEPT, False, True), (NEITHER, False, False)])
def test_a_dealer_judged_under_a_ruleset_naming_the_flamingo_file(
        dealer: str, flamingo: bool, reference: bool) -> None:
    doc = document(dealer, SEAT)
    under_flamingo = judge_document(doc, _flamingo_ruleset())
    assert under_flamingo["evaluated"] is True
    assert under_flamingo["dealer"]["house_way"] is flamingo
    from replay.rulesets import load_ruleset

    assert judge_document(doc, load_ruleset("pai_gow_poker-classic-v1"))["dealer"][
        "house_way"] is reference


# the rules of reference-1.3 and Flamingo that set some hands differently, by what the written
# texts say: four of a kind (Flamingo splits more), a full house of 2s with ace-king (Flamingo
# keeps it), a straight with two pair (reference-1.3 follows its two-pair rules, Flamingo keeps
# the straight unless aces, 10s-up, or an ace singleton)
DIFFERING_RULES = {"four_of_a_kind_with_pair", "four_of_a_kind_seven_to_jack_with_ace",
                   "four_of_a_kind_split", "full_house", "straight_two_pair_split", "straight"}


def test_on_the_golden_sample_the_two_ways_differ_only_where_their_texts_do() -> None:
    rng = random.Random(SEED)
    differ: Counter[str] = Counter()
    for _ in range(SAMPLE):
        dealt = sorted(rng.sample(DECK_53, 7), key=lambda card: card.index)
        flamingo = poker_way.house_way_setting(dealt, way=FLAMINGO)
        if not poker_way.follows_house_way(dealt, flamingo.high, flamingo.low):
            differ[poker_way.house_way_setting(dealt).rule.name] += 1
    assert set(differ) <= DIFFERING_RULES, differ
    assert differ["straight_two_pair_split"] > 0 and differ["straight"] > 0
    assert 0 < sum(differ.values()) < SAMPLE // 100


def test_a_dispute_shows_the_other_lawful_setting_of_the_flamingo_way() -> None:
    from replay.dispute_why import Holding, Table, verdicts

    # four 10s and kings, the dealer split the 10s: lawful under Flamingo (F1), not preferred
    dealer = Holding(position="dealer", seat=None, cards=_tokens("Ts Tc Th Td Kh Kd 2s"),
                     high=_tokens("Ts Tc Kh Kd 2s"), low=("Th", "Td"), action=None,
                     house_way=True)
    seat = Holding(position="seat 1", seat=1, cards=_tokens("Ac Kc 9c 7c 3d Jd 8c"),
                   high=_tokens("Ac Kc 9c 7c 3d"), low=("Jd", "8c"), action=None)
    table = Table(ruleset=_flamingo_ruleset(), holdings={None: dealer, 1: seat},
                  banker_seat=None, outcomes={None: None, 1: "loss"})
    why = verdicts("pai_gow_poker", table)[None].why or ""
    assert why.startswith("set by the house way: the house way flamingo (rule "
                          "four_seven_to_ten_with_pair, Four of a kind, 7 through 10; F1) sets "
                          "high Ts Th Td Tc 2s, low Kh Kd; also lawful: high Kh Kd Ts Th 2s, "
                          "low Td Tc"), why


def _tokens(text: str) -> tuple[str, ...]:
    """Card tokens in the notation, as replay writes them in hands.parquet."""
    return tuple(str(card) for card in parse_cards(text))


def test_a_casino_filing_naming_the_flamingo_file_is_judged_by_it(tmp_path: Path) -> None:
    from replay.filings import read_filings

    folder = tmp_path / "C02"
    folder.mkdir()
    (folder / "flamingo.way").write_text((EXAMPLES / "flamingo.way").read_text(
        encoding="utf-8"), encoding="utf-8")
    data = json.loads((REPO / "replay" / "rulesets" / "pai_gow_poker-classic-v1.json")
                      .read_text(encoding="utf-8"))
    data.update(id="pai_gow_poker-c02-v1", casino="C02", effective_from="2026-01-01")
    data["options"]["house_way"] = "flamingo.way"
    (folder / "pai_gow_poker-c02-v1.json").write_text(json.dumps(data), encoding="utf-8")
    found = read_filings(tmp_path)
    assert found.problems == ()
    (filing,) = found.filings
    assert poker_way.find_house_way(filing.ruleset) is filing.ruleset.house_way_spec
    assert judge_document(document(SPLIT, SEAT), filing.ruleset)["dealer"]["house_way"] is True
    # a broken way file is a problem of the filing, naming the ruleset and the way file
    (folder / "flamingo.way").write_text("format catwalk-house-way 1\ngame pai_gow_poker\n",
                                         encoding="utf-8")
    (problem,) = read_filings(tmp_path).problems
    assert "house_way 'flamingo.way'" in problem.detail and "flamingo.way: missing header" in (
        problem.detail)
