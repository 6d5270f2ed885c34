"""Ed25519 key files in the signed-note forms: one reader and one atomic maker for every key
Catwalk signs with (the log's checkpoints, replay's outputs, the dashboard's journals).

A private key file holds one line, ``PRIVATE+KEY+<name>+<key hash>+<base64(0x01 || 32-byte
seed)>``; its public half is a verifier key, ``<name>+<key hash>+<base64(0x01 || key)>``
(schemas.checkpoint.Verifier.vkey), the line a regulator pins (docs/log-integrity.md,
"Keys"). A key made here is created whole or not at all, mode 0600, and a symlink or any
file other than a regular file where a key should be is refused, never followed.
"""

from __future__ import annotations

import base64
import binascii
import os
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from schemas import small_file
from schemas.checkpoint import ED25519, CheckpointError, Signer, key_hash

MAX_KEY_FILE = 4096
"""No key file is longer than this; a longer one is refused unread."""


class KeyFileError(CheckpointError):
    """A key file cannot be read or created; the message says what to do."""


def encode_private(name: str, private: Ed25519PrivateKey) -> str:
    seed = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    public = Signer(name, private).verifier.public
    return (f"PRIVATE+KEY+{name}+{key_hash(name, public).hex()}+"
            f"{base64.b64encode(bytes([ED25519]) + seed).decode()}\n")


def decode_private(text: str, where: Path) -> Signer:
    parts = text.strip().split("+", 4)
    if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
        raise KeyFileError(
            f"{where}: not a signing key (expected PRIVATE+KEY+<name>+<hash>+<key>)")
    name, digest, encoded = parts[2:]
    try:
        raw = base64.b64decode(encoded, validate=True)
    except binascii.Error as exc:
        raise KeyFileError(f"{where}: the key is not base64") from exc
    if len(raw) != 33 or raw[0] != ED25519:
        raise KeyFileError(f"{where}: not an Ed25519 signing key")
    signer = Signer(name, Ed25519PrivateKey.from_private_bytes(raw[1:]))
    if signer.verifier.key_hash.hex() != digest:
        raise KeyFileError(f"{where}: the key hash {digest} does not match the key")
    return signer


def read_small(path: Path, what: str = "key", limit: int = MAX_KEY_FILE, *,
               follow: bool = False) -> str:
    """The text of a small regular file (schemas.small_file.read_small); KeyFileError names
    the file and what it is instead."""
    return small_file.read_small(path, what, limit, follow=follow, error=KeyFileError)


def load_or_create(private_path: Path, public_path: Path | None, *, name: str,
                   create: bool, who: str, missing_hint: str, follow: bool = False) -> Signer:
    """The signer in ``private_path``; made there (atomically, mode 0600) when absent and
    ``create``; otherwise KeyFileError ending with ``missing_hint`` (what to do). The public
    half is (re)written to ``public_path`` when it is given and differs. ``who`` names the
    program in the line printed when a key is made; ``follow``: the path was named by the
    operator (an option or the environment), so a symlink there is followed."""
    if os.path.lexists(private_path):
        signer = decode_private(read_small(private_path, "signing key", follow=follow),
                                private_path)
    elif create:
        try:
            signer = _create(private_path, name, who)
        except OSError as exc:  # a full disk, a read-only volume: one line, what to do
            raise KeyFileError(f"{private_path}: cannot create the signing key: "
                               f"{exc.strerror or exc}: free space or give a key") from exc
    else:
        raise KeyFileError(f"no signing key at {private_path}: {missing_hint}")
    if public_path is not None:
        _write_public(public_path, signer)
    return signer


def _write_public(public_path: Path, signer: Signer) -> None:
    try:
        same = read_small(public_path, "public key").strip() == signer.verifier.vkey
    except KeyFileError:
        same = False
    if same:
        return
    public_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = public_path.with_name(f".{public_path.name}.{os.getpid()}.tmp")
    tmp.write_text(signer.verifier.vkey + "\n", encoding="ascii")
    os.replace(tmp, public_path)


def _create(private_path: Path, name: str, who: str) -> Signer:
    """Create the key file (mode 0600), whole or not at all: the key is written and fsynced
    under a temporary name, then linked to its name, which fails if another process (a
    worker started at the same moment) got there first; then theirs is read. So a process
    that finds the file always finds a whole key."""
    signer = Signer(name, Ed25519PrivateKey.generate())
    private_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = private_path.with_name(f".{private_path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fo:
            fo.write(encode_private(name, signer.private))
            fo.flush()
            os.fsync(fo.fileno())
        try:
            os.link(tmp, private_path)
        except FileExistsError:
            return decode_private(read_small(private_path, "signing key"), private_path)
    finally:
        tmp.unlink(missing_ok=True)
    directory = os.open(private_path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    print(f"{who}: created the signing key {private_path} (keep it secret; a deployment "
          f"keeps it off the data directory, see docs/log-integrity.md). Public key: "
          f"{signer.verifier.vkey}", file=sys.stderr)
    return signer
