"""Flags: every flag the checks raised, under the shared filters (docs/guide-analyst.md).

An analyst narrows the list by check, severity, kind (rule or statistical), direction
(overpaid, underpaid, no money) and case status (dashboard/cases.py), searches round ids,
tables, dealers and details, and sorts it; the list refreshes itself every few seconds while
ingest, replay and the checks run live (the fragment below polls the files' stamps: a new
flags.parquet shows within :data:`REFRESH_S` seconds plus the time to read it). A click on a
row opens that flag's round on the Round page; "Export CSV" downloads every matching flag
with numeric money columns (cents as integers, dollars as exact decimals) and is recorded in
the access log before the file is handed over.

The list shows the first :data:`dashboard.flag_queries.PAGE_ROWS` rows of the sorted list
(the count of all of them is shown); money columns are exact dollars that sort as numbers.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pyarrow as pa
import streamlit as st
from duckdb import DuckDBPyConnection as DuckCon

from dashboard import banner, data, flag_queries, ui, views
from dashboard.cases import Cases
from dashboard.context import Filters, PageContext, Role
from dashboard.flag_queries import DIRECTIONS, SORTS, STATUSES, FlagQuery
from dashboard.journal import JournalError
from dashboard.views import literal

TITLE = "Flags"
URL_PATH = "flags"
ICON = ":material/flag:"
ROLES: frozenset[Role] | None = None

REFRESH_S = 2
"""How often the list looks for new flags (seconds)."""
KINDS = {"rule": "rule checks", "statistical": "statistical leads"}
TABLE_KEY = "flags_table"
CONTROL_KEYS = ("flags_checks", "flags_severities", "flags_kinds", "flags_directions",
                "flags_statuses", "flags_search", "flags_sort", "flags_descending")
"""The page's own controls; their values outlive a visit to the Round page (kept under
``"_keep_" + key``), so the analyst comes back to the list as they left it."""
COLUMNS = ("severity", "check", "time", "casino", "table", "dealer", "game", "round", "seat",
           "wager", "recorded", "expected", "difference", "direction", "case status", "detail")


# The stamps are only cache keys: a rewrite of flags.parquet (the checks ran again) or of
# cases.jsonl (someone acknowledged a flag) changes them. ``_con`` and ``_cases`` are not.
@st.cache_data(max_entries=8, show_spinner=False)
def _choices(_con: DuckCon, root: str, stamp: tuple[Any, ...]) -> flag_queries.FlagChoices:
    return flag_queries.flag_choices(_con, Path(root))


@st.cache_data(max_entries=32, show_spinner=False)
def _page(_con: DuckCon, root: str, stamp: tuple[Any, ...], filters: Filters,
          query: FlagQuery, _cases: pa.Table | None, cases_stamp: tuple[Any, ...] | None
          ) -> flag_queries.FlagPage:
    return flag_queries.flag_page(_con, Path(root), filters, query, _cases)


def _cases_stamp(home: Path) -> tuple[Any, ...]:
    path = home / "cases.jsonl"
    try:
        info = path.stat()
    except FileNotFoundError:
        return (str(path), 0, 0)
    return (str(path), info.st_mtime_ns, info.st_size)


def case_states(home: Path) -> tuple[pa.Table | None, str]:
    """The cases as a relation to join, or None and why (a cases file that does not verify
    shows no status rather than a wrong one)."""
    try:
        return flag_queries.cases_table(Cases(home).states()), ""
    except (JournalError, OSError, ValueError) as error:
        return None, str(error) or type(error).__name__


def _restore_controls() -> None:
    for key in CONTROL_KEYS:
        if key not in st.session_state and "_keep_" + key in st.session_state:
            st.session_state[key] = st.session_state["_keep_" + key]


def _keep_controls() -> None:
    for key in CONTROL_KEYS:
        if key in st.session_state:
            st.session_state["_keep_" + key] = st.session_state[key]


def _controls(choices: flag_queries.FlagChoices, with_cases: bool) -> FlagQuery:
    _restore_controls()
    for key, known in (("flags_checks", tuple(choices.checks)),
                       ("flags_severities", choices.severities),
                       ("flags_kinds", choices.kinds)):
        chosen = st.session_state.get(key)
        if chosen and any(value not in known for value in chosen):
            st.session_state[key] = [value for value in chosen if value in known]
    first = st.columns([3, 2, 2, 2, 2])
    checks = first[0].multiselect(
        "Check", list(choices.checks), key="flags_checks", placeholder="All",
        format_func=lambda c: f"{choices.checks.get(c, c)} ({c})")
    severities = first[1].multiselect("Severity", list(choices.severities),
                                      key="flags_severities", placeholder="All")
    kinds = first[2].multiselect("Kind", list(choices.kinds), key="flags_kinds",
                                 placeholder="All", format_func=lambda k: KINDS.get(k, k))
    directions = first[3].multiselect("Direction", list(DIRECTIONS), key="flags_directions",
                                      placeholder="All", format_func=DIRECTIONS.__getitem__)
    statuses = first[4].multiselect(
        "Case status", list(STATUSES), key="flags_statuses", placeholder="All",
        disabled=not with_cases, help=None if with_cases else "The cases cannot be read.")
    second = st.columns([5, 2, 2], vertical_alignment="bottom")
    search = second[0].text_input(
        "Search", key="flags_search", placeholder="round id, table, dealer or detail text",
        help="Finds the text anywhere in the round id, table, dealer or detail (any case).")
    sort = second[1].selectbox("Sort by", list(SORTS), key="flags_sort")
    st.session_state.setdefault("flags_descending", True)  # newest first, unless changed
    descending = second[2].toggle("Descending", key="flags_descending",
                                  help="Severity: most severe first when on.")
    _keep_controls()
    return FlagQuery(
        checks=tuple(checks), severities=tuple(severities), kinds=tuple(kinds),
        directions=tuple(directions), statuses=tuple(statuses) if with_cases else (),
        search=search or "", sort=sort or "time", descending=bool(descending),
    )


def export(ctx: PageContext, query: FlagQuery, cases: pa.Table | None) -> bytes:
    """Every flag matching the filters and ``query`` as CSV, recorded in the access log
    first (``export``): when the log cannot be written, this raises and nothing is handed
    over."""
    content, rows = flag_queries.flag_csv(ctx.con, ctx.root, ctx.filters, query, cases)
    ctx.record("export", "flags.csv", rows=rows, filters=_filters_detail(ctx.filters),
               query=_query_detail(query))
    return content


def _filters_detail(filters: Filters) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else (v.isoformat() if v else None))
            for k, v in (("casinos", filters.casinos), ("tables", filters.tables),
                         ("dealers", filters.dealers), ("games", filters.games),
                         ("date_from", filters.date_from), ("date_to", filters.date_to))}


def _query_detail(query: FlagQuery) -> dict[str, Any]:
    return {"checks": list(query.checks), "severities": list(query.severities),
            "kinds": list(query.kinds), "directions": list(query.directions),
            "statuses": list(query.statuses), "search": query.search, "sort": query.sort,
            "descending": query.descending}


def _column_config() -> dict[str, Any]:
    return {
        "time": st.column_config.DatetimeColumn("time (UTC)", format="YYYY-MM-DD HH:mm:ss"),
        "seat": st.column_config.NumberColumn("seat", format="%d"),
        "recorded": ui.money_column("recorded", "the net recorded at the table"),
        "expected": ui.money_column("expected", "the net the rules require"),
        "difference": ui.money_column(
            "difference", "recorded minus expected: positive overpaid, negative underpaid"),
        "detail": st.column_config.TextColumn("detail", width="large"),
    }


def _listing(ctx: PageContext, query: FlagQuery) -> None:
    """The count, the table and the export; rerun every REFRESH_S seconds on its own, out
    of the shell's boundary, so it keeps one of its own. Each refresh asks the banner again
    (dashboard/banner.py ``changed``): when it would say something else (the live loop
    refused the log, the outputs no longer match their signature) the whole page is run
    again, banner first, so an open page never keeps a stale "verified"."""
    if banner.changed(ctx.root):
        st.rerun(scope="app")
    with ui.boundary(TITLE, ctx.root):
        _list(ctx, query)


def _list(ctx: PageContext, query: FlagQuery) -> None:
    root = ctx.root
    try:
        stamp = ui.stamps(root, (data.FLAGS,))
        cases, why = case_states(ctx.home)
        if cases is None and query.statuses:
            query = FlagQuery(**{**_query_fields(query), "statuses": ()})
        page = _page(ctx.con, str(root), stamp, ctx.filters, query, cases,
                     _cases_stamp(ctx.home) if cases is not None else None)
    except FileNotFoundError:
        ui.no_flags_yet()
        return
    if cases is None:
        st.warning(f"Case status unavailable: {literal(why)}. The flags are listed without "
                   "it; tell the dashboard's administrator.")
    shown = page.rows.num_rows
    order = f"sorted by {query.sort}" + (", descending" if query.descending else "")
    if page.total == 0:
        st.info("No flag matches." if (ctx.filters.active or query != FlagQuery(
            sort=query.sort, descending=query.descending)) else
            "No flags: every judged round was settled as the rules require.")
        return
    if shown < page.total:
        st.caption(f"The first {shown:,} of **{page.total:,} flags** ({order}); narrow the "
                   "list or export it to see all. Click a row to open its round.")
    else:
        st.caption(f"**{page.total:,} flag{'s' if page.total != 1 else ''}** ({order}). "
                   "Click a row to open its round.")
    event = st.dataframe(
        views.shown_frame(page.rows), key=TABLE_KEY, on_select="rerun", selection_mode="single-row",
        hide_index=True, width="stretch", column_order=COLUMNS,
        column_config=_column_config(), placeholder="",
    )
    chosen = list(getattr(getattr(event, "selection", None), "rows", []) or [])
    if chosen and 0 <= chosen[0] < shown:
        row = chosen[0]
        round_id = page.rows.column("round")[row].as_py()
        if round_id:
            ui.open_round(str(round_id), page.rows.column("casino")[row].as_py(),
                          page.rows.column("table")[row].as_py())
    st.download_button(
        "Export CSV", data=lambda: export(ctx, query, cases),
        file_name=f"flags-{dt.datetime.now(dt.UTC):%Y%m%dT%H%M%SZ}.csv", mime="text/csv",
        on_click="ignore", icon=":material/download:",
        help=f"All {page.total:,} matching flags, cents and exact dollars as numbers.",
    )
    st.caption(f"Refreshed every {REFRESH_S} s while the checks run; last read at "
               f"{dt.datetime.now(dt.UTC):%H:%M:%S} UTC.")


def _query_fields(query: FlagQuery) -> dict[str, Any]:
    return {name: getattr(query, name) for name in FlagQuery.__dataclass_fields__}


def render(ctx: PageContext) -> None:
    """Draw the Flags page for ``ctx.user`` under ``ctx.filters``."""
    st.title(TITLE)
    root = ctx.root
    if not ui.need(root, (data.ROUNDS,)):
        return
    if not ui.have_flags(root):
        ui.no_flags_yet()
        return
    ui.filters_caption(ctx.filters)
    choices = _choices(ctx.con, str(root), ui.stamps(root, (data.FLAGS,)))
    cases, _ = case_states(ctx.home)
    query = _controls(choices, cases is not None)
    st.fragment(run_every=REFRESH_S)(_listing)(ctx, query)
