"""Consistency proofs between two signed checkpoints: the log only grew between them.

A regulator who kept an old checkpoint (``checkpoints/latest.checkpoint`` taken at a visit,
or one a witness cosigned) learns from a consistency proof (RFC 9162 2.1.4) that the log of
a newer checkpoint holds the same records first, unchanged, and only more after them: no
record was removed, altered or reordered, and the log was not forked, without reading the
log again (docs/log-integrity.md, "Consistency proofs and witnesses").

The file (``catwalk-consistency-proof/1``, JSON) holds both signed notes as they were given
(a cosigned note keeps its witnesses' lines) and the proof's hashes::

    {"format": "catwalk-consistency-proof/1", "log_id": "...", "origin": "...",
     "old_size": 140304, "new_size": 1140304,
     "old_checkpoint": "<signed note>", "new_checkpoint": "<signed note>",
     "proof": ["<base64 hash>", ...], "key": "<verifier key of the log's signer>"}

``key`` says which key signed the notes; a verifier checks with the key it pinned, never
with this one. :func:`consistency_proof_of` builds the file from a log that verified
(``schemas.log_verify.verify_data``, given both checkpoints so that each was matched to the
log): the tree's leaves come from reading the log (``schemas.logformat.read_log``,
``leaf_input`` and ``leaf_hash``, as ``schemas.proof`` reads them) and the perfect subtrees
each segment header keeps (``catwalk.tree``), so that the proof hashes only the nodes near
a segment's end; the proof made is checked against both signed roots before it is given.
:func:`check_consistency` checks a file offline with a verifier key: both signatures, one
log (the same log id and origin), the old not larger than the new, and the proof.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from schemas.checkpoint import Checkpoint, CheckpointError, Verifier, open_signed
from schemas.log_verify import LOG_ERRORS, DataVerdict
from schemas.logformat import META_TREE, Chain, leaf_input, read_segment, segment_metadata, segments
from schemas.merkle import Subtrees, Tree, consistency_proof, leaf_hash, verify_consistency

CONSISTENCY_FORMAT = "catwalk-consistency-proof/1"
MAX_CONSISTENCY_BYTES = 1024 * 1024
"""No consistency proof is longer than this (two notes and at most 128 hashes)."""


_READ_ERRORS: tuple[type[BaseException], ...] = (*LOG_ERRORS, KeyError, TypeError, ValueError)


class ConsistencyError(Exception):
    """No consistency proof can be given; the message says why and what to do."""


def read_tree(chain: Chain) -> Subtrees:
    """The nodes of a chain's Merkle tree: every record's leaf hash, read from the log, and
    the perfect subtrees its segment headers keep. ConsistencyError when a segment cannot
    be read (the log changed since it was verified)."""
    leaves: list[bytes] = []
    trees: list[Tree] = []
    try:
        for seg in segments(chain.log):
            for rec in read_segment(seg):
                leaves.append(leaf_hash(leaf_input(
                    position=rec.position, topic=rec.topic, partition=rec.partition,
                    offset=rec.offset, timestamp_ms=rec.timestamp_ms, key=rec.key,
                    value=rec.value)))
            kept = json.loads(segment_metadata(seg).get(META_TREE, "null"))
            if isinstance(kept, dict):
                trees.append(Tree(int(kept["size"]),
                                  [bytes.fromhex(h) for h in kept["subtrees"]]))
    except _READ_ERRORS as exc:
        raise ConsistencyError(f"{chain.label}: the log changed while it was read: {exc}") from exc
    nodes = Subtrees(leaves)
    for tree in trees:
        if tree.size <= len(leaves):
            nodes.add(tree)
    return nodes


def _opened(what: str, text: str, key: Verifier) -> Checkpoint:
    try:
        return open_signed(text, key)
    except CheckpointError as exc:
        raise ConsistencyError(f"the {what} checkpoint: {exc}") from exc


def consistency_proof_of(verdict: DataVerdict, old_text: str, new_text: str | None = None,
                         ) -> dict[str, Any]:
    """The consistency proof from the signed checkpoint ``old_text`` to ``new_text`` (by
    default the latest checkpoint of the chain that carries the old one's log id), given
    the verdict of a log that verified with both checkpoints among those it was given.
    ConsistencyError when the log did not verify, when no chain has that log id, when the
    old checkpoint is the larger, or when the tree read does not give a signed root (the
    log changed since it verified)."""
    if not verdict.ok:
        raise ConsistencyError(f"the log does not verify, so no proof is given: "
                               f"{verdict.line()}")
    old = _opened("old", old_text, verdict.key)
    found = next(((c, v) for c, v in verdict.chains
                  if v.checkpoint is not None and v.checkpoint.log_id == old.log_id), None)
    if found is None:
        raise ConsistencyError(
            f"the old checkpoint is of log {old.log_id}, which no chain of this data directory "
            "is (" + ", ".join(f"{c.label} {v.checkpoint.log_id if v.checkpoint else '-'}"
                               for c, v in verdict.chains) + ")")
    chain, chained = found
    if new_text is None:
        assert chained.checkpoint_text is not None
        new_text = chained.checkpoint_text
    new = _opened("new", new_text, verdict.key)
    if new.log_id != old.log_id:
        raise ConsistencyError(f"the checkpoints are of two logs ({old.log_id} and "
                               f"{new.log_id})")
    if old.size > new.size:
        raise ConsistencyError(
            f"the old checkpoint covers {old.size:,} records, more than the new one "
            f"({new.size:,}): give the older first (OLD then NEW)")
    nodes = read_tree(chain)
    if new.size > nodes.size:
        raise ConsistencyError(f"the new checkpoint covers {new.size:,} records but "
                               f"{chain.label} holds {nodes.size:,}")
    for what, cp in (("old", old), ("new", new)):
        if nodes.root(cp.size) != cp.root:
            raise ConsistencyError(
                f"{chain.label}: its first {cp.size:,} records do not give the root the "
                f"{what} checkpoint signed at {cp.signed_at}: the log changed since it "
                "verified, or the checkpoint is not of this log")
    proof = consistency_proof(nodes, old.size, new.size)
    if not verify_consistency(old.size, new.size, old.root, new.root, proof):
        raise ConsistencyError(f"{chain.label}: the proof made from {old.size:,} to "
                               f"{new.size:,} records does not verify: the log changed "
                               "while it was read")
    return {"format": CONSISTENCY_FORMAT, "log_id": old.log_id, "origin": old.origin,
            "old_size": old.size, "new_size": new.size,
            "old_checkpoint": old_text, "new_checkpoint": new_text,
            "proof": [base64.b64encode(h).decode() for h in proof],
            "key": verdict.key.vkey}


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsistencyCheck:
    """What checking a consistency proof found: both checkpoints once their signatures
    verified (None before), and the first problem (None when the proof holds)."""

    old: Checkpoint | None
    new: Checkpoint | None
    problem: str | None

    @property
    def ok(self) -> bool:
        return self.problem is None and self.old is not None and self.new is not None

    def line(self) -> str:
        """One line for a person: what the proof shows, or the first problem."""
        if not self.ok or self.old is None or self.new is None:
            return f"FAILED: {self.problem}"
        return (f"OK: the log {self.new.origin} of {self.new.size:,} records (root "
                f"{self.new.root.hex()}, signed at {self.new.signed_at}) holds the "
                f"{self.old.size:,} records of its checkpoint signed at {self.old.signed_at} "
                f"(root {self.old.root.hex()}) unchanged, first, and "
                f"{self.new.size - self.old.size:,} more after them")


def inconsistency(old: Checkpoint, new: Checkpoint, proof: Sequence[bytes]) -> str | None:
    """Why ``new`` is not a later state of the log of ``old`` under ``proof`` (None when it
    is): another log, a smaller tree, the same size with another root, or a proof that
    does not verify. Each names both sizes and roots."""
    both = (f"old: {old.size:,} records, root {old.root.hex()}, signed at {old.signed_at}; "
            f"new: {new.size:,} records, root {new.root.hex()}, signed at {new.signed_at}")
    if new.log_id != old.log_id or new.origin != old.origin:
        return f"the checkpoints are of two logs ({old.origin} and {new.origin})"
    if new.size < old.size:
        return f"the new checkpoint is of a smaller tree: the log was cut or rolled back ({both})"
    if new.size == old.size and new.root != old.root:
        return f"two trees of one size with different roots: the log was forked ({both})"
    if not verify_consistency(old.size, new.size, old.root, new.root, proof):
        return (f"the proof does not show the old tree to be the start of the new: the log "
                f"was rewritten or forked, or the proof altered ({both})")
    return None


def check_consistency(doc: object, verifier: Verifier) -> ConsistencyCheck:
    """Check a consistency proof file (parsed JSON) offline with ``verifier``'s key."""
    if not isinstance(doc, Mapping) or doc.get("format") != CONSISTENCY_FORMAT:
        return ConsistencyCheck(old=None, new=None,
                                problem=f"not a Catwalk consistency proof ({CONSISTENCY_FORMAT})")
    opened: list[Checkpoint] = []
    for what in ("old", "new"):
        text = doc.get(f"{what}_checkpoint")
        if not isinstance(text, str):
            return ConsistencyCheck(old=None, new=None, problem=f"no {what}_checkpoint")
        try:
            opened.append(open_signed(text, verifier))
        except CheckpointError as exc:
            return ConsistencyCheck(old=opened[0] if opened else None, new=None,
                                    problem=f"the {what} checkpoint: {exc}")
    old, new = opened

    def failed(problem: str) -> ConsistencyCheck:
        return ConsistencyCheck(old=old, new=new, problem=problem)

    for what, cp in (("old", old), ("new", new)):
        stated = doc.get(f"{what}_size")
        if stated is not None and stated != cp.size:
            return failed(f"{what}_size says {stated!r} but the signed {what} checkpoint "
                          f"covers {cp.size:,} records")
    hashes = doc.get("proof")
    if not isinstance(hashes, list) or not all(isinstance(h, str) for h in hashes):
        return failed("the proof is not a list of base64 hashes")
    try:
        proof = [base64.b64decode(h, validate=True) for h in hashes]
    except binascii.Error as exc:
        return failed(f"a hash of the proof is not base64 ({exc})")
    if any(len(h) != 32 for h in proof):
        return failed("a hash of the proof is not 32 bytes (SHA-256)")
    problem = inconsistency(old, new, proof)
    return ConsistencyCheck(old=old, new=new, problem=problem)
