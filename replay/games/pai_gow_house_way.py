"""The pai gow poker house way: how the dealer (and a player who asks) sets seven cards
(docs/rules.md 1.3 and 7.5: the example house way of 1.3, completed where it is silent; pai
gow poker procedure (4): the dealer's hand is "properly set by the dealer").

What this module decides:

- the house way's setting of seven cards and the rule that chose it
  (:func:`house_way_setting`, :func:`house_way`; :data:`HOUSE_WAY_REFERENCE_1_3` with its
  completions C1-C8);
- whether a set hand conforms to the house way (:func:`follows_house_way`);
- the house ways a ruleset may name (:data:`HOUSE_WAYS`).

Speed: the house way works on card indexes: the seven cards are sorted by a precomputed
canonical place, grouped once by rank, and whether any five can be a straight or flush is a
lookup by rank mask and a test of the packed suit counts; the 21 splits are ranked only for
the hands where that can be so (about one in nine), and the best 5-card hand is never worked
out unless a straight-family rule meets four of a kind or a full house. About 10
microseconds a hand (55 before this design); the golden file pins that no setting changed.
Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from types import MappingProxyType
from typing import Any

from replay.cards import DECK_53, Card, Rank, Suit, render_cards
from replay.errors import HandError
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
from replay.rulesets import Wheel

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
class _Seven:
    """Seven cards analysed for the house way: in canonical order (``cards``, and their
    DECK_53 ``indexes``), grouped by rank (the joker joins the aces: completion C6), the
    groups of each size (``by_size[n]``: the groups of exactly n cards, highest rank first),
    the unmatched cards highest first (``singles``), and whether some five of them can be a
    straight or a flush (``straight_or_flush``). ``memo`` keeps what the straight rules work
    out, so that trying several rules does not work it out again."""

    cards: tuple[Card, ...]
    indexes: tuple[int, ...]
    groups: tuple[tuple[Card, ...], ...]
    by_size: tuple[tuple[tuple[Card, ...], ...], ...]
    singles: tuple[Card, ...]
    straight_or_flush: bool
    wheel: Wheel
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def sized(self, size: int) -> tuple[tuple[Card, ...], ...]:
        """The groups of exactly ``size`` cards, highest rank first."""
        return self.by_size[size]

    def best(self) -> HighRank:
        """The best 5-card rank of the seven cards (the best of the 21 splits' high hands)."""
        return max(rank_high(high, wheel=self.wheel) for high, _ in splits(self.cards))


def _analyse(cards7: Sequence[Card], wheel: Wheel) -> _Seven:
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
    return _Seven(
        cards=cards, indexes=indexes, groups=tuple(groups), by_size=tuple(map(tuple, by_size)),
        singles=tuple(g[0] for g in by_size[1]),
        straight_or_flush=_can_make_straight_or_flush(indexes), wheel=wheel,
    )


_Low = tuple[Card, ...] | None


def _hands(seven: _Seven, low: Sequence[Card]) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
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


def _five_aces(s: _Seven) -> _Low:
    quint = s.sized(5)
    return quint[0][3:5] if quint else None


def _quads_with_pair(s: _Seven) -> _Low:
    if not s.sized(4):
        return None
    others = [g for g in s.groups if len(g) in (2, 3)]
    return others[0][-2:] if others else None


def _quads_low(s: _Seven) -> _Low:
    quads = s.sized(4)
    if quads and quads[0][0].rank <= Rank.SIX:
        return s.singles[:2]
    return None


def _quads_middle_with_ace(s: _Seven) -> _Low:
    quads = s.sized(4)
    singles = s.singles
    if quads and Rank.SEVEN <= quads[0][0].rank <= Rank.JACK and _is_ace(singles[0]):
        return singles[:2]
    return None


def _quads_split(s: _Seven) -> _Low:
    quads = s.sized(4)
    return quads[0][2:4] if quads else None


def _two_trips(s: _Seven) -> _Low:
    trips = s.sized(3)
    return trips[0][1:3] if len(trips) == 2 else None


def _full_house(s: _Seven) -> _Low:
    pairs = s.sized(2)
    return pairs[0] if s.sized(3) and pairs else None


def _straight_splits(s: _Seven) -> tuple[tuple[Card, ...], ...]:
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


def _is_ace(card: Card) -> bool:
    return card.is_joker or card.rank is Rank.ACE


def _straight_pair_in_front(s: _Seven) -> _Low:
    lows = _straight_splits(s)
    return lows[0] if lows and rank_low(lows[0]).is_pair else None


def _pair_rule(s: _Seven) -> tuple[str, tuple[Card, ...]] | None:
    """The three-pair and two-pair rules of docs/rules.md 1.3: (rule name, low hand)."""
    pairs = s.sized(2)
    singles = s.singles
    if len(pairs) >= 3:
        return "three_pair", pairs[0]
    if len(pairs) != 2:
        return None
    high, low = pairs[0][0], pairs[1][0]
    high_rank = Rank.ACE if high.is_joker else high.rank
    if high_rank is Rank.ACE:
        return "two_pair_aces", pairs[1]
    if Rank.JACK <= high_rank <= Rank.KING and low.rank >= Rank.SIX:
        return "two_pair_face_and_six_or_higher", pairs[1]
    if high_rank <= Rank.SIX:
        return "two_pair_six_or_lower", singles[:2]
    if _is_ace(singles[0]):
        return "two_pair_with_ace", singles[:2]
    return "two_pair_split", pairs[1]


def _straight_two_pair_split(s: _Seven) -> _Low:
    if not _straight_splits(s):  # the best 5-card hand is not a straight or better of its family
        return None
    rule = _pair_rule(s)
    if rule is not None and len(rule[1]) == 2 and rank_low(rule[1]).is_pair:
        return rule[1]
    return None


def _straight_keep(s: _Seven) -> _Low:
    lows = _straight_splits(s)
    return lows[0] if lows else None


def _named_pair_rule(name: str) -> Callable[[_Seven], _Low]:
    def low(s: _Seven) -> _Low:
        rule = _pair_rule(s)
        return rule[1] if rule is not None and rule[0] == name else None

    return low


def _three_aces(s: _Seven) -> _Low:
    trips = s.sized(3)
    if trips and _is_ace(trips[0][0]):
        return (trips[0][2], s.singles[0])
    return None


def _three_of_a_kind(s: _Seven) -> _Low:
    return s.singles[:2] if s.sized(3) else None


def _one_pair(s: _Seven) -> _Low:
    return s.singles[:2] if len(s.sized(2)) == 1 else None


def _no_pair(s: _Seven) -> _Low:
    return s.singles[1:3] if len(s.singles) == HAND_SIZE else None


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWayRule:
    """One rule of a house way: ``low`` gives the 2-card hand when the rule applies, else
    None; the 5-card hand is the rest. ``clause`` cites docs/rules.md 1.3 or names the
    completion (C1-C8, see :data:`HOUSE_WAY_REFERENCE_1_3`) that fills a silence."""

    name: str
    clause: str
    text: str
    low: Callable[[_Seven], _Low] = field(repr=False, compare=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWay:
    """A casino's house way: rules tried in order, the first that applies sets the hand."""

    name: str
    title: str
    rules: tuple[HouseWayRule, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWaySetting:
    """The house way's setting of seven cards and the rule that chose it."""

    rule: HouseWayRule
    high: tuple[Card, ...]
    low: tuple[Card, ...]


def _rule(name: str, clause: str, text: str, low: Callable[[_Seven], _Low]) -> HouseWayRule:
    return HouseWayRule(name=name, clause=clause, text=text, low=low)


HOUSE_WAY_REFERENCE_1_3 = HouseWay(
    name="reference-1.3",
    title="The example house way of docs/rules.md 1.3, completed where it is silent",
    rules=(
        _rule("five_aces", "C1",
              "Five aces: split; a pair of aces in the 2-card hand, the other three aces "
              "(the joker among them) and the two other cards in the 5-card hand.",
              _five_aces),
        _rule("four_of_a_kind_with_pair", "C2",
              "Four of a kind with a pair (or trips) beside it: keep the four of a kind; "
              "the highest such pair in the 2-card hand.",
              _quads_with_pair),
        _rule("four_of_a_kind_six_or_lower", "C2",
              "Four of a kind, 2s to 6s: never split; the two highest other cards in front.",
              _quads_low),
        _rule("four_of_a_kind_seven_to_jack_with_ace", "C2",
              "Four of a kind, 7s to jacks, with an ace (or the joker): keep it; the ace and "
              "the next highest card in front.",
              _quads_middle_with_ace),
        _rule("four_of_a_kind_split", "C2",
              "Four of a kind otherwise (7s to jacks without an ace; queens to aces): split "
              "into two pairs, one in each hand.",
              _quads_split),
        _rule("two_three_of_a_kind", "1.3 Two sets of trips",
              "Two sets of trips: the lower trips in the 5-card hand; split the higher trips "
              "(a pair of them in front, the third behind).",
              _two_trips),
        _rule("full_house", "C3",
              "Full house (trips and a pair, or trips and two pairs): the highest pair in the "
              "2-card hand, the trips in the 5-card hand.",
              _full_house),
        _rule("straight_pair_in_front", "1.3 Straights; C4",
              "Straight, flush or straight flush with a pair that can be played in front "
              "while the 5-card hand stays a straight or better: play the pair in front.",
              _straight_pair_in_front),
        _rule("straight_two_pair_split", "C5",
              "Straight, flush or straight flush with two (or three) pair, when the pair "
              "rules below would put a pair in front: play the pair rules instead.",
              _straight_two_pair_split),
        _rule("straight", "1.3 Straights; C4",
              "Straight, flush or straight flush: keep it as the 5-card hand, choosing the "
              "one that leaves the best 2-card hand (with a 6- or 7-card straight the highest "
              "cards go in front).",
              _straight_keep),
        _rule("three_pair", "1.3 Three pair",
              "Three pair: the highest pair in the 2-card hand.",
              _named_pair_rule("three_pair")),
        _rule("two_pair_aces", "1.3 Two pair (a)",
              "Two pair, aces and any other pair: always split (the lower pair in front: C8).",
              _named_pair_rule("two_pair_aces")),
        _rule("two_pair_face_and_six_or_higher", "1.3 Two pair (b)",
              "Two pair, a face-card pair with 6s or higher: always split.",
              _named_pair_rule("two_pair_face_and_six_or_higher")),
        _rule("two_pair_six_or_lower", "1.3 Two pair (c)",
              "Two pair, both 6s or lower: never split; the two highest other cards in front.",
              _named_pair_rule("two_pair_six_or_lower")),
        _rule("two_pair_with_ace", "1.3 Two pair (d)",
              "Two pair otherwise, with an ace (or the joker): keep both pairs behind, the "
              "ace and the next highest card in front.",
              _named_pair_rule("two_pair_with_ace")),
        _rule("two_pair_split", "1.3 Two pair (d)",
              "Two pair otherwise, without an ace: split.",
              _named_pair_rule("two_pair_split")),
        _rule("three_aces", "1.3 Three of a kind",
              "Three aces (the joker may be one): break them up; a pair of aces behind, the "
              "third ace and the highest other card in front.",
              _three_aces),
        _rule("three_of_a_kind", "1.3 Three of a kind",
              "Three of a kind: keep it in the 5-card hand; the two highest other cards in "
              "front.",
              _three_of_a_kind),
        _rule("one_pair", "1.3 One pair",
              "One pair: the pair in the 5-card hand, the next two highest cards in front.",
              _one_pair),
        _rule("no_pair", "1.3 No pair",
              "No pair: the highest card in the 5-card hand, the next two highest in front.",
              _no_pair),
    ),
)
"""The one shipped house way (docs/rules.md 7.5: the example of 1.3, completed where it is
silent). Rules are tried in order; the first that applies sets the hand. Completions:

- C1 five aces (silent in 1.3): always split, a pair of aces in front. The 5-card hand keeps
  three aces: trips, or a full house when the other two cards pair.
- C2 four of a kind (silent): keep it with a pair in front when the other cards hold one;
  otherwise 2s-6s never split, 7s-jacks split unless an ace can go in front, queens-aces
  always split. This is the pattern common to published casino house ways.
- C3 full house (silent): split, the (highest) pair in front.
- C4 the 1.3 straight rule applies equally to flushes and straight flushes; "6-card
  straight: highest card in front" is read as "keep the straight (or flush) that leaves the
  best 2-card hand", which gives the same hands and covers 7-card straights and flushes;
  "with a pair: use the pair as the 2-card hand" (the 1.3 text is cut off here) applies when
  a straight or better is left behind.
- C5 straight or flush with two pair (silent): follow the two-pair rule when it puts a pair
  in front; otherwise keep the straight or flush.
- C6 the joker: it counts as an ace when grouping pairs and trips (1.1, 6a.3); it completes
  a straight or flush only where the straight rules keep one.
- C7 ties between interchangeable cards (equal ranks, different suits): the 5-card hand
  takes the cards first in canonical order (the joker, then spades, hearts, diamonds,
  clubs), so the result does not depend on the order the cards are given in.
- C8 "split" two pair (1.3 says only "split"): the higher pair behind, the lower in front,
  the only way that does not foul.

Every rule leaves a 5-card hand that holds its 2-card hand (6a.5), so the house way never
fouls; the tests check this over random hands with Hypothesis.
"""

HOUSE_WAYS: Mapping[str, HouseWay] = MappingProxyType(
    {HOUSE_WAY_REFERENCE_1_3.name: HOUSE_WAY_REFERENCE_1_3}
)
"""House ways by name, as a ruleset's ``house_way`` option names them."""


def house_way_setting(
    cards7: Sequence[Card],
    *,
    wheel: Wheel = Wheel.SECOND_HIGHEST,
    way: HouseWay = HOUSE_WAY_REFERENCE_1_3,
) -> HouseWaySetting:
    """The house way's setting of seven cards, with the rule that chose it (see
    :data:`HOUSE_WAY_REFERENCE_1_3`). Both hands are in canonical order."""
    seven = _analyse(cards7, wheel)
    for rule in way.rules:
        low = rule.low(seven)
        if low is not None:
            high, low_hand = _hands(seven, low)
            return HouseWaySetting(rule=rule, high=high, low=low_hand)
    raise HandError(f"house way {way.name} has no rule for {render_cards(seven.cards)}")


def house_way(
    cards7: Sequence[Card], *, wheel: Wheel = Wheel.SECOND_HIGHEST
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """The (high, low) hands the shipped house way sets seven cards into (docs/rules.md 1.3,
    completed: see :data:`HOUSE_WAY_REFERENCE_1_3`). Never a foul; the same for any order of
    the same cards."""
    setting = house_way_setting(cards7, wheel=wheel)
    return setting.high, setting.low


def follows_house_way(
    cards7: Sequence[Card],
    high: Sequence[Card],
    low: Sequence[Card],
    *,
    wheel: Wheel = Wheel.SECOND_HIGHEST,
    way: HouseWay = HOUSE_WAY_REFERENCE_1_3,
    preferred: HouseWaySetting | None = None,
) -> bool:
    """Whether a hand set from ``cards7`` into ``high`` (5 cards) and ``low`` (2) conforms to the
    house way (pai gow poker procedure (4): the dealer's hand is "properly set"): it is a setting
    the written way allows. Each rule of the shipped way sets one hand and leaves no choice but
    between interchangeable cards (equal ranks, different suits: completion C7), so a setting
    conforms when it puts the same cards in each hand as :func:`house_way_setting` (``preferred``,
    when the caller has it already), or hands of the same ranks (the other suit, or the joker for an
    ace where it completes nothing). Any other setting does not conform, however close."""
    setting = preferred or house_way_setting(cards7, wheel=wheel, way=way)
    if {c.index for c in setting.high} == {c.index for c in high}:
        return True
    return (rank_high(setting.high, wheel=wheel) == rank_high(high, wheel=wheel)
            and rank_low(setting.low) == rank_low(low))
