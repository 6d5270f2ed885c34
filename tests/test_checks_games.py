"""The checks of dealing, setting and deciding, each on a tiny hand-built table with the
exact flagged wagers and its false-positive traps: foul_settled_as_win, ace_high_mispay,
raise_not_twice_ante, raise_not_qualified and folded_hand_paid. (Their agreement with the
simulator's labels on a whole shift is in tests/test_checks_settlement.py.)"""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from checks.runner import run_checks
from tests.test_checks import _round, _wager
from tests.test_checks_settlement import _write


def _bet(round_id, seat, wager, amount, recorded, expected, game="caribbean_stud"):
    return {**_wager(round_id, seat, amount, recorded, expected), "wager": wager, "game": game}


def _hand(round_id, seat, *, foul=None, action=None, game="pai_gow_poker", high=None,
          low=None):
    return {"round_id": round_id, "table_id": "T01", "game": game,
            "position": "dealer" if seat is None else f"seat {seat}", "seat": seat,
            "foul": foul, "action": action, "high": high, "low": low}


def _flags(tmp_path, given, **params):
    _write(tmp_path / "replay", given)
    run_checks(tmp_path / "replay", tmp_path / "checks", params=params or None)
    return pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()


def _of(flags, check_id):
    return [(f["round_id"], f["seat"], f["wager"], f["recorded_cents"], f["expected_cents"])
            for f in flags if f["check_id"] == check_id]


# foul_settled_as_win ----------------------------------------------------------------------

@pytest.fixture
def fouls(tmp_path):
    rounds = [_round("F1"), _round("F2", evaluated=False, problems=["x"]), _round("F3")]
    hands = [
        _hand("F1", None, foul=False),
        _hand("F1", 1, foul=True, high="Kc Qd 9s 7h 3c", low="8h 8d"),  # paid as a win
        _hand("F1", 2, foul=True),                                     # pushed
        _hand("F1", 3, foul=True),                                     # trap: a foul that loses
        _hand("F1", 4, foul=False),                                    # trap: a right push
        _hand("F1", 6, foul=True),                                     # "lost" for nothing
        _hand("F2", 1, foul=True),                                     # trap: not judged
        _hand("F3", 5, foul=True),                                     # trap: the player banker
    ]
    wagers = [
        _wager("F1", 1, 1000, ("win", 950, 50), ("loss", -1000, 0)),
        _wager("F1", 2, 1000, ("push", 0, 0), ("loss", -1000, 0)),
        _wager("F1", 3, 1000, ("loss", -1000, 0), ("loss", -1000, 0)),
        _bet("F1", 3, "fortune", 500, ("win", 2500, 0), ("win", 2500, 0), "pai_gow_poker"),
        _wager("F1", 4, 1000, ("push", 0, 0), ("push", 0, 0)),
        _wager("F1", 6, 1000, ("loss", 0, 0), ("loss", -1000, 0)),
        _wager("F2", 1, 1000, ("win", 950, 50), None),
        {**_wager("F3", 5, 0, ("push", 0, 0), None), "position": "banker"},
    ]
    return _flags(tmp_path, {"rounds": rounds, "hands": hands, "wagers": wagers})


def test_a_fouled_main_wager_recorded_won_pushed_or_not_collected_is_flagged(fouls):
    assert _of(fouls, "foul_settled_as_win") == [
        ("F1", 1, "main", 950, -1000),
        ("F1", 2, "main", 0, -1000),
        ("F1", 6, "main", 0, -1000),
    ]
    detail = next(f["detail"] for f in fouls if f["check_id"] == "foul_settled_as_win")
    assert detail == ("pai_gow_poker seat 1 fouled (high Kc Qd 9s 7h 3c, low 8h 8d) and its "
                      "main wager of 1000 was recorded win 950; a foul loses: expected loss "
                      "-1000 (cents)")
    # the money is counted once more by the settlement checks, which name no cause
    assert [(f["check_id"], f["seat"]) for f in fouls
            if f["check_id"] in ("paid_loser", "overpay")] == [
        ("overpay", 2), ("overpay", 6), ("paid_loser", 1)]


# ace_high_mispay --------------------------------------------------------------------------

def test_the_ace_high_bonus_mispaid_either_way_or_at_the_wrong_odds(tmp_path):
    face_up = "face_up_pai_gow"
    rounds = [_round("A1"), _round("A2"), _round("A3", evaluated=False, problems=["x"])]
    wagers = [
        _bet("A1", 1, "ace_high", 100, ("win", 500, 0), ("loss", -100, 0), face_up),
        _bet("A1", 2, "ace_high", 100, ("loss", -100, 0), ("win", 1500, 0), face_up),
        _bet("A1", 3, "ace_high", 100, ("win", 500, 0), ("win", 1500, 0), face_up),
        _bet("A1", 4, "ace_high", 100, ("win", 1500, 0), ("win", 1500, 0), face_up),  # trap
        _bet("A1", 5, "ace_high", 100, ("loss", -100, 0), ("loss", -100, 0), face_up),  # trap
        _bet("A2", 1, "main", 1000, ("win", 1000, 0), ("push", 0, 0), face_up),  # trap: main
        _bet("A2", 2, "fortune", 500, ("win", 1000, 0), ("loss", -500, 0), face_up),  # trap
        _bet("A3", 1, "ace_high", 100, ("win", 4000, 0), None, face_up),  # trap: not judged
    ]
    flags = _flags(tmp_path, {"rounds": rounds, "wagers": wagers})
    assert _of(flags, "ace_high_mispay") == [
        ("A1", 1, "ace_high", 500, -100),
        ("A1", 2, "ace_high", -100, 1500),
        ("A1", 3, "ace_high", 500, 1500),
    ]
    details = [f["detail"] for f in flags if f["check_id"] == "ace_high_mispay"]
    assert details[0] == ("the dealer held no Ace High Pai Gow: the Ace High Bonus of 100 is "
                          "loss -100; recorded win 500 (cents)")
    assert details[1].startswith("the dealer held an Ace High Pai Gow: the Ace High Bonus of "
                                 "100 wins 1500; recorded loss -100")


# raise_not_twice_ante ---------------------------------------------------------------------

def _noted(seat, raised, ante, multiple=2):
    """The rules engine's sentence for a raise not ``multiple`` x the ante."""
    return (f"seat {seat} raised {raised} on an ante of {ante}: the raise is {multiple} x the "
            f"ante ({multiple * ante}); settled on the {raised} recorded (docs/rules.md 6a.17)")


@pytest.fixture
def raises():
    rounds = [{**_round("R1"), "problem_kinds": ["rule_irregularity"],
               "problems": [_noted(1, 1500, 500), _noted(4, 500, 500)]},
              _round("R2", evaluated=False, problems=["x"])]
    hands = [_hand("R1", 1, action="raise", game="caribbean_stud"),
             _hand("R1", 4, action="concede", game="caribbean_stud")]
    wagers = [
        _bet("R1", 1, "ante", 500, ("win", 500, 0), ("win", 500, 0)),
        _bet("R1", 1, "raise", 1500, ("win", 1500, 0), ("win", 1500, 0)),   # 3 x the ante
        _bet("R1", 2, "ante", 500, ("loss", -500, 0), ("loss", -500, 0)),
        _bet("R1", 2, "raise", 1000, ("loss", -1000, 0), ("loss", -1000, 0)),  # trap: 2 x
        _bet("R1", 3, "ante", 500, ("loss", -500, 0), ("loss", -500, 0)),   # trap: folded
        _bet("R1", 4, "ante", 500, ("loss", -500, 0), ("loss", -500, 0)),
        _bet("R1", 4, "raise", 500, ("loss", -500, 0), ("loss", -500, 0)),  # 1 x, conceded
        _bet("R2", 1, "ante", 500, ("win", 500, 0), None),
        _bet("R2", 1, "raise", 700, ("win", 700, 0), None),                 # trap: not judged
    ]
    return {"rounds": rounds, "hands": hands, "wagers": wagers}


def test_a_raise_not_twice_the_ante_is_flagged_without_money(tmp_path, raises):
    flags = _flags(tmp_path, raises)
    assert _of(flags, "raise_not_twice_ante") == [("R1", 1, "raise", None, None),
                                                  ("R1", 4, "raise", None, None)]
    got = [f for f in flags if f["check_id"] == "raise_not_twice_ante"]
    assert got[0]["detail"] == ("seat 1 raised 1500 on an ante of 500: the raise is 2 x the "
                                "ante (1000), off by 500 (cents); settled on the amount "
                                "recorded")
    assert all(f["amount_at_stake_cents"] is None for f in got)
    assert not [f for f in flags if f["check_id"] in ("overpay", "underpay", "paid_loser",
                                                      "collected_winner")]


def test_the_raise_multiple_is_the_one_the_engine_applied(tmp_path, raises):
    """Under a ruleset posting 3 x the ante, the engine notes seats 2 and 4 (R1 seat 2's
    1,000 on 500; seat 1's 1,500 is right): the check follows the engine's multiple."""
    raises["rounds"][0] = {**raises["rounds"][0],
                           "problems": [_noted(2, 1000, 500, 3), _noted(4, 500, 500, 3)]}
    flags = _flags(tmp_path, raises)
    assert [(f["seat"], f["detail"]) for f in flags
            if f["check_id"] == "raise_not_twice_ante"] == [
        (2, "seat 2 raised 1000 on an ante of 500: the raise is 3 x the ante (1500), off by "
            "500 (cents); settled on the amount recorded"),
        (4, "seat 4 raised 500 on an ante of 500: the raise is 3 x the ante (1500), off by "
            "1000 (cents); settled on the amount recorded")]


# raise_not_qualified ----------------------------------------------------------------------

def test_a_void_raise_won_or_lost_is_flagged_and_a_returned_one_is_not(tmp_path):
    rounds = [_round("Q1"), {**_round("Q2"), "voided": True, "void_reason": "deck short"},
              _round("Q3", evaluated=False, problems=["x"]), _round("Q4")]
    wagers = [
        # Q1: the dealer did not qualify
        _bet("Q1", 1, "ante", 500, ("win", 500, 0), ("win", 500, 0)),
        _bet("Q1", 1, "raise", 1000, ("win", 1000, 0), ("void", 0, 0)),     # paid
        _bet("Q1", 2, "raise", 1000, ("loss", -1000, 0), ("void", 0, 0)),   # taken
        _bet("Q1", 3, "raise", 1000, ("void", 0, 0), ("void", 0, 0)),       # trap: returned
        _bet("Q1", 4, "raise", 1000, ("push", 0, 0), ("void", 0, 0)),       # trap: returned
        _bet("Q1", 5, "raise", 1000, ("loss", -1000, 0), ("loss", -1000, 0)),  # trap: conceded
        _bet("Q1", 6, "raise", 1000, ("void", 300, 0), ("void", 0, 0)),     # "void", yet paid
        _bet("Q2", 1, "raise", 1000, ("win", 1000, 0), ("void", 0, 0)),     # trap: voided round
        _bet("Q3", 1, "raise", 1000, ("win", 1000, 0), None),               # trap: not judged
        _bet("Q4", 1, "raise", 1000, ("loss", -1000, 0), ("loss", -1000, 0)),  # trap: qualified
        _bet("Q4", 2, "raise", 1000, None, ("void", 0, 0)),                 # unsettled's
    ]
    flags = _flags(tmp_path, {"rounds": rounds, "wagers": wagers})
    assert _of(flags, "raise_not_qualified") == [
        ("Q1", 1, "raise", 1000, 0),
        ("Q1", 2, "raise", -1000, 0),
        ("Q1", 6, "raise", 300, 0),
    ]
    got = {f["seat"]: f for f in flags if f["check_id"] == "raise_not_qualified"}
    assert (got[1]["direction"], got[2]["direction"]) == ("over", "under")
    assert got[2]["detail"] == ("the dealer did not qualify: seat 2's raise of 1000 is void "
                                "and returned, but was recorded loss -1000 (cents)")
    assert ("Q2", 1, "raise", 1000, 0) in _of(flags, "overpay")  # a voided round: overpay only


# folded_hand_paid -------------------------------------------------------------------------

def test_a_wager_given_up_and_paid_is_flagged_but_a_folded_hands_progressive_is_not(tmp_path):
    stud, tiles = "caribbean_stud", "pai_gow_tiles"
    rounds = [_round("D1"), _round("D2"), _round("D3", evaluated=False, problems=["x"])]
    hands = [
        _hand("D1", None, game=stud),
        _hand("D1", 1, action="fold", game=stud),
        _hand("D1", 2, action="concede", game=stud),
        _hand("D1", 3, action="fold", game=stud),
        _hand("D1", 4, action="raise", game=stud),
        _hand("D2", 1, action="withdraw", game=tiles),
        _hand("D2", 2, action="withdraw", game=tiles),
        _hand("D3", 1, action="fold", game=stud),
    ]
    wagers = [
        _bet("D1", 1, "ante", 500, ("win", 500, 0), ("loss", -500, 0)),        # folded, paid
        _bet("D1", 1, "progressive", 100, ("win", 10000, 0), ("win", 10000, 0)),  # trap: 6a.17
        _bet("D1", 2, "ante", 500, ("loss", -500, 0), ("loss", -500, 0)),
        _bet("D1", 2, "raise", 1000, ("win", 1000, 0), ("loss", -1000, 0)),    # conceded, paid
        _bet("D1", 2, "progressive", 100, ("win", 5000, 0), ("loss", -100, 0)),  # conceded
        _bet("D1", 3, "ante", 500, ("loss", -500, 0), ("loss", -500, 0)),      # trap: collected
        _bet("D1", 4, "ante", 500, ("win", 500, 0), ("win", 500, 0)),          # trap: raised
        _bet("D2", 1, "main", 1000, ("win", 950, 50), ("loss", -1000, 0), tiles),  # withdrew
        _bet("D2", 2, "main", 1000, ("loss", -1000, 0), ("loss", -1000, 0), tiles),  # trap
        _bet("D3", 1, "ante", 500, ("win", 500, 0), None),                     # trap: not judged
    ]
    flags = _flags(tmp_path, {"rounds": rounds, "hands": hands, "wagers": wagers})
    assert _of(flags, "folded_hand_paid") == [
        ("D1", 1, "ante", 500, -500),
        ("D1", 2, "progressive", 5000, -100),
        ("D1", 2, "raise", 1000, -1000),
        ("D2", 1, "main", 950, -1000),
    ]
    detail = next(f["detail"] for f in flags if f["check_id"] == "folded_hand_paid")
    assert detail == ("caribbean_stud seat 1 folded, yet its ante of 500 was recorded win 500, "
                      "expected loss -500 (cents)")
