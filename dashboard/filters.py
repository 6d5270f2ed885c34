"""The filters every page shares, drawn in the sidebar by the shell: casino, table, dealer
and game (multiselects offering what ``replay/rounds.parquet`` holds) and a range of UTC days
of ``dealt_at``.

Their values live in ``st.session_state`` under :data:`KEYS`, so a filter set on one page
holds on every page of the session until it is changed or cleared; the shell turns them into
one :class:`~dashboard.context.Filters` per run and hands it to the page. A value that the
data no longer holds (the data directory was rebuilt) is dropped rather than kept unseen.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from dashboard.context import Filters
from dashboard.data import FilterOptions
from dashboard.views import shown

KEYS: Mapping[str, str] = {
    "casinos": "filter_casinos",
    "tables": "filter_tables",
    "dealers": "filter_dealers",
    "games": "filter_games",
    "dates": "filter_dates",
}
"""``st.session_state`` keys of the shared filters (the dates: a tuple of 0, 1 or 2 days)."""

_LABELS = {"casinos": "Casino", "tables": "Table", "dealers": "Dealer", "games": "Game"}


def clear() -> None:
    """Forget every shared filter (the "Clear filters" button)."""
    for key in KEYS.values():
        st.session_state.pop(key, None)


def current() -> Filters:
    """The filters as ``st.session_state`` holds them now (no widget drawn)."""
    def chosen(name: str) -> tuple[str, ...]:
        return tuple(str(v) for v in st.session_state.get(KEYS[name]) or ())

    days = tuple(st.session_state.get(KEYS["dates"]) or ())
    return Filters(
        casinos=chosen("casinos"), tables=chosen("tables"), dealers=chosen("dealers"),
        games=chosen("games"),
        date_from=days[0] if len(days) >= 1 else None,
        date_to=days[1] if len(days) >= 2 else None,
    )  # fmt: skip


def _keep_known(key: str, known: tuple[str, ...]) -> None:
    chosen = st.session_state.get(key)
    if not chosen:
        return
    kept = [value for value in chosen if value in known]
    if kept != list(chosen):
        st.session_state[key] = kept


def _keep_days(key: str, first: dt.date | None, last: dt.date | None) -> None:
    days = st.session_state.get(key)
    if not days:
        return
    if first is None or last is None or any(not first <= day <= last for day in days):
        st.session_state.pop(key, None)


def draw(options: FilterOptions, *, format_game: Callable[[Any], str] = str) -> Filters:
    """Draw the filters in the sidebar (call inside ``with st.sidebar``) and return them."""
    for name, label in _LABELS.items():
        known: tuple[str, ...] = getattr(options, name)
        _keep_known(KEYS[name], known)
        st.multiselect(
            label, known, key=KEYS[name], placeholder="All",
            format_func=format_game if name == "games" else shown,
        )
    _keep_days(KEYS["dates"], options.first_day, options.last_day)
    if options.first_day is not None and options.last_day is not None:
        st.date_input(
            "Dates (UTC)", value=[], key=KEYS["dates"], min_value=options.first_day,
            max_value=options.last_day, format="YYYY-MM-DD",
            help=f"Rounds dealt from {options.first_day} to {options.last_day}. "
            "Empty: every day; one day picked: from that day on.",
        )
    filters = current()
    if filters.active:
        st.button("Clear filters", on_click=clear, icon=":material/filter_alt_off:")
    return filters
