"""``python -m ingest``: consume round events into the append-only log, or verify the log."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ingest.kafka_io import DEFAULT_TOPIC, REPO, NoClusterError, bootstrap_servers

EPILOG = """\
examples:
  python -m ingest --until-idle 5        ingest what the topic holds, then stop
  python -m ingest                       keep ingesting until Ctrl-C / SIGTERM
  python -m ingest verify                check the log's hash chain

files (under --data, default $CATWALK_DATA or ./var):
  log/segment-NNNNNN.avro          the append-only log (Avro, hash-chained, fsynced per batch)
  quarantine/segment-NNNNNN.jsonl  messages that could not enter the log, with the reason
                                   and their topic[partition]@offset

Kafka: KAFKA_BOOTSTRAP=host:port points at an existing cluster; otherwise the local broker
started by `make kafka-up` is used.
"""


def default_data_dir() -> Path:
    return Path(os.environ.get("CATWALK_DATA") or REPO / "var")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ingest",
        description="Consume round events from Kafka into the append-only, hash-chained log. "
        "Every message ends in the log exactly once, or in quarantine with its reason.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("command", nargs="?", choices=["consume", "verify"], default="consume",
                   help="consume (default) or verify the log")
    p.add_argument("--data", type=Path, default=None, help="data directory (default: ./var)")
    p.add_argument("--topic", default=DEFAULT_TOPIC, help=f"topic (default {DEFAULT_TOPIC})")
    p.add_argument("--bootstrap", default=None, help="Kafka host:port (default: see below)")
    p.add_argument("--group", default=None,
                   help="consumer group (default catwalk-ingest-<topic>)")
    p.add_argument("--until-idle", type=float, default=None, metavar="SECONDS",
                   help="stop once caught up and no event arrived for SECONDS (batch runs)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    data = args.data or default_data_dir()
    if args.command == "verify":
        return _verify(data)
    return _consume(args, data)


def _verify(data: Path) -> int:
    from schemas.logformat import LogError, verify

    try:
        result = verify(data / "log")
    except LogError as exc:
        print(f"verify: FAILED: {exc}", file=sys.stderr)
        return 1
    if result.ok:
        print(f"verify: OK: {result.records} records in {result.segments} segments, "
              f"last hash {result.last_hash.hex()}")
        return 0
    print(f"verify: FAILED after {result.records} good records: {result.problem}", file=sys.stderr)
    return 1


def _consume(args: argparse.Namespace, data: Path) -> int:
    from kafka.errors import KafkaError

    from ingest.consume import IngestStats, open_log, run
    from ingest.kafka_io import consumer, ensure_topic
    from schemas.logformat import LogError

    try:
        servers = bootstrap_servers(args.bootstrap)
    except NoClusterError as exc:
        print(f"ingest: {exc}", file=sys.stderr)
        return 2
    try:
        log = open_log(data)
    except (LogError, OSError) as exc:
        print(f"ingest: cannot open the log under {data}: {exc}", file=sys.stderr)
        return 1
    try:
        ensure_topic(servers, args.topic)
        kc = consumer(servers, args.group or f"catwalk-ingest-{args.topic}")
    except KafkaError as exc:
        print(f"ingest: cannot reach Kafka at {servers}: {exc!r}. Is it running? "
              "(`make kafka-up`, or set KAFKA_BOOTSTRAP)", file=sys.stderr)
        return 2

    def progress(stats: IngestStats, final: bool) -> None:
        if args.quiet and not final:
            return
        line = (f"ingest: {log.records:,} events in the log, {stats.appended:,} appended now, "
                f"{stats.quarantined:,} quarantined, {stats.batches:,} batches")
        print(line + (" (done)" if final else ""), file=sys.stderr, flush=True)

    try:
        run(consumer=kc, topic=args.topic, log=log, until_idle=args.until_idle, progress=progress)
    except (LogError, OSError) as exc:
        print(f"ingest: STOPPED: cannot write the log: {exc}. Nothing after the last complete "
              "segment was committed; fix the disk and run ingest again to resume.",
              file=sys.stderr)
        return 1
    finally:
        kc.close(autocommit=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
