"""Overview: the shift at a glance, under the shared filters (docs/guide-analyst.md).

Rounds audited (judged, and not evaluated: replay could not judge them, which is never a
pass), flags by check and severity with the rule checks apart from the statistical leads,
the money paid wrongly overpaid and underpaid apart (never netted: $578.75 overpaid and
$558.75 underpaid is a bad shift, not "+$20.00"), the money at stake (both together), and
trends over time (flags and mispaid amounts per hour or day, Altair). Money sums count each
mispaid amount once (the flags checks mark ``counted``: dashboard/summaries.py).
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
from dashboard.money import format_cents
from dashboard.views import money_table

TITLE = "Overview"
URL_PATH = "overview"
ICON = ":material/dashboard:"
ROLES: frozenset[Role] | None = None

SEVERITY_COLORS = {"critical": "#7f0000", "high": "#d62728", "medium": "#ff7f0e",
                   "low": "#bcbd22", "info": "#7f7f7f"}


# ``stamp`` (the files' path, mtime and size) is only a cache key: a rerun of replay or checks
# rewrites the files, which changes the key, so the page never shows stale figures. ``_con``
# is not part of the key (one connection per server process).
@st.cache_data(max_entries=32, show_spinner=False)
def _headline(_con: DuckCon, root: str, stamp: tuple[Any, ...], filters: Filters,
              with_flags: bool) -> summaries.Headline:
    return summaries.headline(_con, Path(root), filters, with_flags=with_flags)


@st.cache_data(max_entries=32, show_spinner=False)
def _by_check(_con: DuckCon, root: str, stamp: tuple[Any, ...], filters: Filters
              ) -> pd.DataFrame:
    return summaries.flags_by_check(_con, Path(root), filters)


@st.cache_data(max_entries=32, show_spinner=False)
def _trend(_con: DuckCon, root: str, stamp: tuple[Any, ...], filters: Filters
           ) -> tuple[summaries.Bucket, pd.DataFrame]:
    bucket = summaries.span_bucket(_con, Path(root), filters)
    return bucket, summaries.flag_trend(_con, Path(root), filters, bucket)


def _metrics(h: summaries.Headline, with_flags: bool) -> None:
    first = st.columns(3)
    first[0].metric("Rounds audited", f"{h.rounds:,}", border=True,
                    help="Rounds replay read from the log under the filters.")
    first[1].metric("Judged", f"{h.judged:,}", border=True,
                    help="Rounds replay judged against the rules.")
    first[2].metric("Not evaluated", f"{h.not_evaluated:,}", border=True,
                    help="Rounds replay could not judge (e.g. a hand never set): not a pass.")
    if not with_flags:
        return
    second = st.columns(5)
    second[0].metric("Rule flags", f"{h.rule_flags:,}", border=True,
                     help=f"Breaches of a rule, in {h.flagged_rounds:,} rounds.")
    second[1].metric("Statistical leads", f"{h.leads:,}", border=True,
                     help="Outliers to look into: leads, not breaches.")
    second[2].metric("Overpaid", format_cents(h.overpaid_cents), border=True,
                     help="Paid to patrons beyond what the rules require (each amount once).")
    second[3].metric("Underpaid", format_cents(h.underpaid_cents), border=True,
                     help="Paid to patrons short of what the rules require (each amount once).")
    second[4].metric("Money at stake", format_cents(h.at_stake_cents), border=True,
                     help="Overpaid plus underpaid: never netted against each other.")


def _check_table(frame: pd.DataFrame) -> None:
    table = money_table(
        frame, ("overpaid_cents", "underpaid_cents"),
        rename={"check_id": "check", "title": "title", "severity": "severity",
                "flags": "flags", "rounds": "rounds", "overpaid_cents": "overpaid",
                "underpaid_cents": "underpaid"},
    )
    st.dataframe(
        views.shown_frame(table), hide_index=True, width="stretch",
        column_config={"overpaid": ui.money_column("overpaid", "counted flags only"),
                       "underpaid": ui.money_column("underpaid", "counted flags only")},
    )


def _charts(bucket: summaries.Bucket, trend: pd.DataFrame) -> None:
    if trend.empty:
        st.caption("No flag carries a time under these filters.")
        return
    unit = "hour" if bucket == "hour" else "day"
    time_format = "%Y-%m-%d %H:00" if bucket == "hour" else "%Y-%m-%d"
    x = alt.X("period:T", title=f"{unit} (UTC)", axis=alt.Axis(format=time_format))
    severities = [s for s in data.SEVERITIES if s in set(trend["severity"])]
    counts = trend.groupby(["period", "severity"], as_index=False)["flags"].sum()
    flags_chart = alt.Chart(counts).mark_bar().encode(
        x=x,
        y=alt.Y("flags:Q", title="flags"),
        color=alt.Color("severity:N", sort=severities, scale=alt.Scale(
            domain=severities, range=[SEVERITY_COLORS.get(s, "#999") for s in severities])),
        tooltip=[alt.Tooltip("period:T", format=time_format), "severity:N", "flags:Q"],
    ).properties(title=f"Flags per {unit}", height=260)
    money = trend.groupby("period", as_index=False)[["overpaid_cents", "underpaid_cents"]].sum()
    money = money.melt(id_vars="period", var_name="way", value_name="cents")
    money["way"] = money["way"].map({"overpaid_cents": "overpaid", "underpaid_cents": "underpaid"})
    # The cents stay integers; only the axis and the tooltip show them as dollars.
    money_chart = alt.Chart(money).mark_line(point=True).encode(
        x=x,
        y=alt.Y("cents:Q", title="mispaid ($)",
                axis=alt.Axis(labelExpr="format(datum.value / 100, '$,.2f')")),
        color=alt.Color("way:N", title="", scale=alt.Scale(
            domain=["overpaid", "underpaid"], range=["#d62728", "#1f77b4"])),
        tooltip=[alt.Tooltip("period:T", format=time_format), "way:N",
                 alt.Tooltip("dollars:N", title="amount")],
    ).transform_calculate(
        dollars="format(datum.cents / 100, '$,.2f')"
    ).properties(title=f"Mispaid per {unit}: overpaid and underpaid apart", height=260)
    left, right = st.columns(2)
    left.altair_chart(flags_chart, width="stretch")
    right.altair_chart(money_chart, width="stretch")


def render(ctx: PageContext) -> None:
    """Draw the Overview for ``ctx.user`` under ``ctx.filters``."""
    st.title(TITLE)
    root = ctx.root
    if not ui.need(root, (data.ROUNDS,)):
        return
    with_flags = ui.have_flags(root)
    stamp = ui.stamps(root, (data.ROUNDS, data.FLAGS))
    ui.filters_caption(ctx.filters)
    h = _headline(ctx.con, str(root), stamp, ctx.filters, with_flags)
    if h.rounds == 0:
        st.info("No rounds under these filters." if ctx.filters.active else
                f"No rounds yet: replay wrote an empty `{data.ROUNDS}`. {data.RUN_HINT}")
        return
    _metrics(h, with_flags)
    if not with_flags:
        ui.no_flags_yet()
        return
    if h.rule_flags + h.leads == 0:
        st.success("No flags: every judged round was settled as the rules require.")
        return
    by_check = _by_check(ctx.con, str(root), stamp, ctx.filters)
    st.subheader("Flags by check and severity")
    rules = by_check[by_check["kind"] == "rule"]
    leads = by_check[by_check["kind"] != "rule"]
    st.markdown("**Rule checks**: breaches of the rules of the game, settlement or procedure")
    if rules.empty:
        st.caption("None under these filters.")
    else:
        _check_table(rules)
    st.markdown("**Statistical leads**: outliers worth a look, not breaches "
                "(not in the money totals)")
    if leads.empty:
        st.caption("None under these filters.")
    else:
        _check_table(leads)
    st.subheader("Trends")
    bucket, trend = _trend(ctx.con, str(root), stamp, ctx.filters)
    _charts(bucket, trend)
