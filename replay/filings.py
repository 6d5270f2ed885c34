"""A rulesets directory: the rulesets casinos file with Catwalk, read and checked at once.

Layout (docs/rulesets.md): ``DIR/<casino>/<id>.json``, each a ruleset in the JSON layout of
``replay/rulesets/`` with ``"casino": "<casino>"``, and the house-way files (``*.way``)
they name, relative to their folder. :func:`read_filings` reads every file and reports
every problem at once, each naming the file (and the key, and the line and column of JSON
that does not parse): what ``python -m replay rulesets check`` prints. :func:`load_rulebook`
is what replay, the simulator and the live loop use: the :class:`~replay.rulebook.Rulebook`
of a directory without problems, else :class:`FilingsRefused` listing them (fail closed: a
filing that cannot be trusted judges nothing).

Hostile input is bounded: at most :data:`MAX_FILE_BYTES` read of a file, at most
:data:`MAX_ENTRIES` entries looked at, :data:`MAX_DEPTH` folders deep; symbolic links are
not followed (each is a problem, so a loop is one too); a file that is not a regular file
(a FIFO, a device) is never read, so nothing blocks.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from replay.adjudicate import nesting_refused
from replay.errors import ReplayError, RulesetError
from replay.games import GAMES
from replay.rulebook import FiledFile, Rulebook, gaps, overlaps
from replay.rulesets import CASINO_ID, RULESET_KEYS, Ruleset, ruleset_from_dict, shipped_rulesets

MAX_FILE_BYTES = 1 << 20
"""The most read of one file (1 MiB; a ruleset is a few KiB)."""
MAX_ENTRIES = 10_000
"""The most directory entries looked at."""
MAX_DEPTH = 8
"""The deepest folder looked into below the directory."""
WAY_SUFFIX = ".way"
"""A ``house_way`` option ending so names a house-way file beside the ruleset."""
JSON_NESTING = 64
_ENGINE_OPTIONS = frozenset({"wheel", "house_way"})
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Filings:
    """What a rulesets directory holds: its rulesets, the files they were read from (and the
    house-way files they name), and every problem found."""

    directory: str
    filings: tuple[Filing, ...]
    files: tuple[FiledFile, ...]
    problems: tuple[FilingProblem, ...]

    def book(self) -> Rulebook:
        """The rulebook of the shipped rulesets and these; :class:`FilingsRefused` when any
        problem was found."""
        if self.problems:
            raise FilingsRefused(self.directory, self.problems)
        return Rulebook(shipped=shipped_rulesets(),
                        filed=tuple(f.ruleset for f in self.filings), files=self.files)


class FilingsError(RulesetError):
    """A rulesets directory that cannot be read at all (missing, not a directory)."""


class FilingsRefused(RulesetError):
    """A rulesets directory with problems: nothing is judged by it."""

    def __init__(self, directory: str, problems: tuple[FilingProblem, ...]) -> None:
        self.directory = directory
        self.problems = problems
        shown = "; ".join(str(p) for p in problems[:5])
        more = f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
        super().__init__(f"the rulesets directory {directory} has {len(problems)} "
                         f"problem{'s' if len(problems) != 1 else ''}: {shown}{more}. "
                         f"`python -m replay rulesets check {directory}` lists them")


def load_rulebook(directory: Path | str) -> Rulebook:
    """The rulebook of the shipped rulesets and ``directory``'s filings. FilingsError when
    the directory cannot be read, FilingsRefused when it has any problem."""
    return read_filings(directory).book()


# Reading ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Reader:
    root: Path
    shown: str
    problems: list[FilingProblem]
    entries: int = 0
    shipped: bool = False
    """Reading Catwalk's own rulesets: they belong to no casino and no casino folder."""

    def problem(self, kind: FilingProblemKind, relative: str, detail: str, *,
                key: str | None = None, line: int | None = None,
                column: int | None = None) -> None:
        self.problems.append(FilingProblem(kind=kind, path=self.show(relative), detail=detail,
                                           key=key, line=line, column=column))

    def show(self, relative: str) -> str:
        return f"{self.shown.rstrip('/')}/{relative}" if relative else self.shown

    def walk(self, relative: str = "", depth: int = 0) -> Iterator[str]:
        """The relative paths of the regular ``*.json`` files, sorted; problems for what
        cannot be looked at."""
        folder = self.root / relative if relative else self.root
        try:
            with os.scandir(folder) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError as exc:
            self.problem(FilingProblemKind.UNREADABLE, relative,
                         f"cannot list the folder: {exc.strerror or exc}")
            return
        for entry in entries:
            self.entries += 1
            if self.entries > MAX_ENTRIES:
                if self.entries == MAX_ENTRIES + 1:
                    self.problem(FilingProblemKind.UNREADABLE, "",
                                 f"more than {MAX_ENTRIES:,} entries: the rest not looked at")
                return
            name = entry.name
            if name.startswith("."):
                continue
            rel = f"{relative}/{name}" if relative else name
            if entry.is_symlink():
                self.problem(FilingProblemKind.UNREADABLE, rel,
                             "a symbolic link: not followed (put the file itself here)")
            elif entry.is_dir(follow_symlinks=False):
                if name.endswith(".json"):
                    self.problem(FilingProblemKind.LAYOUT, rel,
                                 "a directory, not a ruleset file")
                if depth + 1 >= MAX_DEPTH:
                    self.problem(FilingProblemKind.LAYOUT, rel,
                                 f"folders nested more than {MAX_DEPTH} deep: not looked into")
                else:
                    yield from self.walk(rel, depth + 1)
            elif name.endswith(".json"):
                yield rel

    def read(self, relative: str) -> bytes | None:
        """The bytes of a regular file (at most MAX_FILE_BYTES), or None with the problem
        said. Opened without following a link and without waiting (a FIFO never blocks)."""
        path = self.root / relative
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
        except OSError as exc:
            self.problem(FilingProblemKind.UNREADABLE, relative,
                         f"cannot be read: {exc.strerror or exc}")
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                self.problem(FilingProblemKind.UNREADABLE, relative,
                             "not a regular file (a FIFO, device or socket): not read")
                return None
            chunks, size = [], 0
            while size <= MAX_FILE_BYTES and (chunk := os.read(fd, 1 << 16)):
                chunks.append(chunk)
                size += len(chunk)
        except OSError as exc:
            self.problem(FilingProblemKind.UNREADABLE, relative,
                         f"cannot be read: {exc.strerror or exc}")
            return None
        finally:
            os.close(fd)
        if size > MAX_FILE_BYTES:
            self.problem(FilingProblemKind.UNREADABLE, relative,
                         f"larger than {MAX_FILE_BYTES:,} bytes: not read (a ruleset is a "
                         "few KiB)")
            return None
        return b"".join(chunks)


def read_filings(directory: Path | str) -> Filings:
    """Read and check every filing under ``directory`` (see the module docstring); raises
    only :class:`FilingsError`, when the directory is missing or not a directory."""
    shown = str(directory)
    root = Path(directory)
    if not root.is_dir():
        what = "does not exist" if not root.exists() else "is not a directory"
        raise FilingsError(f"the rulesets directory {shown} {what}")
    reader = _Reader(root=root, shown=shown, problems=[])
    filings: list[Filing] = []
    files: dict[str, FiledFile] = {}
    for relative in reader.walk():
        raw = reader.read(relative)
        if raw is None:
            continue
        data = _parse(reader, relative, raw)
        if data is None:
            continue
        ways = _check_structure(reader, relative, data)
        ruleset = _ruleset(reader, relative, data)
        if ruleset is None:
            continue
        files[relative] = FiledFile(path=relative, sha256=hashlib.sha256(raw).hexdigest())
        for way in ways:
            way_raw = reader.read(way)
            if way_raw is not None:
                files[way] = FiledFile(path=way, sha256=hashlib.sha256(way_raw).hexdigest())
        filings.append(Filing(path=reader.show(relative), relative=relative, ruleset=ruleset))
    _check_together(reader, filings)
    return Filings(directory=shown, filings=tuple(filings),
                   files=tuple(files[k] for k in sorted(files)),
                   problems=tuple(reader.problems))


def check_shipped() -> tuple[FilingProblem, ...]:
    """The problems of Catwalk's shipped rulesets (``replay/rulesets/*.json``) by the same
    checks as a casino's filings: none, or the package is broken."""
    from importlib import resources

    with resources.as_file(resources.files("replay").joinpath("rulesets")) as folder:
        reader = _Reader(root=Path(folder), shown="replay/rulesets", problems=[], shipped=True)
        for relative in reader.walk():
            raw = reader.read(relative)
            data = None if raw is None else _parse(reader, relative, raw)
            if data is not None:
                _check_structure(reader, relative, data)
                _ruleset(reader, relative, data)
    return tuple(reader.problems)


def _parse(reader: _Reader, relative: str, raw: bytes) -> dict[str, Any] | None:
    """The file's JSON object, or None with the problem said (line and column)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        reader.problem(FilingProblemKind.NOT_JSON, relative,
                       f"not UTF-8 text (byte 0x{raw[exc.start]:02x}): a ruleset is UTF-8 JSON",
                       line=line, column=column)
        return None
    text = text.removeprefix("\ufeff")
    deep = nesting_refused(text, JSON_NESTING)
    if deep is not None:
        line = text.count("\n", 0, deep) + 1
        reader.problem(FilingProblemKind.NOT_JSON, relative,
                       f"arrays and objects nested more than {JSON_NESTING} deep",
                       line=line, column=deep - (text.rfind("\n", 0, deep) + 1) + 1)
        return None
    repeated: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                repeated.append(key)
            out[key] = value
        return out

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    try:
        data = json.JSONDecoder(object_pairs_hook=pairs, parse_constant=constant).decode(text)
    except json.JSONDecodeError as exc:
        reader.problem(FilingProblemKind.NOT_JSON, relative, f"not JSON: {exc.msg}",
                       line=exc.lineno, column=exc.colno)
        return None
    except (ValueError, RecursionError) as exc:  # NaN, an integer of thousands of digits
        reader.problem(FilingProblemKind.NOT_JSON, relative, f"not JSON: {exc}")
        return None
    for key in sorted(set(repeated)):
        reader.problem(FilingProblemKind.DUPLICATE_KEY, relative,
                       "given more than once in one object (JSON keeps only the last)", key=key)
    if not isinstance(data, dict):
        reader.problem(FilingProblemKind.NOT_JSON, relative,
                       f"a ruleset is a JSON object, got {type(data).__name__}")
        return None
    return data


def _check_structure(reader: _Reader, relative: str, data: Mapping[str, Any]) -> list[str]:
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


def _house_way(reader: _Reader, relative: str, game: str, shipped: frozenset[str],
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


def _check_paytable(reader: _Reader, relative: str, game: Any, name: str,
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


def _ruleset(reader: _Reader, relative: str, data: Mapping[str, Any]) -> Ruleset | None:
    """The ruleset of the file's known keys (the unknown ones are problems already), or
    None with what ruleset_from_dict refused. A ``house_way`` ending in ``.way`` names a
    file relative to ``folder``, the ruleset file's own folder."""
    shown = reader.show(relative)
    known = {k: v for k, v in data.items() if k in RULESET_KEYS}
    folder = (reader.root / relative).parent
    try:
        ruleset = _from_dict(known, source=shown, folder=folder)
    except ReplayError as exc:
        reader.problem(FilingProblemKind.BAD_VALUE, relative,
                       str(exc).removeprefix(f"{shown}: "))
        return None
    return ruleset


def _from_dict(data: Mapping[str, Any], *, source: str, folder: Path) -> Ruleset:
    """One ruleset read (``folder``: where the house-way files it names are)."""
    del folder  # read by ruleset_from_dict once it reads house-way files (base=folder)
    return ruleset_from_dict(data, source=source)


def _check_together(reader: _Reader, filings: list[Filing]) -> None:
    """Ids unique (and none a shipped one); no overlap or gap between one casino's
    rulesets of a game."""
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
