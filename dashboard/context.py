"""What every page of the dashboard is handed: who is signed in, the data directory, the
filters shared by every page, the DuckDB connection, and the access log to write to.

The shell (``dashboard/app.py``) signs the user in, draws the shared filters in the sidebar,
builds one :class:`PageContext` per run and calls the chosen page's ``render(ctx)``. A page
reads Parquet through ``ctx.con`` (one cursor per query), narrows by ``ctx.filters`` and
records what the user looked at or did with ``ctx.record(...)``.

Roles (docs/guide-analyst.md, docs/guide-dispute.md, docs/guide-regulator.md): an *analyst*
triages flags and works cases; *dispute* staff look up rounds and hand dispute reports to
patrons and managers; a *regulator* sees everything and changes nothing; an *admin* does
everything, users included.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import duckdb

Role = Literal["analyst", "dispute", "regulator", "admin"]
ROLES: tuple[Role, ...] = ("analyst", "dispute", "regulator", "admin")

ROLE_WORDS: Mapping[Role, str] = {
    "analyst": "surveillance analyst: triages flags, works cases",
    "dispute": "dispute staff: looks up rounds, hands out dispute reports",
    "regulator": "regulator: sees everything, changes nothing",
    "admin": "administrator: everything, users included",
}

CAN_CHANGE_CASES: frozenset[Role] = frozenset({"analyst", "admin"})
"""Who may acknowledge a flag or record a disposition (a regulator changes nothing)."""
CAN_SEE_ACCESS_LOG: frozenset[Role] = frozenset({"regulator", "admin"})

Action = Literal[
    "sign_in", "sign_in_failed", "sign_out", "page_view", "round_view", "export",
    "report_download", "case_action", "user_added", "user_disabled", "password_set",
    "journal_anchored",
    "log_verified", "proof_made",
]
"""What the access log records (append-only, with who and when)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class User:
    """A signed-in user: a name and one role."""

    name: str
    role: Role

    @property
    def can_change_cases(self) -> bool:
        return self.role in CAN_CHANGE_CASES

    @property
    def can_see_access_log(self) -> bool:
        return self.role in CAN_SEE_ACCESS_LOG


@dataclass(frozen=True, slots=True, kw_only=True)
class Filters:
    """The filters shared by every page; an empty tuple or None means "all"."""

    casinos: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    dealers: tuple[str, ...] = ()
    games: tuple[str, ...] = ()
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    """Inclusive UTC days of ``dealt_at`` (rounds, wagers) or ``occurred_at`` (flags)."""

    def where(self, *, time_column: str = "dealt_at", prefix: str = "",
              dealer_column: str = "dealer_id") -> tuple[str, list[Any]]:
        """A SQL condition (never empty: ``TRUE`` when nothing is filtered) and its
        parameters, for a relation that has casino, table_id, game, the dealer column and
        the time column. ``prefix`` is a table alias with its dot (``"r."``)."""
        parts: list[str] = []
        params: list[Any] = []
        for column, values in (("casino", self.casinos), ("table_id", self.tables),
                               (dealer_column, self.dealers), ("game", self.games)):
            if values:
                parts.append(f"{prefix}{column} IN ({', '.join('?' for _ in values)})")
                params.extend(values)
        if self.date_from is not None:
            parts.append(f"{prefix}{time_column} >= ?::TIMESTAMPTZ")
            params.append(f"{self.date_from.isoformat()} 00:00:00+00")
        if self.date_to is not None:
            parts.append(f"{prefix}{time_column} < ?::TIMESTAMPTZ")
            params.append(f"{(self.date_to + dt.timedelta(days=1)).isoformat()} 00:00:00+00")
        return (" AND ".join(parts) or "TRUE"), params

    @property
    def active(self) -> bool:
        return bool(self.casinos or self.tables or self.dealers or self.games
                    or self.date_from or self.date_to)


Recorder = Callable[..., None]
"""``record(action, target="", **detail)``: append one entry to the access log."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PageContext:
    """Everything a page needs; built by the shell once per run."""

    root: Path
    """The data directory (``$CATWALK_DATA``): replay/, checks/, log/, checkpoints/ ..."""
    home: Path
    """Where the dashboard keeps its own append-only files (users, access log, cases)."""
    user: User
    filters: Filters
    con: duckdb.DuckDBPyConnection
    record: Recorder
    params: Mapping[str, str] = field(default_factory=dict)
    """The page's query parameters (``?round=T01-000002``)."""
