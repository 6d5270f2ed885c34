"""A hostile file system: only regular files are read in log/, checkpoints/, quarantine/ and
keys/ (a FIFO is named and refused, never waited on; a symlink is never followed out of the
data directory), SIGTERM stops ``verify`` and ``checks --follow`` within seconds, and a full
disk during replay gives one clear line and exit 1."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from dashboard.integrity import quarantine, read_checkpoint
from replay import high_water
from schemas.keyring import ENV
from schemas.logformat import segments
from tests.keyring_support import pinned_env
from tests.test_trust_root import _log

REPO = Path(__file__).resolve().parent.parent
QUICK = 30
"""Seconds within which a command facing a FIFO must have answered (it never blocks)."""


def _run(*args: str, env: dict[str, str] | None = None,
         timeout: float = QUICK) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != ENV}
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, env={**full, **(env or {})})


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return _log(tmp_path / "data", 3)


def test_a_fifo_among_the_segments_is_named_and_refused(data: Path) -> None:
    env = pinned_env(data)
    os.mkfifo(data / "log" / "segment-000004.avro")
    done = _run("ingest", "verify", "--data", str(data), env=env)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "segment-000004.avro: the log segment is a FIFO, not a regular file" in done.stderr
    replayed = _run("replay", "--data", str(data), env=env)
    assert replayed.returncode == 1 and "Traceback" not in replayed.stderr
    assert "a FIFO, not a regular file" in replayed.stderr


def test_a_fifo_among_the_checkpoints_is_named(data: Path) -> None:
    os.mkfifo(data / "checkpoints" / "kept.checkpoint")
    done = _run("ingest", "verify", "--data", str(data), env=pinned_env(data))
    assert done.returncode == 1 and "kept.checkpoint" in done.stderr
    seen = read_checkpoint("-", data / "checkpoints" / "kept.checkpoint", None)
    assert seen.problem is not None and "a FIFO, not a regular file" in seen.problem


def test_a_fifo_for_the_key_beside_the_log_is_refused(data: Path) -> None:
    (data / "keys" / "signing.pub").unlink()
    os.mkfifo(data / "keys" / "signing.pub")
    done = _run("ingest", "verify", "--data", str(data))
    assert done.returncode == 2 and "not a regular file" in done.stderr
    replayed = _run("replay", "--data", str(data))
    assert replayed.returncode == 1 and "no public key" in replayed.stderr


def test_a_symlink_out_of_the_data_directory_is_never_followed(data: Path,
                                                               tmp_path: Path) -> None:
    """A segment moved outside the data directory and linked back: the link is named and
    refused, the file it points to never opened."""
    outside = tmp_path / "elsewhere.avro"
    newest = segments(data / "log")[-1]
    shutil.move(newest, outside)
    newest.symlink_to(outside)
    done = _run("ingest", "verify", "--data", str(data), env=pinned_env(data))
    assert done.returncode == 1
    assert "segment-000003.avro: the log segment cannot be read: a symlink, which is never " \
           "followed" in done.stderr
    (data / high_water.FILE).symlink_to(outside)
    replayed = _run("replay", "--data", str(data), env=pinned_env(data))
    assert replayed.returncode == 1 and "a symlink, which is never followed" in replayed.stderr


def test_the_dashboard_names_a_fifo_in_quarantine(data: Path) -> None:
    os.mkfifo(data / "quarantine" / "segment-000009.jsonl")
    found = quarantine(data)
    assert [e.reason for e in found.entries if e.file == "segment-000009.jsonl"] == [
        f"the file cannot be read: {data / 'quarantine' / 'segment-000009.jsonl'}: the "
        "quarantine file is a FIFO, not a regular file: refused, never read"]


# --- SIGTERM ---------------------------------------------------------------------------


def _lines_until(proc: subprocess.Popen[str], words: str, seconds: float) -> str:
    """Standard error of ``proc`` read until a line holding ``words``."""
    end = time.monotonic() + seconds
    seen = ""
    assert proc.stderr is not None
    while time.monotonic() < end:
        line = proc.stderr.readline()
        seen += line
        if words in line:
            return seen
        if not line and proc.poll() is not None:
            break
    raise AssertionError(f"never said {words!r}: {seen}")


def test_sigterm_stops_a_long_verify_within_seconds(tmp_path: Path) -> None:
    data = _log(tmp_path / "big", 30, per=1_000)
    proc = subprocess.Popen([sys.executable, "-m", "ingest", "verify", "--data", str(data)],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        _lines_until(proc, "verify: 10,000 records checked", 60)
        assert proc.poll() is None  # still verifying
        proc.send_signal(signal.SIGTERM)
        start = time.monotonic()
        assert proc.wait(5) == -signal.SIGTERM
        assert time.monotonic() - start < 5
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.fixture
def follow_proc(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen([sys.executable, "-m", "checks", "--data", str(tmp_path / "d"),
                             "--follow", "--every", "0.2"], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()


def test_sigterm_stops_the_follow_loop_while_it_waits(follow_proc) -> None:
    _lines_until(follow_proc, "waiting for ingest", 60)
    follow_proc.send_signal(signal.SIGTERM)
    assert follow_proc.wait(5) == 0
    assert follow_proc.stderr is not None and "follow: stopped" in follow_proc.stderr.read()


STUBBORN = """
import os, signal, sys, time
from pathlib import Path
from checks.follow import Stopped, run_stage

def on_term(signum, frame):
    raise Stopped
signal.signal(signal.SIGTERM, on_term)
child = ("import os, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
         "open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(120)")
try:
    run_stage("stubborn", [sys.executable, "-c", child, sys.argv[1]], grace=1.0)
except Stopped:
    print("stopped", flush=True)
"""


def test_sigterm_while_a_stage_runs_forwards_it_then_kills_the_child(tmp_path: Path) -> None:
    """A stage's child that ignores SIGTERM: the loop forwards the signal, waits its grace
    period, kills the child and stops."""
    pid_file = tmp_path / "child.pid"
    proc = subprocess.Popen([sys.executable, "-c", STUBBORN, str(pid_file)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        end = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < end:
            time.sleep(0.05)
        child = int(pid_file.read_text())
        proc.send_signal(signal.SIGTERM)
        start = time.monotonic()
        out, _ = proc.communicate(timeout=10)
        assert time.monotonic() - start < 5 and out.strip() == "stopped"
        with pytest.raises(ProcessLookupError):
            os.kill(child, 0)
    finally:
        if proc.poll() is None:
            proc.kill()


# --- a full disk -----------------------------------------------------------------------


def _cannot_mount(reason: str) -> NoReturn:
    """Skip, saying why; under CI (``CI`` set) fail instead: CI runs as root, and a test it
    skipped would be counted as done (as tests/test_drill_disk.py does)."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the full-disk tests")
    pytest.skip(reason)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of 2 MiB at ``tmp_path/data``; skipped, saying why, when it cannot be
    mounted (not root), and a failure under CI; unmounted at the end."""
    where = tmp_path / "data"
    where.mkdir()
    if os.geteuid() != 0:
        _cannot_mount(f"mounting a tmpfs needs root (euid {os.geteuid()})")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)],
                             capture_output=True, text=True, timeout=60)
    if mounted.returncode != 0:
        _cannot_mount(f"mount -t tmpfs failed: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        if subprocess.run(["umount", str(where)], capture_output=True,
                          timeout=60).returncode != 0:
            subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=60)


def _fill(where: Path) -> None:
    """Fill the file system of ``where`` to the last byte."""
    fd = os.open(where / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)


def _one_clear_line(done: subprocess.CompletedProcess[str], words: str) -> None:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "No space left on device" in done.stderr
    assert words in done.stderr.splitlines()[-1] or words in done.stderr.splitlines()[0]


def test_a_full_disk_during_replays_output_switch_is_one_line(small_disk: Path) -> None:
    data = _log(small_disk, 3)
    env = pinned_env(data)
    first = _run("replay", "--data", str(data), env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    before = (data / "replay" / "manifest.json").read_bytes()
    _fill(small_disk)
    done = _run("replay", "--data", str(data), env=env, timeout=120)
    _one_clear_line(done, "replay: cannot write the outputs under ")
    assert (data / "replay" / "manifest.json").read_bytes() == before


def test_a_full_disk_when_recording_the_largest_tree_is_one_line(small_disk: Path) -> None:
    from replay.outputs import output_signer

    data = _log(small_disk, 3)
    env = pinned_env(data)
    output_signer(data, who="test")  # the outputs' key exists: the disk fills after it
    _fill(small_disk)
    done = _run("replay", "--data", str(data), env=env, timeout=120)
    _one_clear_line(done, "cannot record the largest tree verified in ")


def test_a_full_disk_when_making_the_outputs_key_is_one_line(small_disk: Path) -> None:
    data = _log(small_disk, 3)
    env = pinned_env(data)
    _fill(small_disk)
    done = _run("replay", "--data", str(data), env=env, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith(
        "cannot create the signing key: No space left on device: free space or give a key")


def test_a_log_directory_linked_out_of_the_data_directory_is_refused(data: Path,
                                                                    tmp_path: Path) -> None:
    env = pinned_env(data)
    outside = tmp_path / "other-volume"
    shutil.move(data / "checkpoints", outside)
    (data / "checkpoints").symlink_to(outside)
    done = _run("ingest", "verify", "--data", str(data), env=env)
    assert done.returncode == 1
    assert (f"{data / 'checkpoints'} is a symlink, which is never followed (it may lead "
            f"outside {data}): refused") in done.stderr
    replayed = _run("replay", "--data", str(data), env=env)
    assert replayed.returncode == 1 and "is a symlink, which is never followed" in \
        replayed.stderr


def _group(pgid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-g", str(pgid)], capture_output=True, text=True)
    return [int(pid) for pid in found.stdout.split()]


def test_sigterm_stops_replay_and_its_helper_processes(tmp_path: Path) -> None:
    """``python -m replay --workers 2`` stopped by SIGTERM while it verifies: it stops its
    helper (forked, it would otherwise wait forever on a pipe it holds itself), writes
    nothing and exits 143."""
    data = _log(tmp_path / "big", 30, per=1_000)
    proc = subprocess.Popen([sys.executable, "-m", "replay", "--data", str(data), "--workers",
                             "2", "--key", str(data / "keys" / "signing.pub")], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        end = time.monotonic() + 60
        while len(_group(proc.pid)) < 2 and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.3)  # the handler is installed once the helper started
        assert proc.poll() is None and len(_group(proc.pid)) >= 2
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(5) == 128 + signal.SIGTERM
        end = time.monotonic() + 5
        while _group(proc.pid) and time.monotonic() < end:
            time.sleep(0.05)
        assert _group(proc.pid) == []
        assert proc.stderr is not None and "stopped (SIGTERM)" in proc.stderr.read()
        assert not (data / "replay").exists()
    finally:
        for pid in _group(proc.pid):
            os.kill(pid, signal.SIGKILL)


def test_against_topic_names_a_fifo_in_quarantine_instead_of_waiting(data: Path) -> None:
    """A quarantine file swapped for a FIFO after the log verified: the comparison with the
    topic names it instead of waiting on it; verify names it too."""
    from ingest.topic_audit import TopicAuditError, _held
    from schemas.checkpoint import read_verifier
    from schemas.log_verify import verify_data

    key = read_verifier(data / "keys" / "signing.pub")
    verdict = verify_data(data, key)
    assert verdict.ok, verdict.problem
    path = data / "quarantine" / "segment-000001.jsonl"
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    with pytest.raises(TopicAuditError) as raised:
        _held(verdict, "round-events")
    assert "segment-000001.jsonl" in str(raised.value)
    assert "not a regular file" in str(raised.value) or "a link or not a file" in str(
        raised.value)
    again = verify_data(data, key)
    assert not again.ok and "segment-000001.jsonl" in (again.problem or "")
