"""A replay that refused the log leaves a record of it beside its output directory.

``python -m replay`` (and the live loop's resident replay, replay/live.py) refuses a log that
does not verify, cannot be read, or has no key to check it with, and then writes nothing:
the files under ``DATA/replay`` stay those of the last replay of a log that verified. So
that whoever reads them learns that the log no longer verifies, the refusal is recorded in
``DATA/replay.refused.json`` (when and why); the next replay that writes its files removes
it. The dashboard's banner (dashboard/data.py ``provenance``) and the dispute report
(replay/dispute.py ``provenance_line``) read it, and fail closed: a record that cannot be
read still says the log was refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

REFUSED_SUFFIX = ".refused.json"
"""Beside an output directory (``replay.refused.json`` beside ``DATA/replay``): written when
replay refused the log (it does not verify, cannot be read, or there is no key to check it
with), so that what shows the last replay's files can say the log no longer verifies
(dashboard/data.py ``provenance``, the banner on every page); removed by the next replay
that writes its files. The files themselves are never touched by a refusal."""


def refused_mark(out_dir: Path) -> Path:
    """Where a refusal of the log is recorded for ``out_dir`` (:data:`REFUSED_SUFFIX`)."""
    return out_dir.with_name(out_dir.name + REFUSED_SUFFIX)


def mark_refused(out_dir: Path, why: str) -> None:
    """Record that replay refused the log (:data:`REFUSED_SUFFIX`): when and why, written
    whole or not at all. A mark that cannot be written is said on standard error (the
    refusal itself still stands: nothing is written under ``out_dir``)."""
    path = refused_mark(out_dir)
    now = datetime.now(UTC).isoformat(timespec="seconds")
    body = json.dumps({"refused_at": now, "first_refused_at": _first(path) or now,
                       "why": " ".join(why.split())[:4000]}, ensure_ascii=False) + "\n"
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(body.encode())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        print(f"replay: could not record the refusal in {path} ({exc.strerror or exc}); "
              "the dashboard may still show the last replay as built from a verified log",
              file=sys.stderr)


def _first(path: Path) -> str | None:
    """When the refusal recorded at ``path`` was first made (kept over later refusals)."""
    try:
        with path.open("rb") as file:
            told = json.loads(file.read(1 << 16).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(told, dict):
        return None
    first = told.get("first_refused_at", told.get("refused_at"))
    return " ".join(first.split())[:40] if isinstance(first, str) else None


def refusal_record(out_dir: Path) -> tuple[str | None, str | None]:
    """:func:`refusal`'s line and the first refusal's time (UTC; None when none is
    recorded or the record cannot be read)."""
    line = refusal(out_dir)
    return line, (_first(refused_mark(out_dir)) if line is not None else None)


def refusal(out_dir: Path, limit: int = 1 << 16) -> str | None:
    """When a replay after the one that wrote ``out_dir`` refused the log: one line saying
    so, when and why (fail closed: a record that cannot be read or parsed still says so);
    None when no refusal is recorded. Read only up to ``limit`` bytes."""
    path = refused_mark(out_dir)
    try:
        with path.open("rb") as file:
            raw = file.read(limit)
    except FileNotFoundError:
        return None
    except OSError as error:
        return (f"a later replay refused the log ({path.name} cannot be read: "
                f"{error.strerror or error}); the data is from an earlier replay")
    try:
        told = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        told = None
    if not isinstance(told, dict):
        told = {}
    when, why = told.get("refused_at"), told.get("why")
    when = f" at {' '.join(when.split())[:40]}" if isinstance(when, str) else ""
    why = " ".join(why.split())[:500] if isinstance(why, str) else "no reason recorded"
    return (f"the log no longer verifies: a later replay refused it{when} ({why}); the data "
            "is from the last replay of the log before that")


def clear_refused(out_dir: Path) -> None:
    """Remove the record of a refusal once replay wrote its files again."""
    with contextlib.suppress(FileNotFoundError):
        refused_mark(out_dir).unlink()
