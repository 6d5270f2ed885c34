"""``python -m ingest.simulate``: a simulated shift of classic pai gow poker tables.

Stands in for the table devices. Each round is dealt from a real shuffled 53-card deck
(REFERENCE.md 1.1), dealer-banked, with 1 to 6 players. Players set their hands by a simple
strategy (the best low hand that does not foul, and now and then a careless set that may
foul); the dealer sets by the house way. Every main wager is settled correctly by the rules
engine, except the mispays injected at ``--fault-rate``, each written as one JSON line to
``--labels`` so that tests and demos know exactly which flags to expect.

The same seed gives the same events, byte for byte (event ids come from the seeded RNG).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from replay.cards import DECK_53, Card
from replay.games.pai_gow_poker import adjudicate, house_way, is_foul, rank_high, rank_low, splits
from replay.notation import HandHolding, PaiGowRound, SeatHolding
from replay.rulesets import Ruleset, default_ruleset
from schemas import (
    CardsDealt,
    HandSet,
    Payload,
    RoundEnded,
    RoundEvent,
    RoundStarted,
    WagerPlaced,
    WagerSettled,
)

GAME = "pai_gow_poker"
SHIFT_START_US = 1_795_888_800_000_000  # 2026-11-28 18:00:00 UTC
ROUND_EVERY_US = 95_000_000
EVENT_EVERY_US = 1_500_000
WAGER_CENTS = tuple(range(1_000, 10_001, 500))  # $10 to $100 in $5 steps
FAULT_CENTS = (125, 500, 1_000, 2_500)
CARELESS_RATE = 0.02


@dataclass(frozen=True, slots=True, kw_only=True)
class Fault:
    """One injected mispay: the recorded net differs from the right one by ``amount`` cents."""

    round_id: str
    fault: str
    seat: int
    amount: int

    def to_json(self) -> str:
        return json.dumps(
            {"round_id": self.round_id, "fault": self.fault, "seat": self.seat,
             "amount": self.amount},
            sort_keys=True,
        )


def _cards(cards: tuple[Card, ...] | list[Card]) -> tuple[str, ...]:
    return tuple(str(c) for c in cards)


def player_sets(
    cards: tuple[Card, ...], rng: random.Random
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """The simulated player's set: the best low hand that does not foul (ties: best high).
    Now and then (CARELESS_RATE) the player ignores the foul rule."""
    careless = rng.random() < CARELESS_RATE
    best = None
    for high, low in splits(cards):
        if not careless and is_foul(high, low):
            continue
        key = (rank_low(low), rank_high(high))
        if best is None or key > best[0]:
            best = (key, tuple(high), tuple(low))
    assert best is not None, "a non-fouling split always exists"
    return best[1], best[2]


class TableSimulator:
    """One table's stream of events; deterministic for a given (seed, table)."""

    def __init__(self, *, casino: str, table_index: int, seed: int, fault_rate: float,
                 ruleset: Ruleset) -> None:
        self.casino = casino
        self.table_id = f"T{table_index:02d}"
        self.rng = random.Random(f"catwalk-sim:{seed}:{self.table_id}")
        self.fault_rate = fault_rate
        self.ruleset = ruleset
        self.seq = 0
        self.clock_us = SHIFT_START_US + table_index * 17_000_000
        self.dealers = (f"E{table_index:02d}1", f"E{table_index:02d}2")
        self.faults: list[Fault] = []

    def _event(self, round_id: str, recorded_by: str, payload: Payload) -> RoundEvent:
        self.seq += 1
        self.clock_us += EVENT_EVERY_US
        return RoundEvent(
            event_id=str(uuid.UUID(int=self.rng.getrandbits(128), version=4)),
            casino=self.casino, table_id=self.table_id, table_seq=self.seq,
            round_id=round_id, occurred_at_us=self.clock_us, recorded_by=recorded_by,
            payload=payload,
        )

    def round(self, number: int) -> Iterator[RoundEvent]:
        rng = self.rng
        round_id = f"{self.table_id}-{number:06d}"
        dealer_id = self.dealers[(number // 20) % 2]
        device = f"{self.table_id}-device"
        self.clock_us = max(self.clock_us, SHIFT_START_US + number * ROUND_EVERY_US)
        seats = sorted(rng.sample(range(1, 7), rng.randint(1, 6)))
        deck = list(DECK_53)
        rng.shuffle(deck)
        hands = {seat: tuple(deck[i * 7:(i + 1) * 7]) for i, seat in enumerate(seats)}
        dealer_cards = tuple(deck[len(seats) * 7:len(seats) * 7 + 7])
        wagers = {seat: rng.choice(WAGER_CENTS) for seat in seats}

        yield self._event(round_id, dealer_id, RoundStarted(game=GAME, dealer_id=dealer_id))
        for seat in seats:
            yield self._event(round_id, device, WagerPlaced(seat=seat, wager="main",
                                                            amount_cents=wagers[seat]))
        for seat in seats:
            yield self._event(round_id, device, CardsDealt(seat=seat, cards=_cards(hands[seat])))
        yield self._event(round_id, device, CardsDealt(seat=None, cards=_cards(dealer_cards)))
        sets = {seat: player_sets(hands[seat], rng) for seat in seats}
        for seat in seats:
            high, low = sets[seat]
            yield self._event(round_id, device, HandSet(seat=seat, high=_cards(high),
                                                        low=_cards(low)))
        d_high, d_low = house_way(dealer_cards)
        yield self._event(round_id, dealer_id, HandSet(seat=None, high=_cards(d_high),
                                                       low=_cards(d_low)))
        judged = adjudicate(PaiGowRound(
            round_id=round_id, game=GAME,
            dealer=HandHolding(cards=dealer_cards, high=d_high, low=d_low),
            seats=tuple(SeatHolding(seat=seat, cards=hands[seat], high=sets[seat][0],
                                    low=sets[seat][1], wagers={"main": wagers[seat]})
                        for seat in seats),
        ), self.ruleset)
        assert judged.evaluated, judged.problems
        faulty_seat = rng.choice(seats) if rng.random() < self.fault_rate else None
        for result in judged.seats:
            assert result.main is not None
            net = result.main.net_cents
            if result.seat == faulty_seat:
                kind = rng.choice(("overpay", "underpay"))
                amount = rng.choice(FAULT_CENTS)
                net += amount if kind == "overpay" else -amount
                self.faults.append(Fault(round_id=round_id, fault=kind, seat=result.seat,
                                         amount=amount))
            yield self._event(round_id, dealer_id, WagerSettled(
                seat=result.seat, wager="main", outcome=result.main.outcome.value,
                net_cents=net, commission_cents=result.main.commission_cents))
        yield self._event(round_id, dealer_id, RoundEnded())


def simulate_shift(*, tables: int, rounds: int, seed: int, fault_rate: float,
                   casino: str = "C01") -> tuple[list[RoundEvent], list[Fault]]:
    """Every event of a shift (tables interleaved in time order) and the injected faults."""
    ruleset = default_ruleset(GAME)
    sims = [TableSimulator(casino=casino, table_index=t, seed=seed, fault_rate=fault_rate,
                           ruleset=ruleset) for t in range(1, tables + 1)]
    events = [e for sim in sims for n in range(1, rounds + 1) for e in sim.round(n)]
    events.sort(key=lambda e: (e.occurred_at_us, e.table_id, e.table_seq))
    return events, [f for sim in sims for f in sim.faults]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ingest.simulate",
        description="Simulate a shift of classic pai gow poker tables and produce its events "
        "to Kafka, keyed by table. Settlements are correct except the injected mispays.",
        epilog="example: python -m ingest.simulate --tables 4 --rounds 50 --seed 7 "
        "--fault-rate 0.05 --labels var/labels.jsonl",
    )
    p.add_argument("--tables", type=int, required=True, help="number of tables (T01, T02 ...)")
    p.add_argument("--rounds", type=int, required=True, help="rounds per table")
    p.add_argument("--seed", type=int, default=1, help="RNG seed; same seed, same events")
    p.add_argument("--fault-rate", type=float, default=0.0, metavar="F",
                   help="probability that a round has one mispaid seat (0 to 1, default 0)")
    p.add_argument("--labels", type=Path, default=None, metavar="FILE",
                   help="write each injected fault as a JSON line to FILE")
    p.add_argument("--casino", default="C01", help="casino id (default C01)")
    p.add_argument("--topic", default=None, help="Kafka topic (default round-events)")
    p.add_argument("--bootstrap", default=None,
                   help="Kafka host:port (default $KAFKA_BOOTSTRAP or the local broker)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.tables < 1 or args.rounds < 1:
        print("simulate: --tables and --rounds must be at least 1", file=sys.stderr)
        return 2
    if not 0.0 <= args.fault_rate <= 1.0:
        print(f"simulate: --fault-rate must be between 0 and 1, got {args.fault_rate}",
              file=sys.stderr)
        return 2
    from kafka.errors import KafkaError

    from ingest.kafka_io import (
        DEFAULT_TOPIC,
        NoClusterError,
        bootstrap_servers,
        ensure_topic,
        producer,
    )
    from schemas import encode

    topic = args.topic or DEFAULT_TOPIC
    events, faults = simulate_shift(tables=args.tables, rounds=args.rounds, seed=args.seed,
                                    fault_rate=args.fault_rate, casino=args.casino)
    if args.labels is not None:
        args.labels.parent.mkdir(parents=True, exist_ok=True)
        args.labels.write_text("".join(f.to_json() + "\n" for f in faults))
    try:
        servers = bootstrap_servers(args.bootstrap)
        ensure_topic(servers, topic)
        with producer(servers) as kp:
            total = len(events)
            for i, event in enumerate(events, start=1):
                kp.send(topic, value=encode(event), key=event.table_id.encode())
                if i % 5000 == 0 or i == total:
                    print(f"simulate: {i:,}/{total:,} events sent", file=sys.stderr, flush=True)
            kp.flush()
    except NoClusterError as exc:
        print(f"simulate: {exc}", file=sys.stderr)
        return 2
    except KafkaError as exc:
        print(f"simulate: Kafka error {exc!r}; is the broker up? (`make kafka-up`)",
              file=sys.stderr)
        return 2
    print(f"simulate: {args.tables} tables x {args.rounds} rounds = {len(events):,} events to "
          f"{topic}; {len(faults)} injected mispays"
          + (f" listed in {args.labels}" if args.labels else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
