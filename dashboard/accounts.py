"""The dashboard's users: who may sign in, with which role, and their password hashes.

The users are the fold of one append-only journal, ``HOME/users.jsonl`` (dashboard/journal.py),
whose entries are ``user_added`` (name, role, password hash, by), ``password_set`` (name,
password hash, by) and ``user_disabled`` (name, by). Nothing is ever rewritten: a disabled user
stays in the file, and so does every password hash they had.

Passwords are hashed with scrypt (RFC 7914; a memory-hard function, so that guessing passwords
from a copied file is slow and costly), from the standard library: a 16-byte random salt,
N=2^15, r=8, p=1 (32 MiB and about a tenth of a second per hash), a 32-byte key, stored as
``scrypt$N$r$p$SALT$KEY`` (base64) so that the parameters can be raised later without breaking
the hashes already stored. The password itself is never stored or logged; the repository
holds no credentials (``python -m dashboard users add`` makes them).

Sign-in throttle: after 5 failed sign-ins for one name within 15 minutes, :meth:`Accounts.
authenticate` refuses that name, right password or not, for 15 minutes. The count is kept in the
server process's memory, shared by every session of that process and keyed by the dashboard's
home directory and the name as typed (names that do not exist are throttled alike, so the
throttle does not tell which names exist). Restarting the server clears it; the failed
sign-ins themselves stay in the access log, which the shell writes.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import os
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dashboard.context import ROLES, Role, User
from dashboard.journal import Journal, JournalError

HOME_ENV = "CATWALK_DASHBOARD_HOME"
USERS_FILE = "users.jsonl"

NAME_PATTERN = re.compile(r"[a-z][a-z0-9._-]{1,31}")
"""A user name: 2 to 32 characters, a lower-case letter first, then letters, digits, ``.``,
``_`` or ``-``."""

MIN_PASSWORD = 12
MAX_PASSWORD = 1024
MAX_BY = 200

SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
KEY_BYTES = 32
_LIMITS = {"n": 2**20, "r": 32, "p": 16}
"""The largest scrypt parameters a stored hash may ask for (a hash asking for more is refused
rather than allowed to exhaust the server's memory)."""

THROTTLE_FAILURES = 5
THROTTLE_WINDOW_S = 15 * 60.0
THROTTLE_LOCK_S = 15 * 60.0
_THROTTLE_NAMES = 10_000


def home_dir(root: Path) -> Path:
    """Where the dashboard keeps its own files: ``$CATWALK_DASHBOARD_HOME`` when set (and not
    empty), else ``root / "dashboard"`` (``root`` being the data directory)."""
    configured = os.environ.get(HOME_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path(root) / "dashboard"


class AccountError(ValueError):
    """A request about users that cannot be done: a plain sentence naming what is wrong and
    what to do."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Account:
    """One user as the users journal has them now (never the password or its hash)."""

    name: str
    role: Role
    active: bool
    created_at: str
    created_by: str
    disabled_at: str | None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise AccountError(f"unknown role {self.role!r} for {self.name!r}")


# Password hashing ---------------------------------------------------------------------------


def _scrypt(password: bytes, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    return hashlib.scrypt(password, salt=salt, n=n, r=r, p=p, dklen=dklen,
                          maxmem=2 * 128 * n * r * p + (1 << 20))


def hash_password(password: str) -> str:
    """``scrypt$N$r$p$SALT$KEY`` for ``password``, with a fresh random salt."""
    salt = secrets.token_bytes(SALT_BYTES)
    key = _scrypt(password.encode("utf-8"), salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, KEY_BYTES)
    return "$".join(("scrypt", str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P),
                     base64.b64encode(salt).decode("ascii"),
                     base64.b64encode(key).decode("ascii")))


def _parse_hash(stored: str) -> tuple[int, int, int, bytes, bytes]:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        raise AccountError("a password hash is not of the form scrypt$N$r$p$SALT$KEY")
    try:
        n, r, p = (int(x) for x in parts[1:4])
        salt = base64.b64decode(parts[4], validate=True)
        key = base64.b64decode(parts[5], validate=True)
    except ValueError as exc:
        raise AccountError(f"a password hash cannot be read ({exc})") from exc
    if not (1 < n <= _LIMITS["n"] and n & (n - 1) == 0 and 0 < r <= _LIMITS["r"]
            and 0 < p <= _LIMITS["p"] and len(salt) >= 8 and 16 <= len(key) <= 64):
        raise AccountError(f"a password hash has parameters out of bounds (N={n}, r={r}, p={p})")
    return n, r, p, salt, key


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` hashes to ``stored`` (compared in constant time)."""
    n, r, p, salt, key = _parse_hash(stored)
    return hmac.compare_digest(_scrypt(password.encode("utf-8"), salt, n, r, p, len(key)), key)


@functools.cache
def _dummy_hash() -> str:
    """Checked against when the name is unknown, so that every sign-in costs one scrypt with
    the current parameters and the time taken does not tell which names exist."""
    return hash_password(secrets.token_urlsafe(24))


# Throttle -------------------------------------------------------------------------------------


class _Throttle:
    """Failed sign-ins per (home, name) in this process (see the module's docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: dict[tuple[str, str], list[float]] = {}
        self._locked: dict[tuple[str, str], float] = {}

    def locked_for(self, key: tuple[str, str], now: float) -> float:
        with self._lock:
            until = self._locked.get(key)
            if until is None:
                return 0.0
            if until <= now:
                del self._locked[key]
                return 0.0
            return until - now

    def failed(self, key: tuple[str, str], now: float) -> None:
        with self._lock:
            recent = [t for t in self._failures.get(key, []) if now - t < THROTTLE_WINDOW_S]
            recent.append(now)
            if len(recent) >= THROTTLE_FAILURES:
                self._locked[key] = now + THROTTLE_LOCK_S
                self._failures.pop(key, None)
            else:
                self._failures[key] = recent
            if len(self._failures) > _THROTTLE_NAMES:
                self._prune(now)

    def succeeded(self, key: tuple[str, str]) -> None:
        with self._lock:
            self._failures.pop(key, None)

    def _prune(self, now: float) -> None:
        for k in [k for k, times in self._failures.items() if now - times[-1] >= THROTTLE_WINDOW_S]:
            del self._failures[k]
        for k in [k for k, until in self._locked.items() if until <= now]:
            del self._locked[k]


_THROTTLE = _Throttle()


# Validation -----------------------------------------------------------------------------------


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise AccountError(
            f"{name!r} is not a valid user name: use 2 to 32 characters, a lower-case letter "
            "first, then lower-case letters, digits, '.', '_' or '-' (e.g. 'ann.lee')")
    return name


def check_role(role: str) -> Role:
    if role not in ROLES:
        raise AccountError(f"{role!r} is not a role: choose one of {', '.join(ROLES)}")
    return role


def check_password_rules(password: str) -> str:
    if not isinstance(password, str):
        raise AccountError("the password must be text")
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"the password is {len(password)} characters long; use at least "
                           f"{MIN_PASSWORD} (or leave --password-stdin out to have one made)")
    if len(password) > MAX_PASSWORD:
        raise AccountError(f"the password is longer than {MAX_PASSWORD} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in password):
        raise AccountError("the password contains a control character (a tab, a newline ...); "
                           "use printable characters only")
    return password


def check_by(by: str) -> str:
    if (not isinstance(by, str) or not by or len(by) > MAX_BY
            or any(ord(c) < 32 or ord(c) == 127 for c in by)):
        raise AccountError(f"who makes the change must be named in one line of at most {MAX_BY} "
                           f"printable characters, not {by!r}")
    return by


# The users -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Folded:
    account: Account
    password_hash: str


def _fold(path: Path, entries: list[dict[str, Any]]) -> dict[str, _Folded]:
    """The users as the journal's entries leave them; a malformed entry is an AccountError
    naming the file and line (never skipped)."""
    users: dict[str, _Folded] = {}
    for entry in entries:
        where = f"{path} line {entry.get('seq')}"
        event, name = entry.get("event"), entry.get("name")
        if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
            raise AccountError(f"{where}: the entry names no valid user")
        current = users.get(name)
        if event == "user_added":
            role, pw_hash = entry.get("role"), entry.get("password_hash")
            if current is not None:
                raise AccountError(f"{where}: {name!r} is added a second time")
            if role not in ROLES or not isinstance(pw_hash, str):
                raise AccountError(f"{where}: user_added lacks a known role or a password hash")
            users[name] = _Folded(
                Account(name=name, role=role, active=True, created_at=str(entry["at"]),
                        created_by=str(entry.get("by", "")), disabled_at=None),
                pw_hash)
        elif event == "user_disabled":
            if current is None:
                raise AccountError(f"{where}: disables {name!r}, who was never added")
            if current.account.active:
                a = current.account
                current.account = Account(name=a.name, role=a.role, active=False,
                                          created_at=a.created_at, created_by=a.created_by,
                                          disabled_at=str(entry["at"]))
        elif event == "password_set":
            pw_hash = entry.get("password_hash")
            if current is None or not isinstance(pw_hash, str):
                raise AccountError(f"{where}: sets the password of {name!r}, who was never "
                                   "added, or carries no hash")
            current.password_hash = pw_hash
        else:
            raise AccountError(f"{where}: unknown event {event!r}")
    return users


class Accounts:
    """The users of one dashboard home (``HOME/users.jsonl``)."""

    def __init__(self, home: Path, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.home = Path(home)
        self.journal = Journal(self.home / USERS_FILE)
        self._clock = clock

    def _users(self) -> dict[str, _Folded]:
        return _fold(self.journal.path, self.journal.entries())

    def accounts(self) -> list[Account]:
        """Every user ever added, by name (disabled ones included, ``active`` False)."""
        return [u.account for _, u in sorted(self._users().items())]

    def get(self, name: str) -> Account | None:
        """One user by name, or None (e.g. to check, on each page, that a signed-in user
        has not been disabled since)."""
        found = self._users().get(name)
        return found.account if found else None

    def add(self, name: str, role: Role, password: str, *, by: str) -> Account:
        """Add a user; refuses a bad name, an unknown role, an existing name (disabled ones
        included: names are never reused) and a password shorter than 12 characters."""
        check_name(name)
        check_role(role)
        check_password_rules(password)
        check_by(by)

        def guard(entries: list[dict[str, Any]]) -> None:
            existing = _fold(self.journal.path, entries).get(name)
            if existing is not None:
                state = "active" if existing.account.active else "disabled"
                raise AccountError(f"a user named {name!r} exists already ({state}, "
                                   f"{existing.account.role}); choose another name")

        written = self.journal.append(
            {"event": "user_added", "name": name, "role": role,
             "password_hash": hash_password(password), "by": by}, guard=guard)
        return Account(name=name, role=role, active=True, created_at=written["at"],
                       created_by=by, disabled_at=None)

    def _existing(self, entries: list[dict[str, Any]], name: str) -> _Folded:
        """The user ``name`` as ``entries`` fold it; AccountError when there is none."""
        found = _fold(self.journal.path, entries).get(name)
        if found is None:
            raise AccountError(f"there is no user named {name!r} (python -m dashboard "
                               "users list shows them)")
        return found

    def disable(self, name: str, *, by: str) -> Account:
        """Disable a user: they can no longer sign in. Refuses an unknown or disabled name."""
        check_by(by)

        def guard(entries: list[dict[str, Any]]) -> None:
            found = self._existing(entries, name)
            if not found.account.active:
                raise AccountError(f"{name!r} is disabled already (since "
                                   f"{found.account.disabled_at})")

        self.journal.append({"event": "user_disabled", "name": name, "by": by}, guard=guard)
        account = self.get(name)
        assert account is not None
        return account

    def set_password(self, name: str, password: str, *, by: str) -> None:
        """Give an existing, active user a new password."""
        check_password_rules(password)
        check_by(by)

        def guard(entries: list[dict[str, Any]]) -> None:
            if not self._existing(entries, name).account.active:
                raise AccountError(f"{name!r} is disabled; a disabled user keeps no password")

        self.journal.append({"event": "password_set", "name": name,
                             "password_hash": hash_password(password), "by": by}, guard=guard)

    def locked_for(self, name: str) -> float:
        """Seconds until ``name`` may try to sign in again (0 when not throttled)."""
        return _THROTTLE.locked_for(self._throttle_key(name), self._clock())

    def authenticate(self, name: str, password: str) -> User | None:
        """The user when ``name`` is an active user and ``password`` is theirs; None for an
        unknown or disabled name, a wrong password, or a name throttled after 5 failures in
        15 minutes. Every attempt that is not throttled costs one scrypt, found or not.

        Raises :class:`JournalError` or :class:`AccountError` when the users file cannot be
        trusted (fail closed: nobody signs in against a broken file)."""
        key = self._throttle_key(name)
        if _THROTTLE.locked_for(key, self._clock()) > 0:
            return None
        found = self._users().get(name) if isinstance(name, str) else None
        stored = found.password_hash if found is not None else _dummy_hash()
        try:
            matches = check_password(password if isinstance(password, str) else "", stored)
        except AccountError as exc:
            raise AccountError(f"{self.journal.path}: the password hash of {name!r} cannot be "
                               f"used ({exc}); set a new password with python -m dashboard "
                               "users passwd") from exc
        if matches and found is not None and found.account.active:
            _THROTTLE.succeeded(key)
            return User(name=found.account.name, role=found.account.role)
        _THROTTLE.failed(key, self._clock())
        return None

    def _throttle_key(self, name: object) -> tuple[str, str]:
        return (str(self.home.resolve()), str(name)[:64])


__all__ = [
    "HOME_ENV",
    "Account",
    "AccountError",
    "Accounts",
    "JournalError",
    "check_password",
    "hash_password",
    "home_dir",
]
