"""The proof of a dispute report: the round's events tied to the signed checkpoint.

Reads the log under the data directory, verifies it with the public key (every chain:
schemas/log_verify.py), builds the inclusion proof of each of the round's events
(schemas/proof.py :func:`~schemas.proof.round_proof`, the proof ``python -m ingest prove``
gives) and checks it offline (:func:`~schemas.proof.check_round_proof`, RFC 9162 2.1.3.2).
The proof is of the round whole (its table's sequence numbers contiguous from RoundStarted
to RoundEnded), of the report's casino and table. The report's proof is verified only when
every event of its timeline is proved: an event
recorded after the latest checkpoint, or a timeline that is not the log's, is said to be
unproved, never passed over. Reading and hashing the whole log is slow on a big log, so a
report is proved only on demand (``python -m replay round --proof``, the dashboard's
button).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from replay.dispute_views import ProofView, RoundReport
from schemas.checkpoint import CheckpointError
from schemas.keyring import NOT_PINNED, log_key
from schemas.log_verify import verify_data
from schemas.proof import ProofError, check_round_proof, round_proof


def _none(line: str, key: str | None = None) -> ProofView:
    return ProofView(verified=False, line=line, tree_size=None, checkpoint=None, key=key,
                     events=())


def prove_round(data: Path, *, casino: str, table_id: str, round_id: str,
                event_ids: tuple[str, ...], key: str | None = None) -> ProofView:
    """The proof of the round's events (``event_ids``: those its timeline shows) against the
    latest signed checkpoint of the log under ``data``, checked with ``key`` (the public
    key's text or a file; default the keyring ``CATWALK_TRUSTED_KEYS`` names, else
    ``keys/signing.pub`` under ``data``: the proof is then not verified, "unverified: key not
    pinned")."""
    try:
        verifier, choice = log_key(data, key)
    except CheckpointError as exc:
        return _none(f"no proof: no public key to check the log with ({exc}); give yours with "
                     "--key")
    vkey = verifier.vkey
    if not (data / "log").is_dir():
        return _none(f"no proof: no log at {data / 'log'} to prove the round against (the "
                     "proof reads the log itself)", vkey)
    verdict = verify_data(data, verifier)
    try:
        proof = round_proof(verdict, round_id, casino=casino, table_id=table_id)
    except ProofError as exc:
        return _none(f"no proof: {exc}", vkey)
    check = check_round_proof(proof, verifier)
    events: tuple[Mapping[str, Any], ...] = tuple(proof["events"])
    proved_ids = {e["event_id"] for e in events}
    missing = [i for i in event_ids if i not in proved_ids]
    whose = "checked with the key given" if key is not None else f"checked with {choice.source}"
    if check.checkpoints and len(check.checkpoints) == 1:
        cp = check.checkpoints[0]
        against = (f"the checkpoint signed at {cp.signed_at} (tree size {cp.size:,}) with key "
                   f"{verifier.name} ({verifier.key_hash.hex()})")
    else:
        against = (f"the checkpoints of {len(check.checkpoints)} chains with key "
                   f"{verifier.name} ({verifier.key_hash.hex()})")
    if check.problem is not None:
        line = (f"NOT PROVED: {check.proved} of {check.events} events checked before the "
                f"proof failed: {check.problem}")
    elif missing:
        line = (f"NOT PROVED: {len(event_ids) - len(missing)} of the round's {len(event_ids)} "
                f"events proved against {against}; not in the signed log: "
                f"{', '.join(missing)} (recorded after the latest checkpoint, or these outputs "
                "are not of this log: run `python -m replay` again)")
    else:
        line = (f"{check.proved} of {len(event_ids)} events proved against {against}; "
                f"{check.words()}; {whose}")
    text = proof.get("checkpoint")
    if text is None:
        texts = sorted({str(e.get("checkpoint")) for e in events if e.get("checkpoint")})
        text = "\n".join(texts) or None
    if not choice.pinned and check.problem is None and not missing:
        line = f"{NOT_PINNED}: {line}"
    return ProofView(verified=check.ok and not missing and choice.pinned, line=line,
                     tree_size=proof.get("tree_size"), checkpoint=text, key=vkey,
                     events=events, document=proof)


def prove_report(data: Path, report: RoundReport, *, key: str | None = None) -> RoundReport:
    """``report`` with its proof (:func:`prove_round`)."""
    proof = prove_round(data, casino=report.casino, table_id=report.table_id,
                        round_id=report.round_id,
                        event_ids=tuple(e.event_id for e in report.timeline), key=key)
    return dataclasses.replace(report, proof=proof)
