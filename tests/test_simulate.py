"""The table simulator: deterministic, every game dealt as the event protocol says, and every
settlement it records is what the rules engine judges from the events alone.

The rounds are rebuilt here from their events by a small fold of the test's own (not from
the simulator's internals), into the README's round document, and judged by
``replay.adjudicate.judge_document``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import pairwise
from typing import Any

import pytest

from ingest.sim_deal import METER_BASE_CENTS
from ingest.simulate import FAULT_KINDS, GAMES, main, simulate_shift
from replay.adjudicate import judge_document
from replay.rulesets import default_ruleset
from schemas import (
    JACKPOT_STEPS,
    BankerSettled,
    BankPassed,
    CardsDealt,
    EnvyBonusPaid,
    HandChanged,
    HandCollected,
    HandSet,
    HandsExposed,
    JackpotHit,
    JackpotVerified,
    PlayerActed,
    ProgressiveMeterRead,
    RoundEnded,
    RoundEvent,
    RoundStarted,
    Shuffled,
    TilesDealt,
    WagerPlaced,
    WagerSettled,
    decode,
    encode,
)

ALL_GAMES = ("pai_gow_poker", "face_up_pai_gow", "pai_gow_tiles", "caribbean_stud")


def by_round(events: list[RoundEvent]) -> dict[str, list[RoundEvent]]:
    rounds: dict[str, list[RoundEvent]] = defaultdict(list)
    for e in events:
        rounds[e.round_id].append(e)
    return {r: sorted(evs, key=lambda e: e.table_seq) for r, evs in rounds.items()}


def kinds(evs: list[RoundEvent], kind: type) -> list[Any]:
    return [e.payload for e in evs if isinstance(e.payload, kind)]


def round_document(evs: list[RoundEvent]) -> dict[str, Any]:
    """The round document the events describe: the last HandSet (or the dealer's
    HandChanged) of each party counts, a Caribbean seat that neither folded nor conceded
    raised, a seat that withdrew shows no hands."""
    start = kinds(evs, RoundStarted)[0]
    tiles = bool(kinds(evs, TilesDealt))
    key = "tiles" if tiles else "cards"
    dealt = {p.seat: (p.tiles if tiles else p.cards)
             for p in kinds(evs, TilesDealt) + kinds(evs, CardsDealt)}
    sets = {e.payload.seat: (e.payload.high, e.payload.low) for e in evs
            if isinstance(e.payload, HandSet | HandChanged)}
    actions = {p.seat: p.action for p in kinds(evs, PlayerActed)}
    wagers: dict[int | None, dict[str, int]] = defaultdict(dict)
    for p in kinds(evs, WagerPlaced):
        wagers[p.seat][p.wager] = p.amount_cents
    meter = kinds(evs, ProgressiveMeterRead)
    dealer: dict[str, Any] = {key: list(dealt[None])}
    if None in sets:
        dealer["high"], dealer["low"] = list(sets[None][0]), list(sets[None][1])
    if wagers.get(None):
        dealer["wager"] = wagers[None]["main"]
    seats = []
    for seat in sorted(s for s in dealt if s is not None):
        entry: dict[str, Any] = {"seat": seat, key: list(dealt[seat])}
        action = actions.get(seat, "play")
        if seat in sets and action != "withdraw":
            entry["high"], entry["low"] = list(sets[seat][0]), list(sets[seat][1])
        entry["action"] = "play" if action == "raise" else action
        entry["wagers"] = wagers.get(seat, {})
        seats.append(entry)
    doc: dict[str, Any] = {
        "round_id": evs[0].round_id, "game": start.game,
        "banker": ("dealer" if start.banker_seat is None
                   else {"seat": start.banker_seat, "co_bank": start.co_bank}),
        "dealer": dealer, "seats": seats,
    }
    if meter:
        doc["progressive_meter"] = meter[0].meter_cents
    return doc


def deviations(evs: list[RoundEvent]) -> set[tuple[Any, ...]]:
    """Where the recorded settlements differ from the judge's: (seat, wager, recorded net -
    judged net), (seat, "outcome"/"commission", recorded, judged), (seat, "envy", recorded
    total, judged), ("banker", recorded, judged), jackpot irregularities. Empty when the
    table settled exactly what the rules require."""
    result = judge_document(round_document(evs))
    out: set[tuple[Any, ...]] = set()
    settled = {(p.seat, p.wager): p for p in kinds(evs, WagerSettled)}
    judged: dict[tuple[int | None, str], dict[str, Any]] = {
        (s["seat"], w): e for s in result["seats"] for w, e in s["wagers"].items()}
    if result["dealer"]["net"] or any(p.seat is None for p in kinds(evs, WagerPlaced)):
        net = result["dealer"]["net"]
        judged[(None, "main")] = {"net": net, "commission": 0,
                                  "outcome": "win" if net > 0 else "loss" if net < 0 else "push"}
    for key in set(settled) | set(judged):
        p, e = settled.get(key), judged.get(key)
        if p is None or e is None:
            out.add((*key, "settled" if p else "unsettled"))
            continue
        if p.net_cents != e["net"]:
            out.add((*key, p.net_cents - e["net"]))
        if p.outcome != e["outcome"]:
            out.add((*key, "outcome", p.outcome, e["outcome"]))
        if p.commission_cents != e["commission"]:
            out.add((*key, "commission", p.commission_cents, e["commission"]))
    envy: Counter[int] = Counter()
    for p in kinds(evs, EnvyBonusPaid):
        envy[p.seat] += p.amount_cents
    for s in result["seats"]:
        if envy[s["seat"]] != s["envy"]:
            out.add((s["seat"], "envy", envy[s["seat"]], s["envy"]))
    banker = kinds(evs, BankerSettled)
    if "banker" in result or banker:
        recorded = (banker[0].seat, banker[0].net_cents, banker[0].commission_cents) \
            if banker else None
        b = result.get("banker")
        expected = (b["seat"], b["net"], b["commission"]) if b else None
        if recorded != expected:
            out.add(("banker", recorded, expected))
    out |= jackpot_problems(evs, judged, start=kinds(evs, RoundStarted)[0].game)
    return out


def jackpot_problems(evs: list[RoundEvent], judged: dict[tuple[int | None, str], Any],
                     *, start: str) -> set[tuple[Any, ...]]:
    """Every winning Progressive has a JackpotHit of its award and the five verification
    steps in order, paid from the meter exactly when the award is a share of the meter."""
    out: set[tuple[Any, ...]] = set()
    table = default_ruleset(start).paytables.get("progressive", {})
    hits = {p.seat: p for p in kinds(evs, JackpotHit)}
    winners = {seat for (seat, w), e in judged.items()
               if w == "progressive" and e["outcome"] == "win"}
    if set(hits) != winners:
        out.add(("jackpot", "hits", tuple(sorted(hits)), tuple(sorted(winners))))
    for seat, hit in hits.items():
        steps = [p for p in kinds(evs, JackpotVerified) if p.seat == seat]
        if tuple(p.step for p in steps) != JACKPOT_STEPS:
            out.add((seat, "steps", tuple(p.step for p in steps)))
        won = judged.get((seat, "progressive"))
        if won is not None and hit.award_cents != won["net"]:
            out.add((seat, "award", hit.award_cents))
        paid = [p.paid_from for p in steps if p.step == "paid"]
        right = "meter" if hit.hand in table and table[hit.hand].meter_bps else "table_inventory"
        if paid and paid[0] != right:
            out.add((seat, "paid_from", paid[0]))
    return out


@pytest.fixture(scope="module")
def shift() -> tuple[list[RoundEvent], list[Any]]:
    """A fault-free shift, one table of each game twice over, with strong hands often."""
    return simulate_shift(tables=8, rounds=40, seed=5, fault_rate=0.0, rich_hands=0.25)


def test_same_seed_same_events_byte_for_byte():
    a, la = simulate_shift(tables=4, rounds=6, seed=3, fault_rate=0.5)
    b, lb = simulate_shift(tables=4, rounds=6, seed=3, fault_rate=0.5)
    c, _ = simulate_shift(tables=4, rounds=6, seed=4, fault_rate=0.5)
    assert [encode(e) for e in a] == [encode(e) for e in b]
    assert [x.to_json() for x in la] == [x.to_json() for x in lb] and la
    assert [e.event_id for e in a] != [e.event_id for e in c]
    assert all(decode(encode(e)) == e for e in a)


def test_every_game_is_dealt_one_per_table_in_turn(shift):
    events, labels = shift
    assert labels == []
    games = {e.table_id: e.payload.game for e in events if isinstance(e.payload, RoundStarted)}
    assert games == {f"T{t:02d}": ALL_GAMES[(t - 1) % 4] for t in range(1, 9)}
    assert GAMES == ALL_GAMES
    only, _ = simulate_shift(tables=3, rounds=2, seed=1, fault_rate=0.0,
                             games=["caribbean_stud"])
    assert {e.payload.game for e in only if isinstance(e.payload, RoundStarted)} == {
        "caribbean_stud"}


def test_each_table_is_ordered_and_gapless(shift):
    events, _ = shift
    for table in {e.table_id for e in events}:
        seqs = [e.table_seq for e in events if e.table_id == table]
        assert seqs == list(range(1, len(seqs) + 1))
    assert [e.occurred_at_us for e in events] == sorted(e.occurred_at_us for e in events)
    assert len({e.event_id for e in events}) == len(events)


def test_deals_are_real_decks_without_repeats(shift):
    events, _ = shift
    for evs in by_round(events).values():
        game = kinds(evs, RoundStarted)[0].game
        if game == "pai_gow_tiles":
            hands = [p.tiles for p in kinds(evs, TilesDealt)]
            assert all(len(h) == 4 for h in hands)
            counts = Counter(t for h in hands for t in h)
            doubled = {"6-6", "1-1", "4-4", "1-3", "5-5", "3-3", "2-2", "5-6", "4-6", "1-6",
                       "1-5"}
            assert all(n <= (2 if t in doubled else 1) for t, n in counts.items()), counts
            continue
        hands = [p.cards for p in kinds(evs, CardsDealt)]
        size = 5 if game == "caribbean_stud" else 7
        assert all(len(h) == size for h in hands)
        dealt = [c for h in hands for c in h]
        assert len(dealt) == len(set(dealt))
        assert game != "caribbean_stud" or "Jk" not in dealt
        for p in kinds(evs, HandSet):
            hand = next(h for h in kinds(evs, CardsDealt) + kinds(evs, TilesDealt)
                        if h.seat == p.seat)
            assert sorted(p.high + p.low) == sorted(getattr(hand, "cards", None)
                                                    or hand.tiles)


def test_every_recorded_settlement_is_what_the_judge_rules(shift):
    """The heart of it: each round rebuilt from its events and judged gives exactly the
    recorded WagerSettled, Envy Bonuses, jackpots and banker's account."""
    events, _ = shift
    rounds = by_round(events)
    assert len(rounds) == 320
    wrong = {r: d for r, evs in rounds.items() if (d := deviations(evs))}
    assert wrong == {}
    placed = sum(1 for e in events if isinstance(e.payload, WagerPlaced))
    assert placed == sum(1 for e in events if isinstance(e.payload, WagerSettled))


def test_a_realistic_shift_has_every_situation(shift):
    events, _ = shift
    rounds = by_round(events)
    starts = [e.payload for e in events if isinstance(e.payload, RoundStarted)]
    classic = [s for s in starts if s.game == "pai_gow_poker"]
    assert any(s.banker_seat and s.co_bank for s in classic)
    assert any(s.banker_seat and not s.co_bank for s in classic)
    assert sum(s.banker_seat is None for s in classic) > len(classic) / 2
    actions = Counter(p.action for p in kinds(events, PlayerActed))
    assert {"fold", "raise", "concede", "withdraw"} <= set(actions)
    wagers = Counter((kinds(rounds[e.round_id], RoundStarted)[0].game, e.payload.wager)
                     for e in events if isinstance(e.payload, WagerPlaced))
    assert {("face_up_pai_gow", w) for w in ("main", "ace_high", "fortune", "progressive")} \
        <= set(wagers)
    assert {("pai_gow_poker", w) for w in ("main", "fortune", "progressive")} <= set(wagers)
    assert {("caribbean_stud", w) for w in ("ante", "raise", "progressive")} <= set(wagers)
    assert any(p.seat is None for p in kinds(events, WagerPlaced)), "dealer's own wager"
    assert kinds(events, EnvyBonusPaid) and kinds(events, JackpotHit)
    amounts = {p.amount_cents for p in kinds(events, WagerPlaced) if p.wager == "progressive"}
    assert {100, 500} <= amounts
    resets = [evs for evs in rounds.values()
              if len({p.seat for p in kinds(evs, HandSet)}) < len(kinds(evs, HandSet))]
    assert resets, "a seat or dealer that set twice"


def test_the_progressive_meter_grows_and_resets_after_a_percentage_award():
    """Between two reads the meter grows by 20% of the progressive wagers of the first
    round, after what that round's percentage awards took (never below where it starts)."""
    events, _ = simulate_shift(tables=4, rounds=120, seed=2, fault_rate=0.0, rich_hands=0.3,
                               games=["caribbean_stud", "face_up_pai_gow"])
    rounds = by_round(events)
    resets = 0
    for table in {e.table_id for e in events}:
        game = next(e.payload.game for e in events
                    if e.table_id == table and isinstance(e.payload, RoundStarted))
        reads = [(e.round_id, e.payload.meter_cents) for e in events
                 if e.table_id == table and isinstance(e.payload, ProgressiveMeterRead)]
        assert len(reads) > 30
        for (r0, m0), (_, m1) in pairwise(reads):
            evs = rounds[r0]
            awards = {p.seat: p.award_cents for p in kinds(evs, JackpotHit)}
            taken = sum(awards[p.seat] for p in kinds(evs, JackpotVerified)
                        if p.step == "paid" and p.paid_from == "meter")
            wagered = sum(p.amount_cents for p in kinds(evs, WagerPlaced)
                          if p.wager == "progressive")
            assert m1 == max(METER_BASE_CENTS[game], m0 - taken) + wagered // 5, (r0, m0, m1)
            resets += taken > 0
        assert reads[-1][1] != reads[0][1]
    assert resets >= 2


SETTLEMENT_ORDER = {WagerSettled: 0, EnvyBonusPaid: 1, JackpotHit: 2, JackpotVerified: 2,
                    BankerSettled: 3}


def _index(evs: list[RoundEvent], test) -> list[int]:
    return [i for i, e in enumerate(evs) if test(e.payload)]


def test_the_event_protocol_holds(shift):
    events, _ = shift
    for evs in by_round(events).values():
        p = [e.payload for e in evs]
        game = p[0].game
        assert isinstance(p[0], RoundStarted) and isinstance(p[-1], RoundEnded)
        deals = _index(evs, lambda x: isinstance(x, CardsDealt | TilesDealt))
        assert p[deals[-1]].seat is None and all(p[i].seat is not None for i in deals[:-1])
        first_deal = deals[0]
        meter = _index(evs, lambda x: isinstance(x, ProgressiveMeterRead))
        placed = _index(evs, lambda x: isinstance(x, WagerPlaced))
        progressive = any(p[i].wager == "progressive" for i in placed)
        assert len(meter) == (1 if progressive else 0)
        assert all(i < min(placed) for i in meter)
        assert all(i < first_deal for i in placed if p[i].wager != "raise")
        settles = _index(evs, lambda x: isinstance(x, WagerSettled | EnvyBonusPaid | JackpotHit
                                                   | JackpotVerified | BankerSettled))
        before = _index(evs, lambda x: isinstance(x, HandSet | HandsExposed | PlayerActed
                                                   | HandChanged))
        assert max(before) < min(settles)
        _closing_protocol(p, max(settles))
        stage = [SETTLEMENT_ORDER[type(p[i])] for i in settles]
        assert stage == sorted(stage)
        for i in _index(evs, lambda x: isinstance(x, JackpotHit)):
            assert [(q.seat, q.step) for q in p[i + 1:i + 6]] == [
                (p[i].seat, s) for s in JACKPOT_STEPS]
        dealer_exposed = _index(evs, lambda x: isinstance(x, HandsExposed) and x.seat is None)
        assert len(dealer_exposed) == 1
        if game == "caribbean_stud":
            _caribbean_protocol(p, dealer_exposed[0])
        elif game == "face_up_pai_gow":
            dealer_sets = _index(evs, lambda x: isinstance(x, HandSet) and x.seat is None)
            player_sets = _index(evs, lambda x: isinstance(x, HandSet) and x.seat is not None)
            assert max(dealer_sets) < dealer_exposed[0] < min(player_sets)
            _exposed_after_last_set(p)
        else:
            _banked_protocol(p, dealer_exposed[0])


def _closing_protocol(p: list[Any], last_settlement: int) -> None:
    """After the last settlement: every party's hand collected once (the dealer's last),
    the reshuffle or a deck change, the bank passed when it is, then RoundEnded."""
    tail = p[last_settlement + 1:]
    seats = [x.seat for x in p if isinstance(x, CardsDealt | TilesDealt)]
    collected = [x.seat for x in tail if isinstance(x, HandCollected)]
    assert collected == [*sorted(s for s in seats if s is not None), None]
    assert isinstance(tail[len(collected)], Shuffled)
    rest = [type(x) for x in tail[len(collected) + 1:]]
    assert rest in ([RoundEnded], [BankPassed, RoundEnded])
    assert not any(isinstance(x, HandCollected | Shuffled | BankPassed)
                   for x in p[:last_settlement])


def _exposed_after_last_set(p: list[Any]) -> None:
    for i, x in enumerate(p):
        if isinstance(x, HandSet):
            exposed = [j for j, y in enumerate(p) if isinstance(y, HandsExposed)
                       and y.seat == x.seat]
            assert len(exposed) == 1 and exposed[0] > i


def _caribbean_protocol(p: list[Any], dealer_exposed: int) -> None:
    assert not any(isinstance(x, HandSet) for x in p)
    antes = {x.seat: x.amount_cents for x in p if isinstance(x, WagerPlaced)
             and x.wager == "ante"}
    decided: Counter[int] = Counter()
    for i, x in enumerate(p):
        if isinstance(x, PlayerActed) and x.action in ("fold", "raise"):
            decided[x.seat] += 1
            assert i < dealer_exposed
            if x.action == "raise":
                nxt = p[i + 1]
                assert isinstance(nxt, WagerPlaced) and (nxt.seat, nxt.wager) == (x.seat, "raise")
                assert nxt.amount_cents == 2 * antes[x.seat]
        if isinstance(x, PlayerActed) and x.action == "concede":
            assert i > dealer_exposed
            assert any(isinstance(y, PlayerActed) and y.seat == x.seat and y.action == "raise"
                       for y in p[:i])
    assert decided == Counter(dict.fromkeys(antes, 1))


def _banked_protocol(p: list[Any], dealer_exposed: int) -> None:
    banker = p[0].banker_seat
    sets = [(i, x.seat) for i, x in enumerate(p) if isinstance(x, HandSet)]
    players = [i for i, s in sets if s is not None and s != banker]
    banker_sets = [i for i, s in sets if s is not None and s == banker]
    dealer_sets = [i for i, s in sets if s is None]
    assert dealer_sets and max(players + banker_sets, default=-1) < min(dealer_sets)
    assert not players or not banker_sets or max(players) < min(banker_sets)
    assert bool(banker_sets) == (banker is not None)
    # the dealer's hand exposed first, then the player banker's, then the players'
    # (pai gow poker procedure (4), (5), (7); PR pai gow tiles ¶ C, ¶ G)
    exposed = [(i, x.seat) for i, x in enumerate(p) if isinstance(x, HandsExposed)]
    assert exposed[0] == (dealer_exposed, None) and dealer_exposed > max(dealer_sets)
    if banker is not None:
        assert exposed[1][1] == banker
    # the dealer changes the exposed hand (and only its own) before the banker's is shown
    for i, x in enumerate(p):
        if isinstance(x, HandChanged):
            assert x.seat is None and banker is not None and p[0].game == "pai_gow_poker"
            assert dealer_exposed < i < exposed[1][0]
    for i, x in enumerate(p):
        if isinstance(x, PlayerActed):
            assert x.action == "withdraw" and x.seat != banker
            assert dealer_exposed < i < min(j for j, s in exposed if s is not None)
            assert not any(isinstance(y, HandSet | HandsExposed) and y.seat == x.seat for y in p)
    _exposed_after_last_set(p)


@pytest.mark.parametrize(("argv", "message"), [
    (["--games", "pai_gow_poker,baccarat"], "unknown --games: game 'baccarat'; known: "
     "pai_gow_poker, face_up_pai_gow, pai_gow_tiles, caribbean_stud"),
    (["--faults", "overpay,shortchange"], "unknown --faults: fault kind 'shortchange'; known: "
     "overpay, underpay"),
    (["--faults", ","], "(none given)"),
    (["--fault-rate", "1.5"], "--fault-rate must be between 0 and 1"),
])
def test_bad_arguments_are_named_with_exit_2_and_no_traceback(argv, message, capsys):
    assert main(["--tables", "1", "--rounds", "1", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_help_teaches_the_games_the_fault_kinds_and_the_labels(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and '"amount_cents"' in out
    for name in (*ALL_GAMES, *FAULT_KINDS):
        assert name in out
