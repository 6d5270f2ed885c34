"""The Access log page: who signed in, looked at what, exported what and changed which case,
newest first, with the state of the log's hash chain (docs/guide-regulator.md; dashboard/access.py).

Regulators and admins only. The log is append-only and hash-chained (dashboard/journal.py):
a chain that does not verify is a red error naming the first bad line, and no entry is
shown from a log that cannot be trusted.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from dashboard import views
from dashboard.access import ACTIONS, AccessLog
from dashboard.accounts import Accounts
from dashboard.context import CAN_SEE_ACCESS_LOG, PageContext, Role
from dashboard.journal import JournalError
from dashboard.views import literal

TITLE = "Access log"
URL_PATH = "access-log"
ICON = ":material/history:"
ROLES: frozenset[Role] | None = CAN_SEE_ACCESS_LOG

PAGE_ROWS = 1_000
EVERYONE = "(everyone)"
EVERYTHING = "(every action)"
CSV_COLUMNS = ("seq", "at", "user", "action", "target", "detail")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A CSV cell: text a spreadsheet would run as a formula (starting with ``=``, ``+``,
    ``-``, ``@``) gets a leading ``'`` (OWASP, "CSV Injection"); numbers stay numbers."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _detail(entry: dict[str, Any]) -> str:
    detail = entry.get("detail")
    if not detail:
        return ""
    return json.dumps(detail, sort_keys=True, ensure_ascii=False)


def access_csv(entries: list[dict[str, Any]]) -> bytes:
    """The entries as CSV (UTF-8, a header line of CSV_COLUMNS; ``seq`` an integer,
    ``detail`` as JSON)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for entry in entries:
        writer.writerow([csv_cell(entry.get("seq")), csv_cell(entry.get("at")),
                         csv_cell(entry.get("user")), csv_cell(entry.get("action")),
                         csv_cell(entry.get("target")), csv_cell(_detail(entry))])
    return out.getvalue().encode("utf-8")


def export(log: AccessLog, record: Any, user: str | None, action: str | None
           ) -> Callable[[], bytes]:
    """The CSV of every entry the filters select, made when the user clicks "Export CSV"
    (not on every run: the log may be long); the export is recorded then, with its rows."""
    def make() -> bytes:
        chosen = log.entries(user=user, action=action)
        record("export", "access-log", rows=len(chosen), user_filter=user,
               action_filter=action)
        return access_csv(chosen)
    return make


def render(ctx: PageContext) -> None:
    """Draw the page: the chain's state, the filters, the newest entries, the export."""
    st.title(TITLE)
    log = AccessLog(ctx.home)
    problem = log.verify()
    if problem is not None:
        st.error(f"**The access log does not verify**: {literal(problem)}. Entries may have "
                 "been altered, removed or added by hand; none is shown from a log that "
                 "cannot be trusted. Keep the file as it is (evidence) and tell the "
                 "dashboard's administrator (`python -m dashboard access verify`).")
        return
    names = sorted({a.name for a in Accounts(ctx.home).accounts()})
    left, right = st.columns(2)
    chosen_user = left.selectbox("User", [EVERYONE, *names], key="access_user",
                                 help="Names typed at a failed sign-in that are no user: "
                                      "choose the action sign_in_failed.")
    chosen_action = right.selectbox("Action", [EVERYTHING, *ACTIONS], key="access_action")
    user = None if chosen_user == EVERYONE else str(chosen_user)
    action = None if chosen_action == EVERYTHING else str(chosen_action)
    try:
        newest = log.entries(user=user, action=action, limit=PAGE_ROWS + 1)
    except JournalError as error:  # changed between the two reads
        st.error(f"**The access log cannot be read**: {literal(str(error))}.")
        return
    st.success("The access log's hash chain is whole: every entry is tied to the one "
               "before it, from the first to the last.")
    if not newest:
        st.info("No entry matches.")
        return
    shown = newest[:PAGE_ROWS]
    table = pd.DataFrame({
        "when (UTC)": [str(e.get("at", "")) for e in shown],
        "user": [str(e.get("user", "")) for e in shown],
        "action": [str(e.get("action", "")) for e in shown],
        "target": [str(e.get("target", "")) for e in shown],
        "detail": [_detail(e) for e in shown],
        "line": pd.array([e.get("seq") for e in shown], dtype="Int64"),
    })
    st.dataframe(views.shown_frame(table), hide_index=True, width="stretch")
    if len(newest) > PAGE_ROWS:
        st.caption(f"The newest {PAGE_ROWS:,} entries are listed; the export holds them all.")
    else:
        st.caption(f"{len(shown):,} entries, newest first.")
    st.download_button("Export CSV", data=export(log, ctx.record, user, action),
                       file_name="access-log.csv", mime="text/csv", key="access_export",
                       on_click="ignore")
