"""rounds.parquet carries each round's totals over the patrons' wagers (what the
surveillance checks read instead of every wager): amount wagered, the house's win as
recorded, the net mispay and how many wagers were mispaid; the last two only for a round
that was judged."""

from __future__ import annotations

import pyarrow.parquet as pq

from replay.run import replay
from schemas import encode
from tests.events_factory import Table
from tests.test_replay_workers import _write

DEALER = ("Kc Kd 9s 7h 3c", "Ah Qs")
SEATS = {
    # trips behind, ace-king in front: wins both; 2,375 is due, 2,500 was paid
    1: {"main": 2500, "hand": ("5s 5h 5d Tc 2c", "As Kh"), "settled": ("win", 2500, 0)},
    # jack high behind, seven-four in front: loses both, collected right
    2: {"main": 1000, "hand": ("2d 3h 6c 8d Js", "4c 7d"), "settled": ("loss", -1000, 0)},
}


def test_a_rounds_totals_over_the_patrons_wagers(tmp_path):
    table = Table()
    judged = table.round("T01-000001", dealer=DEALER, seats=SEATS)
    unjudged = [e for e in table.round("T01-000002", dealer=DEALER, seats=SEATS)
                if not (type(e.payload).__name__ == "CardsDealt" and e.payload.seat is None)]
    log = _write(tmp_path, [(e.table_id.encode(), encode(e)) for e in (*judged, *unjudged)],
                 batch=4)
    replay(log, tmp_path / "replay")
    rows = {r["round_id"]: r for r in
            pq.read_table(tmp_path / "replay" / "rounds.parquet").to_pylist()}
    first, second = rows["T01-000001"], rows["T01-000002"]
    assert first["evaluated"] and not second["evaluated"]
    totals = ("wagered_cents", "house_win_cents", "mispay_cents", "mispaid_wagers")
    assert [first[k] for k in totals] == [3500, -(2500 - 1000), 2500 - 2375, 1]
    # the dealer was never dealt: not judged, so no mispay is claimed; what was wagered and
    # paid is still a fact of the record
    assert [second[k] for k in totals] == [3500, -(2500 - 1000), None, None]


TILES_DOC = {
    "game": "pai_gow_tiles",
    # the dealer's Teen wong (6-6 3-6) / 8 against the seat's Mooy pair / Teen wong (4-5
    # 6-6): both hands higher, a win
    "dealer": {"tiles": ["6-6", "3-6", "1-3", "2-2"], "high": ["6-6", "3-6"],
               "low": ["1-3", "2-2"]},
    "seats": [{"seat": 1, "tiles": ["5-5", "5-5", "4-5", "6-6"], "high": ["5-5", "5-5"],
               "low": ["4-5", "6-6"], "wagers": {"main": 700}}],
}


def test_a_tiles_vigorish_within_its_lawful_range_is_no_mispay(tmp_path):
    # a $7 win: vigorish lawful from 35 (the exact 5%) to 50 (up to 25 cents), the net
    # from 650 to 665 (docs/rules.md 6a.2, 6a.19); 51 is a cent beyond: the net 649 is one
    # cent below the lowest, so the mispay is -1, not -16 from the house's default 665
    from tests.events_factory import events_of_document

    table = Table()
    events = [*events_of_document(table, {**TILES_DOC, "round_id": "T01-000001"},
                                  settle={(1, "main"): ("win", 665, 35)}),
              *events_of_document(table, {**TILES_DOC, "round_id": "T01-000002"},
                                  settle={(1, "main"): ("win", 649, 51)})]
    log = _write(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=4)
    replay(log, tmp_path / "replay")
    rows = {r["round_id"]: r for r in
            pq.read_table(tmp_path / "replay" / "rounds.parquet").to_pylist()}
    totals = ("mispay_cents", "mispaid_wagers")
    assert [rows["T01-000001"][k] for k in totals] == [0, 0]
    assert [rows["T01-000002"][k] for k in totals] == [-1, 1]
    wagers = pq.read_table(tmp_path / "replay" / "wagers.parquet").to_pylist()
    assert {(w["expected_net_cents"], w["expected_net_min_cents"], w["expected_net_max_cents"],
             w["expected_commission_cents"], w["expected_commission_min_cents"],
             w["expected_commission_max_cents"]) for w in wagers} == {(650, 650, 665, 50, 35, 50)}
    # the ranges are a fold's output like the rest: the same log, the same bytes
    replay(log, tmp_path / "again")
    for name in ("rounds", "wagers", "bankers"):
        assert (tmp_path / "replay" / f"{name}.parquet").read_bytes() == (
            tmp_path / "again" / f"{name}.parquet").read_bytes()
