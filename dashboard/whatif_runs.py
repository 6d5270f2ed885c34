"""The what-if runs under ``DATA/whatif/`` (``python -m replay whatif``; docs/whatif.md), read
for the Rulesets page, each with whether it can be trusted.

A what-if is not production: nothing else in the dashboard reads it. Its manifest,
``whatif.json``, is not signed; it names the log the run was built from (the signed
checkpoint, the Merkle root, the number of records) and the SHA-256 of every file. A run is
trusted only when its manifest reads as a what-if's, says the log verified, names exactly
the files the command writes and each file's bytes hash to what it says, and no replay has
refused the log since (``DATA/replay.refused.json``, as the banner of every page says).
Anything else is shown as not trusted, with every reason: fail closed. Never raises for
what is on disk.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

WHATIF_DIR = "whatif"
MANIFEST = "whatif.json"
FORMAT = "catwalk-whatif-manifest/1"
SUMMARY = "whatif_summary.parquet"
FILES = ("whatif_not_evaluated.parquet", "whatif_rounds.parquet", SUMMARY)
MANIFEST_MAX_BYTES = 1 << 16
MONEY = ("net_before_cents", "net_after_cents", "difference_cents")


@dataclass(frozen=True, slots=True, kw_only=True)
class WhatIfRun:
    """One what-if run as found: its directory's name, its manifest (None when it cannot be
    read as one), whether it is trusted and every reason it is not, and its summary by
    casino, table, game and wager (None when it cannot be read)."""

    name: str
    path: Path
    manifest: dict[str, Any] | None
    trusted: bool
    problems: tuple[str, ...]
    summary: pd.DataFrame | None


def whatif_runs(root: Path) -> list[WhatIfRun]:
    """Every run under ``root/whatif`` (hidden entries, the publishing's own, left out), by
    name."""
    folder = root / WHATIF_DIR
    try:
        entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except OSError:
        return []
    return [read_run(p, root) for p in entries if p.is_dir()]


def _manifest(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    try:
        with (path / MANIFEST).open("rb") as file:
            raw = file.read(MANIFEST_MAX_BYTES + 1)
    except OSError as error:
        return None, f"its manifest {MANIFEST} cannot be read ({error.strerror or error})"
    if len(raw) > MANIFEST_MAX_BYTES:
        return None, f"its manifest {MANIFEST} is larger than {MANIFEST_MAX_BYTES:,} bytes"
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        return None, f"its manifest {MANIFEST} is not JSON ({type(error).__name__})"
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        return None, f"its manifest {MANIFEST} is not a what-if manifest ({FORMAT})"
    return manifest, None


def _sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as file:
            while chunk := file.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def check_files(path: Path, manifest: dict[str, Any]) -> list[str]:
    """Every way the run's files differ from its manifest (empty: they match)."""
    files = manifest.get("files")
    if not isinstance(files, dict):
        return ["its manifest lists no files"]
    problems = []
    if sorted(files) != sorted(FILES):
        problems.append(f"its manifest lists {', '.join(sorted(map(str, files))) or 'no file'}, "
                        f"not {', '.join(FILES)}")
    for name in FILES:
        if name not in files:
            continue
        got = _sha256(path / name)
        if got is None:
            problems.append(f"{name} is missing or cannot be read")
        elif got != files[name]:
            problems.append(f"{name} has SHA-256 {got[:12]}..., not the {str(files[name])[:12]}"
                            "... its manifest names: it was changed after the run")
    return problems


def read_run(path: Path, root: Path) -> WhatIfRun:
    """The run in ``path`` (a directory under ``root/whatif``), checked (module docstring)."""
    from replay.refusal import refusal

    manifest, problem = _manifest(path)
    problems = [] if problem is None else [problem]
    if manifest is not None:
        if manifest.get("verified") is not True:
            problems.append("its manifest does not say the log verified")
        problems += check_files(path, manifest)
    refused = refusal(root / "replay", MANIFEST_MAX_BYTES)
    if refused is not None:
        problems.append(refused)
    summary = None
    if manifest is not None:
        try:
            summary = pq.read_table(path / SUMMARY).to_pandas()
        except (OSError, ValueError) as error:  # pyarrow's errors are both
            problems.append(f"{SUMMARY} cannot be read ({type(error).__name__})")
        else:
            for column in MONEY:  # integer cents, never float
                if column in summary and summary[column].dtype.kind != "i":
                    problems.append(f"{SUMMARY}: {column} is not integer cents")
                    summary = None
                    break
    return WhatIfRun(name=path.name, path=path, manifest=manifest,
                     trusted=not problems, problems=tuple(problems), summary=summary)
