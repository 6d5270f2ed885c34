"""Workers drill: three ingest workers share a six-partition topic, killed and restarted at
random while events stream in; in the end every event is in exactly one worker's chain,
once, in order per partition, and all chains verify together.

A fresh 6-partition topic receives :data:`EVENTS` simulator events with a malformed message
after every :data:`BAD_EVERY`-th, produced at a steady pace in the background. Workers
``w1``, ``w2`` and ``w3`` (``python -m ingest --worker NAME``, one consumer group) run as
subprocesses; :data:`KILLS` times a random worker is SIGKILLed and started again. Then all
are stopped, the last :data:`TAIL` messages are produced into every partition, and ``w1``
alone catches up with ``--until-idle``. The stopped workers are static members of the group
(KIP-345) and keep their partitions until their sessions time out, so ``w1`` first gets only
its own: it must wait for the others' partitions (the group hands them over when those
sessions end) and resume each from where any worker's chain stopped, whatever the fetch wait.

    .venv/bin/python -m pytest -m drills tests/test_drill_workers.py -s
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from schemas.logformat import chains, read_log
from tests.drill_support import (
    REPO,
    Holding,
    Producing,
    drill_messages,
    exactly_once_problems,
    ingest_cmd,
    new_topic,
    produce,
    run_ingest,
    verify_cli,
)

pytestmark = [pytest.mark.kafka, pytest.mark.drills]

EVENTS = int(os.environ.get("CATWALK_DRILL_WORKER_EVENTS", "30000"))
KILLS = int(os.environ.get("CATWALK_DRILL_WORKER_KILLS", "10"))
PRODUCE_S = float(os.environ.get("CATWALK_DRILL_WORKER_PRODUCE_S", "20"))
SEED = int(os.environ.get("CATWALK_DRILL_WORKER_SEED", "20261202"))
BAD_EVERY = 3_000
TAIL = 600
"""Messages produced after every worker stopped: in every partition, for w1 alone."""
WORKERS = ("w1", "w2", "w3")


def _start(data: Path, topic: str, servers: str, name: str, out: Path) -> subprocess.Popen:
    return subprocess.Popen(ingest_cmd(data, topic, servers, "--worker", name, "--quiet"),
                            stdout=subprocess.DEVNULL, stderr=out.open("a"), cwd=REPO,
                            env=dict(os.environ))


def _holding(data: Path, topic: str) -> tuple[Holding, list[str]]:
    """Every chain's records, ordered by (partition, offset) as one log would hold them, and
    what is wrong with each chain on its own (offsets going backwards in a partition)."""
    import json

    records, problems = [], []
    for chain in chains(data):
        last: dict[int, int] = {}
        for rec in read_log(chain.log):
            assert rec.topic == topic
            if rec.offset <= last.get(rec.partition, -1):
                problems.append(f"{chain.label}: {rec.coordinates} after offset "
                                f"{last[rec.partition]}")
            last[rec.partition] = rec.offset
            records.append((rec.partition, rec.offset, rec.value))
    quarantine = [json.loads(line) for path in sorted(data.glob("quarantine/**/*.jsonl"))
                  for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return Holding(sorted(records, key=lambda r: (r[0], r[1])), quarantine), problems


def test_three_workers_killed_at_random_lose_and_repeat_nothing(kafka_bootstrap: str,
                                                               tmp_path: Path) -> None:
    rng = random.Random(SEED)
    print(f"\nworkers drill: {EVENTS:,} events, {KILLS} kills, seed {SEED}")
    topic = new_topic(kafka_bootstrap, "drill-workers", partitions=6)
    data = tmp_path / "data"
    messages = drill_messages(EVENTS, seed=SEED, bad_every=BAD_EVERY)
    messages, tail = messages[:-TAIL], messages[-TAIL:]
    producing = Producing(kafka_bootstrap, topic, messages,
                          per_second=len(messages) / PRODUCE_S)
    outs = {name: tmp_path / f"{name}.err" for name in WORKERS}
    procs = {name: _start(data, topic, kafka_bootstrap, name, outs[name]) for name in WORKERS}
    producing.start()
    try:
        for kill in range(KILLS):
            time.sleep(rng.uniform(0.8, 2.5))
            name = rng.choice(WORKERS)
            procs[name].send_signal(signal.SIGKILL)
            procs[name].wait(30)
            print(f"  kill {kill + 1}: {name}")
            procs[name] = _start(data, topic, kafka_bootstrap, name, outs[name])
        produced = producing.result()
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
    late = produce(kafka_bootstrap, topic, tail)
    assert len(late.ends) == 6, late.ends  # the tail reaches the partitions of every worker
    produced.good.update(late.good)
    produced.bad.update(late.bad)
    caught_up = run_ingest(data, topic, kafka_bootstrap, "--worker", "w1", "--until-idle", "4")
    assert caught_up.returncode == 0, caught_up.stderr
    texts = {name: out.read_text() for name, out in outs.items()}
    for name, text in texts.items():
        assert "Traceback" not in text, f"{name}:\n{text}"
    held, order = _holding(data, topic)
    assert order == []
    by_worker = {c.name: sum(1 for _ in read_log(c.log)) for c in chains(data)}
    print(f"  records per chain: {by_worker}")
    assert len([n for n, count in by_worker.items() if count]) >= 2  # the work was shared
    assert exactly_once_problems(held, produced) == []
    verified = verify_cli(data)
    assert verified.returncode == 0, verified.stdout + verified.stderr
