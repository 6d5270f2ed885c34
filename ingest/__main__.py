"""``python -m ingest``: consume round events into the append-only log; verify it; prove a
round's events against a signed checkpoint."""

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
  python -m ingest verify                check every record, the Merkle tree and every signed
                                         checkpoint (exit 0 only when all hold)
  python -m ingest verify --key "$(cat pinned.pub)" --checkpoint kept.checkpoint
                                         the regulator's check: a key and a checkpoint kept
                                         apart from this directory (a removed tail shows)
  python -m ingest verify --key "$(cat pinned.pub)" --against-topic round-events
                                         also: every signed checkpoint ever published to
                                         round-events-checkpoints (read whole) holds for the
                                         log, so a rollback shows; every message of the topic
                                         is in the log or in quarantine; either topic
                                         deleted, trimmed past the log or compacted fails
                                         (tombstones and garbage are named and skipped)
  python -m ingest --worker w1 & python -m ingest --worker w2 &
                                         two workers sharing the topic's partitions, each
                                         writing its own chain (log/workers/NAME)
  python -m ingest prove R-1234 --casino C01 --table T01 --out r1234.proof
                                         inclusion proofs of a round's events, and of the
                                         round whole (table_seq RoundStarted..RoundEnded)
  python -m ingest verify --proof r1234.proof --key "$(cat pinned.pub)"
                                         check a proof offline, without the log
  python -m ingest consistency kept.checkpoint --out grew.json
                                         a consistency proof from a checkpoint you kept to
                                         the latest (or: consistency OLD NEW)
  python -m ingest verify --consistency grew.json --key "$(cat pinned.pub)"
                                         check it offline: the log only grew since OLD
  python -m ingest witness --state ~/witness --key "$(cat pinned.pub)" --data /mnt/copy
                                         a witness (not the operator) accepts the latest
                                         checkpoints once consistent with what it kept, and
                                         cosigns them (C2SP tlog-cosignature); or give it
                                         CHECKPOINT_FILE ... with --proof grew.json
  python -m ingest verify --key "$(cat pinned.pub)" --checkpoint cosigned.checkpoint \\
         --witness "$(cat witness.pub)"  the log is consistent with a checkpoint the witness
                                         cosigned (repeat --witness for several)

files (under --data, default $CATWALK_DATA or ./var):
  log/segment-NNNNNN.avro          the append-only log (Avro, hash-chained, a signed checkpoint
                                   of its Merkle tree in every segment, fsynced per batch)
  checkpoints/*.checkpoint         the signed checkpoints beside the log (latest.checkpoint is
                                   the last one, signed again at shutdown)
  keys/signing.key, signing.pub    the checkpoint signing key (created on first ingest unless
                                   --signing-key or CATWALK_SIGNING_KEY names one) and its
                                   public half, the line to pin (docs/log-integrity.md)
  quarantine/segment-NNNNNN.jsonl  messages that could not enter the log, with the reason
                                   and their topic[partition]@offset

exit codes: 0 done / verified / accepted; 1 the log, a proof or a cosignature does not
verify, a witness refused a checkpoint (rollback, fork), or the log cannot be written; 2 the
command cannot run (arguments, files, no broker, a witness given no consistency proof); 3
verify: it verifies only with the key beside the log ("unverified: key not pinned": give
--key or set CATWALK_TRUSTED_KEYS to your keyring).

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
    p.add_argument("command", nargs="?",
                   choices=["consume", "verify", "prove", "consistency", "witness"],
                   default="consume",
                   help="consume (default), verify the log or a proof, prove a round, prove "
                   "consistency between checkpoints, witness checkpoints")
    p.add_argument("round_id", nargs="?", default=None, help="with prove: the round to prove; "
                   "with consistency: OLD_CHECKPOINT; with witness: a checkpoint file")
    p.add_argument("operands", nargs="*", default=[], metavar="FILE",
                   help="with consistency: NEW_CHECKPOINT (default: the latest checkpoint of "
                   "the chain with OLD's log id); with witness: more checkpoint files")
    p.add_argument("--data", type=Path, default=None, help="data directory (default: ./var)")
    p.add_argument("--topic", default=DEFAULT_TOPIC, help=f"topic (default {DEFAULT_TOPIC})")
    p.add_argument("--bootstrap", default=None, help="Kafka host:port (default: see below)")
    p.add_argument("--group", default=None,
                   help="consumer group (default catwalk-ingest-<topic>)")
    p.add_argument("--until-idle", type=float, default=None, metavar="SECONDS",
                   help="stop once no event arrived for SECONDS and every partition of "
                   "the topic is in the log to its end (read here, or held by another "
                   "worker's chain); a worker restarted alone waits, and says so, for the "
                   "partitions its stopped peers keep until their sessions time out "
                   "(about 10 s) (batch runs)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    audit = p.add_argument_group("verify and prove")
    audit.add_argument("--key", default=None, metavar="PUBLIC_KEY",
                       help="the public key to check signatures with: its text "
                       "(name+hash+key) or a file holding it (default: the log keys of the "
                       "keyring $CATWALK_TRUSTED_KEYS names, else keys/signing.pub beside "
                       "the log, which proves nothing: exit 3, key not pinned)")
    audit.add_argument("--checkpoint", type=Path, action="append", default=[], metavar="FILE",
                       help="a checkpoint kept apart from the log (repeatable): the log must "
                       "hold at least its records, with its root")
    audit.add_argument("--proof", type=Path, default=None, metavar="FILE",
                       help="verify: check this inclusion proof (from prove) offline; witness: "
                       "the consistency proof from the checkpoint it kept to the one given")
    audit.add_argument("--against-topic", default=None, metavar="TOPIC",
                       help="verify: also read the checkpoint topic TOPIC-checkpoints whole "
                       "(the log must hold every signed checkpoint on it; what is not one is "
                       "named and skipped) and TOPIC from its start (every message in the log "
                       "or in quarantine); a topic deleted, trimmed past the log or compacted "
                       "fails")
    audit.add_argument("--casino", default=None, metavar="CASINO",
                       help="prove: the round's casino (needed when the round id is held at "
                       "several casinos)")
    audit.add_argument("--table", default=None, metavar="TABLE_ID",
                       help="prove: the round's table (needed when the round id is held at "
                       "several tables)")
    audit.add_argument("--out", type=Path, default=None, metavar="FILE",
                       help="prove, consistency, witness: write the proof or the cosigned "
                       "checkpoint to FILE (default: standard output)")
    audit.add_argument("--consistency", type=Path, default=None, metavar="FILE",
                       help="verify: check this consistency proof (from consistency) offline, "
                       "with --key and no log")
    audit.add_argument("--witness", action="append", default=[], metavar="WITNESS_VKEY",
                       help="verify: require each --checkpoint (with --consistency: its new "
                       "checkpoint) to carry a valid cosignature by this witness (its key "
                       "line, or a file holding it; repeatable)")
    wit = p.add_argument_group("witness")
    wit.add_argument("--state", type=Path, default=None, metavar="DIR",
                     help="witness: the witness's own directory (its key, and the largest "
                     "checkpoint it accepted of each log)")
    wit.add_argument("--witness-key", type=Path, default=None, metavar="FILE",
                     help="witness: its private key (default DIR/witness.key, created on "
                     "first use, mode 0600)")
    p.add_argument("--signing-key", type=Path, default=None, metavar="FILE",
                   help="consume: the checkpoint signing key (default $CATWALK_SIGNING_KEY, "
                   "else keys/signing.key under --data, created on first use)")
    p.add_argument("--worker", default=None, metavar="NAME",
                   help="consume: run as worker NAME of several ingest processes sharing the "
                   "topic's partitions (one consumer group); each worker writes its own chain "
                   "under log/workers/NAME, and all chains verify together")
    p.add_argument("--topic-settings", default=None, metavar="P,R,M", help="consume: the topic's partitions, replication factor and min.insync.replicas when it is created (default $CATWALK_TOPIC_PARTITIONS or 3, $CATWALK_REPLICATION_FACTOR or 1, $CATWALK_MIN_INSYNC_REPLICAS or 1); an existing topic is not altered")  # noqa: E501
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_intermixed_args(argv)  # FILEs after options, as in the examples
    data = args.data or default_data_dir()
    if (args.operands and args.command not in ("consistency", "witness")) or (
            args.command == "consistency" and len(args.operands) > 1):
        print(f"ingest {args.command}: unexpected arguments {' '.join(args.operands)}",
              file=sys.stderr)
        return 2
    if args.command == "verify":
        from ingest.audit import verify_command

        return verify_command(data, key=args.key, checkpoint_files=args.checkpoint,
                              proof=args.proof, against_topic=args.against_topic,
                              bootstrap=args.bootstrap, consistency=args.consistency,
                              witnesses=args.witness)
    if args.command == "consistency":
        from ingest.audit import consistency_command

        return consistency_command(data, args.round_id,
                                   args.operands[0] if args.operands else None,
                                   key=args.key, out=args.out)
    if args.command == "witness":
        from ingest.witness import witness_command

        files = [Path(f) for f in [args.round_id, *args.operands] if f]
        return witness_command(args.state, key=args.key, witness_key=args.witness_key,
                               files=files, data=args.data, proof=args.proof, out=args.out)
    if args.command == "prove":
        from ingest.audit import prove_command

        return prove_command(data, args.round_id, key=args.key, out=args.out,
                             casino=args.casino, table_id=args.table)
    return _consume(args, data)


def _consume(args: argparse.Namespace, data: Path) -> int:
    from kafka.errors import KafkaError

    from ingest.consume import IngestStats, Refused, open_log, run
    from ingest.event_index import EventIndex
    from ingest.fence import FenceError
    from ingest.kafka_io import (
        SettingsError,
        consumer,
        ensure_topic,
        instance_id,
        topic_settings,
    )
    from schemas.logformat import LogError

    try:
        servers = bootstrap_servers(args.bootstrap)
        settings = topic_settings(getattr(args, "topic_settings", None))
    except (NoClusterError, SettingsError) as exc:
        print(f"ingest: {exc}", file=sys.stderr)
        return 2
    from ingest.checkpoint_topic import CheckpointPublisher
    from schemas.checkpoint import CheckpointError

    try:
        log = open_log(data, args.signing_key, args.worker)
    except (LogError, OSError, CheckpointError) as exc:
        print(f"ingest: cannot open the log under {data}: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"ingest: --worker: {exc}", file=sys.stderr)
        return 2
    publisher = CheckpointPublisher(servers, args.topic)
    log.on_checkpoint = publisher.publish

    def close_log() -> None:
        log.close()
        try:
            publisher.close()
        except Exception as exc:  # the checkpoints are in the log and beside it
            print(f"ingest: the checkpoint publisher did not close cleanly ({exc!r})",
                  file=sys.stderr)

    try:
        index = EventIndex.from_log(log.log_dir)
    except (LogError, OSError) as exc:
        print(f"ingest: cannot read the log under {data} to index its event ids: {exc}",
              file=sys.stderr)
        close_log()
        return 1
    if not args.quiet and index.records:
        print(f"ingest: {len(index):,} event ids of {index.records:,} log records indexed in "
              f"{index.seconds:.2f} s", file=sys.stderr, flush=True)
    group = args.group or f"catwalk-ingest-{args.topic}"
    member = instance_id(group, log.log_dir)
    try:
        ensure_topic(servers, args.topic, settings)
    except KafkaError as exc:
        print(f"ingest: cannot reach Kafka at {servers}: {exc!r}. Is it running? "
              "(`make kafka-up`, or set KAFKA_BOOTSTRAP)", file=sys.stderr)
        close_log()
        return 2

    def progress(stats: IngestStats, final: bool) -> None:
        if args.quiet and not final:
            return
        line = (f"ingest: {log.records:,} events in the log, {stats.appended:,} appended now, "
                f"{stats.quarantined:,} quarantined ({stats.conflicts:,} conflicting ids), "
                f"{stats.batches:,} batches")
        if stats.reconnects:
            line += f", {stats.reconnects:,} reconnections to Kafka"
        print(line + (" (done)" if final else ""), file=sys.stderr, flush=True)

    try:
        run(connect=lambda: consumer(servers, group, member), topic=args.topic, log=log,
            log_dir=log.log_dir, index=index, until_idle=args.until_idle, progress=progress)
    except Refused as exc:
        print(f"ingest: REFUSED: {exc}", file=sys.stderr)
        return 2
    except FenceError as exc:
        print(f"ingest: STOPPED: cannot fence the partitions: {exc}. Nothing after the last "
              "complete segment was committed; fix the file and run ingest again to resume.",
              file=sys.stderr)
        return 1
    except (LogError, OSError) as exc:
        print(f"ingest: STOPPED: cannot write the log: {exc}. Nothing after the last complete "
              "segment was committed; fix the disk and run ingest again to resume.",
              file=sys.stderr)
        return 1
    finally:
        close_log()
    return 0

if __name__ == "__main__":
    sys.exit(main())
