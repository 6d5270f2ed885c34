"""The Flags page's list: ``checks/flags.parquet`` filtered, searched and sorted in DuckDB,
with each flag's case status (dashboard/cases.py) joined on its key, a page of rows for the
screen and every row for the CSV export.

Money leaves SQL exact: integer cents, and dollars as ``DECIMAL(38,2)`` (an Arrow
``decimal128``) computed as cents times 0.01, never as a float division, so that a money
column sorts as numbers (-$25.00 < -$10.00 < -$5.00) and exports as ``12.50``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from dashboard import data
from dashboard.cases import FLAG_KEY_FIELDS, CaseState
from dashboard.context import Filters

PAGE_ROWS = 1000
"""The most rows the page shows at once (the count of all the matching flags is shown)."""

STATUSES = ("new", "acknowledged", "resolved")
DIRECTIONS = {"over": "overpaid", "under": "underpaid", "none": "no money"}
"""``direction`` as the filter offers it: ``none`` is a flag that is not about money, or
whose recorded and expected amounts are equal."""

_SEVERITY_RANK = "CASE severity " + " ".join(
    f"WHEN '{name}' THEN {rank}" for rank, name in enumerate(data.SEVERITIES)
) + f" ELSE {len(data.SEVERITIES)} END"

SORTS: Mapping[str, str] = {
    "time": "occurred_at",
    "severity": _SEVERITY_RANK,
    "money at stake": "amount_at_stake_cents",
    "difference": "difference_cents",
    "check": "check_id",
    "table": "casino, table_id",
    "dealer": "dealer_id",
    "round": "round_id",
}
"""What the list can be sorted by (the first is the default): name -> SQL. Severity sorts
most severe first when descending."""

_TIEBREAK = "occurred_at DESC NULLS LAST, casino, table_id, round_id, seat NULLS FIRST, check_id"


def key_sql(prefix: str = "") -> str:
    """SQL for :func:`dashboard.cases.flag_key` of a row of flags.parquet: the fields of
    FLAG_KEY_FIELDS joined by ``|``, ``-`` for null, ``\\`` and ``|`` escaped with ``\\``, a
    value that is a lone ``-`` written ``\\-``; the seat as a whole number."""
    parts = []
    for field in FLAG_KEY_FIELDS:
        column = f"{prefix}{field}"
        if field == "seat":
            parts.append(f"coalesce(CAST({column} AS VARCHAR), '-')")
            continue
        escaped = f"replace(replace({column}, '\\', '\\\\'), '|', '\\|')"
        parts.append(f"CASE WHEN {column} IS NULL THEN '-' WHEN {column} = '-' THEN '\\-' "
                     f"ELSE {escaped} END")
    return " || '|' || ".join(parts)


def cases_table(states: Mapping[str, CaseState]) -> pa.Table:
    """The case states as a relation to join on the flag key: ``key``, ``case_status``,
    ``disposition``, ``recovered_cents``, ``case_by``, ``case_at``."""
    rows = list(states.values())
    return pa.table({
        "key": pa.array([s.key for s in rows], pa.string()),
        "case_status": pa.array([s.status for s in rows], pa.string()),
        "disposition": pa.array([s.disposition for s in rows], pa.string()),
        "recovered_cents": pa.array([s.amount_recovered_cents for s in rows], pa.int64()),
        "case_by": pa.array([s.by for s in rows], pa.string()),
        "case_at": pa.array([s.at for s in rows], pa.string()),
    })


@dataclass(frozen=True, slots=True, kw_only=True)
class FlagQuery:
    """What the analyst asked for: an empty tuple means every value."""

    checks: tuple[str, ...] = ()
    severities: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    directions: tuple[str, ...] = ()
    """Keys of :data:`DIRECTIONS`."""
    statuses: tuple[str, ...] = ()
    """Of :data:`STATUSES`; ignored without cases."""
    search: str = ""
    """Found, ignoring case, in the round id, table, dealer or detail."""
    sort: str = "time"
    descending: bool = True

    def __post_init__(self) -> None:
        if self.sort not in SORTS:
            raise ValueError(f"sort by one of {', '.join(SORTS)}, not {self.sort!r}")
        unknown = [d for d in self.directions if d not in DIRECTIONS]
        unknown += [s for s in self.statuses if s not in STATUSES]
        if unknown:
            raise ValueError(f"unknown direction or status {unknown}")


@dataclass(frozen=True, slots=True, kw_only=True)
class FlagPage:
    total: int
    """How many flags match (all of them, not only the rows)."""
    rows: pa.Table
    """At most the limit asked for, in order (see :func:`flag_page` for the columns)."""


def _in(column: str, values: Sequence[str]) -> tuple[str, list[Any]]:
    return f"{column} IN ({', '.join('?' for _ in values)})", list(values)


def _relation(
    root: Path, filters: Filters, query: FlagQuery, *, with_cases: bool
) -> tuple[str, list[Any]]:
    """``SELECT ... FROM flags [LEFT JOIN cases] WHERE ...`` and its parameters."""
    where, params = filters.where(time_column="occurred_at", prefix="f.")
    parts = [where]
    for column, values in (("f.check_id", query.checks), ("f.severity", query.severities),
                           ("coalesce(f.kind, 'rule')", query.kinds)):
        if values:
            sql, more = _in(column, values)
            parts.append(sql)
            params += more
    if query.directions:
        ways = [d for d in query.directions if d != "none"]
        either = []
        if ways:
            sql, more = _in("f.direction", ways)
            either.append(sql)
            params += more
        if "none" in query.directions:
            either.append("f.direction IS NULL")
        parts.append(f"({' OR '.join(either)})")
    if with_cases and query.statuses:
        sql, more = _in("coalesce(c.case_status, 'new')", query.statuses)
        parts.append(sql)
        params += more
    term = query.search.strip().lower()
    if term:
        parts.append("(" + " OR ".join(
            f"contains(lower(coalesce(f.{column}, '')), ?)"
            for column in ("round_id", "table_id", "dealer_id", "detail")) + ")")
        params += [term] * 4
    status = "NULL::VARCHAR AS case_status, NULL::VARCHAR AS disposition"
    join = ""
    if with_cases:
        status = "coalesce(c.case_status, 'new') AS case_status, c.disposition"
        join = "LEFT JOIN case_states AS c ON c.key = f.flag_key"
    sql = (
        f"SELECT f.*, {status} FROM (SELECT *, {key_sql()} AS flag_key FROM read_parquet(?)) "
        f"AS f {join} WHERE {' AND '.join(parts)}"
    )
    return sql, [str(root / data.FLAGS), *params]


def _order(query: FlagQuery) -> str:
    way = "DESC" if query.descending else "ASC"
    if query.sort == "severity":  # rank 0 is the most severe
        columns = f"{_SEVERITY_RANK} {'ASC' if query.descending else 'DESC'}"
    else:
        columns = ", ".join(f"{c} {way} NULLS LAST" for c in SORTS[query.sort].split(", "))
    return f"ORDER BY {columns}, {_TIEBREAK}"


def _dollars(column: str) -> str:
    return f"CAST({column} AS DECIMAL(38,0)) * 0.01::DECIMAL(3,2)"


def flag_page(
    con: duckdb.DuckDBPyConnection, root: Path, filters: Filters, query: FlagQuery,
    cases: pa.Table | None, *, limit: int = PAGE_ROWS,
) -> FlagPage:
    """The matching flags, at most ``limit`` of them, for the screen: ``severity``,
    ``check``, ``time`` (UTC timestamp), ``casino``, ``table``, ``dealer``, ``game``,
    ``round``, ``seat``, ``wager``, ``recorded``, ``expected``, ``difference`` (dollars,
    decimal128; difference = recorded - expected, positive when overpaid), ``direction``,
    ``case status`` (null without cases), ``detail``, ``title``, ``kind``, ``key`` (the
    flag's case key), and how many match in all."""
    data.require(con, root, data.FLAGS, data.FLAG_COLUMNS)
    sql, params = _relation(root, filters, query, with_cases=cases is not None)
    listing = (
        "SELECT severity, check_id AS \"check\", occurred_at AS \"time\", casino, "
        "table_id AS \"table\", dealer_id AS dealer, game, round_id AS \"round\", seat, wager, "
        f"{_dollars('recorded_cents')} AS recorded, {_dollars('expected_cents')} AS expected, "
        f"{_dollars('difference_cents')} AS difference, direction, "
        "case_status AS \"case status\", detail, title, coalesce(kind, 'rule') AS kind, "
        f"flag_key AS \"key\" FROM ({sql}) {_order(query)} LIMIT {int(limit)}"
    )
    with con.cursor() as cur:
        if cases is not None:
            cur.register("case_states", cases)
        ((total,),) = cur.execute(f"SELECT count(*) FROM ({sql})", params).fetchall()
        rows = cur.sql(listing, params=params).to_arrow_table()
    return FlagPage(total=int(total), rows=rows)


CSV_COLUMNS = (
    "severity", "check_id", "title", "kind", "occurred_at", "casino", "table_id", "dealer_id",
    "game", "round_id", "seat", "wager", "recorded_cents", "expected_cents",
    "difference_cents", "amount_at_stake_cents", "recorded_dollars", "expected_dollars",
    "difference_dollars", "amount_at_stake_dollars", "direction", "counted", "case_status",
    "disposition", "detail",
)  # fmt: skip
"""The export's columns: cents as integers, dollars as exact decimals (``12.50``, ``-1.25``;
no ``$``, no thousands separator), ``occurred_at`` in UTC ISO-8601, an empty cell for
null."""

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_TEXT_COLUMNS = frozenset(CSV_COLUMNS) - {
    "seat", "recorded_cents", "expected_cents", "difference_cents", "amount_at_stake_cents",
    "recorded_dollars", "expected_dollars", "difference_dollars", "amount_at_stake_dollars",
    "counted",
}


def _cell(column: str, value: Any) -> Any:
    """A CSV cell: text from the log that a spreadsheet would run as a formula (starting
    with ``=``, ``+``, ``-``, ``@``) gets a leading ``'`` (OWASP, "CSV Injection")."""
    if value is None:
        return ""
    if column in _TEXT_COLUMNS and isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def flag_csv(
    con: duckdb.DuckDBPyConnection, root: Path, filters: Filters, query: FlagQuery,
    cases: pa.Table | None,
) -> tuple[bytes, int]:
    """Every matching flag (not only the page shown), in the list's order, as CSV (UTF-8,
    a header line of :data:`CSV_COLUMNS`), and how many rows."""
    data.require(con, root, data.FLAGS, data.FLAG_COLUMNS)
    sql, params = _relation(root, filters, query, with_cases=cases is not None)
    select = (
        "SELECT severity, check_id, title, coalesce(kind, 'rule'), "
        "strftime(occurred_at, '%Y-%m-%dT%H:%M:%S.%fZ'), casino, table_id, dealer_id, game, "
        "round_id, seat, wager, recorded_cents, expected_cents, difference_cents, "
        "amount_at_stake_cents, "
        + ", ".join(_dollars(c) for c in ("recorded_cents", "expected_cents",
                                          "difference_cents", "amount_at_stake_cents"))
        + ", direction, counted, case_status, disposition, detail "
        f"FROM ({sql}) {_order(query)}"
    )
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    count = 0
    with con.cursor() as cur:
        if cases is not None:
            cur.register("case_states", cases)
        cur.execute(select, params)
        while batch := cur.fetchmany(5000):
            for row in batch:
                writer.writerow([_cell(c, v) for c, v in zip(CSV_COLUMNS, row, strict=True)])
            count += len(batch)
    return out.getvalue().encode("utf-8"), count


@dataclass(frozen=True, slots=True, kw_only=True)
class FlagChoices:
    """What the Flags page's own filters offer: the values present in flags.parquet."""

    checks: Mapping[str, str]
    """check_id -> title."""
    severities: tuple[str, ...]
    kinds: tuple[str, ...]


def flag_choices(con: duckdb.DuckDBPyConnection, root: Path) -> FlagChoices:
    path = data.require(con, root, data.FLAGS, data.FLAG_COLUMNS)
    checks = data._rows(
        con, "SELECT check_id, any_value(title) FROM read_parquet(?) GROUP BY ALL ORDER BY 1",
        [path])
    ((severities, kinds),) = data._rows(
        con,
        "SELECT list(DISTINCT severity) FILTER (WHERE severity IS NOT NULL), "
        "list(DISTINCT coalesce(kind, 'rule')) FROM read_parquet(?)",
        [path],
    )
    rank = {name: i for i, name in enumerate(data.SEVERITIES)}
    return FlagChoices(
        checks={str(c): str(t or c) for c, t in checks},
        severities=tuple(sorted(severities or (), key=lambda s: (rank.get(s, 99), s))),
        kinds=tuple(sorted(kinds or ())),
    )
