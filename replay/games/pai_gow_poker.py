"""Classic pai gow poker: dealer- or player-banked rounds, the main wager and the Fortune and
Progressive wagers (REFERENCE.md 1, 6, 6a).

What this module decides, each with the rule it implements:

- the rank of a 5-card high hand, joker included (:func:`rank_high`; REFERENCE.md 1.1, 6a.3,
  6a.4) and of a 2-card low hand (:func:`rank_low`; 1.1);
- whether a set hand is a foul (:func:`is_foul`; 6a.5);
- the outcome of a seat's hands against the banker's (:func:`compare`; seed 688a.7(f),
  seed excerpt 002 clauses (1)-(9), REFERENCE.md 1.1: copies go to the banker);
- the settlement of the main wager (:func:`settle_main`; 1.2, 6a.1: 1:1 less commission,
  commission read from the ruleset);
- the house way (:func:`house_way`; 1.3 completed, see :data:`HOUSE_WAY_REFERENCE_1_3`);
- the judgement of a whole dealer-banked round (:func:`adjudicate`; 6a.6, 6a.7, STYLE.md 7);
- the judgement of a round document (issue 3), dealer-banked or player-banked, with the
  dealer's wager against a player banker and co-banking 50/50 with the house
  (:func:`judge_document` = :func:`read_document` + :func:`judge_round`; 1.2, 6a.1, 6a.7,
  6a.14, 6a.18; seed 001 clauses (2), (4), (10), (11); seed 002 clauses (1)-(16)). Who
  banks, the co-bank share, the dealer's wager and the player banker's account
  (:class:`BankerResult`) follow the rules pai gow tiles shares, in
  :mod:`replay.games.pai_gow_banking`, with this game's commission;
- in a round document, the Fortune and Progressive wagers and the Envy Bonus, settled as in
  Face Up by :func:`replay.games.face_up_pai_gow.settle_bonus_wagers` (6a.6, 6a.10-6a.13,
  6a.18), between each seat and the house whoever banks (6a.14).

No rate, rounding, share, paytable or wheel position is a literal here: they come from the
``Ruleset`` (commission, wheel, house way, the options ``co_bank_share_bps``,
``co_bank_rounding`` and ``qualifying_wager_cents``, and the paytables ``fortune``,
``progressive`` and ``envy``).
Nothing here does I/O.

Speed: :func:`rank_high` is a table lookup. Each card contributes a prime per rank (the joker
its own prime) and a suit bit; five cards of one suit (the joker has no suit bit) index a
table by rank bitmask, any other hand a table by the product of its primes. The tables hold
every possible answer as a prebuilt, interned :class:`HighRank`, so a call allocates nothing
but a list of the five card indexes (about 0.6 microseconds a hand in CPython). The tables
are built on first use of each wheel option (about 0.15 s).

The house way works on card indexes: the seven cards are sorted by a precomputed canonical
place, grouped once by rank, and whether any five can be a straight or flush is a lookup by
rank mask and a test of the packed suit counts; the 21 splits are ranked only for the
hands where that can be so (about one in nine), and the best 5-card hand is never worked out
unless a straight-family rule meets four of a kind or a full house. About 10 microseconds
a hand (55 before this design); the golden file pins that no setting changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import combinations, combinations_with_replacement
from math import prod
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from replay.cards import DECK_53, Card, Rank, Suit, render_cards
from replay.document import DocumentError, mapping, round_header, seat_list
from replay.document import cards as read_cards
from replay.document import cents as read_cents
from replay.document import field as read_field
from replay.document import seat_number as read_seat
from replay.document import wagers as read_wagers
from replay.errors import HandError, MoneyError, RoundError
from replay.games.base import GameRules
from replay.games.pai_gow_banking import DEALER as DEALER
from replay.games.pai_gow_banking import OPTION_CO_BANK_ROUNDING as OPTION_CO_BANK_ROUNDING
from replay.games.pai_gow_banking import OPTION_CO_BANK_SHARE_BPS as OPTION_CO_BANK_SHARE_BPS
from replay.games.pai_gow_banking import OPTION_NAMES as BANKING_OPTION_NAMES
from replay.games.pai_gow_banking import BankerResult as BankerResult
from replay.games.pai_gow_banking import PlayerBanker as PlayerBanker
from replay.games.pai_gow_banking import ShareRounding as ShareRounding
from replay.games.pai_gow_banking import banker_account, dealer_wager_net, read_banker
from replay.games.results import Outcome as Outcome
from replay.games.results import dealer_entry, result_object, seat_entry, settled_entry
from replay.notation import MAIN, HandHolding, PaiGowRound, SeatHolding, render_round
from replay.rulesets import Wheel

if TYPE_CHECKING:
    from replay.games.face_up_pai_gow import BonusResult
    from replay.rulesets import Ruleset

GAME = "pai_gow_poker"
"""This module's game name, as in rounds, rulesets and events."""

HAND_SIZE = 7
HIGH_SIZE = 5
LOW_SIZE = 2


# ---------------------------------------------------------------------------------------
# Hand ranks
# ---------------------------------------------------------------------------------------


class HandCategory(StrEnum):
    """Five-card hand categories (REFERENCE.md 1.1: "five aces, royal flush, straight flush,
    four of a kind, full house, flush, straight, three of a kind, two pair, one pair, high
    card"). The value is the stable name; compare by :attr:`strength`, never by value (the
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
        """0 for high card up to 10 for five aces: the category's place in REFERENCE.md 1.1."""
        return _STRENGTH[self]


_STRENGTH: Mapping[HandCategory, int] = MappingProxyType(
    {category: strength for strength, category in enumerate(reversed(HandCategory))}
)
_STRAIGHT_FAMILY = frozenset(
    {HandCategory.STRAIGHT, HandCategory.FLUSH, HandCategory.STRAIGHT_FLUSH,
     HandCategory.ROYAL_FLUSH}
)

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
    copies (REFERENCE.md 1.1: suits never break ties).

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
    (REFERENCE.md 1.1: pairs A-A down to 2-2 above non-pairs A-K down to 3-2; the joker is an
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

_NATURAL = tuple(range(Rank.TWO, Rank.ACE + 1))
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_JOKER_PRIME = 43
_JOKER_BIT = 1 << len(_NATURAL)
_SUIT_BITS = {Suit.CLUBS: 1, Suit.DIAMONDS: 2, Suit.HEARTS: 4, Suit.SPADES: 8}


def _card_prime(card: Card) -> int:
    return _JOKER_PRIME if card.is_joker else _PRIMES[card.rank - Rank.TWO]


_PRIME = tuple(_card_prime(c) for c in DECK_53)
_RANK_BIT = tuple(_JOKER_BIT if c.is_joker else 1 << (c.rank - Rank.TWO) for c in DECK_53)
_SUIT_BIT = tuple(0 if c.is_joker else _SUIT_BITS[c.suit] for c in DECK_53)
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
class _Tables:
    unsuited: Mapping[int, HighRank]
    suited: tuple[HighRank | None, ...]


def _build_tables(wheel: Wheel) -> _Tables:
    """Every 5-card hand's rank, by prime product (any suits) and by rank bitmask (one suit).

    The joker (REFERENCE.md 6a.3) is an ace, or any absent card that completes a straight,
    flush, straight flush or royal flush, whichever is best: so with four natural ranks it is
    the best of "an ace" and "each absent rank that makes a straight"; with four cards of one
    suit, the best of "an ace" and "each absent rank of that suit" (a flush then holds the
    highest absent card, and A-K-Q-J-T made with the joker is a royal flush).
    """
    interned: dict[int, HighRank] = {}

    def intern(rank: HighRank) -> HighRank:
        return interned.setdefault(rank.key, rank)

    def rank_of(ranks: Sequence[int], suited: bool) -> HighRank:
        return intern(_natural_rank(ranks, suited=suited, wheel=wheel))

    unsuited: dict[int, HighRank] = {}
    suited: list[HighRank | None] = [None] * (2 * _JOKER_BIT)
    for five in combinations_with_replacement(_NATURAL, 5):
        if max(Counter(five).values()) <= 4:
            unsuited[prod(_PRIMES[r - 2] for r in five)] = rank_of(five, False)
    for four in combinations_with_replacement(_NATURAL, 4):
        options = [rank_of((*four, Rank.ACE), False)]
        if len(set(four)) == 4:
            options += [
                rank_of((*four, r), False) for r in _NATURAL
                if r not in four
                and rank_of((*four, r), False).category is HandCategory.STRAIGHT
            ]
        unsuited[prod(_PRIMES[r - 2] for r in four) * _JOKER_PRIME] = max(options)
    for five in combinations(_NATURAL, 5):
        suited[sum(1 << (r - 2) for r in five)] = rank_of(five, True)
    for four in combinations(_NATURAL, 4):
        options = [rank_of((*four, Rank.ACE), False)]
        options += [rank_of((*four, r), True) for r in _NATURAL if r not in four]
        suited[sum(1 << (r - 2) for r in four) | _JOKER_BIT] = max(options)
    return _Tables(unsuited=MappingProxyType(unsuited), suited=tuple(suited))


_TABLES: dict[str, _Tables] = {}


def _tables(wheel: Wheel) -> _Tables:
    tables = _TABLES.get(wheel)
    if tables is None:
        tables = _TABLES[wheel] = _build_tables(Wheel(wheel))
    return tables


def _indexes(cards: Sequence[Card], size: int, what: str) -> list[int]:
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
    """The rank of a 5-card high hand (REFERENCE.md 1.1, 6a.3, 6a.4).

    The joker is semi-wild: an ace, or the absent card that completes a straight, flush,
    straight flush or royal flush, whichever ranks best; four aces and the joker are five
    aces, the top hand. ``wheel`` places A-2-3-4-5 (default: second-highest straight and
    straight flush). :class:`HandError` when ``cards`` are not five different cards.
    """
    i0, i1, i2, i3, i4 = _indexes(cards, HIGH_SIZE, "a high hand")
    tables = _TABLES.get(wheel) or _tables(wheel)
    suits = _SUIT_BIT[i0] | _SUIT_BIT[i1] | _SUIT_BIT[i2] | _SUIT_BIT[i3] | _SUIT_BIT[i4]
    if not suits & (suits - 1):
        found = tables.suited[
            _RANK_BIT[i0] | _RANK_BIT[i1] | _RANK_BIT[i2] | _RANK_BIT[i3] | _RANK_BIT[i4]
        ]
        if found is not None:
            return found
    return tables.unsuited[_PRIME[i0] * _PRIME[i1] * _PRIME[i2] * _PRIME[i3] * _PRIME[i4]]


_LOW_PAIR_SHIFT = 8
_TWO_PAIR_STRENGTH = HandCategory.TWO_PAIR.strength
_ONE_PAIR_STRENGTH = HandCategory.ONE_PAIR.strength


def _low_table() -> dict[int, LowRank]:
    """Every 2-card rank by ``16 * higher + lower``. The key: a pair flag (bit
    :data:`_LOW_PAIR_SHIFT`) above the higher rank and the lower rank, 4 bits each."""
    table = {}
    for hi in _NATURAL:
        for lo in _NATURAL:
            if lo <= hi:
                key = (int(hi == lo) << _LOW_PAIR_SHIFT) | (hi << 4) | lo
                table[hi * 16 + lo] = LowRank(key=key, ranks=(Rank(hi), Rank(lo)))
    return table


_LOW = _low_table()


def rank_low(cards: Sequence[Card]) -> LowRank:
    """The rank of a 2-card low hand (REFERENCE.md 1.1): a pair, or the two cards highest
    first; the joker is an ace (A + joker is a pair of aces, joker-4 is A-4)."""
    if type(cards) in (tuple, list) and len(cards) == LOW_SIZE:
        c0, c1 = cards  # the common case, two different cards, checked without _indexes
        if type(c0) is Card and type(c1) is Card and c0.index != c1.index:
            r0, r1 = _LOW_VALUE[c0.index], _LOW_VALUE[c1.index]
            return _LOW[r0 * 16 + r1] if r0 >= r1 else _LOW[r1 * 16 + r0]
    i0, i1 = _indexes(cards, LOW_SIZE, "a low hand")
    r0, r1 = _LOW_VALUE[i0], _LOW_VALUE[i1]
    return _LOW[r0 * 16 + r1] if r0 >= r1 else _LOW[r1 * 16 + r0]


def _as_high(hand: HighRank | Sequence[Card], wheel: Wheel) -> HighRank:
    return hand if isinstance(hand, HighRank) else rank_high(hand, wheel=wheel)


def _as_low(hand: LowRank | Sequence[Card]) -> LowRank:
    return hand if isinstance(hand, LowRank) else rank_low(hand)


def _high_holds_low(high: HighRank, low: LowRank) -> bool:
    """REFERENCE.md 6a.5: a low pair P needs two pair or better, or one pair of rank at least
    P; a low non-pair X-Y needs a pair or better, or the two highest cards at least X-Y
    compared highest first. Equal is not a foul."""
    strength = high.key >> _CATEGORY_SHIFT  # the category's strength (HighRank checks it)
    if low.key >> _LOW_PAIR_SHIFT:  # a low pair
        if strength >= _TWO_PAIR_STRENGTH:
            return True
        return strength == _ONE_PAIR_STRENGTH and high.ranks[0] >= low.ranks[0]
    if strength >= _ONE_PAIR_STRENGTH:
        return True
    return (high.ranks[0], high.ranks[1]) >= low.ranks


def is_foul(high: HighRank | Sequence[Card], low: LowRank | Sequence[Card]) -> bool:
    """True when the high hand ranks below the low hand (REFERENCE.md 6a.5, glossary "foul";
    seed 688a.7(f)(1)(iii): the high hand must rank "equal to or higher than" the low hand).

    Cards or ranks may be given. The joker counts as an ace in the high hand unless it
    completes a straight or flush there (which :func:`rank_high` decides); the wheel option
    does not matter here, since any straight holds any low hand.
    """
    if type(high) is not HighRank:
        high = _as_high(high, Wheel.SECOND_HIGHEST)
    if type(low) is not LowRank:
        low = _as_low(low)
    return not _high_holds_low(high, low)


def _seven(cards: Sequence[Card]) -> tuple[Card, ...]:
    hand = tuple(cards) if not isinstance(cards, str) else ()
    _indexes(hand, HAND_SIZE, "a pai gow poker hand")
    return hand


def splits(cards7: Sequence[Card]) -> Iterator[tuple[tuple[Card, ...], tuple[Card, ...]]]:
    """Every way to set seven cards: 21 (high, low) pairs, C(7, 2) choices of the low hand
    (glossary "set"), fouls included. Each hand keeps the order of ``cards7``."""
    hand = _seven(cards7)
    for a, b in combinations(range(HAND_SIZE), 2):
        yield (
            tuple(card for i, card in enumerate(hand) if i != a and i != b),
            (hand[a], hand[b]),
        )


# ---------------------------------------------------------------------------------------
# Comparison and settlement
# ---------------------------------------------------------------------------------------


def compare(
    *,
    player_high: HighRank | Sequence[Card],
    player_low: LowRank | Sequence[Card],
    banker_high: HighRank | Sequence[Card],
    banker_low: LowRank | Sequence[Card],
    wheel: Wheel = Wheel.SECOND_HIGHEST,
) -> Outcome:
    """A set hand against the banker's (hands as cards or as ranks), fouls aside.

    Seed 688a.7(f): (3) win when both the player's hands are higher; (1)(i) lose when both
    are lower; (1)(ii) lose when one is identical in rank (a copy) and the other identical or
    lower; (2)(i)/(ii) tie (push) when one is higher and the other identical or lower. Seed
    excerpt 002 says the same: (1)-(2) win both, (5) identical hands are ties and the banker
    wins them, (6) lose both, (9) win one = push; REFERENCE.md 1.1. So a hand wins only when
    it is strictly higher.
    """
    high_won = _as_high(player_high, wheel) > _as_high(banker_high, wheel)
    low_won = _as_low(player_low) > _as_low(banker_low)
    if high_won and low_won:
        return Outcome.WIN
    if not high_won and not low_won:
        return Outcome.LOSS
    return Outcome.PUSH


def _cents(name: str, value: object) -> int:
    if type(value) is not int:
        raise MoneyError(f"{name} must be integer cents, got {value!r}")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Settlement:
    """What a wager's outcome is worth to the player: ``net_cents`` (won, or lost when
    negative, after commission) and the ``commission_cents`` the house collected."""

    outcome: Outcome
    net_cents: int
    commission_cents: int

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, Outcome) or self.outcome is Outcome.VOID:
            raise MoneyError(f"pai gow poker voids no wager: outcome must be a win, loss or "
                             f"push, got {self.outcome!r}")
        net = _cents("net_cents", self.net_cents)
        commission = _cents("commission_cents", self.commission_cents)
        if commission < 0:
            raise MoneyError(f"commission_cents must not be negative, got {commission}")
        if self.outcome is Outcome.WIN and net < 0:
            raise MoneyError(f"a win cannot have a negative net, got {net}")
        if self.outcome is not Outcome.WIN and commission:
            raise MoneyError(
                f"no commission on a {self.outcome} (REFERENCE.md 1.2), got {commission}"
            )
        if self.outcome is Outcome.LOSS and net > 0:
            raise MoneyError(f"a loss cannot have a positive net, got {net}")
        if self.outcome is Outcome.PUSH and net:
            raise MoneyError(f"a push has a net of 0, got {net}")


def settle_main(*, amount_cents: int, outcome: Outcome, ruleset: Ruleset) -> Settlement:
    """The main wager's settlement (REFERENCE.md 1.2, 6, 6a.1; seed excerpt 002 clauses (15),
    (16)): a win pays 1:1 less the ruleset's commission on the win (2500 -> net 2375,
    commission 125); a loss loses the amount; a push returns it (net 0). No commission on
    pushes or losses."""
    amount = _cents("amount_cents", amount_cents)
    if amount < 0:
        raise MoneyError(f"amount_cents must not be negative, got {amount}")
    if outcome is Outcome.WIN:
        commission = ruleset.commission.on(amount)
        return Settlement(outcome=outcome, net_cents=amount - commission,
                          commission_cents=commission)
    if outcome is Outcome.LOSS:
        return Settlement(outcome=outcome, net_cents=-amount, commission_cents=0)
    if outcome is Outcome.PUSH:
        return Settlement(outcome=outcome, net_cents=0, commission_cents=0)
    raise MoneyError(f"pai gow poker voids no wager: outcome must be a win, loss or push, "
                     f"got {outcome!r}")


# ---------------------------------------------------------------------------------------
# House way
# ---------------------------------------------------------------------------------------

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
    sum(_RANK_BIT[r - Rank.TWO] for r in (Rank.ACE, 2, 3, 4, 5)) if low == 1
    else sum(_RANK_BIT[r - Rank.TWO] for r in range(low, low + 5))
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
    """By rank mask (:data:`_RANK_BIT`, the joker's bit included): whether the ranks hold a
    straight, the joker standing for one missing rank (6a.3). Built on first use."""
    if not _STRAIGHTS:
        _STRAIGHTS.append(tuple(
            any((window & ~mask).bit_count() <= mask >> len(_NATURAL) for window in _FIVE_WINDOWS)
            for mask in range(2 * _JOKER_BIT)
        ))
    return _STRAIGHTS[0]


def _can_make_straight_or_flush(indexes: Sequence[int]) -> bool:
    """True when some five of seven cards (DECK_53 indexes) are a straight or a flush, the
    joker completing either (6a.3): five natural ranks in one window (the joker standing for
    one missing rank), or five cards of one suit (four and the joker)."""
    mask = 0
    for i in indexes:
        mask |= _RANK_BIT[i]
    if (_STRAIGHTS[0] if _STRAIGHTS else _straights())[mask]:
        return True
    suits = sum(map(_SUIT_COUNT.__getitem__, indexes))
    if mask & _JOKER_BIT:
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
    places = sorted(map(_CANONICAL.__getitem__, _indexes(hand, HAND_SIZE, "a pai gow poker hand")))
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
        tables = _TABLES.get(s.wheel) or _tables(s.wheel)
        suited, unsuited = tables.suited, tables.unsuited
        idx, cards = s.indexes, s.cards
        keyed = []
        for a, b, (h0, h1, h2, h3, h4) in _SPLITS:
            i0, i1, i2, i3, i4 = idx[h0], idx[h1], idx[h2], idx[h3], idx[h4]
            rank = None
            suits = (_SUIT_BIT[i0] | _SUIT_BIT[i1] | _SUIT_BIT[i2] | _SUIT_BIT[i3]
                     | _SUIT_BIT[i4])
            if not suits & (suits - 1):
                rank = suited[_RANK_BIT[i0] | _RANK_BIT[i1] | _RANK_BIT[i2] | _RANK_BIT[i3]
                              | _RANK_BIT[i4]]
            if rank is None:
                rank = unsuited[_PRIME[i0] * _PRIME[i1] * _PRIME[i2] * _PRIME[i3] * _PRIME[i4]]
            if rank.category in _STRAIGHT_FAMILY:
                low = (cards[a], cards[b])
                keyed.append((rank_low(low).key, rank.key, a, b, low))
        above = s.by_size[4] or s.by_size[5] or (s.by_size[3] and (
            s.by_size[2] or len(s.by_size[3]) > 1))
        if keyed and above and s.best().category not in _STRAIGHT_FAMILY:
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
    """The three-pair and two-pair rules of REFERENCE.md 1.3: (rule name, low hand)."""
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
    None; the 5-card hand is the rest. ``clause`` cites REFERENCE.md 1.3 or names the
    completion (C1-C7, see :data:`HOUSE_WAY_REFERENCE_1_3`) that fills a silence."""

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
    title="The example house way of REFERENCE.md 1.3, completed where it is silent",
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
"""The one shipped house way (REFERENCE.md 7.5: the example of 1.3, completed where it is
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
    """The (high, low) hands the shipped house way sets seven cards into (REFERENCE.md 1.3,
    completed: see :data:`HOUSE_WAY_REFERENCE_1_3`). Never a foul; the same for any order of
    the same cards."""
    setting = house_way_setting(cards7, wheel=wheel)
    return setting.high, setting.low


# ---------------------------------------------------------------------------------------
# Judging a round
# ---------------------------------------------------------------------------------------


class Evaluation(StrEnum):
    """Whether a round could be judged (STYLE.md 7): one that cannot is NOT_EVALUATED, with
    its reasons, and never counts as a pass."""

    EVALUATED = "evaluated"
    NOT_EVALUATED = "not_evaluated"


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerResult:
    """The dealer's hand as set: ``foul`` (reported, and compared as set: 6a.7), whether it
    follows the house way, and the house way's setting. None where the dealer's own holding
    could not be judged."""

    foul: bool | None = None
    house_way: bool | None = None
    house_way_high: tuple[Card, ...] | None = None
    house_way_low: tuple[Card, ...] | None = None
    house_way_rule: str | None = None
    high_rank: HighRank | None = None
    low_rank: LowRank | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatResult:
    """A seat's judgement: ``foul`` (None when its hand was not set and it had no main
    wager) and the main wager's :class:`Settlement` (None when there was no main wager or it
    was zero: REFERENCE.md 6a.18); in a round document, also its Fortune and Progressive
    wagers' settlements (None when not wagered) and the Envy Bonus it receives in cents
    (6a.11, 6a.18)."""

    seat: int
    foul: bool | None
    main: Settlement | None
    high_rank: HighRank | None = None
    low_rank: LowRank | None = None
    fortune: Settlement | None = None
    progressive: Settlement | None = None
    envy_cents: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundResult:
    """The judgement of a round: every problem found (all at once), and when there is none
    the dealer's and each seat's result. ``notation`` is the round's one-line form."""

    round_id: str
    notation: str
    ruleset_id: str
    evaluation: Evaluation
    problems: tuple[str, ...]
    dealer: DealerResult
    seats: tuple[SeatResult, ...]

    @property
    def evaluated(self) -> bool:
        """True when the round was judged (no problems)."""
        return self.evaluation is Evaluation.EVALUATED


def _holding_problems(
    who: str,
    cards: tuple[Card, ...],
    high: tuple[Card, ...] | None,
    low: tuple[Card, ...] | None,
    *,
    must_be_set: bool,
) -> list[str]:
    problems = []
    if len(cards) != HAND_SIZE:
        problems.append(
            f"{who} holds {len(cards)} dealt cards, not {HAND_SIZE}: {render_cards(cards)!r}"
        )
    if high is None or low is None:
        if must_be_set:
            problems.append(f"{who}'s hand was not set")
        return problems
    if len(high) != HIGH_SIZE or len(low) != LOW_SIZE:
        problems.append(
            f"{who} set {len(high)}+{len(low)} cards, not {HIGH_SIZE}+{LOW_SIZE}: "
            f"{render_cards(high)!r} / {render_cards(low)!r}"
        )
    set_cards, dealt = Counter(high + low), Counter(cards)
    if set_cards != dealt:
        problems.append(
            f"{who}'s set hand does not use exactly the dealt cards: set but not dealt "
            f"{render_cards((set_cards - dealt).elements())!r}, dealt but not set "
            f"{render_cards((dealt - set_cards).elements())!r}"
        )
    return problems


def _deal_problems(round: PaiGowRound, must_be_set: Callable[[SeatHolding], bool]) -> list[str]:
    """Every problem with the cards of a round, all at once (STYLE.md 7): a holding of other
    than 7 dealt cards, a set hand of other than 5+2 cards or not using exactly the dealt
    cards (glossary "set"), the dealer's hand (or a seat's for which ``must_be_set``) not set,
    a seat number used twice, a card dealt twice in the round (one 53-card deck, 1.1)."""
    dealer = round.dealer
    problems = _holding_problems("dealer", dealer.cards, dealer.high, dealer.low,
                                 must_be_set=True)
    seat_numbers = Counter(seat.seat for seat in round.seats)
    problems += [f"seat {n} appears {k} times" for n, k in seat_numbers.items() if k > 1]
    for seat in round.seats:
        problems += _holding_problems(f"seat {seat.seat}", seat.cards, seat.high, seat.low,
                                      must_be_set=must_be_set(seat))
    where: dict[Card, list[str]] = {}
    for who, cards in (("dealer", dealer.cards),
                       *((f"seat {s.seat}", s.cards) for s in round.seats)):
        for card in cards:
            where.setdefault(card, []).append(who)
    problems += [
        f"card {card} was dealt {len(places)} times ({', '.join(places)})"
        for card, places in sorted(where.items(), key=lambda item: item[0].index)
        if len(places) > 1
    ]
    return problems


def _dealer_result(round: PaiGowRound, wheel: Wheel, way: HouseWay | None) -> DealerResult:
    dealer = round.dealer
    if dealer.high is None or dealer.low is None or _holding_problems(
        "dealer", dealer.cards, dealer.high, dealer.low, must_be_set=True
    ) or len(set(dealer.cards)) != HAND_SIZE:
        return DealerResult()
    high = rank_high(dealer.high, wheel=wheel)
    low = rank_low(dealer.low)
    if way is None:
        return DealerResult(foul=not _high_holds_low(high, low), high_rank=high, low_rank=low)
    setting = house_way_setting(dealer.cards, wheel=wheel, way=way)
    follows = (set(setting.high) == set(dealer.high) and set(setting.low) == set(dealer.low)) or (
        rank_high(setting.high, wheel=wheel) == high and rank_low(setting.low) == low
    )
    return DealerResult(
        foul=not _high_holds_low(high, low), house_way=follows, house_way_high=setting.high,
        house_way_low=setting.low, house_way_rule=setting.rule.name, high_rank=high,
        low_rank=low,
    )


def adjudicate(round: PaiGowRound, ruleset: Ruleset) -> RoundResult:
    """Judge a dealer-banked round's main wagers under ``ruleset``.

    Problems that make a round impossible to judge are all reported at once and the round
    is NOT_EVALUATED, with no seat results (STYLE.md 7): a game or ruleset for another game,
    an unknown house way, a holding of other than 7 dealt cards, a set hand of other than
    5+2 cards or not using exactly the dealt cards, a dealer hand (or a hand with a main
    wager) not set, a seat number used twice, a card dealt twice in the round.

    Otherwise: a fouled player hand loses the main wager (seed 688a.7(f)(1)(iii), 6a.6); a
    fouled dealer hand is reported and compared as it was set (6a.7); every other hand is
    compared with :func:`compare` and settled with :func:`settle_main`. The dealer result
    says whether the dealer's set hand follows the house way named by the ruleset: the same
    cards in each hand, or hands of the same ranks (the house way's choice between cards of
    equal rank is arbitrary, so a dealer who chose the other suit still followed it).
    """
    notation = render_round(round)
    wheel = ruleset.wheel
    way = HOUSE_WAYS.get(ruleset.house_way)
    problems: list[str] = []
    if round.game != GAME:
        problems.append(f"round is of game {round.game!r}, not {GAME!r}")
    if ruleset.game != GAME:
        problems.append(f"ruleset {ruleset.id} is for game {ruleset.game!r}, not {GAME!r}")
    if way is None:
        problems.append(
            f"ruleset {ruleset.id} names house way {ruleset.house_way!r}; known: "
            f"{', '.join(sorted(HOUSE_WAYS))}"
        )
    problems += _deal_problems(round, lambda seat: seat.wagers.get(MAIN, 0) > 0)
    dealer_result = _dealer_result(round, wheel, way)
    if problems:
        return RoundResult(
            round_id=round.round_id, notation=notation, ruleset_id=ruleset.id,
            evaluation=Evaluation.NOT_EVALUATED, problems=tuple(problems),
            dealer=dealer_result, seats=(),
        )
    assert dealer_result.high_rank is not None and dealer_result.low_rank is not None
    seats = []
    for seat in round.seats:
        if seat.high is None or seat.low is None:
            seats.append(SeatResult(seat=seat.seat, foul=None, main=None))
            continue
        high, low = rank_high(seat.high, wheel=wheel), rank_low(seat.low)
        foul = not _high_holds_low(high, low)
        amount = seat.wagers.get(MAIN, 0)
        main = None
        if amount > 0:
            outcome = Outcome.LOSS if foul else compare(
                player_high=high, player_low=low,
                banker_high=dealer_result.high_rank, banker_low=dealer_result.low_rank,
            )
            main = settle_main(amount_cents=amount, outcome=outcome, ruleset=ruleset)
        seats.append(SeatResult(seat=seat.seat, foul=foul, main=main, high_rank=high,
                                low_rank=low))
    return RoundResult(
        round_id=round.round_id, notation=notation, ruleset_id=ruleset.id,
        evaluation=Evaluation.EVALUATED, problems=(), dealer=dealer_result, seats=tuple(seats),
    )


# ---------------------------------------------------------------------------------------
# Round documents (issue 3): dealer-banked and player-banked rounds
# ---------------------------------------------------------------------------------------

FORTUNE = "fortune"
PROGRESSIVE = "progressive"
ACE_HIGH = "ace_high"
DOCUMENT_WAGERS = frozenset({MAIN, FORTUNE, PROGRESSIVE, ACE_HIGH})
"""Wager names a classic round document may carry. Main, Fortune and Progressive are judged
here, the last two as in Face Up (6a.18); Ace High exists only in Face Up and is refused."""

ENVY = "envy"
"""The ruleset paytable of Envy Bonus sums (6a.11). It, :data:`FORTUNE` and
:data:`PROGRESSIVE` are read by :func:`replay.games.face_up_pai_gow.settle_bonus_wagers`
under these same names."""

OPTION_QUALIFYING_WAGER_CENTS = "qualifying_wager_cents"
"""Ruleset option: the least Fortune or Progressive wager that is a Qualifying Wager and so
earns Envy Bonuses (6a.11; § 688a.1: at least $5, so 500), read by
:func:`replay.games.face_up_pai_gow.settle_bonus_wagers`."""

PROGRESSIVE_METER = "progressive_meter"
"""The round document's progressive meter in cents (required with a Progressive wager)."""

_DOCUMENT_KEYS = frozenset(
    {"round_id", "game", "ruleset", "banker", "progressive_meter", "dealer", "seats"}
)
_DEALER_KEYS = frozenset({"cards", "high", "low", "wager"})
_SEAT_KEYS = frozenset({"seat", "cards", "high", "low", "action", "wagers"})
_PLAY = "play"


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassicRound:
    """A classic round document as values: the cards and wagers (``round``, whose seats keep
    the document's order), who banks (``banker``; None for the dealer), the dealer's own
    wager against a player banker (``dealer_wager_cents``; seed 001 clause (10)) and the
    progressive meter in cents (``progressive_meter_cents``; None when the document gives
    none, which it must when a seat makes a Progressive wager: 6a.13)."""

    round: PaiGowRound
    banker: PlayerBanker | None = None
    dealer_wager_cents: int = 0
    progressive_meter_cents: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.round, PaiGowRound):
            raise DocumentError(f"round must be a PaiGowRound, got {self.round!r}")
        if self.banker is not None and not isinstance(self.banker, PlayerBanker):
            raise DocumentError(f"banker must be a PlayerBanker or None, got {self.banker!r}")
        wager = self.dealer_wager_cents
        if type(wager) is not int or wager < 0:
            raise DocumentError(f"dealer wager must be non-negative integer cents, got {wager!r}")
        if self.banker is None and wager:
            raise DocumentError(
                f"dealer wager {wager}: the dealer wagers only against a player banker "
                f"(seed 001 clause (10)); this round is dealer-banked"
            )
        meter = self.progressive_meter_cents
        if meter is not None and (type(meter) is not int or meter < 0):
            raise DocumentError(
                f"{PROGRESSIVE_METER} must be non-negative integer cents, got {meter!r}"
            )
        progressive = [seat for seat in self.round.seats if seat.wagers.get(PROGRESSIVE, 0) > 0]
        if meter is None and progressive:
            raise DocumentError(
                f"{PROGRESSIVE_METER} (cents) is required when a progressive wager is present "
                f"(seat {progressive[0].seat} wagers.{PROGRESSIVE} "
                f"{progressive[0].wagers[PROGRESSIVE]}; REFERENCE.md 6a.13)"
            )


def _set_hand(
    obj: Mapping[str, Any], where: str
) -> tuple[tuple[Card, ...] | None, tuple[Card, ...] | None]:
    if "high" not in obj and "low" not in obj:
        return None, None
    if "high" not in obj or "low" not in obj:
        missing = "high" if "high" not in obj else "low"
        raise DocumentError(f"{where} sets a hand without its {missing!r} hand")
    return (read_cards(obj["high"], f"{where} high"), read_cards(obj["low"], f"{where} low"))


def _seat(value: object, index: int) -> SeatHolding:
    seat_doc = mapping(value, f"seats[{index}]", _SEAT_KEYS)
    number = read_seat(read_field(seat_doc, "seat", f"seats[{index}]"), f"seats[{index}].seat")
    who = f"seat {number}"
    action = seat_doc.get("action", _PLAY)
    if action != _PLAY:
        raise DocumentError(
            f"{who} action {action!r}: a pai gow poker seat plays its hand (action {_PLAY!r})"
        )
    amounts = read_wagers(seat_doc.get("wagers", {}), f"{who} wagers", DOCUMENT_WAGERS)
    if ACE_HIGH in amounts:
        raise DocumentError(
            f"{who} wagers.{ACE_HIGH} {amounts[ACE_HIGH]}: the Ace High wager exists only in "
            f"Face Up pai gow poker (REFERENCE.md 6a.18)"
        )
    high, low = _set_hand(seat_doc, who)
    return SeatHolding(seat=number, cards=read_cards(read_field(seat_doc, "cards", who),
                                                     f"{who} cards"),
                       high=high, low=low, wagers=amounts)


def read_document(doc: Mapping[str, Any]) -> ClassicRound:
    """A classic round document (issue 3, "Round document") as a :class:`ClassicRound`.

    DocumentError names the field and the bad value: a malformed document (not an object, a
    missing or unknown key, a value of the wrong type), an unknown card, a banker that is
    neither ``"dealer"`` nor a seat object, a seat action other than ``play``, a wager not of
    this game (Ace High: 6a.18), a Progressive wager without a ``progressive_meter`` (6a.13),
    and then, all at once (STYLE.md 7): a holding of other than
    7 cards, a set hand of other than 5+2 cards or with cards the seat was not dealt, a card
    dealt twice in the round, a seat number used twice, the dealer's or the banker seat's
    hand (or a hand with a main wager) not set, a banker seat that is not at the table.
    """
    top, round_id = round_header(doc, GAME, _DOCUMENT_KEYS)
    meter = None
    if PROGRESSIVE_METER in top:
        meter = read_cents(top[PROGRESSIVE_METER], PROGRESSIVE_METER)
    banker = read_banker(top.get("banker", DEALER))
    dealer_doc = mapping(read_field(top, "dealer", "the round document"), "dealer", _DEALER_KEYS)
    dealer_high, dealer_low = _set_hand(dealer_doc, "dealer")
    dealer_wager = read_cents(dealer_doc.get("wager", 0), "dealer wager")
    dealer = HandHolding(cards=read_cards(read_field(dealer_doc, "cards", "dealer"),
                                          "dealer cards"),
                         high=dealer_high, low=dealer_low)
    seats = tuple(_seat(value, i) for i, value in enumerate(seat_list(top)))
    try:
        round = PaiGowRound(round_id=round_id, game=GAME, dealer=dealer, seats=seats)
    except RoundError as exc:
        raise DocumentError(str(exc)) from None
    banker_seat = banker.seat if banker is not None else None
    problems = _deal_problems(
        round, lambda seat: seat.seat == banker_seat or seat.wagers.get(MAIN, 0) > 0
    )
    numbers = [seat.seat for seat in seats]
    if banker_seat is not None and banker_seat not in numbers:
        problems.append(
            f"banker seat {banker_seat} is not at the table (seats {', '.join(map(str, numbers))})"
        )
    if problems:
        raise DocumentError("; ".join(problems))
    return ClassicRound(round=round, banker=banker, dealer_wager_cents=dealer_wager,
                        progressive_meter_cents=meter)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassicJudgement:
    """The judgement of a classic round document: the dealer's hand (foul, house way), the
    dealer's own wager against a player banker (``dealer_main``; None when there is none),
    each seat in seat-number order, and the player banker's account (None when the dealer
    banks). :meth:`as_dict` is the issue's result object."""

    round_id: str
    ruleset_id: str
    dealer: DealerResult
    dealer_main: Settlement | None
    seats: tuple[SeatResult, ...]
    banker: BankerResult | None

    def as_dict(self) -> dict[str, Any]:
        """The result object (issue 3, "Result"), keys in the issue's order; a seat's wagers
        in the order main, fortune, progressive. Wagers of zero or absent, and the banker
        seat's own main wager, are left out (6a.18, 6a.14)."""
        return result_object(
            round_id=self.round_id, ruleset_id=self.ruleset_id,
            dealer=dealer_entry(foul=self.dealer.foul, house_way=self.dealer.house_way,
                                net=self.dealer_main.net_cents if self.dealer_main else 0),
            seats=[
                seat_entry(seat.seat, seat.foul, {
                    name: settled_entry(settled)
                    for name, settled in ((MAIN, seat.main), (FORTUNE, seat.fortune),
                                          (PROGRESSIVE, seat.progressive))
                    if settled is not None
                }, seat.envy_cents)
                for seat in self.seats
            ],
            banker=self.banker.as_dict() if self.banker else None,
        )


def _side_wagers(classic: ClassicRound, ruleset: Ruleset) -> dict[int, BonusResult]:
    """Each seat's Fortune and Progressive wagers and Envy Bonus, by seat number, settled as
    in Face Up (REFERENCE.md 6a.18) by
    :func:`replay.games.face_up_pai_gow.settle_bonus_wagers` on the seven dealt cards,
    however they were set and fouls included (6a.6; seed § 688a.7(h)): Fortune wager x odds
    on the seven-card class (6a.10, 6a.12), Progressive the posted award (6a.12, 6a.13:
    percentage awards from the round's meter, shared), Envy to every seat with a Qualifying
    Wager for each other seat's four of a kind or better (6a.11). Every seat at the table is
    passed, the player banker's too (a player at the table, whose side wagers settle as any
    seat's, 6a.14, and whose hand earns the others Envy); the dealer's hand never is (it earns
    no Envy, 6a.11). Empty when no seat made a Fortune or Progressive wager (no Envy is paid
    without a Qualifying Wager)."""
    seats = classic.round.seats
    if not any(seat.wagers.get(FORTUNE, 0) > 0 or seat.wagers.get(PROGRESSIVE, 0) > 0
               for seat in seats):
        return {}
    # face_up_pai_gow imports this module at its top, so it is imported here, at first use
    from replay.games.face_up_pai_gow import BonusHand, settle_bonus_wagers

    try:
        settled = settle_bonus_wagers(
            [BonusHand(seat=seat.seat, cards=seat.cards,
                       fortune_cents=seat.wagers.get(FORTUNE, 0),
                       progressive_cents=seat.wagers.get(PROGRESSIVE, 0)) for seat in seats],
            ruleset=ruleset, meter_cents=classic.progressive_meter_cents,
        )
    except RoundError as exc:
        raise DocumentError(str(exc)) from None
    return {result.seat: result for result in settled}


def judge_round(classic: ClassicRound, ruleset: Ruleset) -> ClassicJudgement:
    """Judge a classic round read by :func:`read_document` under ``ruleset``.

    The banker's hands are the dealer's (dealer-banked) or the banker seat's (player-banked,
    REFERENCE.md 6a.14). Each other seat's main wager: a fouled hand loses (seed 001 clause
    (2); 688a.7(f)(1)(iii); 6a.6); otherwise :func:`compare` against the banker's hands
    (seed 002 clauses (1), (2), (5), (6), (9): win both to win, copies to the banker, one
    of two is a push) and :func:`settle_main` (clauses (15), (16): 1:1 less the ruleset's
    commission, none on a push or loss), each winning player paying their own commission.
    A fouled dealer or banker hand is reported and compared as set (6a.7).

    Against a player banker the dealer plays its own wager (seed 001 clause (10); seed 002
    clause (12)) with the same comparison, copies to the banker, and the house pays no
    commission on the dealer's win (:func:`~replay.games.pai_gow_banking.dealer_wager_net`).
    The banker's account is :func:`~replay.games.pai_gow_banking.banker_account` with the
    ruleset's commission on a net win (6a.1) and the seats' side wagers and Envy as the
    house's (``side_net``). The banker seat's own main wager is ignored (6a.14). The
    dealer's hand is checked against the ruleset's house way in every round (seed 001 clause
    (4)).

    Fortune and Progressive wagers and the Envy Bonus are settled as in Face Up (6a.18; see
    :func:`_side_wagers`), between each seat and the house whoever banks: in a player-banked
    round they count in the house's result, never in the player banker's (6a.14).
    """
    if ruleset.game != GAME:
        raise DocumentError(f"ruleset {ruleset.id} is for game {ruleset.game!r}, not {GAME!r}")
    way = HOUSE_WAYS.get(ruleset.house_way)
    if way is None:
        raise DocumentError(
            f"ruleset {ruleset.id} names house way {ruleset.house_way!r}; known: "
            f"{', '.join(sorted(HOUSE_WAYS))}"
        )
    wheel = ruleset.wheel
    round = classic.round
    dealer = _dealer_result(round, wheel, way)
    assert dealer.high_rank is not None and dealer.low_rank is not None
    banker_seat = classic.banker.seat if classic.banker is not None else None
    ranks: dict[int, tuple[HighRank, LowRank]] = {}
    for seat in round.seats:
        if seat.high is not None and seat.low is not None:
            ranks[seat.seat] = (rank_high(seat.high, wheel=wheel), rank_low(seat.low))
    banker_high, banker_low = (
        (dealer.high_rank, dealer.low_rank) if banker_seat is None else ranks[banker_seat]
    )

    def outcome(high: HighRank, low: LowRank, foul: bool) -> Outcome:
        if foul:
            return Outcome.LOSS
        return compare(player_high=high, player_low=low, banker_high=banker_high,
                       banker_low=banker_low)

    side = _side_wagers(classic, ruleset)
    results = []
    for seat in sorted(round.seats, key=lambda s: s.seat):
        bonus = side.get(seat.seat)
        side_results: dict[str, Any] = {} if bonus is None else {
            "fortune": bonus.fortune, "progressive": bonus.progressive,
            "envy_cents": bonus.envy_cents,
        }
        if seat.seat not in ranks:
            results.append(SeatResult(seat=seat.seat, foul=None, main=None, **side_results))
            continue
        high, low = ranks[seat.seat]
        foul = not _high_holds_low(high, low)
        amount = seat.wagers.get(MAIN, 0)
        main = None
        if amount > 0 and seat.seat != banker_seat:
            main = settle_main(amount_cents=amount, outcome=outcome(high, low, foul),
                               ruleset=ruleset)
        results.append(SeatResult(seat=seat.seat, foul=foul, main=main, high_rank=high,
                                  low_rank=low, **side_results))
    dealer_main = None
    banker = None
    if classic.banker is not None:
        if classic.dealer_wager_cents:
            # 6a.7: a fouled dealer hand is compared as set, here as everywhere
            result = compare(player_high=dealer.high_rank, player_low=dealer.low_rank,
                             banker_high=banker_high, banker_low=banker_low)
            dealer_main = Settlement(
                outcome=result, net_cents=dealer_wager_net(result, classic.dealer_wager_cents),
                commission_cents=0,
            )
        side_net = sum(
            (s.fortune.net_cents if s.fortune else 0)
            + (s.progressive.net_cents if s.progressive else 0) + s.envy_cents
            for s in results
        )
        banker = banker_account(
            banker=classic.banker, players=[s.main for s in results if s.main],
            dealer_net=dealer_main.net_cents if dealer_main else 0, ruleset=ruleset,
            commission=ruleset.commission.on, side_net=side_net,
        )
    return ClassicJudgement(round_id=round.round_id, ruleset_id=ruleset.id, dealer=dealer,
                            dealer_main=dealer_main, seats=tuple(results), banker=banker)


def judge_document(doc: Mapping[str, Any], ruleset: Ruleset) -> dict[str, Any]:
    """The result object for a classic round document (issue 3): :func:`read_document`,
    then :func:`judge_round`, as :meth:`ClassicJudgement.as_dict`."""
    return judge_round(read_document(doc), ruleset).as_dict()


RULES = GameRules(
    name=GAME,
    title="Pai gow poker (classic: dealer or player banker, co-banking, 5% commission)",
    deck=DECK_53,
    citation="REFERENCE.md 1, 6, 6a",
    judge_document=judge_document,
    option_names=BANKING_OPTION_NAMES | {OPTION_QUALIFYING_WAGER_CENTS},
    paytable_names=frozenset({FORTUNE, PROGRESSIVE, ENVY}),
)
