"""Jackpots judged on the hand the engine judged from the seat's cards, not on the class the
table declared: jackpot_hand_declared and award_from_inventory on a tiny hand-built table
(exact flagged ids and the traps: a declaration equal to the judged class, a winner never
declared, an award paid from the meter), and through replay of a small log in which a
device misnames a natural seven-card straight flush and pays 100% of the meter from the
table inventory."""

from __future__ import annotations

import pytest

from replay.run import TABLES
from schemas import JackpotHit, JackpotVerified, RoundEnded
from tests.events_factory import Table, events_of_document
from tests.test_checks import _round
from tests.test_checks_jackpots_envy import STEPS, _write
from tests.test_replay_games import _replay


def _jackpot(round_id, seat, hand, judged, *, known, meter=None, paid_from="meter",
             award=5_000_000):
    return {"round_id": round_id, "table_id": "T01", "game": "face_up_pai_gow", "seat": seat,
            "hand": hand, "judged_hand": judged, "hand_known": known,
            "progressive_meter_cents": 5_000_000, "recorded_award_cents": award,
            "expected_net_cents": award, "award_from_meter": meter, **STEPS,
            "paid_from": paid_from}


@pytest.fixture
def flags(tmp_path):
    jackpots = [
        # trap: declared as judged, a fixed award paid from the table inventory
        _jackpot("H1", 1, "royal_flush", "royal_flush", known=True, meter=False,
                 paid_from="table_inventory", award=25_000),
        # a name the paytable does not know, for the 100%-of-meter class, paid from the rack
        _jackpot("H2", 1, "seven_card_straight_flush", "natural_seven_card_straight_flush",
                 known=False, meter=True, paid_from="table_inventory"),
        # a known class, but the cards make three of a kind, which wins nothing
        _jackpot("H3", 2, "full_house", "three_of_a_kind", known=True, award=500),
        # declared as judged, but the class is no line of the paytable
        _jackpot("H4", 1, "flush", "flush", known=False, award=500),
        # trap: a winner the table never declared is not a declaration
        _jackpot("H5", 3, None, "royal_flush", known=None, meter=False, award=None),
        # the seat's cards make no class (less than a straight), yet a royal was declared
        _jackpot("H6", 1, "royal_flush", None, known=True, award=25_000),
        # trap: a round not judged (the seat's cards lost): not_evaluated's, not this check's
        _jackpot("H8", 1, "royal_flush", None, known=True, award=25_000),
        # but a name the paytable does not know is known to be wrong, judged or not
        _jackpot("H9", 1, "royal", None, known=False, award=25_000),
        # trap: right in every way, paid from the meter
        _jackpot("H7", 1, "natural_seven_card_straight_flush",
                 "natural_seven_card_straight_flush", known=True, meter=True),
    ]
    rounds = [_round(r) for r in ("H1", "H2", "H3", "H4", "H5", "H6", "H7")]
    rounds += [_round(r, evaluated=False, problems=["seat 1 has no 'cards'"])
               for r in ("H8", "H9")]
    return _write(tmp_path, {"rounds": rounds, "jackpots": jackpots})


def _ids(flags, check_id):
    return [(f["round_id"], f["seat"]) for f in flags if f["check_id"] == check_id]


def _detail(flags, check_id, round_id):
    (found,) = [f["detail"] for f in flags
                if (f["check_id"], f["round_id"]) == (check_id, round_id)]
    return found


def test_the_jackpots_table_carries_the_judged_class_beside_the_declared_one():
    names = TABLES["jackpots"].names
    assert names[names.index("hand"):names.index("hand") + 3] == [
        "hand", "judged_hand", "hand_known"]


def test_a_declared_class_unknown_or_other_than_the_judged_one_is_flagged(flags):
    assert _ids(flags, "jackpot_hand_declared") == [
        ("H2", 1), ("H3", 2), ("H4", 1), ("H6", 1), ("H9", 1)]
    assert _detail(flags, "jackpot_hand_declared", "H2") == (
        "seat 1: jackpot declared as seven_card_straight_flush, not a class of the posted "
        "progressive paytable; the cards make natural_seven_card_straight_flush")
    assert _detail(flags, "jackpot_hand_declared", "H3") == (
        "seat 2: jackpot declared as full_house; the cards make three_of_a_kind, which wins "
        "no progressive award")
    assert _detail(flags, "jackpot_hand_declared", "H6") == (
        "seat 1: jackpot declared as royal_flush; the cards make no class of the game")


def test_award_from_inventory_reads_the_judged_class(flags):
    assert _ids(flags, "award_from_inventory") == [("H2", 1)]
    assert _detail(flags, "award_from_inventory", "H2") == (
        "seat 1 natural_seven_card_straight_flush: a percentage-of-meter award of 5000000 "
        "cents paid from the table inventory (declared seven_card_straight_flush)")


# Through replay -----------------------------------------------------------------------------

STRAIGHT_FLUSH_ROUND = {
    "round_id": "fu-sf7", "game": "face_up_pai_gow", "progressive_meter": 5_000_000,
    "dealer": {"cards": ["Kc", "Qd", "9s", "7c", "5d", "3s", "2c"],
               "high": ["Kc", "9s", "7c", "5d", "3s"], "low": ["Qd", "2c"]},
    "seats": [{"seat": 1, "cards": ["8h", "9h", "Th", "Jh", "Qh", "Kh", "Ah"],
               "high": ["Qh", "Jh", "Th", "9h", "8h"], "low": ["Ah", "Kh"],
               "wagers": {"main": 1000, "progressive": 100}}],
}
"""Seat 1 holds 8h to Ah: a natural seven-card straight flush, 100% of the meter on the
shipped Face Up progressive paytable (10,000 basis points of 5,000,000 cents = 5,000,000).
Its high hand (Q-high straight flush) beats the dealer's king-high and its low (A-K) the
dealer's Q-2: the Face Up wager wins 1,000 at even money, no commission in the shipped
ruleset."""


def test_a_misnamed_natural_straight_flush_paid_from_the_rack_is_flagged_twice(tmp_path):
    t = Table()
    events = events_of_document(t, STRAIGHT_FLUSH_ROUND, settle={
        (1, "main"): ("win", 1000, 0), (1, "progressive"): ("win", 5_000_000, 0)})
    end = events.pop()
    assert isinstance(end.payload, RoundEnded)
    rid = "fu-sf7"
    events.append(t.event(rid, JackpotHit(seat=1, hand="seven_card_straight_flush",
                                          award_cents=5_000_000)))
    for step in ("hand_verified", "light_illuminated", "validated", "paid", "documented"):
        events.append(t.event(rid, JackpotVerified(
            seat=1, step=step, employee_id="F011", role="floorperson",
            paid_from="table_inventory" if step == "paid" else None)))
    events.append(t.event(rid, RoundEnded()))
    table, flags = _replay(tmp_path, events)
    (row,) = table("jackpots")
    assert (row["hand"], row["judged_hand"], row["hand_known"], row["award_from_meter"]) == (
        "seven_card_straight_flush", "natural_seven_card_straight_flush", False, True)
    (judged,) = table("rounds")
    assert judged["evaluated"] is True
    flagged = {(f["check_id"], f["seat"]) for f in flags}
    assert ("award_from_inventory", 1) in flagged
    assert ("jackpot_hand_declared", 1) in flagged
    assert not {c for c, _ in flagged} & {"overpay", "underpay", "progressive_not_qualifying",
                                          "not_evaluated"}
