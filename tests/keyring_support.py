"""A keyring outside a test's data directory, as a regulator keeps one (schemas/keyring.py):
the log key ingest made for the data directory, pinned."""

from __future__ import annotations

from pathlib import Path

from schemas.keyring import ENV


def pin(data: Path) -> Path:
    """Write, beside ``data`` (never in it), a keyring holding the public half of the key
    ingest made for ``data`` (``keys/signing.pub``); its path."""
    keyring = data.parent / f"{data.name}.trusted.keys"
    vkey = (data / "keys" / "signing.pub").read_text(encoding="ascii").strip()
    keyring.write_text(f"# pinned at commissioning\n{vkey} role=log\n", encoding="ascii")
    return keyring


def pinned_env(data: Path) -> dict[str, str]:
    """The environment that makes every command trust the key :func:`pin` pins."""
    return {ENV: str(pin(data))}
