"""What the dashboard can say about the log its data was built from: the replay manifest,
the signed checkpoints beside the log, the quarantine and the verification on demand
(docs/log-integrity.md).

Everything here reads files that came from the log's writer or from the table devices:
nothing is trusted for being there. A file that does not parse is reported with why, every
read is bounded, and the text of a quarantined message is returned as plain text for the
page to show as text (never as Markdown or HTML).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from schemas.checkpoint import (
    MAX_NOTE,
    CheckpointError,
    Verifier,
    open_signed,
    parse,
)
from schemas.keyring import NOT_PINNED, KeyChoice, log_key
from schemas.log_verify import LOG_ERRORS, DataVerdict, data_chains, verify_data
from schemas.logformat import Chain, LogError, chain_of, open_regular

MANIFEST = "replay/manifest.json"
MANIFEST_MAX_BYTES = 1 << 16
KEY_BESIDE = "keys/signing.pub"
TEXT_MAX = 500
"""At most this many characters of any text from a file shown on a page (a reason, a line)."""
QUARANTINE_ROWS = 1_000
"""At most this many quarantined messages are listed (all are counted)."""
_READ_ERRORS: tuple[type[BaseException], ...] = (*LOG_ERRORS, OSError)
_VERIFY_ERRORS: tuple[type[BaseException], ...] = (*_READ_ERRORS, CheckpointError)
QUARANTINE_LINE_MAX = 64 << 20
"""A quarantine line longer than this is not parsed (a message is at most a few MB)."""


def clip(text: str, limit: int = TEXT_MAX) -> str:
    """One line of at most ``limit`` characters: line breaks and control characters become
    spaces, and a cut is marked with an ellipsis."""
    flat = "".join(c if c.isprintable() else " " for c in text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


# The replay manifest ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Manifest:
    """What ``replay/manifest.json`` says of the log the data was built from.

    ``state``: "verified", "unverified", "unknown" (no manifest) or "unreadable" (a file
    that cannot be trusted to say either); only "verified" means the log verified.
    ``problem`` says what is wrong with the file (None when it read as a manifest).
    """

    state: Literal["verified", "unverified", "unknown", "unreadable"]
    line: str = ""
    problem: str | None = None
    records: int | None = None
    root: str | None = None
    checkpoint: str | None = None
    """The signed checkpoint the verification tied the data to (its text)."""
    key_fingerprint: str | None = None
    """The verifier key (``name+hash+key``) the log was verified with."""
    rulesets: tuple[str, ...] | None = None
    ruleset_files: tuple[tuple[str, str], ...] | None = None
    """(path, sha256) of each file of the rulesets directory that judged the data, relative
    to it (docs/rulesets.md); empty: the shipped rulesets alone; None: not recorded."""
    code_version: str | None = None
    files: Mapping[str, str] = field(default_factory=dict)


def _text(value: object, limit: int = TEXT_MAX) -> str | None:
    return clip(value, limit) if isinstance(value, str) else None


def _note(value: object) -> str | None:
    """A signed note kept as it is (lines and all), or None when it is no text or longer
    than several chains' checkpoints can be."""
    return value if isinstance(value, str) and len(value) <= 64 * MAX_NOTE else None


def read_manifest(root: Path) -> Manifest:
    """What replay's manifest under ``root`` says, as the one reader of trust read it
    (replay/outputs.py ``trust``: its signature and every file checked); never raises.
    ``state`` is "verified" only when that reader says the signed manifest's log verified
    and nothing since refused it; a manifest it cannot trust is "unreadable" (with why), a
    missing one "unknown"."""
    from replay.outputs import MISSING, trust

    found = trust(root)
    manifest = found.manifest
    why = clip("; ".join(found.reasons) or found.words)
    if manifest is None:
        if found.state == MISSING:
            return Manifest(state="unknown", problem="does not exist (no replay yet, or a "
                            "replay older than the manifest)")
        return Manifest(state="unreadable", problem=why)
    line = manifest.get("verification")
    line = clip(" ".join(line.split())) if isinstance(line, str) else ""
    if not found.usable:
        return Manifest(state="unreadable", line=line, problem=why)
    verified = found.log_verified
    log = manifest.get("log")
    log = log if isinstance(log, dict) else {}
    records = log.get("records")
    rulesets = manifest.get("rulesets")
    ruleset_files = manifest.get("ruleset_files")
    files = manifest.get("files")
    return Manifest(
        state="verified" if verified else "unverified",
        line=line,
        records=records if type(records) is int and records >= 0 else None,
        root=_text(log.get("root")),
        checkpoint=_note(log.get("checkpoint")),
        key_fingerprint=_text(log.get("key_fingerprint")),
        rulesets=(tuple(clip(r, 200) for r in rulesets if isinstance(r, str))
                  if isinstance(rulesets, list) else None),
        ruleset_files=(tuple((clip(f["path"], 300), clip(f["sha256"], 64))
                             for f in ruleset_files if isinstance(f, dict)
                             and isinstance(f.get("path"), str)
                             and isinstance(f.get("sha256"), str))
                       if isinstance(ruleset_files, list) else None),
        code_version=_text(manifest.get("code_version")),
        files=({clip(k, 200): clip(v, 200) for k, v in files.items() if isinstance(v, str)}
               if isinstance(files, dict) else {}),
    )


def manifest_key(manifest: Manifest) -> Verifier | None:
    """The key the data was verified with, as the manifest names it (None if it names none
    or one that does not read)."""
    if manifest.key_fingerprint is None:
        return None
    try:
        return Verifier.from_vkey(manifest.key_fingerprint)
    except CheckpointError:
        return None


# Checkpoints -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckpointFile:
    """One ``*.checkpoint`` file beside the log, and what it states (unless ``problem``)."""

    chain: str
    """The chain's label (``log``, ``log of worker w1``)."""
    path: str
    name: str
    size_bytes: int
    modified: str
    """The file's modification time, UTC."""
    records: int | None = None
    signed_at: str | None = None
    segment: str | None = None
    root: str | None = None
    """The Merkle root, hex."""
    log_id: str | None = None
    signature: str = "not checked"
    problem: str | None = None
    """Why the file does not parse as a checkpoint (None when it does)."""


def _utc(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def read_checkpoint(chain: str, path: Path, key: Verifier | None) -> CheckpointFile:
    """One checkpoint file: parsed with ``schemas.checkpoint.parse`` and, when ``key`` is
    given, its signature checked with it. Never raises; what is wrong goes in ``problem``
    (unreadable or malformed) or ``signature`` (not signed by ``key``)."""
    try:
        info = path.lstat()
        with open_regular(path, "checkpoint") as file:
            raw = file.read(MAX_NOTE * 4 + 1)
    except (OSError, LogError) as error:
        return CheckpointFile(chain=chain, path=str(path), name=path.name, size_bytes=0,
                              modified="", problem=f"cannot be read: "
                              f"{getattr(error, 'strerror', None) or error}")
    base = CheckpointFile(chain=chain, path=str(path), name=path.name,
                          size_bytes=info.st_size, modified=_utc(info.st_mtime))
    try:
        text = raw.decode("utf-8")
        checkpoint = parse(text)
    except UnicodeDecodeError:
        return replace(base, problem="is not UTF-8 text")
    except CheckpointError as error:
        return replace(base, problem=clip(str(error)))
    signature = "not checked (no key)"
    if key is not None:
        try:
            open_signed(text, key)
            signature = f"good (key {key.name} {key.key_hash.hex()})"
        except CheckpointError as error:
            signature = f"BAD: {clip(str(error))}"
    return replace(base, records=checkpoint.size, signed_at=checkpoint.signed_at,
                          segment=checkpoint.segment or "-", root=checkpoint.root.hex(),
                          log_id=checkpoint.log_id, signature=signature)


def log_chains(root: Path) -> list[Chain]:
    """The chains of the data directory (the lone ingest's, or each worker's); the lone
    ingest's when nothing can be listed."""
    try:
        return data_chains(root)
    except OSError:
        return [chain_of(root)]


def checkpoint_files(root: Path, key: Verifier | None) -> list[CheckpointFile]:
    """Every ``*.checkpoint`` beside every chain of ``root``, by chain then name."""
    found: list[CheckpointFile] = []
    for chain in log_chains(root):
        try:
            paths = sorted(chain.checkpoints.glob("*.checkpoint"))
        except OSError:
            continue
        found.extend(read_checkpoint(chain.label, p, key) for p in paths)
    return found


_CHAIN_LINE = re.compile(r"^chain (\S+)\n", re.MULTILINE)


def checkpoint_summaries(text: str) -> list[tuple[str, dict[str, Any] | None]]:
    """What the checkpoint(s) the manifest ties the data to state, per chain: the chain
    ("" for the lone ingest's; a worker's name, or ``-`` for the lone ingest's beside
    workers, as schemas.log_verify.DataVerdict.checkpoint_text writes them) and its records,
    signed at, segment, root (hex) and log id, or None for one that does not parse."""
    if not text.startswith("chain "):
        return [("", _summary(text))]
    parts = _CHAIN_LINE.split(text)[1:]
    return [(name, _summary(note)) for name, note in zip(parts[::2], parts[1::2], strict=True)]


def _summary(text: str) -> dict[str, Any] | None:
    try:
        checkpoint = parse(text)
    except CheckpointError:
        return None
    return {"records": checkpoint.size, "signed_at": checkpoint.signed_at,
            "segment": checkpoint.segment or "-", "root": checkpoint.root.hex(),
            "log_id": checkpoint.log_id}


# Quarantine ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Quarantined:
    """One quarantined message: where it came from and why it was kept out of the log."""

    chain: str
    file: str
    line: int
    where: str
    """``topic[partition]@offset``, as ingest wrote it (clipped)."""
    received: str
    """When Kafka received it (UTC), from the message's timestamp."""
    reason: str
    value_bytes: int | None
    """The message's size; None for a tombstone or a line that does not parse."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Quarantine:
    entries: tuple[Quarantined, ...]
    """The first QUARANTINE_ROWS messages, by chain, file and line."""
    total: int
    """Every line of every quarantine file."""
    files: int


def _quarantine_entry(chain: str, path: Path, number: int, line: bytes) -> Quarantined:
    def bad(why: str) -> Quarantined:
        return Quarantined(chain=chain, file=path.name, line=number, where="?", received="",
                           reason=f"not a quarantine line: {why}", value_bytes=None)

    if len(line) > QUARANTINE_LINE_MAX:
        return bad(f"longer than {QUARANTINE_LINE_MAX:,} bytes")
    try:
        entry = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        return bad(type(error).__name__)
    if not isinstance(entry, dict):
        return bad("not a JSON object")
    where = entry.get("coordinates")
    if not isinstance(where, str):
        topic, partition, offset = (entry.get(k) for k in ("topic", "partition", "offset"))
        where = f"{topic}[{partition}]@{offset}"
    reason = entry.get("reason")
    stamp = entry.get("timestamp_ms")
    received = ""
    if type(stamp) is int:
        try:
            received = dt.datetime.fromtimestamp(stamp / 1000, dt.UTC).strftime(
                "%Y-%m-%d %H:%M:%S UTC")
        except (OverflowError, OSError, ValueError):
            received = f"timestamp {stamp}"
    value = entry.get("value_b64")
    size: int | None = None
    if isinstance(value, str):
        try:
            size = len(base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError):
            size = None
    return Quarantined(chain=chain, file=path.name, line=number, where=clip(where, 200),
                       received=received,
                       reason=clip(reason) if isinstance(reason, str) else "(no reason given)",
                       value_bytes=size)


def quarantine(root: Path, limit: int = QUARANTINE_ROWS) -> Quarantine:
    """The quarantine of every chain (``segment-*.jsonl``): the first ``limit`` messages
    parsed, every line counted. A file that cannot be read is one entry saying so."""
    entries: list[Quarantined] = []
    total = files = 0
    for chain in log_chains(root):
        try:
            paths = sorted(chain.quarantine.glob("segment-*.jsonl"))
        except OSError:
            continue
        for path in paths:
            files += 1
            try:
                with open_regular(path, "quarantine file") as file:
                    for number, line in enumerate(file, start=1):
                        if not line.strip():
                            continue
                        total += 1
                        if len(entries) < limit:
                            entries.append(_quarantine_entry(chain.label, path, number,
                                                             line.rstrip(b"\r\n")))
            except (OSError, LogError) as error:
                total += 1
                if len(entries) < limit:
                    entries.append(Quarantined(
                        chain=chain.label, file=path.name, line=0, where="?", received="",
                        reason="the file cannot be read: "
                        f"{getattr(error, 'strerror', None) or error}",
                        value_bytes=None))
    return Quarantine(entries=tuple(entries), total=total, files=files)


def files_stamp(root: Path) -> tuple[Any, ...]:
    """A cache key that changes when a checkpoint or quarantine file is added, removed or
    rewritten, or the manifest is."""
    stamps: list[tuple[str, int, int]] = []
    for chain in log_chains(root):
        for folder, pattern in ((chain.checkpoints, "*.checkpoint"),
                                (chain.quarantine, "segment-*.jsonl")):
            try:
                for path in sorted(folder.glob(pattern)):
                    info = path.stat()
                    stamps.append((str(path), info.st_mtime_ns, info.st_size))
            except OSError:
                continue
    try:
        info = (root / MANIFEST).stat()
        stamps.append((MANIFEST, info.st_mtime_ns, info.st_size))
    except OSError:
        pass
    return tuple(stamps)


# Verification on demand ------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Verification:
    """The verdict of verifying the log now, in one line, and with which key."""

    ok: bool
    line: str
    key: str
    """Which key was used and where it came from."""
    at: str
    """When the verification ran (UTC)."""
    witness: str = ""
    """What became of the witness keys given ("" when none was given)."""


def key_choice(root: Path, pinned: str) -> tuple[Verifier, KeyChoice]:
    """The key to verify with and the choice it came from (schemas.keyring.log_key):
    ``pinned`` (the text ``name+hash+key``) when given, else the keyring
    ``CATWALK_TRUSTED_KEYS`` names, else the key beside the log (not pinned).
    CheckpointError says what is wrong with either."""
    if pinned.strip():
        verifier = Verifier.from_vkey(pinned.strip())
        return verifier, KeyChoice(verifiers=(verifier,), pinned=True, source="the key you pinned")
    return log_key(root, None)


def key_to_use(root: Path, pinned: str) -> tuple[Verifier, str]:
    """:func:`key_choice`: the key, and where it came from in words."""
    verifier, choice = key_choice(root, pinned)
    return verifier, choice.source


def verify_now(root: Path, pinned: str, manifest: Manifest,
               clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC), *,
               kept: str = "", witnesses: Sequence[str] = ()) -> Verification:
    """Verify every chain of the log under ``root`` (schemas.log_verify.verify_data), with
    the checkpoints beside each, the one the manifest ties the data to and ``kept`` (a
    checkpoint the regulator kept, its text), so a log cut short since either was signed
    fails. ``witnesses``: witness verifier keys, passed to the verification when it checks
    cosignatures, else said "witness check not available" (never pretended). Never raises;
    reads the whole log."""
    at = clock().strftime("%Y-%m-%d %H:%M:%S UTC")
    vkeys = [w.strip() for w in witnesses if w.strip()]
    witness = ""
    if vkeys:  # C2SP tlog-cosignature: the kept checkpoint must carry each one's cosignature
        from schemas.cosignature import WitnessKey

        if not kept.strip():
            return Verification(ok=False, line="cannot verify: a witness key needs the "
                                "cosigned checkpoint you kept (what the witness wrote)",
                                key="none", at=at, witness="no kept checkpoint to check")
        note = kept if kept.endswith("\n") else kept + "\n"
        for vkey in vkeys:
            try:
                WitnessKey.from_vkey(vkey).cosigned_at(note)
            except CheckpointError as error:
                return Verification(ok=False, line=f"FAILED: the checkpoint you kept: "
                                    f"{clip(str(error))}", key="none", at=at,
                                    witness=f"not cosigned: {clip(str(error), 160)}")
        witness = f"cosigned by {len(vkeys)} witness key(s), each cosignature checked"
    try:
        key, choice = key_choice(root, pinned)
    except CheckpointError as error:
        return Verification(ok=False, line=f"cannot verify: {clip(str(error))}", key="none",
                            at=at, witness=witness)
    source = choice.source
    extra = []
    if manifest.checkpoint:
        extra.append((f"{root / MANIFEST} (the checkpoint the data was built from)",
                      manifest.checkpoint))
    if kept.strip():
        if len(kept) > 64 * MAX_NOTE:
            return Verification(ok=False, line="cannot verify: the kept checkpoint is longer "
                                f"than {64 * MAX_NOTE:,} characters", key=source, at=at,
                                witness=witness)
        extra.append(("the checkpoint you kept", kept if kept.endswith("\n") else kept + "\n"))
    try:
        verdict: DataVerdict = verify_data(root, key, checkpoints=extra)
    except _VERIFY_ERRORS as error:
        return Verification(ok=False, line=f"FAILED: the log cannot be read: {clip(str(error))}",
                            key=source, at=at, witness=witness)
    line = verdict.line() if choice.pinned or not verdict.ok else f"{NOT_PINNED}: {verdict.line()}"
    return Verification(ok=verdict.ok and choice.pinned, line=clip(line, 2000), key=source,
                        at=at, witness=witness)


def verify_command(root: Path) -> str:
    """The command a regulator runs to verify the log themselves, with the key they pinned
    and the checkpoint they kept."""
    return (f"python -m ingest verify --data {shlex.quote(str(root))} "
            '--key "$(cat pinned.pub)" --checkpoint kept.checkpoint')
