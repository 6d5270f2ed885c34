"""The fast paths (replay.games.fast_eval) against ``rank_high`` (docs/rules.md 1.1, 6a.3,
6a.4): the single 5-card hand, the best five of seven, and the numpy batch path must give
exactly ``rank_high``'s key (for seven cards: the best of the 21 five-card hands), under both
wheel options, with and without the joker; plus hand-built edge cases worked out from the
rules.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.cards import DECK_52, DECK_53, JOKER, Card, parse_cards
from replay.errors import HandError
from replay.games.fast_eval import best_of_seven, category_of, evaluator, rank_five
from replay.games.pai_gow_poker import HandCategory, HighRank, rank_high
from replay.rulesets import Wheel

WHEELS = list(Wheel)


def c(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def idx(cards: Sequence[Card]) -> list[int]:
    return [card.index for card in cards]


def reference_best(cards: Sequence[Card], wheel: Wheel) -> HighRank:
    """The best of every five-card hand in ``cards`` by ``rank_high``."""
    return max((rank_high(five, wheel=wheel) for five in combinations(cards, 5)),
               key=lambda rank: rank.key)


def random_hands(size: int, count: int, seed: int) -> list[tuple[Card, ...]]:
    """``count`` hands of ``size`` different cards, half of them holding the joker."""
    rng = random.Random(seed)
    hands = []
    for i in range(count):
        if i % 2:
            hands.append((*rng.sample(DECK_52, size - 1), JOKER))
        else:
            hands.append(tuple(rng.sample(DECK_52, size)))
    return [tuple(rng.sample(hand, size)) for hand in hands]  # joker anywhere


# ---------------------------------------------------------------------------------------
# Agreement with rank_high on many hands
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("wheel", WHEELS)
def test_key5_is_rank_high_on_random_hands(wheel: Wheel) -> None:
    ev = evaluator(wheel)
    for hand in random_hands(5, 20_000, seed=5):
        expected = rank_high(hand, wheel=wheel)
        assert ev.key5(idx(hand)) == expected.key, hand
        assert rank_five(hand, wheel=wheel) == expected


@pytest.mark.parametrize("wheel", WHEELS)
def test_key5_is_rank_high_on_every_joker_hand_and_every_flush(wheel: Wheel) -> None:
    ev = evaluator(wheel)
    hands = [(*four, JOKER) for four in combinations(DECK_52, 4)]
    hands += list(combinations(DECK_52[:13], 5))  # every club flush, straight flushes too
    keys = ev.keys(np.array([idx(hand) for hand in hands]))
    for hand, key in zip(hands, keys.tolist(), strict=True):
        expected = rank_high(hand, wheel=wheel).key
        assert key == expected, hand
    sample = hands[::97]
    assert [ev.key5(idx(hand)) for hand in sample] == [rank_high(h, wheel=wheel).key
                                                        for h in sample]


@pytest.mark.parametrize("wheel", WHEELS)
def test_key7_is_the_best_of_the_21_five_card_hands(wheel: Wheel) -> None:
    ev = evaluator(wheel)
    for hand in random_hands(7, 4_000, seed=7):
        expected = reference_best(hand, wheel)
        assert ev.key7(idx(hand)) == expected.key, hand
        assert best_of_seven(hand, wheel=wheel) == expected


@pytest.mark.parametrize("wheel", WHEELS)
@pytest.mark.parametrize("size", [5, 6, 7])
def test_batch_path_is_the_best_five_of_each_row(wheel: Wheel, size: int) -> None:
    hands = random_hands(size, 3_000, seed=size)
    got = evaluator(wheel).keys(np.array([idx(hand) for hand in hands], dtype=np.uint8),
                                chunk=1_000)
    assert got.tolist() == [reference_best(hand, wheel).key for hand in hands]


def suited_heavy_hands(count: int, seed: int) -> list[tuple[Card, ...]]:
    """Seven-card hands with four to seven cards of one suit, half with the joker: the
    flush paths, which random hands seldom reach."""
    rng = random.Random(seed)
    hands = []
    for i in range(count):
        suit = rng.randrange(4)
        suited = DECK_52[13 * suit: 13 * suit + 13]
        joker = i % 2 == 1
        n_suited = rng.randint(4, 7 - joker)
        cards = rng.sample(suited, n_suited)
        others = [card for card in DECK_52 if card not in suited]
        cards += rng.sample(others, 7 - joker - n_suited)
        hands.append(tuple(rng.sample([*cards, *([JOKER] if joker else [])], 7)))
    return hands


@pytest.mark.parametrize("wheel", WHEELS)
def test_seven_card_flush_paths_on_suited_hands(wheel: Wheel) -> None:
    ev = evaluator(wheel)
    hands = suited_heavy_hands(3_000, seed=11)
    batch = ev.keys(np.array([idx(hand) for hand in hands])).tolist()
    for hand, key in zip(hands, batch, strict=True):
        expected = reference_best(hand, wheel).key
        assert ev.key7(idx(hand)) == expected, hand
        assert key == expected, hand


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DECK_53), min_size=7, max_size=7, unique=True),
       st.sampled_from(WHEELS))
def test_property_best_of_seven_is_max_over_subsets(cards: list[Card], wheel: Wheel) -> None:
    assert best_of_seven(cards, wheel=wheel) == reference_best(cards, wheel)


# ---------------------------------------------------------------------------------------
# Edge cases worked out from the rules
# ---------------------------------------------------------------------------------------


def test_1_1_five_aces_beats_a_royal_flush_in_seven_cards() -> None:
    best = best_of_seven(c("As Ah Ad Ac Jk Ks Qs"))
    assert best.category is HandCategory.FIVE_ACES
    assert rank_five(c("Jk As Ah Ad Ac")).category is HandCategory.FIVE_ACES


def test_6a_3_joker_completes_a_wheel_straight_flush_second_highest() -> None:
    # 2h 3h 4h 5h + joker: as the ace of hearts, the wheel straight flush; as the 6 of hearts
    # a six-high one. With the wheel second-highest (6a.4) the wheel is better: it ranks
    # above a king-high straight flush and below a royal flush.
    wheel_sf = rank_five(c("Jk 2h 3h 4h 5h"))
    assert wheel_sf.category is HandCategory.STRAIGHT_FLUSH
    assert wheel_sf == rank_high(c("Ah 2h 3h 4h 5h"))
    assert rank_high(c("9c Tc Jc Qc Kc")) < wheel_sf < rank_high(c("Tc Jc Qc Kc Ac"))


def test_6a_4_with_the_wheel_lowest_the_joker_makes_the_six_high_straight_flush() -> None:
    got = rank_five(c("Jk 2h 3h 4h 5h"), wheel=Wheel.LOWEST)
    assert got == rank_high(c("2h 3h 4h 5h 6h"), wheel=Wheel.LOWEST)
    assert got.category is HandCategory.STRAIGHT_FLUSH


def test_6a_3_joker_in_a_flush_is_the_highest_card_of_the_suit_not_held() -> None:
    # Ah Kh 9h 4h + joker: the highest heart not held is the queen: A-K-Q-9-4.
    assert rank_five(c("Jk Ah Kh 9h 4h")) == rank_high(c("Ah Kh Qh 9h 4h"))
    # Kh Qh 9h 4h + joker: the ace of hearts is not held, so the joker is the ace.
    assert rank_five(c("Jk Kh Qh 9h 4h")) == rank_high(c("Ah Kh Qh 9h 4h"))
    # In seven cards, the same flush with two clubs beside it.
    assert best_of_seven(c("Jk Ah Kh 9h 4h 2c 3c")) == rank_high(c("Ah Kh Qh 9h 4h"))


def test_6a_3_joker_royal_flush_in_seven_cards() -> None:
    best = best_of_seven(c("Jk Ad Kd Qd Jd 2c 7s"))
    assert best.category is HandCategory.ROYAL_FLUSH


def test_6a_3_four_aces_with_the_joker_beats_the_flush_it_could_make() -> None:
    # Ah 2h 5h 9h + joker is a flush (the joker as the king of hearts), but Ah Ac Ad + joker
    # is four aces, with the 9 the best kicker: four of a kind beats a flush (1.1).
    best = best_of_seven(c("Ah 2h 5h 9h Jk Ac Ad"))
    assert best == rank_high(c("Ah Ac Ad Jk 9h"))
    assert best.category is HandCategory.FOUR_OF_A_KIND


def test_6a_3_full_house_with_the_joker_as_an_ace_beats_the_flush() -> None:
    # Ks As 7s 2s + joker: a spade flush; Ks Kc Kd with As + joker (a pair of aces) is a
    # full house, kings over aces.
    best = best_of_seven(c("Ks As 7s 2s Jk Kc Kd"))
    assert best == rank_high(c("Ks Kc Kd As Jk"))
    assert best.category is HandCategory.FULL_HOUSE


def test_6a_3_joker_extends_a_six_card_straight_flush_at_the_top() -> None:
    # 5c..Tc is a ten-high straight flush; the joker as the absent jack of clubs makes
    # 7-8-9-T-J, jack high, the best five of the seven.
    best = best_of_seven(c("5c 6c 7c 8c 9c Tc Jk"))
    assert best == rank_high(c("7c 8c 9c Tc Jc"))
    assert best > rank_high(c("6c 7c 8c 9c Tc"))


def test_category_of_key() -> None:
    key = evaluator().key7(idx(c("Ah 2h 5h 9h Jk Ac Ad")))
    assert category_of(key) is HandCategory.FOUR_OF_A_KIND


# ---------------------------------------------------------------------------------------
# Checked entry points
# ---------------------------------------------------------------------------------------


def test_checked_paths_refuse_bad_hands() -> None:
    with pytest.raises(HandError, match="a high hand must be 5 different cards"):
        rank_five(c("As Kd Qh Jc"))
    with pytest.raises(HandError, match=r"must be 7 different cards, got 'As Kd Qh Jc Tc 9c As'"):
        best_of_seven(c("As Kd Qh Jc Tc 9c As"))
    ev = evaluator()
    with pytest.raises(HandError, match=r"hand 1 repeats a card: 'As Kd Qh Jc As'"):
        ev.keys(np.array([idx(c("As Kd Qh Jc Tc")), idx(c("As Kd Qh Jc As"))]))
    with pytest.raises(HandError, match=r"hand 0 holds a card index outside 0..52"):
        ev.keys(np.array([[0, 1, 2, 3, 53]]))
    with pytest.raises(HandError, match=r"hand 0 holds a card index outside 0..52"):
        ev.keys(np.array([[0, 1, 2, 3, -1]]))
    with pytest.raises(HandError, match=r"shape \(n, 5..7\)"):
        ev.keys(np.zeros((3, 4), dtype=np.uint8))
    with pytest.raises(HandError, match="integer card indexes"):
        ev.keys(np.zeros((3, 5), dtype=np.float64))
    assert ev.keys(np.zeros((0, 7), dtype=np.uint8)).tolist() == []
