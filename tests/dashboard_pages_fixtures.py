"""Hand-built data for the tests of the dashboard's shell and its Overview, Flags and Dealers
and tables pages, written with pyarrow in the schemas replay and checks write
(replay/run.py ROUNDS, HANDS, WAGERS; checks/runner.py FLAG_SCHEMA), and a dashboard home
with one user per role.

Five rounds, two casinos, three tables, three dealers, three games, three UTC days (every
figure below is worked out by hand from these rows, not by the code under test):

==========  ======  =====  ==============  =====  ===========  ====  ======  =========  =======
round       casino  table  game            dealer dealt_at     eval  wagered house win  mispaid
==========  ======  =====  ==============  =====  ===========  ====  ======  =========  =======
T01-000001  c1      T01    pai_gow_poker   d-117  14th 21:05   yes   $35.00  -$34.75    1 of 2
T01-000002  c1      T01    pai_gow_poker   d-117  14th 22:10   yes   $10.00  $10.00     1 of 1
T01-000003  c1      T01    pai_gow_poker   d-204  15th 09:00   no    $15.00  -$14.25    (1)
T02-000001  c1      T02    caribbean_stud  d-204  15th 10:30   yes   $40.00  -$30.00    2 of 3
T09-000001  c2      T09    pai_gow_tiles   d-300  16th 12:00   yes   $20.00  $0.50      1 of 2
==========  ======  =====  ==============  =====  ===========  ====  ======  =========  =======

(dealt in March 2026, UTC.)

Flags (difference = recorded - expected):

- F1 overpay (high, rule, counted) T01-000001 seat 3 main: $30.00 for $28.50: +$1.50.
- F2 commission_not_taken (medium, rule, not counted: the same $1.50 as F1).
- F3 not_evaluated (medium, rule) T01-000003: no money.
- F4 underpay (high, rule, counted) T02-000001 seat 1 raise: $20.00 for $25.00: -$5.00.
- F5 overpay (high, rule, counted) T02-000001 seat 2 ante: $0.00 for -$10.00: +$10.00.
- F6 underpay (critical, rule, counted) T09-000001 seat 2 main: -$10.00 for $15.00:
  -$25.00; its detail is hostile Markdown/HTML.
- F7 peer_outlier (low, statistical, not counted) dealer d-117, T01-000002: no money.
- F8 underpay (medium, rule, counted) T01-000002 seat 1 main: -$10.00 for $0.00: -$10.00.

So: 4 rounds judged, 1 not evaluated; 7 rule flags in 5 rounds, 1 statistical lead;
overpaid $11.50 (F1 + F5), underpaid $40.00 (F4 + F6 + F8), at stake $51.50. Differences
-$25.00 < -$10.00 < -$5.00 < +$1.50 = +$1.50 < +$10.00 (as text, "-$10.00" would sort first).
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from checks.runner import FLAG_SCHEMA
from dashboard.accounts import Accounts
from dashboard.context import ROLES, Role
from replay.run import HANDS, ROUNDS, WAGERS
from tests.outputs_support import sign_checks, sign_replay

PASSWORD = "correct horse battery staple"
"""Every fixture user's password (test data only)."""
USERS: dict[Role, str] = {role: f"{role}.one" for role in ROLES}
"""One user per role: ``analyst.one``, ``dispute.one``, ``regulator.one``, ``admin.one``."""

HOSTILE = "**bold** <b>html</b> [link](javascript:alert(1)) :red[x] | pipe"


def _t(day: int, hour: int, minute: int) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=UTC)


def _round(rid: str, casino: str, table: str, game: str, dealer: str, at: datetime,
           evaluated: bool, wagered: int, house_win: int, mispaid: int | None) -> dict:
    return {
        "round_id": rid, "casino": casino, "table_id": table, "game": game,
        "ruleset": f"{game}-2026", "dealt_at": at, "dealer_id": dealer, "evaluated": evaluated,
        "voided": False, "ended": True, "events": 9, "corrections": 0,
        "problems": [] if evaluated else ["seat 1: cards dealt but no hand set"],
        "problem_kinds": [] if evaluated else ["hand_not_set"], "notation": f"{rid} {game}",
        "wagered_cents": wagered, "house_win_cents": house_win,
        "mispay_cents": None, "mispaid_wagers": mispaid,
    }


ROUND_ROWS = [
    _round("T01-000001", "c1", "T01", "pai_gow_poker", "d-117", _t(14, 21, 5), True,
           3500, -3475, 1),
    _round("T01-000002", "c1", "T01", "pai_gow_poker", "d-117", _t(14, 22, 10), True,
           1000, 1000, 1),
    _round("T01-000003", "c1", "T01", "pai_gow_poker", "d-204", _t(15, 9, 0), False,
           1500, -1425, None),
    _round("T02-000001", "c1", "T02", "caribbean_stud", "d-204", _t(15, 10, 30), True,
           4000, -3000, 2),
    _round("T09-000001", "c2", "T09", "pai_gow_tiles", "d-300", _t(16, 12, 0), True,
           2000, 50, 1),
]
_BY_ID = {r["round_id"]: r for r in ROUND_ROWS}


def _wager(rid: str, seat: int, wager: str, amount: int, recorded: int,
           expected: int | None) -> dict:
    r = _BY_ID[rid]
    return {
        "round_id": rid, "casino": r["casino"], "table_id": r["table_id"], "game": r["game"],
        "ruleset": r["ruleset"], "dealt_at": r["dealt_at"], "dealer_id": r["dealer_id"],
        "seat": seat, "position": f"seat {seat}", "wager": wager, "amount_cents": amount,
        "recorded_outcome": "win" if recorded > 0 else ("push" if recorded == 0 else "loss"),
        "recorded_net_cents": recorded, "recorded_commission_cents": 0,
        "expected_outcome": None if expected is None else "win",
        "expected_net_cents": expected, "expected_commission_cents": None,
    }


WAGER_ROWS = [
    _wager("T01-000001", 2, "main", 500, 475, 475),
    _wager("T01-000001", 3, "main", 3000, 3000, 2850),
    _wager("T01-000002", 1, "main", 1000, -1000, 0),
    _wager("T01-000003", 1, "main", 1500, 1425, None),
    _wager("T02-000001", 1, "ante", 1000, 1000, 1000),
    _wager("T02-000001", 1, "raise", 2000, 2000, 2500),
    _wager("T02-000001", 2, "ante", 1000, 0, -1000),
    _wager("T09-000001", 1, "main", 1000, 950, 950),
    _wager("T09-000001", 2, "main", 1000, -1000, 1500),
]


def _flag(check: str, title: str, severity: str, kind: str, rid: str, seat: int | None,
          wager: str | None, money: tuple[int, int] | None, counted: bool,
          detail: str) -> dict:
    r = _BY_ID[rid]
    row: dict[str, Any] = {
        "check_id": check, "title": title, "severity": severity, "kind": kind,
        "occurred_at": r["dealt_at"], "casino": r["casino"], "table_id": r["table_id"],
        "dealer_id": r["dealer_id"], "game": r["game"], "ruleset": r["ruleset"],
        "round_id": rid, "seat": seat, "wager": wager, "counted": counted, "detail": detail,
        "recorded_cents": None, "expected_cents": None, "amount_at_stake_cents": None,
        "direction": None, "difference_cents": None,
    }
    if money is not None:
        recorded, expected = money
        row.update(recorded_cents=recorded, expected_cents=expected,
                   amount_at_stake_cents=abs(recorded - expected),
                   direction="over" if recorded > expected else "under",
                   difference_cents=recorded - expected)
    return row


FLAG_ROWS = [
    _flag("overpay", "Overpay", "high", "rule", "T01-000001", 3, "main", (3000, 2850), True,
          "win paid without the 5% commission"),
    _flag("commission_not_taken", "Commission not taken", "medium", "rule", "T01-000001", 3,
          "main", (3000, 2850), False, "no commission on a winning banker bet"),
    _flag("not_evaluated", "Round not evaluated", "medium", "rule", "T01-000003", None, None,
          None, False, "seat 1: cards dealt but no hand set"),
    _flag("underpay", "Underpay", "high", "rule", "T02-000001", 1, "raise", (2000, 2500), True,
          "raise paid at 1 to 1 for a flush (2 to 1)"),
    _flag("overpay", "Overpay", "high", "rule", "T02-000001", 2, "ante", (0, -1000), True,
          "losing ante recorded as a push"),
    _flag("underpay", "Underpay", "critical", "rule", "T09-000001", 2, "main", (-1000, 1500),
          True, HOSTILE),
    _flag("peer_outlier", "Dealer outlier", "low", "statistical", "T01-000002", None, None,
          None, False, "dealer d-117 mispays 3.1 sd above the peers"),
    _flag("underpay", "Underpay", "medium", "rule", "T01-000002", 1, "main", (-1000, 0), True,
          "a push recorded as a loss"),
]

EXPECTED = {
    "judged": 4, "not_evaluated": 1, "rule_flags": 7, "leads": 1, "flagged_rounds": 5,
    "overpaid": "$11.50", "underpaid": "$40.00", "at_stake": "$51.50",
}


def write_pages_fixture(root: Path, *, manifest: bool | None = True) -> Path:
    """Write rounds, hands (no rows), wagers and flags under ``root`` (and the manifest of a
    verified log when ``manifest`` is True, of a log that did not verify when False), each
    signed by the data directory's outputs key (pinned only when a test pins it:
    tests/outputs_support.py ``pin_outputs_key``)."""
    tables = {"replay/rounds.parquet": (ROUNDS, ROUND_ROWS),
              "replay/hands.parquet": (HANDS, []),
              "replay/wagers.parquet": (WAGERS, WAGER_ROWS),
              "checks/flags.parquet": (FLAG_SCHEMA, FLAG_ROWS)}
    for name, (schema, rows) in tables.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    sign_checks(root)  # the checks' signed manifest of flags.parquet
    if manifest is not None:
        line = ("log verified: 1 segment, 45 records" if manifest
                else "segment 1 record 17: hash mismatch")
        sign_replay(root, verified=manifest, verification=line)
    return root


_HOMES: dict[str, Path] = {}


def write_users(home: Path, cache_dir: Path) -> dict[Role, str]:
    """One active user per role (:data:`USERS`, password :data:`PASSWORD`) in ``home``.
    Hashing four passwords takes about half a second, so the file is made once per
    ``cache_dir`` and copied."""
    made = _HOMES.get(str(cache_dir))
    if made is None:
        made = cache_dir / "users-home"
        accounts = Accounts(made)
        for role, name in USERS.items():
            accounts.add(name, role, PASSWORD, by="tests")
        _HOMES[str(cache_dir)] = made
    home.mkdir(parents=True, exist_ok=True)
    shutil.copy2(made / "users.jsonl", home / "users.jsonl")
    # its signed heads and the key that signed them (DATA/keys beside the home), so that
    # the dashboard may append to the copy
    shutil.copy2(made / "users.jsonl.checkpoints", home / "users.jsonl.checkpoints")
    keys = home.resolve().parent / "keys"
    if not (keys / "journal.key").exists():
        keys.mkdir(parents=True, exist_ok=True)
        for name in ("journal.key", "journal.pub"):
            shutil.copy2(made.resolve().parent / "keys" / name, keys / name)
    return dict(USERS)


# Driving the app under AppTest ---------------------------------------------------------------

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"


def app_test(data_dir: Path, home: Path, monkeypatch: Any, *, role: Role | None = None,
             params: dict[str, str] | None = None) -> Any:
    """An AppTest of the whole dashboard over ``data_dir`` and ``home`` (not run yet);
    with ``role``, the fixture user of that role is signed in (``SESSION_USER``)."""
    from streamlit.testing.v1 import AppTest

    from dashboard.app import SESSION_USER
    from dashboard.context import User

    monkeypatch.setenv("CATWALK_DATA", str(data_dir))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(home))
    at = AppTest.from_file(str(APP), default_timeout=60)
    if role is not None:
        at.session_state[SESSION_USER] = User(name=USERS[role], role=role)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    return at


def open_page(at: Any, url_path: str) -> Any:
    """Make the next ``at.run()`` open the page at ``url_path``, as a click in the menu
    does. AppTest.switch_page takes file paths only; a page made from a callable is known
    by the hash of its url_path (streamlit/navigation/page.py ``_script_hash``)."""
    from streamlit.util import calc_hash

    at._page_hash = calc_hash(url_path)
    return at
