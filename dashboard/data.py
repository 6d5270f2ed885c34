"""Read-only access to what replay and checks wrote: Parquet files queried by an in-memory DuckDB.

The dashboard never writes these files. Every query runs on its own cursor (a DuckDB connection
must not be shared between Streamlit's threads) and binds the file path and ids as parameters.
Money columns stay integer (BIGINT -> int64, or nullable Int64 when a column has nulls); sums are
cast back to BIGINT because DuckDB widens ``sum(BIGINT)`` to HUGEINT, which pandas turns into float.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from dashboard.context import Filters

DATA_ENV = "CATWALK_DATA"

ROUNDS = "replay/rounds.parquet"
HANDS = "replay/hands.parquet"
WAGERS = "replay/wagers.parquet"
FLAGS = "checks/flags.parquet"
MANIFEST = "replay/manifest.json"
MANIFEST_MAX_BYTES = 1 << 16

REPLAY_FILES = (ROUNDS, HANDS, WAGERS)
ALL_FILES = (*REPLAY_FILES, FLAGS)

RUN_HINT = (
    "Run `make demo` for a demo data set, or `python -m replay` and then `python -m checks` "
    "over your own event log."
)
"""What to run when the files the dashboard reads are missing or unreadable (Markdown)."""

FLAG_COLUMNS = (
    "check_id", "title", "severity", "kind", "occurred_at", "casino", "table_id", "dealer_id",
    "game", "round_id", "seat", "wager", "recorded_cents", "expected_cents",
    "amount_at_stake_cents", "direction", "difference_cents", "counted", "detail",
)  # fmt: skip
"""The columns of ``checks/flags.parquet`` the Overview, Flags and Dealers pages read
(checks/runner.py FLAG_SCHEMA)."""
ROUND_COLUMNS = (
    "round_id", "casino", "table_id", "game", "dealt_at", "dealer_id", "evaluated",
    "wagered_cents", "house_win_cents", "mispaid_wagers",
)  # fmt: skip
"""The columns of ``replay/rounds.parquet`` those pages read (replay/run.py ROUNDS)."""
SEVERITIES = ("critical", "high", "medium", "low", "info")
"""Most severe first (checks/runner.py SEVERITIES)."""


class DataError(Exception):
    """A file the dashboard reads is missing, unreadable or written by an older version of
    replay or checks. The message names the file and what to run (Markdown, safe to show)."""

MONEY_COLUMNS = {
    "flags": ("recorded_cents", "expected_cents", "amount_at_stake_cents"),
    "wagers": (
        "amount_cents",
        "recorded_net_cents",
        "recorded_commission_cents",
        "expected_net_cents",
        "expected_commission_cents",
    ),
}


def data_dir() -> Path:
    """The data directory: ``$CATWALK_DATA``, else ``var/`` at the repository root."""
    configured = os.environ.get(DATA_ENV)
    if configured:
        return Path(configured).expanduser().resolve()
    return Path(__file__).resolve().parent.parent / "var"


def missing(root: Path, names: tuple[str, ...] = ALL_FILES) -> list[str]:
    """The files among ``names`` that do not exist under ``root`` (nothing run yet)."""
    return [name for name in names if not (root / name).is_file()]


@dataclass(frozen=True, slots=True)
class Provenance:
    """What can be said of the data shown (``replay.outputs.trust``, the one reader of
    trust): replay's signed manifest, its signature, every file's SHA-256, the refusal record
    beside ``replay/``, and the checks' signed manifest for ``flags.parquet``.

    ``state`` is replay's outputs' (replay/outputs.py STATES: ``verified``,
    ``key-not-pinned``, ``unverified-log``, ``refused``, ``outdated``, ``tampered``,
    ``unsigned``, ``missing``); ``line`` one line of plain text saying it; ``shown``:
    whether any data may be shown (the outputs and the flags may be read); ``flags``: the
    checks' own state.
    """

    state: str
    line: str = ""
    shown: bool = False
    flags: str = "missing"
    flags_line: str = ""
    refused_at: str | None = None
    reasons: tuple[str, ...] = ()


def provenance(root: Path) -> Provenance:
    """What can be said of the data under ``root``, evaluated afresh (the files' hashes are
    remembered by their inode, size and times, so a rerun is cheap). Fail closed: only
    outputs and flags whose signed manifests match may be shown, and a later refusal of the
    log marks them whatever the manifest says."""
    from replay.outputs import checks_trust, trust

    found = trust(root)
    flags = checks_trust(root)
    flags_ok = flags.usable or not (root / FLAGS).exists()
    reasons = found.reasons + tuple(f"checks: {r}" for r in flags.reasons
                                    if not flags.usable)
    return Provenance(state=found.state, line=" ".join(found.words.split())[:500],
                      shown=found.usable and flags_ok, flags=flags.state,
                      flags_line=" ".join(flags.words.split())[:500],
                      refused_at=found.refused_at, reasons=reasons)


def stamp(root: Path, name: str) -> tuple[str, int, int]:
    """A cache key for one file that changes whenever the file is rewritten."""
    path = root / name
    info = path.stat()
    return (str(path), info.st_mtime_ns, info.st_size)


def connect() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB, capped so the dashboard cannot take the machine's memory."""
    con = duckdb.connect()
    con.execute("SET memory_limit='1GB'")
    con.execute("SET TimeZone='UTC'")
    return con


def flag_totals(con: duckdb.DuckDBPyConnection, root: Path) -> tuple[int, int, int]:
    """The number of flags and the money at stake overpaid and underpaid (cents, each >= 0),
    each mispaid amount once: over the flags marked ``counted`` (several checks may flag
    one wrong amount; a flags file written before that column existed counts every flag).
    The sums stay HUGEINT, which fetchall returns as Python ints: exact, never float."""
    path = str(root / FLAGS)
    columns = {row[0] for row in _rows(con, "DESCRIBE SELECT * FROM read_parquet(?)", [path])}
    counted = "counted AND " if "counted" in columns else ""
    ((count, over, under),) = _rows(
        con,
        "SELECT count(*), "
        f"coalesce(sum(amount_at_stake_cents) FILTER (WHERE {counted}direction = 'over'), 0), "
        f"coalesce(sum(amount_at_stake_cents) FILTER (WHERE {counted}direction = 'under'), 0) "
        "FROM read_parquet(?)",
        [path],
    )
    return int(count), int(over), int(under)


def round_counts(
    con: duckdb.DuckDBPyConnection, root: Path, filters: Filters | None = None
) -> tuple[int, int]:
    """Rounds judged (evaluated) and rounds replay could not judge (not evaluated), among
    the rounds the shared filters select (all of them without ``filters``)."""
    where, params = (filters or Filters()).where()
    ((judged, not_evaluated),) = _rows(
        con,
        "SELECT count(*) FILTER (WHERE evaluated), count(*) FILTER (WHERE NOT evaluated) "
        f"FROM read_parquet(?) WHERE {where}",
        [str(root / ROUNDS), *params],
    )
    return int(judged), int(not_evaluated)


def columns(con: duckdb.DuckDBPyConnection, root: Path, name: str) -> frozenset[str]:
    """The column names of one Parquet file under ``root``."""
    return frozenset(
        row[0] for row in _rows(con, "DESCRIBE SELECT * FROM read_parquet(?)", [str(root / name)])
    )


def require(
    con: duckdb.DuckDBPyConnection, root: Path, name: str, needed: tuple[str, ...]
) -> str:
    """The path of ``name`` under ``root`` after checking that it exists and has the
    ``needed`` columns; raises :class:`DataError` saying which are missing and what to run."""
    path = root / name
    if not path.is_file():
        raise DataError(f"No `{name}` in the data directory. {RUN_HINT}")
    _trusted(root, name)
    try:
        have = columns(con, root, name)
    except duckdb.Error as error:
        raise DataError(
            f"`{name}` cannot be read ({type(error).__name__}): it may be half written or "
            f"from another program. {RUN_HINT}"
        ) from error
    absent = [column for column in needed if column not in have]
    if absent:
        stage = "python -m checks" if name == FLAGS else "python -m replay"
        raise DataError(
            f"`{name}` has no {', '.join(f'`{c}`' for c in absent)} column: it was written by "
            f"an older version. Run `{stage}` again."
        )
    return str(path)


def _trusted(root: Path, name: str) -> None:
    """DataError unless ``name`` is a file its signed manifest lists as it is (the replay
    outputs' or the checks')."""
    from replay.outputs import checks_trust, trust

    found = checks_trust(root) if name.startswith("checks/") else trust(root)
    if not found.usable or Path(name).name not in found.files:
        why = "; ".join(found.reasons) or found.words
        raise DataError(f"`{name}` is not shown: it cannot be trusted ({found.state}: "
                        f"{why[:400]}). Run `python -m replay` and `python -m checks` again "
                        "from a log that verifies.")


@dataclass(frozen=True, slots=True, kw_only=True)
class FilterOptions:
    """The values the shared filters offer: what ``rounds.parquet`` holds."""

    casinos: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    dealers: tuple[str, ...] = ()
    games: tuple[str, ...] = ()
    first_day: dt.date | None = None
    last_day: dt.date | None = None
    """The UTC days of the first and the last ``dealt_at``."""


def filter_options(con: duckdb.DuckDBPyConnection, root: Path) -> FilterOptions:
    """The casinos, tables, dealers and games of ``rounds.parquet`` (sorted, no nulls) and
    the days its rounds were dealt on; one pass over the file."""
    path = require(con, root, ROUNDS, ("casino", "table_id", "dealer_id", "game", "dealt_at"))
    lists = ", ".join(
        f"list(DISTINCT {c} ORDER BY {c}) FILTER (WHERE {c} IS NOT NULL)"
        for c in ("casino", "table_id", "dealer_id", "game")
    )
    ((casinos, tables, dealers, games, first, last),) = _rows(
        con,
        f"SELECT {lists}, min(dealt_at)::DATE, max(dealt_at)::DATE FROM read_parquet(?)",
        [path],
    )
    return FilterOptions(
        casinos=tuple(casinos or ()), tables=tuple(tables or ()), dealers=tuple(dealers or ()),
        games=tuple(games or ()), first_day=first, last_day=last,
    )  # fmt: skip


def _frame(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> pd.DataFrame:
    with con.cursor() as cur:
        return cur.execute(sql, params).df()


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with con.cursor() as cur:
        return cur.execute(sql, params).fetchall()


def _records(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    with con.cursor() as cur:
        cur.execute(sql, params)
        names = [column[0] for column in cur.description or []]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def flags(con: duckdb.DuckDBPyConnection, root: Path) -> pd.DataFrame:
    """All flags, by round then seat (round-level flags, with no seat, first)."""
    return _frame(
        con,
        "SELECT check_id, title, severity, round_id, table_id, seat, "
        "recorded_cents, expected_cents, amount_at_stake_cents, direction, detail "
        "FROM read_parquet(?) ORDER BY round_id, seat NULLS FIRST, check_id",
        [str(root / FLAGS)],
    )


def round_info(con: duckdb.DuckDBPyConnection, root: Path, round_id: str) -> dict[str, Any] | None:
    """One row of rounds.parquet as a dict, ``dealt_at`` rendered in UTC; None if unknown."""
    rows = _records(
        con,
        "SELECT round_id, casino, table_id, game, ruleset, "
        "strftime(timezone('UTC', dealt_at), '%Y-%m-%d %H:%M:%S UTC') AS dealt_at, "
        "dealer_id, evaluated, problems, notation "
        "FROM read_parquet(?) WHERE round_id = ? LIMIT 1",
        [str(root / ROUNDS), round_id],
    )
    return rows[0] if rows else None


def hands(con: duckdb.DuckDBPyConnection, root: Path, round_id: str) -> pd.DataFrame:
    """The round's hands, dealer first, then seats in order."""
    return _frame(
        con,
        "SELECT position, seat, cards, high, low, high_rank, low_rank, foul, "
        "house_way, house_way_high, house_way_low "
        "FROM read_parquet(?) WHERE round_id = ? ORDER BY seat NULLS FIRST, position",
        [str(root / HANDS), round_id],
    )


def wagers(con: duckdb.DuckDBPyConnection, root: Path, round_id: str) -> pd.DataFrame:
    """The round's wagers with recorded and expected settlement, by seat."""
    return _frame(
        con,
        "SELECT seat, wager, amount_cents, "
        "recorded_outcome, recorded_net_cents, recorded_commission_cents, "
        "expected_outcome, expected_net_cents, expected_commission_cents "
        "FROM read_parquet(?) WHERE round_id = ? ORDER BY seat, wager",
        [str(root / WAGERS), round_id],
    )
