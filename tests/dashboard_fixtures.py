"""A tiny, hand-built data set for the dashboard tests, written with pyarrow alone.

Three pai gow poker rounds, every hand set by hand under the house way:

- ``t1-000041``: dealer pair of aces; seat 2 wins both hands (commission $0.25 on $5.00),
  seat 5 fouls (pair of eights behind king high) and loses $10.00. Settled correctly.
- ``t1-000042``: dealer ace-high straight; seat 1 pushes; seat 3 wins both hands with a
  king-high flush and a pair of sevens. The dealer paid $25.00 on the $25.00 wager without
  taking the 5% commission: expected $23.75, so an overpay of +$1.25.
- ``t2-000007``: seat 1's cards were dealt but never set, so replay could not judge the round
  (not evaluated); the expected columns are null and the checks raise a round-level flag.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

FLAGGED_ROUND = "t1-000042"
FLAGGED_SEAT = 3
FLAGGED_CARDS = "Kh Jh 8h 5h 3h 7c 7d"
DEALER_CARDS_42 = "As Kd Qh Jc Tc 9s 2d"

ROUNDS_SCHEMA = pa.schema(
    [
        ("round_id", pa.string()),
        ("casino", pa.string()),
        ("table_id", pa.string()),
        ("game", pa.string()),
        ("ruleset", pa.string()),
        ("dealt_at", pa.timestamp("us", tz="UTC")),
        ("dealer_id", pa.string()),
        ("evaluated", pa.bool_()),
        ("problems", pa.list_(pa.string())),
        ("notation", pa.string()),
    ]
)
HANDS_SCHEMA = pa.schema(
    [
        ("round_id", pa.string()),
        ("table_id", pa.string()),
        ("position", pa.string()),
        ("seat", pa.int32()),
        ("cards", pa.string()),
        ("high", pa.string()),
        ("low", pa.string()),
        ("high_rank", pa.string()),
        ("low_rank", pa.string()),
        ("foul", pa.bool_()),
        ("house_way", pa.bool_()),
        ("house_way_high", pa.string()),
        ("house_way_low", pa.string()),
    ]
)
WAGERS_SCHEMA = pa.schema(
    [
        ("round_id", pa.string()),
        ("casino", pa.string()),
        ("table_id", pa.string()),
        ("seat", pa.int32()),
        ("wager", pa.string()),
        ("amount_cents", pa.int64()),
        ("recorded_outcome", pa.string()),
        ("recorded_net_cents", pa.int64()),
        ("recorded_commission_cents", pa.int64()),
        ("expected_outcome", pa.string()),
        ("expected_net_cents", pa.int64()),
        ("expected_commission_cents", pa.int64()),
    ]
)
FLAGS_SCHEMA = pa.schema(
    [
        ("check_id", pa.string()),
        ("title", pa.string()),
        ("severity", pa.string()),
        ("round_id", pa.string()),
        ("table_id", pa.string()),
        ("seat", pa.int32()),
        ("recorded_cents", pa.int64()),
        ("expected_cents", pa.int64()),
        ("amount_at_stake_cents", pa.int64()),
        ("direction", pa.string()),
        ("detail", pa.string()),
    ]
)

ROUNDS = [
    {
        "round_id": "t1-000041",
        "casino": "c1",
        "table_id": "t1",
        "game": "pai_gow_poker",
        "ruleset": "pgp-2026-01",
        "dealt_at": datetime(2026, 3, 14, 21, 5, 10, tzinfo=UTC),
        "dealer_id": "d-117",
        "evaluated": True,
        "problems": [],
        "notation": "t1-000041 pai_gow_poker D=AhAd6s4h2c/Kc9d "
        "S2(main 500)=TdTs5d5c3s/QsQc S5(main 1000)=Ks7s6d3c2h/8c8d",
    },
    {
        "round_id": FLAGGED_ROUND,
        "casino": "c1",
        "table_id": "t1",
        "game": "pai_gow_poker",
        "ruleset": "pgp-2026-01",
        "dealt_at": datetime(2026, 3, 14, 21, 7, 33, tzinfo=UTC),
        "dealer_id": "d-117",
        "evaluated": True,
        "problems": [],
        "notation": "t1-000042 pai_gow_poker D=AsKdQhJcTc/9s2d "
        "S1(main 1000)=4c4d6c5s3d/Js8s S3(main 2500)=KhJh8h5h3h/7c7d",
    },
    {
        "round_id": "t2-000007",
        "casino": "c1",
        "table_id": "t2",
        "game": "pai_gow_poker",
        "ruleset": "pgp-2026-01",
        "dealt_at": datetime(2026, 3, 14, 21, 9, 2, tzinfo=UTC),
        "dealer_id": "d-204",
        "evaluated": False,
        "problems": ["seat 1: cards dealt but no hand set"],
        "notation": "t2-000007 pai_gow_poker D=7s7h5h4d3c/Jd9c S1(main 1500)=AcQdJsTh8d6h2s",
    },
]


def _dealer(round_id: str, table: str, cards: str, high: str, low: str, ranks: tuple[str, str]):
    return {
        "round_id": round_id,
        "table_id": table,
        "position": "dealer",
        "seat": None,
        "cards": cards,
        "high": high,
        "low": low,
        "high_rank": ranks[0],
        "low_rank": ranks[1],
        "foul": False,
        "house_way": True,
        "house_way_high": high,
        "house_way_low": low,
    }


def _seat(round_id: str, table: str, seat: int, cards: str, high, low, ranks, foul) -> dict:
    return {
        "round_id": round_id,
        "table_id": table,
        "position": f"seat {seat}",
        "seat": seat,
        "cards": cards,
        "high": high,
        "low": low,
        "high_rank": ranks[0],
        "low_rank": ranks[1],
        "foul": foul,
        "house_way": None,
        "house_way_high": None,
        "house_way_low": None,
    }


HANDS = [
    _dealer("t1-000041", "t1", "Ah Ad Kc 9d 6s 4h 2c", "Ah Ad 6s 4h 2c", "Kc 9d",
            ("pair of aces", "king high")),
    _seat("t1-000041", "t1", 2, "Qs Qc Td Ts 5d 5c 3s", "Td Ts 5d 5c 3s", "Qs Qc",
          ("two pair, tens and fives", "pair of queens"), False),
    _seat("t1-000041", "t1", 5, "8c 8d Ks 7s 6d 3c 2h", "Ks 7s 6d 3c 2h", "8c 8d",
          ("king high", "pair of eights"), True),
    _dealer(FLAGGED_ROUND, "t1", DEALER_CARDS_42, "As Kd Qh Jc Tc", "9s 2d",
            ("straight, ace high", "nine high")),
    _seat(FLAGGED_ROUND, "t1", 1, "4c 4d 8s 6c 3d Js 5s", "4c 4d 6c 5s 3d", "Js 8s",
          ("pair of fours", "jack high"), False),
    _seat(FLAGGED_ROUND, "t1", FLAGGED_SEAT, FLAGGED_CARDS, "Kh Jh 8h 5h 3h", "7c 7d",
          ("flush, king high", "pair of sevens"), False),
    _dealer("t2-000007", "t2", "7s 7h Jd 9c 5h 4d 3c", "7s 7h 5h 4d 3c", "Jd 9c",
            ("pair of sevens", "jack high")),
    _seat("t2-000007", "t2", 1, "Ac Qd Js Th 8d 6h 2s", None, None, (None, None), None),
]  # fmt: skip


def _wager(round_id: str, table: str, seat: int, amount: int, recorded, expected) -> dict:
    """``recorded`` and ``expected`` are (outcome, net cents, commission cents)."""
    return {
        "round_id": round_id,
        "casino": "c1",
        "table_id": table,
        "seat": seat,
        "wager": "main",
        "amount_cents": amount,
        "recorded_outcome": recorded[0],
        "recorded_net_cents": recorded[1],
        "recorded_commission_cents": recorded[2],
        "expected_outcome": expected[0],
        "expected_net_cents": expected[1],
        "expected_commission_cents": expected[2],
    }


WAGERS = [
    _wager("t1-000041", "t1", 2, 500, ("win", 475, 25), ("win", 475, 25)),
    _wager("t1-000041", "t1", 5, 1000, ("loss", -1000, 0), ("loss", -1000, 0)),
    _wager(FLAGGED_ROUND, "t1", 1, 1000, ("push", 0, 0), ("push", 0, 0)),
    _wager(FLAGGED_ROUND, "t1", FLAGGED_SEAT, 2500, ("win", 2500, 0), ("win", 2375, 125)),
    _wager("t2-000007", "t2", 1, 1500, ("win", 1425, 75), (None, None, None)),
]

FLAGS = [
    {
        "check_id": "overpay",
        "title": "Overpay",
        "severity": "high",
        "round_id": FLAGGED_ROUND,
        "table_id": "t1",
        "seat": FLAGGED_SEAT,
        "recorded_cents": 2500,
        "expected_cents": 2375,
        "amount_at_stake_cents": 125,
        "direction": "over",
        "detail": "win paid without the 5% commission",
    },
    {
        "check_id": "not_evaluated",
        "title": "Round not evaluated",
        "severity": "medium",
        "round_id": "t2-000007",
        "table_id": "t2",
        "seat": None,
        "recorded_cents": None,
        "expected_cents": None,
        "amount_at_stake_cents": None,
        "direction": None,
        "detail": "seat 1: cards dealt but no hand set",
    },
]

TABLES: dict[str, tuple[pa.Schema, list[dict[str, Any]]]] = {
    "replay/rounds.parquet": (ROUNDS_SCHEMA, ROUNDS),
    "replay/hands.parquet": (HANDS_SCHEMA, HANDS),
    "replay/wagers.parquet": (WAGERS_SCHEMA, WAGERS),
    "checks/flags.parquet": (FLAGS_SCHEMA, FLAGS),
}


def write_fixture(data_dir: Path, *, empty: bool = False) -> dict[str, Any]:
    """Write the four Parquet files under ``data_dir`` (``empty=True``: the schemas, no rows).

    Returns what the tests expect to see on the page.
    """
    for name, (schema, rows) in TABLES.items():
        path = data_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist([] if empty else rows, schema=schema), path)
    return {
        "data_dir": data_dir,
        "flag_count": 0 if empty else len(FLAGS),
        "rounds": [] if empty else [r["round_id"] for r in ROUNDS],
        "flagged_round": FLAGGED_ROUND,
        "flagged_seat": FLAGGED_SEAT,
        "flagged_cards": FLAGGED_CARDS,
        "dealer_cards": DEALER_CARDS_42,
        "recorded": "$25.00",
        "expected": "$23.75",
        "difference": "+$1.25",
        "unflagged_round": "t1-000041",
        "unflagged_cards": "Qs Qc Td Ts 5d 5c 3s",
        "not_evaluated_round": "t2-000007",
    }
