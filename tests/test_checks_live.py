"""``python -m checks --live`` (what ``--follow`` runs): the round each table is still
dealing raises no alarm until it ends; a round that never ended is flagged as soon as a
later round of its table shows it, live or not."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from checks.runner import run_checks
from ingest.simulate import simulate_shift
from replay.run import replay
from schemas import encode
from tests.test_replay_workers import _write

IN_PROGRESS = {"round_not_ended", "unsettled", "not_evaluated"}


@pytest.fixture(scope="module")
def cut_shift(tmp_path_factory):
    """Two tables, no faults; the log is cut in the middle of T01's last round and of a
    round of T02 that is followed by the next one (its RoundEnded and settlements lost)."""
    out = tmp_path_factory.mktemp("live")
    events, labels = simulate_shift(tables=2, rounds=6, seed=4, fault_rate=0.0,
                                    games=["pai_gow_poker"])
    assert not labels
    t01_last = max(e.round_id for e in events if e.table_id == "T01")
    t02_third = sorted({e.round_id for e in events if e.table_id == "T02"})[2]

    def kept(e):
        payload = type(e.payload).__name__
        # the settlements and all after them (the hands collected, the reshuffle, the bank
        # passed, the end) are lost
        cut = payload in ("WagerSettled", "BankerSettled", "HandCollected", "Shuffled",
                          "BankPassed", "RoundEnded")
        return not (cut and e.round_id in (t01_last, t02_third))

    events = [e for e in events if kept(e)]
    log = _write(out, [(e.table_id.encode(), encode(e)) for e in events], batch=500)
    replay(log, out / "replay")
    return out, t01_last, t02_third


def _flags(out, *, live):
    done = run_checks(out / "replay", out / ("live" if live else "batch"), live=live)
    rows = pq.read_table(done.path).to_pylist()
    return done, {(r["check_id"], r["round_id"]) for r in rows}


def test_the_round_a_table_is_dealing_is_left_out_until_it_ends(cut_shift):
    out, t01_last, t02_third = cut_shift
    done, flags = _flags(out, live=True)
    assert done.in_play == 1
    assert not {f for f in flags if f[1] == t01_last}
    assert ("round_not_ended", t02_third) in flags  # a later round shows it never ended


def test_without_live_every_round_not_ended_is_flagged(cut_shift):
    out, t01_last, t02_third = cut_shift
    done, flags = _flags(out, live=False)
    assert done.in_play == 0
    assert {("round_not_ended", t01_last), ("round_not_ended", t02_third)} <= flags
    assert {c for c, r in flags if r == t01_last} <= IN_PROGRESS | {"irregular_round"}
