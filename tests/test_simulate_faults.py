"""Every fault kind of the simulator: injected where it can strike, labelled, and exactly the
deviation its label says (checked from the events, rebuilt and judged by the test's own fold
in tests/test_simulate.py); every round without a label is clean."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from ingest.simulate import FAULT_KINDS, default_seat_order, simulate_shift, with_layouts
from replay.adjudicate import judge_document
from replay.document import DocumentError
from replay.tiles import parse_tile
from schemas import (
    BankPassed,
    CardsDealt,
    EnvyBonusPaid,
    HandChanged,
    HandCollected,
    HandSet,
    HandsExposed,
    JackpotHit,
    JackpotVerified,
    RoundEvent,
    RoundStarted,
    Shuffled,
    TilesDealt,
    WagerPlaced,
    WagerSettled,
)
from tests.test_simulate import by_round, deviations, kinds, round_document

SIGNED = {"overpay": 1, "underpay": -1, "paid_loser": 1, "collected_winner": -1,
          "commission_on_push_or_loss": -1, "foul_paid": 1}
# ace_high_mispaid goes either way (a loser paid, a winner collected): _settlement checks it
"""Settlement faults whose recorded net differs from the right one in a known direction."""


def _clean(evs: list[RoundEvent]) -> bool:
    seqs = [e.table_seq for e in evs]
    return (deviations(evs) == set() and len({e.event_id for e in evs}) == len(evs)
            and seqs == list(range(seqs[0], seqs[0] + len(seqs))) and _v3_lawful(evs))


def _v3_lawful(evs: list[RoundEvent]) -> bool:
    """The facts of schema id 3 within the round as the rules want them: every hand collected
    after the last settlement (its optional wagers, jackpot and Envy Bonuses paid), then the
    reshuffle; a dealer's change of its exposed hand only before the player banker's hand is
    shown, and no player setting again after that; a player banker's cover at least the
    wagers against the bank (half co-banked)."""
    p = [e.payload for e in evs]
    (start,) = kinds(evs, RoundStarted)
    settles = [i for i, x in enumerate(p) if isinstance(x, WagerSettled | EnvyBonusPaid
                                                         | JackpotHit | JackpotVerified)]
    collects = [i for i, x in enumerate(p) if isinstance(x, HandCollected)]
    shuffles = [i for i, x in enumerate(p) if isinstance(x, Shuffled)]
    if not collects or len(shuffles) != 1 or min(collects) < max(settles, default=0) \
            or shuffles[0] < max(collects):
        return False
    banker = start.banker_seat
    if banker is None:
        return not kinds(evs, HandChanged) and start.banker_cover_cents is None
    shown = next(i for i, x in enumerate(p) if isinstance(x, HandsExposed) and x.seat == banker)
    if any(isinstance(x, HandChanged | HandSet) for x in p[shown:]):
        return False
    against = sum(x.amount_cents for x in kinds(evs, WagerPlaced)
                  if x.wager == "main" and x.seat != banker)
    cover = start.banker_cover_cents
    return cover is not None and (2 * cover if start.co_bank else cover) >= against


@pytest.fixture(scope="module", params=list(FAULT_KINDS))
def faulty(request):
    kind = request.param
    events, labels = simulate_shift(tables=4, rounds=30, seed=12, fault_rate=1.0,
                                    faults=[kind], rich_hands=0.5,
                                    book=with_layouts(tables=4))  # the layouts filed
    return kind, by_round(events), labels


def test_each_kind_is_injected_and_only_labelled_rounds_are_faulty(faulty):
    kind, rounds, labels = faulty
    assert labels, f"{kind} never applied"
    assert {label.kind for label in labels} == {kind}
    labelled = Counter(label.round_id for label in labels)
    assert max(labelled.values()) == 1
    assert all(label.amount_cents > 0 for label in labels)
    for round_id, evs in rounds.items():
        if round_id not in labelled:
            assert _clean(evs), round_id


def test_each_label_is_the_deviation_it_names(faulty):
    kind, rounds, labels = faulty
    for label in labels:
        CHECKS.get(kind, _settlement)(kind, rounds[label.round_id], label)


def _settlement(kind, evs, label):
    found = deviations(evs)
    assert found and all(d[:2] == (label.seat, label.wager) for d in found), found
    nets = [d[2] for d in found if len(d) == 3]
    assert len(nets) == 1 and abs(nets[0]) == label.amount_cents
    if kind in SIGNED:
        assert nets[0] == SIGNED[kind] * label.amount_cents
    outcome = {d[3]: d[4] for d in found if d[2] == "outcome"}
    commission = [d[3:] for d in found if d[2] == "commission"]
    judged = judge_document(round_document(evs))
    entry = next(s for s in judged["seats"] if s["seat"] == label.seat)
    right = entry["wagers"][label.wager]["outcome"]
    if kind in ("overpay", "underpay"):
        assert right == "win" and not outcome
    if kind == "paid_loser":
        assert outcome == {"win": "loss"}
    if kind == "collected_winner":
        assert outcome == {"loss": "win"}
    if kind == "commission_on_push_or_loss":
        assert right in ("push", "loss") and commission == [(label.amount_cents, 0)]
    if kind == "wrong_commission":
        assert right == "win" and len(commission) == 1
    if kind == "foul_paid":
        assert entry["foul"] is True and label.wager == "main" and set(outcome) <= {"win", "push"}
    if kind == "ace_high_mispaid":
        assert label.wager == "ace_high"
        assert outcome in ({"win": "loss"}, {"loss": "win"})
    if kind == "raise_paid_not_qualified":
        assert judged["dealer"]["qualifies"] is False and label.wager == "raise"
        assert outcome in ({"win": "void"}, {"loss": "void"})


def _envy(kind, evs, label):
    found = deviations(evs)
    assert len(found) == 1
    ((seat, what, recorded, right),) = found
    assert (seat, what, recorded - right) == (label.seat, "envy", label.amount_cents)
    extra = [p for p in kinds(evs, EnvyBonusPaid) if p.seat == label.seat
             and p.amount_cents == label.amount_cents]
    if kind == "envy_for_own_or_dealer_hand":
        assert any(p.for_seat in (label.seat, None) for p in extra)
    else:
        qualifying = [p for p in kinds(evs, WagerPlaced) if p.seat == label.seat
                      and p.wager in ("fortune", "progressive") and p.amount_cents >= 500]
        assert not qualifying and any(p.for_seat != label.seat for p in extra)


def _jackpot(kind, evs, label):
    (hit,) = [p for p in kinds(evs, JackpotHit) if p.seat == label.seat]
    assert label.amount_cents == hit.award_cents and label.wager == "progressive"
    steps = [p for p in kinds(evs, JackpotVerified) if p.seat == label.seat]
    (found,) = deviations(evs)
    if kind == "jackpot_step_missing":
        assert found[:2] == (label.seat, "steps") and len(steps) == 4
    else:
        assert found == (label.seat, "paid_from", "table_inventory")


def _settled_right(kind, evs, label):
    """The table did something irregular but settled the layout as the rules require."""
    assert deviations(evs) == set()
    placed = {(p.seat, p.wager): p.amount_cents for p in kinds(evs, WagerPlaced)}
    if kind == "dealer_not_house_way":
        assert judge_document(round_document(evs))["dealer"]["house_way"] is False
        assert label.amount_cents == sum(a for (_, w), a in placed.items() if w == "main")
    if kind == "raise_not_twice_ante":
        ante, raised = placed[(label.seat, "ante")], placed[(label.seat, "raise")]
        assert abs(raised - 2 * ante) == label.amount_cents
    if kind == "past_posting":
        order = [e.payload for e in evs]
        late = next(i for i, p in enumerate(order) if isinstance(p, WagerPlaced)
                    and (p.seat, p.wager) == (label.seat, label.wager))
        dealer_deal = next(i for i, p in enumerate(order)
                           if isinstance(p, CardsDealt | TilesDealt) and p.seat is None)
        assert late > dealer_deal and label.wager != "raise"
        assert placed[(label.seat, label.wager)] == label.amount_cents


def _dealt_twice(kind, evs, label):
    with pytest.raises(DocumentError):
        judge_document(round_document(evs))
    hands = {p.seat: p.cards for p in kinds(evs, CardsDealt)}
    hands |= {p.seat: p.tiles for p in kinds(evs, TilesDealt)}
    counts = Counter(t for hand in hands.values() for t in hand)
    over = [t for t, n in counts.items()
            if n > (parse_tile(t).copies if "-" in t else 1)]
    assert len(over) == 1 and over[0] in hands[label.seat]


def _missing(kind, evs, label):
    seqs = [e.table_seq for e in evs]
    assert len(seqs) == seqs[-1] - seqs[0]  # one gap
    assert not [p for p in kinds(evs, CardsDealt) + kinds(evs, TilesDealt)
                if p.seat == label.seat]


def _word(kind, evs, label):
    """The money right and the word wrong: one deviation, the outcome of the labelled wager."""
    ((seat, wager, what, recorded, right),) = deviations(evs)
    assert (seat, wager, what) == (label.seat, label.wager, "outcome") and recorded != right
    assert (right, recorded) in {("push", "win"), ("push", "loss"), ("loss", "push"),
                                 ("win", "loss")}
    placed = [w for w in kinds(evs, WagerPlaced) if (w.seat, w.wager) == (seat, wager)]
    assert [w.amount_cents for w in placed] == [label.amount_cents]


def _duplicated(kind, evs, label):
    twice = [e for e, n in Counter(evs).items() if n == 2]
    assert len(twice) == 1 and len(evs) == len(set(evs)) + 1
    p = twice[0].payload
    assert isinstance(p, WagerSettled) and (p.seat, p.wager) == (label.seat, label.wager)
    placed = [w for w in kinds(evs, WagerPlaced) if (w.seat, w.wager) == (p.seat, p.wager)]
    assert [w.amount_cents for w in placed] == [label.amount_cents]


def _winner_first(kind, evs, label):
    """Right in money, wrong in order: the labelled seat's winning main wager is settled
    before a seat's losing main wager (a lawful round settles every loser first)."""
    assert deviations(evs) == set()
    mains = [p for p in kinds(evs, WagerSettled) if p.wager == "main" and p.seat is not None]
    paid = next(i for i, p in enumerate(mains) if p.seat == label.seat)
    assert mains[paid].outcome == "win" and label.wager == "main"
    assert any(p.outcome == "loss" for p in mains[paid + 1:])
    placed = [w for w in kinds(evs, WagerPlaced) if (w.seat, w.wager) == (label.seat, "main")]
    assert [w.amount_cents for w in placed] == [label.amount_cents]


def _envy_short(kind, evs, label):
    """An Envy owed paid short: the seat's Envy total is the judged one less the label's."""
    ((seat, what, recorded, right),) = deviations(evs)
    assert (seat, what, right - recorded) == (label.seat, "envy", label.amount_cents)
    assert label.wager is None and recorded >= 0


def _banker(kind, evs, label):
    """The player banker's account alone is wrong: by the label's amount in its net, and in
    its commission too (by as much) for a commission fault."""
    ((who, recorded, right),) = deviations(evs)
    assert who == "banker" and recorded[0] == right[0] == label.seat and label.wager is None
    (start,) = kinds(evs, RoundStarted)
    assert start.banker_seat == label.seat
    assert start.co_bank is (kind == "co_bank_share_wrong") or kind == "banker_commission_wrong"
    assert abs(recorded[1] - right[1]) == label.amount_cents
    moved = recorded[2] - right[2]
    if kind == "banker_commission_wrong":
        assert abs(moved) == label.amount_cents and recorded[1] - right[1] == -moved
    else:
        assert moved == 0


def _not_placed(kind, evs, label):
    """A settlement of a wager the seat never placed, of the label's amount; the seat placed
    other wagers, and nothing else is wrong."""
    assert deviations(evs) == {(label.seat, label.wager, "settled")}
    placed = {(p.seat, p.wager) for p in kinds(evs, WagerPlaced)}
    assert (label.seat, label.wager) not in placed
    assert any(seat == label.seat for seat, _ in placed)
    (p,) = [p for p in kinds(evs, WagerSettled) if (p.seat, p.wager) == (label.seat, label.wager)]
    assert abs(p.net_cents) == label.amount_cents and p.commission_cents == 0


def _out_of_turn(kind, evs, label):
    """Right in money, wrong in order around the table: the labelled seat's exposure (or
    winning payment) comes right after the one of the seat next after it in turn (the
    simulator's layout of the table: from the dealer's far right; in pai gow poker from
    the player banker's right), and swapping the two puts every one in turn."""
    assert deviations(evs) == set()
    (start,) = kinds(evs, RoundStarted)
    order = list(default_seat_order(int(evs[0].table_id[1:])))
    banker = start.banker_seat
    if start.game == "pai_gow_poker" and banker is not None:
        order = order[order.index(banker) + 1:] + order[:order.index(banker)]
    if kind == "tiles_winners_paid_out_of_order":
        seq = [p.seat for p in kinds(evs, WagerSettled)
               if p.wager == "main" and p.seat is not None and p.net_cents > 0]
    else:
        seq = [p.seat for p in kinds(evs, HandsExposed)
               if p.seat is not None and p.seat != banker]
    at = seq.index(label.seat)
    assert at > 0 and order.index(seq[at - 1]) > order.index(seq[at])
    seq[at - 1], seq[at] = seq[at], seq[at - 1]
    assert seq == sorted(seq, key=order.index)
    placed = [w for w in kinds(evs, WagerPlaced) if (w.seat, w.wager) == (label.seat, "main")]
    assert [w.amount_cents for w in placed] == [label.amount_cents]


CHECKS = {
    "tiles_exposed_out_of_order": _out_of_turn, "players_exposed_out_of_order": _out_of_turn,
    "tiles_winners_paid_out_of_order": _out_of_turn,
    "winner_paid_before_losers_collected": _winner_first,
    "envy_for_own_or_dealer_hand": _envy, "envy_without_qualifying_wager": _envy,
    "jackpot_step_missing": _jackpot, "award_from_inventory": _jackpot,
    "dealer_not_house_way": _settled_right, "raise_not_twice_ante": _settled_right,
    "dealer_wager_not_preceding": _settled_right, "meter_jump": _settled_right,
    "past_posting": _settled_right, "dealt_twice": _dealt_twice,
    "missing_events": _missing, "duplicated_events": _duplicated,
    "outcome_word_wrong": _word, "envy_underpaid": _envy_short,
    "banker_mispaid": _banker, "banker_commission_wrong": _banker,
    "co_bank_share_wrong": _banker, "settled_not_placed": _not_placed,
    "reshuffle_skipped": lambda k, e, lb: _v3_fault(k, e, lb),
    **dict.fromkeys(("optional_settled_after_collected", "jackpot_hand_collected_early",
                     "envy_hand_collected_early", "hand_changed_after_banker_exposed",
                     "player_reset_after_banker_exposed", "bank_passed_not_followed",
                     "co_bank_without_cover", "bank_without_cover",
                     "dealer_wager_not_preceding_patron"),
                    lambda k, e, lb: _v3_fault(k, e, lb)),
}


def _index_of(p: list[Any], test: Any) -> int:
    return next(i for i, x in enumerate(p) if test(x))


def _v3_fault(kind, evs, label):
    """A fact of schema id 3 out of place (or the cover short); the money as the rules
    require. The faults reaching across rounds (the bank passed to another than the next
    banker, the dealer matching the seat) are followed to the next or preceding round in
    tests/test_simulate_v3.py."""
    assert deviations(evs) == set()
    p = [e.payload for e in evs]
    (start,) = kinds(evs, RoundStarted)
    placed = {(x.seat, x.wager): x.amount_cents for x in kinds(evs, WagerPlaced)}
    mains = sum(a for (_, w), a in placed.items() if w == "main")

    def collected(seat):
        return _index_of(p, lambda x: isinstance(x, HandCollected) and x.seat == seat)

    if kind == "reshuffle_skipped":
        assert not kinds(evs, Shuffled)
        assert label.amount_cents == (mains or sum(placed.values()))  # Caribbean: no main
    elif kind == "optional_settled_after_collected":
        settled = _index_of(p, lambda x: isinstance(x, WagerSettled)
                            and (x.seat, x.wager) == (label.seat, label.wager))
        assert collected(label.seat) < settled and label.wager in ("fortune", "ace_high",
                                                                   "progressive")
        assert label.amount_cents == placed[(label.seat, label.wager)]
    elif kind == "jackpot_hand_collected_early":
        paid = _index_of(p, lambda x: isinstance(x, JackpotVerified) and x.seat == label.seat
                         and x.step == "paid")
        assert collected(label.seat) < paid
        (hit,) = [x for x in kinds(evs, JackpotHit) if x.seat == label.seat]
        assert label.amount_cents == hit.award_cents
    elif kind == "envy_hand_collected_early":
        bonuses = [i for i, x in enumerate(p) if isinstance(x, EnvyBonusPaid)
                   and x.for_seat == label.seat]
        assert collected(label.seat) < bonuses[0]
        assert label.amount_cents == sum(p[i].amount_cents for i in bonuses)
    elif kind in ("hand_changed_after_banker_exposed", "player_reset_after_banker_exposed"):
        shown = _index_of(p, lambda x: isinstance(x, HandsExposed)
                          and x.seat == start.banker_seat)
        late = [x for x in p[shown:] if isinstance(x, HandChanged | HandSet)]
        assert len(late) == 1 and late[0].seat == label.seat
        assert isinstance(late[0], HandChanged) == (kind == "hand_changed_after_banker_exposed")
        stake = mains if label.seat is None else placed[(label.seat, "main")]
        assert label.amount_cents == stake
    elif kind == "bank_passed_not_followed":
        assert len(kinds(evs, BankPassed)) == 1 and label.amount_cents == mains
    elif kind in ("co_bank_without_cover", "bank_without_cover"):
        against = sum(a for (seat, w), a in placed.items()
                      if w == "main" and seat != start.banker_seat)
        least = (against + 1) // 2 if start.co_bank else against
        assert start.co_bank == (kind == "co_bank_without_cover")
        assert least - start.banker_cover_cents == label.amount_cents
        assert label.seat == start.banker_seat
    else:
        assert kind == "dealer_wager_not_preceding_patron"
        assert (None, "main") in placed and label.seat == start.banker_seat
        assert any(x.seat == label.seat and x.patron_id for x in kinds(evs, WagerPlaced))


def test_a_shift_with_every_kind_labels_one_fault_per_faulty_round():
    events, labels = simulate_shift(tables=8, rounds=40, seed=4, fault_rate=0.4,
                                    rich_hands=0.3)
    rounds = by_round(events)
    assert 0.25 * len(rounds) < len(labels) < 0.5 * len(rounds)
    assert len({label.round_id for label in labels}) == len(labels)
    assert len({label.kind for label in labels}) >= 12
    for label in labels:
        assert json.loads(label.to_json()) == {
            "casino": "C01", "round_id": label.round_id, "kind": label.kind, "seat": label.seat,
            "wager": label.wager, "amount_cents": label.amount_cents}
    labelled = {label.round_id for label in labels}
    assert all(_clean(evs) for r, evs in rounds.items() if r not in labelled)


def test_faults_limited_to_the_kinds_asked_for():
    _, labels = simulate_shift(tables=4, rounds=20, seed=6, fault_rate=1.0,
                               faults=["overpay", "missing_events"])
    assert {label.kind for label in labels} == {"overpay", "missing_events"}
    with pytest.raises(ValueError, match="unknown fault kind 'mispay'"):
        simulate_shift(tables=1, rounds=1, seed=1, fault_rate=1.0, faults=["mispay"])


def test_the_order_around_the_table_is_put_wrong_only_where_the_layout_is_filed():
    """Without the tables' layouts filed, replay could not see a player taken out of turn,
    so the simulator injects none, and shows the players by seat number."""
    turn = ["tiles_exposed_out_of_order", "players_exposed_out_of_order"]
    events, unfiled = simulate_shift(tables=4, rounds=20, seed=11, fault_rate=1.0,
                                     faults=turn)
    for evs in by_round(events).values():
        (start,) = kinds(evs, RoundStarted)
        shown = [p.seat for p in kinds(evs, HandsExposed)
                 if p.seat is not None and p.seat != start.banker_seat]
        assert shown == sorted(shown)
    _, filed = simulate_shift(tables=4, rounds=20, seed=11, fault_rate=1.0, faults=turn,
                              book=with_layouts(tables=4))
    assert unfiled == [] and {label.kind for label in filed} == set(turn)
