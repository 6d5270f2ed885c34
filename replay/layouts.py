"""Table layouts: which seat is at the dealer's right, as the casino files it, by period.

"Starting with the player at the dealer's far right and continuing right to left around the
table" (PR pai gow tiles ¶ G, ¶ J) and "from the player banker's right side" (pai gow poker
procedure (7)) name places at the table, which no event carries: they are the table's
configuration. A casino files it in its rulesets directory (docs/rulesets.md "Table
layouts"), one file per table, ``DIR/<casino>/tables/<table_id>.json``::

    {"casino": "C02", "table_id": "T01",
     "layouts": [{"seats_from_dealer_right": [7, 6, 5, 4, 3, 2, 1],
                  "effective_from": "2026-01-01T00:00:00Z", "effective_to": null}]}

``seats_from_dealer_right``: the seats in the order the dealer goes round, from the seat at
the dealer's far right, right to left (counter-clockwise seen from above: docs/rules.md
6a.21). A layout is in force from ``effective_from`` (inclusive) up to ``effective_to``
(exclusive, null: no end), instants in UTC. :func:`check_layout_file` says every problem of
one file to a :class:`~replay.filing_checks.Reporter`; replay/filings.py reads the files.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from replay.errors import RulesetError

TABLES_FOLDER = "tables"
"""The folder of a casino's folder that holds its table layouts."""
LAYOUT_FILE_KEYS = frozenset({"casino", "table_id", "layouts"})
LAYOUT_KEYS = frozenset({"seats_from_dealer_right", "effective_from", "effective_to"})
TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A table id a layout may be filed for: as events carry it, and fit to name a file."""
MAX_SEATS = 64
"""The most seats one layout lists (a table has a handful)."""
_MAX_SEAT = 2**31 - 1


@dataclass(frozen=True, slots=True, kw_only=True)
class TableLayout:
    """One period of one table's layout: the seats from the dealer's far right, right to
    left, in force from ``effective_from`` up to ``effective_to`` (None: no end), UTC."""

    casino: str
    table_id: str
    seats_from_dealer_right: tuple[int, ...]
    effective_from: dt.datetime
    effective_to: dt.datetime | None = None
    source: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "seats_from_dealer_right", tuple(self.seats_from_dealer_right))
        seats = self.seats_from_dealer_right
        where = f"table {self.casino}/{self.table_id}"
        if not seats or any(type(s) is not int or not 1 <= s <= _MAX_SEAT for s in seats):
            raise RulesetError(f"{where}: seats_from_dealer_right lists seat numbers from 1, "
                               f"got {list(seats)!r}")
        if len(set(seats)) != len(seats):
            raise RulesetError(f"{where}: a seat is listed twice in {list(seats)!r}")
        for name in ("effective_from", "effective_to"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, dt.datetime)
                                      or value.utcoffset() != dt.timedelta(0)):
                raise RulesetError(f"{where}: {name} is an instant in UTC, got {value!r}")
        if self.effective_to is not None and self.effective_to <= self.effective_from:
            raise RulesetError(f"{where}: effective_to {self.effective_to.isoformat()} is not "
                               f"after effective_from {self.effective_from.isoformat()}")

    def in_force_at(self, when: dt.datetime) -> bool:
        """True when ``when`` is within [effective_from, effective_to)."""
        return self.effective_from <= when and (self.effective_to is None
                                                or when < self.effective_to)

    def period(self) -> str:
        end = f"up to {_iso(self.effective_to)}" if self.effective_to else "with no end date"
        return f"from {_iso(self.effective_from)} {end}"


def _iso(when: dt.datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


def layout_overlaps(layouts: Iterable[TableLayout]) -> list[tuple[TableLayout, TableLayout]]:
    """Every pair of layouts of one table in force at a common instant, each pair once."""
    groups: dict[tuple[str, str], list[TableLayout]] = {}
    for layout in layouts:
        groups.setdefault((layout.casino, layout.table_id), []).append(layout)
    out = []
    for key in sorted(groups):
        group = sorted(groups[key], key=lambda x: x.effective_from)
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if a.effective_to is None or b.effective_from < a.effective_to:
                    out.append((a, b))
    return out


def seat_order_at(layouts: Iterable[TableLayout], casino: str, table_id: str,
                  when: dt.datetime | None) -> tuple[int, ...] | None:
    """The seats from the dealer's far right of the layout of ``casino``'s table
    ``table_id`` in force at ``when``; None when none is (none filed for the table, a time
    outside every period) or ``when`` is unknown."""
    if when is None:
        return None
    for layout in layouts:
        if layout.casino == casino and layout.table_id == table_id and layout.in_force_at(when):
            return layout.seats_from_dealer_right
    return None


def parse_instant(value: object) -> dt.datetime:
    """An ISO 8601 instant with its offset (``2026-01-01T00:00:00Z``), in UTC; ValueError
    says what is wrong."""
    if not isinstance(value, str):
        raise ValueError(f"an instant is ISO 8601 text, got {value!r}")
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00", 1)
                                         if value.endswith("Z") else value)
    except ValueError:
        raise ValueError(f"{value!r} is not an ISO 8601 instant (2026-01-01T00:00:00Z)"
                         ) from None
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(f"{value!r} gives no offset from UTC: add Z (or +00:00)")
    return when.astimezone(dt.UTC)


def layout_file_problems(relative: str, data: Mapping[str, Any]
                         ) -> tuple[list[tuple[str, str | None, str]], list[TableLayout]]:
    """Every problem of one layout file ``relative`` (``<casino>/tables/<table_id>.json``)
    whose JSON object is ``data``, as (kind, key, detail) with kind a
    :class:`~replay.filing_checks.FilingProblemKind` value; and the layouts it files when it
    has none."""
    problems: list[tuple[str, str | None, str]] = []

    def say(kind: str, key: str | None, detail: str) -> None:
        problems.append((kind, key, detail))

    parts = relative.split("/")
    folder_casino, name = parts[0], parts[-1]
    for key in sorted(set(data) - LAYOUT_FILE_KEYS):
        say("unknown_key", key, "not a layout key; the keys are "
            f"{', '.join(sorted(LAYOUT_FILE_KEYS))}")
    casino = data.get("casino")
    if casino is None:
        say("layout", "casino", f"a layout names its casino: add \"casino\": "
            f"\"{folder_casino}\"")
    elif casino != folder_casino:
        say("layout", "casino", f"casino {casino!r} filed in the folder of casino "
            f"{folder_casino!r}")
    table_id = data.get("table_id")
    if not isinstance(table_id, str) or not TABLE_ID.fullmatch(table_id):
        say("bad_value", "table_id", f"{table_id!r} is not a table id (letters, digits, "
            "'_', '.', '-', as the events carry it)")
    elif name != f"{table_id}.json":
        say("layout", "table_id", f"holds the layout of table {table_id!r}; name it "
            f"{table_id}.json")
    entries = data.get("layouts")
    if not isinstance(entries, list) or not entries:
        say("bad_value", "layouts", "a list of the table's layouts, each "
            '{"seats_from_dealer_right": [...], "effective_from": "...", '
            '"effective_to": null}, at least one')
        entries = []
    layouts: list[TableLayout] = []
    periods: list[tuple[str, dt.datetime, dt.datetime | None]] = []
    for i, entry in enumerate(entries):
        key = f"layouts[{i}]"
        if not isinstance(entry, Mapping):
            say("bad_value", key, f"a layout is a JSON object, got {type(entry).__name__}")
            continue
        before = len(problems)
        for k in sorted(set(entry) - LAYOUT_KEYS):
            say("unknown_key", f"{key}.{k}", "not a layout key; the keys are "
                f"{', '.join(sorted(LAYOUT_KEYS))}")
        seats = entry.get("seats_from_dealer_right")
        if (not isinstance(seats, list) or not seats or len(seats) > MAX_SEATS
                or any(type(s) is not int or not 1 <= s <= _MAX_SEAT for s in seats)):
            say("bad_value", f"{key}.seats_from_dealer_right", "the seats from the dealer's "
                f"far right, right to left: a list of 1 to {MAX_SEATS} seat numbers from 1, "
                f"got {seats!r}")
        else:
            twice = sorted({s for s in seats if seats.count(s) > 1})
            if twice:
                say("seat_twice", f"{key}.seats_from_dealer_right",
                    f"seat{'s' if len(twice) > 1 else ''} {', '.join(map(str, twice))} "
                    "listed more than once: a seat has one place at the table")
        start = end = None
        if "effective_from" not in entry:
            say("bad_value", f"{key}.effective_from", "missing: the instant the layout comes "
                "into force (2026-01-01T00:00:00Z)")
        else:
            try:
                start = parse_instant(entry["effective_from"])
            except ValueError as exc:
                say("bad_value", f"{key}.effective_from", str(exc))
        if entry.get("effective_to") is not None:
            try:
                end = parse_instant(entry["effective_to"])
            except ValueError as exc:
                say("bad_value", f"{key}.effective_to", str(exc))
        if start is not None and end is not None and end <= start:
            say("bad_value", f"{key}.effective_to", f"{entry['effective_to']} is not after "
                f"effective_from {entry['effective_from']}")
        if start is not None and (end is None or end > start):
            periods.append((key, start, end))
        if (len(problems) == before and start is not None and isinstance(seats, list)
                and isinstance(table_id, str) and isinstance(casino, str)):
            layouts.append(TableLayout(casino=casino, table_id=table_id,
                                       seats_from_dealer_right=tuple(seats),
                                       effective_from=start, effective_to=end,
                                       source=f"{relative} {key}"))
    periods.sort(key=lambda p: p[1])
    for i, (a_key, _a_from, a_to) in enumerate(periods):
        for b_key, b_from, b_to in periods[i + 1:]:
            if a_to is not None and b_from >= a_to:
                continue
            ends = [e for e in (a_to, b_to) if e is not None]
            until = f"up to {_iso(min(ends))}" if ends else "with no end date"
            say("overlap", f"{b_key}.effective_from",
                f"table {table_id}'s layouts {a_key} and {b_key} are both in force from "
                f"{_iso(b_from)} {until}: one layout at a time")
    return problems, ([] if problems else layouts)
