"""outcome_word_wrong: a settlement whose recorded outcome word (win, loss, push, void) is not
the one the rules judge, while its money is right, on tiny hand-built replay outputs for every
game and through replay of a small hand-built log, with the lawful words that must pass: a
push recorded as a push, a void raise recorded as a push (a stand off), a few-cent tiles win
whose whole win the house took as vigorish recorded as a push, a round not evaluated, a
voided round, a settlement put right by a correction; and on a simulated shift whose only
fault is the word."""

from __future__ import annotations

import collections

import pyarrow.parquet as pq
import pytest

from checks.runner import run_all
from ingest.simulate import simulate_shift
from replay.run import replay
from schemas import EventCorrected, RoundEnded, RoundVoided, WagerSettled, encode
from tests.events_factory import Table, events_of_document
from tests.test_checks import _round
from tests.test_checks_settlement import SETTLEMENT, _run
from tests.test_replay_games import _replay
from tests.test_replay_workers import _write as _write_log

CHECK = "outcome_word_wrong"
GAMES = {"pai_gow_poker": "main", "face_up_pai_gow": "main", "pai_gow_tiles": "main",
         "caribbean_stud": "ante"}


def _row(round_id, seat, game, wager, amount, recorded, expected, *, net_range=None,
         position=None):
    rec_outcome, rec_net, rec_comm = recorded if recorded else (None, None, None)
    exp_outcome, exp_net, exp_comm = expected if expected else (None, None, None)
    low, high = net_range if net_range else (exp_net, exp_net)
    return {"round_id": round_id, "table_id": "T01", "game": game, "seat": seat,
            "position": position or ("dealer" if seat is None else f"seat {seat}"),
            "wager": wager, "amount_cents": amount,
            "recorded_outcome": rec_outcome, "recorded_net_cents": rec_net,
            "recorded_commission_cents": rec_comm, "expected_outcome": exp_outcome,
            "expected_net_cents": exp_net, "expected_commission_cents": exp_comm,
            "expected_net_min_cents": low, "expected_net_max_cents": high,
            "expected_commission_min_cents": exp_comm, "expected_commission_max_cents": exp_comm}


def _flagged(flags, check_id=CHECK):
    return sorted(((f["round_id"], f["seat"], f["wager"]) for f in flags
                   if f["check_id"] == check_id), key=lambda x: (x[0], x[1] or 0, x[2]))


@pytest.fixture
def tables(tmp_path):
    rounds, wagers = [], []
    for n, (game, main) in enumerate(GAMES.items(), 1):
        rid = f"G{n}"
        rounds.append({**_round(rid), "game": game})
        wagers += [
            _row(rid, 1, game, main, 1000, ("win", 0, 0), ("push", 0, 0)),        # flag
            _row(rid, 2, game, main, 1000, ("push", -1000, 0), ("loss", -1000, 0)),  # flag
            _row(rid, 3, game, main, 1000, ("push", 0, 0), ("push", 0, 0)),       # trap
            _row(rid, 4, game, main, 1000, ("loss", -1000, 0), ("loss", -1000, 0)),  # trap
            _row(rid, 5, game, main, 1000, ("loss", 0, 0), ("push", 0, 0)),       # flag
            # money wrong as well: the money checks' case, never this one
            _row(rid, 6, game, main, 1000, ("win", 1000, 0), ("push", 0, 0)),
        ]
    rounds += [{**_round("X1"), "game": "caribbean_stud"},
               {**_round("X2"), "game": "pai_gow_tiles"},
               {**_round("X3", evaluated=False, problems=["the dealer was never dealt cards"])},
               {**_round("X4"), "voided": True, "void_reason": "shuffle machine fault"},
               _round("X5")]
    wagers += [
        # the dealer did not qualify: the raise is void, and a push (a stand off) returns it too
        _row("X1", 1, "caribbean_stud", "raise", 2000, ("push", 0, 0), ("void", 0, 0)),
        _row("X1", 1, "caribbean_stud", "ante", 1000, ("win", 1000, 0), ("win", 1000, 0)),
        # ... but a win for 0 is not what the void says
        _row("X1", 2, "caribbean_stud", "raise", 2000, ("win", 0, 0), ("void", 0, 0)),
        # a 10-cent tiles win: the house may take the whole win as vigorish (6a.2), so the
        # wager returned as a push for 0, or recorded a win for 0, is lawful
        _row("X2", 1, "pai_gow_tiles", "main", 10, ("push", 0, 0), ("win", 0, 10),
             net_range=(0, 10)),
        _row("X2", 2, "pai_gow_tiles", "main", 10, ("win", 0, 10), ("win", 0, 10),
             net_range=(0, 10)),
        # ... but a push for a lawful net above 0 is not
        _row("X2", 3, "pai_gow_tiles", "main", 10, ("push", 10, 0), ("win", 0, 10),
             net_range=(0, 10)),
        # a round not evaluated: judged by no one but not_evaluated
        _row("X3", 1, "pai_gow_poker", "main", 1000, ("win", 0, 0), None),
        # a voided round returns every wager, whatever the word
        _row("X4", 1, "pai_gow_poker", "main", 1000, ("push", 0, 0), ("void", 0, 0)),
        _row("X4", 2, "pai_gow_poker", "main", 1000, ("win", 0, 0), ("void", 0, 0)),
        # the dealer's own wager against a player banker is judged like any other
        _row("X5", None, "pai_gow_poker", "main", 1000, ("win", 0, 0), ("push", 0, 0)),
        # the player banker's own main wager has no expected outcome; unsettled is unsettled's
        _row("X5", 6, "pai_gow_poker", "main", 0, ("win", 9000, 0), None, position="banker"),
        _row("X5", 1, "pai_gow_poker", "main", 1000, None, ("win", 950, 50)),
    ]
    return _run(tmp_path, {"rounds": rounds, "wagers": wagers})


def test_a_wrong_word_with_the_right_money_is_flagged_in_every_game(tables):
    expected = [(f"G{n}", seat, main) for n, main in enumerate(GAMES.values(), 1)
                for seat in (1, 2, 5)]
    assert [f for f in _flagged(tables) if f[0].startswith("G")] == expected


def test_a_push_recorded_as_a_win_for_nothing_says_both_words_and_the_net(tables):
    (flag,) = [f for f in tables if f["check_id"] == CHECK and (f["round_id"], f["seat"])
               == ("G1", 1)]
    assert flag["severity"] == "low"
    assert flag["detail"] == ("pai_gow_poker seat 1 main of 1000: recorded win 0, the rules "
                              "judge it push 0 (cents): the money is right, the outcome word "
                              "is not")
    assert flag["recorded_cents"] == 0 and flag["expected_cents"] is None
    assert flag["amount_at_stake_cents"] is None


def test_the_lawful_words_and_the_rounds_not_judged_here_are_not_flagged(tables):
    others = [f for f in _flagged(tables) if not f[0].startswith("G")]
    assert others == [("X1", 2, "raise"), ("X2", 3, "main"), ("X5", None, "main")]


def test_a_wrong_word_with_wrong_money_is_left_to_exactly_one_money_check(tables):
    for n in range(1, len(GAMES) + 1):
        money = [f["check_id"] for f in tables
                 if (f["round_id"], f["seat"]) == (f"G{n}", 6) and f["check_id"] in SETTLEMENT]
        assert money == ["overpay"]
        assert (f"G{n}", 6) not in {f[:2] for f in _flagged(tables)}


def test_no_money_check_flags_a_wrong_word_whose_money_is_right(tables):
    words = set(_flagged(tables))
    money = {(f["round_id"], f["seat"], f["wager"]) for f in tables
             if f["check_id"] in SETTLEMENT}
    assert not words & money


# Through replay, from the events a table would send ----------------------------------------

POKER = {"round_id": "P1", "game": "pai_gow_poker",
         "dealer": {"cards": ["Kc", "Kd", "9s", "7h", "3c", "Ah", "Qs"],
                    "high": ["Kc", "Kd", "9s", "7h", "3c"], "low": ["Ah", "Qs"]},
         "seats": [{"seat": 1, "cards": ["5s", "5h", "5d", "Tc", "2c", "As", "Kh"],
                    "high": ["5s", "5h", "5d", "Tc", "2c"], "low": ["As", "Kh"],
                    "wagers": {"main": 2500}},
                   {"seat": 3, "cards": ["6c", "5c", "4d", "3h", "2h", "8s", "6d"],
                    "high": ["6c", "5c", "4d", "3h", "2h"], "low": ["8s", "6d"],
                    "wagers": {"main": 4000}}]}
"""Seat 1 wins 2375 (commission 125); seat 3 splits: a push (README, round r-17)."""

CARIBBEAN = {"round_id": "C1", "game": "caribbean_stud",
             "dealer": {"cards": ["Qh", "Jd", "9c", "5s", "2d"]},
             "seats": [{"seat": 1, "cards": ["Qs", "Qd", "7d", "7c", "3s"], "action": "play",
                        "wagers": {"ante": 1000, "raise": 2000}},
                       {"seat": 2, "cards": ["Ts", "Js", "8d", "4s", "2c"], "action": "fold",
                        "wagers": {"ante": 1000}}]}
"""The dealer's queen high does not qualify: seat 1's ante wins 1000 and its raise is void;
seat 2 folded and loses its ante."""

TILES = {"round_id": "T1", "game": "pai_gow_tiles",
         "dealer": {"tiles": ["4-5", "3-6", "1-3", "2-2"], "high": ["4-5", "3-6"],
                    "low": ["1-3", "2-2"]},
         "seats": [{"seat": 1, "tiles": ["5-5", "5-5", "6-6", "6-6"], "high": ["6-6", "6-6"],
                    "low": ["5-5", "5-5"], "wagers": {"main": 10}},
                   {"seat": 2, "tiles": ["4-4", "1-1", "3-4", "2-6"], "action": "withdraw",
                    "wagers": {"main": 2500}}]}
"""Seat 1 wins 10 cents, all of which the house may take as vigorish (net 0 to 10); seat 2
withdrew and loses its wager."""


FACE_UP = {"round_id": "F1", "game": "face_up_pai_gow", "progressive_meter": 2500000,
           "dealer": {"cards": ["Kc", "Kd", "9s", "7h", "3c", "Ah", "Qs"],
                      "high": ["Kc", "Kd", "9s", "7h", "3c"], "low": ["Ah", "Qs"]},
           "seats": [{"seat": 1, "cards": ["5s", "5h", "5d", "5c", "2c", "As", "Kh"],
                      "high": ["5s", "5h", "5d", "5c", "2c"], "low": ["As", "Kh"],
                      "wagers": {"main": 2500, "fortune": 500}},
                     {"seat": 2, "cards": ["9c", "9d", "7c", "4h", "2d", "Ad", "Jd"],
                      "high": ["9c", "9d", "7c", "4h", "2d"], "low": ["Ad", "Jd"],
                      "wagers": {"main": 1000, "ace_high": 500, "progressive": 500}}]}
"""Seat 1's four fives win the Face Up wager 2500 and Fortune 12500; seat 2 loses its three
wagers and earns a $5 Envy Bonus for seat 1's hand (README, round r-20)."""


def _poker(table, round_id, seat3, *, correct_to=None, void=False):
    doc = {**POKER, "round_id": round_id}
    settle = {(1, "main"): ("void", 0, 0) if void else ("win", 2375, 125), (3, "main"): seat3}
    events = events_of_document(table, doc, settle=settle)
    end = events.pop()  # its sequence number goes to the next event: no gap
    assert isinstance(end.payload, RoundEnded)
    free = iter([end.table_seq])

    def event(payload):
        return table.event(round_id, payload, seq=next(free, None))

    if correct_to is not None:
        wrong = next(e for e in events if isinstance(e.payload, WagerSettled)
                     and e.payload.seat == 3)
        outcome, net, commission = correct_to
        events.append(event(EventCorrected(
            corrects=wrong.event_id, reason="outcome keyed wrong",
            replacement=WagerSettled(seat=3, wager="main", outcome=outcome, net_cents=net,
                                     commission_cents=commission))))
    if void:
        events.append(event(RoundVoided(reason="shuffle machine fault")))
    events.append(event(RoundEnded()))
    return events


@pytest.fixture
def replayed(tmp_path):
    poker, stud, tiles, face_up = Table("T01"), Table("T02"), Table("T03"), Table("T04")
    events = [
        *_poker(poker, "P1", ("win", 0, 0)),                                  # flag
        *_poker(poker, "P2", ("win", 0, 0), correct_to=("push", 0, 0)),       # trap: corrected
        *_poker(poker, "P3", ("push", 0, 0)),                                 # trap: right
        *_poker(poker, "P4", ("void", 0, 0), void=True),                      # trap: voided
        *_poker(poker, "P5", ("push", 0, 0), correct_to=("loss", 0, 0)),      # flag: as corrected
        *events_of_document(stud, CARIBBEAN, settle={
            (1, "ante"): ("win", 1000, 0), (1, "raise"): ("push", 0, 0),      # trap: stand off
            (2, "ante"): ("push", -1000, 0)}),                                # flag
        *events_of_document(tiles, TILES, settle={
            (1, "main"): ("push", 0, 0),                                      # trap: vig 10
            (2, "main"): ("push", -2500, 0)}),                                # flag
        *events_of_document(face_up, FACE_UP, envy={(2, 1): 500}, settle={
            (1, "main"): ("win", 2500, 0), (1, "fortune"): ("win", 12500, 0),
            (2, "main"): ("push", -1000, 0),                                  # flag
            (2, "ace_high"): ("loss", -500, 0), (2, "progressive"): ("loss", -500, 0)}),
    ]
    return _replay(tmp_path, events)


def test_through_replay_the_wrong_words_are_flagged_and_the_lawful_ones_pass(replayed):
    table, flags = replayed
    rounds = {r["round_id"]: r for r in table("rounds")}
    assert all(rounds[r]["evaluated"] for r in ("P1", "P2", "P3", "P4", "P5", "C1", "T1", "F1"))
    assert rounds["P4"]["voided"] and rounds["P2"]["corrections"] == 1
    assert _flagged(flags) == [("C1", 2, "ante"), ("F1", 2, "main"), ("P1", 3, "main"),
                               ("P5", 3, "main"), ("T1", 2, "main")]


def test_through_replay_a_wrong_word_raises_no_other_rule_check(replayed):
    _, flags = replayed
    by_round = collections.defaultdict(set)
    for f in flags:
        if f["kind"] == "rule":
            by_round[f["round_id"]].add(f["check_id"])
    assert dict(by_round) == {r: {CHECK} for r in ("C1", "F1", "P1", "P5", "T1")}


# A simulated shift whose only fault is the word ---------------------------------------------

def test_a_simulated_shift_of_wrong_words_is_flagged_by_this_check_alone(tmp_path):
    events, labels = simulate_shift(tables=4, rounds=40, seed=18, fault_rate=0.5,
                                    faults=[CHECK], rich_hands=0.3)
    log = _write_log(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=500)
    replay(log, tmp_path / "replay")
    run_all(tmp_path / "replay", tmp_path / "checks")
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    rule = [f for f in flags if f["kind"] == "rule"]
    assert len(labels) > 20 and {label.kind for label in labels} == {CHECK}
    assert sorted((f["round_id"], f["seat"] or 0, f["wager"]) for f in rule) == sorted(
        (label.round_id, label.seat or 0, label.wager) for label in labels)
    assert {f["check_id"] for f in rule} == {CHECK}
    assert {f["game"] for f in rule} == set(GAMES)
