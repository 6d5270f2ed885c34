"""The checks of the order around the table (checks/sql: tiles_exposed_out_of_order,
tiles_winners_paid_out_of_order, players_exposed_out_of_order) on hand-built timelines and
hand-written table layouts (rounds.seat_order): each flags a seat shown or paid out of turn,
and lets pass every order the rule texts allow (a withdrawn or unshown seat skipped, the
banker's and the dealer's own exposures outside the sequence, events at the same instant, a
corrected event standing where the event it corrects stood, either reading of a tiles
round a player banks); a round without a layout, or whose layout does not list a seat, is
not evaluated, never passed: neither flagged nor passed, and listed with why by the report
checks/reports/seat_order_unjudged.sql."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from checks.runner import connect, run_checks
from replay.run import TABLES
from tests.outputs_support import sign_replay
from tests.test_check_order import START, ev, round_rows, settled

TILES = "pai_gow_tiles"
POKER = "pai_gow_poker"
SEVEN = [7, 6, 5, 4, 3, 2, 1]
"""A table whose seat 7 is at the dealer's far right and seat 1 at the far left."""


def a_round(round_id: str, game: str, events: list[dict], *, seat_order: list[int] | None,
            banker: str = "dealer") -> tuple[dict, list[dict]]:
    """The round's row (its layout's seat order and who banks) and its timeline."""
    row = {"round_id": round_id, "casino": "C01", "table_id": "T01", "game": game,
           "ruleset": None, "dealt_at": START, "banker": banker, "evaluated": True,
           "voided": False, "ended": True, "events": len(events) + 2, "corrections": 0,
           "seat_order": seat_order, "problem_kinds": []}
    return row, round_rows(round_id, game, events)


def run(tmp_path: Path, check_id: str, *rounds: tuple[dict, list[dict]]) -> list[dict]:
    """Every flag of ``check_id`` over a replay directory holding only these rounds."""
    out = tmp_path / "replay"
    out.mkdir(exist_ok=True)
    given = {"rounds": [r for r, _ in rounds], "timeline": [x for _, t in rounds for x in t]}
    for name, schema in TABLES.items():
        pq.write_table(pa.Table.from_pylist(given.get(name, []), schema=schema),
                       out / f"{name}.parquet")
    sign_replay(tmp_path)
    run_checks(out, tmp_path / "checks", only=[check_id])
    return [f for f in pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
            if f["check_id"] == check_id]


REPORT = Path(__file__).resolve().parent.parent / "checks" / "reports" / "seat_order_unjudged.sql"


def unjudged(tmp_path: Path) -> list[tuple[str, str, str]]:
    """(round, check, why) of the report of the rounds these checks could not judge, over
    the replay directory :func:`run` wrote."""
    con = connect(tmp_path / "replay")
    try:
        rows = con.sql(REPORT.read_text(encoding="utf-8")).fetchall()
        cols = ["casino", "table_id", "round_id", "check_id", "players", "why"]
        return [(r["round_id"], r["check_id"], r["why"])
                for r in (dict(zip(cols, row, strict=True)) for row in rows)]
    finally:
        con.close()


def seats(flags: list[dict]) -> list[tuple[str, int | None]]:
    return [(f["round_id"], f["seat"]) for f in flags]


def shown(*order: int, **kw) -> list[dict]:
    return [ev("hands exposed", s, **kw) for s in order]


def tiles_setting(*players: int) -> list[dict]:
    return [*(ev("hand set", s) for s in players), ev("hand set")]


# --- PR pai gow tiles ¶ G: shown from the dealer's far right, right to left -------------------

def test_tiles_hands_shown_from_the_dealers_far_right_right_to_left_pass(tmp_path):
    in_turn = a_round("G1", TILES, [*tiles_setting(1, 4, 6), *shown(6, 4, 1),
                                    ev("hands exposed")], seat_order=SEVEN)
    other_way_round = a_round("G2", TILES, [*tiles_setting(1, 4, 6), *shown(1, 4, 6)],
                              seat_order=[1, 2, 3, 4, 5, 6, 7])
    assert run(tmp_path, "tiles_exposed_out_of_order", in_turn, other_way_round) == []
    assert unjudged(tmp_path) == []


def test_a_tiles_seat_shown_before_the_seat_at_its_right_is_flagged_at_the_later_seat(tmp_path):
    flags = run(tmp_path, "tiles_exposed_out_of_order",
                a_round("G3", TILES, [*tiles_setting(1, 4, 6), *shown(4, 6, 1)],
                        seat_order=SEVEN))
    assert seats(flags) == [("G3", 6)]
    assert "after seat 4's" in flags[0]["detail"] and "7 6 5 4 3 2 1" in flags[0]["detail"]


def test_a_withdrawn_or_unshown_seat_and_the_dealers_own_hands_are_skipped(tmp_path):
    withdrew = a_round("G4", TILES, [*tiles_setting(2, 3, 5), ev("player acted", 3,
                                                                 action="withdraw"),
                                     ev("hands exposed"), *shown(5, 2)], seat_order=SEVEN)
    assert run(tmp_path, "tiles_exposed_out_of_order", withdrew) == []


def test_events_at_the_same_instant_are_ordered_by_the_tables_sequence(tmp_path):
    same_instant = a_round("G5", TILES, [*tiles_setting(2, 5), *shown(5, 2, at=9)],
                           seat_order=SEVEN)
    wrong_at_one_instant = a_round("G6", TILES, [*tiles_setting(2, 5), *shown(2, 5, at=9)],
                                   seat_order=SEVEN)
    assert seats(run(tmp_path, "tiles_exposed_out_of_order", same_instant,
                     wrong_at_one_instant)) == [("G6", 5)]


def test_a_corrected_exposure_stands_where_the_event_it_corrects_stood(tmp_path):
    """Seat 2's exposure at table_seq 6 is replaced by seat 5's, standing at 6; seat 2's own
    comes later: in turn (read without the correction, 2 before 5 would be out of turn)."""
    replaced = a_round("G7", TILES, [
        *tiles_setting(2, 5),
        ev("hands exposed", 2, seq=6, superseded=True),
        ev("event corrected", 5, seq=7, corrects=6, replacement="hands exposed"),
        ev("hands exposed", 2, seq=8)], seat_order=SEVEN)
    assert run(tmp_path, "tiles_exposed_out_of_order", replaced) == []


def test_a_player_banked_tiles_round_passes_from_the_dealers_right_or_the_bankers(tmp_path):
    """Seat 4 banks at a table 7..1: from the dealer's far right 6, 2; from the banker's
    right (the seats after 4: 3, 2, 1, then 7, 6, 5) 2, 6. Both pass; 6, 1, 2 fits neither."""
    dealer_reading = a_round("G8", TILES, [*tiles_setting(2, 6), *shown(6, 2),
                                           ev("hands exposed", 4, position="banker")],
                             seat_order=SEVEN, banker="seat 4")
    banker_reading = a_round("G9", TILES, [*tiles_setting(2, 6), *shown(2, 6)],
                             seat_order=SEVEN, banker="seat 4 co-bank")
    neither = a_round("G10", TILES, [*tiles_setting(1, 2, 6), *shown(6, 1, 2)],
                      seat_order=SEVEN, banker="seat 4")
    assert seats(run(tmp_path, "tiles_exposed_out_of_order", dealer_reading, banker_reading,
                     neither)) == [("G10", 2)]


def test_a_tiles_round_without_a_layout_or_with_a_seat_it_does_not_list_is_not_evaluated(
        tmp_path):
    no_layout = a_round("G11", TILES, [*tiles_setting(2, 5), *shown(5, 2)], seat_order=None)
    one_player = a_round("G12", TILES, [*tiles_setting(2), *shown(2)], seat_order=None)
    unknown_seat = a_round("G13", TILES, [*tiles_setting(2, 8), *shown(8, 2)],
                           seat_order=SEVEN)
    unknown_banker = a_round("G14", TILES, [*tiles_setting(2, 5), *shown(5, 2)],
                             seat_order=[7, 6, 5, 4, 3, 2], banker="seat 1")
    assert run(tmp_path, "tiles_exposed_out_of_order", no_layout, one_player, unknown_seat,
               unknown_banker) == []
    check = "tiles_exposed_out_of_order"
    assert unjudged(tmp_path) == [
        ("G11", check, "no table layout filed for table T01 of casino C01 in force when the "
                       "round was dealt"),
        ("G13", check, "the table layout in force does not list seat 8"),
        ("G14", check, "the table layout in force does not list seat 1, the player "
                       "banker's")]


# --- PR pai gow tiles ¶ J: winners paid from the dealer's far right, right to left ----------

def tiles_shown(*players: int) -> list[dict]:
    return [*tiles_setting(*players), *shown(*sorted(players, reverse=True))]


def test_tiles_winners_paid_in_turn_after_the_losers_pass_whatever_the_losers_order(tmp_path):
    in_turn = a_round("J1", TILES, [*tiles_shown(1, 3, 5, 6), settled(3, "loss"),
                                    settled(6, "push"), settled(5, "win"), settled(1, "win"),
                                    settled(5, "win", wager="fortune")], seat_order=SEVEN)
    same_instant = a_round("J2", TILES, [*tiles_shown(2, 6), settled(6, "win", at=30),
                                         settled(2, "win", at=30)], seat_order=SEVEN)
    one_winner = a_round("J3", TILES, [*tiles_shown(2, 6), settled(2, "win"),
                                       settled(6, "loss")], seat_order=None)
    assert run(tmp_path, "tiles_winners_paid_out_of_order", in_turn, same_instant,
               one_winner) == []


def test_a_tiles_winner_paid_before_the_winner_at_its_right_is_flagged(tmp_path):
    flags = run(tmp_path, "tiles_winners_paid_out_of_order",
                a_round("J4", TILES, [*tiles_shown(1, 3, 5), settled(1, "win"),
                                      settled(5, "win"), settled(3, "win")],
                        seat_order=SEVEN))
    assert seats(flags) == [("J4", 3), ("J4", 5)]
    assert "after seat 1's" in flags[1]["detail"]


def test_a_payment_is_told_by_its_money_not_its_word(tmp_path):
    """Seat 5's settlement says "push" for a net of 1000: a payment, out of turn; seat 1's
    says "win" for 0: no payment, outside the sequence."""
    flags = run(tmp_path, "tiles_winners_paid_out_of_order",
                a_round("J5", TILES, [*tiles_shown(1, 3, 5), settled(3, "win"),
                                      settled(5, "push", net_cents=1000),
                                      settled(1, "win", net_cents=0)], seat_order=SEVEN))
    assert seats(flags) == [("J5", 5)]


def test_a_corrected_payment_stands_where_the_settlement_it_corrects_stood(tmp_path):
    """Seat 1's payment at table_seq 20 is corrected to a collection: only seat 5's and
    seat 3's payments remain, in turn."""
    corrected = a_round("J6", TILES, [
        *tiles_shown(1, 3, 5), settled(1, "win", seq=20, superseded=True),
        settled(5, "win", seq=21), settled(3, "win", seq=22),
        ev("event corrected", 1, seq=23, corrects=20, replacement="wager settled",
           wager="main", outcome="loss", net_cents=-1000)], seat_order=SEVEN)
    assert run(tmp_path, "tiles_winners_paid_out_of_order", corrected) == []


def test_a_player_banked_tiles_round_pays_from_the_dealers_right_or_the_bankers(tmp_path):
    dealer_reading = a_round("J7", TILES, [*tiles_shown(2, 6), settled(6, "win"),
                                           settled(2, "win")],
                             seat_order=SEVEN, banker="seat 4")
    banker_reading = a_round("J8", TILES, [*tiles_shown(2, 6), settled(2, "win"),
                                           settled(6, "win")],
                             seat_order=SEVEN, banker="seat 4")
    neither = a_round("J9", TILES, [*tiles_shown(1, 2, 6), settled(6, "win"),
                                    settled(1, "win"), settled(2, "win")],
                      seat_order=SEVEN, banker="seat 4")
    assert seats(run(tmp_path, "tiles_winners_paid_out_of_order", dealer_reading,
                     banker_reading, neither)) == [("J9", 2)]


def test_tiles_payments_without_a_layout_or_of_a_seat_it_does_not_list_are_not_evaluated(
        tmp_path):
    no_layout = a_round("J10", TILES, [*tiles_shown(2, 6), settled(6, "win"),
                                       settled(2, "win")], seat_order=None)
    unknown = a_round("J11", TILES, [*tiles_shown(2, 9), settled(9, "win"),
                                     settled(2, "win")], seat_order=SEVEN)
    assert run(tmp_path, "tiles_winners_paid_out_of_order", no_layout, unknown) == []
    found = [(r, why) for r, check, why in unjudged(tmp_path)
             if check == "tiles_winners_paid_out_of_order"]
    assert [r for r, _ in found] == ["J10", "J11"]
    assert found[0][1].startswith("no table layout filed")
    assert found[1][1] == "the table layout in force does not list seat 9"


# --- pai gow poker procedure (7): from the player banker's right side -------------------------

def poker_exposed(*players: int, banker: int | None = None) -> list[dict]:
    """The players set, the banker, the dealer; the dealer's and banker's hands exposed,
    then the players' in the order given."""
    out = [*(ev("hand set", s) for s in players)]
    if banker is not None:
        out.append(ev("hand set", banker, position="banker"))
    out += [ev("hand set"), ev("hands exposed")]
    if banker is not None:
        out.append(ev("hands exposed", banker, position="banker"))
    return out


def test_a_dealer_banked_round_exposes_from_the_dealers_own_right(tmp_path):
    in_turn = a_round("P1", POKER, [*poker_exposed(1, 4, 6), *shown(6, 4, 1)],
                      seat_order=SEVEN)
    wrong = a_round("P2", POKER, [*poker_exposed(1, 4, 6), *shown(1, 4, 6)], seat_order=SEVEN)
    flags = run(tmp_path, "players_exposed_out_of_order", in_turn, wrong)
    assert seats(flags) == [("P2", 4), ("P2", 6)]
    assert "dealer's own right" in flags[0]["detail"]


def test_a_player_banked_round_exposes_from_the_seat_after_the_bankers_wrapping_round(tmp_path):
    """Seat 3 banks at a table 7..1: its right side is seats 2, 1, then 7, 6, 5, 4."""
    in_turn = a_round("P3", POKER, [*poker_exposed(1, 2, 5, 7, banker=3), *shown(2, 1, 7, 5)],
                      seat_order=SEVEN, banker="seat 3")
    co_bank = a_round("P4", POKER, [*poker_exposed(4, 6, banker=3), *shown(6, 4)],
                      seat_order=SEVEN, banker="seat 3 co-bank")
    from_dealers_right = a_round("P5", POKER, [*poker_exposed(1, 2, 5, 7, banker=3),
                                               *shown(7, 5, 2, 1)],
                                 seat_order=SEVEN, banker="seat 3")
    flags = run(tmp_path, "players_exposed_out_of_order", in_turn, co_bank, from_dealers_right)
    assert seats(flags) == [("P5", 1), ("P5", 2)]
    assert "player banker's right (seat 3 banks)" in flags[0]["detail"]


def test_events_at_one_instant_and_a_corrected_exposure_are_judged_by_where_they_stand(
        tmp_path):
    same_instant = a_round("P6", POKER, [*poker_exposed(2, 5), *shown(5, 2, at=12)],
                           seat_order=SEVEN)
    corrected = a_round("P7", POKER, [
        *poker_exposed(2, 5), ev("hands exposed", 2, seq=9, superseded=True),
        ev("event corrected", 5, seq=10, corrects=9, replacement="hands exposed"),
        ev("hands exposed", 2, seq=11)], seat_order=SEVEN)
    assert run(tmp_path, "players_exposed_out_of_order", same_instant, corrected) == []


def test_other_games_are_not_judged_and_a_round_without_a_layout_is_not_evaluated(
        tmp_path):
    face_up = a_round("P8", "face_up_pai_gow", [ev("hand set"), ev("hands exposed"),
                                                *shown(1, 4, 6)], seat_order=SEVEN)
    no_layout = a_round("P9", POKER, [*poker_exposed(2, 5), *shown(5, 2)], seat_order=None)
    unknown_banker = a_round("P10", POKER, [*poker_exposed(2, 5, banker=8), *shown(5, 2)],
                             seat_order=SEVEN, banker="seat 8")
    assert run(tmp_path, "players_exposed_out_of_order", face_up, no_layout,
               unknown_banker) == []
    assert unjudged(tmp_path) == [
        ("P10", "players_exposed_out_of_order", "the table layout in force does not list "
                                                "seat 8, the player banker's"),
        ("P9", "players_exposed_out_of_order", "no table layout filed for table T01 of "
                                               "casino C01 in force when the round was dealt")]
