"""rounds.problems is a list, one element a problem, through the real pipeline (a signed log,
replayed, checked, reported): a problem whose own words hold "; " stays one problem, in the
order the table recorded what caused it; the checks that read the problems (wager_after_deal,
irregular_round) flag what they flagged when the problems were one text; the dispute report
shows the same problems.

The round is seat 3 co-banking a classic pai gow poker round (README, round r-18) whose
banker's account is recorded to seat 4 (the fold's words: "...; judged as seat 3's
account"), with a Fortune wager of seat 1 placed after the cards were dealt. The expected
words are written here from the fold's sentences, not read back from the code under test."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from checks.runner import run_all
from replay.__main__ import main as replay_main
from replay.dispute import round_report
from schemas import BankerSettled, WagerPlaced, WagerSettled, encode
from schemas.keyring import ENV
from tests.events_factory import T0, Table, events_of_document
from tests.keyring_support import pin
from tests.test_check_banker_seat import CO_BANK, SETTLE
from tests.test_replay_workers import _write


def _events(table: Table) -> tuple[list, int, int]:
    """The round's events, the banker's account's table_seq and the late wager's."""
    events = events_of_document(table, CO_BANK, settle=SETTLE, banker=(-1750, 0))
    at = next(i for i, e in enumerate(events) if isinstance(e.payload, BankerSettled))
    events[at] = replace(events[at], payload=replace(events[at].payload, seat=4))
    first_settled = next(i for i, e in enumerate(events) if isinstance(e.payload, WagerSettled))
    events.insert(first_settled,  # after the deal, before any settlement
                  table.event("B1", WagerPlaced(seat=1, wager="fortune", amount_cents=500)))
    events = [replace(e, table_seq=n, occurred_at_us=T0 + n * 1_000_000)  # the table's order
              for n, e in enumerate(events, start=1)]
    (banker,) = [e.table_seq for e in events if isinstance(e.payload, BankerSettled)]
    (late,) = [e.table_seq for e in events if isinstance(e.payload, WagerPlaced)
               and e.payload.wager == "fortune"]
    return events, banker, late


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int, int]]:
    root = tmp_path_factory.mktemp("problems")
    events, banker_seq, late_seq = _events(Table("T90"))
    _write(root, [(e.table_id.encode(), encode(e)) for e in events])
    assert replay_main(["--data", str(root), "--key", str(root / "keys" / "signing.pub")]) == 0
    run_all(root / "replay", root / "checks")
    with pytest.MonkeyPatch.context() as env:
        env.setenv(ENV, str(pin(root)))
        yield root, banker_seq, late_seq


def _said(banker_seq: int, late_seq: int) -> list[str]:
    late = (f"seat 1 placed fortune 500 after the cards were dealt (table_seq {late_seq}): "
            "past-posting")
    banker = (f"the banker's account recorded for seat 4, but seat 3 banks the round "
              f"(table_seq {banker_seq}); judged as seat 3's account")
    return [late, banker] if late_seq < banker_seq else [banker, late]


def test_a_problem_whose_words_hold_a_semicolon_is_one_element_in_the_tables_order(data):
    root, banker_seq, late_seq = data
    (row,) = pq.read_table(root / "replay" / "rounds.parquet").to_pylist()
    assert row["problems"] == _said(banker_seq, late_seq)
    assert row["problem_kinds"] == ["banker_settled_other_seat", "past_posting"]
    assert str(pq.read_schema(root / "replay" / "rounds.parquet").field("problems").type) \
        == "list<element: string>"


def test_wager_after_deal_flags_the_late_wager_with_its_seat_and_words(data):
    root, banker_seq, late_seq = data
    flags = pq.read_table(root / "checks" / "flags.parquet").to_pylist()
    late = [(f["round_id"], f["seat"], f["wager"], f["detail"]) for f in flags
            if f["check_id"] == "wager_after_deal"]
    assert late == [("B1", 1, "fortune", _said(banker_seq, late_seq)[
        0 if late_seq < banker_seq else 1])]


def test_irregular_round_names_the_kind_no_other_check_names_and_says_every_problem(data):
    root, banker_seq, late_seq = data
    flags = pq.read_table(root / "checks" / "flags.parquet").to_pylist()
    irregular = [f["detail"] for f in flags if f["check_id"] == "irregular_round"]
    assert irregular == ["banker_settled_other_seat: " + "; ".join(_said(banker_seq, late_seq))]


def test_the_dispute_report_shows_the_same_problems_one_each(data):
    root, banker_seq, late_seq = data
    report = round_report(root, "B1", casino="C01", table_id="T90")
    assert report is not None
    assert report.problems == tuple(_said(banker_seq, late_seq))
