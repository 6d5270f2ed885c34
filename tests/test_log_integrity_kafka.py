"""The witnesses outside the data directory, through the real broker: the checkpoint topic
ingest publishes to, and the event topic itself (``verify --against-topic``)."""

from __future__ import annotations

import re
import shutil
import uuid
from pathlib import Path

import pytest
from kafka import KafkaProducer

from ingest.checkpoint_topic import checkpoint_topic, latest_checkpoints
from ingest.kafka_io import TopicSettings, ensure_topic
from schemas import WagerPlaced, encode
from schemas.checkpoint import open_signed, read_verifier
from schemas.logformat import segments
from tests.conftest import run_cli
from tests.drill_support import recreate_topic
from tests.events_factory import Table

pytestmark = pytest.mark.kafka


def _send(servers: str, topic: str, values: list[bytes]) -> None:
    with KafkaProducer(bootstrap_servers=servers) as kp:
        for v in values:
            kp.send(topic, key=b"T01", value=v).get(timeout=30)


def _events(first: int, n: int) -> list[bytes]:
    table = Table()
    return [encode(table.event("T01-000001", WagerPlaced(seat=1, wager="main",
                                                         amount_cents=100 + i), seq=i + 1))
            for i in range(first, first + n)]


def _ingest(servers: str, topic: str, data: Path):
    return run_cli("ingest", "--data", str(data), "--topic", topic, "--bootstrap", servers,
                   "--until-idle", "1", "--quiet", timeout=120)


def test_the_checkpoint_topic_witnesses_a_removed_tail(kafka_bootstrap: str,
                                                       tmp_path: Path) -> None:
    topic = f"witness-{uuid.uuid4().hex[:10]}"
    ensure_topic(kafka_bootstrap, topic, TopicSettings(partitions=1))
    data = tmp_path / "data"
    _send(kafka_bootstrap, topic, _events(0, 5))
    assert _ingest(kafka_bootstrap, topic, data).returncode == 0
    _send(kafka_bootstrap, topic, _events(5, 4))
    assert _ingest(kafka_bootstrap, topic, data).returncode == 0
    key = read_verifier(data / "keys" / "signing.pub")
    published = latest_checkpoints(kafka_bootstrap, topic)
    assert len(published) == 1
    assert open_signed(published[0], key).size == 9

    vkey = key.vkey
    ok = run_cli("ingest", "verify", "--data", str(data), "--key", vkey, "--against-topic",
                 topic, "--bootstrap", kafka_bootstrap)
    assert ok.returncode == 0, ok.stderr
    assert f"all 9 messages of topic {topic} are in the log or in quarantine" in ok.stdout

    # A message the log never took: the topic names it.
    _send(kafka_bootstrap, topic, _events(9, 1))
    lacking = run_cli("ingest", "verify", "--data", str(data), "--key", vkey,
                      "--against-topic", topic, "--bootstrap", kafka_bootstrap)
    assert lacking.returncode == 1
    assert f"MISSING: {topic}[0]@9: in the topic, neither in the log nor in quarantine" \
        in lacking.stderr

    # The newest segment and every checkpoint beside the log removed: the directory alone
    # looks whole, the checkpoint topic does not.
    segments(data / "log")[-1].unlink()
    shutil.rmtree(data / "checkpoints")
    alone = run_cli("ingest", "verify", "--data", str(data), "--key", vkey)
    assert alone.returncode == 0, alone.stderr
    witnessed = run_cli("ingest", "verify", "--data", str(data), "--key", vkey,
                        "--against-topic", topic, "--bootstrap", kafka_bootstrap)
    assert witnessed.returncode == 1
    assert re.search(rf"{checkpoint_topic(topic)}\[0\]@\d+: signed at \S+Z, it covers 9 "
                     "records but the log holds 5: records 5 to 8 were removed",
                     witnessed.stderr), witnessed.stderr


def test_a_second_ingest_on_the_same_log_refuses(kafka_bootstrap: str, tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    topic = f"writers-{uuid.uuid4().hex[:10]}"
    ensure_topic(kafka_bootstrap, topic, TopicSettings(partitions=1))
    data = tmp_path / "data"
    _send(kafka_bootstrap, topic, _events(0, 3))
    first = subprocess.Popen([sys.executable, "-m", "ingest", "--data", str(data), "--topic",
                              topic, "--bootstrap", kafka_bootstrap, "--quiet"],
                             cwd=Path(__file__).resolve().parent.parent,
                             stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        deadline = time.monotonic() + 60
        while not list((data / "log").glob("segment-*.avro")):
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.2)
        second = run_cli("ingest", "--data", str(data), "--topic", topic, "--bootstrap",
                         kafka_bootstrap, "--until-idle", "1")
        assert second.returncode == 1
        assert f"is already being written by pid {first.pid}" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    assert len(list(segments(data / "log"))) >= 1


def test_a_topic_recreated_and_filled_past_the_log_is_refused(kafka_bootstrap: str,
                                                             tmp_path: Path) -> None:
    """Offsets alone cannot show it: the new topic holds more messages than the log took.
    The signed checkpoint's digest of the last message taken does."""


    topic = f"refilled-{uuid.uuid4().hex[:10]}"
    ensure_topic(kafka_bootstrap, topic, TopicSettings(partitions=1))
    data = tmp_path / "data"
    _send(kafka_bootstrap, topic, _events(0, 5))
    assert _ingest(kafka_bootstrap, topic, data).returncode == 0
    recreate_topic(kafka_bootstrap, topic)
    _send(kafka_bootstrap, topic, _events(100, 9))  # other events, past offset 5
    refused = _ingest(kafka_bootstrap, topic, data)
    assert refused.returncode == 2, refused.stderr
    assert "Traceback" not in refused.stderr
    assert (f"topic {topic} was recreated and filled again: {topic}[0]@4 is not the message "
            "the log under") in refused.stderr
    assert sum(1 for _ in segments(data / "log")) == 1
    # The same topic not recreated goes on as ever.
    more = tmp_path / "more"
    ensure_topic(kafka_bootstrap, other := f"kept-{uuid.uuid4().hex[:10]}",
                 TopicSettings(partitions=1))
    _send(kafka_bootstrap, other, _events(0, 5))
    assert _ingest(kafka_bootstrap, other, more).returncode == 0
    _send(kafka_bootstrap, other, _events(5, 4))
    went_on = _ingest(kafka_bootstrap, other, more)
    assert went_on.returncode == 0, went_on.stderr
