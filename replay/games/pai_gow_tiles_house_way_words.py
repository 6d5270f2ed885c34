"""The vocabulary of a pai gow tiles house-way file (docs/house-way.md): which settings a
rule ``plays`` and what it ``prefer``s among them; and :func:`parse_tiles_house_way`, which
turns a file's text into a :class:`HouseWay` (PR pai gow tiles ¶ D; ¶ E: each casino submits
its own way and its exceptions).

A setting of four tiles is always written the way round that does not foul
(:func:`~replay.games.pai_gow_tiles_hands.settings`), so no rule of a parsed way can foul;
the last rule must play some setting of every hand (``highest_with_lowest`` or ``any``).
Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from replay.games.house_way_text import HouseWayFormatError, RuleText, read_way_text, where
from replay.games.pai_gow_tiles_hands import Setting, canonical
from replay.games.tile_ranks import SPECIAL_CLASSES, HandClass, single_rank
from replay.tiles import Tile

GAME = "pai_gow_tiles"
"""The ``game`` header of a pai gow tiles house way."""

Plays = Callable[[Setting], bool]
Prefer = Callable[[Setting], tuple[int, ...]]


def _supreme_pair(s: Setting) -> bool:
    return s.high_rank.hand_class is HandClass.GEE_JOON


def _pair_wong_gong(s: Setting) -> bool:
    return s.high_rank.hand_class in SPECIAL_CLASSES


def _tile_order(t: Tile) -> tuple[int, int]:
    """Highest-ranked first (6a.15); among equals, the first in FACES order (C6)."""
    return (-single_rank(t), t.index)


def _highest_with_lowest(s: Setting) -> bool:
    four = s.high + s.low
    pair = canonical((min(four, key=_tile_order), max(four, key=_tile_order)))
    return pair in (s.high, s.low)


def _points(values: frozenset[int]) -> Plays:
    def plays(s: Setting) -> bool:
        return s.high_rank.hand_class is HandClass.POINTS and s.high_rank.points in values

    return plays


PLAYS: Mapping[str, str] = {
    "supreme_pair": "the high hand is the Supreme Pair (Gee Joon)",
    "pair_wong_gong": "the high hand is a pair, wong or gong (or Gee Joon)",
    "points": "'points 9 8 7': the high hand is a point hand worth one of the values",
    "highest_with_lowest": "the highest-ranked tile is with the lowest-ranked tile (in either "
                           "hand; exactly one setting of every hand does so)",
    "any": "every setting (each the way round that does not foul)",
}
"""The words of a ``plays`` line (``A or B``: a setting either plays)."""
CATCH_ALL = frozenset({"highest_with_lowest", "any"})
"""Plays words that play some setting of every hand: a rule with one is a catch-all."""
PREFER: Mapping[str, tuple[str, Callable[[Setting], int]]] = {
    "special_hands": ("how many of the two hands are a pair, wong, gong or Gee Joon",
                      lambda s: (s.high_rank.hand_class in SPECIAL_CLASSES)
                      + (s.low_rank.hand_class in SPECIAL_CLASSES)),
    "high": ("the higher high hand", lambda s: s.high_rank.key),
    "low": ("the higher low hand", lambda s: s.low_rank.key),
}
"""The keys of a ``prefer`` line, compared in the order written (docs/rules.md 6a.15, 6a.16)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWayRule:
    """One rule of a tiles house way. ``plays`` says which of the three settings the rule
    may play (every one it plays is lawful); when some may, the one with the highest
    ``prefer`` is played (the first of :func:`settings` on equal preference: those are
    settings of identical ranks). ``clause`` cites PR pai gow tiles ¶ D (as "D.1" to "D.4")
    or names the completion (C1-C6)."""

    name: str
    clause: str
    text: str
    plays: Plays = field(repr=False, compare=False)
    prefer: Prefer = field(repr=False, compare=False)
    plays_words: str = ""
    prefer_words: str = ""
    exception: bool = False
    line: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWay:
    """A house way: rules tried in order; the first that may play some setting sets the
    hand (PR pai gow tiles ¶ D; ¶ E: each casino submits its own and its exceptions).
    ``completions`` are the decisions, (id, text), taken where the written rules are silent."""

    name: str
    title: str
    rules: tuple[HouseWayRule, ...]
    completions: tuple[tuple[str, str], ...] = ()
    source: str = ""
    game: str = GAME
    origin: str = field(default="", compare=False)
    text: str = field(default="", repr=False, compare=False)

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        """Pickled as its text (``origin`` the label it was read under), parsed again on
        loading: the compiled rules are closures, and the text is the way."""
        if not self.text:
            raise TypeError(f"house way {self.name!r} was not parsed from text")
        return _reparse, (self.text, self.origin)


def _plays(words: str, place: str) -> tuple[Plays, bool]:
    tests: list[Plays] = []
    catch_all = False
    for part in (p.split() for p in words.split(" or ")):
        if not part or part[0] not in PLAYS:
            raise HouseWayFormatError(
                f"{place}: unknown plays word {(part or [''])[0]!r}; plays: {', '.join(PLAYS)}")
        name, rest = part[0], part[1:]
        if name == "points":
            if not rest or not all(v.isdigit() and 0 <= int(v) <= 9 for v in rest):
                raise HouseWayFormatError(
                    f"{place}: 'points' takes values 0 to 9, e.g. 'points 9 8 7'; got "
                    f"{' '.join(rest)!r}")
            tests.append(_points(frozenset(int(v) for v in rest)))
            continue
        if rest:
            raise HouseWayFormatError(f"{place}: unknown word {rest[0]!r} after {name!r}")
        catch_all = catch_all or name in CATCH_ALL
        tests.append({"supreme_pair": _supreme_pair, "pair_wong_gong": _pair_wong_gong,
                      "highest_with_lowest": _highest_with_lowest,
                      "any": lambda s: True}[name])
    if len(tests) == 1:
        return tests[0], catch_all
    return (lambda s: any(t(s) for t in tests)), catch_all


def _prefer(words: str, place: str) -> Prefer:
    keys = words.split()
    for key in keys:
        if key not in PREFER:
            raise HouseWayFormatError(
                f"{place}: unknown prefer key {key!r}; keys: {', '.join(PREFER)}")
    if len(set(keys)) != len(keys):
        raise HouseWayFormatError(f"{place}: a prefer key is listed twice in {words!r}")
    reads = tuple(PREFER[k][1] for k in keys)
    return lambda s: tuple(read(s) for read in reads)


def _compile(r: RuleText, source: str) -> tuple[HouseWayRule, bool]:
    place = where(source, r.line, r.name)
    plays, prefer = r.one("plays"), r.one("prefer")
    for key in ("when", "front"):
        if r.one(key) is not None:
            raise HouseWayFormatError(
                f"{place}: {key!r} is for pai gow poker; tiles use 'plays' and 'prefer'")
    if plays is None:
        raise HouseWayFormatError(f"{place}: no 'plays' line")
    test, catch_all = _plays(plays[1], where(source, plays[0], r.name))
    order = _prefer(prefer[1], where(source, prefer[0], r.name)) if prefer else _prefer(
        "high low", place)
    clause = r.one("clause")
    assert clause is not None
    return HouseWayRule(
        name=r.name, clause=clause[1], text=r.text, plays=test, prefer=order,
        plays_words=plays[1], prefer_words=prefer[1] if prefer else "high low",
        exception=r.exception, line=r.line), catch_all


def parse_tiles_house_way(text: str, *, source: str) -> HouseWay:
    """The pai gow tiles :class:`HouseWay` a house-way file's ``text`` writes
    (docs/house-way.md); :class:`HouseWayFormatError` names ``source``, the line and the rule of
    what is wrong: an unknown word, a duplicate rule, a rule after a catch-all (it can never
    apply), no catch-all at the end, a wrong format or header, another game."""
    way = read_way_text(text, source=source)
    game = way.value("game")
    if game != GAME:
        raise HouseWayFormatError(
            f"{where(source, way.line_of('game'))}: game {game!r} is not a pai gow tiles "
            f"house way (game {GAME})")
    rules: list[HouseWayRule] = []
    after: str | None = None
    for r in way.rules:
        if after is not None:
            raise HouseWayFormatError(
                f"{where(source, r.line, r.name)}: can never apply: the earlier rule {after} "
                f"plays some setting of every hand")
        rule, catch_all = _compile(r, source)
        rules.append(rule)
        if catch_all:
            after = r.name
    if after is None:
        last = way.rules[-1]
        raise HouseWayFormatError(
            f"{where(source, last.line, last.name)}: no catch-all at the end: some hands may "
            f"be set by no rule; end with a rule that plays highest_with_lowest or any")
    return HouseWay(name=way.value("name"), title=way.value("title"), rules=tuple(rules),
                    completions=way.completions, source=way.value("source"), origin=source,
                    text=text)


def _reparse(text: str, origin: str) -> HouseWay:
    return parse_tiles_house_way(text, source=origin)
