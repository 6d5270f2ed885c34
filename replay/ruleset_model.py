"""The data of a ruleset: the commission and its rounding, the wheel, the payouts and the
:class:`Ruleset` itself, frozen and validated (docs/rules.md 6 and 6a).

Kept apart from :mod:`replay.rulesets`, which reads the shipped and filed rulesets (and the
house-way files they name), so that the games' rules can take a ruleset's data without
importing its reader: the games import this module, the reader imports the games' house-way
parsers, and nothing imports back. ``Ruleset.house_way_spec`` is the parsed house way
(:data:`replay.house_ways.HouseWaySpec`), typed here as any object for the same reason.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from enum import StrEnum
from types import MappingProxyType
from typing import Any, TypeVar

from replay.errors import MoneyError, RulesetError

_ID = re.compile(r"[a-z][a-z0-9_]*-[a-z0-9][a-z0-9_.-]*")
_GAME = re.compile(r"[a-z][a-z0-9_]*")
CASINO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A casino id a ruleset may belong to: as events carry it, and fit to name a folder."""
_BPS_WHOLE = 10_000


class CommissionRounding(StrEnum):
    """How a commission that is not a whole number of units is rounded (docs/rules.md 6a.1,
    6a.2)."""

    DOWN = "down"
    """Down to a multiple of ``unit_cents``: the house never over-collects (6a.1)."""
    UP_TO_UNIT = "up_to_unit"
    """Up to the next multiple of ``unit_cents`` (pai gow tiles vigorish, 6a.2)."""


class Wheel(StrEnum):
    """Where A-2-3-4-5 ranks among straights and straight flushes (docs/rules.md 1.1, 6a.4)."""

    SECOND_HIGHEST = "second_highest"
    """Below A-K-Q-J-T, above K-Q-J-T-9: most pai gow rule sets (Saint Lucia s.67, Rivers)."""
    LOWEST = "lowest"
    """Below 6-5-4-3-2 (Palace Casino; Caribbean stud)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommissionBound:
    """One end of a commission's lawful range: the rate rounded by ``rounding`` to a
    multiple of ``unit_cents`` (docs/rules.md 6a.2, 6a.19). JSON form:
    ``{"rounding": "down", "unit_cents": 1}``."""

    rounding: CommissionRounding
    unit_cents: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.rounding, str) and not isinstance(self.rounding, CommissionRounding):
            with suppress(ValueError):
                object.__setattr__(self, "rounding", CommissionRounding(self.rounding))
        if not isinstance(self.rounding, CommissionRounding):
            raise RulesetError(
                f"commission rounding must be one of {[r.value for r in CommissionRounding]}, "
                f"got {self.rounding!r}"
            )
        if type(self.unit_cents) is not int or self.unit_cents < 1:
            raise RulesetError(
                f"commission unit_cents must be a positive integer, got {self.unit_cents!r}"
            )

    def of(self, win_cents: int, rate_bps: int) -> int:
        """``rate_bps`` of ``win_cents`` rounded to this bound, at most the win (a commission
        never turns a winning wager into a loss: docs/rules.md 6a.2)."""
        return _rounded(win_cents, rate_bps, self.rounding, self.unit_cents)


def _rounded(win_cents: int, rate_bps: int, rounding: CommissionRounding,
             unit_cents: int) -> int:
    numerator = win_cents * rate_bps
    denominator = _BPS_WHOLE * unit_cents
    if rounding is CommissionRounding.DOWN:
        units = numerator // denominator
    else:
        units = -(-numerator // denominator)
    return min(units * unit_cents, win_cents)


_SPOT_WINS = (0, 1, 9, 10, 19, 20, 21, 24, 25, 26, 99, 100, 499, 500, 501, 700, 701, 1010,
              2500, 10_001, 123_456_789)
"""Wins on which a commission's collected amount is checked to lie in its lawful range when
the policy is made (the check is repeated on every win :meth:`Commission.lawful` is asked)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Commission:
    """The house's commission on a winning wager: ``rate_bps`` basis points of the win,
    rounded by ``rounding`` to a multiple of ``unit_cents`` (docs/rules.md 1.2, 6a.1, 6a.2),
    never more than the win (6a.2): the amount the house collects by default.

    ``lowest`` and ``highest`` state the lawful range where the texts let the house choose
    (docs/rules.md 6a.19): pai gow tiles from the exact 5% rounded down to the cent to 5%
    rounded up to the next 25 cents. Absent, that end is the collected amount itself (pai
    gow poker: a point). Integer arithmetic only: money is integer cents. A rounding may be
    given as its value (``"down"``, ``"up_to_unit"``); it is stored as the enum.
    """

    rate_bps: int
    rounding: CommissionRounding
    unit_cents: int = 1
    lowest: CommissionBound | None = None
    highest: CommissionBound | None = None
    ranged: bool = field(init=False, repr=False, compare=False)
    """Whether the lawful range can be wider than the collected amount (an end stated with
    another rounding or unit); when false, :meth:`lawful` is always the point, and the
    games skip it on their hot paths."""

    def __post_init__(self) -> None:
        if type(self.rate_bps) is not int or not 0 <= self.rate_bps <= _BPS_WHOLE:
            raise RulesetError(
                f"commission rate_bps must be an integer from 0 to {_BPS_WHOLE}, "
                f"got {self.rate_bps!r}"
            )
        object.__setattr__(self, "rounding", CommissionBound(
            rounding=self.rounding, unit_cents=self.unit_cents).rounding)
        for name in ("lowest", "highest"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, CommissionBound):
                raise RulesetError(
                    f"commission {name} must be a CommissionBound or absent, got {value!r}"
                )
        collected = CommissionBound(rounding=self.rounding, unit_cents=self.unit_cents)
        object.__setattr__(self, "ranged", any(
            end is not None and end != collected for end in (self.lowest, self.highest)))
        for win in _SPOT_WINS:
            self.lawful(win)

    def as_data(self) -> dict[str, Any]:
        """The commission in the JSON layout of ``replay/rulesets/`` (what
        :func:`ruleset_from_dict` reads back to an equal one), ``lawful`` only when an end
        is stated."""
        data: dict[str, Any] = {"rate_bps": self.rate_bps, "rounding": self.rounding.value,
                                "unit_cents": self.unit_cents}
        ends = {name: {"rounding": end.rounding.value, "unit_cents": end.unit_cents}
                for name, end in (("lowest", self.lowest), ("highest", self.highest))
                if end is not None}
        if ends:
            data["lawful"] = ends
        return data

    def on(self, win_cents: int) -> int:
        """The commission in cents the house collects on a win of ``win_cents`` cents.

        docs/rules.md 6a.1 (pai gow poker): 5% rounded down to the cent, so 2500 -> 125 and
        1010 -> 50 (50.5 rounded down). 6a.2 (pai gow tiles): 5% rounded up to the next
        multiple of 25 cents, so 700 -> 50, and never more than the win, so 10 -> 10.
        """
        if type(win_cents) is not int or win_cents < 0:
            raise MoneyError(f"a win must be non-negative integer cents, got {win_cents!r}")
        return _rounded(win_cents, self.rate_bps, self.rounding, self.unit_cents)

    def lawful(self, win_cents: int) -> tuple[int, int]:
        """The (lowest, highest) lawful commission in cents on a win of ``win_cents`` cents
        (docs/rules.md 6a.2, 6a.19); both ends are :meth:`on` when the policy states no
        range. Pai gow tiles: 700 -> (35, 50); 10 -> (0, 10) (0.5 cents rounded down; 25
        cents would exceed the win)."""
        point = self.on(win_cents)
        low = point if self.lowest is None else self.lowest.of(win_cents, self.rate_bps)
        high = point if self.highest is None else self.highest.of(win_cents, self.rate_bps)
        if not low <= point <= high:
            raise RulesetError(
                f"commission {self.rate_bps} bps {self.rounding.value} to {self.unit_cents} "
                f"cents: the amount collected on a win of {win_cents} cents ({point}) is "
                f"outside its lawful range {low} to {high}"
            )
        return low, high


@dataclass(frozen=True, slots=True, kw_only=True)
class Payout:
    """One line of a posted paytable: exactly one of

    - ``odds``: ``(win, stake)``, paid ``wager * win // stake`` ("8,000 to 1" is (8000, 1));
    - ``fixed_cents``: a fixed sum (Envy Bonus, a Progressive award of $2,500);
    - ``meter_bps``: a share of the progressive meter in basis points (10000 = 100%),
      rounded down to the cent (docs/rules.md 6a.13).

    JSON form: ``{"odds": [8000, 1]}``, ``{"fixed_cents": 250000}``, ``{"meter_bps": 1000}``.
    """

    odds: tuple[int, int] | None = None
    fixed_cents: int | None = None
    meter_bps: int | None = None

    def __post_init__(self) -> None:
        given = [x for x in (self.odds, self.fixed_cents, self.meter_bps) if x is not None]
        if len(given) != 1:
            raise RulesetError(
                f"a payout has exactly one of odds, fixed_cents, meter_bps: {self!r}"
            )
        if self.odds is not None:
            odds = tuple(self.odds)
            if (len(odds) != 2 or any(type(x) is not int for x in odds)
                    or odds[0] < 0 or odds[1] < 1):
                raise RulesetError(f"payout odds must be [win, stake] integers, got {self.odds!r}")
            object.__setattr__(self, "odds", odds)
        if self.fixed_cents is not None and (
            type(self.fixed_cents) is not int or self.fixed_cents < 0
        ):
            raise RulesetError(
                f"payout fixed_cents must be integer cents, got {self.fixed_cents!r}"
            )
        if self.meter_bps is not None and (
            type(self.meter_bps) is not int or not 0 < self.meter_bps <= _BPS_WHOLE
        ):
            raise RulesetError(
                f"payout meter_bps must be an integer from 1 to {_BPS_WHOLE}, "
                f"got {self.meter_bps!r}"
            )

    def win_cents(self, *, wager_cents: int, meter_cents: int = 0) -> int:
        """What this line pays: odds on the wager, a fixed sum, or a share of the meter
        (rounded down to the cent)."""
        if self.odds is not None:
            return wager_cents * self.odds[0] // self.odds[1]
        if self.fixed_cents is not None:
            return self.fixed_cents
        assert self.meter_bps is not None
        return meter_cents * self.meter_bps // _BPS_WHOLE


Paytable = Mapping[str, Payout]
"""A posted paytable: hand class (the game module's names) -> payout."""


def _payout(where: str, data: object) -> Payout:
    if not isinstance(data, Mapping) or set(data) - {"odds", "fixed_cents", "meter_bps"}:
        raise RulesetError(
            f"{where}: a payout is an object with one of odds, fixed_cents, meter_bps; "
            f"got {data!r}"
        )
    odds = data.get("odds")
    try:
        return Payout(
            odds=tuple(odds) if isinstance(odds, list) else odds,
            fixed_cents=data.get("fixed_cents"),
            meter_bps=data.get("meter_bps"),
        )
    except RulesetError as exc:
        raise RulesetError(f"{where}: {exc}") from None


def strict_date(value: object) -> dt.date | None:
    """``value`` read as a date written exactly YYYY-MM-DD, else None (no other spelling
    that ``date.fromisoformat`` would also take, such as 20261128)."""
    if not isinstance(value, str):
        return None
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        return None
    return day if day.isoformat() == value else None


def _iso_date(name: str, value: object) -> dt.date:
    day = strict_date(value)
    if day is None:
        raise RulesetError(f"{name} must be an ISO date string (YYYY-MM-DD), got {value!r}")
    return day


@dataclass(frozen=True, slots=True, kw_only=True)
class Ruleset:
    """One version of the rules a game is judged under (docs/rules.md 6, 6a, 7).

    ``id`` is ``<game>-<name>`` (``pai_gow_poker-classic-v1``); ``effective_from`` and
    ``effective_to`` are ISO dates (see the module docstring for the interval). The options:
    ``wheel`` (docs/rules.md 6a.4) and ``house_way``, the name of the house way the game
    module sets the dealer's hand by (docs/rules.md 7.5): a shipped name, or a house-way file
    (``flamingo.way``, docs/house-way.md) whose parsed way is ``house_way_spec``.
    ``source`` cites where the values come from. ``wheel`` may be given as its value
    (``"lowest"``); it is stored as the enum.
    ``casino``: the casino whose filing this is (docs/rulesets.md), None for Catwalk's own.
    """

    id: str
    game: str
    title: str
    effective_from: str
    effective_to: str | None
    commission: Commission
    wheel: Wheel = Wheel.SECOND_HIGHEST
    house_way: str = "reference-1.3"
    paytables: Mapping[str, Paytable] = field(default_factory=lambda: MappingProxyType({}))
    options: Mapping[str, str | int | bool] = field(
        default_factory=lambda: MappingProxyType({})
    )
    source: str = ""
    casino: str | None = None
    house_way_spec: Any = None

    def paytable(self, name: str) -> Paytable:
        """The posted paytable ``name``; RulesetError names the ruleset when it has none."""
        table = self.paytables.get(name)
        if table is None:
            raise RulesetError(
                f"ruleset {self.id} has no paytable {name!r}; it has "
                f"{', '.join(sorted(self.paytables)) or 'none'}"
            )
        return table

    def option(self, name: str) -> str | int | bool:
        """A game-specific option (e.g. ``qualifying_wager_cents``); RulesetError if absent."""
        if name not in self.options:
            raise RulesetError(
                f"ruleset {self.id} has no option {name!r}; it has "
                f"{', '.join(sorted(self.options)) or 'none'}"
            )
        return self.options[name]

    def __post_init__(self) -> None:
        object.__setattr__(self, "paytables", MappingProxyType(
            {k: MappingProxyType(dict(v)) for k, v in dict(self.paytables).items()}))
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        if not isinstance(self.id, str) or not _ID.fullmatch(self.id):
            raise RulesetError(f"ruleset id must look like 'game-name-v1', got {self.id!r}")
        if not isinstance(self.game, str) or not _GAME.fullmatch(self.game):
            raise RulesetError(f"ruleset {self.id}: game must be a game name, got {self.game!r}")
        if not self.id.startswith(self.game + "-"):
            raise RulesetError(
                f"ruleset id {self.id!r} must start with its game {self.game!r} and a hyphen"
            )
        if not isinstance(self.title, str) or not self.title:
            raise RulesetError(f"ruleset {self.id}: title must be non-empty, got {self.title!r}")
        start = _iso_date(f"ruleset {self.id}: effective_from", self.effective_from)
        if self.effective_to is not None:
            end = _iso_date(f"ruleset {self.id}: effective_to", self.effective_to)
            if end <= start:
                raise RulesetError(
                    f"ruleset {self.id}: effective_to {self.effective_to} must be after "
                    f"effective_from {self.effective_from}"
                )
        if not isinstance(self.commission, Commission):
            raise RulesetError(
                f"ruleset {self.id}: commission must be a Commission, got {self.commission!r}"
            )
        if isinstance(self.wheel, str) and not isinstance(self.wheel, Wheel):
            with suppress(ValueError):
                object.__setattr__(self, "wheel", Wheel(self.wheel))
        if not isinstance(self.wheel, Wheel):
            raise RulesetError(
                f"ruleset {self.id}: wheel must be one of {[w.value for w in Wheel]}, "
                f"got {self.wheel!r}"
            )
        if not isinstance(self.house_way, str) or not self.house_way:
            raise RulesetError(
                f"ruleset {self.id}: house_way must be a non-empty name, got {self.house_way!r}"
            )
        if not isinstance(self.source, str):
            raise RulesetError(f"ruleset {self.id}: source must be text, got {self.source!r}")
        if self.casino is not None and (
            not isinstance(self.casino, str) or not CASINO_ID.fullmatch(self.casino)
        ):
            raise RulesetError(
                f"ruleset {self.id}: casino must be a casino id as events carry it (letters, "
                f"digits, '_', '.', '-'; at most 64), got {self.casino!r}"
            )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (replay's spawned workers judge with it) as its fields, the read-only
        mappings as dicts; unpickled through the constructor, which validates again."""
        values: dict[str, Any] = {f.name: getattr(self, f.name) for f in dataclass_fields(self)}
        values["paytables"] = {name: dict(t) for name, t in self.paytables.items()}
        values["options"] = dict(self.options)
        return (_ruleset_of, (values,))

    def in_force_on(self, day: dt.date) -> bool:
        """True when ``day`` is within [effective_from, effective_to)."""
        day = _day(day)
        if day < dt.date.fromisoformat(self.effective_from):
            return False
        return self.effective_to is None or day < dt.date.fromisoformat(self.effective_to)



def _ruleset_of(values: dict[str, Any]) -> Ruleset:
    return Ruleset(**values)


def _day(day: dt.date) -> dt.date:
    if isinstance(day, dt.datetime):
        return day.date()
    if not isinstance(day, dt.date):
        raise RulesetError(f"expected a date, got {day!r}")
    return day


_T = TypeVar("_T")


def read_once(read: Callable[[Ruleset], _T]) -> Callable[[Ruleset], _T]:
    """``read`` (a ruleset's paytables checked and arranged for a game's hot path), done once
    per ruleset: the cache holds the ruleset itself, so its ``id()`` cannot be reused while
    cached, and it is emptied past 64 rulesets."""
    cached: dict[int, tuple[Ruleset, _T]] = {}

    def once(ruleset: Ruleset) -> _T:
        hit = cached.get(id(ruleset))
        if hit is not None and hit[0] is ruleset:
            return hit[1]
        value = read(ruleset)
        if len(cached) > 64:
            cached.clear()
        cached[id(ruleset)] = (ruleset, value)
        return value

    return once
