"""Reading a casino's house-way file (docs/house-way.md) from disk, and linking a ruleset to
it: the ruleset's ``house_way`` option names a file ending in ``.way``, resolved in the folder
of the ruleset's JSON file (:func:`house_way_for_ruleset`, called by
:func:`replay.rulesets.ruleset_from_dict` when it is given ``base``).

The read is bounded and refuses what is not a small regular text file (a missing file, a
directory, a FIFO, which it never blocks on, binary bytes, a huge file), each with a message
naming the file. Parsing is the pure work of ``replay.games`` (:func:`parse_house_way`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from replay.errors import RulesetError
from replay.games.house_way_text import HouseWayFormatError, read_way_text
from replay.games.pai_gow_house_way_words import GAME as POKER
from replay.games.pai_gow_house_way_words import HouseWay as PokerHouseWay
from replay.games.pai_gow_house_way_words import parse_poker_house_way
from replay.games.pai_gow_tiles_house_way_words import GAME as TILES
from replay.games.pai_gow_tiles_house_way_words import HouseWay as TilesHouseWay
from replay.games.pai_gow_tiles_house_way_words import parse_tiles_house_way

HouseWaySpec = PokerHouseWay | TilesHouseWay
"""A parsed house way of either family."""
MAX_BYTES = 256 * 1024
"""The largest house-way file read (the shipped ones are under 8 KB)."""
WAY_GAMES = {"pai_gow_poker": POKER, "face_up_pai_gow": POKER, "pai_gow_tiles": TILES}
"""Which house-way ``game`` header each game's rulesets take (Face Up uses the poker way)."""
_PARSERS = (POKER, TILES)


def parse_house_way(text: str, *, source: str, game: str | None = None) -> HouseWaySpec:
    """The house way ``text`` writes, for the game its header names; with ``game`` (a game
    of :data:`WAY_GAMES`) a way for another game is refused. Errors name source, line, rule."""
    header = read_way_text(text, source=source)
    written = header.value("game")
    if written not in _PARSERS:
        raise HouseWayFormatError(
            f"{source} line {header.line_of('game')}: game {written!r} has no house way; "
            f"known: {', '.join(sorted(_PARSERS))}")
    if game is not None:
        wanted = WAY_GAMES.get(game)
        if wanted is None:
            raise HouseWayFormatError(
                f"{source}: game {game!r} sets no hands by a house way; games that do: "
                f"{', '.join(sorted(WAY_GAMES))}")
        if written != wanted:
            raise HouseWayFormatError(
                f"{source} line {header.line_of('game')}: a house way for {written}, but the "
                f"ruleset is for {game} (which takes game {wanted})")
    if written == POKER:
        return parse_poker_house_way(text, source=source)
    return parse_tiles_house_way(text, source=source)


def read_house_way_text(path: Path) -> str:
    """The text of the house-way file ``path``, read without blocking and at most
    :data:`MAX_BYTES`; :class:`HouseWayFormatError` names the file and what is wrong."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise HouseWayFormatError(f"{path}: no such house-way file") from None
    except OSError as exc:
        raise HouseWayFormatError(f"{path}: cannot be read: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise HouseWayFormatError(f"{path}: is a directory, not a house-way file")
    if not stat.S_ISREG(info.st_mode):
        raise HouseWayFormatError(f"{path}: not a regular file (a FIFO, socket or device)")
    if info.st_size > MAX_BYTES:
        raise HouseWayFormatError(
            f"{path}: {info.st_size:,} bytes; a house-way file is at most {MAX_BYTES:,}")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise HouseWayFormatError(f"{path}: cannot be read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise HouseWayFormatError(f"{path}: not a regular file")
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise HouseWayFormatError(f"{path}: a house-way file is at most {MAX_BYTES:,} bytes")
    if b"\x00" in data:
        raise HouseWayFormatError(f"{path}: binary bytes (NUL); a house way is UTF-8 text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise HouseWayFormatError(
            f"{path} line {line}: not UTF-8 text (byte {exc.start})") from None


def house_way_from_file(game: str | None, path: Path) -> HouseWaySpec:
    """The house way in the file ``path``, checked to be for ``game`` (a ruleset's game, or
    None to take the game the file names). Errors name the file, line and rule."""
    return parse_house_way(read_house_way_text(Path(path)), source=str(path), game=game)


def house_way_for_ruleset(game: object, base: Path, name: str, *, source: str) -> HouseWaySpec:
    """The house way a ruleset read from ``source`` (in the folder ``base``) names with its
    ``house_way`` option ``name`` (a relative path ending in ``.way``). RulesetError names the
    ruleset file and the house-way file."""
    relative = Path(name)
    if relative.is_absolute() or ".." in relative.parts:
        raise RulesetError(
            f"{source}: house_way {name!r}: a house-way file is named relative to the "
            f"ruleset's folder, without '..'")
    try:
        return house_way_from_file(game if isinstance(game, str) else None, Path(base) / relative)
    except HouseWayFormatError as exc:
        raise RulesetError(f"{source}: house_way {name!r}: {exc}") from None
