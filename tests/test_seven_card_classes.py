"""Seven-card classes for Fortune, Envy and Progressive (docs/rules.md 6a.10, 2.4) and the Ace High
Pai Gow (58 Pa. Code § 688a.1; docs/rules.md 6a.8), cross-checked against a deliberately simple
classifier written here from the rules' words, and the three seven-card hands counted exactly
against combinatorics.

The simple classifier tries every five of the seven cards and, for the joker (6a.3), every
natural card it could stand for: an ace for anything, any other card only when the five then
make a straight or a flush. It is slow and obviously right; the fast one is table lookups.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from math import comb

import pytest

from replay.cards import DECK_52, DECK_53, JOKER, Card, Rank, Suit, parse_cards
from replay.errors import HandError
from replay.games.face_up_pai_gow import (
    ENVY_QUALIFYING_CLASSES,
    SevenCardClass,
    is_ace_high_pai_gow,
    seven_card_class,
)
from replay.games.pai_gow_poker import HandCategory, rank_high, splits

# ---------------------------------------------------------------------------------------
# The simple classifier
# ---------------------------------------------------------------------------------------

BONUS_ORDER = (
    "natural_seven_card_straight_flush", "royal_flush_plus_royal_match",
    "seven_card_straight_flush_with_joker", "five_aces", "royal_flush", "straight_flush",
    "four_of_a_kind", "full_house", "flush", "three_of_a_kind", "straight",
)
"""docs/rules.md 6a.10, best first, written out again here (trips above straight: 2.4)."""
STRAIGHT_OR_FLUSH = {"straight", "flush", "straight_flush", "royal_flush"}


def _values(ranks: Sequence[int]) -> list[list[int]]:
    """The rank values with the ace read high, and with it read low (as 1)."""
    high = sorted(ranks)
    low = sorted(1 if r == Rank.ACE else r for r in ranks)
    return [high, low]


def _in_sequence(ranks: Sequence[int]) -> bool:
    return len(set(ranks)) == len(ranks) and any(
        v[-1] - v[0] == len(v) - 1 for v in _values(ranks)
    )


def simple_five(cards: Sequence[Card]) -> str | None:
    """Five natural cards in bonus terms (6a.10), or None below a straight."""
    ranks = [c.rank for c in cards]
    counts = sorted(Counter(ranks).values(), reverse=True)
    flush = len({c.suit for c in cards}) == 1
    straight = _in_sequence(ranks)
    if flush and straight:
        return "royal_flush" if sorted(ranks) == [10, 11, 12, 13, 14] else "straight_flush"
    if counts[0] == 4:
        return "four_of_a_kind"
    if counts == [3, 2]:
        return "full_house"
    if flush:
        return "flush"
    if counts[0] == 3:
        return "three_of_a_kind"
    if straight:
        return "straight"
    return None


def best(names: list[str | None]) -> str | None:
    found = [n for n in names if n is not None]
    return min(found, key=BONUS_ORDER.index) if found else None


def simple_five_any(cards: Sequence[Card]) -> str | None:
    """Five cards, the joker allowed (6a.3): as an ace, or any card completing a straight
    or flush; four aces and the joker are five aces."""
    if JOKER not in cards:
        return simple_five(cards)
    four = [c for c in cards if c != JOKER]
    if all(c.rank == Rank.ACE for c in four):
        return "five_aces"
    options: list[str | None] = []
    for stand_in in DECK_52:
        if stand_in in four:
            continue
        name = simple_five([*four, stand_in])
        if stand_in.rank == Rank.ACE or name in STRAIGHT_OR_FLUSH:
            options.append(name)
    return best(options)


def simple_seven(cards: Sequence[Card]) -> str | None:
    """Seven cards in the order of 6a.10, from the words of 6a.10."""
    naturals = [c for c in cards if c != JOKER]
    one_suit = len({c.suit for c in naturals}) == 1
    if len(naturals) == 7 and one_suit and _in_sequence([c.rank for c in naturals]):
        return "natural_seven_card_straight_flush"
    for king, queen in combinations(naturals, 2):
        if {king.rank, queen.rank} == {Rank.KING, Rank.QUEEN} and king.suit == queen.suit:
            rest = [c for c in cards if c not in (king, queen)]
            if simple_five_any(rest) == "royal_flush":
                return "royal_flush_plus_royal_match"
    if len(naturals) == 6 and one_suit:
        ranks = [c.rank for c in naturals]
        if any(_in_sequence([*ranks, r]) for r in Rank if r is not Rank.JOKER):
            return "seven_card_straight_flush_with_joker"
    return best([simple_five_any(five) for five in combinations(cards, 5)])


def simple_ace_high_pai_gow(cards: Sequence[Card]) -> bool:
    """6a.8 from its words: nothing pairs (the joker is an ace), no straight or flush can be
    made (the joker completing one), and the highest card is an ace or the joker."""
    ranks = [Rank.ACE if c == JOKER else c.rank for c in cards]
    if len(set(ranks)) < 7 or Rank.ACE not in ranks:
        return False
    return all(simple_five_any(five) is None for five in combinations(cards, 5))


# ---------------------------------------------------------------------------------------
# Hand-built hands, one per class and the traps between them
# ---------------------------------------------------------------------------------------

HANDS = [
    ("2s 3s 4s 5s 6s 7s 8s", "natural_seven_card_straight_flush"),
    ("As 2s 3s 4s 5s 6s 7s", "natural_seven_card_straight_flush"),  # ace to 7
    ("8h 9h Th Jh Qh Kh Ah", "natural_seven_card_straight_flush"),  # 8 to ace, also a royal
    ("As Ks Qs Js Ts Kh Qh", "royal_flush_plus_royal_match"),
    ("As Ks Qs Jk Ts Kd Qd", "royal_flush_plus_royal_match"),  # the joker is the jack
    ("Jk Ks Qs Js Ts Kc Qc", "royal_flush_plus_royal_match"),  # the joker is the ace
    ("As Ks Qs Js Ts Kh Qd", "royal_flush"),  # king and queen not suited: no match
    ("As Ks Qs Js Ts 9s Qh", "royal_flush"),  # a 6-card straight flush to the ace
    ("2d 3d 4d 5d 6d 7d Jk", "seven_card_straight_flush_with_joker"),
    ("Jk 2d 3d 4d 5d 6d 8d", "seven_card_straight_flush_with_joker"),  # the joker is the 7
    ("9c Tc Jc Qc Kc Ac Jk", "seven_card_straight_flush_with_joker"),
    ("2d 3d 4d 5d 6d 9d Jk", "straight_flush"),  # 6-card straight flush with the joker
    ("Ac Ad Ah As Jk 2c 3d", "five_aces"),
    ("Ah Kh Qh Jh Th 2c 3d", "royal_flush"),
    ("Ah Kh Qh Jk Th 2c 3d", "royal_flush"),  # 6a.3: the joker completes a royal flush
    ("Ah 2h 3h 4h 5h Kc Kd", "straight_flush"),  # the wheel straight flush
    ("9c 9d 9h 9s Kc Kd 2h", "four_of_a_kind"),
    ("Ac Ad Ah Jk 5c 8d 2s", "four_of_a_kind"),  # the joker is the fourth ace
    ("Kc Kd Kh Qs Qd 2h 3c", "full_house"),
    ("Ac Ad Jk Ks Kd 2h 3c", "full_house"),  # aces full with the joker
    ("Kc Kd Kh Ks Qs Qd Qh", "four_of_a_kind"),  # quads beat the full house in it
    ("2h 7h 9h Jh Kh Ac Ad", "flush"),
    ("2h 7h 9h Jh Jk Ac Ad", "flush"),  # the joker completes the flush over the trips
    ("Ac Ad Jk 2c 3d 4h 9s", "three_of_a_kind"),  # 2.4 quirk: trips above the A-5 straight
    ("7c 7d 7h 8s 9d Th Jc", "three_of_a_kind"),  # natural trips and a straight
    ("5c 6d 7h 8s 9d Ks 2d", "straight"),
    ("5c 6d 7h Jk 9d Ks 2d", "straight"),  # the joker is the 8
    ("Ac 2d 3h 4s 5d Kc Qd", "straight"),  # the wheel
    ("Qs Qh Jd Js 6c 5h 3s", None),  # two pair
    ("Ac Kd 9c 7h 5s 3d 2c", None),  # ace high
    ("Jk Kd 9c 7h 5s 3d 2c", None),
    ("Jk Kd Qc 7h 5s 3d 2c", None),
]


@pytest.mark.parametrize(("text", "expected"), HANDS)
def test_6a_10_hand_built_hands_have_the_class_worked_out_by_hand(
    text: str, expected: str | None
) -> None:
    cards = parse_cards(text)
    found = seven_card_class(cards)
    assert (found.value if found else None) == expected
    assert simple_seven(cards) == expected


AHPG = [
    ("Ac Kd 9c 7h 5s 3d 2c", True),  # ace high, no straight (4 missing), no flush
    ("Jk Kd 9c 7h 5s 3d 2c", True),  # the joker is the ace
    ("Jk Ac 9c 7h 5s 3d Kd", False),  # the joker pairs the ace
    ("Jk Kd 9c 7h 5s 4d 2c", True),  # A-2-_-4-5 and 3-4-5-_-7: the joker fills one gap only
    ("Jk Kd 9c 7h 5s 4d 3c", False),  # the joker completes 3-4-5-(6)-7 or A-(2)-3-4-5
    ("Jk Kd 9d 7d 5d 3d 2c", False),  # the joker completes a diamond flush
    ("Ac Kd 9d 7d 5c 3d 2c", True),  # four diamonds are no flush
    ("Kc Qd 9c 7h 5s 3d 2c", False),  # king high is pai gow, not Ace High Pai Gow
    ("Ac Kd Kc 7h 5s 3d 2c", False),  # a pair
    ("Ac 2d 3h 4s 5d Kc Qd", False),  # a straight
]


@pytest.mark.parametrize(("text", "expected"), AHPG)
def test_688a_1_ace_high_pai_gow_is_seven_cards_ranking_only_ace_high(
    text: str, expected: bool
) -> None:
    """§ 688a.1 "Ace High Pai Gow"; 6a.8: the joker is an ace unless it completes a straight
    or flush."""
    cards = parse_cards(text)
    assert is_ace_high_pai_gow(cards) is expected
    assert simple_ace_high_pai_gow(cards) is expected


# ---------------------------------------------------------------------------------------
# Random cross-checks
# ---------------------------------------------------------------------------------------


def _samples() -> list[tuple[Card, ...]]:
    rng = random.Random(688)
    hands: list[tuple[Card, ...]] = []
    hands += [tuple(rng.sample(DECK_53, 7)) for _ in range(1500)]
    hands += [(JOKER, *rng.sample(DECK_52, 6)) for _ in range(300)]
    for _ in range(600):  # suited-heavy: flushes, straight flushes, royals, matches
        suit = rng.choice([Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES])
        pool = [c for c in DECK_52 if c.suit == suit] + [JOKER] + rng.sample(DECK_52, 5)
        hands.append(tuple(rng.sample(sorted(set(pool)), 7)))
    for _ in range(600):  # rank-heavy: quads, full houses, five aces, trips
        ranks = [*rng.sample([r for r in Rank if r is not Rank.JOKER], 3), Rank.ACE]
        pool = [c for c in DECK_52 if c.rank in ranks] + [JOKER]
        hands.append(tuple(rng.sample(sorted(set(pool)), 7)))
    for _ in range(600):  # run-heavy: straights, and the trips-over-straight quirk
        low = rng.randint(1, 8)
        run = {Rank.ACE if r in (1, 14) else Rank(r) for r in range(low, low + 7)}
        pool = [c for c in DECK_52 if c.rank in run] + [JOKER]
        hands.append(tuple(rng.sample(pool, 7)))
    return hands


SAMPLES = _samples()


def test_6a_10_fast_classifier_agrees_with_the_simple_one_on_random_hands() -> None:
    seen: Counter[str | None] = Counter()
    for cards in SAMPLES:
        found = seven_card_class(cards)
        name = found.value if found else None
        assert name == simple_seven(cards), " ".join(map(str, cards))
        seen[name] += 1
    # the biased samples reach every class below the three seven-card hands
    assert set(BONUS_ORDER[3:]) <= set(seen)


def test_6a_8_ace_high_pai_gow_agrees_with_the_simple_check_and_the_five_card_evaluator() -> None:
    hits = 0
    for cards in SAMPLES[:1800]:
        expected = simple_ace_high_pai_gow(cards)
        assert is_ace_high_pai_gow(cards) is expected, " ".join(map(str, cards))
        top = max(rank_high(high) for high, _ in splits(cards))
        assert expected is (top.category is HandCategory.HIGH_CARD
                            and top.ranks[0] == Rank.ACE)
        hits += expected
    assert hits > 50  # about 6% of random hands are Ace High Pai Gow


def test_seven_card_class_is_the_same_for_any_order_of_the_cards() -> None:
    rng = random.Random(7)
    for cards in SAMPLES[::25]:
        shuffled = list(cards)
        rng.shuffle(shuffled)
        assert seven_card_class(shuffled) == seven_card_class(cards)
        assert is_ace_high_pai_gow(shuffled) == is_ace_high_pai_gow(cards)


# ---------------------------------------------------------------------------------------
# Exact counts of the seven-card hands over all 154,143,080 hands
# ---------------------------------------------------------------------------------------


def _seven_windows() -> list[set[int]]:
    """A-to-7 (the ace as 1) up to 8-to-A."""
    return [set(range(low, low + 7)) for low in range(1, 9)]


def expected_special_counts() -> dict[str, int]:
    """By combinatorics, from the words of 6a.10 over the 53-card deck:

    - natural seven-card straight flush: 8 windows (A-7 ... 8-A) x 4 suits = 32;
    - royal flush plus royal match: 4 suits for the royal x (1 natural + 5 with the joker
      standing for one of its cards) x 3 other suits for the king-queen = 72;
    - seven-card straight flush with the joker: the distinct sets of 6 ranks lying in some
      window (8 windows x 7 ways to leave a rank out, less the 6-runs counted in two
      windows) x 4 suits.
    """
    windows = _seven_windows()
    six_sets = {frozenset(w - {r}) for w in windows for r in w}
    # the ace is one rank: rank 1 and rank 14 are the same card, and no 6-set holds both
    assert all(not {1, 14} <= s for s in six_sets)
    assert len(six_sets) == 8 * 7 - 7
    return {
        "natural_seven_card_straight_flush": 8 * 4,
        "royal_flush_plus_royal_match": 4 * (1 + 5) * 3,
        "seven_card_straight_flush_with_joker": len(six_sets) * 4,
    }


def test_6a_10_exact_counts_of_the_three_seven_card_hands() -> None:
    """Every one of the three seven-card hands lies within one suit's 13 cards, the joker and
    the six other kings and queens: so counting over those 20-card decks, one per suit,
    counts them over all 154,143,080 hands. 32, 72 and 4 x 49 = 196."""
    expected = expected_special_counts()
    assert expected == {"natural_seven_card_straight_flush": 32,
                        "royal_flush_plus_royal_match": 72,
                        "seven_card_straight_flush_with_joker": 196}
    specials = {SevenCardClass(name) for name in expected}
    counted: Counter[str] = Counter()
    for suit in (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES):
        deck = [c for c in DECK_52 if c.suit == suit or (
            c.rank in (Rank.KING, Rank.QUEEN))] + [JOKER]
        assert len(deck) == 20
        for cards in combinations(deck, 7):
            found = seven_card_class(cards)
            if found in specials:
                assert found is not None
                counted[found.value] += 1
                assert simple_seven(cards) == found.value
    assert dict(counted) == expected


def test_6a_10_every_hand_of_four_aces_and_the_joker_is_five_aces() -> None:
    """C(48, 2) = 1,128 hands: none of them reaches a seven-card hand."""
    aces = [c for c in DECK_52 if c.rank == Rank.ACE]
    others = [c for c in DECK_52 if c.rank != Rank.ACE]
    found = Counter(seven_card_class([*aces, JOKER, *two]) for two in combinations(others, 2))
    assert found == {SevenCardClass.FIVE_ACES: comb(48, 2)}


def test_6a_10_classes_are_ordered_best_first_and_envy_qualifies_from_four_of_a_kind() -> None:
    """6a.10 order; § 688a.1 "Envy Bonus Qualifying Hand": four of a kind or better."""
    assert [c.value for c in sorted(SevenCardClass, key=lambda c: -c.strength)] == list(
        BONUS_ORDER)
    assert SevenCardClass.THREE_OF_A_KIND.strength > SevenCardClass.STRAIGHT.strength
    assert {c.value for c in ENVY_QUALIFYING_CLASSES} == set(BONUS_ORDER[:7])


@pytest.mark.parametrize("bad", [
    parse_cards("As Ks Qs Js Ts Kh"),  # six cards
    parse_cards("As Ks Qs Js Ts Kh Kh"),  # a repeated card
    ("As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh"),  # text, not cards
])
def test_a_seven_card_hand_must_be_seven_different_cards(bad: Sequence[Card]) -> None:
    with pytest.raises(HandError, match=r"7 .*cards"):
        seven_card_class(bad)
    with pytest.raises(HandError):
        is_ace_high_pai_gow(bad)
