"""``python -m ingest verify`` and ``python -m ingest prove``: what a regulator runs.

- ``verify`` checks the whole log offline against a public key (schemas/log_verify.py):
  every chain of it (the lone ingest's, or each ingest worker's), the checkpoints beside
  each and any checkpoint the regulator kept (``--checkpoint``, matched to its chain by its
  log id);
  ``--against-topic`` also reads the topic (kept forever) and names every message the log
  and the quarantine both lack; ``--proof FILE`` checks an inclusion proof offline, with no
  log at all.
- ``prove ROUND_ID`` prints, for every event of a round, its record and the audit path that
  ties it to the latest signed checkpoint of its chain (RFC 9162 2.1.3), as JSON. With the
  lone ingest's chain the proof names one checkpoint (``checkpoint``); with workers' chains
  each event carries its chain's (``chain`` and ``checkpoint`` in the event).

Exit codes: 0 verified; 1 the log, a checkpoint or a proof does not verify (the first
problem is named); 2 the command cannot run (bad arguments, unreadable files, no broker);
3 it verifies, but only with the key found beside the log (no ``--key`` and no keyring
``CATWALK_TRUSTED_KEYS``): "unverified: key not pinned", which proves only that the
directory agrees with itself.
"""

from __future__ import annotations

import base64
import binascii
import json
import sys
from pathlib import Path
from typing import Any

from schemas.checkpoint import Checkpoint, CheckpointError, Verifier, open_signed
from schemas.log_verify import DataVerdict, verify_data
from schemas.logformat import parse_leaf_input
from schemas.merkle import leaf_hash, verify_inclusion
from schemas.proof import PROOF_FORMAT, ProofError, round_proof

MAX_PROOF_BYTES = 16 * 1024 * 1024


class AuditError(Exception):
    """The command cannot run; the message says why and what to do (exit 2)."""


def _key(data: Path, given: str | None) -> tuple[Verifier, str, bool]:
    """The verifier key (schemas.keyring.log_key: ``--key``, else the keyring
    ``CATWALK_TRUSTED_KEYS`` names, else the key beside the log), where it came from (said on
    every verdict) and whether it is pinned (given or in the keyring)."""
    from schemas.keyring import log_key

    try:
        verifier, choice = log_key(data, given)
    except CheckpointError as exc:
        raise AuditError(f"--key: {exc}" if given else str(exc)) from exc
    return verifier, choice.source, choice.pinned


def _checkpoints(files: list[Path]) -> list[tuple[str, str]]:
    """The checkpoints given as files (those beside each chain are read by verify_data)."""
    found = []
    for path in files:
        try:
            found.append((str(path), path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            raise AuditError(f"{path}: cannot read the checkpoint: {exc}") from exc
    return found


def verify(data: Path, *, key: str | None, checkpoint_files: list[Path],
           quiet: bool = False, witnessed: list[tuple[str, str]] | None = None,
           ) -> tuple[DataVerdict, str]:
    """Verify every chain of the log of ``data`` (with the checkpoints beside each, the files
    given and the ``witnessed`` ones, from the checkpoint topic, each matched to its chain);
    (verdict, where the key came from)."""
    verifier, source, _ = _key(data, key)

    def progress(n: int) -> None:
        if not quiet:
            print(f"verify: {n:,} records checked", file=sys.stderr, flush=True)

    verdict = verify_data(data, verifier,
                          checkpoints=[*_checkpoints(checkpoint_files), *(witnessed or [])],
                          progress=progress)
    return verdict, source


def verify_command(data: Path, *, key: str | None, checkpoint_files: list[Path],
                   proof: Path | None, against_topic: str | None, bootstrap: str | None) -> int:
    try:
        if proof is not None:
            return _check_proof(proof, data, key)
        witnessed = _witnessed(against_topic, bootstrap) if against_topic else []
        verdict, source = verify(data, key=key, checkpoint_files=checkpoint_files,
                                 witnessed=witnessed)
        pinned = _key(data, key)[2]
    except AuditError as exc:
        print(f"verify: {exc}", file=sys.stderr)
        return 2
    if not verdict.ok:
        print(f"verify: {verdict.line()}", file=sys.stderr)
        print("verify: the log cannot be trusted as it stands: keep this directory as it is "
              "(evidence) and compare it with the topic (--against-topic) and the "
              "checkpoints your regulator holds (docs/log-integrity.md)", file=sys.stderr)
        return 1
    print(f"verify: {verdict.line()}")
    print(f"verify: checked with {source}")
    code = 0
    if against_topic is not None:
        code = _against_topic(data, against_topic, bootstrap)
    return code or _not_pinned(pinned)


def _not_pinned(pinned: bool) -> int:
    """3, said, when the only key that verified was the one beside the log."""
    if pinned:
        return 0
    from schemas.keyring import ENV, NOT_PINNED

    print(f"verify: {NOT_PINNED}: the key beside the log verifies what whoever can write "
          f"this directory signed; pass the key you pinned with --key, or set {ENV} to "
          "your keyring (exit 3)", file=sys.stderr)
    return 3


def _witnessed(topic: str, bootstrap: str | None) -> list[tuple[str, str]]:
    """The last checkpoint on the checkpoint topic of ``topic``: the witness outside the
    data directory that shows a removed tail."""
    from kafka.errors import KafkaError

    from ingest.checkpoint_topic import checkpoint_topic, latest_checkpoints
    from ingest.kafka_io import NoClusterError, bootstrap_servers

    try:
        texts = latest_checkpoints(bootstrap_servers(bootstrap), topic)
    except (NoClusterError, KafkaError) as exc:
        raise AuditError(f"--against-topic: cannot read {checkpoint_topic(topic)}: {exc}") from exc
    if not texts:
        print(f"verify: {checkpoint_topic(topic)} holds no checkpoint (ingest older than "
              "checkpoints, or another topic)", file=sys.stderr)
    return [(f"{checkpoint_topic(topic)} (latest)", t) for t in texts]


def prove(data: Path, round_id: str, *, key: str | None) -> dict[str, Any]:
    """The inclusion proofs of every event of ``round_id``, each against the latest signed
    checkpoint of its chain, once the log (every chain) verifies (schemas/proof.py
    :func:`~schemas.proof.round_proof`, which ``python -m replay round --proof`` uses too).

    The lone ingest's chain: ``tree_size`` and ``checkpoint`` are the proof's, as always.
    Several chains: each event carries its own ``chain`` (the worker's name), ``tree_size``
    and ``checkpoint``, in the order of (topic, partition, offset)."""
    verdict, _ = verify(data, key=key, checkpoint_files=[], quiet=True)
    try:
        return round_proof(verdict, round_id)
    except ProofError as exc:
        raise AuditError(str(exc)) from exc


def prove_command(data: Path, round_id: str | None, *, key: str | None, out: Path | None) -> int:
    if not round_id:
        print("prove: which round? python -m ingest prove ROUND_ID", file=sys.stderr)
        return 2
    try:
        proof = prove(data, round_id, key=key)
    except AuditError as exc:
        print(f"prove: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(proof, indent=2) + "\n"
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
        against = (f"the checkpoint of {proof['tree_size']:,} records" if "tree_size" in proof
                   else "the checkpoint of each event's chain")
        print(f"prove: {len(proof['events'])} events of round {round_id} proved against "
              f"{against}; written to {out}. Check it with "
              f"python -m ingest verify --proof {out} --key <public key>", file=sys.stderr)
    return 0


def _check_proof(path: Path, data: Path, key: str | None) -> int:
    """Check an inclusion proof offline: the checkpoint's signature, then each event's
    path to its root, then that each record is an event of the round the proof names. An
    event that carries its own ``checkpoint`` (its chain's, with several ingest workers) is
    checked against it, any other against the proof's ``checkpoint``."""
    from schemas.codec import decode

    try:
        if path.stat().st_size > MAX_PROOF_BYTES:
            raise AuditError(f"{path}: larger than {MAX_PROOF_BYTES:,} bytes: not a proof")
        proof = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise AuditError(f"{path}: cannot read the proof: {exc}") from exc
    if not isinstance(proof, dict) or proof.get("format") != PROOF_FORMAT:
        raise AuditError(f"{path}: not a Catwalk inclusion proof ({PROOF_FORMAT})")
    verifier, source, pinned = _key(data, key)
    if not pinned:
        print(f"verify: checking with {source}; a proof is only as good as the key you pin",
              file=sys.stderr)
    events = proof.get("events")
    shared = "checkpoint" in proof or not isinstance(events, list) or not all(
        isinstance(item, dict) and "checkpoint" in item for item in events)
    opened: dict[str, Checkpoint] = {}
    if shared:
        try:
            opened[""] = open_signed(str(proof.get("checkpoint", "")), verifier)
        except CheckpointError as exc:
            print(f"verify: FAILED: {path}: its checkpoint: {exc}", file=sys.stderr)
            return 1
    round_id = proof.get("round_id")
    if not isinstance(events, list) or not events:
        print(f"verify: FAILED: {path}: proves no event", file=sys.stderr)
        return 1
    for n, item in enumerate(events, start=1):
        own = item.get("checkpoint") if isinstance(item, dict) else None
        text = "" if own is None else str(own)
        if text not in opened:
            try:
                opened[text] = open_signed(text, verifier)
            except CheckpointError as exc:
                print(f"verify: FAILED: {path} event {n}: its checkpoint: {exc}",
                      file=sys.stderr)
                return 1
        cp = opened[text]
        try:
            raw = base64.b64decode(item["leaf_input"], validate=True)
            path_hashes = [base64.b64decode(h, validate=True) for h in item["path"]]
            index = int(item["index"])
            leaf = parse_leaf_input(raw)
        except (KeyError, TypeError, ValueError, binascii.Error) as exc:
            print(f"verify: FAILED: {path} event {n}: malformed ({exc})", file=sys.stderr)
            return 1
        if not verify_inclusion(leaf_hash(raw), index, cp.size, path_hashes, cp.root):
            print(f"verify: FAILED: {path} event {n} ({leaf.coordinates}): not in the tree of "
                  f"{cp.size:,} records the checkpoint signs: the record or its path was "
                  "altered", file=sys.stderr)
            return 1
        try:
            event = decode(leaf.value)
        except Exception as exc:
            print(f"verify: FAILED: {path} event {n} ({leaf.coordinates}): the record is in "
                  f"the log but does not decode ({exc})", file=sys.stderr)
            return 1
        if event.round_id != round_id or event.event_id != item.get("event_id"):
            print(f"verify: FAILED: {path} event {n} ({leaf.coordinates}): the record is "
                  f"event {event.event_id} of round {event.round_id}, not what the proof "
                  "says", file=sys.stderr)
            return 1
    if len(opened) == 1:
        cp = next(iter(opened.values()))
        print(f"verify: OK: {len(events)} events of round {round_id} are records of the log "
              f"whose checkpoint of {cp.size:,} records, signed at {cp.signed_at}, verifies "
              f"with key {verifier.name} ({verifier.key_hash.hex()})")
        return _not_pinned(pinned)
    signed = "; ".join(f"log {c.log_id}: {c.size:,} records signed at {c.signed_at}"
                       for c in opened.values())
    print(f"verify: OK: {len(events)} events of round {round_id} are records of the log, in "
          f"{len(opened)} chains whose checkpoints ({signed}) verify with key {verifier.name} "
          f"({verifier.key_hash.hex()})")
    return _not_pinned(pinned)


def _against_topic(data: Path, topic: str, bootstrap: str | None) -> int:
    """Every message of ``topic`` must be in the log (same bytes) or in quarantine."""
    from ingest.kafka_io import NoClusterError, bootstrap_servers
    from ingest.topic_audit import TopicAuditError, missing_messages

    try:
        servers = bootstrap_servers(bootstrap)
    except NoClusterError as exc:
        print(f"verify: --against-topic: {exc}", file=sys.stderr)
        return 2
    try:
        missing, checked = missing_messages(data, topic, servers)
    except TopicAuditError as exc:
        print(f"verify: --against-topic: {exc}", file=sys.stderr)
        return 2
    if missing:
        for line in missing[:20]:
            print(f"verify: MISSING: {line}", file=sys.stderr)
        print(f"verify: FAILED: {len(missing):,} of the topic's {checked:,} messages are neither "
              "in the log nor in quarantine (or differ)", file=sys.stderr)
        return 1
    print(f"verify: OK: all {checked:,} messages of topic {topic} are in the log or in "
          "quarantine, byte for byte")
    return 0
