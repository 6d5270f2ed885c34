"""One engine, two front doors: a round judged from its events (log -> fold -> document ->
judge) gives exactly the result of judging its document, for random rounds of every game.

The rounds are random deals with random settings (fouls and wrong settings included),
wagers, decisions and bankers; documents the judge refuses must be refused the same way
through the log (the round not evaluated, with the judge's own message)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.adjudicate import judge_document
from replay.cards import DECK_52, DECK_53
from replay.errors import ReplayError
from replay.fold import fold
from replay.reconstruct import judge_state
from replay.tiles import COPIES, FACES
from tests.events_factory import Table, events_of_document

TILE_SET = [str(face) for face in FACES for _ in range(COPIES[face])]


def _deal(rng, deck, seats, size):
    cards = [str(c) for c in deck]
    rng.shuffle(cards)
    return {who: cards[i * size:(i + 1) * size] for i, who in enumerate([*seats, "dealer"])}


def _set(rng, hand, high_size):
    order = list(hand)
    rng.shuffle(order)
    return {"high": order[:high_size], "low": order[high_size:]}


def random_document(game: str, seed: int) -> dict:
    rng = random.Random(seed)
    seats = sorted(rng.sample(range(1, 8), rng.randint(1, 6)))
    doc: dict = {"round_id": f"R{seed}", "game": game, "seats": []}
    meter = False
    if game in ("pai_gow_poker", "face_up_pai_gow"):
        hands = _deal(rng, DECK_53, seats, 7)
        doc["dealer"] = {"cards": hands["dealer"], **_set(rng, hands["dealer"], 5)}
        for s in seats:
            wagers = {"main": rng.choice([500, 1000, 2500])}
            for side in ("fortune", "progressive") + (("ace_high",) if game != "pai_gow_poker"
                                                      else ()):
                if rng.random() < 0.3:
                    wagers[side] = rng.choice([100, 500])
                    meter = meter or side == "progressive"
            seat = {"seat": s, "cards": hands[s], "wagers": wagers}
            if rng.random() < 0.9:
                seat.update(_set(rng, hands[s], 5))
            doc["seats"].append(seat)
        if game == "pai_gow_poker" and rng.random() < 0.4:
            banker = rng.choice(seats)
            doc["banker"] = {"seat": banker, "co_bank": rng.random() < 0.5}
            doc["seats"][seats.index(banker)].update(_set(rng, hands[banker], 5))
            if rng.random() < 0.5:
                doc["dealer"]["wager"] = 1000
    elif game == "pai_gow_tiles":
        seats = seats[:4]
        doc["seats"] = []
        hands = _deal(rng, TILE_SET, seats, 4)
        doc["dealer"] = {"tiles": hands["dealer"], **_set(rng, hands["dealer"], 2)}
        for s in seats:
            seat = {"seat": s, "tiles": hands[s], "wagers": {"main": rng.choice([700, 2500])}}
            if rng.random() < 0.15:
                seat["action"] = "withdraw"
            else:
                seat.update(_set(rng, hands[s], 2))
            doc["seats"].append(seat)
    else:
        hands = _deal(rng, DECK_52, seats, 5)
        doc["dealer"] = {"cards": hands["dealer"]}
        for s in seats:
            ante = rng.choice([500, 1000])
            seat = {"seat": s, "cards": hands[s], "wagers": {"ante": ante}}
            action = rng.choice(["raise", "raise", "fold", "concede"])
            if action != "fold":
                seat["wagers"]["raise"] = 2 * ante
            if action != "raise":
                seat["action"] = action
            if rng.random() < 0.3:
                seat["wagers"]["progressive"] = 100
                meter = True
            doc["seats"].append(seat)
    if meter:
        doc["progressive_meter"] = rng.choice([1_000_000, 2_500_000])
    return doc


@settings(max_examples=150, deadline=None)
@given(game=st.sampled_from(["pai_gow_poker", "face_up_pai_gow", "pai_gow_tiles",
                             "caribbean_stud"]),
       seed=st.integers(min_value=0, max_value=2**31))
def test_judging_the_events_gives_the_result_of_judging_the_document(game, seed):
    doc = random_document(game, seed)
    (state,) = fold((str(i), e) for i, e in
                    enumerate(events_of_document(Table(), doc))).rounds
    judged = judge_state(state)
    try:
        direct = judge_document(doc)
    except (ReplayError, ValueError, LookupError) as exc:
        assert judged.result is None and not judged.evaluated
        assert str(exc) in [p.detail for p in judged.problems]
        return
    assert judged.result == direct
    assert judged.evaluated, [p.detail for p in judged.problems]


def test_the_random_rounds_reach_every_game_and_mostly_judge():
    """The generator is not vacuous: most of its rounds are judgeable, in every game."""
    for game in ("pai_gow_poker", "face_up_pai_gow", "pai_gow_tiles", "caribbean_stud"):
        ok = 0
        for seed in range(40):
            try:
                judge_document(random_document(game, seed))
                ok += 1
            except (ReplayError, ValueError, LookupError):
                pass
        assert ok >= 20, (game, ok)
