"""commission_not_won: a commission recorded on a wager the rules do not make a win, when the
record calls it a win or a void and its net is right, on a tiny hand-built table: the exact
flags, and the traps left to their own checks (a loser paid as a win less its commission, a
commission on a recorded push or loss, a win's commission within its range, a few-cent tiles
win whose whole win is the vigorish, a round not evaluated, the player banker's account)."""

from __future__ import annotations

import pytest

from tests.test_check_outcome_word import _row
from tests.test_checks import _round
from tests.test_checks_settlement import _run

CHECK = "commission_not_won"


@pytest.fixture
def flags(tmp_path):
    rounds = [_round("K1"), {**_round("K2"), "game": "caribbean_stud"},
              {**_round("K3"), "game": "pai_gow_tiles"},
              _round("K4", evaluated=False, problems=["the dealer was never dealt cards"])]
    wagers = [
        _row("K1", 1, "pai_gow_poker", "main", 1000, ("win", 0, 50), ("push", 0, 0)),  # flag
        _row("K1", 2, "pai_gow_poker", "main", 1000, ("win", 950, 50),
             ("loss", -1000, 0)),                                        # paid_loser's alone
        _row("K1", 3, "pai_gow_poker", "main", 1000, ("win", 950, 50), ("win", 950, 50)),
        _row("K1", 4, "pai_gow_poker", "main", 1000, ("push", -50, 50), ("push", 0, 0)),
        _row("K1", 6, "pai_gow_poker", "main", 0, ("win", 9000, 50), None, position="banker"),
        _row("K1", None, "pai_gow_poker", "main", 1000, ("void", 0, 25), ("push", 0, 0)),  # flag
        _row("K2", 1, "caribbean_stud", "raise", 2000, ("void", 0, 100), ("void", 0, 0)),  # flag
        _row("K2", 1, "caribbean_stud", "ante", 1000, ("win", 1000, 0), ("win", 1000, 0)),
        _row("K3", 1, "pai_gow_tiles", "main", 10, ("win", 0, 10), ("win", 0, 10),
             net_range=(0, 10)),
        _row("K4", 1, "pai_gow_poker", "main", 1000, ("win", 0, 50), None),
    ]
    return _run(tmp_path, {"rounds": rounds, "wagers": wagers})


def test_a_commission_on_a_wager_that_won_nothing_recorded_as_a_win_or_a_void_is_flagged(flags):
    got = [(f["round_id"], f["seat"], f["wager"]) for f in flags if f["check_id"] == CHECK]
    assert got == [("K1", None, "main"), ("K1", 1, "main"), ("K2", 1, "raise")]
    assert {f["severity"] for f in flags if f["check_id"] == CHECK} == {"low"}
    (k2,) = [f["detail"] for f in flags if (f["check_id"], f["round_id"]) == (CHECK, "K2")]
    assert k2 == ("caribbean_stud seat 1 raise: recorded void 0 with a commission of 100 "
                  "cents; the rules judge it void 0, and no commission is charged on a void")


def test_the_commissions_other_checks_judge_are_left_to_them(flags):
    owners = {(f["round_id"], f["seat"], f["check_id"]) for f in flags}
    assert ("K1", 4, "commission_on_push_or_loss") in owners
    assert ("K1", 2, "paid_loser") in owners
    assert not {(r, s) for r, s, c in owners if c == CHECK} & {
        ("K1", 2), ("K1", 3), ("K1", 4), ("K1", 6), ("K3", 1), ("K4", 1)}


def test_the_flag_carries_no_money_and_a_wrong_net_is_counted_once_by_its_own_check(flags):
    mine = [f for f in flags if f["check_id"] == CHECK]
    assert mine and all(f["amount_at_stake_cents"] is None for f in mine)
    k1_2 = [f for f in flags if (f["round_id"], f["seat"]) == ("K1", 2) and f["counted"]]
    assert [(f["check_id"], f["amount_at_stake_cents"]) for f in k1_2] == [("paid_loser", 1950)]
