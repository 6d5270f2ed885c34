"""The dashboard's users (dashboard/accounts.py): scrypt hashes in the documented format at
N=2^17 (lower costs raised at sign-in), sign-in refused for a wrong password, an unknown or
disabled user, the back-off per client that cannot lock a known name out, private files, and
the rules for names, roles and passwords.

Most tests make their hashes at :data:`FAST_N` through the explicit ``scrypt_n`` parameter
(a tenth of a millisecond instead of half a second); the default is tested on its own."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import stat
import threading
from pathlib import Path

import pytest

from dashboard import accounts as accounts_module
from dashboard.accounts import HOME_ENV, AccountError, Accounts, home_dir
from dashboard.context import User
from dashboard.journal import JournalError

PASSWORD = "correct horse battery"
FAST_N = 2**10
"""The test-only scrypt cost, passed explicitly (the default, 2^17, is tested apart)."""


class Clock:
    """A clock the test moves, and the sleeps the code asked for (which move it)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def users(tmp_path: Path, clock: Clock) -> Accounts:
    accounts = Accounts(tmp_path / "home", clock=clock, sleep=clock.sleep, scrypt_n=FAST_N)
    accounts.add("ann", "analyst", PASSWORD, by="test")
    return accounts


def _entries(accounts: Accounts) -> list[dict[str, object]]:
    return [json.loads(line) for line in accounts.journal.path.read_text().splitlines()]


def test_the_password_is_stored_as_an_scrypt_hash_in_the_documented_format(
        tmp_path: Path) -> None:
    """The default cost, N=2^17, r=8, p=1 (128 MiB: above OpenSSL's default maxmem)."""
    users = Accounts(tmp_path / "home")
    users.add("ann", "analyst", PASSWORD, by="test")
    stored = _entries(users)[0]["password_hash"]
    assert isinstance(stored, str)
    match = re.fullmatch(r"scrypt\$131072\$8\$1\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)", stored)
    assert match, stored
    salt, key = base64.b64decode(match[1]), base64.b64decode(match[2])
    assert len(salt) == 16 and len(key) == 32
    assert key == hashlib.scrypt(PASSWORD.encode(), salt=salt, n=2**17, r=8, p=1, dklen=32,
                                 maxmem=129 * 2**20)
    assert users.authenticate("ann", PASSWORD) == User(name="ann", role="analyst")
    assert len(_entries(users)) == 1, "a hash at the current cost is not made again"
    raw = users.journal.path.read_bytes()
    assert PASSWORD.encode() not in raw and b"horse" not in raw


def test_the_same_password_gets_a_different_salt(users: Accounts) -> None:
    users.add("bob", "dispute", PASSWORD, by="test")
    first, second = (e["password_hash"] for e in _entries(users))
    assert first != second


def test_the_right_password_signs_in_with_the_role(users: Accounts) -> None:
    assert users.authenticate("ann", PASSWORD) == User(name="ann", role="analyst")


@pytest.mark.parametrize(("name", "password"), [
    ("ann", "correct horse batterY"),
    ("ann", ""),
    ("ann", PASSWORD + " "),
    ("nobody", PASSWORD),
    ("Ann", PASSWORD),
])
def test_a_wrong_password_or_unknown_name_does_not_sign_in(users: Accounts, name: str,
                                                           password: str) -> None:
    assert users.authenticate(name, password) is None


def test_a_disabled_user_cannot_sign_in(users: Accounts) -> None:
    account = users.disable("ann", by="boss")
    assert account.active is False and account.disabled_at is not None
    assert users.authenticate("ann", PASSWORD) is None
    assert [a.active for a in users.accounts()] == [False]
    with pytest.raises(AccountError, match="disabled already"):
        users.disable("ann", by="boss")
    with pytest.raises(AccountError, match="no user named 'zed'"):
        users.disable("zed", by="boss")


def test_every_sign_in_attempt_costs_one_scrypt(users: Accounts, monkeypatch) -> None:
    """Unknown, disabled and wrong all do the same work as the right password, so the time
    taken does not tell which names exist."""
    users.add("dan", "dispute", PASSWORD, by="test")
    users.disable("dan", by="test")
    calls: list[int] = []
    real = hashlib.scrypt

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs["n"])
        return real(*args, **kwargs)

    monkeypatch.setattr(accounts_module.hashlib, "scrypt", counting)
    for name, password in (("ann", PASSWORD), ("ann", "wrong password!"),
                           ("nobody", PASSWORD), ("dan", PASSWORD)):
        before = len(calls)
        users.authenticate(name, password, client=f"address for {name} {password}")
        assert calls[before:] == [FAST_N], name


def test_a_hash_of_a_lower_cost_is_made_again_at_sign_in(tmp_path: Path) -> None:
    """A hash stored at N=2^10 (as before the cost was raised) is replaced, at the next
    successful sign-in, by one at the cost of this Accounts; a wrong password changes
    nothing."""
    home = tmp_path / "home"
    Accounts(home, scrypt_n=2**10).add("ann", "analyst", PASSWORD, by="test")
    raised = Accounts(home, scrypt_n=2**12)
    assert raised.authenticate("ann", "not the password") is None
    assert len(_entries(raised)) == 1
    assert raised.authenticate("ann", PASSWORD) == User(name="ann", role="analyst")
    entries = _entries(raised)
    assert [e["event"] for e in entries] == ["user_added", "password_set"]
    assert entries[1]["by"] == accounts_module.UPGRADED_BY
    assert str(entries[1]["password_hash"]).startswith("scrypt$4096$8$1$")
    assert raised.authenticate("ann", PASSWORD) is not None
    assert len(_entries(raised)) == 2, "made again once, not at every sign-in"


def test_set_password_replaces_the_old_one(users: Accounts) -> None:
    users.set_password("ann", "a brand new secret", by="ann")
    assert users.authenticate("ann", PASSWORD) is None
    assert users.authenticate("ann", "a brand new secret") == User(name="ann", role="analyst")
    with pytest.raises(AccountError, match="at least 12"):
        users.set_password("ann", "short", by="ann")
    with pytest.raises(AccountError, match="no user named"):
        users.set_password("zed", "a brand new secret", by="ann")


def test_wrong_passwords_cannot_lock_a_known_name_out(users: Accounts, clock: Clock) -> None:
    """Mallory types wrong passwords for ann from one address, fifty times: ann, from her
    own browser, signs in at once with the right password."""
    for _ in range(50):
        users.authenticate("ann", "not the password", client="address 10.0.0.66")
        clock.now += 1
    assert users.wait_for("address 10.0.0.66") > 0
    assert users.wait_for("address 10.0.0.7") == 0
    assert users.authenticate("ann", PASSWORD, client="address 10.0.0.7") == User(
        name="ann", role="analyst")


def test_a_failing_client_waits_longer_and_longer(users: Accounts, clock: Clock) -> None:
    """Three tries free, then 1 s, 2 s, 4 s ... after the last failure; a try during the wait
    is refused without being checked (the right password too)."""
    me = "address 192.0.2.1"
    for _ in range(3):
        assert users.authenticate("ann", "not the password", client=me) is None
    assert users.wait_for(me) == 1.0
    assert users.authenticate("ann", PASSWORD, client=me) is None  # not checked
    clock.now += 1.0
    assert users.wait_for(me) == 0
    assert users.authenticate("ann", "not the password", client=me) is None
    assert users.wait_for(me) == 2.0
    clock.now += 2.0
    assert users.authenticate("ann", "not the password", client=me) is None
    assert users.wait_for(me) == 4.0
    clock.now += 4.0
    assert users.authenticate("ann", PASSWORD, client=me) is not None
    assert users.wait_for(me) == 0, "a success clears the count"


def test_the_wait_stops_growing_at_five_minutes_and_failures_are_forgotten(
        users: Accounts, clock: Clock) -> None:
    me = "session abc"
    for _ in range(12):  # waits 1, 2 ... 256 s in between: 511 s, all within the window
        clock.now += users.wait_for(me)
        users.authenticate("ann", "not the password", client=me)
    assert users.wait_for(me) == 300.0  # 512 s, capped
    clock.now += 15 * 60  # every failure older than the window
    assert users.wait_for(me) == 0


def test_a_name_many_clients_get_wrong_is_slowed_never_locked(users: Accounts,
                                                             clock: Clock) -> None:
    """A guess spread over many addresses: after 10 failures for ann, every try at ann
    waits 2 s before it is checked, and the right password from a fresh client gets in."""
    for n in range(10):
        users.authenticate("ann", "not the password", client=f"address 198.51.100.{n}")
    assert clock.slept == []
    assert users.authenticate("ann", PASSWORD, client="address 203.0.113.5") == User(
        name="ann", role="analyst")
    assert clock.slept == [2.0]
    assert users.authenticate("bob", PASSWORD, client="address 203.0.113.5") is None
    assert clock.slept == [2.0], "another name is not slowed"


def test_the_back_off_holds_across_accounts_objects_of_one_home(users: Accounts,
                                                                clock: Clock) -> None:
    """The shell may build a new Accounts on every run of the page."""
    for _ in range(3):
        Accounts(users.home, clock=clock, scrypt_n=FAST_N).authenticate(
            "ann", "not the password", client="address 10.1.1.1")
    assert Accounts(users.home, clock=clock, scrypt_n=FAST_N).authenticate(
        "ann", PASSWORD, client="address 10.1.1.1") is None
    assert Accounts(users.home, clock=clock, scrypt_n=FAST_N).wait_for("address 10.1.1.1") > 0


def test_the_users_file_is_private(users: Accounts) -> None:
    assert stat.S_IMODE(users.journal.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(users.home.stat().st_mode) == 0o700


@pytest.mark.parametrize("name", ["a", "Ann", "1ann", "ann lee", "ann/lee", "", "ann\n",
                                  "a" * 33, "-ann", "ann@casino"])
def test_bad_names_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(AccountError, match="not a valid user name"):
        Accounts(tmp_path, scrypt_n=FAST_N).add(name, "analyst", PASSWORD, by="test")
    assert Accounts(tmp_path).accounts() == []


@pytest.mark.parametrize("name", ["al", "ann.lee", "ann_lee-2", "a" * 32])
def test_good_names_are_accepted(tmp_path: Path, name: str) -> None:
    added = Accounts(tmp_path, scrypt_n=FAST_N).add(name, "dispute", PASSWORD, by="test")
    assert added.name == name


def test_an_unknown_role_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AccountError, match="'boss' is not a role: choose one of analyst"):
        Accounts(tmp_path, scrypt_n=FAST_N).add("ann", "boss", PASSWORD, by="test")  # type: ignore[arg-type]


def test_an_existing_name_is_refused_even_when_disabled(users: Accounts) -> None:
    with pytest.raises(AccountError, match="exists already"):
        users.add("ann", "admin", "another password", by="test")
    users.disable("ann", by="test")
    with pytest.raises(AccountError, match=r"exists already \(disabled"):
        users.add("ann", "admin", "another password", by="test")
    assert len(_entries(users)) == 2


def test_passwords_shorter_than_twelve_characters_are_refused(tmp_path: Path) -> None:
    accounts = Accounts(tmp_path, scrypt_n=FAST_N)
    with pytest.raises(AccountError, match="11 characters long; use at least 12"):
        accounts.add("ann", "analyst", "x" * 11, by="test")
    with pytest.raises(AccountError, match="control character"):
        accounts.add("ann", "analyst", "tab\there-and-there", by="test")
    assert accounts.add("ann", "analyst", "x" * 12, by="test").role == "analyst"


def test_accounts_are_listed_by_name_with_who_created_them(tmp_path: Path) -> None:
    accounts = Accounts(tmp_path, scrypt_n=FAST_N)
    for name, role in (("zoe", "admin"), ("bob", "regulator"), ("mia", "dispute")):
        accounts.add(name, role, PASSWORD, by="cli:root")  # type: ignore[arg-type]
    listed = accounts.accounts()
    assert [(a.name, a.role, a.active, a.created_by) for a in listed] == [
        ("bob", "regulator", True, "cli:root"), ("mia", "dispute", True, "cli:root"),
        ("zoe", "admin", True, "cli:root")]
    assert accounts.get("mia") == listed[1]
    assert accounts.get("nobody") is None


def test_two_adds_of_one_name_at_once_make_one_user(tmp_path: Path) -> None:
    results: list[str] = []

    def add(role: str) -> None:
        try:
            Accounts(tmp_path, scrypt_n=FAST_N).add("ann", role, PASSWORD, by="test")  # type: ignore[arg-type]
            results.append("added")
        except AccountError:
            results.append("refused")

    threads = [threading.Thread(target=add, args=(role,)) for role in ("analyst", "admin")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["added", "refused"]
    assert len(Accounts(tmp_path).accounts()) == 1


def test_a_tampered_users_file_signs_nobody_in(users: Accounts) -> None:
    """Fail closed: changing the role by hand breaks the chain; sign-in raises."""
    path = users.journal.path
    path.write_text(path.read_text().replace('"role":"analyst"', '"role":"admin"'))
    with pytest.raises(JournalError, match=re.escape(f"{path} line 1: ")):
        users.authenticate("ann", PASSWORD)
    with pytest.raises(JournalError):
        users.add("bob", "analyst", PASSWORD, by="test")


def test_home_dir_follows_the_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(HOME_ENV, raising=False)
    assert home_dir(tmp_path) == tmp_path / "dashboard"
    monkeypatch.setenv(HOME_ENV, "")
    assert home_dir(tmp_path) == tmp_path / "dashboard"
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "elsewhere"))
    assert home_dir(tmp_path) == tmp_path / "elsewhere"
