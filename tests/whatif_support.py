"""What the what-if tests share: a small signed log of hand-built rounds (no Kafka, no
simulator) whose expected settlements under the shipped and the proposed rulesets are worked
out by hand in the tests, and proposed ruleset files derived from the shipped ones."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from replay.rulesets import load_ruleset
from replay.whatif import ruleset_data
from tests.events_factory import Table, events_of_document
from tests.test_replay_workers import _write

DAY_US = 86_400 * 1_000_000
"""tests.events_factory deals on 2026-11-28 (UTC); a table may be moved by whole days."""

DEALER_AK = ["Ah", "Kd", "9c", "5s", "2d"]
"""Ace-king: the dealer qualifies (docs/rules.md 4.2), with the lowest qualifying hand's rank
above A-K-4-3-2."""


def stud(round_id: str, *seats: dict[str, Any]) -> dict[str, Any]:
    return {"round_id": round_id, "game": "caribbean_stud",
            "dealer": {"cards": list(DEALER_AK)}, "seats": list(seats)}


ROYAL = {"seat": 1, "cards": ["As", "Ks", "Qs", "Js", "Ts"], "action": "play",
         "wagers": {"ante": 1000, "raise": 2000}}
"""A royal flush, $10 ante and $20 raise."""
TWO_PAIR = {"seat": 2, "cards": ["Qh", "Qd", "7d", "7c", "3s"], "action": "play",
            "wagers": {"ante": 1000, "raise": 2000}}
"""Two pair, $10 ante and $20 raise: 2 to 1 on the raise under either paytable."""


def tiles(round_id: str) -> dict[str, Any]:
    """Seat 1 wins both hands with $7 on it: the Teen pair above 4-4 1-3 (2 points) and the
    Day pair above 5-6 2-3 (6 points) (docs/rules.md 3.2, 6a.16)."""
    return {"round_id": round_id, "game": "pai_gow_tiles",
            "dealer": {"tiles": ["4-4", "1-3", "5-6", "2-3"], "high": ["4-4", "1-3"],
                       "low": ["5-6", "2-3"]},
            "seats": [{"seat": 1, "tiles": ["6-6", "6-6", "1-1", "1-1"],
                       "high": ["6-6", "6-6"], "low": ["1-1", "1-1"],
                       "wagers": {"main": 700}}]}


def _events(table: Table, docs: list[dict[str, Any]], days: int) -> list[Any]:
    events = [e for doc in docs for e in events_of_document(table, doc)]
    return [dataclasses.replace(e, occurred_at_us=e.occurred_at_us + days * DAY_US)
            for e in events]


def write_log(root: Path, tables: list[tuple[str, str, int, list[dict[str, Any]]]]) -> Path:
    """A signed log under ``root`` (``root/log``, ``root/keys``) of the given tables:
    (casino, table, days after 2026-11-28, round documents). Returns ``root``."""
    from schemas import encode

    root.mkdir(parents=True, exist_ok=True)
    messages = []
    for casino, table_id, days, docs in tables:
        table = Table(table_id, casino)
        messages += [(table_id.encode(), encode(e)) for e in _events(table, docs, days)]
    _write(root, messages)
    return root


def proposed_file(path: Path, base: str, new_id: str, change: Any) -> Path:
    """A ruleset file: the shipped ``base`` with ``new_id`` and ``change(data)`` applied."""
    data = ruleset_data(load_ruleset(base))
    data["id"] = new_id
    data["title"] = f"proposed: {new_id}"
    change(data)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def royal_250(path: Path) -> Path:
    """Caribbean stud with the raise paying 250 to 1 on a royal flush instead of 100 to 1."""
    def change(data: dict[str, Any]) -> None:
        data["paytables"]["raise"]["royal_flush"] = {"odds": [250, 1]}

    return proposed_file(path, "caribbean_stud-standard-v1", "caribbean_stud-royal250-v1",
                         change)


def vig_down(path: Path) -> Path:
    """Pai gow tiles whose 5% vigorish is rounded down to the cent instead of up to 25
    cents."""
    def change(data: dict[str, Any]) -> None:
        data["commission"] = {"rate_bps": 500, "rounding": "down", "unit_cents": 1}

    return proposed_file(path, "pai_gow_tiles-pr-v1", "pai_gow_tiles-vigdown-v1", change)
