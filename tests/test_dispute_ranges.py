"""The dispute report shows an expected amount with its lawful range where the rules let
the house choose (docs/rules.md 6a.2, 6a.19), and calls a wager mispaid only outside it.
The rows are hand-built as replay writes them (wagers.parquet), the amounts worked by hand:
a $7.00 pai gow tiles win, vigorish lawful from $0.35 (the exact 5%) to $0.50 (rounded up to
25 cents), so a net from $6.50 to $6.65."""

from __future__ import annotations

from typing import Any

from replay.dispute import _wager_view
from replay.dispute_html import _wager
from replay.dispute_text import settlement
from replay.money import format_lawful


def _row(charged: int, **changes: Any) -> dict[str, Any]:
    return {"seat": 1, "position": "seat 1", "wager": "main", "amount_cents": 700,
            "recorded_outcome": "win", "recorded_net_cents": 700 - charged,
            "recorded_commission_cents": charged, "expected_outcome": "win",
            "expected_net_cents": 650, "expected_commission_cents": 50,
            "expected_net_min_cents": 650, "expected_net_max_cents": 665,
            "expected_commission_min_cents": 35, "expected_commission_max_cents": 50,
            **changes}


def test_the_lawful_range_is_written_beside_the_expected_amount() -> None:
    assert format_lawful(650, 650, 665, signed=True) == "+$6.50 (lawful +$6.50 to +$6.65)"
    assert format_lawful(125, 125, 125) == "$1.25"
    assert format_lawful(125, None, None) == "$1.25"


def test_the_exact_5_percent_is_no_mispay_and_no_commission_difference() -> None:
    view = _wager_view(_row(35))
    assert (view.difference_cents, view.commission_lawful) == (0, True)
    assert settlement(view) == (
        "seat 1 main $7.00: recorded win +$6.65 (commission $0.35); expected win +$6.50 "
        "(lawful +$6.50 to +$6.65) (commission $0.50 (lawful $0.35 to $0.50))")
    assert 'class="bad"' not in _wager(view)
    assert "+$6.50 (lawful +$6.50 to +$6.65)" in _wager(view)


def test_one_cent_beyond_the_range_is_mispaid_by_that_cent() -> None:
    over = _wager_view(_row(51))     # net 649, a cent below the lowest lawful 650
    assert (over.difference_cents, over.commission_lawful) == (-1, False)
    assert settlement(over).endswith("MISPAID -$0.01")
    assert 'class="bad"' in _wager(over)


def test_a_lawful_net_with_a_commission_outside_its_range_says_so() -> None:
    view = _wager_view(_row(60, recorded_net_cents=650))
    assert (view.difference_cents, view.commission_lawful) == (0, False)
    assert settlement(view).endswith("COMMISSION DIFFERS")


def test_an_older_replays_row_is_judged_on_the_point() -> None:
    older = {k: v for k, v in _row(35).items() if not k.endswith(("_min_cents", "_max_cents"))}
    view = _wager_view(older)
    assert (view.difference_cents, view.commission_lawful) == (15, False)
    assert settlement(view) == (
        "seat 1 main $7.00: recorded win +$6.65 (commission $0.35); expected win +$6.50 "
        "(commission $0.50)  MISPAID +$0.15")


def test_the_dashboard_writes_the_range_in_the_same_words() -> None:
    from dashboard import views

    for amounts in ((650, 650, 665), (-501, -501, -500), (125, 125, 125)):
        assert views.money_lawful(*amounts, signed=True) == format_lawful(*amounts,
                                                                          signed=True)
    assert views.money_lawful(None, None, None) == ""
