"""The pai gow tiles house way: how the dealer sets four tiles, and whether a dealer's
setting conforms (PR pai gow tiles ¶ C, D, E; docs/rules.md 3.4, 6a.15, 6a.16). A casino's
house way is a file it writes (docs/house-way.md), parsed by
:func:`~replay.games.pai_gow_tiles_house_way_words.parse_tiles_house_way`.

What this module decides:

- the dealer's house way (:data:`HOUSE_WAY_PR_11_2_D`, parsed from
  ``replay/rulesets/house_ways/pr-11.2-d.way``: PR pai gow tiles ¶ D.1 to D.4, completed where
  the text is silent, C1-C6; :func:`house_way_setting`), and the one a ruleset names
  (:func:`find_house_way`);
- whether a dealer's setting conforms to it (:func:`follows_house_way`: every setting the
  written rules allow conforms, :func:`allowed_settings`; the completions only say which
  one the house way prefers).

Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from replay.errors import HandError, ReplayError
from replay.games.house_way_text import find_way
from replay.games.pai_gow_tiles_hands import Setting, canonical, set_hands, settings
from replay.games.pai_gow_tiles_house_way_words import GAME as WAY_GAME
from replay.games.pai_gow_tiles_house_way_words import HouseWay as HouseWay
from replay.games.pai_gow_tiles_house_way_words import HouseWayRule as HouseWayRule
from replay.games.pai_gow_tiles_house_way_words import parse_tiles_house_way
from replay.house_way_shipped import shipped_house_way_text
from replay.tiles import Tile, parse_tile, render_tiles

if TYPE_CHECKING:
    from replay.ruleset_model import Ruleset


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWaySetting:
    """The house way's setting of four tiles and the rule that chose it."""

    rule: HouseWayRule
    setting: Setting


NINE_EIGHT_SEVEN: tuple[int, ...] = (9, 8, 7)
"""PR pai gow tiles ¶ D.3: the values of a two-tile hand the dealer plays together."""

_TEXT, _SOURCE = shipped_house_way_text("pr-11.2-d.way")
HOUSE_WAY_PR_11_2_D: HouseWay = parse_tiles_house_way(_TEXT, source=_SOURCE)
"""The shipped tiles house way: PR pai gow tiles ¶ D (the same four rules as 58 Pa. Code
§ 621a.8(d), docs/rules.md 3.4), tried in order, with the completions C1-C6 where the text is
silent (``HOUSE_WAY_PR_11_2_D.completions``, printed in the golden file's header too), parsed
from ``replay/rulesets/house_ways/pr-11.2-d.way``."""


HOUSE_WAYS: Mapping[str, HouseWay] = MappingProxyType(
    {HOUSE_WAY_PR_11_2_D.name: HOUSE_WAY_PR_11_2_D}
)
"""Tiles house ways by name, as a ruleset's ``house_way`` option names them."""


def find_house_way(ruleset: Ruleset) -> HouseWay:
    """The tiles house way ``ruleset`` names: the one loaded from its ``.way`` file
    (``ruleset.house_way_spec``), or a shipped one by name; :class:`UnknownHouseWayError`
    otherwise, so that a round is not evaluated (fail closed), never judged by another way
    (:func:`replay.games.house_way_text.find_way`)."""
    return find_way(ruleset, kind=HouseWay, shipped=HOUSE_WAYS, game=WAY_GAME)


def house_way_setting(
    tiles4: Sequence[Tile], *, way: HouseWay = HOUSE_WAY_PR_11_2_D
) -> HouseWaySetting:
    """The house way's setting of four tiles, with the rule that chose it (PR pai gow tiles
    ¶ D, completed: see :data:`HOUSE_WAY_PR_11_2_D`). Never a foul; the same for any order of
    the same tiles."""
    options = settings(tiles4)
    for rule in way.rules:
        playable = [s for s in options if rule.plays(s)]
        if playable:
            best = max(playable, key=rule.prefer)
            return HouseWaySetting(rule=rule, setting=best)
    raise HandError(f"house way {way.name} has no rule for {render_tiles(canonical(tiles4))}")


def allowed_settings(
    tiles4: Sequence[Tile], *, way: HouseWay = HOUSE_WAY_PR_11_2_D
) -> tuple[Setting, ...]:
    """Every setting of four tiles that the written house way allows (PR pai gow tiles ¶ C,
    D): those the first rule that applies plays (:attr:`HouseWayRule.plays`), the way round
    that does not foul. Where the text leaves a choice, every choice is allowed: D.3 plays "any" two
    tiles worth nine, eight or seven together ("cualesquiera dos tiles"), and D.2 "a pair,
    wong or gong" (which one, when several settings play one, the text does not say).
    :func:`house_way_setting` is the one of them the house way prefers (completions C3,
    C4); D.1 and D.4 allow only one setting (up to settings of identical ranks, C6)."""
    options = settings(tiles4)
    for rule in way.rules:
        playable = tuple(s for s in options if rule.plays(s))
        if playable:
            return playable
    raise HandError(f"house way {way.name} has no rule for {render_tiles(canonical(tiles4))}")


def follows_house_way(
    tiles4: Sequence[Tile], high: Sequence[Tile], low: Sequence[Tile],
    *, way: HouseWay = HOUSE_WAY_PR_11_2_D,
) -> bool:
    """Whether a dealer who held ``tiles4`` and set ``high`` and ``low`` followed the house
    way (PR pai gow tiles ¶ C, D): a setting conforms when the written house way allows it
    (:func:`allowed_settings`: where the text leaves a choice, as D.3's "any" two tiles
    worth 9, 8 or 7, every choice conforms), set the way round that does not foul, or when
    its hands have the ranks of an allowed setting (a copy in both, which plays identically
    against every seat: completion C6). The preferred setting, :func:`house_way_setting`,
    is information beside the answer, not the only conforming one."""
    mine = set_hands(high, low)
    if mine.foul:
        return False
    return any(
        (mine.high, mine.low) == (s.high, s.low)
        or (mine.high_rank == s.high_rank and mine.low_rank == s.low_rank)
        for s in allowed_settings(tiles4, way=way)
    )


def dealer_setting(tokens: Sequence[str],
                   ruleset: Ruleset) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The (high, low) hands, as tiles in notation, that the house way ``ruleset`` names sets
    four dealt tiles into (its preferred setting); None when the tokens are not four tiles or
    the ruleset's house way is unknown. A what-if under another house way re-sets the
    dealer's hand by it (``GameRules.dealer_setting``, replay/whatif.py)."""
    try:
        tiles = tuple(parse_tile(t) for t in tokens)
        chosen = house_way_setting(tiles, way=find_house_way(ruleset)).setting
    except (ReplayError, ValueError, LookupError):
        return None
    return tuple(map(str, chosen.high)), tuple(map(str, chosen.low))
