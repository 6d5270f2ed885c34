"""Data for the tests of the Round, Log integrity, Rulesets, Cases and Access log pages,
made by the real pipeline: events hand-built with tests/events_factory.py go into a real
signed log (ingest's LogWriter, one message quarantined), replay judges them and the
checks flag them. Nothing here asks the code under test what to expect.

The rounds (pai gow poker under the classic ruleset, 5% commission rounded down, docs/rules.md
6a.1, unless said):

- ``T01-000001``: dealer pair of aces (A-A-6-4-2 / K-9). Seat 2 (Td Ts 5d 5c 3s / Qs Qc,
  two pair behind a pair of queens) wins both hands: $5.00 wager, recorded win $4.75 net
  after $0.25 commission, as the rules require. Seat 3 (Kh Jh 8h 5h 3h / 7c 7d, a flush
  behind a pair of sevens) wins both hands: $25.00 wager recorded as a win of $25.00 with no
  commission, where the rules require $23.75 and $1.25 commission: overpaid by $1.25.
- ``T01-000002``: dealer A-K-Q-J-T straight / 9-2, which the house way does not allow (it
  plays K-Q-J-T-9 / A-2); seat 1 (4-4-6-5-3 / J-8) loses the high hand and wins the low
  hand, a push, but the table collected its $10.00 wager: underpaid by $10.00.
- ``T01-000003``: seat 1's cards were dealt but its hand never set and nothing settled:
  replay cannot judge the round (not evaluated).
- ``T02-000001``, ``T02-000002``: table T02 loses an event between them (a sequence gap).
- ``T03-000001``: pai gow tiles, its events recorded by a name holding Markdown and HTML.
- ``R-7``: a Caribbean stud round id dealt at two tables, T04 and T05.

The page harness (:func:`page_app`) builds the :class:`~dashboard.context.PageContext`
a shell builds and calls one page's ``render``, with the signed-in user where the shell
keeps it (``st.session_state[dashboard.signin.SESSION_USER]``); every ``ctx.record`` call
is written to the access log of ``CATWALK_DASHBOARD_HOME`` as the shell writes it, and
kept in ``st.session_state["recorded"]``.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

from checks.runner import run_checks
from ingest.log import LogWriter, Quarantined, Received
from replay.run import replay
from schemas import CardsDealt, HandSet, RoundEnded, RoundStarted, WagerPlaced, encode
from schemas.checkpoint import read_verifier
from schemas.log_verify import verify_data
from tests.events_factory import Table, events_of_document

OVERPAID_ROUND = "T01-000001"
OVERPAID_SEAT = 3
UNDERPAID_ROUND = "T01-000002"
UNJUDGED_ROUND = "T01-000003"
GAP_ROUNDS = ("T02-000001", "T02-000002")
TILES_ROUND = "T03-000001"
TILES_DOC = {
    "game": "pai_gow_tiles", "round_id": TILES_ROUND,
    "dealer": {"tiles": ["6-6", "3-6", "1-3", "2-2"], "high": ["6-6", "3-6"],
               "low": ["1-3", "2-2"]},
    "seats": [{"seat": 1, "tiles": ["5-5", "5-5", "4-5", "6-6"], "high": ["5-5", "5-5"],
               "low": ["4-5", "6-6"], "wagers": {"main": 700}}],
}
HOSTILE_RECORDER = "<b>pit</b> **boss** :streamlit:"
"""Who recorded the tiles round's events: Markdown, HTML and a Streamlit directive, which
the pages must show as text."""
SHARED_ROUND = "R-7"
SHARED_ID_TABLES = ("T04", "T05")
"""Round R-7 was dealt at both tables (a round id is unique only at its table)."""
CARIBBEAN_DOC = {
    "game": "caribbean_stud",
    "dealer": {"cards": ["Ah", "Qd", "9c", "5s", "2d"]},
    "seats": [{"seat": 1, "cards": ["Ks", "Kh", "7d", "7c", "3s"],
               "wagers": {"ante": 1000, "raise": 2000}}],
}
TOPIC = "round-events"
QUARANTINE_REASON = "does not decode: **not Avro** <script>alert(1)</script>"
"""A reason with Markdown and HTML in it: the page must show it as text."""
QUARANTINED_VALUE = b"\x00garbage"


def _cards(text: str) -> tuple[str, ...]:
    return tuple(text.split(" "))


def _events() -> list[Any]:
    table = Table("T01", "C01")
    events = table.round(OVERPAID_ROUND, dealer=("Ah Ad 6s 4h 2c", "Kc 9d"), seats={
        2: {"main": 500, "hand": ("Td Ts 5d 5c 3s", "Qs Qc"), "settled": ("win", 475, 25)},
        3: {"main": 2500, "hand": ("Kh Jh 8h 5h 3h", "7c 7d"), "settled": ("win", 2500, 0)},
    })
    events += table.round(UNDERPAID_ROUND, dealer=("As Kd Qh Jc Tc", "9s 2d"), seats={
        1: {"main": 1000, "hand": ("4c 4d 6c 5s 3d", "Js 8s"),
            "settled": ("loss", -1000, 0)},
    })
    # Seat 1's hand is dealt and never set; nothing is settled.
    events += [
        table.event(UNJUDGED_ROUND, RoundStarted(game="pai_gow_poker", dealer_id="E011")),
        table.event(UNJUDGED_ROUND, WagerPlaced(seat=1, wager="main", amount_cents=1500)),
        table.event(UNJUDGED_ROUND, CardsDealt(seat=1, cards=_cards("Ac Qd Js Th 8d 6h 2s"))),
        table.event(UNJUDGED_ROUND, CardsDealt(seat=None, cards=_cards("7s 7h 5h 4d 3c Jd 9c"))),
        table.event(UNJUDGED_ROUND, HandSet(seat=None, high=_cards("7s 7h 5h 4d 3c"),
                                             low=_cards("Jd 9c"))),
        table.event(UNJUDGED_ROUND, RoundEnded()),
    ]
    # Table T02 loses an event between two rounds: a sequence gap, a log-level finding.
    other = Table("T02", "C01")
    events += other.round(GAP_ROUNDS[0], dealer=("Ah Ad 6s 4h 2c", "Kc 9d"), seats={
        1: {"main": 500, "hand": ("Td Ts 5d 5c 3s", "Qs Qc"), "settled": ("win", 475, 25)}})
    next(other.seq)
    events += other.round(GAP_ROUNDS[1], dealer=("Ah Ad 6s 4h 2c", "Kc 9d"), seats={
        1: {"main": 500, "hand": ("Td Ts 5d 5c 3s", "Qs Qc"), "settled": ("win", 475, 25)}})
    # A pai gow tiles round whose events name a recorder with Markdown and HTML in it.
    tiles = events_of_document(Table("T03", "C01"), TILES_DOC)
    events += [dataclasses.replace(e, recorded_by=HOSTILE_RECORDER) for e in tiles]
    # One round id dealt at two tables of the casino.
    for table_id in SHARED_ID_TABLES:
        events += events_of_document(Table(table_id, "C01"), {**CARIBBEAN_DOC,
                                                              "round_id": SHARED_ROUND})
    return events


FIRST_SEGMENT = 12
"""Records in the first segment (the first batch)."""


def write_log(root: Path) -> int:
    """A real signed log of the rounds in two segments, and one quarantined message; returns
    how many records the log holds."""
    received = [Received(topic=TOPIC, partition=0, offset=i, timestamp_ms=1_795_888_800_000 + i,
                         key=b"T01", value=encode(event))
                for i, event in enumerate(_events())]
    bad = Received(topic=TOPIC, partition=0, offset=len(received),
                   timestamp_ms=1_795_888_900_000, key=b"T01", value=QUARANTINED_VALUE)
    with LogWriter(root / "log", root / "quarantine") as log:
        log.append(received[:FIRST_SEGMENT], [])
        log.append(received[FIRST_SEGMENT:], [Quarantined(message=bad,
                                                          reason=QUARANTINE_REASON)])
    return len(received)


def provenance(root: Path) -> dict[str, Any]:
    """What ``python -m replay`` records after verifying the log with the key beside it."""
    key = read_verifier(root / "keys" / "signing.pub")
    verdict = verify_data(root, key)
    return {"verified": verdict.ok,
            "verification": verdict.line() if verdict.ok else f"not verified: {verdict.problem}",
            "records": verdict.records, "root": verdict.root,
            "checkpoint": verdict.checkpoint_text, "key_fingerprint": key.vkey}


def write_pipeline(root: Path) -> dict[str, Any]:
    """Log, replay and checks under ``root``; returns the provenance replay recorded, with
    ``written``: how many records were written to the log."""
    root.mkdir(parents=True, exist_ok=True)
    written = write_log(root)
    given = provenance(root)
    assert given["verified"], given
    replay(root / "log", root / "replay", provenance=given)
    run_checks(root / "replay", root / "checks")
    return {**given, "written": written}


def copy_data(source: Path, target: Path) -> Path:
    """A copy of a data directory (symbolic links kept) for a test that alters it."""
    shutil.copytree(source, target, symlinks=True)
    return target


def manifest(root: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((root / "replay" / "manifest.json").read_text())
    return result


def page_app(page: str) -> None:
    """An app of one page: what the shell hands a page, without the shell (AppTest runs
    this function's source as the script, so it imports what it uses)."""
    import importlib
    import os
    from pathlib import Path

    import streamlit as st

    from dashboard.context import Filters, PageContext

    @st.cache_resource
    def connection():  # type: ignore[no-untyped-def]
        from dashboard import data

        return data.connect()

    from dashboard.access import AccessLog
    from dashboard.signin import SESSION_USER

    user = st.session_state[SESSION_USER]
    recorded = st.session_state.setdefault("recorded", [])
    home = Path(os.environ["CATWALK_DASHBOARD_HOME"])

    def record(action: str, target: str = "", **detail: object) -> None:
        # As the shell records (dashboard/shell.py): the real access log, with the role.
        AccessLog(home).record(user.name, action, target, role=user.role, **detail)
        recorded.append((action, target, detail))

    ctx = PageContext(root=Path(os.environ["CATWALK_DATA"]), home=home, user=user,
                      filters=st.session_state.get("filters", Filters()), con=connection(),
                      record=record, params=dict(st.query_params))
    module = importlib.import_module(page)
    if module.ROLES is not None and user.role not in module.ROLES:
        st.error("not allowed")
        return
    module.render(ctx)


def run_page(page: str, user: Any, *, params: dict[str, str] | None = None,
             filters: Any = None, timeout: float = 60) -> Any:
    """One page run under AppTest as ``user`` (CATWALK_DATA and CATWALK_DASHBOARD_HOME must
    be set by the test), with ``?key=value`` query parameters and shared filters."""
    from streamlit.testing.v1 import AppTest

    from dashboard.signin import SESSION_USER

    at = AppTest.from_function(page_app, kwargs={"page": page}, default_timeout=timeout)
    at.session_state[SESSION_USER] = user
    if filters is not None:
        at.session_state["filters"] = filters
    for key, value in (params or {}).items():
        at.query_params[key] = value
    return at.run()


def shown(at: Any) -> list[str]:
    """Every text an AppTest run shows outside tables: titles, headers, Markdown, captions,
    alerts, code and plain text, in that order."""
    kinds = ("title", "header", "subheader", "markdown", "caption", "success", "info",
             "warning", "error", "code", "text")
    return [str(element.value) for kind in kinds for element in getattr(at, kind)]
