"""A keyring outside a test's data directory, as a regulator keeps one (schemas/keyring.py):
the log key ingest made for the data directory and its outputs key (made here when replay
has not made it yet), pinned."""

from __future__ import annotations

from pathlib import Path

from schemas.keyring import ENV


def pin(data: Path) -> Path:
    """Write, beside ``data`` (never in it), a keyring holding the public half of the key
    ingest made for ``data`` (``keys/signing.pub``, role log) and of its outputs key
    (``keys/outputs.pub``, role outputs); its path."""
    from replay.outputs import output_signer

    keyring = data.parent / f"{data.name}.trusted.keys"
    vkey = (data / "keys" / "signing.pub").read_text(encoding="ascii").strip()
    outputs = output_signer(data, who="test").verifier.vkey
    keyring.write_text(f"# pinned at commissioning\n{vkey} role=log\n{outputs} role=outputs\n",
                       encoding="ascii")
    return keyring


def pinned_env(data: Path) -> dict[str, str]:
    """The environment that makes every command trust the key :func:`pin` pins."""
    return {ENV: str(pin(data))}
