"""Trust in what comes after the log: replay's and the checks' outputs, signed and checked.

A verified log says nothing of files written from it afterwards: whoever can write
``DATA/replay`` can edit ``wagers.parquet`` (recorded := expected) and recompute an unsigned
manifest's hash. So every set of outputs carries a manifest listing the SHA-256 and size of
every file in it, and a detached signature of that manifest in the C2SP signed-note form
(the body, a blank line, ``— <key name> <base64(key hash || Ed25519 signature)>``, as the
log's checkpoints are signed; docs/log-integrity.md):

- ``DATA/replay/manifest.json`` (``catwalk-replay-manifest/3``) and ``manifest.sig``,
  written by replay in the same atomic switch of the directory as the files;
- ``DATA/checks/manifest.json`` (``catwalk-checks-manifest/1``) and ``manifest.sig``, written
  by ``python -m checks`` after ``flags.parquet``.

The note's body is two lines: the manifest's format and ``<file> <size> sha256:<hex>`` of
the manifest's bytes. The key is ``--output-key FILE`` or ``$CATWALK_OUTPUT_KEY``, else
``DATA/keys/outputs.key`` made on first use (its public half ``DATA/keys/outputs.pub``).
A reader checks the signature with the keyring's ``outputs`` keys (schemas/keyring.py), else
with the key beside the data, said "unverified: key not pinned".

:func:`trust` is the one reader every command and page uses: it combines the manifest, its
signature, every listed file's hash, the files not listed, the refusal record
(replay/refusal.py) and whether the log and its key were verified and pinned, into one
:class:`Trust`. Fail closed: anything not checked is refused or marked, never passed. A
``catwalk-replay-manifest/1`` (written before outputs were signed) is "unsigned", not trusted;
a ``catwalk-replay-manifest/2`` (signed, but ``rounds.problems`` was one text, the problems
joined with "; ", where a reader of today reads a list) is "outdated" and not read either,
rather than mis-read: replay the log again.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemas.checkpoint import DASH, CheckpointError, Signer, Verifier, read_verifier
from schemas.keyfile import KeyFileError, load_or_create
from schemas.keyring import NOT_PINNED, KeyChoice, choose, configured

MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
REPLAY_FORMAT = "catwalk-replay-manifest/3"
REPLAY_FORMAT_UNSIGNED = "catwalk-replay-manifest/1"
REPLAY_FORMAT_PROBLEMS_TEXT = "catwalk-replay-manifest/2"
"""Signed, but written while ``rounds.problems`` was one text (the problems joined with
"; "); today's readers read a list, so such outputs are refused as outdated, not mis-read."""
CHECKS_FORMAT = "catwalk-checks-manifest/1"
KEY_NAME = "catwalk-outputs"
KEY_ENV = "CATWALK_OUTPUT_KEY"
PRIVATE_KEY = "keys/outputs.key"
PUBLIC_KEY = "keys/outputs.pub"
MAX_MANIFEST = 8 << 20
"""No manifest is longer than this (a few chains' checkpoints); a longer one is refused."""
MAX_SIGNATURE = 4096

VERIFIED = "verified"
KEY_NOT_PINNED = "key-not-pinned"
UNVERIFIED_LOG = "unverified-log"
REFUSED = "refused"
OUTDATED = "outdated"
TAMPERED = "tampered"
UNSIGNED = "unsigned"
MISSING = "missing"
STATES = (VERIFIED, KEY_NOT_PINNED, UNVERIFIED_LOG, REFUSED, OUTDATED, TAMPERED, UNSIGNED,
          MISSING)
"""From the best to the worst; a :class:`Trust` is the worst that holds."""
USABLE = frozenset({VERIFIED, KEY_NOT_PINNED, UNVERIFIED_LOG, REFUSED})
"""The states whose files may be read, marked by what they say; the others are refused."""


class OutputsError(CheckpointError):
    """Outputs that cannot be signed; the message names the file and what to do."""


# Signing ---------------------------------------------------------------------------------


def output_signer(data_dir: Path, given: str | Path | None = None, *,
                  who: str = "replay") -> Signer:
    """The key outputs are signed with: ``given`` (``--output-key``), else ``$CATWALK_OUTPUT_KEY``,
    else ``DATA/keys/outputs.key`` made on first use (schemas.keyfile.load_or_create). The
    public half is written to ``DATA/keys/outputs.pub``. OutputsError says what to do."""
    named = given or os.environ.get(KEY_ENV) or None
    path = Path(named) if named else data_dir / PRIVATE_KEY
    try:
        return load_or_create(path, data_dir / PUBLIC_KEY, name=KEY_NAME,
                              create=named is None, who=who, follow=named is not None,
                              missing_hint=f"give the outputs' key with --output-key or "
                                           f"{KEY_ENV} (docs/log-integrity.md)")
    except KeyFileError as exc:
        raise OutputsError(str(exc)) from exc


def note_body(fmt: str, manifest: bytes) -> str:
    """The signed note's body: the format, then ``manifest.json <size> sha256:<hex>``."""
    return f"{fmt}\n{MANIFEST} {len(manifest)} sha256:{hashlib.sha256(manifest).hexdigest()}\n"


def sign_note(signer: Signer, body: str) -> str:
    """``body`` as a C2SP signed note signed by ``signer``."""
    signature = signer.private.sign(body.encode())
    stamp = base64.b64encode(signer.verifier.key_hash + signature).decode()
    return f"{body}\n{DASH} {signer.name} {stamp}\n"


def manifest_bytes(manifest: Mapping[str, Any]) -> bytes:
    """A manifest as it is written: sorted keys, indented, one final newline."""
    return (json.dumps(manifest, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


def write_signed(directory: Path, manifest: Mapping[str, Any], signer: Signer) -> None:
    """Write ``manifest.json`` and its signature ``manifest.sig`` into ``directory``, each
    fsynced under a temporary name and renamed into place (the manifest first: a reader
    between the two sees a signature that does not match, refused, never a pass)."""
    raw = manifest_bytes(manifest)
    note = sign_note(signer, note_body(str(manifest["format"]), raw))
    for name, data in ((MANIFEST, raw), (SIGNATURE, note.encode())):
        tmp = directory / f".{name}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, directory / name)


def listing(directory: Path, names: Sequence[str]) -> tuple[dict[str, str], dict[str, int]]:
    """The SHA-256 and size of each file ``names`` under ``directory`` (manifest fields
    ``files`` and ``sizes``)."""
    hashes, sizes = {}, {}
    for name in names:
        hashes[name], sizes[name] = file_digest(directory / name)
    return hashes, sizes


# Reading ---------------------------------------------------------------------------------

_DIGESTS: dict[tuple[int, int, int, int, int], str] = {}
_DIGESTS_MAX = 4096


def file_digest(path: Path) -> tuple[str, int]:
    """The SHA-256 (hex) and size of a regular file, streamed, never following a symlink nor
    blocking on a FIFO. Remembered for this process by (device, inode, size, mtime_ns,
    ctime_ns), so a dashboard rerun does not hash again files that did not change. OSError
    for a file that is not a regular file or cannot be read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path} is not a regular file")
        stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        known = _DIGESTS.get(stamp)
        if known is not None:
            return known, st.st_size
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    finally:
        os.close(fd)
    if len(_DIGESTS) >= _DIGESTS_MAX:
        _DIGESTS.clear()
    _DIGESTS[stamp] = digest.hexdigest()
    return _DIGESTS[stamp], st.st_size


def _read_bounded(path: Path, limit: int) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        data = b""
        while len(data) <= limit and (chunk := os.read(fd, 1 << 20)):
            data += chunk
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OSError(f"{path} is larger than {limit:,} bytes")
    return data


def open_note(text: str, choice: KeyChoice) -> str:
    """The body of the signed note ``text`` once one of ``choice``'s keys is found on it and
    its signature checks; CheckpointError says whether it is malformed, signed by another
    key, or altered."""
    body, sep, rest = text.partition("\n\n")
    lines = rest.split("\n")
    if not sep or not body or lines[-1] != "" or len(lines) < 2:
        raise CheckpointError("not a signed note: a body, a blank line, then signature lines")
    body += "\n"
    others = []
    for line in lines[:-1]:
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != DASH:
            raise CheckpointError(f"malformed signature line {line[:80]!r}")
        try:
            raw = base64.b64decode(parts[2], validate=True)
        except binascii.Error as exc:
            raise CheckpointError("a signature is not base64") from exc
        key: Verifier | None = next((v for v in choice.verifiers if v.name == parts[1]
                                     and v.key_hash == raw[:4]), None)
        if key is None:
            others.append(f"{parts[1][:60]} ({raw[:4].hex()})")
            continue
        if len(raw) != 68 or not key.check(body.encode(), raw[4:]):
            raise CheckpointError(f"bad signature by {key.name} ({key.key_hash.hex()}): the "
                                  "manifest or its signature was altered")
        return body
    names = ", ".join(f"{v.name} ({v.key_hash.hex()})" for v in choice.verifiers)
    raise CheckpointError(f"not signed by a trusted outputs key ({names}, from "
                          f"{choice.source}); signed by {', '.join(others) or 'no one'}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Trust:
    """What can be said of one set of outputs, all of it at once.

    ``state`` (:data:`STATES`): ``verified`` (signed by a pinned key, every file the one
    listed, built from a log verified with a pinned key, no later refusal),
    ``key-not-pinned`` (as verified, but a key was only found beside the data),
    ``unverified-log`` (replayed with ``--unverified``), ``refused`` (a later replay refused
    the log), and the refused ones: ``outdated`` (written by an older replay in a form the
    readers of today would mis-read), ``tampered`` (a file, the manifest or its signature
    does not match), ``unsigned`` (no signature, or a manifest written before outputs were
    signed) and ``missing`` (no manifest). ``words``: one line for a banner; ``reasons``:
    every problem found; ``refused_at``: the first refusal's time (UTC, ISO 8601)."""

    state: str
    words: str
    directory: Path
    reasons: tuple[str, ...] = ()
    refused_at: str | None = None
    manifest: Mapping[str, Any] | None = None
    files: frozenset[str] = field(default_factory=frozenset)
    """The files whose SHA-256 and size are those the signed manifest lists."""
    key_source: str = ""

    def __post_init__(self) -> None:
        if self.state not in STATES:
            raise ValueError(f"trust state {self.state!r} is not one of {', '.join(STATES)}")

    @property
    def usable(self) -> bool:
        """Whether the files may be read at all (then marked by :attr:`words`)."""
        return self.state in USABLE

    @property
    def verified(self) -> bool:
        return self.state == VERIFIED

    @property
    def log_verified(self) -> bool:
        """Whether the signed manifest says the log verified (and no refusal since)."""
        return (self.usable and self.state not in (UNVERIFIED_LOG, REFUSED)
                and self.manifest is not None and self.manifest.get("verified") is True)

    def refusal(self, what: str) -> str:
        """The line a command prints when it refuses these outputs."""
        return (f"REFUSED: {what} in {self.directory} cannot be trusted ({self.state}): "
                f"{'; '.join(self.reasons) or self.words}")


def _outputs_keys(key: str | Path | Sequence[str] | None, beside: Path) -> KeyChoice:
    """The keys outputs are checked with (schemas.keyring.choose, role ``outputs``); a
    keyring that holds no outputs key at all pins none: the key beside the data is used,
    said not pinned (a keyring whose outputs keys did not sign is a mismatch, not this)."""
    ring = configured()
    if key or ring is None or ring.of_role("outputs"):
        return choose("outputs", key, beside)
    verifier = read_verifier(beside)
    return KeyChoice(verifiers=(verifier,), pinned=False,
                     source=f"the key beside the data ({beside}), the keyring {ring.source} "
                            f"holding no outputs key: {NOT_PINNED}")


def _worst(states: list[str]) -> str:
    return max(states, key=STATES.index) if states else VERIFIED


def _load_manifest(directory: Path, formats: Mapping[str, tuple[str, str]]
                   ) -> tuple[dict[str, Any] | None, bytes, str | None, str | None]:
    """(manifest, its bytes, the state it forces, the reason) for ``directory``; ``formats``:
    the older formats refused, each with the state it forces and why."""
    path = directory / MANIFEST
    try:
        raw = _read_bounded(path, MAX_MANIFEST)
    except FileNotFoundError:
        return None, b"", MISSING, f"{path} is missing: no outputs written with a manifest"
    except OSError as exc:
        return None, b"", TAMPERED, f"{path} cannot be read: {exc.strerror or exc}"
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        return None, raw, TAMPERED, f"{path} is not JSON ({type(exc).__name__})"
    if not isinstance(manifest, dict):
        return None, raw, TAMPERED, f"{path} is not a JSON object"
    fmt = manifest.get("format")
    if isinstance(fmt, str) and fmt in formats:
        state, why = formats[fmt]
        return manifest, raw, state, f"{path} is {fmt}: {why}"
    return manifest, raw, None, None


def _check(directory: Path, expected_format: str, key: str | Path | Sequence[str] | None,
           beside: Path, old: Mapping[str, tuple[str, str]]) -> Trust:
    """The manifest, signature and files of one output directory (no refusal record)."""
    manifest, raw, forced, why = _load_manifest(directory, old)
    if forced is not None:
        words = {MISSING: "no signed manifest: nothing says these files are what was written",
                 UNSIGNED: "unsigned: written before outputs were signed",
                 OUTDATED: "outdated: written by an older replay in a form not read today; "
                           "replay the log again",
                 TAMPERED: "the manifest cannot be read: the files are not trusted"}[forced]
        return Trust(state=forced, words=words, directory=directory, reasons=(str(why),),
                     manifest=manifest)
    assert manifest is not None
    reasons: list[str] = []
    states: list[str] = []
    if manifest.get("format") != expected_format:
        reasons.append(f"{directory / MANIFEST}: format {str(manifest.get('format'))[:60]!r},"
                       f" expected {expected_format}")
        states.append(TAMPERED)
    source = ""
    try:
        choice = _outputs_keys(key, beside)
        source = choice.source
        note = _read_bounded(directory / SIGNATURE, MAX_SIGNATURE).decode("utf-8")
        body = open_note(note, choice)
        if body != note_body(str(manifest.get("format")), raw):
            reasons.append(f"{directory / SIGNATURE} signs another manifest than "
                           f"{directory / MANIFEST} (its SHA-256 or size differs)")
            states.append(TAMPERED)
        elif not choice.pinned:
            reasons.append(f"the outputs' signature checked with {choice.source}")
            states.append(KEY_NOT_PINNED)
    except FileNotFoundError:
        reasons.append(f"{directory / SIGNATURE} is missing: the manifest is not signed")
        states.append(UNSIGNED)
    except (OSError, UnicodeDecodeError) as exc:
        reasons.append(f"{directory / SIGNATURE} cannot be read: "
                       f"{getattr(exc, 'strerror', None) or exc}")
        states.append(TAMPERED)
    except CheckpointError as exc:  # the keyring, the key beside the data, the note
        reasons.append(f"{directory / SIGNATURE}: {exc}")
        states.append(TAMPERED)
    files = manifest.get("files")
    sizes = manifest.get("sizes")
    files = files if isinstance(files, dict) else {}
    sizes = sizes if isinstance(sizes, dict) else {}
    trusted = set()
    for name, digest in sorted(files.items()):
        if not isinstance(name, str) or "/" in name or name.startswith("."):
            reasons.append(f"{directory / MANIFEST} lists {str(name)[:80]!r}, not a file name")
            states.append(TAMPERED)
            continue
        try:
            actual, size = file_digest(directory / name)
        except FileNotFoundError:
            reasons.append(f"{directory / name} is listed in the manifest but missing")
            states.append(TAMPERED)
            continue
        except OSError as exc:
            reasons.append(f"{directory / name} cannot be read: {exc.strerror or exc}")
            states.append(TAMPERED)
            continue
        if actual != digest or sizes.get(name) != size:
            reasons.append(f"{directory / name} is not the file the manifest lists "
                           "(SHA-256 or size differs)")
            states.append(TAMPERED)
            continue
        trusted.add(name)
    try:
        present = {p.name for p in directory.iterdir() if not p.name.startswith(".")}
    except OSError as exc:
        present = set()
        reasons.append(f"{directory} cannot be listed: {exc.strerror or exc}")
        states.append(TAMPERED)
    unlisted = sorted(present - set(files) - {MANIFEST, SIGNATURE})
    if unlisted:
        reasons.append(f"{directory} holds file(s) the manifest does not list: "
                       f"{', '.join(unlisted[:5])}")
        states.append(TAMPERED)
    state = _worst(states)
    if state in (TAMPERED, UNSIGNED):
        trusted = set()
    return Trust(state=state, words=_words(state, manifest), directory=directory,
                 reasons=tuple(reasons), manifest=manifest, files=frozenset(trusted),
                 key_source=source)


def _words(state: str, manifest: Mapping[str, Any] | None) -> str:
    line = manifest.get("verification") if manifest else None
    line = " ".join(line.split())[:300] if isinstance(line, str) else ""
    return {
        VERIFIED: line or "verified",
        KEY_NOT_PINNED: f"{NOT_PINNED}: {line}",
        UNVERIFIED_LOG: line or "not verified",
        TAMPERED: "the outputs do not match their signed manifest: not trusted",
        OUTDATED: "outdated: written by an older replay in a form not read today",
        UNSIGNED: "unsigned: written before outputs were signed, or the signature is gone",
        MISSING: "no signed manifest: nothing says these files are what was written",
        REFUSED: "the log no longer verifies",
    }[state]


def trust(data_dir: Path, *, key: str | Path | Sequence[str] | None = None) -> Trust:
    """What can be said of ``DATA/replay``: its signed manifest (checked with ``key``, else
    the keyring's outputs keys, else ``DATA/keys/outputs.pub``, not pinned), every file's
    SHA-256 and size, files not listed, whether the log verified with a pinned key, and a
    later refusal of the log (replay/refusal.py; its first time). Never raises."""
    from replay.refusal import refusal_record

    out = Path(data_dir) / "replay"
    directory = out.resolve()  # one generation of replay's files (a symbolic link)
    found = _check(directory, REPLAY_FORMAT,
                   key, Path(data_dir) / PUBLIC_KEY,
                   {REPLAY_FORMAT_UNSIGNED: (UNSIGNED,
                                             "unsigned: written before outputs were signed; "
                                             "not trusted (run `python -m replay` again)"),
                    REPLAY_FORMAT_PROBLEMS_TEXT: (
                        OUTDATED, "written while rounds.problems was one text (the problems "
                                  "joined with '; '), where today's readers read a list; not "
                                  "read rather than mis-read (run `python -m replay` again)")})
    reasons = list(found.reasons)
    states = [found.state]
    manifest = found.manifest
    if found.usable and manifest is not None:
        said = str(manifest.get("verification"))
        if manifest.get("verified") is not True and not (
                said.startswith(NOT_PINNED) and manifest.get("key_pinned") is False):
            states.append(UNVERIFIED_LOG)
            reasons.append(f"the log was not verified: {said[:300]}")
        elif manifest.get("key_pinned") is not True:  # verified only with the key beside it
            states.append(KEY_NOT_PINNED)
            reasons.append("the log was verified with the key beside it, not a pinned one")
    line, first = refusal_record(out)
    if line is not None:
        states.append(REFUSED)
        reasons.insert(0, line)
    state = _worst(states)
    words = _words(state, manifest)
    if state == REFUSED:
        words = line or words
    elif line is not None:
        words = f"{words}; and {line}"
    if first and state == REFUSED:
        words = f"{words} (first refused at {first})"
    return Trust(state=state, words=words, directory=found.directory, reasons=tuple(reasons),
                 refused_at=first, manifest=manifest, files=found.files,
                 key_source=found.key_source)


def checks_trust(data_dir: Path, *, key: str | Path | Sequence[str] | None = None) -> Trust:
    """What can be said of ``DATA/checks`` (``flags.parquet`` and whatever ``python -m
    checks`` wrote), from its signed manifest, as :func:`trust` says it of replay's.
    Written while the checks replace their files, the manifest may lag the flags for a
    moment: a mismatch is looked at once more before it is said."""
    directory = Path(data_dir) / "checks"
    beside = Path(data_dir) / PUBLIC_KEY
    found = _check(directory, CHECKS_FORMAT, key, beside, {})
    if found.state == TAMPERED:
        found = _check(directory, CHECKS_FORMAT, key, beside, {})
    return found


def checks_manifest(files: Mapping[str, str], sizes: Mapping[str, int],
                    replay: Trust, run: Mapping[str, Any]) -> dict[str, Any]:
    """The checks' manifest: their files, the replay manifest they read (its SHA-256 and
    what could be said of it) and the run."""
    replay_sha = None
    with contextlib.suppress(OSError):
        replay_sha = file_digest(replay.directory / MANIFEST)[0]
    return {"format": CHECKS_FORMAT, "files": dict(files), "sizes": dict(sizes),
            "replay": {"manifest_sha256": replay_sha, "trust": replay.state,
                       "words": replay.words},
            "run": dict(run)}
