"""``python -m dashboard``: manage the dashboard's users and check its own journals.

The dashboard itself is served by ``make serve`` (``streamlit run dashboard/serve.py``); this
command manages who may sign in to it and verifies the append-only files it keeps.
"""

from __future__ import annotations

import argparse
import getpass
import os
import secrets
import sys
from pathlib import Path
from typing import Any, NoReturn

from dashboard import anchor
from dashboard.access import ACCESS_FILE, AccessLog
from dashboard.accounts import USERS_FILE, AccountError, Accounts, home_dir
from dashboard.cases import CASES_FILE, CaseError, Cases
from dashboard.context import ROLE_WORDS, ROLES
from dashboard.journal import Journal, JournalError
from schemas import keyring
from schemas.checkpoint import CheckpointError

REPO = Path(__file__).resolve().parent.parent
PROG = "python -m dashboard"

EPILOG = f"""\
examples:
  {PROG} users add ann --role analyst
      add a user with a password made for them, printed once on standard output (only its
      scrypt hash is kept)
  printf '%s\\n' "$PASSWORD" | {PROG} users add ann --role analyst --password-stdin
      add a user with a chosen password (one line, 12 characters or more; typed without
      echo when standard input is a terminal)
  {PROG} users list
      every user: name, role, active, created when and by whom, disabled when
  {PROG} users disable ann
      ann can no longer sign in (kept in the file, never deleted; names are never reused)
  {PROG} users passwd ann --password-stdin
      give ann a new password
  {PROG} access verify --key "$(cat pinned-journal.pub)"
      check the three journals line by line and against their signed heads (exit 1 naming
      the first broken line or head), and print each one's head to note down
  {PROG} access anchor
      sign the current head of a journal written before signed heads were kept (or whose
      last entries have no signed head), once you have checked it; recorded in the access log

roles:
{chr(10).join(f"  {role:<10} {ROLE_WORDS[role]}" for role in ROLES)}

files (under --home, default $CATWALK_DASHBOARD_HOME, else DATA/dashboard; DATA is --data,
default $CATWALK_DATA or ./var):
  {USERS_FILE:<14} the users: added, disabled, passwords set (scrypt hashes, never passwords)
  {ACCESS_FILE:<14} the access log: sign-ins, page and round views, exports, case actions,
                 user changes, with who and when
  {CASES_FILE:<14} the cases: flags acknowledged and their dispositions
  FILE.checkpoints  each journal's signed heads: one signed note (C2SP signed-note form)
                 per append, with the entries count, the last entry's hash and the time
Each is append-only and hash-chained (mode 0600, directory 0700): a line changed, removed or
cut off mid-write is named by `access verify`, and nothing writes to a journal that does not
verify. Every append also signs the journal's new head with the journal key ($CATWALK_JOURNAL_KEY,
else DATA/keys/journal.key, made on first use; its public half DATA/keys/journal.pub), so a
chain recomputed after an edit, lines removed at the end, or a signed head removed while later
ones remain are named too, and the dashboard stops writing to that journal. `access verify`
checks the heads with --key (the journal key you pinned), else the keyring's role=journal keys
($CATWALK_TRUSTED_KEYS), else the key beside the data, said "unverified: key not pinned" (exit 3).
Nothing repairs a journal silently: keep the files as evidence, find out what happened, then
restore them from a backup or move them aside (the dashboard then starts new ones). A journal
removed whole with its signed heads is not visible from the host: note each head that
`access verify` prints somewhere the dashboard's host cannot rewrite.
Changes made here are recorded in the access log as user "cli:<your login name>".

sign-in: after 3 failed sign-ins within 15 minutes from one client (the browser's address, else
its session), that client waits 1 s before its next try, then 2 s, 4 s ... up to 5 minutes; a
name that many clients get wrong is slowed (2 s a try), never locked, so nobody can lock a known
user out. Kept in the dashboard server's memory: restarting the server clears it; every failure
stays in the access log as sign_in_failed, with the client. Passwords are scrypt N=2^17, r=8,
p=1; a hash of a lower cost is made again at the user's next sign-in.

exit codes: 0 done / every journal verifies; 1 a journal or its signed heads do not verify, or
cannot be written; 2 the command cannot run (arguments, an unknown user or role, a password
too short); 3 every journal verifies, but only with the key beside the data (not pinned).
"""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2), never the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{PROG}: {message} (see {self.prog} --help)\n")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=argparse.SUPPRESS, metavar="DIR",
                        help="data directory (default $CATWALK_DATA, else ./var)")
    parser.add_argument("--home", type=Path, default=argparse.SUPPRESS, metavar="DIR",
                        help="the dashboard's own files (default $CATWALK_DASHBOARD_HOME, "
                        "else DATA/dashboard)")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Manage who may sign in to the dashboard, and verify "
                "the append-only files it keeps (users, access log, cases).",
                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(p)
    top = p.add_subparsers(dest="area", metavar="{users,access}", parser_class=_Parser)
    users = top.add_parser("users", help="add, list, disable users; set a password",
                           epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(users)
    verbs = users.add_subparsers(dest="verb", metavar="{add,list,disable,passwd}",
                                 parser_class=_Parser)
    add = verbs.add_parser("add", help="add a user with one role")
    add.add_argument("name", help="2-32 characters: a-z first, then a-z 0-9 . _ -")
    add.add_argument("--role", required=True, help=f"one of {', '.join(ROLES)}")
    add.add_argument("--password-stdin", action="store_true",
                     help="read the password (one line) from standard input; without it a "
                     "strong one is made and printed once")
    add.add_argument("--quiet", action="store_true",
                     help="print only the password made (for scripts); errors still go to "
                     "standard error")
    _common(add)
    listing = verbs.add_parser("list", help="every user, disabled ones included")
    _common(listing)
    disable = verbs.add_parser("disable", help="stop a user signing in")
    disable.add_argument("name")
    _common(disable)
    passwd = verbs.add_parser("passwd", help="set a user's password")
    passwd.add_argument("name")
    passwd.add_argument("--password-stdin", action="store_true",
                        help="read the new password (one line) from standard input; without "
                        "it a strong one is made and printed once")
    _common(passwd)
    access = top.add_parser("access", help="verify the journals",
                            epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(access)
    access_verbs = access.add_subparsers(dest="verb", metavar="{verify,anchor}",
                                         parser_class=_Parser)
    check = access_verbs.add_parser("verify", help="check users, access log and cases, and "
                                    "their signed heads")
    check.add_argument("--key", action="append", metavar="KEY",
                       help="the journal key you pinned (its text name+hash+key, or a file "
                       "holding it; repeat for a rotation); default: the keyring's "
                       f"role=journal keys (${keyring.ENV}), else DATA/keys/journal.pub "
                       "(not pinned)")
    _common(check)
    check.add_argument("--every-signature", action="store_true",
                       help="check the signature of every signed head, not only the last's "
                       "(which vouches for those before it through their hashes)")
    sign = access_verbs.add_parser("anchor", help="sign the current head of journals that "
                                   "have entries after their last signed head")
    _common(sign)
    return p


class _Refused(Exception):
    """The command cannot run (exit 2)."""


def _actor() -> str:
    try:
        login = getpass.getuser()
    except Exception:  # no login name in the environment nor the password database
        login = f"uid{os.getuid()}"
    return f"cli:{login}"


def _read_password(name: str, from_stdin: bool) -> tuple[str, bool]:
    """The password and whether it was made here."""
    if not from_stdin:
        return secrets.token_urlsafe(18), True
    if sys.stdin is None:
        raise _Refused("--password-stdin: there is no standard input")
    if sys.stdin.isatty():
        return getpass.getpass(f"password for {name}: "), False
    line = sys.stdin.readline()
    if not line:
        raise _Refused("--password-stdin: standard input is empty; give the password as "
                       "one line")
    return line.removesuffix("\n").removesuffix("\r"), False


def _show_password(name: str, password: str) -> None:
    print(f"{PROG}: the password of {name}, shown once (only its scrypt hash is kept):",
          file=sys.stderr, flush=True)
    print(password, flush=True)


def _record(home: Path, action: Any, target: str, done: str, **detail: Any) -> None:
    try:
        AccessLog(home).record(_actor(), action, target, **detail)
    except JournalError as exc:
        raise JournalError(f"{done}, but the access log could not record it: {exc}") from exc


def _access_ok(home: Path) -> None:
    problem = AccessLog(home).verify()
    if problem is not None:
        raise JournalError(f"the access log does not verify, so nothing was changed: {problem}")


def _users(args: argparse.Namespace, home: Path) -> int:
    accounts = Accounts(home)
    if args.verb == "list":
        found = accounts.accounts()
        if not found:
            print(f"no users yet in {accounts.journal.path}; add one with "
                  f"{PROG} users add NAME --role ROLE")
            return 0
        rows = [("name", "role", "active", "created", "by", "disabled")] + [
            (a.name, a.role, "yes" if a.active else "no", a.created_at, a.created_by,
             a.disabled_at or "") for a in found]
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        return 0
    if args.verb == "add":
        _access_ok(home)
        password, made = _read_password(args.name, args.password_stdin)
        account = accounts.add(args.name, args.role, password, by=_actor())
        _record(home, "user_added", account.name, f"{account.name} was added", role=account.role)
        if args.quiet:
            if made:
                print(password, flush=True)
            return 0
        print(f"{PROG}: added {account.name} ({account.role}) to {accounts.journal.path}",
              file=sys.stderr, flush=True)
        if made:
            _show_password(account.name, password)
        return 0
    if args.verb == "disable":
        _access_ok(home)
        account = accounts.disable(args.name, by=_actor())
        _record(home, "user_disabled", account.name, f"{account.name} was disabled")
        print(f"{PROG}: disabled {account.name} ({account.role}); they can no longer sign in",
              file=sys.stderr)
        return 0
    if args.verb == "passwd":
        _access_ok(home)
        if accounts.get(args.name) is None:
            raise _Refused(f"there is no user named {args.name!r} ({PROG} users list shows "
                           "them)")
        password, made = _read_password(args.name, args.password_stdin)
        accounts.set_password(args.name, password, by=_actor())
        _record(home, "password_set", args.name, f"the password of {args.name} was set")
        print(f"{PROG}: set a new password for {args.name}", file=sys.stderr, flush=True)
        if made:
            _show_password(args.name, password)
        return 0
    raise _Refused("users: choose add, list, disable or passwd")


def _verify(home: Path, keys: list[str] | None, *, every: bool = False) -> int:
    """Check each journal, what it folds into and its signed heads; one line per file."""
    broken = 0
    try:
        choice: keyring.KeyChoice | None = keyring.choose("journal", keys,
                                                           anchor.public_path(home))
        trust = choice.trust_words if choice else ""
        unusable = ""
    except CheckpointError as exc:
        choice, trust, unusable = None, "", str(exc)
    for name, fold in ((USERS_FILE, lambda: Accounts(home).accounts()),
                       (ACCESS_FILE, None),
                       (CASES_FILE, lambda: Cases(home).states())):
        journal = Journal(home / name)
        if not journal.path.exists() and not journal.history_path.exists():
            print(f"absent   {journal.path} (nothing written yet)")
            continue
        problem = journal.verify() if journal.path.exists() else None
        if problem is None and fold is not None:
            try:
                fold()
            except (AccountError, CaseError, JournalError) as exc:
                problem = str(exc)
        verdict = None
        if problem is None:
            if choice is None:
                problem = f"{journal.path}: its signed heads cannot be checked: {unusable}"
            else:
                verdict = journal.check_anchors(list(choice.verifiers), every=every)
                problem = verdict.problem
        if problem is not None:
            broken += 1
            label = "NOT ANCHORED" if verdict is not None and not verdict.anchored else "BROKEN"
            print(f"{label:<8} {problem}")
            continue
        assert verdict is not None
        seq, head = journal.head()
        heads = f"{verdict.notes:,} signed head{'s' if verdict.notes != 1 else ''}"
        signed = (f"{heads}, the last by {verdict.signed_by}, {trust}"
                  if verdict.notes else "no signed head yet")
        print(f"ok       {journal.path}: {seq:,} entries, head seq {seq} sha256 {head}; "
              f"{signed}")
    if broken:
        print(f"{PROG}: {broken} journal(s) or their signed heads do not verify; nothing will "
              f"be written to them. Keep them as evidence; see {PROG} --help (files).",
              file=sys.stderr)
        return 1
    if choice is not None and not choice.pinned:
        print(f"{PROG}: {keyring.NOT_PINNED}: the signed heads were checked with "
              f"{choice.source}", file=sys.stderr)
        return 3
    return 0


def _anchor(home: Path) -> int:
    """Sign the head of each journal whose last entries have no signed head yet; then record
    each signing in the access log (once all are signed: the access log may be one of them)."""
    signed: list[tuple[str, int, str]] = []
    for name in (USERS_FILE, ACCESS_FILE, CASES_FILE):
        journal = Journal(home / name)
        if not journal.path.exists():
            continue
        head = journal.anchor_head()
        if head is None:
            print(f"signed   {journal.path}: its head was signed already")
            continue
        signed.append((name, *head))
        print(f"anchored {journal.path}: head seq {head[0]} sha256 {head[1]} signed")
    for name, seq, digest in signed:
        _record(home, "journal_anchored", name, f"the head of {name} was signed",
                seq=seq, head=digest)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.area is None or getattr(args, "verb", None) is None:
        where = "" if args.area is None else f" {args.area}"
        print(f"{PROG}{where}: choose a command (see {PROG}{where} --help)", file=sys.stderr)
        return 2
    data = getattr(args, "data", None) or Path(os.environ.get("CATWALK_DATA") or REPO / "var")
    home = getattr(args, "home", None) or home_dir(data)
    try:
        if args.area == "access":
            if args.verb == "anchor":
                return _anchor(home)
            return _verify(home, getattr(args, "key", None),
                           every=getattr(args, "every_signature", False))
        return _users(args, home)
    except (_Refused, AccountError, CaseError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    except JournalError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{PROG}: {exc.strerror or exc}: {exc.filename or home}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, EOFError):
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
