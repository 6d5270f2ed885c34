"""Face Up pai gow poker adjudication speed: rounds per second on one core (the target: at
least 10,000 six-seat rounds with every side wager).

    .venv/bin/python bench/face_up.py [--rounds 20000] [--repeat 5] [--seed 2026] [--cpu N]

The rounds: ``random.Random(seed)`` shuffles the 53-card deck (``rng.sample(DECK_53, 49)``)
and deals seven cards to the dealer and to each of six seats (seats 1-6). The dealer's hand
is set by the shipped house way (so ``house_way`` is true in almost every round, as at a
real table); each seat sets its hand by the house way too, except that with probability 1/5
it takes one of the 21 splits at random (fouls included), so that fouls and mis-set hands
are judged as well. Every seat wagers main 2500, ace_high 500, fortune 500 (a Qualifying
Wager, so Envy is paid) and progressive 100, with a progressive_meter of 2,500,000 cents.
Each document goes through ``json.dumps``/``json.loads`` first, so it is exactly what
``python -m replay adjudicate`` hands on, and is judged with
:func:`replay.adjudicate.judge_document`, the real entry point (game lookup, default
ruleset, the game's document reader and judge).

Building the documents is not timed. The figure is the best of ``--repeat`` passes over all
the rounds (the machine is shared; the best pass is the one least disturbed), with the
median beside it; the process is pinned to one CPU (``--cpu``, default: the first CPU it
may run on). The digest is a SHA-256 of every result as a JSON line: two builds that give
the same digest for the same seed and rounds judged every round identically. The line
"house way" times :func:`replay.games.pai_gow_poker.house_way_setting` alone on the same
rounds' dealer hands.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
from typing import Any

from timing import cpu_model, timed

from replay.adjudicate import dumps, judge_document
from replay.cards import DECK_53, Card, parse_cards
from replay.games.pai_gow_poker import house_way, house_way_setting, splits

SEATS = 6
WAGERS = {"main": 2500, "ace_high": 500, "fortune": 500, "progressive": 100}
METER_CENTS = 2_500_000
MIS_SET_CHANCE = 0.2




def tokens(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    return [str(card) for card in cards]


def holding(cards: list[Card], rng: random.Random, mis_set_chance: float) -> dict[str, Any]:
    """Seven cards set by the house way, or with ``mis_set_chance`` by a random split."""
    if rng.random() < mis_set_chance:
        high, low = rng.choice(list(splits(cards)))
    else:
        high, low = house_way(cards)
    return {"cards": tokens(cards), "high": tokens(high), "low": tokens(low)}


def documents(rounds: int, seed: int) -> list[dict[str, Any]]:
    """The benchmark's round documents (see the module docstring)."""
    rng = random.Random(seed)
    docs = []
    for number in range(rounds):
        deal = rng.sample(DECK_53, 7 * (SEATS + 1))
        seats = []
        for seat in range(1, SEATS + 1):
            seat_doc = holding(deal[7 * seat:7 * seat + 7], rng, MIS_SET_CHANCE)
            seats.append({"seat": seat, **seat_doc, "wagers": dict(WAGERS)})
        doc = {"round_id": f"bench-{number}", "game": "face_up_pai_gow",
               "progressive_meter": METER_CENTS, "dealer": holding(deal[:7], rng, 0.0),
               "seats": seats}
        docs.append(json.loads(json.dumps(doc)))
    return docs




def pin(cpu: int | None) -> str:
    """Pin this process to one CPU where the OS allows it; says which."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    allowed = sorted(os.sched_getaffinity(0))
    chosen = allowed[0] if cpu is None else cpu
    os.sched_setaffinity(0, {chosen})
    return f"pinned to CPU {chosen}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--cpu", type=int, default=None)
    args = parser.parse_args()

    pinned = pin(args.cpu)
    docs = documents(args.rounds, args.seed)
    results = [judge_document(doc) for doc in docs]  # warm-up: tables built, rulesets read
    digest = hashlib.sha256("\n".join(map(dumps, results)).encode()).hexdigest()

    def judge_all() -> None:
        for doc in docs:
            judge_document(doc)

    dealers = [parse_cards(" ".join(doc["dealer"]["cards"])) for doc in docs]

    def house_ways() -> None:
        for cards in dealers:
            house_way_setting(cards)

    best, median = timed(judge_all, args.repeat)
    way_best, _ = timed(house_ways, args.repeat)
    print(f"CPU: {cpu_model()} ({pinned})")
    print(f"Python: {platform.python_implementation()} {platform.python_version()}")
    print(f"rounds: {args.rounds} six-seat Face Up rounds, seed {args.seed}, every side wager")
    print(f"adjudication: {args.rounds / best:,.0f} rounds/s (best of {args.repeat}; median "
          f"{args.rounds / median:,.0f}); {best / args.rounds * 1e6:.1f} us a round")
    print(f"house way: {way_best / args.rounds * 1e6:.1f} us a dealer hand "
          f"(house_way_setting alone, best of {args.repeat})")
    print(f"results digest: {digest}")


if __name__ == "__main__":
    main()
