"""``python -m checks --follow``: keep replay's output and the flags up to date while ingest
runs, so that the dashboard shows a new flag seconds after its round reached the log.

Every ``--every`` seconds the loop looks at the log (the size and modification time of every
file under ``DATA/log`` and ``DATA/checkpoints``). When it changed since the last pass that
succeeded, it runs ``python -m replay --data DATA`` and then ``python -m checks --data DATA
--live`` as child processes, one after the other (``--live``: the round each table is
dealing is left out until it ends, so it raises no "not ended" alarm that clears itself).
Replay refuses a log that does not verify and writes nothing, the checks then keep the
flags they had, and the loop says so and tries again at its next pass. A failure of either
stage is a line on standard error, never the end of the loop; only Ctrl-C or SIGTERM stops
it (exit 0).

Each pass that ran prints one line: the records the log holds, how long replay and the
checks took, and how many flags there are, so the delay between ingest and the dashboard
is measured, not guessed (the dashboard polls the files every few seconds).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

Signature = tuple[tuple[str, int, int], ...]


def log_signature(data: Path) -> Signature:
    """What changes whenever ingest appends to the log or signs a checkpoint: the name,
    size and modification time of every file under ``log/`` and ``checkpoints/``."""
    found: list[tuple[str, int, int]] = []
    for sub in ("log", "checkpoints"):
        base = data / sub
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            try:
                info = path.stat()
            except FileNotFoundError:  # rotated away while we looked
                continue
            if path.is_file():
                found.append((str(path.relative_to(data)), info.st_size, info.st_mtime_ns))
    return tuple(found)


@dataclass(frozen=True, slots=True, kw_only=True)
class Stage:
    """One child process run: its exit status, how long it took, its last lines."""

    name: str
    status: int
    seconds: float
    last_line: str


def run_stage(name: str, argv: list[str]) -> Stage:
    """Run one stage as a child process (its own memory, its own failures)."""
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, errors="replace", check=False)
    lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    return Stage(name=name, status=done.returncode, seconds=time.monotonic() - start,
                 last_line=last[:300])


def stages(data: Path, workers: int) -> Iterator[tuple[str, list[str]]]:
    python = sys.executable
    yield "replay", [python, "-m", "replay", "--data", str(data), "--workers", str(workers)]
    yield "checks", [python, "-m", "checks", "--data", str(data), "--live"]


def follow(data: Path, *, every: float = 1.0, workers: int = 1,
           passes: int | None = None, say: Callable[[str], None] | None = None) -> int:
    """Run replay and the checks whenever the log changed, until stopped (or ``passes``
    passes that ran, for tests). Returns the exit status (0 when stopped)."""
    say = say or (lambda line: print(line, file=sys.stderr, flush=True))
    stop = False

    def on_term(signum: int, frame: FrameType | None) -> None:
        nonlocal stop
        stop = True

    previous = signal.signal(signal.SIGTERM, on_term)
    seen: Signature | None = None
    ran = 0
    say(f"follow: watching {data / 'log'} every {every:g} s (Ctrl-C to stop)")
    try:
        while not stop and (passes is None or ran < passes):
            now = log_signature(data)
            if not now:
                if seen is None:
                    say(f"follow: no log yet under {data / 'log'}: waiting for ingest")
                    seen = ()
            elif now != seen:
                ran += 1
                if _one_pass(data, workers, say):
                    seen = now
            if passes is not None and ran >= passes:
                break
            _sleep(every, lambda: stop)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    say("follow: stopped")
    return 0


def _one_pass(data: Path, workers: int, say: Callable[[str], None]) -> bool:
    """Replay then the checks; True when both succeeded."""
    took: list[str] = []
    for name, argv in stages(data, workers):
        stage = run_stage(name, argv)
        if stage.status != 0:
            say(f"follow: {name} failed (exit {stage.status}) after {stage.seconds:.1f} s: "
                f"{stage.last_line or 'no message'}; the previous output is kept, and the "
                "next pass tries again")
            return False
        took.append(f"{name} {stage.seconds:.1f} s")
    say(f"follow: {time.strftime('%H:%M:%S')} up to date ({', '.join(took)}): "
        f"{_flag_line(data)}")
    return True


def _flag_line(data: Path) -> str:
    """How many flags the checks wrote (read from the file's metadata: cheap)."""
    path = data / "checks" / "flags.parquet"
    try:
        import pyarrow.parquet as pq

        return f"{pq.ParquetFile(path).metadata.num_rows:,} flags in {path}"
    except (OSError, ValueError) as exc:
        return f"flags unreadable ({exc})"


def _sleep(seconds: float, stopped: Callable[[], bool]) -> None:
    end = time.monotonic() + seconds
    while not stopped() and time.monotonic() < end:
        time.sleep(min(0.2, max(0.0, end - time.monotonic())))


def default_data() -> Path:
    return Path(os.environ.get("CATWALK_DATA") or Path(__file__).resolve().parent.parent / "var")
