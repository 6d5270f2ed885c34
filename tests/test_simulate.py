"""The table simulator: deterministic, and its labels are exactly the recorded deviations."""

from __future__ import annotations

from collections import Counter

from ingest.simulate import simulate_shift
from replay.cards import parse_cards
from replay.games.pai_gow_poker import adjudicate
from replay.notation import HandHolding, PaiGowRound, SeatHolding
from replay.rulesets import default_ruleset
from schemas import CardsDealt, HandSet, WagerPlaced, WagerSettled, decode, encode


def test_same_seed_same_events_byte_for_byte():
    a, fa = simulate_shift(tables=2, rounds=5, seed=3, fault_rate=0.3)
    b, fb = simulate_shift(tables=2, rounds=5, seed=3, fault_rate=0.3)
    c, _ = simulate_shift(tables=2, rounds=5, seed=4, fault_rate=0.3)
    assert [encode(e) for e in a] == [encode(e) for e in b]
    assert fa == fb
    assert [e.event_id for e in a] != [e.event_id for e in c]
    assert all(decode(encode(e)) == e for e in a)


def test_each_table_is_ordered_and_gapless():
    events, _ = simulate_shift(tables=3, rounds=4, seed=9, fault_rate=0.0)
    for table in {e.table_id for e in events}:
        seqs = [e.table_seq for e in events if e.table_id == table]
        assert seqs == list(range(1, len(seqs) + 1))
    assert [e.occurred_at_us for e in events] == sorted(e.occurred_at_us for e in events)


def test_deals_come_from_one_53_card_deck_and_1_to_6_players():
    events, _ = simulate_shift(tables=2, rounds=30, seed=5, fault_rate=0.0)
    by_round: dict[str, list] = {}
    for e in events:
        by_round.setdefault(e.round_id, []).append(e)
    players = Counter()
    for evs in by_round.values():
        dealt = [c for e in evs if isinstance(e.payload, CardsDealt) for c in e.payload.cards]
        assert len(dealt) == len(set(dealt))
        seats = {e.payload.seat for e in evs if isinstance(e.payload, WagerPlaced)}
        assert 1 <= len(seats) <= 6
        players[len(seats)] += 1
        for e in evs:
            if isinstance(e.payload, HandSet):
                hand = next(x.payload.cards for x in evs if isinstance(x.payload, CardsDealt)
                            and x.payload.seat == e.payload.seat)
                assert sorted(e.payload.high + e.payload.low) == sorted(hand)
    assert len(players) >= 4, "player counts should vary"


def _judge_independently(evs):
    """Re-judge one simulated round from its events (not from the simulator's internals)."""
    dealt = {e.payload.seat: e.payload.cards for e in evs if isinstance(e.payload, CardsDealt)}
    sets = {e.payload.seat: (e.payload.high, e.payload.low) for e in evs
            if isinstance(e.payload, HandSet)}
    wagers = {e.payload.seat: e.payload.amount_cents for e in evs
              if isinstance(e.payload, WagerPlaced)}

    def cards(x):
        return parse_cards(" ".join(x))

    rnd = PaiGowRound(
        round_id=evs[0].round_id, game="pai_gow_poker",
        dealer=HandHolding(cards=cards(dealt[None]), high=cards(sets[None][0]),
                           low=cards(sets[None][1])),
        seats=tuple(SeatHolding(seat=s, cards=cards(dealt[s]), high=cards(sets[s][0]),
                                low=cards(sets[s][1]), wagers={"main": wagers[s]})
                    for s in sorted(wagers)))
    result = adjudicate(rnd, default_ruleset("pai_gow_poker"))
    return {r.seat: r.main.net_cents for r in result.seats}


def test_labels_are_exactly_the_seats_whose_recorded_net_is_wrong():
    events, faults = simulate_shift(tables=3, rounds=20, seed=21, fault_rate=0.25)
    assert len(faults) >= 5
    by_round: dict[str, list] = {}
    for e in events:
        by_round.setdefault(e.round_id, []).append(e)
    deviations = set()
    for round_id, evs in by_round.items():
        expected = _judge_independently(evs)
        for e in evs:
            if not isinstance(e.payload, WagerSettled):
                continue
            difference = e.payload.net_cents - expected[e.payload.seat]
            if difference:
                deviations.add((round_id, e.payload.seat, difference))
    labelled = {(f.round_id, f.seat, f.amount if f.fault == "overpay" else -f.amount)
                for f in faults}
    assert deviations == labelled
    assert {f.fault for f in faults} == {"overpay", "underpay"}
