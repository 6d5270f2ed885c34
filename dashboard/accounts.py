"""The dashboard's users: who may sign in, with which role, and their password hashes.

The users are the fold of one append-only journal, ``HOME/users.jsonl`` (dashboard/journal.py),
whose entries are ``user_added`` (name, role, password hash, by), ``password_set`` (name,
password hash, by) and ``user_disabled`` (name, by). Nothing is ever rewritten: a disabled user
stays in the file, and so does every password hash they had.

Passwords are hashed with scrypt (RFC 7914; a memory-hard function, so that guessing passwords
from a copied file is slow and costly), from the standard library: a 16-byte random salt,
N=2^17, r=8, p=1 (128 MiB and about half a second per hash: OWASP's Password Storage Cheat
Sheet asks for N=2^17 with r=8, p=1 at least), a 32-byte key, stored as
``scrypt$N$r$p$SALT$KEY`` (base64), so that the parameters can be raised without breaking the
hashes already stored: a hash made with a lower cost is made again with the current one at
the user's next successful sign-in (a ``password_set`` entry by
:data:`UPGRADED_BY`). OpenSSL refuses scrypt above its ``maxmem`` (32 MiB by default), so the
memory each hash needs is passed explicitly. The password itself is never stored or logged;
the repository holds no credentials (``python -m dashboard users add`` makes them).

Sign-in back-off, per client rather than per name (so that nobody can lock a known user out
by typing wrong passwords for them): after :data:`BACKOFF_FREE` failed sign-ins within 15
minutes from one client, that client waits 1 s before its next try, then 2 s, 4 s ... up to
5 minutes (:meth:`Accounts.wait_for`); its tries in between are refused unchecked. A success
clears its count. A client is what the shell passes as ``client``: the browser's address
when Streamlit knows it, else the browser session (dashboard/signin.py :func:`~dashboard.
signin.client_id`). A name that many clients get wrong (:data:`NAME_SLOW_FAILURES` failures
within 15 minutes, a guessing attack spread over many addresses or sessions) only slows: each
try at that name waits :data:`NAME_SLOW_S` before it is checked, the right password
included, and nothing locks it. The counts are kept in the server process's memory, shared by
every session of that process and keyed by the dashboard's home directory (names that do not
exist are counted alike, so the back-off does not tell which names exist). Restarting the
server clears them; the failed sign-ins themselves stay in the access log, which the shell
writes.
"""

from __future__ import annotations

import base64
import contextlib
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

SCRYPT_N = 2**17
"""The scrypt cost every new hash is made with (and every lower one raised to at sign-in).
Tests may pass a lower ``scrypt_n`` to :class:`Accounts` explicitly; this default is never
lowered."""
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
KEY_BYTES = 32
_LIMITS = {"n": 2**20, "r": 32, "p": 16}
"""The largest scrypt parameters a stored hash may ask for (a hash asking for more is refused
rather than allowed to exhaust the server's memory)."""

BACKOFF_FREE = 3
"""Failed sign-ins from one client, within :data:`BACKOFF_WINDOW_S`, before it must wait."""
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 5 * 60.0
BACKOFF_WINDOW_S = 15 * 60.0
NAME_SLOW_FAILURES = 10
"""Failed sign-ins for one name (from any client) within the window before each try at that
name is slowed by :data:`NAME_SLOW_S`."""
NAME_SLOW_S = 2.0
UPGRADED_BY = "dashboard: scrypt cost raised at sign-in"
_THROTTLE_KEYS = 10_000


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


def hash_password(password: str, *, n: int = SCRYPT_N) -> str:
    """``scrypt$N$r$p$SALT$KEY`` for ``password``, with a fresh random salt; ``n`` the cost
    (:data:`SCRYPT_N`; lower only in tests, which say so)."""
    if not (1 < n <= _LIMITS["n"] and n & (n - 1) == 0):
        raise AccountError(f"the scrypt cost N must be a power of two up to 2^20, not {n}")
    salt = secrets.token_bytes(SALT_BYTES)
    key = _scrypt(password.encode("utf-8"), salt, n, SCRYPT_R, SCRYPT_P, KEY_BYTES)
    return "$".join(("scrypt", str(n), str(SCRYPT_R), str(SCRYPT_P),
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


def hash_cost(stored: str) -> tuple[int, int, int]:
    """The ``(N, r, p)`` a stored hash was made with."""
    n, r, p, _, _ = _parse_hash(stored)
    return n, r, p


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` hashes to ``stored`` (compared in constant time)."""
    n, r, p, salt, key = _parse_hash(stored)
    return hmac.compare_digest(_scrypt(password.encode("utf-8"), salt, n, r, p, len(key)), key)


@functools.cache
def _dummy_hash(n: int = SCRYPT_N) -> str:
    """Checked against when the name is unknown, so that every sign-in costs one scrypt with
    the current parameters and the time taken does not tell which names exist."""
    return hash_password(secrets.token_urlsafe(24), n=n)


# Back-off -------------------------------------------------------------------------------------


class _Backoff:
    """Failed sign-ins per client and per name in this process (see the module's docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clients: dict[tuple[str, str], list[float]] = {}
        self._names: dict[tuple[str, str], list[float]] = {}

    @staticmethod
    def _recent(times: list[float] | None, now: float) -> list[float]:
        return [t for t in times or () if now - t < BACKOFF_WINDOW_S]

    def wait_for(self, client: tuple[str, str], now: float) -> float:
        """Seconds before ``client`` may try again (0 when it may now)."""
        with self._lock:
            recent = self._recent(self._clients.get(client), now)
        if len(recent) < BACKOFF_FREE:
            return 0.0
        delay = min(BACKOFF_MAX_S, BACKOFF_BASE_S * float(2 ** (len(recent) - BACKOFF_FREE)))
        return max(0.0, recent[-1] + delay - now)

    def name_delay(self, name: tuple[str, str], now: float) -> float:
        """Seconds every try at ``name`` is slowed by (0 unless many clients got it wrong)."""
        with self._lock:
            recent = self._recent(self._names.get(name), now)
        return NAME_SLOW_S if len(recent) >= NAME_SLOW_FAILURES else 0.0

    def failed(self, client: tuple[str, str], name: tuple[str, str], now: float) -> None:
        with self._lock:
            for table, key in ((self._clients, client), (self._names, name)):
                table[key] = [*self._recent(table.get(key), now), now][-64:]
                if len(table) > _THROTTLE_KEYS:
                    for old in [k for k, v in table.items() if now - v[-1] >= BACKOFF_WINDOW_S]:
                        del table[old]

    def succeeded(self, client: tuple[str, str]) -> None:
        with self._lock:
            self._clients.pop(client, None)


_BACKOFF = _Backoff()


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

    def __init__(self, home: Path, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, scrypt_n: int = SCRYPT_N
                 ) -> None:
        """``scrypt_n``: the cost of the hashes made here (:data:`SCRYPT_N`); a test passes
        a lower one explicitly to stay fast."""
        self.home = Path(home)
        self.journal = Journal(self.home / USERS_FILE)
        self._clock = clock
        self._sleep = sleep
        self.scrypt_n = scrypt_n

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
             "password_hash": hash_password(password, n=self.scrypt_n), "by": by},
            guard=guard)
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
                             "password_hash": hash_password(password, n=self.scrypt_n),
                             "by": by}, guard=guard)

    def wait_for(self, client: str = "") -> float:
        """Seconds before ``client`` may try to sign in again (0 when it may now)."""
        return _BACKOFF.wait_for(self._key(client), self._clock())

    def authenticate(self, name: str, password: str, *, client: str = "") -> User | None:
        """The user when ``name`` is an active user and ``password`` is theirs; None for an
        unknown or disabled name, a wrong password, or a ``client`` that must still wait
        (:meth:`wait_for`; refused unchecked). A name many clients got wrong is slowed, never
        refused. Every try that is checked costs one scrypt, found or not; a hash of a lower
        cost than :attr:`scrypt_n` is made again with it on success.

        Raises :class:`JournalError` or :class:`AccountError` when the users file cannot be
        trusted (fail closed: nobody signs in against a broken file)."""
        who, named = self._key(client), self._key(name)
        if _BACKOFF.wait_for(who, self._clock()) > 0:
            return None
        delay = _BACKOFF.name_delay(named, self._clock())
        if delay > 0:
            self._sleep(delay)
        found = self._users().get(name) if isinstance(name, str) else None
        stored = found.password_hash if found is not None else _dummy_hash(self.scrypt_n)
        try:
            matches = check_password(password if isinstance(password, str) else "", stored)
        except AccountError as exc:
            raise AccountError(f"{self.journal.path}: the password hash of {name!r} cannot be "
                               f"used ({exc}); set a new password with python -m dashboard "
                               "users passwd") from exc
        if matches and found is not None and found.account.active:
            _BACKOFF.succeeded(who)
            if hash_cost(stored) < (self.scrypt_n, SCRYPT_R, SCRYPT_P):
                self._upgrade(found.account.name, password, stored)
            return User(name=found.account.name, role=found.account.role)
        _BACKOFF.failed(who, named, self._clock())
        return None

    def _upgrade(self, name: str, password: str, stored: str) -> None:
        """Store ``name``'s password again at the current cost, unless it changed since."""
        def guard(entries: list[dict[str, Any]]) -> None:
            if self._existing(entries, name).password_hash != stored:
                raise AccountError(f"the password of {name!r} changed meanwhile")

        with contextlib.suppress(AccountError):  # set anew meanwhile: theirs stands
            self.journal.append({"event": "password_set", "name": name,
                                 "password_hash": hash_password(password, n=self.scrypt_n),
                                 "by": UPGRADED_BY}, guard=guard)

    def _key(self, what: object) -> tuple[str, str]:
        return (str(self.home.resolve()), str(what)[:200])


__all__ = [
    "HOME_ENV",
    "Account",
    "AccountError",
    "Accounts",
    "JournalError",
    "check_password",
    "hash_cost",
    "hash_password",
    "home_dir",
]
