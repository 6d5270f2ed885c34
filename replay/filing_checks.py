"""The checks of a casino's filings (docs/rulesets.md "The check"): what each file says
(keys, casino, game, options, paytables, house way) and what the files say together (ids,
overlaps, gaps). Every problem is a value (:class:`FilingProblem`), said to a
:class:`Reporter`, never raised; replay/filings.py reads the files and calls these.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from replay.games import GAMES
from replay.games.base import GameRules
from replay.rulebook import gaps, overlaps
from replay.rulesets import (
    CASINO_ID,
    PROGRESSIVE_RESET_CENTS,
    RULESET_KEYS,
    Ruleset,
    shipped_rulesets,
)

WAY_SUFFIX = ".way"
"""A ``house_way`` option ending so names a house-way file beside the ruleset."""
_ENGINE_OPTIONS = frozenset({"wheel", "house_way", PROGRESSIVE_RESET_CENTS})
_DEFAULT_HOUSE_WAY = "reference-1.3"  # replay.rulesets.Ruleset.house_way's default


class FilingProblemKind(StrEnum):
    """What is wrong with a filing (docs/rulesets.md "The check")."""

    UNREADABLE = "unreadable"
    NOT_JSON = "not_json"
    DUPLICATE_KEY = "duplicate_key"
    LAYOUT = "layout"
    UNKNOWN_KEY = "unknown_key"
    BAD_VALUE = "bad_value"
    UNKNOWN_GAME = "unknown_game"
    UNKNOWN_OPTION = "unknown_option"
    UNKNOWN_PAYTABLE = "unknown_paytable"
    PAYTABLE_UNKNOWN_CLASS = "paytable_unknown_class"
    PAYTABLE_MISSING_CLASS = "paytable_missing_class"
    PAYOUT_KIND = "payout_kind"
    UNKNOWN_HOUSE_WAY = "unknown_house_way"
    DUPLICATE_ID = "duplicate_id"
    SHIPPED_ID = "shipped_id"
    OVERLAP = "overlap"
    GAP = "gap"
    SEAT_TWICE = "seat_twice"


@dataclass(frozen=True, slots=True, kw_only=True)
class FilingProblem:
    """One problem: its kind, the file (as the user named the directory), the key within
    it (``options.wheel``, ``paytables.raise.royal_flush``), the line and column, and what
    is wrong."""

    kind: FilingProblemKind
    path: str
    detail: str
    key: str | None = None
    line: int | None = None
    column: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, FilingProblemKind):
            raise ValueError(f"a filing problem's kind is a FilingProblemKind, got {self.kind!r}")
        if not self.path or not self.detail:
            raise ValueError("a filing problem names its file and says what is wrong")

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}" + (f":{self.column}" if self.column is not None else "")
        return f"{where}: {f'{self.key}: ' if self.key else ''}{self.detail}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Filing:
    """A ruleset read from the directory: the path shown, the path relative to the
    directory, and the ruleset."""

    path: str
    relative: str
    ruleset: Ruleset


@dataclass(slots=True)
class Reporter:
    """Where problems are said while a directory is read: its root, the directory as the
    user named it (``shown``), the problems so far, and whether it is Catwalk's own."""

    root: Path
    shown: str
    problems: list[FilingProblem]
    entries: int = 0
    shipped: bool = False
    """Catwalk's own rulesets: they belong to no casino and no casino folder."""

    def problem(self, kind: FilingProblemKind, relative: str, detail: str, *,
                key: str | None = None, line: int | None = None,
                column: int | None = None) -> None:
        self.problems.append(FilingProblem(kind=kind, path=self.show(relative), detail=detail,
                                           key=key, line=line, column=column))

    def show(self, relative: str) -> str:
        return f"{self.shown.rstrip('/')}/{relative}" if relative else self.shown


def check_structure(reader: Reporter, relative: str, data: Mapping[str, Any]) -> list[str]:
    """Every problem of the file's keys, casino, game, options, paytables and house way;
    the house-way files it names (relative to the directory) that exist."""
    parts = relative.split("/")
    name = parts[-1]
    for key in sorted(set(data) - RULESET_KEYS):
        reader.problem(FilingProblemKind.UNKNOWN_KEY, relative,
                       f"not a ruleset key; the keys are {', '.join(sorted(RULESET_KEYS))}",
                       key=key)
    casino = data.get("casino")
    if reader.shipped:
        if casino is not None:
            reader.problem(FilingProblemKind.LAYOUT, relative,
                           "a shipped ruleset belongs to no casino", key="casino")
    elif len(parts) != 2:
        reader.problem(FilingProblemKind.LAYOUT, relative,
                       "a ruleset file belongs directly in its casino's folder, "
                       "DIR/<casino>/<id>.json")
    elif casino is None:
        reader.problem(FilingProblemKind.LAYOUT, relative,
                       f"a filing names its casino: add \"casino\": \"{parts[0]}\"", key="casino")
    elif casino != parts[0]:
        reader.problem(FilingProblemKind.LAYOUT, relative,
                       f"casino {casino!r} filed in the folder of casino {parts[0]!r}",
                       key="casino")
    if isinstance(casino, str) and not CASINO_ID.fullmatch(casino):
        reader.problem(FilingProblemKind.BAD_VALUE, relative,
                       f"{casino!r} is not a casino id (letters, digits, '_', '.', '-')",
                       key="casino")
    if isinstance(data.get("id"), str) and name != f"{data['id']}.json":
        reader.problem(FilingProblemKind.LAYOUT, relative,
                       f"holds ruleset {data['id']!r}; name it {data['id']}.json")
    game_name = data.get("game")
    game = GAMES.get(game_name) if isinstance(game_name, str) else None
    if game is None:
        reader.problem(FilingProblemKind.UNKNOWN_GAME, relative,
                       f"{game_name!r} is not a game Catwalk knows; known: "
                       f"{', '.join(sorted(GAMES))}", key="game")
        return []
    options = data.get("options", {})
    ways: list[str] = []
    if isinstance(options, Mapping):
        known = game.option_names | _ENGINE_OPTIONS
        for key in sorted(set(options) - known):
            reader.problem(FilingProblemKind.UNKNOWN_OPTION, relative,
                           f"{game.name} reads no such option; it reads "
                           f"{', '.join(sorted(known))}", key=f"options.{key}")
        way = options.get("house_way", _DEFAULT_HOUSE_WAY if game.house_ways else None)
        if way is not None:
            found = _house_way(reader, relative, game.name, game.house_ways, way,
                               given="house_way" in options)
            ways.extend([found] if found else [])
    tables = data.get("paytables", {})
    if isinstance(tables, Mapping):
        for table_name in sorted(tables):
            _check_paytable(reader, relative, game, table_name, tables[table_name])
    return ways


def _house_way(reader: Reporter, relative: str, game: str, shipped: frozenset[str],
               way: object, *, given: bool) -> str | None:
    """Check the house way named; the house-way file's path relative to the directory
    when the option names one that exists."""
    key = "options.house_way"
    if not isinstance(way, str):
        return None  # ruleset_from_dict names the bad value
    if not shipped:
        reader.problem(FilingProblemKind.UNKNOWN_HOUSE_WAY, relative,
                       f"{game} has no house way (the dealer sets no hand): drop the option",
                       key=key)
        return None
    if way.endswith(WAY_SUFFIX):
        folder = relative.rsplit("/", 1)[0]
        target = os.path.normpath(f"{folder}/{way}")
        if way.startswith("/") or target.startswith("..") or "\\" in way:
            reader.problem(FilingProblemKind.UNKNOWN_HOUSE_WAY, relative,
                           f"house-way file {way!r} is outside the rulesets directory: name "
                           "it relative to the ruleset's folder, within the directory", key=key)
            return None
        path = reader.root / target
        if path.is_symlink() or not path.is_file():
            reader.problem(FilingProblemKind.UNKNOWN_HOUSE_WAY, relative,
                           f"house-way file {way!r} is not a file in "
                           f"{reader.show(folder)}", key=key)
            return None
        return target
    if way not in shipped:
        reader.problem(FilingProblemKind.UNKNOWN_HOUSE_WAY, relative,
                       f"{way!r} is not a house way shipped for {game}; shipped: "
                       f"{', '.join(sorted(shipped))}, or a *{WAY_SUFFIX} file beside the "
                       "ruleset" + ("" if given else
                                    " (a ruleset without the option sets the dealer's "
                                    f"hand by {_DEFAULT_HOUSE_WAY})"), key=key)
    return None


def _check_paytable(reader: Reporter, relative: str, game: GameRules, name: str,
                    table: object) -> None:
    if name not in game.paytable_names:
        reader.problem(FilingProblemKind.UNKNOWN_PAYTABLE, relative,
                       f"{game.name} reads no such paytable; it reads "
                       f"{', '.join(sorted(game.paytable_names)) or 'none'}",
                       key=f"paytables.{name}")
        return
    classes = game.paytable_classes.get(name)
    if classes is None or not isinstance(table, Mapping):
        return  # ruleset_from_dict names a paytable that is not an object
    for line in sorted(set(table) - set(classes.classes)):
        reader.problem(FilingProblemKind.PAYTABLE_UNKNOWN_CLASS, relative,
                       f"not a hand class of {game.name}'s {name} paytable; the classes are "
                       f"{', '.join(classes.classes)}", key=f"paytables.{name}.{line}")
    missing = [c for c in classes.required if c not in table]
    if missing:
        reader.problem(FilingProblemKind.PAYTABLE_MISSING_CLASS, relative,
                       f"posts no line for {', '.join(missing)}, which the {name} wager pays "
                       "(a hand of a class not posted would lose)", key=f"paytables.{name}")
    for line in sorted(table):
        payout = table[line]
        if isinstance(payout, Mapping) and len(payout) == 1:
            kind = next(iter(payout))
            if kind in ("odds", "fixed_cents", "meter_bps") and kind not in classes.pays:
                reader.problem(FilingProblemKind.PAYOUT_KIND, relative,
                               f"pays {kind}; a {name} line pays "
                               f"{' or '.join(sorted(classes.pays))}",
                               key=f"paytables.{name}.{line}")


def check_together(reader: Reporter, filings: Iterable[Filing]) -> None:
    """Ids unique (and none a shipped one); no overlap or gap between one casino's
    rulesets of a game."""
    filings = list(filings)
    shipped = {r.id for r in shipped_rulesets()}
    by_id: dict[str, Filing] = {}
    for f in filings:
        rid = f.ruleset.id
        if rid in shipped:
            reader.problem(FilingProblemKind.SHIPPED_ID, f.relative,
                           f"ruleset id {rid} is shipped with Catwalk (replay/rulesets/"
                           f"{rid}.json): give the casino's ruleset an id of its own",
                           key="id")
        elif rid in by_id:
            reader.problem(FilingProblemKind.DUPLICATE_ID, f.relative,
                           f"ruleset id {rid} is also the id in {by_id[rid].path}: ids are "
                           "unique", key="id")
        else:
            by_id[rid] = f
    where = {id(f.ruleset): f for f in filings}
    for a, b in overlaps(f.ruleset for f in filings):
        start = max(a.effective_from, b.effective_from)
        ends = [e for e in (a.effective_to, b.effective_to) if e is not None]
        until = f"up to {min(ends)}" if ends else "with no end date"
        reader.problem(FilingProblemKind.OVERLAP, where[id(b)].relative,
                       f"casino {b.casino}'s {b.game} rulesets {a.id} ({where[id(a)].path}) "
                       f"and {b.id} ({where[id(b)].path}) are both in force from {start} "
                       f"{until}", key="effective_from")
    for a, b in gaps(f.ruleset for f in filings):
        reader.problem(FilingProblemKind.GAP, where[id(b)].relative,
                       f"casino {b.casino} has no {b.game} ruleset in force from "
                       f"{a.effective_to} up to {b.effective_from}: between {a.id} "
                       f"({where[id(a)].path}) and {b.id} ({where[id(b)].path}); its rounds "
                       "then would not be judged", key="effective_from")
