"""The Cases page: each flag with where its case stands, its history, and for an analyst or
an admin the actions that move it on (docs/guide-analyst.md; dashboard/cases.py).

An analyst acknowledges a flag (new -> acknowledged) and records a disposition (dealer
error, patron error, false alarm, amount recovered, or a note), each kept append-only with
who and when. Dispute staff and regulators see the cases and their history and change
nothing: they get no buttons, and the store refuses them anyway (PermissionError).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

import duckdb
import pyarrow as pa
import streamlit as st

from dashboard import data, flag_queries, views
from dashboard.cases import DISPOSITION_WORDS, DISPOSITIONS, CaseError, Cases, CaseState
from dashboard.context import ROLES as ALL_ROLES
from dashboard.context import PageContext, Role
from dashboard.journal import JournalError
from dashboard.money import format_cents
from dashboard.screens.round import flag_line, open_round
from dashboard.views import code, literal

TITLE = "Cases"
URL_PATH = "cases"
ICON = ":material/work:"
# Every role sees the cases; only an analyst or an admin changes them.
ROLES: frozenset[Role] | None = frozenset(ALL_ROLES)

STATUS_CHOICES = ("all", *flag_queries.STATUSES)
# ``?flag=KEY`` opens the page on one flag's case (its key, dashboard.cases.flag_key).
FLAG_PARAM = "flag"
# Session state: what the last action did, shown once after the page is drawn again.
FLASH = "cases_flash"
ACTED = "cases_acted"
"""``st.session_state`` key: the flag key of the last case acted on in this session."""

MAX_DOLLARS = Decimal(10) ** 10


def dollars_to_cents(value: Any) -> int | None:
    """The amount typed in dollars (its text, as typed: never a float) as integer cents,
    exactly, read as a Decimal, so "12.34" is 1234 and never 1233; a leading "$" and
    thousands separators are allowed. None when nothing was typed; ValueError for a float,
    a negative amount, one that is not a whole number of cents, or one too large."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool | float):
        raise ValueError("the amount must be typed as text (a float is not exact money)")
    try:
        text = value.strip().removeprefix("$").replace(",", "") if isinstance(value, str) \
            else value
        amount = Decimal(text)
    except (InvalidOperation, TypeError, ValueError):
        raise ValueError(f"{value!r} is not an amount of dollars") from None
    if not amount.is_finite() or amount < 0:
        raise ValueError(f"{amount} is not an amount of dollars")
    if amount >= MAX_DOLLARS:
        raise ValueError(f"${amount:,} is too large for an amount recovered")
    cents = amount.scaleb(2)
    if cents != cents.to_integral_value():
        raise ValueError(f"${amount} is not a whole number of cents: type at most two "
                         "decimals (e.g. 12.50)")
    return int(cents)


def status_words(state: CaseState | None) -> str:
    """Where a case stands, in one line of Markdown: who and when shown as literal text,
    money with its dollar sign escaped (Streamlit reads ``$...$`` as math)."""
    if state is None or state.status == "new":
        return "new: nobody has acknowledged it yet"
    who = f"{literal(state.by)} at {literal(state.at)}"
    if state.status == "acknowledged":
        return f"acknowledged by {who}"
    words = DISPOSITION_WORDS.get(state.disposition or "", state.disposition or "")
    amount = (f" ({_md(format_cents(state.amount_recovered_cents))})"
              if state.amount_recovered_cents is not None else "")
    return f"resolved: {literal(words)}{amount}; latest entry by {who}"


def _md(text: str) -> str:
    """Text this page wrote itself, for Markdown: a dollar sign is escaped."""
    return text.replace("$", "\\$")


# Data -------------------------------------------------------------------------------------


def _flag(ctx: PageContext, key: str) -> dict[str, Any] | None:
    """The one flag of ``key`` in flags.parquet (None when the checks no longer raise it)."""
    with ctx.con.cursor() as cur:
        cur.execute(
            "SELECT * FROM (SELECT *, " + flag_queries.key_sql() + " AS flag_key "
            "FROM read_parquet(?)) WHERE flag_key = ? LIMIT 1",
            [str(ctx.root / data.FLAGS), key])
        names = [column[0] for column in cur.description or []]
        row = cur.fetchone()
    return dict(zip(names, row, strict=True)) if row is not None else None


def _history_table(history: list[dict[str, Any]]) -> pa.Table:
    """The case's entries, oldest first: when, who, role, what, amount recovered, note."""
    return pa.table({
        "when (UTC)": pa.array([str(e.get("at", "")) for e in history], pa.string()),
        "who": pa.array([str(e.get("by", "")) for e in history], pa.string()),
        "role": pa.array([str(e.get("role", "")) for e in history], pa.string()),
        "what": pa.array([_what(e) for e in history], pa.string()),
        "amount recovered": pa.array(
            [views.dollars(e["amount_recovered_cents"])
             if type(e.get("amount_recovered_cents")) is int else None for e in history],
            views.DOLLARS),
        "note": pa.array([str(e.get("note") or "") for e in history], pa.string()),
    })


def _what(entry: dict[str, Any]) -> str:
    if entry.get("action") == "acknowledged":
        return "acknowledged"
    disposition = str(entry.get("disposition") or "")
    return DISPOSITION_WORDS.get(disposition, disposition)


# Page -------------------------------------------------------------------------------------


def render(ctx: PageContext) -> None:
    """Draw the page: the flags with their case status, then the chosen flag's case."""
    st.title(TITLE)
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)
    if not (ctx.root / data.FLAGS).is_file():
        st.info(f"No flags yet in {code(ctx.root)}: run `python -m checks` after "
                "`python -m replay`. Cases are opened on flags.")
        return
    cases = Cases(ctx.home)
    try:
        states = cases.states()
    except JournalError as error:
        st.error(f"**The cases file cannot be trusted**: {literal(str(error))}. No case is "
                 "shown or changed until it verifies; tell the dashboard's administrator.")
        return
    status = st.selectbox("Status", STATUS_CHOICES, key="cases_status",
                          help="Where the case stands: new (nobody has acknowledged it), "
                               "acknowledged (being worked) or resolved (a disposition).")
    query = flag_queries.FlagQuery(statuses=() if status == "all" else (status,))
    table = flag_queries.cases_table(states)
    try:
        listed = flag_queries.flag_page(ctx.con, ctx.root, ctx.filters, query, table)
    except data.DataError as error:
        st.error(str(error))
        return
    except (duckdb.Error, OSError) as error:
        st.error(f"Could not read {code(ctx.root / data.FLAGS)}: "
                 f"{literal(f'{type(error).__name__}: {error}')}. {data.RUN_HINT}")
        return
    counts = _status_counts(states, listed.total, status)
    st.caption(counts)
    if listed.total == 0:
        st.info("No flag matches." if status == "all" or ctx.filters.active
                else f"No flag is {status}.")
        return
    page_keys = [str(k) for k in listed.rows.column("key").to_pylist()]
    cased = [states.get(k) for k in page_keys]
    shown = listed.rows.select(["case status", "severity", "check", "time", "table", "dealer",
                                "round", "seat", "wager", "difference"])
    shown = shown.append_column("disposition", pa.array(
        [s.disposition if s is not None else None for s in cased], pa.string()))
    shown = shown.append_column("case by", pa.array(
        [s.by if s is not None else None for s in cased], pa.string()))
    shown = shown.append_column("detail", listed.rows.column("detail"))
    st.dataframe(views.shown_frame(shown), hide_index=True, width="stretch", column_config={
        "difference": st.column_config.NumberColumn(
            "difference", help="Recorded minus expected: positive when overpaid.",
            format="dollar"),
        "seat": st.column_config.NumberColumn("seat", format="%d"),
    })
    if listed.total > listed.rows.num_rows:
        st.caption(f"The first {listed.rows.num_rows:,} of {listed.total:,} flags are listed "
                   "(newest first); narrow them with the filters.")
    records = listed.rows.select(["key", "round", "seat", "check", "severity",
                                  "case status"]).to_pylist()
    keys = [str(r["key"]) for r in records]
    labels = {str(r["key"]): _label(r) for r in records}
    asked = ctx.params.get(FLAG_PARAM)
    index = keys.index(asked) if asked in labels else None
    chosen = st.selectbox("Flag", keys, index=index, key="cases_flag",
                          format_func=lambda k: views.shown(labels.get(k, k)),
                          placeholder="Choose a flag to see its case")
    acted = st.session_state.get(ACTED)
    if chosen is None and isinstance(acted, str) and acted not in labels:
        chosen = acted  # the case just acted on, now outside the status chosen: stay on it
    if chosen is not None:
        _case(ctx, cases, str(chosen), states.get(str(chosen)))


def _status_counts(states: dict[str, CaseState], total: int, status: str) -> str:
    touched = {"acknowledged": 0, "resolved": 0}
    for state in states.values():
        if state.status in touched:
            touched[state.status] += 1
    listed = f"{total:,} flag(s) listed" if status == "all" else f"{total:,} {status}"
    return (f"{listed}. Cases opened so far (all flags): {touched['acknowledged']:,} "
            f"acknowledged, {touched['resolved']:,} resolved.")


def _label(row: dict[str, Any]) -> str:
    """The flag's words in the chooser. Not its case status: a label that changes when the
    flag is acknowledged would make Streamlit forget the choice, and the disposition
    recorded next would go nowhere."""
    seat = "round" if views.absent(row["seat"]) else f"seat {int(row['seat'])}"
    return f"{row['round']} · {seat} · {row['check']} · {row['severity']}"


def _case(ctx: PageContext, cases: Cases, key: str, state: CaseState | None) -> None:
    """One flag's case: the flag, where the case stands, its history, and the actions."""
    st.header("Case")
    flag = _flag(ctx, key)
    if flag is None:
        st.warning("The checks no longer raise this flag (they ran again since); its history "
                   "is kept below.")
    else:
        st.markdown(flag_line(flag))
        round_id = str(flag["round_id"])
        st.markdown(f"Round {code(round_id)} at table {code(flag['table_id'])}")
        if st.button("Open the round", key="case_open_round", icon=":material/playing_cards:"):
            open_round(round_id, str(flag["casino"]), str(flag["table_id"]))
    st.markdown(f"**Status**: {status_words(state)}")
    st.caption(f"Case key: {code(key)}")
    try:
        history = cases.history(key)
    except JournalError as error:
        st.error(f"The case's history cannot be read: {literal(str(error))}.")
        return
    st.subheader("History")
    if not history:
        st.caption("Nothing recorded yet.")
    else:
        st.dataframe(views.shown_frame(_history_table(history)), hide_index=True, width="stretch",
                     column_config={"amount recovered": st.column_config.NumberColumn(
                         "amount recovered", format="dollar")})
        notes = [e for e in history if e.get("note")]
        if notes:
            with st.expander("Notes in full"):
                for entry in notes:
                    st.caption(f"{literal(str(entry.get('by', '')))} at "
                               f"{literal(str(entry.get('at', '')))}")
                    st.text(views.shown(entry["note"]))
    if not ctx.user.can_change_cases:
        st.info("You see the cases and their history; only an analyst or an admin "
                "acknowledges a flag or records a disposition.")
        return
    _actions(ctx, cases, key, state)


def _actions(ctx: PageContext, cases: Cases, key: str, state: CaseState | None) -> None:
    st.subheader("Act on this flag")
    new = state is None or state.status == "new"
    if new and st.button("Acknowledge", key="case_acknowledge",
                         help="You have seen the flag and are working on it."):
        _do(ctx, key, "acknowledged", lambda: cases.acknowledge(key, by=ctx.user))
    with st.form("case_disposition", clear_on_submit=False):
        disposition = st.selectbox("Disposition", DISPOSITIONS,
                                   format_func=lambda d: DISPOSITION_WORDS.get(d, d))
        note = st.text_area("Note", max_chars=2000,
                            help="Your own words, kept exactly as typed.")
        amount = st.text_input("Amount recovered ($)", placeholder="e.g. 12.50", key="case_amount",
                               help="With the disposition \"amount recovered\" only; "
                               "dollars and cents, read exactly as typed.")
        submitted = st.form_submit_button("Record disposition")
    if submitted:
        try:
            cents = dollars_to_cents(amount)
        except ValueError as error:
            st.error(f"Amount recovered: {_md(str(error))}. Nothing was recorded.")
            return
        _do(ctx, key, str(disposition),
            lambda: cases.dispose(key, by=ctx.user, disposition=str(disposition), note=note,
                                  amount_recovered_cents=cents),
            amount_recovered_cents=cents)


def _do(ctx: PageContext, key: str, what: str, act: Any, **detail: Any) -> None:
    """Run a case action; on success record it in the access log and draw the page again."""
    try:
        act()
    except PermissionError as error:
        st.error(f"Not allowed: {literal(str(error))}.")
        return
    except CaseError as error:
        st.error(f"Not recorded: {literal(str(error))}.")
        return
    except JournalError as error:
        st.error(f"Not recorded: the cases file cannot be written: {literal(str(error))}.")
        return
    detail = {k: v for k, v in detail.items() if v is not None}
    # "did", not "action": the access log's own field is the action (case_action).
    if what == "acknowledged":
        ctx.record("case_action", key, did="acknowledged", **detail)
    else:
        ctx.record("case_action", key, did="disposed", disposition=what, **detail)
    words = ("Acknowledged." if what == "acknowledged"
             else f"Recorded: {DISPOSITION_WORDS.get(what, what)}.")
    st.session_state[FLASH] = words
    st.session_state[ACTED] = key
    st.rerun()
