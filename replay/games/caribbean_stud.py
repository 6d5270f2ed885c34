"""Caribbean stud poker: dealer qualification, ante and raise, fold, concede, progressive
(docs/rules.md 4.2, 4.3, 6, 6a.4, 6a.12, 6a.13, 6a.17, 6a.18; Caribbean stud rules 9.1 to 9.9).

What this module decides, each with the rule it implements:

- the rank of a five-card hand from the 52-card deck, no joker, the wheel A-2-3-4-5 the
  lowest straight (:func:`rank_hand`; docs/rules.md 4.2, 6a.4; ranked by
  :func:`replay.games.poker_ranks.rank_high` with the ruleset's wheel);
- whether the dealer qualifies: ace and king or better (:func:`dealer_qualifies`;
  Caribbean stud rule 9.1, docs/rules.md 4.2; the lowest qualifying hand is the ruleset option
  ``dealer_qualifying_hand``, ``A-K-4-3-2`` in the shipped ruleset);
- the ante and the raise (:func:`settle_ante_and_raise`; Caribbean stud rules 9.2 to 9.4
  and 9.7, docs/rules.md 4.2, 6 and 6a.17; the raise pays from the ruleset's ``raise`` paytable);
- the progressive wager (:func:`settle_progressives`; docs/rules.md 4.2, 6, 6a.12, 6a.13;
  the awards are the ruleset's ``progressive`` paytable);
- what a surveillance analyst should see beside the settlement: a raise that is not the
  posted multiple of the ante, a progressive wager that is not the posted amount
  (:func:`irregularities`; 6a.17 "flagged separately");
- the judgement of a round document (:func:`judge_document`, as the result object of
  replay/games/results.py).

No paytable, multiple, amount or rounding is a literal here: they come from the ``Ruleset``.
The ante pays even money (Caribbean stud rules 9.3.1 and 9.4.1.1, docs/rules.md 4.2), as the
pai gow main wager does; the ruleset's commission policy is applied to winning antes and
raises (the shipped Caribbean stud ruleset collects none). Nothing here does I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from replay import document
from replay.cards import DECK_52, Card, Rank, Suit, parse_card, render_cards
from replay.document import DocumentError
from replay.errors import HandError, MoneyError, ReplayError, RoundError, RulesetError
from replay.games.base import GameRules, PaytableClasses
from replay.games.poker_ranks import HandCategory, HighRank, rank_high
from replay.games.results import Outcome as Outcome
from replay.games.results import (
    ResultObject,
    dealer_entry,
    meter_award_range,
    result_object,
    seat_entry,
    settled_entry,
)
from replay.ruleset_model import Wheel
from schemas.vocabulary import GAME_WAGERS

if TYPE_CHECKING:
    from replay.ruleset_model import Payout, Ruleset

GAME = "caribbean_stud"
"""This module's game name, as in rounds, rulesets and events."""

HAND_SIZE = 5
"""Five cards to the dealer and to each seat (docs/rules.md 4.2)."""

ANTE = "ante"
RAISE = "raise"
PROGRESSIVE = "progressive"
WAGER_NAMES = GAME_WAGERS[GAME]
"""The wagers of a Caribbean stud seat, in the order results list them."""

RAISE_PAYTABLE = "raise"
"""Ruleset paytable: hand class -> odds paid on a winning raise (docs/rules.md 4.2, 6)."""
PROGRESSIVE_PAYTABLE = "progressive"
"""Ruleset paytable: hand class -> progressive award (fixed sum or share of the meter)."""

DEALER_QUALIFYING_HAND = "dealer_qualifying_hand"
"""Ruleset option: the lowest hand with which the dealer qualifies, its ranks written
``A-K-4-3-2`` (Caribbean stud rule 9.1: "ace and king, or higher"; docs/rules.md 4.2)."""
RAISE_ANTE_MULTIPLE = "raise_ante_multiple"
"""Ruleset option: the raise is this many times the ante (docs/rules.md 4.2: exactly 2)."""
PROGRESSIVE_WAGER_CENTS = "progressive_wager_cents"
"""Ruleset option: the posted amount of the progressive wager (docs/rules.md 6: $1)."""

ACE_KING = "ace_king"
"""Hand class of a high-card hand holding an ace and a king: the lowest class with which the
dealer can qualify, paid 1 to 1 on the raise ("One pair, ace-king", docs/rules.md 4.2)."""

DECK = DECK_52
"""Caribbean stud is dealt from the 52-card deck, without the joker (docs/rules.md 4.2, 5)."""
_IN_DECK = frozenset(DECK)


# ---------------------------------------------------------------------------------------
# Hands
# ---------------------------------------------------------------------------------------


def _check_hand(cards: Sequence[Card], who: str) -> tuple[Card, ...]:
    if not isinstance(cards, Sequence) or isinstance(cards, str) or not all(
        isinstance(card, Card) for card in cards
    ):
        raise HandError(f"{who} must hold {HAND_SIZE} cards, got {cards!r}")
    hand = tuple(cards)
    if len(hand) != HAND_SIZE:
        raise HandError(
            f"{who} holds {len(hand)} cards, not {HAND_SIZE}: {render_cards(hand)!r}"
        )
    outside = [card for card in hand if card not in _IN_DECK]
    if outside:
        raise HandError(
            f"{who} holds {render_cards(outside)!r}, which is not in the 52-card Caribbean "
            f"stud deck (no joker: docs/rules.md 4.2): {render_cards(hand)!r}"
        )
    repeated = sorted((c for c, n in Counter(hand).items() if n > 1), key=lambda c: c.index)
    if repeated:
        raise HandError(f"{who} holds {render_cards(repeated)!r} twice: {render_cards(hand)!r}")
    return hand


def rank_hand(cards: Sequence[Card], *, wheel: Wheel = Wheel.LOWEST) -> HighRank:
    """The poker rank of a five-card Caribbean stud hand (docs/rules.md 4.2, 6a.4).

    Five different cards of the 52-card deck (the joker is refused: :class:`HandError`).
    Ordered by :class:`HighRank`'s key: category, then the ranks in order of significance
    (kickers included); suits never break ties. The wheel A-2-3-4-5 is the lowest straight
    and straight flush in Caribbean stud (6a.4), which is the default here; a ruleset's
    ``wheel`` option is passed by :func:`adjudicate`.
    """
    return rank_high(_check_hand(cards, "a Caribbean stud hand"), wheel=wheel)


def describe_hand(tokens: Sequence[str]) -> str | None:
    """A Caribbean stud hand in words from its five card tokens (``pair of kings, A-Q-9
    kickers``); None when the tokens are no such hand (``GameRules.describe_hand``)."""
    try:
        return rank_hand([parse_card(token) for token in tokens]).describe()
    except (ReplayError, TypeError):
        return None


def hand_class(rank: HighRank) -> str:
    """The paytable name of a hand's class: its category's name (``royal_flush`` ...
    ``one_pair``), :data:`ACE_KING` for a high-card hand with an ace and a king, else
    ``high_card`` (docs/rules.md 4.2: the raise table's lowest line is "One pair, ace-king")."""
    category = rank.category
    if category is HandCategory.HIGH_CARD and rank.ranks[:2] == (Rank.ACE, Rank.KING):
        return ACE_KING
    return category.value


def paytable_class(tokens: Sequence[str], ruleset: Ruleset) -> str | None:
    """The paytable class (:func:`hand_class`) of five dealt card tokens under ``ruleset``'s
    wheel; None when the tokens are no Caribbean stud hand (``GameRules.paytable_class``)."""
    try:
        return hand_class(rank_hand([parse_card(token) for token in tokens],
                                    wheel=ruleset.wheel))
    except (ReplayError, TypeError, ValueError):
        return None


_SYMBOL_RANK = {rank.symbol: rank for rank in Rank if rank is not Rank.JOKER}
_SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_THRESHOLDS: dict[tuple[str, Wheel], HighRank] = {}


def _threshold(text: object, wheel: Wheel, ruleset_id: str) -> HighRank:
    """The rank of the lowest qualifying hand written ``A-K-4-3-2``: five ranks, laid out in
    mixed suits (never a flush), so any suits give the same rank (suits never rank: 6a.4)."""
    if isinstance(text, str) and (text, wheel) in _THRESHOLDS:
        return _THRESHOLDS[(text, wheel)]
    symbols = text.split("-") if isinstance(text, str) else []
    ranks = [_SYMBOL_RANK[s] for s in symbols if s in _SYMBOL_RANK]
    counts = Counter(ranks)
    if len(symbols) != HAND_SIZE or len(ranks) != HAND_SIZE or max(counts.values()) > 4:
        raise RulesetError(
            f"ruleset {ruleset_id}: option {DEALER_QUALIFYING_HAND} must be five ranks of "
            f"23456789TJQKA written like 'A-K-4-3-2', at most four of one rank, got {text!r}"
        )
    seen: Counter[Rank] = Counter()
    cards = []
    for rank in ranks:
        cards.append(Card(rank=rank, suit=_SUITS[seen[rank]]))
        seen[rank] += 1
    if len(counts) == HAND_SIZE:
        cards[-1] = Card(rank=ranks[-1], suit=_SUITS[1])
    assert isinstance(text, str)
    threshold = _THRESHOLDS[(text, wheel)] = rank_high(cards, wheel=wheel)
    return threshold


def lowest_qualifying_rank(ruleset: Ruleset) -> HighRank:
    """The rank of the ruleset's lowest qualifying dealer hand (option
    :data:`DEALER_QUALIFYING_HAND`; Caribbean stud rule 9.1: "ace and king, or higher")."""
    return _threshold(ruleset.option(DEALER_QUALIFYING_HAND), ruleset.wheel, ruleset.id)


def dealer_qualifies(rank: HighRank, ruleset: Ruleset) -> bool:
    """True when the dealer's hand ranks at or above the lowest qualifying hand (Caribbean stud rule
    9.1; docs/rules.md 4.2: A-K-4-3-2 is the lowest qualifying hand, A-Q-J-T-9 the highest that does
    not qualify; 1,463,700 of the 2,598,960 hands qualify, docs/rules.md 4.3)."""
    return rank >= lowest_qualifying_rank(ruleset)


# ---------------------------------------------------------------------------------------
# A round
# ---------------------------------------------------------------------------------------


class Action(StrEnum):
    """What a seat did after seeing its cards and the dealer's up card (docs/rules.md 4.2;
    Caribbean stud rule 9.7)."""

    RAISE = "raise"
    """Stayed in with the raise (the round document's absent ``action``)."""
    FOLD = "fold"
    """Gave up the ante before the dealer's hand was exposed; no raise."""
    CONCEDE = "concede"
    """Gave up the hand after the dealer's hand was exposed (Caribbean stud rule 9.7): all
    wagers lost."""


def _amount(who: str, name: str, value: object) -> int:
    if type(value) is not int or value < 0:
        raise MoneyError(f"{who} {name} must be non-negative integer cents, got {value!r}")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Seat:
    """A seat's holding and wagers in cents (0 when not made). Validated: five cards of the
    52-card deck, none repeated, an ante, a raise when the seat raised, none when it folded."""

    seat: int
    cards: tuple[Card, ...]
    action: Action = Action.RAISE
    ante_cents: int = 0
    raise_cents: int = 0
    progressive_cents: int = 0

    def __post_init__(self) -> None:
        if type(self.seat) is not int or self.seat < 1:
            raise RoundError(f"a seat number is an integer from 1, got {self.seat!r}")
        who = f"seat {self.seat}"
        try:
            object.__setattr__(self, "cards", _check_hand(self.cards, who))
        except HandError as exc:
            raise RoundError(str(exc)) from None
        if not isinstance(self.action, Action):
            try:
                object.__setattr__(self, "action", Action(self.action))
            except ValueError:
                raise RoundError(
                    f"{who} action must be one of {[a.value for a in Action]}, "
                    f"got {self.action!r}"
                ) from None
        ante = _amount(who, ANTE, self.ante_cents)
        raised = _amount(who, RAISE, self.raise_cents)
        _amount(who, PROGRESSIVE, self.progressive_cents)
        if ante == 0:
            raise RoundError(
                f"{who} has no ante: a Caribbean stud seat plays only on an ante "
                f"(docs/rules.md 4.2)"
            )
        if self.action is Action.FOLD and raised:
            raise RoundError(
                f"{who} folded but has a raise of {raised}: a fold gives up the ante "
                f"and makes no raise (docs/rules.md 4.2)"
            )
        if self.action is Action.RAISE and not raised:
            raise RoundError(
                f"{who} neither folded nor raised: it has no raise; a seat without a raise "
                f"must have action 'fold' (or 'concede')"
            )

    @property
    def wagers(self) -> Mapping[str, int]:
        """The wagers made (zero ones left out: docs/rules.md 6a.18), in result order."""
        amounts = (self.ante_cents, self.raise_cents, self.progressive_cents)
        return {name: cents for name, cents in zip(WAGER_NAMES, amounts, strict=True) if cents}


@dataclass(frozen=True, slots=True, kw_only=True)
class CaribbeanRound:
    """A dealt and played Caribbean stud round: the dealer's five cards, the seats, and the
    progressive meter (cents) the round's percentage awards are paid from, required when
    any seat made a progressive wager (docs/rules.md 6a.13). Validated: each hand five
    distinct cards of the 52, no seat number twice. A card dealt to two parties is a fact of
    the record, judged as recorded (docs/rules.md 8.1); a round document refuses it
    (:func:`round_from_document`)."""

    round_id: str
    dealer_cards: tuple[Card, ...]
    seats: tuple[Seat, ...] = ()
    progressive_meter_cents: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.round_id, str) or not self.round_id:
            raise RoundError(f"round_id must be non-empty text, got {self.round_id!r}")
        try:
            object.__setattr__(self, "dealer_cards", _check_hand(self.dealer_cards, "dealer"))
        except HandError as exc:
            raise RoundError(str(exc)) from None
        object.__setattr__(self, "seats", tuple(self.seats))
        if not all(isinstance(seat, Seat) for seat in self.seats):
            raise RoundError(f"seats must be Seat values, got {self.seats!r}")
        twice = sorted(n for n, k in Counter(s.seat for s in self.seats).items() if k > 1)
        if twice:
            raise RoundError(f"seat {twice[0]} appears more than once")
        meter = self.progressive_meter_cents
        if meter is not None:
            _amount("round", "progressive_meter", meter)
        elif any(seat.progressive_cents for seat in self.seats):
            seat = next(s for s in self.seats if s.progressive_cents)
            raise RoundError(
                f"seat {seat.seat} made a progressive wager of {seat.progressive_cents} but "
                f"the round has no progressive_meter (the meter in cents its percentage "
                f"awards are paid from: docs/rules.md 6a.13)"
            )


# ---------------------------------------------------------------------------------------
# Settlement
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class WagerResult:
    """What a wager's outcome is worth to the player: ``net_cents`` (won after commission,
    or lost when negative) and the ``commission_cents`` the house collected."""

    outcome: Outcome
    net_cents: int
    commission_cents: int = 0
    commission_range: tuple[int, int] | None = None
    """The lawful commission on a win, lowest and highest, where the ruleset states a range
    wider than the point (docs/rules.md 6a.19); None otherwise (the shipped ruleset takes no
    commission)."""
    net_range: tuple[int, int] | None = None
    """The lawful net of a win paid no commission, lowest and highest: a share of the
    progressive meter (docs/rules.md 6a.13, 6a.19); None when the net is the only lawful
    amount."""

    def __post_init__(self) -> None:
        if self.net_range is not None and not (
                self.outcome is Outcome.WIN and self.commission_range is None
                and self.net_range[0] <= self.net_cents <= self.net_range[1]):
            raise MoneyError(f"net range {self.net_range} on a {self.outcome} with net "
                             f"{self.net_cents}")
        if not isinstance(self.outcome, Outcome):
            raise MoneyError(f"outcome must be an Outcome, got {self.outcome!r}")
        if type(self.net_cents) is not int or type(self.commission_cents) is not int:
            raise MoneyError(f"net and commission must be integer cents, got {self!r}")
        if self.commission_cents < 0 or (self.commission_cents and self.outcome
                                         is not Outcome.WIN):
            raise MoneyError(f"commission is collected on wins only, got {self!r}")
        if self.outcome is Outcome.WIN and self.net_cents < 0:
            raise MoneyError(f"a win cannot have a negative net, got {self!r}")
        if self.outcome is Outcome.LOSS and self.net_cents > 0:
            raise MoneyError(f"a loss cannot have a positive net, got {self!r}")
        if self.outcome in (Outcome.PUSH, Outcome.VOID) and self.net_cents:
            raise MoneyError(f"a {self.outcome} has a net of 0, got {self!r}")


def _win(win_cents: int, ruleset: Ruleset) -> WagerResult:
    commission = ruleset.commission.on(win_cents)
    lawful = ruleset.commission.lawful(win_cents) if ruleset.commission.ranged else None
    return WagerResult(outcome=Outcome.WIN, net_cents=win_cents - commission,
                       commission_cents=commission,
                       commission_range=None if lawful == (commission, commission) else lawful)


def _lose(amount_cents: int) -> WagerResult:
    return WagerResult(outcome=Outcome.LOSS, net_cents=-amount_cents)


_PUSH = WagerResult(outcome=Outcome.PUSH, net_cents=0)
_VOID = WagerResult(outcome=Outcome.VOID, net_cents=0)


def _raise_payout(rank: HighRank, ruleset: Ruleset) -> Payout:
    table = ruleset.paytable(RAISE_PAYTABLE)
    name = hand_class(rank)
    line = table.get(name)
    if line is None:
        raise RulesetError(
            f"ruleset {ruleset.id}: paytable {RAISE_PAYTABLE} has no line for {name!r} "
            f"({rank}); it has {', '.join(table)}"
        )
    return line


def settle_ante_and_raise(
    *,
    seat: Seat,
    seat_rank: HighRank,
    dealer_rank: HighRank,
    qualifies: bool,
    ruleset: Ruleset,
) -> dict[str, WagerResult]:
    """The ante and the raise of one seat (Caribbean stud rules 9.1 to 9.9; docs/rules.md 4.2,
    6, 6a.17).

    - Fold: the ante is lost; there is no raise (4.2).
    - Concede (Caribbean stud rule 9.7): the ante and the raise are collected, whatever the
      hands.
    - Dealer does not qualify (Caribbean stud rules 9.2, 9.3.1): the ante wins even money, the
      raise ("bet") is void.
    - Dealer qualifies (Caribbean stud rule 9.4.1): a seat hand of higher poker value wins the
      ante at even money and the raise at the ruleset's ``raise`` paytable for the seat's hand
      class (9.4.1.1, rule 10); lower loses both (9.4.1.2); equal is a stand off for both
      (9.4.1.3). Suits never break ties (6a.4).

    The raise is settled on the amount recorded, even when it is not the posted multiple of
    the ante (6a.17; :func:`irregularities` reports it). The ruleset's commission is taken
    from winning antes and raises (none in the shipped ruleset).
    """
    ante, raised = seat.ante_cents, seat.raise_cents
    out: dict[str, WagerResult] = {}
    if seat.action is Action.FOLD:
        out[ANTE] = _lose(ante)
    elif seat.action is Action.CONCEDE:
        out[ANTE] = _lose(ante)
        if raised:
            out[RAISE] = _lose(raised)
    elif not qualifies:
        out[ANTE] = _win(ante, ruleset)
        out[RAISE] = _VOID
    elif seat_rank > dealer_rank:
        out[ANTE] = _win(ante, ruleset)
        out[RAISE] = _win(_raise_payout(seat_rank, ruleset).win_cents(wager_cents=raised),
                          ruleset)
    elif seat_rank < dealer_rank:
        out[ANTE] = _lose(ante)
        out[RAISE] = _lose(raised)
    else:
        out[ANTE] = _PUSH
        out[RAISE] = _PUSH
    return out


def settle_progressives(
    round: CaribbeanRound, ranks: Mapping[int, HighRank], ruleset: Ruleset
) -> dict[int, WagerResult]:
    """Every progressive wager of the round, by seat number (docs/rules.md 4.2, 6, 6a.12,
    6a.13, 6a.17).

    Paid on the seat's own hand whatever the dealer holds, also when the seat folded (6a.17,
    the NZ amendment to rule 9.2(a)); a conceded hand loses it (Caribbean stud rule 9.7). A
    hand whose class has a line in the ruleset's ``progressive`` paytable wins that award: a
    fixed sum (not scaled by the wager) or a share of the round's meter, rounded down to the
    cent and shared equally, rounded down again, among the seats that won the same percentage
    award this round (two royal flushes share the meter). A winning wager is not collected (its
    net is the award); a losing one loses its amount.
    """
    table = ruleset.paytable(PROGRESSIVE_PAYTABLE)
    meter = round.progressive_meter_cents or 0
    winners: dict[int, str] = {}
    for seat in round.seats:
        if seat.progressive_cents and seat.action is not Action.CONCEDE:
            name = hand_class(ranks[seat.seat])
            if name in table:
                winners[seat.seat] = name
    sharing = Counter(name for name in winners.values() if table[name].meter_bps is not None)
    out: dict[int, WagerResult] = {}
    for seat in round.seats:
        if not seat.progressive_cents:
            continue
        won = winners.get(seat.seat)
        if won is None:
            out[seat.seat] = _lose(seat.progressive_cents)
            continue
        line = table[won]
        if line.meter_bps is None:
            out[seat.seat] = WagerResult(
                outcome=Outcome.WIN,
                net_cents=line.win_cents(wager_cents=seat.progressive_cents))
            continue
        low, high = meter_award_range(meter, line.meter_bps, sharing[won])
        out[seat.seat] = WagerResult(outcome=Outcome.WIN, net_cents=low,
                                     net_range=(low, high) if low < high else None)
    return out


def _posted_int(ruleset: Ruleset, name: str) -> int:
    value = ruleset.option(name)
    if type(value) is not int or value < 1:
        raise RulesetError(f"ruleset {ruleset.id}: option {name} must be a positive "
                           f"integer, got {value!r}")
    return value


def irregularities(round: CaribbeanRound, ruleset: Ruleset) -> tuple[str, ...]:
    """What the settlement honours but a surveillance analyst should see (docs/rules.md
    6a.17: a raise not twice the ante is settled on the amount recorded and flagged
    separately; 6a.12: a progressive award does not scale with the wager, so a progressive
    wager other than the posted amount is worth a look). Empty when all is regular."""
    multiple = _posted_int(ruleset, RAISE_ANTE_MULTIPLE)
    posted = _posted_int(ruleset, PROGRESSIVE_WAGER_CENTS)
    found = []
    for seat in round.seats:
        if seat.raise_cents and seat.raise_cents != multiple * seat.ante_cents:
            found.append(
                f"seat {seat.seat} raised {seat.raise_cents} on an ante of {seat.ante_cents}: "
                f"the raise is {multiple} x the ante ({multiple * seat.ante_cents}); settled "
                f"on the {seat.raise_cents} recorded (docs/rules.md 6a.17)"
            )
        if seat.progressive_cents and seat.progressive_cents != posted:
            found.append(
                f"seat {seat.seat} progressive wager {seat.progressive_cents} is not the "
                f"posted {posted}; its award does not scale (docs/rules.md 6a.12)"
            )
    return tuple(found)


# ---------------------------------------------------------------------------------------
# Judging a round
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatResult:
    """A seat's hand rank and its wagers' results, in :data:`WAGER_NAMES` order (only the
    wagers made: docs/rules.md 6a.18)."""

    seat: int
    rank: HighRank
    wagers: Mapping[str, WagerResult] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "wagers", MappingProxyType(dict(self.wagers)))


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundResult:
    """The judgement of a round: the dealer's rank, whether it qualifies, each seat's
    results, and the :func:`irregularities` found."""

    round_id: str
    ruleset_id: str
    dealer_rank: HighRank
    dealer_qualifies: bool
    seats: tuple[SeatResult, ...]
    irregularities: tuple[str, ...] = ()


def adjudicate(round: CaribbeanRound, ruleset: Ruleset) -> RoundResult:
    """Judge every wager of a round under ``ruleset`` (Caribbean stud rules 9.1 to 9.9;
    docs/rules.md 4.2, 6, 6a.4, 6a.12, 6a.13, 6a.17): ranks with the ruleset's wheel, the dealer's
    qualification, each seat's ante and raise (:func:`settle_ante_and_raise`) and the progressives
    (:func:`settle_progressives`)."""
    if ruleset.game != GAME:
        raise RulesetError(f"ruleset {ruleset.id} is for {ruleset.game}, not {GAME}")
    wheel = ruleset.wheel
    dealer_rank = rank_high(round.dealer_cards, wheel=wheel)
    qualifies = dealer_qualifies(dealer_rank, ruleset)
    ranks = {seat.seat: rank_high(seat.cards, wheel=wheel) for seat in round.seats}
    progressives = settle_progressives(round, ranks, ruleset)
    seats = []
    for seat in round.seats:
        wagers = settle_ante_and_raise(seat=seat, seat_rank=ranks[seat.seat],
                                       dealer_rank=dealer_rank, qualifies=qualifies,
                                       ruleset=ruleset)
        if seat.seat in progressives:
            wagers[PROGRESSIVE] = progressives[seat.seat]
        seats.append(SeatResult(seat=seat.seat, rank=ranks[seat.seat], wagers=wagers))
    return RoundResult(
        round_id=round.round_id, ruleset_id=ruleset.id, dealer_rank=dealer_rank,
        dealer_qualifies=qualifies, seats=tuple(seats),
        irregularities=irregularities(round, ruleset),
    )


_NOT_HERE = {
    "high": "Caribbean stud hands are not set: there is no high hand",
    "low": "Caribbean stud hands are not set: there is no low hand",
    "tiles": "Caribbean stud is dealt cards, not tiles",
}
_RAISED = (None, "raise", "play")


def _refuse_pai_gow_fields(obj: Mapping[str, Any], who: str) -> None:
    for name, why in _NOT_HERE.items():
        if name in obj:
            raise DocumentError(f"{who} has {name!r}: {why} (give the five 'cards' only)")


def _seat_from_document(obj: object, index: int) -> Seat:
    where = f"seats[{index}]"
    if not isinstance(obj, Mapping):
        raise DocumentError(f"{where} must be an object, got {obj!r}")
    number = document.seat_number(document.field(obj, "seat", where), f"{where}.seat")
    who = f"seat {number}"
    _refuse_pai_gow_fields(obj, who)
    cards = document.cards(document.field(obj, "cards", who), f"{who} cards")
    wagers = document.wagers(obj.get("wagers", {}), f"{who} wagers", frozenset(WAGER_NAMES))
    action = obj.get("action")
    if action not in _RAISED and action not in (Action.FOLD.value, Action.CONCEDE.value):
        raise DocumentError(
            f"{who} action must be 'fold', 'concede', or absent (the seat raised), "
            f"got {action!r}"
        )
    try:
        return Seat(
            seat=number, cards=cards,
            action=Action.RAISE if action in _RAISED else Action(action),
            ante_cents=wagers.get(ANTE, 0), raise_cents=wagers.get(RAISE, 0),
            progressive_cents=wagers.get(PROGRESSIVE, 0),
        )
    except (RoundError, MoneyError) as exc:
        raise DocumentError(str(exc)) from None


def round_from_document(doc: Mapping[str, Any], *, as_recorded: bool = False) -> CaribbeanRound:
    """The :class:`CaribbeanRound` a round document describes (README "Round documents":
    dealer and seats hold five ``cards``; wagers ``ante``, ``raise``, ``progressive``;
    ``action`` ``fold``, ``concede``, or absent for a seat that raised; ``raise`` and
    ``play`` are read as absent). :class:`DocumentError` names what is wrong and where:
    a joker or an unknown card, a wrong count, a card twice in one hand, a card dealt to two
    parties (unless ``as_recorded``: a round from the log, judged as recorded, docs/rules.md
    8.1), a fold with a raise, a seat with no ante, a progressive wager without
    ``progressive_meter``, a player banker, a dealer's own wager, and the pai gow fields
    ``high``, ``low`` and ``tiles``."""
    round_id = document.field(doc, "round_id", "the document")
    if not isinstance(round_id, str) or not round_id:
        raise DocumentError(f"round_id must be non-empty text, got {round_id!r}")
    banker = doc.get("banker", "dealer")
    if banker != "dealer":
        raise DocumentError(
            f"banker {banker!r}: Caribbean stud is banked by the dealer only; leave "
            f"'banker' out or give \"dealer\""
        )
    dealer = document.field(doc, "dealer", "the document")
    if not isinstance(dealer, Mapping):
        raise DocumentError(f"dealer must be an object, got {dealer!r}")
    _refuse_pai_gow_fields(dealer, "dealer")
    if document.cents(dealer.get("wager", 0), "dealer wager"):
        raise DocumentError(
            f"dealer wager {dealer['wager']!r}: the dealer makes no wager of its own in "
            f"Caribbean stud (that is a pai gow dealer's wager against a player banker)"
        )
    dealer_cards = document.cards(document.field(dealer, "cards", "dealer"), "dealer cards")
    seats_doc = document.field(doc, "seats", "the document")
    if not isinstance(seats_doc, Sequence) or isinstance(seats_doc, str):
        raise DocumentError(f"seats must be a list, got {seats_doc!r}")
    seats = tuple(_seat_from_document(obj, i) for i, obj in enumerate(seats_doc))
    meter = doc.get("progressive_meter")
    if meter is not None:
        document.cents(meter, "progressive_meter")
    try:
        round = CaribbeanRound(round_id=round_id, dealer_cards=dealer_cards, seats=seats,
                               progressive_meter_cents=meter)
    except (RoundError, MoneyError) as exc:
        raise DocumentError(str(exc)) from None
    if not as_recorded:
        _refuse_repeats(round)
    return round


def _refuse_repeats(round: CaribbeanRound) -> None:
    """DocumentError naming the first card dealt to two parties of ``round``."""
    where: dict[Card, list[str]] = {}
    for who, cards in (("dealer", round.dealer_cards),
                       *((f"seat {s.seat}", s.cards) for s in round.seats)):
        for card in cards:
            where.setdefault(card, []).append(who)
    repeated = sorted((c for c, w in where.items() if len(w) > 1), key=lambda c: c.index)
    if repeated:
        card = repeated[0]
        raise DocumentError(
            f"card {card} was dealt {len(where[card])} times ({', '.join(where[card])})"
        )


def result_document(result: RoundResult) -> ResultObject:
    """The result object of a judged round, keys in the order the README's result object
    gives them. Caribbean stud has no fouls, house way, Ace High Pai Gow or envy: ``foul``
    false, ``house_way`` null, ``ace_high_pai_gow`` false, ``envy`` 0; ``dealer.net`` is 0
    (the dealer makes no wager of its own); ``dealer.qualifies`` is the Caribbean stud rule
    9.1 answer."""
    return result_object(
        round_id=result.round_id, ruleset_id=result.ruleset_id,
        dealer=dealer_entry(foul=False, house_way=None, qualifies=result.dealer_qualifies),
        seats=[seat_entry(seat.seat, False,
                          {name: settled_entry(w) for name, w in seat.wagers.items()})
               for seat in result.seats],
        problems=result.irregularities,
    )


def judge_document(doc: Mapping[str, Any], ruleset: Ruleset, *,
                   as_recorded: bool = False) -> ResultObject:
    """Judge one Caribbean stud round document under ``ruleset`` and return the result
    object (:func:`round_from_document`, :func:`adjudicate`,
    :func:`result_document`)."""
    return result_document(adjudicate(round_from_document(doc, as_recorded=as_recorded),
                                      ruleset))


_CLASSES = (*(c.value for c in HandCategory
                if c not in (HandCategory.FIVE_ACES, HandCategory.HIGH_CARD)),
            ACE_KING, HandCategory.HIGH_CARD.value)
PAYTABLE_CLASSES: Mapping[str, PaytableClasses] = MappingProxyType({
    RAISE_PAYTABLE: PaytableClasses(classes=_CLASSES, required=_CLASSES[:-1],
                                    pays=frozenset({"odds"})),
    PROGRESSIVE_PAYTABLE: PaytableClasses(
        classes=_CLASSES,
        required=tuple(c.value for c in HandCategory if c is not HandCategory.FIVE_ACES
                       and c.strength >= HandCategory.FLUSH.strength)),
})
"""The classes of :func:`hand_class` (no five aces: no joker), best first, as the paytables
may name them: the raise pays odds on every class that can beat a qualifying dealer, one
pair and ace-king included (docs/rules.md 4.2); the progressive pays on a flush or better
(docs/rules.md 4.2, 6), as a fixed sum, a share of the meter or odds on the wager."""


RULES = GameRules(
    name=GAME,
    title="Caribbean stud poker (A-K qualifies, ante/raise, progressive)",
    deck=DECK,
    citation="docs/rules.md 4, 6, 6a; Caribbean stud rules 9.1 to 9.9",
    judge_document=judge_document,
    option_names=frozenset({DEALER_QUALIFYING_HAND, RAISE_ANTE_MULTIPLE,
                            PROGRESSIVE_WAGER_CENTS}),
    paytable_names=frozenset({RAISE_PAYTABLE, PROGRESSIVE_PAYTABLE}),
    paytable_classes=PAYTABLE_CLASSES,
    describe_hand=describe_hand,
    paytable_class=paytable_class,
)
