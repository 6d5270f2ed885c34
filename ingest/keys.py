"""The key ingest signs the log's checkpoints with (docs/log-integrity.md, "Keys").

Where the signing key lives: the file named by ``--signing-key`` or ``CATWALK_SIGNING_KEY``,
else ``<data>/keys/signing.key`` (created on first use, mode 0600, with a warning: a key
beside the log it signs protects against outsiders and accidents, not against whoever can
write the data directory; a deployment keeps it on another account or device). The
public half is written to ``<data>/keys/signing.pub`` as a signed-note verifier key,
``<name>+<key hash>+<base64 key>``: the line a regulator pins and gives to
``python -m ingest verify --key``.

The private key file holds one line in the signed-note form
``PRIVATE+KEY+<name>+<key hash>+<base64(0x01 || 32-byte seed)>``.
"""

from __future__ import annotations

import base64
import binascii
import os
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from schemas.checkpoint import ED25519, CheckpointError, Signer, key_hash

DEFAULT_NAME = "catwalk-ingest"
ENV = "CATWALK_SIGNING_KEY"


class SigningKeyError(CheckpointError):
    """The signing key cannot be read or created; the message says what to do."""


def key_paths(data_dir: Path, explicit: Path | None = None) -> tuple[Path, Path]:
    """(private key file, public key file) for a data directory."""
    env = os.environ.get(ENV)
    private = explicit or (Path(env) if env else data_dir / "keys" / "signing.key")
    return private, data_dir / "keys" / "signing.pub"


def _encode(name: str, private: Ed25519PrivateKey) -> str:
    seed = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    public = Signer(name, private).verifier.public
    return (f"PRIVATE+KEY+{name}+{key_hash(name, public).hex()}+"
            f"{base64.b64encode(bytes([ED25519]) + seed).decode()}\n")


def _decode(text: str, where: Path) -> Signer:
    parts = text.strip().split("+", 4)
    if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
        raise SigningKeyError(
            f"{where}: not a signing key (expected PRIVATE+KEY+<name>+<hash>+<key>)")
    name, digest, encoded = parts[2:]
    try:
        raw = base64.b64decode(encoded, validate=True)
    except binascii.Error as exc:
        raise SigningKeyError(f"{where}: the key is not base64") from exc
    if len(raw) != 33 or raw[0] != ED25519:
        raise SigningKeyError(f"{where}: not an Ed25519 signing key")
    signer = Signer(name, Ed25519PrivateKey.from_private_bytes(raw[1:]))
    if signer.verifier.key_hash.hex() != digest:
        raise SigningKeyError(f"{where}: the key hash {digest} does not match the key")
    return signer


def load_signer(data_dir: Path, explicit: Path | None = None, *, create: bool = True,
                name: str = DEFAULT_NAME) -> Signer:
    """The signing key of ``data_dir`` (see the module docstring); created when absent and
    ``create``. The public key file is (re)written beside it when missing."""
    private_path, public_path = key_paths(data_dir, explicit)
    if private_path.is_file():
        try:
            signer = _decode(private_path.read_text(encoding="ascii"), private_path)
        except (OSError, UnicodeDecodeError) as exc:
            raise SigningKeyError(f"{private_path}: cannot read the signing key: {exc}") from exc
    elif create and explicit is None and not os.environ.get(ENV):
        signer = _create(private_path, name)
    else:
        raise SigningKeyError(f"no signing key at {private_path}: give the right file with "
                              f"--signing-key or {ENV}, or restore it (see "
                              "docs/log-integrity.md)")
    if not public_path.is_file() or public_path.read_text().strip() != signer.verifier.vkey:
        public_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = public_path.with_name(f"{public_path.name}.{os.getpid()}.tmp")
        tmp.write_text(signer.verifier.vkey + "\n", encoding="ascii")
        os.replace(tmp, public_path)
    return signer


def _create(private_path: Path, name: str) -> Signer:
    """Create the key file (mode 0600), whole or not at all: the key is written and fsynced
    under a temporary name, then linked to its name, which fails if another process (a
    worker started at the same moment) got there first; then theirs is read. So a process
    that finds the file always finds a whole key."""
    signer = Signer(name, Ed25519PrivateKey.generate())
    private_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = private_path.with_name(f".{private_path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fo:
            fo.write(_encode(name, signer.private))
            fo.flush()
            os.fsync(fo.fileno())
        try:
            os.link(tmp, private_path)
        except FileExistsError:
            return _decode(private_path.read_text(encoding="ascii"), private_path)
    finally:
        tmp.unlink(missing_ok=True)
    directory = os.open(private_path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    print(f"ingest: created the signing key {private_path} (keep it secret; a deployment "
          f"keeps it off the data directory, see docs/log-integrity.md). Public key: "
          f"{signer.verifier.vkey}", file=sys.stderr)
    return signer
