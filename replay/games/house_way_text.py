"""The line grammar of a house-way file (docs/house-way.md): header lines, then rules.

A casino files its own house way (58 Pa. Code § 601a.2, the Rules Submission; PR pai gow
tiles ¶ E: how it requires the dealer to set, and any exceptions to ¶ D). This module reads
the lines of such a file into a :class:`WayText`, checking what is common to every game: the
format version, the header, rule names and the keywords each rule carries. What a condition
or a choice means is the game's vocabulary (:mod:`replay.games.pai_gow_house_way_words`,
:mod:`replay.games.pai_gow_tiles_house_way_words`). Nothing here does I/O: text and a
source label in, values out; every error names the source, the line and the rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from replay.errors import ReplayError, RulesetError

if TYPE_CHECKING:
    from replay.ruleset_model import Ruleset

FORMAT = "catwalk-house-way 1"
"""The one format version this reader knows (the first line of every house-way file)."""
HEADER_KEYS = ("format", "game", "name", "title", "source")
"""The header lines every file has, each once, before its first rule."""
RULE_KEYS = ("clause", "when", "front", "plays", "prefer", "text")
"""The lines a rule may carry (``when``/``front`` for cards, ``plays``/``prefer`` for tiles)."""
_RULE_NAME = re.compile(r"[a-z][a-z0-9_]*")
_WAY_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")
MAX_LINE = 1_000
"""The longest line accepted, in characters."""


class HouseWayFormatError(ReplayError, ValueError):
    """A house-way file that cannot be read; the message names the source, line and rule."""


class UnknownHouseWayError(RulesetError, LookupError):
    """A ruleset names a house way that is not known (not shipped, not loaded from a file)."""


_W = TypeVar("_W")


def find_way(ruleset: Ruleset, *, kind: type[_W], shipped: Mapping[str, _W], game: str) -> _W:
    """The house way of ``kind`` (one game family's) that ``ruleset`` names: the one loaded
    from its ``.way`` file (``ruleset.house_way_spec``), or a shipped one by name.
    :class:`UnknownHouseWayError` names the ruleset and what is known, so that a round is not
    evaluated (fail closed), never judged by another way."""
    spec = ruleset.house_way_spec
    if spec is not None:
        if isinstance(spec, kind):
            return spec
        raise UnknownHouseWayError(
            f"ruleset {ruleset.id} names house way {ruleset.house_way!r}, a house way for "
            f"{getattr(spec, 'game', '?')}, not {game}")
    way = shipped.get(ruleset.house_way)
    if way is None:
        hint = (" (a house-way file is loaded when the ruleset is read from its JSON file)"
                if ruleset.house_way.endswith(".way") else "")
        raise UnknownHouseWayError(
            f"ruleset {ruleset.id} names house way {ruleset.house_way!r}; known for "
            f"{game}: {', '.join(sorted(shipped))}{hint}")
    return way


def where(source: str, line: int | None = None, rule: str | None = None) -> str:
    """``source line N (rule NAME)``: the place an error message starts with."""
    text = source if line is None else f"{source} line {line}"
    return text if rule is None else f"{text} (rule {rule})"


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleText:
    """One rule as written: its name, the line it starts on, whether it is an exception
    (``exception NAME``: PR pai gow tiles ¶ E), and its keyword lines as (line, value)."""

    name: str
    line: int
    exception: bool
    lines: tuple[tuple[str, int, str], ...]

    def __post_init__(self) -> None:
        if not _RULE_NAME.fullmatch(self.name):
            raise HouseWayFormatError(f"bad rule name {self.name!r}")

    def one(self, key: str) -> tuple[int, str] | None:
        """The (line, value) of the rule's ``key`` line, or None when it has none."""
        for k, line, value in self.lines:
            if k == key:
                return line, value
        return None

    @property
    def text(self) -> str:
        """The ``text`` lines joined by single spaces."""
        return " ".join(value for k, _, value in self.lines if k == "text")


@dataclass(frozen=True, slots=True, kw_only=True)
class WayText:
    """A house-way file read line by line: its ``source`` label, the header values (and
    their lines), the completions ``(id, text)`` in order, and the rules in order."""

    source: str
    header: tuple[tuple[str, int, str], ...]
    completions: tuple[tuple[str, str], ...]
    rules: tuple[RuleText, ...]

    def value(self, key: str) -> str:
        for k, _, v in self.header:
            if k == key:
                return v
        raise HouseWayFormatError(f"{self.source}: no header line {key!r}")

    def line_of(self, key: str) -> int:
        for k, line, _ in self.header:
            if k == key:
                return line
        return 0


def read_way_text(text: str, *, source: str) -> WayText:
    """The :class:`WayText` of ``text``; :class:`HouseWayFormatError` names the source, the
    line and the rule of the first thing wrong (docs/house-way.md, "Errors")."""
    if not isinstance(text, str):
        raise HouseWayFormatError(f"{source}: a house way is text, got {type(text).__name__}")
    header: list[tuple[str, int, str]] = []
    completions: list[tuple[str, str]] = []
    rules: list[RuleText] = []
    current: tuple[str, int, bool] | None = None
    lines: list[tuple[str, int, str]] = []
    seen_rule = False
    names: dict[str, int] = {}

    def close() -> None:
        if current is not None:
            rules.append(RuleText(name=current[0], line=current[1], exception=current[2],
                                  lines=tuple(lines)))

    for number, raw in enumerate(text.splitlines(), start=1):
        rule = current[0] if current else None
        if len(raw) > MAX_LINE:
            raise HouseWayFormatError(
                f"{where(source, number, rule)}: line longer than {MAX_LINE} characters")
        if "\x00" in raw or any(ord(ch) < 32 and ch != "\t" for ch in raw):
            raise HouseWayFormatError(f"{where(source, number, rule)}: control characters")
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key, _, value = stripped.partition(" ")
        value = value.strip()
        if not header and key != "format":
            raise HouseWayFormatError(
                f"{where(source, number)}: the first line must be 'format {FORMAT}', "
                f"got {stripped[:60]!r}")
        if key == "format" and value != FORMAT:
            raise HouseWayFormatError(
                f"{where(source, number)}: format {value!r} is not known; this reader knows "
                f"'{FORMAT}'")
        if key in HEADER_KEYS:
            if seen_rule:
                raise HouseWayFormatError(
                    f"{where(source, number, rule)}: header line {key!r} after the first rule")
            if any(k == key for k, _, _ in header):
                raise HouseWayFormatError(f"{where(source, number)}: header line {key!r} twice")
            if not value:
                raise HouseWayFormatError(f"{where(source, number)}: header {key!r} is empty")
            if key == "name" and not _WAY_NAME.fullmatch(value):
                raise HouseWayFormatError(
                    f"{where(source, number)}: bad name {value!r}: lower-case letters, digits, "
                    f"'.', '-' and '_', starting with a letter or digit")
            header.append((key, number, value))
            continue
        if key == "completion":
            if seen_rule:
                raise HouseWayFormatError(
                    f"{where(source, number, rule)}: completion lines belong to the header")
            cid, _, words = value.partition(" ")
            if not cid or not words.strip():
                raise HouseWayFormatError(
                    f"{where(source, number)}: a completion is 'completion ID TEXT'")
            completions.append((cid, words.strip()))
            continue
        if key in ("rule", "exception"):
            if not _RULE_NAME.fullmatch(value):
                raise HouseWayFormatError(
                    f"{where(source, number)}: bad rule name {value!r}: lower-case letters, "
                    f"digits and '_', starting with a letter")
            if value in names:
                raise HouseWayFormatError(
                    f"{where(source, number, value)}: duplicate rule name; first at line "
                    f"{names[value]}")
            general = any(not r.exception for r in rules) or (current and not current[2])
            if key == "exception" and general:
                raise HouseWayFormatError(
                    f"{where(source, number, value)}: exceptions (PR pai gow tiles ¶ E) come "
                    f"before the general rules")
            missing = [k for k in HEADER_KEYS if not any(h == k for h, _, _ in header)]
            if missing:
                raise HouseWayFormatError(
                    f"{where(source, number)}: missing header {', '.join(missing)} (a house-way "
                    f"file starts with {', '.join(HEADER_KEYS)})")
            close()
            names[value] = number
            current, lines, seen_rule = (value, number, key == "exception"), [], True
            continue
        if key in RULE_KEYS:
            if current is None:
                raise HouseWayFormatError(
                    f"{where(source, number)}: {key!r} outside a rule (start one with "
                    f"'rule NAME')")
            if not value:
                raise HouseWayFormatError(f"{where(source, number, rule)}: {key!r} is empty")
            if key != "text" and any(k == key for k, _, _ in lines):
                raise HouseWayFormatError(f"{where(source, number, rule)}: {key!r} twice")
            lines.append((key, number, value))
            continue
        raise HouseWayFormatError(
            f"{where(source, number, rule)}: unknown word {key!r}; a line starts with one of: "
            f"{', '.join((*HEADER_KEYS, 'completion', 'exception', 'rule', *RULE_KEYS))}")
    close()
    if not header:
        raise HouseWayFormatError(f"{source}: empty: the first line must be 'format {FORMAT}'")
    missing = [k for k in HEADER_KEYS if not any(h == k for h, _, _ in header)]
    if missing:
        raise HouseWayFormatError(
            f"{source}: missing header {', '.join(missing)} (a house-way file starts with "
            f"{', '.join(HEADER_KEYS)})")
    if not rules:
        raise HouseWayFormatError(f"{source}: no rules (every hand must be set by some rule)")
    for r in rules:
        if r.one("clause") is None:
            raise HouseWayFormatError(
                f"{where(source, r.line, r.name)}: no clause line (cite the casino's rule)")
    return WayText(source=source, header=tuple(header), completions=tuple(completions),
                   rules=tuple(rules))
