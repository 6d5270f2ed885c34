"""Signed outputs for tests that build replay's files by hand: a manifest as replay writes
it (catwalk-replay-manifest/3) over the files in ``DATA/replay``, signed by the data
directory's outputs key, and a keyring that pins that key (schemas/keyring.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from replay.outputs import (
    MANIFEST,
    PUBLIC_KEY,
    REPLAY_FORMAT,
    SIGNATURE,
    listing,
    output_signer,
    write_signed,
)
from schemas.keyring import ENV


def sign_replay(data: Path, *, verified: bool = True, key_pinned: bool = True,
                verification: str = "log verified: 1 segment, 45 records",
                **extra: Any) -> dict[str, Any]:
    """Write and sign ``data/replay/manifest.json`` listing every file there; the manifest."""
    out = data / "replay"
    names = sorted(p.name for p in out.iterdir()
                   if not p.name.startswith(".") and p.name not in (MANIFEST, SIGNATURE))
    files, sizes = listing(out, names)
    manifest = {"format": REPLAY_FORMAT, "verified": verified, "verification": verification,
                "log": {"records": 45, "root": None, "checkpoint": None,
                        "key_fingerprint": None},
                "key_pinned": key_pinned, "trees": [], "rulesets": [], "ruleset_files": [],
                "code_version": "catwalk test", "files": files, "sizes": sizes, **extra}
    write_signed(out, manifest, output_signer(data, who="test"))
    return manifest


def pin_outputs_key(data: Path, monkeypatch: Any, *, also: str = "") -> Path:
    """A keyring outside ``data`` holding its outputs key (role=outputs), named by
    CATWALK_TRUSTED_KEYS for the rest of the test."""
    output_signer(data, who="test")
    ring = data.parent / f"{data.name}-keyring"
    ring.write_text(f"{(data / PUBLIC_KEY).read_text().strip()} role=outputs\n{also}")
    monkeypatch.setenv(ENV, str(ring))
    return ring


def sign_checks(data: Path) -> dict[str, Any]:
    """Write and sign ``data/checks/manifest.json`` listing ``flags.parquet`` as it is."""
    from replay.outputs import checks_manifest, trust

    out = data / "checks"
    files, sizes = listing(out, ["flags.parquet"])
    manifest = checks_manifest(files, sizes, trust(data), {"checks": []})
    write_signed(out, manifest, output_signer(data, who="test"))
    return manifest
