"""``python -m dashboard users ...`` and ``access verify`` run as a user would (subprocesses):
users added with a password from standard input or a made one, listed, disabled; clear
one-line errors with exit 2, never a traceback; every change in the access log."""

from __future__ import annotations

import getpass
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.access import AccessLog
from dashboard.accounts import Accounts
from dashboard.context import User
from tests.conftest import REPO, run_cli

PASSWORD = "a long enough password"


def _cli(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m dashboard ARGS --home HOME`` with $CATWALK_DASHBOARD_HOME unset."""
    env = {k: v for k, v in os.environ.items() if k != "CATWALK_DASHBOARD_HOME"}
    env["CATWALK_DATA"] = str(home.parent / "data")
    return subprocess.run([sys.executable, "-m", "dashboard", *args, "--home", str(home)],
                          input=stdin, capture_output=True, text=True, timeout=120, cwd=REPO,
                          env=env)


def _one_clear_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_add_with_a_password_on_stdin_then_sign_in(home: Path) -> None:
    done = _cli(home, "users", "add", "ann", "--role", "analyst", "--password-stdin",
                stdin=PASSWORD + "\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # nothing to show: the password was the caller's
    assert "added ann (analyst)" in done.stderr
    accounts = Accounts(home)
    assert accounts.authenticate("ann", PASSWORD) == User(name="ann", role="analyst")
    assert accounts.authenticate("ann", PASSWORD + "\n") is None
    assert PASSWORD not in (home / "users.jsonl").read_text()
    [entry] = AccessLog(home).entries()
    assert (entry["user"], entry["action"], entry["target"], entry["detail"]) == (
        f"cli:{getpass.getuser()}", "user_added", "ann", {"role": "analyst"})


def test_add_without_a_password_prints_a_strong_one_once(home: Path) -> None:
    done = _cli(home, "users", "add", "rita", "--role", "regulator")
    assert done.returncode == 0, done.stderr
    password = done.stdout.strip()
    assert done.stdout.count("\n") == 1 and len(password) >= 20
    assert re.fullmatch(r"[A-Za-z0-9_-]+", password)
    assert "shown once" in done.stderr
    assert Accounts(home).authenticate("rita", password) == User(name="rita", role="regulator")
    again = _cli(home, "users", "add", "sam", "--role", "regulator")
    assert again.stdout.strip() != password


def test_list_and_disable(home: Path) -> None:
    for name, role in (("zoe", "admin"), ("dee", "dispute")):
        assert _cli(home, "users", "add", name, "--role", role).returncode == 0
    disabled = _cli(home, "users", "disable", "dee")
    assert disabled.returncode == 0, disabled.stderr
    assert "disabled dee" in disabled.stderr
    listing = _cli(home, "users", "list")
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert lines[0].split() == ["name", "role", "active", "created", "by", "disabled"]
    dee, zoe = (line.split() for line in lines[1:])
    assert dee[:3] == ["dee", "dispute", "no"] and len(dee) == 6
    assert zoe[:3] == ["zoe", "admin", "yes"] and len(zoe) == 5
    assert [e["action"] for e in AccessLog(home).entries()] == [
        "user_disabled", "user_added", "user_added"]
    assert Accounts(home).get("dee").active is False  # type: ignore[union-attr]


def test_passwd_sets_a_new_password(home: Path) -> None:
    _cli(home, "users", "add", "ann", "--role", "analyst", "--password-stdin", stdin=PASSWORD)
    done = _cli(home, "users", "passwd", "ann", "--password-stdin",
                stdin="another long password\n")
    assert done.returncode == 0, done.stderr
    accounts = Accounts(home)
    assert accounts.authenticate("ann", PASSWORD) is None
    assert accounts.authenticate("ann", "another long password") is not None
    assert AccessLog(home).entries()[0]["action"] == "password_set"


@pytest.mark.parametrize(("args", "stdin", "says"), [
    (("users", "add", "ann", "--role", "boss"), None, "'boss' is not a role"),
    (("users", "add", "Ann", "--role", "analyst"), None, "not a valid user name"),
    (("users", "add", "ann", "--role", "analyst", "--password-stdin"), "short\n",
     "use at least 12"),
    (("users", "add", "ann", "--role", "analyst", "--password-stdin"), "", "standard input is "
     "empty"),
    (("users", "add", "ann"), None, "the following arguments are required: --role"),
    (("users", "disable", "nobody"), None, "no user named 'nobody'"),
    (("users", "passwd", "nobody", "--password-stdin"), PASSWORD, "no user named 'nobody'"),
    (("users", "remove", "ann"), None, "invalid choice: 'remove'"),
    (("users",), None, "choose a command"),
    ((), None, "choose a command"),
])
def test_refusals_are_one_clear_line_and_exit_2(home: Path, args: tuple[str, ...],
                                                stdin: str | None, says: str) -> None:
    done = _cli(home, *args, stdin=stdin)
    assert done.returncode == 2
    assert says in _one_clear_line(done.stderr)
    assert not (home / "users.jsonl").exists()


def test_an_existing_name_is_refused(home: Path) -> None:
    assert _cli(home, "users", "add", "ann", "--role", "analyst").returncode == 0
    again = _cli(home, "users", "add", "ann", "--role", "admin")
    assert again.returncode == 2
    assert "a user named 'ann' exists already" in _one_clear_line(again.stderr)
    assert [a.role for a in Accounts(home).accounts()] == ["analyst"]


def test_access_verify_names_the_first_broken_line(home: Path) -> None:
    _cli(home, "users", "add", "ann", "--role", "analyst")
    _cli(home, "users", "add", "bob", "--role", "dispute")
    beside = _cli(home, "access", "verify")
    assert beside.returncode == 3 and "unverified: key not pinned" in beside.stderr
    pinned = (home.parent / "keys" / "journal.pub").read_text().strip()
    ok = _cli(home, "access", "verify", "--key", pinned)
    assert ok.returncode == 0, ok.stderr
    assert re.search(r"ok +\S+users\.jsonl: 2 entries, head seq 2 sha256 [0-9a-f]{64}", ok.stdout)
    assert re.search(r"ok +\S+access\.jsonl: 2 entries", ok.stdout)
    assert "absent" in ok.stdout and "cases.jsonl" in ok.stdout
    users = home / "users.jsonl"
    lines = users.read_text().splitlines(keepends=True)
    entry = json.loads(lines[1])
    entry["role"] = "admin"
    lines[1] = json.dumps(entry, sort_keys=True, separators=(",", ":")) + "\n"
    users.write_text("".join(lines))
    broken = _cli(home, "access", "verify")
    assert broken.returncode == 1
    assert f"BROKEN   {users} line 2: its hash does not match" in broken.stdout
    assert "Traceback" not in broken.stderr
    # and nothing more is written to it
    refused = _cli(home, "users", "add", "cy", "--role", "analyst")
    assert refused.returncode == 1
    assert f"{users} line 2" in _one_clear_line(refused.stderr)


def test_a_broken_access_log_stops_user_changes(home: Path) -> None:
    _cli(home, "users", "add", "ann", "--role", "analyst")
    access = home / "access.jsonl"
    access.write_bytes(access.read_bytes()[:-5])
    done = _cli(home, "users", "disable", "ann")
    assert done.returncode == 1
    assert "access log does not verify, so nothing was changed" in _one_clear_line(done.stderr)
    assert Accounts(home).get("ann").active  # type: ignore[union-attr]


def test_help_teaches(home: Path) -> None:
    done = run_cli("dashboard", "--help")
    assert done.returncode == 0
    for words in ("examples:", "users add ann --role analyst", "--password-stdin",
                  "users.jsonl", "access.jsonl", "cases.jsonl", "exit codes: 0", "scrypt",
                  "CATWALK_DASHBOARD_HOME"):
        assert words in done.stdout, words
    sub = run_cli("dashboard", "users", "add", "--help")
    assert sub.returncode == 0 and "--password-stdin" in sub.stdout and "--home" in sub.stdout


def test_quiet_prints_only_the_made_password(home: Path) -> None:
    """What `make demo` reads to print its block of users (standard error says, once, that
    the journals' signing key was made: never the password)."""
    done = _cli(home, "users", "add", "admin", "--role", "admin", "--quiet")
    notices = done.stderr.splitlines()
    assert done.returncode == 0 and len(notices) <= 1
    assert all(line.startswith("dashboard: created the signing key") for line in notices)
    assert done.stdout.strip() not in done.stderr
    assert Accounts(home).authenticate("admin", done.stdout.strip()) is not None
