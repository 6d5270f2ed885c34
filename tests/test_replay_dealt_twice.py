"""A round with a card dealt twice is judged as recorded (docs/rules.md 8.1): each party's
hand as it was dealt, every mispay in it flagged by its own check beside card_dealt_twice,
and not_evaluated silent; a hand that holds one card twice itself has no rank and is not
evaluated, with the reason. Replayed from a small log built without Kafka."""

from __future__ import annotations

import pytest

from replay.adjudicate import judge_document
from replay.document import DocumentError
from tests.events_factory import Table, events_of_document
from tests.test_replay_games import _replay

CLASSIC = {
    "round_id": "pg-twice", "game": "pai_gow_poker",
    "dealer": {"cards": ["Kc", "Kd", "Ah", "9s", "7h", "Qs", "3c"],
               "high": ["Kc", "Kd", "Ah", "9s", "7h"], "low": ["Qs", "3c"]},
    "seats": [{"seat": 1, "cards": ["Ah", "2d", "3d", "4d", "5d", "6d", "7d"],
               "high": ["3d", "4d", "5d", "6d", "7d"], "low": ["Ah", "2d"],
               "wagers": {"main": 1000}}],
}
"""The dealer and seat 1 both hold Ah. As recorded, seat 1's high hand (a 7-high straight
flush) beats the dealer's pair of kings and its low hand (A-2) the dealer's Q-3: the main
wager wins 1000 at even money less the 5% commission of the classic ruleset, 50: net 950."""

CARIBBEAN = {
    "round_id": "cs-twice", "game": "caribbean_stud",
    "dealer": {"cards": ["Ah", "Kd", "9c", "7s", "3s"]},
    "seats": [{"seat": 1, "cards": ["Ah", "Ad", "8c", "6d", "4h"],
               "wagers": {"ante": 1000, "raise": 2000}}],
}
"""Both hold Ah. The dealer's A-K qualifies (rule 9.1); seat 1's pair of aces beats it: the
ante wins 1000 at even money and the raise 2000 at the one-pair odds of 1 to 1."""

TILES = {
    "round_id": "pgt-twice", "game": "pai_gow_tiles",
    "dealer": {"tiles": ["6-6", "1-3", "2-4", "5-5"], "high": ["6-6", "1-3"],
               "low": ["2-4", "5-5"]},
    "seats": [{"seat": 1, "tiles": ["2-4", "3-6", "4-4", "1-1"], "high": ["4-4", "1-1"],
               "low": ["2-4", "3-6"], "wagers": {"main": 1000}}],
}
"""Tile 2-4, of which the set holds one, is dealt to the dealer and to seat 1."""

FACE_UP = {
    "round_id": "fu-twice", "game": "face_up_pai_gow",
    "dealer": {"cards": ["Kc", "Qd", "9s", "7c", "5d", "3s", "2c"],
               "high": ["Kc", "9s", "7c", "5d", "3s"], "low": ["Qd", "2c"]},
    "seats": [{"seat": 1, "cards": ["Kc", "Kh", "Th", "Jh", "Qh", "8d", "4s"],
               "high": ["Kc", "Kh", "Qh", "Jh", "Th"], "low": ["8d", "4s"],
               "wagers": {"main": 1000}}],
}
"""Kc is dealt to the dealer and to seat 1."""


def test_a_card_twice_with_an_overpay_is_flagged_by_both_and_judged(tmp_path):
    events = events_of_document(Table(), CLASSIC, settle={(1, "main"): ("win", 1000, 0)})
    table, flags = _replay(tmp_path, events)
    (judged,) = table("rounds")
    assert judged["evaluated"] is True
    assert any("card Ah dealt 2 times in the round (seat 1, dealer)" in p
               for p in judged["problems"])
    (wager,) = table("wagers")
    assert (wager["expected_outcome"], wager["expected_net_cents"],
            wager["expected_commission_cents"]) == ("win", 950, 50)
    flagged = {f["check_id"] for f in flags}
    assert {"card_dealt_twice", "overpay"} <= flagged
    assert "not_evaluated" not in flagged
    (over,) = [f for f in flags if f["check_id"] == "overpay"]
    assert (over["seat"], over["recorded_cents"], over["expected_cents"]) == (1, 1000, 950)


def test_a_caribbean_round_with_a_card_twice_settled_as_recorded_raises_only_the_repeat(
        tmp_path):
    events = events_of_document(Table(), CARIBBEAN, settle={
        (1, "ante"): ("win", 1000, 0), (1, "raise"): ("win", 2000, 0)})
    table, flags = _replay(tmp_path, events)
    (judged,) = table("rounds")
    assert judged["evaluated"] is True
    assert {f["check_id"] for f in flags} == {"card_dealt_twice"}


def test_a_tile_beyond_its_copies_across_parties_is_judged(tmp_path):
    table, flags = _replay(tmp_path, events_of_document(Table(), TILES))
    (judged,) = table("rounds")
    assert judged["evaluated"] is True
    assert any("tile 2-4 dealt 2 times in the round (seat 1, dealer)" in p
               for p in judged["problems"])
    flagged = {f["check_id"] for f in flags}
    assert "card_dealt_twice" in flagged and "not_evaluated" not in flagged


def test_a_hand_holding_one_card_twice_itself_is_not_evaluated_with_the_reason(tmp_path):
    twice = {**CARIBBEAN, "round_id": "cs-own-twice",
             "seats": [{**CARIBBEAN["seats"][0], "cards": ["Qh", "Qh", "8c", "6d", "4h"]}]}
    table, flags = _replay(tmp_path, events_of_document(Table(), twice, settle={
        (1, "ante"): ("win", 1000, 0), (1, "raise"): ("win", 2000, 0)}))
    (judged,) = table("rounds")
    assert judged["evaluated"] is False
    assert any("seat 1 holds 'Qh' twice" in p for p in judged["problems"])
    assert {"card_dealt_twice", "not_evaluated"} <= {f["check_id"] for f in flags}


@pytest.mark.parametrize(("doc", "named"), [
    (CLASSIC, r"card Ah was dealt 2 times \(dealer, seat 1\)"),
    (CARIBBEAN, r"card Ah was dealt 2 times \(dealer, seat 1\)"),
    (TILES, r"tile 2-4 is dealt 2 times \(dealer, seat 1\); the set holds 1"),
    (FACE_UP, r"card Kc dealt to dealer and seat 1"),
])
def test_a_round_document_given_by_hand_still_refuses_a_card_in_two_hands(doc, named):
    with pytest.raises(DocumentError, match=named):
        judge_document(doc)
    assert judge_document(doc, as_recorded=True)["evaluated"] is True


def _seat_holding(doc, **holding):
    return {**doc, "seats": [{**doc["seats"][0], **holding}]}


@pytest.mark.parametrize(("doc", "named"), [
    (_seat_holding(CLASSIC, cards=["Ah", "Ah", "3d", "4d", "5d", "6d", "7d"],
                   low=["Ah", "Ah"]),
     r"card Ah was dealt 3 times \(dealer, seat 1, seat 1\)"),  # the dealer holds one too
    (_seat_holding(FACE_UP, cards=["Kh", "Kh", "Th", "Jh", "Qh", "8d", "4s"],
                   high=["Kh", "Kh", "Qh", "Jh", "Th"]),
     r"seat 1\.cards repeats a card"),
    (_seat_holding(TILES, tiles=["3-6", "3-6", "4-4", "1-1"], low=["3-6", "3-6"]),
     r"tile 3-6 is dealt 2 times \(seat 1, seat 1\); the set holds 1"),
    (_seat_holding(CARIBBEAN, cards=["Qh", "Qh", "8c", "6d", "4h"]),
     r"seat 1 holds 'Qh' twice"),
])
def test_a_hand_holding_one_card_twice_is_refused_even_as_recorded(doc, named):
    """Its rank is not defined (docs/rules.md 8.1): the round is not evaluated, with this
    reason, in every game."""
    with pytest.raises(DocumentError, match=named):
        judge_document(doc, as_recorded=True)
