"""The census (`python -m replay census`; docs/rules.md 1.1, 5, 6a.3): every hand of a deck counted
by the category of its best five cards.

Oracles, none of them the code under test: the docs/rules.md 5 standard counts; counts worked
out by hand; a deliberately simple evaluator written here (textbook categories, the joker
tried as an ace and as every absent card, per 6a.3); and, on sub-decks, brute force with
``rank_high`` over every five-card hand in each hand. The 7-card censuses of the full decks
take a few seconds each and are recorded in bench/README.md, not run here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement
from math import comb, prod

import pytest

from replay.cards import DECK_52, DECK_53, JOKER, Card, parse_cards
from replay.census import CATEGORIES, census, census_of_deck
from replay.errors import HandError, UnknownGameError
from replay.games.pai_gow_poker import HandCategory, rank_high

RULES_5 = {
    "royal_flush": 4, "straight_flush": 36, "four_of_a_kind": 624, "full_house": 3_744,
    "flush": 5_108, "straight": 10_200, "three_of_a_kind": 54_912, "two_pair": 123_552,
    "one_pair": 1_098_240, "high_card": 1_302_540, "total": 2_598_960,
}
"""docs/rules.md 5, rows 1-4 (standard combinatorics)."""

ORDER = ["high_card", "one_pair", "two_pair", "three_of_a_kind", "straight", "flush",
         "full_house", "four_of_a_kind", "straight_flush", "royal_flush", "five_aces"]
"""docs/rules.md 1.1, lowest first, so that a bigger index is a better category."""


# ---------------------------------------------------------------------------------------
# A deliberately simple evaluator (categories only)
# ---------------------------------------------------------------------------------------


def simple_category(ranks: Sequence[int], suits: Sequence[str | None]) -> int:
    """Index in ORDER of five cards given as rank values (2..14) and suits (None: no suit),
    by the textbook definitions of docs/rules.md 1.1."""
    counts = sorted(Counter(ranks).values(), reverse=True)
    distinct = sorted(set(ranks))
    flush = None not in suits and len(set(suits)) == 1 and len(distinct) == 5
    straight = len(distinct) == 5 and (
        distinct[4] - distinct[0] == 4 or distinct == [2, 3, 4, 5, 14])
    if counts == [5]:
        return ORDER.index("five_aces")
    if straight and flush:
        return ORDER.index("royal_flush" if distinct[0] == 10 else "straight_flush")
    if counts == [4, 1]:
        return ORDER.index("four_of_a_kind")
    if counts == [3, 2]:
        return ORDER.index("full_house")
    if flush:
        return ORDER.index("flush")
    if straight:
        return ORDER.index("straight")
    if counts == [3, 1, 1]:
        return ORDER.index("three_of_a_kind")
    if counts == [2, 2, 1]:
        return ORDER.index("two_pair")
    if counts == [2, 1, 1, 1]:
        return ORDER.index("one_pair")
    return ORDER.index("high_card")


STRAIGHT_FAMILY = {ORDER.index(name) for name in
                   ("straight", "flush", "straight_flush", "royal_flush")}


def simple_five(cards: Sequence[Card]) -> int:
    """Category of five cards, the joker brute-forced (docs/rules.md 6a.3): as an ace of no
    suit (pairs, trips, quads, five aces), or as each card not already held, which counts
    only when it completes a straight, flush, straight flush or royal flush."""
    natural = [card for card in cards if not card.is_joker]
    ranks = [int(card.rank) for card in natural]
    suits: list[str | None] = [card.suit.value for card in natural]
    if len(natural) == 5:
        return simple_category(ranks, suits)
    best = simple_category([*ranks, 14], [*suits, None])
    for absent in DECK_52:
        if absent not in natural:
            tried = simple_category([*ranks, int(absent.rank)], [*suits, absent.suit.value])
            if tried in STRAIGHT_FAMILY:
                best = max(best, tried)
    return best


def simple_census_5(deck: Sequence[Card]) -> dict[str, int]:
    """The 5-card census of ``deck`` by :func:`simple_five`, one hand per *class* of hands
    that the simple evaluator cannot tell apart, times the class's size.

    A class is a multiset of ranks (the joker a rank of its own) and whether the natural
    cards share a suit. With c_r cards of rank r among the deck's n_r cards of that rank,
    there are prod(C(n_r, c_r)) hands; of those with all ranks different, the ones whose
    natural cards share a suit number one per suit holding all those ranks."""
    by_rank: dict[object, list[Card]] = {}
    for card in deck:
        by_rank.setdefault(card.rank, []).append(card)
    ranks = sorted(by_rank)
    counts: Counter[str] = Counter()
    for multiset in _multisets(ranks, [len(by_rank[r]) for r in ranks], 5):
        hands = prod(comb(len(by_rank[r]), c) for r, c in multiset.items())
        distinct = all(c == 1 for c in multiset.values())
        suited = 0
        if distinct:
            natural_ranks = [r for r in multiset if r is not JOKER.rank]
            for suit in {card.suit for card in deck if not card.is_joker}:
                cards = [_card(by_rank, r, suit) for r in natural_ranks]
                if all(card is not None for card in cards):
                    suited += 1
                    hand = [c for c in cards if c is not None] + (
                        [JOKER] if JOKER.rank in multiset else [])
                    counts[ORDER[simple_five(hand)]] += 1
        if hands > suited:
            counts[ORDER[simple_five(_unsuited_hand(by_rank, multiset))]] += hands - suited
    return {name: counts[name] for name in reversed(ORDER)}


def _multisets(ranks: list[object], limits: list[int], size: int) -> list[dict[object, int]]:
    """Every multiset of ``size`` ranks holding at most ``limits[i]`` of ``ranks[i]``."""
    out = []
    for chosen in combinations_with_replacement(range(len(ranks)), size):
        counts = Counter(chosen)
        if all(c <= limits[i] for i, c in counts.items()):
            out.append({ranks[i]: c for i, c in counts.items()})
    return out


def _card(by_rank: dict[object, list[Card]], rank: object, suit: object) -> Card | None:
    return next((card for card in by_rank[rank] if card.suit is suit), None)


def _unsuited_hand(by_rank: dict[object, list[Card]], multiset: dict[object, int]) -> list[Card]:
    """Cards of the class whose natural cards do not all share a suit (5 full-deck ranks
    always allow one: the census decks here hold four suits of every rank)."""
    hand: list[Card] = []
    for r, c in multiset.items():
        hand += by_rank[r][:c]
    natural = [card for card in hand if not card.is_joker]
    if len(natural) >= 4 and len({card.suit for card in natural}) == 1:
        r = natural[-1].rank
        other = next(card for card in by_rank[r] if card.suit is not natural[-1].suit)
        hand[hand.index(natural[-1])] = other
    return hand


# ---------------------------------------------------------------------------------------
# The census of the full decks
# ---------------------------------------------------------------------------------------


def test_rules_5_caribbean_stud_census_of_all_2598960_hands() -> None:
    got = census("caribbean_stud", 5)
    assert got == RULES_5
    # Keys in the order of docs/rules.md 1.1, total last; no five aces without the joker.
    assert list(got) == [*(name for name in reversed(ORDER) if name != "five_aces"), "total"]


def test_pai_gow_poker_5_card_census_of_53_cards_matches_the_simple_evaluator() -> None:
    got = census("pai_gow_poker", 5)
    assert got["total"] == 2_869_685  # C(53, 5) = 53*52*51*50*49 / 120
    expected = simple_census_5(DECK_53)
    assert sum(expected.values()) == 2_869_685
    assert got == {**expected, "total": 2_869_685}
    assert list(got) == [*reversed(ORDER), "total"]


def test_1_1_and_6a_3_five_card_joker_counts_worked_by_hand() -> None:
    got = census("pai_gow_poker", 5)
    # Five aces: the four aces and the joker, one hand.
    assert got["five_aces"] == 1
    # Royal flushes: 4 natural, and with the joker 4 suits x 5 choices of the royal card it
    # replaces (6a.3: A-K-Q-J-T of one suit made with the joker is a royal flush) = 24.
    assert got["royal_flush"] == 4 + 4 * 5
    # Hands without the joker are the 52-card census: the joker adds C(52, 4) = 270,725.
    assert got["total"] - RULES_5["total"] == 270_725


def test_census_cli_prints_one_json_object() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "replay", "census", "--game", "caribbean_stud", "--cards", "5"],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == RULES_5


def test_census_refuses_unknown_games_and_sizes() -> None:
    with pytest.raises(UnknownGameError, match="pai_gow_tiles"):
        census("pai_gow_tiles", 5)
    for size in (4, 8):
        with pytest.raises(HandError, match=f"not {size}"):
            census("pai_gow_poker", size)
    with pytest.raises(HandError, match="different cards"):
        census_of_deck([*DECK_52[:10], DECK_52[0]], 5)


# ---------------------------------------------------------------------------------------
# Sub-decks: the census against brute force with rank_high
# ---------------------------------------------------------------------------------------

SUB_DECK_20 = parse_cards(
    "Ah Kh Qh Jh Th 9h As Ad Ac 2s 3s 4s 5s Kd Kc 7c 7d 8d 6c Jk"
)
"""Twenty cards that make every category: four aces and the joker (five aces), a royal
flush natural and with the joker, the wheel straight flush in spades, quads, flushes,
straights and pairs of all kinds."""

SUB_DECK_16 = parse_cards("Ah Kh Qh Jh Th 9h 2h As Ad Ac 3s 4s 5s 5d Kd 8c")
"""Sixteen natural cards (a Caribbean stud sub-deck: no joker)."""


def brute_force(deck: Sequence[Card], size: int) -> dict[HandCategory, int]:
    """Every hand of ``size`` cards, ranked as its best five-card hand by ``rank_high``."""
    counts = Counter(
        max((rank_high(five) for five in combinations(hand, 5)), key=lambda r: r.key).category
        for hand in combinations(deck, size)
    )
    return {category: counts[category] for category in CATEGORIES}


@pytest.mark.parametrize("deck", [SUB_DECK_20, SUB_DECK_16], ids=["joker-20", "natural-16"])
@pytest.mark.parametrize("size", [5, 6, 7])
def test_census_of_a_sub_deck_matches_brute_force_with_rank_high(
    deck: tuple[Card, ...], size: int
) -> None:
    calls: list[tuple[int, int]] = []
    got = census_of_deck(deck, size, progress=lambda done, total: calls.append((done, total)))
    assert got == brute_force(deck, size)
    assert sum(got.values()) == comb(len(deck), size)
    assert calls[-1] == (comb(len(deck), size), comb(len(deck), size))
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_the_20_card_sub_deck_makes_every_category_in_seven_cards() -> None:
    got = census_of_deck(SUB_DECK_20, 7)
    assert all(got[category] > 0 for category in CATEGORIES), got


def test_census_does_not_depend_on_the_order_of_the_deck() -> None:
    deck = list(SUB_DECK_20)
    assert census_of_deck(deck[::-1], 6) == census_of_deck(deck, 6)
    rotated = deck[7:] + deck[:7]
    assert census_of_deck(rotated, 7) == census_of_deck(deck, 7)
