"""jackpot_award_wrong: the award a JackpotHit declares for a winning hand, judged against the
lawful award of the class the cards make, on a tiny hand-built table (the exact flags and the
traps: the right award, either end of a percentage award's lawful range, a winner never
declared, a round not judged, and the awards other checks own: a hand that does not win, a
meter shared by two winners); and, on a simulated shift of every fault kind, no flag of
this check, outcome_word_wrong or commission_not_won on a round without a label."""

from __future__ import annotations

import pyarrow.parquet as pq

from checks.runner import run_all
from ingest.simulate import simulate_shift
from replay.run import replay
from schemas import encode
from tests.test_check_outcome_word import _row
from tests.test_checks import _round
from tests.test_checks_jackpots_envy import _jackpot, _write
from tests.test_replay_workers import _write as _write_log

CHECK = "jackpot_award_wrong"


def _progressive(round_id, seat, recorded_net, expected_net, net_range=None):
    return _row(round_id, seat, "caribbean_stud", "progressive", 100,
                ("win" if recorded_net > 0 else "loss", recorded_net, 0),
                ("win" if expected_net > 0 else "loss", expected_net, 0), net_range=net_range)


def _flags(tmp_path):
    jackpots = [
        _jackpot("J1", 1, "royal_flush", 50_000, 25_000),          # the award declared twice over
        _jackpot("J2", 1, "royal_flush", 25_000, 25_000),          # trap: right
        _jackpot("J3", 1, "royal_flush", 125_001, 125_000, meter=True),  # trap: rounded up
        _jackpot("J4", 1, "royal_flush", 100_000, 25_000),         # wager settled wrong too
        _jackpot("J5", 1, "royal_flush", 120_000, 125_000, meter=True),  # two share the meter:
        _jackpot("J5", 2, "royal_flush", 125_000, 125_000, meter=True),  # jackpot_share_wrong's
        _jackpot("J6", 1, "flush", 50_000, -100),                  # progressive_not_qualifying's
        _jackpot("J7", 1, "royal_flush", 50_000, None),            # trap: not judged
        _jackpot("J8", 1, None, None, 25_000),                     # trap: never declared
        _jackpot("J9", 1, "full_house", 0, 7_500),                 # declared for nothing
    ]
    wagers = [
        _progressive("J1", 1, 25_000, 25_000),
        _progressive("J2", 1, 25_000, 25_000),
        _progressive("J3", 1, 125_001, 125_000, net_range=(125_000, 125_001)),
        _progressive("J4", 1, 100_000, 25_000),
        _progressive("J5", 1, 120_000, 125_000), _progressive("J5", 2, 125_000, 125_000),
        _progressive("J6", 1, 50_000, -100),
        _progressive("J8", 1, 25_000, 25_000),
        _progressive("J9", 1, 7_500, 7_500),
    ]
    rounds = [{**_round(r), "game": "caribbean_stud"}
              for r in ("J1", "J2", "J3", "J4", "J5", "J6", "J8", "J9")]
    rounds.append({**_round("J7", evaluated=False, problems=["seat 1 has no cards"]),
                   "game": "caribbean_stud"})
    return _write(tmp_path, {"rounds": rounds, "jackpots": jackpots, "wagers": wagers})


def test_a_declared_award_outside_the_lawful_award_of_a_winning_hand_is_flagged(tmp_path):
    flags = _flags(tmp_path)
    got = [(f["round_id"], f["seat"], f["wager"], f["recorded_cents"], f["expected_cents"])
           for f in flags if f["check_id"] == CHECK]
    assert got == [("J1", 1, "progressive", 50_000, 25_000),
                   ("J4", 1, "progressive", None, None),
                   ("J9", 1, "progressive", 0, 7_500)]
    (j1,) = [f["detail"] for f in flags if (f["check_id"], f["round_id"]) == (CHECK, "J1")]
    assert j1 == ("seat 1: jackpot declared royal_flush for 50000 cents; the cards make "
                  "royal_flush, whose award is 25000 cents; the wager was settled at 25000 "
                  "cents")
    (j4,) = [f["detail"] for f in flags if (f["check_id"], f["round_id"]) == (CHECK, "J4")]
    assert j4.endswith("; the wager was settled at 100000 cents, counted by the wager's check")


def test_the_awards_other_checks_own_are_left_to_them(tmp_path):
    flags = _flags(tmp_path)
    owners = {(f["round_id"], f["check_id"]) for f in flags}
    assert ("J5", "jackpot_share_wrong") in owners and ("J5", CHECK) not in owners
    assert ("J6", "progressive_not_qualifying") in owners and ("J6", CHECK) not in owners
    assert ("J4", "overpay") in owners


def test_a_simulated_shift_raises_none_of_the_record_checks_without_a_label(tmp_path):
    events, labels = simulate_shift(tables=4, rounds=60, seed=9, fault_rate=0.3,
                                    rich_hands=0.6)
    log = _write_log(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=500)
    replay(log, tmp_path / "replay")
    run_all(tmp_path / "replay", tmp_path / "checks")
    jackpots = pq.read_table(tmp_path / "replay" / "jackpots.parquet").to_pylist()
    assert [j for j in jackpots if j["recorded_award_cents"]], "no jackpot in the shift"
    labelled = {label.round_id for label in labels}
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    assert {f["round_id"] for f in flags
            if f["check_id"] in (CHECK, "outcome_word_wrong", "commission_not_won")} <= labelled
