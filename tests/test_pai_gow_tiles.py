"""Pai gow tiles: ranks, setting, comparison, vigorish, house way and round documents.

Each test is named after the clause it tests: PR pai gow tiles ¶ A to K and
docs/rules.md 3.2, 3.3, 6, 6a.2, 6a.14-6a.16. Expected values are worked out by hand in the
comments (pips: Teen 6-6 = 12, Day 1-1 = 2, Yun 4-4 = 8, Gor 1-3 = 4, Mooy 5-5 = 10, Chong 3-3
= 6, Bon 2-2 = 4, Foo 5-6 = 11, Ping 4-6 = 10, Tit 1-6 = 7, Look 1-5 = 6; a hand's value is
its pips mod 10).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import combinations, pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.adjudicate import judge_document as adjudicate_document
from replay.document import DocumentError
from replay.errors import HandError
from replay.games import find_game
from replay.games import pai_gow_tiles as game
from replay.games.pai_gow_tiles import (
    HandClass,
    Outcome,
    compare,
    follows_house_way,
    house_way_setting,
    is_foul,
    judge_document,
    lawful_vigorish,
    rank_hand,
    settle_main,
    single_rank,
)
from replay.games.results import settled_entry
from replay.rulesets import default_ruleset, ruleset_from_dict
from replay.tiles import FACES, TILES_32, Tile, parse_tiles, render_tiles
from tests.conftest import run_cli

RULESET = default_ruleset("pai_gow_tiles")


def h(text: str) -> tuple[Tile, ...]:
    return parse_tiles(text)


def r(text: str) -> game.HandRank:
    return rank_hand(h(text))


# ---------------------------------------------------------------------------------------
# Ranks: docs/rules.md 3.2, 3.3, 6a.15, 6a.16
# ---------------------------------------------------------------------------------------


def test_6a_15_single_tile_order() -> None:
    order = ["6-6", "1-1", "4-4", "1-3", "5-5", "3-3", "2-2", "5-6", "4-6", "1-6", "1-5",
             "3-6", "2-6", "3-4", "1-4", "2-4"]
    ranks = [single_rank(h(t)[0]) for t in order]
    assert ranks == sorted(ranks, reverse=True) and len(set(ranks)) == len(ranks)
    # "tiles of equal pips in the mixed groups rank equally"; the Gee Joon tiles together
    for a, b in [("3-6", "4-5"), ("2-6", "3-5"), ("3-4", "2-5"), ("1-4", "2-3"), ("2-4", "1-2")]:
        assert single_rank(h(a)[0]) == single_rank(h(b)[0])


def test_3_2_gee_joon_pair_tops_every_hand() -> None:
    gee_joon = r("2-4 1-2")
    assert gee_joon.hand_class is HandClass.GEE_JOON and str(gee_joon) == "Gee Joon"
    for a, b in combinations(TILES_32, 2):
        if {str(a), str(b)} != {"1-2", "2-4"}:
            assert rank_hand((a, b)) < gee_joon, (a, b)


def test_3_2_pairs_rank_in_the_documented_order() -> None:
    pairs = ["6-6 6-6", "1-1 1-1", "4-4 4-4", "1-3 1-3", "5-5 5-5", "3-3 3-3", "2-2 2-2",
             "5-6 5-6", "4-6 4-6", "1-6 1-6", "1-5 1-5", "3-6 4-5", "2-6 3-5", "3-4 2-5",
             "1-4 2-3"]
    ranks = [r(p) for p in pairs]
    assert all(x.hand_class is HandClass.PAIR for x in ranks)
    assert all(a > b for a, b in pairwise(ranks))
    assert str(r("6-6 6-6")) == "pair of Teen"
    assert str(r("4-5 3-6")) == "pair of mixed nines"


def test_3_2_equal_pips_of_different_faces_are_not_a_pair() -> None:
    # Mooy 5-5 and Ping 4-6 are both ten: 20 -> 0 points, not a pair.
    assert r("5-5 4-6").hand_class is HandClass.POINTS and r("5-5 4-6").points == 0
    # Tit 1-6 and a mixed seven 3-4 are both seven: 14 -> 4 points, Tit high.
    assert str(r("1-6 3-4")) == "4 points, Tit high"
    # Gor 1-3 and Bon 2-2 are both four: 8 points, Gor high.
    assert str(r("1-3 2-2")) == "8 points, Gor high"


def test_6a_16_wong_is_teen_or_day_with_a_nine_teen_wong_above_day_wong() -> None:
    assert str(r("6-6 3-6")) == "Teen wong" and str(r("1-1 4-5")) == "Day wong"
    assert r("6-6 3-6") > r("1-1 4-5")
    assert r("6-6 3-6") == r("6-6 4-5")  # either nine: a copy


def test_6a_16_gong_is_teen_or_day_with_an_eight_yun_included() -> None:
    assert str(r("6-6 4-4")) == "Teen gong" and str(r("1-1 3-5")) == "Day gong"
    assert r("6-6 4-4") == r("6-6 2-6") == r("6-6 3-5")
    assert r("6-6 4-4") > r("1-1 4-4")


def test_6a_16_pairs_then_wong_then_gong_then_points() -> None:
    lowest_pair = r("1-4 2-3")  # mixed fives
    assert lowest_pair > r("6-6 3-6") > r("1-1 4-5") > r("6-6 4-4") > r("1-1 2-6")
    # Day gong (2 + 8 = 10 -> 0 points as a sum) above the best point hand, 9 with Teen
    assert r("1-1 2-6") > r("6-6 1-6")
    assert str(r("6-6 1-6")) == "9 points, Teen high"


def test_3_3_value_is_the_pips_mod_10() -> None:
    assert r("6-6 1-6").points == 9  # 12 + 7 = 19
    assert r("5-6 5-5").points == 1  # 11 + 10 = 21
    assert str(r("5-6 5-5")) == "1 point, Mooy high"  # Mooy ranks above Foo (6a.15)
    assert r("1-3 1-5").points == 0  # 4 + 6 = 10
    assert r("6-6 1-1").points == 4  # 12 + 2 = 14


@pytest.mark.parametrize(
    ("hand", "points", "why"),
    [("2-4 1-5", 9, "6 + 3 = 9 beats 6 + 6 = 12 -> 2"),
     ("1-2 1-6", 3, "7 + 6 = 13 -> 3 beats 7 + 3 = 10 -> 0"),
     ("2-4 1-1", 8, "2 + 6 = 8 beats 2 + 3 = 5"),
     ("1-2 6-6", 8, "12 + 6 = 18 -> 8 beats 12 + 3 = 15 -> 5"),
     ("1-2 3-4", 3, "7 + 6 = 13 -> 3 beats 7 + 3 = 10 -> 0"),
     ("2-4 4-6", 6, "10 + 6 = 16 -> 6 beats 10 + 3 = 13 -> 3")],
)
def test_6a_16_lone_gee_joon_counts_3_or_6_whichever_is_better(
    hand: str, points: int, why: str
) -> None:
    assert r(hand).points == points, why
    assert r(hand).hand_class is HandClass.POINTS


def test_6a_16_gee_joon_with_teen_is_eight_points_not_a_gong() -> None:
    # 12 + 6 = 18: eight points, but a gong needs a tile of eight pips (docs/rules.md 3.2).
    assert str(r("6-6 2-4")) == "8 points, Teen high"
    assert r("6-6 2-4") < r("1-1 2-6")


def test_6a_16_equal_points_go_to_the_higher_single_tile() -> None:
    # 9 each: Teen + Tit (12 + 7 = 19) against Day + mixed seven 3-4 (2 + 7 = 9): Teen is
    # the higher single tile.
    assert r("6-6 1-6").points == r("1-1 3-4").points == 9
    assert r("6-6 1-6") > r("1-1 3-4")
    # 7 each: Mooy + Tit (10 + 7 = 17, Mooy high) against Ping + Tit (10 + 7 = 17, Ping
    # high): Mooy ranks above Ping (6a.15).
    assert r("5-5 1-6").points == r("4-6 1-6").points == 7
    assert r("5-5 1-6") > r("4-6 1-6")
    # 9 each: Chong + 1-2 (6 + 3 = 9, Chong high) against Mooy + mixed nine 4-5 (10 + 9 =
    # 19, Mooy high): Mooy is higher than Chong.
    assert r("3-3 1-2").points == r("5-5 4-5").points == 9
    assert r("3-3 1-2") < r("5-5 4-5")


def test_6a_16_equal_points_and_equal_high_tile_is_a_copy() -> None:
    # 9 each, Teen high each: Teen + Tit (19) and Teen + mixed seven 3-4 (19).
    assert r("6-6 1-6") == r("6-6 3-4")
    # only the higher single tile counts: 7, Day high, with either mixed five (2 + 5 = 7)
    assert r("1-1 2-3") == r("1-1 1-4")
    # equal pips in a mixed group rank equally: 3-6 + 1-4 (9 + 5 = 14 -> 4) and 4-5 + 2-3
    # (9 + 5 = 14 -> 4), each a mixed nine high
    assert r("3-6 1-4") == r("4-5 2-3")


def test_6a_16_zero_against_zero_is_a_copy_whatever_the_tiles() -> None:
    # Gor 1-3 + Look 1-5 = 10 -> 0 (Gor high); Mooy 5-5 + Ping 4-6 = 20 -> 0 (Mooy high).
    # Gor ranks above Mooy as a single tile, but zero against zero is a copy.
    assert r("1-3 1-5") == r("5-5 4-6")
    assert r("1-3 1-5").is_zero and str(r("1-3 1-5")) == "0 points"
    # Teen + Yun sums to 20 too, but it is a gong, not a zero.
    assert not r("6-6 4-4").is_zero
    # Mooy pair: 20, a pair, not a zero.
    assert not r("5-5 5-5").is_zero


def test_rank_hand_refuses_anything_but_two_tiles() -> None:
    with pytest.raises(HandError, match="two tiles"):
        rank_hand(h("6-6 1-1 4-4"))
    with pytest.raises(HandError, match="two tiles"):
        rank_hand(["6-6", "1-1"])  # type: ignore[list-item]


# A second, deliberately simple evaluator, written from the rules without the module's
# tables, cross-checks every pair of two-tile hands the set can make.
GROUPS = ["6-6", "1-1", "4-4", "1-3", "5-5", "3-3", "2-2", "5-6", "4-6", "1-6", "1-5",
          "3-6/4-5", "2-6/3-5", "3-4/2-5", "1-4/2-3", "2-4/1-2"]


def _strength(token: str) -> int:
    return next(len(GROUPS) - i for i, g in enumerate(GROUPS) if token in g.split("/"))


def _pips(token: str) -> int:
    return sum(int(p) for p in token.split("-"))


def simple_rank(a: str, b: str) -> tuple[int, ...]:
    if {a, b} == {"1-2", "2-4"}:
        return (5,)
    if _strength(a) == _strength(b):  # same face, or two faces of one mixed group
        return (4, _strength(a))
    hi, lo = sorted((a, b), key=_strength, reverse=True)
    if hi in ("6-6", "1-1") and _pips(lo) == 9:
        return (3, _strength(hi))
    if hi in ("6-6", "1-1") and _pips(lo) == 8:
        return (2, _strength(hi))
    counts_a = [3, 6] if a in ("1-2", "2-4") else [_pips(a)]
    counts_b = [3, 6] if b in ("1-2", "2-4") else [_pips(b)]
    value = max((x + y) % 10 for x in counts_a for y in counts_b)
    return (1, 0, 0) if value == 0 else (1, value, _strength(hi))


def test_simple_evaluator_agrees_on_every_pair_of_hands() -> None:
    hands = sorted({tuple(sorted((str(a), str(b)))) for a, b in combinations(TILES_32, 2)})
    assert len(hands) == 221  # 11 doubled faces paired with themselves + C(21, 2) = 210
    fast = {hand: rank_hand(parse_tiles(" ".join(hand))) for hand in hands}
    slow = {hand: simple_rank(*hand) for hand in hands}
    for x in hands:
        for y in hands:
            assert (fast[x] > fast[y]) == (slow[x] > slow[y]), (x, y)
            assert (fast[x] == fast[y]) == (slow[x] == slow[y]), (x, y)


def test_descriptions_are_equal_exactly_when_ranks_are() -> None:
    ranks = {rank_hand((a, b)) for a in FACES for b in FACES}
    assert len({x.describe() for x in ranks}) == len(ranks)


# ---------------------------------------------------------------------------------------
# Setting and foul (docs/rules.md 6a.16 and Words ("set", "foul"))
# ---------------------------------------------------------------------------------------


def test_three_ways_to_set_four_tiles() -> None:
    splits = game.settings(h("1-3 6-6 3-3 1-6"))
    # canonical order 6-6 1-3 3-3 1-6: Teen with Gor (16 -> 6) / Chong + Tit (13 -> 3);
    # Teen with Chong (18 -> 8) / Gor + Tit (11 -> 1); Teen with Tit (19 -> 9) / Gor +
    # Chong (10 -> 0)
    assert [str(s) for s in splits] == ["6-6 1-3 / 3-3 1-6", "6-6 3-3 / 1-3 1-6",
                                       "6-6 1-6 / 1-3 3-3"]
    assert [s.high_rank.points for s in splits] == [6, 8, 9]
    assert [s.low_rank.points for s in splits] == [3, 1, 0]


def test_foul_is_a_high_hand_below_the_low_hand_equal_is_not() -> None:
    assert is_foul(h("1-3 1-5"), h("6-6 1-6"))  # 0 points high, 9 points low
    assert not is_foul(h("6-6 1-6"), h("6-6 3-4"))  # 9 Teen and 9 Teen: a copy
    assert not is_foul(h("2-4 1-2"), h("6-6 6-6"))
    assert is_foul(h("1-1 4-5"), h("6-6 3-6"))  # Day wong high, Teen wong low


# ---------------------------------------------------------------------------------------
# Comparison: PR pai gow tiles ¶ H, I, J; docs/rules.md 6a.16
# ---------------------------------------------------------------------------------------

# Banker: 9 points, Teen high (6-6 1-6) over 5 points, Mooy high (5-5 2-3).
BANKER = {"banker_high": h("6-6 1-6"), "banker_low": h("5-5 2-3")}


def test_pr_J_player_wins_when_both_hands_rank_higher() -> None:
    # Yun pair over 9 Teen; Gor + Bon = 8 over 5 Mooy.
    assert compare(player_high=h("4-4 4-4"), player_low=h("1-3 2-2"), **BANKER) is Outcome.WIN


def test_pr_H_player_loses_when_both_hands_rank_lower() -> None:
    # 5 Ping (4-6 1-4: 10 + 5) under 9; 1 Gor (1-3 2-5: 4 + 7 = 11) under 5.
    assert compare(player_high=h("4-6 1-4"), player_low=h("1-3 2-5"), **BANKER) is Outcome.LOSS


def test_pr_H_copies_in_both_hands_go_to_the_banker() -> None:
    # 9 Teen (6-6 3-4: 19) copies 9 Teen; 5 Mooy (5-5 1-4: 15) copies 5 Mooy.
    assert compare(player_high=h("6-6 3-4"), player_low=h("5-5 1-4"), **BANKER) is Outcome.LOSS


def test_pr_H_copy_high_and_lower_low_loses() -> None:
    # 9 Teen copy; 1-3 2-5 = 1 point, under 5.
    assert compare(player_high=h("6-6 3-4"), player_low=h("1-3 2-5"), **BANKER) is Outcome.LOSS


def test_pr_I_1_higher_high_and_copy_low_is_a_push() -> None:
    # Yun pair over 9 Teen; 5 Mooy (5-5 1-4) copies 5 Mooy.
    assert compare(player_high=h("4-4 4-4"), player_low=h("5-5 1-4"), **BANKER) is Outcome.PUSH


def test_pr_I_1_higher_high_and_lower_low_is_a_push() -> None:
    assert compare(player_high=h("4-4 4-4"), player_low=h("1-3 2-5"), **BANKER) is Outcome.PUSH


def test_pr_I_2_copy_high_and_higher_low_is_a_push() -> None:
    # 9 Teen copy; Gor + Bon 8 over 5.
    assert compare(player_high=h("6-6 3-4"), player_low=h("1-3 2-2"), **BANKER) is Outcome.PUSH


def test_pr_I_2_lower_high_and_higher_low_is_a_push() -> None:
    # 8 Day (1-1 1-5: 2 + 6) under 9 Teen; 8 Foo (5-6 3-4: 18) over 5 Mooy.
    assert compare(player_high=h("1-1 1-5"), player_low=h("5-6 3-4"), **BANKER) is Outcome.PUSH


ZERO_BANKER = {"banker_high": h("6-6 1-6"), "banker_low": h("1-3 1-5")}  # 9 Teen / 0 (Gor)


def test_pr_I_6a_16_player_zero_low_never_wins_even_against_a_zero() -> None:
    # Player: Yun pair over 9 Teen (higher); low Mooy + Ping = 20 -> 0, whose high tile is
    # Mooy; the banker's low is 0 with Gor. Zero against zero is a copy, so not a win: push.
    assert compare(player_high=h("4-4 4-4"), player_low=h("5-5 4-6"),
                   **ZERO_BANKER) is Outcome.PUSH


def test_pr_H_6a_16_player_zero_low_with_lower_high_loses() -> None:
    # 5 Ping under 9 Teen; 0 against 0: the banker wins both.
    assert compare(player_high=h("4-6 1-4"), player_low=h("5-5 4-6"),
                   **ZERO_BANKER) is Outcome.LOSS


def test_6a_16_player_low_above_a_banker_zero_wins() -> None:
    # 1 point (Gor 1-3 + mixed seven 2-5 = 11) is above zero: a win with a higher high.
    assert compare(player_high=h("4-4 4-4"), player_low=h("1-3 2-5"),
                   **ZERO_BANKER) is Outcome.WIN


# ---------------------------------------------------------------------------------------
# Vigorish and settlement: PR pai gow tiles ¶ K; docs/rules.md 6, 6a.2
# ---------------------------------------------------------------------------------------


def _ruleset(**options: Any) -> Any:
    return ruleset_from_dict({
        "id": "pai_gow_tiles-test-v1", "game": "pai_gow_tiles", "title": "test",
        "effective_from": "2024-01-01",
        "commission": {"rate_bps": 500, "rounding": "up_to_unit", "unit_cents": 25},
        "options": {"house_way": "pr-11.2-d", "co_bank_share_bps": 5000,
                    "co_bank_rounding": "toward_zero", **options},
    })


@pytest.mark.parametrize(
    ("win", "vig", "arithmetic"),
    [(700, 50, "$7: 5% = 35 cents, up to the next 25: 50"),
     (500, 25, "$5: 5% = 25 cents exactly"),
     (1000, 50, "$10: 50 cents exactly"),
     (2500, 125, "$25: $1.25 exactly"),
     (1020, 75, "$10.20: 51 cents, up to 75"),
     (2000, 100, "$20: $1 exactly"),
     (2001, 125, "$20.01: 100.05 cents, up to 125"),
     (100, 25, "$1: 5 cents, up to 25")],
)
def test_6a_2_vigorish_is_5_percent_rounded_up_to_the_next_25_cents(
    win: int, vig: int, arithmetic: str
) -> None:
    settled = settle_main(amount_cents=win, outcome=Outcome.WIN, ruleset=RULESET)
    assert (settled.commission_cents, settled.net_cents) == (vig, win - vig), arithmetic


@pytest.mark.parametrize(("win", "vig"), [(1, 1), (20, 20), (24, 24), (25, 25), (26, 25)])
def test_6a_2_vigorish_on_a_tiny_win_is_never_more_than_the_win(win: int, vig: int) -> None:
    # 5% of 1 cent is 0.05 cents, rounded up to 25 cents; a commission never turns a
    # winning wager into a loss (docs/rules.md 6a.2), so a 1-cent win nets 0.
    settled = settle_main(amount_cents=win, outcome=Outcome.WIN, ruleset=RULESET)
    assert (settled.commission_cents, settled.net_cents) == (vig, win - vig)
    assert settled.outcome is Outcome.WIN


@pytest.mark.parametrize(
    ("win", "lawful", "arithmetic"),
    [(700, (35, 50), "$7: 5% = 35 exactly; up to the next 25: 50"),
     (701, (35, 50), "5% = 35.05, down to the cent 35; up to the next 25: 50"),
     (500, (25, 25), "$5: 25 exactly, already a multiple of 25"),
     (10, (0, 10), "5% = 0.5 cents, down to 0; 25 would exceed the win of 10"),
     (1, (0, 1), "5% = 0.05 cents, down to 0; at most the win of 1"),
     (2510, (125, 150), "5% = 125.5, down to 125; up to the next 25: 150")],
)
def test_6a_2_lawful_vigorish_from_the_exact_5_percent_to_the_next_25_cents(
    win: int, lawful: tuple[int, int], arithmetic: str
) -> None:
    assert lawful_vigorish(win, RULESET) == lawful, arithmetic
    settled = settle_main(amount_cents=win, outcome=Outcome.WIN, ruleset=RULESET)
    assert settled.commission_range == (None if lawful[0] == lawful[1] else lawful)


def test_6a_2_the_result_carries_the_lawful_range_of_a_win() -> None:
    entry = settled_entry(settle_main(amount_cents=700, outcome=Outcome.WIN, ruleset=RULESET))
    assert entry == {"outcome": "win", "net": 650, "commission": 50,
                     "net_range": [650, 665], "commission_range": [35, 50]}
    point = settled_entry(settle_main(amount_cents=500, outcome=Outcome.WIN, ruleset=RULESET))
    assert point == {"outcome": "win", "net": 475, "commission": 25}


def test_pr_K_no_vigorish_on_losses_or_pushes() -> None:
    loss = settle_main(amount_cents=2500, outcome=Outcome.LOSS, ruleset=RULESET)
    push = settle_main(amount_cents=2500, outcome=Outcome.PUSH, ruleset=RULESET)
    assert (loss.net_cents, loss.commission_cents) == (-2500, 0)
    assert (push.net_cents, push.commission_cents) == (0, 0)


# ---------------------------------------------------------------------------------------
# House way: PR pai gow tiles ¶ D.1-D.4, completions C1-C6
# ---------------------------------------------------------------------------------------


def _hw(tiles: str) -> tuple[str, str]:
    found = house_way_setting(h(tiles))
    return found.rule.clause.split(";")[0], str(found.setting)


def test_pr_D_1_supreme_pair_is_played_as_such() -> None:
    assert _hw("6-6 1-2 6-6 2-4") == ("D.1", "2-4 1-2 / 6-6 6-6")
    # even when a Teen wong could be made: Gee Joon high, Teen wong low (not a foul)
    assert _hw("2-4 6-6 1-2 3-6") == ("D.1", "2-4 1-2 / 6-6 3-6")


def test_pr_D_2_pair_is_played() -> None:
    # Teen pair / Yun + Tit (15 -> 5) rather than Teen gong / Teen + Tit 9 (C3: the pair is
    # the higher high hand)
    assert _hw("6-6 6-6 4-4 1-6") == ("D.2", "6-6 6-6 / 4-4 1-6")


def test_pr_D_2_wong_is_played() -> None:
    # Teen + mixed nine 4-5 = wong; Gor + Bon (8) low. The other splits: Teen + Gor (16 ->
    # 6) / 4-5 + Bon (13 -> 3); Teen + Bon (16 -> 6) / 4-5 + Gor (13 -> 3).
    assert _hw("1-3 2-2 4-5 6-6") == ("D.2", "6-6 4-5 / 1-3 2-2")


def test_pr_D_2_C3_two_pairs_are_played_as_two_pairs() -> None:
    assert _hw("1-1 6-6 1-1 6-6") == ("D.2", "6-6 6-6 / 1-1 1-1")


def test_pr_D_2_C3_teen_day_and_two_nines_are_two_wongs() -> None:
    assert _hw("6-6 1-1 3-6 4-5") == ("D.2", "6-6 3-6 / 1-1 4-5")


def test_pr_D_2_C3_yun_pair_with_teen_and_day_is_split_into_two_gongs() -> None:
    # Yun pair over Teen + Day (4) has one special hand; Teen + Yun and Day + Yun are two
    # gongs: C3 prefers two.
    assert _hw("4-4 4-4 6-6 1-1") == ("D.2", "6-6 4-4 / 1-1 4-4")


def test_pr_D_2_C3_higher_gong_high_when_one_special_either_way() -> None:
    # Teen + 2-6 gong / Day + Tit 9; or Day + 2-6 gong / Teen + Tit 9: Teen gong is higher.
    assert _hw("1-1 2-6 6-6 1-6") == ("D.2", "6-6 2-6 / 1-1 1-6")


def test_pr_D_3_nine_eight_or_seven_is_played() -> None:
    # Teen + Tit = 19 -> 9 / Mooy + 2-3 = 15 -> 5 (the other splits: 2/2 and 7/7)
    assert _hw("6-6 5-5 1-6 2-3") == ("D.3", "6-6 1-6 / 5-5 2-3")


def test_pr_D_3_C4_nine_before_eight_even_over_a_zero() -> None:
    # Teen + Tit = 9 / Gor + Chong = 10 -> 0, against Teen + Chong = 18 -> 8 / Gor + Tit =
    # 11 -> 1: the nine first (C4).
    assert _hw("6-6 1-3 3-3 1-6") == ("D.3", "6-6 1-6 / 1-3 3-3")


def test_pr_D_3_counts_a_lone_gee_joon_3_or_6() -> None:
    # Look 1-5 (6) + 2-4 as 3 = 9 / Foo + Ping = 21 -> 1.
    assert _hw("5-6 4-6 1-5 2-4") == ("D.3", "1-5 2-4 / 5-6 4-6")


def test_pr_D_4_highest_tile_with_lowest_tile() -> None:
    # Mooy, Chong, Ping, Look: no pair, no Teen/Day, splits 6/6, 2/0, 6/6. Highest Mooy with
    # lowest Look: 16 -> 6 Mooy high; Chong + Ping 16 -> 6 Chong high.
    assert _hw("1-5 4-6 3-3 5-5") == ("D.4", "5-5 1-5 / 3-3 4-6")


def test_house_way_never_fouls_and_uses_exactly_the_tiles() -> None:
    for tiles, _ in game.four_tile_hands():
        found = house_way_setting(tiles).setting
        assert not found.foul
        assert Counter(found.high + found.low) == Counter(tiles)


def test_pr_C_D_dealer_following_the_house_way() -> None:
    tiles = h("6-6 1-1 3-6 4-5")
    assert follows_house_way(tiles, h("6-6 3-6"), h("1-1 4-5"))
    # the other nine with Teen: the same ranks in both hands (C6)
    assert follows_house_way(tiles, h("6-6 4-5"), h("1-1 3-6"))
    # the mixed nines pair over Teen + Day: D.2 plays "a pair, wong or gong" and leaves
    # which to the dealer, so this conforms too (two wongs is the house way's preference, C3)
    assert follows_house_way(tiles, h("3-6 4-5"), h("6-6 1-1"))
    # Teen + Day over the mixed nines: a foul, not the house way
    assert not follows_house_way(tiles, h("6-6 1-1"), h("3-6 4-5"))
    # two wongs set the wrong way round: a foul, not the house way
    assert not follows_house_way(tiles, h("1-1 4-5"), h("6-6 3-6"))


# ---------------------------------------------------------------------------------------
# Round documents (`python -m replay adjudicate`)
# ---------------------------------------------------------------------------------------


def hand(tiles: str, setting: str | None = None) -> dict[str, Any]:
    """``hand("6-6 5-5 1-6 2-3", "6-6 1-6 / 5-5 2-3")`` as document fields."""
    out: dict[str, Any] = {"tiles": tiles.split()}
    if setting is not None:
        high, low = setting.split(" / ")
        out |= {"high": high.split(), "low": low.split()}
    return out


def seat(number: int, tiles: str, setting: str | None, main: int = 0,
         **extra: Any) -> dict[str, Any]:
    return {"seat": number, **hand(tiles, setting), "wagers": {"main": main}, **extra}


# Dealer 9 Teen / 5 Mooy, set by the house way (D.3).
DEALER = hand("6-6 5-5 1-6 2-3", "6-6 1-6 / 5-5 2-3")
SEAT_WINS = seat(1, "4-4 4-4 1-3 2-2", "4-4 4-4 / 1-3 2-2", 700)  # Yun pair / 8 Gor
SEAT_PUSHES = seat(2, "1-1 1-5 5-6 3-4", "1-1 1-5 / 5-6 3-4", 1000)  # 8 Day / 8 Foo
SEAT_FOULS = seat(3, "6-6 1-1 3-6 4-5", "1-1 4-5 / 6-6 3-6", 2500)  # Day wong / Teen wong
SEAT_WITHDRAWS = {"seat": 4, "action": "withdraw", "wagers": {"main": 500}}


def doc(*seats: dict[str, Any], dealer: dict[str, Any] = DEALER, **top: Any) -> dict[str, Any]:
    return {"round_id": "r-17", "game": "pai_gow_tiles", "dealer": dealer, "seats": list(seats),
            **top}


def test_issue_3_result_of_a_dealer_banked_round() -> None:
    result = adjudicate_document(doc(SEAT_FOULS, SEAT_WITHDRAWS, SEAT_PUSHES, SEAT_WINS))
    assert result == {
        "round_id": "r-17", "ruleset": "pai_gow_tiles-pr-v1", "evaluated": True,
        "dealer": {"foul": False, "house_way": True, "ace_high_pai_gow": False,
                   "qualifies": None, "net": 0},
        "seats": [
            # Yun pair over 9 Teen, 8 Gor over 5 Mooy: win 700 less 50 (35 rounded up)
            {"seat": 1, "foul": False,
             # $7: vigorish 50 by default, lawful from the exact 35 (6a.2, 6a.19)
             "wagers": {"main": {"outcome": "win", "net": 650, "commission": 50,
                                 "net_range": [650, 665], "commission_range": [35, 50]}},
             "envy": 0},
            # 8 Day under 9 Teen, 8 Foo over 5 Mooy: push
            {"seat": 2, "foul": False,
             "wagers": {"main": {"outcome": "push", "net": 0, "commission": 0}}, "envy": 0},
            # Day wong set over... under Teen wong: a foul, which loses though both would win
            {"seat": 3, "foul": True,
             "wagers": {"main": {"outcome": "loss", "net": -2500, "commission": 0}}, "envy": 0},
            # withdrew after the dealer set: the wager is collected (PR pai gow tiles ¶ F.1)
            {"seat": 4, "foul": None,
             "wagers": {"main": {"outcome": "loss", "net": -500, "commission": 0}}, "envy": 0},
        ],
    }
    assert list(result) == ["round_id", "ruleset", "evaluated", "dealer", "seats"]
    assert list(result["dealer"]) == ["foul", "house_way", "ace_high_pai_gow", "qualifies", "net"]
    assert list(result["seats"][0]) == ["seat", "foul", "wagers", "envy"]
    assert list(result["seats"][0]["wagers"]["main"]) == ["outcome", "net", "commission",
                                                           "net_range", "commission_range"]
    assert list(result["seats"][3]["wagers"]["main"]) == ["outcome", "net", "commission"]


def test_6a_16_fouled_tiles_hand_loses() -> None:
    result = judge_document(doc(SEAT_FOULS), RULESET)
    assert result["seats"][0]["foul"] is True
    assert result["seats"][0]["wagers"]["main"]["outcome"] == "loss"


def test_pr_F_withdrawn_seat_loses_its_wager_even_with_its_tiles_given() -> None:
    withdrawn = seat(4, "4-4 4-4 1-3 2-2", "4-4 4-4 / 1-3 2-2", 900, action="withdraw")
    result = judge_document(doc(withdrawn), RULESET)
    # the hand would win (Yun pair / 8 against 9 / 5), but it was withdrawn and not shown
    assert result["seats"] == [{"seat": 4, "foul": None, "wagers": {
        "main": {"outcome": "loss", "net": -900, "commission": 0}}, "envy": 0}]


def test_6a_18_zero_wager_is_left_out() -> None:
    result = judge_document(doc(seat(5, "4-4 4-4 1-3 2-2", "4-4 4-4 / 1-3 2-2", 0)), RULESET)
    assert result["seats"] == [{"seat": 5, "foul": False, "wagers": {}, "envy": 0}]


def test_dealer_against_the_house_way_is_reported_and_compared_as_set() -> None:
    # 6-6 5-5 (22 -> 2 Teen) / 1-6 2-3 (12 -> 2 Tit) where D.3 plays a 9, 8 or 7 together
    # (9 / 5 or 7 / 7: either conforms, tests/test_rules_corrections.py).
    dealer = hand("6-6 5-5 1-6 2-3", "6-6 5-5 / 1-6 2-3")
    result = judge_document(doc(SEAT_PUSHES, dealer=dealer), RULESET)
    assert result["dealer"]["house_way"] is False and result["dealer"]["foul"] is False
    # 8 Day over 2 Teen, 8 Foo over 2 Tit: now a win, 1000 less 50
    assert result["seats"][0]["wagers"]["main"] == {"outcome": "win", "net": 950,
                                                    "commission": 50}


def test_6a_7_fouled_dealer_hand_is_reported_and_compared_as_set() -> None:
    # 5 Mooy high, 9 Teen low
    dealer = hand("6-6 5-5 1-6 2-3", "5-5 2-3 / 6-6 1-6")
    result = judge_document(doc(SEAT_PUSHES, dealer=dealer), RULESET)
    assert result["dealer"]["foul"] is True and result["dealer"]["house_way"] is False
    # 8 Day over 5 Mooy, 8 Foo under 9 Teen: push
    assert result["seats"][0]["wagers"]["main"]["outcome"] == "push"


BANKER_SEAT = seat(3, "6-6 5-5 1-6 2-3", "6-6 1-6 / 5-5 2-3", 5000)  # 9 Teen / 5 Mooy
DEALER_VS_BANKER = dict(hand("4-4 4-4 1-3 2-2", "4-4 4-4 / 1-3 2-2"), wager=1000)
LOSER = seat(2, "1-3 2-5 4-6 1-4", "4-6 1-4 / 1-3 2-5", 2000)  # 5 Ping / 1 Gor: loses


def test_6a_14_player_banked_round() -> None:
    result = judge_document(
        doc(SEAT_PUSHES | {"seat": 1}, LOSER, BANKER_SEAT, SEAT_WITHDRAWS,
            dealer=DEALER_VS_BANKER, banker={"seat": 3, "co_bank": False}),
        RULESET,
    )
    # The dealer's Yun pair / 8 Gor beats the banker's 9 / 5: +1000, no vigorish.
    assert result["dealer"]["net"] == 1000
    assert [s["wagers"] for s in result["seats"]] == [
        {"main": {"outcome": "push", "net": 0, "commission": 0}},
        {"main": {"outcome": "loss", "net": -2000, "commission": 0}},
        {},  # the banker seat's own wager is ignored
        {"main": {"outcome": "loss", "net": -500, "commission": 0}},
    ]
    # gross = -(0 - 2000 - 500) - 1000 = 1500; vigorish 5% = 75 (a multiple of 25)
    # house: 75 vigorish + 1000 the dealer won = 1075; -2500 + 1425 + 1075 = 0
    assert result["banker"] == {"seat": 3, "net": 1425, "commission": 75, "house_net": 1075}
    assert list(result) == ["round_id", "ruleset", "evaluated", "dealer", "seats", "banker"]


def test_6a_14_co_banked_round_halves_the_gross() -> None:
    result = judge_document(
        doc(SEAT_PUSHES | {"seat": 1}, LOSER, BANKER_SEAT, SEAT_WITHDRAWS,
            dealer=DEALER_VS_BANKER, banker={"seat": 3, "co_bank": True}),
        RULESET,
    )
    # share 1500 / 2 = 750; vigorish 37.5 -> 50; net 700; house 50 + 750 + 1000 = 1800;
    # lawful vigorish 37 (37.5 down to the cent) to 50: net 713 to 700 (6a.19)
    assert result["banker"] == {"seat": 3, "net": 700, "commission": 50, "house_net": 1800,
                                "net_range": [700, 713], "commission_range": [37, 50]}


def test_6a_14_copies_go_to_the_player_banker_against_the_dealer() -> None:
    # the dealer holds the banker's hands' ranks: 9 Teen (6-6 3-4) / 5 Mooy (5-5 1-4)
    dealer = dict(hand("6-6 3-4 5-5 1-4", "6-6 3-4 / 5-5 1-4"), wager=1000)
    result = judge_document(doc(BANKER_SEAT, dealer=dealer, banker={"seat": 3}), RULESET)
    # dealer loses its 1000; banker gross +1000, vigorish 50
    assert result["dealer"]["net"] == -1000
    assert result["banker"] == {"seat": 3, "net": 950, "commission": 50, "house_net": -950}


DOC_ERRORS = [
    (doc(seat(2, "6-6 7-7 1-3 2-2", None)), r"seat 2 tiles\[1\]: bad tile token '7-7'"),
    (doc(dict(SEAT_WINS, high=["4-4", "4-4"], low=["2-2", "3-1"])),
     r"seat 1 low\[1\]: bad tile token '3-1': write the smaller pip first, '1-3'"),
    (doc(seat(1, "4-4 4-4 1-3", None)), "seat 1 tiles must hold 4 tiles, got 3"),
    (doc(dict(SEAT_WINS, high=["4-4", "4-4", "1-3"])),
     r"seat 1 set tile 1-3 2 times but was dealt it 1 time .*seat 1 set 3\+2 tiles, not 2\+2"),
    (doc(SEAT_WINS, dealer=dict(DEALER, high=DEALER["high"] + DEALER["low"][:1],
                                low=DEALER["low"][1:])),
     r"dealer set 3\+1 tiles, not 2\+2 .*: every seat's hands are compared with them"),
    (doc(seat(1, "3-6 1-1 4-4 2-2", None), seat(2, "3-6 5-5 1-3 1-3", None)),
     r"tile 3-6 is dealt 2 times \(seat 1, seat 2\); the set holds 1"),
    (doc(seat(1, "6-6 1-1 4-4 2-2", None), seat(2, "6-6 5-5 1-3 1-3", None)),
     r"tile 6-6 is dealt 3 times \(dealer, seat 1, seat 2\); the set holds 2"),
    (doc(seat(1, "1-3 1-3 1-3 2-2", None)),
     r"tile 1-3 is dealt 3 times \(seat 1, seat 1, seat 1\); the set holds 2"),
    (doc(dict(SEAT_WINS, low=["1-3", "2-6"])),
     r"seat 1 set tile 2-6 in a hand but was not dealt it \(dealt 4-4 4-4 1-3 2-2\)"),
    (doc(dict(SEAT_WINS, low=["1-3", "2-6"])), "seat 1 was dealt tile 2-2 but did not set it"),
    (doc(dict(SEAT_WINS, high=["4-4", "1-3"], low=["1-3", "2-2"])),
     r"seat 1 set tile 1-3 2 times but was dealt it 1 time \(dealt 4-4 4-4 1-3 2-2\)"),
    (doc({"seat": 1, "cards": ["As"], "wagers": {}}), r"seats\[0\] has unknown keys \['cards'\]"),
    (doc(dict(SEAT_WINS, action="fold")), "seat 1 action 'fold'"),
    (doc(dict(SEAT_WINS, wagers={"main": 100, "fortune": 500})),
     r"seat 1 wagers has unknown wagers \['fortune'\]"),
    (doc(seat(1, "4-4 4-4 1-3 2-2", None, 2500)),
     "seat 1 plays a main wager of 2500 but its hand was not set"),
    (doc({k: v for k, v in SEAT_WINS.items() if k != "low"}),
     "seat 1 sets a hand without its 'low' hand"),
    (doc(SEAT_WINS, dealer=hand("6-6 5-5 1-6 2-3")), "the dealer's hand was not set"),
    (doc(SEAT_WINS, banker={"seat": 9}), "banker seat 9 is not at the table"),
    (doc(SEAT_WINS, SEAT_WITHDRAWS, banker={"seat": 4}),
     "seat 4 banks the round and cannot withdraw"),
    (doc(SEAT_WINS, dealer=dict(DEALER, wager=1000)), "dealer wager 1000"),
    (doc({"seat": 4, "action": "withdraw", "high": ["6-6", "6-6"], "low": ["1-1", "1-1"]}),
     "seat 4 has no 'tiles'"),
    (doc(SEAT_WINS, SEAT_WINS), "seat 1 appears 2 times"),
    (doc(SEAT_WINS, banker="house"), "banker must be 'dealer' or an object"),
    (doc(SEAT_WINS, game="pai_gow_poker"), "game 'pai_gow_poker' is not 'pai_gow_tiles'"),
    (doc(dict(SEAT_WINS, wagers={"main": 25.0})), r"seat 1 wagers.main must be non-negative"),
]


@pytest.mark.parametrize(("document", "message"), DOC_ERRORS)
def test_bad_documents_are_refused_naming_the_seat_and_the_tile(
    document: dict[str, Any], message: str
) -> None:
    with pytest.raises(DocumentError, match=message):
        judge_document(document, RULESET)


def test_every_problem_of_a_document_is_reported_at_once() -> None:
    bad = doc(dict(SEAT_WINS, low=["1-3", "2-6"]), SEAT_WINS)
    with pytest.raises(DocumentError) as caught:
        judge_document(bad, RULESET)
    message = str(caught.value)
    assert "seat 1 appears 2 times" in message
    assert "seat 1 set tile 2-6 in a hand but was not dealt it" in message
    assert "tile 4-4 is dealt 4 times (seat 1, seat 1, seat 1, seat 1); the set holds 2" in message


def test_an_unknown_house_way_is_named() -> None:
    ruleset = _ruleset(house_way="nowhere")
    with pytest.raises(DocumentError, match=re.escape(
            "house way 'nowhere'; known for pai_gow_tiles: pr-11.2-d")):
        judge_document(doc(SEAT_WINS), ruleset)


def test_the_game_is_registered_with_the_32_tiles_and_its_options() -> None:
    rules = find_game("pai_gow_tiles")
    assert rules.deck == TILES_32 and rules.judge_document is judge_document
    assert set(RULESET.options) <= rules.option_names
    assert RULESET.house_way == "pr-11.2-d" and RULESET.house_way in game.HOUSE_WAYS


def test_cli_judges_a_tiles_round_and_names_a_bad_one(tmp_path: Path) -> None:
    good = doc(SEAT_WINS)
    bad = doc(seat(2, "6-6 7-7 1-3 2-2", None)) | {"round_id": "r-18"}
    path = tmp_path / "rounds.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    done = run_cli("replay", "adjudicate", str(path))
    assert done.returncode == 2, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["seats"][0]["wagers"]["main"] == {
        "outcome": "win", "net": 650, "commission": 50, "net_range": [650, 665],
        "commission_range": [35, 50]}
    assert "r-18" in done.stderr and "'7-7'" in done.stderr


# ---------------------------------------------------------------------------------------
# Properties (Hypothesis)
# ---------------------------------------------------------------------------------------


@st.composite
def deals(draw: st.DrawFn, *, player_banked: bool) -> dict[str, Any]:
    """A round dealt from a shuffled set of 32 tiles, hands set any of the 3 ways, either way
    round (fouls included), wagers of any size, some seats withdrawn."""
    order = draw(st.permutations(range(32)))
    n_seats = draw(st.integers(min_value=2 if player_banked else 1, max_value=7))
    tiles = [TILES_32[i] for i in order]

    def set_hand(four: list[Tile]) -> dict[str, Any]:
        s = game.settings(four)[draw(st.integers(0, 2))]
        high, low = (s.low, s.high) if draw(st.booleans()) else (s.high, s.low)
        return {"tiles": [str(t) for t in four], "high": [str(t) for t in high],
                "low": [str(t) for t in low]}

    seats = []
    numbers = draw(st.permutations(range(1, 8)))[:n_seats]
    for k, number in enumerate(numbers):
        entry = {"seat": number, **set_hand(tiles[4 * k + 4: 4 * k + 8]),
                 "wagers": {"main": draw(st.integers(0, 500_000))}}
        if draw(st.integers(0, 5)) == 0:
            entry["action"] = "withdraw"
        seats.append(entry)
    result: dict[str, Any] = {"round_id": "p", "game": "pai_gow_tiles",
                              "dealer": set_hand(tiles[:4]), "seats": seats}
    if player_banked:
        banker = seats[0]
        banker.pop("action", None)
        result["banker"] = {"seat": banker["seat"], "co_bank": draw(st.booleans())}
        result["dealer"]["wager"] = draw(st.integers(0, 500_000))
    return result


@settings(max_examples=300, deadline=None)
@given(deals(player_banked=True))
def test_money_is_conserved_between_players_banker_and_house(document: dict[str, Any]) -> None:
    result = judge_document(document, RULESET)
    banker = result["banker"]
    players = sum(s["wagers"]["main"]["net"] for s in result["seats"] if s["wagers"])
    assert players + banker["net"] + banker["house_net"] == 0
    assert all(s["wagers"] == {} for s in result["seats"] if s["seat"] == banker["seat"])


@settings(max_examples=300, deadline=None)
@given(deals(player_banked=False))
def test_every_win_pays_lawful_vigorish_and_a_set_hand_uses_the_dealt_tiles(
    document: dict[str, Any],
) -> None:
    result = judge_document(document, RULESET)
    amounts = {s["seat"]: s["wagers"]["main"] for s in document["seats"]}
    for s in result["seats"]:
        main = s["wagers"].get("main")
        if main is None:
            assert amounts[s["seat"]] == 0
            continue
        amount = amounts[s["seat"]]
        if main["outcome"] == "win":
            vig = main["commission"]
            # 6a.2: from the exact 5% to 5% rounded up to the next 25 cents, capped at the win
            assert vig * 100 >= amount * 5 or vig == amount
            assert vig <= -(-amount * 5 // 2500) * 25 and vig <= amount
            assert main["net"] == amount - vig
        else:
            assert main["commission"] == 0
            assert main["net"] == {"loss": -amount, "push": 0}[main["outcome"]]


@settings(max_examples=500, deadline=None)
@given(st.permutations(range(32)), st.permutations(range(4)))
def test_house_way_uses_exactly_the_tiles_in_any_order(
    order: list[int], shuffle: list[int]
) -> None:
    four = [TILES_32[i] for i in order[:4]]
    found = house_way_setting(four)
    again = house_way_setting([four[i] for i in shuffle])
    assert (found.setting, found.rule.name) == (again.setting, again.rule.name)
    assert Counter(found.setting.high + found.setting.low) == Counter(four)
    assert not found.setting.foul


@settings(max_examples=500, deadline=None)
@given(st.permutations(range(32)), st.integers(0, 2), st.integers(0, 2))
def test_swapping_player_and_banker_turns_a_win_into_a_loss_except_copies(
    order: list[int], i: int, j: int
) -> None:
    tiles = [TILES_32[k] for k in order[:8]]
    p = game.settings(tiles[:4])[i]
    b = game.settings(tiles[4:])[j]

    def outcome(x: game.Setting, y: game.Setting) -> Outcome:
        return compare(player_high=x.high_rank, player_low=x.low_rank,
                       banker_high=y.high_rank, banker_low=y.low_rank)

    forward, backward = outcome(p, b), outcome(b, p)
    if forward is Outcome.WIN:
        assert backward is Outcome.LOSS
    copies = p.high_rank == b.high_rank or p.low_rank == b.low_rank
    if forward is Outcome.LOSS and not copies:
        assert backward is Outcome.WIN
    if forward is Outcome.PUSH and not copies:
        assert backward is Outcome.PUSH
    assert render_tiles(p.high + p.low + b.high + b.low)  # eight tiles, all dealt


def test_the_game_names_its_hands_from_their_tokens() -> None:
    """GameRules.describe_hand: a two-tile hand in words; None for anything else."""
    describe = game.RULES.describe_hand
    assert describe is not None
    assert describe(["6-6", "3-6"]) == "Teen wong"
    assert describe(["2-4", "1-2"]) == "Gee Joon"
    assert describe(["6-6", "3-6", "1-1"]) is None
    assert describe(["As", "Ks"]) is None
