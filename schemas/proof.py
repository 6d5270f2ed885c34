"""Inclusion proofs of a round's events: what ties a round to the signed checkpoint.

For every event of a round, its log record (as the leaf input the Merkle tree hashes) and
the audit path to the root of the latest signed checkpoint of its chain (RFC 9162 2.1.3.1),
so that anyone holding the public key can check, with the proof alone, that each event is
a record of the log the checkpoint signs (docs/log-integrity.md). :func:`round_proof`
builds the proof from a log that verified (``schemas.log_verify.verify_data``);
:func:`check_round_proof` checks one offline (RFC 9162 2.1.3.2). ``python -m ingest prove``
and ``python -m replay round --proof`` both build their proofs here, so the two never
disagree on what a proof is.

The proof's layout (``catwalk-inclusion-proof/1``): with the lone ingest's chain,
``{"format", "round_id", "tree_size", "checkpoint", "key", "events"}``; with ingest
workers' chains each event carries its own ``chain``, ``tree_size`` and ``checkpoint``
(and the proof none), in the order of (topic, partition, offset). Each event:
``{"index", "event_id", "kind", "coordinates", "leaf_input", "path"}``, the leaf input and
the path's hashes in base64.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from schemas.checkpoint import Checkpoint, CheckpointError, Verifier, open_signed
from schemas.log_verify import LOG_ERRORS, DataVerdict, LogVerdict
from schemas.logformat import Chain, LogRecord, leaf_input, parse_leaf_input, read_log
from schemas.merkle import Levels, leaf_hash, verify_inclusion

PROOF_FORMAT = "catwalk-inclusion-proof/1"


class ProofError(Exception):
    """No proof can be given; the message says why and what to do."""


def _fields(rec: LogRecord) -> dict[str, Any]:
    return {"position": rec.position, "topic": rec.topic, "partition": rec.partition,
            "offset": rec.offset, "timestamp_ms": rec.timestamp_ms, "key": rec.key,
            "value": rec.value, "headers": rec.headers}


def _of_round(rec: LogRecord, round_id: str, needle: bytes, casino: str | None,
              table_id: str | None) -> tuple[str, str] | None:
    """(event id, kind) when the record is an event of the round, else None. The round id's
    bytes must appear in the Avro body (strings are written as they are), so a record that
    lacks them is not decoded."""
    from schemas.codec import decode

    if needle not in rec.value:
        return None
    try:
        event = decode(rec.value)
    except Exception:  # a record that does not decode is in no round
        return None
    if event.round_id != round_id or (casino is not None and event.casino != casino) or (
            table_id is not None and event.table_id != table_id):
        return None
    return event.event_id, event.kind


def _proved(chain: Chain, verdict: LogVerdict, round_id: str, casino: str | None,
            table_id: str | None) -> tuple[list[dict[str, Any]], int]:
    """The proofs of the round's events in one chain against its latest signed checkpoint,
    and how many of its events the chain holds (those after the checkpoint are not proved).
    The chain is read once."""
    assert verdict.checkpoint is not None
    size = verdict.checkpoint.size
    needle = round_id.encode("utf-8")
    leaves: list[bytes] = []
    found: list[tuple[dict[str, Any], str, str]] = []
    try:
        for rec in read_log(chain.log):
            fields = _fields(rec)
            leaves.append(leaf_hash(leaf_input(**fields)))
            mine = _of_round(rec, round_id, needle, casino, table_id)
            if mine is not None:
                found.append((fields, *mine))
    except LOG_ERRORS as exc:
        raise ProofError(f"the log changed while it was read: {exc}") from exc
    if not found:
        return [], 0
    levels = Levels(leaves[:size])
    events = []
    for fields, event_id, kind in found:
        position = fields["position"]
        if position >= size:
            continue
        events.append({
            "index": position, "event_id": event_id, "kind": kind,
            "coordinates": f"{fields['topic']}[{fields['partition']}]@{fields['offset']}",
            "leaf_input": base64.b64encode(leaf_input(**fields)).decode(),
            "path": [base64.b64encode(h).decode() for h in levels.path(position, size)],
        })
    return events, len(found)


def round_proof(verdict: DataVerdict, round_id: str, *, casino: str | None = None,
                table_id: str | None = None) -> dict[str, Any]:
    """The inclusion proofs of every event of ``round_id`` (of that casino and table when
    given, else of any), each against the latest signed checkpoint of its chain, given the
    verdict of a log that verified (every chain of it). ProofError when the log did not
    verify, or holds no event of the round.

    The lone ingest's chain: ``tree_size`` and ``checkpoint`` are the proof's. Several
    chains: each event carries its own ``chain`` (the worker's name), ``tree_size`` and
    ``checkpoint``, in the order of (topic, partition, offset)."""
    if not verdict.ok or (verdict.lone and (verdict.checkpoint is None
                                            or verdict.checkpoint_text is None)):
        raise ProofError(f"the log does not verify, so no proof is given: {verdict.line()}")
    events: list[dict[str, Any]] = []
    held = 0
    for chain, chained in verdict.chains:
        if chained.checkpoint is None or chained.checkpoint_text is None:
            continue  # a worker's chain with nothing written yet
        proved, count = _proved(chain, chained, round_id, casino, table_id)
        held += count
        for event in proved:
            if not verdict.lone:
                event.update(chain=chain.name or "-", tree_size=chained.checkpoint.size,
                             checkpoint=chained.checkpoint_text)
            events.append(event)
    if not held:
        raise ProofError(f"round {round_id!r} has no event in the log (check the round id; "
                         "`python -m replay table TABLE_ID --last 10` lists a table's rounds)")
    if verdict.lone:
        assert verdict.checkpoint is not None
        return {"format": PROOF_FORMAT, "round_id": round_id,
                "tree_size": verdict.checkpoint.size, "checkpoint": verdict.checkpoint_text,
                "key": verdict.key.vkey, "events": events}
    events.sort(key=_kafka_order)
    return {"format": PROOF_FORMAT, "round_id": round_id, "key": verdict.key.vkey,
            "events": events}


def _kafka_order(event: dict[str, Any]) -> tuple[str, int, int]:
    leaf = parse_leaf_input(base64.b64decode(event["leaf_input"]))
    return leaf.topic, leaf.partition, leaf.offset


@dataclass(frozen=True, slots=True, kw_only=True)
class ProofCheck:
    """What checking a proof found: how many of its events were proved, the checkpoints
    they were proved against (their signatures verified), and the first problem (None when
    every event was proved)."""

    events: int
    proved: int
    checkpoints: tuple[Checkpoint, ...]
    problem: str | None

    @property
    def ok(self) -> bool:
        return self.problem is None and self.events > 0 and self.proved == self.events


def _events(proof: Mapping[str, Any]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    events = proof.get("events")
    if isinstance(events, list):
        for n, item in enumerate(events, start=1):
            yield n, item if isinstance(item, Mapping) else {}


def check_round_proof(proof: object, verifier: Verifier) -> ProofCheck:
    """Check a proof offline: each event's checkpoint (its own, or the proof's) must be
    signed by ``verifier``'s key, its path must lead from the record to that checkpoint's
    root (RFC 9162 2.1.3.2), and the record must decode to the event of the round the proof
    names. Stops at the first problem, naming the event and its log coordinates."""
    from schemas.codec import decode

    if not isinstance(proof, Mapping) or proof.get("format") != PROOF_FORMAT:
        return ProofCheck(events=0, proved=0, checkpoints=(),
                          problem=f"not a Catwalk inclusion proof ({PROOF_FORMAT})")
    round_id = proof.get("round_id")
    listed = list(_events(proof))
    opened: dict[str, Checkpoint] = {}
    proved = 0

    def done(problem: str | None) -> ProofCheck:
        return ProofCheck(events=len(listed), proved=proved,
                          checkpoints=tuple(opened.values()), problem=problem)

    if not listed:
        return done("the proof proves no event")
    for n, item in listed:
        text = str(item.get("checkpoint", proof.get("checkpoint", "")))
        if text not in opened:
            try:
                opened[text] = open_signed(text, verifier)
            except CheckpointError as exc:
                return done(f"event {n}: its checkpoint: {exc}")
        cp = opened[text]
        try:
            raw = base64.b64decode(item["leaf_input"], validate=True)
            path = [base64.b64decode(h, validate=True) for h in item["path"]]
            index = int(item["index"])
            leaf = parse_leaf_input(raw)
        except (KeyError, TypeError, ValueError, binascii.Error) as exc:
            return done(f"event {n}: malformed ({exc})")
        if not verify_inclusion(leaf_hash(raw), index, cp.size, path, cp.root):
            return done(f"event {n} ({leaf.coordinates}): not in the tree of {cp.size:,} "
                        "records the checkpoint signs: the record or its path was altered")
        try:
            event = decode(leaf.value)
        except Exception as exc:
            return done(f"event {n} ({leaf.coordinates}): the record is in the log but does "
                        f"not decode ({exc})")
        if event.round_id != round_id or event.event_id != item.get("event_id"):
            return done(f"event {n} ({leaf.coordinates}): the record is event "
                        f"{event.event_id} of round {event.round_id}, not what the proof says")
        proved += 1
    return done(None)
