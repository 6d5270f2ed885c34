"""The money checks against a lawful range, not a point (docs/rules.md 6a.2, 6a.19), on tiny
hand-built tables whose ranges are worked by hand:

- pai gow tiles vigorish on a $7 win: lawful from the exact 5% (35 cents) to the next
  multiple of 25 cents (50); the net from 650 to 665;
- on a 10-cent win: from 0 (0.5 cents rounded down) to 10 (25 would exceed the win); the
  net from 0 to 10;
- pai gow poker: the one amount, 5% rounded down (a $25 win: 125);
- the player banker and the co-bank's odd cent;
- a wagers.parquet of an older replay, without the range columns: judged on the point.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.runner import InputError, run_all
from replay.run import TABLES, WAGERS
from tests.outputs_support import sign_replay
from tests.test_checks import _round, _wager

MONEY = ("paid_loser", "collected_winner", "overpay", "underpay", "commission_wrong",
         "banker_mispay", "co_bank_share_wrong", "banker_commission_wrong")


def _ranged(wager: dict, net: tuple[int, int], commission: tuple[int, int]) -> dict:
    return {**wager, "expected_net_min_cents": net[0], "expected_net_max_cents": net[1],
            "expected_commission_min_cents": commission[0],
            "expected_commission_max_cents": commission[1]}


def _tiles(round_id: str, seat: int, amount: int, recorded: tuple, expected: tuple,
           net: tuple[int, int], commission: tuple[int, int]) -> dict:
    return _ranged({**_wager(round_id, seat, amount, recorded, expected),
                    "game": "pai_gow_tiles"}, net, commission)


SEVEN = {"amount": 700, "expected": ("win", 650, 50), "net": (650, 665),
         "commission": (35, 50)}
"""A $7 tiles win: the house collects 50 (35 rounded up to 25s), the exact 5% is 35."""
TEN = {"amount": 10, "expected": ("win", 0, 10), "net": (0, 10), "commission": (0, 10)}
"""A 10-cent tiles win: 5% is 0.5 cents, 0 rounded down; 25 rounded up exceeds the win, so
the highest is the win itself."""


def _seven(round_id: str, seat: int, charged: int, net: int | None = None) -> dict:
    return _tiles(round_id, seat, SEVEN["amount"],
                  ("win", 700 - charged if net is None else net, charged), SEVEN["expected"],
                  SEVEN["net"], SEVEN["commission"])


def _ten(round_id: str, seat: int, charged: int) -> dict:
    return _tiles(round_id, seat, TEN["amount"], ("win", 10 - charged, charged),
                  TEN["expected"], TEN["net"], TEN["commission"])


def _write(replay_dir: Path, given: dict[str, list[dict]],
           schemas: dict[str, pa.Schema] | None = None) -> None:
    replay_dir.mkdir(parents=True, exist_ok=True)
    for name, schema in {**TABLES, **(schemas or {})}.items():
        rows = [{"casino": "C01", **row} for row in given.get(name, [])]
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), replay_dir / f"{name}.parquet")
    sign_replay(replay_dir.parent)


def _run(tmp_path: Path, given: dict[str, list[dict]],
         schemas: dict[str, pa.Schema] | None = None) -> list[dict]:
    _write(tmp_path / "replay", given, schemas)
    run_all(tmp_path / "replay", tmp_path / "checks")
    return pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()


def _money(flags: list[dict]) -> list[tuple]:
    """The money flags, by round, seat and check."""
    return sorted(((f["round_id"], f["seat"], f["check_id"], f["recorded_cents"],
                    f["expected_cents"], f["amount_at_stake_cents"], f["direction"])
                   for f in flags if f["check_id"] in MONEY), key=lambda f: f[:3])


@pytest.fixture
def tiles(tmp_path):
    rounds = [_round("V1"), _round("V2"), _round("V3")]
    wagers = [
        _seven("V1", 1, 35),             # trap: the exact 5%
        _seven("V1", 2, 50),             # trap: rounded up to 25 cents, the house's default
        _seven("V1", 3, 51),             # one cent above the highest
        _seven("V1", 4, 34),             # one cent below the lowest
        _seven("V1", 5, 40),             # trap: between the two
        _seven("V1", 6, 35, net=650),    # lawful commission recorded, 50 taken from the net
        _ten("V2", 1, 10),               # trap: the whole win, never more
        _ten("V2", 2, 0),                # trap: 0.5 cents rounded down
        _ten("V2", 3, 25),               # rounded up to 25: more than the win
        _wager("V3", 1, 2500, ("win", 2375, 125), ("win", 2375, 125)),   # trap: poker, right
        _wager("V3", 2, 2500, ("win", 2376, 124), ("win", 2375, 125)),   # poker: a point
        _wager("V3", 3, 2500, ("win", 2362, 138), ("win", 2375, 125)),   # poker: 5% rounded up
        #                                                                  to 25s is not lawful
    ]
    return _run(tmp_path, {"rounds": rounds, "wagers": wagers})


def test_the_tiles_vigorish_is_flagged_only_outside_its_lawful_range(tiles):
    assert _money(tiles) == [
        ("V1", 3, "commission_wrong", -51, -50, 1, "under"),
        ("V1", 3, "underpay", 649, 650, 1, "under"),
        ("V1", 4, "commission_wrong", -34, -35, 1, "over"),
        ("V1", 4, "overpay", 666, 665, 1, "over"),
        ("V1", 6, "commission_wrong", -35, None, None, None),
        ("V2", 3, "commission_wrong", -25, -10, 15, "under"),
        ("V2", 3, "underpay", -15, 0, 15, "under"),
        ("V3", 2, "commission_wrong", -124, -125, 1, "over"),
        ("V3", 2, "overpay", 2376, 2375, 1, "over"),
        ("V3", 3, "commission_wrong", -138, -125, 13, "under"),
        ("V3", 3, "underpay", 2362, 2375, 13, "under"),
    ]


def _detail(flags: list[dict], check_id: str, round_id: str, seat: int) -> str:
    return next(f["detail"] for f in flags
                if (f["check_id"], f["round_id"], f["seat"]) == (check_id, round_id, seat))


def test_the_details_give_the_default_and_the_lawful_range(tiles):
    assert _detail(tiles, "commission_wrong", "V1", 3) == (
        "pai_gow_tiles seat 3 main: commission recorded 51, the rules require 35 to 50 (the "
        "house collects 50) (cents)")
    assert _detail(tiles, "underpay", "V1", 3) == (
        "pai_gow_tiles seat 3 main: recorded win 649, expected win 650 (lawful 650 to 665) "
        "(cents)")
    assert _detail(tiles, "commission_wrong", "V1", 6) == (
        "pai_gow_tiles seat 6 main: commission recorded 35 is lawful, but the net recorded "
        "650 plus the commission is not the win of 700: the commission taken was 50 (cents)")
    assert _detail(tiles, "commission_wrong", "V3", 2) == (
        "pai_gow_poker seat 2 main: commission recorded 124, the rules require 125 (cents)")


def test_a_commission_larger_than_the_win_says_why(tiles):
    assert _detail(tiles, "commission_wrong", "V2", 3) == (
        "pai_gow_tiles seat 3 main: commission recorded 25, the rules require 0 to 10 (the "
        "house collects 10); it is more than the win of 10: a commission never turns a "
        "winning wager into a loss (docs/rules.md 6a.2) (cents)")


def _banker(round_id: str, seat: int, recorded: tuple[int, int], expected: tuple[int, int, int],
            net: tuple[int, int], commission: tuple[int, int], *, co_bank: bool) -> dict:
    return {"round_id": round_id, "table_id": "T01", "seat": seat, "co_bank": co_bank,
            "game": "pai_gow_tiles",
            "recorded_net_cents": recorded[0], "recorded_commission_cents": recorded[1],
            "expected_net_cents": expected[0], "expected_commission_cents": expected[1],
            "expected_house_net_cents": expected[2],
            "expected_net_min_cents": net[0], "expected_net_max_cents": net[1],
            "expected_commission_min_cents": commission[0],
            "expected_commission_max_cents": commission[1]}


# A tiles co-bank of a gross of 1001: the player's half is 500 (toward zero, the house's
# default) or 501 (the odd cent either way). Vigorish on 500: 25 exactly; on 501: 25.05, from
# 25 (down to the cent) to 50 (up to 25s). Nets: 500 - 25 = 475; 501 - 50 = 451, 501 - 25 =
# 476: from 451 to 476. The house's default: net 475, vigorish 25, the house 25 + 501 = 526.
CO_BANK = {"expected": (475, 25, 526), "net": (451, 476), "commission": (25, 50)}
# A tiles bank held alone winning 700: vigorish 50 by default, 35 to 50 lawful; net 650 to 665.
ALONE = {"expected": (650, 50, 50), "net": (650, 665), "commission": (35, 50)}


def test_the_banker_checks_flag_only_outside_the_lawful_range(tmp_path):
    rounds = [_round(f"K{n}") for n in range(1, 6)]
    bankers = [
        _banker("K1", 3, (476, 25), **CO_BANK, co_bank=True),    # trap: the odd cent to him
        _banker("K2", 3, (451, 50), **CO_BANK, co_bank=True),    # trap: and 50 vigorish on it
        _banker("K3", 3, (477, 24), **CO_BANK, co_bank=True),    # a cent over, a cent short
        _banker("K4", 2, (665, 35), **ALONE, co_bank=False),     # trap: the exact 5%
        _banker("K5", 2, (649, 51), **ALONE, co_bank=False),     # a cent over the highest
    ]
    flags = _run(tmp_path, {"rounds": rounds, "bankers": bankers})
    assert _money(flags) == [
        ("K3", 3, "banker_commission_wrong", -24, -25, 1, "over"),
        ("K3", 3, "co_bank_share_wrong", 477, 476, 1, "over"),
        ("K5", 2, "banker_commission_wrong", -51, -50, 1, "under"),
        ("K5", 2, "banker_mispay", 649, 650, 1, "under"),
    ]
    assert _detail(flags, "co_bank_share_wrong", "K3", 3) == (
        "co-banker at seat 3: recorded net 477, expected share 475 (lawful 451 to 476) (the "
        "house's half: 526) (cents)")


OLDER_WAGERS = pa.schema([f for f in WAGERS if not f.name.endswith(("_min_cents",
                                                                     "_max_cents"))])
"""wagers.parquet as a replay wrote it before the lawful ranges."""


def test_an_older_wagers_file_is_judged_on_the_point_never_passed(tmp_path):
    # without the range columns, the point is the range: the exact 5% on a $7 tiles win is
    # then flagged, as an older replay's expectation said; re-running replay clears it
    wagers = [{k: v for k, v in _seven("O1", 1, 35).items() if k in OLDER_WAGERS.names},
              {k: v for k, v in _seven("O1", 2, 50).items() if k in OLDER_WAGERS.names}]
    flags = _run(tmp_path, {"rounds": [_round("O1")], "wagers": wagers},
                 {"wagers": OLDER_WAGERS})
    assert _money(flags) == [
        ("O1", 1, "commission_wrong", -35, -50, 15, "over"),
        ("O1", 1, "overpay", 665, 650, 15, "over"),
    ]


def test_a_wagers_file_with_part_of_the_range_is_refused_naming_it(tmp_path):
    partial = pa.schema([f for f in WAGERS if f.name != "expected_commission_max_cents"])
    _write(tmp_path / "replay", {"rounds": [_round("P1")], "wagers": [_seven("P1", 1, 35)]},
           {"wagers": partial})
    with pytest.raises(InputError, match=r"wagers\.parquet has expected_net_min_cents, "
                       r"expected_net_max_cents, expected_commission_min_cents but not "
                       r"expected_commission_max_cents: .*re-run `python -m replay`"):
        run_all(tmp_path / "replay", tmp_path / "checks")
