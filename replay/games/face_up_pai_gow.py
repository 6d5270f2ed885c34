"""Face Up pai gow poker: a dealer-banked round, its Face Up wager and its optional wagers
(seed 58 Pa. Code § 688a.1, § 688a.7(f), (h); REFERENCE.md 2, 6 "Face Up", 6a.6, 6a.8-6a.13,
6a.18).

What this module decides, each with the rule it implements:

- the seven-card class of a hand for the Fortune Bonus, the Envy Bonus and the Progressive
  Payout Wager (:func:`seven_card_class`; 6a.10, 2.4 "classification quirk": three of a kind
  above a straight);
- whether seven cards are an Ace High Pai Gow (:func:`is_ace_high_pai_gow`; § 688a.1, 6a.8);
- the Face Up wager (§ 688a.7(f); 6: no commission, a dealer Ace High Pai Gow ties every
  Face Up wager, a fouled player hand still loses);
- the Ace High Bonus (§ 688a.7(h)(1); 6a.9, 6a.12);
- Fortune, Envy and Progressive for a set of seats (:func:`settle_bonus_wagers`, which the
  classic game may reuse; § 688a.7(h)(2)-(3); 6a.11-6a.13);
- a whole round document (:func:`judge_document`; issue 3 "Round document" and "Result").

No paytable, amount, threshold or rate is a literal here: they are the ruleset's posted
paytables (:data:`ACE_HIGH`, :data:`FORTUNE`, :data:`ENVY`, :data:`PROGRESSIVE`) and its
option :data:`QUALIFYING_WAGER_CENTS`; the Face Up wager's commission is the ruleset's (0 in
the shipped ruleset). Nothing here does I/O.

Speed: a seven-card class is two table lookups. Each card contributes a prime per rank (the
joker its own prime) and a bit in a 53-bit card set; the product of the primes indexes a
table of what the ranks alone make (five aces, four of a kind, full house, three of a kind,
straight, or an Ace High Pai Gow candidate), and when one suit holds four cards or more its
13-bit rank mask (with the joker's bit) indexes a table of what that suit makes (flush up to
the natural seven-card straight flush). The tables are built on first use (about 0.35 s).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations_with_replacement
from math import prod
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from replay.cards import DECK_53, Card, Rank, render_cards
from replay.document import DocumentError, cents, seat_number
from replay.document import cards as read_cards
from replay.document import wagers as read_wagers
from replay.errors import HandError, MoneyError, RoundError, RulesetError
from replay.games.base import GameRules
from replay.games.pai_gow_poker import (
    HOUSE_WAYS,
    HighRank,
    LowRank,
    Settlement,
    house_way_setting,
    is_foul,
    rank_high,
    rank_low,
)
from replay.games.results import Outcome as Outcome
from replay.games.results import dealer_entry, result_object, seat_entry, wager_entry

if TYPE_CHECKING:
    from replay.rulesets import Payout, Ruleset

GAME = "face_up_pai_gow"
"""This module's game name, as in rounds, rulesets and events."""

MAIN = "main"
ACE_HIGH = "ace_high"
FORTUNE = "fortune"
PROGRESSIVE = "progressive"
ENVY = "envy"
"""Wager names (issue 3 round document) and, for the optional wagers and the Envy Bonus, the
names of the ruleset paytables they are paid from."""

QUALIFYING_WAGER_CENTS = "qualifying_wager_cents"
"""Ruleset option: the least Fortune or Progressive wager that is a Qualifying Wager and so
earns Envy Bonuses (§ 688a.1 "Qualifying Wager": at least $5, so 500 in the shipped
ruleset)."""

WAGER_NAMES = frozenset({MAIN, ACE_HIGH, FORTUNE, PROGRESSIVE})

HAND_SIZE = 7
HIGH_SIZE = 5
LOW_SIZE = 2


# ---------------------------------------------------------------------------------------
# Seven-card classes (REFERENCE.md 6a.10)
# ---------------------------------------------------------------------------------------


class SevenCardClass(StrEnum):
    """What seven cards make for the Fortune Bonus, the Envy Bonus and the Progressive
    Payout Wager (REFERENCE.md 6a.10), best first. The value is the name the ruleset's
    paytables use; compare by :attr:`strength`, never by value.

    Below the three seven-card hands is the best five of the seven in bonus order: five
    aces, royal flush, straight flush, four of a kind, full house, flush, three of a kind,
    straight. Three of a kind is above the straight (REFERENCE.md 2.4 "classification
    quirk"), so seven cards that make both are three of a kind. Seven cards that make
    none of these have no class (``None``).
    """

    NATURAL_SEVEN_CARD_STRAIGHT_FLUSH = "natural_seven_card_straight_flush"
    """Seven natural cards of one suit in sequence, 8 to ace or ace to 7."""
    ROYAL_FLUSH_PLUS_ROYAL_MATCH = "royal_flush_plus_royal_match"
    """A royal flush (the joker allowed) and, as the other two cards, a natural king and
    queen of one suit."""
    SEVEN_CARD_STRAIGHT_FLUSH_WITH_JOKER = "seven_card_straight_flush_with_joker"
    """Six natural cards of one suit and the joker, in sequence."""
    FIVE_ACES = "five_aces"
    ROYAL_FLUSH = "royal_flush"
    STRAIGHT_FLUSH = "straight_flush"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    FLUSH = "flush"
    THREE_OF_A_KIND = "three_of_a_kind"
    STRAIGHT = "straight"

    @property
    def strength(self) -> int:
        """1 for a straight up to 11 for the natural seven-card straight flush (6a.10)."""
        return _CODE[self]


_BY_CODE: tuple[SevenCardClass | None, ...] = (None, *reversed(SevenCardClass))
_CODE: Mapping[SevenCardClass, int] = MappingProxyType(
    {c: code for code, c in enumerate(_BY_CODE) if c is not None}
)
_STRAIGHT = _CODE[SevenCardClass.STRAIGHT]
_TRIPS = _CODE[SevenCardClass.THREE_OF_A_KIND]
_FLUSH = _CODE[SevenCardClass.FLUSH]
_FULL_HOUSE = _CODE[SevenCardClass.FULL_HOUSE]
_QUADS = _CODE[SevenCardClass.FOUR_OF_A_KIND]
_STRAIGHT_FLUSH = _CODE[SevenCardClass.STRAIGHT_FLUSH]
_ROYAL = _CODE[SevenCardClass.ROYAL_FLUSH]
_FIVE_ACES = _CODE[SevenCardClass.FIVE_ACES]
_SF7_JOKER = _CODE[SevenCardClass.SEVEN_CARD_STRAIGHT_FLUSH_WITH_JOKER]
_ROYAL_MATCH = _CODE[SevenCardClass.ROYAL_FLUSH_PLUS_ROYAL_MATCH]
_SF7_NATURAL = _CODE[SevenCardClass.NATURAL_SEVEN_CARD_STRAIGHT_FLUSH]
_CLASSES = len(_BY_CODE)

ENVY_QUALIFYING_CLASSES: frozenset[SevenCardClass] = frozenset(
    c for c in SevenCardClass if c.strength >= _QUADS
)
"""§ 688a.1 "Envy Bonus Qualifying Hand": four of a kind or better formed from the seven
cards (in the order of 6a.10)."""

_AHPG = 1 << 4
"""Flag beside a class code: no pair, straight or flush and an ace or the joker (6a.8)."""
_CODE_MASK = _AHPG - 1

_RANKS = tuple(range(Rank.TWO, Rank.ACE + 1))
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_JOKER_PRIME = 43
_JOKER_INDEX = 52
_SUIT_SPAN = 13
_RANK_MASK = (1 << _SUIT_SPAN) - 1
_JOKER_FLAG = 1 << _SUIT_SPAN


def _bit(rank: int) -> int:
    return 1 << (rank - Rank.TWO)


def _mask(ranks: Sequence[int]) -> int:
    out = 0
    for r in ranks:
        out |= _bit(r)
    return out


_FIVE_WINDOWS = tuple(
    _mask([Rank.ACE, 2, 3, 4, 5]) if low == 1 else _mask(range(low, low + 5))
    for low in range(1, Rank.TEN + 1)
)
"""A-2-3-4-5 up to T-J-Q-K-A, as rank masks (the wheel's place does not matter here)."""
_SEVEN_WINDOWS = tuple(
    _mask([Rank.ACE, *range(2, 8)]) if low == 1 else _mask(range(low, low + 7))
    for low in range(1, Rank.EIGHT + 1)
)
"""A-to-7 up to 8-to-A (6a.10), as rank masks."""
_ROYAL_RANKS = _mask(range(Rank.TEN, Rank.ACE + 1))
_KING_QUEEN = _mask([Rank.KING, Rank.QUEEN])


def _missing(window: int, mask: int) -> int:
    return (window & ~mask).bit_count()


def _suited_code(mask: int, joker: int) -> int:
    """What one suit's natural ranks (``mask``) and the joker make (6a.3, 6a.10): the joker
    completes a flush, a straight flush or royal flush, or a seven-card straight flush."""
    if mask.bit_count() + joker < HIGH_SIZE:
        return 0
    if any(_missing(w, mask) == 0 for w in _SEVEN_WINDOWS):
        return _SF7_NATURAL
    if joker and any(_missing(w, mask) == 1 for w in _SEVEN_WINDOWS):
        return _SF7_JOKER
    if _missing(_ROYAL_RANKS, mask) <= joker:
        return _ROYAL
    if any(_missing(w, mask) <= joker for w in _FIVE_WINDOWS):
        return _STRAIGHT_FLUSH
    return _FLUSH


def _unsuited_code(ranks: Sequence[int], joker: int) -> int:
    """What natural ``ranks`` and the joker make without regard to suit (6a.3, 6a.8,
    6a.10): the joker is an ace for five aces, four of a kind, a full house, three of a
    kind and pairs, and any rank for a straight; the best in bonus order, with the Ace High
    Pai Gow flag when nothing pairs or makes a straight and an ace or the joker is held."""
    counts = {r: ranks.count(r) for r in set(ranks)}
    counts[Rank.ACE] = counts.get(Rank.ACE, 0) + joker
    shape = sorted(counts.values(), reverse=True)
    mask = _mask(ranks)
    straight = any(_missing(w, mask) <= joker for w in _FIVE_WINDOWS)
    if shape[0] == HIGH_SIZE:
        return _FIVE_ACES
    if shape[0] == 4:
        return _QUADS
    if shape[0] == 3 and len(shape) > 1 and shape[1] >= 2:
        return _FULL_HOUSE
    if shape[0] == 3:
        return _TRIPS
    if straight:
        return _STRAIGHT
    if shape[0] == 1 and counts[Rank.ACE]:
        return _AHPG
    return 0


@dataclass(frozen=True, slots=True, kw_only=True)
class _Tables:
    unsuited: Mapping[int, int]
    suited: tuple[int, ...]
    four_of_a_suit: tuple[int, ...]


def _build_tables() -> _Tables:
    unsuited: dict[int, int] = {}
    for joker in (0, 1):
        for ranks in combinations_with_replacement(_RANKS, HAND_SIZE - joker):
            if max(ranks.count(r) for r in set(ranks)) <= 4:
                key = prod(_PRIMES[r - Rank.TWO] for r in ranks) * (_JOKER_PRIME if joker else 1)
                unsuited[key] = _unsuited_code(ranks, joker)
    suited = tuple(
        _suited_code(key & _RANK_MASK, key >> _SUIT_SPAN) for key in range(2 * _JOKER_FLAG)
    )
    # Suit counts packed four bits a suit: the one suit holding four cards or more, else -1
    # (seven cards cannot hold two such suits; the joker has no suit).
    four: list[int] = []
    for packed in range(HAND_SIZE * 0x1111 + 1):
        held = [s for s in range(4) if (packed >> (4 * s)) & 0xF >= 4]
        four.append(held[0] if held else -1)
    return _Tables(unsuited=MappingProxyType(unsuited), suited=suited,
                   four_of_a_suit=tuple(four))


_TABLES: list[_Tables] = []


def _tables() -> _Tables:
    if not _TABLES:
        _TABLES.append(_build_tables())
    return _TABLES[0]


_PRIME = tuple(
    _JOKER_PRIME if c.is_joker else _PRIMES[c.rank - Rank.TWO] for c in DECK_53
)
_CARD_BIT = tuple(1 << c.index for c in DECK_53)
_SUIT_COUNT = tuple(0 if c.is_joker else 1 << (4 * (c.index // _SUIT_SPAN)) for c in DECK_53)


def _classify(idx: Sequence[int]) -> int:
    """The class code of seven distinct card indexes (6a.10), with the :data:`_AHPG` flag
    when they are an Ace High Pai Gow (6a.8). The hot path: no validation."""
    tables = _TABLES[0] if _TABLES else _tables()
    i0, i1, i2, i3, i4, i5, i6 = idx
    code = tables.unsuited[
        _PRIME[i0] * _PRIME[i1] * _PRIME[i2] * _PRIME[i3] * _PRIME[i4] * _PRIME[i5] * _PRIME[i6]
    ]
    suit = tables.four_of_a_suit[
        _SUIT_COUNT[i0] + _SUIT_COUNT[i1] + _SUIT_COUNT[i2] + _SUIT_COUNT[i3]
        + _SUIT_COUNT[i4] + _SUIT_COUNT[i5] + _SUIT_COUNT[i6]
    ]
    if suit < 0:
        return code
    held = (_CARD_BIT[i0] | _CARD_BIT[i1] | _CARD_BIT[i2] | _CARD_BIT[i3] | _CARD_BIT[i4]
            | _CARD_BIT[i5] | _CARD_BIT[i6])
    joker = held >> _JOKER_INDEX
    suited = tables.suited[((held >> (_SUIT_SPAN * suit)) & _RANK_MASK) | (joker << _SUIT_SPAN)]
    if not suited:
        return code
    if suited == _ROYAL:
        for other in range(4):
            if other != suit and (held >> (_SUIT_SPAN * other)) & _KING_QUEEN == _KING_QUEEN:
                suited = _ROYAL_MATCH
    return max(code & _CODE_MASK, suited)


def _seven_indexes(cards: Sequence[Card], what: str) -> list[int]:
    if isinstance(cards, str) or not all(isinstance(card, Card) for card in cards):
        raise HandError(f"{what} must be {HAND_SIZE} cards, got {cards!r}")
    idx = [card.index for card in cards]
    if len(idx) != HAND_SIZE or len(set(idx)) != HAND_SIZE:
        raise HandError(f"{what} must be {HAND_SIZE} different cards, got "
                        f"{render_cards(cards)!r}")
    return idx


def seven_card_class(cards: Sequence[Card]) -> SevenCardClass | None:
    """The class of seven cards for Fortune, Envy and Progressive (REFERENCE.md 6a.10; seed
    § 688a.7(h): the dealer rearranges the seven cards to form the highest ranking hand,
    however the player set them), or None when they make less than a straight.

    The joker (6a.3) is an ace, or completes a straight, flush, straight flush or royal
    flush. :class:`HandError` when ``cards`` are not seven different cards.
    """
    return _BY_CODE[_classify(_seven_indexes(cards, "a seven-card hand")) & _CODE_MASK]


def is_ace_high_pai_gow(cards: Sequence[Card]) -> bool:
    """True when seven cards are an Ace High Pai Gow (seed § 688a.1: "the seven cards ... is
    a rank of Ace high"; REFERENCE.md 6a.8): the best five-card hand is a high-card hand whose
    highest card is an ace, the joker counting as an ace. A pair (the joker pairs an ace), a
    straight or a flush, the joker completing one, makes it not Ace High Pai Gow."""
    return bool(_classify(_seven_indexes(cards, "a seven-card hand")) & _AHPG)


# ---------------------------------------------------------------------------------------
# Posted paytables, read once per ruleset
# ---------------------------------------------------------------------------------------

ACE_HIGH_BOTH = "player_and_dealer_ace_high_pai_gow"
ACE_HIGH_DEALER_WITH_JOKER = "dealer_ace_high_pai_gow_with_joker"
ACE_HIGH_DEALER_WITHOUT_JOKER = "dealer_ace_high_pai_gow_without_joker"
ACE_HIGH_LINES = (ACE_HIGH_BOTH, ACE_HIGH_DEALER_WITH_JOKER, ACE_HIGH_DEALER_WITHOUT_JOKER)
"""The Ace High Bonus paytable's lines, in the order they are checked (REFERENCE.md 6a.9)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Posted:
    """A ruleset's Face Up paytables as tuples by class code (None: the ruleset has none)."""

    ace_high: tuple[Payout, Payout, Payout] | None
    fortune: tuple[Payout | None, ...] | None
    progressive: tuple[Payout | None, ...] | None
    envy: tuple[int, ...] | None
    qualifying_cents: int | None


def _by_class(ruleset: Ruleset, name: str, *, odds_only: bool = False,
              no_odds: bool = False) -> tuple[Payout | None, ...] | None:
    if name not in ruleset.paytables:
        return None
    table = ruleset.paytables[name]
    unknown = sorted(set(table) - {c.value for c in SevenCardClass})
    if unknown:
        raise RulesetError(
            f"ruleset {ruleset.id}: paytable {name} has lines {unknown} that are not seven-card "
            f"classes; the classes are {[c.value for c in SevenCardClass]}"
        )
    for line, payout in table.items():
        if odds_only and payout.odds is None:
            raise RulesetError(f"ruleset {ruleset.id}: paytable {name} {line} must pay odds "
                               f"(REFERENCE.md 6a.12), got {payout!r}")
        if no_odds and payout.odds is not None:
            raise RulesetError(f"ruleset {ruleset.id}: paytable {name} {line} must be a fixed "
                               f"sum or a share of the meter (REFERENCE.md 6a.12), got {payout!r}")
    return tuple(None if c is None else table.get(c.value) for c in _BY_CODE)


def _read_posted(ruleset: Ruleset) -> _Posted:
    ace_high = None
    if ACE_HIGH in ruleset.paytables:
        table = ruleset.paytables[ACE_HIGH]
        if set(table) != set(ACE_HIGH_LINES) or any(p.odds is None for p in table.values()):
            raise RulesetError(
                f"ruleset {ruleset.id}: paytable {ACE_HIGH} must pay odds on exactly the lines "
                f"{list(ACE_HIGH_LINES)} (REFERENCE.md 6a.9, 6a.12), got {dict(table)!r}"
            )
        ace_high = (table[ACE_HIGH_BOTH], table[ACE_HIGH_DEALER_WITH_JOKER],
                    table[ACE_HIGH_DEALER_WITHOUT_JOKER])
    envy = None
    envy_lines = _by_class(ruleset, ENVY, no_odds=True)
    if envy_lines is not None:
        amounts = []
        for code, payout in enumerate(envy_lines):
            category = _BY_CODE[code]
            if category in ENVY_QUALIFYING_CLASSES and (payout is None
                                                        or payout.fixed_cents is None):
                raise RulesetError(
                    f"ruleset {ruleset.id}: paytable {ENVY} must post a fixed sum "
                    f"(fixed_cents) for every Envy Bonus Qualifying Hand (§ 688a.1: four of a "
                    f"kind or better); {category} has {payout!r}"
                )
            if category not in ENVY_QUALIFYING_CLASSES and payout is not None:
                raise RulesetError(
                    f"ruleset {ruleset.id}: paytable {ENVY} posts {category}, which is not an "
                    f"Envy Bonus Qualifying Hand (§ 688a.1: four of a kind or better)"
                )
            amounts.append(0 if payout is None or payout.fixed_cents is None
                           else payout.fixed_cents)
        envy = tuple(amounts)
    qualifying = ruleset.options.get(QUALIFYING_WAGER_CENTS)
    if qualifying is not None and (type(qualifying) is not int or qualifying < 1):
        raise RulesetError(f"ruleset {ruleset.id}: option {QUALIFYING_WAGER_CENTS} must be "
                           f"positive integer cents, got {qualifying!r}")
    return _Posted(
        ace_high=ace_high,
        fortune=_by_class(ruleset, FORTUNE, odds_only=True),
        progressive=_by_class(ruleset, PROGRESSIVE, no_odds=True),
        envy=envy,
        qualifying_cents=qualifying,
    )


_POSTED: dict[int, tuple[Ruleset, _Posted]] = {}


def _posted(ruleset: Ruleset) -> _Posted:
    """The ruleset's paytables, read and checked once (the cache holds the ruleset itself,
    so its id() cannot be reused while cached)."""
    cached = _POSTED.get(id(ruleset))
    if cached is not None and cached[0] is ruleset:
        return cached[1]
    posted = _read_posted(ruleset)
    if len(_POSTED) > 64:
        _POSTED.clear()
    _POSTED[id(ruleset)] = (ruleset, posted)
    return posted


def _missing_table(ruleset: Ruleset, name: str) -> RulesetError:
    return RulesetError(
        f"ruleset {ruleset.id} has no paytable {name!r} for the {name} wagers of this round; "
        f"it has {', '.join(sorted(ruleset.paytables)) or 'none'}"
    )


# ---------------------------------------------------------------------------------------
# Fortune, Envy and Progressive (the core, on class codes and cents)
# ---------------------------------------------------------------------------------------

_WIN = Outcome.WIN.value
_LOSS = Outcome.LOSS.value
_PUSH = Outcome.PUSH.value

_Settled = tuple[str, int]
"""(outcome, net cents): a side wager's settlement on the hot path; commission is 0."""


def _settle_bonus(
    codes: Sequence[int],
    fortune: Sequence[int],
    progressive: Sequence[int],
    ruleset: Ruleset,
    meter_cents: int | None,
) -> tuple[list[_Settled | None], list[_Settled | None], list[int]]:
    """Fortune, Progressive and Envy for seats given by position: their class codes and
    their Fortune and Progressive wagers in cents (0: none). See
    :func:`settle_bonus_wagers` for the rules."""
    posted = _posted(ruleset)
    n = len(codes)
    fortune_out: list[_Settled | None] = [None] * n
    progressive_out: list[_Settled | None] = [None] * n
    envy_out = [0] * n
    if any(fortune):
        table = posted.fortune
        if table is None:
            raise _missing_table(ruleset, FORTUNE)
        for k in range(n):
            amount = fortune[k]
            if amount:
                line = table[codes[k]]
                fortune_out[k] = ((_WIN, line.win_cents(wager_cents=amount)) if line is not None
                                  else (_LOSS, -amount))
    if any(progressive):
        table = posted.progressive
        if table is None:
            raise _missing_table(ruleset, PROGRESSIVE)
        if meter_cents is None:
            raise RoundError("a progressive_meter (cents) is needed to settle Progressive "
                             "Payout Wagers (REFERENCE.md 6a.13)")
        sharing: dict[int, int] = {}
        for k in range(n):
            if progressive[k]:
                line = table[codes[k]]
                if line is not None and line.meter_bps is not None:
                    sharing[codes[k]] = sharing.get(codes[k], 0) + 1
        for k in range(n):
            amount = progressive[k]
            if amount:
                line = table[codes[k]]
                if line is None:
                    progressive_out[k] = (_LOSS, -amount)
                else:
                    award = line.win_cents(wager_cents=amount, meter_cents=meter_cents)
                    if line.meter_bps is not None:
                        award //= sharing[codes[k]]
                    progressive_out[k] = (_WIN, award)
    if any(fortune) or any(progressive):
        threshold = posted.qualifying_cents
        if threshold is None:
            raise RulesetError(f"ruleset {ruleset.id} has no option {QUALIFYING_WAGER_CENTS} "
                               f"(§ 688a.1 Qualifying Wager) for the Envy Bonus")
        qualified = [k for k in range(n) if fortune[k] >= threshold or progressive[k] >= threshold]
        if qualified and max(codes) >= _QUADS:
            envy = posted.envy
            if envy is None:
                raise _missing_table(ruleset, ENVY)
            sums = [envy[code] for code in codes]
            total = sum(sums)
            for k in qualified:
                envy_out[k] = total - sums[k]
    return fortune_out, progressive_out, envy_out


# ---------------------------------------------------------------------------------------
# The public form, for this game and the classic game
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class BonusHand:
    """A seat's seven dealt cards and its Fortune and Progressive wagers in cents (0: none).
    How the seat set its hand does not matter (seed § 688a.7(h); REFERENCE.md 6a.6)."""

    seat: int
    cards: tuple[Card, ...]
    fortune_cents: int = 0
    progressive_cents: int = 0

    def __post_init__(self) -> None:
        if type(self.seat) is not int or self.seat < 1:
            raise RoundError(f"seat must be a seat number from 1, got {self.seat!r}")
        object.__setattr__(self, "cards", tuple(self.cards))
        _seven_indexes(self.cards, f"seat {self.seat}'s hand")
        for name in ("fortune_cents", "progressive_cents"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise MoneyError(f"seat {self.seat}: {name} must be non-negative integer "
                                 f"cents, got {value!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class BonusResult:
    """A seat's Fortune and Progressive settlements (None when not wagered: 6a.18), the
    Envy Bonus it receives in cents, and its seven-card class."""

    seat: int
    seven_card_class: SevenCardClass | None
    fortune: Settlement | None
    progressive: Settlement | None
    envy_cents: int


def _settlement(settled: _Settled | None) -> Settlement | None:
    if settled is None:
        return None
    return Settlement(outcome=Outcome(settled[0]), net_cents=settled[1], commission_cents=0)


def settle_bonus_wagers(
    hands: Sequence[BonusHand], *, ruleset: Ruleset, meter_cents: int | None = None
) -> tuple[BonusResult, ...]:
    """Settle the Fortune and Progressive wagers and pay the Envy Bonuses of one round's
    seats (seed § 688a.7(h)(2)-(3), § 688a.1; REFERENCE.md 6a.10-6a.13), in the order of
    ``hands``. Pure; the dealer's hand is never passed (it earns no Envy).

    - Fortune (ruleset paytable :data:`FORTUNE`): a winning wager is paid wager x odds on
      the seat's :func:`seven_card_class`; below the lowest posted line it loses its amount.
    - Progressive (paytable :data:`PROGRESSIVE`): a winning wager is paid the posted award,
      not scaled by the wager and not collected (6a.12): a fixed sum, or the posted share of
      ``meter_cents`` rounded down to the cent, shared equally (rounded down) among the
      seats that win the same percentage award in the round (6a.13); otherwise it loses its
      amount. ``meter_cents`` is required when any Progressive wager is present.
    - Envy (paytable :data:`ENVY`, fixed sums): for every seat whose seven cards are four of
      a kind or better, every other seat holding a Qualifying Wager (a Fortune or
      Progressive wager of at least the ruleset option :data:`QUALIFYING_WAGER_CENTS`)
      receives that hand's sum; never for its own hand (6a.11). The qualifying hand's own
      wagers do not matter.

    :class:`RoundError` for a seat number used twice, a card in two hands or a missing
    meter; :class:`RulesetError` when the ruleset lacks a paytable or option needed.
    """
    seats = [h.seat for h in hands]
    if len(set(seats)) != len(seats):
        raise RoundError(f"a seat appears twice among seats {seats}")
    dealt = [card for h in hands for card in h.cards]
    if len(set(dealt)) != len(dealt):
        repeated = sorted({c for c in dealt if dealt.count(c) > 1}, key=lambda c: c.index)
        raise RoundError(f"cards dealt to two seats: {render_cards(repeated)}")
    if meter_cents is not None and (type(meter_cents) is not int or meter_cents < 0):
        raise MoneyError(f"meter_cents must be non-negative integer cents, got {meter_cents!r}")
    codes = [_classify([c.index for c in h.cards]) & _CODE_MASK for h in hands]
    fortune, progressive, envy = _settle_bonus(
        codes, [h.fortune_cents for h in hands], [h.progressive_cents for h in hands],
        ruleset, meter_cents,
    )
    return tuple(
        BonusResult(seat=h.seat, seven_card_class=_BY_CODE[codes[k]],
                    fortune=_settlement(fortune[k]), progressive=_settlement(progressive[k]),
                    envy_cents=envy[k])
        for k, h in enumerate(hands)
    )


def ace_high_line(*, dealer_ace_high: bool, dealer_joker: bool, player_ace_high: bool) -> int:
    """Which Ace High Bonus line pays, as an index into :data:`ACE_HIGH_LINES`, or -1 when
    the wager loses (seed § 688a.7(h)(1): it loses unless the dealer has an Ace High Pai Gow;
    REFERENCE.md 6a.9: checked in the order player and dealer both, dealer with the joker,
    dealer without the joker)."""
    if not dealer_ace_high:
        return -1
    if player_ace_high:
        return 0
    return 1 if dealer_joker else 2


# ---------------------------------------------------------------------------------------
# Round documents
# ---------------------------------------------------------------------------------------

_INDEX: dict[str, int] = {str(c): c.index for c in DECK_53}
_CARD: dict[str, Card] = {str(c): c for c in DECK_53}
_BIT: dict[str, int] = {str(c): 1 << c.index for c in DECK_53}
_TOP_KEYS = frozenset({"round_id", "game", "ruleset", "banker", "progressive_meter",
                       "dealer", "seats"})
_DEALER_KEYS = frozenset({"cards", "high", "low", "wager"})
_SEAT_KEYS = frozenset({"seat", "cards", "high", "low", "action", "wagers"})
_PLAY = "play"


def _tokens(value: object, where: str, name: str, count: int) -> tuple[list[str], int]:
    """A list of ``count`` card tokens and the cards as a 53-bit mask, the sum of their
    bits: it has ``count`` bits exactly when no card repeats (a repeat carries into another
    bit and loses one). The document reader names a bad token or count."""
    if type(value) is list and len(value) == count:
        try:
            return value, sum(map(_BIT.__getitem__, value))
        except (KeyError, TypeError):
            pass
    read_cards(value, f"{where}.{name}", count=count)
    raise AssertionError(f"{where}.{name} read {value!r}")  # read_cards raised first


def _render(mask: int) -> str:
    return render_cards(c for c in DECK_53 if mask >> c.index & 1)


def _unknown(obj: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    if not allowed.issuperset(obj):
        raise DocumentError(f"{where} has unknown fields {sorted(set(obj) - allowed)}; "
                            f"allowed: {sorted(allowed)}")


_Holding = tuple[list[int], int, list[Card] | None, list[Card] | None]
"""A party's dealt cards (indexes and mask) and its high and low hands (None: not set)."""


def _holding(obj: object, where: str, *, must_be_set: bool) -> _Holding:
    if type(obj) is not dict and not isinstance(obj, Mapping):
        raise DocumentError(f"{where} must be an object, got {obj!r}")
    if "cards" not in obj:
        raise DocumentError(f"{where} has no 'cards'")
    dealt, mask = _tokens(obj["cards"], where, "cards", HAND_SIZE)
    if mask.bit_count() != HAND_SIZE:
        raise DocumentError(f"{where}.cards repeats a card: {' '.join(dealt)}")
    indexes = list(map(_INDEX.__getitem__, dealt))
    if "high" not in obj and "low" not in obj and not must_be_set:
        return indexes, mask, None, None
    for name in ("high", "low"):
        if name not in obj:
            raise DocumentError(f"{where} has no {name!r}: its hand must be set")
    high, high_mask = _tokens(obj["high"], where, "high", HIGH_SIZE)
    low, low_mask = _tokens(obj["low"], where, "low", LOW_SIZE)
    if high_mask.bit_count() != HIGH_SIZE or low_mask.bit_count() != LOW_SIZE:
        raise DocumentError(f"{where}: the high and low hands repeat a card: "
                            f"{' '.join(high)} / {' '.join(low)}")
    if high_mask | low_mask != mask or high_mask & low_mask:
        set_mask = high_mask | low_mask
        raise DocumentError(
            f"{where}: the high and low hands must use exactly the dealt cards "
            f"{_render(mask)!r}; set but not dealt {_render(set_mask & ~mask)!r}, dealt but "
            f"not set {_render(mask & ~set_mask)!r}"
        )
    return (indexes, mask, list(map(_CARD.__getitem__, high)),
            list(map(_CARD.__getitem__, low)))


def _repeated(parties: Sequence[tuple[str, list[int]]]) -> str:
    where: dict[int, list[str]] = {}
    for who, dealt in parties:
        for i in dealt:
            where.setdefault(i, []).append(who)
    return "; ".join(f"card {DECK_53[i]} dealt to {' and '.join(places)}"
                     for i, places in sorted(where.items()) if len(places) > 1)


def _wagers(value: object, where: str) -> dict[str, int]:
    """A seat's wagers (the document reader names a bad one; zero amounts dropped: 6a.18)."""
    if type(value) is dict:
        out = {}
        for name, amount in value.items():
            if name not in WAGER_NAMES or type(amount) is not int or amount < 0:
                break
            if amount:
                out[name] = amount
        else:
            return out
    return read_wagers(value, f"{where}.wagers", WAGER_NAMES)


def _main_result(amount: int, outcome: Outcome, ruleset: Ruleset) -> dict[str, Any]:
    """The Face Up wager's settlement in the result form, by the rule of
    :func:`replay.games.pai_gow_poker.settle_main` (REFERENCE.md 1.2, 6: a win pays 1:1 less
    the ruleset's commission, none for Face Up; a loss loses the amount; a tie returns it),
    without building a Settlement on the hot path."""
    if outcome is Outcome.WIN:
        commission = ruleset.commission.on(amount)
        return wager_entry(_WIN, amount - commission, commission)
    if outcome is Outcome.LOSS:
        return wager_entry(_LOSS, -amount, 0)
    if outcome is Outcome.PUSH:
        return wager_entry(_PUSH, 0, 0)
    raise MoneyError(f"Face Up voids no wager: outcome must be a win, loss or push, "
                     f"got {outcome!r}")


def judge_document(doc: Mapping[str, Any], ruleset: Ruleset) -> dict[str, Any]:
    """The result of one Face Up round document (issue 3 "Round document" and "Result").

    The Face Up wager (seed § 688a.7(f); REFERENCE.md 6): a fouled player hand loses
    ((f)(1)(iii)), even when the dealer has an Ace High Pai Gow (6, 6a.6); otherwise a
    dealer Ace High Pai Gow ties it ((f)(2)(iii)); otherwise both hands higher wins 1:1
    ((f)(3)), less the ruleset's commission (none in the shipped ruleset), one hand higher
    ties ((f)(2)(i)-(ii)), and neither higher loses ((f)(1)(i)-(ii): copies go to the
    dealer). The optional wagers are settled on the seven cards whatever the setting
    (§ 688a.7(h), 6a.6): Ace High Bonus (:func:`ace_high_line`, wager x odds), Fortune,
    Progressive and Envy (:func:`settle_bonus_wagers`).

    The dealer: ``foul`` as set (reported, and compared as set: 6a.7), ``house_way`` whether
    the set hand is the ruleset's house way (the same cards in each hand, or hands of the
    same ranks), ``ace_high_pai_gow`` (6a.8); ``qualifies`` is null and ``net`` 0 (the
    dealer banks and has no wager of its own). Seats keep the document's order; a seat's
    ``foul`` is null when it set no hand (allowed only without a Face Up wager); wagers of
    zero or absent are left out (6a.18); ``envy`` is the seat's total Envy Bonus.

    :class:`DocumentError` names what is wrong and where: a malformed document, unknown
    fields, cards or wagers, a repeated card, a wrong number of cards, a set hand that does
    not use the dealt cards, a player banker (Face Up is dealer-banked only: 6a.18), a
    dealer wager, a missing progressive_meter when a Progressive wager is present.
    """
    if not isinstance(doc, Mapping):
        raise DocumentError(f"a round document must be an object, got {doc!r}")
    _unknown(doc, _TOP_KEYS, "the round document")
    round_id = doc.get("round_id")
    if not isinstance(round_id, str) or not round_id:
        raise DocumentError(f"round_id must be non-empty text, got {round_id!r}")
    if doc.get("game") != GAME:
        raise DocumentError(f"game must be {GAME!r}, got {doc.get('game')!r}")
    banker = doc.get("banker", "dealer")
    if banker != "dealer":
        raise DocumentError(
            f"banker {banker!r} refused: Face Up pai gow poker is dealer-banked only "
            f"(REFERENCE.md 6a.18); banker must be \"dealer\" or absent"
        )
    dealer_doc = doc.get("dealer")
    if dealer_doc is None:
        raise DocumentError("the round document has no 'dealer'")
    if isinstance(dealer_doc, Mapping):
        _unknown(dealer_doc, _DEALER_KEYS, "dealer")
        if cents(dealer_doc.get("wager", 0), "dealer.wager"):
            raise DocumentError(
                f"dealer.wager {dealer_doc['wager']!r} refused: the dealer wagers only against "
                f"a player banker, and Face Up is dealer-banked only (REFERENCE.md 6a.18)"
            )
    dealer_cards, round_mask, dealer_high, dealer_low = _holding(dealer_doc, "dealer",
                                                                 must_be_set=True)
    assert dealer_high is not None and dealer_low is not None
    seats_doc = doc.get("seats")
    if not isinstance(seats_doc, list):
        raise DocumentError(f"seats must be a list of seats, got {seats_doc!r}")

    numbers: list[int] = []
    holdings: list[_Holding] = []
    wagered: list[dict[str, int]] = []
    for i, seat_doc in enumerate(seats_doc):
        if type(seat_doc) is not dict and not isinstance(seat_doc, Mapping):
            raise DocumentError(f"seats[{i}] must be an object, got {seat_doc!r}")
        if "seat" not in seat_doc:
            raise DocumentError(f"seats[{i}] has no 'seat'")
        number = seat_number(seat_doc["seat"], f"seats[{i}].seat")
        where = f"seat {number}"
        _unknown(seat_doc, _SEAT_KEYS, where)
        action = seat_doc.get("action", _PLAY)
        if action != _PLAY:
            raise DocumentError(f"{where}.action must be {_PLAY!r} in Face Up pai gow poker, "
                                f"got {action!r}")
        amounts = _wagers(seat_doc.get("wagers", {}), where)
        holding = _holding(seat_doc, where, must_be_set=MAIN in amounts)
        round_mask |= holding[1]
        numbers.append(number)
        holdings.append(holding)
        wagered.append(amounts)
    if len(set(numbers)) != len(numbers):
        twice = sorted({n for n in numbers if numbers.count(n) > 1})
        raise DocumentError(f"seats {twice} appear more than once")
    if round_mask.bit_count() != HAND_SIZE * (len(holdings) + 1):
        raise DocumentError("a card is dealt twice: " + _repeated(
            [("dealer", dealer_cards),
             *((f"seat {n}", h[0]) for n, h in zip(numbers, holdings, strict=True))]))
    meter = None
    if "progressive_meter" in doc:
        meter = cents(doc["progressive_meter"], "progressive_meter")
    if meter is None and any(PROGRESSIVE in w for w in wagered):
        raise DocumentError("progressive_meter (cents) is required when a progressive wager "
                            "is present (REFERENCE.md 6a.13)")
    way = HOUSE_WAYS.get(ruleset.house_way)
    if way is None:
        raise DocumentError(f"ruleset {ruleset.id} names house way {ruleset.house_way!r}; "
                            f"known: {', '.join(sorted(HOUSE_WAYS))}")

    wheel = ruleset.wheel
    d_high = rank_high(dealer_high, wheel=wheel)
    d_low = rank_low(dealer_low)
    setting = house_way_setting([DECK_53[i] for i in dealer_cards], wheel=wheel, way=way)
    follows = {c.index for c in setting.high} == {c.index for c in dealer_high} or (
        rank_high(setting.high, wheel=wheel) == d_high and rank_low(setting.low) == d_low
    )
    dealer_flags = _classify(dealer_cards)
    dealer_ace_high = bool(dealer_flags & _AHPG)
    dealer_joker = _JOKER_INDEX in dealer_cards

    codes: list[int] = []
    seats_out: list[dict[str, Any]] = []
    for number, (dealt, _, high, low), amounts in zip(numbers, holdings, wagered, strict=True):
        flags = _classify(dealt)
        codes.append(flags & _CODE_MASK)
        wagers_out: dict[str, Any] = {}
        foul: bool | None = None
        if high is not None and low is not None:
            p_high = rank_high(high, wheel=wheel)
            p_low = rank_low(low)
            foul = is_foul(p_high, p_low)
            amount = amounts.get(MAIN)
            if amount:
                wagers_out[MAIN] = _main_result(
                    amount, _face_up_outcome(foul, dealer_ace_high, p_high, p_low, d_high, d_low),
                    ruleset)
        amount = amounts.get(ACE_HIGH)
        if amount:
            outcome, net = _ace_high(ruleset, amount, ace_high_line(
                dealer_ace_high=dealer_ace_high, dealer_joker=dealer_joker,
                player_ace_high=bool(flags & _AHPG)))
            wagers_out[ACE_HIGH] = wager_entry(outcome, net, 0)
        seats_out.append(seat_entry(number, foul, wagers_out))

    try:
        fortune, progressive, envy = _settle_bonus(
            codes, [w.get(FORTUNE, 0) for w in wagered], [w.get(PROGRESSIVE, 0) for w in wagered],
            ruleset, meter,
        )
    except RoundError as exc:
        raise DocumentError(str(exc)) from None
    for k, out in enumerate(seats_out):
        settled = fortune[k]
        if settled is not None:
            out["wagers"][FORTUNE] = wager_entry(settled[0], settled[1], 0)
        settled = progressive[k]
        if settled is not None:
            out["wagers"][PROGRESSIVE] = wager_entry(settled[0], settled[1], 0)
        out["envy"] = envy[k]
    return result_object(
        round_id=round_id, ruleset_id=ruleset.id,
        dealer=dealer_entry(foul=is_foul(d_high, d_low), house_way=follows,
                            ace_high_pai_gow=dealer_ace_high),
        seats=seats_out,
    )


def _face_up_outcome(foul: bool, dealer_ace_high: bool, p_high: HighRank, p_low: LowRank,
                     d_high: HighRank, d_low: LowRank) -> Outcome:
    """Seed § 688a.7(f): (1)(iii) a foul loses, before (2)(iii) the dealer's Ace High Pai
    Gow ties (REFERENCE.md 6); otherwise the rule of
    :func:`replay.games.pai_gow_poker.compare` ((1)(i)-(ii), (2)(i)-(ii), (3))."""
    if foul:
        return Outcome.LOSS
    if dealer_ace_high:
        return Outcome.PUSH
    # compare()'s rule on the ranks' keys (a hand wins only when strictly higher; copies go
    # to the dealer), without its argument conversions on the hot path
    high_won = p_high.key > d_high.key
    if high_won and p_low.key > d_low.key:
        return Outcome.WIN
    if high_won or p_low.key > d_low.key:
        return Outcome.PUSH
    return Outcome.LOSS


def _ace_high(ruleset: Ruleset, amount: int, line: int) -> _Settled:
    """Seed § 688a.7(h)(1); REFERENCE.md 6a.9, 6a.12: wager x the line's odds, or the loss."""
    if line < 0:
        return (_LOSS, -amount)
    table = _posted(ruleset).ace_high
    if table is None:
        raise _missing_table(ruleset, ACE_HIGH)
    return (_WIN, table[line].win_cents(wager_cents=amount))


RULES = GameRules(
    name=GAME,
    title="Face Up pai gow poker (dealer banked; Ace High, Fortune, Envy, Progressive)",
    deck=DECK_53,
    citation="58 Pa. Code § 688a.1, § 688a.7(f), (h); REFERENCE.md 2, 6, 6a.6, 6a.8-6a.13, "
             "6a.18",
    judge_document=judge_document,
    option_names=frozenset({QUALIFYING_WAGER_CENTS}),
    paytable_names=frozenset({ACE_HIGH, FORTUNE, PROGRESSIVE, ENVY}),
)
