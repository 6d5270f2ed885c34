"""The rulebook: every ruleset replay may judge by, and the one choice of which judges a round.

A :class:`Rulebook` holds Catwalk's shipped rulesets (``replay/rulesets/``) and the rulesets
casinos filed (a rulesets directory: docs/rulesets.md; read by replay/filings.py). It is a
frozen value passed into replay; nothing global is changed. The selection, in one place:

- a round of casino C is judged under C's ruleset for its game in force on the day it was
  dealt (:meth:`Rulebook.in_force`);
- when C has filed no ruleset for that game, under the shipped ruleset in force, as a
  round of a casino without filings is;
- when C has filed rulesets for the game but none is in force that day (a gap between its
  filings, or a day before the first or after the last), there is no ruleset: the round is
  not evaluated with that reason (docs/design.md principle 8), never judged by the shipped
  default;
- a ruleset the table names must be C's or a shipped one (:meth:`Rulebook.find`), else the
  round is not evaluated.

Ids are unique across the book, and no two rulesets of one casino and game are in force on
one day (each a :class:`~replay.errors.RulesetError` here; ``python -m replay rulesets
check`` names the files).
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from replay.errors import NoRulesetInForceError, RulesetError, UnknownRulesetError
from replay.layouts import TableLayout, layout_overlaps, seat_order_at
from replay.rulesets import DEFAULT_RULESET_IDS, Ruleset, shipped_rulesets


@dataclass(frozen=True, slots=True, kw_only=True)
class FiledFile:
    """One file of a rulesets directory that judged the outputs: its path relative to the
    directory (``/``-separated) and the SHA-256 of its bytes, in hex (replay's manifest)."""

    path: str
    sha256: str

    def __post_init__(self) -> None:
        if not isinstance(self.path, str) or not self.path or self.path.startswith("/"):
            raise RulesetError(f"a filed file's path is relative to its directory, "
                               f"got {self.path!r}")
        if (not isinstance(self.sha256, str) or len(self.sha256) != 64
                or self.sha256.strip("0123456789abcdef")):
            raise RulesetError(f"{self.path}: sha256 must be 64 lowercase hex digits, "
                               f"got {self.sha256!r}")

    def entry(self) -> dict[str, str]:
        """As the manifest lists it: ``{"path": ..., "sha256": ...}``."""
        return {"path": self.path, "sha256": self.sha256}


def _period(ruleset: Ruleset) -> str:
    end = ruleset.effective_to or "no end date"
    return f"{ruleset.effective_from} to {end}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rulebook:
    """The shipped rulesets and the casinos' (``filed``: each with its ``casino``), and the
    files those came from (``files``, for the manifest). See the module docstring."""

    shipped: tuple[Ruleset, ...]
    filed: tuple[Ruleset, ...] = ()
    files: tuple[FiledFile, ...] = ()
    layouts: tuple[TableLayout, ...] = ()
    """The casinos' table layouts (replay/layouts.py): which seat is at the dealer's right."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "layouts", tuple(self.layouts))
        for layout in self.layouts:
            if not isinstance(layout, TableLayout):
                raise RulesetError(f"a table layout is a TableLayout, got {layout!r}")
        for one, other in layout_overlaps(self.layouts):
            raise RulesetError(f"table {one.casino}/{one.table_id}'s layouts {one.period()} "
                               f"and {other.period()} are in force at the same time")
        object.__setattr__(self, "shipped", tuple(self.shipped))
        object.__setattr__(self, "filed", tuple(self.filed))
        object.__setattr__(self, "files", tuple(self.files))
        for r in self.shipped:
            if not isinstance(r, Ruleset) or r.casino is not None:
                raise RulesetError(f"a shipped ruleset belongs to no casino, got {r!r}")
        for r in self.filed:
            if not isinstance(r, Ruleset) or r.casino is None:
                raise RulesetError(f"a filed ruleset names its casino, got {r!r}")
        seen: dict[str, Ruleset] = {}
        for r in (*self.shipped, *self.filed):
            if r.id in seen:
                raise RulesetError(f"ruleset id {r.id} is used twice (casino "
                                   f"{seen[r.id].casino or 'none: shipped'} and "
                                   f"{r.casino or 'none: shipped'}): ids are unique")
            seen[r.id] = r
        for a, b in overlaps(self.filed):
            raise RulesetError(f"rulesets {a.id} ({_period(a)}) and {b.id} ({_period(b)}) of "
                               f"casino {a.casino} for {a.game} are in force on the same days")
        paths = [f.path for f in self.files]
        if len(set(paths)) != len(paths):
            raise RulesetError(f"a filed file is listed twice: {sorted(paths)}")

    @property
    def casinos(self) -> tuple[str, ...]:
        """The casinos with filings, sorted."""
        return tuple(sorted({r.casino for r in self.filed if r.casino is not None}))

    def filed_for(self, casino: str, game: str) -> tuple[Ruleset, ...]:
        """Casino ``casino``'s rulesets for ``game``, by the day they come into force."""
        return tuple(sorted((r for r in self.filed if r.casino == casino and r.game == game),
                            key=lambda r: r.effective_from))

    def in_force(self, casino: str, game: str, day: dt.date) -> Ruleset:
        """The ruleset a round of ``casino`` at ``game`` dealt on ``day`` is judged under:
        the casino's own in force that day; the shipped one when the casino filed none for
        the game. :class:`NoRulesetInForceError` when the casino filed rulesets for the game
        and none is in force that day (it says so: never the shipped default), or when
        nothing shipped is."""
        day = day.date() if isinstance(day, dt.datetime) else day
        own = self.filed_for(casino, game)
        pool = own or tuple(r for r in self.shipped if r.game == game)
        found = [r for r in pool if r.in_force_on(day)]
        if len(found) > 1:  # never for filed ones (__post_init__); shipped data error
            raise RulesetError(f"rulesets {', '.join(r.id for r in found)} for game {game!r} "
                               f"are all in force on {day.isoformat()}")
        if found:
            return found[0]
        if own:
            periods = "; ".join(f"{r.id} {_period(r)}" for r in own)
            raise NoRulesetInForceError(
                f"casino {casino} filed rulesets for {game} ({periods}) and none is in force "
                f"on {day.isoformat()}: not judged (a casino with filings for a game is never "
                f"judged by the shipped default)")
        raise NoRulesetInForceError(
            f"no ruleset for game {game!r} is in force on {day.isoformat()}")

    def find(self, ruleset_id: str, *, casino: str | None = None) -> Ruleset:
        """The ruleset ``ruleset_id``, shipped or filed; with ``casino``, only a shipped one
        or that casino's own (a table names no other casino's ruleset).
        :class:`UnknownRulesetError` says which."""
        for r in self.shipped:
            if r.id == ruleset_id:
                return r
        for r in self.filed:
            if r.id == ruleset_id:
                if casino is not None and r.casino != casino:
                    raise UnknownRulesetError(
                        f"ruleset {ruleset_id!r} is casino {r.casino}'s: a table of casino "
                        f"{casino} may name only its own rulesets or shipped ones")
                return r
        own = [r.id for r in self.filed if casino is None or r.casino == casino]
        raise UnknownRulesetError(
            f"unknown ruleset {ruleset_id!r}; shipped: "
            f"{', '.join(sorted(r.id for r in self.shipped))}"
            + (f"; filed{'' if casino is None else f' by casino {casino}'}: "
               f"{', '.join(sorted(own))}" if own else ""))

    def default(self, game: str) -> Ruleset:
        """The shipped ruleset ``game`` is judged under when nothing names one (a round
        document without ``ruleset``: replay.rulesets.DEFAULT_RULESET_IDS)."""
        ruleset_id = DEFAULT_RULESET_IDS.get(game) if isinstance(game, str) else None
        if ruleset_id is None:
            raise UnknownRulesetError(
                f"no default ruleset for game {game!r}; games with one: "
                f"{', '.join(sorted(DEFAULT_RULESET_IDS))}")
        return self.find(ruleset_id)

    def seat_order(self, casino: str, table_id: str,
                   when: dt.datetime | None) -> tuple[int, ...] | None:
        """The seats of ``casino``'s table ``table_id`` from the dealer's far right, right to
        left, by the layout in force at ``when`` (the round's dealt_at); None when the casino
        filed none for the table, none is in force then, or ``when`` is unknown."""
        return seat_order_at(self.layouts, casino, table_id, when)

    def manifest_files(self) -> list[dict[str, str]]:
        """The files that judged the outputs, as replay's manifest lists them (by path)."""
        return [f.entry() for f in sorted(self.files, key=lambda f: f.path)]


def _by_casino_and_game(rulesets: Iterable[Ruleset]) -> list[list[Ruleset]]:
    """The rulesets of each casino and game (by casino, then game), each group in the order
    of the days they come into force."""
    groups: dict[tuple[str | None, str], list[Ruleset]] = {}
    for r in rulesets:
        groups.setdefault((r.casino, r.game), []).append(r)
    return [sorted(groups[key], key=lambda r: (r.effective_from, r.id))
            for key in sorted(groups, key=lambda k: (k[0] or "", k[1]))]


def overlaps(rulesets: Iterable[Ruleset]) -> list[tuple[Ruleset, Ruleset]]:
    """Every pair of rulesets of one casino and game in force on a common day, each pair
    once, in the order of the days they come into force."""
    out = []
    for group in _by_casino_and_game(rulesets):
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if a.effective_to is None or b.effective_from < a.effective_to:
                    out.append((a, b))
    return out


def gaps(rulesets: Iterable[Ruleset]) -> list[tuple[Ruleset, Ruleset]]:
    """Each pair of consecutive rulesets of one casino and game with days between them when
    neither is in force (``a.effective_to`` before ``b.effective_from``); overlapping ones
    are :func:`overlaps`'."""
    out = []
    for group in _by_casino_and_game(rulesets):
        for a, b in itertools.pairwise(group):
            if a.effective_to is not None and a.effective_to < b.effective_from:
                out.append((a, b))
    return out


@cache
def shipped_book() -> Rulebook:
    """The rulebook of the shipped rulesets alone: what replay judges by when it is given
    no rulesets directory."""
    return Rulebook(shipped=shipped_rulesets())
