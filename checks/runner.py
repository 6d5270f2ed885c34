"""Run every check in checks/sql/ with DuckDB over replay's Parquet and collect the flags.

A check is one SQL file returning the offending rows, zero rows = pass. Its
header comments carry id, title, severity and the rule it enforces. The inputs are exposed
as views named after the files replay writes (``rounds``, ``hands``, ``wagers``, ``envy``,
``bankers``, ``jackpots``, ``findings``); file paths are bound, never formatted
into SQL. Rows are named by casino, table and round: a round id is only unique at its
casino's table.

The checks do not trust silently: replay's ``manifest.json`` says whether the log it read
was verified, and the SHA-256 of each file it wrote. The checks run whatever it says, but
what it says (verified, not verified, or unknown: no manifest, an unreadable one, or files
that are not those replay wrote) is returned with the counts, written into the metadata of
``flags.parquet`` (:data:`PROVENANCE_KEY`, :data:`TRUST_KEY`) and, by ``python -m checks``,
printed loudly. The replay directory is resolved once (replay switches it atomically by a
symbolic link), so that every view reads the same set of files.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

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


MANIFEST = "manifest.json"
MANIFEST_FORMAT = "catwalk-replay-manifest/1"
PROVENANCE_KEY = b"catwalk.provenance"
"""flags.parquet metadata: JSON {"log_trust", "verified", "verification", "manifest"}."""
TRUST_KEY = b"catwalk.log_trust"
"""flags.parquet metadata: ``verified``, ``unverified`` or ``unknown``."""


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


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance:
    """What replay's manifest says of the log the data were built from. ``trust`` is
    ``verified`` (the manifest says so and every file is the one replay wrote),
    ``unverified`` (the manifest says the log was not verified) or ``unknown`` (no manifest,
    an unreadable one, or files that do not match it); ``verification`` says why in words."""

    trust: str
    verification: str
    manifest: dict[str, Any] | None = None

    @property
    def verified(self) -> bool:
        return self.trust == "verified"

    def warning(self) -> str | None:
        """A loud sentence for a person, or None when the log was verified."""
        if self.trust == "verified":
            return None
        what = ("an UNVERIFIED log" if self.trust == "unverified"
                else "a log of UNKNOWN provenance")
        return (f"WARNING: these data were built from {what} ({self.verification}). "
                "The flags are only as good as the log: verify it (`python -m ingest verify`) "
                "and replay again before relying on them.")

    def metadata(self) -> dict[bytes, bytes]:
        record = {"log_trust": self.trust, "verified": self.verified,
                  "verification": self.verification, "manifest": self.manifest}
        return {PROVENANCE_KEY: json.dumps(record, sort_keys=True, separators=(",", ":"),
                                           ensure_ascii=False).encode("utf-8"),
                TRUST_KEY: self.trust.encode("ascii")}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def read_provenance(replay_dir: Path) -> Provenance:
    """What ``replay_dir/manifest.json`` says, checked against the files beside it."""
    path = replay_dir / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Provenance(trust="unknown", verification=f"{path} is missing: the data were "
                          "not written by a replay that records where its log came from")
    except (OSError, ValueError) as exc:
        return Provenance(trust="unknown", verification=f"{path} cannot be read: {exc}")
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        return Provenance(trust="unknown", verification=f"{path} is not a replay manifest "
                          f"({MANIFEST_FORMAT})")
    files = manifest.get("files")
    if not isinstance(files, dict):
        files = {}
    changed = [f"{name}.parquet" for name in INPUTS
               if (replay_dir / f"{name}.parquet").is_file()
               and files.get(f"{name}.parquet") != _sha256(replay_dir / f"{name}.parquet")]
    if changed:
        return Provenance(trust="unknown", manifest=manifest, verification=(
            f"{', '.join(changed)} not the file(s) replay wrote (SHA-256 differs from "
            f"{path})"))
    verification = manifest.get("verification")
    if not isinstance(verification, str) or not verification:
        verification = "the manifest does not say how the log was verified"
    if manifest.get("verified") is True:
        return Provenance(trust="verified", verification=verification, manifest=manifest)
    return Provenance(trust="unverified", verification=verification, manifest=manifest)


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


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckRun:
    """Flags per check id, and what replay's manifest says of the log."""

    counts: dict[str, int]
    provenance: Provenance


def run_checks(replay_dir: Path, out_dir: Path) -> CheckRun:
    """Run every check over one set of replay's files, write ``flags.parquet`` (atomically,
    with the provenance in its metadata), return the flags per check id and the
    provenance."""
    replay_dir = replay_dir.resolve()  # one generation of replay's files for every view
    provenance = read_provenance(replay_dir)
    con = connect(replay_dir)
    tables, counts = [], {}
    for check in load_checks():
        t = run_check(con, check)
        tables.append(t)
        counts[check.id] = t.num_rows
    flags = pa.concat_tables(tables) if tables else FLAG_SCHEMA.empty_table()
    flags = flags.replace_schema_metadata(provenance.metadata())
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out_dir / "flags.parquet.tmp"
    pq.write_table(flags, tmp)
    os.replace(tmp, out_dir / "flags.parquet")
    return CheckRun(counts=counts, provenance=provenance)


def run_all(replay_dir: Path, out_dir: Path) -> dict[str, int]:
    """Run every check, write ``flags.parquet`` (atomically), return flags per check id
    (:func:`run_checks` also returns what the manifest says of the log)."""
    return run_checks(replay_dir, out_dir).counts
