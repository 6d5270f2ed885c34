"""Full-disk drill: ingest on a disk that fills stops cleanly, and resumes once given room.

The data directory is a tmpfs of :data:`SMALL` (``mount -t tmpfs -o size=3m``), far too
small for the :data:`EVENTS` simulator events (with a malformed message after every
:data:`BAD_EVERY`-th) waiting in a fresh 3-partition topic. ``python -m ingest --until-idle``
must stop when the disk is full: exit code 1, a message on standard error that names the
disk problem (no space left on the device) and says what to do (free space, run ingest
again), no traceback, no temporary segment left in ``log/``; and the log as it stands must
verify (``python -m ingest verify --data D --key "$(cat D/keys/signing.pub)"``). Then the
tmpfs is remounted at :data:`BIG` and ingest runs again: it resumes, every event is in the
log exactly once with its bytes, the malformed messages each in quarantine once, and the log
verifies. The tmpfs is unmounted in any case.

Needs root (mount); the test is skipped, saying why, when not root or when the mount fails.
About 20 seconds:

    .venv/bin/python -m pytest -m drills tests/test_drill_disk.py -s
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from tests.drill_support import (
    drill_messages,
    exactly_once_problems,
    holding,
    new_topic,
    produce,
    run_ingest,
    verify_cli,
)

pytestmark = [pytest.mark.kafka, pytest.mark.drills]

EVENTS = 60_000
"""About twice what fits in :data:`SMALL`."""
BAD_EVERY = 4_999
SMALL = "3m"
BIG = "64m"
SEED = 31


def _mount(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, timeout=60)


def _cannot_mount(reason: str) -> NoReturn:
    """Skip, saying why; under CI (``CI`` set) fail instead: CI runs as root, and a drill it
    skipped would be counted as done."""
    print(reason)
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the full-disk drill")
    pytest.skip(reason)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of :data:`SMALL` at ``tmp_path/data``; skipped (saying why) when it cannot be
    mounted, failed under CI; unmounted at the end."""
    where = tmp_path / "data"
    where.mkdir()
    if os.geteuid() != 0:
        reason = f"the full-disk drill mounts a tmpfs and needs root (euid {os.geteuid()})"
        _cannot_mount(reason)
    try:
        mounted = _mount(["-t", "tmpfs", "-o", f"size={SMALL},mode=0700", "tmpfs", str(where)])
    except OSError as exc:
        reason = f"cannot run mount: {exc}"
        _cannot_mount(reason)
    if mounted.returncode != 0:
        reason = (f"mount -t tmpfs -o size={SMALL} failed (exit {mounted.returncode}): "
                  f"{mounted.stderr.strip() or mounted.stdout.strip()}")
        _cannot_mount(reason)
    try:
        yield where
    finally:
        done = subprocess.run(["umount", str(where)], capture_output=True, text=True,
                              timeout=60)
        if done.returncode != 0:
            subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=60)


def _free_bytes(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def test_a_full_disk_stops_ingest_cleanly_and_it_resumes_with_room(
        kafka_bootstrap: str, small_disk: Path) -> None:
    drill_start = time.monotonic()
    data = small_disk
    topic = new_topic(kafka_bootstrap, "drill-disk")
    produced = produce(kafka_bootstrap, topic, drill_messages(EVENTS, seed=SEED,
                                                              bad_every=BAD_EVERY))
    print(f"\ndisk drill: {len(produced.good):,} events and {len(produced.bad)} malformed "
          f"messages in {topic}; data on a tmpfs of {SMALL}")

    full_start = time.monotonic()
    full = run_ingest(data, topic, kafka_bootstrap, "--until-idle", "3")
    full_s = time.monotonic() - full_start
    stderr = full.stderr
    stopped = [line for line in stderr.splitlines() if line.startswith("ingest: STOPPED")]
    left = sorted(str(p.relative_to(data)) for p in data.rglob("*.tmp"))
    orphans = sorted(q.name for q in (data / "quarantine").glob("*.jsonl")
                     if not (data / "log" / q.name.replace(".jsonl", ".avro")).exists())
    print(f"disk drill: ingest on the full disk: exit {full.returncode} after {full_s:.1f} s, "
          f"{_free_bytes(data):,} bytes free; temporary files left: {left or 'none'}; "
          f"quarantine files without their segment: {orphans or 'none'}; stderr from the "
          "STOPPED line:\n"
          + "\n".join(stderr[stderr.find("ingest: STOPPED"):].strip().splitlines()[:40]))
    # Everything wrong with the stop is collected, so that one run names it all and the
    # resumption below is still exercised.
    wrong = []
    if full.returncode != 1:
        wrong.append(f"exit code {full.returncode}, not 1")
    if "Traceback" in stderr:
        wrong.append("a traceback on standard error")
    if len(stopped) != 1 or "No space left on device" not in stopped[0] \
            or "run ingest again" not in stopped[0]:
        wrong.append(f"no single STOPPED line naming the full disk and what to do: {stopped}")
    segment_tmp = [name for name in left if name.startswith("log/")]
    if segment_tmp:
        wrong.append(f"temporary segment files left in log/: {segment_tmp}")
    held = holding(data, topic)
    assert 0 < len(held.log) < EVENTS, f"the disk did not fill part way through:\n{stderr}"
    logged = {(p, o) for p, o, _ in held.log}
    assert logged <= set(produced.good)
    assert len(logged) == len(held.log), "a message is in the log twice"
    verified = verify_cli(data)
    assert verified.returncode == 0, f"verify: {verified.stdout}\n{verified.stderr}"
    print(f"disk drill: the log as it stands ({len(held.log):,} events) verifies: "
          f"{(verified.stdout + verified.stderr).strip().splitlines()[0]}")

    grown = _mount(["-o", f"remount,size={BIG}", str(data)])
    assert grown.returncode == 0, grown.stderr
    resume_start = time.monotonic()
    resumed = run_ingest(data, topic, kafka_bootstrap, "--until-idle", "3")
    resume_s = time.monotonic() - resume_start
    assert resumed.returncode == 0, f"exit {resumed.returncode}\n{resumed.stderr}"
    assert "Traceback" not in resumed.stderr, resumed.stderr
    held = holding(data, topic)
    problems = exactly_once_problems(held, produced)
    assert not problems, "\n".join(problems)
    assert len(held.log) == EVENTS
    verified = verify_cli(data)
    assert verified.returncode == 0, f"verify: {verified.stdout}\n{verified.stderr}"
    print(f"disk drill: after remounting at {BIG}, ingest resumed (exit 0, {resume_s:.1f} s): "
          f"{len(held.log):,} events in the log once each, {len(held.quarantine)} quarantined; "
          f"verify exit 0; whole drill {time.monotonic() - drill_start:.1f} s")
    assert not wrong, "ingest did not stop cleanly on the full disk: " + "; ".join(wrong)
