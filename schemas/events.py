"""The event vocabulary: past-tense facts about a round, one frozen dataclass each.

The Avro names (``catwalk.RoundStarted`` ...) are the stable identity of an event, not the
Python path: the codec maps names to classes in ``PAYLOAD_TYPES`` below (STYLE.md 5).
Money is integer cents; a float or a bool where cents are expected is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CARD_TOKEN = re.compile(r"^(?:[2-9TJQKA][cdhs]|Jk)$")
"""One card in the project's notation: rank 2-9 T J Q K A plus suit c d h s; ``Jk`` the joker."""

WAGERS = frozenset({"main", "ace_high", "fortune", "progressive", "ante", "raise"})
OUTCOMES = frozenset({"win", "loss", "push", "void"})
GAMES = frozenset({"pai_gow_poker", "face_up_pai_gow", "pai_gow_tiles", "caribbean_stud"})


class EventError(ValueError):
    """An event that cannot be a fact: names the field and the bad value."""


def _cents(name: str, value: object, *, signed: bool) -> None:
    if type(value) is not int:
        raise EventError(f"{name} must be integer cents, got {value!r}")
    if not signed and value < 0:
        raise EventError(f"{name} must not be negative, got {value}")


def _seat(value: object, *, dealer_allowed: bool) -> None:
    if value is None and dealer_allowed:
        return
    if type(value) is not int or value < 1:
        raise EventError(f"seat must be a seat number from 1, got {value!r}")


def _cards(name: str, cards: tuple[str, ...]) -> None:
    for i, token in enumerate(cards):
        if not isinstance(token, str) or not CARD_TOKEN.match(token):
            raise EventError(f"{name}[{i}] is not a card: {token!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundStarted:
    """A round opened at a table, run by ``dealer_id`` under ``ruleset`` (None: in force)."""

    game: str
    dealer_id: str
    ruleset: str | None = None
    banker: str = "dealer"

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise EventError(f"unknown game {self.game!r}; known: {', '.join(sorted(GAMES))}")
        if not self.dealer_id:
            raise EventError("dealer_id is empty")


@dataclass(frozen=True, slots=True, kw_only=True)
class WagerPlaced:
    """A seat placed a wager of ``amount_cents``."""

    seat: int
    wager: str
    amount_cents: int

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=False)
        if self.wager not in WAGERS:
            raise EventError(f"unknown wager {self.wager!r}")
        _cents("amount_cents", self.amount_cents, signed=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDealt:
    """Cards dealt to ``seat``, or to the dealer when ``seat`` is None."""

    seat: int | None
    cards: tuple[str, ...]

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=True)
        _cards("cards", self.cards)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSet:
    """``seat`` (None: the dealer) set its cards into a high hand and a low hand."""

    seat: int | None
    high: tuple[str, ...]
    low: tuple[str, ...]

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=True)
        _cards("high", self.high)
        _cards("low", self.low)


@dataclass(frozen=True, slots=True, kw_only=True)
class WagerSettled:
    """The table settled a wager, as recorded (right or wrong): ``net_cents`` is the change to
    the player's money after ``commission_cents``."""

    seat: int
    wager: str
    outcome: str
    net_cents: int
    commission_cents: int

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=False)
        if self.wager not in WAGERS:
            raise EventError(f"unknown wager {self.wager!r}")
        if self.outcome not in OUTCOMES:
            raise EventError(f"unknown outcome {self.outcome!r}")
        _cents("net_cents", self.net_cents, signed=True)
        _cents("commission_cents", self.commission_cents, signed=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundEnded:
    """The round is over."""

    note: str | None = None


Payload = RoundStarted | WagerPlaced | CardsDealt | HandSet | WagerSettled | RoundEnded

PAYLOAD_TYPES: dict[str, type[Payload]] = {
    "catwalk.RoundStarted": RoundStarted,
    "catwalk.WagerPlaced": WagerPlaced,
    "catwalk.CardsDealt": CardsDealt,
    "catwalk.HandSet": HandSet,
    "catwalk.WagerSettled": WagerSettled,
    "catwalk.RoundEnded": RoundEnded,
}
AVRO_NAMES: dict[type[Payload], str] = {cls: name for name, cls in PAYLOAD_TYPES.items()}


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundEvent:
    """The envelope every event travels in (DESIGN.md, STYLE.md 5)."""

    event_id: str
    casino: str
    table_id: str
    table_seq: int
    round_id: str
    occurred_at_us: int
    recorded_by: str
    payload: Payload

    def __post_init__(self) -> None:
        for name in ("event_id", "casino", "table_id", "round_id", "recorded_by"):
            if not getattr(self, name):
                raise EventError(f"{name} is empty")
        if type(self.table_seq) is not int or self.table_seq < 1:
            raise EventError(f"table_seq must be a positive integer, got {self.table_seq!r}")
        if type(self.occurred_at_us) is not int or self.occurred_at_us < 0:
            raise EventError(f"occurred_at_us must be microseconds, got {self.occurred_at_us!r}")
        if type(self.payload) not in AVRO_NAMES:
            raise EventError(f"payload is not an event: {self.payload!r}")

    @property
    def kind(self) -> str:
        """The event's past-tense name, e.g. ``WagerSettled``."""
        return type(self.payload).__name__
