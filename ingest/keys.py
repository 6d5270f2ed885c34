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

import os
from pathlib import Path

from schemas.checkpoint import CheckpointError, Signer
from schemas.keyfile import KeyFileError, load_or_create

DEFAULT_NAME = "catwalk-ingest"
ENV = "CATWALK_SIGNING_KEY"


class SigningKeyError(CheckpointError):
    """The signing key cannot be read or created; the message says what to do."""


def key_paths(data_dir: Path, explicit: Path | None = None) -> tuple[Path, Path]:
    """(private key file, public key file) for a data directory."""
    env = os.environ.get(ENV)
    private = explicit or (Path(env) if env else data_dir / "keys" / "signing.key")
    return private, data_dir / "keys" / "signing.pub"


def load_signer(data_dir: Path, explicit: Path | None = None, *, create: bool = True,
                name: str = DEFAULT_NAME) -> Signer:
    """The signing key of ``data_dir`` (see the module docstring); created when absent and
    ``create`` (and neither ``explicit`` nor the environment names a file). The public key
    file is (re)written beside it when missing or different."""
    private_path, public_path = key_paths(data_dir, explicit)
    named = explicit is not None or bool(os.environ.get(ENV))
    try:
        return load_or_create(
            private_path, public_path, name=name, create=create and not named, who="ingest",
            follow=named,
            missing_hint=(f"give the right file with --signing-key or {ENV}, or restore it "
                          "(see docs/log-integrity.md)"))
    except KeyFileError as exc:
        raise SigningKeyError(str(exc)) from exc
