"""The data the browser tests (tests/test_dashboard_browser.py) serve, and the screenshots of
the user guides (docs/guide-*.md) show: a short simulated shift and one table of hand-built
rounds, through the real pipeline (a signed log written by ingest's LogWriter, one message
quarantined, verified, replayed, checked). No Kafka.

- The shift: ``python -m ingest.simulate``'s tables T01-T04 (one game each: pai gow poker,
  Face Up, pai gow tiles, Caribbean stud), :data:`SHIFT_ROUNDS` rounds a table, faults at
  :data:`SHIFT_FAULT_RATE`, seed :data:`SHIFT_SEED`; it makes the pages look like a shift.
  The tests assert nothing about its rounds but that they are there.
- Table T09 at casino C01, dealer E091, pai gow poker under the classic ruleset (5%
  commission on a win; docs/rules.md 6, 6a.1), every value below worked out by hand:

  - ``T09-000001``: the dealer sets a pair of aces behind king-nine (Ah Ad 6s 4h 2c / Kc 9d;
    the house way for one pair: the pair in the high hand, the next two highest cards in
    the low hand, docs/rules.md 1.3). Seat 2, $5.00 main, sets two pair (Td Ts 5d 5c 3s)
    behind a pair of queens (Qs Qc): it wins both hands, paid even money less 5%: +$4.75,
    commission $0.25, as recorded. Seat 3, $25.00 main, sets a king-high flush
    (Kh Jh 8h 5h 3h) behind a pair of sevens (7c 7d): it wins both hands, so the rules
    require +$23.75 and a commission of $1.25; the table recorded a win of +$25.00 with no
    commission: **overpaid by $1.25** (flags ``overpay`` and ``commission_wrong``, seat 3).
  - ``T09-000002``: the dealer sets a pair of kings behind queen-jack (Ks Kh 9c 6d 3s /
    Qc Jd; one pair, as above); seat 1, $10.00 main, sets a pair of fours (4c 4d 6c 5s 3d)
    behind jack-eight (Js 8s) and loses both hands: -$10.00, as recorded. No flag.
  - ``T09-000003``: the dealer's hand of ``T09-000001`` again (new cards: Ac Ah 7s 5h 2c /
    Kd 8c, a pair of aces behind king-eight); seat 1, $20.00 main, sets two pair
    (Td Ts 6d 6c 3s) behind a pair of queens (Qs Qh): it wins both hands, so +$19.00 and
    $1.00 commission; the table took a $2.00 commission and paid +$18.00: **underpaid by
    $1.00** (flags ``underpay`` and ``commission_wrong``, seat 1).

The signing key is made in the data directory when the log is first written (never a key
from the repository); the users (one per role) get passwords made here.
"""

from __future__ import annotations

import dataclasses
import secrets
from pathlib import Path
from typing import Any

from checks.runner import run_checks
from dashboard.context import Role
from ingest.log import LogWriter, Quarantined, Received
from ingest.simulate import simulate_shift
from replay.run import replay
from schemas import (
    CardsDealt,
    HandSet,
    HandsExposed,
    RoundEnded,
    RoundEvent,
    RoundStarted,
    WagerPlaced,
    WagerSettled,
    encode,
)
from schemas.checkpoint import read_verifier
from schemas.log_verify import verify_data
from tests.events_factory import Table

SHIFT_TABLES = 4
SHIFT_ROUNDS = 20
SHIFT_SEED = 2026
SHIFT_FAULT_RATE = 0.15
TOPIC = "round-events"

CASINO = "C01"
TABLE = "T09"
DEALER = "E091"
OVERPAID_ROUND = "T09-000001"
LOST_ROUND = "T09-000002"
UNDERPAID_ROUND = "T09-000003"
QUARANTINE_REASON = "does not decode: not an Avro record of the round-event schema"

OVERPAID: dict[str, Any] = {
    "round": OVERPAID_ROUND,
    "seat": 3,
    "wager": "main",
    "amount": "$25.00",
    "cards": ("Kh", "Jh", "8h", "5h", "3h", "7c", "7d"),
    "dealer_cards": ("Ah", "Ad", "6s", "4h", "2c", "Kc", "9d"),
    "recorded_net": "+$25.00",
    "expected_net": "+$23.75",
    "recorded_net_cents": 2500,
    "expected_net_cents": 2375,
    "expected_commission": "$1.25",
    "difference": "+$1.25",
    "other_seat": 2,
    "other_net": "+$4.75",
}
"""The overpaid round as worked out by hand (see the module docstring)."""
UNDERPAID: dict[str, Any] = {
    "round": UNDERPAID_ROUND,
    "seat": 1,
    "recorded_net_cents": 1800,
    "expected_net_cents": 1900,
}
T09_FLAGS = (
    (OVERPAID_ROUND, 3, "commission_wrong"),
    (OVERPAID_ROUND, 3, "overpay"),
    (UNDERPAID_ROUND, 1, "commission_wrong"),
    (UNDERPAID_ROUND, 1, "underpay"),
)
"""(round, seat, check) of every flag the catalogue raises on table T09 (docs/checks.md: a
wager settled for more or less than the rules require raises exactly one of overpay and
underpay; a commission of the wrong amount on a winning wager raises commission_wrong)."""
ROLES: tuple[Role, ...] = ("analyst", "dispute", "regulator", "admin")


def _cards(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _round(table: Table, round_id: str, dealer: tuple[str, str],
           seats: dict[int, tuple[int, tuple[str, str], tuple[str, int, int]]]
           ) -> list[RoundEvent]:
    """A dealer-banked pai gow poker round at ``table`` dealt by :data:`DEALER`: each seat
    is (main wager in cents, (high, low), (outcome, net, commission) as recorded)."""
    payloads: list[Any] = [RoundStarted(game="pai_gow_poker", dealer_id=DEALER)]
    payloads += [WagerPlaced(seat=s, wager="main", amount_cents=main)
                 for s, (main, _, _) in seats.items()]
    payloads += [CardsDealt(seat=s, cards=_cards(f"{high} {low}"))
                 for s, (_, (high, low), _) in seats.items()]
    payloads.append(CardsDealt(seat=None, cards=_cards(f"{dealer[0]} {dealer[1]}")))
    payloads += [HandSet(seat=s, high=_cards(high), low=_cards(low))
                 for s, (_, (high, low), _) in seats.items()]
    payloads.append(HandSet(seat=None, high=_cards(dealer[0]), low=_cards(dealer[1])))
    payloads.append(HandsExposed(seat=None))
    payloads += [WagerSettled(seat=s, wager="main", outcome=outcome, net_cents=net,
                              commission_cents=commission)
                 for s, (_, _, (outcome, net, commission)) in seats.items()]
    payloads.append(RoundEnded())
    return [dataclasses.replace(table.event(round_id, p), recorded_by=DEALER) for p in payloads]


def hand_built_events() -> list[RoundEvent]:
    """Table T09's three rounds (see the module docstring)."""
    table = Table(TABLE, CASINO)
    events = _round(table, OVERPAID_ROUND, ("Ah Ad 6s 4h 2c", "Kc 9d"), {
        2: (500, ("Td Ts 5d 5c 3s", "Qs Qc"), ("win", 475, 25)),
        3: (2500, ("Kh Jh 8h 5h 3h", "7c 7d"), ("win", 2500, 0)),
    })
    events += _round(table, LOST_ROUND, ("Ks Kh 9c 6d 3s", "Qc Jd"), {
        1: (1000, ("4c 4d 6c 5s 3d", "Js 8s"), ("loss", -1000, 0)),
    })
    events += _round(table, UNDERPAID_ROUND, ("Ac Ah 7s 5h 2c", "Kd 8c"), {
        1: (2000, ("Td Ts 6d 6c 3s", "Qs Qh"), ("win", 1800, 200)),
    })
    return events


def write_log(root: Path) -> int:
    """The shift and table T09 in a real signed log under ``root`` (two batches), and one
    message quarantined; returns how many records the log holds."""
    shift, _labels = simulate_shift(tables=SHIFT_TABLES, rounds=SHIFT_ROUNDS, seed=SHIFT_SEED,
                                    fault_rate=SHIFT_FAULT_RATE, casino=CASINO)
    events = sorted([*shift, *hand_built_events()],
                    key=lambda e: (e.occurred_at_us, e.table_id, e.table_seq))
    received = [Received(topic=TOPIC, partition=0, offset=i,
                         timestamp_ms=e.occurred_at_us // 1000, key=e.table_id.encode(),
                         value=encode(e))
                for i, e in enumerate(events)]
    bad = Received(topic=TOPIC, partition=0, offset=len(received),
                   timestamp_ms=received[-1].timestamp_ms + 1, key=b"T09",
                   value=b"\x00not an event")
    half = len(received) // 2
    with LogWriter(root / "log", root / "quarantine") as log:
        log.append(received[:half], [])
        log.append(received[half:], [Quarantined(message=bad, reason=QUARANTINE_REASON)])
    return len(received)


def write_pipeline(root: Path) -> dict[str, Any]:
    """Log, verification, replay and checks under ``root`` (as ``python -m ingest``,
    ``python -m replay`` and ``python -m checks`` leave it); what the verification said."""
    root.mkdir(parents=True, exist_ok=True)
    written = write_log(root)
    key = read_verifier(root / "keys" / "signing.pub")
    verdict = verify_data(root, key)
    if not verdict.ok:
        raise AssertionError(f"the fixture's own log does not verify: {verdict.problem}")
    replay(root / "log", root / "replay", provenance={
        "verified": True, "verification": verdict.line(), "records": verdict.records,
        "root": verdict.root, "checkpoint": verdict.checkpoint_text,
        "key_fingerprint": key.vkey})
    run_checks(root / "replay", root / "checks")
    return {"records": written, "verification": verdict.line(), "vkey": key.vkey}


def add_users(home: Path) -> dict[str, tuple[str, str]]:
    """One user per role in the dashboard home ``home``: role -> (name, password)."""
    from dashboard.accounts import Accounts

    accounts = Accounts(home)
    users: dict[str, tuple[str, str]] = {}
    for role in ROLES:
        name, password = f"{role}-ann", secrets.token_urlsafe(15)
        accounts.add(name, role, password, by="tests/dashboard_browser_fixtures.py")
        users[role] = (name, password)
    return users
