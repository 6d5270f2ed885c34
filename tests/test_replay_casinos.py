"""Two casinos in one log, each judged by its own rulesets (docs/rulesets.md): casino C02
files a Caribbean stud raise paytable paying 250 to 1 on a royal flush
(docs/examples/rulesets, the variant of docs/rules.md 4.2), casino C01 files nothing and is
judged by the shipped 100 to 1. The log is written without Kafka, as the other replay tests
write it; the expected settlements are worked by hand."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import multiprocessing
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ingest.log import LogWriter, Received
from ingest.simulate import simulate_shift
from replay import parallel
from replay.__main__ import _provenance, log_verified
from replay.filings import load_rulebook
from replay.live import LiveReplay
from replay.run import replay, start_workers
from schemas import RoundStarted, WagerPlaced, WagerSettled, encode
from tests.conftest import run_cli
from tests.events_factory import Table, events_of_document

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "docs" / "examples" / "rulesets"
C02_STUD = "caribbean_stud-c02-royal250-v1"
SHIPPED_STUD = "caribbean_stud-standard-v1"

# Dealer A-K-9-5-2: ace-king, so the dealer qualifies (docs/rules.md 4.2, rule 9.1). The seat
# holds a royal flush in spades and beats it: the ante wins 1 to 1 (1,000 cents), the raise
# of 2,000 cents wins the raise paytable's royal flush line: 100 to 1 shipped, 200,000 cents;
# 250 to 1 at C02, 500,000 cents.
ROYAL = {"game": "caribbean_stud", "progressive_meter": 2_500_000,
         "dealer": {"cards": ["Ah", "Kd", "9c", "5s", "2d"]},
         "seats": [{"seat": 1, "cards": ["As", "Ks", "Qs", "Js", "Ts"], "action": "play",
                    "wagers": {"ante": 1000, "raise": 2000}}]}
PAID_250 = {(1, "ante"): ("win", 1000, 0), (1, "raise"): ("win", 500_000, 0)}
PAID_100 = {(1, "ante"): ("win", 1000, 0), (1, "raise"): ("win", 200_000, 0)}


def _write(root: Path, events) -> Path:
    log = LogWriter(root / "log", root / "quarantine")
    log.append([Received(topic="round-events", partition=0, offset=i, timestamp_ms=i,
                         key=e.table_id.encode(), value=encode(e))
                for i, e in enumerate(events)], [])
    return root / "log"


def _royal(casino: str, round_id: str, paid, ruleset: str | None = None):
    table = Table("T01", casino=casino)
    events = events_of_document(table, {**ROYAL, "round_id": round_id}, settle=paid)
    if ruleset is not None:
        events[0] = table.event(round_id, RoundStarted(game="caribbean_stud", dealer_id="E011",
                                                       ruleset=ruleset), seq=1)
    return events


def _rows(out: Path, name: str) -> list[dict]:
    return pq.read_table(out / f"{name}.parquet").to_pylist()


def _by_casino(out: Path) -> dict[str, dict]:
    return {r["casino"]: r for r in _rows(out, "rounds")}


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


@pytest.fixture
def two_casinos(tmp_path):
    """C01 pays the royal 100 to 1, C02 250 to 1, each as its own rules say."""
    return _write(tmp_path, [*_royal("C01", "A-000001", PAID_100),
                             *_royal("C02", "B-000001", PAID_250)])


def test_each_casino_is_judged_by_its_own_ruleset(tmp_path, two_casinos):
    replay(two_casinos, tmp_path / "replay", book=load_rulebook(EXAMPLE))
    rounds = _by_casino(tmp_path / "replay")
    assert rounds["C01"]["ruleset"] == SHIPPED_STUD
    assert rounds["C02"]["ruleset"] == C02_STUD
    assert rounds["C01"]["evaluated"] and rounds["C02"]["evaluated"]
    assert rounds["C01"]["mispay_cents"] == 0 and rounds["C02"]["mispay_cents"] == 0
    raises = {r["casino"]: r["expected_net_cents"] for r in _rows(tmp_path / "replay", "wagers")
              if r["wager"] == "raise"}
    assert raises == {"C01": 200_000, "C02": 500_000}


def test_without_the_directory_c02s_royal_is_an_overpay_of_300_000(tmp_path, two_casinos):
    replay(two_casinos, tmp_path / "replay")
    rounds = _by_casino(tmp_path / "replay")
    assert rounds["C02"]["ruleset"] == SHIPPED_STUD
    assert rounds["C02"]["mispay_cents"] == 500_000 - 200_000


def test_a_day_no_filing_covers_is_not_evaluated_never_the_shipped_default(tmp_path):
    rulesets = tmp_path / "rulesets"
    shutil.copytree(EXAMPLE, rulesets)
    path = rulesets / "C02" / f"{C02_STUD}.json"
    data = json.loads(path.read_text())
    data["effective_to"] = "2026-06-01"  # the shift is dealt on 2026-11-28
    path.write_text(json.dumps(data))
    log = _write(tmp_path, [*_royal("C01", "A-000001", PAID_100),
                            *_royal("C02", "B-000001", PAID_100)])
    replay(log, tmp_path / "replay", book=load_rulebook(rulesets))
    rounds = _by_casino(tmp_path / "replay")
    assert rounds["C01"]["evaluated"] is True
    c02 = rounds["C02"]
    assert c02["evaluated"] is False and c02["ruleset"] is None
    assert "not_judgeable" in c02["problem_kinds"]
    assert (f"casino C02 filed rulesets for caribbean_stud ({C02_STUD} 2026-01-01 to "
            "2026-06-01) and none is in force on 2026-11-28") in "; ".join(c02["problems"])
    wagers = [w for w in _rows(tmp_path / "replay", "wagers") if w["casino"] == "C02"]
    assert {w["expected_net_cents"] for w in wagers} == {None}


@pytest.mark.parametrize(("named", "why"), [
    ("caribbean_stud-nowhere-v9", "unknown ruleset 'caribbean_stud-nowhere-v9'"),
    (C02_STUD, f"ruleset '{C02_STUD}' is casino C02's: a table of casino C01 may name only"),
])
def test_a_ruleset_the_table_names_must_be_its_casinos_or_shipped(tmp_path, named, why):
    log = _write(tmp_path, [*_royal("C01", "A-000001", PAID_250, ruleset=named),
                            *_royal("C02", "B-000001", PAID_100, ruleset=SHIPPED_STUD)])
    replay(log, tmp_path / "replay", book=load_rulebook(EXAMPLE))
    rounds = _by_casino(tmp_path / "replay")
    assert rounds["C01"]["evaluated"] is False
    assert any(why in p for p in rounds["C01"]["problems"])
    # C02's table named the shipped ruleset: allowed, and judged by it (100 to 1)
    assert rounds["C02"]["ruleset"] == SHIPPED_STUD and rounds["C02"]["mispay_cents"] == 0


def test_the_manifest_and_every_file_list_the_ruleset_files_and_their_hashes(
        tmp_path, two_casinos):
    replay(two_casinos, tmp_path / "replay", book=load_rulebook(EXAMPLE))
    manifest = json.loads((tmp_path / "replay" / "manifest.json").read_text())
    # every file of the directory, the house-way file the pai gow poker filing names and
    # the table layout too
    names = [f"{C02_STUD}.json", "flamingo.way", "pai_gow_poker-c02-flamingo-v1.json",
             "tables/T01.json"]
    assert manifest["ruleset_files"] == [
        {"path": f"C02/{name}",
         "sha256": hashlib.sha256((EXAMPLE / "C02" / name).read_bytes()).hexdigest()}
        for name in names]
    assert manifest["rulesets"] == [C02_STUD, SHIPPED_STUD]
    meta = pq.read_schema(tmp_path / "replay" / "rounds.parquet").metadata
    assert json.loads(meta[b"catwalk.provenance"])["ruleset_files"] == manifest["ruleset_files"]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_same_log_and_directory_give_the_same_bytes_on_one_worker_or_two(
        tmp_path, monkeypatch, method):
    monkeypatch.setattr(parallel, "start_context", lambda: multiprocessing.get_context(method))
    events = [*_royal("C01", "A-000001", PAID_100), *_royal("C02", "B-000001", PAID_250)]
    for casino, table_id in (("C01", "T02"), ("C02", "T03"), ("C02", "T04")):
        table = Table(table_id, casino=casino)
        for n in (1, 2):
            events += events_of_document(table, {**ROYAL, "round_id": f"{table_id}-{n:06d}"},
                                         settle=PAID_250)
    log = _write(tmp_path, events)
    book = load_rulebook(EXAMPLE)
    replay(log, tmp_path / "one", book=book)
    elsewhere = tmp_path / "elsewhere" / "filings"  # the same files at another path
    shutil.copytree(EXAMPLE, elsewhere)
    replay(log, tmp_path / "again", book=load_rulebook(elsewhere))
    with start_workers(2, book) as pool:
        replay(log, tmp_path / "two", workers=pool, book=book)
    assert _files(tmp_path / "again") == _files(tmp_path / "one")
    assert _files(tmp_path / "two") == _files(tmp_path / "one")
    rounds = _rows(tmp_path / "two", "rounds")
    assert [(r["casino"], r["table_id"], r["mispay_cents"]) for r in rounds] == [
        ("C01", "T01", 0), ("C01", "T02", 300_000), ("C01", "T02", 300_000),
        ("C02", "T01", 0), ("C02", "T03", 0), ("C02", "T03", 0),
        ("C02", "T04", 0), ("C02", "T04", 0)]


def test_the_command_takes_rulesets_from_the_option_or_the_environment(tmp_path, two_casinos):
    by_option = run_cli("replay", "--data", str(tmp_path), "--rulesets", str(EXAMPLE),
                        "--workers", "2")
    assert by_option.returncode == 0, by_option.stderr
    first = _files(tmp_path / "replay")
    assert _by_casino(tmp_path / "replay")["C02"]["ruleset"] == C02_STUD
    by_env = run_cli("replay", "run", "--data", str(tmp_path),
                     env={"CATWALK_RULESETS": str(EXAMPLE)})
    assert by_env.returncode == 0, by_env.stderr
    assert _files(tmp_path / "replay") == first
    bad = tmp_path / "bad"
    (bad / "C02").mkdir(parents=True)
    (bad / "C02" / "x.json").write_text("{")
    refused = run_cli("replay", "--data", str(tmp_path), "--rulesets", str(bad))
    assert refused.returncode == 2
    assert f"replay: {bad}/C02/x.json:1:2: not JSON" in refused.stderr
    assert "REFUSED" in refused.stderr and "Traceback" not in refused.stderr
    assert _files(tmp_path / "replay") == first  # nothing written
    missing = run_cli("replay", "--data", str(tmp_path), "--rulesets", str(tmp_path / "no"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def _raise_multiples(events) -> set[int]:
    """What each winning raise was paid, as a multiple of the raise."""
    placed = {(e.round_id, e.payload.seat): e.payload.amount_cents for e in events
              if isinstance(e.payload, WagerPlaced) and e.payload.wager == "raise"}
    return {e.payload.net_cents // placed[(e.round_id, e.payload.seat)] for e in events
            if isinstance(e.payload, WagerSettled) and e.payload.wager == "raise"
            and e.payload.outcome == "win"}


def test_the_simulator_deals_a_casino_by_its_own_paytable(tmp_path):
    """Rich hands make royal flushes: C02's dealers pay them 250 to 1 on the raise, C01's
    100 to 1; replay by the same directory finds every round as its casino's rules say."""
    book = load_rulebook(EXAMPLE)
    shift = {"tables": 1, "rounds": 150, "fault_rate": 0.0, "games": ["caribbean_stud"],
             "rich_hands": 1.0, "book": book}
    c01, _ = simulate_shift(casino="C01", seed=5, **shift)
    c02, _ = simulate_shift(casino="C02", seed=6, **shift)  # other event ids
    assert 100 in _raise_multiples(c01) and 250 not in _raise_multiples(c01)
    assert 250 in _raise_multiples(c02) and 100 not in _raise_multiples(c02)
    replay(_write(tmp_path, [*c01, *c02]), tmp_path / "replay", book=book)
    rounds = _rows(tmp_path / "replay", "rounds")
    assert {(r["casino"], r["ruleset"]) for r in rounds} == {("C01", SHIPPED_STUD),
                                                             ("C02", C02_STUD)}
    assert all(r["evaluated"] and r["mispay_cents"] == 0 for r in rounds)


def test_the_live_loop_judges_by_the_same_directory_as_a_batch_replay(tmp_path, two_casinos):
    book = load_rulebook(EXAMPLE)
    live = LiveReplay(tmp_path, full_every=None, book=book)
    try:
        step = live.step()
    finally:
        live.close()
    assert step.ok, step.message
    with contextlib.redirect_stderr(io.StringIO()):
        provenance = _provenance(tmp_path, None, False)
    assert provenance is not None and log_verified(provenance)
    replay(two_casinos, tmp_path / "batch", provenance=provenance, book=book)
    assert _files(tmp_path / "replay") == _files(tmp_path / "batch")
    assert _by_casino(tmp_path / "replay")["C02"]["ruleset"] == C02_STUD


def test_checks_follow_replays_by_the_directory_it_is_given(tmp_path, two_casinos):
    from checks.follow import follow

    said: list[str] = []
    status = follow(tmp_path, every=0.05, passes=1, say=said.append, full_every=None,
                    rulesets=EXAMPLE, book=load_rulebook(EXAMPLE))
    assert status == 0, said
    assert any("up to date" in line for line in said), said
    rounds = _by_casino(tmp_path / "replay")
    assert (rounds["C01"]["ruleset"], rounds["C02"]["ruleset"]) == (SHIPPED_STUD, C02_STUD)


def test_checks_takes_rulesets_only_with_follow(tmp_path):
    done = run_cli("checks", "--data", str(tmp_path), "--rulesets", str(EXAMPLE))
    assert done.returncode == 2 and "--rulesets is for --follow" in done.stderr


def test_the_simulator_refuses_a_directory_with_problems_before_kafka(tmp_path):
    (tmp_path / "C02").mkdir()
    (tmp_path / "C02" / "x.json").write_text('{"id": 1}')
    done = run_cli("ingest.simulate", "--tables", "1", "--rounds", "1", "--casino", "C02",
                   "--rulesets", str(tmp_path), "--bootstrap", "127.0.0.1:9")
    assert done.returncode == 2
    assert f"simulate: {tmp_path}/C02/x.json: " in done.stderr
    assert "REFUSED" in done.stderr and "Traceback" not in done.stderr


def test_a_dispute_report_of_a_casinos_round_reads_its_filing(tmp_path, two_casinos,
                                                               monkeypatch):
    """The dispute report of C02's round describes C02's own ruleset, with why each hand won,
    when $CATWALK_RULESETS holds the very files replay judged by (their SHA-256 in the
    manifest); without it, the report says which ruleset it cannot read and what to do,
    never another ruleset's words."""
    from replay.dispute import round_report

    data = two_casinos.parent
    replay(two_casinos, data / "replay", book=load_rulebook(EXAMPLE))
    monkeypatch.setenv("CATWALK_RULESETS", str(EXAMPLE))
    report = round_report(data, "B-000001", casino="C02")
    assert report is not None and report.ruleset == C02_STUD
    assert report.ruleset_words.startswith(f"{C02_STUD}: Caribbean stud poker at casino C02")
    (seat,) = [h for h in report.hands if h.seat == 1]
    assert seat.result == "wins" and seat.why
    monkeypatch.delenv("CATWALK_RULESETS")
    blind = round_report(data, "B-000001", casino="C02")
    assert blind is not None
    assert blind.ruleset_words.startswith(
        f"ruleset {C02_STUD} is neither shipped nor in a casino's filing this report can read: "
        "Set CATWALK_RULESETS to the rulesets directory")
    assert all(h.why is None for h in blind.hands)


FACE_UP = {"game": "face_up_pai_gow", "progressive_meter": 2_500_000,
           "dealer": {"cards": ["Kc", "Kd", "9s", "7h", "3c", "Ah", "Qs"],
                      "high": ["Kc", "Kd", "9s", "7h", "3c"], "low": ["Ah", "Qs"]},
           "seats": [{"seat": 1, "cards": ["5s", "5h", "5d", "5c", "2c", "As", "Kh"],
                      "high": ["5s", "5h", "5d", "5c", "2c"], "low": ["As", "Kh"],
                      "wagers": {"main": 2500, "fortune": 500}},
                     {"seat": 2, "cards": ["9c", "9d", "7c", "4h", "2d", "Ad", "Jd"],
                      "high": ["9c", "9d", "7c", "4h", "2d"], "low": ["Ad", "Jd"],
                      "wagers": {"main": 1000, "progressive": 500}}]}
"""The README's Face Up round: seat 1's four fives; seat 2's $5 Progressive is a Qualifying
Wager under the shipped $5 minimum (58 Pa. Code § 688a.1), so seat 2 is owed the $5 Envy
Bonus for seat 1's four of a kind (docs/rules.md 6a.11)."""


def test_a_casinos_own_qualifying_wager_minimum_judges_its_envy(tmp_path):
    """C03 files a $10 Qualifying Wager: its seat 2 ($5 Progressive), paid the $5 Envy Bonus
    as at C01, is owed none there, while C01's, judged by the shipped $5, is owed 500;
    envy.parquet carries each round's minimum for the Envy checks."""
    folder = tmp_path / "filings" / "C03"
    folder.mkdir(parents=True)
    data = json.loads((REPO / "replay" / "rulesets" / "face_up_pai_gow-pa688a-v1.json")
                      .read_text(encoding="utf-8"))
    data.update(id="face_up_pai_gow-c03-v1", casino="C03", effective_from="2026-01-01")
    data["options"]["qualifying_wager_cents"] = 1000
    (folder / "face_up_pai_gow-c03-v1.json").write_text(json.dumps(data), encoding="utf-8")
    events = []
    for casino in ("C01", "C03"):
        events += events_of_document(Table("T09", casino=casino),
                                     {**FACE_UP, "round_id": f"{casino}-000001"},
                                     envy={(2, 1): 500})
    log = _write(tmp_path, events)
    replay(log, tmp_path / "replay", book=load_rulebook(tmp_path / "filings"))
    totals = {(r["casino"], r["seat"]): (r["expected_cents"], r["qualifying_minimum_cents"])
              for r in _rows(tmp_path / "replay", "envy") if r["row"] == "total"}
    assert totals[("C01", 2)] == (500, 500)
    assert totals[("C03", 2)] == (0, 1000)
