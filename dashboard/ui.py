"""What the pages share on screen: saying what is missing and what to run, money and rate
columns for st.dataframe, and the words for the shared filters in force.

Pages read Parquet only after :func:`need` says the files are there; a money column is
exact dollars (dashboard/views.py :data:`~dashboard.views.DOLLARS`) shown by
:func:`money_column` as ``$1,234.50`` and sorted as a number.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import streamlit as st

from dashboard import data
from dashboard.context import Filters
from dashboard.journal import JournalError
from dashboard.views import code, literal

_LOG = logging.getLogger(__name__)


def stamps(root: Path, names: tuple[str, ...]) -> tuple[Any, ...]:
    """The cache key of the files ``names`` (changes whenever one is rewritten)."""
    return tuple(data.stamp(root, name) for name in names if (root / name).is_file())


def need(root: Path, names: tuple[str, ...]) -> bool:
    """True when every file of ``names`` is there; else say which are missing and what to
    run (st.info when nothing has been replayed yet, st.warning otherwise)."""
    absent = data.missing(root, names)
    if not absent:
        return True
    if data.missing(root) == list(data.ALL_FILES):
        st.info(f"No data yet: nothing has been replayed or checked in {code(root)}. "
                f"{data.RUN_HINT}")
    else:
        listed = ", ".join(f"`{name}`" for name in absent)
        st.warning(f"Missing in {code(root)}: {listed}. {data.RUN_HINT}")
    return False


def have_flags(root: Path) -> bool:
    return (root / data.FLAGS).is_file()


def no_flags_yet() -> None:
    st.warning("No flags: the checks have not run yet. Run `python -m checks`.",
               icon=":material/pending:")


def money_column(label: str, help: str | None = None) -> Any:
    """A st.dataframe column of exact dollars, shown as currency, sorted as numbers."""
    return st.column_config.NumberColumn(label, help=help, format="dollar")


def rate_column(label: str, help: str | None = None) -> Any:
    """A ratio (0.25) shown as a percentage (25.00%)."""
    return st.column_config.NumberColumn(label, help=help, format="percent")


def filters_caption(filters: Filters) -> None:
    """One line saying which shared filters are in force (nothing when none)."""
    if not filters.active:
        return
    parts = []
    for label, values in (("casino", filters.casinos), ("table", filters.tables),
                          ("dealer", filters.dealers), ("game", filters.games)):
        if values:
            parts.append(f"{label} {', '.join(literal(v) for v in values)}")
    if filters.date_from or filters.date_to:
        parts.append(f"dates {filters.date_from or '…'} to {filters.date_to or '…'}")
    st.caption("Filtered: " + "; ".join(parts) + " (sidebar).", help=None)


ROUND_PAGE = "round"
"""The URL path of the Round page (``?round=ROUND_ID``)."""


def open_round(round_id: str, casino: str | None = None, table_id: str | None = None) -> None:
    """Go to the Round page showing ``round_id`` (``/round?round=ROUND_ID``, with the casino
    and table when known: the same round id may be dealt at several tables); stops this
    run. The Round page records the ``round_view``."""
    page = st.Page(_nothing, title="Round", url_path=ROUND_PAGE)
    params = {"round": round_id}
    if casino and table_id:
        params |= {"casino": str(casino), "table": str(table_id)}
    st.switch_page(page, query_params=params)


def _nothing() -> None:
    """The body of a st.Page that only names the registered Round page for st.switch_page."""


@contextmanager
def boundary(title: str, root: Path) -> Iterator[None]:
    """Whatever the body raises becomes a message naming the page and what to do, never a
    traceback (the traceback goes to the server's log). The shell puts every page inside
    one; a fragment, which Streamlit reruns on its own, needs its own."""
    try:
        yield
    except JournalError as error:
        _LOG.exception("page %s: a journal cannot be used", title)
        st.error(f"**The {title} page stopped**: {literal(str(error))}. Tell the "
                 "dashboard's administrator (`python -m dashboard access verify`).")
    except (data.DataError, duckdb.Error, OSError) as error:
        if isinstance(error, data.DataError):
            _LOG.warning("page %s: %s", title, error)
        else:
            _LOG.exception("page %s: the data cannot be read", title)
        what = (str(error) if isinstance(error, data.DataError)
                else literal(f"{type(error).__name__}: {error}"))
        st.error(f"**The {title} page could not read the data** in {code(root)}: {what}. "
                 "The files may be half written (try again in a moment) or from an older "
                 f"version. {data.RUN_HINT}")
    except Exception as error:
        _LOG.exception("page %s failed", title)
        st.error(f"**The {title} page failed**: {literal(type(error).__name__)}: "
                 f"{literal(str(error)[:300] or 'no message')}. Pick another page or reload "
                 "this one; if it keeps failing, tell the dashboard's administrator (the "
                 "server's log has the details).")
