"""Witness cosignatures on checkpoints: C2SP tlog-cosignature (v1, Ed25519).

A witness, run by someone other than the operator, cosigns a checkpoint once it has checked
that the checkpoint's tree is consistent with the largest one it accepted before for that
log (ingest/witness.py). A cosignature is one more signature line on the signed note::

    — <witness name> base64(key ID || timestamp || Ed25519 signature)

- the key ID is SHA-256(name || "\\n" || 0x04 || 32-byte public key)[:4] (0x04: the
  cosignature/v1 Ed25519 type, not the 0x01 of a plain signed-note key);
- the timestamp is the time of cosigning, POSIX seconds, a big-endian unsigned 64-bit
  integer (at most 2**63 - 1);
- the signature is over the message ``cosignature/v1\\n``, ``time <timestamp>\\n`` (ASCII
  decimal, no leading zeroes) and the whole note body (with its final newline, without
  any signature line).

A witness's public key is written as a signed-note verifier key with type 0x04:
``<name>+<key ID, 8 hex digits>+<base64(0x04 || public key)>``. A verifier knows the
witnesses it trusts by such keys, and ignores signature lines of any other name or key ID.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from schemas.checkpoint import _NAME, DASH, CheckpointError, _split

COSIGNATURE_V1 = 4
"""The key ID type byte of an Ed25519 cosignature/v1 (C2SP tlog-cosignature)."""
HEADER = "cosignature/v1\n"
MAX_TIMESTAMP = 2**63 - 1


def cosigner_key_id(name: str, public: bytes) -> bytes:
    """SHA-256(name || newline || 0x04 || public key)[:4]."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([COSIGNATURE_V1]) + public).digest()[:4]


def signed_message(body: str, timestamp: int) -> bytes:
    """What a cosignature/v1 signs: the header line, the time line, the note body."""
    return f"{HEADER}time {timestamp}\n{body}".encode()


@dataclass(frozen=True, slots=True)
class WitnessKey:
    """A witness's public key and name: checks its cosignatures."""

    name: str
    public: bytes

    @property
    def key_id(self) -> bytes:
        return cosigner_key_id(self.name, self.public)

    @property
    def vkey(self) -> str:
        """``<name>+<key ID hex>+<base64(0x04 || key)>``: what a regulator pins."""
        return (f"{self.name}+{self.key_id.hex()}+"
                f"{base64.b64encode(bytes([COSIGNATURE_V1]) + self.public).decode()}")

    @classmethod
    def from_vkey(cls, text: str) -> WitnessKey:
        """Read a witness verifier key; CheckpointError says what is wrong with it."""
        parts = text.strip().split("+", 2)
        if len(parts) != 3 or not _NAME.fullmatch(parts[0]):
            raise CheckpointError("not a witness key: expected <name>+<8 hex digits>+<base64 "
                                  "key> (the line `python -m ingest witness` prints)")
        name, digest, encoded = parts
        try:
            raw = base64.b64decode(encoded, validate=True)
        except binascii.Error as exc:
            raise CheckpointError(f"witness key {name}: the key is not base64") from exc
        if len(raw) != 33 or raw[0] != COSIGNATURE_V1:
            raise CheckpointError(f"witness key {name}: not an Ed25519 cosignature/v1 key "
                                  f"(type 0x{COSIGNATURE_V1:02x})")
        key = cls(name, raw[1:])
        if key.key_id.hex() != digest.lower():
            raise CheckpointError(f"witness key {name}: its key ID {digest} does not match "
                                  f"the key ({key.key_id.hex()})")
        return key

    def cosigned_at(self, note: str) -> int:
        """The timestamp of this witness's valid cosignature on ``note``; CheckpointError
        when the note carries none (no line of this name and key ID) or a bad one."""
        body, lines = _split(note)
        seen = False
        for line in lines:
            parts = line.split(" ")
            if len(parts) != 3 or parts[0] != DASH or parts[1] != self.name:
                continue
            try:
                raw = base64.b64decode(parts[2], validate=True)
            except binascii.Error:
                continue
            if raw[:4] != self.key_id:
                continue
            seen = True
            if len(raw) != 4 + 8 + 64:
                continue
            timestamp = int.from_bytes(raw[4:12], "big")
            if timestamp > MAX_TIMESTAMP:
                continue
            try:
                Ed25519PublicKey.from_public_bytes(self.public).verify(
                    raw[12:], signed_message(body, timestamp))
            except InvalidSignature:
                continue
            return timestamp
        if seen:
            raise CheckpointError(f"bad cosignature by witness {self.name} "
                                  f"({self.key_id.hex()}): the checkpoint was altered after "
                                  "it was cosigned, or the cosignature forged")
        raise CheckpointError(f"not cosigned by witness {self.name} ({self.key_id.hex()})")


@dataclass(frozen=True, slots=True)
class Cosigner:
    """A witness's private key and name: adds its cosignature to a note."""

    name: str
    private: Ed25519PrivateKey

    @property
    def key(self) -> WitnessKey:
        return WitnessKey(self.name, self.private.public_key().public_bytes(
            Encoding.Raw, PublicFormat.Raw))

    def cosign(self, note: str, timestamp: int) -> str:
        """``note`` with this witness's cosignature line (any earlier line of this witness
        replaced), signed as of ``timestamp`` (POSIX seconds)."""
        if not 0 <= timestamp <= MAX_TIMESTAMP:
            raise ValueError(f"a cosignature's timestamp is 0 to 2**63-1, not {timestamp}")
        body, lines = _split(note)
        key = self.key
        signature = self.private.sign(signed_message(body, timestamp))
        stamp = base64.b64encode(key.key_id + timestamp.to_bytes(8, "big") + signature)
        kept = [line for line in lines if not _is_line_of(line, key)]
        return f"{body}\n" + "".join(f"{line}\n" for line in kept) + (
            f"{DASH} {self.name} {stamp.decode()}\n")


def _is_line_of(line: str, key: WitnessKey) -> bool:
    parts = line.split(" ")
    if len(parts) != 3 or parts[1] != key.name:
        return False
    try:
        return base64.b64decode(parts[2], validate=True)[:4] == key.key_id
    except binascii.Error:
        return False
