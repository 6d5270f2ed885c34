"""The aggregates of the Overview and the Dealers and tables pages, computed in DuckDB over
the Parquet files replay and checks wrote (never a whole table in pandas: one row per check,
dealer, table or period comes back).

Money is integer cents: sums are cast back to BIGINT because DuckDB widens ``sum(BIGINT)``
to HUGEINT, which pandas would turn into float. Overpaid and underpaid amounts are summed
apart, never netted, over the flags checks marked ``counted`` (each mispaid amount once:
checks/runner.py FLAG_SCHEMA), as :func:`dashboard.data.flag_totals` does. Rates (error rate,
hold) are ratios of two integer sums, not money, and come back as float.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import duckdb
import pandas as pd

from dashboard import data
from dashboard.context import Filters

Bucket = Literal["hour", "day"]
BUCKETS: tuple[Bucket, ...] = ("hour", "day")
GroupBy = Literal["dealer", "table"]
GROUP_COLUMNS: dict[GroupBy, tuple[str, ...]] = {
    "dealer": ("dealer_id",),
    "table": ("casino", "table_id"),
}
"""A dealer is one ``dealer_id``; a table is one table of one casino."""

_SEVERITY_RANK = "CASE severity " + " ".join(
    f"WHEN '{name}' THEN {rank}" for rank, name in enumerate(data.SEVERITIES)
) + f" ELSE {len(data.SEVERITIES)} END"


def _cents(expression: str, where: str = "") -> str:
    """A sum of cents (of the rows ``where`` selects) that stays an integer (0 when there
    is nothing to sum)."""
    selected = f" FILTER (WHERE {where})" if where else ""
    return f"CAST(coalesce(sum({expression}){selected}, 0) AS BIGINT)"


_OVER = _cents("amount_at_stake_cents", "counted AND direction = 'over'")
_UNDER = _cents("amount_at_stake_cents", "counted AND direction = 'under'")


def _flags_where(filters: Filters, prefix: str = "") -> tuple[str, list[Any]]:
    return filters.where(time_column="occurred_at", prefix=prefix)


@dataclass(frozen=True, slots=True, kw_only=True)
class Headline:
    """The Overview's figures under the shared filters."""

    judged: int
    not_evaluated: int
    rule_flags: int
    """Flags raised by rule checks (a breach of a rule, settlement or procedure)."""
    leads: int
    """Flags raised by statistical checks: leads to look into, not breaches."""
    flagged_rounds: int
    """Rounds with at least one rule flag."""
    overpaid_cents: int
    underpaid_cents: int
    """Each mispaid amount once (the counted flags), each >= 0, never netted."""

    @property
    def rounds(self) -> int:
        return self.judged + self.not_evaluated

    @property
    def at_stake_cents(self) -> int:
        """Overpaid plus underpaid: the money paid wrongly either way."""
        return self.overpaid_cents + self.underpaid_cents


def headline(
    con: duckdb.DuckDBPyConnection, root: Path, filters: Filters, *, with_flags: bool
) -> Headline:
    """Rounds audited (judged, not evaluated) and, when the checks have run, the flags by
    kind and the money at stake overpaid and underpaid."""
    judged, not_evaluated = data.round_counts(con, root, filters)
    rule = leads = rounds = over = under = 0
    if with_flags:
        path = data.require(con, root, data.FLAGS, data.FLAG_COLUMNS)
        where, params = _flags_where(filters)
        ((rule, leads, rounds, over, under),) = data._rows(
            con,
            "SELECT count(*) FILTER (WHERE kind = 'rule'), "
            "count(*) FILTER (WHERE kind IS DISTINCT FROM 'rule'), "
            "count(DISTINCT (casino, table_id, round_id)) FILTER (WHERE kind = 'rule'), "
            f"{_OVER}, {_UNDER} FROM read_parquet(?) WHERE {where}",
            [path, *params],
        )
    return Headline(
        judged=judged, not_evaluated=not_evaluated, rule_flags=int(rule), leads=int(leads),
        flagged_rounds=int(rounds), overpaid_cents=int(over), underpaid_cents=int(under),
    )  # fmt: skip


def flags_by_check(con: duckdb.DuckDBPyConnection, root: Path, filters: Filters) -> pd.DataFrame:
    """One row per check and severity: ``kind``, ``check_id``, ``title``, ``severity``,
    ``flags``, ``rounds``, ``overpaid_cents``, ``underpaid_cents`` (counted flags); rule
    checks first, then statistical, most severe first, then most flags."""
    path = data.require(con, root, data.FLAGS, data.FLAG_COLUMNS)
    where, params = _flags_where(filters)
    return data._frame(
        con,
        "SELECT * FROM (SELECT coalesce(kind, 'rule') AS kind, check_id, "
        "any_value(title) AS title, severity, count(*) AS flags, "
        "count(DISTINCT (casino, table_id, round_id)) AS rounds, "
        f"{_OVER} AS overpaid_cents, {_UNDER} AS underpaid_cents "
        f"FROM read_parquet(?) WHERE {where} GROUP BY 1, 2, 4) "
        f"ORDER BY kind = 'statistical', {_SEVERITY_RANK}, flags DESC, check_id",
        [path, *params],
    )


def flag_trend(
    con: duckdb.DuckDBPyConnection, root: Path, filters: Filters, bucket: Bucket
) -> pd.DataFrame:
    """Flags and counted mispaid amounts per ``bucket`` (UTC) and severity: ``period``,
    ``severity``, ``kind``, ``flags``, ``overpaid_cents``, ``underpaid_cents``. Flags with
    no time (a lead about a dealer rather than a round) are left out."""
    if bucket not in BUCKETS:
        raise ValueError(f"bucket must be one of {BUCKETS}, not {bucket!r}")
    path = data.require(con, root, data.FLAGS, data.FLAG_COLUMNS)
    where, params = _flags_where(filters)
    return data._frame(
        con,
        f"SELECT date_trunc('{bucket}', occurred_at) AS period, severity, "
        "coalesce(kind, 'rule') AS kind, count(*) AS flags, "
        f"{_OVER} AS overpaid_cents, {_UNDER} AS underpaid_cents "
        f"FROM read_parquet(?) WHERE occurred_at IS NOT NULL AND {where} "
        "GROUP BY 1, 2, 3 ORDER BY 1, 2",
        [path, *params],
    )


def span_bucket(con: duckdb.DuckDBPyConnection, root: Path, filters: Filters) -> Bucket:
    """Hours when the rounds under the filters span at most three days (a shift, a
    weekend), else days."""
    where, params = filters.where()
    ((first, last),) = data._rows(
        con,
        f"SELECT min(dealt_at), max(dealt_at) FROM read_parquet(?) WHERE {where}",
        [str(root / data.ROUNDS), *params],
    )
    if first is None or last is None:
        return "day"
    return "hour" if (last - first).total_seconds() <= 3 * 86400 else "day"


# Dealers and tables ------------------------------------------------------------------------


def _group(by: GroupBy) -> tuple[str, ...]:
    if by not in GROUP_COLUMNS:
        raise ValueError(f"group by one of {tuple(GROUP_COLUMNS)}, not {by!r}")
    return GROUP_COLUMNS[by]


def _group_sql(
    root: Path, filters: Filters, by: GroupBy, *, with_flags: bool, period: str
) -> tuple[str, list[Any]]:
    """The per-group (and per-period, when ``period`` is a ``date_trunc`` part) figures.

    Error rate: wagers settled for a net other than the expected one (rounds.parquet
    ``mispaid_wagers``) over the wagers of the rounds replay judged (wagers.parquet less the
    wagers of rounds not evaluated: a small build side, so the anti join stays cheap). Hold:
    the house's win as recorded over the amount wagered (rounds.parquet ``house_win_cents``
    and ``wagered_cents``: replay/run.py ROUNDS)."""
    keys = list(_group(by))
    time_key = f"date_trunc('{period}', dealt_at) AS period" if period else ""
    flag_time = f"date_trunc('{period}', occurred_at) AS period" if period else ""
    join = [*keys, "period"] if period else keys
    select_keys = ", ".join(keys + ([time_key] if time_key else []))
    where, params = filters.where()
    r_sql = (
        f"SELECT {select_keys}, count(*) AS rounds, count(*) FILTER (WHERE evaluated) AS judged, "
        f"{_cents('mispaid_wagers')} AS mispaid_wagers, "
        f"{_cents('wagered_cents')} AS wagered_cents, "
        f"{_cents('house_win_cents')} AS house_win_cents "
        f"FROM read_parquet(?) WHERE {where} GROUP BY ALL"
    )
    w_where, w_params = filters.where(prefix="w.")
    w_keys = ", ".join([f"w.{k}" for k in keys]
                       + ([f"date_trunc('{period}', w.dealt_at) AS period"] if period else []))
    w_sql = (
        f"SELECT {w_keys}, count(*) AS wagers FROM read_parquet(?) AS w "
        "ANTI JOIN (SELECT casino, table_id, round_id FROM read_parquet(?) WHERE NOT evaluated) "
        f"AS u ON w.casino = u.casino AND w.table_id = u.table_id AND w.round_id = u.round_id "
        f"WHERE {w_where} GROUP BY ALL"
    )
    sql_params: list[Any] = [str(root / data.ROUNDS), *params,
                             str(root / data.WAGERS), str(root / data.ROUNDS), *w_params]
    ctes = f"r AS ({r_sql}), w AS ({w_sql})"
    flag_cols = "0::BIGINT AS overpaid_cents, 0::BIGINT AS underpaid_cents"
    flag_join = ""
    if with_flags:
        f_where, f_params = _flags_where(filters)
        f_keys = ", ".join(keys + ([flag_time] if flag_time else []))
        ctes += (
            f", f AS (SELECT {f_keys}, "
            f"{_OVER} AS overpaid_cents, {_UNDER} AS underpaid_cents "
            f"FROM read_parquet(?) WHERE {f_where} GROUP BY ALL)"
        )
        sql_params += [str(root / data.FLAGS), *f_params]
        flag_cols = ("coalesce(f.overpaid_cents, 0) AS overpaid_cents, "
                     "coalesce(f.underpaid_cents, 0) AS underpaid_cents")
        flag_join = f"LEFT JOIN f USING ({', '.join(join)})"
    sql = (
        f"WITH {ctes} SELECT {', '.join(join)}, r.rounds, r.judged, "
        "coalesce(w.wagers, 0) AS wagers, r.mispaid_wagers, "
        "r.mispaid_wagers / nullif(coalesce(w.wagers, 0), 0) AS error_rate, "
        f"{flag_cols}, r.wagered_cents, r.house_win_cents, "
        "r.house_win_cents / nullif(r.wagered_cents, 0) AS hold "
        f"FROM r LEFT JOIN w USING ({', '.join(join)}) {flag_join}"
    )
    return sql, sql_params


def group_stats(
    con: duckdb.DuckDBPyConnection, root: Path, filters: Filters, by: GroupBy,
    *, with_flags: bool,
) -> pd.DataFrame:
    """One row per dealer (``dealer_id``) or table (``casino``, ``table_id``) with rounds
    under the filters: ``rounds``, ``judged``, ``wagers`` (of judged rounds),
    ``mispaid_wagers``, ``error_rate``, ``overpaid_cents``, ``underpaid_cents`` (counted
    flags; 0 without flags), ``wagered_cents``, ``house_win_cents``, ``hold``; highest
    error rate first."""
    data.require(con, root, data.ROUNDS, data.ROUND_COLUMNS)
    data.require(con, root, data.WAGERS, ("casino", "table_id", "round_id", "dealer_id",
                                          "game", "dealt_at"))
    if with_flags:
        data.require(con, root, data.FLAGS, data.FLAG_COLUMNS)
    sql, params = _group_sql(root, filters, by, with_flags=with_flags, period="")
    keys = ", ".join(_group(by))
    return data._frame(
        con, f"{sql} ORDER BY error_rate DESC NULLS LAST, mispaid_wagers DESC, {keys}", params
    )


def group_trend(
    con: duckdb.DuckDBPyConnection, root: Path, filters: Filters, by: GroupBy, bucket: Bucket,
    *, with_flags: bool,
) -> pd.DataFrame:
    """:func:`group_stats` per ``bucket`` (UTC) as well: one row per group and period."""
    if bucket not in BUCKETS:
        raise ValueError(f"bucket must be one of {BUCKETS}, not {bucket!r}")
    data.require(con, root, data.ROUNDS, data.ROUND_COLUMNS)
    if with_flags:
        data.require(con, root, data.FLAGS, data.FLAG_COLUMNS)
    sql, params = _group_sql(root, filters, by, with_flags=with_flags, period=bucket)
    return data._frame(con, f"{sql} ORDER BY period, {', '.join(_group(by))}", params)
