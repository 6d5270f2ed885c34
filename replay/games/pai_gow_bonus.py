"""Fortune, Progressive and Envy: the seven-card bonus wagers of the pai gow poker games
(58 Pa. Code § 688a.1, § 688a.7(h)(2)-(3); docs/rules.md 2.4, 6 "Face Up", 6a.6,
6a.10-6a.13, 6a.18).

What this module decides, each with the rule it implements:

- the Fortune Bonus on the seven-card class (:data:`FORTUNE`; § 688a.7(h)(2); 6a.10, 6a.12);
- the Progressive Payout Wager, percentage awards shared (:data:`PROGRESSIVE`;
  § 688a.7(h)(3); 6a.12, 6a.13);
- the Envy Bonus for Qualifying Wagers (:data:`ENVY`, :data:`QUALIFYING_WAGER_CENTS`;
  § 688a.1; 6a.11);

for a round's seats at once (:func:`settle_bonus_wagers`, and :func:`settle_bonus_codes` on
Face Up's hot path). Face Up and classic pai gow poker both settle them here, on the seven
dealt cards however they were set (§ 688a.7(h); 6a.6).

No paytable, amount or threshold is a literal here: they are the ruleset's posted paytables
and its option :data:`QUALIFYING_WAGER_CENTS`. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from replay.cards import Card
from replay.errors import MoneyError, RoundError, RulesetError
from replay.games.base import PaytableClasses
from replay.games.pai_gow_hands import Settlement
from replay.games.results import Outcome, meter_award_range
from replay.games.seven_card_classes import (
    CLASS_BY_CODE,
    CODE_MASK,
    ENVY_QUALIFYING_CLASSES,
    SevenCardClass,
    classify_indexes,
    seven_card_indexes,
)
from replay.ruleset_model import read_once

if TYPE_CHECKING:
    from replay.ruleset_model import Payout, Ruleset

FORTUNE = "fortune"
PROGRESSIVE = "progressive"
ENVY = "envy"
"""Wager names (in a round document, README "Round documents") of the Fortune and
Progressive wagers, and the names of the ruleset paytables they and the Envy Bonus are paid
from."""

QUALIFYING_WAGER_CENTS = "qualifying_wager_cents"
"""Ruleset option: the least Fortune or Progressive wager that is a Qualifying Wager and so
earns Envy Bonuses (§ 688a.1 "Qualifying Wager": at least $5, so 500 in the shipped
rulesets)."""

_QUADS = SevenCardClass.FOUR_OF_A_KIND.strength

_BEST_FIRST = tuple(c.value for c in SevenCardClass)
PAYTABLE_CLASSES: Mapping[str, PaytableClasses] = MappingProxyType({
    FORTUNE: PaytableClasses(classes=_BEST_FIRST, required=_BEST_FIRST,
                             pays=frozenset({"odds"})),
    PROGRESSIVE: PaytableClasses(
        classes=_BEST_FIRST,
        required=tuple(c.value for c in SevenCardClass
                       if c.strength >= SevenCardClass.FULL_HOUSE.strength),
        pays=frozenset({"fixed_cents", "meter_bps"})),
    ENVY: PaytableClasses(
        classes=tuple(c.value for c in SevenCardClass if c in ENVY_QUALIFYING_CLASSES),
        required=tuple(c.value for c in SevenCardClass if c in ENVY_QUALIFYING_CLASSES),
        pays=frozenset({"fixed_cents"})),
})
"""What the Fortune, Progressive and Envy paytables may post and must post (docs/rules.md
2.4, 6, 6a.10 to 6a.12): Fortune pays odds on a straight or better, every class; the
Progressive pays a fixed sum or a share of the meter on a full house or better; the Envy
Bonus a fixed sum on every Envy Bonus Qualifying Hand (§ 688a.1: four of a kind or better)
and on nothing else."""


# ---------------------------------------------------------------------------------------
# Posted paytables, read once per ruleset
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class _Posted:
    """A ruleset's bonus paytables as tuples by class code (None: the ruleset has none)."""

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
                               f"(docs/rules.md 6a.12), got {payout!r}")
        if no_odds and payout.odds is not None:
            raise RulesetError(f"ruleset {ruleset.id}: paytable {name} {line} must be a fixed "
                               f"sum or a share of the meter (docs/rules.md 6a.12), got {payout!r}")
    return tuple(None if c is None else table.get(c.value) for c in CLASS_BY_CODE)


def _read_posted(ruleset: Ruleset) -> _Posted:
    envy = None
    envy_lines = _by_class(ruleset, ENVY, no_odds=True)
    if envy_lines is not None:
        amounts = []
        for code, payout in enumerate(envy_lines):
            category = CLASS_BY_CODE[code]
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
        fortune=_by_class(ruleset, FORTUNE, odds_only=True),
        progressive=_by_class(ruleset, PROGRESSIVE, no_odds=True),
        envy=envy,
        qualifying_cents=qualifying,
    )


_posted = read_once(_read_posted)
"""The ruleset's Fortune, Progressive and Envy paytables, read and checked once per ruleset."""


def missing_paytable(ruleset: Ruleset, name: str) -> RulesetError:
    """The error for a round with wagers of ``name`` under a ruleset without that paytable."""
    return RulesetError(
        f"ruleset {ruleset.id} has no paytable {name!r} for the {name} wagers of this round; "
        f"it has {', '.join(sorted(ruleset.paytables)) or 'none'}"
    )


# ---------------------------------------------------------------------------------------
# Fortune, Envy and Progressive (the core, on class codes and cents)
# ---------------------------------------------------------------------------------------

_WIN = Outcome.WIN.value
_LOSS = Outcome.LOSS.value

Settled = tuple[str, int]
"""(outcome, net cents): a side wager's settlement on the hot path; commission is 0."""


def settle_bonus_codes(
    codes: Sequence[int],
    fortune: Sequence[int],
    progressive: Sequence[int],
    ruleset: Ruleset,
    meter_cents: int | None,
) -> tuple[list[Settled | None], list[Settled | None], list[int],
           list[tuple[int, int] | None]]:
    """Fortune, Progressive and Envy for seats given by position: their class codes and
    their Fortune and Progressive wagers in cents (0: none), and each Progressive win's
    lawful range when it is a share of the meter wider than one amount
    (:func:`replay.games.results.meter_award_range`). See :func:`settle_bonus_wagers` for
    the rules. Face Up's hot path."""
    posted = _posted(ruleset)
    n = len(codes)
    fortune_out: list[Settled | None] = [None] * n
    progressive_out: list[Settled | None] = [None] * n
    envy_out = [0] * n
    ranges: list[tuple[int, int] | None] = [None] * n
    if any(fortune):
        table = posted.fortune
        if table is None:
            raise missing_paytable(ruleset, FORTUNE)
        for k in range(n):
            amount = fortune[k]
            if amount:
                line = table[codes[k]]
                fortune_out[k] = ((_WIN, line.win_cents(wager_cents=amount)) if line is not None
                                  else (_LOSS, -amount))
    if any(progressive):
        table = posted.progressive
        if table is None:
            raise missing_paytable(ruleset, PROGRESSIVE)
        if meter_cents is None:
            raise RoundError("a progressive_meter (cents) is needed to settle Progressive "
                             "Payout Wagers (docs/rules.md 6a.13)")
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
                elif line.meter_bps is not None:
                    low, high = meter_award_range(meter_cents, line.meter_bps,
                                                  sharing[codes[k]])
                    progressive_out[k] = (_WIN, low)
                    if low < high:
                        ranges[k] = (low, high)
                else:
                    progressive_out[k] = (_WIN, line.win_cents(wager_cents=amount))
    if any(fortune) or any(progressive):
        threshold = posted.qualifying_cents
        if threshold is None:
            raise RulesetError(f"ruleset {ruleset.id} has no option {QUALIFYING_WAGER_CENTS} "
                               f"(§ 688a.1 Qualifying Wager) for the Envy Bonus")
        qualified = [k for k in range(n) if fortune[k] >= threshold or progressive[k] >= threshold]
        if qualified and max(codes) >= _QUADS:
            envy = posted.envy
            if envy is None:
                raise missing_paytable(ruleset, ENVY)
            sums = [envy[code] for code in codes]
            total = sum(sums)
            for k in qualified:
                envy_out[k] = total - sums[k]
    return fortune_out, progressive_out, envy_out, ranges


# ---------------------------------------------------------------------------------------
# The public form, on cards
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class BonusHand:
    """A seat's seven dealt cards and its Fortune and Progressive wagers in cents (0: none).
    How the seat set its hand does not matter (58 Pa. Code § 688a.7(h); docs/rules.md 6a.6)."""

    seat: int
    cards: tuple[Card, ...]
    fortune_cents: int = 0
    progressive_cents: int = 0

    def __post_init__(self) -> None:
        if type(self.seat) is not int or self.seat < 1:
            raise RoundError(f"seat must be a seat number from 1, got {self.seat!r}")
        object.__setattr__(self, "cards", tuple(self.cards))
        seven_card_indexes(self.cards, f"seat {self.seat}'s hand")
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


def _settlement(settled: Settled | None,
                net_range: tuple[int, int] | None = None) -> Settlement | None:
    if settled is None:
        return None
    return Settlement(outcome=Outcome(settled[0]), net_cents=settled[1], commission_cents=0,
                      net_range=net_range)


def settle_bonus_wagers(
    hands: Sequence[BonusHand], *, ruleset: Ruleset, meter_cents: int | None = None
) -> tuple[BonusResult, ...]:
    """Settle the Fortune and Progressive wagers and pay the Envy Bonuses of one round's seats
    (58 Pa. Code § 688a.7(h)(2)-(3), § 688a.1; docs/rules.md 6a.10-6a.13), in the order of
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

    Each seat's seven cards are classed as dealt: a card dealt to two seats is a fact of the
    record, judged as recorded (docs/rules.md 8.1; the round document's reader refuses it
    for a document given by hand). :class:`RoundError` for a seat number used twice or a
    missing meter; :class:`RulesetError` when the ruleset lacks a paytable or option needed.
    """
    seats = [h.seat for h in hands]
    if len(set(seats)) != len(seats):
        raise RoundError(f"a seat appears twice among seats {seats}")
    if meter_cents is not None and (type(meter_cents) is not int or meter_cents < 0):
        raise MoneyError(f"meter_cents must be non-negative integer cents, got {meter_cents!r}")
    codes = [classify_indexes([c.index for c in h.cards]) & CODE_MASK for h in hands]
    fortune, progressive, envy, ranges = settle_bonus_codes(
        codes, [h.fortune_cents for h in hands], [h.progressive_cents for h in hands],
        ruleset, meter_cents,
    )
    return tuple(
        BonusResult(seat=h.seat, seven_card_class=CLASS_BY_CODE[codes[k]],
                    fortune=_settlement(fortune[k]),
                    progressive=_settlement(progressive[k], ranges[k]),
                    envy_cents=envy[k])
        for k, h in enumerate(hands)
    )

