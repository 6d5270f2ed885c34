"""Classic pai gow poker rules (docs/rules.md 1, 5, 6, 6a; 58 Pa. Code § 688a.7(f); pai gow
poker procedure and settlement). Rule tests are named after the clause they test.

Oracles are independent of the code under test: the docs/rules.md 5 census figures, counts
derived by hand, and a deliberately simple brute-force evaluator written here.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.cards import DECK_52, DECK_53, JOKER, Card, parse_cards
from replay.document import DocumentError
from replay.errors import HandError, MoneyError
from replay.games.pai_gow_poker import (
    GAME,
    HOUSE_WAY_REFERENCE_1_3,
    Evaluation,
    HandCategory,
    HighRank,
    Outcome,
    adjudicate,
    compare,
    house_way,
    house_way_setting,
    is_foul,
    judge_document,
    rank_high,
    rank_low,
    settle_main,
    splits,
)
from replay.notation import PaiGowRound, parse_round
from replay.rulesets import Commission, CommissionRounding, Ruleset, Wheel, load_ruleset
from tests.conftest import REPO

CLASSIC = load_ruleset("pai_gow_poker-classic-v1")


def c(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def high(text: str, wheel: Wheel = Wheel.SECOND_HIGHEST) -> HighRank:
    return rank_high(c(text), wheel=wheel)


# ---------------------------------------------------------------------------------------
# A deliberately simple evaluator, for cross-checking (not the code under test)
# ---------------------------------------------------------------------------------------

ORDER = ["high_card", "one_pair", "two_pair", "three_of_a_kind", "straight", "flush",
         "full_house", "four_of_a_kind", "straight_flush", "royal_flush", "five_aces"]
RANK_VALUE = {ch: v for v, ch in enumerate("23456789TJQKA", start=2)}


def simple_natural(ranks: list[int], suits: list[str], wheel_second: bool) -> tuple:
    """Rank five cards given as rank values and suit letters, by the textbook definitions.
    Returns (category index in ORDER, tiebreak tuple); bigger is better."""
    counts = Counter(ranks)
    distinct = sorted(counts, reverse=True)
    flush = len(set(suits)) == 1 and len(distinct) == 5
    top = None
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        top = float(distinct[0])
    if distinct == [14, 5, 4, 3, 2]:
        top = 13.5 if wheel_second else 4.5
    by_count = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [n for _, n in by_count]
    tiebreak = tuple(r for r, _ in by_count)
    if shape == [5]:
        return (ORDER.index("five_aces"), ())
    if top is not None and flush:
        return (ORDER.index("royal_flush" if top == 14 else "straight_flush"), (top,))
    if shape == [4, 1]:
        return (ORDER.index("four_of_a_kind"), tiebreak)
    if shape == [3, 2]:
        return (ORDER.index("full_house"), tiebreak)
    if flush:
        return (ORDER.index("flush"), tiebreak)
    if top is not None:
        return (ORDER.index("straight"), (top,))
    if shape == [3, 1, 1]:
        return (ORDER.index("three_of_a_kind"), tiebreak)
    if shape == [2, 2, 1]:
        return (ORDER.index("two_pair"), tiebreak)
    if shape == [2, 1, 1, 1]:
        return (ORDER.index("one_pair"), tiebreak)
    return (ORDER.index("high_card"), tiebreak)


def simple_rank(cards: Sequence[Card], wheel_second: bool = True) -> tuple:
    """Best rank of five cards; the joker is tried as each of the 52 cards, and a try counts
    only when the card is an ace or the result is a straight, flush or straight flush
    (docs/rules.md 1.1, 6a.3). A try that duplicates a held card can only count as an ace,
    since it can never make five distinct ranks."""
    natural = [str(card) for card in cards if not card.is_joker]
    tries = [natural] if len(natural) == 5 else [[*natural, str(sub)] for sub in DECK_52]
    best = None
    for tokens in tries:
        result = simple_natural([RANK_VALUE[t[0]] for t in tokens], [t[1] for t in tokens],
                                wheel_second)
        legal = len(tries) == 1 or tokens[-1][0] == "A" or ORDER[result[0]] in (
            "straight", "flush", "straight_flush", "royal_flush")
        if legal and (best is None or result > best):
            best = result
    assert best is not None
    return best


def _memo_key(cards: Sequence[Card]) -> tuple:
    """Everything a 5-card rank depends on: the ranks, and whether the natural cards share a
    suit. Used only to avoid re-running the slow evaluator on equivalent hands."""
    natural = [card for card in cards if not card.is_joker]
    return (tuple(sorted(card.rank for card in natural)), len(natural),
            len({card.suit for card in natural}) == 1)


def cross_check(hands: Iterable[Sequence[Card]], wheel: Wheel) -> Counter[str]:
    """Rank every hand with both evaluators; they must agree on the category and order the
    hands the same way (one fast key per simple key and vice versa, in the same order)."""
    memo: dict[tuple, tuple] = {}
    fast_of: dict[tuple, int] = {}
    simple_of: dict[int, tuple] = {}
    census: Counter[str] = Counter()
    for hand in hands:
        fast = rank_high(hand, wheel=wheel)
        key = _memo_key(hand)
        simple = memo.get(key)
        if simple is None:
            simple = memo[key] = simple_rank(hand, wheel is Wheel.SECOND_HIGHEST)
        assert fast.category.value == ORDER[simple[0]], (hand, fast, simple)
        assert fast_of.setdefault(simple, fast.key) == fast.key, (hand, fast, simple)
        assert simple_of.setdefault(fast.key, simple) == simple, (hand, fast, simple)
        census[fast.category.value] += 1
    ordered = sorted(fast_of.items())
    assert [k for _, k in ordered] == sorted(k for _, k in ordered)
    return census


# ---------------------------------------------------------------------------------------
# Exhaustive census (docs/rules.md 5) and joker hands
# ---------------------------------------------------------------------------------------

RULES_5_COUNTS = {
    "royal_flush": 4, "straight_flush": 36, "four_of_a_kind": 624, "full_house": 3_744,
    "flush": 5_108, "straight": 10_200, "three_of_a_kind": 54_912, "two_pair": 123_552,
    "one_pair": 1_098_240, "high_card": 1_302_540,
}


@pytest.mark.parametrize("wheel", list(Wheel))
def test_rules_5_census_of_all_2598960_hands(wheel: Wheel) -> None:
    census = Counter(rank_high(hand, wheel=wheel).category.value
                     for hand in combinations(DECK_52, 5))
    assert sum(census.values()) == 2_598_960
    assert dict(census) == RULES_5_COUNTS


def test_fast_and_simple_evaluators_agree_on_every_natural_hand() -> None:
    census = cross_check(combinations(DECK_52, 5), Wheel.SECOND_HIGHEST)
    assert dict(census) == RULES_5_COUNTS


@pytest.mark.parametrize("wheel", list(Wheel))
def test_fast_and_simple_evaluators_agree_on_every_joker_hand(wheel: Wheel) -> None:
    hands = [(*four, JOKER) for four in combinations(DECK_52, 4)]
    assert len(hands) == 270_725
    census = cross_check(hands, wheel)
    memo: dict[tuple, tuple] = {}
    simple_census: Counter[str] = Counter()
    for hand in hands:
        key = _memo_key(hand)
        if key not in memo:
            memo[key] = simple_rank(hand, wheel is Wheel.SECOND_HIGHEST)
        simple_census[ORDER[memo[key][0]]] += 1
    assert census == simple_census
    # by hand: four aces and the joker is the only five-aces hand; a royal flush with the
    # joker leaves out one of its five cards: 4 suits x 5 = 20.
    assert census["five_aces"] == 1
    assert census["royal_flush"] == 20


# ---------------------------------------------------------------------------------------
# High hand ranks: joker (6a.3), wheel (6a.4), order, describe
# ---------------------------------------------------------------------------------------


def test_1_1_five_aces_is_the_top_hand_above_a_royal_flush() -> None:
    assert high("Jk As Ah Ad Ac").category is HandCategory.FIVE_ACES
    assert high("Jk As Ah Ad Ac") > high("As Ks Qs Js Ts")


def test_1_1_category_order() -> None:
    hands = ["2c 3d 4h 5s 7c", "2c 2d 4h 5s 7c", "2c 2d 4h 4s 7c", "2c 2d 2h 5s 7c",
             "2c 3d 4h 5s 6c", "2c 3c 4c 5c 7c", "2c 2d 2h 7s 7c", "2c 2d 2h 2s 7c",
             "2c 3c 4c 5c 6c", "Tc Jc Qc Kc Ac", "Jk Ac Ad Ah As"]
    ranks = [high(h) for h in hands]
    assert ranks == sorted(ranks)
    assert [r.category.strength for r in ranks] == list(range(11))
    assert [r.category for r in ranks] == list(reversed(HandCategory))


def test_6a_3_joker_is_an_ace_for_pairs_and_trips() -> None:
    assert high("Jk As Ad Kc 7d").describe() == "three aces, K-7 kickers"
    assert high("Jk Kd Kh 9c 9s").describe() == "two pair, kings and nines, ace kicker"
    assert high("Jk Kd Kh Ks 9s").describe() == "three kings, A-9 kickers"
    assert high("Jk Kd Kh Ks Kc").describe() == "four kings, ace kicker"
    assert high("Jk Kd 9h 7c 3s").describe() == "ace high, K-9-7-3"


def test_6a_3_joker_completes_a_straight_with_the_best_card() -> None:
    assert high("9c Td Jk Qs Kh").describe() == "straight, king high"
    assert high("9c Td Jh Qs Jk").describe() == "straight, king high"
    assert high("Jk Kd Qh Jc Tc").describe() == "straight, ace high"


def test_6a_3_joker_in_a_flush_is_the_highest_card_of_the_suit_not_held() -> None:
    assert high("Jk Kh 9h 5h 3h") == high("Ah Kh 9h 5h 3h")
    assert high("Jk Ah Kh 9h 5h").describe() == "flush, A-K-Q-9-5"
    assert high("Jk Ah Kh Qh 9h").describe() == "flush, A-K-Q-J-9"


def test_6a_3_joker_royal_and_straight_flushes() -> None:
    assert high("Jk Ks Qs Js Ts").category is HandCategory.ROYAL_FLUSH
    assert high("Jk As Qs Js Ts").category is HandCategory.ROYAL_FLUSH
    assert high("Jk 9h Th Jh Qh").describe() == "straight flush, king high"
    assert high("Jk 9h Th Jh Qh") < high("Ah Kh Qh Jh Th")


def test_6a_4_wheel_is_second_highest_straight_by_default() -> None:
    wheel = high("Ac 2d 3h 4s 5c")
    assert high("Tc Jd Qh Ks 9c") < wheel < high("Tc Jd Qh Ks Ac")
    assert wheel.describe() == "straight, A-2-3-4-5 (wheel)"
    sf_wheel = high("Ac 2c 3c 4c 5c")
    assert high("9c Tc Jc Qc Kc") < sf_wheel < high("Tc Jc Qc Kc Ac")
    assert sf_wheel.category is HandCategory.STRAIGHT_FLUSH


def test_6a_4_wheel_option_lowest() -> None:
    lowest = Wheel.LOWEST
    wheel = high("Ac 2d 3h 4s 5c", lowest)
    assert wheel < high("2c 3d 4h 5s 6c", lowest)
    assert high("Ac 2c 3c 4c 5c", lowest) < high("2d 3d 4d 5d 6d", lowest)
    assert wheel > high("Ac Kd Qh Js 9c", lowest)


def test_6a_4_joker_straight_follows_the_wheel_option() -> None:
    assert high("Jk 2s 3d 4s 5h").describe() == "straight, A-2-3-4-5 (wheel)"
    assert high("Jk 2s 3d 4s 5h", Wheel.LOWEST).describe() == "straight, six high"


def test_6a_4_suits_never_break_ties_equal_ranks_are_copies() -> None:
    assert high("Kh Kd As Qc 9d") == high("Ks Kc Ad Qh 9s")
    assert hash(high("Kh Kd As Qc 9d")) == hash(high("Ks Kc Ad Qh 9s"))
    assert high("Ah Kh 9h 5h 3h") == high("As Ks 9s 5s 3s")


def test_kickers_decide_within_a_category() -> None:
    assert high("Kh Kd As Qc 9d") > high("Kh Kd As Qc 8d")
    assert high("Kh Kd 2s 2c 9d") > high("Qh Qd Js Jc Ad")
    assert high("7h 7d 7s 2c 2d") > high("6h 6d 6s Ac Ad")


@pytest.mark.parametrize(
    ("hand", "text"),
    [
        ("Kh Kd As Qc 9d", "pair of kings, A-Q-9 kickers"),
        ("Kh Kd Ks 9c 9d", "full house, kings over nines"),
        ("Ah Kh 9h 5h 3h", "flush, A-K-9-5-3"),
        ("As Ks Qs Js Ts", "royal flush"),
        ("Jk As Ah Ad Ac", "five aces"),
        ("5d 6d 7d 8d 9d", "straight flush, nine high"),
        ("Ac 2d 3h 4s 5c", "straight, A-2-3-4-5 (wheel)"),
        ("Ah Kd 9h 5c 3h", "ace high, K-9-5-3"),
    ],
)
def test_describe(hand: str, text: str) -> None:
    assert high(hand).describe() == text


@pytest.mark.parametrize("bad", ["As Kd Qh Jc", "As Kd Qh Jc Tc 9s", "As As Qh Jc Tc"])
def test_rank_high_needs_five_different_cards(bad: str) -> None:
    with pytest.raises(HandError):
        rank_high(c(bad))


# ---------------------------------------------------------------------------------------
# Low hand (1.1)
# ---------------------------------------------------------------------------------------


def test_1_1_joker_in_the_low_hand_is_an_ace() -> None:
    assert rank_low(c("As Jk")) == rank_low(c("Ad Ah"))
    assert rank_low(c("As Jk")).describe() == "pair of aces"
    assert rank_low(c("Jk 4c")) == rank_low(c("Ad 4h"))
    assert rank_low(c("Jk 4c")).describe() == "A-4"


def test_1_1_low_hand_order() -> None:
    order = ["3c 2d", "Kc Qd", "Ac 2d", "Ac Kd", "2c 2d", "Kc Kd", "Ac Ad"]
    ranks = [rank_low(c(h)) for h in order]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    assert rank_low(c("Kd Ac")) == rank_low(c("As Kh"))


@pytest.mark.parametrize("bad", ["As", "As Kd Qh", "As As"])
def test_rank_low_needs_two_different_cards(bad: str) -> None:
    with pytest.raises(HandError):
        rank_low(c(bad))


# ---------------------------------------------------------------------------------------
# Foul (6a.5)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("high_hand", "low_hand", "foul"),
    [
        ("Kh Kd 7s 5c 3d", "Qs Qc", False),   # one pair at least the low pair
        ("Qh Qd 7s 5c 3d", "Qs Qc", False),   # equal is not a foul
        ("Jh Jd 7s 5c 3d", "Qs Qc", True),    # lower pair
        ("3h 3d 2s 2c 7d", "As Ac", False),   # two pair holds any low pair
        ("Ah Kd 7s 5c 3d", "2s 2c", True),    # no pair cannot hold a pair
        ("Ah Kd 7s 5c 3d", "As Kc", False),   # two highest cards equal: not a foul
        ("Ah Qd 7s 5c 3d", "As Kc", True),    # A-Q below A-K
        ("Kh Qd 7s 5c 3d", "As 2c", True),    # compared highest card first
        ("2h 2d 7s 5c 3d", "As Kc", False),   # a pair holds any non-pair
        ("Jk Kd 9s 5c 3d", "As Kc", False),   # the joker is an ace here: A-K equal
        ("Jk Kd 9s 5c 3d", "As Qc", False),
        ("Jk Kh 9h 5h 3h", "As Ac", False),   # joker makes a flush
        ("9c Td Jk Qs Kh", "As Ac", False),   # joker makes a straight
    ],
)
def test_6a_5_foul(high_hand: str, low_hand: str, foul: bool) -> None:
    assert is_foul(c(high_hand), c(low_hand)) is foul
    assert is_foul(rank_high(c(high_hand)), rank_low(c(low_hand))) is foul


# ---------------------------------------------------------------------------------------
# Compare: 58 Pa. Code § 688a.7(f), pai gow poker settlement (1)-(9), docs/rules.md 1.1
# ---------------------------------------------------------------------------------------

BANKER_HIGH = "Kh Kd 7s 5c 3d"   # pair of kings
BANKER_LOW = "Qs Jc"             # Q-J
HIGHER_HIGH = "Ah Ad 7h 5d 3c"   # pair of aces
LOWER_HIGH = "Qh Qd 7c 5h 3s"    # pair of queens
COPY_HIGH = "Ks Kc 7d 5s 3h"     # pair of kings, same kickers, other suits
HIGHER_LOW = "Ks Qh"
LOWER_LOW = "Js Tc"
COPY_LOW = "Qd Jh"


def outcome(player_high: str, player_low: str) -> Outcome:
    return compare(player_high=c(player_high), player_low=c(player_low),
                   banker_high=c(BANKER_HIGH), banker_low=c(BANKER_LOW))


def test_688a_7_f_3_both_hands_higher_wins() -> None:
    assert outcome(HIGHER_HIGH, HIGHER_LOW) is Outcome.WIN


def test_688a_7_f_1_i_both_hands_lower_loses() -> None:
    assert outcome(LOWER_HIGH, LOWER_LOW) is Outcome.LOSS


def test_688a_7_f_1_ii_copy_of_high_hand_goes_to_banker() -> None:
    assert outcome(COPY_HIGH, LOWER_LOW) is Outcome.LOSS


def test_688a_7_f_1_ii_copy_of_low_hand_goes_to_banker() -> None:
    assert outcome(LOWER_HIGH, COPY_LOW) is Outcome.LOSS


def test_688a_7_f_1_ii_two_copies_go_to_banker() -> None:
    assert outcome(COPY_HIGH, COPY_LOW) is Outcome.LOSS


def test_688a_7_f_2_i_higher_high_and_lower_low_is_a_push() -> None:
    assert outcome(HIGHER_HIGH, LOWER_LOW) is Outcome.PUSH


def test_688a_7_f_2_i_higher_high_and_copy_of_low_is_a_push() -> None:
    assert outcome(HIGHER_HIGH, COPY_LOW) is Outcome.PUSH


def test_688a_7_f_2_ii_lower_high_and_higher_low_is_a_push() -> None:
    assert outcome(LOWER_HIGH, HIGHER_LOW) is Outcome.PUSH


def test_688a_7_f_2_ii_copy_of_high_and_higher_low_is_a_push() -> None:
    assert outcome(COPY_HIGH, HIGHER_LOW) is Outcome.PUSH


def test_settlement_1_player_wins_when_both_hands_rank_higher() -> None:
    assert outcome(HIGHER_HIGH, HIGHER_LOW) is Outcome.WIN


def test_settlement_5_identical_hands_tie_and_the_banker_wins_ties() -> None:
    assert outcome(COPY_HIGH, COPY_LOW) is Outcome.LOSS


def test_settlement_6_player_loses_when_both_hands_rank_lower() -> None:
    assert outcome(LOWER_HIGH, LOWER_LOW) is Outcome.LOSS


@pytest.mark.parametrize(("player_high", "player_low"),
                         [(HIGHER_HIGH, LOWER_LOW), (LOWER_HIGH, HIGHER_LOW)])
def test_settlement_9_winning_either_hand_alone_pushes(
    player_high: str, player_low: str
) -> None:
    assert outcome(player_high, player_low) is Outcome.PUSH


def test_compare_takes_ranks_as_well_as_cards() -> None:
    assert compare(player_high=high(HIGHER_HIGH), player_low=rank_low(c(HIGHER_LOW)),
                   banker_high=high(BANKER_HIGH),
                   banker_low=rank_low(c(BANKER_LOW))) is Outcome.WIN


def test_6a_4_compare_follows_the_wheel_option() -> None:
    args = {"player_high": c("Ac 2d 3h 4s 5c"), "player_low": c("Kd Qd"),
            "banker_high": c("2c 3d 4h 5s 6c"), "banker_low": c("Jd Td")}
    assert compare(**args) is Outcome.WIN
    assert compare(**args, wheel=Wheel.LOWEST) is Outcome.PUSH


# ---------------------------------------------------------------------------------------
# Settlement (1.2, 6a.1)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "result", "net", "commission"),
    [
        (2500, Outcome.WIN, 2375, 125),
        (1010, Outcome.WIN, 960, 50),
        (1, Outcome.WIN, 1, 0),
        (2500, Outcome.LOSS, -2500, 0),
        (2500, Outcome.PUSH, 0, 0),
    ],
)
def test_1_2_win_pays_1_to_1_less_commission_none_on_loss_or_push(
    amount: int, result: Outcome, net: int, commission: int
) -> None:
    settlement = settle_main(amount_cents=amount, outcome=result, ruleset=CLASSIC)
    assert (settlement.outcome, settlement.net_cents, settlement.commission_cents) == (
        result, net, commission)


def test_commission_comes_from_the_ruleset() -> None:
    four_percent = Ruleset(
        id="pai_gow_poker-test-v1", game=GAME, title="test", effective_from="2024-01-01",
        effective_to=None,
        commission=Commission(rate_bps=400, rounding=CommissionRounding.DOWN),
    )
    settlement = settle_main(amount_cents=2500, outcome=Outcome.WIN, ruleset=four_percent)
    assert (settlement.net_cents, settlement.commission_cents) == (2400, 100)


@given(st.integers(min_value=0, max_value=10**12))
def test_a_win_conserves_money(amount: int) -> None:
    s = settle_main(amount_cents=amount, outcome=Outcome.WIN, ruleset=CLASSIC)
    assert s.net_cents + s.commission_cents == amount
    assert s.commission_cents * 100 <= amount * 5 < (s.commission_cents + 1) * 100


@pytest.mark.parametrize("amount", [25.0, -100, True])
def test_settle_main_refuses_non_cents(amount: object) -> None:
    with pytest.raises(MoneyError):
        settle_main(amount_cents=amount, outcome=Outcome.WIN, ruleset=CLASSIC)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# Splits and the house way (1.3 completed)
# ---------------------------------------------------------------------------------------


def test_splits_are_the_21_ways() -> None:
    cards = c("As Kd Qh 9c 7d 5s 3h")
    found = list(splits(cards))
    assert len(found) == 21
    assert len({frozenset(low) for _, low in found}) == 21
    for high_hand, low_hand in found:
        assert len(high_hand) == 5 and len(low_hand) == 2
        assert sorted(high_hand + low_hand) == sorted(cards)


@pytest.mark.parametrize("bad", ["As Kd Qh 9c 7d 5s", "As As Qh 9c 7d 5s 3h"])
def test_splits_need_seven_different_cards(bad: str) -> None:
    with pytest.raises(HandError):
        list(splits(c(bad)))


HOUSE_WAY_CASES = [
    # (rule, seven cards, expected 5-card hand, expected 2-card hand), each worked by hand
    ("no_pair", "As Kd Qh 9c 7d 5s 3h", "As 9c 7d 5s 3h", "Kd Qh"),
    ("one_pair", "9s 9d Kh 8c 6d 4h 3d", "9s 9d 6d 4h 3d", "Kh 8c"),
    ("two_pair_aces", "As Ad 4d 4c Kh 8h 6h", "As Ad Kh 8h 6h", "4d 4c"),
    ("two_pair_face_and_six_or_higher", "Ks Kd 6s 6h Ah 9h 2c", "Ks Kd Ah 9h 2c", "6s 6h"),
    ("two_pair_six_or_lower", "6s 6h 3d 3c Kh Ts 2d", "6s 6h 3d 3c 2d", "Kh Ts"),
    ("two_pair_with_ace", "Ts Th 4d 4c Ah 8s 2d", "Ts Th 4d 4c 2d", "Ah 8s"),
    ("two_pair_with_ace", "9s 9h 4d 4c Jk 8s 2d", "9s 9h 4d 4c 2d", "Jk 8s"),
    ("two_pair_split", "9s 9h 4d 4c Kh 8s 2d", "9s 9h Kh 8s 2d", "4d 4c"),
    ("three_pair", "Ks Kh 9s 9c 8s 8h 3h", "9s 9c 8s 8h 3h", "Ks Kh"),
    ("three_of_a_kind", "Js Jh Jd Kh 7h 4c 3d", "Js Jh Jd 4c 3d", "Kh 7h"),
    ("three_aces", "As Ah Ad Kc 8d 4s 2h", "As Ah 8d 4s 2h", "Ad Kc"),
    ("three_aces", "Jk As Ad Kc 8d 4s 2h", "Jk As 8d 4s 2h", "Ad Kc"),
    ("two_three_of_a_kind", "8h 8d 8c 5h 5d 5c 7c", "8h 5h 5d 5c 7c", "8d 8c"),
    ("straight", "Ts 9h 8d 7c 6s 5h 2d", "9h 8d 7c 6s 5h", "Ts 2d"),
    ("straight", "Ah Kh Jh 9h 6h 3h Qc", "Kh Jh 9h 6h 3h", "Ah Qc"),
    ("straight", "9h 8h 7h 6h 5h Ac Kd", "9h 8h 7h 6h 5h", "Ac Kd"),
    ("straight", "6s 6h 5d 5c 4s 3h 2d", "6s 5d 4s 3h 2d", "6h 5c"),
    ("straight_pair_in_front", "9s 8h 7d 6c 5s Kd Kh", "9s 8h 7d 6c 5s", "Kd Kh"),
    ("straight_pair_in_front", "Ts 9s 8h 7d 6c 5s 5h", "Ts 9s 8h 7d 6c", "5s 5h"),
    ("straight_two_pair_split", "9s 9h 8d 7c 6s 5h 5d", "9s 9h 8d 7c 6s", "5h 5d"),
    ("full_house", "Ks Kh Kd 9s 9h 5d 2c", "Ks Kh Kd 5d 2c", "9s 9h"),
    ("full_house", "3s 3h 3d Ks Kh 9s 9h", "3s 3h 3d 9s 9h", "Ks Kh"),
    ("four_of_a_kind_with_pair", "8s 8h 8d 8c Ks Kh 2h", "8s 8h 8d 8c 2h", "Ks Kh"),
    ("four_of_a_kind_with_pair", "3s 3h 3d 3c Ks Kh Kd", "3s 3h 3d 3c Ks", "Kh Kd"),
    ("four_of_a_kind_six_or_lower", "4s 4h 4d 4c Qc 5c 3s", "4s 4h 4d 4c 3s", "Qc 5c"),
    ("four_of_a_kind_seven_to_jack_with_ace", "Js Jh Jd Jc Ah 6c 4d", "Js Jh Jd Jc 4d",
     "Ah 6c"),
    ("four_of_a_kind_split", "9s 9h 9d 9c Kd 7s 3d", "9s 9h Kd 7s 3d", "9d 9c"),
    ("four_of_a_kind_split", "Ks Kh Kd Kc Ad 7s 3d", "Ks Kh Ad 7s 3d", "Kd Kc"),
    ("five_aces", "Jk As Ah Ad Ac Kd 7c", "Jk As Ah Kd 7c", "Ad Ac"),
]


@pytest.mark.parametrize(("rule", "cards", "expected_high", "expected_low"), HOUSE_WAY_CASES)
def test_house_way_rule(rule: str, cards: str, expected_high: str, expected_low: str) -> None:
    setting = house_way_setting(c(cards))
    assert setting.rule.name == rule
    assert set(setting.high) == set(c(expected_high))
    assert set(setting.low) == set(c(expected_low))
    assert (setting.high, setting.low) == house_way(c(cards))


def test_every_house_way_rule_has_a_case() -> None:
    assert {rule.name for rule in HOUSE_WAY_REFERENCE_1_3.rules} == {
        case[0] for case in HOUSE_WAY_CASES}


seven_cards = st.lists(st.sampled_from(DECK_53), min_size=7, max_size=7, unique=True)


@settings(max_examples=400)
@given(seven_cards, st.randoms(use_true_random=False), st.sampled_from(list(Wheel)))
def test_house_way_uses_the_dealt_cards_never_fouls_and_ignores_order(
    cards: list[Card], rnd: random.Random, wheel: Wheel
) -> None:
    high_hand, low_hand = house_way(cards, wheel=wheel)
    assert len(high_hand) == 5 and len(low_hand) == 2
    assert Counter(high_hand + low_hand) == Counter(cards)
    assert not is_foul(high_hand, low_hand)
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    assert house_way(shuffled, wheel=wheel) == (high_hand, low_hand)


@settings(max_examples=200)
@given(seven_cards)
def test_every_split_uses_the_dealt_cards_and_one_never_fouls(cards: list[Card]) -> None:
    found = list(splits(cards))
    assert len(found) == 21
    for high_hand, low_hand in found:
        assert Counter(high_hand + low_hand) == Counter(cards)
    assert any(not is_foul(h, lo) for h, lo in found)


@settings(max_examples=200)
@given(seven_cards)
def test_copies_go_to_the_banker_a_hand_never_beats_itself(cards: list[Card]) -> None:
    h, lo = house_way(cards)
    assert compare(player_high=h, player_low=lo, banker_high=h, banker_low=lo) is Outcome.LOSS


# ---------------------------------------------------------------------------------------
# Adjudicating a round (6a.6, 6a.7)
# ---------------------------------------------------------------------------------------

EXAMPLE = ("r-17 pai_gow_poker D=AsKdQhJcTc/9s2d S1(main 2500)=7h7d5c4s3h/KcQd "
           "S4(main 1000)=JkAhAd8c3c/Ks2h")


def test_example_round_both_seats_push_and_dealer_missed_the_house_way() -> None:
    # dealer: A-high straight / 9-2. Seat 1: pair of sevens (lower) / K-Q (higher): push.
    # Seat 4: three aces (lower) / K-2 (higher): push. The house way keeps the K-high
    # straight and plays A-2 in front (best 2-card hand that keeps a straight).
    result = adjudicate(parse_round(EXAMPLE), CLASSIC)
    assert result.evaluation is Evaluation.EVALUATED and result.evaluated
    assert result.problems == ()
    assert result.notation == EXAMPLE
    assert [(s.seat, s.foul, s.main) for s in result.seats] == [
        (1, False, settle_main(amount_cents=2500, outcome=Outcome.PUSH, ruleset=CLASSIC)),
        (4, False, settle_main(amount_cents=1000, outcome=Outcome.PUSH, ruleset=CLASSIC)),
    ]
    assert result.dealer.foul is False
    assert result.dealer.house_way is False
    assert set(result.dealer.house_way_high or ()) == set(c("Kd Qh Jc Tc 9s"))
    assert set(result.dealer.house_way_low or ()) == set(c("As 2d"))


def test_win_is_paid_less_commission() -> None:
    line = "r-1 pai_gow_poker D=9s8d6c4h2s/7c3d S2(main 2500)=AhAdKcQcJd/Ts9c"
    result = adjudicate(parse_round(line), CLASSIC)
    (seat,) = result.seats
    assert seat.main is not None
    assert (seat.main.outcome, seat.main.net_cents, seat.main.commission_cents) == (
        Outcome.WIN, 2375, 125)


def test_688a_7_f_1_iii_fouled_player_hand_loses_the_main_wager() -> None:
    # seat 2 would beat the dealer in both hands, but its high hand (pair of threes) is
    # below its low hand (pair of kings)
    line = "r-2 pai_gow_poker D=9s8d6c4h2s/7c5d S2(main 2500)=3h3dQcJcTd/KsKh"
    (seat,) = adjudicate(parse_round(line), CLASSIC).seats
    assert seat.foul is True
    assert seat.main == settle_main(amount_cents=2500, outcome=Outcome.LOSS, ruleset=CLASSIC)


def test_6a_7_fouled_dealer_hand_is_reported_and_compared_as_set() -> None:
    # dealer high 9-high no pair below its low pair of aces: a foul, compared as set. Seat 3:
    # pair of twos beats 9-high; K-Q loses to A-A: a push (not a win by forfeit).
    line = "r-3 pai_gow_poker D=9s8d6c4h2s/AhAd S3(main 2500)=2h2dQcJcTd/KsQh"
    result = adjudicate(parse_round(line), CLASSIC)
    assert result.dealer.foul is True
    (seat,) = result.seats
    assert seat.foul is False and seat.main is not None and seat.main.outcome is Outcome.PUSH


def test_dealer_following_the_house_way_with_other_suits_still_follows_it() -> None:
    # house way for Ks Kh Kd Kc Ad 7s 3d splits the kings; which two go in front is a
    # choice between equal cards
    exact = "r-4 pai_gow_poker D=KsKhAd7s3d/KdKc"
    swapped = "r-4 pai_gow_poker D=KdKcAd7s3d/KsKh"
    other = "r-4 pai_gow_poker D=KsKhKdKc3d/Ad7s"
    assert adjudicate(parse_round(exact), CLASSIC).dealer.house_way is True
    assert adjudicate(parse_round(swapped), CLASSIC).dealer.house_way is True
    assert adjudicate(parse_round(other), CLASSIC).dealer.house_way is False


def test_seat_without_main_wager_is_not_settled_and_may_be_unset() -> None:
    line = ("r-5 pai_gow_poker D=9s8d6c4h2s/7c5d S1(fortune 500)=AhAdKcQcJd2c3c "
            "S2(main 0)=3h3dQsJsTd/KsKh")
    result = adjudicate(parse_round(line), CLASSIC)
    assert result.evaluated
    assert [(s.seat, s.foul, s.main) for s in result.seats] == [(1, None, None),
                                                                 (2, True, None)]


def test_problems_are_reported_all_at_once_and_the_round_is_not_evaluated() -> None:
    line = ("r-6 pai_gow_poker D=9s8d6c4h2s7c5d S1(main 2500)=AhAdKcQcJd/Ts "
            "S1(main 100)=3h3dQcJcTd/Ks9s S3(main 500)=2h2d3c4c5c/6c7c")
    result = adjudicate(parse_round(line), CLASSIC)
    assert result.evaluation is Evaluation.NOT_EVALUATED and not result.evaluated
    assert result.seats == ()
    text = "\n".join(result.problems)
    assert "dealer's hand was not set" in text
    assert "seat 1 holds 6 dealt cards" in text
    assert "seat 1 set 5+1 cards" in text
    assert "seat 1 appears 2 times" in text
    assert "card 9s was dealt 2 times (dealer, seat 1)" in text
    assert "card Qc was dealt 2 times (seat 1, seat 1)" in text
    assert "card 5c was dealt 2 times (dealer, seat 3)" not in text
    assert "card 7c was dealt 2 times (dealer, seat 3)" in text
    assert len(result.problems) >= 6


def test_set_hand_not_using_the_dealt_cards_is_a_problem() -> None:
    line = ("r-7 pai_gow_poker D=9s8d6c4h2s/7c5d "
            "S1(main 2500)=AhAdKcQcJdTs9c:AhAdKcQcJd/Ts8c")
    result = adjudicate(parse_round(line), CLASSIC)
    assert not result.evaluated
    assert any("set but not dealt '8c', dealt but not set '9c'" in p for p in result.problems)


def test_round_of_another_game_or_ruleset_is_not_evaluated() -> None:
    rnd = parse_round(EXAMPLE.replace("pai_gow_poker", "face_up_pai_gow"))
    result = adjudicate(rnd, CLASSIC)
    assert not result.evaluated
    assert any("'face_up_pai_gow'" in p for p in result.problems)


def test_unknown_house_way_is_a_problem() -> None:
    ruleset = Ruleset(
        id="pai_gow_poker-test-v1", game=GAME, title="t", effective_from="2024-01-01",
        effective_to=None, commission=CLASSIC.commission, house_way="flamingo",
    )
    result = adjudicate(parse_round(EXAMPLE), ruleset)
    assert not result.evaluated and any("'flamingo'" in p for p in result.problems)


def test_ruleset_wheel_option_decides_the_round() -> None:
    # seat 1 holds the wheel, the dealer a six-high straight; lows K-Q against J-T
    line = "r-8 pai_gow_poker D=2c3d4h5s6c/JdTd S1(main 2500)=Ac2d3h4s5c/KdQd"
    lowest = Ruleset(
        id="pai_gow_poker-test-v1", game=GAME, title="t", effective_from="2024-01-01",
        effective_to=None, commission=CLASSIC.commission, wheel=Wheel.LOWEST,
    )
    second = adjudicate(parse_round(line), CLASSIC).seats[0].main
    low = adjudicate(parse_round(line), lowest).seats[0].main
    assert second is not None and second.outcome is Outcome.WIN
    assert low is not None and low.outcome is Outcome.PUSH


def test_round_result_carries_the_notation() -> None:
    rnd: PaiGowRound = parse_round(EXAMPLE)
    assert adjudicate(rnd, CLASSIC).notation == EXAMPLE


# ---------------------------------------------------------------------------------------
# Round documents (`python -m replay adjudicate`): dealer-banked rounds, the result form, bad input
# ---------------------------------------------------------------------------------------


def hand(text: str) -> dict[str, list[str]]:
    """``"Ah Ad Kc Qc Jd / Ts 9c"`` as a document holding: dealt cards, high and low."""
    high_text, low_text = text.split("/")
    high_hand = [str(card) for card in c(high_text)]
    low_hand = [str(card) for card in c(low_text)]
    return {"cards": high_hand + low_hand, "high": high_hand, "low": low_hand}


def document(dealer: str, *seats: tuple[int, str, int | None], round_id: str = "r-1",
             banker: object = None, dealer_wager: int | None = None) -> dict:
    """A classic round document: the dealer's set hand, then (seat, set hand, main cents or
    None for no wagers) per seat."""
    doc: dict = {"round_id": round_id, "game": GAME}
    if banker is not None:
        doc["banker"] = banker
    doc["dealer"] = hand(dealer)
    if dealer_wager is not None:
        doc["dealer"]["wager"] = dealer_wager
    doc["seats"] = [
        {"seat": number, **hand(text), **({} if main is None else {"wagers": {"main": main}})}
        for number, text, main in seats
    ]
    return doc


def judge(doc: dict, ruleset: Ruleset = CLASSIC) -> dict:
    return judge_document(doc, ruleset)


def main_of(result: dict, seat: int) -> dict | None:
    (entry,) = [s for s in result["seats"] if s["seat"] == seat]
    return entry["wagers"].get("main")


# the dealer: 9-high no pair behind, 7-3 in front. The house way (1.3 no pair) puts the
# highest card behind and the next two (8-7) in front, so this dealer did not follow it.
LOW_DEALER = "9s 8d 6c 4h 2s / 7c 3d"


def test_issue_3_result_form_of_a_dealer_banked_round() -> None:
    # seat 2: pair of aces > 9-high and T-9 > 7-3: win 2500 at 1:1 less 5% = 2500 - 125.
    # seat 5: pair of fives > 9-high and Q-2 > 7-3: a win too; 5% of 1010 is 50.5, rounded
    # down to 50 (6a.1): net 960.
    # seat 7: no wager: reported with no wagers and its foul (K-Q behind, A-A in front).
    doc = document(LOW_DEALER,
                   (5, "5s 5h Kd Jc 3h / Qh 2c", 1010),
                   (2, "Ah Ad Kc Qc Jd / Ts 9c", 2500),
                   (7, "Ks Qs 8c 6s 4c / As Ac", None))
    assert judge(doc) == {
        "round_id": "r-1", "ruleset": "pai_gow_poker-classic-v1", "evaluated": True,
        "dealer": {"foul": False, "house_way": False, "ace_high_pai_gow": False,
                   "qualifies": None, "net": 0},
        "seats": [
            {"seat": 2, "foul": False,
             "wagers": {"main": {"outcome": "win", "net": 2375, "commission": 125}},
             "envy": 0},
            {"seat": 5, "foul": False,
             "wagers": {"main": {"outcome": "win", "net": 960, "commission": 50}},
             "envy": 0},
            {"seat": 7, "foul": True, "wagers": {}, "envy": 0},
        ],
    }


def test_result_keys_are_in_the_issue_order_and_judging_is_deterministic() -> None:
    doc = document(LOW_DEALER, (2, "Ah Ad Kc Qc Jd / Ts 9c", 2500))
    first, second = judge(doc), judge(doc)
    assert json.dumps(first) == json.dumps(second)
    assert list(first) == ["round_id", "ruleset", "evaluated", "dealer", "seats"]
    assert list(first["dealer"]) == ["foul", "house_way", "ace_high_pai_gow", "qualifies",
                                     "net"]
    assert list(first["seats"][0]) == ["seat", "foul", "wagers", "envy"]
    assert list(first["seats"][0]["wagers"]["main"]) == ["outcome", "net", "commission"]


def test_procedure_4_dealer_set_by_the_house_way_is_reported() -> None:
    # house way (no pair): the 9 behind, 8-7 in front
    follows = judge(document("9s 6c 4h 3d 2s / 8d 7c", (2, "Ah Ad Kc Qc Jd / Ts 9c", 100)))
    assert follows["dealer"]["house_way"] is True
    assert judge(document(LOW_DEALER))["dealer"]["house_way"] is False


def test_procedure_2_fouled_player_hand_loses_the_main_wager() -> None:
    # seat 2 would beat the dealer in both hands, but its pair of threes behind is below its
    # pair of kings in front: a foul, which loses the 2500
    result = judge(document(LOW_DEALER, (2, "3h 3c Qc Jc Td / Ks Kh", 2500)))
    assert result["seats"][0]["foul"] is True
    assert main_of(result, 2) == {"outcome": "loss", "net": -2500, "commission": 0}


def test_settlement_1_and_2_player_wins_when_both_hands_rank_higher() -> None:
    # pair of aces > 9-high; T-9 > 7-3
    assert main_of(judge(document(LOW_DEALER, (1, "Ah Ad Kc Qc Jd / Ts 9c", 2000))), 1) == {
        "outcome": "win", "net": 1900, "commission": 100}


def test_settlement_2_a_copy_in_one_hand_is_not_a_win() -> None:
    # high hand higher (pair of aces), low hand a copy of the dealer's 7-3: not both higher,
    # so a push (§ 688a.7(f)(2)(i))
    assert main_of(judge(document(LOW_DEALER, (1, "Ah Ad Kc Qc Jd / 7h 3h", 2000))), 1) == {
        "outcome": "push", "net": 0, "commission": 0}


def test_settlement_5_identical_hands_go_to_the_dealer_banker() -> None:
    # 9-8-6-4-2 and 7-3 in other suits: two copies, the banker wins them
    result = judge(document(LOW_DEALER, (1, "9h 8c 6s 4d 2c / 7h 3h", 2000)))
    assert main_of(result, 1) == {"outcome": "loss", "net": -2000, "commission": 0}


def test_settlement_6_player_loses_both_hands_in_a_document() -> None:
    # 8-6-5-3-2 is below 9-8-6-4-2 (8 < 9); 5-4 is below 7-3 (5 < 7); not a foul (8 > 5)
    result = judge(document(LOW_DEALER, (1, "8h 6s 5d 3c 2c / 5h 4d", 2000)))
    assert main_of(result, 1) == {"outcome": "loss", "net": -2000, "commission": 0}


# pair of aces > 9-high but 5-4 < 7-3; 9-7-5-3-2 < 9-8-6-4-2 but 7-4 > 7-3 (and 9-7 holds 7-4)
@pytest.mark.parametrize("seat_hand", ["Ah Ad Kc Qc Jd / 5h 4d", "9h 7s 5d 3c 2c / 7h 4d"])
def test_settlement_9_winning_one_hand_pushes_in_a_document(seat_hand: str) -> None:
    assert main_of(judge(document(LOW_DEALER, (1, seat_hand, 2000))), 1) == {
        "outcome": "push", "net": 0, "commission": 0}


@pytest.mark.parametrize(("amount", "net", "commission"),
                         [(2500, 2375, 125), (1010, 960, 50), (19, 19, 0), (20, 19, 1)])
def test_settlement_15_winning_bets_paid_1_to_1_less_5_percent_commission(
    amount: int, net: int, commission: int
) -> None:
    # 5% of 1010 is 50.5, of 19 is 0.95, of 20 is 1: rounded down to the cent (6a.1), so
    # commission never exceeds 5% of the winning wager
    result = judge(document(LOW_DEALER, (1, "Ah Ad Kc Qc Jd / Ts 9c", amount)))
    assert main_of(result, 1) == {"outcome": "win", "net": net, "commission": commission}


def test_settlement_16_no_commission_on_pushes_or_losing_wagers() -> None:
    result = judge(document(LOW_DEALER,
                            (1, "Ah Ad Kc Qc Jd / 5h 4d", 2500),    # push
                            (3, "8h 6s 5d 3c 2c / 5c 4c", 2500)))   # loss
    assert main_of(result, 1) == {"outcome": "push", "net": 0, "commission": 0}
    assert main_of(result, 3) == {"outcome": "loss", "net": -2500, "commission": 0}


def test_6a_7_fouled_dealer_hand_is_reported_and_compared_as_set_in_a_document() -> None:
    # dealer 9-high behind, A-A in front: a foul. Seat 3: pair of twos beats 9-high, K-Q loses
    # to A-A: a push, not a win by forfeit
    result = judge(document("9s 8d 6c 4h 2s / Ah Ad", (3, "2h 2d Qc Jc Td / Ks Qh", 2500)))
    assert result["dealer"]["foul"] is True
    assert main_of(result, 3) == {"outcome": "push", "net": 0, "commission": 0}


def test_6a_18_zero_or_absent_wagers_are_left_out() -> None:
    doc = document(LOW_DEALER, (1, "Ah Ad Kc Qc Jd / Ts 9c", 0), (3, "Ks Qs 8c 6s 4c / Kh Qh",
                                                                  None))
    doc["seats"][0]["wagers"].update({"fortune": 0, "progressive": 0, "ace_high": 0})
    result = judge(doc)
    assert [s["wagers"] for s in result["seats"]] == [{}, {}]


def test_6a_18_ace_high_exists_only_in_face_up() -> None:
    doc = document(LOW_DEALER, (4, "Ah Ad Kc Qc Jd / Ts 9c", 2500))
    doc["seats"][0]["wagers"]["ace_high"] = 500
    with pytest.raises(DocumentError, match=r"seat 4 wagers\.ace_high 500: .*only in Face Up"):
        judge(doc)


def test_seats_are_reported_in_seat_number_order() -> None:
    result = judge(document(LOW_DEALER, (6, "Ah Ad Kc Qc Jd / Ts 9c", 100),
                            (1, "Ks Qs 8c 6s 4c / Kh Qh", 100)))
    assert [s["seat"] for s in result["seats"]] == [1, 6]


def test_6a_4_document_is_judged_under_the_ruleset_wheel() -> None:
    # the wheel against a six-high straight: a win when the wheel is second highest, a push
    # when it is the lowest straight (the low K-Q beats J-T either way)
    doc = document("2c 3d 4h 5s 6c / Jd Td", (1, "Ac 2d 3h 4s 5c / Kd Qd", 2500))
    lowest = Ruleset(
        id="pai_gow_poker-test-v1", game=GAME, title="t", effective_from="2024-01-01",
        effective_to=None, commission=CLASSIC.commission, wheel=Wheel.LOWEST,
    )
    assert main_of(judge(doc), 1)["outcome"] == "win"  # type: ignore[index]
    assert main_of(judge(doc, lowest), 1)["outcome"] == "push"  # type: ignore[index]


GOOD = document(LOW_DEALER, (2, "Ah Ad Kc Qc Jd / Ts 9c", 2500), (5, "Ks Qs 8c 6s 4c / Kh Qh",
                                                                  1000))


def _bad(change: Callable[[dict], None]) -> dict:
    doc = copy.deepcopy(GOOD)
    change(doc)
    return doc


def _set(path: tuple, value: object) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def _delete(path: tuple) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return change


BAD_DOCUMENTS = [
    # (what is wrong, the change, words the error must contain)
    ("no dealer", _delete(("dealer",)), "has no 'dealer'"),
    ("no round id", _delete(("round_id",)), "has no 'round_id'"),
    ("unknown top-level key", _set(("bankr",), "dealer"), "unknown keys ['bankr']"),
    ("unknown seat key", _set(("seats", 0, "wager"), {"main": 1}), "unknown keys ['wager']"),
    ("seats not a list", _set(("seats",), "S1"), "seats must be a list"),
    ("unknown card", _set(("seats", 1, "cards", 3), "Xs"), "seat 5 cards[3]: bad card token 'Xs'"),
    ("unknown card in a set hand", _set(("seats", 0, "low", 1), "1c"),
     "seat 2 low[1]: bad card token '1c'"),
    ("card repeated across seats", _set(("seats", 1, "cards", 0), "Ah"),
     "card Ah was dealt 2 times (seat 2, seat 5)"),
    ("card repeated within a seat", _set(("seats", 0, "cards", 1), "Ah"),
     "card Ah was dealt 2 times (seat 2, seat 2)"),
    ("card of the dealer repeated", _set(("seats", 0, "cards", 6), "9s"),
     "card 9s was dealt 2 times (dealer, seat 2)"),
    ("six cards", lambda d: d["seats"][0]["cards"].pop(), "seat 2 holds 6 dealt cards, not 7"),
    # a player's hand set 4+2 is judged (tests/test_rules_corrections.py); the dealer's is not
    ("dealer high hand of four", lambda d: d["dealer"]["high"].pop(), "dealer set 4+2 cards"),
    ("set with a card not dealt", _set(("seats", 0, "low", 1), "2d"),
     "seat 2's set hand does not use exactly the dealt cards: set but not dealt '2d', "
     "dealt but not set '9c'"),
    ("high without low", _delete(("seats", 0, "low")), "seat 2 sets a hand without its 'low'"),
    ("main wager on an unset hand",
     lambda d: [d["seats"][0].pop(k) for k in ("high", "low")], "seat 2's hand was not set"),
    ("dealer not set", lambda d: [d["dealer"].pop(k) for k in ("high", "low")],
     "dealer's hand was not set"),
    ("seat twice", _set(("seats", 1, "seat"), 2), "seat 2 appears 2 times"),
    ("seat zero", _set(("seats", 1, "seat"), 0), "seats[1].seat must be a seat number"),
    ("float wager", _set(("seats", 0, "wagers", "main"), 25.0),
     "seat 2 wagers.main must be non-negative integer cents, got 25.0"),
    ("negative wager", _set(("seats", 0, "wagers", "main"), -100),
     "seat 2 wagers.main must be non-negative integer cents, got -100"),
    ("wager of another game", _set(("seats", 0, "wagers", "ante"), 100),
     "seat 2 wagers has unknown wagers ['ante']"),
    ("withdrawal", _set(("seats", 0, "action"), "withdraw"), "seat 2 action 'withdraw'"),
    ("dealer wager against the dealer's own bank", _set(("dealer", "wager"), 2500),
     "dealer wager 2500: the dealer wagers only against a player banker"),
    ("banker not dealer or seat", _set(("banker",), "house"), "banker must be 'dealer'"),
    ("banker seat absent", _set(("banker",), {"seat": 4}),
     "banker seat 4 is not at the table (seats 2, 5)"),
    ("banker co_bank not a bool", _set(("banker",), {"seat": 2, "co_bank": "yes"}),
     "banker co_bank must be true or false, got 'yes'"),
    ("banker unknown key", _set(("banker",), {"seat": 2, "cobank": True}),
     "banker has unknown keys ['cobank']"),
    ("round id not text", _set(("round_id",), 17), "round_id must be non-empty text, got 17"),
    ("round id with a space", _set(("round_id",), "r 17"),
     "round_id must be printable text without spaces, got 'r 17'"),
]


@pytest.mark.parametrize(("what", "change", "words"), BAD_DOCUMENTS,
                         ids=[case[0] for case in BAD_DOCUMENTS])
def test_issue_3_bad_input_is_refused_naming_what_and_where(
    what: str, change: Callable[[dict], None], words: str
) -> None:
    with pytest.raises(DocumentError) as info:
        judge(_bad(change))
    assert words in str(info.value), what


def test_bad_input_reports_every_card_problem_at_once() -> None:
    def change(doc: dict) -> None:
        doc["seats"][0]["cards"].pop()
        doc["seats"][1]["cards"][0] = "9s"

    with pytest.raises(DocumentError) as info:
        judge(_bad(change))
    assert "seat 2 holds 6 dealt cards" in str(info.value)
    assert "card 9s was dealt 2 times (dealer, seat 5)" in str(info.value)


def test_the_good_document_of_the_bad_input_cases_is_judged() -> None:
    # the base of BAD_DOCUMENTS is accepted: each error above comes from its one change.
    # seat 5: K-Q-8-6-4 beats 9-high; K-Q beats 7-3: a win, 1000 less 50
    result = judge(GOOD)
    assert main_of(result, 2) == {"outcome": "win", "net": 2375, "commission": 125}
    assert main_of(result, 5) == {"outcome": "win", "net": 950, "commission": 50}


def test_unknown_house_way_in_the_ruleset_is_refused() -> None:
    ruleset = Ruleset(
        id="pai_gow_poker-test-v1", game=GAME, title="t", effective_from="2024-01-01",
        effective_to=None, commission=CLASSIC.commission, house_way="flamingo",
    )
    with pytest.raises(DocumentError, match="'flamingo'"):
        judge(GOOD, ruleset)


def test_cli_judges_a_batch_and_names_the_rejected_round(tmp_path: Path) -> None:
    bad = _bad(_set(("seats", 1, "cards", 0), "Ah"))
    bad["round_id"] = "r-bad"
    batch = tmp_path / "rounds.jsonl"
    batch.write_text("\n".join(json.dumps(d) for d in (GOOD, bad, GOOD)) + "\n",
                     encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "replay", "adjudicate", str(batch)],
                          capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 2
    lines = done.stdout.splitlines()
    assert [json.loads(line) for line in lines] == [judge(GOOD), judge(GOOD)]
    assert "r-bad" in done.stderr and "card Ah was dealt 2 times" in done.stderr


@pytest.mark.parametrize("game", ["pai_gow_poker", "face_up_pai_gow"])
def test_the_game_names_its_hands_from_their_tokens(game: str) -> None:
    """GameRules.describe_hand: a 5-card high hand or a 2-card low hand in words, from
    tokens in notation; None for anything else, never an exception."""
    from replay.games import find_game

    describe = find_game(game).describe_hand
    assert describe is not None
    assert describe(["Kh", "Kd", "Ac", "Qs", "9d"]) == "pair of kings, A-Q-9 kickers"
    assert describe(["Jk", "4d"]) == "A-4"
    assert describe(["As", "Jk"]) == "pair of aces"
    assert describe(["As", "As"]) is None
    assert describe(["As", "Ks", "Qs"]) is None
    assert describe(["6-6", "3-6"]) is None
