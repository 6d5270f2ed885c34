"""Replay's fold: what happened is kept; what did not fit becomes a problem or finding."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.fold import DEALER, apply, fold
from schemas import (
    CardsDealt,
    EventCorrected,
    HandSet,
    HandsExposed,
    RoundStarted,
    TilesDealt,
    WagerPlaced,
    WagerSettled,
)
from tests.events_factory import Table

DEALER_HAND = ("As Ks Qh 9d 5c", "8s 2h")
SEAT_HAND = ("Kd Kh 7c 6s 3d", "Jh Tc")


def _round(table, round_id="T01-000001", **seat_extra):
    return table.round(round_id, dealer=DEALER_HAND,
                       seats={2: {"main": 2500, "hand": SEAT_HAND,
                                  "settled": ("loss", -2500, 0), **seat_extra}})


def _cards(text):
    return tuple(text.split(" "))


def _texts(state):
    return tuple(p.detail for p in state.problems)


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
               and "past-posting" in p for p in _texts(state))
    assert "past_posting" in state.problem_kinds


def test_settlement_for_a_round_that_never_started():
    table = Table()
    event = table.event("T01-000009", WagerSettled(seat=1, wager="main", outcome="win",
                                                   net_cents=950, commission_cents=50))
    state = apply(None, event)
    assert _texts(state)[0] == "WagerSettled before RoundStarted (table_seq 1)"
    assert "seat 1 main settled but never placed (table_seq 1)" in _texts(state)
    assert state.problem_kinds == ("event_before_start", "settled_not_placed")


def test_cards_dealt_twice_and_started_twice_are_problems():
    table = Table()
    s = apply(None, table.event("R", RoundStarted(game="pai_gow_poker", dealer_id="E1")))
    s = apply(s, table.event("R", CardsDealt(seat=1, cards=("As",))))
    s = apply(s, table.event("R", CardsDealt(seat=1, cards=("Kd",))))
    s = apply(s, table.event("R", RoundStarted(game="pai_gow_poker", dealer_id="E1")))
    assert _texts(s) == ("seat 1 dealt cards twice (table_seq 3)",
                          "RoundStarted again at table_seq 4")
    assert s.cards(1) == ("As",)


def test_a_card_in_two_hands_or_a_tile_beyond_its_copies_is_dealt_twice():
    """One deck: a card once in a round (to two parties, or twice in one deal, is dealt
    twice). The tile set holds the 11 doubled faces twice (docs/rules.md 3.2): a doubled
    face twice is lawful, a third time or a single face twice is not."""
    table = Table()
    s = apply(None, table.event("R", RoundStarted(game="pai_gow_poker", dealer_id="E1")))
    s = apply(s, table.event("R", CardsDealt(seat=None, cards=("As", "Kd"))))
    s = apply(s, table.event("R", CardsDealt(seat=2, cards=("Qc", "As", "Qc"))))
    assert _texts(s) == (  # in the order of the deal
        "card Qc dealt 2 times in the round (seat 2, seat 2) at table_seq 3",
        "card As dealt 2 times in the round (dealer, seat 2) at table_seq 3")
    assert s.problem_kinds == ("dealt_twice", "dealt_twice")
    tiles = Table()
    t = apply(None, tiles.event("R", RoundStarted(game="pai_gow_tiles", dealer_id="E1")))
    t = apply(t, tiles.event("R", TilesDealt(seat=None, tiles=("6-6", "1-3", "2-4", "5-5"))))
    t = apply(t, tiles.event("R", TilesDealt(seat=1, tiles=("6-6", "5-5", "3-6", "4-4"))))
    assert t.problems == ()  # 6-6 and 5-5 twice each: the set holds two of each
    t = apply(t, tiles.event("R", TilesDealt(seat=2, tiles=("6-6", "2-4", "1-2", "2-2"))))
    assert _texts(t) == (
        "tile 6-6 dealt 3 times in the round (dealer, seat 1, seat 2) at table_seq 4; the set "
        "holds 2",
        "tile 2-4 dealt 2 times in the round (dealer, seat 2) at table_seq 4")


def test_repeated_event_is_kept_once_and_reported():
    events = _round(Table())
    replayed = fold(_pairs([*events[:3], events[2], *events[3:]]))
    assert replayed.rounds[0].problems == ()
    assert replayed.rounds[0].events == len(events)
    assert tuple(map(str, replayed.findings)) == (
        f"position 3: event {events[2].event_id} repeated; kept once",)
    assert replayed.findings[0].kind == "duplicate_event"


def test_same_event_id_with_another_content_is_a_conflicting_duplicate():
    events = _round(Table())
    forged = dataclasses.replace(events[2], payload=WagerPlaced(seat=2, wager="main",
                                                                amount_cents=99_999))
    replayed = fold(_pairs([*events[:3], forged, *events[3:]]))
    assert [f.kind for f in replayed.findings] == ["conflicting_duplicate_event"]
    assert replayed.rounds[0].wager(2, "main") == 2500


def test_gap_in_a_tables_sequence_is_a_finding():
    events = _round(Table())
    replayed = fold(_pairs([*events[:4], *events[5:]]))
    assert tuple(map(str, replayed.findings)) == (
        "position 4: table T01 sequence gap: 6 after 4",)
    assert replayed.findings[0].kind == "sequence_gap"


def test_procedure_9_a_reset_before_exposure_counts_and_is_no_irregularity():
    """Pai gow poker procedure (9): a hand may be changed until it is exposed; the last
    setting before exposure counts."""
    table = Table()
    s = apply(None, table.event("R", RoundStarted(game="pai_gow_poker", dealer_id="E1")))
    s = apply(s, table.event("R", HandSet(seat=None, high=_cards("As Ks Qh 9d 5c"),
                                         low=("8s", "2h"))))
    s = apply(s, table.event("R", HandSet(seat=None, high=_cards("As Ks Qh 9d 8s"),
                                         low=("5c", "2h"))))
    assert s.problems == ()
    assert s.hand_set(DEALER) == (_cards("As Ks Qh 9d 8s"), ("5c", "2h"))
    assert s.resets == (DEALER,)


def test_688a_7_b_3_a_set_after_exposure_is_an_irregularity_and_the_exposed_setting_stands():
    table = Table()
    s = apply(None, table.event("R", RoundStarted(game="pai_gow_poker", dealer_id="E1")))
    s = apply(s, table.event("R", HandSet(seat=2, high=_cards("As Ks Qh 9d 5c"),
                                         low=("8s", "2h"))))
    s = apply(s, table.event("R", HandsExposed(seat=2)))
    s = apply(s, table.event("R", HandSet(seat=2, high=_cards("As Ks Qh 9d 8s"),
                                         low=("5c", "2h"))))
    assert s.problem_kinds == ("set_after_exposed",)
    assert s.hand_set(2) == (_cards("As Ks Qh 9d 5c"), ("8s", "2h"))


def test_a_caribbean_raise_after_the_deal_is_not_past_posting_but_an_ante_is():
    table = Table()
    s = apply(None, table.event("R", RoundStarted(game="caribbean_stud", dealer_id="E1")))
    s = apply(s, table.event("R", CardsDealt(seat=1, cards=("As", "Kd", "9c", "5s", "2d"))))
    s = apply(s, table.event("R", WagerPlaced(seat=1, wager="raise", amount_cents=2000)))
    assert s.problems == ()
    s = apply(s, table.event("R", WagerPlaced(seat=1, wager="ante", amount_cents=1000)))
    assert s.problem_kinds == ("past_posting",)


def test_a_correction_replaces_the_settlement_it_names_and_is_kept():
    table = Table()
    events = _round(table)
    settled = next(e for e in events if e.kind == "WagerSettled")
    fix = table.event("T01-000001", EventCorrected(
        corrects=settled.event_id, reason="keyed the wrong amount",
        replacement=WagerSettled(seat=2, wager="main", outcome="loss", net_cents=-2400,
                                 commission_cents=0)))
    (state,) = fold(_pairs([*events, fix])).rounds
    assert state.settlement(2, "main").net_cents == -2400
    assert len(state.corrections) == 1 and state.problems == ()
    strike = table.event("T01-000001", EventCorrected(corrects=settled.event_id,
                                                      reason="entered in error"))
    (state,) = fold(_pairs([*events, strike])).rounds
    assert state.settlement(2, "main") is None


def test_a_correction_of_an_event_the_round_does_not_hold_is_a_problem():
    table = Table()
    events = _round(table)
    fix = table.event("T01-000001", EventCorrected(
        corrects="00000000-0000-4000-8000-000000000000", reason="?"))
    (state,) = fold(_pairs([*events, fix])).rounds
    assert "correction_of_unknown_event" in state.problem_kinds


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


def test_a_round_without_its_start_and_a_round_without_its_end_are_problems_at_the_end():
    """What only the end of the log tells: no RoundStarted ever came, or no RoundEnded."""
    table = Table()
    first = _round(table, "T01-000001")
    second = _round(table, "T01-000002")
    third = _round(table, "T01-000003")
    replayed = fold(_pairs([*first[1:], *second[:-1], *third]))
    by_id = {s.round_id: s for s in replayed.rounds}
    assert by_id["T01-000001"].problem_kinds == ("event_before_start", "never_started")
    assert _texts(by_id["T01-000001"])[-1] == (
        f"the log holds {len(first) - 1} event(s) of this round (table_seq 2 to "
        f"{len(first)}) but no RoundStarted")
    assert by_id["T01-000002"].problem_kinds == ("not_ended",)
    assert "no RoundEnded in the log (last event at table_seq" in _texts(by_id["T01-000002"])[0]
    assert by_id["T01-000003"].problems == ()
    assert [f.kind for f in replayed.findings] == ["sequence_gap"]  # the end of T01-000002


def test_apply_alone_does_not_judge_the_end_of_the_log():
    """A round folded event by event is not yet missing anything: only fold, which sees the
    whole log, says a round never ended."""
    s = apply(None, Table().event("R", RoundStarted(game="pai_gow_poker", dealer_id="E1")))
    assert s.problems == () and not s.ended
    (folded,) = fold([("p0", Table().event("R", RoundStarted(game="pai_gow_poker",
                                                              dealer_id="E1")))]).rounds
    assert folded.problem_kinds == ("not_ended",)
