"""Rulesets: the house options and money policies a game is judged under, as frozen data.

docs/rules.md 6 and 6a: every default where the regulation text was not available (the
commission rate and its rounding, the wheel, the house way) is ruleset data, never a literal
in the rules engine. The shipped rulesets are the JSON files in ``replay/rulesets/``, one per
ruleset, named ``<id>.json``; this is the only module of ``replay`` that reads them (through
``importlib.resources``, so they load from a wheel as well as from a checkout).

A ruleset is in force from ``effective_from`` (inclusive) up to ``effective_to``
(exclusive), or open ended when ``effective_to`` is None; consecutive versions of a game's
ruleset therefore chain with ``old.effective_to == new.effective_from``.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from replay.errors import (
    NoRulesetInForceError,
    RulesetError,
    UnknownRulesetError,
)
from replay.ruleset_model import (
    CASINO_ID,
    Commission,
    CommissionBound,
    CommissionRounding,
    Payout,
    Paytable,
    Ruleset,
    Wheel,
    _day,
    _payout,
    read_once,
    strict_date,
)

__all__ = [
    "CASINO_ID", "DEFAULT_RULESET_IDS", "PROGRESSIVE_RESET_CENTS", "RULESET_KEYS", "Commission",
    "CommissionBound", "CommissionRounding", "Payout", "Paytable", "Ruleset", "Wheel",
    "default_ruleset", "load_ruleset", "read_once", "ruleset_from_dict", "ruleset_in_force",
    "shipped_rulesets", "strict_date",
]
"""Public: the reader's own names and the ruleset's data (:mod:`replay.ruleset_model`),
which the callers have always taken from here."""

_KEYS = frozenset(
    {"id", "game", "title", "effective_from", "effective_to", "commission", "options",
     "paytables", "source", "casino"}
)
RULESET_KEYS = _KEYS
"""The keys of a ruleset's JSON object (docs/rulesets.md)."""
_COMMISSION_KEYS = frozenset({"rate_bps", "rounding", "unit_cents", "lawful"})
_BOUND_KEYS = frozenset({"rounding", "unit_cents"})
_OPTION_KEYS = frozenset({"wheel", "house_way"})
PROGRESSIVE_RESET_CENTS = "progressive_reset_cents"
"""The option of the amount, in cents, a progressive meter resets to after a hit (the
check ``meter_discontinuity``; docs/rulesets.md). No rule text Catwalk holds gives one, so
the shipped rulesets name none, and a meter reading after a hit is not evaluated."""


_E = TypeVar("_E", bound=StrEnum)


def _enum_value(kind: type[_E], where: str, value: object) -> _E:
    try:
        if not isinstance(value, str):
            raise ValueError(value)
        return kind(value)
    except ValueError:
        raise RulesetError(
            f"{where} must be one of {[m.value for m in kind]}, got {value!r}"
        ) from None


def _lawful(source: str, data: object) -> dict[str, CommissionBound]:
    """The ``lawful`` object of a commission: ``lowest`` and ``highest``, each optional, each
    ``{"rounding": ..., "unit_cents": ...}`` (docs/rules.md 6a.19)."""
    where = f"{source}: commission lawful"
    if not isinstance(data, Mapping) or set(data) - {"lowest", "highest"}:
        raise RulesetError(
            f"{where} must be an object with keys lowest and/or highest, got {data!r}"
        )
    bounds: dict[str, CommissionBound] = {}
    for end, bound in data.items():
        if (not isinstance(bound, Mapping) or set(bound) - _BOUND_KEYS
                or "rounding" not in bound):
            raise RulesetError(
                f"{where} {end} must be an object with keys rounding and optionally "
                f"unit_cents, got {bound!r}"
            )
        try:
            bounds[end] = CommissionBound(
                rounding=_enum_value(CommissionRounding, f"{where} {end} rounding",
                                     bound["rounding"]),
                unit_cents=bound.get("unit_cents", 1),
            )
        except RulesetError as exc:
            raise RulesetError(f"{where} {end}: {exc}") from None
    return bounds


def ruleset_from_dict(
    data: Mapping[str, object], *, source: str = "<data>", base: Path | None = None
) -> Ruleset:
    """The :class:`Ruleset` described by ``data`` (the JSON layout of ``replay/rulesets/``).

    Unknown or missing keys raise :class:`RulesetError` naming ``source`` and the key, so a
    typo in a data file cannot silently fall back to a default. A ``house_way`` option ending
    in ``.way`` names a house-way file in the folder ``base`` (the ruleset file's folder); it
    is read and parsed into ``house_way_spec`` (errors name both files). Without ``base`` it
    stays unread, and the games refuse to judge by it (fail closed).
    """
    if not isinstance(data, Mapping):
        raise RulesetError(f"{source}: a ruleset must be a JSON object, got {data!r}")
    unknown = sorted(set(data) - _KEYS)
    missing = sorted({"id", "game", "title", "effective_from", "commission"} - set(data))
    if unknown or missing:
        raise RulesetError(f"{source}: unknown keys {unknown}, missing keys {missing}")
    commission = data["commission"]
    if (
        not isinstance(commission, Mapping)
        or set(commission) - _COMMISSION_KEYS
        or not {"rate_bps", "rounding"} <= set(commission)
    ):
        raise RulesetError(
            f"{source}: commission must be an object with keys rate_bps, rounding and "
            f"optionally unit_cents and lawful, got {commission!r}"
        )
    rate: dict[str, Any] = dict(commission)
    lawful = _lawful(source, rate.get("lawful", {}))
    options = data.get("options", {})
    if not isinstance(options, Mapping) or any(
        not isinstance(v, str | int | bool) for v in options.values()
    ):
        raise RulesetError(
            f"{source}: options must be an object of text, integer or true/false values, "
            f"got {options!r}"
        )
    tables = data.get("paytables", {})
    if not isinstance(tables, Mapping) or not all(isinstance(t, Mapping) for t in tables.values()):
        raise RulesetError(
            f"{source}: paytables must be an object of paytables (hand -> payout), got {tables!r}"
        )
    paytables = {
        name: {hand: _payout(f"{source}: paytable {name} {hand}", p) for hand, p in t.items()}
        for name, t in tables.items()
    }
    extra = {k: v for k, v in options.items() if k not in _OPTION_KEYS}
    reset = options.get(PROGRESSIVE_RESET_CENTS)
    if reset is not None and (type(reset) is not int or reset < 0):
        raise RulesetError(
            f"{source}: options {PROGRESSIVE_RESET_CENTS} must be a whole number of cents, "
            f"0 or more, got {reset!r}"
        )
    fields: dict[str, Any] = dict(data)
    house_way = options.get("house_way", "reference-1.3")
    spec = None
    if base is not None and isinstance(house_way, str) and house_way.endswith(".way"):
        from replay.house_ways import house_way_for_ruleset

        spec = house_way_for_ruleset(fields.get("game"), base, house_way, source=source)
    try:
        return Ruleset(
            id=fields["id"],
            game=fields["game"],
            title=fields["title"],
            effective_from=fields["effective_from"],
            effective_to=fields.get("effective_to"),
            commission=Commission(
                rate_bps=rate["rate_bps"],
                rounding=_enum_value(
                    CommissionRounding, f"{source}: commission rounding", rate["rounding"]
                ),
                unit_cents=rate.get("unit_cents", 1),
                **lawful,
            ),
            wheel=_enum_value(
                Wheel, f"{source}: options wheel", options.get("wheel", Wheel.SECOND_HIGHEST)
            ),
            house_way=house_way,
            paytables=paytables,
            options=extra,
            source=fields.get("source", ""),
            casino=fields.get("casino"),
            house_way_spec=spec,
        )
    except RulesetError as exc:
        raise RulesetError(f"{source}: {exc}") from None


@cache
def _shipped() -> Mapping[str, Ruleset]:
    found: dict[str, Ruleset] = {}
    folder = resources.files("replay").joinpath("rulesets")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        where = f"replay/rulesets/{entry.name}"
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise RulesetError(f"{where}: not valid JSON: {exc}") from None
        ruleset = ruleset_from_dict(data, source=where)
        if entry.name != f"{ruleset.id}.json":
            raise RulesetError(f"{where}: holds ruleset {ruleset.id!r}; name it {ruleset.id}.json")
        found[ruleset.id] = ruleset
    return MappingProxyType(found)


DEFAULT_RULESET_IDS: Mapping[str, str] = MappingProxyType(
    {
        "pai_gow_poker": "pai_gow_poker-classic-v1",
        "face_up_pai_gow": "face_up_pai_gow-pa688a-v1",
        "pai_gow_tiles": "pai_gow_tiles-pr-v1",
        "caribbean_stud": "caribbean_stud-standard-v1",
    }
)
"""The ruleset each game is judged under when neither the round nor a date names one."""


def shipped_rulesets() -> tuple[Ruleset, ...]:
    """Every shipped ruleset, by id."""
    return tuple(_shipped().values())


def load_ruleset(ruleset_id: str) -> Ruleset:
    """The shipped ruleset ``ruleset_id``; :class:`UnknownRulesetError` names an unknown one."""
    ruleset = _shipped().get(ruleset_id) if isinstance(ruleset_id, str) else None
    if ruleset is None:
        raise UnknownRulesetError(
            f"unknown ruleset {ruleset_id!r}; shipped: {', '.join(sorted(_shipped()))}"
        )
    return ruleset


def default_ruleset(game: str) -> Ruleset:
    """The ruleset ``game`` is judged under by default (:data:`DEFAULT_RULESET_IDS`)."""
    ruleset_id = DEFAULT_RULESET_IDS.get(game) if isinstance(game, str) else None
    if ruleset_id is None:
        raise UnknownRulesetError(
            f"no default ruleset for game {game!r}; games with one: "
            f"{', '.join(sorted(DEFAULT_RULESET_IDS))}"
        )
    return load_ruleset(ruleset_id)


def ruleset_in_force(game: str, on: dt.date) -> Ruleset:
    """The one shipped ruleset of ``game`` in force on the day ``on``.

    :class:`NoRulesetInForceError` names the game and the date when there is none; two in
    force at once is a data error (:class:`RulesetError` naming both).
    """
    day = _day(on)
    candidates = [r for r in _shipped().values() if r.game == game and r.in_force_on(day)]
    if not candidates:
        raise NoRulesetInForceError(
            f"no ruleset for game {game!r} is in force on {day.isoformat()}"
        )
    if len(candidates) > 1:
        raise RulesetError(
            f"rulesets {', '.join(r.id for r in candidates)} for game {game!r} are all in "
            f"force on {day.isoformat()}"
        )
    return candidates[0]
