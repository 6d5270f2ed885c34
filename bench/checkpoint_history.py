"""How long ``verify --against-topic`` takes to read the checkpoint topic whole, and what it
holds while it does (``ingest.checkpoint_topic.read_history``), through the real broker.

Usage: .venv/bin/python bench/checkpoint_history.py [--checkpoints 20000 144000]
       [--garbage 0.1] [--copies 0.1] [--repeat 3]

For each count, a fresh topic ``bench-history-<random>-checkpoints`` gets that many signed
checkpoints of one log (sizes 1, 2, 3, ...: one per segment, as ingest publishes them; live
ingest makes about 5 segments a second, 144,000 in an 8-hour shift), a share ``--copies``
of them published a second time (a shutdown checkpoint, a re-published old one) and a
share ``--garbage`` of messages that are not checkpoints (tombstones, junk, a note of
another key). Then it times ``read_history`` ``--repeat`` times and prints the median and
best seconds, messages a second, and the growth of the process's peak resident memory
during the first read (what is kept: the distinct signed checkpoints). The first read is
printed apart: later reads find each signature already checked (``Verifier.check``
remembers them for the process), as a verify that reads a note twice does. The topics are
left on the broker (a bench may not use the admin client). ``KAFKA_BOOTSTRAP`` (or the
local broker's record) says where Kafka is.

Measured on 2026-12-01 (2 vCPUs shared with seven other engineers' test runs: load average
6 to 9, so these are upper bounds), ``--checkpoints 20000 144000 --repeat 2``:

| checkpoints | messages | first read s | messages/s | later reads (median s) | peak RSS growth |
|---|---|---|---|---|---|
| 20,000 | 23,965 | 5.16 | 4,642 | 1.68 | 35 MiB |
| 144,000 | 172,872 | 86.26 | 2,004 | 98.48 | 202 MiB |

Most of a first read is the Ed25519 check of each distinct signature (about 200 us each
under that load, by cProfile of ``history_of`` on the same messages without the broker);
later reads of 144,000 are no faster because the process remembers at most 131,072 checked
signatures (``schemas.checkpoint``).
"""

from __future__ import annotations

import argparse
import platform
import random
import resource
import statistics
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from ingest.checkpoint_topic import checkpoint_topic, read_history  # noqa: E402
from ingest.kafka_io import TopicSettings, bootstrap_servers, ensure_topic, producer  # noqa: E402
from schemas.checkpoint import Checkpoint, Signer, Verifier  # noqa: E402


def _messages(n: int, copies: float, garbage: float,
              seed: int) -> tuple[list[bytes | None], Verifier]:
    """The messages to publish, and the key their genuine checkpoints verify with."""
    rng = random.Random(seed)
    signer = Signer("catwalk-ingest", Ed25519PrivateKey.generate())
    insider = Signer("catwalk-ingest", Ed25519PrivateKey.generate())
    log_id = uuid.UUID(int=rng.getrandbits(128)).hex
    out: list[bytes | None] = []
    for size in range(1, n + 1):
        cp = Checkpoint(log_id=log_id, size=size, root=rng.randbytes(32),
                        signed_at="2026-12-01T00:00:00.000000Z",
                        next_offsets={f"round-events[{p}]": size for p in range(3)},
                        segment=f"segment-{size:06d}.avro", chain=rng.randbytes(32))
        text = signer.sign(cp).encode()
        out.append(text)
        if rng.random() < copies:
            out.append(text)
        if rng.random() < garbage:
            out.append(rng.choice([None, b"junk", insider.sign(cp).encode()]))
    return out, signer.verifier


def _peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--checkpoints", type=int, nargs="+", default=[20_000, 144_000])
    ap.add_argument("--copies", type=float, default=0.1)
    ap.add_argument("--garbage", type=float, default=0.1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    servers = bootstrap_servers()
    print(f"Python {platform.python_version()}, {platform.machine()}, Kafka at {servers}")
    print("| signed checkpoints | messages | first read s | messages/s | later reads (median "
          "s) | peak RSS growth |")
    print("|---|---|---|---|---|---|")
    for n in args.checkpoints:
        topic = f"bench-history-{uuid.uuid4().hex[:10]}"
        name = checkpoint_topic(topic)
        messages, key = _messages(n, args.copies, args.garbage, args.seed)
        ensure_topic(servers, name, TopicSettings(partitions=1))
        with producer(servers) as kp:
            for value in messages:
                kp.send(name, key=None if value is not None else b"tomb", value=value,
                        partition=0)
            kp.flush()
        seconds = []
        before = _peak_kib()
        grown = 0
        for i in range(args.repeat):
            t0 = time.perf_counter()
            history = read_history(servers, topic, key)
            seconds.append(time.perf_counter() - t0)
            if i == 0:
                grown = _peak_kib() - before
            assert history.read == len(messages), (history.read, len(messages))
            assert len(history.witnessed) == n, (len(history.witnessed), n)
        later = statistics.median(seconds[1:]) if len(seconds) > 1 else float("nan")
        print(f"| {n:,} | {len(messages):,} | {seconds[0]:.2f} | "
              f"{len(messages) / seconds[0]:,.0f} | {later:.2f} | {grown / 1024:.0f} MiB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
