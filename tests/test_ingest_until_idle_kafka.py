"""``python -m ingest --worker NAME --until-idle`` against the real broker: a worker restarted
alone after its peers stopped reads their partitions too before it stops.

Ingest is a static member of its consumer group (``group.instance.id``, KIP-345): a worker
that stops does not leave the group, and keeps its partitions until its session times out
(ingest/kafka_io.py SESSION_TIMEOUT_MS). A worker restarted within that time gets back only
its own partitions; it must wait for the others' rather than stop "caught up" with their
messages still in Kafka (tests/test_drill_workers.py's last step, which failed that way).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ingest.kafka_io import producer
from schemas.logformat import chains, read_log
from tests.drill_support import REPO, drill_messages, ingest_cmd, new_topic, run_ingest

pytestmark = pytest.mark.kafka


def _held(data: Path) -> dict[str, set[tuple[int, int]]]:
    """(partition, offset) of every record, by chain."""
    return {c.name: {(r.partition, r.offset) for r in read_log(c.log)} for c in chains(data)}


def test_a_worker_restarted_alone_reads_the_partitions_its_stopped_peer_still_holds(
        kafka_bootstrap: str, tmp_path: Path) -> None:
    topic = new_topic(kafka_bootstrap, "until-idle", partitions=2)
    data = tmp_path / "data"
    events = iter([m for m in drill_messages(600, seed=11) if m.good])
    produced: set[tuple[int, int]] = set()

    def send(per_partition: int) -> None:
        with producer(kafka_bootstrap) as kp:
            futures = [kp.send(topic, value=m.value, key=m.key, partition=p)
                       for _ in range(per_partition) for p in (0, 1) for m in [next(events)]]
            kp.flush()
            for future in futures:
                meta = future.get(timeout=30)
                produced.add((meta.partition, meta.offset))

    def all_held() -> bool:
        return set().union(*_held(data).values()) >= produced if data.exists() else False

    send(5)
    errs = {name: tmp_path / f"{name}.err" for name in ("a", "b")}
    procs = {name: subprocess.Popen(ingest_cmd(data, topic, kafka_bootstrap, "--worker", name,
                                               "--quiet"),
                                    stdout=subprocess.DEVNULL, stderr=errs[name].open("w"),
                                    cwd=REPO, env=dict(os.environ))
             for name in ("a", "b")}
    try:
        # Until the group has split the topic (each worker's chain takes new events), then
        # until the log holds everything sent.
        deadline = time.monotonic() + 90
        while not all((held := _held(data) if data.exists() else {}).get(name)
                      for name in ("a", "b")):
            assert time.monotonic() < deadline, (
                f"the two workers did not share the topic: {sorted(held)}\n"
                + "\n".join(e.read_text() for e in errs.values()))
            send(1)
            time.sleep(0.5)
        while not all_held():
            assert time.monotonic() < deadline, "the workers did not read what was sent"
            time.sleep(0.2)
    finally:
        for proc in procs.values():
            proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            assert proc.wait(60) == 0, "\n".join(e.read_text() for e in errs.values())
    last = {}  # partition -> the worker whose chain took its latest offset
    for name, places in _held(data).items():
        for p, o in places:
            if o >= last.get(p, (-1, ""))[0]:
                last[p] = (o, name)
    holders = {p: name for p, (_, name) in last.items()}
    assert sorted(holders.values()) == ["a", "b"], holders
    (b_partition,) = [p for p, name in holders.items() if name == "b"]

    # Both stopped; their sessions live on. New events in both partitions, and "a" alone.
    send(20)
    started = time.monotonic()
    alone = run_ingest(data, topic, kafka_bootstrap, "--worker", "a", "--until-idle", "1",
                       timeout=120)
    seconds = time.monotonic() - started
    print(f"\nworker a alone: {seconds:.1f} s\n{alone.stderr}")
    assert alone.returncode == 0, alone.stderr
    assert "Traceback" not in alone.stderr
    missing = produced - set().union(*_held(data).values())
    assert sorted(missing) == [], f"after {seconds:.1f} s:\n{alone.stderr}"
    assert (f"{topic}[{b_partition}] is not in the log to its end and assigned to another "
            f"member of consumer group") in alone.stderr
