"""The Envy and jackpot checks on tiny hand-built tables: the exact flagged (round, seat,
recorded, expected), the money counted once where checks overlap, and the false-positive
traps (a right payment, a payment for another seat's hand, a round not judged, a meter shared
right, a single percentage award)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.runner import load_checks, run_all
from ingest.log import LogWriter, Received
from replay.filings import load_rulebook
from replay.run import TABLES, replay
from schemas import encode
from tests.events_factory import Table, events_of_document
from tests.outputs_support import sign_replay
from tests.test_checks import _envy, _round, _wager
from tests.test_replay_casinos import FACE_UP

ENVY_CHECKS = ("envy_own_or_dealer_hand", "envy_without_qualifying_wager", "envy_mispay",
               "envy_owed_not_paid")


def _side(round_id, seat, wager, amount, recorded=None, expected=None):
    """A Fortune or Progressive wager (settled as given)."""
    return {**_wager(round_id, seat, amount, recorded, expected), "wager": wager,
            "game": "face_up_pai_gow"}


def _write(tmp_path, given):
    replay_dir = tmp_path / "replay"
    replay_dir.mkdir()
    for name, schema in TABLES.items():
        rows = [{"casino": "C01", **row} for row in given.get(name, [])]
        pq.write_table(pa.Table.from_pylist(rows, schema=schema),
                       replay_dir / f"{name}.parquet")
    sign_replay(replay_dir.parent)
    run_all(replay_dir, tmp_path / "checks")
    return pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()


def _of(flags, check_id):
    return [(f["round_id"], f["seat"], f["recorded_cents"], f["expected_cents"])
            for f in flags if f["check_id"] == check_id]


def _detail(flags, check_id, round_id, seat):
    (found,) = [f["detail"] for f in flags
                if (f["check_id"], f["round_id"], f["seat"]) == (check_id, round_id, seat)]
    return found


# Envy ---------------------------------------------------------------------------------------

@pytest.fixture
def envy(tmp_path):
    rounds = [_round(r) for r in ("E1", "E2", "E3", "E4")]
    rounds.append(_round("E9", evaluated=False, problems=["seat 6 has no 'cards'"]))
    wagers = [
        _side("E1", 1, "fortune", 500), _side("E2", 3, "progressive", 500),
        _side("E3", 1, "fortune", 1000), _side("E3", 2, "fortune", 500),
        _side("E3", 5, "progressive", 2500),
        _side("E4", 1, "progressive", 100),            # below the $5 of a Qualifying Wager
        _side("E4", 3, "fortune", 500), _side("E9", 1, "fortune", 500),
    ]
    envy = [
        # E1: seat 1 paid right (trap); seat 2 holds no Fortune/Progressive
        _envy("E1", 1, "total", 2000, 2000, True),
        _envy("E1", 1, "payment", 2000, None, True, for_seat=2),
        _envy("E1", 2, "total", 500, 0, False),
        _envy("E1", 2, "payment", 500, None, False, for_seat=1),
        # E2: seat 3 paid for its own hand; seat 4, without a Qualifying Wager, for the dealer's
        _envy("E2", 3, "total", 1000, 0, True),
        _envy("E2", 3, "payment", 1000, None, True, for_seat=3),
        _envy("E2", 4, "total", 2000, 0, False),
        _envy("E2", 4, "payment", 2000, None, False),
        # E3: seat 1 short, seat 2 paid twice for one hand, seat 5 owed and never paid
        _envy("E3", 1, "total", 2000, 5000, True),
        _envy("E3", 1, "payment", 2000, None, True, for_seat=2),
        _envy("E3", 2, "total", 1000, 500, True),
        _envy("E3", 2, "payment", 500, None, True, for_seat=1),
        _envy("E3", 2, "payment", 500, None, True, for_seat=1),
        _envy("E3", 5, "total", 0, 2000, True),
        # E4: seat 1's Progressive is below $5 (replay's qualifying_wager says any amount);
        # seat 3 is owed 2000 for seat 2's hand and was paid 2000 for the dealer's instead
        _envy("E4", 1, "total", 500, 0, True),
        _envy("E4", 1, "payment", 500, None, True, for_seat=2),
        _envy("E4", 3, "total", 2000, 2000, True),
        _envy("E4", 3, "payment", 2000, None, True),
        # E9: not judged: no Envy total is judged, a payment for one's own hand still is wrong
        _envy("E9", 1, "total", 900, None, True),
        _envy("E9", 1, "payment", 900, None, True, for_seat=2),
        _envy("E9", 2, "total", 700, None, False),
        _envy("E9", 2, "payment", 700, None, False, for_seat=2),
    ]
    largest: dict[tuple[str, int], int] = {}  # as replay writes it beside each Envy row
    for w in wagers:
        key = (w["round_id"], w["seat"])
        largest[key] = max(w["amount_cents"], largest.get(key, 0))
    # and the least Qualifying Wager of the ruleset in force: $5 in the shipped rulesets
    envy = [{**e, "qualifying_wager_cents": largest.get((e["round_id"], e["seat"])),
             "qualifying_minimum_cents": 500} for e in envy]
    return _write(tmp_path, {"rounds": rounds, "wagers": wagers, "envy": envy})


def test_envy_for_the_own_or_the_dealers_hand_carries_the_whole_payment(envy):
    assert _of(envy, "envy_own_or_dealer_hand") == [
        ("E2", 3, 1000, 0), ("E2", 4, 2000, 0), ("E4", 3, 2000, 0), ("E9", 2, 700, 0)]
    assert _detail(envy, "envy_own_or_dealer_hand", "E2", 4) == (
        "Envy Bonus of 2000 cents paid to seat 4 for the dealer's hand")


def test_envy_without_a_qualifying_wager_counts_money_not_counted_already(envy):
    # E2 seat 4 and E9 seat 2 were paid for the dealer's or their own hand: flagged here too,
    # without amounts (envy_own_or_dealer_hand counts them)
    assert _of(envy, "envy_without_qualifying_wager") == [
        ("E1", 2, 500, 0), ("E2", 4, None, None), ("E4", 1, 500, 0), ("E9", 2, None, None)]
    assert _detail(envy, "envy_without_qualifying_wager", "E4", 1) == (
        "Envy Bonus of 500 cents paid to seat 1 for seat 2's hand, but the seat holds no "
        "Fortune or Progressive wager of 500 cents or more (its largest is 100)")
    assert _detail(envy, "envy_without_qualifying_wager", "E2", 4).endswith(
        "no Fortune or Progressive wager (the amount is counted by envy_own_or_dealer_hand)")


def test_envy_overpaid_and_owed_compare_only_the_payments_that_can_be_owed(envy):
    assert _of(envy, "envy_mispay") == [("E3", 2, 1000, 500)]
    assert _of(envy, "envy_owed_not_paid") == [
        ("E3", 1, 2000, 5000), ("E3", 5, 0, 2000), ("E4", 3, 0, 2000)]
    assert _detail(envy, "envy_owed_not_paid", "E4", 3) == (
        "Envy Bonus for other players' hands: paid 0, the rules require 2000 (cents); 2000 "
        "more paid for the seat's own or the dealer's hand or without a Qualifying Wager, "
        "flagged apart")


def test_envy_money_is_counted_once_and_adds_up_to_what_was_paid_wrongly(envy):
    """Per judged seat, the flags' differences add up to recorded total minus expected total:
    no payment counted twice, none lost between the checks."""
    money: dict[tuple[str, int], int] = {}
    for f in envy:
        if f["check_id"] in ENVY_CHECKS and f["difference_cents"] is not None:
            key = (f["round_id"], f["seat"])
            money[key] = money.get(key, 0) + f["difference_cents"]
    assert money == {("E1", 2): 500, ("E2", 3): 1000, ("E2", 4): 2000, ("E3", 1): -3000,
                     ("E3", 2): 500, ("E3", 5): -2000, ("E4", 1): 500, ("E4", 3): 0,
                     ("E9", 2): 700}
    assert not [f for f in envy if f["check_id"] in ENVY_CHECKS
                and (f["round_id"], f["seat"]) == ("E1", 1)]


def test_the_qualifying_wager_minimum_is_no_parameter_of_any_check():
    for check in load_checks():
        assert "qualifying_wager_cents" not in dict(check.params), check.id
        assert "$qualifying_wager_cents" not in check.sql, check.id


def _older(tmp_path, envy, wagers):
    """Replay's files as an older replay wrote them: envy.parquet without
    qualifying_minimum_cents."""
    replay_dir = tmp_path / "replay"
    replay_dir.mkdir()
    given = {"rounds": [_round("O1")], "wagers": wagers}
    for name, schema in TABLES.items():
        if name == "envy":
            schema = schema.remove(schema.get_field_index("qualifying_minimum_cents"))
            rows = [{"casino": "C01", **row} for row in envy]
        else:
            rows = [{"casino": "C01", **row} for row in given.get(name, [])]
        pq.write_table(pa.Table.from_pylist(rows, schema=schema),
                       replay_dir / f"{name}.parquet")
    sign_replay(replay_dir.parent)
    run_all(replay_dir, tmp_path / "checks")
    return pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()


def test_an_older_replay_without_the_minimum_is_not_evaluated_never_passed(tmp_path):
    """Without the ruleset's minimum, a payment to a seat with a $5 Fortune cannot be judged:
    flagged not evaluated, without money; a seat with no Fortune or Progressive at all is
    still an Envy paid without a Qualifying Wager, whatever the minimum."""
    wagers = [_side("O1", 1, "fortune", 500)]
    envy = [
        {**_envy("O1", 1, "total", 500, 500, True), "qualifying_wager_cents": 500},
        {**_envy("O1", 1, "payment", 500, None, True, for_seat=2),
         "qualifying_wager_cents": 500},
        _envy("O1", 3, "total", 700, 0, False),
        _envy("O1", 3, "payment", 700, None, False, for_seat=1),
    ]
    flags = _older(tmp_path, envy, wagers)
    assert _of(flags, "envy_without_qualifying_wager") == [
        ("O1", 1, None, None), ("O1", 3, 700, 0)]
    assert _detail(flags, "envy_without_qualifying_wager", "O1", 1) == (
        "Envy Bonus of 500 cents paid to seat 1 for seat 2's hand: not evaluated, replay's "
        "outputs do not say the least Qualifying Wager of the ruleset in force (the seat's "
        "largest Fortune or Progressive wager is 500 cents); replay again with "
        "`python -m replay`")
    # the payment the engine owed and the dealer paid is compared as owable: no mispay
    assert _of(flags, "envy_mispay") == [] and _of(flags, "envy_owed_not_paid") == []


# Jackpots ----------------------------------------------------------------------------------

STEPS = {"hand_verified": True, "light_illuminated": True, "validated": True, "paid": True,
         "documented": True, "validated_by": "F1", "validator_role": "floorperson"}


def _jackpot(round_id, seat, hand, recorded, expected, *, meter=False, **changes):
    return {"round_id": round_id, "table_id": "T01", "game": "caribbean_stud", "seat": seat,
            "hand": hand, "judged_hand": hand, "hand_known": hand is not None or None,
            "progressive_meter_cents": 1_000_000,
            "recorded_award_cents": recorded, "expected_net_cents": expected,
            "award_from_meter": meter, "paid_from": "meter" if meter else "table_inventory",
            **STEPS, **changes}


def _progressive(round_id, seat, recorded_net, expected_net, lawful=None):
    """``lawful``: the expected net's range (lowest, highest), as replay writes it for a
    share of the meter the texts let the house round either way (docs/rules.md 6a.19)."""
    def outcome(net):
        return "win" if net > 0 else "loss"

    row = _side(round_id, seat, "progressive", 100, (outcome(recorded_net), recorded_net, 0),
                (outcome(expected_net), expected_net, 0))
    if lawful is not None:
        row.update(expected_net_min_cents=lawful[0], expected_net_max_cents=lawful[1],
                   expected_commission_min_cents=0, expected_commission_max_cents=0)
    return row


@pytest.fixture
def jackpots(tmp_path):
    rounds = [_round(r) for r in ("J1", "J2", "J3", "J4", "J5", "J7", "J8", "J9")]
    rounds.append(_round("J6", evaluated=False, problems=["x"]))
    rounds += [
        {**_round("M1"), "problem_kinds": ["meter_changed"],
         "problems": ["progressive meter read 1000500 after 1000000 in the same round "
                      "(table_seq 4); the last reading counts"]},
        {**_round("M2"), "problem_kinds": ["past_posting"], "problems": ["late"]},
        {**_round("M3", evaluated=False), "problem_kinds": ["meter_changed", "not_judgeable"],
         "problems": ["progressive meter read 7 after 9 in the same round (table_seq 3); the "
                      "last reading counts", "dealer has no 'cards'"]},
    ]
    wagers = [
        _progressive("J1", 1, 250_000, 250_000),
        _progressive("J1", 2, -100, -100),          # settled right as a loss: award recorded
        _progressive("J2", 4, 75_000, -100),        # settled as a win: the wager's check counts
        _progressive("J3", 1, 500_000, 500_000),    # the wager settled right, the award not
        _progressive("J3", 2, 500_000, 500_000),
        _progressive("J7", 1, 1_000_000, 500_000),  # the wager itself settled wrong
        _progressive("J7", 2, 500_000, 500_000),
        # 100% of a meter of 1,000,001 shared by two royals: 500,000.5, so 500,000 or 500,001
        # each is lawful (the odd cent to either: 6a.13, 6a.19)
        _progressive("J8", 1, 500_001, 500_000, lawful=(500_000, 500_001)),  # trap: in range
        _progressive("J8", 2, 500_000, 500_000, lawful=(500_000, 500_001)),
        _progressive("J9", 1, 500_000, 500_000, lawful=(500_000, 500_001)),
        _progressive("J9", 2, 500_000, 500_000, lawful=(500_000, 500_001)),
    ]
    jackpots = [
        _jackpot("J1", 1, "royal_flush", 250_000, 250_000),        # trap: right
        _jackpot("J1", 2, "full_house", 50_000, -100),             # the hand does not win
        _jackpot("J1", 3, "flush", 10_000, None),                  # no Progressive wager
        _jackpot("J2", 4, "four_of_a_kind", 75_000, -100),
        _jackpot("J3", 1, "royal_flush", 1_000_000, 500_000, meter=True),  # took the meter
        _jackpot("J3", 2, "royal_flush", 500_000, 500_000, meter=True),    # trap: its share
        _jackpot("J4", 1, "royal_flush", 1_000_000, 1_000_000, meter=True),  # trap: one award
        _jackpot("J4", 2, "four_of_a_kind", 50_000, 50_000),
        _jackpot("J5", 1, "royal_flush", 500_000, 500_000, meter=True),    # trap: shared right
        _jackpot("J5", 2, "royal_flush", 500_000, 500_000, meter=True),
        _jackpot("J6", 1, "royal_flush", 1_000_000, None, meter=True),     # trap: not judged
        _jackpot("J6", 2, "royal_flush", 1_000_000, None, meter=True),
        _jackpot("J7", 1, "royal_flush", 1_000_000, 500_000, meter=True),
        _jackpot("J7", 2, "royal_flush", 500_000, 500_000, meter=True),
        _jackpot("J8", 1, "royal_flush", 500_001, 500_000, meter=True),  # trap: the odd cent
        _jackpot("J8", 2, "royal_flush", 500_000, 500_000, meter=True),
        _jackpot("J9", 1, "royal_flush", 500_002, 500_000, meter=True),  # a cent beyond it
        _jackpot("J9", 2, "royal_flush", 500_000, 500_000, meter=True),
        _jackpot("J4", 3, None, None, 7_500, hand_verified=False, light_illuminated=False,
                 validated=False, paid=False, documented=False, validated_by=None,
                 validator_role=None, paid_from=None),  # never declared: unverified only
    ]
    return _write(tmp_path, {"rounds": rounds, "wagers": wagers, "jackpots": jackpots})


def test_an_award_for_a_hand_that_does_not_win_the_progressive_is_flagged(jackpots):
    assert _of(jackpots, "progressive_not_qualifying") == [
        ("J1", 2, 50_000, 0), ("J1", 3, 10_000, 0), ("J2", 4, None, None)]
    assert _detail(jackpots, "progressive_not_qualifying", "J1", 3) == (
        "seat 3: a progressive award of 10000 cents recorded for flush, but the seat holds no "
        "Progressive wager")
    assert _detail(jackpots, "progressive_not_qualifying", "J2", 4) == (
        "seat 4: a progressive award of 75000 cents recorded for four_of_a_kind, but its "
        "Progressive wager does not win (the rules settle it at -100 cents); the wager was "
        "settled at 75000 cents, counted by the wager's check")


def test_percentage_awards_that_do_not_share_the_meter_are_flagged(jackpots):
    assert _of(jackpots, "jackpot_share_wrong") == [
        ("J3", 1, 1_000_000, 500_000), ("J7", 1, None, None), ("J9", 1, 500_002, 500_001)]
    assert _detail(jackpots, "jackpot_share_wrong", "J9", 1) == (
        "seat 1 royal_flush: awarded 500002 cents of the meter 1000000 in a round of 2 "
        "percentage awards; its share is 500000 to 500001 cents")
    assert _detail(jackpots, "jackpot_share_wrong", "J3", 1) == (
        "seat 1 royal_flush: awarded 1000000 cents of the meter 1000000 in a round of 2 "
        "percentage awards; its share is 500000 cents")
    assert [f["wager"] for f in jackpots if f["check_id"] == "jackpot_share_wrong"] == [
        "progressive"] * 3


def test_a_meter_that_moved_within_the_round_is_flagged_judged_or_not(jackpots):
    assert _of(jackpots, "meter_unexplained") == [("M1", None, None, None),
                                                  ("M3", None, None, None)]
    assert _detail(jackpots, "meter_unexplained", "M1", None) == (
        "progressive meter read 1000500 after 1000000 in the same round (table_seq 4)")


def test_a_complete_verification_raises_no_jackpot_flag(jackpots):
    assert _of(jackpots, "jackpot_unverified") == [("J4", 3, None, None)]  # never declared
    assert _of(jackpots, "award_from_inventory") == []
    assert _of(jackpots, "jackpot_hand_declared") == []  # every class declared as judged


def test_a_casinos_own_qualifying_wager_minimum_is_the_one_the_envy_checks_use(tmp_path):
    """Casino C02 files a Qualifying Wager of $10 (its ruleset's qualifying_wager_cents; replay
    writes it beside each Envy row): a $5 Fortune does not qualify there, though it does under
    the shipped $5, and a $10 one does. Seat 1 (a $5 Fortune) paid 500 for
    seat 2's hand is flagged and owed nothing; seat 3 (a $10 Fortune) paid right is not."""
    rounds = [_round("Q1")]
    wagers = [_side("Q1", 1, "fortune", 500), _side("Q1", 3, "fortune", 1000)]
    envy = [
        {**_envy("Q1", 1, "total", 500, 0, True), "qualifying_wager_cents": 500},
        {**_envy("Q1", 1, "payment", 500, None, True, for_seat=2),
         "qualifying_wager_cents": 500},
        {**_envy("Q1", 3, "total", 500, 500, True), "qualifying_wager_cents": 1000},
        {**_envy("Q1", 3, "payment", 500, None, True, for_seat=2),
         "qualifying_wager_cents": 1000},
    ]
    flags = _write(tmp_path, {"rounds": rounds, "wagers": wagers, "envy": [
        {**e, "qualifying_minimum_cents": 1000} for e in envy]})
    assert _of(flags, "envy_without_qualifying_wager") == [("Q1", 1, 500, 0)]
    assert _detail(flags, "envy_without_qualifying_wager", "Q1", 1) == (
        "Envy Bonus of 500 cents paid to seat 1 for seat 2's hand, but the seat holds no "
        "Fortune or Progressive wager of 1000 cents or more (its largest is 500)")
    assert _of(flags, "envy_mispay") == [] and _of(flags, "envy_owed_not_paid") == []


def test_a_ruleset_that_changes_the_minimum_is_judged_alike_by_the_engine_and_the_checks(
        tmp_path):
    """Three casinos' Face Up rulesets: C01 the shipped $5, C03 files $10, C04 files $3.
    Seat 2 holds a Progressive of $5 or $3 and is paid the $5 Envy Bonus for seat 1's four
    fives. Replay judges each round by its casino's minimum, and the checks flag exactly the
    payments the engine owes nothing for, with no amount of their own."""
    shipped = json.loads((Path(__file__).resolve().parent.parent / "replay" / "rulesets"
                          / "face_up_pai_gow-pa688a-v1.json").read_text(encoding="utf-8"))
    for casino, minimum in (("C03", 1000), ("C04", 300)):
        folder = tmp_path / "filings" / casino
        folder.mkdir(parents=True)
        rid = f"face_up_pai_gow-{casino.lower()}-v1"
        data = {**shipped, "id": rid, "casino": casino, "effective_from": "2026-01-01",
                "options": {**shipped["options"], "qualifying_wager_cents": minimum}}
        (folder / f"{rid}.json").write_text(json.dumps(data), encoding="utf-8")
    events = []
    rounds = {("C01", 500): "C01-000001", ("C01", 300): "C01-000002",
              ("C03", 500): "C03-000001", ("C04", 300): "C04-000001"}
    for (casino, progressive), round_id in rounds.items():
        seats = [FACE_UP["seats"][0], {**FACE_UP["seats"][1], "wagers": {
            "main": 1000, "progressive": progressive}}]
        events += events_of_document(Table("T09", casino=casino),
                                     {**FACE_UP, "seats": seats, "round_id": round_id},
                                     envy={(2, 1): 500})
    log = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    log.append([Received(topic="round-events", partition=0, offset=i, timestamp_ms=i,
                         key=e.table_id.encode(), value=encode(e))
                for i, e in enumerate(events)], [])
    replay(tmp_path / "log", tmp_path / "replay", book=load_rulebook(tmp_path / "filings"))
    owed = {(r["casino"], r["round_id"]): (r["expected_cents"], r["qualifying_minimum_cents"])
            for r in pq.read_table(tmp_path / "replay" / "envy.parquet").to_pylist()
            if r["row"] == "total" and r["seat"] == 2}
    assert owed == {("C01", "C01-000001"): (500, 500), ("C01", "C01-000002"): (0, 500),
                    ("C03", "C03-000001"): (0, 1000), ("C04", "C04-000001"): (500, 300)}
    sign_replay(tmp_path)
    run_all(tmp_path / "replay", tmp_path / "checks")
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    envy_flags = {(f["check_id"], f["casino"], f["round_id"], f["seat"], f["recorded_cents"],
                   f["expected_cents"]) for f in flags if f["check_id"] in ENVY_CHECKS}
    assert envy_flags == {
        ("envy_without_qualifying_wager", "C01", "C01-000002", 2, 500, 0),
        ("envy_without_qualifying_wager", "C03", "C03-000001", 2, 500, 0)}
    # the engine's judgement and the checks' agree round by round
    for (casino, round_id), (expected, _) in owed.items():
        flagged = any(f[1:3] == (casino, round_id) for f in envy_flags)
        assert flagged == (expected == 0), (casino, round_id)
