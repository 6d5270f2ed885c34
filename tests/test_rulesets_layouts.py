"""Table layouts as a casino's filings (replay/layouts.py, read by replay/filings.py): every
problem of a layout file found at once with its file and key, hostile files refused as the
rulesets are, and replay writing the seats of the layout in force when each round was dealt
into rounds.seat_order (null without one), the same bytes for any number of workers.
Layout files are written by hand."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import uuid
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from replay.errors import RulesetError
from replay.filings import FilingProblemKind, FilingsRefused, load_rulebook, read_filings
from replay.layouts import TableLayout
from replay.rulebook import Rulebook
from replay.rulesets import shipped_rulesets
from replay.run import replay
from schemas import CardsDealt, RoundEvent, RoundStarted, TilesDealt, encode
from tests.conftest import run_cli
from tests.test_replay_workers import _write as _write_log

K = FilingProblemKind
SEVEN = [7, 6, 5, 4, 3, 2, 1]


def entry(seats: Any = None, start: Any = "2026-01-01T00:00:00Z", end: Any = None,
          **extra: Any) -> dict[str, Any]:
    out = {"seats_from_dealer_right": SEVEN if seats is None else seats,
           "effective_from": start, "effective_to": end, **extra}
    return out


def layout(root: Path, *entries: dict[str, Any], casino: str = "C02", table: str = "T01",
           name: str | None = None, **extra: Any) -> Path:
    folder = root / casino / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name or f"{table}.json")
    path.write_text(json.dumps({"casino": casino, "table_id": table,
                                "layouts": list(entries), **extra}), encoding="utf-8")
    return path


def problems(root: Path) -> list[tuple[FilingProblemKind, str | None]]:
    return [(p.kind, p.key) for p in read_filings(root).problems]


def test_a_clean_layout_is_read_with_its_periods_and_resolved_by_instant(tmp_path):
    layout(tmp_path, entry(end="2026-07-01T00:00:00Z"),
           entry([1, 2, 3, 4, 5, 6], start="2026-07-01T02:00:00+02:00"))
    found = read_filings(tmp_path)
    assert found.problems == ()
    book = found.book()
    assert [f.path for f in book.files] == ["C02/tables/T01.json"]
    at = dt.datetime(2026, 6, 30, 23, 59, 59, tzinfo=dt.UTC)
    assert book.seat_order("C02", "T01", at) == tuple(SEVEN)
    # the second comes into force at midnight UTC (02:00 at +02:00), inclusive
    assert book.seat_order("C02", "T01", at + dt.timedelta(seconds=1)) == (1, 2, 3, 4, 5, 6)
    assert book.seat_order("C02", "T01", dt.datetime(2025, 12, 31, tzinfo=dt.UTC)) is None
    assert book.seat_order("C02", "T02", at) is None
    assert book.seat_order("C03", "T01", at) is None
    assert book.seat_order("C02", "T01", None) is None


def test_every_problem_of_a_layout_file_is_said_at_once_with_its_key(tmp_path):
    layout(tmp_path, entry([7, 6, 6, 5]), entry("seven", start="yesterday", colour="red"),
           entry(start="2026-03-01T00:00:00"), entry(start="2026-05-01T00:00:00Z",
                                                     end="2026-04-01T00:00:00Z"),
           owner="x")
    assert problems(tmp_path) == [
        (K.UNKNOWN_KEY, "owner"),
        (K.SEAT_TWICE, "layouts[0].seats_from_dealer_right"),
        (K.UNKNOWN_KEY, "layouts[1].colour"),
        (K.BAD_VALUE, "layouts[1].seats_from_dealer_right"),
        (K.BAD_VALUE, "layouts[1].effective_from"),
        (K.BAD_VALUE, "layouts[2].effective_from"),
        (K.BAD_VALUE, "layouts[3].effective_to"),
    ]
    text = [str(p) for p in read_filings(tmp_path).problems]
    assert text[1].startswith(f"{tmp_path}/C02/tables/T01.json: layouts[0]")
    assert "seat 6 listed more than once" in text[1]
    assert "gives no offset from UTC" in text[5]


def test_two_layouts_of_one_table_in_force_at_once_are_refused_naming_both(tmp_path):
    layout(tmp_path, entry(), entry([1, 2, 3], start="2026-06-01T00:00:00Z"))
    layout(tmp_path, entry(end="2026-06-01T00:00:00Z"),
           entry([1, 2, 3], start="2026-06-01T00:00:00Z"), table="T02")  # chained: fine
    found = read_filings(tmp_path)
    assert [(p.kind, p.key, p.path.rsplit("/", 1)[1]) for p in found.problems] == [
        (K.OVERLAP, "layouts[1].effective_from", "T01.json")]
    assert "layouts[0] and layouts[1] are both in force from 2026-06-01T00:00:00Z" in str(
        found.problems[0])
    with pytest.raises(FilingsRefused):
        load_rulebook(tmp_path)


def test_a_layout_in_the_wrong_place_or_under_the_wrong_name_is_a_layout_problem(tmp_path):
    layout(tmp_path, entry(), name="T09.json")
    layout(tmp_path, entry(), casino="C02", table="T03")
    (tmp_path / "C02" / "tables" / "T03.json").write_text(json.dumps(
        {"casino": "C07", "table_id": "T03", "layouts": [entry()]}))
    layout(tmp_path, casino="C04", table="T05")  # no entries
    assert problems(tmp_path) == [
        (K.LAYOUT, "casino"), (K.LAYOUT, "table_id"), (K.BAD_VALUE, "layouts")]


def test_hostile_layout_files_are_refused_as_rulesets_are(tmp_path):
    folder = tmp_path / "C02" / "tables"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "T01.json")
    (folder / "T02.json").symlink_to(folder / "T02.json")
    (folder / "T03.json").write_text("{\"casino\": \"C02\", \"casino\": \"C02\"")
    (folder / "T04.json").write_bytes(b"{" + b" " * (1 << 20) + b"}")
    kinds = problems(tmp_path)
    assert kinds == [(K.UNREADABLE, None), (K.UNREADABLE, None), (K.NOT_JSON, None),
                     (K.UNREADABLE, None)]


def test_the_rulesets_check_lists_the_layouts_or_every_problem(tmp_path):
    layout(tmp_path, entry(end="2026-07-01T00:00:00Z"),
           entry([1, 2, 3], start="2026-07-01T00:00:00Z"))
    proc = run_cli("replay", "rulesets", "check", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert ("table C02/T01: seats from the dealer's right 7 6 5 4 3 2 1, from "
            "2026-01-01T00:00:00Z up to 2026-07-01T00:00:00Z") in proc.stdout
    assert "0 rulesets and 1 table layout of 1 casino(s), no problem" in proc.stdout
    layout(tmp_path, entry([2, 2]), table="T02")
    proc = run_cli("replay", "rulesets", "check", str(tmp_path))
    assert proc.returncode == 1
    assert "C02/tables/T02.json: layouts[0].seats_from_dealer_right: seat 2 listed" in (
        proc.stdout)


def test_a_rulebook_refuses_overlapping_layouts_and_a_seat_twice():
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    a = TableLayout(casino="C02", table_id="T01", seats_from_dealer_right=(1, 2),
                    effective_from=start)
    with pytest.raises(RulesetError, match="in force at the same time"):
        Rulebook(shipped=shipped_rulesets(), layouts=(a, a))
    with pytest.raises(RulesetError, match="listed twice"):
        TableLayout(casino="C02", table_id="T01", seats_from_dealer_right=(1, 1),
                    effective_from=start)
    with pytest.raises(RulesetError, match="instant in UTC"):
        TableLayout(casino="C02", table_id="T01", seats_from_dealer_right=(1,),
                    effective_from=dt.datetime(2026, 1, 1))


# --- replay: rounds.seat_order ----------------------------------------------------------------

T0 = 1_795_888_800_000_000  # 2026-11-28 18:00:00 UTC


def _round(table: str, round_id: str, at_us: int, seq: int, tiles: bool = False
           ) -> list[RoundEvent]:
    game = "pai_gow_tiles" if tiles else "pai_gow_poker"
    deal = (TilesDealt(seat=1, tiles=("6-6", "5-5", "3-6", "4-4")) if tiles else
            CardsDealt(seat=1, cards=("As", "Ks", "Qs", "Js", "Ts", "9s", "8s")))
    out = []
    for k, payload in enumerate((RoundStarted(game=game, dealer_id="E1"), deal)):
        out.append(RoundEvent(event_id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{round_id}/{k}")),
                              casino="C02", table_id=table,
                              table_seq=seq + k, round_id=round_id,
                              occurred_at_us=at_us + k, recorded_by="E1", payload=payload))
    return out


def test_replay_writes_the_seats_of_the_layout_in_force_when_each_round_was_dealt(tmp_path):
    filings = tmp_path / "filings"
    layout(filings, entry(end="2026-11-28T19:00:00Z"),
           entry([1, 2, 3, 4, 5, 6], start="2026-11-28T19:00:00Z"))
    layout(filings, entry([3, 2, 1], end="2026-11-28T18:30:00Z"), table="T02")
    hour = 3_600_000_000
    events = [*_round("T01", "T01-1", T0, 1), *_round("T01", "T01-2", T0 + hour, 3),
              *_round("T02", "T02-1", T0, 1, tiles=True),
              *_round("T02", "T02-2", T0 + hour, 3, tiles=True),
              *_round("T03", "T03-1", T0, 1)]
    log = _write_log(tmp_path, [(e.table_id.encode(), encode(e)) for e in events])
    book = load_rulebook(filings)
    replay(log, tmp_path / "w1", book=book)
    rows = pq.read_table(tmp_path / "w1" / "rounds.parquet",
                         columns=["round_id", "seat_order"]).to_pylist()
    assert {r["round_id"]: r["seat_order"] for r in rows} == {
        "T01-1": SEVEN, "T01-2": [1, 2, 3, 4, 5, 6], "T02-1": [3, 2, 1],
        "T02-2": None,  # after its layout's end: none in force
        "T03-1": None}  # no layout filed for the table
    assert str(pq.read_schema(tmp_path / "w1" / "rounds.parquet").field("seat_order").type) \
        == "list<element: int32>"
    replay(log, tmp_path / "w2", workers=2, book=book)
    for name in ("rounds.parquet", "timeline.parquet"):
        assert hashlib.sha256((tmp_path / "w1" / name).read_bytes()).digest() == \
            hashlib.sha256((tmp_path / "w2" / name).read_bytes()).digest()
    replay(log, tmp_path / "none")
    assert all(r["seat_order"] is None for r in pq.read_table(
        tmp_path / "none" / "rounds.parquet", columns=["seat_order"]).to_pylist())


def test_the_simulators_layouts_are_clean_filings_of_the_tables_its_casino_did_not_file(
        tmp_path):
    from ingest.simulate import default_seat_order, layout_files, write_layout_files

    layout(tmp_path / "casino", entry([1, 2]), casino="C05", table="T01")
    book = load_rulebook(tmp_path / "casino")
    files = layout_files(tables=5, casino="C05", book=book)
    assert sorted(files) == [f"C05/tables/T0{t}.json" for t in (2, 3, 4, 5)]
    write_layout_files(tmp_path / "sim", files)
    found = read_filings(tmp_path / "sim")
    assert found.problems == ()
    at = dt.datetime(2026, 11, 28, 18, tzinfo=dt.UTC)
    assert found.book().seat_order("C05", "T03", at) == (7, 6, 5, 4, 3, 2, 1)
    assert found.book().seat_order("C05", "T04", at) == (6, 5, 4, 3, 2, 1)
    assert default_seat_order(8) == (7, 6, 5, 4, 3, 2, 1)
