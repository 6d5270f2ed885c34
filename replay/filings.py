"""A rulesets directory: the rulesets casinos file with Catwalk, read and checked at once.

Layout (docs/rulesets.md): ``DIR/<casino>/<id>.json``, each a ruleset in the JSON layout of
``replay/rulesets/`` with ``"casino": "<casino>"``, the house-way files (``*.way``) they
name, relative to their folder, and the casino's table layouts,
``DIR/<casino>/tables/<table_id>.json`` (replay/layouts.py). :func:`read_filings` reads
every file and reports every problem at once, each naming the file (and the key, and the
line and column of JSON that does not parse): what ``python -m replay rulesets check``
prints. :func:`load_rulebook` is what replay, the simulator and the live loop use: the
:class:`~replay.rulebook.Rulebook` of a directory without problems, else
:class:`FilingsRefused` listing them (fail closed: a filing that cannot be trusted judges
nothing).

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
from pathlib import Path
from typing import Any

from replay.adjudicate import nesting_refused
from replay.errors import ReplayError, RulesetError
from replay.filing_checks import (
    Filing,
    FilingProblem,
    FilingProblemKind,
    Reporter,
    check_structure,
    check_together,
)
from replay.layouts import TABLES_FOLDER, TableLayout, layout_file_problems
from replay.rulebook import FiledFile, Rulebook
from replay.rulesets import RULESET_KEYS, Ruleset, ruleset_from_dict, shipped_rulesets

MAX_FILE_BYTES = 1 << 20
"""The most read of one file (1 MiB; a ruleset is a few KiB)."""
MAX_ENTRIES = 10_000
"""The most directory entries looked at."""
MAX_DEPTH = 8
"""The deepest folder looked into below the directory."""
JSON_NESTING = 64


@dataclass(frozen=True, slots=True, kw_only=True)
class Filings:
    """What a rulesets directory holds: its rulesets, the files they were read from (and the
    house-way files they name), and every problem found."""

    directory: str
    filings: tuple[Filing, ...]
    files: tuple[FiledFile, ...]
    problems: tuple[FilingProblem, ...]
    layouts: tuple[TableLayout, ...] = ()
    """The table layouts filed (``DIR/<casino>/tables/<table_id>.json``: replay/layouts.py)."""

    def book(self) -> Rulebook:
        """The rulebook of the shipped rulesets and these; :class:`FilingsRefused` when any
        problem was found."""
        if self.problems:
            raise FilingsRefused(self.directory, self.problems)
        return Rulebook(shipped=shipped_rulesets(),
                        filed=tuple(f.ruleset for f in self.filings), files=self.files,
                        layouts=self.layouts)


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


RULESETS_ENV = "CATWALK_RULESETS"
"""The environment variable naming the rulesets directory (docs/rulesets.md)."""


def judging_filings(files: tuple[tuple[str, str], ...] | None,
                    directory: Path | str | None) -> tuple[Filings | None, str | None]:
    """The filings that judged outputs whose manifest records ``files`` ((path, SHA-256) of
    every file of the rulesets directory; None: an older replay, empty: the shipped rulesets
    alone), read from ``directory``: trusted only when its files hash to the manifest's,
    file for file, and it has no problem. Else None and why (what to do), so that a reader
    (the dashboard, the dispute report) never shows other rules as those that judged."""
    if not files:
        return None, None
    if not directory:
        return None, (f"Set {RULESETS_ENV} to the rulesets directory replay judged by to read "
                      "these rulesets here in full.")
    try:
        found = read_filings(directory)
    except FilingsError as error:
        return None, f"{error}."
    have = tuple((f.path, f.sha256) for f in found.files)
    if found.problems or have != tuple(files):
        return None, (
            f"The rulesets directory {directory} ({RULESETS_ENV}) does not hold the files "
            "that judged this data (their SHA-256 differ, or files were added or removed"
            f"{', or it has problems' if found.problems else ''}), so its rulesets are not "
            "shown as those that judged it. Replay again by it, or name the directory "
            "replay used.")
    return found, None


def load_rulebook(directory: Path | str) -> Rulebook:
    """The rulebook of the shipped rulesets and ``directory``'s filings. FilingsError when
    the directory cannot be read, FilingsRefused when it has any problem."""
    return read_filings(directory).book()


# Reading ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Reader(Reporter):
    """Reads the directory, saying what it cannot read."""

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
    layouts: list[TableLayout] = []
    for relative in reader.walk():
        raw = reader.read(relative)
        if raw is None:
            continue
        data = _parse(reader, relative, raw)
        if data is None:
            continue
        parts = relative.split("/")
        if len(parts) == 3 and parts[1] == TABLES_FOLDER:
            found, filed = layout_file_problems(relative, data)
            for kind, key, detail in found:
                reader.problem(FilingProblemKind(kind), relative, detail, key=key)
            if not found:
                layouts.extend(filed)
                files[relative] = FiledFile(path=relative,
                                            sha256=hashlib.sha256(raw).hexdigest())
            continue
        ways = check_structure(reader, relative, data)
        ruleset = _ruleset(reader, relative, data)
        if ruleset is None:
            continue
        files[relative] = FiledFile(path=relative, sha256=hashlib.sha256(raw).hexdigest())
        for way in ways:
            way_raw = reader.read(way)
            if way_raw is not None:
                files[way] = FiledFile(path=way, sha256=hashlib.sha256(way_raw).hexdigest())
        filings.append(Filing(path=reader.show(relative), relative=relative, ruleset=ruleset))
    check_together(reader, filings)
    return Filings(directory=shown, filings=tuple(filings),
                   files=tuple(files[k] for k in sorted(files)),
                   problems=tuple(reader.problems), layouts=tuple(layouts))


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
                check_structure(reader, relative, data)
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
    """One ruleset read, with the house-way file it names parsed (``folder``: where it is).
    A file that is not there (or is a link) is left unread: the check names it once, and the
    engine does not judge by a way it has not read (docs/house-way.md)."""
    options = data.get("options")
    way = options.get("house_way") if isinstance(options, Mapping) else None
    there = not (isinstance(way, str) and way.endswith(".way")) or (
        not (folder / way).is_symlink() and (folder / way).is_file())
    return ruleset_from_dict(data, source=source, base=folder if there else None)
