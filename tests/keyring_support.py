"""A keyring outside a test's data directory, as a regulator keeps one (schemas/keyring.py):
the log key ingest made for the data directory and its outputs key (made here when replay
has not made it yet), pinned."""

from __future__ import annotations

from pathlib import Path

from schemas.keyring import ENV


def pin(data: Path, *, outputs: bool = False) -> Path:
    """Write, beside ``data`` (never in it), a keyring holding the public half of the key
    ingest made for ``data`` (``keys/signing.pub``, role log) and, with ``outputs``, of its
    outputs key (``keys/outputs.pub``, made now when replay has not made it, role outputs);
    its path."""
    keyring = data.parent / f"{data.name}.trusted.keys"
    vkey = (data / "keys" / "signing.pub").read_text(encoding="ascii").strip()
    lines = f"# pinned at commissioning\n{vkey} role=log\n"
    if outputs:
        from replay.outputs import output_signer

        lines += f"{output_signer(data, who='test').verifier.vkey} role=outputs\n"
    keyring.write_text(lines, encoding="ascii")
    return keyring


def pinned_env(data: Path, *, outputs: bool = False) -> dict[str, str]:
    """The environment that makes every command trust the keys :func:`pin` pins."""
    return {ENV: str(pin(data, outputs=outputs))}
