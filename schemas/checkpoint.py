"""Signed checkpoints of the log: what a regulator keeps to hold us to the log we wrote.

A checkpoint states the log's size (records), the root of its Merkle tree
(``schemas.merkle``), the Kafka offsets the log holds and when it was signed, and is
signed with Ed25519. Its text follows two public formats, so that tools written by others
can read and check it (docs/log-integrity.md):

- the checkpoint body of C2SP tlog-checkpoint: the log's origin line, the tree size in
  decimal, the root hash in base64, then extension lines (ours start with ``catwalk-``);
- the envelope of C2SP signed-note: the body, a blank line, then one signature line per
  signer, ``— <key name> <base64(4-byte key hash || signature)>``, where the key hash is
  the first four bytes of SHA-256(key name, a newline, the byte 0x01 for Ed25519, the
  public key). A verifier key is written ``<name>+<key hash, 8 hex digits>+<base64(0x01
  || public key)>``.

The origin line. C2SP tlog-checkpoint asks (SHOULD) for an origin without spaces or ``+``,
a schema-less URL naming the log, and that the log's key be named as its origin, so that a
tool that looks a log's key up by origin (a C2SP witness, a monitor) finds it. A checkpoint
now says ``catwalk.invalid/log/<log id>``: ``.invalid`` is the top-level name reserved never
to resolve (RFC 2606 section 2, RFC 6761 section 6.4), so the origin names the log without
claiming a host that a casino may not own, and without a scheme, as C2SP asks. It carries
two signature lines by the one key: ``catwalk-ingest`` (the name regulators pinned) and one
under the origin as key name. A log started with the first origin form,
``catwalk event log <log id>``, keeps it for its life (the origin is the log's identity:
a witness that saw it must know its later checkpoints) and reads and verifies as before,
with its one signature line.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ED25519 = 1
"""The signature type byte of Ed25519 in a signed note."""
DASH = "\u2014"
_NAME = re.compile(r"[^\s+]+")
_ORIGIN = "catwalk event log "
"""The origin line of the first checkpoints (spaces: kept only by the logs begun with it)."""
ORIGIN_PREFIX = "catwalk.invalid/log/"
"""The origin line of a log begun since, followed by its log id."""
MAX_NOTE = 64 * 1024
"""No checkpoint is longer than this; a longer text is refused before it is parsed."""
MAX_VKEY = 4 * 1024
"""No verifier key (name, hash, base64 key) is longer than this; a longer text or file is
refused before it is parsed, and never shown whole."""
SHOWN = 60
"""How much of a text that is not what it should be an error shows (:func:`shown`)."""


def shown(text: str, limit: int = SHOWN) -> str:
    """``text`` as an error shows it: quoted, and cut to its first ``limit`` characters
    with its length when longer, so that a hostile or mistaken 600 KB argument gives one
    short line, never itself."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


class CheckpointError(ValueError):
    """A checkpoint that cannot be read, or whose signature does not verify."""


def message_digest(key: bytes | None, value: bytes | None) -> str:
    """SHA-256 of a Kafka message's key and value, each marked present or absent and
    length-prefixed (hex)."""
    h = hashlib.sha256()
    for part in (key, value):
        h.update(b"\x00" if part is None else b"\x01" + len(part).to_bytes(8, "big") + part)
    return h.hexdigest()


@lru_cache(maxsize=64)
def key_hash(name: str, public: bytes) -> bytes:
    """The signed-note key hash: SHA-256(name, newline, type byte, public key)[:4]."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([ED25519]) + public).digest()[:4]


@dataclass(frozen=True, slots=True, kw_only=True)
class Checkpoint:
    """What one signed checkpoint says of the log."""

    log_id: str
    size: int
    root: bytes
    signed_at: str
    """UTC, ISO 8601 with microseconds and ``Z``."""
    next_offsets: Mapping[str, int] = field(default_factory=dict)
    """``topic[partition]`` -> the next Kafka offset the log expects (quarantined messages
    counted): ingest resumes from these, never from an unsigned header."""
    segment: str = ""
    """The segment whose last record is record ``size - 1`` (empty for an empty log)."""
    chain: bytes = bytes(32)
    """The hash chain's last hash (schemas.logformat.chain_hash) at that record."""
    last_messages: Mapping[str, str] = field(default_factory=dict)
    """``topic[partition]`` -> :func:`message_digest` of the last message the log took from
    it (in the log or in quarantine): a topic deleted and filled again past the log's
    offsets shows as another message at that offset."""
    quarantine: tuple[int, bytes] | None = None
    """The size and RFC 9162 Merkle root of the chain's quarantine tree (every quarantined
    message so far, each leaf the exact bytes of its quarantine line:
    ``schemas.quarantine``), as the extension line ``catwalk-quarantine <size> <base64
    root>``; None in a checkpoint written before the quarantine was signed."""
    legacy_origin: bool = False
    """The log was begun with the first origin form, ``catwalk event log <log id>``, and
    keeps it (one signature line); otherwise ``catwalk.invalid/log/<log id>``."""
    epochs: Mapping[str, int] = field(default_factory=dict)
    """``topic[partition]`` -> the fencing epoch (``ingest.fence``) under which this
    segment's messages of that partition were written: a worker that lost the partition
    holds a lower epoch than its new owner, so a write of a fenced worker shows as an epoch
    going back as offsets grow (``schemas.log_epochs``). Empty: written without fencing."""

    @property
    def origin(self) -> str:
        return (_ORIGIN if self.legacy_origin else ORIGIN_PREFIX) + self.log_id

    def body(self) -> str:
        """The checkpoint body (C2SP tlog-checkpoint), every line ending in a newline."""
        offsets = json.dumps(dict(sorted(self.next_offsets.items())), separators=(",", ":"))
        lines = [
            self.origin, str(self.size), base64.b64encode(self.root).decode(),
            f"catwalk-time {self.signed_at}",
            f"catwalk-segment {self.segment or '-'}",
            f"catwalk-chain {self.chain.hex()}",
            f"catwalk-next-offsets {offsets}",
        ]
        if self.last_messages:
            last = json.dumps(dict(sorted(self.last_messages.items())), separators=(",", ":"))
            lines.append(f"catwalk-last-messages {last}")
        if self.quarantine is not None:
            count, root = self.quarantine
            lines.append(f"catwalk-quarantine {count} {base64.b64encode(root).decode()}")
        if self.epochs:
            epochs = json.dumps(dict(sorted(self.epochs.items())), separators=(",", ":"))
            lines.append(f"catwalk-epochs {epochs}")
        return "".join(line + "\n" for line in lines)


@dataclass(frozen=True, slots=True)
class Verifier:
    """A public key that checks checkpoint signatures, with the name it signs under."""

    name: str
    public: bytes

    @property
    def key_hash(self) -> bytes:
        return key_hash(self.name, self.public)

    @property
    def vkey(self) -> str:
        """The verifier key in signed-note form: what a regulator pins."""
        return (f"{self.name}+{self.key_hash.hex()}+"
                f"{base64.b64encode(bytes([ED25519]) + self.public).decode()}")

    @classmethod
    def from_vkey(cls, text: str) -> Verifier:
        """Read ``<name>+<hash>+<base64 key>``; CheckpointError says what is wrong."""
        if len(text) > MAX_VKEY:
            raise CheckpointError(f"not a verifier key: {shown(text)}; a verifier key is at "
                                  f"most {MAX_VKEY:,} characters")
        parts = text.strip().split("+", 2)
        if len(parts) != 3 or not _NAME.fullmatch(parts[0]):
            raise CheckpointError(
                "not a verifier key: expected <name>+<8 hex digits>+<base64 key> "
                "(the text of keys/signing.pub)")
        name, digest, encoded = parts
        name = name if len(name) <= SHOWN else shown(name)
        try:
            raw = base64.b64decode(encoded, validate=True)
        except binascii.Error as exc:
            raise CheckpointError(f"verifier key {name}: the key is not base64") from exc
        if len(raw) != 33 or raw[0] != ED25519:
            raise CheckpointError(f"verifier key {name}: not an Ed25519 key")
        verifier = cls(name, raw[1:])
        if verifier.key_hash.hex() != digest.lower():
            raise CheckpointError(f"verifier key {name}: its key hash {shown(digest)} does not "
                                  "match "
                                  f"the key ({verifier.key_hash.hex()})")
        return verifier

    def check(self, message: bytes, signature: bytes) -> bool:
        """Whether ``signature`` is this key's Ed25519 signature of ``message``. A signature
        that checked once is not checked again (the same note is read twice: in its
        segment's header and in ``checkpoints/``): remembered by the SHA-256 of key,
        signature and message, for this process only; a failure is never remembered."""
        seen = hashlib.sha256(self.public + signature + message).digest()
        if seen in _VERIFIED:
            return True
        try:
            _public_key(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        if len(_VERIFIED) >= _VERIFIED_MAX:
            _VERIFIED.clear()
        _VERIFIED.add(seen)
        return True


_VERIFIED: set[bytes] = set()
_VERIFIED_MAX = 1 << 17


@lru_cache(maxsize=64)
def _public_key(public: bytes) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(public)


@dataclass(frozen=True, slots=True)
class Signer:
    """The private key ingest signs checkpoints with, and its name."""

    name: str
    private: Ed25519PrivateKey

    @property
    def verifier(self) -> Verifier:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        public = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return Verifier(self.name, public)

    def sign(self, checkpoint: Checkpoint) -> str:
        """The signed note: body, blank line, the signature line under this key's name,
        then (an origin without spaces) the same signature under the origin as key name
        (C2SP tlog-checkpoint: the key name SHOULD be the origin)."""
        body = checkpoint.body()
        signature = self.private.sign(body.encode())
        stamp = base64.b64encode(self.verifier.key_hash + signature).decode()
        note = f"{body}\n{DASH} {self.name} {stamp}\n"
        origin = checkpoint.origin
        if not checkpoint.legacy_origin and origin != self.name:
            by_origin = base64.b64encode(key_hash(origin, self.verifier.public) + signature)
            note += f"{DASH} {origin} {by_origin.decode()}\n"
        return note


def _extensions(lines: list[str]) -> dict[str, str]:
    """The extension lines after the first three, by their first word (each ``catwalk-``
    and at most once), in whatever order and number: a line this reader does not know is
    signed with the rest and left to the readers that know it."""
    found: dict[str, str] = {}
    for number, line in enumerate(lines[3:], start=4):
        name, sep, value = line.partition(" ")
        if not sep or not name.startswith("catwalk-"):
            raise CheckpointError(f"line {number} is not a catwalk- extension line "
                                  f"({line[:60]!r})")
        if name in found:
            raise CheckpointError(f"line {number}: a second {name} line")
        found[name] = value
    return found


def _wanted(extensions: Mapping[str, str], name: str) -> str:
    if name not in extensions:
        raise CheckpointError(f"checkpoint body: no {name} line")
    return extensions[name]


def _quarantine(raw: str | None) -> tuple[int, bytes] | None:
    if raw is None:
        return None
    count, _, encoded = raw.partition(" ")
    try:
        root = base64.b64decode(encoded, validate=True)
    except binascii.Error:
        root = b""
    if not count.isdigit() or len(root) != 32:
        raise CheckpointError("checkpoint body: catwalk-quarantine is not <size> <base64 root>")
    return int(count), root


def parse(text: str) -> Checkpoint:
    """The checkpoint a signed note states, WITHOUT checking its signature (see
    :func:`open_signed`)."""
    body, _ = _split(text)
    lines = body.split("\n")[:-1]
    legacy = bool(lines) and lines[0].startswith(_ORIGIN)
    prefix = _ORIGIN if legacy else ORIGIN_PREFIX
    if len(lines) < 3 or not lines[0].startswith(prefix) or not (
            legacy or _NAME.fullmatch(lines[0])):
        raise CheckpointError(f"not a Catwalk checkpoint: the first line should be "
                              f"{ORIGIN_PREFIX}<log id> (or, in a log begun before it, "
                              f"{_ORIGIN}<log id>)")
    ext = _extensions(lines)
    try:
        size = int(lines[1]) if lines[1].isdigit() else -1
        root = base64.b64decode(lines[2], validate=True)
        chain = bytes.fromhex(_wanted(ext, "catwalk-chain"))
        offsets = json.loads(_wanted(ext, "catwalk-next-offsets"))
        last: object = json.loads(ext.get("catwalk-last-messages", "{}"))
    except (ValueError, binascii.Error) as exc:
        raise CheckpointError(f"checkpoint body cannot be read: {exc}") from exc
    if size < 0 or len(root) != 32 or len(chain) != 32:
        raise CheckpointError("checkpoint body: size, root or chain hash malformed")
    if not isinstance(offsets, dict) or not all(
            isinstance(k, str) and type(v) is int and v >= 0 for k, v in offsets.items()):
        raise CheckpointError("checkpoint body: catwalk-next-offsets is not a map of offsets")
    segment = _wanted(ext, "catwalk-segment")
    try:
        epochs = json.loads(ext.get("catwalk-epochs", "{}"))
    except ValueError as exc:
        raise CheckpointError(f"checkpoint body cannot be read: {exc}") from exc
    if not isinstance(last, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in last.items()):
        raise CheckpointError("checkpoint body: catwalk-last-messages is not a map of digests")
    if not isinstance(epochs, dict) or not all(
            isinstance(k, str) and type(v) is int and v >= 1 for k, v in epochs.items()):
        raise CheckpointError("checkpoint body: catwalk-epochs is not a map of epochs (>= 1)")
    return Checkpoint(log_id=lines[0][len(prefix):], size=size, root=root,
                      signed_at=_wanted(ext, "catwalk-time"), next_offsets=offsets,
                      segment="" if segment == "-" else segment, chain=chain,
                      last_messages=last, legacy_origin=legacy,
                      quarantine=_quarantine(ext.get("catwalk-quarantine")), epochs=epochs)


_CONTROL = re.compile("[\x00-\x09\x0b-\x1f]")
"""A control character other than the newline: never in a signed note."""


def _split(text: str) -> tuple[str, list[str]]:
    if len(text) > MAX_NOTE:
        raise CheckpointError(f"a checkpoint is at most {MAX_NOTE:,} characters")
    body, sep, signatures = text.partition("\n\n")
    if not sep or not body or _CONTROL.search(text):
        raise CheckpointError("not a signed note: a body, a blank line, then signature lines")
    lines = signatures.split("\n")
    if lines[-1] != "" or len(lines) < 2:
        raise CheckpointError("not a signed note: no signature line, or no final newline")
    return body + "\n", lines[:-1]


def open_signed(text: str, verifier: Verifier) -> Checkpoint:
    """The checkpoint, once ``verifier``'s signature on it is found and checks; otherwise
    CheckpointError saying whether the note is malformed, signed by another key, or
    forged/altered."""
    body, lines = _split(text)
    checkpoint = parse(text)
    others = []
    for line in lines:
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != DASH:
            raise CheckpointError(f"malformed signature line {line[:80]!r}")
        try:
            raw = base64.b64decode(parts[2], validate=True)
        except binascii.Error as exc:
            raise CheckpointError("a signature is not base64") from exc
        if parts[1] != verifier.name or raw[:4] != verifier.key_hash:
            others.append(f"{shown(parts[1])} ({raw[:4].hex()})")
            continue
        if len(raw) != 68 or not verifier.check(body.encode(), raw[4:]):
            raise CheckpointError(
                f"bad signature: the checkpoint for {checkpoint.size:,} records signed at "
                f"{_short(checkpoint.signed_at)} does not verify with key {verifier.name} "
                f"({verifier.key_hash.hex()}): it was altered or forged")
        return checkpoint
    raise CheckpointError(
        f"the checkpoint is not signed by the key {verifier.name} ({verifier.key_hash.hex()})"
        f"; signed by {', '.join(others) or 'no one'}")


def _short(text: str) -> str:
    """Text from a note not yet verified, as an error shows it: whole when short."""
    return text if len(text) <= SHOWN else shown(text)


def read_verifier(source: str | Path) -> Verifier:
    """A verifier key given as its text (``name+hash+key``) or as a file holding it. A text
    or file larger than any key, or a file that is not text, is refused in one short line
    that shows at most the first characters and the size (:func:`shown`)."""
    text = str(source)
    if "+" not in text or os.path.lexists(text):
        from schemas.small_file import read_small  # the one reader of key files

        text = read_small(Path(text), "public key", MAX_VKEY, follow=True,
                          error=CheckpointError)
    return Verifier.from_vkey(text)
