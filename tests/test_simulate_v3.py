"""The facts of schema id 3 in a simulated shift, read back from the events alone: every
patron's wager carries the patron's tracking id, the dealer's wager against a player banker
matches that patron's wager on the preceding dealer-banked hand wherever the patron sat, the
player banker covers the wagers against the bank (half of them co-banked), the bank passes
to the seat that banks next, every round is reshuffled (now and then the deck changed), the
dealer changes an exposed hand only before the banker's is shown; under schema id 2 none of
them is recorded."""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import pairwise

import pytest

from ingest.simulate import main, simulate_shift
from schemas import (
    BankPassed,
    HandChanged,
    RoundStarted,
    Shuffled,
    WagerPlaced,
    decode,
    encode,
)
from schemas.events import V3_TYPES
from tests.test_simulate import by_round, deviations, kinds

BANKED = ("pai_gow_poker", "pai_gow_tiles")


@pytest.fixture(scope="module")
def banked_shift():
    """Classic pai gow poker and tiles, four tables each, no faults."""
    events, labels = simulate_shift(tables=8, rounds=60, seed=21, fault_rate=0.0,
                                    games=BANKED, rich_hands=0.1)
    assert labels == []
    return events


def _tables(events):
    """Table -> its rounds' events, in the order dealt."""
    rounds = by_round(events)
    out = defaultdict(list)
    for round_id in sorted(rounds):
        out[round_id.split("-")[0]].append(rounds[round_id])
    return out


def test_every_patrons_wager_carries_a_tracking_id_that_follows_the_patron(banked_shift):
    placed = kinds(banked_shift, WagerPlaced)
    assert all((p.patron_id is None) == (p.seat is None) for p in placed)
    seats_of = defaultdict(set)
    for evs in by_round(banked_shift).values():
        at = {(p.seat, p.patron_id) for p in kinds(evs, WagerPlaced) if p.seat is not None}
        assert len({s for s, _ in at}) == len(at), "one patron per seat in a round"
        assert len({i for _, i in at}) == len(at), "one seat per patron in a round"
        for seat, patron in at:
            seats_of[patron].add(seat)
    assert any(len(seats) > 1 for seats in seats_of.values()), "a patron who moved seats"


def test_the_dealers_wager_matches_the_patrons_wager_on_the_preceding_dealer_banked_hand(
        banked_shift):
    matched = moved = unknown = 0
    for rounds in _tables(banked_shift).values():
        if kinds(rounds[0], RoundStarted)[0].game != "pai_gow_poker":
            continue
        by_patron: dict[str, int] = {}
        by_seat: dict[int, int] = {}
        for evs in rounds:
            start = kinds(evs, RoundStarted)[0]
            mains = [p for p in kinds(evs, WagerPlaced) if p.wager == "main"]
            if start.banker_seat is None:
                by_patron = {p.patron_id: p.amount_cents for p in mains if p.seat is not None}
                by_seat = {p.seat: p.amount_cents for p in mains if p.seat is not None}
                continue
            dealer = [p.amount_cents for p in mains if p.seat is None]
            # the banker's patron is known from a side wager it placed, if any
            banker = next((p.patron_id for p in kinds(evs, WagerPlaced)
                           if p.seat == start.banker_seat), None)
            if banker is None:
                unknown += 1
            elif banker in by_patron:
                assert dealer == [by_patron[banker]], evs[0].round_id
                matched += 1
                moved += by_seat.get(start.banker_seat) != by_patron[banker]
            else:
                assert dealer == [], evs[0].round_id
    assert matched >= 10 and moved >= 1 and unknown, (matched, moved, unknown)


def test_the_player_banker_covers_the_wagers_against_the_bank(banked_shift):
    covers = Counter()
    for evs in by_round(banked_shift).values():
        start = kinds(evs, RoundStarted)[0]
        if start.banker_seat is None:
            assert start.banker_cover_cents is None
            continue
        against = sum(p.amount_cents for p in kinds(evs, WagerPlaced)
                      if p.wager == "main" and p.seat != start.banker_seat)
        cover = start.banker_cover_cents
        assert cover is not None
        if start.co_bank:
            assert 2 * cover >= against, evs[0].round_id
            covers["co-bank short of the whole"] += cover < against
        else:
            assert cover >= against, evs[0].round_id
        covers[start.co_bank] += 1
    assert covers[True] and covers[False] and covers["co-bank short of the whole"]


def test_the_bank_passes_to_the_seat_that_banks_the_next_round(banked_shift):
    reasons = Counter()
    for rounds in _tables(banked_shift).values():
        for evs, nxt in pairwise(rounds):
            banker = kinds(evs, RoundStarted)[0].banker_seat
            following = kinds(nxt, RoundStarted)[0].banker_seat
            passed = kinds(evs, BankPassed)
            if following == banker:
                assert passed == [], evs[0].round_id
                continue
            assert [p.to_seat for p in passed] == [following], evs[0].round_id
            reasons[passed[0].reason] += 1
            if passed[0].reason == "cannot_cover":
                assert following is None
        assert kinds(rounds[-1], BankPassed) == [], "no round follows the shift's last"
    assert reasons["rotation"] and reasons["cannot_cover"], reasons


def test_every_round_is_reshuffled_and_now_and_then_the_deck_changed():
    events, _ = simulate_shift(tables=4, rounds=60, seed=21, fault_rate=0.0)
    decks = []
    for evs in by_round(events).values():
        shuffles = kinds(evs, Shuffled)
        assert len(shuffles) == 1
        assert (shuffles[0].kind == "deck_change") == (shuffles[0].deck_id is not None)
        decks += [s.deck_id for s in shuffles if s.deck_id]
    assert decks and len(set(decks)) == len(decks)


def test_the_dealers_changed_hand_is_the_one_settled(banked_shift):
    rounds = by_round(banked_shift)
    changed = [evs for evs in rounds.values() if kinds(evs, HandChanged)]
    assert len(changed) >= 3
    assert all(deviations(evs) == set() for evs in changed)
    # the change is to another setting than the one exposed
    for evs in changed:
        change = kinds(evs, HandChanged)[0]
        exposed = [e.payload for e in evs if type(e.payload).__name__ == "HandSet"
                   and e.payload.seat is None][-1]
        assert (change.high, change.low) != (exposed.high, exposed.low)


def test_under_schema_id_2_none_of_the_new_facts_is_recorded():
    events, labels = simulate_shift(tables=4, rounds=40, seed=21, fault_rate=0.5,
                                    vocabulary=2)
    assert labels
    assert not any(type(e.payload) in V3_TYPES for e in events)
    assert all(p.patron_id is None for p in kinds(events, WagerPlaced))
    assert all(p.banker_cover_cents is None for p in kinds(events, RoundStarted))
    assert {label.kind for label in labels}.isdisjoint({
        "reshuffle_skipped", "bank_passed_not_followed", "dealer_wager_not_preceding_patron"})
    assert all(decode(encode(e, schema_id=2)) == e for e in events)
    with pytest.raises(ValueError, match="unknown schema id 1"):
        simulate_shift(tables=1, rounds=1, seed=1, fault_rate=0.0, vocabulary=1)


def test_help_names_the_schema_id_option(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "--schema-id" in capsys.readouterr().out


def test_a_bank_passed_not_followed_names_another_banker_than_the_next_rounds():
    events, labels = simulate_shift(tables=4, rounds=40, seed=31, fault_rate=0.5,
                                    games=BANKED, faults=["bank_passed_not_followed"])
    labelled = {label.round_id for label in labels}
    assert len(labelled) >= 5
    for rounds in _tables(events).values():
        for evs, nxt in pairwise(rounds):
            passed = kinds(evs, BankPassed)
            following = kinds(nxt, RoundStarted)[0].banker_seat
            if evs[0].round_id in labelled:
                assert len(passed) == 1 and passed[0].to_seat != following
            else:
                assert [p.to_seat for p in passed] in ([], [following])


def test_a_dealer_wager_following_the_seat_is_another_patrons_preceding_wager():
    """The banker's patron (named on its side wager) moved into the seat: the dealer matched
    what the seat's earlier patron wagered on the preceding dealer-banked hand, not the
    banker patron's own wager there."""
    events, labels = simulate_shift(tables=4, rounds=60, seed=31, fault_rate=0.5,
                                    games=("pai_gow_poker",), rich_hands=0.5,
                                    faults=["dealer_wager_not_preceding_patron"])
    by_id = {label.round_id: label for label in labels}
    assert len(by_id) >= 3
    for rounds in _tables(events).values():
        preceding: list = []
        for evs in rounds:
            start = kinds(evs, RoundStarted)[0]
            placed = kinds(evs, WagerPlaced)
            if start.banker_seat is None:
                preceding = [p for p in placed if p.wager == "main"]
                continue
            label = by_id.get(evs[0].round_id)
            if label is None:
                continue
            (dealer,) = [p.amount_cents for p in placed if p.seat is None]
            (banker,) = {p.patron_id for p in placed if p.seat == start.banker_seat}
            by_seat = {p.seat: p.amount_cents for p in preceding}
            by_patron = {p.patron_id: p.amount_cents for p in preceding}
            assert dealer == by_seat[start.banker_seat] != by_patron[banker]
            assert label.amount_cents == abs(dealer - by_patron[banker])
