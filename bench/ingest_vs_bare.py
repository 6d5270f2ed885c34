"""Ingest against a bare consumer of the same topic, in one run (floor: 40%).

Usage: .venv/bin/python bench/ingest_vs_bare.py [--tables 20] [--rounds 250] [--repeat 3]

Needs the local broker (`make kafka-up`) or KAFKA_BOOTSTRAP. Simulates a shift, produces its
events once into a fresh topic (3 partitions), then times, in turns so that the machine's
drift touches every row alike:

- the peer: a bare kafka-python consumer (the same consumer settings as ingest) that only
  polls every message of the topic;
- ingest as it runs in production, in this process: ``ingest.consume.run`` with a fresh
  consumer group and a fresh data directory, from the first poll until the whole topic is
  in the log (judging every message, the hash chain, the Merkle tree, a signed checkpoint
  and an fsync per batch, the offset commits). The idle wait that ends a batch run
  (``--until-idle``) is not counted: the clock stops when the last message is in the log.

Prints one Markdown table: best and median events/s, the median's ratio to the bare
consumer's median, and the best run's to the bare consumer's best run (the floor, 40%, is
meant to hold on both).
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
import uuid
import zlib
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PARTITIONS = 3


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=20)
    p.add_argument("--rounds", type=int, default=250, help="rounds per table")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    sys.path.insert(0, str(REPO))
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    from bench.timing import cpu_model
    from ingest.consume import IngestStats, run
    from ingest.kafka_io import TopicSettings, bootstrap_servers, consumer, ensure_topic
    from ingest.log import LogWriter
    from ingest.simulate import simulate_shift
    from schemas import encode

    servers = bootstrap_servers()
    events, _ = simulate_shift(tables=args.tables, rounds=args.rounds, seed=args.seed,
                               fault_rate=0.01)
    n = len(events)
    topic = f"bench-ingest-{uuid.uuid4().hex[:8]}"
    ensure_topic(servers, topic, TopicSettings(partitions=PARTITIONS))
    kp = KafkaProducer(bootstrap_servers=servers, linger_ms=5, batch_size=65536,
                       compression_type="lz4")
    for e in events:
        key = e.table_id.encode()
        kp.send(topic, key=key, value=encode(e), partition=zlib.crc32(key) % PARTITIONS)
    kp.flush()
    kp.close()

    def bare() -> float:
        kc = KafkaConsumer(bootstrap_servers=servers, group_id=None, enable_auto_commit=False,
                           isolation_level="read_committed", max_poll_records=5000)
        tps = [TopicPartition(topic, i) for i in range(PARTITIONS)]
        kc.assign(tps)
        kc.seek_to_beginning(*tps)
        start = time.perf_counter()
        seen = 0
        while seen < n:
            for batch in kc.poll(timeout_ms=500).values():
                seen += len(batch)
        elapsed = time.perf_counter() - start
        kc.close()
        return elapsed

    def ingest() -> float:
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp)
            log = LogWriter(data / "log", data / "quarantine")
            group = f"bench-{uuid.uuid4().hex[:8]}"
            done: list[float] = []

            def progress(stats: IngestStats, final: bool) -> None:
                return None

            start = time.perf_counter()
            watch = _Watch(log, n, done, start)
            run(connect=lambda: consumer(servers, group), topic=topic, log=watch,  # type: ignore[arg-type]
                log_dir=data / "log", until_idle=0.2, progress=progress, poll_ms=100,
                say=lambda line: None)
            log.close()
            if watch.consumed != n:
                sys.exit(f"ingest: {watch.consumed} messages consumed, {n} produced")
            return done[0]

    rows: list[tuple[str, Callable[[], float]]] = [
        ("bare kafka-python consumer, polls only (the peer)", bare),
        ("ingest: judge, hash chain, Merkle tree, signed checkpoint, fsync, commit", ingest),
    ]
    times: dict[str, list[float]] = {name: [] for name, _ in rows}
    for _ in range(args.repeat):
        for name, fn in rows:
            times[name].append(fn())
    peer_times = sorted(times[rows[0][0]])
    peer, peer_best = peer_times[len(peer_times) // 2], peer_times[0]
    print(f"{n:,} events on {PARTITIONS} partitions ({args.tables} tables x {args.rounds} "
          f"rounds, seed {args.seed}); CPU: {cpu_model()}; Python {platform.python_version()}; "
          f"best and median of {args.repeat}, in turns\n")
    print("| what | events/s best | events/s median | median vs peer | best vs peer's best |")
    print("|---|---:|---:|---:|---:|")
    for name, _ in rows:
        ts = sorted(times[name])
        best, median = ts[0], ts[len(ts) // 2]
        print(f"| {name} | {n / best:,.0f} | {n / median:,.0f} | {peer / median:.0%} "
              f"| {peer_best / best:.0%} |")


class _Watch:
    """The log writer, noting when the last of ``n`` records is in the log (the time the
    bench reports); everything else is the writer's own."""

    def __init__(self, log: object, n: int, done: list[float], start: float) -> None:
        self._log, self._n, self._done, self._start = log, n, done, start
        self.consumed = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._log, name)

    def append(self, accepted: list, quarantined: list, epochs: object = None) -> object:
        out = self._log.append(accepted, quarantined, epochs)  # type: ignore[attr-defined]
        self.consumed += len(accepted) + len(quarantined)
        if not self._done and self.consumed >= self._n:
            self._done.append(time.perf_counter() - self._start)
        return out


if __name__ == "__main__":
    main()
