"""Drills against a real broker: ingest restarted after a SIGKILL reads within seconds; the
broker killed and restarted mid-stream loses nothing. Marked ``drills`` (slower; ``make
drills``).

The broker-kill drill runs its own broker (deploy/kafka/kafka.sh with a private run dir) so
that the session broker other tests use is never disturbed; it is killed with SIGKILL and
started again from the same command line and data directory (``kafka.sh up`` would start
empty), at the same address."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.kafka_io import TopicSettings, ensure_topic
from ingest.simulate import simulate_shift
from schemas import encode
from schemas.logformat import read_log
from tests.conftest import KAFKA_SH, REPO
from tests.test_ingest_robust_kafka import _send

pytestmark = [pytest.mark.kafka, pytest.mark.drills]


def _events(seed: int, rounds: int = 3) -> list[tuple[bytes, bytes]]:
    events, _ = simulate_shift(tables=2, rounds=rounds, seed=seed, fault_rate=0.0)
    return [(e.table_id.encode(), encode(e)) for e in events]


def _start_ingest(servers: str, topic: str, data: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "ingest", "--data", str(data), "--topic", topic,
             "--bootstrap", servers], stdout=out, stderr=out, cwd=REPO)


def _wait_for_records(data: Path, count: int, seconds: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        try:
            if sum(1 for _ in read_log(data / "log")) >= count:
                return time.monotonic() - started
        except Exception:  # a segment being renamed into place: look again
            pass
        time.sleep(0.1)
    raise AssertionError(f"fewer than {count} records in {data / 'log'} after {seconds} s")


def _offsets(data: Path) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for r in read_log(data / "log"):
        out.setdefault(r.partition, []).append(r.offset)
    return out


def test_a_restarted_ingest_reads_within_seconds_after_a_sigkill(kafka_bootstrap, tmp_path):
    topic = f"drill-{uuid.uuid4().hex[:10]}"
    ensure_topic(kafka_bootstrap, topic, TopicSettings(partitions=3))
    first, second = _events(1), _events(2)
    _send(kafka_bootstrap, topic, first)
    proc = _start_ingest(kafka_bootstrap, topic, tmp_path, tmp_path / "ingest.out")
    try:
        _wait_for_records(tmp_path, len(first), 30)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    _send(kafka_bootstrap, topic, second)
    again = _start_ingest(kafka_bootstrap, topic, tmp_path, tmp_path / "ingest2.out")
    try:
        took = _wait_for_records(tmp_path, len(first) + len(second), 30)
    finally:
        again.send_signal(signal.SIGTERM)
        assert again.wait(30) == 0, (tmp_path / "ingest2.out").read_text()
    assert took < 10, f"the restarted ingest needed {took:.1f} s"
    values = [r.value for r in read_log(tmp_path / "log")]
    assert sorted(values) == sorted(v for _, v in first + second)
    assert len(values) == len(set(values)) == len(first) + len(second)


class _Broker:
    """A private broker that can be killed and started again with its data."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.env = {**os.environ, "KAFKA_RUN_DIR": str(run_dir)}
        self.cmdline: list[bytes] = []

    def kafka_sh(self, command: str) -> str:
        proc = subprocess.run(["bash", str(KAFKA_SH), command], capture_output=True,
                              text=True, env=self.env, cwd=REPO, timeout=180)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""

    def pid(self) -> int:
        return int((self.run_dir / "kafka.pid").read_text())

    def kill(self) -> None:
        pid = self.pid()
        self.cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:-1]
        os.kill(pid, signal.SIGKILL)
        while Path(f"/proc/{pid}").exists() and b"Z" not in _state(pid):
            time.sleep(0.05)

    def start_again(self, address: str) -> None:
        with (self.run_dir / "kafka.log").open("ab") as log:
            proc = subprocess.Popen(self.cmdline, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=log, start_new_session=True, cwd=REPO)
        (self.run_dir / "kafka.pid").write_text(f"{proc.pid}\n")
        deadline = time.monotonic() + 60
        while True:
            status = subprocess.run(["bash", str(KAFKA_SH), "status"], capture_output=True,
                                    text=True, env=self.env, cwd=REPO, timeout=60)
            if status.returncode == 0 and status.stdout.strip() == address:
                return
            assert time.monotonic() < deadline, "the broker did not come back in 60 s"
            time.sleep(0.3)


def _state(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1][:3]
    except OSError:
        return b"Z"


@pytest.fixture
def private_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[_Broker, str]]:
    broker = _Broker(tmp_path_factory.mktemp("broker"))
    address = broker.kafka_sh("up")
    try:
        yield broker, address
    finally:
        broker.kafka_sh("down")


def test_the_broker_killed_and_restarted_mid_stream_loses_nothing(private_broker, tmp_path):
    broker, servers = private_broker
    topic = f"drill-{uuid.uuid4().hex[:10]}"
    ensure_topic(servers, topic, TopicSettings(partitions=3))
    first, second = _events(3), _events(4)
    _send(servers, topic, first)
    out = tmp_path / "ingest.out"
    proc = _start_ingest(servers, topic, tmp_path / "data", out)
    try:
        _wait_for_records(tmp_path / "data", len(first), 30)
        broker.kill()
        time.sleep(8)  # ingest notices, retries, reports
        assert proc.poll() is None, out.read_text()
        broker.start_again(servers)
        _send(servers, topic, second)
        _wait_for_records(tmp_path / "data", len(first) + len(second), 60)
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(30)
    text = out.read_text()
    assert code == 0, text
    assert "Traceback" not in text
    values = [r.value for r in read_log(tmp_path / "data" / "log")]
    assert len(values) == len(set(values)) == len(first) + len(second)
    assert sorted(values) == sorted(v for _, v in first + second)
    for partition, offsets in _offsets(tmp_path / "data").items():
        assert offsets == list(range(len(offsets))), partition
    retries = [line for line in text.splitlines() if " retry " in line]
    assert 1 <= len(retries) <= 8, text
    assert all("Nothing is lost" in line and " s. " in line for line in retries)
    assert "Kafka answers again after" in text
    assert "1 reconnections to Kafka" in text.splitlines()[-1]
