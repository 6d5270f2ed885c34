"""Cards of the 53-card pai gow poker deck and their notation (docs/rules.md 1.1).

A card is written as two characters: a rank out of ``2 3 4 5 6 7 8 9 T J Q K A`` and a suit
out of ``c d h s``; the joker is ``Jk``. A list of cards is written space separated
(``As Kd Jk``, what :func:`render_cards` gives) or concatenated (``AsKdJk``, the form the
one-line round notation uses); :func:`parse_cards` reads both, and
``parse_cards(render_cards(cards)) == cards`` for every tuple of cards.

Parsing is notation only: a repeated card parses, because judging whether a hand may hold
it is the rules engine's business, not the notation's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum

from replay.errors import CardError


class Rank(IntEnum):
    """A card's rank. The value is the rank's poker value, ace high (docs/rules.md 1.1).

    ``JOKER`` is a sentinel (its value 15 is not a poker value): what the joker stands for
    depends on the hand and is decided by the game's evaluator (docs/rules.md 6a.3).
    """

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14
    JOKER = 15

    @property
    def symbol(self) -> str:
        """The rank's character in the notation (``T`` for ten; the joker's is ``J``)."""
        return _RANK_SYMBOLS[self]


class Suit(StrEnum):
    """A card's suit; the value is the notation. Suits never rank (docs/rules.md 6a.4).

    ``JOKER`` is the joker's own pseudo-suit, written ``k`` so that the joker reads ``Jk``.
    """

    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"
    JOKER = "k"


_RANK_SYMBOLS = {
    Rank.TWO: "2", Rank.THREE: "3", Rank.FOUR: "4", Rank.FIVE: "5", Rank.SIX: "6",
    Rank.SEVEN: "7", Rank.EIGHT: "8", Rank.NINE: "9", Rank.TEN: "T", Rank.JACK: "J",
    Rank.QUEEN: "Q", Rank.KING: "K", Rank.ACE: "A", Rank.JOKER: "J",
}
_NATURAL_RANKS = tuple(r for r in Rank if r is not Rank.JOKER)
_NATURAL_SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class Card:
    """One card: a natural card (rank 2..A, suit c/d/h/s) or the joker (``JOKER``, ``Jk``).

    ``index`` is the card's position in :data:`DECK_53` (0..52), filled in on construction;
    it is not part of equality and serves fast table lookups in the evaluators. Cards order
    by rank, then suit letter, which is a deterministic order for sorting, not a ranking.
    """

    rank: Rank
    suit: Suit
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.rank, Rank):
            raise CardError(f"card rank must be a Rank, got {self.rank!r}")
        if not isinstance(self.suit, Suit):
            raise CardError(f"card suit must be a Suit, got {self.suit!r}")
        if (self.rank is Rank.JOKER) != (self.suit is Suit.JOKER):
            raise CardError(
                f"the joker is rank JOKER with suit JOKER; got rank {self.rank.name} "
                f"with suit {self.suit.name}"
            )
        if self.rank is Rank.JOKER:
            index = 52
        else:
            index = _NATURAL_SUITS.index(self.suit) * 13 + (self.rank - Rank.TWO)
        object.__setattr__(self, "index", index)

    def __hash__(self) -> int:
        return self.index

    def __str__(self) -> str:
        return self.rank.symbol + self.suit.value

    def __repr__(self) -> str:
        return f"parse_card({str(self)!r})"

    @property
    def is_joker(self) -> bool:
        """True for the joker (docs/rules.md 1.1: semi-wild)."""
        return self.rank is Rank.JOKER


JOKER = Card(rank=Rank.JOKER, suit=Suit.JOKER)
"""The joker, written ``Jk`` (docs/rules.md 1.1)."""

DECK_52: tuple[Card, ...] = tuple(
    Card(rank=rank, suit=suit) for suit in _NATURAL_SUITS for rank in _NATURAL_RANKS
)
"""The 52 natural cards, suit by suit (clubs, diamonds, hearts, spades), each from 2 to ace:
``2c 3c ... Ac 2d ... As``. ``DECK_52[i].index == i``."""

DECK_53: tuple[Card, ...] = (*DECK_52, JOKER)
"""The pai gow poker deck (docs/rules.md 1.1): :data:`DECK_52` followed by the joker, so that
``DECK_53[i].index == i`` and the joker's index is 52."""

_BY_TOKEN: dict[str, Card] = {str(card): card for card in DECK_53}

_EXPECTED = "expected a rank of 23456789TJQKA followed by a suit of cdhs, or Jk for the joker"


def parse_card(text: str) -> Card:
    """The card written ``text`` (``As``, ``Td``, ``Jk``); :class:`CardError` names a bad one."""
    card = _BY_TOKEN.get(text) if isinstance(text, str) else None
    if card is None:
        raise CardError(f"bad card token {text!r} at position 0: {_EXPECTED}")
    return card


def parse_cards(text: str) -> tuple[Card, ...]:
    """The cards written in ``text``, space separated (``As Kd Jk``) or concatenated (``AsKdJk``).

    Both forms may be mixed (each space-separated chunk is read two characters at a time).
    The empty string gives no cards. A bad token raises :class:`CardError` naming the token,
    its card number (from 1) and its character position in ``text`` (from 0).
    """
    if not isinstance(text, str):
        raise CardError(f"cards must be given as text, got {text!r}")
    cards: list[Card] = []
    pos = 0
    length = len(text)
    while pos < length:
        if text[pos].isspace():
            pos += 1
            continue
        token = text[pos : pos + 2]
        if len(token) < 2 or token[1].isspace():
            token = token[:1]
        card = _BY_TOKEN.get(token)
        if card is None:
            raise CardError(
                f"bad card token {token!r} (card {len(cards) + 1}, position {pos}) "
                f"in {text!r}: {_EXPECTED}"
            )
        cards.append(card)
        pos += 2
    return tuple(cards)


def render_cards(cards: Iterable[Card], *, sep: str = " ") -> str:
    """The notation of ``cards``: ``As Kd Jk`` (``sep=""`` gives the concatenated ``AsKdJk``)."""
    out = []
    for card in cards:
        if not isinstance(card, Card):
            raise CardError(f"not a card: {card!r}")
        out.append(str(card))
    return sep.join(out)
