"""A player banker's account recorded under another seat than the one that banks the round
(BankerSettled.seat against RoundStarted.banker_seat): the fold's problem
banker_settled_other_seat, flagged by irregular_round, through replay of a small hand-built
log; the traps: the same account recorded to the banker, and the seat put right by a
correction."""

from __future__ import annotations

from dataclasses import replace

import pytest

from schemas import BankerSettled, EventCorrected, RoundEnded
from tests.events_factory import Table, events_of_document
from tests.test_replay_games import _replay

CO_BANK = {"round_id": "B1", "game": "pai_gow_poker", "banker": {"seat": 3, "co_bank": True},
           "dealer": {"cards": ["Kc", "Kd", "9s", "7h", "3c", "Ah", "Qs"],
                      "high": ["Kc", "Kd", "9s", "7h", "3c"], "low": ["Ah", "Qs"],
                      "wager": 1000},
           "seats": [{"seat": 1, "cards": ["5s", "5h", "5d", "Tc", "2c", "As", "Kh"],
                      "high": ["5s", "5h", "5d", "Tc", "2c"], "low": ["As", "Kh"],
                      "wagers": {"main": 2500}},
                     {"seat": 3, "cards": ["Jc", "Jd", "8c", "4h", "2h", "8s", "6d"],
                      "high": ["Jc", "Jd", "8c", "4h", "2h"], "low": ["8s", "6d"],
                      "wagers": {"main": 4000}}]}
"""Seat 3 co-banks; seat 1 wins 2375, the dealer wins its 1000 from the bank, and the
banker's half of the gross -3500 is -1750 (README, round r-18)."""
SETTLE = {(1, "main"): ("win", 2375, 125), (None, "main"): ("win", 1000, 0)}


def _round(table, round_id, *, seat, correct_to=None):
    events = events_of_document(table, {**CO_BANK, "round_id": round_id}, settle=SETTLE,
                                banker=(-1750, 0))
    at = next(i for i, e in enumerate(events) if isinstance(e.payload, BankerSettled))
    events[at] = replace(events[at], payload=replace(events[at].payload, seat=seat))
    if correct_to is not None:
        end = events.pop()
        assert isinstance(end.payload, RoundEnded)
        events.append(table.event(round_id, EventCorrected(
            corrects=events[at].event_id, reason="banker keyed at the wrong seat",
            replacement=BankerSettled(seat=correct_to, net_cents=-1750, commission_cents=0)),
            seq=end.table_seq))
        events.append(table.event(round_id, RoundEnded()))
    return events


@pytest.fixture
def replayed(tmp_path):
    table = Table()
    return _replay(tmp_path, [*_round(table, "B1", seat=4),
                              *_round(table, "B2", seat=3),
                              *_round(table, "B3", seat=4, correct_to=3)])


def test_an_account_recorded_to_another_seat_than_the_banker_is_an_irregular_round(replayed):
    table, flags = replayed
    rounds = {r["round_id"]: r for r in table("rounds")}
    assert [rounds[r]["problem_kinds"] for r in ("B1", "B2", "B3")] == [
        ["banker_settled_other_seat"], [], []]
    assert rounds["B1"]["evaluated"]
    assert rounds["B1"]["problems"] == [  # one problem, its "; " within it
        "the banker's account recorded for seat 4, but seat 3 banks the round (table_seq "
        f"{_seq(table, 'B1')}); judged as seat 3's account"]
    rule = {(f["round_id"], f["check_id"]) for f in flags if f["kind"] == "rule"}
    assert rule == {("B1", "irregular_round")}


def _seq(table, round_id):
    (row,) = [t for t in table("timeline") if t["round_id"] == round_id
              and t["event"] == "banker settled"]
    return row["table_seq"]
