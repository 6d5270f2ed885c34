"""The writer of the append-only event log and its quarantine (format: schemas/logformat.py).

A batch is made durable in this order, so that every message ends in the log exactly once
or in quarantine with its reason, whatever crashes (docs/design.md principles 2 and 3):

1. the quarantine file of the batch (``quarantine/segment-NNNNNN.jsonl``) is written and
   fsynced, when the batch has bad messages; its lines are leaves of the quarantine's own
   Merkle tree, whose size and root the segment's checkpoint signs (schemas/quarantine.py);
2. the log segment is written under a temporary name, fsynced, renamed into place, and the
   directory fsynced. The rename is the commit point: the segment header records the next
   Kafka offset of every partition, quarantined messages included;
3. only then does the caller commit the offsets to Kafka.

On opening, a quarantine file without its segment (a crash between 1 and 2) and temporary
files are removed: that batch was not committed and will be consumed again.
"""

from __future__ import annotations

import base64
import datetime as dt
import fcntl
import json
import os
import socket
import stat
import sys
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from fastavro import writer

from ingest.keys import load_signer
from schemas.checkpoint import Checkpoint, CheckpointError, Signer, message_digest, open_signed
from schemas.logformat import (
    GENESIS,
    META_CHECKPOINT,
    META_LOG_ID,
    META_NEXT_OFFSETS,
    META_TREE,
    SEGMENT,
    Headers,
    LogError,
    chain_next,
    headers_field,
    leaf_input,
    next_offsets,
    read_segment,
    record_schema,
    segment_metadata,
    segment_name,
    segments,
)
from schemas.merkle import Tree, leaf_hash
from schemas.quarantine import META_QUARANTINE, grown, header, header_tree, rebuilt


@dataclass(frozen=True, slots=True, kw_only=True)
class Received:
    """A message as it came off Kafka."""

    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    key: bytes | None
    value: bytes | None
    """None for a tombstone (a message without a value): it goes to quarantine, never to
    the log."""
    headers: Headers = ()
    """The message's Kafka headers, kept in its record (and its leaf input when any)."""

    @property
    def coordinates(self) -> str:
        return f"{self.topic}[{self.partition}]@{self.offset}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Quarantined:
    """A message that could not enter the log, with the reason."""

    message: Received
    reason: str

    def to_json(self) -> str:
        m = self.message
        return json.dumps(
            {
                "coordinates": m.coordinates,
                "topic": m.topic,
                "partition": m.partition,
                "offset": m.offset,
                "timestamp_ms": m.timestamp_ms,
                "reason": self.reason,
                "key_b64": None if m.key is None else base64.b64encode(m.key).decode(),
                "value_b64": None if m.value is None else base64.b64encode(m.value).decode(),
                **({"headers": [[k, None if v is None else base64.b64encode(v).decode()]
                                for k, v in m.headers]} if m.headers else {}),
            },
            sort_keys=True,
        )


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class LogWriter:
    """Appends batches to the log in ``log_dir`` and bad messages to ``quarantine_dir``,
    signs a checkpoint of the log's Merkle tree into every segment it writes and beside the
    log (``checkpoints/``), and holds an exclusive lock on the log while it lives: a second
    writer on the same log is refused (LogError), whatever the process.

    ``signer`` is the checkpoint signing key (ingest/keys.py); by default the key of the
    log's data directory (``log_dir``'s parent), created on first use."""

    def __init__(self, log_dir: Path, quarantine_dir: Path, *, signer: Signer | None = None,
                 checkpoint_dir: Path | None = None) -> None:
        self.log_dir = log_dir
        self.quarantine_dir = quarantine_dir
        self.checkpoint_dir = checkpoint_dir or log_dir.parent / "checkpoints"
        self.on_checkpoint: Callable[[str], None] | None = None
        self.peer_offsets: Callable[[], dict[str, tuple[int, str | None]]] | None = None
        """With several ingest workers (ingest/peers.py): the highest signed next offset per
        ``topic[partition]`` of the other chains, with the digest of the last message that
        chain took there, read by :meth:`refresh_peers`."""
        self._peer: dict[str, int] = {}
        self._peer_last: dict[str, str] = {}
        """Called with every checkpoint signed (after its segment is committed), e.g. to
        publish it to the checkpoint topic; its failures never undo a commit."""
        log_dir.mkdir(parents=True, exist_ok=True)
        self._lock = _lock(log_dir)
        try:
            self._open(signer)
        except BaseException:
            self._lock.close()
            raise

    def _open(self, signer: Signer | None) -> None:
        log_dir = self.log_dir
        self.signer = signer or load_signer(log_dir.parent)
        self.quarantine_dir.mkdir(parents=True, exist_ok=True)
        self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
        for tmp in [*log_dir.glob("*.tmp"), *self.checkpoint_dir.glob("*.tmp")]:
            tmp.unlink()
        segs = segments(log_dir)
        self._number = 0
        self._position = 0
        self._last_hash = GENESIS
        self._next: dict[str, int] = {}
        self._tree = Tree()
        self._log_id = uuid.uuid4().hex
        self._legacy_origin = False
        self._checkpoint: str | None = None
        self._last_messages: dict[str, str] = {}
        self._qtree: Tree | None = None
        """The quarantine's tree as the last checkpoint signed it; None until known."""
        if segs:
            last = segs[-1]
            match = SEGMENT.match(last.name)
            assert match is not None
            self._number = int(match.group(1))
            meta = segment_metadata(last)
            if META_CHECKPOINT in meta:
                self._resume_signed(last, meta)
            else:
                self._resume_unsigned(segs, last)
        for q in self.quarantine_dir.glob("segment-*.jsonl"):
            if int(q.stem.split("-")[1]) > self._number:
                q.unlink()
        if self._qtree is None:
            # Checkpoints that did not sign the quarantine: it is signed from now on, as the
            # files stand (verify says of the segments before that it was not signed).
            self._qtree = rebuilt(self.quarantine_dir, self._number)

    def _resume_signed(self, last: Path, meta: dict[str, str]) -> None:
        """Go on from the last segment's signed checkpoint and tree (no re-reading)."""
        try:
            cp = open_signed(meta[META_CHECKPOINT], self.signer.verifier)
            tree_meta = json.loads(meta[META_TREE])
            tree = Tree(int(tree_meta["size"]), [bytes.fromhex(h) for h in tree_meta["subtrees"]])
        except (CheckpointError, ValueError, KeyError, TypeError) as exc:
            raise LogError(
                f"{last.name}: the log's last checkpoint cannot be trusted ({exc}); nothing was "
                "written. Run `python -m ingest verify` to find out why; if the signing key "
                "was changed, restore it (docs/log-integrity.md)") from exc
        if tree.size != cp.size or tree.root() != cp.root:
            raise LogError(f"{last.name}: the tree in its header does not give the signed root "
                           "(the header was edited); run `python -m ingest verify`")
        self._tree, self._checkpoint, self._log_id = tree, meta[META_CHECKPOINT], cp.log_id
        self._legacy_origin = cp.legacy_origin  # the origin is the log's for life
        self._position, self._last_hash, self._next = cp.size, cp.chain, dict(cp.next_offsets)
        self._last_messages = dict(cp.last_messages)
        if cp.quarantine is not None:
            parsed = header_tree(meta.get(META_QUARANTINE))
            if parsed is None or (parsed[0].size, parsed[0].root()) != cp.quarantine:
                raise LogError(f"{last.name}: the quarantine tree in its header does not give "
                               "the signed quarantine root (the header was edited); run "
                               "`python -m ingest verify`")
            self._qtree = parsed[0]

    def _resume_unsigned(self, segs: list[Path], last: Path) -> None:
        """A log written before checkpoints: rebuild the tree by reading it all once."""
        print(f"ingest: {self.log_dir} was written without signed checkpoints; its tree is "
              "rebuilt and the next segments are signed (the old ones stay unsigned: verify "
              "will say so)", file=sys.stderr)
        self._next = next_offsets(last)
        for seg in segs:
            for rec in read_segment(seg):
                self._tree.append(leaf_hash(leaf_input(
                    position=rec.position, topic=rec.topic, partition=rec.partition,
                    offset=rec.offset, timestamp_ms=rec.timestamp_ms, key=rec.key,
                    value=rec.value, headers=rec.headers)))
                self._position, self._last_hash = rec.position + 1, rec.hash

    def refresh_peers(self) -> None:
        """Read again what the other workers' chains hold (a no-op for a lone ingest)."""
        if self.peer_offsets is not None:
            held = self.peer_offsets()
            self._peer = {key: nxt for key, (nxt, _) in held.items()}
            self._peer_last = {key: d for key, (_, d) in held.items() if d is not None}

    def next_offset(self, topic: str, partition: int) -> int | None:
        """The next Kafka offset the log expects from a partition: the highest this chain or
        (with several workers) any other chain holds; None if never seen."""
        return self._merged(f"{topic}[{partition}]")

    def next_offsets(self) -> dict[str, int]:
        """``topic[partition]`` -> :meth:`next_offset`, for every partition seen."""
        return {k: v for k in {*self._next, *self._peer}
                if (v := self._merged(k)) is not None}

    def _merged(self, key: str) -> int | None:
        own, peer = self._next.get(key), self._peer.get(key)
        return peer if own is None or (peer is not None and peer > own) else own

    @property
    def records(self) -> int:
        return self._position

    @property
    def last_checkpoint(self) -> str | None:
        """The signed checkpoint of the last segment (None for a log still empty)."""
        return self._checkpoint

    def last_message(self, topic: str, partition: int) -> str | None:
        """The digest (schemas.checkpoint.message_digest) of the message at
        :meth:`next_offset` - 1, as the signed checkpoint of the chain that holds that
        offset says (this one, or with several workers another); None if unknown."""
        key = f"{topic}[{partition}]"
        own, peer = self._next.get(key), self._peer.get(key)
        if peer is not None and (own is None or peer > own):
            return self._peer_last.get(key)
        return self._last_messages.get(key) if own is not None else None

    def _sign(self, tree: Tree, segment: str, chain: bytes, nxt: dict[str, int],
              last: dict[str, str] | None = None, qtree: Tree | None = None,
              epochs: Mapping[str, int] | None = None) -> str:
        now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        signed_q = qtree if qtree is not None else self._qtree
        assert signed_q is not None
        return self.signer.sign(Checkpoint(
            log_id=self._log_id, size=tree.size, root=tree.root(), signed_at=now,
            next_offsets=nxt, segment=segment, chain=chain,
            last_messages=self._last_messages if last is None else last,
            quarantine=(signed_q.size, signed_q.root()),
            legacy_origin=self._legacy_origin, epochs=epochs or {}))

    def append(self, accepted: list[Received], quarantined: list[Quarantined],
               epochs: Mapping[str, int] | None = None) -> Path | None:
        """Make one batch durable (see the module docstring); returns the new segment.
        ``epochs``: the fencing epoch (ingest/fence.py) of each ``topic[partition]`` of the
        batch, signed in its checkpoint; the caller holds those partitions' fence locks."""
        consumed = sorted([*accepted, *(q.message for q in quarantined)],
                          key=lambda m: (m.topic, m.partition, m.offset))
        if not consumed:
            return None
        nxt = dict(self._next)
        last = dict(self._last_messages)
        newest: dict[str, Received] = {}
        for m in consumed:
            key = f"{m.topic}[{m.partition}]"
            expected = nxt.get(key)
            if expected is not None and m.offset < expected:
                raise LogError(f"{m.coordinates} is already in the log (next expected {expected})")
            nxt[key] = m.offset + 1
            newest[key] = m
        for key, m in newest.items():  # only each partition's last message is signed
            last[key] = message_digest(m.key, m.value)
        number = self._number + 1
        name = segment_name(number)
        qpath = self.quarantine_dir / name.replace(".avro", ".jsonl")
        lines = [q.to_json() for q in quarantined]
        batch = [leaf_hash(line.encode()) for line in lines]
        assert self._qtree is not None
        qtree = grown(self._qtree, batch)
        if quarantined:
            try:
                with qpath.open("w", encoding="utf-8") as fo:
                    for line in lines:
                        fo.write(line + "\n")
                    fo.flush()
                    os.fsync(fo.fileno())
                _fsync_dir(self.quarantine_dir)
            except BaseException:
                qpath.unlink(missing_ok=True)  # the batch was not committed
                raise
        records: list[dict[str, object]] = []
        position, prev = self._position, self._last_hash
        tree = Tree(self._tree.size, self._tree.subtrees)
        grow, add = tree.append, records.append  # the hot loop: a record per message
        for m in sorted(accepted, key=lambda m: (m.topic, m.partition, m.offset)):
            if m.value is None:
                raise LogError(f"{m.coordinates} has no value (a tombstone): it belongs in "
                               "quarantine, not in the log")
            leaf = leaf_input(position=position, topic=m.topic, partition=m.partition,
                              offset=m.offset, timestamp_ms=m.timestamp_ms, key=m.key,
                              value=m.value, headers=m.headers)
            digest = chain_next(prev, leaf)
            grow(leaf_hash(leaf))
            add({"position": position, "topic": m.topic, "partition": m.partition,
                 "offset": m.offset, "timestamp_ms": m.timestamp_ms, "key": m.key,
                 "value": m.value, "prev_hash": prev, "hash": digest,
                 "headers": headers_field(m.headers) if m.headers else None})
            position, prev = position + 1, digest
        checkpoint = self._sign(tree, name, prev, nxt, last, qtree, epochs)
        tmp = self.log_dir / (name + ".tmp")
        try:
            self._write_segment(tmp, records, nxt, checkpoint, tree, header(qtree, batch))
        except BaseException:
            # Nothing was committed: leave no half-written file holding the disk, and no
            # quarantine file without its segment.
            tmp.unlink(missing_ok=True)
            qpath.unlink(missing_ok=True)
            raise
        final = self.log_dir / name
        os.replace(tmp, final)
        _fsync_dir(self.log_dir)
        self._number, self._position, self._last_hash, self._next = number, position, prev, nxt
        self._tree, self._checkpoint, self._last_messages = tree, checkpoint, last
        self._qtree = qtree
        _write_atomic(self.checkpoint_dir / name.replace(".avro", ".checkpoint"), checkpoint)
        _write_atomic(self.checkpoint_dir / "latest.checkpoint", checkpoint)
        self._announce(checkpoint)
        return final

    def _write_segment(self, tmp: Path, records: list[dict[str, object]], nxt: dict[str, int],
                       checkpoint: str, tree: Tree, quarantine: str) -> None:
        with tmp.open("wb") as fo:
            writer(
                fo, record_schema(), records, codec="deflate", codec_compression_level=1,
                metadata={
                    META_NEXT_OFFSETS: json.dumps(nxt, sort_keys=True),
                    META_CHECKPOINT: checkpoint,
                    META_TREE: json.dumps({"size": tree.size,
                                           "subtrees": [h.hex() for h in tree.subtrees]}),
                    META_LOG_ID: self._log_id,
                    META_QUARANTINE: quarantine,
                },
                strict_allow_default=True,
            )
            fo.flush()
            os.fsync(fo.fileno())

    def _announce(self, checkpoint: str) -> None:
        if self.on_checkpoint is None:
            return
        try:
            self.on_checkpoint(checkpoint)
        except Exception as exc:  # the segment is committed; a witness that fails is reported
            print(f"ingest: the checkpoint could not be handed on ({exc!r}); it is in the "
                  "segment and beside the log", file=sys.stderr)

    def close(self) -> str | None:
        """Sign the shutdown checkpoint (the log as it stands, the time of shutdown) into
        ``checkpoints/latest.checkpoint``, and release the lock. Returns that checkpoint."""
        text = None
        try:
            if self._number:
                text = self._sign(self._tree, segment_name(self._number), self._last_hash,
                                  self._next)
                _write_atomic(self.checkpoint_dir / "latest.checkpoint", text)
                self._checkpoint = text
                self._announce(text)
        except OSError as exc:  # a full disk, say: the segments' own checkpoints stand
            print(f"ingest: the shutdown checkpoint could not be written ({exc}); every "
                  "segment's own signed checkpoint stands", file=sys.stderr)
        finally:
            self._lock.close()
        return text

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fo:
            fo.write(text)
            fo.flush()
            os.fsync(fo.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _lock(log_dir: Path) -> IO[str]:
    """Hold an exclusive lock on the log (``log_dir/.lock``) for this process's life; the
    kernel releases it when the process ends, however it ends.

    The lock file is opened without following a symbolic link (``O_NOFOLLOW``) and without
    truncating it, and must be a regular file with one name: a link planted there would
    otherwise make ingest write over the file it points to, outside the data directory
    (CWE-59, link following). Anything else there is refused (LogError) and left as it is."""
    path = log_dir / ".lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                     | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        kind = ("a symbolic link" if path.is_symlink()
                else f"not a file ingest can open ({exc.strerror})")
        raise LogError(f"{path} is {kind}: ingest locks the log with a regular file of its "
                       "own there and follows no link out of the data directory; remove it "
                       "and start again") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(fd)
        kind = ("not a regular file" if not stat.S_ISREG(info.st_mode)
                else f"a regular file with {info.st_nlink} names (a hard link)")
        raise LogError(f"{path} is {kind}: ingest locks the log with a regular file of its "
                       "own there and writes into no other; remove it and start again")
    os.set_blocking(fd, True)
    fo = os.fdopen(fd, "r+", encoding="utf-8")
    try:
        fcntl.flock(fo.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fo.seek(0)
        holder = fo.read(200).strip() or "another process"
        fo.close()
        raise LogError(
            f"{log_dir} is already being written by {holder}: a second writer would corrupt "
            "the log. Stop the other ingest first, or give this one another --data "
            "directory") from None
    fo.seek(0)
    fo.truncate()
    fo.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
    fo.flush()
    return fo
