"""A permitted re-set is no irregularity, from the events to the flags (pai gow poker
procedure (9); docs/rules.md 8.2): the dealer who first sets a hand against the house way
and corrects it before exposure raises nothing; a setting recorded after exposure is an
irregularity (58 Pa. Code § 688a.7(b)(3)), the exposed setting stands, and the round is
still judged on it."""

from __future__ import annotations

import pyarrow.parquet as pq

from checks.runner import run_all
from replay.run import replay
from schemas import (
    CardsDealt,
    HandSet,
    HandsExposed,
    RoundEnded,
    RoundStarted,
    WagerPlaced,
    WagerSettled,
    encode,
)
from tests.events_factory import Table
from tests.test_replay_workers import _write

HOUSE_WAY = ("Kc Kd 9s 7h 3c", "Ah Qs")   # the pair behind, ace-queen in front
OTHER_WAY = ("Kc Kd Ah Qs 3c", "9s 7h")   # a legal setting the house way does not allow
SEAT = ("5s 5h 5d Tc 2c", "As Kh")        # trips behind, ace-king in front: wins both


def _round(table, round_id, dealer_sets):
    """One round, seat 1's 2,500 wager paid 2,375 (won, less 5%); the dealer's settings in
    ``dealer_sets`` as (high, low) or the word 'exposed' where the hands are turned over."""
    def split(text):
        return tuple(text.split())

    out = [table.event(round_id, RoundStarted(game="pai_gow_poker", dealer_id="E011")),
           table.event(round_id, WagerPlaced(seat=1, wager="main", amount_cents=2500)),
           table.event(round_id, CardsDealt(seat=1, cards=split(" ".join(SEAT)))),
           table.event(round_id, CardsDealt(seat=None, cards=split(" ".join(HOUSE_WAY)))),
           table.event(round_id, HandSet(seat=1, high=split(SEAT[0]), low=split(SEAT[1])))]
    for step in dealer_sets:
        if step == "exposed":
            out.append(table.event(round_id, HandsExposed(seat=None)))
            out.append(table.event(round_id, HandsExposed(seat=1)))
        else:
            out.append(table.event(round_id, HandSet(seat=None, high=split(step[0]),
                                                     low=split(step[1]))))
    out += [table.event(round_id, WagerSettled(seat=1, wager="main", outcome="win",
                                               net_cents=2375, commission_cents=125)),
            table.event(round_id, RoundEnded())]
    return out


def test_a_reset_before_exposure_raises_nothing_and_a_set_after_exposure_is_irregular(
        tmp_path):
    table = Table()
    events = [*_round(table, "T01-000001", [OTHER_WAY, HOUSE_WAY, "exposed"]),  # re-set
              *_round(table, "T01-000002", [HOUSE_WAY, "exposed", OTHER_WAY]),  # too late
              *_round(table, "T01-000003", [OTHER_WAY, "exposed"])]             # not the way
    log = _write(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=5)
    replay(log, tmp_path / "replay")
    hands = {(h["round_id"], h["position"]): h
             for h in pq.read_table(tmp_path / "replay" / "hands.parquet").to_pylist()}
    assert (hands["T01-000001", "dealer"]["resets"], hands["T01-000001", "dealer"]["high"],
            hands["T01-000001", "dealer"]["house_way"]) == (1, HOUSE_WAY[0], True)
    run_all(tmp_path / "replay", tmp_path / "checks")
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    assert sorted((f["round_id"], f["check_id"]) for f in flags) == [
        ("T01-000002", "irregular_round"),   # the exposed house-way setting stands
        ("T01-000003", "house_way"),
    ]
    late = next(f for f in flags if f["check_id"] == "irregular_round")
    assert "after it was exposed" in late["detail"]
