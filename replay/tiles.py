"""Pai gow tiles and their notation (docs/rules.md 3.2; docs/rules.md, Words: "Gee Joon",
"Teen, Day").

A tile is written by its two pips, the smaller first, joined by a hyphen: ``6-6`` (Teen),
``1-3`` (Gor), ``2-4`` (a Gee Joon tile). A list of tiles is written space separated
(``6-6 4-5 1-2 2-4``, what :func:`render_tiles` gives); :func:`parse_tiles` reads it back,
and ``parse_tiles(render_tiles(tiles)) == tiles`` for every tuple of tiles.

The 32-tile set (docs/rules.md 3.2) holds every one of the 21 faces a pair of dice can show:
two each of 11 faces and one each of the other 10. A tile here is a face: the two copies of a
doubled face are equal, because nothing in the game tells them apart. How many copies of a
face a hand or a round may hold is the rules engine's business, as is every rank; parsing is
notation only, so ``6-3 6-3`` parses.

The fixed order of :data:`FACES` and :data:`TILES_32` is the single-tile order of docs/rules.md
6a.15, highest first (Teen, Day, Yun, Gor, Mooy, Chong, Bon, Foo, Ping, Tit, Look, the mixed
nines, eights, sevens and fives, the Gee Joon tiles), the faces of a mixed group and the two
Gee Joon tiles in the order docs/rules.md 3.2 lists them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from replay.errors import ReplayError


class TileError(ReplayError, ValueError):
    """A tile token, or a list of tiles, that is not in the notation."""


_LOWEST_PIP = 1
_HIGHEST_PIP = 6

# (low pip, high pip, name, copies in the set), in the order of docs/rules.md 6a.15.
_FACE_DATA: tuple[tuple[int, int, str, int], ...] = (
    (6, 6, "Teen", 2),
    (1, 1, "Day", 2),
    (4, 4, "Yun", 2),
    (1, 3, "Gor", 2),
    (5, 5, "Mooy", 2),
    (3, 3, "Chong", 2),
    (2, 2, "Bon", 2),
    (5, 6, "Foo", 2),
    (4, 6, "Ping", 2),
    (1, 6, "Tit", 2),
    (1, 5, "Look", 2),
    (3, 6, "mixed nine", 1),
    (4, 5, "mixed nine", 1),
    (2, 6, "mixed eight", 1),
    (3, 5, "mixed eight", 1),
    (3, 4, "mixed seven", 1),
    (2, 5, "mixed seven", 1),
    (1, 4, "mixed five", 1),
    (2, 3, "mixed five", 1),
    (2, 4, "Gee Joon", 1),
    (1, 2, "Gee Joon", 1),
)
_FACE_INDEX: Mapping[tuple[int, int], int] = MappingProxyType(
    {(low, high): i for i, (low, high, _, _) in enumerate(_FACE_DATA)}
)
_EXPECTED = "expected two pips from 1 to 6 joined by '-', the smaller first (e.g. '1-3')"
_TOKEN = re.compile(r"([1-6])-([1-6])")


@dataclass(frozen=True, slots=True, kw_only=True)
class Tile:
    """One pai gow tile, by its pips: ``low`` <= ``high``, each from 1 to 6 (docs/rules.md 3.2).

    ``index`` is the face's position in :data:`FACES` (0 for Teen up to 20 for the 1-2 Gee
    Joon tile), filled in on construction; it is not part of equality and serves fast table
    lookups and a deterministic sort (``key=lambda t: t.index``, highest tile first). Tiles
    do not define ``<``: which tile ranks higher is a rule of the game
    (``replay.games.pai_gow_tiles``).
    """

    low: int
    high: int
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("low", "high"):
            pip = getattr(self, name)
            if type(pip) is not int or not _LOWEST_PIP <= pip <= _HIGHEST_PIP:
                raise TileError(f"tile {name} pip must be an integer from 1 to 6, got {pip!r}")
        if self.low > self.high:
            raise TileError(
                f"a tile is written smaller pip first: {self.high}-{self.low}, "
                f"not {self.low}-{self.high}"
            )
        object.__setattr__(self, "index", _FACE_INDEX[(self.low, self.high)])

    def __hash__(self) -> int:
        return self.index

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def __repr__(self) -> str:
        return f"parse_tile({str(self)!r})"

    @property
    def pips(self) -> int:
        """The number of spots on the tile (docs/rules.md 3.3 sums these, mod 10)."""
        return self.low + self.high

    @property
    def name(self) -> str:
        """The tile's name (docs/rules.md 3.2): ``Teen``, ``Day``, ..., ``Look``, ``mixed
        nine`` (6-3 or 5-4), ``mixed eight``, ``mixed seven``, ``mixed five``, ``Gee Joon``."""
        return _FACE_DATA[self.index][2]

    @property
    def copies(self) -> int:
        """How many of this tile the 32-tile set holds: 2 or 1 (docs/rules.md 3.2)."""
        return _FACE_DATA[self.index][3]

    @property
    def is_gee_joon(self) -> bool:
        """True for the 1-2 and 2-4 tiles, the Supreme Pair (docs/rules.md 3.2;
        58 Pa. Code § 621a.1)."""
        return _FACE_DATA[self.index][2] == "Gee Joon"


FACES: tuple[Tile, ...] = tuple(Tile(low=low, high=high) for low, high, _, _ in _FACE_DATA)
"""The 21 faces of the tile set, one each, highest single tile first (docs/rules.md 6a.15):
``6-6 1-1 4-4 1-3 5-5 3-3 2-2 5-6 4-6 1-6 1-5 3-6 4-5 2-6 3-5 3-4 2-5 1-4 2-3 2-4 1-2``.
``FACES[i].index == i``."""

TILES_32: tuple[Tile, ...] = tuple(face for face in FACES for _ in range(face.copies))
"""The 32-tile set (docs/rules.md 3.2): the faces of :data:`FACES` in that order, the two
copies of each doubled face next to each other (``6-6 6-6 1-1 1-1 ... 2-4 1-2``)."""

COPIES: Mapping[Tile, int] = MappingProxyType({face: face.copies for face in FACES})
"""How many of each tile the set holds: 2 for the 11 doubled faces, 1 for the other 10."""

_BY_TOKEN: Mapping[str, Tile] = MappingProxyType({str(face): face for face in FACES})


def parse_tile(text: str) -> Tile:
    """The tile written ``text`` (``6-6``, ``1-3``, ``2-4``); :class:`TileError` names a bad
    token, and for one written larger pip first (``4-2``) says how to write it."""
    tile = _BY_TOKEN.get(text) if isinstance(text, str) else None
    if tile is not None:
        return tile
    match = _TOKEN.fullmatch(text) if isinstance(text, str) else None
    if match is not None:
        raise TileError(
            f"bad tile token {text!r}: write the smaller pip first, "
            f"'{match.group(2)}-{match.group(1)}'"
        )
    raise TileError(f"bad tile token {text!r}: {_EXPECTED}")


def parse_tiles(text: str) -> tuple[Tile, ...]:
    """The tiles written in ``text``, separated by white space (``6-6 4-5 1-2``).

    The empty string gives no tiles. A bad token raises :class:`TileError` naming the token,
    its tile number (from 1) and the text.
    """
    if not isinstance(text, str):
        raise TileError(f"tiles must be given as text, got {text!r}")
    tiles = []
    for number, token in enumerate(text.split(), start=1):
        try:
            tiles.append(parse_tile(token))
        except TileError as exc:
            raise TileError(f"{exc} (tile {number} of {text!r})") from None
    return tuple(tiles)


def render_tiles(tiles: Iterable[Tile], *, sep: str = " ") -> str:
    """The notation of ``tiles``: ``6-6 4-5 1-2``."""
    out = []
    for tile in tiles:
        if not isinstance(tile, Tile):
            raise TileError(f"not a tile: {tile!r}")
        out.append(str(tile))
    return sep.join(out)
