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
