"""Checks that look across rounds, from hand-built events through replay to the check's
rows: the dealer's wager against a player banker (pai gow poker procedure (10)).

Every round here is only started, wagered and ended: no cards, so no round is judged, and
the checks across rounds do not need it (they compare recorded amounts between rounds).
The expected amounts are written by hand from the rule, never taken from the code."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq

from checks.evaluate import evaluate, markdown
from checks.runner import connect, load_checks, run_check
from replay.run import replay
from schemas import RoundEnded, RoundStarted, WagerPlaced, encode
from tests.events_factory import Table
from tests.test_replay_workers import _write

REPORTS = Path(__file__).resolve().parent.parent / "checks" / "reports"


def _round(table: Table, round_id: str, *, mains: dict[int, int], banker: int | None = None,
           dealer_wager: int | None = None, co_bank: bool = False,
           game: str = "pai_gow_poker", fortune: dict[int, int] | None = None,
           patrons: dict[int, str] | None = None) -> list:
    """A round with the seats' main wagers (the banker's seat places none: it banks), the
    dealer's own wager against a player banker, and Fortune wagers; ``patrons``: the
    player-tracking id of the patron at a seat, on every wager placed from it."""
    out = [table.event(round_id, RoundStarted(game=game, dealer_id="E011", banker_seat=banker,
                                              co_bank=co_bank))]
    who = patrons or {}
    for seat, cents in mains.items():
        out.append(table.event(round_id, WagerPlaced(seat=seat, wager="main",
                                                     amount_cents=cents,
                                                     patron_id=who.get(seat))))
    for seat, cents in (fortune or {}).items():
        out.append(table.event(round_id, WagerPlaced(seat=seat, wager="fortune",
                                                     amount_cents=cents,
                                                     patron_id=who.get(seat))))
    if dealer_wager is not None:
        out.append(table.event(round_id, WagerPlaced(seat=None, wager="main",
                                                     amount_cents=dealer_wager)))
    out.append(table.event(round_id, RoundEnded()))
    return out


def _rows(tmp_path: Path, events: list, check_id: str) -> list[dict]:
    log = _write(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=7)
    replay(log, tmp_path / "replay")
    (check,) = [c for c in load_checks() if c.id == check_id]
    con = connect(tmp_path / "replay")
    try:
        return run_check(con, check).to_pylist()
    finally:
        con.close()


def _report(tmp_path: Path, name: str) -> list[dict]:
    con = connect(tmp_path / "replay")
    try:
        rel = con.sql((REPORTS / f"{name}.sql").read_text(encoding="utf-8"))
        cols = rel.columns
        return [dict(zip(cols, row, strict=True)) for row in rel.fetchall()]
    finally:
        con.close()


def _flagged(rows: list[dict]) -> list[tuple]:
    return [(r["casino"], r["table_id"], r["round_id"], r["seat"], r["recorded_cents"],
             r["expected_cents"]) for r in rows]


CHECK = "dealer_wager_not_preceding"


def test_a_dealer_wager_equal_to_the_bankers_wager_on_the_preceding_dealer_banked_hand_passes(
        tmp_path):
    t = Table()
    events = [*_round(t, "T01-000001", mains={2: 2500, 3: 4000}),
              *_round(t, "T01-000002", mains={2: 1000}, banker=3, dealer_wager=4000)]
    assert _rows(tmp_path, events, CHECK) == []
    assert _report(tmp_path, "dealer_wager_unjudged") == []


def test_a_dealer_wager_that_differs_from_the_bankers_preceding_wager_is_flagged(tmp_path):
    t = Table()
    events = [*_round(t, "T01-000001", mains={2: 2500, 3: 4000}),
              *_round(t, "T01-000002", mains={2: 1000}, banker=3, dealer_wager=2500)]
    rows = _rows(tmp_path, events, CHECK)
    assert _flagged(rows) == [("C01", "T01", "T01-000002", 3, 2500, 4000)]
    assert "T01-000001" in rows[0]["detail"] and "seat 3" in rows[0]["detail"]


def test_after_several_player_banked_rounds_the_preceding_dealer_banked_hand_counts(tmp_path):
    # seat 3 bet 4,000 when the dealer banked; then seats 2, 4 and 3 bank in turn, and seat
    # 3's wagers on the player-banked rounds in between (1,500 and 9,000) do not count
    t = Table()
    events = [*_round(t, "T01-000001", mains={2: 2500, 3: 4000, 4: 5000}),
              *_round(t, "T01-000002", mains={3: 1500, 4: 5000}, banker=2, dealer_wager=2500),
              *_round(t, "T01-000003", mains={2: 2500, 3: 9000}, banker=4, dealer_wager=5000),
              *_round(t, "T01-000004", mains={2: 2500, 4: 5000}, banker=3, dealer_wager=4000),
              *_round(t, "T01-000005", mains={2: 2500, 4: 5000}, banker=3, dealer_wager=9000)]
    assert _flagged(_rows(tmp_path, events, CHECK)) == [
        ("C01", "T01", "T01-000005", 3, 9000, 4000)]


def test_a_later_dealer_banked_hand_replaces_the_earlier_one(tmp_path):
    # seat 3 bet 4,000, then 6,000 on the next dealer-banked hand: the dealer matches 6,000
    t = Table()
    events = [*_round(t, "T01-000001", mains={2: 2500, 3: 4000}),
              *_round(t, "T01-000002", mains={2: 2500, 3: 6000}),
              *_round(t, "T01-000003", mains={2: 2500}, banker=3, dealer_wager=6000),
              *_round(t, "T01-000004", mains={2: 2500}, banker=3, dealer_wager=4000)]
    assert _flagged(_rows(tmp_path, events, CHECK)) == [
        ("C01", "T01", "T01-000004", 3, 4000, 6000)]


def test_a_seat_that_changed_between_is_judged_on_the_seat_that_banks_now(tmp_path):
    # the bank passes from seat 2 to seat 5: each is matched with its own earlier wager
    t = Table()
    events = [*_round(t, "T01-000001", mains={2: 2500, 5: 7500}),
              *_round(t, "T01-000002", mains={5: 7500}, banker=2, dealer_wager=2500),
              *_round(t, "T01-000003", mains={2: 2500}, banker=5, dealer_wager=7500),
              *_round(t, "T01-000004", mains={2: 2500}, banker=5, dealer_wager=2500)]
    assert _flagged(_rows(tmp_path, events, CHECK)) == [
        ("C01", "T01", "T01-000004", 5, 2500, 7500)]


def test_side_wagers_are_not_the_bet_the_dealer_matches(tmp_path):
    t = Table()
    events = [*_round(t, "T01-000001", mains={2: 2500, 3: 4000}, fortune={3: 500}),
              *_round(t, "T01-000002", mains={2: 2500}, banker=3, dealer_wager=4000)]
    assert _rows(tmp_path, events, CHECK) == []


def test_a_co_bank_is_judged_as_a_player_bank(tmp_path):
    t = Table()
    events = [*_round(t, "T01-000001", mains={2: 2500, 3: 4000}),
              *_round(t, "T01-000002", mains={2: 2500}, banker=3, co_bank=True,
                      dealer_wager=3000)]
    assert _flagged(_rows(tmp_path, events, CHECK)) == [
        ("C01", "T01", "T01-000002", 3, 3000, 4000)]


def test_rounds_of_other_tables_and_other_casinos_sharing_ids_do_not_count(tmp_path):
    # the same table id and round ids at another casino, and another table at this casino,
    # where seat 3 bet 9,000 when the dealer banked: only this table's own hand counts
    here, there, other = Table("T01", "C01"), Table("T01", "C02"), Table("T02", "C01")
    theirs = [*_round(there, "T01-000001", mains={2: 2500, 3: 9000}),
              *_round(there, "T01-000002", mains={2: 2500}, banker=3, dealer_wager=4000)]
    # the factory names events by table and round: the other casino's get their own ids
    theirs = [replace(e, event_id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"C02/{e.event_id}")))
              for e in theirs]
    events = [*_round(here, "T01-000001", mains={2: 2500, 3: 4000}),
              *_round(other, "T02-000001", mains={2: 2500, 3: 9000}),
              *_round(here, "T01-000002", mains={2: 2500}, banker=3, dealer_wager=4000),
              *_round(other, "T02-000002", mains={2: 2500}, banker=3, dealer_wager=9000),
              *theirs]
    assert _flagged(_rows(tmp_path, events, CHECK)) == [
        ("C02", "T01", "T01-000002", 3, 4000, 9000)]


def test_no_preceding_dealer_banked_hand_is_not_evaluated_never_flagged_nor_passed(tmp_path):
    # T01: the first round is player-banked; T02: the banker's seat did not bet when the
    # dealer banked. Neither is flagged, and the report says why each was not judged.
    t1, t2 = Table("T01"), Table("T02")
    events = [*_round(t1, "T01-000001", mains={2: 2500}, banker=3, dealer_wager=4000),
              *_round(t2, "T02-000001", mains={2: 2500}),
              *_round(t2, "T02-000002", mains={2: 2500}, banker=3, dealer_wager=4000)]
    assert _rows(tmp_path, events, CHECK) == []
    report = _report(tmp_path, "dealer_wager_unjudged")
    assert [(r["table_id"], r["round_id"], r["seat"], r["dealer_cents"]) for r in report] == [
        ("T01", "T01-000001", 3, 4000), ("T02", "T02-000002", 3, 4000)]
    assert report[0]["why"] == "no earlier hand banked by the dealer at this table"
    assert report[1]["why"] == ("seat 3 placed no main wager on the preceding dealer-banked "
                                "hand T02-000001")


def test_a_patron_who_moved_seats_is_matched_with_their_own_wager_on_the_preceding_hand(
        tmp_path):
    # patron P bet 4,000 at seat 3 when the dealer banked, then banks from seat 5 (a Fortune
    # wager carries the banker's tracking id); Q bet 2,500 at seat 5 then. The dealer
    # matches P's 4,000: lawful, though seat 5's earlier wager was 2,500
    t = Table()
    events = [*_round(t, "T01-000001", mains={3: 4000, 5: 2500}, patrons={3: "P", 5: "Q"}),
              *_round(t, "T01-000002", mains={2: 1000}, banker=5, dealer_wager=4000,
                      fortune={5: 500}, patrons={2: "Q", 5: "P"}),
              *_round(t, "T01-000003", mains={2: 1000}, banker=5, dealer_wager=2500,
                      fortune={5: 500}, patrons={2: "Q", 5: "P"})]
    rows = _rows(tmp_path, events, CHECK)
    assert _flagged(rows) == [("C01", "T01", "T01-000003", 5, 2500, 4000)]
    assert rows[0]["detail"] == (
        "dealer's wager 2500 against the player banker at seat 5 (patron P), whose wager on "
        "the preceding dealer-banked hand T01-000001 (at seat 3) was 4000 (cents)")
    assert _report(tmp_path, "dealer_wager_unjudged") == []


def test_another_patron_in_the_bankers_old_seat_is_not_the_banker(tmp_path):
    # P bet 4,000 at seat 3 when the dealer banked; Q, who bet 2,500 at seat 5 then, sits at
    # seat 3 and banks: the dealer must match Q's 2,500, not seat 3's 4,000
    t = Table()
    events = [*_round(t, "T01-000001", mains={3: 4000, 5: 2500}, patrons={3: "P", 5: "Q"}),
              *_round(t, "T01-000002", mains={2: 1000}, banker=3, dealer_wager=4000,
                      fortune={3: 500}, patrons={2: "R", 3: "Q"}),
              *_round(t, "T01-000003", mains={2: 1000}, banker=3, dealer_wager=2500,
                      fortune={3: 500}, patrons={2: "R", 3: "Q"})]
    assert _flagged(_rows(tmp_path, events, CHECK)) == [
        ("C01", "T01", "T01-000002", 3, 4000, 2500)]


def test_without_patron_ids_on_either_hand_the_seat_stands_for_the_player(tmp_path):
    # the banker names a patron, but the preceding hand's wagers name none: the seat counts
    t = Table()
    events = [*_round(t, "T01-000001", mains={3: 4000, 5: 2500}),
              *_round(t, "T01-000002", mains={2: 1000}, banker=5, dealer_wager=4000,
                      fortune={5: 500}, patrons={5: "P"}),
              *_round(t, "T01-000003", mains={2: 1000}, banker=3, dealer_wager=4000)]
    rows = _rows(tmp_path, events, CHECK)
    assert _flagged(rows) == [("C01", "T01", "T01-000002", 5, 4000, 2500)]
    assert rows[0]["detail"].endswith("(cents; seat, not patron: the log names no patron)")


def test_a_patron_who_did_not_bet_on_the_preceding_hand_is_not_evaluated(tmp_path):
    # P sat out the dealer-banked hand (seat 3 was Q's then): not judged on seat 3's wager
    t = Table()
    events = [*_round(t, "T01-000001", mains={3: 4000}, patrons={3: "Q"}),
              *_round(t, "T01-000002", mains={2: 1000}, banker=3, dealer_wager=4000,
                      fortune={3: 500}, patrons={2: "Q", 3: "P"})]
    assert _rows(tmp_path, events, CHECK) == []
    report = _report(tmp_path, "dealer_wager_unjudged")
    assert [(r["round_id"], r["why"]) for r in report] == [
        ("T01-000002", "patron P (the banker at seat 3) placed no main wager on the preceding "
                       "dealer-banked hand T01-000001")]


def test_a_banker_whose_patron_is_not_recorded_is_not_judged_on_a_seat_another_patron_left(
        tmp_path):
    # P bet 2,500 at seat 2 and Q 9,500 at seat 4 when the dealer banked; then seat 4 banks
    # with no wager of its own (so no patron id), and Q plays at seat 2: seat 4's 9,500 was
    # Q's, not the banker's. Not evaluated, never flagged; the report says why.
    t = Table()
    events = [*_round(t, "T01-000001", mains={2: 2500, 4: 9500}, patrons={2: "P", 4: "Q"}),
              *_round(t, "T01-000002", mains={2: 6500}, banker=4, dealer_wager=2500,
                      patrons={2: "Q"})]
    assert _rows(tmp_path, events, CHECK) == []
    assert [(r["round_id"], r["why"]) for r in _report(tmp_path, "dealer_wager_unjudged")] == [
        ("T01-000002", "the banker's patron is not recorded (no wager of seat 4 names one), "
                       "and patron Q, who sat at seat 4 on the preceding dealer-banked hand "
                       "T01-000001, plays at seat 2 now")]


def test_a_dealer_wager_matching_a_patron_who_now_plays_elsewhere_is_flagged(tmp_path):
    # P bet 2,500 at seat 2, Q 9,500 at seat 4 and R 6,000 at seat 5 when the dealer banked;
    # then seat 4 banks with no wager of its own, Q plays at seat 2 and the dealer matches
    # 9,500: Q's bet, and Q is not the banker; P and R, who might be, bet other amounts
    t = Table()
    events = [*_round(t, "T01-000001", mains={2: 2500, 4: 9500, 5: 6000},
                      patrons={2: "P", 4: "Q", 5: "R"}),
              *_round(t, "T01-000002", mains={2: 6500}, banker=4, dealer_wager=9500,
                      patrons={2: "Q"})]
    rows = _rows(tmp_path, events, CHECK)
    assert _flagged(rows) == [("C01", "T01", "T01-000002", 4, 9500, None)]
    assert rows[0]["detail"] == (
        "dealer's wager 9500 against the player banker at seat 4 matches the wager on the "
        "preceding dealer-banked hand T01-000001 of patron Q, who sat at seat 4 then and "
        "plays at seat 2 now: not the banker (whose patron is not recorded; no other patron "
        "of that hand who might be the banker bet 9500 there)")
    assert _report(tmp_path, "dealer_wager_unjudged") == []
    # R bet 9,500 too, and might be the banker: not evaluated
    events = [*_round(t, "T01-000003", mains={2: 2500, 4: 9500, 5: 9500},
                      patrons={2: "P", 4: "Q", 5: "R"}),
              *_round(t, "T01-000004", mains={2: 6500}, banker=4, dealer_wager=9500,
                      patrons={2: "Q"})]
    assert _rows(tmp_path / "again", events, CHECK) == []


def test_pai_gow_tiles_player_banks_are_not_judged_by_the_pai_gow_poker_procedure(tmp_path):
    t = Table()
    events = [*_round(t, "T01-000001", mains={2: 2500, 3: 4000}, game="pai_gow_tiles"),
              *_round(t, "T01-000002", mains={2: 2500}, banker=3, dealer_wager=1000,
                      game="pai_gow_tiles")]
    assert _rows(tmp_path, events, CHECK) == []


def _shift(tmp_path: Path, **shift) -> tuple[list[dict], list[dict]]:
    """A simulated shift written to a log as ingest writes it, replayed and checked: its
    labels and its flags."""
    from checks.runner import run_all
    from ingest.simulate import simulate_shift

    events, labels = simulate_shift(**shift)
    log = _write(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=200)
    replay(log, tmp_path / "replay")
    run_all(tmp_path / "replay", tmp_path / "checks")
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    return [{**json.loads(x.to_json())} for x in labels], flags


def test_a_simulated_shift_with_the_fault_is_flagged_by_this_check_and_nothing_unlabelled(
        tmp_path):
    labels, flags = _shift(tmp_path, tables=4, rounds=60, seed=18, fault_rate=0.5,
                           faults=["dealer_wager_not_preceding"], games=["pai_gow_poker"])
    assert labels and {x["kind"] for x in labels} == {"dealer_wager_not_preceding"}
    ev = evaluate(labels, flags)
    assert ev.perfect, markdown(ev)
    mine = {(f["round_id"], f["seat"]): f for f in flags if f["check_id"] == CHECK}
    for label in labels:
        flag = mine[label["round_id"], label["seat"]]
        assert abs(flag["recorded_cents"] - flag["expected_cents"]) == label["amount_cents"]
    assert len(mine) == len(labels)


def test_a_clean_simulated_shift_deals_the_dealer_wager_the_rule_asks_for(tmp_path):
    # the simulator's lawful rounds: a player banker's dealer wager is the banker's wager
    # on the preceding dealer-banked hand, so none is flagged, and some were judged
    labels, flags = _shift(tmp_path, tables=2, rounds=80, seed=3, fault_rate=0.0,
                           games=["pai_gow_poker"])
    assert labels == [] and [f for f in flags if f["check_id"] == CHECK] == []
    wagers = pq.read_table(tmp_path / "replay" / "wagers.parquet").to_pylist()
    against = [w for w in wagers if w["position"] == "dealer"]
    unjudged = _report(tmp_path, "dealer_wager_unjudged")
    assert len(against) - len(unjudged) >= 5  # judged, and lawful


# --- the progressive meter from round to round (replay's outputs built by hand) ----------

METER = "meter_discontinuity"


def _outputs(tmp_path: Path, rounds: list[dict], wagers: list[dict] = (),
             jackpots: list[dict] = ()) -> Path:
    """Replay's files with these rows (every other file empty), as replay's schemas say."""
    import datetime as dt

    import pyarrow as pa

    from replay.run import TABLES

    out = tmp_path / "replay"
    out.mkdir(parents=True, exist_ok=True)
    t0 = dt.datetime(2026, 11, 28, 18, tzinfo=dt.UTC)
    rows = {name: [] for name in TABLES}
    for r in rounds:
        rows["rounds"].append({"casino": "C01", "table_id": "T01", "game": "caribbean_stud",
                               "banker": "dealer", "evaluated": True, "voided": False,
                               "ended": True, "problem_kinds": [], **r,
                               "dealt_at": t0 + dt.timedelta(minutes=r["minute"])})
        rows["rounds"][-1].pop("minute")
    rows["wagers"] = [{"casino": "C01", "table_id": "T01", "wager": "progressive",
                       "position": "seat 1", **w} for w in wagers]
    rows["jackpots"] = [{"casino": "C01", "table_id": "T01", "award_from_meter": True, **j}
                        for j in jackpots]
    for name, schema in TABLES.items():
        pq.write_table(pa.Table.from_pylist(rows[name], schema=schema), out / f"{name}.parquet")
    return out


def _meter_rows(out: Path) -> list[tuple]:
    (check,) = [c for c in load_checks() if c.id == METER]
    con = connect(out)
    try:
        rows = run_check(con, check).to_pylist()
    finally:
        con.close()
    return [(r["casino"], r["table_id"], r["round_id"], r["recorded_cents"], r["expected_cents"])
            for r in rows]


def _reading(round_id, minute, meter, *, meter_id="T01-progressive", table="T01",
             casino="C01", reset=None):
    return {"round_id": round_id, "minute": minute, "progressive_meter_cents": meter,
            "progressive_meter_id": meter_id, "table_id": table, "casino": casino,
            "progressive_reset_cents": reset}


def _progressive(round_id, cents, *, seat=1, table="T01", casino="C01"):
    return {"round_id": round_id, "seat": seat, "amount_cents": cents, "table_id": table,
            "casino": casino}


def test_a_meter_that_grows_by_at_most_the_progressive_wagers_since_is_explained(tmp_path):
    # 100 + 100 wagered in R1: the meter may rise by 0 to 200; 20% of them (40) is lawful,
    # so is all of it, so is nothing
    out = _outputs(tmp_path, [_reading("R1", 0, 1_000_000), _reading("R2", 2, 1_000_040),
                              _reading("R3", 4, 1_000_240), _reading("R4", 6, 1_000_240)],
                   [_progressive("R1", 100), _progressive("R1", 100, seat=2),
                    _progressive("R2", 100), _progressive("R2", 100, seat=2),
                    _progressive("R3", 100)])
    assert _meter_rows(out) == []


def test_a_meter_that_falls_without_a_hit_or_rises_beyond_the_wagers_is_flagged(tmp_path):
    out = _outputs(tmp_path, [_reading("R1", 0, 1_000_000), _reading("R2", 2, 999_900),
                              _reading("R3", 4, 1_000_500)],
                   [_progressive("R1", 100), _progressive("R2", 100)])
    assert _meter_rows(out) == [("C01", "T01", "R2", 999_900, 1_000_000),
                                ("C01", "T01", "R3", 1_000_500, 1_000_000)]


def test_a_hit_explains_the_fall_down_to_the_reset_amount_and_no_lower(tmp_path):
    # R1: a 100% award of 1,000,000 taken from the meter, which resets to 500,000: the
    # next reading may be 500,000 plus up to the 100 wagered in R1. R3: a 10% award of
    # 50,002 leaves 450,018, below the reset: the meter stands at 500,000 again. R4: an
    # award of 50,000, and R5 reads 400,000, below the reset amount. At T02 a 10% award
    # leaves the meter above its reset: it falls by the award, no lower.
    out = _outputs(tmp_path, [_reading("R1", 0, 1_000_000, reset=500_000),
                              _reading("R2", 2, 500_020, reset=500_000),
                              _reading("R3", 4, 500_020, reset=500_000),
                              _reading("R4", 6, 500_000, reset=500_000),
                              _reading("R5", 8, 400_000, reset=500_000),
                              _reading("T02-1", 0, 2_000_000, meter_id="T02-progressive",
                                       table="T02", reset=500_000),
                              _reading("T02-2", 2, 1_800_000, meter_id="T02-progressive",
                                       table="T02", reset=500_000),
                              _reading("T02-3", 4, 1_700_000, meter_id="T02-progressive",
                                       table="T02", reset=500_000)],
                   [_progressive("R1", 100)],
                   [{"round_id": "R1", "seat": 1, "recorded_award_cents": 1_000_000},
                    {"round_id": "R3", "seat": 1, "recorded_award_cents": 50_002},
                    {"round_id": "R4", "seat": 1, "recorded_award_cents": 50_000},
                    {"round_id": "T02-1", "seat": 1, "recorded_award_cents": 200_000,
                     "table_id": "T02"},
                    {"round_id": "T02-2", "seat": 1, "recorded_award_cents": 180_000,
                     "table_id": "T02"}])
    assert _meter_rows(out) == [("C01", "T01", "R5", 400_000, 500_000),
                                ("C01", "T02", "T02-3", 1_700_000, 1_620_000)]


def test_a_reading_after_a_hit_is_not_evaluated_without_a_reset_amount(tmp_path):
    out = _outputs(tmp_path, [_reading("R1", 0, 1_000_000), _reading("R2", 2, 1)],
                   [], [{"round_id": "R1", "seat": 1, "recorded_award_cents": 1_000_000}])
    assert _meter_rows(out) == []


def test_a_reading_after_a_hit_the_engine_did_not_judge_is_not_evaluated(tmp_path):
    # R1 records a jackpot but is not evaluated (an event of it is missing): whether its
    # award came from the meter is unknown, so R2's fall to the reset cannot be judged; R3,
    # after R2 with no hit, is judged again
    out = _outputs(tmp_path, [_reading("R1", 0, 1_000_000, reset=500_000),
                              _reading("R2", 2, 500_020, reset=500_000),
                              _reading("R3", 4, 400_000, reset=500_000)],
                   [], [{"round_id": "R1", "seat": 1, "recorded_award_cents": 1_000_000,
                         "award_from_meter": None}])
    assert _meter_rows(out) == [("C01", "T01", "R3", 400_000, 500_020)]


def test_a_fixed_award_is_not_taken_from_the_meter(tmp_path):
    # a $500 four of a kind is paid from the table inventory: the meter does not fall
    out = _outputs(tmp_path, [_reading("R1", 0, 1_000_000, reset=500_000),
                              _reading("R2", 2, 950_000, reset=500_000)],
                   [], [{"round_id": "R1", "seat": 1, "recorded_award_cents": 50_000,
                         "award_from_meter": False}])
    assert _meter_rows(out) == [("C01", "T01", "R2", 950_000, 1_000_000)]


def test_a_linked_meter_is_followed_across_tables_and_casinos_keep_their_own(tmp_path):
    # meter LINK-1 read at T01 then T02 then T01 (each explained by the one before, at
    # whatever table); casino C02 has a meter of the same id whose readings are its own;
    # table T03's meter without an id is the table's own
    out = _outputs(tmp_path, [
        _reading("T01-1", 0, 1_000_000, meter_id="LINK-1"),
        _reading("T02-1", 1, 1_000_100, meter_id="LINK-1", table="T02"),
        _reading("T01-2", 2, 1_000_150, meter_id="LINK-1"),
        _reading("T01-1", 0, 3_000_000, meter_id="LINK-1", casino="C02"),
        _reading("T01-2", 2, 1_000_150, meter_id="LINK-1", casino="C02"),
        _reading("T03-1", 0, 2_000_000, meter_id=None, table="T03"),
        _reading("T03-2", 2, None, meter_id=None, table="T03"),
        _reading("T03-3", 4, 2_000_300, meter_id=None, table="T03")],
        [_progressive("T01-1", 100), _progressive("T02-1", 100, table="T02"),
         _progressive("T03-1", 100, table="T03"),
         _progressive("T03-2", 200, table="T03")])
    # T03-2 read no meter: its 200 counts towards T03's own meter, so T03-3 is explained
    assert _meter_rows(out) == [("C02", "T01", "T01-2", 1_000_150, 3_000_000)]


def test_a_simulated_shift_with_meter_jumps_is_flagged_by_the_meter_check_and_nothing_else(
        tmp_path):
    labels, flags = _shift(tmp_path, tables=4, rounds=50, seed=21, fault_rate=0.4,
                           faults=["meter_jump"], games=["face_up_pai_gow", "caribbean_stud"],
                           rich_hands=0.2)
    assert labels and {x["kind"] for x in labels} == {"meter_jump"}
    ev = evaluate(labels, flags)
    assert ev.perfect, markdown(ev)
    mine = {f["round_id"]: f for f in flags if f["check_id"] == METER}
    assert set(mine) == {x["round_id"] for x in labels}
    for label in labels:
        flag = mine[label["round_id"]]
        assert abs(flag["recorded_cents"] - flag["expected_cents"]) <= label["amount_cents"]


# --- the reset amount is ruleset data ---------------------------------------------------


def _filed(root: Path, **options) -> dict:
    from tests.test_rulesets_check import GOOD

    data = json.loads(json.dumps(GOOD))
    data["options"] = {**data["options"], **options}
    folder = root / "C02"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{data['id']}.json").write_text(json.dumps(data), encoding="utf-8")
    return data


def test_a_casino_files_its_meters_reset_amount_and_a_bad_one_is_named(tmp_path):
    from replay.filings import FilingProblemKind, load_rulebook, read_filings

    data = _filed(tmp_path / "good", progressive_reset_cents=1_000_000)
    assert read_filings(tmp_path / "good").problems == ()
    book = load_rulebook(tmp_path / "good")
    assert book.find(data["id"]).options["progressive_reset_cents"] == 1_000_000
    for bad in (-1, "ten thousand dollars", True):
        root = tmp_path / f"bad-{bad}"
        _filed(root, progressive_reset_cents=bad)
        problems = read_filings(root).problems
        assert [p.kind for p in problems] == [FilingProblemKind.BAD_VALUE], (bad, problems)
        assert "progressive_reset_cents" in problems[0].detail


def test_replay_writes_the_meter_id_and_the_rulesets_reset_amount_into_rounds(tmp_path):
    from replay.filings import load_rulebook
    from schemas import ProgressiveMeterRead

    data = _filed(tmp_path / "rulesets", progressive_reset_cents=1_000_000)
    book = load_rulebook(tmp_path / "rulesets")
    ours, shipped = Table("T01", "C02"), Table("T02", "C01")
    events = []
    for t in (ours, shipped):
        rid = f"{t.table_id}-000001"
        events += [t.event(rid, RoundStarted(game="caribbean_stud", dealer_id="E011")),
                   t.event(rid, ProgressiveMeterRead(meter_cents=1_234_500,
                                                     meter_id=f"{t.table_id}-progressive")),
                   t.event(rid, RoundEnded())]
    log = _write(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=7)
    replay(log, tmp_path / "replay", book=book)
    rows = {r["casino"]: r for r in pq.read_table(tmp_path / "replay" / "rounds.parquet")
            .to_pylist()}
    assert rows["C02"]["ruleset"] == data["id"]
    assert (rows["C02"]["progressive_meter_cents"], rows["C02"]["progressive_meter_id"],
            rows["C02"]["progressive_reset_cents"]) == (1_234_500, "T01-progressive",
                                                        1_000_000)
    # the shipped ruleset names no reset amount: neither the rule texts nor docs/rules.md
    # give one
    assert (rows["C01"]["progressive_meter_id"], rows["C01"]["progressive_reset_cents"]) == (
        "T02-progressive", None)


def test_the_jackpot_log_lists_each_hit_with_its_steps_and_the_meter_before_and_after(
        tmp_path):
    steps = {"hand_verified": True, "light_illuminated": True, "validated": True,
             "validated_by": "F011", "validator_role": "floorperson", "paid": True,
             "paid_from": "meter", "documented": False}
    _outputs(tmp_path, [_reading("R1", 0, 1_000_000, reset=500_000),
                        _reading("R2", 1, None, meter_id=None),
                        _reading("T02-1", 2, 777_000, table="T02", meter_id="T02-progressive"),
                        _reading("R3", 3, 500_040, reset=500_000)],
             [], [{"round_id": "R1", "seat": 4, "hand": "royal_flush",
                   "judged_hand": "royal_flush", "progressive_meter_cents": 1_000_000,
                   "recorded_award_cents": 1_000_000, "expected_net_cents": 1_000_000,
                   **steps}])
    (row,) = _report(tmp_path, "jackpot_log")
    assert (row["round_id"], row["seat"], row["recorded_award_cents"], row["paid_from"],
            row["steps_missing"], row["meter_before"], row["meter_after"],
            row["meter_after_round"], row["reset_cents"]) == (
        "R1", 4, 1_000_000, "meter", "documented", 1_000_000, 500_040, "R3", 500_000)


def test_the_preceding_hand_is_the_one_dealt_before_not_the_one_named_lower(tmp_path):
    # round ids out of the order the rounds were dealt: "T01-B" was dealt first (seat 3 bet
    # 2,500), "T01-A" second (seat 3 bet 4,000), then seat 3 banks: the dealer matches 4,000
    t = Table()
    events = [*_round(t, "T01-B", mains={2: 2500, 3: 2500}),
              *_round(t, "T01-A", mains={2: 2500, 3: 4000}),
              *_round(t, "T01-C", mains={2: 2500}, banker=3, dealer_wager=4000),
              *_round(t, "T01-D", mains={2: 2500}, banker=3, dealer_wager=2500)]
    assert _flagged(_rows(tmp_path, events, CHECK)) == [
        ("C01", "T01", "T01-D", 3, 2500, 4000)]


def test_rounds_of_an_older_replay_without_the_meter_id_are_read_as_the_tables_meters(
        tmp_path):
    # an older rounds.parquet has neither progressive_meter_id nor progressive_reset_cents:
    # the meter is then the table's own, and a reading after a hit is not judged
    import pyarrow as pa

    out = _outputs(tmp_path, [_reading("R1", 0, 1_000_000, reset=500_000),
                              _reading("R2", 2, 999_000, reset=500_000)])
    old = pq.read_table(out / "rounds.parquet")
    old = old.drop_columns(["progressive_meter_id", "progressive_reset_cents"])
    assert isinstance(old, pa.Table)
    pq.write_table(old, out / "rounds.parquet")
    assert _meter_rows(out) == [("C01", "T01", "R2", 999_000, 1_000_000)]


def test_a_round_whose_meter_reading_was_lost_still_contributes_to_the_meter(tmp_path):
    # R2 took 200 of Progressive wagers but its reading is not in the log: R3 may be up to
    # the 100 of R1 and the 200 of R2 above R1
    out = _outputs(tmp_path, [_reading("R1", 0, 1_000_000), _reading("R2", 2, None),
                              _reading("R3", 4, 1_000_250), _reading("R4", 6, 1_000_251)],
                   [_progressive("R1", 100), _progressive("R2", 200)])
    assert _meter_rows(out) == [("C01", "T01", "R4", 1_000_251, 1_000_250)]
