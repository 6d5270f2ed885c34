"""The pai gow poker house way: how the dealer (and a player who asks) sets seven cards
(docs/rules.md 1.3 and 7.5; pai gow poker procedure (4): the dealer's hand is "properly set by
the dealer"). A casino's house way is a file it writes (docs/house-way.md; 58 Pa. Code
§ 601a.2, the Rules Submission), parsed by
:func:`~replay.games.pai_gow_house_way_words.parse_poker_house_way`.

What this module decides:

- the house way's setting of seven cards, the rule that chose it and the other settings that
  rule allows (:func:`house_way_setting`, :func:`house_way`);
- whether a set hand conforms to the house way (:func:`follows_house_way`);
- the house ways shipped by name (:data:`HOUSE_WAYS`; :data:`HOUSE_WAY_REFERENCE_1_3`, parsed
  from ``replay/rulesets/house_ways/reference-1.3.way``) and the one a ruleset names
  (:func:`find_house_way`).

Speed: the seven cards are analysed once (:mod:`replay.games.pai_gow_seven`), and each rule's
condition tests the hand's shape before anything else; about 10 microseconds a hand. The
golden file pins that no setting changed. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from replay.cards import Card, parse_card, render_cards
from replay.errors import HandError, ReplayError
from replay.games.house_way_text import find_way
from replay.games.pai_gow_house_way_words import GAME as WAY_GAME
from replay.games.pai_gow_house_way_words import HouseWay as HouseWay
from replay.games.pai_gow_house_way_words import HouseWayRule as HouseWayRule
from replay.games.pai_gow_house_way_words import parse_poker_house_way
from replay.games.pai_gow_seven import analyse, hands
from replay.games.poker_ranks import rank_high, rank_low
from replay.house_way_shipped import shipped_house_way_text
from replay.ruleset_model import Wheel

if TYPE_CHECKING:
    from replay.ruleset_model import Ruleset

Hands = tuple[tuple[Card, ...], tuple[Card, ...]]


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWaySetting:
    """The house way's preferred setting of seven cards (``high``, ``low``), the rule that
    chose it, and the other settings that rule allows (``others``: its other ``front``
    choices that have their cards), each (high, low)."""

    rule: HouseWayRule
    high: tuple[Card, ...]
    low: tuple[Card, ...]
    others: tuple[Hands, ...] = ()


_TEXT, _SOURCE = shipped_house_way_text("reference-1.3.way")
HOUSE_WAY_REFERENCE_1_3: HouseWay = parse_poker_house_way(_TEXT, source=_SOURCE)
"""The shipped house way (docs/rules.md 7.5: the example of 1.3, completed where it is
silent: C1-C8, its ``completions``), parsed from ``replay/rulesets/house_ways/reference-1.3.way``.
Every rule leaves a 5-card hand that holds its 2-card hand (6a.5), so the house way never
fouls; the parser proves it by construction and the tests check it over random hands."""

HOUSE_WAYS: Mapping[str, HouseWay] = MappingProxyType(
    {HOUSE_WAY_REFERENCE_1_3.name: HOUSE_WAY_REFERENCE_1_3}
)
"""House ways by name, as a ruleset's ``house_way`` option names them."""


def find_house_way(ruleset: Ruleset) -> HouseWay:
    """The pai gow poker house way ``ruleset`` names: the one loaded from its ``.way`` file
    (``ruleset.house_way_spec``), or a shipped one by name; :class:`UnknownHouseWayError`
    otherwise, so that a round is not evaluated (fail closed), never judged by another way
    (:func:`replay.games.house_way_text.find_way`)."""
    return find_way(ruleset, kind=HouseWay, shipped=HOUSE_WAYS, game=WAY_GAME)


def house_way_setting(
    cards7: Sequence[Card],
    *,
    wheel: Wheel = Wheel.SECOND_HIGHEST,
    way: HouseWay = HOUSE_WAY_REFERENCE_1_3,
) -> HouseWaySetting:
    """The house way's setting of seven cards: the first rule that applies and whose preferred
    choice has its cards sets them (both hands in canonical order); ``others`` are the
    settings its other listed choices give."""
    seven = analyse(cards7, wheel)
    for rule in way.by_shape[seven.shape]:
        test = rule.test
        if test is not None and not test(seven):
            continue
        lows = rule.lows
        low = lows[0](seven)
        if low is None:
            continue
        high, low_hand = hands(seven, low)
        others: tuple[Hands, ...] = ()
        if len(lows) > 1:
            found = []
            for other in lows[1:]:
                got = other(seven)
                if got is not None:
                    setting = hands(seven, got)
                    if setting != (high, low_hand) and setting not in found:
                        found.append(setting)
            others = tuple(found)
        return HouseWaySetting(rule=rule, high=high, low=low_hand, others=others)
    raise HandError(f"house way {way.name} has no rule for {render_cards(seven.cards)}")


def house_way(
    cards7: Sequence[Card], *, wheel: Wheel = Wheel.SECOND_HIGHEST
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """The (high, low) hands the shipped house way sets seven cards into (docs/rules.md 1.3,
    completed: see :data:`HOUSE_WAY_REFERENCE_1_3`). Never a foul; the same for any order of
    the same cards."""
    setting = house_way_setting(cards7, wheel=wheel)
    return setting.high, setting.low


def follows_house_way(
    cards7: Sequence[Card],
    high: Sequence[Card],
    low: Sequence[Card],
    *,
    wheel: Wheel = Wheel.SECOND_HIGHEST,
    way: HouseWay = HOUSE_WAY_REFERENCE_1_3,
    preferred: HouseWaySetting | None = None,
) -> bool:
    """Whether a hand set from ``cards7`` into ``high`` (5 cards) and ``low`` (2) conforms to the
    house way (pai gow poker procedure (4): the dealer's hand is "properly set"): it is a setting
    the written way allows. The rule that sets the hand allows each of its listed choices (the
    preferred one, :func:`house_way_setting`, and ``others``: docs/house-way.md), and each
    choice leaves no freedom but between interchangeable cards (equal ranks, different suits:
    completion C7). So a setting conforms when it puts the same cards in each hand as one of
    them, or hands of the same ranks (the other suit, or the joker for an ace where it
    completes nothing). ``preferred`` is :func:`house_way_setting` of the same ``way``, when
    the caller has it already. Any other setting does not conform, however close."""
    setting = preferred or house_way_setting(cards7, wheel=wheel, way=way)
    mine = {c.index for c in high}
    lawful = ((setting.high, setting.low), *setting.others)
    if any({c.index for c in h} == mine for h, _ in lawful):
        return True
    ranks = (rank_high(high, wheel=wheel), rank_low(low))
    return any((rank_high(h, wheel=wheel), rank_low(lo)) == ranks for h, lo in lawful)


def dealer_setting(tokens: Sequence[str],
                   ruleset: Ruleset) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The (high, low) hands, as tokens in notation, that the house way ``ruleset`` names
    sets seven dealt cards into (its preferred setting); None when the tokens are not seven
    cards of the deck or the ruleset's house way is unknown. A what-if under another house
    way re-sets the dealer's hand by it (``GameRules.dealer_setting``, replay/whatif.py)."""
    try:
        cards = tuple(parse_card(t) for t in tokens)
        setting = house_way_setting(cards, wheel=ruleset.wheel, way=find_house_way(ruleset))
    except (ReplayError, ValueError, LookupError):
        return None
    return tuple(map(str, setting.high)), tuple(map(str, setting.low))
