"""Pai gow tiles hand ranks: the rank of a two-tile hand and the foul (docs/rules.md 3.2,
3.3, 6a.15, 6a.16 and Words ("foul")).

What this module decides, each with the rule it implements:

- the rank of a two-tile hand (:func:`rank_hand`): the Gee Joon pair, then the pairs in the
  order of 3.2, then wong (Teen wong above Day wong), gong, then points; a lone Gee Joon tile
  counts 3 or 6, whichever is better; equal points go to the hand with the higher single
  tile; equal again is a copy; every zero is a copy. Ranks are totally ordered by an integer
  key and equal keys are copies;
- a tile's place in the single-tile order (:func:`single_rank`; 6a.15);
- whether a high hand ranks below its low hand (:func:`is_foul`).

The ranking is data (:data:`SINGLE_TILE_ORDER`, :data:`PAIR_ORDER` ...). Nothing here does
I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from replay.errors import HandError, ReplayError
from replay.tiles import FACES, Tile, parse_tile

HAND_TILES = 2
"""Tiles in a high or a low hand."""

SINGLE_TILE_ORDER: tuple[tuple[Tile, ...], ...] = tuple(
    tuple(parse_tile(t) for t in group.split())
    for group in (
        "6-6", "1-1", "4-4", "1-3", "5-5", "3-3", "2-2", "5-6", "4-6", "1-6", "1-5",
        "3-6 4-5", "2-6 3-5", "3-4 2-5", "1-4 2-3", "2-4 1-2",
    )
)
"""docs/rules.md 6a.15, highest first: Teen, Day, Yun, Gor, Mooy, Chong, Bon, Foo, Ping, Tit,
Look, the 9s, the 8s, the 7s, the 5s, and the Gee Joon tiles lowest. Tiles in one group rank
equally ("tiles of equal pips in the mixed groups rank equally"; the two Gee Joon tiles are
listed together as the lowest, so they rank equally too: completion C1)."""

SUPREME_PAIR: tuple[Tile, Tile] = (parse_tile("2-4"), parse_tile("1-2"))
"""Gee Joon, the Supreme Pair: the 2-4 and 1-2 tiles (docs/rules.md 3.2; PR pai gow tiles
¶ D.1)."""

PAIR_ORDER: tuple[tuple[Tile, Tile], ...] = tuple(
    (parse_tile(a), parse_tile(b))
    for a, b in (
        ("6-6", "6-6"), ("1-1", "1-1"), ("4-4", "4-4"), ("1-3", "1-3"), ("5-5", "5-5"),
        ("3-3", "3-3"), ("2-2", "2-2"), ("5-6", "5-6"), ("4-6", "4-6"), ("1-6", "1-6"),
        ("1-5", "1-5"), ("3-6", "4-5"), ("2-6", "3-5"), ("3-4", "2-5"), ("1-4", "2-3"),
    )
)
"""The 15 pairs below Gee Joon, highest first (docs/rules.md 3.2): Teen, Day, Yun, Gor, Mooy,
Chong, Bon, Foo, Ping, Tit, Look, then the mixed 9s (6-3/5-4), 8s (6-2/5-3), 7s (4-3/5-2)
and 5s (4-1/3-2). Two tiles that are not one of these (or Gee Joon) are not a pair, even of
equal pips (Mooy 5-5 and Ping 4-6 are both ten)."""

WONG_GONG_TILES: tuple[Tile, ...] = (parse_tile("6-6"), parse_tile("1-1"))
"""Teen and Day: with a 9 they make a wong, with an 8 a gong (docs/rules.md 3.2;
docs/rules.md, Words ("wong", "gong"))."""
WONG_PIPS = 9
"""A wong is Teen or Day with a tile of nine pips (the mixed 9s)."""
GONG_PIPS = 8
"""A gong is Teen or Day with a tile of eight pips (Yun 4-4 or a mixed 8)."""
GEE_JOON_VALUES: tuple[int, ...] = (3, 6)
"""What a lone Gee Joon tile may count (docs/rules.md 3.2, NZ rule 4.2; 6a.16: "whichever is
better")."""
POINTS_BASE = 10
"""A hand's value is the units digit of its pips (docs/rules.md 3.3: sum mod 10)."""


class HandClass(StrEnum):
    """The classes of a two-tile hand, best first (docs/rules.md 6a.16). The value is the
    stable name; compare hands by :class:`HandRank`, never by this value."""

    GEE_JOON = "gee_joon"
    PAIR = "pair"
    WONG = "wong"
    GONG = "gong"
    POINTS = "points"


SPECIAL_CLASSES = frozenset(
    {HandClass.GEE_JOON, HandClass.PAIR, HandClass.WONG, HandClass.GONG}
)
"""The classes above every point hand: Gee Joon, a pair, a wong, a gong."""


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
    """A tile's place in the single-tile order (docs/rules.md 6a.15): 15 for Teen down to 0
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
    (docs/rules.md 3.3, 6a.16).

    ``hand_class`` is the class; ``points`` the hand's value (docs/rules.md 3.3: pips mod 10,
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
        """True for a point hand of value zero (PR pai gow tiles ¶ H, I: "tiene un valor de
        cero"). A pair, wong or gong whose pips end in 0 (Mooy pair, a gong) is not a zero hand: it
        ranks as what it is (docs/rules.md 3.2)."""
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
    """docs/rules.md 3.3 and 6a.16: pips mod 10; a lone Gee Joon tile counts 3 or 6,
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
    """The rank of a two-tile hand (docs/rules.md 3.2, 3.3, 6a.15, 6a.16); a table lookup.

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
    """True when the high hand ranks below the low hand (docs/rules.md, Words ("foul");
    docs/rules.md 6a.16: a fouled tiles hand loses). Equal ranks are not a foul."""
    return _as_rank(high) < _as_rank(low)


def describe_hand(tokens: Sequence[str]) -> str | None:
    """A two-tile hand in words from its tile tokens (``Gee Joon``, ``Teen wong``,
    ``9 points, Teen high``); None when the tokens are no such hand
    (``GameRules.describe_hand``)."""
    try:
        tiles = [parse_tile(token) for token in tokens]
    except (ReplayError, TypeError):
        return None
    return rank_hand(tiles).describe() if len(tiles) == HAND_TILES else None
