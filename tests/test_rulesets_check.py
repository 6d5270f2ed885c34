"""``python -m replay rulesets check DIR`` (replay/filings.py, replay/rulesets_cli.py): every
problem of a casino's filings found at once, each naming its file and key; hostile input
answered with a message, never a traceback or a wait. Bad directories are built by hand."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from replay.filings import (
    MAX_FILE_BYTES,
    FilingProblemKind,
    FilingsError,
    FilingsRefused,
    check_shipped,
    load_rulebook,
    read_filings,
)
from tests.conftest import run_cli

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "docs" / "examples" / "rulesets"
STUD = "caribbean_stud-c02-royal250-v1"
GOOD: dict[str, Any] = json.loads((EXAMPLE / "C02" / f"{STUD}.json").read_text())
K = FilingProblemKind


def _filing(root: Path, data: dict[str, Any], *, casino: str = "C02",
            name: str | None = None) -> Path:
    folder = root / casino
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name or f"{data['id']}.json")
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def _good(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(GOOD)
    data.update(changes)
    return data


def _kinds(root: Path) -> list[tuple[FilingProblemKind, str | None]]:
    return [(p.kind, p.key) for p in read_filings(root).problems]


def test_the_shipped_rulesets_and_the_example_pass():
    assert check_shipped() == ()
    found = read_filings(EXAMPLE)
    assert found.problems == ()
    assert [(f.relative, f.ruleset.casino) for f in found.filings] == [
        (f"C02/{STUD}.json", "C02")]
    book = load_rulebook(EXAMPLE)
    assert book.find(STUD).paytable("raise")["royal_flush"].odds == (250, 1)


def test_json_that_does_not_parse_is_named_with_line_and_column(tmp_path):
    (tmp_path / "C02").mkdir()
    (tmp_path / "C02" / "x.json").write_text('{\n  "id": "a",\n  "game" "caribbean_stud"\n}')
    (problem,) = read_filings(tmp_path).problems
    assert problem.kind is K.NOT_JSON
    assert (problem.line, problem.column) == (3, 10)
    assert str(problem) == f"{tmp_path}/C02/x.json:3:10: not JSON: Expecting ':' delimiter"


def test_unknown_keys_options_paytables_and_classes_are_each_named(tmp_path):
    data = _good(colour="red")
    data["options"] = {**data["options"], "whell": "lowest", "qualifying_wager_cents": 500}
    data["paytables"] = {**data["paytables"], "fortune": {"straight": {"odds": [2, 1]}}}
    data["paytables"]["raise"] = {**data["paytables"]["raise"], "royal_flush_joker": {
        "odds": [500, 1]}}
    _filing(tmp_path, data)
    assert sorted(_kinds(tmp_path), key=str) == sorted([
        (K.UNKNOWN_KEY, "colour"),
        (K.UNKNOWN_OPTION, "options.qualifying_wager_cents"),
        (K.UNKNOWN_OPTION, "options.whell"),
        (K.UNKNOWN_PAYTABLE, "paytables.fortune"),
        (K.PAYTABLE_UNKNOWN_CLASS, "paytables.raise.royal_flush_joker"),
    ], key=str)


def test_a_paytable_missing_a_class_the_wager_pays_is_named(tmp_path):
    data = _good()
    del data["paytables"]["raise"]["ace_king"]
    del data["paytables"]["progressive"]["flush"]
    _filing(tmp_path, data)
    problems = read_filings(tmp_path).problems
    assert [(p.kind, p.key) for p in problems] == [
        (K.PAYTABLE_MISSING_CLASS, "paytables.progressive"),
        (K.PAYTABLE_MISSING_CLASS, "paytables.raise")]
    assert "posts no line for flush" in problems[0].detail
    assert "posts no line for ace_king" in problems[1].detail


def test_a_payout_of_a_kind_the_paytable_does_not_pay_is_named(tmp_path):
    data = _good()
    data["paytables"]["raise"]["flush"] = {"fixed_cents": 500}
    _filing(tmp_path, data)
    assert _kinds(tmp_path) == [(K.PAYOUT_KIND, "paytables.raise.flush")]


def test_a_game_catwalk_does_not_know_is_named(tmp_path):
    _filing(tmp_path, _good(id="baccarat-c02-v1", game="baccarat"))
    assert (K.UNKNOWN_GAME, "game") in _kinds(tmp_path)


def test_a_house_way_not_shipped_and_a_way_file_not_there(tmp_path):
    tiles = json.loads((REPO / "replay/rulesets/pai_gow_tiles-pr-v1.json").read_text())
    tiles.update(id="pai_gow_tiles-c02-v1", casino="C02", effective_from="2026-01-01")
    tiles["options"] = {**tiles["options"], "house_way": "c02-house"}
    _filing(tmp_path, tiles)
    stud = _good()
    stud["options"] = {**stud["options"], "house_way": "reference-1.3"}
    _filing(tmp_path, stud)
    poker = json.loads((REPO / "replay/rulesets/pai_gow_poker-classic-v1.json").read_text())
    poker.update(id="pai_gow_poker-c02-v1", casino="C02", effective_from="2026-01-01")
    poker["options"] = {**poker["options"], "house_way": "c02.way"}
    _filing(tmp_path, poker)
    problems = read_filings(tmp_path).problems
    assert [(p.kind, p.path.rsplit("/", 1)[1]) for p in problems] == [
        (K.UNKNOWN_HOUSE_WAY, f"{STUD}.json"),
        (K.UNKNOWN_HOUSE_WAY, "pai_gow_poker-c02-v1.json"),
        (K.UNKNOWN_HOUSE_WAY, "pai_gow_tiles-c02-v1.json")]
    assert "caribbean_stud has no house way" in problems[0].detail
    assert "house-way file 'c02.way' is not a file" in problems[1].detail
    assert "'c02-house' is not a house way shipped for pai_gow_tiles" in problems[2].detail
    (tmp_path / "C02" / "c02.way").write_text(
        (REPO / "replay/rulesets/house_ways/reference-1.3.way").read_text())
    found = read_filings(tmp_path)
    assert len(found.problems) == 2  # the .way file is there now
    assert "C02/c02.way" in [f.path for f in found.files]


def test_overlapping_periods_name_both_files_and_the_days(tmp_path):
    _filing(tmp_path, _good(effective_to="2026-07-01"))
    _filing(tmp_path, _good(id="caribbean_stud-c02-v2", effective_from="2026-06-01"))
    (problem,) = read_filings(tmp_path).problems
    assert problem.kind is K.OVERLAP
    assert f"{STUD} ({tmp_path}/C02/{STUD}.json)" in problem.detail
    assert f"caribbean_stud-c02-v2 ({tmp_path}/C02/caribbean_stud-c02-v2.json)" in problem.detail
    assert "both in force from 2026-06-01 up to 2026-07-01" in problem.detail


def test_a_gap_between_the_first_and_the_last_is_named(tmp_path):
    _filing(tmp_path, _good(effective_to="2026-05-01"))
    _filing(tmp_path, _good(id="caribbean_stud-c02-v2", effective_from="2026-06-01"))
    (problem,) = read_filings(tmp_path).problems
    assert problem.kind is K.GAP
    assert "no caribbean_stud ruleset in force from 2026-05-01 up to 2026-06-01" in \
        problem.detail


def test_ids_used_twice_or_shipped_already_name_both_files(tmp_path):
    _filing(tmp_path, _good(), name=f"{STUD}.json")
    _filing(tmp_path, _good(casino="C03"), casino="C03")
    _filing(tmp_path, _good(id="caribbean_stud-standard-v1", effective_from="2027-01-01",
                            casino="C04"), casino="C04")
    problems = read_filings(tmp_path).problems
    assert [(p.kind, p.path.split("/")[-2]) for p in problems] == [
        (K.DUPLICATE_ID, "C03"), (K.SHIPPED_ID, "C04")]
    assert f"also the id in {tmp_path}/C02/{STUD}.json" in problems[0].detail
    assert "replay/rulesets/caribbean_stud-standard-v1.json" in problems[1].detail


def test_the_layout_casino_folder_and_file_name_are_checked(tmp_path):
    _filing(tmp_path, _good(casino="C09"))  # in C02's folder
    _filing(tmp_path, _good(id="caribbean_stud-c03-v1", casino="C03"), casino="C03",
            name="royal.json")
    (tmp_path / "caribbean_stud-c05-v1.json").write_text(
        json.dumps(_good(id="caribbean_stud-c05-v1")))
    details = [(p.kind, p.path.removeprefix(f"{tmp_path}/"), p.detail)
               for p in read_filings(tmp_path).problems]
    assert details == [
        (K.LAYOUT, "C02/caribbean_stud-c02-royal250-v1.json",
         "casino 'C09' filed in the folder of casino 'C02'"),
        (K.LAYOUT, "C03/royal.json",
         "holds ruleset 'caribbean_stud-c03-v1'; name it caribbean_stud-c03-v1.json"),
        (K.LAYOUT, "caribbean_stud-c05-v1.json",
         "a ruleset file belongs directly in its casino's folder, DIR/<casino>/<id>.json")]


def test_a_bad_value_is_named_by_the_ruleset_reader(tmp_path):
    _filing(tmp_path, _good(commission={"rate_bps": 5.0, "rounding": "down"}))
    (problem,) = read_filings(tmp_path).problems
    assert problem.kind is K.BAD_VALUE and "rate_bps must be an integer" in problem.detail


def test_every_problem_of_a_directory_is_reported_at_once_and_replay_refuses_it(tmp_path):
    _filing(tmp_path, _good(colour="red"))
    (tmp_path / "C03").mkdir()
    (tmp_path / "C03" / "bad.json").write_bytes(b"\x00\xff binary")
    found = read_filings(tmp_path)
    assert [p.kind for p in found.problems] == [K.UNKNOWN_KEY, K.NOT_JSON]
    with pytest.raises(FilingsRefused, match="has 2 problems"):
        found.book()


def test_hostile_files_are_answered_never_read_whole_or_waited_on(tmp_path):
    folder = tmp_path / "C02"
    folder.mkdir()
    (folder / "huge.json").write_bytes(b" " * (MAX_FILE_BYTES + 1))
    os.mkfifo(folder / "pipe.json")
    (folder / "loop.json").symlink_to(folder / "loop.json")
    (folder / "again").symlink_to(folder, target_is_directory=True)  # a folder loop
    (folder / "x.json").mkdir()
    (folder / "deep.json").write_text("[" * 100_000)
    (folder / "nan.json").write_text('{"id": NaN}')
    problems = {p.path.rsplit("/", 1)[1]: (p.kind, p.detail)
                for p in read_filings(tmp_path).problems}
    assert problems == {
        "deep.json": (K.NOT_JSON, "arrays and objects nested more than 64 deep"),
        "again": (K.UNREADABLE, "a symbolic link: not followed (put the file itself here)"),
        "huge.json": (K.UNREADABLE, f"larger than {MAX_FILE_BYTES:,} bytes: not read (a "
                      "ruleset is a few KiB)"),
        "loop.json": (K.UNREADABLE, "a symbolic link: not followed (put the file itself "
                      "here)"),
        "nan.json": (K.NOT_JSON, "not JSON: NaN is not a JSON number"),
        "pipe.json": (K.UNREADABLE, "not a regular file (a FIFO, device or socket): not read"),
        "x.json": (K.LAYOUT, "a directory, not a ruleset file"),
    }


def test_a_directory_that_is_not_there_cannot_be_read(tmp_path):
    with pytest.raises(FilingsError, match="does not exist"):
        read_filings(tmp_path / "nowhere")
    (tmp_path / "file").write_text("")
    with pytest.raises(FilingsError, match="is not a directory"):
        read_filings(tmp_path / "file")


def test_the_command_exits_0_1_2_and_prints_each_problem(tmp_path):
    clean = run_cli("replay", "rulesets", "check", str(EXAMPLE))
    assert clean.returncode == 0, clean.stderr
    assert f"caribbean_stud   {STUD:<32} from 2026-01-01 with no end date" in clean.stdout
    _filing(tmp_path, _good(colour="red"))
    (tmp_path / "C03").mkdir()
    os.mkfifo(tmp_path / "C03" / "pipe.json")
    bad = run_cli("replay", "rulesets", "check", str(tmp_path), timeout=60)
    assert bad.returncode == 1
    assert bad.stdout.splitlines() == [
        f"{tmp_path}/C02/{STUD}.json: colour: not a ruleset key; the keys are casino, "
        "commission, effective_from, effective_to, game, id, options, paytables, source, title",
        f"{tmp_path}/C03/pipe.json: not a regular file (a FIFO, device or socket): not read"]
    assert "2 problems" in bad.stderr and "Traceback" not in bad.stderr
    missing = run_cli("replay", "rulesets", "check", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    listed = run_cli("replay", "rulesets", "list", str(EXAMPLE))
    assert listed.returncode == 0
    assert "caribbean_stud-standard-v1" in listed.stdout and STUD in listed.stdout
    helped = run_cli("replay", "rulesets", "check", "--help")
    assert helped.returncode == 0 and "python -m replay rulesets check" in helped.stdout
