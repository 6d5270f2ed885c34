"""The vocabulary of a pai gow poker house-way file (docs/house-way.md): the hand classes a
rule's ``when`` names, their parameters, and the choices a rule's ``front`` puts in the 2-card
hand; and :func:`parse_poker_house_way`, which turns a file's text into a :class:`HouseWay`.

Each choice declares the shapes of seven cards (the sizes of their groups by rank, the joker
with the aces) for which it always has its cards and never fouls; the parser refuses a rule
whose choice may meet another shape, so a parsed house way never fouls by construction
(docs/house-way.md, "Why a parsed way never fouls"). Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from replay.cards import Card, Rank
from replay.games.house_way_text import HouseWayFormatError, RuleText, read_way_text, where
from replay.games.pai_gow_seven import Low, Seven, group_rank, is_ace, straight_splits
from replay.games.poker_ranks import rank_low

GAME = "pai_gow_poker"
"""The ``game`` header of a pai gow poker house way (Face Up pai gow poker uses the same)."""

Shape = tuple[int, ...]
ALL_SHAPES: tuple[Shape, ...] = (
    (5, 2), (5, 1, 1), (4, 3), (4, 2, 1), (4, 1, 1, 1), (3, 3, 1), (3, 2, 2), (3, 2, 1, 1),
    (3, 1, 1, 1, 1), (2, 2, 2, 1), (2, 2, 1, 1, 1), (2, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1, 1),
)
"""Every way seven cards group by rank (the joker with the aces)."""
_STRAIGHT_SHAPES = frozenset({(3, 1, 1, 1, 1), (2, 2, 2, 1), (2, 2, 1, 1, 1),
                              (2, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1, 1)})
CLASSES: Mapping[str, frozenset[Shape]] = {
    "five_aces": frozenset({(5, 2), (5, 1, 1)}),
    "four_of_a_kind": frozenset({(4, 3), (4, 2, 1), (4, 1, 1, 1)}),
    "two_three_of_a_kind": frozenset({(3, 3, 1)}),
    "full_house": frozenset({(3, 2, 2), (3, 2, 1, 1)}),
    "three_of_a_kind": frozenset({(3, 1, 1, 1, 1)}),
    "three_pair": frozenset({(2, 2, 2, 1)}),
    "two_pair": frozenset({(2, 2, 1, 1, 1)}),
    "one_pair": frozenset({(2, 1, 1, 1, 1, 1)}),
    "no_pair": frozenset({(1, 1, 1, 1, 1, 1, 1)}),
    "straight": _STRAIGHT_SHAPES,
}
"""The hand classes a ``when`` clause names, with the shapes each may have. ``straight``: the
best 5-card hand is a straight, flush, straight flush or royal flush (the joker completing it,
6a.3); the others are the groups by rank (a full house is three of a kind and one or two pairs;
four of a kind may have a pair or three of a kind beside it)."""
_PAIR_CLASSES = frozenset({"two_pair", "three_pair"})
RANKS: Mapping[str, int] = {
    "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 11, "Q": 12,
    "K": 13, "A": 14,
}
"""Rank words of a range (``2-6``, ``J-K``, ``A``), as the card notation writes them."""


def _main_rank(s: Seven) -> int:
    """The rank of the largest group (the highest of them when two are as large)."""
    return group_rank(max(s.groups, key=len)[0])


def _pair_ranks(s: Seven) -> tuple[int, ...]:
    return tuple(group_rank(g[0]) for g in s.sized(2))


def _beside(s: Seven) -> tuple[tuple[Card, ...], ...]:
    """The pairs or three of a kind beside five aces or four of a kind, highest first."""
    return tuple(g for g in s.groups if len(g) in (2, 3))


def _beside_rank(s: Seven) -> int:
    return group_rank(_beside(s)[0][0])


def _with_ace(s: Seven) -> bool:
    return bool(s.singles) and is_ace(s.singles[0])


def _without_ace(s: Seven) -> bool:
    return not _with_ace(s)


def _with_ace_face(s: Seven) -> bool:
    """An ace (or the joker) and a jack, queen or king are the two highest unmatched cards."""
    return len(s.singles) >= 2 and is_ace(s.singles[0]) and s.singles[1].rank >= Rank.JACK


def _with_ace_king(s: Seven) -> bool:
    """An ace (or the joker) and a king are the two highest unmatched cards."""
    return len(s.singles) >= 2 and is_ace(s.singles[0]) and s.singles[1].rank is Rank.KING


def _full_house_pair(s: Seven) -> int:
    pairs = s.sized(2)
    return group_rank(pairs[0][0]) if pairs else 0


PARAMETERS: Mapping[str, tuple[frozenset[str], str]] = {
    "ranks": (frozenset({"four_of_a_kind", "three_of_a_kind", "one_pair", "full_house",
                         "two_three_of_a_kind"}),
              "the rank of the four, three or pair (of the three in a full house; of the "
              "higher three of two)"),
    "high": (_PAIR_CLASSES, "the rank of the highest pair"),
    "low": (_PAIR_CLASSES, "the rank of the lowest pair"),
    "pair": (frozenset({"full_house"}), "the rank of the (highest) pair of a full house"),
    "with": (frozenset(CLASSES), "with ace | with ace_face | with ace_king | with pair [R-R]"),
    "without": (frozenset(CLASSES), "without ace | without pair"),
}
"""What may follow a class in a ``when`` clause: the classes each applies to, and its words."""


def _rank_range(text: str, place: str) -> tuple[int, int]:
    low, dash, high = text.partition("-")
    if low in RANKS and (not dash or high in RANKS):
        lo, hi = RANKS[low], RANKS[high] if dash else RANKS[low]
        if lo <= hi:
            return lo, hi
    raise HouseWayFormatError(
        f"{place}: bad rank range {text!r}; a range is R or LOW-HIGH, low first, of the ranks "
        f"{' '.join(RANKS)}")


Test = Callable[[Seven], bool]


def _in(read: Callable[[Seven], int], lo: int, hi: int) -> Test:
    return lambda s: lo <= read(s) <= hi


def _clause(words: list[str], place: str) -> tuple[frozenset[Shape], tuple[Test, ...], bool]:
    """(shapes, tests, shape_only) of one ``when`` clause: CLASS [PARAMETER VALUE]..."""
    name = words[0]
    if name not in CLASSES:
        raise HouseWayFormatError(
            f"{place}: unknown hand class {name!r}; classes: {', '.join(CLASSES)}")
    shapes = CLASSES[name]
    tests: list[Test] = []
    shape_only = name != "straight"
    if name == "straight":
        tests.append(lambda s: bool(straight_splits(s)))
    rest = words[1:]
    while rest:
        key = rest.pop(0)
        if key not in PARAMETERS:
            raise HouseWayFormatError(
                f"{place}: unknown word {key!r} after {name}; parameters: "
                f"{', '.join(PARAMETERS)}")
        applies, _ = PARAMETERS[key]
        if name not in applies:
            raise HouseWayFormatError(
                f"{place}: {key!r} does not apply to {name}; it applies to "
                f"{', '.join(sorted(applies))}")
        if not rest:
            raise HouseWayFormatError(f"{place}: {key!r} needs a value")
        value = rest.pop(0)
        if key in ("ranks", "high", "low", "pair"):
            lo, hi = _rank_range(value, place)
            read = {"ranks": _main_rank, "pair": _full_house_pair,
                    "high": lambda s: _pair_ranks(s)[0],
                    "low": lambda s: _pair_ranks(s)[-1]}[key]
            tests.append(_in(read, lo, hi))
            shape_only = False
        elif value == "ace":
            tests.append(_with_ace if key == "with" else _without_ace)
            shape_only = False
        elif value in ("ace_face", "ace_king") and key == "with":
            shapes = frozenset(sh for sh in shapes if sh.count(1) >= 2)
            tests.append(_with_ace_face if value == "ace_face" else _with_ace_king)
            shape_only = False
        elif value == "pair" and name in ("four_of_a_kind", "five_aces"):
            beside = frozenset(sh for sh in shapes if sh[1] in (2, 3))
            shapes = beside if key == "with" else shapes - beside
            if key == "with" and rest and (rest[0] in RANKS or "-" in rest[0]):
                lo, hi = _rank_range(rest.pop(0), place)
                tests.append(_in(_beside_rank, lo, hi))
                shape_only = False
        else:
            raise HouseWayFormatError(
                f"{place}: unknown word {value!r} after {key!r}; "
                f"{PARAMETERS[key][1]}" + ("" if value != "pair" else
                                           " ('pair' applies to five_aces and four_of_a_kind)"))
    return shapes, tuple(tests), shape_only


def _pair_of_aces(s: Seven) -> Low:
    quint = s.sized(5)
    return quint[0][3:5] if quint else None


def _highest_pair(s: Seven) -> Low:
    if s.sized(4) or s.sized(5):
        beside = _beside(s)
        return beside[0][-2:] if beside else None
    pairs = s.sized(2)
    return pairs[0] if pairs else None


def _lower_pair(s: Seven) -> Low:
    pairs = s.sized(2)
    return pairs[1] if len(pairs) >= 2 else None


def _lowest_pair(s: Seven) -> Low:
    pairs = s.sized(2)
    return pairs[-1] if len(pairs) >= 2 else None


def _two_highest_singles(s: Seven) -> Low:
    return s.singles[:2] if len(s.singles) >= 2 else None


def _second_and_third_singles(s: Seven) -> Low:
    return s.singles[1:3] if len(s.singles) >= 3 else None


def _split_four(s: Seven) -> Low:
    quads = s.sized(4)
    return quads[0][2:4] if quads else None


def _split_higher_three(s: Seven) -> Low:
    trips = s.sized(3)
    return trips[0][1:3] if len(trips) == 2 else None


def _one_of_three_and_highest_single(s: Seven) -> Low:
    trips = s.sized(3)
    return (trips[0][2], s.singles[0]) if trips and s.singles else None


def _straight(s: Seven) -> Low:
    lows = straight_splits(s)
    return lows[0] if lows else None


def _straight_with_pair_in_front(s: Seven) -> Low:
    lows = straight_splits(s)
    return lows[0] if lows and rank_low(lows[0]).is_pair else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Choice:
    """A choice of ``front``: ``low`` gives the 2-card hand (None when the hand has no such
    cards), ``always`` the shapes for which it has them and never fouls; ``partial`` choices
    keep a straight or better behind, may have no cards (the rule then does not apply) and
    never foul."""

    name: str
    text: str
    always: frozenset[Shape]
    partial: bool = False
    low: Callable[[Seven], Low] | None = field(default=None, repr=False, compare=False)


def _c(name: str, text: str, always: tuple[Shape, ...], low: Callable[[Seven], Low] | None,
       partial: bool = False) -> Choice:
    return Choice(name=name, text=text, always=frozenset(always), partial=partial, low=low)


_SINGLES2 = ((5, 1, 1), (4, 1, 1, 1), (3, 2, 1, 1), (3, 1, 1, 1, 1), (2, 2, 1, 1, 1),
             (2, 1, 1, 1, 1, 1))
CHOICES: Mapping[str, Choice] = {c.name: c for c in (
    _c("pair_of_aces", "two of the five aces (the joker and the first ace)",
       ((5, 2), (5, 1, 1)), _pair_of_aces),
    _c("highest_pair", "the highest pair; beside five aces or four of a kind, the highest "
       "pair or three of a kind there (two of its cards)",
       ((5, 2), (4, 3), (4, 2, 1), (3, 2, 2), (3, 2, 1, 1), (2, 2, 2, 1)), _highest_pair),
    _c("lower_pair", "the second-highest pair", ((3, 2, 2), (2, 2, 2, 1), (2, 2, 1, 1, 1)),
       _lower_pair),
    _c("lowest_pair", "the lowest pair", ((3, 2, 2), (2, 2, 2, 1), (2, 2, 1, 1, 1)),
       _lowest_pair),
    _c("two_highest_singles", "the two highest unmatched cards", _SINGLES2,
       _two_highest_singles),
    _c("second_and_third_singles", "the second and third highest unmatched cards",
       ((4, 1, 1, 1), (3, 1, 1, 1, 1), (2, 2, 1, 1, 1), (2, 1, 1, 1, 1, 1),
        (1, 1, 1, 1, 1, 1, 1)), _second_and_third_singles),
    _c("split_four", "two of the four of a kind (the other two stay behind)",
       ((4, 3), (4, 2, 1), (4, 1, 1, 1)), _split_four),
    _c("split_higher_three", "two of the higher three of a kind", ((3, 3, 1),),
       _split_higher_three),
    _c("one_of_three_and_highest_single", "one of the three of a kind and the highest "
       "unmatched card (a pair of them stays behind)", ((3, 2, 1, 1), (3, 1, 1, 1, 1)),
       _one_of_three_and_highest_single),
    _c("straight", "keep a straight, flush or straight flush behind, the best 2-card hand "
       "that leaves in front", (), _straight, partial=True),
    _c("straight_with_pair_in_front", "as straight, when that 2-card hand is a pair", (),
       _straight_with_pair_in_front, partial=True),
    _c("pair_rules", "the pair the way's own later two_pair and three_pair rules put in front "
       "(when they put a pair there)", (), None, partial=True),
)}
"""The choices a ``front`` line names (``A or B``: A preferred, both lawful)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWayRule:
    """One rule of a house way, as its file writes it: ``name``, ``clause`` (the casino's
    rule it cites), ``when`` (the condition), ``front`` (the choices, preferred first),
    ``text`` and whether it is an ``exception`` (placed before the general rules). The
    compiled ``applies`` and ``lows`` do the work."""

    name: str
    clause: str
    text: str
    when: str = ""
    front: tuple[str, ...] = ()
    exception: bool = False
    line: int = 0
    shapes: frozenset[Shape] = frozenset()
    test: Callable[[Seven], bool] | None = field(repr=False, compare=False, default=None)
    lows: tuple[Callable[[Seven], Low], ...] = field(repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.clause, str):
            raise HouseWayFormatError(f"a house-way rule needs a name and a clause: {self!r}")

    def applies(self, s: Seven) -> bool:
        """Whether the rule's condition holds for ``s`` (its choices may still lack cards)."""
        return s.shape in self.shapes and (self.test is None or self.test(s))

    def low(self, s: Seven) -> Low:
        """The preferred 2-card hand when the rule applies (and has its cards), else None."""
        return self.lows[0](s) if self.applies(s) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseWay:
    """A casino's pai gow poker house way: rules tried in order, the first that applies (and
    whose preferred choice has its cards) sets the hand; its other choices are lawful too."""

    name: str
    title: str
    rules: tuple[HouseWayRule, ...]
    source: str = ""
    completions: tuple[tuple[str, str], ...] = ()
    game: str = GAME
    origin: str = field(default="", compare=False)
    text: str = field(default="", repr=False, compare=False)
    by_shape: Mapping[Shape, tuple[HouseWayRule, ...]] = field(
        default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.rules:
            raise HouseWayFormatError(f"house way {self.name!r} has no rules")
        object.__setattr__(self, "by_shape", MappingProxyType({
            sh: tuple(r for r in self.rules if sh in r.shapes) for sh in ALL_SHAPES}))

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        """Pickled as its text (``origin`` the label it was read under), parsed again on
        loading: the compiled rules are closures, and the text is the way."""
        if not self.text:
            raise TypeError(f"house way {self.name!r} was not parsed from text")
        return _reparse, (self.text, self.origin)


def _test(tests: tuple[Test, ...]) -> Test | None:
    if not tests:
        return None
    if len(tests) == 1:
        return tests[0]
    return lambda s: all(t(s) for t in tests)


def _pair_rules(later: list[HouseWayRule]) -> Callable[[Seven], Low]:
    def low(s: Seven) -> Low:
        for rule in later:
            if rule.applies(s):
                got = rule.lows[0](s)
                if got is not None:
                    return got if rank_low(got).is_pair else None
        return None

    return low


def _shape_words(shape: Shape) -> str:
    return "+".join(map(str, shape))


def _compile(r: RuleText, source: str, remaining: set[Shape], taken: dict[Shape, str],
             later: list[HouseWayRule]) -> HouseWayRule:
    """One rule; the shapes it takes every hand of leave ``remaining`` for ``taken``."""
    place = where(source, r.line, r.name)
    when, front = r.one("when"), r.one("front")
    for missing, got in (("when", when), ("front", front)):
        if got is None:
            raise HouseWayFormatError(f"{place}: no {missing!r} line")
    assert when is not None and front is not None
    for key in ("plays", "prefer"):
        if r.one(key) is not None:
            raise HouseWayFormatError(f"{place}: {key!r} is for pai gow tiles; cards use "
                                      f"'when' and 'front'")
    place = where(source, when[0], r.name)
    shapes = frozenset(ALL_SHAPES)
    tests: list[Test] = []
    shape_only = True
    for part in when[1].split(" and "):
        words = part.split()
        if not words:
            raise HouseWayFormatError(f"{place}: an empty clause in {when[1]!r}")
        got_shapes, got_tests, only = _clause(words, place)
        shapes &= got_shapes
        tests += got_tests
        shape_only = shape_only and only
    effective = frozenset(sh for sh in shapes if sh in remaining)
    if not effective:
        takers = sorted({taken[sh] for sh in shapes if sh in taken})
        raise HouseWayFormatError(
            f"{place}: can never apply: earlier rules take every hand it names "
            f"({when[1]!r})" + (f": {', '.join(takers)}" if takers else ""))
    place = where(source, front[0], r.name)
    names = [w.strip() for w in front[1].split(" or ")]
    choices: list[Choice] = []
    for name in names:
        choice = CHOICES.get(name)
        if choice is None:
            raise HouseWayFormatError(
                f"{place}: unknown choice {name!r}; choices: {', '.join(CHOICES)}")
        if name in (c.name for c in choices):
            raise HouseWayFormatError(f"{place}: choice {name!r} listed twice")
        if not choice.partial and not effective <= choice.always:
            bad = sorted(effective - choice.always, reverse=True)
            raise HouseWayFormatError(
                f"{place}: choice {name!r} fouls or has no cards for some hands this rule "
                f"takes (groups {', '.join(map(_shape_words, bad))}); it sets only groups "
                f"{', '.join(map(_shape_words, sorted(choice.always, reverse=True)))}")
        if choice.partial and "straight" not in when[1].split():
            raise HouseWayFormatError(
                f"{place}: choice {name!r} keeps a straight behind; its rule's 'when' must "
                f"name straight")
        choices.append(choice)
    lows = tuple(c.low if c.low is not None else _pair_rules(later) for c in choices)
    if shape_only and not choices[0].partial:
        for sh in effective:
            remaining.discard(sh)
            taken[sh] = r.name
    return HouseWayRule(name=r.name, clause=r.one("clause")[1],  # type: ignore[index]
                        text=r.text, when=when[1], front=tuple(names), exception=r.exception,
                        line=r.line, shapes=shapes, test=_test(tuple(tests)), lows=lows)


def parse_poker_house_way(text: str, *, source: str) -> HouseWay:
    """The pai gow poker :class:`HouseWay` a house-way file's ``text`` writes (docs/house-way.md);
    :class:`HouseWayFormatError` names ``source``, the line and the rule of what is wrong:
    an unknown word, class or choice, a bad rank range, a duplicate rule, a rule that can never
    apply, a choice that could foul, no rule for some hands, a wrong format or header."""
    way = read_way_text(text, source=source)
    game = way.value("game")
    if game != GAME:
        raise HouseWayFormatError(
            f"{where(source, way.line_of('game'))}: game {game!r} is not a pai gow poker "
            f"house way (game {GAME})")
    remaining = set(ALL_SHAPES)
    taken: dict[Shape, str] = {}
    rules = _compile_all(way.rules, source, remaining, taken)
    return HouseWay(name=way.value("name"), title=way.value("title"), rules=tuple(rules),
                    source=way.value("source"), completions=way.completions, origin=source,
                    text=text)


def _reparse(text: str, origin: str) -> HouseWay:
    return parse_poker_house_way(text, source=origin)


def _compile_all(texts: tuple[RuleText, ...], source: str, remaining: set[Shape],
                 taken: dict[Shape, str]) -> list[HouseWayRule]:
    """Compile in order (what earlier rules take is known to later ones); the ``pair_rules``
    choice reads the later two_pair and three_pair rules, filled in once all are compiled."""
    rules: list[HouseWayRule] = []
    holders: list[list[HouseWayRule]] = []
    for r in texts:
        later: list[HouseWayRule] = []
        rules.append(_compile(r, source, remaining, taken, later))
        holders.append(later)
    for i, later in enumerate(holders):
        later += [rule for rule in rules[i + 1:]
                  if set(rule.when.replace(" and ", " ").split()) & _PAIR_CLASSES
                  and not {w for w in rule.when.split() if w in CLASSES} - _PAIR_CLASSES]
    if remaining:
        left = sorted(remaining, reverse=True)
        classes = sorted({c for c, shs in CLASSES.items() if c != "straight"
                          for sh in left if sh in shs})
        raise HouseWayFormatError(
            f"{where(source, texts[-1].line, texts[-1].name)}: no catch-all at the end: some "
            f"hands are set by no rule ({', '.join(classes)}; groups "
            f"{', '.join(map(_shape_words, left))}); end with a rule for each class without "
            f"parameters, e.g. 'when {classes[0]}'")
    return rules
