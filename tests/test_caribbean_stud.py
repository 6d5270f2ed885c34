"""Caribbean stud poker rules (docs/rules.md 4.2, 4.3, 6, 6a.4, 6a.12, 6a.13, 6a.17, 6a.18;
Caribbean stud rules 9.1 to 9.9). Rule tests are named after the clause they test.

Every expected amount is worked out by hand from the docs/rules.md paytables (the arithmetic
is in the comments); the oracles for ranking are docs/rules.md 4.3's count of qualifying
hands and a deliberately simple evaluator written here.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.__main__ import main as replay_main
from replay.adjudicate import judge_document
from replay.cards import DECK_52, Card, parse_cards
from replay.document import DocumentError
from replay.errors import HandError, RoundError, RulesetError
from replay.games import find_game
from replay.games.caribbean_stud import (
    ACE_KING,
    GAME,
    Action,
    CaribbeanRound,
    Outcome,
    Seat,
    adjudicate,
    dealer_qualifies,
    hand_class,
    rank_hand,
    round_from_document,
)
from replay.games.poker_ranks import rank_high
from replay.rulesets import Ruleset, Wheel, load_ruleset, ruleset_from_dict

RULESET = load_ruleset("caribbean_stud-standard-v1")
DEALER_AK432 = "Ah Kd 4c 3s 2s"
"""The lowest qualifying dealer hand (docs/rules.md 4.2)."""
DEALER_AQJT9 = "Ah Qd Jc Ts 9s"
"""The highest hand that does not qualify (docs/rules.md 4.2)."""


def rank(text: str) -> Any:
    return rank_hand(parse_cards(text))


def doc(dealer: str, *seats: dict[str, Any], meter: int | None = None,
        **extra: Any) -> dict[str, Any]:
    """A round document: seats given as dicts with "cards" as text."""
    out: dict[str, Any] = {"round_id": "r-cs", "game": GAME,
                           "dealer": {"cards": dealer.split()}}
    if meter is not None:
        out["progressive_meter"] = meter
    out["seats"] = [{**s, "cards": s["cards"].split()} for s in seats]
    out.update(extra)
    return out


def seat(number: int, cards: str, *, action: str | None = None, **wagers: int) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": number, "cards": cards, "wagers": wagers}
    if action is not None:
        out["action"] = action
    return out


def wagers_of(result: dict[str, Any], number: int) -> dict[str, Any]:
    (found,) = [s for s in result["seats"] if s["seat"] == number]
    return dict(found["wagers"])


def w(outcome: str, net: int) -> dict[str, Any]:
    return {"outcome": outcome, "net": net, "commission": 0}


def meter_win(net: int, high: int) -> dict[str, Any]:
    """A share of the meter paid ``net`` (rounded down), lawful up to ``high`` (rounded up:
    docs/rules.md 6a.13, 6a.19)."""
    return {**w("win", net), "net_range": [net, high], "commission_range": [0, 0]}


# ---------------------------------------------------------------------------------------
# Ranking: 52 cards, wheel lowest, kickers (docs/rules.md 4.2, 6a.4)
# ---------------------------------------------------------------------------------------


def test_6a_4_wheel_is_the_lowest_straight_in_caribbean_stud():
    wheel = rank("As 2d 3h 4c 5s")
    assert wheel.category.value == "straight"
    assert wheel < rank("2s 3d 4h 5c 6s")  # A-2-3-4-5 loses to 2-3-4-5-6
    assert wheel > rank("Ac Ad Ah Kc Qs")  # still a straight: above any three of a kind
    assert rank("Ts Jd Qh Kc As") > rank("9s Td Jh Qc Kd")  # A-K-Q-J-T the highest


def test_6a_4_wheel_is_the_lowest_straight_flush():
    wheel_flush = rank("Ac 2c 3c 4c 5c")
    assert wheel_flush.category.value == "straight_flush"
    assert wheel_flush < rank("2h 3h 4h 5h 6h")
    assert wheel_flush > rank("As Ad Ah Ac Ks")  # four aces


def test_6a_4_suits_never_break_ties():
    assert rank("As Kd 9c 7s 3s") == rank("Ac Ks 9d 7h 3c")
    assert rank("2h 6h 9h Jh Kh") == rank("2s 6s 9s Js Ks")


@pytest.mark.parametrize(("higher", "lower"), [
    ("Ah Kd Qc Js 9s", "Ac Ks Qd Jh 8c"),  # high card: fifth card 9 over 8
    ("Ah Kd 5c 3s 2s", DEALER_AK432),     # A-K-5 over A-K-4
    ("Kh Kd Ac Qs 9s", "Kc Ks Ad Qh 8c"),  # pair of kings, third kicker 9 over 8
    ("Kh Kd 2c 3s 4s", "Qc Qs Ad Kc Jh"),  # pair rank before kickers
    ("Jh Jd 6c 6s Ah", "Jc Js 6d 6h Kd"),  # two pair: kicker ace over king
    ("Jh Jd 7c 7s 2h", "Jc Js 6d 6h Ad"),  # two pair: second pair 7s over 6s
    ("Qh Qd Qc 2s 3h", "Jc Js Jd Ah Kd"),  # trips rank before kickers
    ("8h 8d 8c 2s 2h", "7c 7s 7d Ah Ad"),  # full house: the trips decide
    ("Ah Kh 7h 5h 3h", "Ac Qc Jc Tc 8c"),  # flush: highest card first
    ("Ah Kh 7h 5h 4h", "Ac Kc 7c 5c 3c"),  # flush: down to the fifth card
    ("9h Td Jc Qs Kh", "8c 9c Td Jd Qh"),  # straight: highest card
    ("5c 5d 5h 5s 2c", "4c 4d 4h 4s Ac"),  # quads: the four decide
    ("2c 3d 4h 5s 6c", "Ac Ad Ah Kc Qd"),  # category before everything
])
def test_4_2_higher_poker_value_including_kickers(higher: str, lower: str):
    assert rank(higher) > rank(lower)
    assert rank(lower) < rank(higher)


def test_hand_classes_name_the_paytable_lines():
    assert hand_class(rank("Ts Js Qs Ks As")) == "royal_flush"
    assert hand_class(rank("Ac 2c 3c 4c 5c")) == "straight_flush"
    assert hand_class(rank(DEALER_AK432)) == ACE_KING
    assert hand_class(rank("Kh Ad 4c 3s 2s")) == ACE_KING
    assert hand_class(rank(DEALER_AQJT9)) == "high_card"


def test_the_joker_is_not_in_the_caribbean_stud_deck():
    with pytest.raises(HandError, match=r"Jk.*52-card"):
        rank("Jk Ah Kd 4c 3s")
    with pytest.raises(HandError, match="4 cards, not 5"):
        rank("Ah Kd 4c 3s")
    with pytest.raises(HandError, match="'Ah' twice"):
        rank("Ah Ah 4c 3s 2s")
    assert find_game(GAME).deck == DECK_52


# ---------------------------------------------------------------------------------------
# Caribbean stud rule 9.1: the dealer qualifies with ace and king or better
# ---------------------------------------------------------------------------------------


def test_9_1_dealer_qualifies_with_ace_king_four_three_two():
    assert dealer_qualifies(rank(DEALER_AK432), RULESET)
    assert dealer_qualifies(rank("Kh Ad 5c 3s 2s"), RULESET)
    assert dealer_qualifies(rank("2h 2d 3c 4s 5d"), RULESET)  # any pair
    assert dealer_qualifies(rank("As 2d 3h 4c 5s"), RULESET)  # any straight


def test_9_1_ace_queen_jack_ten_nine_does_not_qualify():
    assert not dealer_qualifies(rank(DEALER_AQJT9), RULESET)
    assert not dealer_qualifies(rank("Kh Qd Jc Ts 8s"), RULESET)
    assert not dealer_qualifies(rank("Ah 2d 3c 4s 6d"), RULESET)  # ace high, no king


def test_4_3_exactly_1_463_700_of_the_2_598_960_hands_qualify():
    """docs/rules.md 4.3: 2,598,960 - 1,302,540 high-card hands + 167,280 A-K-high hands
    = 1,463,700 qualify; 1,135,260 do not. Exhaustive, about 3 s: ranked as
    :func:`adjudicate` ranks the dealer's (validated) cards, with the ruleset's wheel."""
    wheel = RULESET.wheel
    counts = Counter(dealer_qualifies(rank_high(five, wheel=wheel), RULESET)
                     for five in combinations(DECK_52, 5))
    assert counts[True] == 1_463_700
    assert counts[False] == 1_135_260


# ---------------------------------------------------------------------------------------
# Caribbean stud rules 9.2 to 9.4: settlement of the ante and the raise
# ---------------------------------------------------------------------------------------


def test_9_2_9_3_1_dealer_not_qualified_pays_ante_even_money_and_voids_the_raise():
    result = judge_document(doc(
        DEALER_AQJT9,
        seat(1, "Jh Jd 6h 6s 3d", **{"ante": 1000, "raise": 2000}),
        seat(2, "Kh Qc 7d 5h 2c", ante=500, **{"raise": 1000}),  # worse than the dealer
    ))
    assert result["dealer"]["qualifies"] is False
    # ante 1000 paid 1:1 -> +1000; raise void -> 0
    assert wagers_of(result, 1) == {"ante": w("win", 1000), "raise": w("void", 0)}
    # the seat's hand does not matter: ante 500 -> +500
    assert wagers_of(result, 2) == {"ante": w("win", 500), "raise": w("void", 0)}


@pytest.mark.parametrize(("cards", "odds"), [
    ("Ts Js Qs Ks As", 100),  # royal flush 100 to 1
    ("9h Th Jh Qh Kh", 50),   # straight flush 50 to 1
    ("7c 7d 7h 7s 9c", 20),   # four of a kind 20 to 1
    ("8c 8d 8h 5c 5d", 7),    # full house 7 to 1
    ("2c 6c 9c Jc Kc", 5),    # flush 5 to 1
    ("5h 6d 7c 8s 9h", 4),    # straight 4 to 1
    ("As 2d 3h 4d 5c", 4),    # the wheel is still a straight: 4 to 1
    ("Qc Qd Qh 6s 2d", 3),    # three of a kind 3 to 1
    ("Jc Jd 6h 6s 3d", 2),    # two pair 2 to 1
    ("Tc Td 7h 5s 2c", 1),    # one pair 1 to 1
    ("Ac Kc 5d 3h 2h", 1),    # A-K (A-K-5 beats the dealer's A-K-4) 1 to 1
])
def test_9_4_1_1_higher_hand_wins_ante_even_money_and_raise_per_paytable(cards: str, odds: int):
    result = judge_document(doc(DEALER_AK432,
                                seat(4, cards, **{"ante": 1000, "raise": 2000})))
    assert result["dealer"]["qualifies"] is True
    # ante 1000 at 1:1 -> +1000; raise 2000 at odds to 1 -> +2000 x odds
    assert wagers_of(result, 4) == {"ante": w("win", 1000), "raise": w("win", 2000 * odds)}


def test_9_4_1_2_lower_hand_loses_ante_and_raise():
    result = judge_document(doc("Qh Qd 7c 4s 2s",
                                seat(1, "Ac Kc 5d 3h 2h", **{"ante": 1000, "raise": 2000}),
                                seat(2, "Qc Qs 6d 4h 3c", **{"ante": 500, "raise": 1000})))
    assert wagers_of(result, 1) == {"ante": w("loss", -1000), "raise": w("loss", -2000)}
    # pair of queens with 6 kicker loses to the dealer's queens with 7
    assert wagers_of(result, 2) == {"ante": w("loss", -500), "raise": w("loss", -1000)}


def test_9_4_1_3_equal_poker_value_is_a_stand_off_for_ante_and_raise():
    result = judge_document(doc("Ah Kd 9c 7s 3s",
                                seat(1, "Ac Ks 9d 7h 3c", **{"ante": 1000, "raise": 2000})))
    assert wagers_of(result, 1) == {"ante": w("push", 0), "raise": w("push", 0)}


def test_9_4_1_kicker_decides_between_equal_pairs():
    dealer = "Kh Kd Ac Qs 8s"
    result = judge_document(doc(dealer,
                                seat(1, "Kc Ks Ad Qh 9c", **{"ante": 1000, "raise": 2000}),
                                seat(2, "7c 7d Ah Qd Jc", **{"ante": 1000, "raise": 2000})))
    # seat 1: kings A-Q-9 over kings A-Q-8: pair pays 1 to 1 -> raise +2000
    assert wagers_of(result, 1) == {"ante": w("win", 1000), "raise": w("win", 2000)}
    assert wagers_of(result, 2) == {"ante": w("loss", -1000), "raise": w("loss", -2000)}


def test_6a_17_raise_not_twice_the_ante_is_settled_on_the_amount_recorded():
    # flush pays 5 to 1 on the recorded raise 1500 -> +7500 (not 5 x 2000)
    cs_round = CaribbeanRound(
        round_id="r-odd-raise", dealer_cards=parse_cards(DEALER_AK432),
        seats=(Seat(seat=2, cards=parse_cards("2c 6c 9c Jc Kc"), ante_cents=1000,
                    raise_cents=1500),))
    result = adjudicate(cs_round, RULESET)
    assert result.seats[0].wagers["raise"].net_cents == 7500
    assert result.seats[0].wagers["ante"].net_cents == 1000
    assert len(result.irregularities) == 1
    assert "seat 2 raised 1500 on an ante of 1000" in result.irregularities[0]
    regular = CaribbeanRound(
        round_id="r-raise", dealer_cards=parse_cards(DEALER_AK432),
        seats=(Seat(seat=2, cards=parse_cards("2c 6c 9c Jc Kc"), ante_cents=1000,
                    raise_cents=2000, progressive_cents=100),), progressive_meter_cents=0)
    assert adjudicate(regular, RULESET).irregularities == ()


# ---------------------------------------------------------------------------------------
# Fold and concede (docs/rules.md 4.2, 6a.17; Caribbean stud rules 9.3.1, 9.7)
# ---------------------------------------------------------------------------------------


def test_6a_17_fold_loses_the_ante_and_keeps_its_progressive():
    result = judge_document(doc(
        DEALER_AK432,
        seat(3, "2c 6c 9c Jc Qc", action="fold", ante=1000, progressive=100),
        meter=5_000_000,
    ))
    # ante -1000; no raise; the flush still wins the progressive's fixed $50 = 5000
    assert wagers_of(result, 3) == {"ante": w("loss", -1000), "progressive": w("win", 5000)}


def test_9_3_1_a_folded_seat_is_not_paid_its_ante_when_the_dealer_does_not_qualify():
    result = judge_document(doc(DEALER_AQJT9,
                                seat(3, "Kc Qh 8d 5s 2c", action="fold", ante=1000)))
    assert wagers_of(result, 3) == {"ante": w("loss", -1000)}


def test_9_7_concede_loses_ante_raise_and_progressive():
    result = judge_document(doc(
        DEALER_AQJT9,  # not qualified: a conceded hand still loses everything
        seat(5, "8c 8d 8h 5c 5d", action="concede",
             **{"ante": 1000, "raise": 2000, "progressive": 100}),
        meter=1_000_000,
    ))
    assert wagers_of(result, 5) == {"ante": w("loss", -1000), "raise": w("loss", -2000),
                                    "progressive": w("loss", -100)}


def test_9_7_a_conceded_royal_does_not_share_the_meter():
    result = judge_document(doc(
        "Qh Qd 7c 4s 2s",
        seat(1, "Ts Js Qs Ks As", **{"ante": 1000, "raise": 2000, "progressive": 100}),
        seat(2, "Tc Jc Qc Kc Ac", action="concede",
             **{"ante": 1000, "raise": 2000, "progressive": 100}),
        meter=2_000_001,
    ))
    # seat 1 the only royal still in play: 100% of 2,000,001 = 2,000,001
    assert wagers_of(result, 1)["progressive"] == w("win", 2_000_001)
    assert wagers_of(result, 2)["progressive"] == w("loss", -100)


# ---------------------------------------------------------------------------------------
# Progressive (docs/rules.md 4.2, 6, 6a.12, 6a.13)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("cards", "award"), [
    ("Ts Js Qs Ks As", w("win", 2_500_005)),  # royal: 100% of the 2,500,005 meter
    # straight flush: 10% of 2,500,005 = 250,000.5 -> 250,000, lawful up to 250,001 (6a.19)
    ("9h Th Jh Qh Kh", meter_win(250_000, 250_001)),
    ("7c 7d 7h 7s 9c", w("win", 50_000)),     # four of a kind: $500
    ("8c 8d 8h 5c 5d", w("win", 10_000)),     # full house: $100
    ("2c 6c 9c Jc Kc", w("win", 5_000)),      # flush: $50
])
def test_6_progressive_award_per_posted_line(cards: str, award: dict[str, Any]):
    result = judge_document(doc(DEALER_AK432,
                                seat(1, cards, **{"ante": 1000, "raise": 2000,
                                                  "progressive": 100}),
                                meter=2_500_005))
    # the wager is not collected when it wins: net is the award (6a.12)
    assert wagers_of(result, 1)["progressive"] == award


@pytest.mark.parametrize("cards", ["5h 6d 7c 8s 9h", "Qc Qd Qh 6s 2d", "Ac Kc 5d 3h 2h"])
def test_6_progressive_below_a_flush_loses_its_amount(cards: str):
    result = judge_document(doc(DEALER_AK432,
                                seat(1, cards, **{"ante": 1000, "raise": 2000,
                                                  "progressive": 100}),
                                meter=2_500_000))
    assert wagers_of(result, 1)["progressive"] == w("loss", -100)


def test_4_2_progressive_is_paid_on_the_own_hand_whatever_the_dealer_holds():
    result = judge_document(doc("3h 3d 3c 9s 9d",  # dealer full house beats the flush
                                seat(1, "2c 6c 9c Jc Kc", **{"ante": 1000, "raise": 2000,
                                                             "progressive": 100}),
                                meter=1_000_000))
    assert wagers_of(result, 1) == {"ante": w("loss", -1000), "raise": w("loss", -2000),
                                    "progressive": w("win", 5000)}


def test_6a_12_progressive_award_does_not_scale_with_the_wager():
    cs_round = CaribbeanRound(
        round_id="r-big-prog", dealer_cards=parse_cards(DEALER_AK432),
        seats=(Seat(seat=1, cards=parse_cards("8c 8d 8h 5c 5d"), ante_cents=1000,
                    raise_cents=2000, progressive_cents=500),),
        progressive_meter_cents=1_000_000)
    result = adjudicate(cs_round, RULESET)
    assert result.seats[0].wagers["progressive"].net_cents == 10_000  # $100, not 5 x $100
    assert result.irregularities == (
        "seat 1 progressive wager 500 is not the posted 100; its award does not scale "
        "(docs/rules.md 6a.12)",
    )


def test_6a_13_two_royals_share_the_meter_odd_cent_rounded_down():
    result = judge_document(doc(
        "Qh Qd 7c 4s 2s",
        seat(1, "Ts Js Qs Ks As", **{"ante": 1000, "raise": 2000, "progressive": 100}),
        seat(2, "Tc Jc Qc Kc Ac", action="fold", ante=1000, progressive=100),
        meter=2_500_001,
    ))
    # 100% of 2,500,001 shared by two royals: 1,250,000.5 each -> 1,250,000; the odd cent
    # to either is lawful (6a.19): up to 1,250,001
    assert wagers_of(result, 1)["progressive"] == meter_win(1_250_000, 1_250_001)
    assert wagers_of(result, 2)["progressive"] == meter_win(1_250_000, 1_250_001)
    # the royal also beats the dealer's queens: raise 100 to 1 on 2000 = 200,000
    assert wagers_of(result, 1)["raise"] == w("win", 200_000)


def test_6a_13_three_straight_flushes_share_their_ten_percent():
    result = judge_document(doc(
        "As Ks Qs Js 9s",
        seat(1, "2c 3c 4c 5c 6c", action="fold", ante=500, progressive=100),
        seat(2, "5h 6h 7h 8h 9h", action="fold", ante=500, progressive=100),
        seat(3, "5d 6d 7d 8d 9d", action="fold", ante=500, progressive=100),
        seat(4, "Ac Ad Ah 2s 3s", action="fold", ante=500, progressive=100),
        meter=1_000_003,
    ))
    # 10% of 1,000,003 = 100,000.3 -> 100,000; shared by 3 -> 33,333.33 -> 33,333 each;
    # lawful up to 100,001 shared and rounded up: 33,334 (6a.19)
    for number in (1, 2, 3):
        assert wagers_of(result, number)["progressive"] == meter_win(33_333, 33_334)
    assert wagers_of(result, 4)["progressive"] == w("loss", -100)


def test_6a_13_fixed_awards_are_not_shared():
    result = judge_document(doc(
        DEALER_AQJT9,
        seat(1, "2c 6c 9c 8c Kc", action="fold", ante=500, progressive=100),
        seat(2, "3h 7h 8h Th Kh", action="fold", ante=500, progressive=100),
        meter=1_000_000,
    ))
    assert wagers_of(result, 1)["progressive"] == w("win", 5000)
    assert wagers_of(result, 2)["progressive"] == w("win", 5000)


# ---------------------------------------------------------------------------------------
# The result form of `python -m replay adjudicate` and bad documents
# ---------------------------------------------------------------------------------------


def test_result_has_exactly_the_issue_form_and_key_order():
    result = judge_document(doc(
        DEALER_AK432,
        seat(1, "Tc Td 7h 5s 2c", **{"progressive": 100, "raise": 2000, "ante": 1000}),
        seat(2, "Kc Qh 8d 5d 3c", action="fold", ante=500, **{"raise": 0}),
        meter=1_000_000,
    ))
    assert result == {
        "round_id": "r-cs", "ruleset": "caribbean_stud-standard-v1", "evaluated": True,
        "dealer": {"foul": False, "house_way": None, "ace_high_pai_gow": False,
                   "qualifies": True, "net": 0},
        "seats": [
            {"seat": 1, "foul": False,
             "wagers": {"ante": w("win", 1000), "raise": w("win", 2000),
                        "progressive": w("loss", -100)},
             "envy": 0},
            {"seat": 2, "foul": False, "wagers": {"ante": w("loss", -500)}, "envy": 0},
        ],
    }
    assert list(result) == ["round_id", "ruleset", "evaluated", "dealer", "seats"]
    assert list(result["dealer"]) == ["foul", "house_way", "ace_high_pai_gow", "qualifies",
                                      "net"]
    assert list(result["seats"][0]) == ["seat", "foul", "wagers", "envy"]
    # wagers in ante, raise, progressive order whatever the document's order (6a.18)
    assert list(result["seats"][0]["wagers"]) == ["ante", "raise", "progressive"]


@pytest.mark.parametrize(("document", "message"), [
    (doc(DEALER_AK432, seat(1, "Jk Ac Kc 5d 3h", ante=1000, **{"raise": 2000})),
     r"seat 1 holds 'Jk', which is not in the 52-card"),
    (doc("Jk Kd 4c 3s 2s", seat(1, "Ac Kc 5d 3h 2h", ante=1000, **{"raise": 2000})),
     r"dealer holds 'Jk'"),
    (doc(DEALER_AK432, seat(1, "Ac Kc 5d 3h 1h", ante=1000, **{"raise": 2000})),
     r"seat 1 cards\[4\]: bad card token '1h'"),
    (doc(DEALER_AK432, seat(1, "Ac Kc 5d 3h", ante=1000, **{"raise": 2000})),
     r"seat 1 holds 4 cards, not 5"),
    (doc(DEALER_AK432, seat(1, "Ac Kc 5d 3h 3h", ante=1000, **{"raise": 2000})),
     r"seat 1 holds '3h' twice"),
    (doc(DEALER_AK432, seat(1, "Ac Kc 5d 3h 2s", ante=1000, **{"raise": 2000})),
     r"card 2s was dealt 2 times \(dealer, seat 1\)"),
    (doc(DEALER_AK432, seat(2, "Ac Kc 5d 3h 2h", action="fold", ante=1000,
                            **{"raise": 2000})),
     r"seat 2 folded but has a raise of 2000"),
    (doc(DEALER_AK432, seat(2, "Ac Kc 5d 3h 2h", ante=1000)),
     r"seat 2 neither folded nor raised"),
    (doc(DEALER_AK432, seat(2, "Ac Kc 5d 3h 2h", action="withdraw", ante=1000)),
     r"seat 2 action must be 'fold', 'concede', or absent.*'withdraw'"),
    (doc(DEALER_AK432, seat(2, "Ac Kc 5d 3h 2h", progressive=100)),
     r"seat 2 has no ante"),
    (doc(DEALER_AK432, seat(2, "Ac Kc 5d 3h 2h", ante=1000, main=1000)),
     r"seat 2 wagers has unknown wagers \['main'\]"),
    (doc(DEALER_AK432, seat(2, "Ac Kc 5d 3h 2h", ante=1000, progressive=100,
                            **{"raise": 2000})),
     r"seat 2 made a progressive wager of 100 but the round has no progressive_meter"),
    (doc(DEALER_AK432, seat(2, "Ac Kc 5d 3h 2h", ante=1000, **{"raise": 2000}),
         meter=-5),
     r"progressive_meter must be non-negative integer cents, got -5"),
    (doc(DEALER_AK432, seat(2, "Ac Kc 5d 3h 2h", ante=10.5, **{"raise": 2000})),
     r"seat 2 wagers.ante must be non-negative integer cents, got 10.5"),
    (doc(DEALER_AK432, seat(1, "Ac Kc 5d 3h 2h", ante=1000, **{"raise": 2000}),
         seat(1, "Qc Qd 5h 3d 2d", ante=1000, **{"raise": 2000})),
     r"seat 1 appears more than once"),
    (doc(DEALER_AK432, seat(1, "Ac Kc 5d 3h 2h", ante=1000, **{"raise": 2000}),
         banker={"seat": 1, "co_bank": False}),
     r"Caribbean stud is banked by the dealer only"),
])
def test_malformed_documents_are_refused_naming_seat_and_value(document: dict[str, Any],
                                                               message: str):
    with pytest.raises(DocumentError, match=message):
        judge_document(document)


def test_pai_gow_fields_are_refused_with_the_reason():
    bad = doc(DEALER_AK432, seat(1, "Ac Kc 5d 3h 2h", ante=1000, **{"raise": 2000}))
    bad["seats"][0]["high"] = ["Ac", "Kc", "5d"]
    with pytest.raises(DocumentError, match="seat 1 has 'high': Caribbean stud hands are not"):
        judge_document(bad)
    bad = doc(DEALER_AK432)
    bad["dealer"]["low"] = ["Ah", "Kd"]
    with pytest.raises(DocumentError, match="dealer has 'low'"):
        judge_document(bad)
    bad = doc(DEALER_AK432)
    bad["dealer"]["wager"] = 2500
    with pytest.raises(DocumentError, match="dealer wager 2500: the dealer makes no wager"):
        judge_document(bad)


def test_raise_and_play_actions_read_as_a_seat_that_raised():
    for action in ("raise", "play"):
        result = judge_document(doc(DEALER_AK432, seat(1, "Ac Kc 5d 3h 2h", action=action,
                                                       ante=1000, **{"raise": 2000})))
        assert wagers_of(result, 1) == {"ante": w("win", 1000), "raise": w("win", 2000)}


def test_concede_without_a_raise_loses_the_ante_only():
    cs = Seat(seat=1, cards=parse_cards("Ac Kc 5d 3h 2h"), action=Action.CONCEDE,
              ante_cents=1000)
    result = adjudicate(CaribbeanRound(round_id="r", dealer_cards=parse_cards(DEALER_AK432),
                                       seats=(cs,)), RULESET)
    assert list(result.seats[0].wagers) == ["ante"]
    assert result.seats[0].wagers["ante"].outcome is Outcome.LOSS
    assert result.seats[0].wagers["ante"].net_cents == -1000


def test_dataclasses_name_the_bad_value():
    with pytest.raises(RoundError, match="seat number is an integer from 1, got 0"):
        Seat(seat=0, cards=parse_cards("Ac Kc 5d 3h 2h"), ante_cents=1000, raise_cents=2000)
    with pytest.raises(RoundError, match="seat 1 action must be one of"):
        Seat(seat=1, cards=parse_cards("Ac Kc 5d 3h 2h"), action="bet",  # type: ignore[arg-type]
             ante_cents=1000, raise_cents=2000)


def test_cli_judges_the_good_rounds_and_names_the_bad_one(tmp_path, capsys):
    good = doc(DEALER_AQJT9, seat(1, "Ac Kc 5d 3h 2h", ante=1000, **{"raise": 2000}))
    bad = doc(DEALER_AK432, seat(1, "Jk Kc 5d 3h 2h", ante=1000, **{"raise": 2000}))
    bad["round_id"] = "r-bad"
    path = tmp_path / "rounds.jsonl"
    path.write_text(json.dumps(bad) + "\n" + json.dumps(good) + "\n", encoding="utf-8")
    assert replay_main(["adjudicate", str(path)]) == 2
    out, err = capsys.readouterr()
    (line,) = out.splitlines()
    assert json.loads(line)["seats"][0]["wagers"]["raise"] == w("void", 0)
    assert "round r-bad" in err and "'Jk'" in err


# ---------------------------------------------------------------------------------------
# A second, deliberately simple evaluator, and properties
# ---------------------------------------------------------------------------------------

_SIMPLE_CATEGORIES = ("high_card", "one_pair", "two_pair", "three_of_a_kind", "straight",
                      "flush", "full_house", "four_of_a_kind", "straight_flush",
                      "royal_flush")


def simple_rank(cards: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    """(category index, tiebreak ranks) by the textbook rules, the wheel lowest."""
    values = sorted((int(c.rank) for c in cards), reverse=True)
    counts = Counter(values)
    flush = len({c.suit for c in cards}) == 1
    straight_high = None
    if len(counts) == 5:
        if values[0] - values[4] == 4:
            straight_high = values[0]
        elif values == [14, 5, 4, 3, 2]:
            straight_high = 5
    by_count = sorted(counts, key=lambda v: (counts[v], v), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if straight_high is not None and flush:
        return (9 if straight_high == 14 else 8), (straight_high,)
    if shape[0] == 4:
        return 7, tuple(by_count)
    if shape == [3, 2]:
        return 6, tuple(by_count)
    if flush:
        return 5, tuple(values)
    if straight_high is not None:
        return 4, (straight_high,)
    if shape[0] == 3:
        return 3, tuple(by_count)
    if shape == [2, 2, 1]:
        return 2, tuple(by_count)
    if shape[0] == 2:
        return 1, tuple(by_count)
    return 0, tuple(values)


def simple_qualifies(cards: Sequence[Card]) -> bool:
    category, ranks = simple_rank(cards)
    return category > 0 or ranks[:2] == (14, 13)


ten_cards = st.lists(st.sampled_from(DECK_52), min_size=10, max_size=10, unique=True)


@settings(max_examples=3000, deadline=None)
@given(ten_cards)
def test_fast_rank_agrees_with_the_simple_evaluator(cards: list[Card]):
    a, b = cards[:5], cards[5:]
    ra, rb = rank_hand(a), rank_hand(b)
    sa, sb = simple_rank(a), simple_rank(b)
    assert ra.category.value == _SIMPLE_CATEGORIES[sa[0]]
    assert (ra > rb) == (sa > sb) and (ra == rb) == (sa == sb)
    assert dealer_qualifies(ra, RULESET) == simple_qualifies(a)


@settings(max_examples=500, deadline=None)
@given(ten_cards, st.integers(1, 500).map(lambda n: n * 100))
def test_swapping_the_seat_and_dealer_hands_turns_a_win_into_a_loss(cards: list[Card],
                                                                    ante: int):
    """When both hands qualify, a seat that raised wins against the dealer's hand exactly
    when it would lose holding the dealer's hand against its own; stand offs stay."""
    seat_cards, dealer_cards = tuple(cards[:5]), tuple(cards[5:])
    if not (simple_qualifies(seat_cards) and simple_qualifies(dealer_cards)):
        return

    def outcome(mine: tuple[Card, ...], dealer: tuple[Card, ...]) -> Outcome:
        played = CaribbeanRound(round_id="r", dealer_cards=dealer, seats=(
            Seat(seat=1, cards=mine, ante_cents=ante, raise_cents=2 * ante),))
        wagers = adjudicate(played, RULESET).seats[0].wagers
        assert wagers["ante"].outcome is wagers["raise"].outcome
        return wagers["ante"].outcome

    swap = {Outcome.WIN: Outcome.LOSS, Outcome.LOSS: Outcome.WIN, Outcome.PUSH: Outcome.PUSH}
    assert outcome(dealer_cards, seat_cards) is swap[outcome(seat_cards, dealer_cards)]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(DECK_52), min_size=20, max_size=20, unique=True),
       st.lists(st.sampled_from(["raise", "fold", "concede"]), min_size=3, max_size=3))
def test_settlement_bounds_hold_for_any_round(cards: list[Card], actions: list[str]):
    """Ante nets are +ante, 0 or -ante; a raise is void exactly when the dealer does not
    qualify and the seat stayed in; a folded seat has no raise; the progressive never wins
    below a flush."""
    seats = tuple(
        Seat(seat=i + 1, cards=tuple(cards[5 * i + 5: 5 * i + 10]), action=Action(a),
             ante_cents=1000, raise_cents=0 if a == "fold" else 2000, progressive_cents=100)
        for i, a in enumerate(actions))
    played = CaribbeanRound(round_id="r", dealer_cards=tuple(cards[:5]), seats=seats,
                            progressive_meter_cents=1_000_000)
    result = adjudicate(played, RULESET)
    qualifies = simple_qualifies(cards[:5])
    assert result.dealer_qualifies == qualifies
    for s, r in zip(seats, result.seats, strict=True):
        assert r.wagers["ante"].net_cents in (1000, 0, -1000)
        assert ("raise" in r.wagers) == (s.action is not Action.FOLD)
        if s.action is Action.RAISE:
            assert (r.wagers["raise"].outcome is Outcome.VOID) == (not qualifies)
        category = simple_rank(s.cards)[0]
        won = r.wagers["progressive"].outcome is Outcome.WIN
        assert won == (category >= 5 and s.action is not Action.CONCEDE)


# ---------------------------------------------------------------------------------------
# Everything the judgement reads comes from the ruleset
# ---------------------------------------------------------------------------------------

SHIPPED = Path(__file__).resolve().parent.parent / "replay" / "rulesets"


def variant(**changes: Any) -> Ruleset:
    """The shipped ruleset's data with top-level keys or options replaced."""
    data = json.loads((SHIPPED / f"{RULESET.id}.json").read_text(encoding="utf-8"))
    data["id"] = "caribbean_stud-variant-v1"
    for key, value in changes.items():
        if key in ("paytables", "commission"):
            data[key] = value
        else:
            data["options"][key] = value
    return ruleset_from_dict(data)


def test_the_shipped_ruleset_posts_the_rules_6_defaults():
    raise_table = {k: v.odds for k, v in RULESET.paytable("raise").items()}
    assert raise_table == {"royal_flush": (100, 1), "straight_flush": (50, 1),
                           "four_of_a_kind": (20, 1), "full_house": (7, 1), "flush": (5, 1),
                           "straight": (4, 1), "three_of_a_kind": (3, 1), "two_pair": (2, 1),
                           "one_pair": (1, 1), "ace_king": (1, 1)}
    progressive = RULESET.paytable("progressive")
    assert progressive["royal_flush"].meter_bps == 10_000  # 100% of the meter
    assert progressive["straight_flush"].meter_bps == 1_000  # 10%
    assert [progressive[k].fixed_cents for k in ("four_of_a_kind", "full_house", "flush")] \
        == [50_000, 10_000, 5_000]  # $500, $100, $50
    assert RULESET.wheel is Wheel.LOWEST
    assert RULESET.commission.rate_bps == 0


def test_9_1_the_qualifying_hand_is_ruleset_data():
    pair_of_twos = variant(dealer_qualifying_hand="2-2-5-4-3")
    assert dealer_qualifies(rank("2c 2d 5h 4s 3c"), pair_of_twos)
    assert not dealer_qualifies(rank("Ac Kd Qh Js 9c"), pair_of_twos)
    for bad in ("A-K-4-3", "A-K-4-3-1", "A-A-A-A-A", 5):
        with pytest.raises(RulesetError, match="dealer_qualifying_hand"):
            dealer_qualifies(rank(DEALER_AK432), variant(dealer_qualifying_hand=bad))


def test_6a_4_the_wheel_is_ruleset_data():
    document = doc("2s 3d 4h 5c 6s",
                   seat(1, "Ac 2d 3h 4c 5h", **{"ante": 1000, "raise": 2000}))
    round_ = round_from_document(document)
    lowest = adjudicate(round_, RULESET).seats[0].wagers["raise"]
    assert lowest.outcome is Outcome.LOSS
    second = adjudicate(round_, variant(wheel="second_highest")).seats[0].wagers["raise"]
    assert (second.outcome, second.net_cents) == (Outcome.WIN, 8000)  # straight 4 to 1


def test_the_ruleset_commission_policy_applies_to_winning_antes_and_raises():
    five_percent = variant(commission={"rate_bps": 500, "rounding": "down"})
    played = round_from_document(doc(DEALER_AK432, seat(1, "Tc Td 7h 5s 2c",
                                                        **{"ante": 1010, "raise": 2020})))
    wagers = adjudicate(played, five_percent).seats[0].wagers
    # ante 1010 -> 5% = 50.5 -> 50; raise 1 to 1 on 2020 -> 5% = 101
    assert (wagers["ante"].net_cents, wagers["ante"].commission_cents) == (960, 50)
    assert (wagers["raise"].net_cents, wagers["raise"].commission_cents) == (1919, 101)


def test_6a_19_a_commission_range_the_ruleset_states_is_carried_to_the_result():
    ranged = variant(commission={"rate_bps": 500, "rounding": "up_to_unit", "unit_cents": 25,
                                 "lawful": {"lowest": {"rounding": "down"}}})
    played = round_from_document(doc(DEALER_AK432, seat(1, "Tc Td 7h 5s 2c",
                                                        **{"ante": 1010, "raise": 2020})))
    wagers = adjudicate(played, ranged).seats[0].wagers
    # ante 1010: 5% = 50.5, collected up to 25s = 75, lawful from 50 (down to the cent);
    # raise 2020: 101, collected 125, lawful from 101
    assert (wagers["ante"].commission_cents, wagers["ante"].commission_range) == (75, (50, 75))
    assert (wagers["raise"].commission_cents, wagers["raise"].commission_range) == (
        125, (101, 125))


def test_a_missing_raise_line_is_a_ruleset_error_naming_it():
    table = {k: v for k, v in json.loads(
        (SHIPPED / f"{RULESET.id}.json").read_text(encoding="utf-8"))["paytables"].items()}
    del table["raise"]["ace_king"]
    thin = variant(paytables=table)
    played = round_from_document(doc(DEALER_AK432, seat(1, "Ac Kc 5d 3h 2h",
                                                        **{"ante": 1000, "raise": 2000})))
    with pytest.raises(RulesetError, match="paytable raise has no line for 'ace_king'"):
        adjudicate(played, thin)


def test_the_game_names_its_hands_from_their_tokens() -> None:
    """GameRules.describe_hand: a five-card hand of the 52-card deck in words; None for
    anything else (the joker included)."""
    describe = find_game("caribbean_stud").describe_hand
    assert describe is not None
    assert describe(["As", "2d", "3h", "4c", "5s"]) == "straight, A-2-3-4-5 (wheel)"
    assert describe(["Jk", "2d", "3h", "4c", "5s"]) is None
    assert describe(["As", "Ks"]) is None
