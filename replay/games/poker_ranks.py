"""Plain poker ranks: the 5-card hand of the joker deck and the pai gow 2-card hand
(docs/rules.md 1.1, 6a.3, 6a.4, 6a.5).

What this module decides, each with the rule it implements:

- the rank of a 5-card hand, joker included (:func:`rank_high`; docs/rules.md 1.1, 6a.3,
  6a.4), which pai gow poker, Face Up and Caribbean stud all use (Caribbean stud deals no
  joker and places the wheel lowest, both by its ruleset);
- the rank of a 2-card hand (:func:`rank_low`; 1.1: a pair, or two cards highest first, the
  joker an ace);
- whether a 5-card rank holds a 2-card rank (:func:`high_holds_low`; 6a.5), the test behind
  a pai gow foul.

Nothing here does I/O, and nothing here knows a game: the wheel's place is a parameter.

Speed: :func:`rank_high` is a table lookup. Each card contributes a prime per rank (the joker
its own prime) and a suit bit; five cards of one suit (the joker has no suit bit) index a
table by rank bitmask, any other hand a table by the product of its primes. The tables hold
each answer as an interned :class:`HighRank`, so a call allocates nothing but a list of the
five card indexes (about 0.6 microseconds a hand in CPython). The tables are filled as they
are used, to keep replay fast: a key's rank is worked out the first time the key is looked
up (a few microseconds) and kept, so that a process pays only for the hands it meets
(building every key of a wheel option took about 0.15 s in every process). The per-card
arrays and the tables are public (:data:`CARD_PRIME`, :data:`CARD_RANK_BIT`,
:data:`CARD_SUIT_BIT`, :func:`rank_tables`) for the pai gow house way, which ranks many
splits of one hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import combinations, combinations_with_replacement
from math import prod
from types import MappingProxyType

from replay.cards import DECK_53, Card, Rank, Suit, render_cards
from replay.errors import HandError
from replay.games.lazy_table import LazyTable
from replay.ruleset_model import Wheel

HIGH_SIZE = 5
"""Cards in a 5-card (pai gow: high) hand."""
LOW_SIZE = 2
"""Cards in a pai gow 2-card (low) hand."""

# ---------------------------------------------------------------------------------------
# Hand ranks
# ---------------------------------------------------------------------------------------


class HandCategory(StrEnum):
    """Five-card hand categories (docs/rules.md 1.1, best first: five aces, royal flush,
    straight flush, four of a kind, full house, flush, straight, three of a kind, two pair, one
    pair, high card). The value is the stable name; compare by :attr:`strength`, never by value (the
    values are strings and would compare alphabetically).
    """

    FIVE_ACES = "five_aces"
    ROYAL_FLUSH = "royal_flush"
    STRAIGHT_FLUSH = "straight_flush"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    THREE_OF_A_KIND = "three_of_a_kind"
    TWO_PAIR = "two_pair"
    ONE_PAIR = "one_pair"
    HIGH_CARD = "high_card"

    @property
    def strength(self) -> int:
        """0 for high card up to 10 for five aces: the category's place in docs/rules.md 1.1."""
        return _STRENGTH[self]


_STRENGTH: Mapping[HandCategory, int] = MappingProxyType(
    {category: strength for strength, category in enumerate(reversed(HandCategory))}
)
STRAIGHT_FAMILY = frozenset(
    {HandCategory.STRAIGHT, HandCategory.FLUSH, HandCategory.STRAIGHT_FLUSH,
     HandCategory.ROYAL_FLUSH}
)
"""The categories a 5-card hand reaches through a straight or a flush (the joker completing
one: 6a.3), which the pai gow house way keeps behind together."""

_SINGULAR = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}
_PLURAL = {r: ("sixes" if r == 6 else name + "s") for r, name in _SINGULAR.items()}

# The key: category strength in the top bits, then up to five 5-bit tiebreak slots. A slot
# holds twice a rank, so that the wheel can sit between two ranks (27: just below the
# ace-high straight) when it is the second-highest straight.
_SLOT_BITS = 5
_CATEGORY_SHIFT = 5 * _SLOT_BITS


def _is_wheel(ranks: tuple[Rank, ...]) -> bool:
    return ranks[0] == Rank.FIVE and ranks[-1] == Rank.ACE


def _kickers(ranks: Iterable[Rank]) -> str:
    return "-".join(r.symbol for r in ranks)


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class HighRank:
    """The rank of a 5-card high hand. Totally ordered by ``key`` alone: equal ranks are
    copies (docs/rules.md 1.1: suits never break ties).

    ``category`` is the hand category; ``ranks`` the five ranks in order of significance
    (``K K A Q 9`` for a pair of kings with A-Q-9; the wheel as ``5 4 3 2 A``), the joker
    shown as what it stands for. Values come from :func:`rank_high`'s prebuilt tables.
    """

    key: int
    category: HandCategory = field(compare=False)
    ranks: tuple[Rank, ...] = field(compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.category, HandCategory):
            raise HandError(f"category must be a HandCategory, got {self.category!r}")
        if type(self.key) is not int or self.key >> _CATEGORY_SHIFT != self.category.strength:
            raise HandError(f"key {self.key!r} does not encode category {self.category}")
        if len(self.ranks) != HIGH_SIZE or not all(isinstance(r, Rank) for r in self.ranks):
            raise HandError(f"a high hand has five ranks, got {self.ranks!r}")

    def describe(self) -> str:
        """The hand in words, e.g. ``pair of kings, A-Q-9 kickers``."""
        c, r = self.category, self.ranks
        if c is HandCategory.FIVE_ACES:
            return "five aces"
        if c is HandCategory.ROYAL_FLUSH:
            return "royal flush"
        if c in (HandCategory.STRAIGHT_FLUSH, HandCategory.STRAIGHT):
            name = "straight flush" if c is HandCategory.STRAIGHT_FLUSH else "straight"
            if _is_wheel(r):
                return f"{name}, A-2-3-4-5 (wheel)"
            return f"{name}, {_SINGULAR[r[0]]} high"
        if c is HandCategory.FOUR_OF_A_KIND:
            return f"four {_PLURAL[r[0]]}, {_SINGULAR[r[4]]} kicker"
        if c is HandCategory.FULL_HOUSE:
            return f"full house, {_PLURAL[r[0]]} over {_PLURAL[r[3]]}"
        if c is HandCategory.FLUSH:
            return f"flush, {_kickers(r)}"
        if c is HandCategory.THREE_OF_A_KIND:
            return f"three {_PLURAL[r[0]]}, {_kickers(r[3:])} kickers"
        if c is HandCategory.TWO_PAIR:
            return f"two pair, {_PLURAL[r[0]]} and {_PLURAL[r[2]]}, {_SINGULAR[r[4]]} kicker"
        if c is HandCategory.ONE_PAIR:
            return f"pair of {_PLURAL[r[0]]}, {_kickers(r[2:])} kickers"
        return f"{_SINGULAR[r[0]]} high, {_kickers(r[1:])}"

    def __str__(self) -> str:
        return self.describe()


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class LowRank:
    """The rank of a 2-card low hand: a pair, or two high cards compared highest first
    (docs/rules.md 1.1: pairs A-A down to 2-2 above non-pairs A-K down to 3-2; the joker is an
    ace). Totally ordered by ``key``; ``ranks`` is (higher, lower)."""

    key: int
    ranks: tuple[Rank, Rank] = field(compare=False)

    def __post_init__(self) -> None:
        if len(self.ranks) != LOW_SIZE or not all(isinstance(r, Rank) for r in self.ranks):
            raise HandError(f"a low hand has two ranks, got {self.ranks!r}")
        if self.ranks[0] < self.ranks[1]:
            raise HandError(f"low hand ranks go higher first, got {self.ranks!r}")

    @property
    def is_pair(self) -> bool:
        """True for a pair."""
        return self.ranks[0] == self.ranks[1]

    def describe(self) -> str:
        """The hand in words: ``pair of aces`` or ``A-4``."""
        if self.is_pair:
            return f"pair of {_PLURAL[self.ranks[0]]}"
        return _kickers(self.ranks)

    def __str__(self) -> str:
        return self.describe()


# ---------------------------------------------------------------------------------------
# Evaluation tables
# ---------------------------------------------------------------------------------------

NATURAL_RANKS = tuple(range(Rank.TWO, Rank.ACE + 1))
"""The thirteen natural ranks, 2 up to ace, as integers."""
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_JOKER_PRIME = 43
JOKER_RANK_BIT = 1 << len(NATURAL_RANKS)
"""The joker's bit in a rank mask, above the thirteen natural ranks' bits."""
_SUIT_BITS = {Suit.CLUBS: 1, Suit.DIAMONDS: 2, Suit.HEARTS: 4, Suit.SPADES: 8}


def _card_prime(card: Card) -> int:
    return _JOKER_PRIME if card.is_joker else _PRIMES[card.rank - Rank.TWO]


CARD_PRIME = tuple(_card_prime(c) for c in DECK_53)
"""Each card's rank as a prime (the joker its own), by DECK_53 index."""
CARD_RANK_BIT = tuple(
    JOKER_RANK_BIT if c.is_joker else 1 << (c.rank - Rank.TWO) for c in DECK_53
)
"""Each card's rank as a bit (the joker its own bit, :data:`JOKER_RANK_BIT`), by DECK_53 index."""
CARD_SUIT_BIT = tuple(0 if c.is_joker else _SUIT_BITS[c.suit] for c in DECK_53)
"""Each card's suit as a bit (0 for the joker, which has no suit), by DECK_53 index."""
_LOW_VALUE = tuple(int(Rank.ACE if c.is_joker else c.rank) for c in DECK_53)


def _natural_rank(ranks: Sequence[int], *, suited: bool, wheel: Wheel) -> HighRank:
    """The rank of five natural ranks (five aces allowed: the joker as an ace) (1.1, 6a.4)."""
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(count for _, count in groups)
    ordered = tuple(Rank(r) for r, count in groups for _ in range(count))
    straight_slot = None
    if len(counts) == HIGH_SIZE:
        if ordered[0] - ordered[4] == 4:
            straight_slot = 2 * ordered[0]
        elif ordered == (Rank.ACE, Rank.FIVE, Rank.FOUR, Rank.THREE, Rank.TWO):
            ordered = (Rank.FIVE, Rank.FOUR, Rank.THREE, Rank.TWO, Rank.ACE)
            straight_slot = 2 * Rank.ACE - 1 if wheel is Wheel.SECOND_HIGHEST else 2 * Rank.FIVE
    if shape == (5,):
        category = HandCategory.FIVE_ACES
    elif straight_slot is not None and suited:
        royal = straight_slot == 2 * Rank.ACE
        category = HandCategory.ROYAL_FLUSH if royal else HandCategory.STRAIGHT_FLUSH
    elif shape == (4, 1):
        category = HandCategory.FOUR_OF_A_KIND
    elif shape == (3, 2):
        category = HandCategory.FULL_HOUSE
    elif suited:
        category = HandCategory.FLUSH
    elif straight_slot is not None:
        category = HandCategory.STRAIGHT
    elif shape == (3, 1, 1):
        category = HandCategory.THREE_OF_A_KIND
    elif shape == (2, 2, 1):
        category = HandCategory.TWO_PAIR
    elif shape == (2, 1, 1, 1):
        category = HandCategory.ONE_PAIR
    else:
        category = HandCategory.HIGH_CARD
    slots = [straight_slot] if straight_slot is not None else [2 * r for r, _ in groups]
    key = category.strength
    for i in range(5):
        key = (key << _SLOT_BITS) | (slots[i] if i < len(slots) else 0)
    return HighRank(key=key, category=category, ranks=ordered)


@dataclass(frozen=True, slots=True, kw_only=True)
class RankTables:
    """Every 5-card rank under one wheel option: ``unsuited`` by the product of the cards'
    :data:`CARD_PRIME`, ``suited`` (five cards of one suit, the joker allowed) by the OR of
    their :data:`CARD_RANK_BIT`, from 0 to ``2 * JOKER_RANK_BIT - 1`` (None where no such
    hand exists). A product no hand of five different cards makes is not a key (KeyError).

    :func:`rank_tables` gives tables filled one key at a time as keys are looked up
    (:class:`replay.games.lazy_table.LazyTable`); :func:`complete_rank_tables` gives every
    key at once, with the same answers (tests/test_lazy_tables.py compares every key)."""

    unsuited: Mapping[int, HighRank]
    suited: Mapping[int, HighRank | None]


class _Ranker:
    """The rank of each key of the tables under one wheel option, worked out from the key
    alone, each distinct rank one object (interned by key).

    The joker (docs/rules.md 6a.3) is an ace, or any absent card that completes a straight,
    flush, straight flush or royal flush, whichever is best: so with four natural ranks it is
    the best of "an ace" and "each absent rank that makes a straight"; with four cards of one
    suit, the best of "an ace" and "each absent rank of that suit" (a flush then holds the
    highest absent card, and A-K-Q-J-T made with the joker is a royal flush).
    """

    def __init__(self, wheel: Wheel) -> None:
        self.wheel = wheel
        self.interned: dict[int, HighRank] = {}

    def rank_of(self, ranks: Sequence[int], suited: bool) -> HighRank:
        rank = _natural_rank(ranks, suited=suited, wheel=self.wheel)
        return self.interned.setdefault(rank.key, rank)

    def unsuited_natural(self, five: Sequence[int]) -> HighRank:
        return self.rank_of(five, False)

    def unsuited_joker(self, four: Sequence[int]) -> HighRank:
        options = [self.rank_of((*four, Rank.ACE), False)]
        if len(set(four)) == 4:
            options += [
                self.rank_of((*four, r), False) for r in NATURAL_RANKS
                if r not in four
                and self.rank_of((*four, r), False).category is HandCategory.STRAIGHT
            ]
        return max(options)

    def suited_natural(self, five: Sequence[int]) -> HighRank:
        return self.rank_of(five, True)

    def suited_joker(self, four: Sequence[int]) -> HighRank:
        options = [self.rank_of((*four, Rank.ACE), False)]
        options += [self.rank_of((*four, r), True) for r in NATURAL_RANKS if r not in four]
        return max(options)

    def unsuited(self, product: int) -> HighRank:
        """The rank of the hand whose :data:`CARD_PRIME` multiply to ``product``; KeyError
        when no five different cards do."""
        factored = _factored(product)
        if factored is None:
            raise KeyError(product)
        natural, jokers = factored
        if len(natural) + jokers != HIGH_SIZE or jokers > 1 or any(
                natural.count(r) > 4 for r in natural):
            raise KeyError(product)
        return self.unsuited_joker(natural) if jokers else self.unsuited_natural(natural)

    def suited(self, mask: int) -> HighRank | None:
        """The rank of five cards of one suit whose :data:`CARD_RANK_BIT` OR to ``mask``
        (None when no such hand exists); KeyError outside the masks' range."""
        if not 0 <= mask < 2 * JOKER_RANK_BIT:
            raise KeyError(mask)
        ranks = [r for r in NATURAL_RANKS if mask >> (r - Rank.TWO) & 1]
        if mask & JOKER_RANK_BIT:
            return self.suited_joker(ranks) if len(ranks) == HIGH_SIZE - 1 else None
        return self.suited_natural(ranks) if len(ranks) == HIGH_SIZE else None


_PRIME_OF_RANK = tuple(zip(NATURAL_RANKS, _PRIMES, strict=True))


def _factored(product: int) -> tuple[list[int], int] | None:
    """The natural ranks (lowest first) and the number of jokers whose primes multiply to
    ``product``; None when ``product`` is not such a product."""
    if product < 1:
        return None
    jokers = 0
    while product % _JOKER_PRIME == 0:
        product //= _JOKER_PRIME
        jokers += 1
    natural = []
    for rank, prime in _PRIME_OF_RANK:
        while product % prime == 0:
            product //= prime
            natural.append(rank)
    return (natural, jokers) if product == 1 else None


def complete_rank_tables(wheel: Wheel) -> RankTables:
    """Every 5-card hand's rank under ``wheel``, by prime product (any suits) and by rank
    bitmask (one suit), built at once (about 0.15 s): the reference the tables of
    :func:`rank_tables`, filled as keys are looked up, are tested against."""
    ranker = _Ranker(Wheel(wheel))
    unsuited: dict[int, HighRank] = {}
    suited: list[HighRank | None] = [None] * (2 * JOKER_RANK_BIT)
    for five in combinations_with_replacement(NATURAL_RANKS, 5):
        if max(Counter(five).values()) <= 4:
            unsuited[prod(_PRIMES[r - 2] for r in five)] = ranker.unsuited_natural(five)
    for four in combinations_with_replacement(NATURAL_RANKS, 4):
        unsuited[prod(_PRIMES[r - 2] for r in four) * _JOKER_PRIME] = ranker.unsuited_joker(four)
    for five in combinations(NATURAL_RANKS, 5):
        suited[sum(1 << (r - 2) for r in five)] = ranker.suited_natural(five)
    for four in combinations(NATURAL_RANKS, 4):
        suited[sum(1 << (r - 2) for r in four) | JOKER_RANK_BIT] = ranker.suited_joker(four)
    return RankTables(unsuited=MappingProxyType(unsuited),
                      suited=MappingProxyType(dict(enumerate(suited))))


def _lazy_tables(wheel: Wheel) -> RankTables:
    ranker = _Ranker(Wheel(wheel))
    return RankTables(unsuited=MappingProxyType(LazyTable(ranker.unsuited)),
                      suited=MappingProxyType(LazyTable(ranker.suited)))


_TABLES: dict[str, RankTables] = {}


def rank_tables(wheel: Wheel) -> RankTables:
    """The :class:`RankTables` of ``wheel``, each rank worked out the first time its key is
    looked up (and kept)."""
    tables = _TABLES.get(wheel)
    if tables is None:
        tables = _TABLES[wheel] = _lazy_tables(wheel)
    return tables


def card_indexes(cards: Sequence[Card], size: int, what: str) -> list[int]:
    """The DECK_53 indexes of ``size`` different cards; :class:`HandError` names ``what``
    otherwise."""
    try:
        indexes = [card.index for card in cards]
    except (AttributeError, TypeError):
        raise HandError(f"{what} must be {size} cards, got {cards!r}") from None
    if len(indexes) != size or len(set(indexes)) != size:
        raise HandError(
            f"{what} must be {size} different cards, got {render_cards(cards)!r}"
        )
    return indexes


def rank_high(cards: Sequence[Card], *, wheel: Wheel = Wheel.SECOND_HIGHEST) -> HighRank:
    """The rank of a 5-card high hand (docs/rules.md 1.1, 6a.3, 6a.4).

    The joker is semi-wild: an ace, or the absent card that completes a straight, flush,
    straight flush or royal flush, whichever ranks best; four aces and the joker are five
    aces, the top hand. ``wheel`` places A-2-3-4-5 (default: second-highest straight and
    straight flush). :class:`HandError` when ``cards`` are not five different cards.
    """
    i0, i1, i2, i3, i4 = card_indexes(cards, HIGH_SIZE, "a high hand")
    tables = _TABLES.get(wheel) or rank_tables(wheel)
    suit, bit, prime = CARD_SUIT_BIT, CARD_RANK_BIT, CARD_PRIME
    suits = suit[i0] | suit[i1] | suit[i2] | suit[i3] | suit[i4]
    if not suits & (suits - 1):
        found = tables.suited[bit[i0] | bit[i1] | bit[i2] | bit[i3] | bit[i4]]
        if found is not None:
            return found
    return tables.unsuited[prime[i0] * prime[i1] * prime[i2] * prime[i3] * prime[i4]]


_LOW_PAIR_SHIFT = 8
_TWO_PAIR_STRENGTH = HandCategory.TWO_PAIR.strength
_ONE_PAIR_STRENGTH = HandCategory.ONE_PAIR.strength


def _low_table() -> dict[int, LowRank]:
    """Every 2-card rank by ``16 * higher + lower``. The key: a pair flag (bit
    :data:`_LOW_PAIR_SHIFT`) above the higher rank and the lower rank, 4 bits each."""
    table = {}
    for hi in NATURAL_RANKS:
        for lo in NATURAL_RANKS:
            if lo <= hi:
                key = (int(hi == lo) << _LOW_PAIR_SHIFT) | (hi << 4) | lo
                table[hi * 16 + lo] = LowRank(key=key, ranks=(Rank(hi), Rank(lo)))
    return table


_LOW = _low_table()


def rank_low(cards: Sequence[Card]) -> LowRank:
    """The rank of a 2-card low hand (docs/rules.md 1.1): a pair, or the two cards highest
    first; the joker is an ace (A + joker is a pair of aces, joker-4 is A-4)."""
    if type(cards) in (tuple, list) and len(cards) == LOW_SIZE:
        c0, c1 = cards  # the common case, two different cards, checked without card_indexes
        if type(c0) is Card and type(c1) is Card and c0.index != c1.index:
            r0, r1 = _LOW_VALUE[c0.index], _LOW_VALUE[c1.index]
            return _LOW[r0 * 16 + r1] if r0 >= r1 else _LOW[r1 * 16 + r0]
    i0, i1 = card_indexes(cards, LOW_SIZE, "a low hand")
    r0, r1 = _LOW_VALUE[i0], _LOW_VALUE[i1]
    return _LOW[r0 * 16 + r1] if r0 >= r1 else _LOW[r1 * 16 + r0]


def high_holds_low(high: HighRank, low: LowRank) -> bool:
    """Whether a 5-card rank holds a 2-card rank, equal or higher (docs/rules.md 6a.5;
    58 Pa. Code § 688a.1 "High hand": "equal to or higher than" the low hand): a low pair P
    needs two pair or better, or one pair of rank at least P; a low non-pair X-Y needs a pair
    or better, or the two highest cards at least X-Y compared highest first. Equal holds."""
    strength = high.key >> _CATEGORY_SHIFT  # the category's strength (HighRank checks it)
    if low.key >> _LOW_PAIR_SHIFT:  # a low pair
        if strength >= _TWO_PAIR_STRENGTH:
            return True
        return strength == _ONE_PAIR_STRENGTH and high.ranks[0] >= low.ranks[0]
    if strength >= _ONE_PAIR_STRENGTH:
        return True
    return (high.ranks[0], high.ranks[1]) >= low.ranks
