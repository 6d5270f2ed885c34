"""The checks of the order of play and settlement (checks/sql: face_up_set_before_dealer,
winner_paid_before_losers, envy_before_fortune_settled, concede_before_dealer_exposed,
hands_set_out_of_order, tiles_dealer_set_before_players, tiles_withdrawal_out_of_order) on
hand-built timelines: each flags the wrong order at the seat, and lets pass every order the
rule text allows (players in any order among themselves, events at the same instant, a
corrected event standing where the event it corrects stood, a round whose event is missing).
Then the timeline's typed columns from real events, and a simulated shift with the order
fault through replay and the whole catalogue."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from checks.runner import run_all, run_checks
from replay.run import TABLES, replay
from replay.timeline import facts
from schemas import (
    EnvyBonusPaid,
    EventCorrected,
    HandSet,
    PlayerActed,
    RoundEnded,
    RoundStarted,
    WagerSettled,
    encode,
)
from tests.outputs_support import sign_replay
from tests.test_replay_workers import _write as _write_log

START = datetime(2026, 11, 28, 18, 0, tzinfo=UTC)
ROUND_WIDE = ("round started", "round ended", "progressive meter read", "round voided")


def ev(event: str, seat: int | None = None, *, position: str | None = None,
       wager: str | None = None, outcome: str | None = None, action: str | None = None,
       for_seat: int | None = None, seq: int | None = None, at: int | None = None,
       superseded: bool = False, corrects: int | None = None,
       replacement: str | None = None, net_cents: int | None = None) -> dict:
    """One timeline row as replay writes it; ``seq`` and ``at`` (seconds after the round's
    start; default: the row's place) are filled in by :func:`round_rows` when not given."""
    if position is None and event not in ROUND_WIDE:
        position = "dealer" if seat is None else f"seat {seat}"
    return {"event": event, "seat": seat, "position": position, "wager": wager,
            "outcome": outcome, "action": action, "for_seat": for_seat, "table_seq": seq,
            "at": at, "superseded": superseded, "corrects": corrects,
            "replacement": replacement, "net_cents": net_cents}


NETS = {"win": 1000, "loss": -1000, "push": 0, "void": 0}
"""A settlement's recorded net by its word, unless a row gives its own."""


def settled(seat: int | None, outcome: str, wager: str = "main", **kw) -> dict:
    kw.setdefault("net_cents", NETS[outcome])
    return ev("wager settled", seat, wager=wager, outcome=outcome, **kw)


def round_rows(round_id: str, game: str, events: list[dict]) -> list[dict]:
    """The round's timeline rows: started, ``events`` in their order, ended."""
    rows = [ev("round started"), *events, ev("round ended")]
    out = []
    for n, row in enumerate(rows, start=1):
        seq = row["table_seq"] or n
        at = row["at"] if row["at"] is not None else seq
        corrects = row["corrects"]
        if row["event"] == "event corrected":  # a replacement stands where its event stood
            stands = corrects if row["replacement"] is not None else None
        else:
            stands = None if row["superseded"] else seq
        out.append({
            "round_id": round_id, "casino": "C01", "table_id": "T01", "game": game,
            "table_seq": seq, "occurred_at": START + timedelta(seconds=at),
            "recorded_by": "E011", "event": row["event"], "summary": "(words)",
            "event_id": f"{round_id}/{seq}",
            "corrects": None if corrects is None else f"{round_id}/{corrects}",
            "superseded": row["superseded"], "replacement": row["replacement"],
            **{k: row[k] for k in ("seat", "position", "wager", "outcome", "action",
                                   "for_seat", "net_cents")},
            "stands_at": stands,
        })
    return out


def flagged(tmp_path: Path, check_id: str, *rounds: list[dict]) -> list[tuple[str, int | None]]:
    """(round, seat) of every flag of ``check_id`` over a replay directory holding only
    these timelines."""
    out = tmp_path / "replay"
    out.mkdir(exist_ok=True)
    given = {"timeline": [row for r in rounds for row in r]}
    for name, schema in TABLES.items():
        pq.write_table(pa.Table.from_pylist(given.get(name, []), schema=schema),
                       out / f"{name}.parquet")
    sign_replay(tmp_path)
    run_checks(out, tmp_path / "checks", only=[check_id])
    return [(f["round_id"], f["seat"])
            for f in pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
            if f["check_id"] == check_id]


def details(tmp_path: Path, check_id: str) -> list[str]:
    return [f["detail"] for f in pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
            if f["check_id"] == check_id]


# --- Face Up: the dealer's hands set before any player's (58 Pa. Code § 688a.7(b)) --------

FACE_UP = "face_up_pai_gow"


def test_face_up_players_setting_in_any_order_after_the_dealer_pass(tmp_path):
    lawful = round_rows("F1", FACE_UP, [
        ev("hand set"), ev("hands exposed"),
        ev("hand set", 3), ev("hand set", 1), ev("hand set", 2), ev("hand set", 1),
        ev("hands exposed", 3), ev("hands exposed", 1), ev("hands exposed", 2)])
    same_instant = round_rows("F2", FACE_UP, [
        ev("hand set", at=5), ev("hand set", 2, at=5), ev("hand set", 1, at=5)])
    # the dealer exposes its hand only at the end: the text orders the setting, not that
    dealer_exposed_late = round_rows("F3", FACE_UP, [
        ev("hand set"), ev("hand set", 1), ev("hands exposed", 1), ev("hands exposed")])
    assert flagged(tmp_path, "face_up_set_before_dealer",
                   lawful, same_instant, dealer_exposed_late) == []


def test_face_up_a_player_who_set_before_the_dealer_is_flagged_at_the_seat(tmp_path):
    wrong = round_rows("F4", FACE_UP, [
        ev("hand set", 2), ev("hand set"), ev("hand set", 1), ev("hand set", 2)])
    # a player first setting before the dealer, even at the same instant, is out of turn
    same_instant = round_rows("F5", FACE_UP, [ev("hand set", 4, at=3), ev("hand set", at=3)])
    assert flagged(tmp_path, "face_up_set_before_dealer", wrong, same_instant) == [
        ("F4", 2), ("F5", 4)]
    assert details(tmp_path, "face_up_set_before_dealer")[0] == (
        "seat 2 set its hands (table_seq 2, 2026-11-28T18:00:02.000000Z) before the "
        "dealer's hands were set (table_seq 3)")


def test_face_up_a_corrected_dealer_setting_stands_where_it_was_recorded(tmp_path):
    # the dealer's setting (seq 2) is replaced by a correction recorded after the players set
    corrected = round_rows("F6", FACE_UP, [
        ev("hand set", superseded=True), ev("hand set", 1), ev("hand set", 2),
        ev("event corrected", None, corrects=2, replacement="hand set", position="dealer")])
    # a correction that strikes the dealer's setting leaves no setting to judge against
    struck = round_rows("F7", FACE_UP, [
        ev("hand set", 1), ev("hand set", superseded=True),
        ev("event corrected", corrects=3, position=None)])
    assert flagged(tmp_path, "face_up_set_before_dealer", corrected, struck) == []


def test_face_up_a_round_without_the_dealers_setting_is_not_judged_here(tmp_path):
    missing = round_rows("F8", FACE_UP, [ev("hand set", 1), ev("hands exposed", 1)])
    classic = round_rows("F9", "pai_gow_poker", [ev("hand set", 1), ev("hand set")])
    assert flagged(tmp_path, "face_up_set_before_dealer", missing, classic) == []


# --- losers collected before winners paid -------------------------------------------------


def test_losers_and_ties_in_any_order_then_winners_pass(tmp_path):
    classic = round_rows("S1", "pai_gow_poker", [
        settled(3, "loss"), settled(1, "push"), settled(5, "loss"), settled(4, "win"),
        settled(2, "win"),
        # side wagers are settled after the main wager, seat by seat
        settled(1, "loss", "fortune"), settled(4, "loss", "progressive"),
        # the dealer's own wager against a player banker is settled apart
        settled(None, "loss")])
    same_instant = round_rows("S2", FACE_UP, [
        settled(2, "loss", at=9), settled(1, "win", at=9), settled(1, "win", "fortune", at=9),
        settled(3, "loss", "ace_high", at=9)])
    face_up_tie_after_win = round_rows("S3", FACE_UP, [
        settled(1, "loss"), settled(2, "win"), settled(3, "push")])
    tiles = round_rows("S4", "pai_gow_tiles", [
        ev("hands exposed", 1), ev("hands exposed", 2), ev("hands exposed", 3),
        settled(2, "loss"), settled(1, "win"), settled(3, "push"), ev("hands exposed")])
    caribbean = round_rows("S5", "caribbean_stud", [
        settled(1, "win", "ante"), settled(2, "loss", "ante")])
    assert flagged(tmp_path, "winner_paid_before_losers", classic, same_instant,
                   face_up_tie_after_win, tiles, caribbean) == []


def test_a_winner_paid_before_a_loser_or_a_pai_gow_poker_tie_is_flagged_at_its_seat(tmp_path):
    before_tie = round_rows("S6", "pai_gow_poker", [
        settled(1, "loss"), settled(4, "win"), settled(2, "push"), settled(3, "win")])
    before_loss = round_rows("S7", FACE_UP, [
        settled(2, "win"), settled(1, "win"), settled(3, "loss")])
    tiles = round_rows("S8", "pai_gow_tiles", [
        ev("hands exposed", 1), settled(1, "win"), ev("hands exposed", 2), settled(2, "loss")])
    assert flagged(tmp_path, "winner_paid_before_losers", before_tie, before_loss, tiles) == [
        ("S6", 4), ("S7", 1), ("S7", 2), ("S8", 1)]
    assert details(tmp_path, "winner_paid_before_losers")[0] == (
        "seat 4's winning main wager was paid (table_seq 3, 2026-11-28T18:00:03.000000Z) "
        "before seat 2's tie was settled (table_seq 4)")
    assert details(tmp_path, "winner_paid_before_losers")[3] == (
        "seat 1's winning main wager was paid (table_seq 3, 2026-11-28T18:00:03.000000Z) "
        "before seat 2's hands were shown (table_seq 4)")


def test_a_tiles_winner_paid_before_every_hand_was_shown_is_flagged(tmp_path):
    shown_late = round_rows("S9", "pai_gow_tiles", [
        ev("hands exposed", 2), settled(2, "win"), ev("hands exposed", 1), settled(1, "push")])
    assert flagged(tmp_path, "winner_paid_before_losers", shown_late) == [("S9", 2)]


def test_a_corrected_settlement_stands_where_it_was_recorded(tmp_path):
    # seat 2's loss (seq 2) is replaced after the winners were paid, by a loss of another
    # amount: it still stands before them
    corrected = round_rows("S10", "pai_gow_poker", [
        settled(2, "loss", superseded=True), settled(1, "win"),
        ev("event corrected", 2, corrects=2, replacement="wager settled", wager="main",
           outcome="loss", net_cents=-500)])
    # a winner recorded early and replaced by a loss: no early winner is left
    replaced = round_rows("S11", "pai_gow_poker", [
        settled(1, "win", superseded=True), settled(2, "loss"), settled(3, "win"),
        ev("event corrected", 1, corrects=2, replacement="wager settled", wager="main",
           outcome="loss", net_cents=-1000)])
    # a loss recorded early and replaced by a win, before a loss collected: now wrong
    became_win = round_rows("S12", "pai_gow_poker", [
        settled(1, "loss", superseded=True), settled(2, "loss"),
        ev("event corrected", 1, corrects=2, replacement="wager settled", wager="main",
           outcome="win", net_cents=1000)])
    assert flagged(tmp_path, "winner_paid_before_losers", corrected, replaced,
                   became_win) == [("S12", 1)]


def test_a_round_missing_a_settlement_is_not_judged_by_its_absence(tmp_path):
    only_wins = round_rows("S13", "pai_gow_poker", [settled(1, "win"), settled(2, "win")])
    assert flagged(tmp_path, "winner_paid_before_losers", only_wins) == []


# --- the Envy Bonus after every Fortune wager (58 Pa. Code § 688a.7(h)(2)(ii)) -----------


def envy(seat: int, for_seat: int | None, **kw) -> dict:
    return ev("Envy Bonus paid", seat, for_seat=for_seat, **kw)


def test_envy_bonuses_after_every_fortune_wager_pass(tmp_path):
    lawful = round_rows("E1", FACE_UP, [
        settled(1, "loss"), settled(2, "win"), settled(3, "win", "fortune"),
        settled(1, "loss", "fortune"), settled(2, "loss", "progressive"),
        envy(1, 3), envy(2, 3), settled(3, "win", "progressive")])
    same_instant = round_rows("E2", FACE_UP, [
        settled(2, "win", "fortune", at=7), envy(1, 2, at=7), envy(1, 3, at=7)])
    assert flagged(tmp_path, "envy_before_fortune_settled", lawful, same_instant) == []


def test_an_envy_bonus_paid_before_a_fortune_wager_was_settled_is_flagged(tmp_path):
    early = round_rows("E3", FACE_UP, [
        settled(3, "win", "fortune"), envy(1, 3), envy(2, 3), settled(1, "loss", "fortune")])
    classic = round_rows("E4", "pai_gow_poker", [envy(1, 3), settled(3, "win", "fortune")])
    assert flagged(tmp_path, "envy_before_fortune_settled", early, classic) == [
        ("E3", 1), ("E3", 2)]
    assert details(tmp_path, "envy_before_fortune_settled")[0] == (
        "seat 1 was paid an Envy Bonus for seat 3's hand (table_seq 3, "
        "2026-11-28T18:00:03.000000Z) before seat 1's Fortune wager was settled (table_seq 5)")


# --- Caribbean stud: a concede only after the dealer's hand is exposed (rule 9.7) ---------

CARIBBEAN = "caribbean_stud"


def acted(seat: int, action: str, **kw) -> dict:
    return ev("player acted", seat, action=action, **kw)


def test_folds_before_and_concedes_after_the_dealers_exposure_pass(tmp_path):
    lawful = round_rows("C1", CARIBBEAN, [
        acted(2, "fold"), acted(1, "raise"), ev("hands exposed"), acted(3, "concede"),
        acted(1, "concede")])
    same_instant = round_rows("C2", CARIBBEAN, [
        ev("hands exposed", at=4), acted(1, "concede", at=4)])
    corrected = round_rows("C3", CARIBBEAN, [
        acted(1, "fold", superseded=True), ev("hands exposed"),
        ev("event corrected", 1, corrects=2, replacement="player acted", action="fold")])
    missing = round_rows("C4", CARIBBEAN, [acted(1, "concede")])
    assert flagged(tmp_path, "concede_before_dealer_exposed", lawful, same_instant, corrected,
                   missing) == []


def test_a_concede_before_the_dealers_hand_was_exposed_is_flagged_at_the_seat(tmp_path):
    early = round_rows("C5", CARIBBEAN, [
        acted(2, "concede"), acted(1, "raise"), ev("hands exposed"), acted(3, "concede")])
    assert flagged(tmp_path, "concede_before_dealer_exposed", early) == [("C5", 2)]
    assert details(tmp_path, "concede_before_dealer_exposed") == [
        "seat 2 conceded (table_seq 2, 2026-11-28T18:00:02.000000Z) before the dealer's hand "
        "was exposed (table_seq 4)"]


# --- pai gow poker: players, then the player banker, then the dealer ----------------------

POKER = "pai_gow_poker"


def banker_set(seat: int, **kw) -> dict:
    return ev("hand set", seat, position="banker", **kw)


def test_players_then_the_banker_then_the_dealer_pass_in_every_lawful_order(tmp_path):
    banked = round_rows("B1", POKER, [
        ev("hand set", 4), ev("hand set", 1), banker_set(3),
        ev("hand set", 1),  # a player may set again until the banker's hand is shown
        ev("hand set"), ev("hands exposed"), ev("hands exposed", 3, position="banker"),
        ev("hands exposed", 4), ev("hands exposed", 1)])
    dealer_exposes_then_sets = round_rows("B2", POKER, [
        ev("hand set", 2), ev("hand set", 1), ev("hands exposed"), ev("hand set"),
        ev("hand set")])  # the dealer may change an exposed hand (procedure (9))
    same_instant = round_rows("B3", POKER, [
        ev("hand set", 1, at=6), banker_set(2, at=6), ev("hand set", at=6)])
    corrected = round_rows("B4", POKER, [
        ev("hand set", 1), banker_set(2, superseded=True), ev("hand set"),
        ev("event corrected", 2, position="banker", corrects=3, replacement="hand set")])
    assert flagged(tmp_path, "hands_set_out_of_order", banked, dealer_exposes_then_sets,
                   same_instant, corrected) == []


def test_the_banker_setting_before_a_player_or_after_the_dealer_is_flagged(tmp_path):
    before_player = round_rows("B5", POKER, [
        ev("hand set", 1), banker_set(3), ev("hand set", 4), ev("hand set")])
    after_dealer = round_rows("B6", POKER, [
        ev("hand set", 1), ev("hands exposed"), banker_set(3), ev("hand set")])
    assert flagged(tmp_path, "hands_set_out_of_order", before_player, after_dealer) == [
        ("B5", 3), ("B6", 3)]
    assert details(tmp_path, "hands_set_out_of_order") == [
        "the player banker (seat 3) set its hand (table_seq 3, 2026-11-28T18:00:03.000000Z) "
        "before seat 4 set its hands (table_seq 4): procedure (3)",
        "the dealer's hand was exposed (table_seq 3) before the player banker (seat 3) set "
        "its hand (table_seq 4, 2026-11-28T18:00:04.000000Z): procedure (3), (4)"]


def test_a_player_setting_after_the_dealer_turned_over_is_flagged_at_the_seat(tmp_path):
    dealer_banked = round_rows("B7", POKER, [
        ev("hand set", 1), ev("hand set"), ev("hand set", 2), ev("hands exposed")])
    assert flagged(tmp_path, "hands_set_out_of_order", dealer_banked) == [("B7", 2)]


# --- pai gow tiles: the dealer after every player (¶ C), withdrawals (¶ F) ----------------

TILES = "pai_gow_tiles"


def test_tiles_players_setting_before_the_dealer_in_any_order_pass(tmp_path):
    lawful = round_rows("T1", TILES, [
        ev("hand set", 3), ev("hand set", 1), ev("hand set", 3), ev("hand set"),
        acted(2, "withdraw"), ev("hands exposed", 1), ev("hands exposed", 3),
        ev("hands exposed")])
    same_instant = round_rows("T2", TILES, [ev("hand set", 1, at=3), ev("hand set", at=3)])
    corrected = round_rows("T3", TILES, [
        ev("hand set", 1, superseded=True), ev("hand set"),
        ev("event corrected", 1, corrects=2, replacement="hand set")])
    missing = round_rows("T4", TILES, [ev("hand set", 1), ev("hands exposed", 1)])
    assert flagged(tmp_path, "tiles_dealer_set_before_players", lawful, same_instant,
                   corrected, missing) == []


def test_tiles_a_player_setting_after_the_dealers_tiles_were_turned_is_flagged(tmp_path):
    after_set = round_rows("T5", TILES, [ev("hand set", 1), ev("hand set"), ev("hand set", 2)])
    after_turn = round_rows("T6", TILES, [
        ev("hand set", 1), ev("hands exposed"), ev("hand set", 1), ev("hand set")])
    assert flagged(tmp_path, "tiles_dealer_set_before_players", after_set, after_turn) == [
        ("T5", 2), ("T6", 1)]
    assert details(tmp_path, "tiles_dealer_set_before_players")[1] == (
        "seat 1 set its hands (table_seq 4, 2026-11-28T18:00:04.000000Z) after the dealer's "
        "tiles were turned over (table_seq 3)")


def test_tiles_a_withdrawal_between_the_dealers_setting_and_its_own_hands_shown_passes(
        tmp_path):
    lawful = round_rows("W1", TILES, [
        ev("hand set", 1), ev("hand set", 2), ev("hand set"), ev("hands exposed", 1),
        acted(2, "withdraw"), ev("hands exposed")])  # another seat's hands shown first
    same_instant = round_rows("W2", TILES, [
        ev("hand set", 2), ev("hand set", at=4), acted(2, "withdraw", at=4)])
    missing = round_rows("W3", TILES, [ev("hand set", 2), acted(2, "withdraw")])
    assert flagged(tmp_path, "tiles_withdrawal_out_of_order", lawful, same_instant,
                   missing) == []


def test_tiles_a_withdrawal_before_the_dealer_set_or_after_its_hands_shown_is_flagged(
        tmp_path):
    early = round_rows("W4", TILES, [ev("hand set", 2), acted(2, "withdraw"), ev("hand set")])
    late = round_rows("W5", TILES, [
        ev("hand set", 2), ev("hand set"), ev("hands exposed", 2), acted(2, "withdraw")])
    assert flagged(tmp_path, "tiles_withdrawal_out_of_order", early, late) == [
        ("W4", 2), ("W5", 2)]
    assert details(tmp_path, "tiles_withdrawal_out_of_order") == [
        "seat 2 withdrew (table_seq 3, 2026-11-28T18:00:03.000000Z) before the dealer set "
        "the dealer's hands (table_seq 4)",
        "seat 2 withdrew (table_seq 5, 2026-11-28T18:00:05.000000Z) after its hands were "
        "shown (table_seq 4)"]


# --- the timeline's typed columns, and a simulated shift -----------------------------------


def test_the_timeline_carries_what_each_event_says_as_typed_columns():
    assert facts(WagerSettled(seat=2, wager="fortune", outcome="win", net_cents=500,
                              commission_cents=0), banker_seat=None) == {
        "seat": 2, "position": "seat 2", "wager": "fortune", "outcome": "win", "action": None,
        "for_seat": None, "net_cents": 500, "bank_to": None, "bank_reason": None,
        "shuffle": None, "deck_id": None, "patron_id": None}
    assert facts(HandSet(seat=3, high=("6-6", "3-6"), low=("1-3", "2-2")), banker_seat=3)[
        "position"] == "banker"
    assert facts(HandSet(seat=None, high=("6-6",), low=("1-3",)), banker_seat=3)[
        "position"] == "dealer"
    assert facts(EnvyBonusPaid(seat=1, for_seat=None, amount_cents=500), banker_seat=None)[
        "for_seat"] is None
    assert facts(PlayerActed(seat=4, action="withdraw"), banker_seat=None)["action"] == \
        "withdraw"
    replaced = EventCorrected(corrects="x", reason="wrong seat",
                              replacement=PlayerActed(seat=5, action="concede"))
    assert facts(replaced, banker_seat=None) == {
        "seat": 5, "position": "seat 5", "wager": None, "outcome": None, "action": "concede",
        "for_seat": None, "net_cents": None, "bank_to": None, "bank_reason": None,
        "shuffle": None, "deck_id": None, "patron_id": None}
    for payload in (EventCorrected(corrects="x", reason="struck"),
                    RoundStarted(game="pai_gow_poker", dealer_id="E011", banker_seat=2),
                    RoundEnded()):
        assert set(facts(payload, banker_seat=2).values()) == {None}


def test_a_simulated_shift_with_winners_paid_first_is_flagged_there_and_nowhere_else(
        tmp_path):
    from ingest.simulate import simulate_shift

    events, labels = simulate_shift(tables=4, rounds=25, seed=20, fault_rate=0.3,
                                    faults=["winner_paid_before_losers_collected"],
                                    games=["pai_gow_poker", "face_up_pai_gow",
                                           "pai_gow_tiles", "caribbean_stud"])
    assert len(labels) >= 5
    _write_log(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=500)
    replay(tmp_path / "log", tmp_path / "replay")
    timeline = pq.read_table(tmp_path / "replay" / "timeline.parquet")
    assert {"seat", "position", "wager", "outcome", "action", "for_seat", "net_cents",
            "replacement"} <= set(timeline.column_names)
    run_all(tmp_path / "replay", tmp_path / "checks")
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    ours = {(f["round_id"], f["seat"]) for f in flags
            if f["check_id"] == "winner_paid_before_losers"}
    assert ours == {(label.round_id, label.seat) for label in labels}
    labelled = {label.round_id for label in labels}
    assert {f["round_id"] for f in flags if f["kind"] == "rule"} <= labelled


def test_replays_timeline_names_the_seat_wager_and_outcome_of_each_event_and_a_correction(
        tmp_path):
    from tests.events_factory import Table

    table = Table()
    events = table.round("R-1", dealer=("Kc Kd 9s 7h 3c", "Ah Qs"), seats={
        2: {"main": 1000, "hand": ("Qc Qd 8s 6h 4c", "Jh Td"), "settled": ("loss", -500, 0)}})
    ended = events.pop()
    wrong = next(e for e in events if isinstance(e.payload, WagerSettled))
    fix = table.event("R-1", EventCorrected(
        corrects=wrong.event_id, reason="net keyed wrong",
        replacement=WagerSettled(seat=2, wager="main", outcome="loss", net_cents=-1000,
                                 commission_cents=0)), seq=ended.table_seq)
    _write_log(tmp_path, [(e.table_id.encode(), encode(e))
                          for e in [*events, fix, table.event("R-1", RoundEnded())]])
    replay(tmp_path / "log", tmp_path / "replay")
    rows = pq.read_table(tmp_path / "replay" / "timeline.parquet").to_pylist()
    cols = ("event", "seat", "position", "wager", "outcome", "action", "for_seat",
            "replacement", "superseded", "table_seq", "stands_at")
    assert [tuple(r[c] for c in cols) for r in rows] == [
        ("round started", None, None, None, None, None, None, None, False, 1, 1),
        ("wager placed", 2, "seat 2", "main", None, None, None, None, False, 2, 2),
        ("cards dealt", 2, "seat 2", None, None, None, None, None, False, 3, 3),
        ("cards dealt", None, "dealer", None, None, None, None, None, False, 4, 4),
        ("hand set", 2, "seat 2", None, None, None, None, None, False, 5, 5),
        ("hand set", None, "dealer", None, None, None, None, None, False, 6, 6),
        ("wager settled", 2, "seat 2", "main", "loss", None, None, None, True, 7, None),
        # the replacement stands where the settlement it replaces was recorded
        ("event corrected", 2, "seat 2", "main", "loss", None, None, "wager settled", False,
         8, 7),
        ("round ended", None, None, None, None, None, None, None, False, 9, 9)]


def test_of_two_corrections_of_one_event_the_last_stands_and_a_win_moved_before_a_loss_is_flagged(
        tmp_path):
    from tests.events_factory import Table

    table = Table()
    events = table.round("R-2", dealer=("Kc Kd 9s 7h 3c", "Ah Qs"), seats={
        1: {"main": 1000, "hand": ("Qc Qd 8s 6h 4c", "Jh Td"), "settled": ("loss", -1000, 0)},
        2: {"main": 1000, "hand": ("Ts Th 8c 5d 2h", "Js 4s"), "settled": ("loss", -1000, 0)}})
    ended = events.pop()
    first = next(e for e in events if isinstance(e.payload, WagerSettled))  # seat 1's loss

    def fix(outcome: str, net: int, n: int):
        return table.event("R-2", EventCorrected(
            corrects=first.event_id, reason="keyed wrong", replacement=WagerSettled(
                seat=1, wager="main", outcome=outcome, net_cents=net, commission_cents=0)),
            seq=ended.table_seq + n)

    # recorded as a push, then as a win: the win stands where the loss was, before seat 2's
    corrections = [fix("push", 0, 0), fix("win", 950, 1)]
    _write_log(tmp_path, [(e.table_id.encode(), encode(e)) for e in [
        *events, *corrections, table.event("R-2", RoundEnded(), seq=ended.table_seq + 2)]])
    replay(tmp_path / "log", tmp_path / "replay")
    rows = pq.read_table(tmp_path / "replay" / "timeline.parquet").to_pylist()
    fixes = [(r["outcome"], r["stands_at"]) for r in rows if r["event"] == "event corrected"]
    assert fixes == [("push", None), ("win", first.table_seq)]
    run_all(tmp_path / "replay", tmp_path / "checks")
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    assert [(f["round_id"], f["seat"]) for f in flags
            if f["check_id"] == "winner_paid_before_losers"] == [("R-2", 1)]
