"""Inclusion proofs of a round's events: what ties a round to the signed checkpoint, whole.

For every event of a round, its log record (as the leaf input the Merkle tree hashes) and
the audit path to the root of the latest signed checkpoint of its chain (RFC 9162 2.1.3.1),
so that anyone holding the public key can check, with the proof alone, that each event is
a record of the log the checkpoint signs (docs/log-integrity.md). :func:`round_proof`
builds the proof from a log that verified (``schemas.log_verify.verify_data``);
:func:`check_round_proof` checks one offline (RFC 9162 2.1.3.2). ``python -m ingest prove``
and ``python -m replay round --proof`` both build their proofs here, so the two never
disagree on what a proof is.

A proof is also a proof of completeness. Every event carries its table's own sequence
number (``table_seq``: 1, 2, 3 ... without gaps, schemas/v3/catwalk.RoundEvent.avsc), so a
round is whole when the numbers from its RoundStarted to its RoundEnded are each held by
exactly one event, every one of that round at that casino and table, and all of them are
in the proof. :func:`round_proof` refuses a round with a gap, no RoundStarted or
RoundEnded, or a foreign event inside its range, and :func:`check_round_proof` checks the
same from the decoded records alone, so a proof with an event taken out (every
WagerSettled, say) fails. A round id is proved at one casino and table only: an id held at
several is refused until ``casino`` and ``table_id`` say which.

The proof's layout (``catwalk-inclusion-proof/2``): ``{"format", "round_id", "casino",
"table_id", "complete": {"first_seq", "last_seq"}, "key", "events"}`` and, with the lone
ingest's chain, ``"tree_size"`` and ``"checkpoint"``; with ingest workers' chains each event
carries its own ``chain``, ``tree_size`` and ``checkpoint`` (and the proof none), in the
order of (topic, partition, offset). Each event: ``{"index", "event_id", "kind",
"table_seq", "coordinates", "leaf_input", "path"}``, the leaf input and the path's hashes
in base64. Proofs of ``catwalk-inclusion-proof/1`` (no casino, table or range) are still
read and checked, and said to prove presence only.
"""

from __future__ import annotations

import base64
import binascii
from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from schemas.checkpoint import Checkpoint, CheckpointError, Verifier, open_signed, shown
from schemas.log_verify import LOG_ERRORS, DataVerdict, LogVerdict
from schemas.logformat import Chain, LogRecord, leaf_input, parse_leaf_input, read_log
from schemas.merkle import Levels, leaf_hash, verify_inclusion

PROOF_FORMAT = "catwalk-inclusion-proof/2"
PRESENCE_FORMAT = "catwalk-inclusion-proof/1"
"""The first format: each event's inclusion, not the round's completeness."""
PRESENCE_ONLY = "presence only: written before proofs showed completeness"
FORMATS = (PROOF_FORMAT, PRESENCE_FORMAT)


class ProofError(Exception):
    """No proof can be given; the message says why and what to do."""


def _fields(rec: LogRecord) -> dict[str, Any]:
    return {"position": rec.position, "topic": rec.topic, "partition": rec.partition,
            "offset": rec.offset, "timestamp_ms": rec.timestamp_ms, "key": rec.key,
            "value": rec.value, "headers": rec.headers}


def _long(raw: bytes, i: int) -> tuple[int, int]:
    """An Avro ``long`` (zigzag varint) at ``i``, and the index after it."""
    b = raw[i]
    if b < 0x80:  # one byte: most lengths, small numbers
        return (b >> 1) ^ -(b & 1), i + 1
    shift = result = 0
    while True:
        b = raw[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return (result >> 1) ^ -(result & 1), i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _bytes(raw: bytes, i: int) -> tuple[bytes, int]:
    n, i = _long(raw, i)
    if n < 0 or i + n > len(raw):
        raise ValueError("string beyond the record")
    return raw[i:i + n], i + n


def _raw_envelope(value: bytes) -> tuple[bytes, bytes, int, bytes] | None:
    """:func:`envelope`, its strings as the UTF-8 bytes the record holds."""
    if len(value) < 6 or value[0] != 0 or value[1:4] != b"\0\0\0" or value[4] not in (1, 2):
        return None
    try:
        _, i = _bytes(value, 5)
        casino, i = _bytes(value, i)
        table_id, i = _bytes(value, i)
        seq, i = _long(value, i)
        round_id, _ = _bytes(value, i)
    except (IndexError, ValueError):
        return None
    return casino, table_id, seq, round_id


def envelope(value: bytes) -> tuple[str, str, int, str] | None:
    """(casino, table id, table_seq, round id) read from the start of a framed event
    (magic byte, 4-byte schema id, then the envelope's first fields, the same order in
    every registered schema: event_id, casino, table_id, table_seq, round_id), without
    decoding the rest; None when the bytes do not begin so."""
    raw = _raw_envelope(value)
    if raw is None:
        return None
    try:
        return raw[0].decode(), raw[1].decode(), raw[2], raw[3].decode()
    except UnicodeDecodeError:
        return None


@dataclass(slots=True)
class _Table:
    """Every record of one casino's table the log holds, compactly: its sequence number,
    round (an index into ``names``, the round ids as their bytes), chain (an index),
    position and Kafka place."""

    seqs: array[int]
    rounds: array[int]
    chains: array[int]
    positions: array[int]
    partitions: array[int]
    offsets: array[int]
    names: dict[bytes, int]

    @classmethod
    def new(cls) -> _Table:
        return cls(array("q"), array("q"), array("q"), array("q"), array("q"), array("q"), {})

    def add(self, seq: int, round_id: bytes, chain: int, rec: LogRecord) -> None:
        names = self.names
        at = names.get(round_id)
        if at is None:
            at = names[round_id] = len(names)
        self.seqs.append(seq)
        self.rounds.append(at)
        self.chains.append(chain)
        self.positions.append(rec.position)
        self.partitions.append(rec.partition)
        self.offsets.append(rec.offset)


@dataclass(slots=True, kw_only=True)
class _Found:
    """One record of the round: where it is, what it is, its proof (None: recorded after
    its chain's latest signed checkpoint)."""

    chain: int
    chain_name: str
    position: int
    casino: str
    table_id: str
    seq: int
    event_id: str
    kind: str
    value: bytes
    coordinates: str
    topic: str
    partition: int
    offset: int
    proof: dict[str, Any] | None


def _read_chain(n: int, chain: Chain, verdict: LogVerdict, round_id: str, casino: str | None,
                table_id: str | None, tables: dict[tuple[bytes, bytes], _Table],
                found: list[_Found]) -> None:
    """Read one chain once: the records of the round (decoded in full, with their audit
    paths to the chain's latest signed checkpoint) into ``found``, and every record of
    any table that may hold the round (casino and table as given) into ``tables``."""
    from schemas.codec import decode

    assert verdict.checkpoint is not None
    size = verdict.checkpoint.size
    leaves: list[bytes] = []
    mine: list[tuple[dict[str, Any], _Found]] = []
    want = round_id.encode("utf-8")
    at_casino = None if casino is None else casino.encode("utf-8")
    at_table = None if table_id is None else table_id.encode("utf-8")
    needle = at_table if at_table is not None else at_casino
    try:
        for rec in read_log(chain.log):
            fields = _fields(rec)
            leaves.append(leaf_hash(leaf_input(**fields)))
            if needle is not None and needle not in rec.value:
                continue  # strings are written as they are: not of that table
            env = _raw_envelope(rec.value)
            if env is None:
                continue
            e_casino, e_table, seq, e_round = env
            if (at_casino is not None and e_casino != at_casino) or (
                    at_table is not None and e_table != at_table):
                continue
            table = tables.get((e_casino, e_table))
            if table is None:
                table = tables[(e_casino, e_table)] = _Table.new()
            table.add(seq, e_round, n, rec)
            if e_round != want:
                continue
            try:
                event = decode(rec.value)
            except Exception:  # a record that does not decode is in no round
                continue
            if (event.round_id, event.casino.encode(), event.table_id.encode()) != (
                    round_id, e_casino, e_table):
                continue
            mine.append((fields, _Found(
                chain=n, chain_name=chain.name or "-", position=rec.position,
                casino=event.casino, table_id=event.table_id, seq=event.table_seq,
                event_id=event.event_id, kind=event.kind, value=rec.value,
                coordinates=rec.coordinates, topic=rec.topic, partition=rec.partition,
                offset=rec.offset, proof=None)))
    except LOG_ERRORS as exc:
        raise ProofError(f"the log changed while it was read: {exc}") from exc
    if not mine:
        return
    levels = Levels(leaves[:size])
    for fields, item in mine:
        if item.position < size:
            item.proof = {
                "index": item.position, "event_id": item.event_id, "kind": item.kind,
                "table_seq": item.seq, "coordinates": item.coordinates,
                "leaf_input": base64.b64encode(leaf_input(**fields)).decode(),
                "path": [base64.b64encode(h).decode()
                         for h in levels.path(item.position, size)],
            }
        found.append(item)


def _pairs(pairs: set[tuple[str, str]]) -> str:
    return ", ".join(f"casino {c} table {t}" for c, t in sorted(pairs))


def _which(round_id: str, found: list[_Found], casino: str | None,
           table_id: str | None) -> tuple[str, str]:
    """The one (casino, table) that holds the round, or ProofError naming every pair that
    holds it and the option that chooses."""
    pairs = {(f.casino, f.table_id) for f in found}
    if len(pairs) == 1:
        return next(iter(pairs))
    casinos = {c for c, _ in pairs}
    tables = {t for _, t in pairs}
    if casino is None and len(casinos) > 1 and len(tables) == 1:
        add = "--casino CASINO"
    elif table_id is None and len(tables) > 1 and len(casinos) == 1:
        add = "--table TABLE_ID"
    else:
        add = " ".join(o for o, given in (("--casino CASINO", casino), ("--table TABLE_ID",
                                                                        table_id)) if not given)
    raise ProofError(f"round {round_id!r} is held at {len(pairs)} tables ({_pairs(pairs)}): "
                     f"a proof is of one; add {add} to say which")


def _span(seqs: list[int]) -> str:
    """Sequence numbers as ranges: ``5-6, 9``."""
    out: list[str] = []
    for s in sorted(seqs):
        if out and out[-1].split("-")[-1] == str(s - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{s}"
        else:
            out.append(str(s))
    return ", ".join(out)


def _complete(round_id: str, casino: str, table_id: str, found: list[_Found],
              table: _Table, chain_names: list[str]) -> tuple[int, int, list[_Found]]:
    """The round's range (RoundStarted's and RoundEnded's sequence numbers) and its events,
    one per record of the round (a record held twice with the same bytes once), once the
    round is shown whole; ProofError naming what is missing, doubled or foreign."""
    where = f"round {round_id} (casino {casino} table {table_id})"
    by_seq: dict[int, _Found] = {}
    for item in sorted(found, key=lambda f: (f.topic, f.partition, f.offset, f.chain)):
        held = by_seq.get(item.seq)
        if held is None:
            by_seq[item.seq] = item
        elif (held.event_id, held.value) != (item.event_id, item.value):
            raise ProofError(f"{where}: table_seq {item.seq} is held by two events, "
                             f"{held.event_id} ({held.coordinates}) and {item.event_id} "
                             f"({item.coordinates}): the round cannot be proved whole")
    started = [f for f in by_seq.values() if f.kind == "RoundStarted"]
    ended = [f for f in by_seq.values() if f.kind == "RoundEnded"]
    if len(started) != 1:
        raise ProofError(f"{where}: " + ("the log holds no RoundStarted of the round" if
                                         not started else "RoundStarted twice (table_seq "
                                         f"{_span([f.seq for f in started])})")
                         + ": the round cannot be proved whole")
    if len(ended) != 1:
        raise ProofError(f"{where}: " + ("the round is not ended: the log holds no "
                                         "RoundEnded of it" if not ended else "RoundEnded "
                                         f"twice (table_seq {_span([f.seq for f in ended])})")
                         + "; a proof shows a whole round only")
    first, last = started[0].seq, ended[0].seq
    if last < first:
        raise ProofError(f"{where}: its RoundEnded (table_seq {last}) comes before its "
                         f"RoundStarted (table_seq {first})")
    mine = {(f.chain, f.position) for f in found}
    foreign = []
    for i, seq in enumerate(table.seqs):
        if first <= seq <= last and (table.chains[i], table.positions[i]) not in mine:
            foreign.append(i)
    if foreign:
        rounds = {v: k for k, v in table.names.items()}
        named = "; ".join(
            f"table_seq {table.seqs[i]} is of round "
            f"{rounds[table.rounds[i]].decode(errors='replace')} "
            f"(partition {table.partitions[i]} offset {table.offsets[i]}, log of "
            f"{_chain_words(chain_names[table.chains[i]])} position {table.positions[i]})"
            for i in foreign[:5])
        more = f" and {len(foreign) - 5:,} more" if len(foreign) > 5 else ""
        raise ProofError(f"{where}: a foreign event inside its range table_seq {first}-{last}: "
                         f"{named}{more}: the round cannot be proved whole")
    gaps = [s for s in range(first, last + 1) if s not in by_seq]
    if gaps:
        raise ProofError(f"{where}: table_seq {_span(gaps)} missing from the log between its "
                         f"RoundStarted (table_seq {first}) and its RoundEnded (table_seq "
                         f"{last}): the round cannot be proved whole")
    unsigned = [f for f in by_seq.values() if f.proof is None]
    if unsigned:
        raise ProofError(f"{where}: table_seq {_span([f.seq for f in unsigned])} recorded after "
                         "the latest signed checkpoint of its chain: prove the round again once "
                         "ingest has signed the next checkpoint")
    return first, last, list(by_seq.values())


def _chain_words(name: str) -> str:
    return "the lone ingest" if name == "-" else f"worker {name}"


def round_proof(verdict: DataVerdict, round_id: str, *, casino: str | None = None,
                table_id: str | None = None) -> dict[str, Any]:
    """The proof of ``round_id`` at one casino and table (given, or the only ones that
    hold the round), whole: every event of the round, each against the latest signed
    checkpoint of its chain, once the round's sequence numbers are shown contiguous from
    its RoundStarted to its RoundEnded, given the verdict of a log that verified (every
    chain of it). ProofError when the log did not verify, holds no event of the round,
    holds it at several tables that ``casino``/``table_id`` do not choose between, or
    does not hold it whole (a gap, no RoundEnded, a foreign event in the range).

    The lone ingest's chain: ``tree_size`` and ``checkpoint`` are the proof's. Several
    chains: each event carries its own ``chain`` (the worker's name), ``tree_size`` and
    ``checkpoint``, in the order of (topic, partition, offset)."""
    if not verdict.ok or (verdict.lone and (verdict.checkpoint is None
                                            or verdict.checkpoint_text is None)):
        raise ProofError(f"the log does not verify, so no proof is given: {verdict.line()}")
    found: list[_Found] = []
    tables: dict[tuple[bytes, bytes], _Table] = {}
    names: list[str] = []
    signed: dict[int, LogVerdict] = {}
    for n, (chain, chained) in enumerate(verdict.chains):
        names.append(chain.name or "-")
        if chained.checkpoint is None or chained.checkpoint_text is None:
            continue  # a worker's chain with nothing written yet
        signed[n] = chained
        _read_chain(n, chain, chained, round_id, casino, table_id, tables, found)
    if not found:
        at = "".join(f" {w} {v if len(v) <= 60 else shown(v)}"
                     for w, v in (("at casino", casino), ("table", table_id)) if v)
        raise ProofError(f"round {shown(round_id)}{at} has no event in the log (check the round "
                         "id; `python -m replay table TABLE_ID --last 10` lists a table's "
                         "rounds)")
    pair = _which(round_id, found, casino, table_id)
    first, last, whole = _complete(round_id, *pair,
                                   [f for f in found if (f.casino, f.table_id) == pair],
                                   tables[(pair[0].encode(), pair[1].encode())], names)
    events: list[dict[str, Any]] = []
    for item in sorted(whole, key=lambda f: (f.topic, f.partition, f.offset)):
        assert item.proof is not None
        event = dict(item.proof)
        if not verdict.lone:
            cp = signed[item.chain]
            assert cp.checkpoint is not None
            event.update(chain=item.chain_name, tree_size=cp.checkpoint.size,
                         checkpoint=cp.checkpoint_text)
        events.append(event)
    proof: dict[str, Any] = {"format": PROOF_FORMAT, "round_id": round_id, "casino": pair[0],
                             "table_id": pair[1],
                             "complete": {"first_seq": first, "last_seq": last}}
    if verdict.lone:
        assert verdict.checkpoint is not None
        proof.update(tree_size=verdict.checkpoint.size, checkpoint=verdict.checkpoint_text)
    proof.update(key=verdict.key.vkey, events=events)
    return proof


@dataclass(frozen=True, slots=True, kw_only=True)
class ProofCheck:
    """What checking a proof found: how many of its events were proved, the checkpoints
    they were proved against (their signatures verified), the round's range shown whole
    (``complete``: its first and last sequence numbers; None for a proof of presence only,
    :data:`PRESENCE_FORMAT`), and the first problem (None when every event was proved and,
    for :data:`PROOF_FORMAT`, the round shown whole)."""

    events: int
    proved: int
    checkpoints: tuple[Checkpoint, ...]
    problem: str | None
    complete: tuple[int, int] | None = None
    presence_only: bool = False

    @property
    def ok(self) -> bool:
        return self.problem is None and self.events > 0 and self.proved == self.events

    def words(self) -> str:
        """What the proof shows beyond presence, in one phrase."""
        if self.presence_only:
            return f"{PRESENCE_ONLY} ({PRESENCE_FORMAT})"
        if self.complete is None:
            return "not shown complete"
        first, last = self.complete
        return (f"complete: table_seq {first}-{last}, RoundStarted to RoundEnded, every one "
                "of its events in the proof")


def _events(proof: Mapping[str, Any]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    events = proof.get("events")
    if isinstance(events, list):
        for n, item in enumerate(events, start=1):
            yield n, item if isinstance(item, Mapping) else {}


def _whole(proof: Mapping[str, Any], decoded: list[tuple[int, Any]]) -> str | tuple[int, int]:
    """The range the proof claims, checked against its decoded events: one RoundStarted at
    the first number, one RoundEnded at the last, and every number between held by exactly
    one event of the proof; else the problem."""
    claim = proof.get("complete")
    try:
        assert isinstance(claim, Mapping)
        first, last = claim["first_seq"], claim["last_seq"]
        assert type(first) is int and type(last) is int and first <= last
    except (AssertionError, KeyError):
        return "malformed: no range (complete: first_seq, last_seq) of the round"
    seqs: dict[int, list[int]] = {}
    for n, event in decoded:
        seqs.setdefault(event.table_seq, []).append(n)
    twice = {s: ns for s, ns in seqs.items() if len(ns) > 1}
    if twice:
        s, ns = min(twice.items())
        return (f"not complete: table_seq {s} is held by {len(ns)} events of the proof "
                f"(events {', '.join(map(str, ns))})")
    started = sorted(e.table_seq for _, e in decoded if e.kind == "RoundStarted")
    ended = sorted(e.table_seq for _, e in decoded if e.kind == "RoundEnded")
    if started != [first]:
        return (f"not complete: the proof claims table_seq {first}-{last} but its RoundStarted "
                f"is at {_span(started) or 'none of its events'}")
    if ended != [last]:
        return (f"not complete: the proof claims table_seq {first}-{last} but its RoundEnded "
                f"is at {_span(ended) or 'none of its events'} (a round not ended is not "
                "proved whole)")
    gaps = [s for s in range(first, last + 1) if s not in seqs]
    if gaps:
        return (f"not complete: table_seq {_span(gaps)} of the range {first}-{last} "
                "(RoundStarted to RoundEnded) is not in the proof: an event of the round "
                "was left out")
    return first, last


def check_round_proof(proof: object, verifier: Verifier) -> ProofCheck:
    """Check a proof offline: each event's checkpoint (its own, or the proof's) must be
    signed by ``verifier``'s key, its path must lead from the record to that checkpoint's
    root (RFC 9162 2.1.3.2), and the record must decode to the event of the round the proof
    names, of its casino and table; then (``catwalk-inclusion-proof/2``) the decoded
    sequence numbers must run from the RoundStarted's to the RoundEnded's, one event each
    (a proof with an event taken out fails). A ``/1`` proof is checked for presence and
    said to be presence only. Stops at the first problem, naming the event and its log
    coordinates."""
    from schemas.codec import decode

    if not isinstance(proof, Mapping) or proof.get("format") not in FORMATS:
        return ProofCheck(events=0, proved=0, checkpoints=(),
                          problem=f"not a Catwalk inclusion proof ({PROOF_FORMAT}, or "
                          f"{PRESENCE_FORMAT})")
    presence = proof.get("format") == PRESENCE_FORMAT
    round_id = proof.get("round_id")
    casino = proof.get("casino")
    table_id = proof.get("table_id")
    listed = list(_events(proof))
    opened: dict[str, Checkpoint] = {}
    proved = 0

    def done(problem: str | None, complete: tuple[int, int] | None = None) -> ProofCheck:
        return ProofCheck(events=len(listed), proved=proved,
                          checkpoints=tuple(opened.values()), problem=problem,
                          complete=complete, presence_only=presence)

    if not presence and not (isinstance(round_id, str) and isinstance(casino, str)
                             and isinstance(table_id, str)):
        return done("malformed: the proof does not name its round, casino and table")
    if "checkpoint" in proof or not listed or not all("checkpoint" in i for _, i in listed):
        text = str(proof.get("checkpoint", ""))
        try:
            opened[text] = open_signed(text, verifier)
        except CheckpointError as exc:
            return done(f"its checkpoint: {exc}")
    if not listed:
        return done("the proof proves no event")
    decoded: list[tuple[int, Any]] = []
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
            return done(f"event {n}: malformed ({shown(str(exc))})")
        if not verify_inclusion(leaf_hash(raw), index, cp.size, path, cp.root):
            return done(f"event {n} ({leaf.coordinates}): not in the tree of {cp.size:,} "
                        "records the checkpoint signs: the record or its path was altered")
        try:
            event = decode(leaf.value)
        except Exception as exc:
            return done(f"event {n} ({leaf.coordinates}): the record is in the log but does "
                        f"not decode ({shown(str(exc))})")
        if event.round_id != round_id or event.event_id != item.get("event_id"):
            return done(f"event {n} ({leaf.coordinates}): the record is event "
                        f"{event.event_id} of round {event.round_id}, not what the proof says")
        if not presence and (event.casino, event.table_id) != (casino, table_id):
            return done(f"event {n} ({leaf.coordinates}): the record is of casino "
                        f"{event.casino} table {event.table_id}, not casino {casino} table "
                        f"{table_id} the proof names")
        if not presence and "table_seq" in item and item["table_seq"] != event.table_seq:
            return done(f"event {n} ({leaf.coordinates}): the record's table_seq is "
                        f"{event.table_seq}, not {shown(str(item['table_seq']))} as the "
                        "proof says")
        decoded.append((n, event))
        proved += 1
    if presence:
        return done(None)
    whole = _whole(proof, decoded)
    if isinstance(whole, str):
        return done(whole)
    return done(None, whole)
