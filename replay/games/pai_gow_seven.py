"""Seven pai gow poker cards analysed once for a house way: sorted into a canonical order,
grouped by rank (the joker joins the aces: docs/rules.md 1.1, 6a.3), the shape of the groups,
and whether some five can be a straight or flush (docs/rules.md 1.3; the rules of a house
way, :mod:`replay.games.pai_gow_house_way_words`, read these facts).

Speed: the cards are sorted by a precomputed canonical place and grouped once by rank;
whether any five can be a straight or flush is a lookup by rank mask and a test of the packed
suit counts; the 21 splits are ranked only for the hands where that can be so (about one in
nine), and the best 5-card hand is never worked out unless a straight-family rule meets four
of a kind or a full house. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from replay.cards import DECK_53, Card, Rank, Suit
from replay.games.pai_gow_hands import HAND_SIZE, splits
from replay.games.poker_ranks import (
    CARD_PRIME,
    CARD_RANK_BIT,
    CARD_SUIT_BIT,
    JOKER_RANK_BIT,
    LOW_SIZE,
    NATURAL_RANKS,
    STRAIGHT_FAMILY,
    HighRank,
    card_indexes,
    rank_high,
    rank_low,
    rank_tables,
)
from replay.ruleset_model import Wheel

_SUIT_ORDER = {Suit.SPADES: 0, Suit.HEARTS: 1, Suit.DIAMONDS: 2, Suit.CLUBS: 3}


def _canonical(card: Card) -> tuple[int, int]:
    """Canonical order for setting: by rank, ace (and the joker, as an ace) first; among
    equal ranks the joker, then spades, hearts, diamonds, clubs."""
    if card.is_joker:
        return (-Rank.ACE, -1)
    return (-card.rank, _SUIT_ORDER[card.suit])


_CANONICAL = tuple(
    sorted(range(len(DECK_53)), key=lambda i: _canonical(DECK_53[i])).index(i)
    for i in range(len(DECK_53))
)
"""Each card's place in the canonical order (:func:`_canonical`), by DECK_53 index."""
_BY_CANONICAL = tuple(sorted(range(len(DECK_53)), key=_CANONICAL.__getitem__))
"""The DECK_53 index of the card at each place in the canonical order."""
_GROUP_RANK = tuple(int(Rank.ACE if c.is_joker else c.rank) for c in DECK_53)
"""The rank a card groups by: the joker joins the aces (completion C6)."""
_SUIT_COUNT = tuple(0 if c.is_joker else 1 << (4 * (c.index // 13)) for c in DECK_53)
"""A card's suit as a count in one of four 4-bit fields (the joker has no suit)."""
_SUIT_FIELDS = 0x1111
"""Bit 0 of each 4-bit suit field of :data:`_SUIT_COUNT` sums."""
_FOUR_OR_MORE = _SUIT_FIELDS << 2
"""Bit 2 of each suit field: a field (at most 7) is 4 or more exactly when it is set."""
_FIVE_WINDOWS = tuple(
    sum(CARD_RANK_BIT[r - Rank.TWO] for r in (Rank.ACE, 2, 3, 4, 5)) if low == 1
    else sum(CARD_RANK_BIT[r - Rank.TWO] for r in range(low, low + 5))
    for low in range(1, Rank.TEN + 1)
)
"""The rank masks of A-2-3-4-5 up to T-J-Q-K-A (the wheel's place does not matter here)."""
_SPLITS = tuple(
    (a, b, tuple(i for i in range(HAND_SIZE) if i != a and i != b))
    for a, b in combinations(range(HAND_SIZE), 2)
)
"""The 21 ways to set seven cards, as (low position, low position, high positions)."""
_STRAIGHTS: list[tuple[bool, ...]] = []


def _straights() -> tuple[bool, ...]:
    """By rank mask (:data:`CARD_RANK_BIT`, the joker's bit included): whether the ranks hold a
    straight, the joker standing for one missing rank (6a.3). Built on first use."""
    if not _STRAIGHTS:
        _STRAIGHTS.append(tuple(
            any((window & ~mask).bit_count() <= mask >> len(NATURAL_RANKS)
                for window in _FIVE_WINDOWS)
            for mask in range(2 * JOKER_RANK_BIT)
        ))
    return _STRAIGHTS[0]


def _can_make_straight_or_flush(indexes: Sequence[int]) -> bool:
    """True when some five of seven cards (DECK_53 indexes) are a straight or a flush, the
    joker completing either (6a.3): five natural ranks in one window (the joker standing for
    one missing rank), or five cards of one suit (four and the joker)."""
    mask = 0
    for i in indexes:
        mask |= CARD_RANK_BIT[i]
    if (_STRAIGHTS[0] if _STRAIGHTS else _straights())[mask]:
        return True
    suits = sum(map(_SUIT_COUNT.__getitem__, indexes))
    if mask & JOKER_RANK_BIT:
        return bool(suits & _FOUR_OR_MORE)
    # a field (at most 7) is 5 or more exactly when its bit 2 and its bit 0 or 1 are set
    return bool((suits >> 2) & (suits | suits >> 1) & _SUIT_FIELDS)


@dataclass(frozen=True, slots=True, kw_only=True)
class Seven:
    """Seven cards analysed for the house way: in canonical order (``cards``, and their
    DECK_53 ``indexes``), grouped by rank (the joker joins the aces: completion C6), the
    groups of each size (``by_size[n]``: the groups of exactly n cards, highest rank first),
    the unmatched cards highest first (``singles``), the group sizes largest first
    (``shape``: ``(4, 2, 1)`` is four of a kind, a pair and a single), and whether some five
    of them can be a straight or a flush (``straight_or_flush``). ``memo`` keeps what the
    straight rules work out, so that trying several rules does not work it out again."""

    cards: tuple[Card, ...]
    indexes: tuple[int, ...]
    groups: tuple[tuple[Card, ...], ...]
    by_size: tuple[tuple[tuple[Card, ...], ...], ...]
    singles: tuple[Card, ...]
    shape: tuple[int, ...]
    straight_or_flush: bool
    wheel: Wheel
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def sized(self, size: int) -> tuple[tuple[Card, ...], ...]:
        """The groups of exactly ``size`` cards, highest rank first."""
        return self.by_size[size]

    def best(self) -> HighRank:
        """The best 5-card rank of the seven cards (the best of the 21 splits' high hands)."""
        return max(rank_high(high, wheel=self.wheel) for high, _ in splits(self.cards))


def analyse(cards7: Sequence[Card], wheel: Wheel) -> Seven:
    """The :class:`Seven` of seven distinct cards; HandError names a wrong hand."""
    hand = tuple(cards7) if not isinstance(cards7, str) else ()
    places = sorted(map(_CANONICAL.__getitem__,
                        card_indexes(hand, HAND_SIZE, "a pai gow poker hand")))
    indexes = tuple(map(_BY_CANONICAL.__getitem__, places))
    cards = tuple(map(DECK_53.__getitem__, indexes))
    ranks = tuple(map(_GROUP_RANK.__getitem__, indexes))
    groups = []
    by_size: tuple[list[tuple[Card, ...]], ...] = ([], [], [], [], [], [])
    start = 0
    for end in range(1, HAND_SIZE + 1):
        if end == HAND_SIZE or ranks[end] != ranks[start]:
            group = cards[start:end]
            groups.append(group)
            by_size[end - start].append(group)
            start = end
    return Seven(
        cards=cards, indexes=indexes, groups=tuple(groups), by_size=tuple(map(tuple, by_size)),
        singles=tuple(g[0] for g in by_size[1]),
        shape=tuple(n for n in (5, 4, 3, 2, 1) for _ in by_size[n]),
        straight_or_flush=_can_make_straight_or_flush(indexes), wheel=wheel,
    )


Low = tuple[Card, ...] | None


def hands(seven: Seven, low: Sequence[Card]) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """The (high, low) hands when ``low`` goes in front, both in canonical order."""
    if len(low) == LOW_SIZE:
        i, j = low[0].index, low[1].index
        return (
            tuple(c for c, k in zip(seven.cards, seven.indexes, strict=True) if k != i and k != j),
            (low[0], low[1]) if _CANONICAL[i] < _CANONICAL[j] else (low[1], low[0]),
        )
    chosen = set(low)
    return (
        tuple(c for c in seven.cards if c not in chosen),
        tuple(c for c in seven.cards if c in chosen),
    )


def straight_splits(s: Seven) -> tuple[tuple[Card, ...], ...]:
    """The low hands that keep a straight or better-of-its-family (straight, flush, straight
    flush, royal flush) in the high hand, best low first (then best high; then the high hand
    taking the cards first in canonical order: completion C7); none when the seven cards'
    best 5-card hand is not of that family.

    The best hand is of that family exactly when some split keeps one behind and the seven
    cards hold no four of a kind, full house or five aces (the only hands above a straight
    outside the family, and straight flushes outranking the first two); with such a hand
    the best of the 21 splits is worked out in full (this never happens in the shipped
    house way, whose four of a kind and full house rules come first).
    """
    found = s.memo.get("straight")
    if found is not None:
        return found  # type: ignore[no-any-return]
    lows: tuple[tuple[Card, ...], ...] = ()
    if s.straight_or_flush:
        tables = rank_tables(s.wheel)
        suited, unsuited = tables.suited, tables.unsuited
        idx, cards = s.indexes, s.cards
        suit, bit, prime = CARD_SUIT_BIT, CARD_RANK_BIT, CARD_PRIME
        keyed = []
        for a, b, (h0, h1, h2, h3, h4) in _SPLITS:
            i0, i1, i2, i3, i4 = idx[h0], idx[h1], idx[h2], idx[h3], idx[h4]
            rank = None
            suits = suit[i0] | suit[i1] | suit[i2] | suit[i3] | suit[i4]
            if not suits & (suits - 1):
                rank = suited[bit[i0] | bit[i1] | bit[i2] | bit[i3] | bit[i4]]
            if rank is None:
                rank = unsuited[prime[i0] * prime[i1] * prime[i2] * prime[i3] * prime[i4]]
            if rank.category in STRAIGHT_FAMILY:
                low = (cards[a], cards[b])
                keyed.append((rank_low(low).key, rank.key, a, b, low))
        above = s.by_size[4] or s.by_size[5] or (s.by_size[3] and (
            s.by_size[2] or len(s.by_size[3]) > 1))
        if keyed and above and s.best().category not in STRAIGHT_FAMILY:
            keyed = []
        keyed.sort(reverse=True)
        lows = tuple(item[4] for item in keyed)
    s.memo["straight"] = lows
    return lows


def is_ace(card: Card) -> bool:
    """An ace, or the joker (which counts as an ace when grouping: completion C6)."""
    return card.is_joker or card.rank is Rank.ACE


def group_rank(card: Card) -> int:
    """The rank a card groups by (the joker's is the ace's)."""
    return _GROUP_RANK[card.index]


