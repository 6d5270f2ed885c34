"""The trusted keys: a keyring kept outside the data directory under audit.

A key found beside the log (``DATA/keys/signing.pub``) is whatever the operator put there, so
what it verifies proves only that the directory agrees with itself. A regulator's trust root
is a keyring of its own: the file or directory named by ``CATWALK_TRUSTED_KEYS`` (or a key
given with ``--key``). Each line of a keyring file, and each ``*.pub`` file of a keyring
directory, is one verifier key in signed-note form, then optional words:

    catwalk-ingest+8f2a1c0b+AeJ0...=  role=log from=2026-01-01 until=2027-03-31  # casino C02

- ``role=`` what the key may sign: ``log`` (the log's checkpoints; the default),
  ``outputs`` (replay's and the checks' signed manifests), ``journal`` (the dashboard's
  access and case journals), ``witness`` (a witness's cosignatures); ``role=any`` any of them.
- ``from=`` / ``until=`` (YYYY-MM-DD, UTC, both ends included): the days the key is trusted.
  A rotation adds the new key with ``from=`` the first day it signs and sets ``until=`` on
  the old one some days later, so both verify during the overlap (docs/log-integrity.md,
  "Keys").

:func:`choose` is the one place every command picks its keys: a ``--key`` given, else the
keyring's keys of that role, else the key beside the log, reported "unverified: key not
pinned" (:attr:`KeyChoice.pinned` False).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from schemas.checkpoint import CheckpointError, Verifier, read_verifier
from schemas.keyfile import KeyFileError, read_small

ENV = "CATWALK_TRUSTED_KEYS"
ROLES = ("log", "outputs", "journal", "witness")
MAX_KEYRING = 1 << 20
NOT_PINNED = "unverified: key not pinned"
"""What a verdict says when the only key that verified it was found beside the data."""
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


class KeyringError(CheckpointError):
    """The keyring cannot be read; the message names the file and line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustedKey:
    """One key of the keyring, the roles it may sign for, and the days it is trusted."""

    verifier: Verifier
    roles: frozenset[str]
    valid_from: dt.date | None = None
    valid_until: dt.date | None = None
    where: str = ""

    def trusted(self, role: str, on: dt.date | None = None) -> bool:
        if role not in self.roles and "any" not in self.roles:
            return False
        if on is None:
            return True
        return ((self.valid_from is None or self.valid_from <= on)
                and (self.valid_until is None or on <= self.valid_until))


@dataclass(frozen=True, slots=True, kw_only=True)
class KeyChoice:
    """The keys a command checks signatures with, whether they are pinned (given, or in
    the keyring) or only found beside the data, and where they came from (said on every
    verdict)."""

    verifiers: tuple[Verifier, ...]
    pinned: bool
    source: str

    @property
    def first(self) -> Verifier:
        return self.verifiers[0]

    def for_note(self, text: str) -> Verifier:
        """The key among these that signed the signed note ``text`` (by its name and key
        hash on a signature line), else the first (whose check then names the mismatch)."""
        for verifier in self.verifiers:
            stamp = f"\u2014 {verifier.name} "
            for line in text.split("\n"):
                if not line.startswith(stamp):
                    continue
                try:
                    raw = base64.b64decode(line[len(stamp):], validate=True)
                except binascii.Error:
                    continue
                if raw[:4] == verifier.key_hash:
                    return verifier
        return self.first

    @property
    def trust_words(self) -> str:
        """"pinned" or the words a verdict carries when it is not."""
        return "pinned" if self.pinned else NOT_PINNED


def _day(text: str, where: str) -> dt.date:
    if not _DAY.fullmatch(text):
        raise KeyringError(f"{where}: {text!r} is not a date (YYYY-MM-DD)")
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise KeyringError(f"{where}: {text!r} is not a date ({exc})") from exc


def parse_line(line: str, where: str) -> TrustedKey | None:
    """One keyring line (None for a blank or comment line)."""
    text = line.split("#", 1)[0].strip()
    if not text:
        return None
    vkey, *words = text.split()
    try:
        verifier = Verifier.from_vkey(vkey)
    except CheckpointError as exc:
        raise KeyringError(f"{where}: {exc}") from exc
    roles: set[str] = set()
    since = until = None
    for word in words:
        name, sep, value = word.partition("=")
        if not sep:
            raise KeyringError(f"{where}: {word[:40]!r}: expected role=, from= or until=")
        if name == "role":
            for role in value.split(","):
                if role not in (*ROLES, "any"):
                    raise KeyringError(f"{where}: unknown role {role[:40]!r} (known: "
                                       f"{', '.join(ROLES)}, any)")
                roles.add(role)
        elif name == "from":
            since = _day(value, where)
        elif name == "until":
            until = _day(value, where)
        else:
            raise KeyringError(f"{where}: unknown word {name[:40]!r} (role=, from=, until=)")
    if since and until and until < since:
        raise KeyringError(f"{where}: until={until} is before from={since}")
    return TrustedKey(verifier=verifier, roles=frozenset(roles or {"log"}),
                      valid_from=since, valid_until=until, where=where)


@dataclass(frozen=True, slots=True)
class Keyring:
    """Every trusted key, in the order written."""

    keys: tuple[TrustedKey, ...]
    source: str

    def of_role(self, role: str, on: dt.date | None = None) -> tuple[Verifier, ...]:
        return tuple(k.verifier for k in self.keys if k.trusted(role, on))

    def trusts(self, verifier: Verifier, role: str, on: dt.date | None = None) -> bool:
        """Whether this exact key (name and public key) is trusted for ``role``."""
        return any(k.verifier == verifier and k.trusted(role, on) for k in self.keys)


def load(source: str | Path) -> Keyring:
    """The keyring in a file (one key a line) or a directory (one ``*.pub`` file a key)."""
    path = Path(source)
    keys: list[TrustedKey] = []
    try:
        files = (sorted(p for p in path.iterdir() if p.suffix == ".pub") if path.is_dir()
                 else [path])
        for file in files:
            text = read_small(file, "keyring", MAX_KEYRING, follow=True)
            for number, line in enumerate(text.splitlines(), start=1):
                key = parse_line(line, f"{file} line {number}")
                if key is not None:
                    keys.append(key)
    except KeyFileError as exc:
        raise KeyringError(str(exc)) from exc
    except OSError as exc:
        raise KeyringError(f"{path}: cannot read the keyring: {exc.strerror}") from exc
    if not keys:
        raise KeyringError(f"{path}: the keyring holds no key")
    return Keyring(tuple(keys), str(path))


def configured() -> Keyring | None:
    """The keyring ``CATWALK_TRUSTED_KEYS`` names, or None when it names none."""
    source = os.environ.get(ENV)
    return load(source) if source else None


def choose(role: str, given: str | Path | Sequence[str] | None, beside: Path | None, *,
           on: dt.date | None = None) -> KeyChoice:
    """The keys to check ``role``'s signatures with: those ``given`` (a key's text or a file
    holding it; several for a rotation), else the configured keyring's of that role, else
    the key file ``beside`` the data (not pinned). KeyringError / CheckpointError say what
    is wrong and what to do."""
    if given:
        items = [given] if isinstance(given, (str, Path)) else list(given)
        verifiers = tuple(read_verifier(item) for item in items)
        return KeyChoice(verifiers=verifiers, pinned=True, source="the key given with --key")
    ring = configured()
    if ring is not None:
        verifiers = ring.of_role(role, on)
        if not verifiers:
            raise KeyringError(f"the keyring {ring.source} ({ENV}) holds no {role} key"
                               + (f" trusted on {on}" if on else "")
                               + f": add the {role} key's line (role={role})")
        return KeyChoice(verifiers=verifiers, pinned=True,
                         source=f"the keyring {ring.source} ({ENV})")
    if beside is None:
        raise KeyringError(f"no {role} key: pass --key, or set {ENV} to your keyring")
    try:
        verifier = Verifier.from_vkey(read_small(beside, "public key"))
    except CheckpointError as exc:
        raise KeyringError(
            f"no key given, no keyring ({ENV}) and none usable beside the data ({exc}): "
            f"pass the key you pinned with --key, or set {ENV}") from exc
    return KeyChoice(verifiers=(verifier,), pinned=False,
                     source=f"the key beside the data ({beside}): {NOT_PINNED}; pin yours "
                            f"with --key or {ENV}")


BESIDE = Path("keys") / "signing.pub"
"""Where ingest writes the log key's public half, beside the data (never a trust root)."""


def newest_checkpoint(data: Path) -> str | None:
    """The text of the newest checkpoint ingest re-signed beside the data
    (``checkpoints/latest.checkpoint``, else a worker's), read as a regular file only; None
    when there is none. Only to tell which key of a rotation signed the log: what it says is
    verified with that key afterwards, never trusted here."""
    where = data / "checkpoints"
    candidates = [where / "latest.checkpoint",
                  *sorted((where / "workers").glob("*/latest.checkpoint"))]
    from schemas.logformat import LogError, open_regular

    for path in candidates:
        try:
            with open_regular(path, "checkpoint") as fo:
                return fo.read(1 << 16).decode("utf-8")
        except (LogError, OSError, UnicodeDecodeError):
            continue
    return None


def log_key(data: Path, given: str | Path | Sequence[str] | None) -> tuple[Verifier, KeyChoice]:
    """The key to verify the log of ``data`` with, and the choice it came from
    (:func:`choose` for role ``log``, with ``DATA/keys/signing.pub`` as the key beside): of
    several trusted log keys (a rotation's overlap), the one that signed the newest
    checkpoint (:meth:`KeyChoice.for_note`)."""
    choice = choose("log", given, data / BESIDE)
    text = newest_checkpoint(data)
    verifier = choice.for_note(text) if text and len(choice.verifiers) > 1 else choice.first
    ring = None if given else configured()
    if ring is not None and text:
        _in_its_days(ring, verifier, text)
    return verifier, choice


def _in_its_days(ring: Keyring, verifier: Verifier, text: str) -> None:
    """KeyringError unless the keyring trusts ``verifier`` for the log on the day the
    checkpoint ``text`` says it was signed (its ``from=``/``until=`` days: a key retired by
    a rotation does not vouch for a checkpoint dated after its overlap ended)."""
    from schemas.checkpoint import parse

    try:
        signed_at = parse(text).signed_at
        day = dt.date.fromisoformat(signed_at[:10])
    except (CheckpointError, ValueError):
        return  # an unreadable checkpoint fails verification itself, named
    if not ring.trusts(verifier, "log", day):
        raise KeyringError(
            f"the key {verifier.name} ({verifier.key_hash.hex()}) that signed the newest "
            f"checkpoint (signed at {signed_at}) is not trusted for the log on {day} by the "
            f"keyring {ring.source} ({ENV}): outside its from=/until= days, or not a log key")
