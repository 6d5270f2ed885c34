"""Pai gow tiles: hand ranks, setting, the dealer's house way, and the judgement of a round
(REFERENCE.md 3, 6, 6a.2, 6a.14-6a.16; seed excerpt 003, PR Seccion 11.2 paragraphs A-K).

What this module decides, each with the rule it implements:

- the rank of a two-tile hand (:func:`rank_hand`; REFERENCE.md 3.2, 3.3, 6a.15, 6a.16): the
  Gee Joon pair, then the pairs in the order of 3.2, then wong (Teen wong above Day wong),
  gong, then points; a lone Gee Joon tile counts 3 or 6, whichever is better; equal points
  go to the hand with the higher single tile; equal again is a copy; every zero is a copy.
  Ranks are totally ordered by an integer key and equal keys are copies;
- the three ways to set four tiles, and the foul (:func:`settings`, :func:`is_foul`;
  glossary "set", "foul": the high hand must rank equal to or higher than the low hand);
- a set hand against the banker's (:func:`compare`; seed 003 H, I, J: win both to win,
  copies to the banker, a player's low hand of value zero never wins);
- the main wager's settlement (:func:`settle_main`; seed 003 K, REFERENCE.md 6a.2: 1:1 less
  the ruleset's vigorish; seed 003 F: a withdrawn seat loses its wager);
- the dealer's house way (:data:`HOUSE_WAY_PR_11_2_D`, :func:`house_way_setting`; seed 003
  D.1-D.4, completed where the text is silent: the completions C1-C6 are data of the house
  way), and whether a dealer's setting conforms to it (:func:`follows_house_way`: every
  setting the written rules allow conforms, :func:`allowed_settings`; the completions only
  say which one the house way prefers);
- the judgement of a round document (:func:`read_document`, :func:`judge_round`,
  :func:`judge_document`; issue 3 "Round document" and "Result"), dealer-banked or
  player-banked: who banks, the co-bank share, the dealer's wager against a player banker
  and the banker's account (:class:`BankerResult`) follow the rules classic pai gow poker
  shares (REFERENCE.md 6a.14 by analogy; 58 Pa. Code 621a.1), in
  :mod:`replay.games.pai_gow_banking`, with this game's :func:`vigorish`.

No rate, rounding, share or amount is a literal here: the vigorish, whether it may exceed
the win, and the co-bank share come from the ``Ruleset``. Nothing here does I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import combinations_with_replacement
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from replay.document import (
    DocumentError,
    cents,
    mapping,
    round_header,
    seat_list,
    seat_number,
    wagers,
)
from replay.document import field as read_field
from replay.errors import HandError, MoneyError, RulesetError
from replay.games.base import GameRules
from replay.games.pai_gow_banking import DEALER as DEALER
from replay.games.pai_gow_banking import OPTION_CO_BANK_ROUNDING as OPTION_CO_BANK_ROUNDING
from replay.games.pai_gow_banking import OPTION_CO_BANK_SHARE_BPS as OPTION_CO_BANK_SHARE_BPS
from replay.games.pai_gow_banking import OPTION_NAMES as BANKING_OPTION_NAMES
from replay.games.pai_gow_banking import BankerResult as BankerResult
from replay.games.pai_gow_banking import PlayerBanker as PlayerBanker
from replay.games.pai_gow_banking import banker_account, dealer_wager_net, read_banker
from replay.games.pai_gow_banking import co_bank_share as co_bank_share
from replay.games.results import Outcome as Outcome
from replay.games.results import dealer_entry, result_object, seat_entry, settled_entry
from replay.tiles import FACES, TILES_32, Tile, TileError, parse_tile, render_tiles

if TYPE_CHECKING:
    from replay.rulesets import Ruleset

GAME = "pai_gow_tiles"
"""This module's game name, as in rounds, rulesets and events."""

HAND_SIZE = 4
"""Tiles dealt to each seat and to the dealer (seed 003 A: "una mano mayor y una mano menor"
of two tiles each)."""
HAND_TILES = 2
"""Tiles in a high or a low hand."""


# ---------------------------------------------------------------------------------------
# The ranking of REFERENCE.md 3.2, 3.3, 6a.15, 6a.16, as data
# ---------------------------------------------------------------------------------------

SINGLE_TILE_ORDER: tuple[tuple[Tile, ...], ...] = tuple(
    tuple(parse_tile(t) for t in group.split())
    for group in (
        "6-6", "1-1", "4-4", "1-3", "5-5", "3-3", "2-2", "5-6", "4-6", "1-6", "1-5",
        "3-6 4-5", "2-6 3-5", "3-4 2-5", "1-4 2-3", "2-4 1-2",
    )
)
"""REFERENCE.md 6a.15, highest first: Teen, Day, Yun, Gor, Mooy, Chong, Bon, Foo, Ping, Tit,
Look, the 9s, the 8s, the 7s, the 5s, and the Gee Joon tiles lowest. Tiles in one group rank
equally ("tiles of equal pips in the mixed groups rank equally"; the two Gee Joon tiles are
listed together as the lowest, so they rank equally too: completion C1)."""

SUPREME_PAIR: tuple[Tile, Tile] = (parse_tile("2-4"), parse_tile("1-2"))
"""Gee Joon, the Supreme Pair: the 2-4 and 1-2 tiles (REFERENCE.md 3.2; seed 003 D.1)."""

PAIR_ORDER: tuple[tuple[Tile, Tile], ...] = tuple(
    (parse_tile(a), parse_tile(b))
    for a, b in (
        ("6-6", "6-6"), ("1-1", "1-1"), ("4-4", "4-4"), ("1-3", "1-3"), ("5-5", "5-5"),
        ("3-3", "3-3"), ("2-2", "2-2"), ("5-6", "5-6"), ("4-6", "4-6"), ("1-6", "1-6"),
        ("1-5", "1-5"), ("3-6", "4-5"), ("2-6", "3-5"), ("3-4", "2-5"), ("1-4", "2-3"),
    )
)
"""The 15 pairs below Gee Joon, highest first (REFERENCE.md 3.2): Teen, Day, Yun, Gor, Mooy,
Chong, Bon, Foo, Ping, Tit, Look, then the mixed 9s (6-3/5-4), 8s (6-2/5-3), 7s (4-3/5-2)
and 5s (4-1/3-2). Two tiles that are not one of these (or Gee Joon) are not a pair, even of
equal pips (Mooy 5-5 and Ping 4-6 are both ten)."""

WONG_GONG_TILES: tuple[Tile, ...] = (parse_tile("6-6"), parse_tile("1-1"))
"""Teen and Day: with a 9 they make a wong, with an 8 a gong (REFERENCE.md 3.2; glossary)."""
WONG_PIPS = 9
"""A wong is Teen or Day with a tile of nine pips (the mixed 9s)."""
GONG_PIPS = 8
"""A gong is Teen or Day with a tile of eight pips (Yun 4-4 or a mixed 8)."""
GEE_JOON_VALUES: tuple[int, ...] = (3, 6)
"""What a lone Gee Joon tile may count (REFERENCE.md 3.2, NZ rule 4.2; 6a.16: "whichever is
better")."""
POINTS_BASE = 10
"""A hand's value is the units digit of its pips (REFERENCE.md 3.3: sum mod 10)."""


class HandClass(StrEnum):
    """The classes of a two-tile hand, best first (REFERENCE.md 6a.16). The value is the
    stable name; compare hands by :class:`HandRank`, never by this value."""

    GEE_JOON = "gee_joon"
    PAIR = "pair"
    WONG = "wong"
    GONG = "gong"
    POINTS = "points"


_SPECIAL = frozenset({HandClass.GEE_JOON, HandClass.PAIR, HandClass.WONG, HandClass.GONG})


def _face_pair(a: Tile, b: Tile) -> tuple[int, int]:
    return (a.index, b.index) if a.index <= b.index else (b.index, a.index)


_SINGLE_RANK: Mapping[Tile, int] = MappingProxyType(
    {tile: len(SINGLE_TILE_ORDER) - 1 - i for i, group in enumerate(SINGLE_TILE_ORDER)
     for tile in group}
)
_PAIR_STRENGTH: Mapping[tuple[int, int], int] = MappingProxyType(
    {_face_pair(a, b): len(PAIR_ORDER) - i for i, (a, b) in enumerate(PAIR_ORDER)}
)


def single_rank(tile: Tile) -> int:
    """A tile's place in the single-tile order (REFERENCE.md 6a.15): 15 for Teen down to 0
    for the Gee Joon tiles; tiles of one group have the same number."""
    return _SINGLE_RANK[tile]


# The key: class in the thousands, then the pair's strength, or the wong's or gong's tile, or
# sixteen times the points plus the higher single tile; every zero is 0 (6a.16: a copy).
_CLASS_STEP = 1000
_CLASS_BASE: Mapping[HandClass, int] = MappingProxyType(
    {hand_class: _CLASS_STEP * i for i, hand_class in enumerate(reversed(HandClass))}
)
_TILE_SLOT = 16


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class HandRank:
    """The rank of a two-tile hand, totally ordered by ``key`` alone: equal keys are copies
    (REFERENCE.md 3.3, 6a.16).

    ``hand_class`` is the class; ``points`` the hand's value (REFERENCE.md 3.3: pips mod 10,
    a lone Gee Joon tile counted 3 or 6, whichever is better); ``high_tile`` the hand's higher
    single tile (6a.15; the first in :data:`replay.tiles.FACES` order when both rank equally).
    """

    key: int
    hand_class: HandClass = field(compare=False)
    points: int = field(compare=False)
    high_tile: Tile = field(compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.hand_class, HandClass):
            raise HandError(f"hand_class must be a HandClass, got {self.hand_class!r}")
        if type(self.key) is not int or not (
            _CLASS_BASE[self.hand_class] <= self.key < _CLASS_BASE[self.hand_class] + _CLASS_STEP
        ):
            raise HandError(f"key {self.key!r} does not encode class {self.hand_class}")
        if type(self.points) is not int or not 0 <= self.points < POINTS_BASE:
            raise HandError(f"points must be 0 to 9, got {self.points!r}")
        if not isinstance(self.high_tile, Tile):
            raise HandError(f"high_tile must be a Tile, got {self.high_tile!r}")

    @property
    def is_zero(self) -> bool:
        """True for a point hand of value zero (seed 003 H, I: "tiene un valor de cero").
        A pair, wong or gong whose pips end in 0 (Mooy pair, a gong) is not a zero hand: it
        ranks as what it is (REFERENCE.md 3.2)."""
        return self.hand_class is HandClass.POINTS and self.points == 0

    def describe(self) -> str:
        """The hand in words: ``Gee Joon``, ``pair of Teen``, ``pair of mixed nines``,
        ``Teen wong``, ``Day gong``, ``9 points, Teen high``, ``1 point, Day high``,
        ``0 points``. Two hands have the same description exactly when they have the same
        rank."""
        name = self.high_tile.name
        if self.hand_class is HandClass.GEE_JOON:
            return "Gee Joon"
        if self.hand_class is HandClass.PAIR:
            return f"pair of {name}s" if name.startswith("mixed") else f"pair of {name}"
        if self.hand_class in (HandClass.WONG, HandClass.GONG):
            return f"{name} {self.hand_class.value}"
        if self.points == 0:
            return "0 points"
        unit = "point" if self.points == 1 else "points"
        return f"{self.points} {unit}, {name} high"

    def __str__(self) -> str:
        return self.describe()


def _points(a: Tile, b: Tile) -> int:
    """REFERENCE.md 3.3 and 6a.16: pips mod 10; a lone Gee Joon tile counts 3 or 6,
    whichever gives the better (higher) value."""
    if a.is_gee_joon != b.is_gee_joon:
        other = b if a.is_gee_joon else a
        return max((value + other.pips) % POINTS_BASE for value in GEE_JOON_VALUES)
    return (a.pips + b.pips) % POINTS_BASE


def _rank_of(a: Tile, b: Tile) -> HandRank:
    high, low = (a, b) if _SINGLE_RANK[a] >= _SINGLE_RANK[b] else (b, a)
    if _SINGLE_RANK[high] == _SINGLE_RANK[low] and low.index < high.index:
        high, low = low, high
    points = _points(a, b)
    pair = _face_pair(a, b)
    if {a, b} == set(SUPREME_PAIR):
        return HandRank(key=_CLASS_BASE[HandClass.GEE_JOON], hand_class=HandClass.GEE_JOON,
                        points=points, high_tile=high)
    if pair in _PAIR_STRENGTH:
        return HandRank(key=_CLASS_BASE[HandClass.PAIR] + _PAIR_STRENGTH[pair],
                        hand_class=HandClass.PAIR, points=points, high_tile=high)
    if high in WONG_GONG_TILES and low.pips in (WONG_PIPS, GONG_PIPS):
        hand_class = HandClass.WONG if low.pips == WONG_PIPS else HandClass.GONG
        return HandRank(key=_CLASS_BASE[hand_class] + _SINGLE_RANK[high],
                        hand_class=hand_class, points=points, high_tile=high)
    key = points * _TILE_SLOT + _SINGLE_RANK[high] if points else 0
    return HandRank(key=key, hand_class=HandClass.POINTS, points=points, high_tile=high)


_RANKS: tuple[tuple[HandRank, ...], ...] = tuple(
    tuple(_rank_of(a, b) for b in FACES) for a in FACES
)


def rank_hand(tiles: Sequence[Tile]) -> HandRank:
    """The rank of a two-tile hand (REFERENCE.md 3.2, 3.3, 6a.15, 6a.16); a table lookup.

    :class:`HandError` when ``tiles`` are not two tiles. Whether the set could hold them
    (a third Gee Joon, say) is not asked here; the round reader checks it.
    """
    try:
        a, b = tiles
        return _RANKS[a.index][b.index]
    except (TypeError, ValueError, AttributeError):
        raise HandError(f"a hand is two tiles, got {tiles!r}") from None


def _as_rank(hand: HandRank | Sequence[Tile]) -> HandRank:
    return hand if isinstance(hand, HandRank) else rank_hand(hand)


def is_foul(high: HandRank | Sequence[Tile], low: HandRank | Sequence[Tile]) -> bool:
    """True when the high hand ranks below the low hand (glossary "foul"; REFERENCE.md 6a.16:
    a fouled tiles hand loses). Equal ranks are not a foul."""
    return _as_rank(high) < _as_rank(low)


# ---------------------------------------------------------------------------------------
# Setting four tiles
# ---------------------------------------------------------------------------------------


def canonical(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    """``tiles`` in the fixed order of :data:`replay.tiles.FACES` (highest single tile
    first), the order every hand is written in by this module."""
    return tuple(sorted(tiles, key=lambda t: t.index))


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    """Four tiles set into a ``high`` and a ``low`` hand (each in :func:`canonical` order),
    with their ranks. :func:`settings` gives them the way round that does not foul."""

    high: tuple[Tile, Tile]
    low: tuple[Tile, Tile]
    high_rank: HandRank
    low_rank: HandRank

    def __post_init__(self) -> None:
        for name in ("high", "low"):
            hand = getattr(self, name)
            if len(hand) != HAND_TILES or not all(isinstance(t, Tile) for t in hand):
                raise HandError(f"a {name} hand is two tiles, got {hand!r}")
        if rank_hand(self.high) != self.high_rank or rank_hand(self.low) != self.low_rank:
            raise HandError(f"ranks do not match the hands of {self}")

    @property
    def foul(self) -> bool:
        """True when the high hand ranks below the low hand."""
        return self.high_rank < self.low_rank

    def __str__(self) -> str:
        return f"{render_tiles(self.high)} / {render_tiles(self.low)}"


def _two(tiles: Iterable[Tile]) -> tuple[Tile, Tile]:
    hand = canonical(tiles)
    if len(hand) != HAND_TILES:
        raise HandError(f"a hand is two tiles, got {render_tiles(hand)!r}")
    return hand[0], hand[1]


def set_hands(high: Sequence[Tile], low: Sequence[Tile]) -> Setting:
    """The :class:`Setting` with ``high`` and ``low`` as given (a foul stays a foul)."""
    h, lo = _two(high), _two(low)
    return Setting(high=h, low=lo, high_rank=rank_hand(h), low_rank=rank_hand(lo))


def _four(tiles4: Sequence[Tile]) -> tuple[Tile, ...]:
    if isinstance(tiles4, str) or len(tiles4) != HAND_SIZE or not all(
        isinstance(t, Tile) for t in tiles4
    ):
        raise HandError(f"a pai gow tiles hand is {HAND_SIZE} tiles, got {tiles4!r}")
    return canonical(tiles4)


def settings(tiles4: Sequence[Tile]) -> tuple[Setting, Setting, Setting]:
    """The three ways to set four tiles (REFERENCE.md 3.6: "3 ways to split each"), each the
    way round that does not foul: the higher ranking hand high (the first of the four
    tiles' hand high when they rank equally). With the tiles in :func:`canonical` order
    ``t0 t1 t2 t3``, the splits are t0 with t1, with t2, then with t3."""
    t = _four(tiles4)
    out = []
    for j in (1, 2, 3):
        a = (t[0], t[j])
        b = _two(t[i] for i in (1, 2, 3) if i != j)
        ra, rb = rank_hand(a), rank_hand(b)
        if ra >= rb:
            out.append(Setting(high=a, low=b, high_rank=ra, low_rank=rb))
        else:
            out.append(Setting(high=b, low=a, high_rank=rb, low_rank=ra))
    return out[0], out[1], out[2]


# ---------------------------------------------------------------------------------------
# Comparison and settlement
# ---------------------------------------------------------------------------------------


def compare(
    *,
    player_high: HandRank | Sequence[Tile],
    player_low: HandRank | Sequence[Tile],
    banker_high: HandRank | Sequence[Tile],
    banker_low: HandRank | Sequence[Tile],
) -> Outcome:
    """A set hand against the banker's (hands as tiles or as ranks), fouls aside.

    Seed 003: J, a win when the high hand ranks higher than the banker's high hand and the
    low hand higher than the banker's low hand; H, a loss when the high hand is identical in
    rank (a copy) or lower and the low hand is identical, lower, or of value zero; I, a push
    otherwise (one hand higher, the other a copy, lower, or a low hand of value zero).
    REFERENCE.md 3.3, 6a.16: copies go to the banker, zero against zero is a copy, a player's
    zero low hand never wins.
    """
    p_low = _as_rank(player_low)
    high_won = _as_rank(player_high) > _as_rank(banker_high)
    low_won = p_low > _as_rank(banker_low) and not p_low.is_zero
    if high_won and low_won:
        return Outcome.WIN
    if not high_won and not low_won:
        return Outcome.LOSS
    return Outcome.PUSH


OPTION_VIGORISH_AT_MOST_WIN = "vigorish_at_most_win"
"""Ruleset option (true/false): whether the vigorish is capped at the win. Seed 003 K allows
rounding 5% up to 25 cents, which on a win under 25 cents would take more than was won; the
shipped ruleset caps it at the win (a 1-cent win pays vigorish 1, net 0), which stays within
the lawful range of 6a.2 (from the exact 5% to the rounded-up amount)."""

def _int(name: str, value: object) -> int:
    if type(value) is not int:
        raise MoneyError(f"{name} must be integer cents, got {value!r}")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Settlement:
    """What a wager's outcome is worth to its holder: ``net_cents`` (after vigorish) and the
    ``commission_cents`` (vigorish) the house collected."""

    outcome: Outcome
    net_cents: int
    commission_cents: int

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, Outcome) or self.outcome is Outcome.VOID:
            raise MoneyError(f"pai gow tiles voids no wager: outcome must be a win, loss or "
                             f"push, got {self.outcome!r}")
        net = _int("net_cents", self.net_cents)
        commission = _int("commission_cents", self.commission_cents)
        if commission < 0:
            raise MoneyError(f"commission_cents must not be negative, got {commission}")
        if self.outcome is not Outcome.WIN and commission:
            raise MoneyError(f"no vigorish on a {self.outcome} (seed 003 K), got {commission}")
        if self.outcome is Outcome.LOSS and net > 0:
            raise MoneyError(f"a loss cannot have a positive net, got {net}")
        if self.outcome is Outcome.PUSH and net:
            raise MoneyError(f"a push has a net of 0, got {net}")


def vigorish(win_cents: int, ruleset: Ruleset) -> int:
    """The vigorish on a win (seed 003 K; REFERENCE.md 6, 6a.2): the ruleset's commission
    (5% rounded up to the next 25 cents in the shipped ruleset: a $7 win pays 50 cents), at
    most the win when the ruleset's ``vigorish_at_most_win`` option says so."""
    vig = ruleset.commission.on(win_cents)
    capped = ruleset.option(OPTION_VIGORISH_AT_MOST_WIN)
    if type(capped) is not bool:
        raise RulesetError(
            f"ruleset {ruleset.id}: option {OPTION_VIGORISH_AT_MOST_WIN} must be true or "
            f"false, got {capped!r}"
        )
    return min(vig, win_cents) if capped else vig


def settle_main(*, amount_cents: int, outcome: Outcome, ruleset: Ruleset) -> Settlement:
    """The main wager's settlement (seed 003 K): a win pays 1:1 less :func:`vigorish` (a
    2500 win: net 2375, vigorish 125); a loss loses the amount (H); a push returns it (I,
    net 0). No vigorish on pushes or losses."""
    amount = _int("amount_cents", amount_cents)
    if amount < 0:
        raise MoneyError(f"amount_cents must not be negative, got {amount}")
    if outcome is Outcome.WIN:
        vig = vigorish(amount, ruleset)
        return Settlement(outcome=outcome, net_cents=amount - vig, commission_cents=vig)
    if outcome is Outcome.LOSS:
        return Settlement(outcome=outcome, net_cents=-amount, commission_cents=0)
    if outcome is Outcome.PUSH:
        return Settlement(outcome=outcome, net_cents=0, commission_cents=0)
    raise MoneyError(f"pai gow tiles voids no wager: outcome must be a win, loss or push, "
                     f"got {outcome!r}")


# ---------------------------------------------------------------------------------------
# House way (seed 003 D, completed)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWayRule:
    """One rule of a tiles house way. ``plays`` says which of the three settings the rule
    may play; when some may, the one with the highest ``prefer`` is played (the first of
    :func:`settings` on equal preference: those are settings of identical ranks). ``clause``
    cites seed 003 D or names the completion (C1-C6, see :data:`HOUSE_WAY_PR_11_2_D`)."""

    name: str
    clause: str
    text: str
    plays: Callable[[Setting], bool] = field(repr=False, compare=False)
    prefer: Callable[[Setting], tuple[int, ...]] = field(repr=False, compare=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWay:
    """A house way: rules tried in order; the first that may play some setting sets the
    hand (seed 003 D; E: each casino submits its own and its exceptions). ``completions``
    are the decisions, (id, text), taken where the written rules are silent."""

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
    specials = (s.high_rank.hand_class in _SPECIAL) + (s.low_rank.hand_class in _SPECIAL)
    return (specials, s.high_rank.key, s.low_rank.key)


def _plays_supreme_pair(s: Setting) -> bool:
    return s.high_rank.hand_class is HandClass.GEE_JOON


def _plays_pair_wong_gong(s: Setting) -> bool:
    return s.high_rank.hand_class in _SPECIAL


NINE_EIGHT_SEVEN: tuple[int, ...] = (9, 8, 7)
"""Seed 003 D.3: the values of a two-tile hand the dealer plays together."""


def _plays_nine_eight_seven(s: Setting) -> bool:
    return s.high_rank.hand_class is HandClass.POINTS and s.high_rank.points in NINE_EIGHT_SEVEN


def _tile_order(t: Tile) -> tuple[int, int]:
    """Highest-ranked first (6a.15); among equals, the first in FACES order (C6)."""
    return (-_SINGLE_RANK[t], t.index)


def _plays_highest_with_lowest(s: Setting) -> bool:
    four = s.high + s.low
    pair = canonical((min(four, key=_tile_order), max(four, key=_tile_order)))
    return pair in (s.high, s.low)


HOUSE_WAY_PR_11_2_D = HouseWay(
    name="pr-11.2-d",
    title="Seed 003 (PR Seccion 11.2) paragraph D, the dealer's four rules, completed where "
          "the text is silent",
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
        ("C1", "Single tiles rank in the order of REFERENCE.md 6a.15; the two Gee Joon tiles "
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
"""The shipped tiles house way: seed 003 paragraph D (the same four rules as 58 Pa. Code
621a.8(d), REFERENCE.md 3.4), tried in order, with the completions C1-C6 where the text is
silent (``HOUSE_WAY_PR_11_2_D.completions``, printed in the golden file's header too)."""


HOUSE_WAYS: Mapping[str, HouseWay] = MappingProxyType(
    {HOUSE_WAY_PR_11_2_D.name: HOUSE_WAY_PR_11_2_D}
)
"""Tiles house ways by name, as a ruleset's ``house_way`` option names them."""


def house_way_setting(
    tiles4: Sequence[Tile], *, way: HouseWay = HOUSE_WAY_PR_11_2_D
) -> HouseWaySetting:
    """The house way's setting of four tiles, with the rule that chose it (seed 003 D,
    completed: see :data:`HOUSE_WAY_PR_11_2_D`). Never a foul; the same for any order of the
    same tiles."""
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
    """Every setting of four tiles that the written house way allows (seed 003 C, D): those
    the first rule that applies plays (:attr:`HouseWayRule.plays`), the way round that does
    not foul. Where the text leaves a choice, every choice is allowed: D.3 plays "any" two
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
    way (seed 003 C, D): a setting conforms when the written house way allows it
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


# ---------------------------------------------------------------------------------------
# Round documents (issue 3)
# ---------------------------------------------------------------------------------------

MAIN = "main"
"""The one wager of pai gow tiles (seed 003 K)."""
PLAY = "play"
WITHDRAW = "withdraw"
"""Seed 003 F: a player may withdraw after the dealer has set; the wager is collected."""

_DOCUMENT_KEYS = frozenset(
    {"round_id", "game", "ruleset", "banker", "progressive_meter", "dealer", "seats"}
)
_DEALER_KEYS = frozenset({"tiles", "high", "low", "wager"})
_SEAT_KEYS = frozenset({"seat", "tiles", "high", "low", "action", "wagers"})
_WAGERS = frozenset({MAIN})
_SET_KEYS = frozenset({"tiles", "high", "low"})


@dataclass(frozen=True, slots=True, kw_only=True)
class TilesHolding:
    """What a seat or the dealer held: ``tiles`` dealt (None for a withdrawn seat whose
    tiles were collected unseen, seed 003 F.2) and the hands as set (None when not set)."""

    who: str
    tiles: tuple[Tile, ...] | None
    high: tuple[Tile, ...] | None = None
    low: tuple[Tile, ...] | None = None

    @property
    def set_correctly(self) -> bool:
        """True when the hands were set 2+2 (seed 003 A: a high hand and a low hand, "una
        mano mayor y una mano menor", of two tiles each). Hands set otherwise from the tiles
        dealt (three and one, say) were not set correctly: a player's wager loses
        (REFERENCE.md 6a.16 "a fouled tiles hand loses"; as 58 Pa. Code § 688a.7(f)(1)(iv)
        for the pai gow poker games), and the result reports a foul."""
        return (self.high is not None and self.low is not None
                and len(self.high) == HAND_TILES and len(self.low) == HAND_TILES)

    @property
    def setting(self) -> Setting | None:
        """The hands as set, or None when they were not set, or not set 2+2."""
        if self.high is None or self.low is None or not self.set_correctly:
            return None
        return set_hands(self.high, self.low)


@dataclass(frozen=True, slots=True, kw_only=True)
class TilesSeat:
    """A seat of a round document: its number, holding, action and wagers."""

    seat: int
    holding: TilesHolding
    action: str
    wagers: Mapping[str, int]

    def __post_init__(self) -> None:
        if self.action not in (PLAY, WITHDRAW):
            raise DocumentError(f"seat {self.seat} action must be 'play' or 'withdraw', "
                                f"got {self.action!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class TilesRound:
    """A pai gow tiles round document as values (seats in the document's order)."""

    round_id: str
    dealer: TilesHolding
    seats: tuple[TilesSeat, ...]
    banker: PlayerBanker | None = None
    dealer_wager_cents: int = 0


def read_tiles(value: object, where: str, *, count: int | None) -> tuple[Tile, ...]:
    """A list of tile tokens (``["6-6", "2-4"]``) of ``count`` tiles (None: any number);
    DocumentError names ``where``, the bad token and its place."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise DocumentError(f"{where} must be a list of tiles like ['6-6', '2-4'], got {value!r}")
    out = []
    for i, token in enumerate(value):
        try:
            out.append(parse_tile(token))
        except TileError as exc:
            raise DocumentError(f"{where}[{i}]: {exc}") from None
    if count is not None and len(out) != count:
        raise DocumentError(f"{where} must hold {count} tiles, got {len(out)}: "
                            f"{render_tiles(out)!r}")
    return tuple(out)


def _holding(obj: Mapping[str, Any], who: str, *, tiles_required: bool) -> TilesHolding:
    tiles = None
    if tiles_required or not _SET_KEYS.isdisjoint(obj):
        tiles = read_tiles(read_field(obj, "tiles", who), f"{who} tiles", count=HAND_SIZE)
    if "high" not in obj and "low" not in obj:
        return TilesHolding(who=who, tiles=tiles)
    if "high" not in obj or "low" not in obj:
        missing = "high" if "high" not in obj else "low"
        raise DocumentError(f"{who} sets a hand without its {missing!r} hand")
    return TilesHolding(
        who=who, tiles=tiles,
        high=read_tiles(obj["high"], f"{who} high", count=None),
        low=read_tiles(obj["low"], f"{who} low", count=None),
    )


def _seat(value: object, index: int) -> TilesSeat:
    doc = mapping(value, f"seats[{index}]", _SEAT_KEYS)
    number = seat_number(read_field(doc, "seat", f"seats[{index}]"), f"seats[{index}].seat")
    who = f"seat {number}"
    action = doc.get("action", PLAY)
    if action not in (PLAY, WITHDRAW):
        raise DocumentError(
            f"{who} action {action!r}: a pai gow tiles seat plays ({PLAY!r}) or withdraws "
            f"({WITHDRAW!r}, seed 003 F)"
        )
    return TilesSeat(
        seat=number,
        holding=_holding(doc, who, tiles_required=action == PLAY),
        action=action,
        wagers=wagers(doc.get("wagers", {}), f"{who} wagers", _WAGERS),
    )


def _set_problems(h: TilesHolding, *, compared: bool = False) -> list[str]:
    """The problems of a holding's set hands: a tile set but not dealt, or set more times
    than dealt (then also the tiles dealt but not set, and the count of the hands). Hands
    set other than 2+2 from the tiles dealt are a fact of play, judged as not set correctly
    (:attr:`TilesHolding.set_correctly`), unless every seat is ``compared`` with them (the
    dealer's, a player banker's): those cannot be compared."""
    if h.tiles is None or h.high is None or h.low is None:
        return []
    dealt, used = Counter(h.tiles), Counter(h.high + h.low)
    problems = []
    for tile in canonical(used - dealt):
        if not dealt[tile]:
            problems.append(f"{h.who} set tile {tile} in a hand but was not dealt it "
                            f"(dealt {render_tiles(h.tiles)})")
        else:
            times = "time" if dealt[tile] == 1 else "times"
            problems.append(f"{h.who} set tile {tile} {used[tile]} times but was dealt it "
                            f"{dealt[tile]} {times} (dealt {render_tiles(h.tiles)})")
    if problems:
        problems += [
            f"{h.who} was dealt tile {tile} but did not set it (set "
            f"{render_tiles(h.high)} / {render_tiles(h.low)})"
            for tile in canonical(dealt - used)
        ]
    if not h.set_correctly and (compared or problems):
        why = (f": every seat's hands are compared with them, so they must be set "
               f"{HAND_TILES}+{HAND_TILES}" if compared else "")
        problems.append(f"{h.who} set {len(h.high)}+{len(h.low)} tiles, not "
                        f"{HAND_TILES}+{HAND_TILES} ({render_tiles(h.high)} / "
                        f"{render_tiles(h.low)}){why}")
    return problems


def read_document(doc: Mapping[str, Any]) -> TilesRound:
    """A pai gow tiles round document (issue 3, "Round document") as a :class:`TilesRound`.

    DocumentError names the field and the bad value: a malformed document (not an object, a
    missing or unknown key, a value of the wrong type), an unknown tile token, other than
    four tiles dealt, a seat action other than ``play`` or ``withdraw``, a wager other than
    ``main``; and then, all at once (STYLE.md 7): a set hand holding a tile not dealt (or
    more often than dealt: naming the seat and the tile), the dealer's or the banker seat's
    hands set other than 2+2 (every seat is compared with them), a tile dealt more times
    than the 32-tile set holds (two of each of 11 faces, one of 10: naming the tile and the
    seats), a seat number used twice, a hand with a main wager not set, a banker seat that
    is not at the table, withdraws or has not set its hand, a dealer wager in a
    dealer-banked round.

    A player's hands set other than 2+2 from the tiles dealt (three and one, say) are a fact
    of play, not bad input: they are read, and the judge has the wager lose
    (:attr:`TilesHolding.set_correctly`).
    """
    top, round_id = round_header(doc, GAME, _DOCUMENT_KEYS)
    if "progressive_meter" in top:
        cents(top["progressive_meter"], "progressive_meter")
    banker = read_banker(top.get("banker", DEALER))
    dealer_doc = mapping(read_field(top, "dealer", "the round document"), "dealer",
                         _DEALER_KEYS)
    dealer = _holding(dealer_doc, "dealer", tiles_required=True)
    dealer_wager = cents(dealer_doc.get("wager", 0), "dealer wager")
    seats = tuple(_seat(value, i) for i, value in enumerate(seat_list(top)))

    problems: list[str] = []
    if dealer.high is None:
        problems.append("the dealer's hand was not set (seed 003 C: the dealer sets a high "
                        "and a low hand)")
    numbers = Counter(seat.seat for seat in seats)
    problems += [f"seat {n} appears {k} times" for n, k in sorted(numbers.items()) if k > 1]
    banker_seat = banker.seat if banker is not None else None
    if banker is None and dealer_wager:
        problems.append(f"dealer wager {dealer_wager}: the dealer wagers only against a "
                        f"player banker (REFERENCE.md 6a.14); this round is dealer-banked")
    if banker_seat is not None and banker_seat not in numbers:
        problems.append(f"banker seat {banker_seat} is not at the table (seats "
                        f"{', '.join(str(s.seat) for s in seats) or 'none'})")
    for seat in seats:
        who = seat.holding.who
        if seat.seat == banker_seat and seat.action == WITHDRAW:
            problems.append(f"{who} banks the round and cannot withdraw")
        elif seat.holding.high is None and seat.action == PLAY and (
            seat.seat == banker_seat or seat.wagers.get(MAIN, 0) > 0
        ):
            problems.append(f"{who} plays " + ("as the banker" if seat.seat == banker_seat
                                               else f"a main wager of {seat.wagers[MAIN]}")
                            + " but its hand was not set (no 'high' and 'low')")
    problems += _set_problems(dealer, compared=True)
    for seat in seats:
        problems += _set_problems(seat.holding, compared=seat.seat == banker_seat)
    dealt_by: dict[Tile, list[str]] = {}
    for holding in (dealer, *(seat.holding for seat in seats)):
        for tile in holding.tiles or ():
            dealt_by.setdefault(tile, []).append(holding.who)
    problems += [
        f"tile {tile} is dealt {len(places)} times ({', '.join(places)}); the set holds "
        f"{tile.copies}"
        for tile, places in sorted(dealt_by.items(), key=lambda item: item[0].index)
        if len(places) > tile.copies
    ]
    if problems:
        raise DocumentError("; ".join(problems))
    return TilesRound(round_id=round_id, dealer=dealer, seats=seats, banker=banker,
                      dealer_wager_cents=dealer_wager)


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerResult:
    """The dealer's hand as set: ``foul`` (reported, and compared as set: REFERENCE.md
    6a.7), whether it follows the house way, and what the house way sets."""

    setting: Setting
    foul: bool
    house_way: bool
    house_way_setting: HouseWaySetting


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatResult:
    """A seat's judgement: ``foul`` (None when its hands were not set or not shown: a
    withdrawn seat's tiles are collected unseen, seed 003 F.2; True too when they were not
    set 2+2, ``setting`` then None) and the main wager's
    :class:`Settlement` (None when there is none or it is zero, 6a.18, or when the seat
    banks, 6a.14)."""

    seat: int
    foul: bool | None
    main: Settlement | None
    setting: Setting | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TilesJudgement:
    """The judgement of a round document; :meth:`as_dict` is the issue's result object."""

    round_id: str
    ruleset_id: str
    dealer: DealerResult
    dealer_main: Settlement | None
    seats: tuple[SeatResult, ...]
    banker: BankerResult | None

    def as_dict(self) -> dict[str, Any]:
        """The result object (issue 3, "Result"), keys in the issue's order; seats by seat
        number; wagers of zero or absent, and the banker seat's own, left out (6a.18,
        6a.14)."""
        return result_object(
            round_id=self.round_id, ruleset_id=self.ruleset_id,
            dealer=dealer_entry(foul=self.dealer.foul, house_way=self.dealer.house_way,
                                net=self.dealer_main.net_cents if self.dealer_main else 0),
            seats=[seat_entry(seat.seat, seat.foul,
                              {} if seat.main is None else {MAIN: settled_entry(seat.main)})
                   for seat in self.seats],
            banker=self.banker.as_dict() if self.banker else None,
        )


def judge_round(round: TilesRound, ruleset: Ruleset) -> TilesJudgement:
    """Judge a round read by :func:`read_document` under ``ruleset``.

    The banker's hands are the dealer's, or the banker seat's in a player-banked round
    (REFERENCE.md 6a.14 by analogy). Each other seat's main wager: a withdrawn seat loses it
    (seed 003 F.1: the dealer collects it at once; 6a.16); a fouled hand loses (6a.16), and
    so do hands not set 2+2 (:attr:`TilesHolding.set_correctly`), reported as a foul;
    otherwise :func:`compare` (seed 003 H, I, J) and :func:`settle_main` (K: 1:1 less the
    ruleset's vigorish, paid by each winner). The dealer's hand is reported as a foul or not
    and compared as set (6a.7), and checked against the ruleset's house way (seed 003 D).

    Against a player banker the dealer plays its own wager with the same comparison (copies
    to the banker, a zero low hand never wins) and pays no vigorish on a win
    (:func:`~replay.games.pai_gow_banking.dealer_wager_net`); the banker's account is
    :func:`~replay.games.pai_gow_banking.banker_account` with :func:`vigorish` on a positive
    share (6a.14), the ruleset's ``vigorish_at_most_win`` included.
    """
    if ruleset.game != GAME:
        raise DocumentError(f"ruleset {ruleset.id} is for game {ruleset.game!r}, not {GAME!r}")
    way = HOUSE_WAYS.get(ruleset.house_way)
    if way is None:
        raise DocumentError(f"ruleset {ruleset.id} names house way {ruleset.house_way!r}; "
                            f"known for {GAME}: {', '.join(sorted(HOUSE_WAYS))}")
    d = round.dealer
    assert d.tiles is not None and d.high is not None and d.low is not None
    dealer_setting = set_hands(d.high, d.low)
    dealer = DealerResult(
        setting=dealer_setting, foul=dealer_setting.foul,
        house_way=follows_house_way(d.tiles, d.high, d.low, way=way),
        house_way_setting=house_way_setting(d.tiles, way=way),
    )
    banker_seat = round.banker.seat if round.banker is not None else None
    banker_setting = dealer_setting
    for seat in round.seats:
        if seat.seat == banker_seat:
            found = seat.holding.setting
            assert found is not None
            banker_setting = found

    def outcome(setting: Setting) -> Outcome:
        if setting.foul:
            return Outcome.LOSS
        return compare(player_high=setting.high_rank, player_low=setting.low_rank,
                       banker_high=banker_setting.high_rank, banker_low=banker_setting.low_rank)

    results = []
    for seat in sorted(round.seats, key=lambda s: s.seat):
        amount = seat.wagers.get(MAIN, 0)
        if seat.action == WITHDRAW:
            main = None if amount == 0 else settle_main(
                amount_cents=amount, outcome=Outcome.LOSS, ruleset=ruleset)
            results.append(SeatResult(seat=seat.seat, foul=None, main=main))
            continue
        if seat.holding.high is not None and not seat.holding.set_correctly:
            # not set 2+2 (never the banker's: read_document): the wager loses, as a foul
            main = None if amount == 0 or seat.seat == banker_seat else settle_main(
                amount_cents=amount, outcome=Outcome.LOSS, ruleset=ruleset)
            results.append(SeatResult(seat=seat.seat, foul=True, main=main))
            continue
        setting = seat.holding.setting
        if setting is None:
            results.append(SeatResult(seat=seat.seat, foul=None, main=None))
            continue
        main = None
        if amount > 0 and seat.seat != banker_seat:
            main = settle_main(amount_cents=amount, outcome=outcome(setting), ruleset=ruleset)
        results.append(SeatResult(seat=seat.seat, foul=setting.foul, main=main,
                                  setting=setting))
    dealer_main = None
    banker = None
    if round.banker is not None:
        if round.dealer_wager_cents:
            result = compare(player_high=dealer_setting.high_rank,
                             player_low=dealer_setting.low_rank,
                             banker_high=banker_setting.high_rank,
                             banker_low=banker_setting.low_rank)
            dealer_main = Settlement(
                outcome=result, net_cents=dealer_wager_net(result, round.dealer_wager_cents),
                commission_cents=0,
            )
        banker = banker_account(
            banker=round.banker, players=[s.main for s in results if s.main is not None],
            dealer_net=dealer_main.net_cents if dealer_main else 0, ruleset=ruleset,
            commission=lambda win_cents: vigorish(win_cents, ruleset),
        )
    return TilesJudgement(round_id=round.round_id, ruleset_id=ruleset.id, dealer=dealer,
                          dealer_main=dealer_main, seats=tuple(results), banker=banker)


def judge_document(doc: Mapping[str, Any], ruleset: Ruleset) -> dict[str, Any]:
    """The result object for a pai gow tiles round document (issue 3): :func:`read_document`,
    then :func:`judge_round`, as :meth:`TilesJudgement.as_dict`."""
    return judge_round(read_document(doc), ruleset).as_dict()


def four_tile_hands() -> tuple[tuple[tuple[Tile, ...], int], ...]:
    """Every distinct four-tile hand of the 32-tile set, as (tiles in :func:`canonical`
    order, how many of the C(32, 4) = 35,960 physical combinations have those faces), in
    the order of ``combinations_with_replacement`` over :data:`replay.tiles.FACES`. The
    multiplicities sum to 35,960 (REFERENCE.md 5, figure 5)."""
    out = []
    for faces in combinations_with_replacement(FACES, HAND_SIZE):
        counts = Counter(faces)
        if any(n > tile.copies for tile, n in counts.items()):
            continue
        ways = 1
        for tile, n in counts.items():
            ways *= _choose(tile.copies, n)
        out.append((faces, ways))
    return tuple(out)


def _choose(n: int, k: int) -> int:
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result


RULES = GameRules(
    name=GAME,
    title="Pai gow tiles (house way, withdrawal, vigorish rounded to 25 cents)",
    deck=TILES_32,
    citation="REFERENCE.md 3, 6, 6a.2, 6a.14-6a.16; seed 003 (PR Seccion 11.2)",
    judge_document=judge_document,
    option_names=BANKING_OPTION_NAMES | {OPTION_VIGORISH_AT_MOST_WIN},
)
