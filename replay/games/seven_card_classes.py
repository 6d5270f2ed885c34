"""Seven-card classes: what seven cards make for the Fortune Bonus, the Envy Bonus and the
Progressive Payout Wager, and whether they are an Ace High Pai Gow (58 Pa. Code
§ 688a.1, § 688a.7(h); docs/rules.md 2.4 "Three of a kind above a straight", 6a.3, 6a.8,
6a.10).

What this module decides, each with the rule it implements:

- the seven-card class of a hand (:func:`seven_card_class`; 6a.10, 2.4: three of a kind
  above a straight);
- whether seven cards are an Ace High Pai Gow (:func:`is_ace_high_pai_gow`; § 688a.1, 6a.8);
- which classes are an Envy Bonus Qualifying Hand (:data:`ENVY_QUALIFYING_CLASSES`).

Both pai gow poker games use it: Face Up for its optional wagers and the Ace High Bonus,
classic pai gow poker for Fortune and Progressive (6a.18). Nothing here does I/O.

Speed: a seven-card class is two table lookups. Each card contributes a prime per rank (the
joker its own prime) and a bit in a 53-bit card set; the product of the primes indexes a
table of what the ranks alone make (five aces, four of a kind, full house, three of a kind,
straight, or an Ace High Pai Gow candidate), and when one suit holds four cards or more its
13-bit rank mask (with the joker's bit) indexes a table of what that suit makes (flush up to
the natural seven-card straight flush). The tables are filled as they are used, each entry
the first time its key is looked up (building them whole took about 0.35 s per process).
The hot path, :func:`classify_indexes`, answers a class code (:data:`CLASS_BY_CODE`) with
the :data:`ACE_HIGH_PAI_GOW_FLAG` beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations_with_replacement
from math import prod
from types import MappingProxyType

from replay.cards import DECK_53, JOKER, Card, Rank, parse_card, render_cards
from replay.errors import HandError, ReplayError
from replay.games.lazy_table import LazyTable

HAND_SIZE = 7
"""Cards a seven-card class is made from."""
HIGH_SIZE = 5
"""Cards in the five-card hands below the three seven-card hands (6a.10)."""

class SevenCardClass(StrEnum):
    """What seven cards make for the Fortune Bonus, the Envy Bonus and the Progressive
    Payout Wager (docs/rules.md 6a.10), best first. The value is the name the ruleset's
    paytables use; compare by :attr:`strength`, never by value.

    Below the three seven-card hands is the best five of the seven in bonus order: five
    aces, royal flush, straight flush, four of a kind, full house, flush, three of a kind,
    straight. Three of a kind is above the straight (docs/rules.md 2.4 "Three of a kind above
    a straight"), so seven cards that make both are three of a kind. Seven cards that make
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


CLASS_BY_CODE: tuple[SevenCardClass | None, ...] = (None, *reversed(SevenCardClass))
"""The classes by code, the code being a class's :attr:`~SevenCardClass.strength` (0: none)."""
_CODE: Mapping[SevenCardClass, int] = MappingProxyType(
    {c: code for code, c in enumerate(CLASS_BY_CODE) if c is not None}
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

ENVY_QUALIFYING_CLASSES: frozenset[SevenCardClass] = frozenset(
    c for c in SevenCardClass if c.strength >= _QUADS
)
"""§ 688a.1 "Envy Bonus Qualifying Hand": four of a kind or better formed from the seven
cards (in the order of 6a.10)."""

ACE_HIGH_PAI_GOW_FLAG = 1 << 4
"""Flag beside a class code: no pair, straight or flush and an ace or the joker (6a.8)."""
CODE_MASK = ACE_HIGH_PAI_GOW_FLAG - 1
"""The class code's bits in what :func:`classify_indexes` answers."""

_RANKS = tuple(range(Rank.TWO, Rank.ACE + 1))
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_JOKER_PRIME = 43
_JOKER_INDEX = JOKER.index
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
        return ACE_HIGH_PAI_GOW_FLAG
    return 0


@dataclass(frozen=True, slots=True, kw_only=True)
class _Tables:
    """``unsuited``: the code of what natural ranks and the joker make, by the product of
    the seven cards' primes; ``suited``: what one suit makes, by its 13-bit rank mask with
    the joker's bit above it; ``four_of_a_suit``: by suit counts packed four bits a suit,
    the one suit holding four cards or more, else -1."""

    unsuited: Mapping[int, int]
    suited: Mapping[int, int]
    four_of_a_suit: Mapping[int, int]


_PRIME_OF_RANK = tuple(zip(_RANKS, _PRIMES, strict=True))
_PACKED_SPAN = HAND_SIZE * 0x1111 + 1
"""The suit counts of seven cards, packed four bits a suit, are below this."""


def _unsuited_entry(key: int) -> int:
    """The ``unsuited`` table's code for a product of primes; KeyError when no seven
    different cards make it (two jokers, five of a natural rank, not seven cards)."""
    if key < 1:
        raise KeyError(key)
    rest, joker = key, 0
    while rest % _JOKER_PRIME == 0:
        rest //= _JOKER_PRIME
        joker += 1
    ranks: list[int] = []
    for rank, prime in _PRIME_OF_RANK:
        while rest % prime == 0:
            rest //= prime
            ranks.append(rank)
    if (rest != 1 or joker > 1 or len(ranks) + joker != HAND_SIZE
            or max(ranks.count(r) for r in set(ranks)) > 4):
        raise KeyError(key)
    return _unsuited_code(tuple(ranks), joker)


def _suited_entry(key: int) -> int:
    if not 0 <= key < 2 * _JOKER_FLAG:
        raise KeyError(key)
    return _suited_code(key & _RANK_MASK, key >> _SUIT_SPAN)


def _four_of_a_suit_entry(packed: int) -> int:
    if not 0 <= packed < _PACKED_SPAN:
        raise KeyError(packed)
    held = [s for s in range(4) if (packed >> (4 * s)) & 0xF >= 4]
    return held[0] if held else -1


def _build_tables() -> _Tables:
    """Every key of the tables at once (about 0.35 s): the reference the tables
    :func:`_tables` fills as keys are looked up are tested against."""
    unsuited: dict[int, int] = {}
    for joker in (0, 1):
        for ranks in combinations_with_replacement(_RANKS, HAND_SIZE - joker):
            if max(ranks.count(r) for r in set(ranks)) <= 4:
                key = prod(_PRIMES[r - Rank.TWO] for r in ranks) * (_JOKER_PRIME if joker else 1)
                unsuited[key] = _unsuited_code(ranks, joker)
    suited = {key: _suited_entry(key) for key in range(2 * _JOKER_FLAG)}
    four = {packed: _four_of_a_suit_entry(packed) for packed in range(_PACKED_SPAN)}
    return _Tables(unsuited=MappingProxyType(unsuited), suited=MappingProxyType(suited),
                   four_of_a_suit=MappingProxyType(four))


def _lazy_tables() -> _Tables:
    """The tables, each entry worked out the first time its key is looked up (and kept),
    to keep replay fast: a process pays only for the hands it meets (building them whole
    took about 0.35 s in every process)."""
    return _Tables(unsuited=MappingProxyType(LazyTable(_unsuited_entry)),
                   suited=MappingProxyType(LazyTable(_suited_entry)),
                   four_of_a_suit=MappingProxyType(LazyTable(_four_of_a_suit_entry)))


_TABLES: list[_Tables] = []


def _tables() -> _Tables:
    if not _TABLES:
        _TABLES.append(_lazy_tables())
    return _TABLES[0]


_PRIME = tuple(
    _JOKER_PRIME if c.is_joker else _PRIMES[c.rank - Rank.TWO] for c in DECK_53
)
_CARD_BIT = tuple(1 << c.index for c in DECK_53)
_SUIT_COUNT = tuple(0 if c.is_joker else 1 << (4 * (c.index // _SUIT_SPAN)) for c in DECK_53)


def classify_indexes(idx: Sequence[int]) -> int:
    """The class code of seven distinct card indexes (6a.10; :data:`CLASS_BY_CODE`), with
    the :data:`ACE_HIGH_PAI_GOW_FLAG` when they are an Ace High Pai Gow (6a.8). The hot
    path: no validation."""
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
    return max(code & CODE_MASK, suited)


def seven_card_indexes(cards: Sequence[Card], what: str) -> list[int]:
    """The DECK_53 indexes of seven different cards; :class:`HandError` names ``what``
    otherwise."""
    if isinstance(cards, str) or not all(isinstance(card, Card) for card in cards):
        raise HandError(f"{what} must be {HAND_SIZE} cards, got {cards!r}")
    idx = [card.index for card in cards]
    if len(idx) != HAND_SIZE or len(set(idx)) != HAND_SIZE:
        raise HandError(f"{what} must be {HAND_SIZE} different cards, got "
                        f"{render_cards(cards)!r}")
    return idx


def seven_card_class(cards: Sequence[Card]) -> SevenCardClass | None:
    """The class of seven cards for Fortune, Envy and Progressive (docs/rules.md 6a.10;
    58 Pa. Code § 688a.7(h): the dealer rearranges the seven cards to form the highest ranking hand,
    however the player set them), or None when they make less than a straight.

    The joker (6a.3) is an ace, or completes a straight, flush, straight flush or royal
    flush. :class:`HandError` when ``cards`` are not seven different cards.
    """
    code = classify_indexes(seven_card_indexes(cards, "a seven-card hand"))
    return CLASS_BY_CODE[code & CODE_MASK]


def paytable_class(tokens: Sequence[str], ruleset: object = None) -> str | None:
    """The seven-card class of dealt tokens in notation, as the paytables name it (6a.10);
    None when they make less than a straight or are not seven different cards
    (``GameRules.paytable_class``: the class does not depend on the ruleset)."""
    try:
        found = seven_card_class([parse_card(token) for token in tokens])
    except (ReplayError, TypeError, ValueError):
        return None
    return None if found is None else found.value


def is_ace_high_pai_gow(cards: Sequence[Card]) -> bool:
    """True when seven cards are an Ace High Pai Gow (58 Pa. Code § 688a.1: "the seven cards ... is
    a rank of Ace high"; docs/rules.md 6a.8): the best five-card hand is a high-card hand whose
    highest card is an ace, the joker counting as an ace. A pair (the joker pairs an ace), a
    straight or a flush, the joker completing one, makes it not Ace High Pai Gow."""
    code = classify_indexes(seven_card_indexes(cards, "a seven-card hand"))
    return bool(code & ACE_HIGH_PAI_GOW_FLAG)

