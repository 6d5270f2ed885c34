"""Run every check in checks/sql/ with DuckDB over replay's Parquet and collect the flags.

A check is one SQL file returning the offending rows, zero rows = pass. Its
header comments carry id, title, severity and the rule it enforces. The inputs are exposed
as views named after the files replay writes (``rounds``, ``hands``, ``wagers``, ``envy``,
``bankers``, ``jackpots``, ``findings``); file paths are bound, never formatted
into SQL. Rows are named by casino, table and round: a round id is only unique at its
casino's table.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

INPUTS = ("rounds", "hands", "wagers", "envy", "bankers", "jackpots", "findings")
HEADER = re.compile(r"^--\s*(id|title|severity|rule):\s*(.+?)\s*$")

FLAG_SCHEMA = pa.schema([
    ("check_id", pa.string()),
    ("title", pa.string()),
    ("severity", pa.string()),
    ("casino", pa.string()),
    ("round_id", pa.string()),
    ("table_id", pa.string()),
    ("seat", pa.int32()),
    ("recorded_cents", pa.int64()),
    ("expected_cents", pa.int64()),
    ("difference_cents", pa.int64()),
    ("detail", pa.string()),
])
ROW_COLUMNS = FLAG_SCHEMA.names[3:]


class CheckError(Exception):
    """A check could not run; the message names the check file and what to do."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    id: str
    title: str
    severity: str
    rule: str
    sql: str
    source: str


def parse_check(text: str, source: str) -> Check:
    """Read a check file: header lines ``-- id: ...`` etc., then the query."""
    header: dict[str, str] = {}
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            header.setdefault(m.group(1), m.group(2))
    missing = [k for k in ("id", "title", "severity", "rule") if k not in header]
    if missing:
        raise CheckError(f"{source}: header lacks {', '.join(missing)} (lines like '-- id: x')")
    return Check(id=header["id"], title=header["title"], severity=header["severity"],
                 rule=header["rule"], sql=text, source=source)


def load_checks() -> list[Check]:
    """Every shipped check, in file-name order."""
    folder = resources.files("checks").joinpath("sql")
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return [parse_check(f.read_text(encoding="utf-8"), f"checks/sql/{f.name}") for f in files]


def connect(replay_dir: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with replay's Parquet files as views."""
    con = duckdb.connect()
    con.execute("SET memory_limit='2GB'")
    for name in INPUTS:
        path = replay_dir / f"{name}.parquet"
        if not path.is_file():
            raise CheckError(f"{path} is missing: run `python -m replay` first")
        con.read_parquet(str(path)).create_view(name)
    return con


def run_check(con: duckdb.DuckDBPyConnection, check: Check) -> pa.Table:
    """The check's offending rows, with the check's id, title and severity in front."""
    try:
        rows = con.sql(check.sql).to_arrow_table()
    except duckdb.Error as exc:
        raise CheckError(f"{check.source}: {exc}") from exc
    absent = [c for c in ROW_COLUMNS if c not in rows.column_names]
    if absent:
        raise CheckError(f"{check.source}: the query must return columns {', '.join(absent)}")
    n = rows.num_rows
    columns = [pa.array([check.id] * n, pa.string()), pa.array([check.title] * n, pa.string()),
               pa.array([check.severity] * n, pa.string())]
    columns += [rows.column(c).cast(FLAG_SCHEMA.field(c).type) for c in ROW_COLUMNS]
    return pa.Table.from_arrays(columns, schema=FLAG_SCHEMA)


def run_all(replay_dir: Path, out_dir: Path) -> dict[str, int]:
    """Run every check, write ``flags.parquet`` (atomically), return flags per check id."""
    con = connect(replay_dir)
    tables, counts = [], {}
    for check in load_checks():
        t = run_check(con, check)
        tables.append(t)
        counts[check.id] = t.num_rows
    flags = pa.concat_tables(tables) if tables else FLAG_SCHEMA.empty_table()
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out_dir / "flags.parquet.tmp"
    pq.write_table(flags, tmp)
    os.replace(tmp, out_dir / "flags.parquet")
    return counts
