"""Live: ingest keeps consuming, ``python -m checks --follow`` keeps replay and the flags up to
date, and the simulator deals at a pace, through the real broker (tests/conftest.py).

The dashboard polls the flags file; what it needs from the pipeline is that a flag for a
round reaches ``checks/flags.parquet`` while ingest is still running, without anyone running
replay or the checks by hand. Nothing here is timed as a pass mark (speed is for bench/):
the deadline only keeps a broken loop from hanging the suite.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from checks.follow import follow, log_signature
from tests.conftest import REPO, run_cli

pytestmark = pytest.mark.kafka

DEADLINE_S = 240.0


def _start(*args: str, log: Path) -> subprocess.Popen[bytes]:
    out = log.open("wb")
    return subprocess.Popen([sys.executable, "-m", *args], cwd=REPO, stdout=out,
                            stderr=subprocess.STDOUT, env={**os.environ})


def _stop(proc: subprocess.Popen[bytes]) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return -9
    return proc.returncode


def _flagged_rounds(data: Path) -> set[str]:
    path = data / "checks" / "flags.parquet"
    if not path.exists():
        return set()
    return {r for r in pq.read_table(path, columns=["round_id"]).column(0).to_pylist() if r}


def test_flags_reach_the_flags_file_while_ingest_runs(kafka_bootstrap, tmp_path):
    """Overpays dealt at a pace reach flags.parquet while ingest is still consuming, and
    the follow loop stops cleanly (exit 0) on SIGTERM."""
    data = tmp_path / "live"
    topic = f"live-{uuid.uuid4().hex[:8]}"
    kafka = ["--bootstrap", kafka_bootstrap]
    labels = tmp_path / "labels.jsonl"
    ingest = _start("ingest", "--data", str(data), "--topic", topic, "--quiet", *kafka,
                    log=tmp_path / "ingest.log")
    follower = _start("checks", "--data", str(data), "--follow", "--every", "0.5",
                      log=tmp_path / "follow.log")
    try:
        sim = run_cli("ingest.simulate", "--tables", "2", "--rounds", "30", "--seed", "11",
                      "--games", "pai_gow_poker", "--faults", "overpay", "--fault-rate", "0.3",
                      "--labels", str(labels), "--topic", topic, "--pace", "200", *kafka)
        assert sim.returncode == 0, sim.stderr
        wanted = {json.loads(line)["round_id"] for line in labels.read_text().splitlines()}
        assert wanted, "the simulator injected no overpay: choose another seed"
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline and not wanted <= _flagged_rounds(data):
            assert ingest.poll() is None, (tmp_path / "ingest.log").read_text()
            assert follower.poll() is None, (tmp_path / "follow.log").read_text()
            time.sleep(0.5)
        assert wanted <= _flagged_rounds(data), (
            f"rounds never flagged: {sorted(wanted - _flagged_rounds(data))}\n"
            + (tmp_path / "follow.log").read_text())
        assert ingest.poll() is None, "ingest stopped: the flags came from a batch run"
    finally:
        follow_status = _stop(follower)
        _stop(ingest)
    text = (tmp_path / "follow.log").read_text()
    assert follow_status == 0, text
    assert "up to date" in text and "follow: stopped" in text


@pytest.mark.parametrize("resident", [True, False])
def test_a_failed_pass_is_reported_and_the_loop_goes_on(tmp_path, resident):
    """A log replay refuses (here: a segment of garbage, no key) is one line naming the
    stage and why (the resident replay's refusal, or the child's exit status); the loop
    does not end and does not mark the log as seen."""
    data = tmp_path / "data"
    (data / "log").mkdir(parents=True)
    (data / "log" / "segment-000001.avro").write_bytes(b"not an avro file")
    lines: list[str] = []
    assert follow(data, every=0.2, passes=2, say=lines.append, resident=resident) == 0
    failed = [line for line in lines if "replay failed" in line]
    assert len(failed) == 2, lines  # tried again: the unchanged log was never taken as done
    assert "previous output is kept" in failed[0]
    if resident:
        assert "(refused)" in failed[0] and "no public key" in failed[0], failed[0]
        assert not any("instead" in line for line in lines), lines  # no fallback
    else:
        assert "exit " in failed[0]
    assert not (data / "checks" / "flags.parquet").exists()


def test_follow_replays_in_its_process_what_python_m_replay_writes(tmp_path):
    """The log grows between two passes of one loop: the second takes only the new
    records, and leaves the files ``python -m replay`` writes and the flags ``python -m
    checks --live`` writes."""
    from tests.test_replay_live import _Log, _messages

    data = tmp_path / "data"
    messages, _ = _messages(3, tables=2, rounds=6)
    log = _Log(data)
    lines: list[str] = []

    def said(line: str) -> None:
        lines.append(line)
        if "up to date" in line and log.offset < 180:  # the log grows after the first pass
            log.append(messages[120:180])

    try:
        log.append(messages[:120])
        assert follow(data, every=0.1, passes=2, say=said) == 0
    finally:
        log.close()
    passes = [line for line in lines if "up to date" in line]
    assert len(passes) == 2, lines
    assert "120 records, 120 new" in passes[0] and "180 records, 60 new" in passes[1], passes
    mine = {p.name: p.read_bytes() for p in (data / "replay").iterdir()}
    flags = pq.read_table(data / "checks" / "flags.parquet").to_pylist()
    assert flags, "the faulty shift raised no flag: nothing compared"
    done = run_cli("replay", "--data", str(data))
    assert done.returncode == 0, done.stderr
    assert {p.name: p.read_bytes() for p in (data / "replay").iterdir()} == mine
    checked = run_cli("checks", "--data", str(data), "--live")
    assert checked.returncode == 0, checked.stderr
    assert pq.read_table(data / "checks" / "flags.parquet").to_pylist() == flags


def test_ingest_workers_chains_fall_back_to_python_m_replay_said_once(tmp_path):
    from tests.test_replay_live import _Log, _messages

    data = tmp_path / "data"
    messages, _ = _messages(3, tables=2, rounds=3)
    w1 = _Log(data, "w1")
    try:
        w1.append(messages[:50])
    finally:
        w1.close()
    lines: list[str] = []
    assert follow(data, every=0.1, passes=1, say=lines.append) == 0
    told = [line for line in lines if "instead" in line]
    assert len(told) == 1 and "ingest workers (w1)" in told[0], lines
    assert any("up to date (replay" in line and "(python -m replay)" in line
               for line in lines), lines
    assert (data / "replay" / "manifest.json").exists()


def test_the_signature_changes_when_the_log_grows(tmp_path):
    (tmp_path / "log").mkdir()
    assert log_signature(tmp_path) == ()
    seg = tmp_path / "log" / "segment-000001.avro"
    seg.write_bytes(b"a")
    first = log_signature(tmp_path)
    with seg.open("ab") as f:
        f.write(b"b")
    assert log_signature(tmp_path) != first
