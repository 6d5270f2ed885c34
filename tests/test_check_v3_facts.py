"""The checks of the facts only schema id 3 carries (checks/sql: reshuffle_missing,
optional_settled_after_collected, jackpot_hand_collected_before_paid,
envy_hand_collected_before_envy_paid, hand_changed_after_banker_exposed,
bank_passed_not_followed, bank_not_covered) on replay's outputs built by hand: a table's
rounds with their timeline (``table_seq`` running across the table's rounds, as the log
numbers a table's events), ``rounds`` and ``wagers``. Each check flags the wrong order or
amount at the seat, lets pass every order the rule text allows, and does not judge what it
cannot: a round recorded under an older vocabulary (listed with why by
checks/reports/vocabulary_unjudged.sql), and an outputs directory an older replay wrote
without the new columns (not evaluated, never an error and never a pass).

The expected flags are written by hand from the rule, never taken from the code."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from checks.runner import connect, load_checks, run_check
from replay.run import TABLES
from schemas.vocabulary import JACKPOT_STEPS

START = datetime(2026, 11, 28, 18, 0, tzinfo=UTC)
REPORTS = Path(__file__).resolve().parent.parent / "checks" / "reports"
V3_COLUMNS = ("vocabulary", "banker_cover_cents", "patron_id", "bank_to", "bank_reason",
              "shuffle", "deck_id")
ROUND_WIDE = ("round started", "round ended", "shuffled", "bank passed", "round voided")


def ev(event: str, seat: int | None = None, *, position: str | None = None, **facts: Any
       ) -> dict[str, Any]:
    """One timeline event; ``facts``: wager, net_cents, for_seat, bank_to, shuffle, summary,
    key (a name a correction can refer to), superseded, corrects (the key of the event a
    correction replaces), replacement."""
    if position is None and event not in ROUND_WIDE:
        position = "dealer" if seat is None else f"seat {seat}"
    return {"event": event, "seat": seat, "position": position, **facts}


def won(seat: int | None, wager: str = "main", cents: int = 1000, **kw: Any) -> dict:
    return ev("wager settled", seat, wager=wager, net_cents=cents, outcome="win", **kw)


def lost(seat: int | None, wager: str = "main", **kw: Any) -> dict:
    return ev("wager settled", seat, wager=wager, net_cents=-1000, outcome="loss", **kw)


def dealt(*seats: int) -> list[dict]:
    """The cards dealt to ``seats`` and then to the dealer."""
    return [*(ev("cards dealt", s) for s in seats), ev("cards dealt")]


class Shift:
    """A casino's tables and their rounds, built by hand: every event gets its table's next
    ``table_seq``, every round the next minute."""

    def __init__(self) -> None:
        self.seq: dict[tuple[str, str], int] = {}
        self.rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}

    def round(self, round_id: str, game: str, events: list[dict], *, table: str = "T01",
              casino: str = "C01", banker: str = "dealer", vocabulary: int | None = 3,
              cover: int | None = None, voided: bool = False,
              wagers: list[dict] = (), jackpots: list[dict] = ()) -> None:
        n = len(self.rows["rounds"])
        dealt_at = START + timedelta(minutes=n)
        self.rows["rounds"].append({
            "round_id": round_id, "casino": casino, "table_id": table, "game": game,
            "dealt_at": dealt_at, "dealer_id": "E011", "banker": banker, "evaluated": True,
            "voided": voided, "ended": True, "problem_kinds": [], "vocabulary": vocabulary,
            "banker_cover_cents": cover})
        keys: dict[str, int] = {}
        banker_seat = int(banker.split()[1]) if banker.startswith("seat") else None
        for i, row in enumerate([ev("round started"), *events, ev("round ended")]):
            seq = self.seq.get((casino, table), 0) + 1
            self.seq[casino, table] = seq
            row = dict(row)
            key, corrects = row.pop("key", None), row.pop("corrects", None)
            superseded = row.pop("superseded", False)
            if key is not None:
                keys[key] = seq
            if row.get("seat") is not None and row["seat"] == banker_seat \
                    and row["event"] != "event corrected":
                row["position"] = "banker"
            if row["event"] == "event corrected":
                stands = keys[corrects] if row.get("replacement") is not None else None
            else:
                stands = None if superseded else seq
            self.rows["timeline"].append({
                "round_id": round_id, "casino": casino, "table_id": table, "game": game,
                "table_seq": seq, "occurred_at": dealt_at + timedelta(seconds=i),
                "recorded_by": "E011", "summary": row.pop("summary", "(words)"),
                "event_id": f"{round_id}/{seq}", "superseded": superseded,
                "corrects": None if corrects is None else f"{round_id}/{keys[corrects]}",
                "stands_at": stands, **row})
        for w in wagers:
            seat = w.get("seat")
            self.rows["wagers"].append({
                "round_id": round_id, "casino": casino, "table_id": table, "game": game,
                "dealt_at": dealt_at, "dealer_id": "E011", "banker": banker,
                "position": ("dealer" if seat is None else
                             "banker" if seat == banker_seat and w.get("wager", "main") == "main"
                             else f"seat {seat}"),
                "wager": "main", **w})
        for j in jackpots:  # a jackpots row: seat, paid_from, the steps recorded
            self.rows["jackpots"].append({
                "round_id": round_id, "casino": casino, "table_id": table, "game": game,
                "validated_by": "F001", "validator_role": "floorperson",
                **{step: True for step in JACKPOT_STEPS}, **j})

    def write(self, out: Path, *, older: bool = False) -> Path:
        """Replay's files in ``out``; ``older``: as a replay before schema id 3 wrote them
        (no vocabulary, cover, patron or bank and shuffle columns)."""
        out.mkdir(parents=True, exist_ok=True)
        for name, schema in TABLES.items():
            if older:
                schema = pa.schema([f for f in schema if f.name not in V3_COLUMNS])
            rows = [{k: v for k, v in r.items() if k in schema.names} for r in self.rows[name]]
            pq.write_table(pa.Table.from_pylist(rows, schema=schema), out / f"{name}.parquet")
        return out


def flags(tmp_path: Path, shift: Shift, check_id: str, *, older: bool = False
          ) -> list[tuple[str, int | None]]:
    """(round, seat) of every row of ``check_id`` over the shift's outputs."""
    return [(r["round_id"], r["seat"]) for r in rows(tmp_path, shift, check_id, older=older)]


def rows(tmp_path: Path, shift: Shift, check_id: str, *, older: bool = False) -> list[dict]:
    out = shift.write(tmp_path / "replay", older=older)
    (check,) = [c for c in load_checks() if c.id == check_id]
    con = connect(out)
    try:
        return run_check(con, check).to_pylist()
    finally:
        con.close()


def unjudged(tmp_path: Path, check_id: str) -> list[tuple[str, str]]:
    """(round, why) of the rows of checks/reports/vocabulary_unjudged.sql for ``check_id``
    over the outputs last written."""
    con = connect(tmp_path / "replay")
    try:
        sql = (REPORTS / "vocabulary_unjudged.sql").read_text(encoding="utf-8")
        return [(r, why) for r, c, why in con.sql(sql).project("round_id, check_id, why")
                .fetchall() if c == check_id]
    finally:
        con.close()


POKER, FACE_UP, CARIBBEAN = "pai_gow_poker", "face_up_pai_gow", "caribbean_stud"


# --- reshuffle_missing: pai gow poker settlement (17) ---------------------------------------

RESHUFFLE = "reshuffle_missing"


def test_a_shuffle_at_the_end_of_the_round_or_before_the_next_first_deal_passes(tmp_path):
    s = Shift()
    # the shuffle recorded after the last winning payment, in the round it follows
    s.round("R1", POKER, [*dealt(1, 2), lost(1), won(2), ev("shuffled", shuffle="reshuffle")])
    # the shuffle recorded in the round it prepares, before its first deal
    s.round("R2", POKER, [*dealt(1), won(1)])
    s.round("R3", POKER, [ev("shuffled", shuffle="reshuffle"), *dealt(1), won(1)])
    # a change of deck puts a new order of cards in play as a shuffle does; nobody won in
    # R4: the end of the round is its last deal, and the shuffle comes after it
    s.round("R4", POKER, [ev("shuffled", shuffle="deck_change", deck_id="D7"), *dealt(1),
                          ev("shuffled", shuffle="reshuffle"), lost(1)])
    # the shuffle recorded in a round between that was voided before any deal
    s.round("R5", POKER, [*dealt(2), won(2)])
    s.round("R6", POKER, [ev("shuffled", shuffle="reshuffle")], voided=True)
    s.round("R7", POKER, [*dealt(2), won(2), ev("shuffled", shuffle="reshuffle")])
    assert flags(tmp_path, s, RESHUFFLE) == []


def test_cards_dealt_again_without_a_shuffle_between_are_flagged_on_the_round_before(tmp_path):
    s = Shift()
    s.round("R1", POKER, [*dealt(1, 2), lost(1), won(2)])
    # a shuffle after the next round's first deal does not prepare it
    s.round("R2", POKER, [*dealt(1), ev("shuffled", shuffle="reshuffle"), won(1)])
    s.round("R3", POKER, [ev("shuffled", shuffle="reshuffle"), *dealt(1), won(1)])
    assert flags(tmp_path, s, RESHUFFLE) == [("R1", None)]
    (row,) = rows(tmp_path, s, RESHUFFLE)
    assert row["detail"] == (
        "no shuffle recorded after the round's last winning payment (table_seq 6, "
        "2026-11-28T18:00:05.000000Z) before the next deal at the table, round R2 "
        "(table_seq 9)")


def test_a_shuffle_before_the_last_winning_payment_and_none_after_is_flagged(tmp_path):
    s = Shift()
    s.round("R1", POKER, [*dealt(1, 2), won(1), ev("shuffled", shuffle="reshuffle"), won(2)])
    s.round("R2", POKER, [*dealt(1), won(1)])
    # the same with no next round in the outputs: the dealer shuffled too soon
    s.round("S1", POKER, [*dealt(1, 2), won(1), ev("shuffled", shuffle="reshuffle"), won(2)],
            table="T02")
    assert flags(tmp_path, s, RESHUFFLE) == [("R1", None), ("S1", None)]
    assert rows(tmp_path, s, RESHUFFLE)[1]["detail"] == (
        "the round's shuffle (table_seq 6) came before its last winning payment "
        "(table_seq 7) and none after")


def test_a_table_that_records_no_shuffle_at_all_is_not_judged_and_says_why(tmp_path):
    # schema id 3 lets a device leave out what it does not know: without a single Shuffled
    # at the table, the absence of one after a round is no evidence
    s = Shift()
    s.round("R1", POKER, [*dealt(1), won(1)])
    s.round("R2", POKER, [*dealt(1), won(1)])
    assert flags(tmp_path, s, RESHUFFLE) == []
    why = ("the table recorded no shuffle (Shuffled) in these outputs: its device may not "
           "send them, so the absence of one is no evidence")
    assert unjudged(tmp_path, RESHUFFLE) == [("R1", why), ("R2", why)]


def test_the_last_round_at_a_table_without_a_shuffle_of_its_own_is_not_judged(tmp_path):
    s = Shift()
    # the shuffle that prepared it is before its first deal: nothing says what came after
    s.round("R1", POKER, [ev("shuffled", shuffle="reshuffle"), *dealt(1), won(1)])
    # another table's next deal is not this table's
    s.round("S1", POKER, [*dealt(1), won(1)], table="T02")
    assert flags(tmp_path, s, RESHUFFLE) == []


def test_rounds_under_an_older_vocabulary_are_not_judged_and_say_why(tmp_path):
    s = Shift()
    s.round("R1", POKER, [*dealt(1), won(1)], vocabulary=2)
    s.round("R2", POKER, [*dealt(1), won(1)], vocabulary=3)
    # the next round recorded under vocabulary 2 could not have recorded its shuffle
    s.round("R3", POKER, [*dealt(1), won(1)], vocabulary=2)
    s.round("T1", "pai_gow_tiles", [ev("tiles dealt", 1), won(1)], vocabulary=2,
            table="T02")
    assert flags(tmp_path, s, RESHUFFLE) == []
    why = "recorded under vocabulary 2, which cannot carry a shuffle (Shuffled)"
    assert unjudged(tmp_path, RESHUFFLE) == [
        ("R1", why),
        ("R2", "the table recorded no shuffle (Shuffled) in these outputs: its device may not "
               "send them, so the absence of one is no evidence"),
        ("R3", why)]


def test_the_other_games_are_not_judged_by_the_pai_gow_poker_procedure(tmp_path):
    # settlement (17) is pai gow poker's: no text Catwalk holds says it of the others
    s = Shift()
    s.round("T1", "pai_gow_tiles", [ev("tiles dealt", 1), ev("tiles dealt"), won(1),
                                    ev("shuffled", shuffle="reshuffle")], table="T02")
    s.round("T2", "pai_gow_tiles", [ev("tiles dealt", 1), ev("tiles dealt"), won(1)],
            table="T02")
    s.round("T3", "pai_gow_tiles", [ev("tiles dealt", 1), ev("tiles dealt"), lost(1)],
            table="T02")
    s.round("C1", CARIBBEAN, [*dealt(1), won(1, "ante"), ev("shuffled", shuffle="reshuffle")],
            table="T03")
    s.round("C2", CARIBBEAN, [*dealt(1), won(1, "ante")], table="T03")
    s.round("C3", CARIBBEAN, [*dealt(1), won(1, "ante")], table="T03")
    s.round("F1", FACE_UP, [ev("shuffled", shuffle="reshuffle"), *dealt(1), won(1)],
            table="T04")
    s.round("F2", FACE_UP, [*dealt(1), won(1)], table="T04")
    assert flags(tmp_path, s, RESHUFFLE) == []
    assert unjudged(tmp_path, RESHUFFLE) == []


def test_outputs_of_an_older_replay_are_read_and_judge_nothing(tmp_path):
    s = Shift()
    s.round("R1", POKER, [*dealt(1), won(1)])
    s.round("R2", POKER, [*dealt(1), won(1)])
    assert flags(tmp_path, s, RESHUFFLE, older=True) == []
    assert [r for r, _ in unjudged(tmp_path, RESHUFFLE)] == ["R1", "R2"]
    assert unjudged(tmp_path, RESHUFFLE)[0][1].startswith("recorded under vocabulary unknown")


def test_every_check_of_schema_id_3_runs_over_an_older_replays_outputs(tmp_path):
    s = Shift()
    s.round("R1", POKER, [*dealt(1), won(1)], banker="seat 2",
            wagers=[{"seat": 1, "amount_cents": 1000}])
    (tmp_path / "replay").mkdir()
    s.write(tmp_path / "replay", older=True)
    (tmp_path / "replay" / "timeline.parquet").unlink()  # an older replay wrote none
    con = connect(tmp_path / "replay")
    try:
        for check in load_checks():
            if check.id in V3_CHECKS:
                assert run_check(con, check).num_rows == 0, check.id
    finally:
        con.close()


V3_CHECKS = (RESHUFFLE, "optional_settled_after_collected",
             "jackpot_hand_collected_before_paid", "envy_hand_collected_before_envy_paid",
             "hand_changed_after_banker_exposed", "bank_passed_not_followed",
             "bank_not_covered", "repeat_overpay_patron", "dealer_wager_not_preceding")


# --- optional_settled_after_collected: 58 Pa. Code § 688a.7(i) -----------------------------

OPTIONAL = "optional_settled_after_collected"


def test_optional_wagers_settled_before_their_seats_cards_are_collected_pass(tmp_path):
    s = Shift()
    s.round("F1", FACE_UP, [
        *dealt(1, 2), lost(1), won(2), won(1, "ace_high"), lost(1, "fortune"),
        # seat 2's cards collected while seat 1's Progressive waits: another seat's
        ev("hand collected", 2), won(1, "progressive"), ev("hand collected", 1),
        ev("hand collected")])
    # the dealer's cards collected first: the clause is about the player's cards
    s.round("F2", FACE_UP, [*dealt(1), ev("hand collected"), won(1, "fortune"),
                            ev("hand collected", 1)])
    # the main wager is not an optional wager
    s.round("F3", FACE_UP, [*dealt(1), lost(1, "fortune"), ev("hand collected", 1), won(1)])
    # classic pai gow poker's side wagers, settled as in Face Up (docs/rules.md 6a.18)
    s.round("P1", POKER, [*dealt(1), won(1), won(1, "progressive"), ev("hand collected", 1)])
    # Caribbean stud's Progressive: not the clause's game
    s.round("C1", "caribbean_stud", [*dealt(1), ev("hand collected", 1),
                                     lost(1, "progressive")])
    assert flags(tmp_path, s, OPTIONAL) == []


def test_an_optional_wager_settled_after_its_seats_cards_were_collected_is_flagged(tmp_path):
    s = Shift()
    s.round("F1", FACE_UP, [*dealt(1, 2), won(1), won(2), won(1, "fortune"),
                            ev("hand collected", 2), lost(2, "ace_high"),
                            ev("hand collected", 1)])
    s.round("P1", POKER, [*dealt(1), won(1), ev("hand collected", 1), lost(1, "fortune")],
            banker="seat 3")
    assert flags(tmp_path, s, OPTIONAL) == [("F1", 2), ("P1", 1)]
    assert rows(tmp_path, s, OPTIONAL)[0]["detail"] == (
        "seat 2's ace_high wager was settled (table_seq 9, 2026-11-28T18:00:08.000000Z) "
        "after its cards were collected into the discard rack (table_seq 8)")


def test_a_settlement_corrected_later_stands_where_it_was_recorded(tmp_path):
    s = Shift()
    s.round("F1", FACE_UP, [*dealt(1), won(1, "fortune", key="fortune", superseded=True),
                            ev("hand collected", 1),
                            ev("event corrected", 1, replacement="wager settled",
                               corrects="fortune", wager="fortune", net_cents=1500)])
    s.round("F2", FACE_UP, [*dealt(1), ev("hand collected", 1), won(1, "fortune")],
            vocabulary=2)
    assert flags(tmp_path, s, OPTIONAL) == []
    assert [r for r, _ in unjudged(tmp_path, OPTIONAL)] == ["F2"]


# --- jackpot_hand_collected_before_paid: § 688a.7(h)(3)(i)(B)(4); Caribbean stud rule 9.5 ----

JACKPOT = "jackpot_hand_collected_before_paid"


def steps(seat: int) -> list[dict]:
    """The jackpot's verification steps, as replay words them (replay/timeline.py)."""
    words = ["hand verified by E011 (dealer)", "light illuminated by E011 (dealer)",
             "validated by F001 (floorperson)", "paid by E011 (dealer), paid from the meter",
             "documented by F001 (floorperson)"]
    return [ev("jackpot step recorded", seat, summary=f"seat {seat} jackpot: {w}")
            for w in words]


def test_a_jackpot_hand_collected_after_its_payment_passes(tmp_path):
    s = Shift()
    s.round("C1", CARIBBEAN, [
        *dealt(1, 2), won(1, "ante"), lost(2, "ante"),
        # seat 2's cards go while seat 1's jackpot hand waits on the table
        ev("hand collected", 2), won(1, "progressive", 500_000),
        ev("jackpot hit", 1), *steps(1), ev("hand collected", 1), ev("hand collected")])
    # no paid step recorded: the winning Progressive settlement is the payment
    s.round("C2", CARIBBEAN, [*dealt(3), won(3, "progressive", 50_000), ev("jackpot hit", 3),
                              ev("hand collected", 3)])
    # a seat without a jackpot is not judged, nor one with no payment recorded at all
    s.round("C3", CARIBBEAN, [*dealt(4, 5), ev("hand collected", 4), lost(4, "progressive"),
                              ev("jackpot hit", 5), ev("hand collected", 5)])
    assert flags(tmp_path, s, JACKPOT) == []


def test_a_jackpot_hand_collected_before_the_payout_is_flagged(tmp_path):
    s = Shift()
    # settled, but collected before the paid step: the payout is the step
    hit = [won(1, "progressive", 500_000), ev("jackpot hit", 1)]
    s.round("C1", CARIBBEAN, [*dealt(1), *hit, *steps(1)[:3], ev("hand collected", 1),
                              *steps(1)[3:]])
    s.round("C2", FACE_UP, [*dealt(2), ev("hand collected", 2), won(2, "progressive"),
                            ev("jackpot hit", 2)])
    assert flags(tmp_path, s, JACKPOT) == [("C1", 1), ("C2", 2)]
    assert [r["detail"] for r in rows(tmp_path, s, JACKPOT)] == [
        "seat 1's jackpot hand was collected (table_seq 9, 2026-11-28T18:00:08.000000Z) "
        "before the jackpot was paid (the paid step, table_seq 10)",
        "seat 2's jackpot hand was collected (table_seq 16, 2026-11-28T18:01:03.000000Z) "
        "before the jackpot was paid (its Progressive wager settled, table_seq 17)"]


def paid_from(seat: int, source: str) -> list[dict]:
    """Seat's jackpot steps with its payout paid from ``source`` (meter, table_inventory)."""
    words = ["hand verified by E011 (dealer)", "light illuminated by E011 (dealer)",
             "validated by F001 (floorperson)",
             f"paid by E011 (dealer), paid from the {source.replace('_', ' ')}",
             "documented by F001 (floorperson)"]
    return [ev("jackpot step recorded", seat, summary=f"seat {seat} jackpot: {w}")
            for w in words]


def test_a_payout_from_the_table_inventory_may_be_collected_before_its_documentation(
        tmp_path):
    s = Shift()
    hit = [won(1, "progressive", 500_000), ev("jackpot hit", 1)]
    # paid from the table inventory: only the payment must precede the collection
    inventory = paid_from(1, "table_inventory")
    s.round("T1", CARIBBEAN, [*dealt(1), *hit, *inventory[:4], ev("hand collected", 1),
                              inventory[4]],
            jackpots=[{"seat": 1, "paid_from": "table_inventory"}])
    s.round("T2", POKER, [*dealt(1), *hit, *inventory[:4], ev("hand collected", 1),
                          inventory[4]],
            jackpots=[{"seat": 1, "paid_from": "table_inventory"}])
    # where it was paid from not recorded: the wait for the documentation is not judged
    s.round("T3", POKER, [*dealt(1), *hit, *steps(1)[:4], ev("hand collected", 1),
                          steps(1)[4]],
            jackpots=[{"seat": 1, "paid_from": None}])
    s.round("T4", POKER, [*dealt(1), *hit, *steps(1)[:4], ev("hand collected", 1),
                          steps(1)[4]])  # no jackpots row at all
    assert flags(tmp_path, s, JACKPOT) == []


def test_a_payout_from_the_meter_collected_after_its_documentation_passes(tmp_path):
    s = Shift()
    meter = paid_from(1, "meter")
    # the other seats' and the dealer's cards go while the jackpot hand waits
    s.round("M1", POKER, [*dealt(1, 2), lost(2), won(1, "progressive", 500_000),
                          ev("jackpot hit", 1), *meter[:4], ev("hand collected", 2),
                          ev("hand collected"), meter[4], ev("hand collected", 1)],
            jackpots=[{"seat": 1, "paid_from": "meter"}])
    assert flags(tmp_path, s, JACKPOT) == []


def test_a_payout_from_the_meter_without_a_documented_step_is_left_to_jackpot_unverified(
        tmp_path):
    s = Shift()
    meter = paid_from(1, "meter")
    s.round("M1", POKER, [*dealt(1), won(1, "progressive", 500_000), ev("jackpot hit", 1),
                          *meter[:4], ev("hand collected", 1)],
            jackpots=[{"seat": 1, "paid_from": "meter", "documented": False}])
    # the missing documentation is flagged once, by the check of the steps, not twice
    assert flags(tmp_path, s, JACKPOT) == []
    assert flags(tmp_path, s, "jackpot_unverified") == [("M1", 1)]


def test_a_payout_from_the_meter_collected_before_its_documentation_is_flagged(tmp_path):
    s = Shift()
    meter = paid_from(1, "meter")
    s.round("M1", FACE_UP, [*dealt(1), won(1, "progressive", 500_000), ev("jackpot hit", 1),
                            *meter[:4], ev("hand collected", 1), meter[4]],
            jackpots=[{"seat": 1, "paid_from": "meter"}])
    # collected before the payment as well: said once, as collected before the payment
    s.round("M2", CARIBBEAN, [*dealt(2), won(2, "progressive", 500_000), ev("jackpot hit", 2),
                              ev("hand collected", 2), *paid_from(2, "meter")],
            jackpots=[{"seat": 2, "paid_from": "meter"}])
    assert flags(tmp_path, s, JACKPOT) == [("M1", 1), ("M2", 2)]
    assert [r["detail"] for r in rows(tmp_path, s, JACKPOT)] == [
        "seat 1's jackpot hand was collected (table_seq 10, 2026-11-28T18:00:09.000000Z) "
        "before the documentation of its payout, paid from the meter and not the table "
        "inventory, was completed (the documented step, table_seq 11)",
        "seat 2's jackpot hand was collected (table_seq 18, 2026-11-28T18:01:05.000000Z) "
        "before the jackpot was paid (the paid step, table_seq 22)"]


def test_the_wait_for_the_documentation_is_face_up_s_alone(tmp_path):
    # § 688a.7 is Face Up pai gow poker's; Caribbean stud rule 9.5 asks only that the hand
    # stay until paid, and classic pai gow poker's texts ask nothing of the paperwork
    s = Shift()
    for rid, game in (("K1", CARIBBEAN), ("K2", POKER)):
        meter = paid_from(1, "meter")
        s.round(rid, game, [*dealt(1), won(1, "progressive", 500_000), ev("jackpot hit", 1),
                            *meter[:4], ev("hand collected", 1), meter[4]],
                jackpots=[{"seat": 1, "paid_from": "meter"}])
    assert flags(tmp_path, s, JACKPOT) == []


def test_a_jackpot_under_an_older_vocabulary_is_not_judged(tmp_path):
    s = Shift()
    s.round("C1", CARIBBEAN, [*dealt(1), ev("hand collected", 1), won(1, "progressive"),
                              ev("jackpot hit", 1)], vocabulary=1)
    assert flags(tmp_path, s, JACKPOT) == []
    assert unjudged(tmp_path, JACKPOT) == [
        ("C1", "recorded under vocabulary 1, which cannot carry the collection of a hand "
               "(HandCollected)")]


# --- envy_hand_collected_before_envy_paid: § 688a.7(h)(2)(i)(B)-(C), (iii) -------------------

ENVY = "envy_hand_collected_before_envy_paid"


def envy(seat: int, for_seat: int | None) -> dict:
    return ev("Envy Bonus paid", seat, for_seat=for_seat)


def test_qualifying_hands_collected_after_every_envy_bonus_for_them_pass(tmp_path):
    s = Shift()
    s.round("F1", FACE_UP, [
        *dealt(1, 2, 3), won(3, "fortune"),
        # seat 1 holds no qualifying hand: its cards may go first; the dealer's too
        ev("hand collected", 1), ev("hand collected"),
        envy(2, 3), envy(1, 3), ev("hand collected", 3), ev("hand collected", 2)])
    # Envy Bonuses in any order, for two hands, each collected after its own
    s.round("F2", FACE_UP, [*dealt(1, 2), envy(2, 1), envy(1, 2), ev("hand collected", 1),
                            ev("hand collected", 2)])
    assert flags(tmp_path, s, ENVY) == []


def test_a_qualifying_hand_collected_before_an_envy_bonus_for_it_is_flagged(tmp_path):
    s = Shift()
    s.round("F1", FACE_UP, [*dealt(1, 2, 3), envy(2, 3), ev("hand collected", 3),
                            envy(1, 3), ev("hand collected", 2)])
    # an Envy Bonus for the dealer's hand (never owed: envy_own_or_dealer_hand says so) paid
    # after the dealer's cards went
    s.round("F2", FACE_UP, [*dealt(1), ev("hand collected"), envy(1, None)])
    # classic pai gow poker's Envy, settled as in Face Up (docs/rules.md 6a.18)
    s.round("P1", POKER, [*dealt(1, 2), ev("hand collected", 2), envy(1, 2)])
    assert flags(tmp_path, s, ENVY) == [("F1", 3), ("F2", None), ("P1", 2)]
    assert [r["detail"] for r in rows(tmp_path, s, ENVY)] == [
        "seat 3's hand was collected (table_seq 7, 2026-11-28T18:00:06.000000Z) before seat 1 "
        "was paid an Envy Bonus for it (table_seq 8)",
        "the dealer's hand was collected (table_seq 14, 2026-11-28T18:01:03.000000Z) before "
        "seat 1 was paid an Envy Bonus for it (table_seq 15)",
        "seat 2's hand was collected (table_seq 21, 2026-11-28T18:02:04.000000Z) before seat 1 "
        "was paid an Envy Bonus for it (table_seq 22)"]


def test_envy_under_an_older_vocabulary_is_not_judged(tmp_path):
    s = Shift()
    s.round("F1", FACE_UP, [*dealt(1, 2), envy(2, 1)], vocabulary=2)
    s.round("F2", FACE_UP, [*dealt(1, 2)], vocabulary=2)
    assert flags(tmp_path, s, ENVY) == []
    assert [r for r, _ in unjudged(tmp_path, ENVY)] == ["F1"]


# --- hand_changed_after_banker_exposed: pai gow poker procedure (6), (9) --------------------

CHANGED = "hand_changed_after_banker_exposed"


def test_changes_and_settings_before_the_bankers_exposure_pass(tmp_path):
    s = Shift()
    s.round("P1", POKER, [
        *dealt(1, 2, 3), ev("hand set", 1), ev("hand set", 3), ev("hand set", 1),
        ev("hand set", 2), ev("hand set"), ev("hands exposed", 1),
        # the dealer changes an exposed hand before the player banker's is exposed
        ev("hand changed", 1), ev("hands exposed", 3), ev("hands exposed", 2),
        ev("hands exposed")], banker="seat 2")
    # dealer-banked: a change before the dealer's own exposure
    s.round("P2", POKER, [*dealt(1), ev("hand set", 1), ev("hand set"), ev("hands exposed", 1),
                          ev("hand changed", 1), ev("hands exposed")])
    # a change recorded before the exposure, corrected by an event recorded after it
    s.round("P3", POKER, [*dealt(1), ev("hand set", 1), ev("hand set"), ev("hands exposed", 1),
                          ev("hand changed", 1, key="change", superseded=True),
                          ev("hands exposed"),
                          ev("event corrected", 1, replacement="hand changed",
                             corrects="change")])
    assert flags(tmp_path, s, CHANGED) == []


def test_a_change_or_a_players_setting_after_the_bankers_exposure_is_flagged(tmp_path):
    s = Shift()
    s.round("P1", POKER, [*dealt(1, 2, 3), ev("hand set", 1), ev("hand set", 3),
                          ev("hand set", 2), ev("hands exposed", 2), ev("hand changed", 1),
                          ev("hand set", 3), ev("hands exposed", 1)], banker="seat 2")
    s.round("P2", POKER, [*dealt(1), ev("hand set", 1), ev("hand set"), ev("hands exposed"),
                          ev("hand changed")])
    assert flags(tmp_path, s, CHANGED) == [("P1", 1), ("P1", 3), ("P2", None)]
    assert [r["detail"] for r in rows(tmp_path, s, CHANGED)] == [
        "the dealer changed seat 1's hand (table_seq 10, 2026-11-28T18:00:09.000000Z) after "
        "the player banker's hand was exposed (table_seq 9)",
        "seat 3 set its hand again (table_seq 11, 2026-11-28T18:00:10.000000Z) after the "
        "player banker's hand was exposed (table_seq 9)",
        "the dealer changed the dealer's hand (table_seq 20, 2026-11-28T18:01:06.000000Z) "
        "after the dealer's (the banker's) hand was exposed (table_seq 19)"]


def test_a_change_under_an_older_vocabulary_is_not_judged_but_a_late_setting_is(tmp_path):
    s = Shift()
    s.round("P1", POKER, [*dealt(1, 2), ev("hand set", 1), ev("hand set", 2),
                          ev("hands exposed", 2), ev("hand changed", 1), ev("hand set", 1)],
            banker="seat 2", vocabulary=2)
    # no exposure of the banker's hand: nothing to judge against
    s.round("P2", POKER, [*dealt(1), ev("hand set", 1), ev("hand changed", 1)])
    assert flags(tmp_path, s, CHANGED) == [("P1", 1)]
    assert "set its hand again" in rows(tmp_path, s, CHANGED)[0]["detail"]


# --- bank_passed_not_followed: pai gow poker procedure (11); docs/rules.md 6a.20 ------------

PASSED = "bank_passed_not_followed"


def passed(to: str, reason: str = "rotation", **kw: Any) -> dict:
    return ev("bank passed", bank_to=to, bank_reason=reason, **kw)


def test_the_next_round_banked_as_the_bank_passed_passes(tmp_path):
    s = Shift()
    s.round("B1", POKER, [*dealt(1), passed("seat 3")])
    s.round("B2", POKER, [*dealt(1), passed("seat 4", "cannot_cover")], banker="seat 3")
    # seat 4 banks with the house: the same banker
    s.round("B3", POKER, [*dealt(1), passed("dealer")], banker="seat 4 co-bank")
    s.round("B4", POKER, [*dealt(1)])  # no BankPassed: nothing said of the next banker
    s.round("B5", POKER, [*dealt(1), passed("seat 2", key="p", superseded=True),
                          ev("event corrected", replacement="bank passed", corrects="p",
                             bank_to="seat 5", bank_reason="declined")], banker="seat 6")
    s.round("B6", POKER, [*dealt(1), passed("seat 1")], banker="seat 5")  # no next round
    assert flags(tmp_path, s, PASSED) == []


def test_the_next_round_banked_by_another_than_the_bank_passed_to_is_flagged(tmp_path):
    s = Shift()
    s.round("B1", POKER, [*dealt(1), passed("seat 3")])
    s.round("B2", POKER, [*dealt(1), passed("dealer", "declined")], banker="seat 4")
    s.round("B3", POKER, [*dealt(1)], banker="seat 2")
    # another table's rounds are not the next round here
    s.round("X1", POKER, [*dealt(1), passed("seat 1")], table="T02")
    s.round("X2", POKER, [*dealt(1)], table="T02", banker="seat 1")
    assert flags(tmp_path, s, PASSED) == [("B1", 3), ("B2", None)]
    assert rows(tmp_path, s, PASSED)[1]["detail"] == (
        "the bank passed to dealer (declined) (table_seq 9), but the next round at the "
        "table, B3, was banked by seat 2")


def test_a_bank_passed_under_an_older_vocabulary_is_not_judged(tmp_path):
    s = Shift()
    s.round("B1", POKER, [*dealt(1), passed("seat 3")], vocabulary=2)
    s.round("B2", POKER, [*dealt(1)], banker="seat 2", vocabulary=2)
    assert flags(tmp_path, s, PASSED) == []
    assert [r for r, _ in unjudged(tmp_path, PASSED)] == ["B1", "B2"]


# --- bank_not_covered: pai gow poker procedure (11) ------------------------------------------

COVERED = "bank_not_covered"


def banked(s: Shift, round_id: str, cover: int | None, *, co_bank: bool = False,
           mains: dict[int, int], dealer: int | None = None, side: dict[int, int] | None = None,
           game: str = POKER, vocabulary: int = 3) -> None:
    """A round banked by seat 6 (with the house when ``co_bank``), with the other seats'
    main wagers, the dealer's own wager and side wagers."""
    wagers = [{"seat": seat, "amount_cents": cents} for seat, cents in mains.items()]
    wagers += [{"seat": seat, "wager": "fortune", "amount_cents": c}
               for seat, c in (side or {}).items()]
    if dealer is not None:
        wagers.append({"seat": None, "amount_cents": dealer})
    s.round(round_id, game, dealt(1), banker="seat 6 co-bank" if co_bank else "seat 6",
            cover=cover, wagers=wagers, vocabulary=vocabulary)


def test_a_cover_of_the_wagers_against_the_bank_or_of_half_with_a_co_bank_passes(tmp_path):
    s = Shift()
    # 2,500 + 1,500 + the dealer's 1,000 = 5,000 against the bank, covered exactly
    banked(s, "K1", 5000, mains={1: 2500, 2: 1500}, dealer=1000)
    # the banker's own main wager and the side wagers are not booked by the banker
    banked(s, "K2", 4000, mains={1: 2500, 2: 1500, 6: 9000}, side={1: 500, 6: 500})
    # co-banked: half of 5,001 is 2,500.5, and 2,501 covers it
    banked(s, "K3", 2501, co_bank=True, mains={1: 2501, 2: 2500})
    # the cover not recorded: not evaluated
    banked(s, "K4", None, mains={1: 2500})
    banked(s, "K5", 1000, game="pai_gow_tiles", mains={1: 1000})
    assert flags(tmp_path, s, COVERED) == []
    assert unjudged(tmp_path, COVERED) == [
        ("K4", "the player banker's cover was not recorded (RoundStarted.banker_cover_cents)")]


def test_a_bank_not_covered_alone_or_a_co_bank_below_half_is_flagged(tmp_path):
    s = Shift()
    # the dealer's own wager counts: 4,000 + 1,000 against a cover of 4,999
    banked(s, "K1", 4999, mains={1: 2500, 2: 1500}, dealer=1000)
    # 2,500 is below half of 5,001
    banked(s, "K2", 2500, co_bank=True, mains={1: 2501, 2: 2500})
    banked(s, "K3", 999, game="pai_gow_tiles", mains={1: 1000})
    banked(s, "K4", 100, mains={1: 1000})
    assert flags(tmp_path, s, COVERED) == [("K1", 6), ("K2", 6), ("K3", 6), ("K4", 6)]
    got = rows(tmp_path, s, COVERED)
    assert [r["detail"] for r in got] == [
        "seat 6 banked alone, covering 4999 cents of the 5000 cents wagered against the bank "
        "(enough for a 50/50 co-bank with the house, which was not recorded)",
        "seat 6 co-banked with the house, covering 2500 cents of the 5001 cents wagered "
        "against the bank (half of them is 2501; a player who cannot cover half passes the "
        "deal)",
        "seat 6 banked alone, covering 999 cents of the 1000 cents wagered against the bank "
        "(enough for a 50/50 co-bank with the house, which was not recorded)",
        "seat 6 banked alone, covering 100 cents of the 1000 cents wagered against the bank "
        "(not even half: the player passes the deal)"]
    assert {r["recorded_cents"] for r in got} == {None}  # no money paid: no amount at stake


def test_a_player_bank_under_an_older_vocabulary_is_not_evaluated(tmp_path):
    s = Shift()
    banked(s, "K1", None, mains={1: 2500}, vocabulary=2)
    assert flags(tmp_path, s, COVERED) == []
    assert unjudged(tmp_path, COVERED) == [
        ("K1", "recorded under vocabulary 2, which cannot carry the player banker's cover "
               "(RoundStarted.banker_cover_cents)")]


# --- repeat_overpay_patron: the collusion pattern by patron, across seats and tables -------

def _patron_tables(tmp_path: Path, dealers: dict[str, str], overpays: dict[str, dict],
                   patrons: dict[str, dict[int, str]], *, days: dict[str, int] | None = None
                   ) -> Path:
    """10 rounds at each table (dealt by ``dealers[table]``), seats 1 to 7 each winning 950;
    ``overpays[table]`` maps a round's index to {seat: cents paid too much};
    ``patrons[table]`` names the patron at a seat (the others name none)."""
    from tests.test_checks_statistical import DAY1, _round, _wager, _write

    rounds, wagers = [], []
    for table, dealer in dealers.items():
        for n in range(10):
            when = DAY1 + timedelta(days=(days or {}).get(table, 0), minutes=n)
            r = _round(table, dealer, n, when)
            rounds.append(r)
            for seat in range(1, 8):
                w = _wager(r, seat, 950 + overpays.get(table, {}).get(n, {}).get(seat, 0), 950)
                w["patron_id"] = patrons.get(table, {}).get(seat)
                wagers.append(w)
    return _write(tmp_path, rounds, wagers)


def _patron_leads(replay: Path, **params: Any) -> list[dict]:
    from tests.test_checks_statistical import _leads

    return _leads(replay, "repeat_overpay_patron", **params)


def test_a_patron_overpaid_at_two_seats_and_tables_by_one_dealer_is_a_lead(tmp_path):
    # dealer D1 deals T1 and T2; patron P sits at seat 3 of T1 and seat 5 of T2 and is
    # overpaid 100 twice at each: all 4 of D1's overpayments, on a patron who played 20 of
    # the 140 seat-rounds: chance (1/7)^4 = 0.00042. No seat had 3 (repeat_overpay_seat's
    # least): the seat check cannot see it.
    replay = _patron_tables(
        tmp_path, {"T1": "D1", "T2": "D1"},
        {"T1": {0: {3: 100}, 2: {3: 100}}, "T2": {1: {5: 100}, 3: {5: 100}}},
        {"T1": {3: "P", 4: "Q"}, "T2": {5: "P"}})
    leads = _patron_leads(replay)
    assert [(f["casino"], f["table_id"], f["seat"], f["dealer_id"], f["recorded_cents"],
             f["expected_cents"], f["amount_at_stake_cents"], f["kind"]) for f in leads] == [
        ("C01", None, None, "D1", 4 * 1050, 4 * 950, 400, "statistical")]
    assert leads[0]["detail"] == (
        "patron P overpaid in 4 of the 4 overpaid seat-rounds of dealer D1 on 2026-03-14 at "
        "T1, T2, though the patron played 20 of the 140 seat-rounds (chance 0.00042, "
        "threshold 0.001): 400 cents in all; rounds T1-000000, T1-000002, T2-000001, "
        "T2-000003")
    from tests.test_checks_statistical import _leads
    assert _leads(replay, "repeat_overpay_seat") == []
    assert _patron_leads(replay, min_overpays=5) == []


def test_errors_spread_over_patrons_two_dealers_or_no_patron_ids_are_no_lead(tmp_path):
    # spread: P has 3 of D1's 9 overpaid seat-rounds (chance 0.13)
    spread = _patron_tables(
        tmp_path / "spread", {"T1": "D1"},
        {"T1": {0: {1: 50, 2: 50, 3: 50}, 1: {4: 50, 5: 50, 3: 50}, 2: {6: 50, 7: 50, 3: 50}}},
        {"T1": {3: "P"}})
    assert _patron_leads(spread) == []
    # two dealers, twice each, on patron P
    two = _patron_tables(
        tmp_path / "two", {"T1": "D1", "T2": "D2"},
        {"T1": {0: {3: 100}, 1: {3: 100}}, "T2": {0: {3: 100}, 1: {3: 100}}},
        {"T1": {3: "P"}, "T2": {3: "P"}})
    assert _patron_leads(two) == []
    # no patron id recorded (an older vocabulary): the seat check alone sees the seat
    unnamed = _patron_tables(tmp_path / "unnamed", {"T1": "D1"},
                             {"T1": {n: {3: 100} for n in range(4)}}, {})
    assert _patron_leads(unnamed) == []


# --- simulated shifts with the faults of schema id 3, through replay and the catalogue -----

def _simulated(tmp_path: Path, **shift: Any) -> tuple[list[dict], list[dict]]:
    """A simulated shift written to a log, replayed and checked: its labels and flags."""
    import json

    from checks.runner import run_all
    from ingest.simulate import simulate_shift
    from replay.run import replay
    from schemas import encode
    from tests.test_replay_workers import _write

    events, labels = simulate_shift(**shift)
    log = _write(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=200)
    replay(log, tmp_path / "replay")
    run_all(tmp_path / "replay", tmp_path / "checks")
    return ([json.loads(x.to_json()) for x in labels],
            pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist())


ORDER_FAULTS = ["optional_settled_after_collected", "jackpot_hand_collected_early",
                "envy_hand_collected_early", "hand_changed_after_banker_exposed",
                "player_reset_after_banker_exposed", "bank_passed_not_followed",
                "co_bank_without_cover", "bank_without_cover"]


def test_a_simulated_shift_with_the_faults_is_flagged_by_their_checks_and_nothing_unlabelled(
        tmp_path):
    from checks.evaluate import FAULT_CHECKS, evaluate, markdown

    # seed 4, with strong hands dealt often, strikes every one of the eight kinds
    labels, flags = _simulated(tmp_path, tables=4, rounds=40, seed=4, fault_rate=0.6,
                               faults=ORDER_FAULTS, rich_hands=0.3)
    assert {x["kind"] for x in labels} == set(ORDER_FAULTS)
    ev = evaluate(labels, flags)
    assert ev.perfect, markdown(ev)
    for label in labels:  # each at its own check and round
        assert any(f["check_id"] == FAULT_CHECKS[label["kind"]]
                   and f["round_id"] == label["round_id"] for f in flags), label


def test_a_skipped_reshuffle_is_flagged_wherever_a_next_deal_shows_it(tmp_path):
    # the last round of a table has no next deal in the outputs: its skipped shuffle cannot
    # be told from a shift that ended there, and is not evaluated (never flagged)
    labels, flags = _simulated(tmp_path, tables=2, rounds=30, seed=5, fault_rate=0.3,
                               faults=["reshuffle_skipped"], games=["pai_gow_poker"])
    last = {f"T0{t}-{30:06d}" for t in (1, 2)}
    mine = {f["round_id"] for f in flags if f["check_id"] == RESHUFFLE}
    assert labels and mine == {x["round_id"] for x in labels} - last
    assert not [f for f in flags if f["kind"] == "rule"
                and f["round_id"] not in {x["round_id"] for x in labels}]


def test_a_clean_simulated_shift_of_schema_id_3_raises_none_of_these_checks(tmp_path):
    labels, flags = _simulated(tmp_path, tables=4, rounds=40, seed=2, fault_rate=0.0)
    assert labels == []
    assert [f["check_id"] for f in flags if f["check_id"] in V3_CHECKS] == []


def test_the_folds_late_change_is_left_to_its_check_under_schema_id_3_only(tmp_path):
    # replay records a HandChanged after the banker's exposure as a problem of the round;
    # irregular_round leaves it to hand_changed_after_banker_exposed where that check judges
    # the round (vocabulary 3), and flags it where it does not (a round mixing schema ids)
    s = Shift()
    for round_id, vocabulary in (("P1", 3), ("P2", 2)):
        s.round(round_id, POKER, [*dealt(1), ev("hand set", 1), ev("hand set"),
                                  ev("hands exposed"), ev("hand changed", 1)],
                vocabulary=vocabulary)
        s.rows["rounds"][-1].update(
            problem_kinds=["hand_changed_after_banker_exposed"],
            problems="the dealer changed seat 1's hand (table_seq 7) after the dealer's hand "
                     "was exposed")
    assert flags(tmp_path, s, "irregular_round") == [("P2", None)]
    assert flags(tmp_path, s, CHANGED) == [("P1", 1)]
