"""Kill drill: ingest SIGKILLed again and again while events stream in loses nothing and
repeats nothing.

A fresh 3-partition topic receives :data:`EVENTS` simulator events (all four games), with a
malformed message (bytes that are not an event, or a tombstone) after every
:data:`BAD_EVERY`-th, produced at a steady pace in the background. Meanwhile
``python -m ingest --data D --topic T`` runs as a subprocess and is killed with SIGKILL
:data:`KILLS` times, at random moments (seed :data:`SEED`, printed), and started again each
time. The moment of each kill is drawn among three kinds:

- ``start-up``: at a random time after the start, whether or not it has appended yet;
- ``appending``: at a random time after it appended its first new batch;
- ``in-write``: as soon as the temporary file of its next segment appears (between writing
  a segment and renaming it into place, the narrowest window of the commit).

Each restart is timed from the moment the process is started to the moment its first new
segment is in place (``restart_s``). After the last kill the producer finishes, and one
``python -m ingest --until-idle`` catches up. Then: every produced event is in the log
exactly once with its bytes, offsets strictly increase per partition, the only offsets not
in the log are the malformed messages, each in quarantine once, no well-formed event is in
quarantine, and ``python -m ingest verify --data D --key "$(cat D/keys/signing.pub)"`` exits
0.

The drill as documented is 100,000 events and 20 kills, about a minute on the 2-core
development machine (the figures are in the test's printed report: run it with ``-s``):

    .venv/bin/python -m pytest -m drills tests/test_drill_kill.py -s

``CATWALK_DRILL_EVENTS`` and ``CATWALK_DRILL_KILLS`` make it smaller (or bigger),
``CATWALK_DRILL_PRODUCE_S`` sets how long the events take to arrive, and
``CATWALK_DRILL_SEED`` replays another seed. Kills that come after the producer finished
and ingest caught up (a slow machine) are still made, marked ``(idle)`` in the report.
"""

from __future__ import annotations

import os
import random
import re
import signal
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from schemas.logformat import next_offsets, segments
from tests.drill_support import (
    REPO,
    Producing,
    drill_messages,
    exactly_once_problems,
    holding,
    ingest_cmd,
    last_segment_number,
    new_topic,
    run_ingest,
    segment_path,
    verify_cli,
)

pytestmark = [pytest.mark.kafka, pytest.mark.drills]

EVENTS = int(os.environ.get("CATWALK_DRILL_EVENTS", "100000"))
KILLS = int(os.environ.get("CATWALK_DRILL_KILLS", "20"))
SEED = int(os.environ.get("CATWALK_DRILL_SEED", "20261201"))
BAD_EVERY = 9_973
"""A malformed message after every this many events (10 of them in 100,000)."""
PRODUCE_SECONDS = float(os.environ.get("CATWALK_DRILL_PRODUCE_S", "40"))
"""The events are spread over this long, so that most kills hit an ingest that is busy."""
FIRST_BATCH_TIMEOUT_S = 45.0
MODES = ("start-up", "appending", "appending", "in-write", "in-write")


@dataclass
class Kill:
    number: int
    mode: str
    after_s: float
    """When the SIGKILL came, from the start of the process."""
    restart_s: float | None
    """Start of the process to its first new segment in place (None: killed before)."""
    tmp_left: bool
    """A segment's temporary file was left by the kill (removed by the next start)."""
    index_s: float | None
    """What the run said its start-up index of the log's event ids took."""


def _wait_first_segment(proc: subprocess.Popen[bytes], log_dir: Path, after: int, start: float,
                        until: float, idle: Callable[[], bool] | None = None) -> float | None:
    """Seconds from ``start`` until segment ``after + 1`` is in place; None if ``until``
    (monotonic) comes first, the process ends, or ``idle()`` says nothing is left to
    append."""
    first = segment_path(log_dir, after + 1)
    next_idle_check = time.monotonic() + 0.2
    while time.monotonic() < until:
        if first.exists():
            return time.monotonic() - start
        if proc.poll() is not None:
            return None
        if idle is not None and time.monotonic() >= next_idle_check:
            if idle():
                return None
            next_idle_check = time.monotonic() + 0.2
        time.sleep(0.002)
    return None


def _caught_up(log_dir: Path, total: int) -> bool:
    """Does the log's last segment account for ``total`` messages (all of the topic)?"""
    segs = segments(log_dir)
    return bool(segs) and sum(next_offsets(segs[-1]).values()) >= total


def _wait_tmp(proc: subprocess.Popen[bytes], log_dir: Path, number: int, until: float) -> None:
    """Return as soon as the temporary file of a segment after ``number`` appears (or at
    ``until``)."""
    while time.monotonic() < until and proc.poll() is None:
        if segment_path(log_dir, number + 1).with_suffix(".avro.tmp").exists():
            return
        if segment_path(log_dir, number + 1).exists():
            number += 1
            continue
        time.sleep(0.0005)


def _stderr(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def test_ingest_killed_twenty_times_keeps_every_event_once(kafka_bootstrap: str,
                                                           tmp_path: Path) -> None:
    rng = random.Random(SEED)
    print(f"\nkill drill: seed {SEED}, {EVENTS:,} events, {KILLS} kills "
          f"(CATWALK_DRILL_SEED={SEED} replays it)")
    drill_start = time.monotonic()
    data = tmp_path / "data"
    log_dir = data / "log"
    topic = new_topic(kafka_bootstrap, "drill-kill")
    messages = drill_messages(EVENTS, seed=SEED % 1000, bad_every=BAD_EVERY)
    made_s = time.monotonic() - drill_start
    producing = Producing(kafka_bootstrap, topic, messages,
                          per_second=len(messages) / PRODUCE_SECONDS)
    producing.start()
    kills: list[Kill] = []

    def idle() -> bool:
        return not producing.is_alive() and _caught_up(log_dir, len(messages))

    logs = tmp_path / "runs"
    logs.mkdir()
    try:
        for n in range(1, KILLS + 1):
            mode = rng.choice(MODES)
            before = last_segment_number(log_dir)
            err = logs / f"ingest-{n:02d}.stderr"
            with err.open("w") as fo:
                start = time.monotonic()
                proc = subprocess.Popen(ingest_cmd(data, topic, kafka_bootstrap), cwd=REPO,
                                        stdout=subprocess.DEVNULL, stderr=fo)
            try:
                if mode == "start-up":
                    kill_at = start + rng.uniform(0.05, 2.0)
                    restart = _wait_first_segment(proc, log_dir, before, start, kill_at)
                    while time.monotonic() < kill_at and proc.poll() is None:
                        time.sleep(0.002)
                else:
                    restart = _wait_first_segment(proc, log_dir, before, start,
                                                  start + FIRST_BATCH_TIMEOUT_S, idle)
                    assert proc.poll() is None, (
                        f"ingest run {n} ended by itself (exit {proc.returncode}):\n"
                        f"{_stderr(err)}")
                    pause = rng.uniform(0.0, 1.5)
                    if restart is None:
                        # On a slow machine the kills may outlast the producer: once the
                        # log holds the whole topic there is no batch left to kill in.
                        assert idle(), (
                            f"ingest run {n} appended nothing in "
                            f"{FIRST_BATCH_TIMEOUT_S:.0f} s:\n{_stderr(err)}")
                        mode = f"{mode} (idle)"
                        time.sleep(pause)
                    elif mode == "appending":
                        time.sleep(pause)
                    else:
                        _wait_tmp(proc, log_dir, before + 1, time.monotonic() + 3.0)
                assert proc.poll() is None, (
                    f"ingest run {n} ended by itself (exit {proc.returncode}):\n{_stderr(err)}")
                proc.send_signal(signal.SIGKILL)
                after_s = time.monotonic() - start
            finally:
                if proc.poll() is None:
                    proc.kill()
                proc.wait(timeout=30)
            assert proc.returncode == -signal.SIGKILL
            tmp_left = any(log_dir.glob("*.tmp")) if log_dir.is_dir() else False
            text = _stderr(err)
            assert "Traceback" not in text, f"ingest run {n}:\n{text}"
            kills.append(Kill(n, mode, after_s, restart, tmp_left, _index_s(text)))
        kill_phase_s = time.monotonic() - drill_start - made_s
        produced = producing.result()
    finally:
        producing.join(timeout=300)

    catch_up_start = time.monotonic()
    final = run_ingest(data, topic, kafka_bootstrap, "--until-idle", "3")
    catch_up_s = time.monotonic() - catch_up_start
    assert final.returncode == 0, f"exit {final.returncode}\n{final.stderr}"
    assert "Traceback" not in final.stderr, final.stderr
    assert not list(log_dir.glob("*.tmp")), "the final run left a segment's .tmp"
    checkpoint_tmp = sorted(p.name for p in (data / "checkpoints").glob("*.tmp"))

    held = holding(data, topic)
    problems = exactly_once_problems(held, produced)
    verify_start = time.monotonic()
    verified = verify_cli(data)
    verify_s = time.monotonic() - verify_start

    measured = [k.restart_s for k in kills if k.restart_s is not None]
    print(f"kill drill: {len(messages):,} messages made in {made_s:.1f} s, produced in "
          f"{produced.seconds:.1f} s; kill phase {kill_phase_s:.1f} s")
    for k in kills:
        took = f"{k.restart_s:.3f} s" if k.restart_s is not None else "-"
        indexed = f"{k.index_s:.2f} s" if k.index_s is not None else "-"
        print(f"  kill {k.number:2d} {k.mode:<16} at {k.after_s:6.3f} s, first new batch after "
              f"{took:>8} (index of the log {indexed:>6}), .tmp left "
              f"{'yes' if k.tmp_left else 'no'}")
    if measured:
        print(f"kill drill: restart to first new batch, {len(measured)} restarts: min "
              f"{min(measured):.3f} s, median {statistics.median(measured):.3f} s, max "
              f"{max(measured):.3f} s")
    print(f"kill drill: final catch-up {catch_up_s:.1f} s; verify {verify_s:.1f} s; "
          f"{len(held.log):,} events in the log, {len(held.quarantine)} quarantined; "
          f"{sum(k.tmp_left for k in kills)} kills left a segment's .tmp; checkpoint .tmp "
          f"files left: {checkpoint_tmp or 'none'}; whole drill "
          f"{time.monotonic() - drill_start:.1f} s")

    assert len(kills) == KILLS
    assert not problems, "\n".join(problems)
    assert len(held.log) == EVENTS
    assert verified.returncode == 0, f"verify: {verified.stdout}\n{verified.stderr}"
    assert f"{EVENTS:,}" in verified.stdout + verified.stderr
    assert measured, "no restart appended before it was killed"


def _index_s(stderr: str) -> float | None:
    found = re.search(r"log records indexed in ([\d.]+) s", stderr)
    return float(found.group(1)) if found else None
