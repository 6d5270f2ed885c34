"""Verify the log offline: every record, its hash chain, its Merkle tree and every signed
checkpoint, against a public key the verifier chooses (docs/log-integrity.md).

The walk reads every segment in order and stops at the first thing that does not fit,
naming it: the segment file, the record's number in that file, its position in the log,
its ``topic[partition]@offset`` and, when its bytes still decode, its event id. What it
checks, in this order:

- each record: its position follows the one before (nothing removed, inserted or
  reordered), its ``prev_hash`` is the previous record's hash and its own hash is that of
  its contents (nothing altered);
- each segment's header: its signed checkpoint verifies with the key, covers exactly the
  records up to the segment's last (a segment cut short is named), gives the root of the
  tree of those records (a chain recomputed by someone without the key is caught here),
  names this segment and the chain's last hash, carries the same log id as the others,
  and states the same Kafka offsets as the unsigned ``next_offsets`` header ingest resumes
  from (an edited header is caught);
- each segment's quarantine file (``schemas.quarantine``): its lines give the quarantine
  tree the segment's checkpoint signs (a file missing, edited, extra, reordered or holding
  another chain's line is named, file and line); a log whose checkpoints do not sign the
  quarantine yet verifies, and its verdict says the quarantine is not signed;
- every other checkpoint given (``--checkpoint`` files, the ``checkpoints/`` beside the
  log): signed by the key, of this log, and either the root of the log's first ``size``
  records or, when it covers more records than the log holds, proof that the tail was
  removed.

A missing directory, a log without a segment and a segment that is not a log segment fail
the verification too.

The checks of one segment are one routine, :func:`walk_segment`, over a :class:`Walked`
(where the walk stands after the segments before); :func:`walk` runs it over every segment,
and ``schemas.log_resume`` over the segments appended since its last walk, from the state
that walk left, so that the live loop verifies what is new with the same checks and words.

:func:`verify_data` verifies every chain of a data directory (the lone ingest's, or one per
ingest worker: ``schemas.logformat.chains``) this way, each with the checkpoints beside it,
and then what holds across chains: no Kafka message is in two chains, no two chains share a
log id, and every other checkpoint given is of one of the chains (matched by its log id).
With the lone ingest's chain alone, its verdict and words are :func:`verify_log`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from fastavro import reader

from schemas.checkpoint import MAX_NOTE, Checkpoint, CheckpointError, Verifier, open_signed, parse
from schemas.log_epochs import ChainSpans, across
from schemas.logformat import (
    GENESIS,
    META_CHECKPOINT,
    META_LOG_ID,
    META_NEXT_OFFSETS,
    META_TREE,
    SEGMENT_READ_ERRORS,
    Chain,
    LogError,
    chain_next,
    chain_of,
    chains,
    headers_of,
    is_log_schema,
    leaf_input,
    open_regular,
    segment_metadata,
    segments,
)
from schemas.merkle import Tree, leaf_hash
from schemas.quarantine import (
    UNSIGNED,
    Account,
    check_segment,
    extra_files,
    find_line,
    quarantine_dir,
)

READ_ERRORS: tuple[type[BaseException], ...] = (*SEGMENT_READ_ERRORS, UnicodeDecodeError)
LOG_ERRORS: tuple[type[BaseException], ...] = (*READ_ERRORS, LogError)
"""The same, and the LogError of the log's readers."""
"""What fastavro may raise on a damaged container file (a bad block, bad deflate data, a
cut header); every one becomes a named failure, never a traceback."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LogVerdict:
    """What verifying a log found."""

    records: int
    """Records that verified before the first problem (all of them when ok)."""
    segments: int
    root: bytes
    """The Merkle root of the records that verified."""
    checkpoint: Checkpoint | None
    """The last signed checkpoint that verified (the log's own, in its last segment)."""
    checkpoint_text: str | None
    key: Verifier
    problem: str | None
    quarantined: int = 0
    """Quarantined messages whose lines verified (the quarantine tree's size)."""
    quarantine_signed: bool = True
    """Whether the last checkpoint signs the quarantine (False for a log written before
    checkpoints signed it: its quarantine files could be removed or edited unseen)."""
    quarantine_suspect: bytes | None = None
    """After a quarantine line was found missing, edited or added: its leaf hash."""

    @property
    def ok(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        """One line for a person: what was verified, or the first problem."""
        if self.problem is not None:
            return f"FAILED after {self.records:,} good records: {self.problem}"
        signed = (f"signed checkpoint of {self.checkpoint.signed_at}" if self.checkpoint
                  else "no checkpoint")
        return (f"OK: {self.records:,} records in {self.segments:,} segments, Merkle root "
                f"{self.root.hex()}, {signed}, key {self.key.name} ({self.key.key_hash.hex()})"
                f"{self.quarantine_note()}")

    def quarantine_note(self) -> str:
        """What the line adds of the quarantine: nothing when it is signed and empty."""
        if not self.quarantine_signed:
            return f"; {UNSIGNED}"
        return f"; {self.quarantined:,} quarantined messages signed" if self.quarantined else ""


class VerifyFailed(Exception):
    """The first problem a walk found, in the words a verdict gives."""


def _event_id(value: bytes) -> str:
    from schemas.codec import decode

    try:
        return f"event {decode(value).event_id}"
    except Exception:  # the bytes were altered: say so rather than guess
        return "event id unreadable"


def _records(segment: Path, meta: dict[str, str]) -> Iterator[dict[str, Any]]:
    try:
        opened = open_regular(segment)
    except LogError as exc:
        raise VerifyFailed(f"{segment.name}: {str(exc).removeprefix(f'{segment}: ')}") from None
    with opened as fo:
        records = reader(fo)
        if not is_log_schema(records.writer_schema):
            raise VerifyFailed(f"{segment.name}: not a log segment (its schema is not "
                          "catwalk.log.LogRecord)")
        meta.update({k: v for k, v in records.metadata.items() if not k.startswith("avro.")})
        for rec in records:
            if not isinstance(rec, dict):
                raise VerifyFailed(f"{segment.name}: a record that is not a log record")
            yield rec


def checkpoints_beside(chain: Chain | Path) -> list[tuple[str, str]]:
    """The signed checkpoints ingest wrote beside a chain (its ``checkpoints`` directory:
    ``checkpoints/`` of the data directory for the lone ingest, ``checkpoints/workers/NAME/``
    for a worker; given a log directory, ``checkpoints/`` beside it), as (file, text); one
    that cannot be read is given as an empty text, which fails verification with its name."""
    return [(str(path), read_checkpoint(path)) for path in checkpoint_files(chain)]


def checkpoint_files(chain: Chain | Path) -> list[Path]:
    """The files :func:`checkpoints_beside` reads, in its order."""
    where = chain.checkpoints if isinstance(chain, Chain) else chain.parent / "checkpoints"
    return sorted(where.glob("*.checkpoint"))


def read_checkpoint(path: Path) -> str:
    """A checkpoint file's text; an empty text when it cannot be read (verification then
    fails, naming the file)."""
    try:
        with open_regular(path, "checkpoint") as fo:
            return fo.read(MAX_NOTE + 1).decode("utf-8")
    except (LogError, OSError, UnicodeDecodeError):
        return ""


Keep = Callable[[dict[str, Any]], None]
"""Given each record whose position, ``prev_hash`` and hash verified, in log order (a dict of
the log record's fields), so that a caller can use what verification read instead of
reading the log again (``python -m replay``). A record given was not yet checked against
its segment's signed checkpoint: only a verdict that is ok vouches for them all."""


def verify_log(log_dir: Path, key: Verifier, *,
               checkpoints: Sequence[tuple[str, str]] = (),
               progress: Callable[[int], None] | None = None,
               keep: Keep | None = None, trail: Trail | None = None) -> LogVerdict:
    """Verify the log in ``log_dir`` and the ``checkpoints`` given as (name, text) against
    ``key`` (see the module docstring). ``progress`` gets the records verified so far;
    ``keep`` each record read (:data:`Keep`); ``trail`` each segment (:class:`Trail`)."""
    return _verify(log_dir, key, checkpoints, progress, None, keep, trail)


Runs = dict[tuple[str, int], list[list[int]]]
"""``(topic, partition)`` -> the runs of consecutive Kafka offsets a chain holds, each
``[first, last]``, in the order written."""


def _verify(log_dir: Path, key: Verifier, checkpoints: Sequence[tuple[str, str]],
            progress: Callable[[int], None] | None, runs: Runs | None,
            keep: Keep | None = None, trail: Trail | None = None) -> LogVerdict:
    at = Walked()
    try:
        walk(log_dir, key, checkpoints, at, Hooks(progress=progress, runs=runs, keep=keep,
                                                  trail=trail))
        problem = None
    except VerifyFailed as failed:
        problem = str(failed)
    return at.verdict(key, problem)


@dataclass(slots=True, kw_only=True)
class Walked:
    """Where a walk of one chain stands after its last whole segment: all that walking the
    next segments needs (``schemas.log_resume`` keeps it between passes)."""

    records: int = 0
    """Records that verified (after a failure: those before the one that did not)."""
    segments: int = 0
    tree: Tree = field(default_factory=Tree)
    prev: bytes = GENESIS
    """The hash of the last record (the next one's ``prev_hash``)."""
    log_id: str | None = None
    checkpoint: Checkpoint | None = None
    """The last segment header's signed checkpoint (and its text)."""
    text: str | None = None
    quarantine: Account = field(default_factory=lambda: Account(tree=Tree()))
    """Where the check of the quarantine stands (``schemas.quarantine``)."""

    def copy(self) -> Walked:
        """A copy to walk on (the trees' subtrees copied, not shared)."""
        return Walked(records=self.records, segments=self.segments,
                      tree=Tree(self.tree.size, self.tree.subtrees), prev=self.prev,
                      log_id=self.log_id, checkpoint=self.checkpoint, text=self.text,
                      quarantine=self.quarantine.copy())

    def verdict(self, key: Verifier, problem: str | None) -> LogVerdict:
        return LogVerdict(records=self.records, segments=self.segments, root=self.tree.root(),
                          checkpoint=self.checkpoint, checkpoint_text=self.text, key=key,
                          problem=problem, quarantined=self.quarantine.tree.size,
                          quarantine_signed=self.quarantine.signed,
                          quarantine_suspect=self.quarantine.suspect)


class Trail(Protocol):
    """Told of each segment a walk reads (``schemas.log_resume`` fingerprints it before
    reading and keeps the tree's root after it)."""

    def entered(self, seg: Path) -> None:
        """Before the segment is opened."""

    def verified(self, seg: Path, at: Walked) -> None:
        """After the segment's records and its header verified."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Hooks:
    """What a walk hands on as it goes: ``progress`` (records verified so far, every
    10,000), ``runs`` (the chain's Kafka offsets, :data:`Runs`), ``keep`` (each record,
    :data:`Keep`), ``trail`` (each segment, :class:`Trail`)."""

    progress: Callable[[int], None] | None = None
    runs: Runs | None = None
    keep: Keep | None = None
    trail: Trail | None = None


def open_checkpoints(extra: Sequence[tuple[str, str]], key: Verifier) -> dict[str, Checkpoint]:
    """The checkpoints given as (name, text), each opened with ``key``; the first that does
    not verify fails the walk (VerifyFailed), named."""
    return {name: _opened(name, text, key) for name, text in extra}


def _opened(name: str, text: str, key: Verifier) -> Checkpoint:
    try:
        return open_signed(text, key)
    except CheckpointError as exc:
        raise VerifyFailed(f"{name}: {exc}") from None


def walk(log_dir: Path, key: Verifier, extra: Sequence[tuple[str, str]], at: Walked,
         hooks: Hooks) -> None:
    """Walk the whole log in ``log_dir`` from ``at`` (a fresh :class:`Walked`), then check
    the checkpoints ``extra`` against it; VerifyFailed names the first problem, ``at`` then
    holds what verified before it."""
    if not log_dir.is_dir():
        raise VerifyFailed(f"there is no log at {log_dir} (no such directory): nothing to "
                           "verify; check --data")
    segs = segments(log_dir)
    if not segs:
        raise VerifyFailed(f"the log at {log_dir} is empty (no segment): nothing to verify")
    wanted = open_checkpoints(extra, key)
    sizes = {cp.size for cp in wanted.values()}
    roots: dict[int, bytes] = {}
    if 0 in sizes:
        roots[0] = at.tree.root()
    for seg in segs:
        walk_segment(seg, key, at, hooks, sizes, roots)
    last = int(segs[-1].name.split("-")[1].split(".")[0])
    stray = extra_files(quarantine_dir(log_dir), (s.name for s in segs), last)
    if stray is not None:
        raise VerifyFailed(stray)
    if hooks.progress is not None:
        hooks.progress(at.records)
    check_checkpoints(wanted, at, roots)


def walk_segment(seg: Path, key: Verifier, at: Walked, hooks: Hooks,
                 sizes: Collection[int] = (), roots: dict[int, bytes] | None = None) -> None:
    """Verify one segment after those ``at`` stands for, and move ``at`` past it: each
    record (position, ``prev_hash``, hash; given to ``hooks``), then the segment's header
    (its signed checkpoint against the records, :func:`_check_header`). The tree's root
    after a record is put in ``roots`` when the records so far are one of ``sizes``.
    VerifyFailed names the first problem; ``at.records`` then counts the records that
    verified before it."""
    meta: dict[str, str] = {}
    number = 0
    first = count = at.records
    prev = at.prev
    tree = at.tree
    runs, keep, progress = hooks.runs, hooks.keep, hooks.progress
    if hooks.trail is not None:
        hooks.trail.entered(seg)
    try:
        for number, rec in enumerate(_records(seg, meta), start=1):
            if rec["position"] != count:
                raise VerifyFailed(f"{_where(seg, number, count, rec)}, "
                                   f"{_event_id(rec['value'])}): position "
                                   f"{rec['position']} where {count} was expected (a record "
                                   "was removed, inserted or reordered before it)")
            if rec["prev_hash"] != prev:
                raise VerifyFailed(f"{_where(seg, number, count, rec)}, "
                                   f"{_event_id(rec['value'])}): prev_hash does not "
                                   "match the record before it")
            leaf = leaf_input(position=count, topic=rec["topic"],
                              partition=rec["partition"], offset=rec["offset"],
                              timestamp_ms=rec["timestamp_ms"], key=rec["key"],
                              value=rec["value"], headers=headers_of(rec.get("headers")))
            if rec["hash"] != chain_next(prev, leaf):
                raise VerifyFailed(f"{_where(seg, number, count, rec)}, "
                                   f"{_event_id(rec['value'])}): its contents do not "
                                   "match its hash (the record was altered)")
            tree.append(leaf_hash(leaf))
            if keep is not None:
                keep(rec)
            if runs is not None:
                _note(runs, rec["topic"], rec["partition"], rec["offset"])
            prev, count = rec["hash"], count + 1
            if roots is not None and count in sizes:
                roots[count] = tree.root()
            if progress is not None and count % 10_000 == 0:
                progress(count)
    except VerifyFailed:
        raise
    except READ_ERRORS as exc:
        raise VerifyFailed(f"{seg.name}: cannot be read after record {number} (position "
                           f"{count}): the file is damaged ({type(exc).__name__}: "
                           f"{exc})") from None
    finally:
        at.records = count  # those that verified, also when one did not
    at.segments += 1
    at.prev = prev
    _check_header(seg, meta, key, tree, prev, count, first, at)
    if hooks.trail is not None:
        hooks.trail.verified(seg, at)


def check_checkpoints(wanted: dict[str, Checkpoint], at: Walked,
                      roots: Mapping[int, bytes]) -> None:
    """Each checkpoint given (opened: :func:`open_checkpoints`) against the log walked
    (``at``): of this log, not covering more records than it holds, and the root of its
    first ``size`` records (``roots[size]``, which the caller has for every size that is at
    most ``at.records``)."""
    for name, cp in wanted.items():
        if cp.log_id != at.log_id:
            raise VerifyFailed(f"{name}: a checkpoint of another log ({cp.log_id}, this log "
                               f"is {at.log_id})")
        if cp.size > at.records:
            raise VerifyFailed(
                f"{name}: signed at {cp.signed_at}, it covers {cp.size:,} records but the log "
                f"holds {at.records:,}: records {at.records:,} to {cp.size - 1:,} were removed "
                f"(the log's tail, up to {cp.segment}, is missing or was cut)")
        if roots[cp.size] != cp.root:
            raise VerifyFailed(f"{name}: the log's first {cp.size:,} records do not give the "
                               f"root this checkpoint signed at {cp.signed_at}: they were "
                               "rewritten")


def _where(seg: Path, number: int, count: int, rec: dict[str, Any]) -> str:
    """How a finding names a record (written only when there is one to name)."""
    return (f"{seg.name} record {number} (position {count}, "
            f"{rec['topic']}[{rec['partition']}]@{rec['offset']}")


def _check_header(seg: Path, meta: dict[str, str], key: Verifier, tree: Tree, chain: bytes,
                  count: int, first: int, at: Walked) -> None:
    text = meta.get(META_CHECKPOINT)
    if text is None:
        raise VerifyFailed(f"{seg.name}: has no signed checkpoint (written by a version of "
                           "ingest before checkpoints, or its header was replaced)")
    cp = _opened(f"{seg.name} header", text, key)
    span = f"records {first:,} to {count - 1:,}" if count > first else "no record"
    if cp.size > count:
        raise VerifyFailed(f"{seg.name}: its signed checkpoint covers {cp.size:,} records but "
                           f"the log holds {count:,} up to the segment's end: the segment was "
                           f"cut (records {count:,} to {cp.size - 1:,} are missing)")
    if cp.size < count:
        raise VerifyFailed(f"{seg.name}: holds {count - cp.size:,} more records than its "
                           f"signed checkpoint covers ({cp.size:,}): records were inserted")
    if cp.root != tree.root() or cp.chain != chain:
        raise VerifyFailed(f"{seg.name} ({span}): the records do not give the Merkle root its "
                           f"signed checkpoint holds: a record in it was altered and the hash "
                           "chain recomputed (the signature cannot be)")
    if cp.segment != seg.name:
        raise VerifyFailed(f"{seg.name}: its signed checkpoint was written for {cp.segment}: "
                           "segments were renamed or swapped")
    if at.log_id is not None and cp.log_id != at.log_id:
        raise VerifyFailed(f"{seg.name}: a segment of another log ({cp.log_id}, the log before "
                           f"it is {at.log_id})")
    try:
        header_offsets = json.loads(meta.get(META_NEXT_OFFSETS, "null"))
        tree_meta = json.loads(meta.get(META_TREE, "null"))
    except ValueError:
        header_offsets = tree_meta = None
    if header_offsets != dict(cp.next_offsets):
        raise VerifyFailed(f"{seg.name}: the header's {META_NEXT_OFFSETS} {header_offsets} "
                           f"differ from the signed checkpoint's {dict(cp.next_offsets)}: the "
                           "header was edited (ingest would skip or repeat messages)")
    if tree_meta != {"size": tree.size, "subtrees": [h.hex() for h in tree.subtrees]}:
        raise VerifyFailed(f"{seg.name}: the header's {META_TREE} is not the log's tree: the "
                           "header was edited")
    if meta.get(META_LOG_ID) != cp.log_id:
        raise VerifyFailed(f"{seg.name}: the header's {META_LOG_ID} is not the signed log id: "
                           "the header was edited")
    quarantined = check_segment(seg, meta, cp, at.quarantine)
    if quarantined is not None:
        raise VerifyFailed(quarantined)
    at.checkpoint, at.text, at.log_id = cp, text, cp.log_id


def _note(runs: Runs, topic: str, partition: int, offset: int) -> None:
    held = runs.get((topic, partition))
    if held is None:
        runs[(topic, partition)] = [[offset, offset]]
    elif held[-1][1] + 1 == offset:
        held[-1][1] = offset
    else:
        held.append([offset, offset])


LONE = "-"
"""How :attr:`DataVerdict.root` and :attr:`DataVerdict.checkpoint_text` name the lone
ingest's chain beside workers' chains (no worker name can be ``-``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DataVerdict:
    """What verifying every chain of a data directory found."""

    chains: tuple[tuple[Chain, LogVerdict], ...]
    """Each chain with its own verdict, in the order of ``schemas.logformat.chains``."""
    key: Verifier
    problem: str | None
    """The first problem: a chain's (after the chain's name, e.g. ``log of worker w2:
    segment-000003.avro record 2 ...``), then a checkpoint of no chain, then what holds
    across chains. With the lone ingest's chain alone, that chain's own words."""
    findings: tuple[str, ...] = ()
    """What holds but a reader must be told (``schemas.log_epochs``): a Kafka message in two
    chains with the same bytes, each place named; replay takes it once."""

    @property
    def ok(self) -> bool:
        return self.problem is None

    @property
    def lone(self) -> bool:
        """The data directory holds the lone ingest's chain alone (the words of
        :func:`verify_log`, and its root and checkpoint, unchanged)."""
        return len(self.chains) == 1 and not self.chains[0][0].name

    @property
    def records(self) -> int:
        """Records that verified, over every chain."""
        return sum(v.records for _, v in self.chains)

    @property
    def root(self) -> str:
        """The Merkle root(s), hex: the chain's root for the lone ingest's chain alone;
        otherwise ``NAME:<hex>`` per chain joined by commas in chain order (``-`` names the
        lone ingest's chain), e.g. ``w1:3b1f...,w2:9ac0...``."""
        if self.lone:
            return self.chains[0][1].root.hex()
        return ",".join(f"{c.name or LONE}:{v.root.hex()}" for c, v in self.chains)

    @property
    def checkpoint(self) -> Checkpoint | None:
        """The last checkpoint that verified, for the lone ingest's chain alone (None
        otherwise: see each chain's verdict)."""
        return self.chains[0][1].checkpoint if self.lone else None

    @property
    def checkpoint_text(self) -> str | None:
        """The last signed checkpoint verified: the note itself for the lone ingest's chain
        alone; otherwise, per chain that has one, a line ``chain NAME`` then the note."""
        if self.lone:
            return self.chains[0][1].checkpoint_text
        texts = [f"chain {c.name or LONE}\n{v.checkpoint_text}" for c, v in self.chains
                 if v.checkpoint_text is not None]
        return "".join(texts) or None

    def line(self) -> str:
        """One line for a person: what was verified, or the first problem."""
        if self.lone:
            return self.chains[0][1].line()
        if self.problem is not None:
            return f"FAILED after {self.records:,} good records: {self.problem}"
        parts = []
        for c, v in self.chains:
            signed = (f"signed checkpoint of {v.checkpoint.signed_at}" if v.checkpoint
                      else "no checkpoint")
            parts.append(f"{c.label}: {v.records:,} records in {v.segments:,} segments, "
                         f"Merkle root {v.root.hex()}, {signed}{v.quarantine_note()}")
        found = (f"; {len(self.findings):,} finding{'s' if len(self.findings) != 1 else ''}: "
                 "messages in two chains with the same bytes, each taken once"
                 if self.findings else "")
        return (f"OK: {self.records:,} records in {len(self.chains)} chains ("
                f"{'; '.join(parts)}), key {self.key.name} ({self.key.key_hash.hex()})"
                + found)


def data_chains(data_dir: Path) -> list[Chain]:
    """The chains :func:`verify_data` verifies: ``schemas.logformat.chains``, and the lone
    ingest's too when it holds no segment but checkpoints were signed for it (its segments
    were removed)."""
    found = chains(data_dir)
    main = chain_of(data_dir)
    if main not in found and any(main.checkpoints.glob("*.checkpoint")):
        found.insert(0, main)
    return found


def symlinked(data_dir: Path, chain: Chain) -> str | None:
    """The first directory of ``chain`` under ``data_dir`` (its log, checkpoints or
    quarantine directory, or one between it and ``data_dir``) that is a symlink, named: a
    link inside the data directory may lead anywhere outside it, and is never followed.
    None when there is none."""
    for where in (chain.log, chain.checkpoints, chain.quarantine):
        try:
            parts = where.relative_to(data_dir).parts
        except ValueError:
            continue
        at = data_dir
        for part in parts:
            at = at / part
            if at.is_symlink():
                return (f"{at} is a symlink, which is never followed (it may lead outside "
                        f"{data_dir}): refused")
    return None


def _first_log_id(chain: Chain) -> str | None:
    """The log id a chain's first segment header states (unsigned: only to route a
    checkpoint given to the chain that then verifies it)."""
    segs = segments(chain.log)
    if not segs:
        return None
    try:
        return segment_metadata(segs[0]).get(META_LOG_ID)
    except LogError:
        return None


def verify_data(data_dir: Path, key: Verifier, *, checkpoints: Sequence[tuple[str, str]] = (),
                progress: Callable[[int], None] | None = None,
                keep: Callable[[Chain], Keep] | None = None) -> DataVerdict:
    """Verify every chain of ``data_dir`` (:func:`data_chains`) with :func:`verify_log`,
    each with the checkpoints beside it (:func:`checkpoints_beside`) and those of
    ``checkpoints`` (name, text) that carry its log id; then that no Kafka message
    (topic, partition, offset) is in two chains (unless with the same bytes: a finding)
    and no two chains have one log id, and that each partition's fencing epochs never go
    back as offsets grow (``schemas.log_epochs``). A checkpoint given whose log id no chain
    has fails, named. ``progress`` gets the records verified so far, over all chains;
    ``keep(chain)`` gives the :data:`Keep` of each chain verified, which is given that
    chain's records."""
    found = data_chains(data_dir)
    for chain in found:
        linked = symlinked(data_dir, chain)
        if linked is not None:
            failed = LogVerdict(records=0, segments=0, root=Tree().root(), checkpoint=None,
                                checkpoint_text=None, key=key, problem=linked)
            return DataVerdict(chains=((chain, failed),), key=key,
                               problem=linked if not chain.name else f"{chain.label}: {linked}")
    if len(found) == 1 and not found[0].name:
        main = found[0]
        verdict = verify_log(main.log, key, checkpoints=[*checkpoints_beside(main), *checkpoints],
                             progress=progress, keep=None if keep is None else keep(main))
        return DataVerdict(chains=((main, verdict),), key=key, problem=verdict.problem)
    ids = {c: _first_log_id(c) for c in found}
    routed: dict[Chain, list[tuple[str, str]]] = {c: checkpoints_beside(c) for c in found}
    unmatched: list[str] = []
    for name, text in checkpoints:
        try:
            log_id = parse(text).log_id
        except CheckpointError as exc:
            unmatched.append(f"{name}: {exc}")
            continue
        owner = next((c for c in found if ids[c] == log_id), None)
        if owner is not None:
            routed[owner].append((name, text))
            continue
        try:
            cp = open_signed(text, key)
        except CheckpointError as exc:
            unmatched.append(f"{name}: {exc}")
            continue
        unmatched.append(
            f"{name}: a checkpoint of log {cp.log_id} ({cp.size:,} records, signed at "
            f"{cp.signed_at}), which no chain of {data_dir} is (the chains are "
            + ", ".join(f"{c.label} {ids[c] or '(no segment)'}" for c in found)
            + "): a whole chain was removed, or the checkpoint is of another data directory")
    verdicts: list[tuple[Chain, LogVerdict]] = []
    collected: list[ChainSpans] = []
    done = 0
    for chain in found:
        if chain.name and not segments(chain.log) and not routed[chain]:
            # A worker that has written nothing yet (no partition assigned, or just started).
            verdicts.append((chain, LogVerdict(records=0, segments=0, root=Tree().root(),
                                               checkpoint=None, checkpoint_text=None, key=key,
                                               problem=None)))
            continue
        spans = ChainSpans(chain, None if keep is None else keep(chain))
        collected.append(spans)

        def step(n: int, before: int = done) -> None:
            if progress is not None:
                progress(before + n)

        verdict = _verify(chain.log, key, routed[chain], step, None, spans.keep, spans)
        verdicts.append((chain, verdict))
        done += verdict.records
    problem = next((f"{c.label}: {v.problem}{_elsewhere(c, v, found)}" for c, v in verdicts
                    if v.problem is not None), None)
    if problem is None and unmatched:
        problem = unmatched[0]
    findings: tuple[str, ...] = ()
    if problem is None:
        problem = _same_log_id(verdicts)
    if problem is None:
        together = across(collected)
        problem, findings = together.problem, together.findings
    return DataVerdict(chains=tuple(verdicts), key=key, problem=problem, findings=findings)


def _elsewhere(chain: Chain, verdict: LogVerdict, found: list[Chain]) -> str:
    """For a quarantine line found missing, edited or added in ``chain``: where that line is
    in another chain's quarantine (moved or copied between chains), if it is."""
    if verdict.quarantine_suspect is None:
        return ""
    where = find_line([(c.label, c.quarantine) for c in found if c != chain],
                      verdict.quarantine_suspect)
    return "" if where is None else f"; that line is {where}"


def _same_log_id(verdicts: list[tuple[Chain, LogVerdict]]) -> str | None:
    owners: dict[str, Chain] = {}
    for chain, verdict in verdicts:
        if verdict.checkpoint is None:
            continue
        first = owners.setdefault(verdict.checkpoint.log_id, chain)
        if first is not chain:
            return (f"{chain.label} and {first.label} are one log (log id "
                    f"{verdict.checkpoint.log_id}): a chain was copied")
    return None
