"""Replay's fold: what happened is kept; what did not fit becomes a problem or finding."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.fold import DEALER, apply, fold
from schemas import CardsDealt, RoundStarted, WagerPlaced, WagerSettled
from tests.events_factory import Table

DEALER_HAND = ("As Ks Qh 9d 5c", "8s 2h")
SEAT_HAND = ("Kd Kh 7c 6s 3d", "Jh Tc")


def _round(table, round_id="T01-000001", **seat_extra):
    return table.round(round_id, dealer=DEALER_HAND,
                       seats={2: {"main": 2500, "hand": SEAT_HAND,
                                  "settled": ("loss", -2500, 0), **seat_extra}})


def _pairs(events):
    return [(f"position {i}", e) for i, e in enumerate(events)]


def test_a_complete_round_folds_to_its_facts():
    replayed = fold(_pairs(_round(Table())))
    (state,) = replayed.rounds
    assert replayed.findings == ()
    assert state.problems == ()
    assert state.game == "pai_gow_poker" and state.ended
    assert state.seats == (2,)
    assert state.cards(DEALER) == tuple(["As", "Ks", "Qh", "9d", "5c", "8s", "2h"])
    assert state.hand_set(2) == (tuple(SEAT_HAND[0].split()), tuple(SEAT_HAND[1].split()))
    assert state.wager(2, "main") == 2500
    settled = state.settlement(2, "main")
    assert settled is not None and settled.net_cents == -2500


def test_wager_after_the_deal_is_past_posting():
    table = Table()
    events = _round(table)
    late = table.event("T01-000001", WagerPlaced(seat=5, wager="main", amount_cents=10000))
    events.insert(5, late)
    (state,) = fold(_pairs(events)).rounds
    assert any("seat 5 placed main 10000 after the cards were dealt" in p
               and "past-posting" in p for p in state.problems)


def test_settlement_for_a_round_that_never_started():
    table = Table()
    event = table.event("T01-000009", WagerSettled(seat=1, wager="main", outcome="win",
                                                   net_cents=950, commission_cents=50))
    state = apply(None, event)
    assert state.problems[0] == "WagerSettled before RoundStarted (table_seq 1)"
    assert "seat 1 main settled but never placed" in state.problems


def test_cards_dealt_twice_and_started_twice_are_problems():
    table = Table()
    s = apply(None, table.event("R", RoundStarted(game="pai_gow_poker", dealer_id="E1")))
    s = apply(s, table.event("R", CardsDealt(seat=1, cards=("As",))))
    s = apply(s, table.event("R", CardsDealt(seat=1, cards=("Kd",))))
    s = apply(s, table.event("R", RoundStarted(game="pai_gow_poker", dealer_id="E1")))
    assert s.problems == ("seat 1 dealt cards twice (table_seq 3)",
                          "RoundStarted again at table_seq 4")
    assert s.cards(1) == ("As",)


def test_repeated_event_is_kept_once_and_reported():
    events = _round(Table())
    replayed = fold(_pairs([*events[:3], events[2], *events[3:]]))
    assert replayed.rounds[0].problems == ()
    assert replayed.rounds[0].events == len(events)
    assert replayed.findings == (f"position 3: event {events[2].event_id} repeated; kept once",)


def test_gap_in_a_tables_sequence_is_a_finding():
    events = _round(Table())
    replayed = fold(_pairs([*events[:4], *events[5:]]))
    assert replayed.findings == ("position 4: table T01 sequence gap: 6 after 4",)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_fold_is_insensitive_to_how_tables_interleave(seed):
    """Each table's events stay in order; how tables interleave must not change any round."""
    a = _round(Table("T01"), "T01-000001")
    b = _round(Table("T02"), "T02-000001", settled=("win", 2375, 125))
    rng = random.Random(seed)
    merged, ia, ib = [], 0, 0
    while ia < len(a) or ib < len(b):
        if ib >= len(b) or (ia < len(a) and rng.random() < 0.5):
            merged.append(a[ia])
            ia += 1
        else:
            merged.append(b[ib])
            ib += 1
    baseline = {s.round_id: s for s in fold(_pairs(a + b)).rounds}
    shuffled = {s.round_id: s for s in fold(_pairs(merged)).rounds}
    assert shuffled == baseline
