"""The pai gow round as values, and its one-line notation.

One line holds everything needed to reproduce a judgement of a round, and it is what error
messages, log lines, findings and the dashboard show::

    <round_id> <game> D=<dealer hand> S<seat>(<wagers>)=<seat hand> ...

    r-17 pai_gow_poker D=AsKdQhJcTc/9s2d S1(main 2500)=7h7d5c4s3h/KcQd S4(main 1000)=JkAhAd8c3c/Ks2h

A hand is written with its cards concatenated (``AsKd``, see ``replay.cards``):

- a set hand as ``<high>/<low>`` (the 5-card high hand, a slash, the 2-card low hand);
- a hand not set yet as the dealt cards, with no slash (``AcQdJsTh8d6h2s``);
- a set hand that does not use exactly the dealt cards (a broken round, which the rules
  engine reports) as ``<dealt>:<high>/<low>``, so that the line still reproduces it.

Wagers are ``name cents`` pairs separated by commas, ``main`` first and then by name:
``S1(main 2500,fortune 500)``; a seat without wagers is written ``S1=...``. Seats keep their
order. ``parse_round(render_round(r)) == r`` for every round, and a line that
:func:`render_round` writes parses back to a round that renders to the same line.

The values here hold what happened, however wrong: counts, repeats and whether a set hand
uses the dealt cards are judged by the game module, not refused here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from replay.cards import Card, parse_cards, render_cards
from replay.errors import CardError, NotationError, RoundError

MAIN = "main"
"""The main wager's name (docs/rules.md 1.2; schemas ``WagerPlaced.wager``)."""

_WAGER_NAME = re.compile(r"[a-z][a-z0-9_]*")
_GAME = re.compile(r"[a-z][a-z0-9_]*")


class Wagers(Mapping[str, int]):
    """An immutable, hashable mapping of wager name to amount in integer cents.

    Iterates ``main`` first, then the other wagers by name: the order the notation writes.
    Equal to any mapping with the same items (``Wagers({"main": 500}) == {"main": 500}``).
    """

    __slots__ = ("_items",)
    _items: dict[str, int]

    def __init__(self, wagers: Mapping[str, int] | Iterable[tuple[str, int]] = ()) -> None:
        pairs = list(wagers.items()) if isinstance(wagers, Mapping) else list(wagers)
        items: dict[str, int] = {}
        for pair in pairs:
            name, amount = pair
            if not isinstance(name, str) or not _WAGER_NAME.fullmatch(name):
                raise RoundError(f"wager name must be like 'main' or 'fortune', got {name!r}")
            if type(amount) is not int or amount < 0:
                raise RoundError(
                    f"wager {name} must be non-negative integer cents, got {amount!r}"
                )
            if name in items:
                raise RoundError(f"wager {name} given twice")
            items[name] = amount
        ordered = sorted(items, key=lambda n: (n != MAIN, n))
        object.__setattr__(self, "_items", {n: items[n] for n in ordered})

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Wagers is immutable")

    def __getitem__(self, name: str) -> int:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __repr__(self) -> str:
        return f"Wagers({self._items!r})"

    def __reduce__(self) -> tuple[type[Wagers], tuple[dict[str, int]]]:
        return (Wagers, (dict(self._items),))


def _cards_field(owner: str, name: str, value: object) -> tuple[Card, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise RoundError(f"{owner}: {name} must be a sequence of cards, got {value!r}")
    cards = tuple(value)
    for i, card in enumerate(cards):
        if not isinstance(card, Card):
            raise RoundError(f"{owner}: {name}[{i}] is not a card: {card!r}")
    return cards


def _normalise_hand(owner: str, obj: Any) -> None:
    """Validate and store ``cards``/``high``/``low`` of a holding, in place.

    High and low are both given (a set hand) or both None (not set yet). When a set hand
    uses exactly the dealt cards, ``cards`` is stored as ``high + low``: the dealing order
    is no part of a holding, and the notation writes only the set hand.
    """
    cards = _cards_field(owner, "cards", obj.cards)
    if (obj.high is None) != (obj.low is None):
        raise RoundError(
            f"{owner}: high and low are both set or both None, got high={obj.high!r} "
            f"low={obj.low!r}"
        )
    high = low = None
    if obj.high is not None:
        high = _cards_field(owner, "high", obj.high)
        low = _cards_field(owner, "low", obj.low)
        if sorted(c.index for c in high + low) == sorted(c.index for c in cards):
            cards = high + low
    object.__setattr__(obj, "cards", cards)
    object.__setattr__(obj, "high", high)
    object.__setattr__(obj, "low", low)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandHolding:
    """The dealer's (or a banker's) cards: the dealt ``cards`` and, once set, ``high``/``low``.

    Glossary: "set (a hand): split the dealt cards into high and low hands". High and low
    are both given or both None. When a set hand uses exactly the dealt cards, ``cards`` is
    stored as ``high + low`` (the dealing order is no part of a holding, and the notation
    writes only the set hand); any other value is kept as given, for the rules engine to
    report. Sequences of cards are stored as tuples.
    """

    cards: tuple[Card, ...]
    high: tuple[Card, ...] | None = None
    low: tuple[Card, ...] | None = None

    def __post_init__(self) -> None:
        _normalise_hand("dealer", self)

    @property
    def is_set(self) -> bool:
        """True once the hand is set into a high hand and a low hand."""
        return self.high is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatHolding:
    """A seat's cards (stored as in :class:`HandHolding`) and its ``wagers`` in cents by
    wager name, stored as an immutable :class:`Wagers` mapping."""

    seat: int
    cards: tuple[Card, ...]
    high: tuple[Card, ...] | None = None
    low: tuple[Card, ...] | None = None
    wagers: Mapping[str, int] = field(default_factory=Wagers)

    def __post_init__(self) -> None:
        if type(self.seat) is not int or self.seat < 1:
            raise RoundError(f"seat must be a seat number from 1, got {self.seat!r}")
        _normalise_hand(f"seat {self.seat}", self)
        if not isinstance(self.wagers, Mapping):
            raise RoundError(f"seat {self.seat}: wagers must be a mapping, got {self.wagers!r}")
        try:
            wagers = Wagers(self.wagers)
        except RoundError as exc:
            raise RoundError(f"seat {self.seat}: {exc}") from None
        object.__setattr__(self, "wagers", wagers)

    @property
    def is_set(self) -> bool:
        """True once the hand is set into a high hand and a low hand."""
        return self.high is not None

    @property
    def hand(self) -> HandHolding:
        """The seat's cards without its wagers."""
        return HandHolding(cards=self.cards, high=self.high, low=self.low)


@dataclass(frozen=True, slots=True, kw_only=True)
class PaiGowRound:
    """One round at a pai gow table: the dealer's holding and each seat's (glossary: round).

    ``str(round)`` is the one-line notation (:func:`render_round`).
    """

    round_id: str
    game: str
    dealer: HandHolding
    seats: tuple[SeatHolding, ...] = ()

    def __post_init__(self) -> None:
        rid = self.round_id
        if not isinstance(rid, str) or not rid or not rid.isprintable() or any(
            ch.isspace() for ch in rid
        ):
            raise RoundError(f"round_id must be printable text without spaces, got {rid!r}")
        if not isinstance(self.game, str) or not _GAME.fullmatch(self.game):
            raise RoundError(f"round {rid}: game must be a game name, got {self.game!r}")
        if not isinstance(self.dealer, HandHolding):
            raise RoundError(f"round {rid}: dealer must be a HandHolding, got {self.dealer!r}")
        if isinstance(self.seats, str) or not isinstance(self.seats, Iterable):
            raise RoundError(f"round {rid}: seats must be a sequence, got {self.seats!r}")
        seats = tuple(self.seats)
        for seat in seats:
            if not isinstance(seat, SeatHolding):
                raise RoundError(f"round {rid}: not a SeatHolding: {seat!r}")
        object.__setattr__(self, "seats", seats)

    def __str__(self) -> str:
        return render_round(self)


def _concat(cards: tuple[Card, ...]) -> str:
    return render_cards(cards, sep="")


def _render_hand(cards: tuple[Card, ...], high: tuple[Card, ...] | None,
                 low: tuple[Card, ...] | None) -> str:
    if high is None or low is None:
        return _concat(cards)
    hand = f"{_concat(high)}/{_concat(low)}"
    return hand if cards == high + low else f"{_concat(cards)}:{hand}"


def render_round(round: PaiGowRound) -> str:
    """The one-line notation of ``round`` (see the module docstring)."""
    parts = [round.round_id, round.game,
             "D=" + _render_hand(round.dealer.cards, round.dealer.high, round.dealer.low)]
    for seat in round.seats:
        wagers = ",".join(f"{name} {amount}" for name, amount in seat.wagers.items())
        label = f"S{seat.seat}({wagers})" if wagers else f"S{seat.seat}"
        parts.append(f"{label}={_render_hand(seat.cards, seat.high, seat.low)}")
    return " ".join(parts)


_HEAD = re.compile(r"(?P<round_id>\S+) (?P<game>\S+) D=(?P<hand>\S*)")
_SEAT = re.compile(r" S(?P<seat>[1-9][0-9]*)(?:\((?P<wagers>[^()]+)\))?=(?P<hand>\S*)")
_WAGER = re.compile(r"(?P<name>[a-z][a-z0-9_]*) (?P<amount>0|[1-9][0-9]*)")


def _parse_cards(text: str, what: str, line: str) -> tuple[Card, ...]:
    try:
        return parse_cards(text)
    except CardError as exc:
        raise NotationError(f"{what}: {exc}; in round {line!r}") from None


def _parse_hand(
    text: str, who: str, line: str
) -> tuple[tuple[Card, ...], tuple[Card, ...] | None, tuple[Card, ...] | None]:
    dealt_text, colon, set_text = text.partition(":")
    if not colon:
        dealt_text, set_text = "", text
    if set_text.count("/") > 1 or ":" in set_text or (colon and "/" not in set_text):
        raise NotationError(
            f"{who}: hand {text!r} must be <dealt>, <high>/<low> or <dealt>:<high>/<low>; "
            f"in round {line!r}"
        )
    if "/" not in set_text:
        return _parse_cards(set_text, f"{who} dealt cards", line), None, None
    high_text, _, low_text = set_text.partition("/")
    high = _parse_cards(high_text, f"{who} high hand", line)
    low = _parse_cards(low_text, f"{who} low hand", line)
    cards = _parse_cards(dealt_text, f"{who} dealt cards", line) if colon else high + low
    return cards, high, low


def _parse_wagers(text: str | None, who: str, line: str) -> dict[str, int]:
    wagers: dict[str, int] = {}
    if text is None:
        return wagers
    for part in text.split(","):
        m = _WAGER.fullmatch(part)
        if m is None:
            raise NotationError(
                f"{who}: wager {part!r} must be '<name> <cents>' like 'main 2500'; "
                f"in round {line!r}"
            )
        if m["name"] in wagers:
            raise NotationError(f"{who}: wager {m['name']} given twice; in round {line!r}")
        wagers[m["name"]] = int(m["amount"])
    return wagers


def parse_round(text: str) -> PaiGowRound:
    """The round written ``text`` in the one-line notation (see the module docstring).

    :class:`NotationError` names what is wrong: the position in the line, or the seat and
    the hand whose card token is bad (with the token and its position in that hand).
    """
    if not isinstance(text, str):
        raise NotationError(f"a round notation must be text, got {text!r}")
    head = _HEAD.match(text)
    if head is None:
        raise NotationError(
            f"round notation must start '<round_id> <game> D=<hand>', got {text!r}"
        )
    dealer_cards, dealer_high, dealer_low = _parse_hand(head["hand"], "dealer", text)
    seats: list[SeatHolding] = []
    pos = head.end()
    while pos < len(text):
        m = _SEAT.match(text, pos)
        if m is None:
            raise NotationError(
                f"expected ' S<seat>(<wagers>)=<hand>' at position {pos}, found "
                f"{text[pos:pos + 20]!r}; in round {text!r}"
            )
        who = f"seat {m['seat']}"
        cards, high, low = _parse_hand(m["hand"], who, text)
        try:
            seats.append(SeatHolding(seat=int(m["seat"]), cards=cards, high=high, low=low,
                                     wagers=_parse_wagers(m["wagers"], who, text)))
        except RoundError as exc:
            raise NotationError(f"{exc}; in round {text!r}") from None
        pos = m.end()
    try:
        return PaiGowRound(
            round_id=head["round_id"], game=head["game"],
            dealer=HandHolding(cards=dealer_cards, high=dealer_high, low=dealer_low),
            seats=tuple(seats),
        )
    except RoundError as exc:
        raise NotationError(f"{exc}; in round {text!r}") from None
