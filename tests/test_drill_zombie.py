"""Zombie workers drill: two ingest workers share a four-partition topic while events stream
in, and each in turn is frozen (SIGSTOP) past its group session, then thawed (SIGCONT).

While a worker is frozen the consumer group hands its partitions to the other, which raises
their fencing epochs (ingest/fence.py) before it reads where the frozen one stopped. The
frozen worker wakes holding a batch it had polled and tries to write it: the fence drops it
(it says ``FENCED``), the group gives it partitions again, and it goes on. In the end every
message is in exactly one chain (or in quarantine), once; ``verify`` exits 0 with nothing in
two chains; replay does not refuse the log.

    .venv/bin/python -m pytest -m drills tests/test_drill_zombie.py -s
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ingest.kafka_io import SESSION_TIMEOUT_MS
from schemas.checkpoint import parse
from schemas.logformat import META_CHECKPOINT, chains, read_log, segment_metadata, segments
from tests.drill_support import (
    REPO,
    Producing,
    drill_messages,
    exactly_once_problems,
    ingest_cmd,
    new_topic,
    verify_cli,
)
from tests.test_drill_workers import _holding

pytestmark = [pytest.mark.kafka, pytest.mark.drills]

EVENTS = int(os.environ.get("CATWALK_DRILL_ZOMBIE_EVENTS", "6000"))
PRODUCE_S = 26.0
FROZEN_S = SESSION_TIMEOUT_MS / 1000 + 4
"""Past the session: the group hands the frozen worker's partitions to the other."""
SEED = 20261217
WORKERS = ("w1", "w2")


def _start(data: Path, topic: str, servers: str, name: str, out: Path) -> subprocess.Popen:
    return subprocess.Popen(ingest_cmd(data, topic, servers, "--worker", name),
                            stdout=subprocess.DEVNULL, stderr=out.open("a"), cwd=REPO,
                            env=dict(os.environ))


def _held(data: Path) -> int:
    """Messages in any chain (as its last signed checkpoint counts them) or quarantine."""
    records = 0
    for chain in chains(data):
        last = segments(chain.log)
        if last:
            records += parse(segment_metadata(last[-1])[META_CHECKPOINT]).size
    quarantined = sum(len(p.read_text().splitlines())
                      for p in data.glob("quarantine/**/*.jsonl"))
    return records + quarantined


def test_workers_frozen_past_their_session_write_nothing_twice(kafka_bootstrap: str,
                                                               tmp_path: Path) -> None:
    started = time.monotonic()
    topic = new_topic(kafka_bootstrap, "drill-zombie", partitions=4)
    data = tmp_path / "data"
    messages = drill_messages(EVENTS, seed=SEED, bad_every=1_500)
    producing = Producing(kafka_bootstrap, topic, messages,
                          per_second=len(messages) / PRODUCE_S)
    outs = {name: tmp_path / f"{name}.err" for name in WORKERS}
    procs = {name: _start(data, topic, kafka_bootstrap, name, outs[name]) for name in WORKERS}
    producing.start()
    try:
        for name in WORKERS:  # each has joined the group and written (events flow to it)
            deadline = time.monotonic() + 20
            log = data / "log" / "workers" / name
            while not (log.is_dir() and segments(log)) and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(1.0)
            procs[name].send_signal(signal.SIGSTOP)
            time.sleep(FROZEN_S)
            procs[name].send_signal(signal.SIGCONT)
        produced = producing.result()
        want = len(produced.good) + len(produced.bad)
        deadline = time.monotonic() + 40
        while _held(data) < want and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
    texts = {name: out.read_text() for name, out in outs.items()}
    for name, text in texts.items():
        assert "Traceback" not in text, f"{name}:\n{text}"
    fenced = {name: text.count("ingest: FENCED") for name, text in texts.items()}
    print(f"\nzombie drill: {len(messages):,} messages, each worker frozen {FROZEN_S:.0f} s; "
          f"FENCED lines {fenced}; {time.monotonic() - started:.0f} s")
    for name, text in texts.items():
        for line in text.splitlines():
            if "FENCED" in line:
                print(f"  {name}: {line[:160]}")
    # A frozen worker woke with a batch of partitions another worker had taken, and the
    # fence dropped it (the messages the issue saw in both chains).
    assert sum(fenced.values()) >= 1, texts

    held, order = _holding(data, topic)
    assert order == []
    assert exactly_once_problems(held, produced) == []
    by_worker = {c.name: sum(1 for _ in read_log(c.log)) for c in chains(data)}
    print(f"  records per chain: {by_worker}")
    assert len([n for n, count in by_worker.items() if count]) == 2
    epochs = {}
    for chain in chains(data):
        for seg in segments(chain.log):
            for where, epoch in parse(segment_metadata(seg)[META_CHECKPOINT]).epochs.items():
                epochs[where] = max(epochs.get(where, 0), epoch)
    assert len(epochs) == 4 and max(epochs.values()) >= 2, epochs  # partitions moved

    verified = verify_cli(data)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "verify: OK" in verified.stdout and "finding" not in verified.stdout
    replayed = subprocess.run([sys.executable, "-m", "replay", "--data", str(data)],
                              capture_output=True, text=True, timeout=300, cwd=REPO,
                              env=dict(os.environ))
    assert replayed.returncode == 0, replayed.stderr
    assert not (data / "replay.refused.json").exists()
    assert "message_in_two_chains" not in replayed.stderr
