"""The fold and the facts of schema id 3: a changed hand counts only where pai gow poker
procedure (9) gives the dealer the right to change it; shuffles, collections and bank passes
are kept in any game; a round's vocabulary is the smallest schema id of its events."""

from __future__ import annotations

import pytest

from replay.fold import DEALER, fold
from schemas import (
    BankPassed,
    CardsDealt,
    EventCorrected,
    HandChanged,
    HandCollected,
    HandSet,
    HandsExposed,
    RoundEnded,
    RoundStarted,
    Shuffled,
    TilesDealt,
    WagerPlaced,
    WagerSettled,
)
from tests.events_factory import Table

DEALER_CARDS = "Kc Kd 9s 7h 3c Ah Qs"
SEAT_CARDS = "Jh Tc 7c 6s 3d Ks Kh"
BANKER_CARDS = "9c 9d 7d 4h 2d Ad Jd"
FOUL = (("Jh", "Tc", "7c", "6s", "3d"), ("Ks", "Kh"))
"""Seat 1's cards set foul: a jack-high five-card hand behind a pair of kings."""
RIGHT = (("Ks", "Kh", "7c", "6s", "3d"), ("Jh", "Tc"))
"""Seat 1's cards set as the rules require: the kings behind."""
DEALER_SET = (("Kc", "Kd", "9s", "7h", "3c"), ("Ah", "Qs"))
DEALER_OTHER = (("Kc", "Kd", "Ah", "Qs", "3c"), ("9s", "7h"))


def _cards(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _pairs(events):
    return [(f"position {i}", e) for i, e in enumerate(events)]


def _one(events, ids=None):
    given = _pairs(events) if ids is None else [
        (f"position {i}", e, sid) for i, (e, sid) in enumerate(zip(events, ids, strict=True))]
    (state,) = fold(given).rounds
    return state


def _deal(t: Table, round_id: str, *, banker: int | None, game: str = "pai_gow_poker"):
    """RoundStarted, seat 1's wager, every deal and every setting (seat 1 set foul)."""
    out = [t.event(round_id, RoundStarted(game=game, dealer_id="E011", banker_seat=banker)),
           t.event(round_id, WagerPlaced(seat=1, wager="main", amount_cents=2500)),
           t.event(round_id, CardsDealt(seat=1, cards=_cards(SEAT_CARDS))),
           t.event(round_id, CardsDealt(seat=None, cards=_cards(DEALER_CARDS)))]
    if banker is not None:
        out.insert(2, t.event(round_id, WagerPlaced(seat=banker, wager="main",
                                                    amount_cents=5000)))
        out.append(t.event(round_id, CardsDealt(seat=banker, cards=_cards(BANKER_CARDS))))
        out.append(t.event(round_id, HandSet(seat=banker, high=_cards("9c 9d 7d 4h 2d"),
                                             low=_cards("Ad Jd"))))
    out.append(t.event(round_id, HandSet(seat=1, high=FOUL[0], low=FOUL[1])))
    out.append(t.event(round_id, HandSet(seat=None, high=DEALER_SET[0], low=DEALER_SET[1])))
    return out


def _exposed(t: Table, round_id: str, *seats: int | None):
    return [t.event(round_id, HandsExposed(seat=s)) for s in seats]


def _change(t: Table, round_id: str, seat: int | None, setting=RIGHT):
    return t.event(round_id, HandChanged(seat=seat, high=setting[0], low=setting[1]))


def _end(t: Table, round_id: str):
    return [t.event(round_id, RoundEnded())]


# --- HandChanged: lawful -------------------------------------------------------------------


def test_a_change_of_the_dealers_exposed_hand_before_the_player_bankers_exposure_counts():
    t = Table()
    events = [*_deal(t, "R1", banker=3), *_exposed(t, "R1", None),
              _change(t, "R1", None, DEALER_OTHER), *_exposed(t, "R1", 3, 1), *_end(t, "R1")]
    state = _one(events)
    assert state.problems == ()
    assert state.hand_set(DEALER) == DEALER_OTHER
    assert state.changed == (DEALER,)
    assert state.resets == ()


def test_a_change_of_a_players_exposed_hand_before_the_player_bankers_exposure_counts():
    t = Table()
    events = [*_deal(t, "R1", banker=3), *_exposed(t, "R1", None, 1), _change(t, "R1", 1),
              *_exposed(t, "R1", 3), *_end(t, "R1")]
    state = _one(events)
    assert state.problems == ()
    assert state.hand_set(1) == RIGHT
    assert state.changed == (1,)


def test_in_a_dealer_banked_round_a_seat_exposed_and_changed_before_the_dealers_exposure_counts():
    t = Table()
    events = [*_deal(t, "R1", banker=None), *_exposed(t, "R1", 1), _change(t, "R1", 1),
              *_exposed(t, "R1", None), *_end(t, "R1")]
    state = _one(events)
    assert state.problems == ()
    assert state.hand_set(1) == RIGHT


def test_two_lawful_changes_of_one_hand_the_last_counts():
    t = Table()
    other = (("Ks", "Kh", "Jh", "Tc", "3d"), ("7c", "6s"))
    events = [*_deal(t, "R1", banker=3), *_exposed(t, "R1", None, 1), _change(t, "R1", 1),
              _change(t, "R1", 1, other), *_exposed(t, "R1", 3), *_end(t, "R1")]
    state = _one(events)
    assert state.problems == ()
    assert state.hand_set(1) == other
    assert state.changed == (1, 1)


# --- HandChanged: not counted, a problem ----------------------------------------------------


def test_a_change_after_the_player_bankers_exposure_does_not_count_and_is_a_problem():
    t = Table()
    events = [*_deal(t, "R1", banker=3), *_exposed(t, "R1", None, 3, 1), _change(t, "R1", 1),
              *_end(t, "R1")]
    state = _one(events)
    assert state.hand_set(1) == FOUL
    assert state.changed == ()
    assert state.problem_kinds == ("hand_changed_after_banker_exposed",)
    (problem,) = state.problems
    assert "seat 1's hand" in problem.detail
    assert "player banker's (seat 3)" in problem.detail
    assert "procedure (9)" in problem.detail and "the setting before it stands" in problem.detail


def test_a_change_of_the_player_bankers_own_exposed_hand_is_never_lawful():
    t = Table()
    events = [*_deal(t, "R1", banker=3), *_exposed(t, "R1", None, 3),
              _change(t, "R1", 3, (("9c", "9d", "Ad", "Jd", "2d"), ("7d", "4h"))),
              *_exposed(t, "R1", 1), *_end(t, "R1")]
    state = _one(events)
    assert state.hand_set(3) == (_cards("9c 9d 7d 4h 2d"), _cards("Ad Jd"))
    assert state.problem_kinds == ("hand_changed_after_banker_exposed",)


def test_in_a_dealer_banked_round_a_change_after_the_dealers_exposure_is_a_problem():
    t = Table()
    events = [*_deal(t, "R1", banker=None), *_exposed(t, "R1", None, 1), _change(t, "R1", 1),
              *_end(t, "R1")]
    state = _one(events)
    assert state.hand_set(1) == FOUL
    assert state.problem_kinds == ("hand_changed_after_banker_exposed",)
    assert "after the dealer's hand was exposed" in state.problems[0].detail


def test_a_change_of_the_dealers_own_hand_in_a_dealer_banked_round_is_a_problem():
    t = Table()
    events = [*_deal(t, "R1", banker=None), *_exposed(t, "R1", None),
              _change(t, "R1", None, DEALER_OTHER), *_exposed(t, "R1", 1), *_end(t, "R1")]
    state = _one(events)
    assert state.hand_set(DEALER) == DEALER_SET
    assert state.problem_kinds == ("hand_changed_after_banker_exposed",)
    assert "the dealer changed its own hand" in state.problems[0].detail


def test_a_change_of_a_hand_not_yet_exposed_does_not_count():
    t = Table()
    events = [*_deal(t, "R1", banker=3), _change(t, "R1", 1), *_exposed(t, "R1", None, 3, 1),
              *_end(t, "R1")]
    state = _one(events)
    assert state.hand_set(1) == FOUL
    assert state.problem_kinds == ("hand_changed_not_exposed",)
    assert "not yet exposed" in state.problems[0].detail


def test_a_change_of_a_seat_never_dealt_is_a_problem():
    t = Table()
    events = [*_deal(t, "R1", banker=3), *_exposed(t, "R1", None), _change(t, "R1", 5),
              *_exposed(t, "R1", 3, 1), *_end(t, "R1")]
    state = _one(events)
    assert state.hand_set(5) is None
    assert state.problem_kinds == ("hand_changed_not_exposed",)
    assert "seat 5's hand" in state.problems[0].detail
    assert "never dealt" in state.problems[0].detail


@pytest.mark.parametrize("game", ["face_up_pai_gow", "caribbean_stud"])
def test_a_change_in_a_game_without_the_dealers_right_to_change_is_a_problem(game):
    t = Table()
    events = [*_deal(t, "R1", banker=None, game=game), *_exposed(t, "R1", 1),
              _change(t, "R1", 1), *_exposed(t, "R1", None), *_end(t, "R1")]
    state = _one(events)
    assert state.hand_set(1) == FOUL
    assert state.problem_kinds == ("hand_changed_not_provided",)
    assert game.replace("_", " ") in state.problems[0].detail


def test_a_change_in_pai_gow_tiles_is_a_problem():
    t = Table()
    events = [t.event("R1", RoundStarted(game="pai_gow_tiles", dealer_id="E011")),
              t.event("R1", WagerPlaced(seat=1, wager="main", amount_cents=2500)),
              t.event("R1", TilesDealt(seat=1, tiles=("6-6", "1-1", "4-4", "1-3"))),
              t.event("R1", TilesDealt(seat=None, tiles=("5-5", "3-3", "2-2", "5-6"))),
              t.event("R1", HandSet(seat=1, high=("6-6", "1-1"), low=("4-4", "1-3"))),
              t.event("R1", HandsExposed(seat=1)),
              t.event("R1", HandChanged(seat=1, high=("6-6", "4-4"), low=("1-1", "1-3"))),
              *_end(t, "R1")]
    state = _one(events)
    assert state.hand_set(1) == (("6-6", "1-1"), ("4-4", "1-3"))
    assert state.problem_kinds == ("hand_changed_not_provided",)
    assert "pai gow tiles" in state.problems[0].detail


def test_a_setting_after_a_lawful_change_is_still_a_setting_after_exposure():
    t = Table()
    events = [*_deal(t, "R1", banker=3), *_exposed(t, "R1", None, 1), _change(t, "R1", 1),
              t.event("R1", HandSet(seat=1, high=FOUL[0], low=FOUL[1])),
              *_exposed(t, "R1", 3), *_end(t, "R1")]
    state = _one(events)
    assert state.hand_set(1) == RIGHT
    assert state.problem_kinds == ("set_after_exposed",)


# --- corrections ----------------------------------------------------------------------------


def test_a_correction_striking_an_unlawful_change_takes_its_problem_away():
    t = Table()
    events = [*_deal(t, "R1", banker=3), *_exposed(t, "R1", None, 3, 1)]
    change = _change(t, "R1", 1)
    events += [change, t.event("R1", EventCorrected(corrects=change.event_id,
                                                     reason="keyed on the wrong table")),
               *_end(t, "R1")]
    state = _one(events)
    assert state.problems == ()
    assert state.hand_set(1) == FOUL
    assert len(state.corrections) == 1


def test_a_correction_replacing_a_lawful_change_gives_the_replacements_setting():
    t = Table()
    other = (("Ks", "Kh", "Jh", "Tc", "3d"), ("7c", "6s"))
    events = [*_deal(t, "R1", banker=3), *_exposed(t, "R1", None, 1)]
    change = _change(t, "R1", 1)
    events += [change, *_exposed(t, "R1", 3),
               t.event("R1", EventCorrected(corrects=change.event_id, reason="keyed wrong",
                                            replacement=HandChanged(seat=1, high=other[0],
                                                                    low=other[1]))),
               *_end(t, "R1")]
    state = _one(events)
    assert state.problems == ()
    assert state.hand_set(1) == other


def test_a_correction_may_replace_or_strike_a_shuffle_a_collection_and_a_bank_pass():
    t = Table()
    events = [*_deal(t, "R1", banker=3), *_exposed(t, "R1", None, 3, 1)]
    collected = t.event("R1", HandCollected(seat=1))
    shuffled = t.event("R1", Shuffled())
    passed = t.event("R1", BankPassed(to_seat=4, reason="rotation"))
    events += [collected, shuffled, passed,
               t.event("R1", EventCorrected(corrects=collected.event_id, reason="wrong seat",
                                            replacement=HandCollected(seat=3))),
               t.event("R1", EventCorrected(corrects=shuffled.event_id, reason="no shuffle")),
               t.event("R1", EventCorrected(corrects=passed.event_id, reason="seat 5's turn",
                                            replacement=BankPassed(to_seat=5,
                                                                   reason="rotation"))),
               *_end(t, "R1")]
    state = _one(events)
    assert state.problems == ()
    assert len(state.corrections) == 3
    assert len(state.history) == len(events) - 3


# --- shuffles, collections, bank passes -----------------------------------------------------


@pytest.mark.parametrize("game", ["pai_gow_poker", "face_up_pai_gow", "caribbean_stud"])
def test_shuffles_collections_and_bank_passes_are_kept_in_any_game_without_a_problem(game):
    t = Table()
    events = [t.event("R1", Shuffled(kind="deck_change", deck_id="D-17")),
              *_deal(t, "R1", banker=None, game=game), *_exposed(t, "R1", None, 1),
              t.event("R1", WagerSettled(seat=1, wager="main", outcome="loss",
                                         net_cents=-2500, commission_cents=0)),
              t.event("R1", HandCollected(seat=1)), t.event("R1", HandCollected(seat=None)),
              t.event("R1", Shuffled()), t.event("R1", BankPassed(to_seat=2, reason="rotation")),
              *_end(t, "R1")]
    # a shuffle before RoundStarted is an event before the start, as any other event
    state = _one(events[1:])
    assert state.problems == ()
    assert [e.kind for e in state.history[-5:]] == [
        "HandCollected", "HandCollected", "Shuffled", "BankPassed", "RoundEnded"]


def test_a_hand_collected_from_a_party_never_dealt_is_kept_as_a_setting_would_be():
    """Like a HandSet or a HandsExposed, a collection is not checked against the deal: a
    party never dealt is the judge's question, a deal lost on the way the log's gap."""
    t = Table()
    events = [*_deal(t, "R1", banker=None), *_exposed(t, "R1", None, 1),
              t.event("R1", HandCollected(seat=6)), *_end(t, "R1")]
    state = _one(events)
    assert state.problems == ()
    assert state.history[-2].payload == HandCollected(seat=6)


def test_the_player_bankers_cover_and_the_patrons_tracking_ids_are_kept():
    t = Table()
    events = [t.event("R1", RoundStarted(game="pai_gow_poker", dealer_id="E011", banker_seat=3,
                                         banker_cover_cents=40_000)),
              t.event("R1", WagerPlaced(seat=1, wager="main", amount_cents=2500,
                                        patron_id="P-000417")),
              t.event("R1", WagerPlaced(seat=2, wager="main", amount_cents=1000)),
              *_end(t, "R1")]
    state = _one(events)
    assert state.banker_cover_cents == 40_000
    assert state.patron(1, "main") == "P-000417"
    assert state.patron(2, "main") is None
    assert state.wagers == ((1, "main", 2500), (2, "main", 1000))


# --- vocabulary -----------------------------------------------------------------------------


def _simple(t: Table, round_id: str = "R1"):
    return [*_deal(t, round_id, banker=None), *_exposed(t, round_id, None, 1),
            *_end(t, round_id)]


def test_a_round_folded_from_events_without_their_schema_ids_has_no_vocabulary():
    assert _one(_simple(Table())).vocabulary is None


def test_a_round_whose_events_were_all_written_under_schema_id_2_has_vocabulary_2():
    events = _simple(Table())
    assert _one(events, [2] * len(events)).vocabulary == 2


def test_a_round_whose_events_were_all_written_under_schema_id_3_has_vocabulary_3():
    events = _simple(Table())
    assert _one(events, [3] * len(events)).vocabulary == 3


def test_a_round_of_mixed_schema_ids_has_the_smallest():
    events = _simple(Table())
    ids = [3] * len(events)
    ids[-1] = 2  # its RoundEnded written by an older device
    assert _one(events, ids).vocabulary == 2
    ids = [1] + [3] * (len(events) - 1)
    assert _one(events, ids).vocabulary == 1


def test_one_event_without_a_schema_id_makes_the_vocabulary_unknown():
    events = _simple(Table())
    ids: list[int | None] = [3] * len(events)
    ids[3] = None
    assert _one(events, ids).vocabulary is None


def test_a_correction_counts_in_the_rounds_vocabulary():
    t = Table()
    events = _simple(t)[:-1]
    wager = events[1]
    events += [t.event("R1", EventCorrected(corrects=wager.event_id, reason="keyed wrong",
                                            replacement=WagerPlaced(seat=1, wager="main",
                                                                    amount_cents=2000))),
               *_end(t, "R1")]
    ids = [3] * len(events)
    ids[-2] = 2
    state = _one(events, ids)
    assert state.wager(1, "main") == 2000
    assert state.vocabulary == 2


def test_a_repeated_event_does_not_count_in_the_vocabulary():
    events = _simple(Table())
    given = [(f"position {i}", e, 3) for i, e in enumerate(events)]
    given.append(("position 99", events[1], 2))  # the same event again, kept once
    replayed = fold(given)
    (state,) = replayed.rounds
    assert [f.kind for f in replayed.findings] == ["duplicate_event"]
    assert state.vocabulary == 3


def test_two_rounds_have_each_their_own_vocabulary():
    t = Table()
    first, second = _simple(t, "R1"), _simple(t, "R2")
    given = [*((f"p{i}", e, 2) for i, e in enumerate(first)),
             *((f"q{i}", e, 3) for i, e in enumerate(second))]
    assert {s.round_id: s.vocabulary for s in fold(given).rounds} == {"R1": 2, "R2": 3}
