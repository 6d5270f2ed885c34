"""The event vocabulary: past-tense facts about a round, one frozen dataclass each.

The Avro names (``catwalk.RoundStarted`` ...) are the stable identity of an event, not the
Python path: the codec maps names to classes in ``PAYLOAD_TYPES`` below.
These classes are the newest vocabulary (schema id 3); events written under schema ids 1 and 2
are upcast to them by the codec. Money is integer cents; a float or a bool where cents are
expected is refused. Whether a fact was *allowed* (a card dealt twice, a raise that is not
twice the ante) is replay's question, not the event's: an event only refuses values that
cannot be a fact at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schemas import vocabulary

CARD_TOKEN = re.compile(r"^(?:[2-9TJQKA][cdhs]|Jk)$")
"""One card in the project's notation: rank 2-9 T J Q K A plus suit c d h s; ``Jk`` the joker."""

TILE_TOKEN = re.compile(r"^([1-6])-([1-6])$")
"""One pai gow tile by its pips, the smaller first: ``6-6``, ``1-3``, ``2-4``."""

GAMES = frozenset(vocabulary.GAMES)
WAGERS = vocabulary.WAGERS
OUTCOMES = frozenset(vocabulary.OUTCOMES)
ACTIONS = vocabulary.ACTIONS
JACKPOT_STEPS = vocabulary.JACKPOT_STEPS
PAID_FROM = frozenset(vocabulary.PAID_FROM)
SHUFFLE_KINDS = frozenset(vocabulary.SHUFFLE_KINDS)
BANK_PASS_REASONS = frozenset(vocabulary.BANK_PASS_REASONS)
"""The allowed words of the fields the schemas type as ``string``: one home,
:mod:`schemas.vocabulary` (docs/events.md)."""

MAX_CENTS = (1 << 63) - 1
"""An Avro ``long``: amounts beyond it cannot be written at all."""


CARD_TOKENS = frozenset(f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs") | {"Jk"}
"""Every token ``CARD_TOKEN`` matches, for a set lookup per card instead of a regex."""
TILE_TOKENS = frozenset(f"{a}-{b}" for a in range(1, 7) for b in range(a, 7))
"""Every tile token :func:`is_tile` accepts."""


class EventError(ValueError):
    """An event that cannot be a fact: names the field and the bad value."""


def _cents(name: str, value: object, *, signed: bool) -> None:
    if type(value) is not int:
        raise EventError(f"{name} must be integer cents, got {value!r}")
    if not signed and value < 0:
        raise EventError(f"{name} must not be negative, got {value}")
    if not -MAX_CENTS - 1 <= value <= MAX_CENTS:
        raise EventError(f"{name} {value} does not fit a 64-bit amount of cents")


def _seat(value: object, *, dealer_allowed: bool) -> None:
    if value is None and dealer_allowed:
        return
    if type(value) is not int or not 1 <= value <= 2**31 - 1:
        raise EventError(f"seat must be a seat number from 1, got {value!r}")


def _text(name: str, value: object) -> None:
    if not isinstance(value, str) or not value:
        raise EventError(f"{name} must be non-empty text, got {value!r}")


def _cards(name: str, cards: tuple[str, ...]) -> None:
    if not isinstance(cards, tuple):
        raise EventError(f"{name} must be a tuple of card tokens, got {cards!r}")
    if all(type(token) is str and token in CARD_TOKENS for token in cards):
        return
    for i, token in enumerate(cards):
        if not isinstance(token, str) or not CARD_TOKEN.match(token):
            raise EventError(f"{name}[{i}] is not a card: {token!r}")


def is_tile(token: object) -> bool:
    """Whether ``token`` is a tile in notation (pips 1-6, the smaller first)."""
    return type(token) is str and token in TILE_TOKENS


def _tiles(name: str, tiles: tuple[str, ...]) -> None:
    if not isinstance(tiles, tuple):
        raise EventError(f"{name} must be a tuple of tile tokens, got {tiles!r}")
    for i, token in enumerate(tiles):
        if not is_tile(token):
            raise EventError(f"{name}[{i}] is not a tile (pips 1-6, smaller first): {token!r}")


def _cards_or_tiles(name: str, tokens: tuple[str, ...]) -> None:
    if isinstance(tokens, tuple) and tokens and tokens[0] in TILE_TOKENS:
        _tiles(name, tokens)
    else:
        _cards(name, tokens)


def banker_words(banker_seat: int | None, co_bank: bool) -> str:
    """Who banks, in words: ``dealer``, ``seat 3`` or ``seat 3 co-bank`` (also schema id 1's
    ``banker`` text for the first two)."""
    if banker_seat is None:
        return "dealer"
    return f"seat {banker_seat}" + (" co-bank" if co_bank else "")


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundStarted:
    """A round opened at a table, run by ``dealer_id`` under ``ruleset`` (None: in force).
    ``banker_seat`` None: the dealer banks; a seat: that player banks, with the house as
    50/50 co-banker when ``co_bank`` (pai gow poker procedure (11)). ``banker_cover_cents``
    (schema id 3) is what the player banker put up to cover the wagers against the bank;
    None: not recorded (always None when the dealer banks)."""

    game: str
    dealer_id: str
    ruleset: str | None = None
    banker_seat: int | None = None
    co_bank: bool = False
    banker_cover_cents: int | None = None

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise EventError(f"unknown game {self.game!r}; known: {', '.join(sorted(GAMES))}")
        _text("dealer_id", self.dealer_id)
        _seat(self.banker_seat, dealer_allowed=True)
        if type(self.co_bank) is not bool:
            raise EventError(f"co_bank must be true or false, got {self.co_bank!r}")
        if self.co_bank and self.banker_seat is None:
            raise EventError("co_bank needs a player banker seat: the dealer does not co-bank")
        if self.banker_cover_cents is not None:
            if self.banker_seat is None:
                raise EventError("banker_cover_cents needs a player banker seat: "
                                 "the dealer does not put up a cover")
            _cents("banker_cover_cents", self.banker_cover_cents, signed=False)

    @property
    def banker(self) -> str:
        """Who banks, in words (:func:`banker_words`)."""
        return banker_words(self.banker_seat, self.co_bank)


@dataclass(frozen=True, slots=True, kw_only=True)
class WagerPlaced:
    """A seat placed a wager of ``amount_cents``; ``seat`` None is the dealer's own wager
    against a player banker (pai gow poker procedure (10)). ``patron_id`` (schema id 3) is
    the casino's player-tracking id of the patron who placed it, when the casino records one;
    None for the dealer's wager or when not recorded."""

    seat: int | None
    wager: str
    amount_cents: int
    patron_id: str | None = None

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=True)
        if self.wager not in WAGERS:
            raise EventError(f"unknown wager {self.wager!r}; known: {', '.join(sorted(WAGERS))}")
        _cents("amount_cents", self.amount_cents, signed=False)
        if self.patron_id is not None:
            _text("patron_id", self.patron_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDealt:
    """Cards dealt to ``seat``, or to the dealer when ``seat`` is None."""

    seat: int | None
    cards: tuple[str, ...]

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=True)
        _cards("cards", self.cards)


@dataclass(frozen=True, slots=True, kw_only=True)
class TilesDealt:
    """Pai gow tiles dealt to ``seat``, or to the dealer when ``seat`` is None."""

    seat: int | None
    tiles: tuple[str, ...]

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=True)
        _tiles("tiles", self.tiles)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSet:
    """``seat`` (None: the dealer) set its cards or tiles into a high hand and a low hand.
    A later setting before the hands are exposed replaces this one."""

    seat: int | None
    high: tuple[str, ...]
    low: tuple[str, ...]

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=True)
        _cards_or_tiles("high", self.high)
        _cards_or_tiles("low", self.low)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerActed:
    """A player's decision (``ACTIONS``)."""

    seat: int
    action: str

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=False)
        if self.action not in ACTIONS:
            raise EventError(f"unknown action {self.action!r}; known: {', '.join(sorted(ACTIONS))}")


@dataclass(frozen=True, slots=True, kw_only=True)
class HandsExposed:
    """The hands of ``seat`` (None: the dealer's) were turned over; the setting is final."""

    seat: int | None = None

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandChanged:
    """Schema id 3. The dealer changed the setting of an exposed hand of ``seat`` (None: the
    dealer's own) to ``high`` and ``low``: pai gow poker procedure (9) lets the dealer change
    an exposed hand until the player banker's hand is exposed; afterwards no change is
    permitted. Whether this change was allowed is replay's question."""

    seat: int | None
    high: tuple[str, ...]
    low: tuple[str, ...]

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=True)
        _cards_or_tiles("high", self.high)
        _cards_or_tiles("low", self.low)


@dataclass(frozen=True, slots=True, kw_only=True)
class WagerSettled:
    """The table settled a wager, as recorded (right or wrong): ``net_cents`` is the change to
    the wagering party's money after ``commission_cents``; ``seat`` None is the dealer's own
    wager against a player banker."""

    seat: int | None
    wager: str
    outcome: str
    net_cents: int
    commission_cents: int

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=True)
        if self.wager not in WAGERS:
            raise EventError(f"unknown wager {self.wager!r}; known: {', '.join(sorted(WAGERS))}")
        if self.outcome not in OUTCOMES:
            raise EventError(f"unknown outcome {self.outcome!r}")
        _cents("net_cents", self.net_cents, signed=True)
        _cents("commission_cents", self.commission_cents, signed=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class BankerSettled:
    """The player banker's account as the table settled it."""

    seat: int
    net_cents: int
    commission_cents: int

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=False)
        _cents("net_cents", self.net_cents, signed=True)
        _cents("commission_cents", self.commission_cents, signed=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class EnvyBonusPaid:
    """An Envy Bonus paid to ``seat`` for the hand of ``for_seat`` (None: the dealer's)."""

    seat: int
    for_seat: int | None
    amount_cents: int

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=False)
        _seat(self.for_seat, dealer_allowed=True)
        _cents("amount_cents", self.amount_cents, signed=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class ProgressiveMeterRead:
    """The progressive meter as it stood for this round."""

    meter_cents: int
    meter_id: str | None = None

    def __post_init__(self) -> None:
        _cents("meter_cents", self.meter_cents, signed=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class JackpotHit:
    """``seat``'s hand was declared a progressive winner: its class and the award."""

    seat: int
    hand: str
    award_cents: int

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=False)
        _text("hand", self.hand)
        _cents("award_cents", self.award_cents, signed=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class JackpotVerified:
    """One verification step of ``seat``'s jackpot (``JACKPOT_STEPS``), by ``employee_id``
    in ``role``; for the step ``paid``, where the award was paid from (``PAID_FROM``)."""

    seat: int
    step: str
    employee_id: str
    role: str
    paid_from: str | None = None

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=False)
        if self.step not in JACKPOT_STEPS:
            raise EventError(f"unknown jackpot step {self.step!r}; known: "
                             f"{', '.join(JACKPOT_STEPS)}")
        _text("employee_id", self.employee_id)
        _text("role", self.role)
        if self.paid_from is not None and self.paid_from not in PAID_FROM:
            raise EventError(f"paid_from must be one of {sorted(PAID_FROM)}, "
                             f"got {self.paid_from!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class HandCollected:
    """Schema id 3. The dealer collected the cards or tiles of ``seat`` (None: the dealer's own)
    from the layout: cards into the discard rack, tiles beside the table inventory container.
    A hand the rules leave face up (a progressive jackpot until it is paid: 58 Pa. Code
    § 688a.7(h)(3)(i)(B)(4), Caribbean stud rule 9.5; an Envy Bonus Qualifying Hand until
    the Envy Bonuses are paid: § 688a.7(h)(2)(iii)) stays on the table until this event."""

    seat: int | None

    def __post_init__(self) -> None:
        _seat(self.seat, dealer_allowed=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Shuffled:
    """Schema id 3. The cards or tiles were reshuffled (``kind`` ``reshuffle``), or the deck
    was taken out of play and ``deck_id`` put in (``deck_change``). Recorded in the round it
    follows (pai gow poker settlement (17): after all winning hands are paid) or in the round
    it prepares, before the first deal."""

    kind: str = "reshuffle"
    deck_id: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in SHUFFLE_KINDS:
            raise EventError(f"unknown shuffle kind {self.kind!r}; known: "
                             f"{', '.join(sorted(SHUFFLE_KINDS))}")
        if self.deck_id is not None:
            _text("deck_id", self.deck_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class BankPassed:
    """Schema id 3. Who banks the next round at this table: ``to_seat`` (None: the dealer),
    and why (``BANK_PASS_REASONS``): the bank rotating to the next player, a player declining
    it, or a player who could not cover half the wagers passing the deal (pai gow poker
    procedure (11)). Recorded in the round the bank passes after."""

    to_seat: int | None
    reason: str

    def __post_init__(self) -> None:
        _seat(self.to_seat, dealer_allowed=True)
        if self.reason not in BANK_PASS_REASONS:
            raise EventError(f"unknown reason the bank passed {self.reason!r}; known: "
                             f"{', '.join(sorted(BANK_PASS_REASONS))}")


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundVoided:
    """The round was declared void (every wager returned); ``reason`` may be empty, which a
    check flags."""

    reason: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.reason, str):
            raise EventError(f"reason must be text, got {self.reason!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundEnded:
    """The round is over."""

    note: str | None = None


Correctable = (WagerPlaced | CardsDealt | TilesDealt | HandSet | PlayerActed | WagerSettled
               | BankerSettled | EnvyBonusPaid | ProgressiveMeterRead | JackpotHit
               | JackpotVerified | HandChanged | HandCollected | Shuffled | BankPassed)
CORRECTABLE: tuple[type, ...] = (WagerPlaced, CardsDealt, TilesDealt, HandSet, PlayerActed,
                                 WagerSettled, BankerSettled, EnvyBonusPaid,
                                 ProgressiveMeterRead, JackpotHit, JackpotVerified,
                                 HandChanged, HandCollected, Shuffled, BankPassed)


@dataclass(frozen=True, slots=True, kw_only=True)
class EventCorrected:
    """A correction (docs/design.md principle 1): the event ``corrects`` (an event id of the same
    round) is struck when ``replacement`` is None, or stands replaced by ``replacement``."""

    corrects: str
    reason: str
    replacement: Correctable | None = None

    def __post_init__(self) -> None:
        _text("corrects", self.corrects)
        if not isinstance(self.reason, str):
            raise EventError(f"reason must be text, got {self.reason!r}")
        if self.replacement is not None and type(self.replacement) not in CORRECTABLE:
            raise EventError(f"a correction cannot replace with {self.replacement!r}")


Payload = (RoundStarted | WagerPlaced | CardsDealt | TilesDealt | HandSet | PlayerActed
           | HandsExposed | HandChanged | WagerSettled | BankerSettled | EnvyBonusPaid
           | ProgressiveMeterRead | JackpotHit | JackpotVerified | HandCollected | Shuffled
           | BankPassed | RoundVoided | EventCorrected | RoundEnded)

PAYLOAD_TYPES: dict[str, type[Payload]] = {
    f"catwalk.{cls.__name__}": cls
    for cls in (RoundStarted, WagerPlaced, CardsDealt, TilesDealt, HandSet, PlayerActed,
                HandsExposed, HandChanged, WagerSettled, BankerSettled, EnvyBonusPaid,
                ProgressiveMeterRead, JackpotHit, JackpotVerified, HandCollected, Shuffled,
                BankPassed, RoundVoided, EventCorrected, RoundEnded)
}
V3_TYPES: frozenset[type] = frozenset({HandChanged, HandCollected, Shuffled, BankPassed})
"""The payloads schema id 3 added: they have no form in schema ids 1 and 2."""
AVRO_NAMES: dict[type[Payload], str] = {cls: name for name, cls in PAYLOAD_TYPES.items()}


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundEvent:
    """The envelope every event travels in (docs/design.md)."""

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
            _text(name, getattr(self, name))
        if type(self.table_seq) is not int or not 1 <= self.table_seq <= MAX_CENTS:
            raise EventError(f"table_seq must be a positive integer, got {self.table_seq!r}")
        if type(self.occurred_at_us) is not int or not 0 <= self.occurred_at_us <= MAX_CENTS:
            raise EventError(f"occurred_at_us must be microseconds, got {self.occurred_at_us!r}")
        if type(self.payload) not in AVRO_NAMES:
            raise EventError(f"payload is not an event: {self.payload!r}")

    @property
    def kind(self) -> str:
        """The event's past-tense name, e.g. ``WagerSettled``."""
        return type(self.payload).__name__
