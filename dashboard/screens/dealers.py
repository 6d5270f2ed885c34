"""Dealers and tables: who and where the mistakes are, under the shared filters.

Per dealer or per table (one table of one casino): rounds, the error rate (wagers settled
for a net other than the rules require, over the wagers of the rounds replay judged), the
money mispaid overpaid and underpaid apart (each amount once: the flags checks mark
``counted``), the amount wagered, the house's win and the hold (house win over amount
wagered, as recorded), and the same figures over time (Altair). All of it is aggregated in
DuckDB (dashboard/summaries.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st
from duckdb import DuckDBPyConnection as DuckCon

from dashboard import data, summaries, ui, views
from dashboard.context import Filters, PageContext, Role
from dashboard.views import money_table

TITLE = "Dealers and tables"
URL_PATH = "dealers"
ICON = ":material/groups:"
ROLES: frozenset[Role] | None = None

GROUP_WORDS: dict[summaries.GroupBy, str] = {"dealer": "Dealers", "table": "Tables"}
CHART_LINES = 8
"""The most dealers or tables drawn in a chart (those with the most mispaid wagers, unless
the shared filters name some)."""
METRICS = {
    "error rate": ("error_rate", "rate"),
    "mispaid wagers": ("mispaid_wagers", "count"),
    "overpaid": ("overpaid_cents", "cents"),
    "underpaid": ("underpaid_cents", "cents"),
    "hold": ("hold", "rate"),
    "rounds": ("rounds", "count"),
}


@st.cache_data(max_entries=32, show_spinner=False)
def _stats(_con: DuckCon, root: str, stamp: tuple[Any, ...], filters: Filters,
           by: summaries.GroupBy, with_flags: bool) -> pd.DataFrame:
    return summaries.group_stats(_con, Path(root), filters, by, with_flags=with_flags)


@st.cache_data(max_entries=32, show_spinner=False)
def _trend(_con: DuckCon, root: str, stamp: tuple[Any, ...], filters: Filters,
           by: summaries.GroupBy, with_flags: bool) -> tuple[summaries.Bucket, pd.DataFrame]:
    bucket = summaries.span_bucket(_con, Path(root), filters)
    return bucket, summaries.group_trend(_con, Path(root), filters, by, bucket,
                                         with_flags=with_flags)


def label(frame: pd.DataFrame, by: summaries.GroupBy) -> pd.Series:
    """The name of each dealer, or of each table as ``casino / table``."""
    if by == "dealer":
        return frame["dealer_id"].fillna("(none)").astype(str)
    return frame["casino"].fillna("?").astype(str) + " / " + frame["table_id"].astype(str)


def _table(stats: pd.DataFrame, by: summaries.GroupBy) -> None:
    keys = {"dealer_id": "dealer"} if by == "dealer" else {"casino": "casino",
                                                           "table_id": "table"}
    table = money_table(
        stats, ("overpaid_cents", "underpaid_cents", "wagered_cents", "house_win_cents"),
        rename={**keys, "rounds": "rounds", "judged": "judged", "wagers": "wagers",
                "mispaid_wagers": "mispaid wagers", "error_rate": "error rate",
                "overpaid_cents": "overpaid", "underpaid_cents": "underpaid",
                "wagered_cents": "wagered", "house_win_cents": "house win", "hold": "hold"},
    )
    st.dataframe(
        views.shown_frame(table), hide_index=True, width="stretch", placeholder="",
        column_config={
            "judged": st.column_config.NumberColumn(
                "judged", help="Rounds replay judged (the others: not evaluated)."),
            "wagers": st.column_config.NumberColumn(
                "wagers", help="Wagers of the rounds replay judged."),
            "error rate": ui.rate_column("error rate", "mispaid wagers / wagers"),
            "overpaid": ui.money_column("overpaid", "each mispaid amount once"),
            "underpaid": ui.money_column("underpaid", "each mispaid amount once"),
            "wagered": ui.money_column("wagered", "the patrons' wagers, as recorded"),
            "house win": ui.money_column("house win", "the house's win on them, as recorded"),
            "hold": ui.rate_column("hold", "house win / wagered"),
        },
    )


def _chart(trend: pd.DataFrame, stats: pd.DataFrame, by: summaries.GroupBy,
           bucket: summaries.Bucket, metric: str, named: tuple[str, ...]) -> None:
    column, unit = METRICS[metric]
    names = label(stats, by)
    if named:
        keep = list(names[stats["dealer_id" if by == "dealer" else "table_id"].isin(named)])
    else:
        ranked = stats.assign(_name=names).sort_values(
            ["mispaid_wagers", "rounds"], ascending=False)
        keep = list(ranked["_name"].head(CHART_LINES))
    frame = trend.assign(name=label(trend, by))
    frame = frame[frame["name"].isin(keep[:CHART_LINES])]
    if frame.empty:
        st.caption("Nothing to draw under these filters.")
        return
    time_format = "%Y-%m-%d %H:00" if bucket == "hour" else "%Y-%m-%d"
    if unit == "rate":
        y = alt.Y(f"{column}:Q", title=metric, axis=alt.Axis(format="%"))
        value = alt.Tooltip(f"{column}:Q", title=metric, format=".2%")
    elif unit == "cents":  # the cents stay integers; only the axis shows dollars
        y = alt.Y(f"{column}:Q", title=f"{metric} ($)",
                  axis=alt.Axis(labelExpr="format(datum.value / 100, '$,.2f')"))
        value = alt.Tooltip("dollars:N", title=metric)
    else:
        y = alt.Y(f"{column}:Q", title=metric)
        value = alt.Tooltip(f"{column}:Q", title=metric)
    chart = alt.Chart(frame[["period", "name", column]]).mark_line(point=True).encode(
        x=alt.X("period:T", title=f"{bucket} (UTC)", axis=alt.Axis(format=time_format)),
        y=y,
        color=alt.Color("name:N", title=by),
        tooltip=[alt.Tooltip("period:T", format=time_format), "name:N", value],
    )
    if unit == "cents":
        chart = chart.transform_calculate(dollars=f"format(datum.{column} / 100, '$,.2f')")
    st.altair_chart(chart.properties(height=300), width="stretch")


def render(ctx: PageContext) -> None:
    """Draw the Dealers and tables page for ``ctx.user`` under ``ctx.filters``."""
    st.title(TITLE)
    root = ctx.root
    if not ui.need(root, (data.ROUNDS, data.WAGERS)):
        return
    with_flags = ui.have_flags(root)
    stamp = ui.stamps(root, (data.ROUNDS, data.WAGERS, data.FLAGS))
    ui.filters_caption(ctx.filters)
    chosen = st.segmented_control("Per", list(GROUP_WORDS), key="dealers_by",
                                  format_func=GROUP_WORDS.__getitem__, default="dealer")
    by: summaries.GroupBy = "table" if chosen == "table" else "dealer"
    stats = _stats(ctx.con, str(root), stamp, ctx.filters, by, with_flags)
    if stats.empty:
        st.info("No rounds under these filters." if ctx.filters.active else
                f"No rounds yet: replay wrote an empty `{data.ROUNDS}`. {data.RUN_HINT}")
        return
    if not with_flags:
        ui.no_flags_yet()
    st.caption(f"{len(stats):,} {GROUP_WORDS[by].lower()}, highest error rate first. Error "
               "rate: mispaid wagers over the wagers of judged rounds; hold: house win over "
               "amount wagered.")
    _table(stats, by)
    st.subheader("Over time")
    metric = st.selectbox("Show", list(METRICS), key="dealers_metric", width=320)
    bucket, trend = _trend(ctx.con, str(root), stamp, ctx.filters, by, with_flags)
    named = ctx.filters.dealers if by == "dealer" else ctx.filters.tables
    _chart(trend, stats, by, bucket, metric or "error rate", named)
    if not named and len(stats) > CHART_LINES:
        st.caption(f"The {CHART_LINES} {GROUP_WORDS[by].lower()} with the most mispaid "
                   "wagers; pick some in the sidebar's filters to draw others.")
