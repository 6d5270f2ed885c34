"""``python -m ingest verify`` and ``python -m ingest prove``: what a regulator runs.

- ``verify`` checks the whole log offline against a public key (schemas/log_verify.py):
  every chain of it (the lone ingest's, or each ingest worker's), the checkpoints beside
  each and any checkpoint the regulator kept (``--checkpoint``, matched to its chain by its
  log id);
  ``--against-topic`` also reads the checkpoint topic whole (ingest/checkpoint_topic.py:
  every checkpoint signed by the key is checked against its chain, so a rollback shows;
  what is not one is named and skipped) and the topic (kept forever), naming every message
  the log and the quarantine both lack, and fails when either topic was deleted, trimmed
  past the log or compacted (ingest/topic_audit.py); ``--proof FILE`` checks an inclusion
  proof offline, with no log at all, and ``--consistency FILE`` a consistency proof;
  ``--witness KEY`` requires each ``--checkpoint`` to carry a cosignature by that witness
  (ingest/witness.py).
- ``consistency OLD [NEW]`` prints the consistency proof (RFC 9162 2.1.4) between two
  signed checkpoints of the log (schemas/consistency.py).
- ``prove ROUND_ID [--casino C --table T]`` prints, for every event of a round, its record
  and the audit path that ties it to the latest signed checkpoint of its chain (RFC 9162
  2.1.3), as JSON, and shows the round whole (its table's sequence numbers contiguous from
  RoundStarted to RoundEnded) or refuses, naming the gap; a round id held at several
  tables is refused until ``--casino``/``--table`` say which. With the lone ingest's chain
  the proof names one checkpoint (``checkpoint``); with workers' chains each event carries
  its chain's (``chain`` and ``checkpoint`` in the event).

Exit codes: 0 verified; 1 the log, a checkpoint or a proof does not verify (the first
problem is named); 2 the command cannot run (bad arguments, unreadable files, no broker);
3 it verifies, but only with the key found beside the log (no ``--key`` and no keyring
``CATWALK_TRUSTED_KEYS``): "unverified: key not pinned", which proves only that the
directory agrees with itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schemas.checkpoint import CheckpointError, Verifier, read_verifier, shown
from schemas.log_verify import DataVerdict, verify_data
from schemas.proof import (
    FORMATS,
    PRESENCE_FORMAT,
    PROOF_FORMAT,
    ProofError,
    check_round_proof,
    round_proof,
)

if TYPE_CHECKING:
    from ingest.checkpoint_topic import History

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
                   proof: Path | None, against_topic: str | None, bootstrap: str | None,
                   consistency: Path | None = None, witnesses: list[str] | None = None) -> int:
    if consistency is not None:
        return check_consistency_file(consistency, key, witnesses or [])
    if witnesses:
        failed = check_witnessed(checkpoint_files, witnesses)
        if failed is not None:
            return failed
    try:
        if proof is not None:
            return _check_proof(proof, data, key)
        history = _history(data, key, against_topic, bootstrap) if against_topic else None
        verdict, source = verify(data, key=key, checkpoint_files=checkpoint_files,
                                 witnessed=None if history is None else history.checkpoints)
        pinned = _key(data, key)[2]
    except AuditError as exc:
        print(f"verify: {exc}", file=sys.stderr)
        return 2
    if not verdict.ok:
        print(f"verify: {verdict.line()}", file=sys.stderr)
        print("verify: the log cannot be trusted as it stands: keep this directory as it is "
              "(evidence) and compare it with the topic (--against-topic) and the "
              "checkpoints your regulator holds (docs/log-integrity.md)", file=sys.stderr)
    else:
        print(f"verify: {verdict.line()}")
        for finding in verdict.findings:  # the log holds, but a reader must be told
            print(f"verify: finding: {finding}")
        print(f"verify: checked with {source}")
    code = 0 if verdict.ok else 1
    if against_topic is not None and history is not None:  # named even when the log fails
        topic = _against_topic(data, against_topic, bootstrap, verdict, history)
        code = code or topic
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


def _history(data: Path, key: str | None, topic: str, bootstrap: str | None) -> History:
    """The checkpoint topic of ``topic`` read whole (ingest/checkpoint_topic.py): the
    witness outside the data directory that shows a removed tail. Each message skipped
    (a tombstone, garbage) is named here, and counted."""
    from ingest.checkpoint_topic import checkpoint_topic, read_history
    from ingest.kafka_io import NoClusterError, bootstrap_servers
    from ingest.topic_audit import TopicAuditError

    verifier = _key(data, key)[0]
    try:
        history = read_history(bootstrap_servers(bootstrap), topic, verifier)
    except (NoClusterError, TopicAuditError) as exc:
        raise AuditError(f"--against-topic: cannot read {checkpoint_topic(topic)}: {exc}") from exc
    for skipped in history.named:
        print(f"verify: skipped: {skipped.line()}", file=sys.stderr)
    more = sum(history.skipped.values()) - len(history.named)
    if more > 0:
        print(f"verify: skipped: {more:,} more messages of {checkpoint_topic(topic)} (counted "
              "below)", file=sys.stderr)
    return history


def prove(data: Path, round_id: str, *, key: str | None, casino: str | None = None,
          table_id: str | None = None) -> dict[str, Any]:
    """The proof of round ``round_id`` (at ``casino`` and ``table_id``, which a round id held
    at several tables needs), once the log (every chain) verifies: each event against the
    latest signed checkpoint of its chain, and the round shown whole, its table's sequence
    numbers contiguous from its RoundStarted to its RoundEnded (schemas/proof.py
    :func:`~schemas.proof.round_proof`, which ``python -m replay round --proof`` uses too).

    The lone ingest's chain: ``tree_size`` and ``checkpoint`` are the proof's, as always.
    Several chains: each event carries its own ``chain`` (the worker's name), ``tree_size``
    and ``checkpoint``, in the order of (topic, partition, offset)."""
    verdict, _ = verify(data, key=key, checkpoint_files=[], quiet=True)
    try:
        return round_proof(verdict, round_id, casino=casino, table_id=table_id)
    except ProofError as exc:
        raise AuditError(str(exc)) from exc


def prove_command(data: Path, round_id: str | None, *, key: str | None, out: Path | None,
                  casino: str | None = None, table_id: str | None = None) -> int:
    if not round_id:
        print("prove: which round? python -m ingest prove ROUND_ID [--casino C --table T]",
              file=sys.stderr)
        return 2
    try:
        proof = prove(data, round_id, key=key, casino=casino, table_id=table_id)
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
        whole = proof["complete"]
        print(f"prove: {len(proof['events'])} events of round {round_id} (casino "
              f"{proof['casino']} table {proof['table_id']}) proved against {against}, "
              f"complete: table_seq {whole['first_seq']}-{whole['last_seq']}; written to "
              f"{out}. Check it with python -m ingest verify --proof {out} --key <public key>",
              file=sys.stderr)
    return 0


def _check_proof(path: Path, data: Path, key: str | None) -> int:
    """Check a proof offline (schemas/proof.py :func:`~schemas.proof.check_round_proof`):
    the checkpoints' signatures, each event's path to its root, that each record is an
    event of the round, casino and table the proof names, and that the round is whole (its
    sequence numbers contiguous from its RoundStarted to its RoundEnded). A proof of the
    first format is checked for presence and said to be presence only."""
    try:
        if path.stat().st_size > MAX_PROOF_BYTES:
            raise AuditError(f"{path}: larger than {MAX_PROOF_BYTES:,} bytes: not a proof")
        proof = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise AuditError(f"{path}: cannot read the proof: {shown(str(exc))}") from exc
    if not isinstance(proof, dict) or proof.get("format") not in FORMATS:
        raise AuditError(f"{path}: not a Catwalk inclusion proof ({PROOF_FORMAT}, or "
                         f"{PRESENCE_FORMAT})")
    verifier, source, pinned = _key(data, key)
    if not pinned:
        print(f"verify: checking with {source}; a proof is only as good as the key you pin",
              file=sys.stderr)
    check = check_round_proof(proof, verifier)
    if not check.ok:
        print(f"verify: FAILED: {path}: {check.problem or 'proves no event'}", file=sys.stderr)
        return 1
    round_id = proof.get("round_id")  # each record decoded to this round: a real id
    if len(check.checkpoints) == 1:
        cp = check.checkpoints[0]
        print(f"verify: OK: {check.events} events of round {round_id} are records of the "
              f"log whose checkpoint of {cp.size:,} records, signed at {cp.signed_at}, "
              f"verifies with key {verifier.name} ({verifier.key_hash.hex()})")
    else:
        signed = "; ".join(f"log {c.log_id}: {c.size:,} records signed at {c.signed_at}"
                           for c in check.checkpoints)
        print(f"verify: OK: {check.events} events of round {round_id} are records of the "
              f"log, in {len(check.checkpoints)} chains whose checkpoints ({signed}) verify "
              f"with key {verifier.name} ({verifier.key_hash.hex()})")
    at = ("" if check.presence_only else
          f" at casino {proof['casino']} table {proof['table_id']}")
    print(f"verify: round {round_id}{at}: {check.words()}")
    return _not_pinned(pinned)


def _against_topic(data: Path, topic: str, bootstrap: str | None, verdict: DataVerdict,
                   history: History) -> int:
    """The two topics as witnesses: the checkpoint topic whole (deleted, trimmed or compacted
    is a failure), and every message of ``topic`` in the log (same bytes) or in quarantine,
    with the topic neither trimmed past what the log holds, recreated, compacted nor deleted
    (ingest/topic_audit.py). Every failure is named, one line each; exit 1 if any."""
    from ingest.kafka_io import NoClusterError, bootstrap_servers
    from ingest.topic_audit import TopicAuditError, audit_topic

    try:
        servers = bootstrap_servers(bootstrap)
    except NoClusterError as exc:
        print(f"verify: --against-topic: {exc}", file=sys.stderr)
        return 2
    signed = [(c.label, v.checkpoint) for c, v in verdict.chains if v.checkpoint is not None]
    taken = sorted({name.rpartition("[")[0] for _, cp in signed for name in cp.next_offsets})
    if taken and topic not in taken:
        print(f"verify: --against-topic: the log was not taken from topic {topic} (its signed "
              f"checkpoints name {', '.join(taken)}): check the topic's name", file=sys.stderr)
        return 2
    failures = history.problems(signed)
    state = history.state
    if state.exists:
        print(f"verify: checkpoint topic {state.topic}: {state.settings()}")
    try:
        audit = audit_topic(verdict, topic, servers)
    except TopicAuditError as exc:
        for line in failures:
            print(f"verify: FAILED: {line}", file=sys.stderr)
        print(f"verify: --against-topic: {exc}", file=sys.stderr)
        return 1 if failures else 2
    for line in audit.notes:
        print(f"verify: note: {line}", file=sys.stderr)
    failures += audit.failures
    for line in audit.missing[:20]:
        print(f"verify: MISSING: {line}", file=sys.stderr)
    if audit.missing:
        failures.append(f"{len(audit.missing):,} of the topic's {audit.checked:,} messages are "
                        "neither in the log nor in quarantine (or differ)")
    if failures:
        if state.exists:
            print(f"verify: checkpoint topic {state.topic}: {history.summary()}",
                  file=sys.stderr)
        for line in failures:
            print(f"verify: FAILED: {line}", file=sys.stderr)
        return 1
    largest = "; ".join(f"log {w.log_id}: {w.size:,} records at {w.where}"
                        for w in history.largest().values())
    print(f"verify: OK: checkpoint topic {state.topic}: {history.summary()}; the log holds "
          f"the records of every one, with its root (the largest: {largest or 'none'})")
    print(f"verify: topic {topic}: {audit.state.settings()}")
    print(f"verify: OK: all {audit.checked:,} messages of topic {topic} are in the log or in "
          "quarantine, byte for byte")
    return 0


def consistency_command(data: Path, old: str | None, new: str | None, *, key: str | None,
                        out: Path | None) -> int:
    """``python -m ingest consistency OLD [NEW]``: the consistency proof (RFC 9162 2.1.4)
    from the signed checkpoint in file OLD to the one in NEW (by default the latest
    checkpoint of the chain carrying OLD's log id), once the log verifies with both among
    its checkpoints (schemas/consistency.py). Exit 1 when the log does not verify with
    them (rewritten, cut or forked), 2 when the command cannot run."""
    from schemas.consistency import ConsistencyError, consistency_proof_of

    if not old:
        print("consistency: which checkpoint? python -m ingest consistency OLD_CHECKPOINT "
              "[NEW_CHECKPOINT]", file=sys.stderr)
        return 2
    try:
        files = [Path(old), *([Path(new)] if new else [])]
        texts = _checkpoints(files)
        verdict, source = verify(data, key=key, checkpoint_files=files, quiet=True)
    except AuditError as exc:
        print(f"consistency: {exc}", file=sys.stderr)
        return 2
    if not verdict.ok:
        print(f"consistency: FAILED: the log does not verify with the checkpoints given: "
              f"{verdict.line()}", file=sys.stderr)
        return 1
    try:
        doc = consistency_proof_of(verdict, texts[0][1], texts[1][1] if new else None)
    except ConsistencyError as exc:
        print(f"consistency: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(doc, indent=2) + "\n"
    if out is None:
        sys.stdout.write(text)
    else:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"consistency: --out {out}: {exc}", file=sys.stderr)
            return 2
    print(f"consistency: proof from {doc['old_size']:,} to {doc['new_size']:,} records of "
          f"{doc['origin']} ({len(doc['proof'])} hashes), the log checked with {source}"
          + (f"; written to {out}. Check it with python -m ingest verify --consistency {out} "
             "--key <public key>" if out is not None else ""), file=sys.stderr)
    return 0


def check_consistency_file(path: Path, key: str | None, witnesses: list[str]) -> int:
    """``verify --consistency FILE --key KEY``: check a consistency proof offline, with no
    log: both signatures, one log, the old not larger than the new, the proof; with
    ``--witness``, the new checkpoint cosigned by each witness named."""
    from schemas.consistency import MAX_CONSISTENCY_BYTES, check_consistency

    try:
        if key is None:
            raise AuditError("--consistency needs --key: the log's public key you pinned (a "
                             "proof is only as good as the key it is checked with)")
        verifier = read_verifier(key)
        cosigners = _witness_keys(witnesses)
        if path.stat().st_size > MAX_CONSISTENCY_BYTES:
            raise AuditError(f"{path}: larger than {MAX_CONSISTENCY_BYTES:,} bytes: not a "
                             "consistency proof")
        doc = json.loads(path.read_text(encoding="utf-8"))
    except CheckpointError as exc:
        print(f"verify: --key: {exc}", file=sys.stderr)
        return 2
    except AuditError as exc:
        print(f"verify: {exc}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        print(f"verify: {path}: cannot read the consistency proof: {exc}", file=sys.stderr)
        return 2
    check = check_consistency(doc, verifier)
    if not check.ok:
        print(f"verify: {path}: {check.line()}", file=sys.stderr)
        return 1
    problem = _uncosigned(str(doc.get("new_checkpoint")), cosigners)
    if problem is not None:
        print(f"verify: FAILED: {path}: its new checkpoint: {problem}", file=sys.stderr)
        return 1
    print(f"verify: {check.line()}; checked with key {verifier.name} "
          f"({verifier.key_hash.hex()})"
          + (f", cosigned by {', '.join(w.name for w in cosigners)}" if cosigners else ""))
    return 0


def _witness_keys(given: list[str]) -> list[Any]:
    """The witness keys given with --witness (their text, or files holding it)."""
    from schemas.cosignature import WitnessKey

    keys = []
    for text in given:
        source = text
        if "+" not in text or Path(text).is_file():
            from schemas.keyfile import read_small  # regular files only, never a FIFO

            try:
                source = read_small(Path(text), "witness key", follow=True)
            except CheckpointError as exc:
                raise AuditError(f"--witness: {exc}") from exc
        try:
            keys.append(WitnessKey.from_vkey(source))
        except CheckpointError as exc:
            raise AuditError(f"--witness: {exc}") from exc
    return keys


def _uncosigned(note: str, witnesses: list[Any]) -> str | None:
    """Why ``note`` lacks a valid cosignature of one of ``witnesses`` (None when it has
    each)."""
    for witness in witnesses:
        try:
            witness.cosigned_at(note)
        except CheckpointError as exc:
            return str(exc)
    return None


def check_witnessed(files: list[Path], witnesses: list[str]) -> int | None:
    """``verify --witness``: each checkpoint given with --checkpoint must carry a valid
    cosignature by each witness named. None when they do (verify goes on, and checks the
    log against them), else the exit code, the reason said."""
    try:
        keys = _witness_keys(witnesses)
        if not files:
            raise AuditError("--witness needs the cosigned checkpoints to check: "
                             "--checkpoint FILE (what the witness wrote)")
        texts = _checkpoints(files)
    except AuditError as exc:
        print(f"verify: {exc}", file=sys.stderr)
        return 2
    for name, text in texts:
        problem = _uncosigned(text, keys)
        if problem is not None:
            print(f"verify: FAILED: {name}: {problem}; the log is not shown consistent with "
                  "what that witness saw", file=sys.stderr)
            return 1
    print(f"verify: {len(texts)} checkpoint(s) cosigned by "
          f"{', '.join(f'{k.name} ({k.key_id.hex()})' for k in keys)}")
    return None
