"""Set pai gow poker hands: the ways to set seven cards, the foul, a set hand against the
banker's, and the main wager's settlement (docs/rules.md 1.1, 1.2, 6, 6a.1, 6a.5;
58 Pa. Code § 688a.7(f); pai gow poker settlement).

What this module decides, each with the rule it implements:

- the 21 ways to set seven cards (:func:`splits`; docs/rules.md, Words ("set"));
- whether a set hand is a foul (:func:`is_foul`; 6a.5), and whether it was set 5+2 at all
  (:func:`set_correctly`; 58 Pa. Code § 688a.7(f)(1)(iv));
- the outcome of a seat's hands against the banker's (:func:`compare`; 58 Pa. Code § 688a.7(f),
  pai gow poker settlement (1)-(9), docs/rules.md 1.1: copies go to the banker);
- the settlement of the main wager (:func:`settle_main`; 1.2, 6a.1: 1:1 less commission,
  commission read from the ruleset).

Classic pai gow poker and Face Up share these; ranks come from
:mod:`replay.games.poker_ranks`. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

from replay.cards import Card, parse_card
from replay.errors import MoneyError, ReplayError
from replay.games.poker_ranks import HIGH_SIZE as HIGH_SIZE
from replay.games.poker_ranks import LOW_SIZE as LOW_SIZE
from replay.games.poker_ranks import (
    HighRank,
    LowRank,
    card_indexes,
    high_holds_low,
    rank_high,
    rank_low,
)
from replay.games.results import Outcome
from replay.ruleset_model import Wheel

if TYPE_CHECKING:
    from replay.ruleset_model import Ruleset

HAND_SIZE = 7
"""Cards dealt to each seat and to the dealer (pai gow poker procedure (1))."""


def _as_high(hand: HighRank | Sequence[Card], wheel: Wheel) -> HighRank:
    return hand if isinstance(hand, HighRank) else rank_high(hand, wheel=wheel)


def _as_low(hand: LowRank | Sequence[Card]) -> LowRank:
    return hand if isinstance(hand, LowRank) else rank_low(hand)


def is_foul(high: HighRank | Sequence[Card], low: LowRank | Sequence[Card]) -> bool:
    """True when the high hand ranks below the low hand (docs/rules.md 6a.5 and Words ("foul");
    58 Pa. Code § 688a.7(f)(1)(iii): the high hand must rank "equal to or higher than" the low
    hand).

    Cards or ranks may be given. The joker counts as an ace in the high hand unless it
    completes a straight or flush there (which :func:`rank_high` decides); the wheel option
    does not matter here, since any straight holds any low hand.
    """
    if type(high) is not HighRank:
        high = _as_high(high, Wheel.SECOND_HIGHEST)
    if type(low) is not LowRank:
        low = _as_low(low)
    return not high_holds_low(high, low)


def set_correctly(high: Sequence[Card], low: Sequence[Card]) -> bool:
    """Whether a hand set from the cards it was dealt was set 5+2 (pai gow poker procedure (1): "a
    2-card hand and a 5 card hand"). A hand set otherwise (six high and one low, say, or 4+3)
    was "not otherwise set correctly" (58 Pa. Code § 688a.7(f)(1)(iv)): a player's main wager
    loses, its optional wagers are still settled on its seven cards (§ 688a.7(h)), and the
    result reports it as a foul. That the cards are the ones dealt is the reader's check."""
    return len(high) == HIGH_SIZE and len(low) == LOW_SIZE


def describe_hand(tokens: Sequence[str]) -> str | None:
    """A pai gow poker hand in words from its card tokens: a 5-card high hand
    (``pair of kings, A-Q-9 kickers``) or a 2-card low hand (``A-4``, ``pair of aces``); None
    when the tokens are no such hand (``GameRules.describe_hand``)."""
    try:
        cards = [parse_card(token) for token in tokens]
        if len(cards) == HIGH_SIZE:
            return rank_high(cards).describe()
        if len(cards) == LOW_SIZE:
            return rank_low(cards).describe()
    except (ReplayError, TypeError):
        return None
    return None


def _seven(cards: Sequence[Card]) -> tuple[Card, ...]:
    hand = tuple(cards) if not isinstance(cards, str) else ()
    card_indexes(hand, HAND_SIZE, "a pai gow poker hand")
    return hand


def splits(cards7: Sequence[Card]) -> Iterator[tuple[tuple[Card, ...], tuple[Card, ...]]]:
    """Every way to set seven cards: 21 (high, low) pairs, C(7, 2) choices of the low hand
    (docs/rules.md, Words ("set")), fouls included. Each hand keeps the order of ``cards7``."""
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

    58 Pa. Code § 688a.7(f): (3) win when both the player's hands are higher; (1)(i) lose when both
    are lower; (1)(ii) lose when one is identical in rank (a copy) and the other identical or lower;
    (2)(i)/(ii) tie (push) when one is higher and the other identical or lower. Pai gow poker
    settlement says the same: (1)-(2) win both, (5) identical hands are ties and the banker wins
    them, (6) lose both, (9) win one = push; docs/rules.md 1.1. So a hand wins only when it is
    strictly higher.
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
    commission_range: tuple[int, int] | None = None
    """The lawful commission on a win, lowest and highest (docs/rules.md 6a.19); None when
    ``commission_cents`` is the only lawful amount."""
    net_range: tuple[int, int] | None = None
    """The lawful net of a win paid no commission, lowest and highest (a share of the
    progressive meter: docs/rules.md 6a.13, 6a.19); None when ``net_cents`` is the only
    lawful amount."""

    def __post_init__(self) -> None:
        if self.net_range is not None and not (
                self.outcome is Outcome.WIN and self.commission_range is None
                and self.net_range[0] <= self.net_cents <= self.net_range[1]):
            raise MoneyError(f"net range {self.net_range} on a {self.outcome} with net "
                             f"{self.net_cents}")
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
                f"no commission on a {self.outcome} (docs/rules.md 1.2), got {commission}"
            )
        if self.outcome is Outcome.LOSS and net > 0:
            raise MoneyError(f"a loss cannot have a positive net, got {net}")
        if self.outcome is Outcome.PUSH and net:
            raise MoneyError(f"a push has a net of 0, got {net}")
        if self.commission_range is not None and not (
                self.outcome is Outcome.WIN
                and self.commission_range[0] <= commission <= self.commission_range[1]):
            raise MoneyError(f"commission range {self.commission_range} on a "
                             f"{self.outcome} with commission {commission}")


def settle_main(*, amount_cents: int, outcome: Outcome, ruleset: Ruleset) -> Settlement:
    """The main wager's settlement (docs/rules.md 1.2, 6, 6a.1; pai gow poker settlement (15),
    (16)): a win pays 1:1 less the ruleset's commission on the win (2500 -> net 2375,
    commission 125), with the commission's lawful range when the ruleset states one wider
    than the point (6a.19); a loss loses the amount; a push returns it (net 0). No
    commission on pushes or losses."""
    amount = _cents("amount_cents", amount_cents)
    if amount < 0:
        raise MoneyError(f"amount_cents must not be negative, got {amount}")
    if outcome is Outcome.WIN:
        policy = ruleset.commission
        commission = policy.on(amount)
        lawful = policy.lawful(amount) if policy.ranged else None
        return Settlement(outcome=outcome, net_cents=amount - commission,
                          commission_cents=commission,
                          commission_range=None if lawful == (commission, commission)
                          else lawful)
    if outcome is Outcome.LOSS:
        return Settlement(outcome=outcome, net_cents=-amount, commission_cents=0)
    if outcome is Outcome.PUSH:
        return Settlement(outcome=outcome, net_cents=0, commission_cents=0)
    raise MoneyError(f"pai gow poker voids no wager: outcome must be a win, loss or push, "
                     f"got {outcome!r}")

