"""``python -m checks --follow``: keep replay's output and the flags up to date while ingest
runs, so that the dashboard shows a new flag seconds after its round reached the log.

Every ``--every`` seconds the loop looks at the log. When it changed since the last pass
that succeeded, it brings ``DATA/replay`` up to date and then runs the checks with
``live=True`` (the round each table is dealing is left out until it ends, so it raises no
"not ended" alarm that clears itself). While the resident replay goes on from its last
pass, the look costs the same whatever the log's length (:func:`log_mark`: the
directories and each chain's ``latest.checkpoint``), since every pass proves the files
verified before unchanged itself; otherwise (ingest workers' chains, a log that did not
verify, replay as a child) it is the size and modification time of every file under
``DATA/log`` and ``DATA/checkpoints`` (:func:`log_signature`).

Replay stays in this process (``replay.live.LiveReplay``): every pass verifies the log as
``python -m replay`` does but goes on from the last pass (schemas/log_resume.py: only the
segments appended since are read, once those verified before are proved unchanged by their
fingerprints; anything else, the whole log again), then decodes, folds and judges only the
records appended since the last pass, and writes the files ``python -m replay`` would
write, byte for byte; so a pass costs what the new records cost, not a replay or a
verification of the whole shift. Every ``full_every`` seconds (``--full-every``, default
600) the whole log is verified again in a child process, beside the passes; when that
fails, the next pass verifies the whole log itself and refuses it as a pass always has,
whether or not the log looks changed. A log of ingest workers' chains
(``log/workers/NAME``), or a resident replay that failed in a way it should not, is
replayed instead by ``python -m replay`` as a child process, every pass from then on,
which the loop says once. The checks run in this process too (``checks.runner.run_checks``;
about a third of the time of ``python -m checks --live`` as a child, which pays for
starting Python and DuckDB each pass: bench/README.md).

Replay refuses a log that does not verify and writes nothing, the checks then keep the
flags they had, and the loop says so and tries again at its next pass. A failure of either
stage is a line on standard error, never the end of the loop; only Ctrl-C or SIGTERM stops
it (exit 0). ``resident=False`` runs both stages as child processes each pass, as before
(``python -m replay`` then ``python -m checks --live``).

Each pass that ran prints one line: how long replay and the checks took, the records the
log holds and how many were new, and how many flags there are, so the delay between ingest
and the dashboard is measured, not guessed (the dashboard polls the files every few
seconds).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from schemas.log_resume import FULL_EVERY

if TYPE_CHECKING:
    from replay.live import LiveReplay
    from replay.rulebook import Rulebook

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


def log_mark(data: Path) -> Mark:
    """What changes whenever ingest appends a segment or signs a checkpoint, looked at
    without listing the log (a live log has about 5 segments a second, 144,000 in a shift):
    each directory of ``log/`` and ``checkpoints/`` (the lone ingest's and each worker's:
    inode and modification time, which a file renamed into place changes) and each
    chain's ``latest.checkpoint`` (its text, which ingest rewrites after every segment and
    at shutdown, so that two segments within the file system's timestamp granularity are
    told apart). A file changed in place is not seen here: while the log looks unchanged,
    each tick looks again at a share of the files verified (``LiveReplay.spot``: every file
    within about 30 s at the end of an 8-hour shift), the resident replay's next pass
    compares every fingerprint, and the whole verification in the background runs every
    ``--full-every`` seconds (schemas/log_resume.py)."""
    found: list[tuple[str, int, int, str]] = []
    for sub in ("log", "checkpoints"):
        base = data / sub
        dirs = [base]
        with contextlib.suppress(OSError), os.scandir(base / "workers") as workers:
            dirs += [base / "workers", *sorted(Path(e.path) for e in workers
                                               if e.is_dir(follow_symlinks=False))]
        for where in dirs:
            try:
                info = where.stat()
            except OSError:
                continue
            text = ""
            if sub == "checkpoints":
                with contextlib.suppress(OSError, UnicodeDecodeError):
                    text = (where / "latest.checkpoint").read_text(encoding="utf-8")
            found.append((str(where.relative_to(data)), info.st_ino, info.st_mtime_ns, text))
    return tuple(found)


Mark = tuple[tuple[str, int, int, str], ...]
Look = tuple[Mark, Signature | None]
"""What the loop saw of the log: :func:`log_mark`, and :func:`log_signature` when every
file is looked at."""


def _changed(now: Look, seen: Look) -> bool:
    """Whether the log changed since ``seen``: its mark, and every file when both looked
    at every file (so that the resident replay's first pass, which looks at every file,
    and the next, which does not, see the same log as unchanged)."""
    if now[0] != seen[0]:
        return True
    return now[1] is not None and seen[1] is not None and now[1] != seen[1]


@dataclass(frozen=True, slots=True, kw_only=True)
class Stage:
    """One child process run: its exit status, how long it took, its last lines."""

    name: str
    status: int
    seconds: float
    last_line: str


GRACE = 5.0
"""Seconds a stage's child is given to stop after SIGTERM is forwarded to it, before it is
killed."""


class Stopped(BaseException):
    """SIGTERM reached the loop: it stops wherever it is (not an Exception, so that no
    "a long-running loop never dies of it" handler swallows it)."""


def run_stage(name: str, argv: list[str], grace: float = GRACE) -> Stage:
    """Run one stage as a child process (its own memory, its own failures). Interrupted
    (SIGTERM, Ctrl-C), the child is sent SIGTERM, then killed after ``grace`` seconds."""
    start = time.monotonic()
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, errors="replace")
    try:
        out, err = child.communicate()
    except BaseException:
        stop_child(child, grace)
        raise
    lines = [line for line in (err + out).splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    return Stage(name=name, status=child.returncode, seconds=time.monotonic() - start,
                 last_line=last[:300])


def stop_child(child: subprocess.Popen[str], grace: float = GRACE) -> None:
    """SIGTERM to ``child``, then SIGKILL if it has not ended within ``grace`` seconds."""
    with contextlib.suppress(ProcessLookupError):
        child.send_signal(signal.SIGTERM)
    try:
        child.wait(grace)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def follow(data: Path, *, every: float = 1.0, workers: int = 1,
           passes: int | None = None, say: Callable[[str], None] | None = None,
           resident: bool = True, key: str | None = None,
           full_every: float | None = FULL_EVERY, rulesets: Path | None = None,
           book: Rulebook | None = None) -> int:
    """Run replay and the checks whenever the log changed, until stopped (or ``passes``
    passes that ran, for tests). ``resident``: replay and the checks in this process
    (see the module docstring), else as child processes; ``key``: the public key the
    log's checkpoints must verify with (as ``python -m replay --key``); ``workers``: of
    the child ``python -m replay``; ``full_every``: seconds between whole verifications
    of the log in the background (resident only; None: none); ``rulesets``: the rulesets
    directory replay judges by (``python -m replay --rulesets``), read once as ``book``
    (replay.filings.load_rulebook) by the caller: the resident replay judges by ``book``,
    a child replay is given the directory. Returns the exit status (0 when stopped)."""
    say = say or (lambda line: print(line, file=sys.stderr, flush=True))
    stop = False

    def on_term(signum: int, frame: FrameType | None) -> None:
        # Raised, not only noted: whatever the loop is doing (waiting, verifying, a stage's
        # child running) stops now; a second SIGTERM while stopping is only noted.
        nonlocal stop
        if not stop:
            stop = True
            raise Stopped

    seen: Look | None = None
    waiting = False
    ran = 0
    passer = _Passes(data, workers=workers, key=key, say=say, resident=resident,
                     full_every=full_every, rulesets=rulesets, book=book)
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        say(f"follow: watching {data / 'log'} every {every:g} s (Ctrl-C to stop)")
        while not stop and (passes is None or ran < passes):
            now = passer.look()
            if now is None:
                if not waiting:
                    say(f"follow: no log yet under {data / 'log'}: waiting for ingest")
                    waiting = True
            elif seen is None or _changed(now, seen) or passer.poll():
                ran += 1
                if passer.one_pass():
                    seen = now
            if passes is not None and ran >= passes:
                break
            _sleep(every, lambda: stop)
    except (KeyboardInterrupt, Stopped):
        pass
    finally:
        stop = True  # a SIGTERM from here on is only noted
        try:
            passer.close()
        finally:
            signal.signal(signal.SIGTERM, previous)
    say("follow: stopped")
    return 0


class _Passes:
    """One pass after another: the resident replay while it can, else the child process
    (said once); the checks in this process (``resident``) or as a child."""

    def __init__(self, data: Path, *, workers: int, key: str | None,
                 say: Callable[[str], None], resident: bool,
                 full_every: float | None, rulesets: Path | None = None,
                 book: Rulebook | None = None) -> None:
        self.data, self.workers, self.key, self.say = data, workers, key, say
        self.resident = resident
        self.rulesets = rulesets
        self.live: LiveReplay | None = None
        if resident:
            from replay.live import LiveReplay

            self.live = LiveReplay(data, key, full_every=full_every, book=book)
        self.told = False

    def look(self) -> Look | None:
        """What says the log changed (see the module docstring): :func:`log_mark`, and
        :func:`log_signature` unless the resident replay goes on from its last pass;
        None when there is no log yet."""
        mark = log_mark(self.data)
        if self.live is not None and self.live.verifier.records:
            return mark, None
        signature = log_signature(self.data)
        return (mark, signature) if signature else None

    def poll(self) -> bool:
        """Whether a pass is due although the log looks the same: the whole verification
        in the background found it not as verified, or a file verified is no longer as it
        was (a share of them looked at each time: ``LiveReplay.spot``); said here."""
        live = self.live
        if live is None:
            return False
        try:
            if live.poll():
                got = live.verifier.rechecked
                found = " ".join(str(got.problem if got else "").split())[:600]
                self.say(f"follow: the whole verification in the background: {found}; the "
                         "next pass verifies the whole log")
                return True
            changed = live.spot()
        except Exception as exc:  # a long-running loop never dies of it
            self._drop(live, exc)
            return True
        if changed is not None:
            self.say(f"follow: {' '.join(changed.split())[:300]}; the next pass looks at "
                     "every file")
        return changed is not None

    def close(self) -> None:
        if self.live is not None:
            self.live.close()

    def _drop(self, live: LiveReplay, exc: Exception) -> None:
        live.close()
        self.live = None
        self._tell(f"the resident replay failed ({type(exc).__name__}: "
                   f"{' '.join(str(exc).split())[:300]})")

    def one_pass(self) -> bool:
        """Replay then the checks; True when both succeeded."""
        took: list[str] = []
        for stage in (self._replay, self._checks):
            done, words = stage()
            if not done:
                self.say(f"follow: {words}; the previous output is kept, and the next pass "
                         "tries again")
                return False
            took.append(words)
        self.say(f"follow: {time.strftime('%H:%M:%S')} up to date ({', '.join(took)}): "
                 f"{_flag_line(self.data)}")
        return True

    def _replay(self) -> tuple[bool, str]:
        if self.live is not None:
            start = time.monotonic()
            try:
                step = self.live.step()
            except Exception as exc:  # a long-running loop never dies of it
                self._drop(self.live, exc)
            else:
                seconds = time.monotonic() - start
                if step.status == "done":
                    again = ", the whole log again" if step.rebuilt else ""
                    return True, (f"replay {seconds:.2f} s: {step.records:,} records, "
                                  f"{step.new:,} new{again}; verify {step.verify_s:.2f} s "
                                  f"({step.verified}), new records {step.replay_s:.2f} s, "
                                  f"write {step.write_s:.2f} s")
                if step.status == "refused":
                    return False, (f"replay failed (refused) after {seconds:.1f} s: "
                                   f"{step.message}")
                self._tell(step.message)
        stage = run_stage("replay", [sys.executable, "-m", "replay", "--data", str(self.data),
                                     "--workers", str(self.workers),
                                     *(["--key", self.key] if self.key else []),
                                     *(["--rulesets", str(self.rulesets)]
                                       if self.rulesets else [])])
        if stage.status != 0:
            return False, (f"replay failed (exit {stage.status}) after {stage.seconds:.1f} s: "
                           f"{stage.last_line or 'no message'}")
        return True, f"replay {stage.seconds:.1f} s (python -m replay)"

    def _tell(self, why: str) -> None:
        if not self.told:
            self.told = True
            self.say(f"follow: {why}: each pass runs `python -m replay` instead")

    def _checks(self) -> tuple[bool, str]:
        if not self.resident:
            stage = run_stage("checks", [sys.executable, "-m", "checks", "--data",
                                         str(self.data), "--live"])
            if stage.status != 0:
                return False, (f"checks failed (exit {stage.status}) after "
                               f"{stage.seconds:.1f} s: {stage.last_line or 'no message'}")
            return True, f"checks {stage.seconds:.1f} s"
        from checks.runner import run_checks

        start = time.monotonic()
        try:
            run_checks(self.data / "replay", self.data / "checks", live=True)
        except Exception as exc:  # a long-running loop never dies of it
            return False, (f"checks failed after {time.monotonic() - start:.1f} s "
                           f"({type(exc).__name__}: {' '.join(str(exc).split())[:300]})")
        return True, f"checks {time.monotonic() - start:.2f} s"


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
