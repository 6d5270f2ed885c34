"""Rule corrections, each test named after the clause it tests.

- 58 Pa. Code § 688a.7(f)(1)(iv): a hand set with the wrong number of cards (six high and one
  low, 4 + 3, or a card left out) was "not otherwise set correctly". It is a fact of play,
  judged, not bad input: that seat's main wager loses, its optional wagers are settled on its
  seven cards (§ 688a.7(h)), the seat is reported as a foul, and the rest of the round is
  judged as usual. The dealer's (or a player banker's) hand, which every seat is compared
  with, cannot be compared when not set 5 + 2: that round stays not judgeable. A set hand
  holding a card the seat was not dealt stays bad input (the record is inconsistent). The
  same for pai gow tiles, 2 + 2 (PR pai gow tiles ¶ A).
- PR pai gow tiles ¶ D (the dealer's house way): a dealer's setting conforms when the written rules
  allow it; where they leave a choice (¶ D.3: "any" two tiles worth 9, 8 or 7 together; ¶ D.2: a
  pair, wong or gong), every allowed setting conforms, and the preferred one is information beside
  the answer. The classic pai gow poker house way leaves no choice but between interchangeable
  cards, so only its setting (or one of the same ranks) conforms.
- Facts of play (fouls, a dealer who did not qualify, a fold, a concession, a withdrawn seat)
  are judged, never raised.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from replay.cards import parse_cards
from replay.document import DocumentError
from replay.games import find_game
from replay.games.pai_gow_house_way import follows_house_way, house_way_setting
from replay.games.pai_gow_poker import Evaluation, adjudicate
from replay.games.pai_gow_tiles import (
    allowed_settings,
    four_tile_hands,
    settings,
)
from replay.games.pai_gow_tiles import follows_house_way as tiles_follow
from replay.games.pai_gow_tiles import house_way_setting as tiles_house_way
from replay.notation import parse_round
from replay.rulesets import load_ruleset
from replay.tiles import parse_tiles

FACE_UP = load_ruleset("face_up_pai_gow-pa688a-v1")
CLASSIC = load_ruleset("pai_gow_poker-classic-v1")
TILES = load_ruleset("pai_gow_tiles-pr-v1")
STUD = load_ruleset("caribbean_stud-standard-v1")


def judge(doc: dict[str, Any], ruleset: Any) -> dict[str, Any]:
    """Through the registry, as every caller does."""
    return find_game(doc["game"]).judge_document(doc, ruleset)


def cards_hand(high: str, low: str, **extra: Any) -> dict[str, Any]:
    return {"cards": f"{high} {low}".split(), "high": high.split(), "low": low.split(),
            **extra}


def seat_of(result: dict[str, Any], number: int) -> dict[str, Any]:
    (found,) = [s for s in result["seats"] if s["seat"] == number]
    return found


def loss(amount: int) -> dict[str, Any]:
    return {"outcome": "loss", "net": -amount, "commission": 0}


# ---------------------------------------------------------------------------------------
# § 688a.7(f)(1)(iv) in Face Up pai gow poker
# ---------------------------------------------------------------------------------------

# The dealer: a pair of 8s behind, K-9 in front (the house way). Not Ace High Pai Gow.
FU_DEALER = cards_hand("8c 8d 4c 3d 2h", "Ks 9s")
# Seat 1: a heart flush A-K-Q-T-5 among its seven cards (Fortune pays on it, 4 to 1).
FU_SEAT_1 = ("Ah Kh Qh Th 5h", "7c 2d")
FU_WAGERS_1 = {"main": 2500, "fortune": 500, "ace_high": 500}
# Seat 2: a pair of aces over the 8s and K-Q over K-9: wins whatever seat 1 does.
FU_SEAT_2 = cards_hand("As Ad Js Tc 6c", "Kd Qs", wagers={"main": 1000})


def face_up(high: str, low: str, dealer: dict[str, Any] = FU_DEALER) -> dict[str, Any]:
    seat_1 = {"seat": 1, "cards": f"{FU_SEAT_1[0]} {FU_SEAT_1[1]}".split(),
              "high": high.split(), "low": low.split(), "wagers": dict(FU_WAGERS_1)}
    return {"round_id": "r-iv", "game": "face_up_pai_gow", "dealer": dealer,
            "seats": [seat_1, {"seat": 2, **FU_SEAT_2}]}


@pytest.mark.parametrize(("high", "low"), [
    ("Ah Kh Qh Th 5h 7c", "2d"),      # six high, one low
    ("Ah Kh Qh Th", "5h 7c 2d"),      # 4 + 3
    ("Ah Kh Qh Th 5h", "7c"),         # a card left out of both hands
], ids=["6+1", "4+3", "5+1"])
def test_688a_7_f_1_iv_face_up_hand_not_set_5_2_loses_the_face_up_wager(
    high: str, low: str
) -> None:
    result = judge(face_up(high, low), FACE_UP)
    proper = judge(face_up(*FU_SEAT_1), FACE_UP)
    seat_1 = seat_of(result, 1)
    assert seat_1["foul"] is True
    assert seat_1["wagers"]["main"] == loss(2500)
    # § 688a.7(h): the optional wagers are settled on the seven cards however they were set
    for name in ("fortune", "ace_high"):
        assert seat_1["wagers"][name] == seat_of(proper, 1)["wagers"][name]
    assert seat_1["wagers"]["fortune"] == {"outcome": "win", "net": 2000, "commission": 0}
    assert seat_1["envy"] == seat_of(proper, 1)["envy"]
    # the rest of the round is judged as usual
    assert seat_of(result, 2) == seat_of(proper, 2)
    assert seat_of(result, 2)["wagers"]["main"]["outcome"] == "win"
    assert result["dealer"] == proper["dealer"]


def test_688a_7_f_1_iv_face_up_hand_not_set_5_2_loses_even_against_ace_high_pai_gow() -> None:
    """(f)(2)(iii) ties every Face Up wager when the dealer has an Ace High Pai Gow; a hand
    not set correctly loses before that, as a foul does (docs/rules.md 6)."""
    dealer = cards_hand("As 7h 5s 3d 2c", "Kd 9c")
    doc = face_up("Ah Kh Qh Th 5h 7c", "2d", dealer=dealer)
    doc["seats"][1] = {"seat": 2, **cards_hand("Ad Jd Js Tc 6c", "Ks Qs",
                                                wagers={"main": 1000})}
    result = judge(doc, FACE_UP)
    assert result["dealer"]["ace_high_pai_gow"] is True
    assert seat_of(result, 1)["wagers"]["main"] == loss(2500)
    assert seat_of(result, 2)["wagers"]["main"]["outcome"] == "push"


def test_688a_7_f_1_iv_face_up_dealer_hand_not_set_5_2_cannot_be_compared() -> None:
    dealer = cards_hand("8c 8d 4c 3d 2h Ks", "9s")
    with pytest.raises(DocumentError, match=r"dealer set 6\+1 cards, not 5\+2"):
        judge(face_up(*FU_SEAT_1, dealer=dealer), FACE_UP)


def test_688a_7_f_1_iv_face_up_hand_set_with_a_card_not_dealt_stays_bad_input() -> None:
    with pytest.raises(DocumentError, match=r"seat 1: .*set but not dealt 'Qd'"):
        judge(face_up("Ah Kh Qd Th 5h", "7c 2d"), FACE_UP)


# ---------------------------------------------------------------------------------------
# § 688a.7(f)(1)(iv) in classic pai gow poker (pai gow poker procedure (1): a 2-card hand and a 5)
# ---------------------------------------------------------------------------------------

# The dealer: 9-high, 8-7 in front; seat 2 holds FU_SEAT_1's cards; seat 5 a pair of aces that wins.
PG_DEALER = cards_hand("9s 6c 4h 3d 2s", "8d 7s")
PG_SEAT_5 = cards_hand("As Ad Kc Qc Jd", "Ts 9c", wagers={"main": 1000})


def classic(high: str, low: str, *, banker: Any = None,
            dealer: dict[str, Any] = PG_DEALER) -> dict[str, Any]:
    seat_2 = {"seat": 2, "cards": f"{FU_SEAT_1[0]} {FU_SEAT_1[1]}".split(),
              "high": high.split(), "low": low.split(),
              "wagers": {"main": 2500, "fortune": 500}}
    doc: dict[str, Any] = {"round_id": "r-iv", "game": "pai_gow_poker", "dealer": dealer,
                           "seats": [seat_2, {"seat": 5, **PG_SEAT_5}]}
    if banker is not None:
        doc["banker"] = banker
    return doc


@pytest.mark.parametrize(("high", "low"), [
    ("Ah Kh Qh Th 5h 7c", "2d"), ("Ah Kh Qh Th", "5h 7c 2d"), ("Ah Kh Qh 5h", "7c 2d"),
], ids=["6+1", "4+3", "4+2"])
def test_688a_7_f_1_iv_classic_hand_not_set_5_2_loses_the_main_wager(
    high: str, low: str
) -> None:
    result = judge(classic(high, low), CLASSIC)
    proper = judge(classic(*FU_SEAT_1), CLASSIC)
    seat_2 = seat_of(result, 2)
    assert seat_2["foul"] is True
    assert seat_2["wagers"]["main"] == loss(2500)
    assert seat_2["wagers"]["fortune"] == seat_of(proper, 2)["wagers"]["fortune"]
    assert seat_2["wagers"]["fortune"] == {"outcome": "win", "net": 2000, "commission": 0}
    assert seat_of(result, 5) == seat_of(proper, 5)
    assert seat_of(result, 5)["wagers"]["main"] == {"outcome": "win", "net": 950,
                                                    "commission": 50}


def test_688a_7_f_1_iv_classic_hand_not_set_5_2_loses_to_a_player_banker() -> None:
    """The loss counts in the player banker's account like any other (6a.14)."""
    banker = {"seat": 5}
    result = judge(classic("Ah Kh Qh Th 5h 7c", "2d", banker=banker), CLASSIC)
    assert seat_of(result, 2)["wagers"]["main"] == loss(2500)
    # the banker wins 2500 gross, pays 5% of it (125)
    assert result["banker"] == {"seat": 5, "net": 2375, "commission": 125,
                                "house_net": 125 - seat_of(result, 2)["wagers"]["fortune"]["net"]}


def test_688a_7_f_1_iv_classic_banker_hand_not_set_5_2_cannot_be_compared() -> None:
    doc = classic(*FU_SEAT_1, banker={"seat": 5})
    doc["seats"][1] = {"seat": 5, **cards_hand("As Ad Kc Qc", "Jd Ts 9c",
                                                wagers={"main": 1000})}
    with pytest.raises(DocumentError, match=r"seat 5 set 4\+3 cards, not 5\+2"):
        judge(doc, CLASSIC)


def test_688a_7_f_1_iv_classic_dealer_hand_not_set_5_2_cannot_be_compared() -> None:
    dealer = cards_hand("9s 6c 4h 3d 2s 8d", "7s")
    with pytest.raises(DocumentError, match=r"dealer set 6\+1 cards, not 5\+2"):
        judge(classic(*FU_SEAT_1, dealer=dealer), CLASSIC)


def test_688a_7_f_1_iv_classic_hand_set_with_a_card_not_dealt_stays_bad_input() -> None:
    with pytest.raises(DocumentError, match=r"seat 2's set hand .*set but not dealt 'Qd'"):
        judge(classic("Ah Kh Qd Th 5h", "7c 2d"), CLASSIC)


def test_688a_7_f_1_iv_classic_round_from_the_log_is_judged_with_the_hand_not_set_5_2() -> None:
    """The log's front door (:func:`adjudicate`, one-line notation) judges the same way."""
    line = ("r-iv pai_gow_poker D=9s6c4h3d2s/8d7s S2(main 2500)=AhKhQhTh5h7c/2d "
            "S5(main 1000)=AsAdKcQcJd/Ts9c")
    result = adjudicate(parse_round(line), CLASSIC)
    assert result.evaluation is Evaluation.EVALUATED, result.problems
    (seat_2, seat_5) = result.seats
    assert (seat_2.foul, seat_2.misset, seat_2.main and seat_2.main.net_cents) == (True, True,
                                                                                 -2500)
    assert seat_5.main is not None and seat_5.main.net_cents == 950
    dealer_line = line.replace("D=9s6c4h3d2s/8d7s", "D=9s6c4h3d2s8d/7s")
    broken = adjudicate(parse_round(dealer_line), CLASSIC)
    assert broken.evaluation is Evaluation.NOT_EVALUATED
    assert any("dealer set 6+1 cards, not 5+2" in p for p in broken.problems)


# ---------------------------------------------------------------------------------------
# PR pai gow tiles ¶ A: two hands of two tiles
# ---------------------------------------------------------------------------------------

TILES_DEALER = {"tiles": ["6-6", "5-5", "1-6", "2-3"], "high": ["6-6", "1-6"],
                "low": ["5-5", "2-3"]}  # 9 Teen / 5 Mooy, the house way
TILES_SEAT_2 = {"seat": 2, "tiles": ["1-1", "1-5", "5-6", "3-4"], "high": ["1-1", "1-5"],
                "low": ["5-6", "3-4"], "wagers": {"main": 1000}}  # 8 Day / 8 Foo: push


def tiles_round(high: str, low: str, **extra: Any) -> dict[str, Any]:
    seat_1 = {"seat": 1, "tiles": ["4-4", "4-4", "1-3", "2-2"], "high": high.split(),
              "low": low.split(), "wagers": {"main": 700}}
    return {"round_id": "r-a", "game": "pai_gow_tiles", "dealer": TILES_DEALER,
            "seats": [seat_1, TILES_SEAT_2], **extra}


@pytest.mark.parametrize(("high", "low"), [
    ("4-4 4-4 1-3", "2-2"), ("4-4", "4-4 1-3 2-2"), ("4-4 4-4", "1-3"),
], ids=["3+1", "1+3", "2+1"])
def test_pr_A_tiles_hands_not_set_2_2_lose_the_wager(high: str, low: str) -> None:
    result = judge(tiles_round(high, low), TILES)
    proper = judge(tiles_round("4-4 4-4", "1-3 2-2"), TILES)
    assert seat_of(proper, 1)["wagers"]["main"]["outcome"] == "win"
    assert seat_of(result, 1) == {"seat": 1, "foul": True, "wagers": {"main": loss(700)},
                                  "envy": 0}
    assert seat_of(result, 2) == seat_of(proper, 2)
    assert result["dealer"] == proper["dealer"]


def test_pr_A_tiles_dealer_hands_not_set_2_2_cannot_be_compared() -> None:
    doc = tiles_round("4-4 4-4", "1-3 2-2")
    doc["dealer"] = dict(TILES_DEALER, high=["6-6", "1-6", "5-5"], low=["2-3"])
    with pytest.raises(DocumentError, match=r"dealer set 3\+1 tiles, not 2\+2"):
        judge(doc, TILES)


def test_pr_A_tiles_banker_hands_not_set_2_2_cannot_be_compared() -> None:
    doc = tiles_round("4-4 4-4 1-3", "2-2", banker={"seat": 1})
    with pytest.raises(DocumentError, match=r"seat 1 set 3\+1 tiles, not 2\+2"):
        judge(doc, TILES)


def test_pr_A_tiles_hand_set_with_a_tile_not_dealt_stays_bad_input() -> None:
    with pytest.raises(DocumentError, match="seat 1 set tile 2-6 in a hand but was not dealt"):
        judge(tiles_round("4-4 4-4", "1-3 2-6"), TILES)


# ---------------------------------------------------------------------------------------
# PR pai gow tiles ¶ D: every setting the written house way allows conforms
# ---------------------------------------------------------------------------------------


def test_pr_D_3_any_two_tiles_worth_nine_eight_or_seven_together_conform() -> None:
    """Teen, Mooy, Tit, a 5 make no pair, wong or gong; D.3 plays "any" two tiles worth 9,
    8 or 7 together: 9 Teen / 5 (6-6 1-6 / 5-5 2-3), the house way's preference (C4), and
    7 Teen / 7 Mooy (6-6 2-3 / 5-5 1-6) both conform; 2 / 2 does not."""
    tiles = parse_tiles("6-6 5-5 1-6 2-3")
    preferred = tiles_house_way(tiles)
    assert (preferred.rule.clause.split(";")[0], str(preferred.setting)) == (
        "D.3", "6-6 1-6 / 5-5 2-3")
    assert tiles_follow(tiles, parse_tiles("6-6 1-6"), parse_tiles("5-5 2-3"))
    assert tiles_follow(tiles, parse_tiles("6-6 2-3"), parse_tiles("5-5 1-6"))
    assert not tiles_follow(tiles, parse_tiles("6-6 5-5"), parse_tiles("1-6 2-3"))
    assert [str(s) for s in allowed_settings(tiles)] == ["6-6 1-6 / 5-5 2-3",
                                                         "6-6 2-3 / 5-5 1-6"]
    # in a round document: house_way true, and the seat is judged against the 7 / 7 as set
    doc = tiles_round("4-4 4-4", "1-3 2-2")
    doc["dealer"] = dict(TILES_DEALER, high=["6-6", "2-3"], low=["5-5", "1-6"])
    result = judge(doc, TILES)
    assert result["dealer"]["house_way"] is True and result["dealer"]["foul"] is False
    # 8 Day over 7 Teen and 8 Foo over 7 Mooy: a win
    assert seat_of(result, 2)["wagers"]["main"]["outcome"] == "win"


def test_pr_D_3_a_nine_eight_or_seven_set_as_a_foul_does_not_conform() -> None:
    tiles = parse_tiles("6-6 5-5 1-6 2-3")
    assert not tiles_follow(tiles, parse_tiles("5-5 2-3"), parse_tiles("6-6 1-6"))


def test_pr_D_2_any_pair_wong_or_gong_conforms() -> None:
    """Teen, Day and the two mixed nines: two wongs (the house way's preference, C3) or the
    mixed nines pair over Teen-Day; both play "a pair, wong or gong"."""
    tiles = parse_tiles("6-6 1-1 3-6 4-5")
    assert tiles_follow(tiles, parse_tiles("6-6 3-6"), parse_tiles("1-1 4-5"))
    assert tiles_follow(tiles, parse_tiles("3-6 4-5"), parse_tiles("6-6 1-1"))


def test_pr_D_1_and_D_4_leave_no_choice() -> None:
    # D.1: Gee Joon with Teen and Day: only Gee Joon / Teen-Day
    tiles = parse_tiles("6-6 1-1 2-4 1-2")
    assert len(allowed_settings(tiles)) == 1
    assert not tiles_follow(tiles, parse_tiles("6-6 2-4"), parse_tiles("1-1 1-2"))
    # D.4: Mooy, Chong, Ping, Look: only the highest (Mooy) with the lowest (Look)
    tiles = parse_tiles("1-5 4-6 3-3 5-5")
    assert [str(s) for s in allowed_settings(tiles)] == ["5-5 1-5 / 3-3 4-6"]
    assert not tiles_follow(tiles, parse_tiles("5-5 3-3"), parse_tiles("4-6 1-5"))


def test_pr_D_the_preferred_setting_is_always_allowed_and_never_a_foul() -> None:
    """Over every distinct four-tile hand: the house way's setting conforms, every allowed
    setting is one of the three ways to set the hand and does not foul, and the rule that
    allows them is the one that chose the preferred setting."""
    choices = Counter()
    for tiles, _ in four_tile_hands():
        preferred = tiles_house_way(tiles)
        allowed = allowed_settings(tiles)
        assert preferred.setting in allowed
        assert all(s in settings(tiles) and not s.foul for s in allowed)
        assert all(preferred.rule.plays(s) for s in allowed)
        assert tiles_follow(tiles, preferred.setting.high, preferred.setting.low)
        distinct = {(s.high_rank, s.low_rank) for s in allowed}
        choices[preferred.rule.clause.split(";")[0], len(distinct) > 1] += 1
    # D.1 and D.4 never leave a choice; D.2 and D.3 sometimes do
    assert not choices["D.1", True] and not choices["D.4", True]
    assert choices["D.2", True] and choices["D.3", True]


# ---------------------------------------------------------------------------------------
# docs/rules.md 1.3 (classic house way): no choice but between interchangeable cards
# ---------------------------------------------------------------------------------------


def test_1_3_where_the_written_way_leaves_no_choice_only_its_setting_conforms() -> None:
    cards = parse_cards("Ks Qd 9h 7c 5s 3d 2c")
    # no pair: the highest card behind, the next two in front
    setting = house_way_setting(cards)
    assert [str(c) for c in setting.low] == ["Qd", "9h"]
    assert follows_house_way(cards, setting.high, setting.low)
    # K-Q-9-7-5 behind, 3-2 in front: a legal setting, but not the house way's
    assert not follows_house_way(cards, parse_cards("Ks Qd 9h 7c 5s"), parse_cards("3d 2c"))
    # Q-7 in front: still not
    assert not follows_house_way(cards, parse_cards("Ks 9h 5s 3d 2c"), parse_cards("Qd 7c"))


def test_1_3_interchangeable_cards_conform() -> None:
    """C7: the house way's choice between cards of equal rank is arbitrary, so the other
    king behind (or the joker for an ace where it completes nothing) conforms too."""
    cards = parse_cards("Ks Kd 9h 7c 5s Qd Qc")
    setting = house_way_setting(cards)  # kings and queens: split, queens in front (1.3 (b))
    assert setting.low == tuple(parse_cards("Qd Qc"))
    assert follows_house_way(cards, parse_cards("Kd Ks 9h 7c 5s"), parse_cards("Qc Qd"))
    # not splitting (kings and queens behind, 9-7 in front) does not conform
    assert not follows_house_way(cards, parse_cards("Ks Kd Qd Qc 5s"), parse_cards("9h 7c"))
    # three aces, the joker one of them: a pair of aces behind, an ace and the king in front
    aces = parse_cards("Jk As Ad Kc 9h 7c 4d")
    assert house_way_setting(aces).low == tuple(parse_cards("Ad Kc"))
    assert follows_house_way(aces, parse_cards("As Ad 9h 7c 4d"), parse_cards("Jk Kc"))
    assert not follows_house_way(aces, parse_cards("Jk As Ad 7c 4d"), parse_cards("Kc 9h"))


def test_1_3_face_up_dealer_off_the_house_way_is_reported_in_the_result() -> None:
    dealer = cards_hand("8c 8d Ks 3d 2h", "9s 4c")  # pair of 8s, K behind, 9-4 in front
    result = judge(face_up(*FU_SEAT_1, dealer=dealer), FACE_UP)
    assert result["dealer"]["house_way"] is False
    assert judge(face_up(*FU_SEAT_1), FACE_UP)["dealer"]["house_way"] is True


# ---------------------------------------------------------------------------------------
# Facts of play are judged, never raised
# ---------------------------------------------------------------------------------------


def _stud(action: str | None, dealer: str) -> dict[str, Any]:
    seat: dict[str, Any] = {"seat": 1, "cards": ["Ah", "Ad", "7c", "5s", "2d"],
                            "wagers": {"ante": 1000, "raise": 2000}}
    if action is not None:
        seat["action"] = action
        if action == "fold":
            seat["wagers"] = {"ante": 1000}
    return {"round_id": "r-s", "game": "caribbean_stud", "dealer": {"cards": dealer.split()},
            "seats": [seat]}


FACTS_OF_PLAY = [
    ("classic foul", classic("Qh Th 5h 7c 2d", "Ah Kh"), CLASSIC, 2, "main", "loss"),
    ("classic not set 5+2", classic("Ah Kh Qh Th 5h 7c", "2d"), CLASSIC, 2, "main", "loss"),
    ("face up foul", face_up("Qh Th 5h 7c 2d", "Ah Kh"), FACE_UP, 1, "main", "loss"),
    ("face up not set 5+2", face_up("Ah Kh Qh Th", "5h 7c 2d"), FACE_UP, 1, "main", "loss"),
    ("tiles foul", tiles_round("1-3 2-2", "4-4 4-4"), TILES, 1, "main", "loss"),
    ("tiles not set 2+2", tiles_round("4-4 4-4 1-3", "2-2"), TILES, 1, "main", "loss"),
    ("tiles withdrawn seat",
     {**tiles_round("4-4 4-4", "1-3 2-2"),
      "seats": [{"seat": 1, "action": "withdraw", "wagers": {"main": 700}}, TILES_SEAT_2]},
     TILES, 1, "main", "loss"),
    ("stud dealer does not qualify", _stud(None, "Kc Qs 9h 6d 3c"), STUD, 1, "raise", "void"),
    ("stud fold", _stud("fold", "Ac Ks 9h 6d 3c"), STUD, 1, "ante", "loss"),
    ("stud concede", _stud("concede", "Ac Ks 9h 6d 3c"), STUD, 1, "raise", "loss"),
]


@pytest.mark.parametrize(("what", "doc", "ruleset", "number", "name", "outcome"),
                         FACTS_OF_PLAY, ids=[case[0] for case in FACTS_OF_PLAY])
def test_facts_of_play_are_judged_never_raised(
    what: str, doc: dict[str, Any], ruleset: Any, number: int, name: str, outcome: str
) -> None:
    result = judge(copy.deepcopy(doc), ruleset)
    assert result["evaluated"] is True, what
    assert seat_of(result, number)["wagers"][name]["outcome"] == outcome, what
