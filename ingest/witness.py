"""``python -m ingest witness``: a witness of the log, run by someone other than the operator.

A witness keeps, for every log it watches, the largest checkpoint it has accepted, and
accepts a new checkpoint of that log only with proof that the new tree holds the old one
unchanged at its start (an RFC 9162 2.1.4 consistency proof, given with ``--proof`` or made
from the log with ``--data``). It refuses a smaller tree (a rollback), a tree of the same
size with another root and any tree the proof does not tie to the one it kept (a fork),
naming both sizes and roots. What it accepts it cosigns (C2SP tlog-cosignature,
``schemas/cosignature.py``): the checkpoint with one more signature line, by the witness's
own key, stating that as of that time this is the largest consistent tree it has seen.
An operator who shows two different logs to two parties, or rolls the log back, cannot
get both cosigned (docs/log-integrity.md, "Consistency proofs and witnesses").

The state directory (``--state DIR``), written by the witness alone:

- ``witness.key``: its private key (mode 0600, created on first use whole or not at all,
  unless ``--witness-key`` names one), one line
  ``PRIVATE+KEY+<name>+<key ID>+<base64(0x04 || seed)>``; ``witness.pub``: its verifier
  key, ``<name>+<key ID>+<base64(0x04 || key)>``, the line to give whoever checks
  cosignatures (``python -m ingest verify --witness``);
- ``logs/<log id>.checkpoint``: the largest checkpoint accepted for that log, as cosigned,
  replaced atomically (written and fsynced under a temporary name, renamed, directory
  fsynced), so a crash leaves the old state or the new, never a mix.

The state is kept per log id, which both origin forms of a Catwalk checkpoint carry
(``schemas/checkpoint.py``), so a log cannot escape what its witness saw by changing how its
origin is written.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from schemas.checkpoint import Checkpoint, CheckpointError, Verifier, open_signed, read_verifier
from schemas.consistency import (
    MAX_CONSISTENCY_BYTES,
    ConsistencyError,
    check_consistency,
    inconsistency,
    read_tree,
)
from schemas.cosignature import COSIGNATURE_V1, Cosigner
from schemas.log_verify import verify_data
from schemas.logformat import Chain
from schemas.merkle import Subtrees, consistency_proof

DEFAULT_NAME = "catwalk-witness"
KEY_FILE = "witness.key"
PUB_FILE = "witness.pub"
LOGS = "logs"
_LOG_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")


class WitnessError(Exception):
    """The witness cannot run (exit 2): its key or state cannot be read, an argument is
    missing. The message says what and where."""


class Refused(Exception):
    """A checkpoint the witness does not accept (exit 1), and why."""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(path: Path, text: str, mode: int = 0o644) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fo:
            fo.write(text)
            fo.flush()
            os.fsync(fo.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)


def _decode_key(text: str, where: Path) -> Cosigner:
    parts = text.strip().split("+", 4)
    if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
        raise WitnessError(f"{where}: not a witness key (expected "
                           "PRIVATE+KEY+<name>+<key ID>+<key>)")
    name, digest, encoded = parts[2:]
    try:
        raw = base64.b64decode(encoded, validate=True)
    except binascii.Error as exc:
        raise WitnessError(f"{where}: the key is not base64") from exc
    if len(raw) != 33 or raw[0] != COSIGNATURE_V1:
        raise WitnessError(f"{where}: not an Ed25519 cosignature/v1 key (type 0x04)")
    cosigner = Cosigner(name, Ed25519PrivateKey.from_private_bytes(raw[1:]))
    if cosigner.key.key_id.hex() != digest:
        raise WitnessError(f"{where}: the key ID {digest} does not match the key")
    return cosigner


def _encode_key(cosigner: Cosigner) -> str:
    seed = cosigner.private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return (f"PRIVATE+KEY+{cosigner.name}+{cosigner.key.key_id.hex()}+"
            f"{base64.b64encode(bytes([COSIGNATURE_V1]) + seed).decode()}\n")


def load_cosigner(state: Path, given: Path | None = None) -> Cosigner:
    """The witness's key: the file ``given``, else ``state/witness.key``, created when
    absent (mode 0600; written and fsynced under a temporary name opened with
    O_CREAT|O_EXCL, then linked to its name, which fails if another witness process got
    there first, whose key is then read). ``state/witness.pub`` is (re)written beside it."""
    path = given or state / KEY_FILE
    if path.is_file():
        try:
            cosigner = _decode_key(path.read_text(encoding="ascii"), path)
        except (OSError, UnicodeDecodeError) as exc:
            raise WitnessError(f"{path}: cannot read the witness key: {exc}") from exc
    elif given is not None:
        raise WitnessError(f"--witness-key {given}: no such file")
    else:
        cosigner = _create_key(path)
    pub = state / PUB_FILE
    if not pub.is_file() or pub.read_text(encoding="ascii").strip() != cosigner.key.vkey:
        _write_atomic(pub, cosigner.key.vkey + "\n")
    return cosigner


def _create_key(path: Path) -> Cosigner:
    cosigner = Cosigner(DEFAULT_NAME, Ed25519PrivateKey.generate())
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fo:
            fo.write(_encode_key(cosigner))
            fo.flush()
            os.fsync(fo.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return _decode_key(path.read_text(encoding="ascii"), path)
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)
    print(f"witness: created the witness key {path} (keep it secret, off the operator's "
          f"machines). Public key: {cosigner.key.vkey}", file=sys.stderr)
    return cosigner


@dataclass(frozen=True, slots=True, kw_only=True)
class Accepted:
    """A checkpoint the witness accepted: the one it kept before (None the first time),
    the new one, and the cosigned note."""

    before: Checkpoint | None
    checkpoint: Checkpoint
    cosigned: str

    def line(self) -> str:
        cp = self.checkpoint
        if self.before is None:
            since = "the first checkpoint this witness has seen of that log"
        elif self.before.size == cp.size:
            since = "the tree it had accepted, cosigned again"
        else:
            since = (f"consistent with the {self.before.size:,} records it had accepted "
                     f"(root {self.before.root.hex()})")
        return (f"accepted {cp.origin}: {cp.size:,} records, root {cp.root.hex()}, signed at "
                f"{cp.signed_at}: {since}")


class Witness:
    """The witness of the logs signed by ``log_key``, keeping its state in ``state``."""

    def __init__(self, state: Path, log_key: Verifier, cosigner: Cosigner) -> None:
        self.state = state
        self.log_key = log_key
        self.cosigner = cosigner
        (state / LOGS).mkdir(parents=True, exist_ok=True)

    def _path(self, log_id: str) -> Path:
        if not _LOG_ID.fullmatch(log_id):
            raise Refused(f"log id {log_id[:80]!r} is not a log id (letters, digits, . _ -)")
        return self.state / LOGS / f"{log_id}.checkpoint"

    def kept(self, log_id: str) -> Checkpoint | None:
        """The largest checkpoint accepted for ``log_id``, once its log signature and this
        witness's cosignature on it verify (WitnessError otherwise: the state was altered
        or the keys changed)."""
        path = self._path(log_id)
        if not path.is_file():
            return None
        try:
            text = path.read_text(encoding="utf-8")
            self.cosigner.key.cosigned_at(text)
            return open_signed(text, self.log_key)
        except (OSError, UnicodeDecodeError, CheckpointError) as exc:
            raise WitnessError(f"{path}: the witness's own state cannot be trusted ({exc}): "
                               "restore it from a copy; never delete it to get past a "
                               "refusal") from exc

    def accept(self, text: str, *, proof: list[bytes] | None, now: int | None = None,
               ) -> Accepted:
        """Accept the signed checkpoint ``text`` and cosign it, or raise Refused. A tree
        larger than the one kept needs ``proof``, the consistency proof from the kept one
        to it; the first checkpoint of a log is accepted as it is (trust on first use)."""
        try:
            cp = open_signed(text, self.log_key)
        except CheckpointError as exc:
            raise Refused(str(exc)) from exc
        before = self.kept(cp.log_id)
        if before is not None:
            if cp.size < before.size:
                raise Refused(
                    f"rollback: this witness has accepted {before.size:,} records of "
                    f"{cp.origin} (root {before.root.hex()}, signed at {before.signed_at}); "
                    f"the checkpoint given has {cp.size:,} (root {cp.root.hex()}, signed at "
                    f"{cp.signed_at})")
            if cp.size > before.size and proof is None:
                raise WitnessError(
                    f"{cp.origin}: a consistency proof from the {before.size:,} records this "
                    f"witness accepted to the {cp.size:,} given is needed: --proof FILE "
                    f"(python -m ingest consistency OLD NEW, OLD the checkpoint of "
                    f"{before.size:,} records) or --data DATA")
            problem = inconsistency(before, cp, proof or [])
            if problem is not None:
                raise Refused(f"{cp.origin}: {problem}")
        stamp = int(time.time()) if now is None else now
        cosigned = self.cosigner.cosign(text, stamp)
        _write_atomic(self._path(cp.log_id), cosigned)
        return Accepted(before=before, checkpoint=cp, cosigned=cosigned)


def _proof_file(path: Path, log_key: Verifier) -> tuple[Checkpoint, Checkpoint, list[bytes]]:
    try:
        if path.stat().st_size > MAX_CONSISTENCY_BYTES:
            raise WitnessError(f"--proof {path}: larger than {MAX_CONSISTENCY_BYTES:,} bytes")
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise WitnessError(f"--proof {path}: cannot read the consistency proof: {exc}") from exc
    check = check_consistency(doc, log_key)
    if not check.ok or check.old is None or check.new is None:
        raise Refused(f"--proof {path}: {check.problem}")
    return check.old, check.new, [base64.b64decode(h) for h in doc["proof"]]


def witness_command(state: Path | None, *, key: str | None, witness_key: Path | None,
                    files: list[Path], data: Path | None, proof: Path | None,
                    out: Path | None) -> int:
    """Run the witness once over the checkpoints given (or, with ``--data`` alone, the
    latest checkpoint of every chain of that log); 0 when every one was accepted, 1 when
    one was refused (each is tried and said), 2 when the witness cannot run."""
    try:
        accepted, refused = _run(state, key=key, witness_key=witness_key, files=files,
                                 data=data, proof=proof)
    except WitnessError as exc:
        print(f"witness: {exc}", file=sys.stderr)
        return 2
    for item in accepted:
        print(f"witness: {item.line()}", file=sys.stderr)
    for problem in refused:
        print(f"witness: REFUSED: {problem}", file=sys.stderr)
    if accepted:
        if out is not None and len(accepted) == 1:
            try:
                out.write_text(accepted[0].cosigned, encoding="utf-8")
            except OSError as exc:
                print(f"witness: --out {out}: {exc}", file=sys.stderr)
                return 2
        else:
            if out is not None:
                print(f"witness: --out takes one checkpoint and {len(accepted)} were "
                      "accepted: they are on standard output", file=sys.stderr)
            sys.stdout.write("".join(a.cosigned for a in accepted))
    return 1 if refused else 0


def _run(state: Path | None, *, key: str | None, witness_key: Path | None, files: list[Path],
         data: Path | None, proof: Path | None) -> tuple[list[Accepted], list[str]]:
    if state is None:
        raise WitnessError("--state DIR is needed: the witness's own directory (its key, and "
                           "the largest checkpoint it accepted of every log)")
    if key is None:
        raise WitnessError("--key is needed: the log's public key you pinned (the witness "
                           "never takes a key from the directory it watches)")
    try:
        log_key = read_verifier(key)
    except CheckpointError as exc:
        raise WitnessError(f"--key: {exc}") from exc
    if not files and data is None:
        raise WitnessError("which checkpoints? give CHECKPOINT_FILE ... or --data DATA")
    try:
        state.mkdir(parents=True, exist_ok=True)
        cosigner = load_cosigner(state, witness_key)
        witness = Witness(state, log_key, cosigner)
    except OSError as exc:
        raise WitnessError(f"--state {state}: {exc}") from exc
    print(f"witness: key {cosigner.key.vkey}", file=sys.stderr)
    given: list[tuple[str, str]] = []
    for path in files:
        try:
            given.append((str(path), path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            raise WitnessError(f"{path}: cannot read the checkpoint: {exc}") from exc
    trees: dict[str, tuple[Chain, Subtrees | None]] = {}
    if data is not None:
        verdict = verify_data(data, log_key, checkpoints=given)
        if not verdict.ok:
            return [], [f"the log at {data} does not verify, so nothing of it is witnessed: "
                        f"{verdict.line()}"]
        for chain, chained in verdict.chains:
            if chained.checkpoint is None or chained.checkpoint_text is None:
                continue
            trees[chained.checkpoint.log_id] = (chain, None)
            if not files:
                given.append((f"{chain.label} (latest)", chained.checkpoint_text))
    proved = _proof_file(proof, log_key) if proof is not None else None
    accepted: list[Accepted] = []
    refused: list[str] = []
    for name, text in given:
        try:
            accepted.append(witness.accept(text, proof=_proof_for(witness, text, proved,
                                                                 trees)))
        except Refused as exc:
            refused.append(f"{name}: {exc}")
    return accepted, refused


def _proof_for(witness: Witness, text: str,
               proved: tuple[Checkpoint, Checkpoint, list[bytes]] | None,
               trees: dict[str, tuple[Chain, Subtrees | None]]) -> list[bytes] | None:
    """The consistency proof from the checkpoint kept to ``text``'s: the one given with
    --proof when it is between those two trees, else made from the log (--data), else
    None."""
    try:
        cp = open_signed(text, witness.log_key)
    except CheckpointError as exc:
        raise Refused(str(exc)) from exc
    before = witness.kept(cp.log_id)
    if before is None or before.size >= cp.size:
        return None
    if proved is not None:
        old, new, hashes = proved
        if (old.log_id, old.size, old.root, new.size, new.root) == (
                cp.log_id, before.size, before.root, cp.size, cp.root):
            return hashes
        if cp.log_id not in trees:
            raise Refused(
                f"the proof given is from {old.size:,} records (root {old.root.hex()}) to "
                f"{new.size:,} (root {new.root.hex()}), not from the {before.size:,} records "
                f"this witness accepted (root {before.root.hex()}) to the {cp.size:,} given "
                f"(root {cp.root.hex()})")
    if cp.log_id not in trees:
        return None
    chain, nodes = trees[cp.log_id]
    if nodes is None:
        try:
            nodes = read_tree(chain)
        except ConsistencyError as exc:
            raise Refused(str(exc)) from exc
        trees[cp.log_id] = (chain, nodes)
    if cp.size > nodes.size:
        raise Refused(f"the checkpoint covers {cp.size:,} records, the log read holds "
                      f"{nodes.size:,}")
    return consistency_proof(nodes, before.size, cp.size)
