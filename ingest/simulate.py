"""``python -m ingest.simulate``: a simulated shift of casino tables, every game dealt.

Stands in for the table devices. Each table deals one game all shift (``--games``, in
turn: T01 the first, T02 the second ...), 1 to 6 players a round (7 at Caribbean stud),
from a real shuffled deck or tile set (:mod:`ingest.sim_deal`): classic pai gow poker with
dealer-, player- and co-banked rounds and the dealer's own wager against a player banker,
Fortune and Progressive; Face Up with Ace High, Fortune, Progressive and Envy; pai gow
tiles with withdrawals (and player bankers); Caribbean stud with folds, raises, concedes and
the $1 progressive. A progressive meter per table grows by a share of every progressive
wager and resets after a percentage award.

Under schema id 3 (the default; ``--schema-id 2`` records none of it) the table also records
its patrons' tracking ids (stable per patron; patrons move seats now and then, and the
dealer's wager against a player banker matches the patron's wager on the preceding
dealer-banked hand wherever the patron sat), the player banker's cover (at least the wagers
against the bank, half of them co-banked), now and then the dealer's change of its exposed
hand before the banker's is shown, each hand collected after everything it is owed is paid,
the reshuffle (now and then a deck change) and the bank passed to whoever banks the next
round (:mod:`ingest.sim_record` gives the order).

The truth of a round is its round document (README "Round documents") judged by
:func:`replay.adjudicate.judge_document`; the table settles exactly that
(:mod:`ingest.sim_record` gives the events in the protocol's order), except in the rounds
where a fault is injected (``--fault-rate``, kinds ``--faults``; :mod:`ingest.sim_faults`),
each written as one JSON line to ``--labels``.

The same seed gives the same events, byte for byte (event ids come from the seeded RNG).
With a rulesets directory (``--rulesets DIR``, docs/rulesets.md) each table deals by its
casino's ruleset in force that day (its paytables, its options, its house way), as replay
judges it; a casino without its own ruleset for a game deals by the shipped one.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ingest.kafka_io import TOPIC_SETTINGS_HELP
from ingest.sim_deal import (
    CLASSIC,
    DEALERS,
    METER_BASE_CENTS,
    PLAYER_BANK_RATE,
    TILES,
    Deal,
    RoundPlan,
    document,
)
from ingest.sim_faults import (
    ENTRIES,
    EVENTS,
    FACTS,
    FAULT_KINDS,
    JUDGED_AGAIN,
    SETTLEMENTS,
    TURN_FAULTS,
    Label,
    Round,
    alter_entries,
    alter_events,
    alter_facts,
    alter_settlements,
    applicable,
)
from ingest.sim_record import Staff, meter_awards, protocol, settlements
from replay.adjudicate import judge_document
from replay.layouts import TableLayout, parse_instant
from replay.rulebook import Rulebook, shipped_book
from schemas import Payload, RoundEvent

GAMES = tuple(DEALERS)
"""Every game the simulator deals, in the order tables take them."""
SHIFT_START_US = 1_795_888_800_000_000  # 2026-11-28 18:00:00 UTC
ROUND_EVERY_US = 95_000_000
EVENT_EVERY_US = 1_500_000
METER_SHARE_BPS = 2_000
"""The share of each progressive wager that goes onto the meter (20%)."""
DEFAULT_RICH_HANDS = 0.02
VOCABULARY = 3
"""The schema id the simulator records by default (``--schema-id``): the newest."""
VOCABULARIES = (2, 3)
"""The schema ids the simulator can record under; under 2 none of the facts only schema id 3
carries are recorded (no patrons, cover, dealer's change, collections, shuffles or passes)."""
MOVE_RATE = 0.25
"""Between two rounds, a patron moves to another seat (changing places with whoever holds
it); schema id 3 only, where the patron's tracking id follows the patron."""
NEW_PATRON_RATE = 0.03
"""Between two rounds, a seat is taken by a patron new to the table."""
DECK_CHANGE_RATE = 0.03
"""The share of rounds after which the deck (or tile set) is changed, not reshuffled."""
PASS_WEIGHTS = (5, 2, 3)
"""When the bank goes from a player back to the dealer, how often it is because the bank
rotated, the next player declined it, or could not cover half the wagers and passed the deal
(procedure (11)): ``BankPassed`` reasons rotation, declined, cannot_cover."""

__all__ = ["FAULT_KINDS", "GAMES", "Label", "main", "simulate_shift"]


class TableSimulator:
    """One table's stream of events; deterministic for a given (seed, table)."""

    def __init__(self, *, casino: str, table_index: int, seed: int, fault_rate: float,
                 game: str, faults: Sequence[str], rich_hands: float,
                 book: Rulebook | None = None, vocabulary: int = VOCABULARY) -> None:
        self.casino = casino
        self.game = game
        self.table_id = f"T{table_index:02d}"
        self.rng = random.Random(f"catwalk-sim:{seed}:{self.table_id}")
        self.fault_rate = fault_rate
        self.faults = tuple(faults)
        self.rich_hands = rich_hands
        self.book = shipped_book() if book is None else book
        start = dt.datetime.fromtimestamp(SHIFT_START_US / 1e6, dt.UTC)
        self.ruleset = self.book.in_force(casino, game, start.date())
        filed = self.book.seat_order(casino, self.table_id, start)
        self.seat_order = filed or ()
        """The table's seats from the dealer's far right by the layout its casino filed
        (docs/rulesets.md), the order the dealer exposes and pays in; empty when none is
        filed: then by seat number, as replay cannot judge the order anyway."""
        self.layout_filed = filed is not None
        """Whether replay can know the table's layout (its casino filed it): only then are
        the faults of the order around the table (``TURN_FAULTS``) injected, as a fault no
        check can see is no test of the catalogue (:func:`with_layouts` files the
        simulator's own layouts, :func:`default_seat_order`)."""
        self.seq = 0
        self.clock_us = SHIFT_START_US + table_index * 17_000_000
        self.dealers = (f"E{table_index:02d}1", f"E{table_index:02d}2")
        self.floorperson = f"F{table_index:02d}1"
        self.meter = METER_BASE_CENTS.get(game, 0)
        self.meter_follows = False
        self.dealer_banked: dict[int, int] = {}
        """The seats' main wagers on the table's last dealer-banked round (classic pai gow
        poker), which a player banker's dealer wager equals (pai gow poker procedure (10))."""
        self.dealer_banked_patrons: dict[str, int] = {}
        """The same by patron (schema id 3): the dealer matches the patron, wherever seated."""
        self.vocabulary = vocabulary
        self.patrons = 0
        self.seating: dict[int, str] | None = None
        if vocabulary >= 3:
            self.seating = {seat: self._new_patron() for seat in range(1, 8)}
        self.next_bank: tuple[int | None, bool] | None = None
        """Who banks the next round, as this one passed the bank (None: not decided yet)."""
        self.decks = 1
        self.labels: list[Label] = []

    def _new_patron(self) -> str:
        self.patrons += 1
        return f"{self.casino}-{self.table_id}-P{self.patrons:03d}"

    def _envelope(self, round_id: str, recorded_by: str, payload: Payload) -> RoundEvent:
        self.seq += 1
        self.clock_us += EVENT_EVERY_US
        return RoundEvent(
            event_id=str(uuid.UUID(int=self.rng.getrandbits(128), version=4)),
            casino=self.casino, table_id=self.table_id, table_seq=self.seq,
            round_id=round_id, occurred_at_us=self.clock_us, recorded_by=recorded_by,
            payload=payload,
        )

    def round(self, number: int, *, last: bool = False) -> list[RoundEvent]:
        """Deal, play, settle and record round ``number`` (``last``: the shift's last at the
        table, after which the bank passes to no one)."""
        rng = self.rng
        round_id = f"{self.table_id}-{number:06d}"
        staff = Staff(dealer=self.dealers[(number // 20) % 2], device=f"{self.table_id}-device",
                      floorperson=self.floorperson, meter_id=f"{self.table_id}-progressive",
                      seat_order=self.seat_order)
        self.clock_us = max(self.clock_us, SHIFT_START_US + number * ROUND_EVERY_US)
        plan = DEALERS[self.game](Deal(round_id=round_id, ruleset=self.ruleset, rng=rng,
                                       meter=self.meter, rich=self.rich_hands,
                                       preceding=self.dealer_banked,
                                       meter_follows=self.meter_follows,
                                       vocabulary=self.vocabulary, patrons=self.seating,
                                       preceding_patrons=self.dealer_banked_patrons,
                                       bank=self.next_bank))
        plan = self._after(plan, last)
        result = self._judge(plan)
        truth = Round(plan=plan, result=result, settled=tuple(settlements(plan, result, staff)))
        kind = None
        if self.fault_rate and rng.random() < self.fault_rate:
            kinds = [k for k in applicable(self.faults, truth)
                     if self.layout_filed or k not in TURN_FAULTS]
            kind = rng.choice(kinds) if kinds else None
        label = None
        if kind in JUDGED_AGAIN or kind in FACTS:
            altered = alter_facts(kind, truth, rng, self._judge)
            if altered is not None:
                plan, label = altered
                if kind in JUDGED_AGAIN:
                    result = self._judge(plan)
                    truth = Round(plan=plan, result=result,
                                  settled=tuple(settlements(plan, result, staff)))
        settled = list(truth.settled)
        if kind in SETTLEMENTS:
            settled, label = alter_settlements(kind, truth, rng)
        entries = protocol(plan, settled, staff)
        if kind in ENTRIES:
            entries, label = alter_entries(kind, truth, entries, rng)
        events = [self._envelope(round_id, who, payload) for who, payload in entries]
        if kind in EVENTS:
            events, label = alter_events(kind, truth, events, rng)
        if label is not None:
            self.labels.append(replace(label, casino=self.casino))
        self._move_meter(truth)
        if truth.plan.game == CLASSIC and truth.plan.banker_seat is None:
            self.dealer_banked = {s.seat: s.wagers["main"] for s in truth.plan.seats
                                  if "main" in s.wagers}
            if truth.plan.patrons is not None:
                self.dealer_banked_patrons = {truth.plan.patrons[seat]: wager
                                              for seat, wager in self.dealer_banked.items()}
        return events

    def _after(self, plan: RoundPlan, last: bool) -> RoundPlan:
        """What happens at the table after the round is settled, decided before it is
        recorded: the patrons who change seats for the next round, who banks it (and the
        bank passed when someone else will), the reshuffle or a deck change."""
        rng = self.rng
        moved: list[int] = []
        if self.seating is not None:
            if rng.random() < MOVE_RATE:
                moved = rng.sample(range(1, 7), 2)  # the first seat's patron moves to the second
                a, b = moved
                self.seating[a], self.seating[b] = self.seating[b], self.seating[a]
            if rng.random() < NEW_PATRON_RATE:
                self.seating[rng.choice(sorted(self.seating))] = self._new_patron()
        passed = None
        if plan.game in (CLASSIC, TILES):
            seat = rng.randint(1, 6) if rng.random() < PLAYER_BANK_RATE else None
            if seat is not None and moved and rng.random() < 0.5:
                seat = moved[1]  # the patron who moved takes the bank there
            co_bank = seat is not None and rng.random() < 0.5
            reason = "rotation"
            if seat is None and plan.banker_seat is not None:
                # the bank leaves the player: its turn is over, the next player declines it,
                # or cannot cover half the wagers and passes the deal (procedure (11))
                reason = rng.choices(("rotation", "declined", "cannot_cover"),
                                     weights=PASS_WEIGHTS)[0]
            self.next_bank = (seat, co_bank)
            if seat != plan.banker_seat and not last:
                passed = (seat, reason)
        if self.vocabulary < 3:
            return plan
        shuffle: tuple[str, str | None] = ("reshuffle", None)
        if rng.random() < DECK_CHANGE_RATE:
            self.decks += 1
            shuffle = ("deck_change", f"{self.table_id}-D{self.decks:03d}")
        return replace(plan, shuffle=shuffle, bank_passed=passed, last_at_table=last)

    def _judge(self, plan: RoundPlan) -> dict[str, Any]:
        """The judge's result object for the plan's round document, as a plain dict, under
        the table's rulebook (its casino's rulesets)."""
        return dict(judge_document(document(plan), self.book, casino=self.casino))

    def _move_meter(self, truth: Round) -> None:
        """The meter after the round: less what percentage awards took from it (never below
        where it starts: a hit resets it there at least), plus the share of this round's
        progressive wagers."""
        if truth.plan.meter is None:
            return
        base = METER_BASE_CENTS[self.game]
        taken = meter_awards(truth.settled)
        self.meter_follows = not taken
        # from the meter as read: a reading that jumped (the fault meter_jump) stays jumped
        self.meter = max(base, truth.plan.meter - taken) if taken else truth.plan.meter
        wagered = sum(s.wagers.get("progressive", 0) for s in truth.plan.seats)
        self.meter += wagered * METER_SHARE_BPS // 10_000


LAYOUT_FROM = "2026-01-01T00:00:00Z"
"""When the simulator's own table layouts come into force (before any simulated shift)."""


def default_seat_order(table_index: int) -> tuple[int, ...]:
    """The seats of a simulated table from the dealer's far right, right to left, when its
    casino filed no layout for it. Seats are numbered from the dealer's left, so the highest
    is at the dealer's far right: seats 7 to 1 at tables T01 to T03, T08 to T11 ...; 6 to 1
    at T04 to T07 ... (six-seat tables: the simulator's pai gow seats are 1 to 6), so that a
    shift has tables of both sizes."""
    return (7, 6, 5, 4, 3, 2, 1) if (table_index // 4) % 2 == 0 else (6, 5, 4, 3, 2, 1)


def sim_layouts(*, tables: int, casino: str = "C01",
                book: Rulebook | None = None) -> tuple[TableLayout, ...]:
    """The simulator's own layouts (:func:`default_seat_order`) of the tables of a shift of
    ``tables`` tables whose casino filed none in ``book``, in force from
    :data:`LAYOUT_FROM`."""
    start = dt.datetime.fromtimestamp(SHIFT_START_US / 1e6, dt.UTC)
    return tuple(
        TableLayout(casino=casino, table_id=f"T{t:02d}",
                    seats_from_dealer_right=default_seat_order(t),
                    effective_from=parse_instant(LAYOUT_FROM), source="ingest/simulate.py")
        for t in range(1, tables + 1)
        if book is None or book.seat_order(casino, f"T{t:02d}", start) is None)


def with_layouts(*, tables: int, casino: str = "C01",
                 book: Rulebook | None = None) -> Rulebook:
    """``book`` (default the shipped rulesets) with the simulator's own layouts of the
    tables its casino did not lay out, as if the casino had filed them: the simulator deals
    by it and injects the faults of the order around the table, and replay judges by it.
    The in-memory form of :func:`layout_files` (files: none)."""
    base = shipped_book() if book is None else book
    return Rulebook(shipped=base.shipped, filed=base.filed, files=base.files,
                    layouts=(*base.layouts, *sim_layouts(tables=tables, casino=casino,
                                                         book=base)))


def layout_files(*, tables: int, casino: str = "C01",
                 book: Rulebook | None = None) -> dict[str, str]:
    """The table layouts a simulated shift of ``tables`` tables deals by and that its
    casino did not file in ``book``, as the files of a rulesets directory
    (``<casino>/tables/<table_id>.json``, docs/rulesets.md "Table layouts") to judge its
    rounds by: replay (and the checks) learn a table's layout only from a filing, as they
    learn its rules, so a shift replayed without them has its order around the table not
    evaluated. ``--layouts-out DIR`` writes them; a shift dealt by them (``--rulesets DIR``)
    has the faults of the order around the table too."""
    out = {}
    for x in sim_layouts(tables=tables, casino=casino, book=book):
        doc = {"casino": casino, "table_id": x.table_id,
               "layouts": [{"seats_from_dealer_right": list(x.seats_from_dealer_right),
                            "effective_from": LAYOUT_FROM, "effective_to": None}]}
        out[f"{casino}/tables/{x.table_id}.json"] = json.dumps(doc, indent=2) + "\n"
    return out


def write_layout_files(directory: Path, files: dict[str, str]) -> None:
    """Write :func:`layout_files` under ``directory`` (an existing file is replaced)."""
    for relative, text in files.items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def simulate_shift(*, tables: int, rounds: int, seed: int, fault_rate: float,
                   casino: str = "C01", games: Sequence[str] | None = None,
                   faults: Sequence[str] | None = None,
                   rich_hands: float = DEFAULT_RICH_HANDS,
                   book: Rulebook | None = None, vocabulary: int = VOCABULARY,
                   ) -> tuple[list[RoundEvent], list[Label]]:
    """Every event of a shift (tables interleaved in time order) and the injected faults.

    ``games`` (default all four) are dealt one per table in turn; ``faults`` (default all
    kinds of :data:`FAULT_KINDS`) are the kinds injected at ``fault_rate``; ``rich_hands``
    is the share of rounds where one party is dealt a strong hand; ``book`` the rulesets
    the tables deal by (replay/rulebook.py; default the shipped ones): the casino's own in
    force on the day of the shift, else the shipped one; ``vocabulary`` the schema id the
    events are for (:data:`VOCABULARIES`; below 3 the facts only schema id 3 carries are not
    recorded, and the fault kinds about them never strike). NoRulesetInForceError when the
    casino filed rulesets for a game and none is in force that day."""
    games = tuple(games) if games is not None else GAMES
    faults = tuple(faults) if faults is not None else tuple(FAULT_KINDS)
    _check_names("game", games, GAMES)
    _check_names("fault kind", faults, tuple(FAULT_KINDS))
    if vocabulary not in VOCABULARIES:
        raise ValueError(f"unknown schema id {vocabulary}; known: "
                         f"{', '.join(map(str, VOCABULARIES))}")
    sims = [TableSimulator(casino=casino, table_index=t, seed=seed, fault_rate=fault_rate,
                           game=games[(t - 1) % len(games)], faults=faults,
                           rich_hands=rich_hands, book=book, vocabulary=vocabulary)
            for t in range(1, tables + 1)]
    events = [e for sim in sims for n in range(1, rounds + 1)
              for e in sim.round(n, last=n == rounds)]
    events.sort(key=lambda e: (e.occurred_at_us, e.table_id, e.table_seq))
    return events, [label for sim in sims for label in sim.labels]


def _check_names(what: str, names: Sequence[str], known: Sequence[str]) -> None:
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise ValueError(f"unknown {what} {', '.join(map(repr, unknown)) or '(none given)'}; "
                         f"known: {', '.join(known)}")


# ---------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------

EPILOG = """\
examples:
  python -m ingest.simulate --tables 4 --rounds 50 --seed 7
      four tables, one of each game, no faults
  python -m ingest.simulate --tables 8 --rounds 200 --fault-rate 0.05 --labels var/labels.jsonl
      every fault kind now and then, each listed in var/labels.jsonl
  python -m ingest.simulate --tables 2 --rounds 100 --games face_up_pai_gow \\
      --faults envy_for_own_or_dealer_hand,jackpot_step_missing --fault-rate 0.5 --rich-hands 0.3
  python -m ingest.simulate --tables 4 --rounds 50 --casino C02 --rulesets docs/examples/rulesets
      casino C02's tables deal by its own filings (its Caribbean stud pays 250 to 1 on a royal)

games: {games}

fault kinds (--faults, default all; a faulty round has one, of a kind that can strike it):
{kinds}

labels (--labels FILE): one JSON line per injected fault,
  {{"casino": "C01", "round_id": "T03-000017", "kind": "overpay", "seat": 2,
   "wager": "main", "amount_cents": 500}}
  seat and wager are null where none is concerned; amount_cents is what is at stake (the
  difference of a wrong net, an Envy Bonus or jackpot award, a late wager's amount ...).

Kafka: KAFKA_BOOTSTRAP=host:port points at an existing cluster; otherwise the local broker
started by `make kafka-up` is used. Progress goes to standard error.
"""


def _parser() -> argparse.ArgumentParser:
    kinds = "\n".join(f"  {k:<30} {line}" for k, line in FAULT_KINDS.items())
    p = argparse.ArgumentParser(
        prog="python -m ingest.simulate",
        description="Simulate a shift of casino tables (classic and Face Up pai gow poker, pai "
        "gow tiles, Caribbean stud) and produce its events to Kafka, keyed by table. "
        "Settlements are what the rules engine judges, except the injected faults.",
        epilog=EPILOG.format(games=", ".join(GAMES), kinds=kinds),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--tables", type=int, required=True, help="number of tables (T01, T02 ...)")
    p.add_argument("--rounds", type=int, required=True, help="rounds per table")
    p.add_argument("--seed", type=int, default=1, help="RNG seed; same seed, same events")
    p.add_argument("--games", default=",".join(GAMES), metavar="GAME,...",
                   help="games dealt, one per table in turn (default all four)")
    p.add_argument("--fault-rate", type=float, default=0.0, metavar="F",
                   help="probability that a round has one injected fault (0 to 1, default 0)")
    p.add_argument("--faults", default="all", metavar="KIND,...",
                   help="fault kinds to inject (default all; see below)")
    p.add_argument("--rich-hands", type=float, default=DEFAULT_RICH_HANDS, metavar="P",
                   help="share of rounds where one party is dealt a strong hand (four of a kind "
                   "or better, a royal flush ...) so that Envy and jackpots happen "
                   f"(default {DEFAULT_RICH_HANDS})")
    p.add_argument("--labels", type=Path, default=None, metavar="FILE",
                   help="write each injected fault as a JSON line to FILE")
    p.add_argument("--pace", type=float, default=0.0, metavar="EVENTS_PER_S",
                   help="send at most this many events a second, as live tables would (default "
                   "0: as fast as the broker takes them); with `python -m ingest` and "
                   "`python -m checks --follow` running, flags reach the dashboard as it deals")
    p.add_argument("--casino", default="C01", help="casino id (default C01)")
    p.add_argument("--rulesets", type=Path, default=None, metavar="DIR",
                   help="deal by the casino's own rulesets in DIR (DIR/<casino>/<id>.json: "
                   "docs/rulesets.md; default $CATWALK_RULESETS, else the shipped ones); "
                   "a DIR with any problem is refused")
    p.add_argument("--schema-id", type=int, default=VOCABULARY, choices=VOCABULARIES,
                   help=f"write the events under this schema id (default {VOCABULARY}); under "
                   "2 the facts only schema id 3 carries (patrons, the banker's cover, hands "
                   "collected, shuffles, the bank passed, the dealer's changed hand) are not "
                   "recorded")
    p.add_argument("--layouts-out", type=Path, default=None, metavar="DIR",
                   help="file the simulator's own layouts of the tables the casino has not "
                   "laid out (the highest seat at the dealer's far right): the shift is dealt "
                   "by them, players put out of turn among the faults, and they are written "
                   "as DIR/<casino>/tables/<table_id>.json for `python -m replay --rulesets "
                   "DIR` (docs/rulesets.md); without layouts a table deals by seat number")
    p.add_argument("--topic", default=None, help="Kafka topic (default round-events)")
    p.add_argument("--bootstrap", default=None,
                   help="Kafka host:port (default $KAFKA_BOOTSTRAP or the local broker)")
    p.add_argument("--topic-settings", default=None, metavar="P,R,M",
                   help=TOPIC_SETTINGS_HELP)
    return p


def _default_topic() -> str:
    from ingest.kafka_io import DEFAULT_TOPIC

    return DEFAULT_TOPIC


FLUSH_TIMEOUT_S = 60.0
"""The longest the simulator waits for the last acknowledgements before giving up."""


def produce(servers: str, topic: str, events: Sequence[RoundEvent],
            settings: Any = None, *, pace: float = 0.0, schema_id: int = VOCABULARY) -> int:
    """Send the events (keyed by table) and wait for every acknowledgement; print what
    failed. Returns the number of events not delivered (0: all acknowledged). Never hangs:
    every wait on the broker is bounded (ingest/kafka_io.py). ``pace`` (events per second,
    0 for as fast as the broker takes them) spreads the shift over time, as live tables do;
    ``schema_id`` is the writer schema of every event."""
    from kafka.errors import KafkaError

    from ingest.kafka_io import ensure_topic, producer
    from schemas import encode

    total = len(events)
    failures: list[str] = []
    acked = 0

    def delivered(_: Any) -> None:
        nonlocal acked
        acked += 1

    def failed(exc: BaseException) -> None:
        failures.append(_brief(exc))

    try:
        ensure_topic(servers, topic, settings)
        kp = producer(servers)
    except KafkaError as exc:
        print(f"simulate: FAILED: cannot reach Kafka at {servers} ({_brief(exc)}); nothing "
              "was sent. Is the broker up? (`make kafka-up`, or set "
              "KAFKA_BOOTSTRAP)", file=sys.stderr)
        return total
    try:
        started = time.monotonic()
        for i, event in enumerate(events, start=1):
            if pace > 0:
                ahead = started + i / pace - time.monotonic()
                if ahead > 0:
                    kp.flush(timeout=FLUSH_TIMEOUT_S)  # what is due goes out before the wait
                    time.sleep(ahead)
            try:
                # stamped with the simulated table's (right) clock, as a gateway would
                # stamp the shift it forwards: replay compares the two (replay/clock.py)
                future = kp.send(topic, value=encode(event, schema_id=schema_id),
                                 key=event.table_id.encode(),
                                 timestamp_ms=event.occurred_at_us // 1000)
            except KafkaError as exc:  # send() itself gave up (max_block_ms)
                failed(exc)
                print(f"simulate: Kafka at {servers} stopped taking events after {i - 1:,} "
                      f"of {total:,}", file=sys.stderr)
                break
            future.add_callback(delivered).add_errback(failed)
            if i % 5000 == 0 or i == total or (pace and i % max(1, int(pace * 10)) == 0):
                print(f"simulate: {i:,}/{total:,} events sent", file=sys.stderr, flush=True)
        try:
            kp.flush(timeout=FLUSH_TIMEOUT_S)
        except KafkaError as exc:
            failed(exc)
    finally:
        try:
            kp.close(timeout=5)
        except Exception as exc:  # the broker is gone: nothing more to deliver
            failed(exc)
    if acked < total:
        first = failures[0] if failures else "no acknowledgement"
        print(f"simulate: FAILED: {total - acked:,} of {total:,} events were not acknowledged "
              f"by Kafka at {servers} (first error: {first}); the topic {topic} may hold "
              "part of the shift. Check the broker and run again into a new topic.",
              file=sys.stderr)
    return total - acked


def _brief(exc: BaseException) -> str:
    name, text = type(exc).__name__, str(exc)
    return text if text.startswith(name) else f"{name}: {text}"


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    games = _names(args.games)
    faults = list(FAULT_KINDS) if args.faults.strip() == "all" else _names(args.faults)
    problems = []
    if args.tables < 1 or args.rounds < 1:
        problems.append("--tables and --rounds must be at least 1")
    if not 0.0 <= args.pace <= 1_000_000:
        problems.append(f"--pace must be between 0 and 1000000 events a second, got {args.pace}")
    for name, value in (("--fault-rate", args.fault_rate), ("--rich-hands", args.rich_hands)):
        if not 0.0 <= value <= 1.0:
            problems.append(f"{name} must be between 0 and 1, got {value}")
    for what, names, known in (("--games: game", games, GAMES),
                               ("--faults: fault kind", faults, tuple(FAULT_KINDS))):
        try:
            _check_names(what, names, known)
        except ValueError as exc:
            problems.append(str(exc))
    if problems:
        for problem in problems:
            print(f"simulate: {problem}", file=sys.stderr)
        return 2
    from replay.errors import NoRulesetInForceError
    from replay.rulesets_cli import load_book, rulesets_dir

    book = load_book(rulesets_dir(args.rulesets), "simulate")
    if isinstance(book, int):
        return book
    from ingest.kafka_io import NoClusterError, SettingsError, bootstrap_servers, topic_settings

    try:
        servers = bootstrap_servers(args.bootstrap)
        settings = topic_settings(args.topic_settings)
    except (NoClusterError, SettingsError) as exc:
        print(f"simulate: {exc}", file=sys.stderr)
        return 2
    topic = args.topic or _default_topic()
    if args.layouts_out is not None:
        # the simulator's own layouts filed for the tables the casino did not lay out: the
        # shift is dealt by them, and replay judges by the files written
        write_layout_files(args.layouts_out, layout_files(tables=args.tables,
                                                          casino=args.casino, book=book))
        book = with_layouts(tables=args.tables, casino=args.casino, book=book)
    try:
        events, labels = simulate_shift(tables=args.tables, rounds=args.rounds,
                                        seed=args.seed, fault_rate=args.fault_rate,
                                        casino=args.casino, games=games, faults=faults,
                                        rich_hands=args.rich_hands, book=book,
                                        vocabulary=args.schema_id)
    except NoRulesetInForceError as exc:
        print(f"simulate: {exc}", file=sys.stderr)
        return 2
    if args.labels is not None:
        args.labels.parent.mkdir(parents=True, exist_ok=True)
        args.labels.write_text("".join(label.to_json() + "\n" for label in labels))
    failed = produce(servers, topic, events, settings, pace=args.pace,
                     schema_id=args.schema_id)
    if failed:
        return 1
    print(f"simulate: {args.tables} tables x {args.rounds} rounds = {len(events):,} events to "
          f"{topic}; {len(labels)} injected faults"
          + (f" listed in {args.labels}" if args.labels else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
