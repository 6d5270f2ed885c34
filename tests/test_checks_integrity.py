"""The integrity checks (the record of a round, the log itself) on a tiny hand-built table,
with the exact flagged rows and the false-positive traps; then every one of this catalogue's
checks against a simulated shift: each injected fault raises its own check, on exactly the
labelled rounds, and no round without a label raises any of them."""

from __future__ import annotations

from collections import defaultdict

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.runner import run_all
from replay.run import TABLES
from tests.outputs_support import sign_replay
from tests.test_checks import _round


def _r(round_id, kinds, problems=None, *, evaluated=True):
    return {**_round(round_id, evaluated=evaluated, problems=problems), "problem_kinds": kinds}


def _hand(round_id, seat, cards, game="pai_gow_poker"):
    return {"round_id": round_id, "table_id": "T01", "game": game,
            "position": "dealer" if seat is None else f"seat {seat}", "seat": seat,
            "cards": cards}


def _finding(kind, where, round_id="I1", *, table_id="T01", casino="C01"):
    return {"kind": kind, "casino": casino, "table_id": table_id, "round_id": round_id,
            "where": where, "detail": f"{kind} here"}


LATE = "seat 2 placed main 5000 after the cards were dealt (table_seq 9): past-posting"
RAISE = ("seat 1 raised 1500 on an ante of 1000: the raise is 2 x the ante (2000); settled on "
         "the 1500 recorded (docs/rules.md 6a.17)")
PROGRESSIVE = ("seat 3 progressive wager 500 is not the posted 100; its award does not scale "
               "(docs/rules.md 6a.12)")
DEALER_LATE = "dealer placed main 20000 after the cards were dealt (table_seq 10): past-posting"


@pytest.fixture
def flags(tmp_path):
    rounds = [
        _r("I1", ["past_posting"], [LATE, DEALER_LATE]),
        _r("I2", ["past_posting", "set_after_exposed"],
           ["seat 1 set its hand again after it was exposed (table_seq 20); the exposed "
            "setting stands",
            "seat 4 placed fortune 500 after the cards were dealt (table_seq 8): past-posting"]),
        # judged as recorded (docs/rules.md 8.1): the fold's sentence alone
        _r("I3", ["dealt_twice"],
           ["card Qc dealt 2 times in the round (seat 4, seat 5) at table_seq 9"]),
        _r("I4", [], []),                                       # tiles: 6-6 twice is lawful
        _r("I5", ["dealt_twice"],
           ["tile 2-4 dealt 2 times in the round (dealer, seat 1) at table_seq 7",
            "tile 6-6 dealt 3 times in the round (dealer, seat 1, seat 2) at table_seq 8; the "
            "set holds 2"]),
        # a hand holding one card twice has no rank: not judged, and still flagged here
        _r("I18", ["dealt_twice", "not_judgeable"],
           ["card Ah dealt 2 times in the round (seat 2, seat 2) at table_seq 6",
            "card Ah was dealt 2 times (seat 2, seat 2)"], evaluated=False),
        _r("I6", ["dealt_twice"], ["seat 3 dealt cards twice (table_seq 12)"]),
        _r("I7", ["not_ended"], ["the round has no RoundEnded in the log (last event at "
                                 "table_seq 30): its end was lost, or it was still being dealt "
                                 "when the log was read"]),
        _r("I8", ["never_started", "not_judgeable"], ["no RoundStarted"], evaluated=False),
        _r("I9", ["void_without_reason"], ["round voided without a reason (table_seq 5)"]),
        _r("I10", ["settled_not_placed"], ["seat 2 fortune settled but never placed"]),
        _r("I11", ["meter_changed", "rule_irregularity"],
           ["progressive meter read 5 after 4 in the same round (table_seq 2); the last "
            "reading counts", "seat 1 raised 1500 on an ante of 1000"]),
        _r("I12", None, ["an older replay's problem"]),          # no kinds: fail closed
        _r("I13", [], []),                                        # trap: clean
        _r("I14", ["past_posting"], ["a late wager, in words the check cannot read"]),
        _r("I16", ["rule_irregularity"], [RAISE]),                # raise_not_twice_ante's
        _r("I17", ["past_posting", "rule_irregularity"], [LATE, RAISE, PROGRESSIVE]),
        _r("I15", ["not_ended", "not_judgeable"], ["dealer has no 'cards'", "the round has no "
                                                   "RoundEnded in the log (last event at "
                                                   "table_seq 3)"], evaluated=False),
    ]
    hands = [
        _hand("I3", None, "Kc Kd 9s 7h 3c Ah Qs"), _hand("I3", 4, "Qc 2d 3d 4d 5d 6d 7d"),
        _hand("I3", 5, "Qc 2s 3s 4s 5s 6s 7s"),
        _hand("I4", None, "6-6 1-3 2-4 5-5", "pai_gow_tiles"),
        _hand("I4", 1, "6-6 1-3 3-6 4-4", "pai_gow_tiles"),
        _hand("I5", None, "6-6 1-3 2-4 5-5", "pai_gow_tiles"),
        _hand("I5", 1, "6-6 2-4 3-6 4-4", "pai_gow_tiles"),
        _hand("I5", 2, "6-6 1-1 1-1 2-2", "pai_gow_tiles"),
        _hand("I13", None, "Kc Kd 9s 7h 3c Ah Qs"), _hand("I13", 1, "Jk 2d 3d 4d 5d 6d 7d"),
        _hand("I13", 2, None),                                    # a seat never dealt
    ]
    findings = [
        _finding("sequence_gap", "log position 7 (segment 1)", "I4"),
        _finding("duplicate_event", "log position 12 (segment 1)", "I13"),
        _finding("sequence_out_of_order", "log position 9 (segment 1)", "I6"),
        _finding("conflicting_duplicate_event", "log position 15 (segment 1)", "I6"),
        _finding("undecodable_record", "log position 3 (segment 1)", None, table_id=None,
                 casino=None),
        _finding("a_kind_from_tomorrow", "log position 20 (segment 1)", "I13"),
    ]
    replay_dir = tmp_path / "replay"
    replay_dir.mkdir()
    given = {"rounds": rounds, "hands": hands, "findings": findings}
    for name, schema in TABLES.items():
        rows = [{"casino": "C01", **row} for row in given.get(name, [])]
        pq.write_table(pa.Table.from_pylist(rows, schema=schema),
                       replay_dir / f"{name}.parquet")
    sign_replay(replay_dir.parent)
    run_all(replay_dir, tmp_path / "checks")
    return pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()


def _of(flags, check_id):
    return [(f["round_id"], f["seat"], f["wager"], f["detail"]) for f in flags
            if f["check_id"] == check_id]


def _rounds(flags, check_id):
    return [f["round_id"] for f in flags if f["check_id"] == check_id]


def test_each_past_posted_wager_is_flagged_with_its_seat_and_wager(flags):
    assert _of(flags, "wager_after_deal") == [
        ("I1", None, "main", DEALER_LATE),
        ("I1", 2, "main", LATE),
        ("I14", None, None, "a late wager, in words the check cannot read"),  # still flagged
        ("I17", 2, "main", LATE),
        ("I2", 4, "fortune", "seat 4 placed fortune 500 after the cards were dealt "
                             "(table_seq 8): past-posting"),
    ]
    assert all(f["recorded_cents"] is None and f["amount_at_stake_cents"] is None
               for f in flags if f["check_id"] == "wager_after_deal")


def test_a_card_dealt_twice_judged_or_not_and_tiles_beyond_their_copies(flags):
    """The fold names what was dealt twice (tests/test_fold.py); the check selects those
    rounds, judged as recorded or not, and gives the fold's sentences, not the engine's
    refusal beside them."""
    assert _of(flags, "card_dealt_twice") == [
        ("I18", None, None, "card Ah dealt 2 times in the round (seat 2, seat 2) at table_seq "
                            "6"),
        ("I3", None, None, "card Qc dealt 2 times in the round (seat 4, seat 5) at table_seq 9"),
        ("I5", None, None, "tile 2-4 dealt 2 times in the round (dealer, seat 1) at table_seq "
                           "7; tile 6-6 dealt 3 times in the round (dealer, seat 1, seat 2) at "
                           "table_seq 8; the set holds 2"),
        ("I6", None, None, "seat 3 dealt cards twice (table_seq 12)"),
    ]


def test_the_record_and_the_log_each_have_their_own_check(flags):
    assert _rounds(flags, "round_not_ended") == ["I15", "I7"]
    assert _of(flags, "round_not_ended")[1][3] == (
        "the round has no RoundEnded in the log (last event at table_seq 30): its end was "
        "lost, or it was still being dealt when the log was read")
    assert _of(flags, "void_without_reason") == [
        ("I9", None, None, "round voided without a reason (table_seq 5)")]
    assert _rounds(flags, "meter_unexplained") == ["I11"]
    assert _rounds(flags, "sequence_gap") == ["I4", "I6"]
    assert _rounds(flags, "duplicate_event") == ["I13"]
    assert _rounds(flags, "conflicting_duplicate") == ["I6"]
    assert _of(flags, "conflicting_duplicate")[0][3] == (
        "conflicting_duplicate_event at log position 15 (segment 1): "
        "conflicting_duplicate_event here")


def test_log_findings_keeps_only_the_findings_without_a_check_of_their_own(flags):
    got = [(f["casino"], f["round_id"], f["detail"]) for f in flags
           if f["check_id"] == "log_findings"]
    assert got == [
        (None, None, "undecodable_record at log position 3 (segment 1): undecodable_record here"),
        ("C01", "I13", "a_kind_from_tomorrow at log position 20 (segment 1): "
                       "a_kind_from_tomorrow here"),
    ]


def test_irregular_round_keeps_only_judged_rounds_with_a_kind_no_other_check_names(flags):
    """I1 (past-posting only), I6 (dealt twice), I7 (not ended), I9 (void without reason),
    I10 (settled, never placed), I16 (a raise not twice the ante) each raise their own check
    and not this one; I17's rule irregularity is also a progressive wager off the posted
    amount, which no other check names."""
    got = {r: d for r, _, _, d in _of(flags, "irregular_round")}
    assert sorted(got) == ["I11", "I12", "I17", "I2"]
    assert got["I17"] == f"rule_irregularity: {LATE}; {RAISE}; {PROGRESSIVE}"
    assert got["I2"].startswith("set_after_exposed: seat 1 set its hand again")
    assert got["I11"].startswith("rule_irregularity: progressive meter read 5 after 4")
    assert got["I12"] == "an older replay's problem"


def test_not_evaluated_still_flags_every_round_not_judged(flags):
    assert _rounds(flags, "not_evaluated") == ["I15", "I18", "I8"]


# Against the simulator ------------------------------------------------------------------------

MINE = {
    "envy_own_or_dealer_hand": {"envy_for_own_or_dealer_hand"},
    "envy_without_qualifying_wager": {"envy_without_qualifying_wager"},
    "envy_mispay": set(),
    "envy_owed_not_paid": {"envy_underpaid"},
    "jackpot_unverified": {"jackpot_step_missing"},
    "award_from_inventory": {"award_from_inventory"},
    "progressive_not_qualifying": set(),
    "jackpot_share_wrong": set(),
    "meter_unexplained": set(),
    "wager_after_deal": {"past_posting"},
    "card_dealt_twice": {"dealt_twice"},
    "sequence_gap": {"missing_events"},
    "duplicate_event": {"duplicated_events"},
    "conflicting_duplicate": set(),
    "round_not_ended": set(),
    "void_without_reason": set(),
    "log_findings": set(),
    "irregular_round": set(),  # a raise not twice the ante: raise_not_twice_ante's
    "house_way": {"dealer_not_house_way"},
    "unsettled": set(),
}
"""Each check of this catalogue and the simulator's fault kinds it must flag, every round of
them and no other, except on a dealt_twice round: it is judged as recorded (docs/rules.md
8.1), and the table settled the cards it thought it dealt, so any settlement check may flag
it too. not_evaluated is apart: only the missing_events rounds the judge cannot read (a
withdrawn seat's lost deal is not needed to judge), never a dealt_twice round. And every
labelled round raises some check, this catalogue's or another's (a raise not twice the ante:
raise_not_twice_ante; the mispays: their own checks)."""
SEAT_MONEY = {"envy_own_or_dealer_hand", "envy_without_qualifying_wager"}
"""Checks whose flag names the label's seat and carries its amount, overpaid."""
SEATS = {"jackpot_unverified", "award_from_inventory", "wager_after_deal"}
"""Checks whose flag names the label's seat (and the wager, where the label has one)."""


@pytest.fixture(scope="module")
def shift(tmp_path_factory):
    """2,000 rounds of all four games with every fault kind, replayed without a broker."""
    from ingest.simulate import simulate_shift
    from replay.run import replay
    from schemas import encode
    from tests.test_replay_workers import _write

    out = tmp_path_factory.mktemp("shift")
    events, labels = simulate_shift(tables=8, rounds=250, seed=3, fault_rate=0.7,
                                    rich_hands=0.5)
    log = _write(out, [(e.table_id.encode(), encode(e)) for e in events], batch=5000)
    replay(log, out / "replay")
    run_all(out / "replay", out / "checks")
    flags = pq.read_table(out / "checks" / "flags.parquet").to_pylist()
    return {label.round_id: label for label in labels}, flags


def test_each_fault_raises_its_own_check_on_exactly_the_labelled_rounds(shift):
    labels, flags = shift
    flagged: dict[str, set[str]] = defaultdict(set)
    for f in flags:
        if f["check_id"] in MINE or f["check_id"] == "not_evaluated":
            flagged[f["check_id"]].add(f["round_id"])
    dealt_twice = {r for r, label in labels.items() if label.kind == "dealt_twice"}
    for check_id, kinds in MINE.items():
        want = {r for r, label in labels.items() if label.kind in kinds}
        got = flagged[check_id] if "dealt_twice" in kinds else flagged[check_id] - dealt_twice
        assert got == want, (check_id, sorted(got ^ want)[:5])
        assert not kinds or want, f"the shift injected none of {kinds}"
    unflagged = set(labels) - {f["round_id"] for f in flags}
    assert not unflagged, f"labelled rounds no check flags: {sorted(unflagged)[:5]}"
    lost = {r for r, label in labels.items() if label.kind == "missing_events"}
    assert dealt_twice and not dealt_twice & flagged["not_evaluated"]
    assert flagged["not_evaluated"] <= lost


def test_each_flag_names_the_labelled_seat_and_amount(shift):
    labels, flags = shift
    for f in flags:
        label = labels.get(f["round_id"])
        if f["check_id"] in SEAT_MONEY | SEATS:
            assert label is not None and f["seat"] == label.seat, (f, label)
        if f["check_id"] in SEAT_MONEY:
            assert (f["recorded_cents"], f["expected_cents"], f["direction"]) == (
                label.amount_cents, 0, "over"), (f, label)
        if f["check_id"] in SEATS and label.wager is not None:
            assert f["wager"] == label.wager, (f, label)
