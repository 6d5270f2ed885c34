"""The pai gow tiles house way: how the dealer sets four tiles, and whether a dealer's
setting conforms (PR pai gow tiles ¶ C, D, E; docs/rules.md 3.4, 6a.15, 6a.16).

What this module decides:

- the dealer's house way (:data:`HOUSE_WAY_PR_11_2_D`, :func:`house_way_setting`;
  PR pai gow tiles ¶ D.1 to D.4, completed where the text is silent: the completions C1-C6 are data
  of the house way);
- whether a dealer's setting conforms to it (:func:`follows_house_way`: every setting the
  written rules allow conforms, :func:`allowed_settings`; the completions only say which
  one the house way prefers).

Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from replay.errors import HandError
from replay.games.pai_gow_tiles_hands import Setting, canonical, set_hands, settings
from replay.games.tile_ranks import SPECIAL_CLASSES, HandClass, single_rank
from replay.tiles import Tile, render_tiles


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWayRule:
    """One rule of a tiles house way. ``plays`` says which of the three settings the rule
    may play; when some may, the one with the highest ``prefer`` is played (the first of
    :func:`settings` on equal preference: those are settings of identical ranks). ``clause``
    cites PR pai gow tiles ¶ D (as "D.1" to "D.4") or names the completion (C1-C6, see
    :data:`HOUSE_WAY_PR_11_2_D`)."""

    name: str
    clause: str
    text: str
    plays: Callable[[Setting], bool] = field(repr=False, compare=False)
    prefer: Callable[[Setting], tuple[int, ...]] = field(repr=False, compare=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWay:
    """A house way: rules tried in order; the first that may play some setting sets the
    hand (PR pai gow tiles ¶ D; ¶ E: each casino submits its own and its exceptions).
    ``completions`` are the decisions, (id, text), taken where the written rules are silent."""

    name: str
    title: str
    rules: tuple[HouseWayRule, ...]
    completions: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWaySetting:
    """The house way's setting of four tiles and the rule that chose it."""

    rule: HouseWayRule
    setting: Setting


def _best_high_then_low(s: Setting) -> tuple[int, ...]:
    return (s.high_rank.key, s.low_rank.key)


def _special_hands_then_best(s: Setting) -> tuple[int, ...]:
    specials = ((s.high_rank.hand_class in SPECIAL_CLASSES)
                + (s.low_rank.hand_class in SPECIAL_CLASSES))
    return (specials, s.high_rank.key, s.low_rank.key)


def _plays_supreme_pair(s: Setting) -> bool:
    return s.high_rank.hand_class is HandClass.GEE_JOON


def _plays_pair_wong_gong(s: Setting) -> bool:
    return s.high_rank.hand_class in SPECIAL_CLASSES


NINE_EIGHT_SEVEN: tuple[int, ...] = (9, 8, 7)
"""PR pai gow tiles ¶ D.3: the values of a two-tile hand the dealer plays together."""


def _plays_nine_eight_seven(s: Setting) -> bool:
    return s.high_rank.hand_class is HandClass.POINTS and s.high_rank.points in NINE_EIGHT_SEVEN


def _tile_order(t: Tile) -> tuple[int, int]:
    """Highest-ranked first (6a.15); among equals, the first in FACES order (C6)."""
    return (-single_rank(t), t.index)


def _plays_highest_with_lowest(s: Setting) -> bool:
    four = s.high + s.low
    pair = canonical((min(four, key=_tile_order), max(four, key=_tile_order)))
    return pair in (s.high, s.low)


HOUSE_WAY_PR_11_2_D = HouseWay(
    name="pr-11.2-d",
    title="PR pai gow tiles ¶ D, the dealer's four rules, completed where the text is silent",
    rules=(
        HouseWayRule(
            name="supreme_pair", clause="D.1",
            text="With the Supreme Pair (Gee Joon), play it as such: Gee Joon in the high "
                 "hand, the other two tiles in the low hand.",
            plays=_plays_supreme_pair, prefer=_best_high_then_low,
        ),
        HouseWayRule(
            name="pair_wong_gong", clause="D.2; C2, C3",
            text="If possible, always play a pair, wong or gong, in the high hand (C2). When "
                 "several settings play one, play the one with a pair, wong or gong in both "
                 "hands; then the highest high hand; then the highest low hand (C3).",
            plays=_plays_pair_wong_gong, prefer=_special_hands_then_best,
        ),
        HouseWayRule(
            name="nine_eight_seven", clause="D.3; C4",
            text="Otherwise play two tiles together whose value is nine, eight or seven, as "
                 "the high hand. When several settings do, play the highest such hand (nine "
                 "before eight before seven, then the higher single tile); then the highest "
                 "low hand (C4).",
            plays=_plays_nine_eight_seven, prefer=_best_high_then_low,
        ),
        HouseWayRule(
            name="highest_with_lowest", clause="D.4; C5",
            text="Otherwise play the highest-ranked tile with the lowest-ranked tile; the "
                 "higher ranking of the two hands is the high hand (C5).",
            plays=_plays_highest_with_lowest, prefer=_best_high_then_low,
        ),
    ),
    completions=(
        ("C1", "Single tiles rank in the order of docs/rules.md 6a.15; the two Gee Joon tiles "
               "rank equally, as the lowest single tiles. The higher single tile of a hand "
               "decides equal points (6a.16)."),
        ("C2", "A pair, wong or gong (and Gee Joon, D.1) outranks every point hand, so it is "
               "played as the high hand (anything else fouls unless both hands are one); the "
               "other two tiles are the low hand."),
        ("C3", "When more than one setting plays a pair, wong or gong (two pairs; a pair "
               "beside Teen or Day and a 9 or 8; Teen and Day with two 9s or 8s): first the "
               "setting with one in both hands (Teen-Day-9-9 is played as two wongs, not as "
               "the mixed nines over Teen-Day; two pairs as two pairs); then the highest high "
               "hand; then the highest low hand. So a pair is kept together unless splitting "
               "it makes a pair, wong or gong of both hands."),
        ("C4", "Which 9, 8 or 7 (D.3 says 'any'): the highest such hand (nine before eight "
               "before seven, the order the text gives, then the higher single tile), then "
               "the highest other hand. A lone Gee Joon tile counts 3 or 6, whichever is "
               "better (6a.16)."),
        ("C5", "D.4 does not say which hand holds the highest and the lowest tile: the higher "
               "ranking of the two hands is the high hand, as in every rule, so the house way "
               "never fouls."),
        ("C6", "Ties: a setting is chosen by its ranks alone; settings of identical ranks "
               "play identically against every hand, and the first in settings() order is "
               "written. At D.4 the four tiles all rank differently (equal-ranking tiles "
               "always make a pair or Gee Joon, which D.1 or D.2 plays), so 'highest' and "
               "'lowest' are never tied. A dealer whose hands have the house way's ranks "
               "follows it."),
    ),
)
"""The shipped tiles house way: PR pai gow tiles ¶ D (the same four rules as 58 Pa. Code
§ 621a.8(d), docs/rules.md 3.4), tried in order, with the completions C1-C6 where the text is
silent (``HOUSE_WAY_PR_11_2_D.completions``, printed in the golden file's header too)."""


HOUSE_WAYS: Mapping[str, HouseWay] = MappingProxyType(
    {HOUSE_WAY_PR_11_2_D.name: HOUSE_WAY_PR_11_2_D}
)
"""Tiles house ways by name, as a ruleset's ``house_way`` option names them."""


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
