"""``python -m replay whatif``: a period judged again under a proposed ruleset, against
production's judgement of the same rounds by the same engine (replay/whatif.py).

Every expected amount is worked by hand from docs/rules.md 4.2 and 6 (Caribbean stud: the
ante pays 1 to 1 against a qualifying dealer, the raise by the paytable) and 6a.2 (pai gow
tiles: 5% vigorish rounded up to the next 25 cents)."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from replay import parallel
from replay.__main__ import main
from replay.rulesets import ruleset_from_dict, shipped_rulesets
from replay.whatif import ruleset_data
from tests.whatif_support import ROYAL, TWO_PAIR, royal_250, stud, tiles, vig_down, write_log

PERIOD = ["--since", "2026-11-28", "--until", "2026-11-28"]


@pytest.fixture(scope="module")
def shift(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """C01 T01 on 2026-11-28: a royal flush and a two pair, then a two pair alone; C02 T02
    the same day and C01 T03 two days later: a royal each; C01 T04: a tiles win of $7."""
    root = tmp_path_factory.mktemp("whatif")
    write_log(root / "data", [
        ("C01", "T01", 0, [stud("T01-000001", ROYAL, TWO_PAIR), stud("T01-000002", TWO_PAIR)]),
        ("C02", "T02", 0, [stud("T02-000001", ROYAL)]),
        ("C01", "T03", 2, [stud("T03-000001", ROYAL)]),
        ("C01", "T04", 0, [tiles("T04-000001")]),
    ])
    royal_250(root / "royal250.json")
    vig_down(root / "vigdown.json")
    return root


def _whatif(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["whatif", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _rows(folder: Path, name: str) -> list[dict[str, Any]]:
    return pq.read_table(folder / name).to_pylist()


def _copy(shift: Path, tmp_path: Path) -> Path:
    """The shift's data directory copied, for a test that writes into it."""
    import shutil

    return Path(shutil.copytree(shift / "data", tmp_path / "data", symlinks=True))


def _hashes(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_a_royal_at_250_to_1_moves_the_raise_by_3000_dollars(shift, tmp_path, capsys):
    out = tmp_path / "out"
    code, said, _ = _whatif(capsys, "--ruleset", str(shift / "royal250.json"), "--data",
                            str(shift / "data"), "--casino", "C01", *PERIOD, "--out", str(out))
    assert code == 0
    changed = _rows(out, "whatif_rounds.parquet")
    assert len(changed) == 1
    row = changed[0]
    # $20 raise on a royal: 2,000 x 100 = 200,000 cents, proposed 2,000 x 250 = 500,000.
    assert {k: row[k] for k in ("round_id", "casino", "table_id", "seat", "wager",
                                "amount_cents", "outcome_before", "net_before_cents",
                                "outcome_after", "net_after_cents", "difference_cents",
                                "ruleset_before", "ruleset_after")} == {
        "round_id": "T01-000001", "casino": "C01", "table_id": "T01", "seat": 1,
        "wager": "raise", "amount_cents": 2000, "outcome_before": "win",
        "net_before_cents": 200_000, "outcome_after": "win", "net_after_cents": 500_000,
        "difference_cents": 300_000, "ruleset_before": "caribbean_stud-standard-v1",
        "ruleset_after": "caribbean_stud-royal250-v1"}
    # Two rounds of T01 only: T02 is another casino's, T03 dealt after the period, T04 tiles.
    # Antes: three wins of 1,000. Raises: the royal, and two two-pairs at 2 to 1 (4,000).
    assert _rows(out, "whatif_summary.parquet") == [
        {"casino": "C01", "table_id": "T01", "game": "caribbean_stud", "wager": "ante",
         "wagers_judged": 3, "wagers_changed": 0, "net_before_cents": 3_000,
         "net_after_cents": 3_000, "difference_cents": 0},
        {"casino": "C01", "table_id": "T01", "game": "caribbean_stud", "wager": "raise",
         "wagers_judged": 3, "wagers_changed": 1, "net_before_cents": 208_000,
         "net_after_cents": 508_000, "difference_cents": 300_000}]
    manifest = json.loads((out / "whatif.json").read_text())
    assert manifest["counts"] == {
        "rounds_selected": 2, "rounds_judged": 2, "rounds_changed": 1,
        "rounds_not_evaluated": 0, "rounds_dealer_reset": 0, "wagers_judged": 6,
        "wagers_changed": 1,
        "net_before_cents": 211_000, "net_after_cents": 511_000, "difference_cents": 300_000}
    assert manifest["what_if"] is True and manifest["production"] is False
    assert (manifest["casino"], manifest["since"], manifest["until"]) == (
        "C01", "2026-11-28", "2026-11-28")
    assert manifest["files"] == {n: h for n, h in _hashes(out).items() if n != "whatif.json"}
    assert "caribbean_stud raise: +$3,000.00 (1 of 3 wagers changed)" in said
    assert "rounds judged under both rulesets: 2; changed: 1" in said


def test_without_a_casino_or_a_period_every_royal_moves(shift, tmp_path, capsys):
    out = tmp_path / "out"
    assert _whatif(capsys, "--ruleset", str(shift / "royal250.json"), "--data",
                   str(shift / "data"), "--out", str(out))[0] == 0
    assert sorted((r["round_id"], r["difference_cents"])
                  for r in _rows(out, "whatif_rounds.parquet")) == [
        ("T01-000001", 300_000), ("T02-000001", 300_000), ("T03-000001", 300_000)]


def test_tiles_vigorish_rounded_down_gives_the_patron_15_cents(shift, tmp_path, capsys):
    out = tmp_path / "out"
    code, said, _ = _whatif(capsys, "--ruleset", str(shift / "vigdown.json"), "--data",
                            str(shift / "data"), "--out", str(out))
    assert code == 0
    # 5% of a $7 win is 35 cents: 50 cents rounded up to 25 cents (net 650), 35 rounded
    # down to the cent (net 665).
    [row] = _rows(out, "whatif_rounds.parquet")
    assert (row["round_id"], row["wager"], row["commission_before_cents"],
            row["net_before_cents"], row["commission_after_cents"], row["net_after_cents"],
            row["difference_cents"]) == ("T04-000001", "main", 50, 650, 35, 665, 15)
    assert "pai_gow_tiles main: +$0.15 (1 of 1 wagers changed)" in said


def test_the_default_output_is_named_after_the_ruleset_period_and_casino(shift, tmp_path,
                                                                         capsys):
    data = _copy(shift, tmp_path)
    assert _whatif(capsys, "--ruleset", str(shift / "royal250.json"), "--data", str(data),
                   "--casino", "C01", *PERIOD)[0] == 0
    folder = data / "whatif" / "caribbean_stud-royal250-v1_2026-11-28_2026-11-28_C01"
    assert (folder / "whatif.json").is_file()


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_the_same_files_byte_for_byte_with_one_worker_or_two(shift, tmp_path, capsys,
                                                             monkeypatch, method):
    started = []

    def context():  # how the helper starts: the what-if must reach it either way
        started.append(method)
        return multiprocessing.get_context(method)

    monkeypatch.setattr(parallel, "start_context", context)
    runs = []
    for n in ("1", "2", "1"):
        out = tmp_path / f"w{n}-{len(runs)}"
        assert _whatif(capsys, "--ruleset", str(shift / "royal250.json"), "--data",
                       str(shift / "data"), "--out", str(out), "--workers", n)[0] == 0
        runs.append(_hashes(out))
    assert runs[0] == runs[1] == runs[2]
    assert set(started) == {method}
    assert sorted(runs[0]) == ["whatif.json", "whatif_not_evaluated.parquet",
                               "whatif_rounds.parquet", "whatif_summary.parquet"]


def test_production_outputs_are_left_as_they_were(shift, tmp_path, capsys):
    data = _copy(shift, tmp_path)
    assert main(["run", "--data", str(data)]) == 0
    replay_dir = data / "replay"
    before = _hashes(replay_dir), sorted(p.name for p in data.iterdir())
    assert "whatif" not in before[1]
    assert _whatif(capsys, "--ruleset", str(shift / "royal250.json"), "--data",
                   str(data))[0] == 0
    assert (_hashes(replay_dir), sorted(p.name for p in data.iterdir())) == (
        before[0], sorted([*before[1], "whatif"]))


def test_a_log_that_does_not_verify_is_refused_and_nothing_written(shift, tmp_path, capsys):
    data = _copy(shift, tmp_path)
    segment = sorted((data / "log").glob("segment-*.avro"))[0]
    raw = bytearray(segment.read_bytes())
    raw[-30] ^= 0xFF
    segment.write_bytes(bytes(raw))
    code, said, err = _whatif(capsys, "--ruleset", str(shift / "royal250.json"),
                              "--data", str(data))
    assert code == 1 and said == ""
    assert "whatif: REFUSED: the log does not verify: FAILED after " in err
    assert segment.name in err and "Nothing was written" in err
    assert not (data / "whatif").exists() and not (data / "replay").exists()
    why = json.loads((data / "replay.refused.json").read_text())["why"]
    assert why.startswith("the log does not verify: FAILED after ")


def test_rounds_not_evaluated_under_either_ruleset_are_listed_apart(tmp_path, capsys):
    # One round names a ruleset that does not exist (production cannot judge it); the
    # proposed ruleset has no raise paytable (it cannot judge a round with a raise; a fold
    # needs none).
    folded_royal = {**ROYAL, "wagers": {"ante": 1000}, "action": "fold"}
    data = write_log(tmp_path / "data", [("C01", "T01", 0, [
        {**stud("T01-000001", folded_royal), "ruleset": "caribbean_stud-nosuch-v1"},
        stud("T01-000002", {**TWO_PAIR, "wagers": {"ante": 1000}, "action": "fold"}),
        stud("T01-000003", TWO_PAIR)])])

    def no_raise(d: dict[str, Any]) -> None:
        del d["paytables"]["raise"]

    from tests.whatif_support import proposed_file

    proposed = proposed_file(tmp_path / "noraise.json", "caribbean_stud-standard-v1",
                             "caribbean_stud-noraise-v1", no_raise)
    out = tmp_path / "out"
    code, said, _ = _whatif(capsys, "--ruleset", str(proposed), "--data", str(data),
                            "--out", str(out))
    assert code == 0
    listed = {r["round_id"]: r for r in _rows(out, "whatif_not_evaluated.parquet")}
    assert sorted(listed) == ["T01-000001", "T01-000003"]
    first, third = listed["T01-000001"], listed["T01-000003"]
    assert (first["evaluated_before"], first["evaluated_after"]) == (False, True)
    assert "caribbean_stud-nosuch-v1" in first["why_before"] and first["why_after"] is None
    assert (third["evaluated_before"], third["evaluated_after"]) == (True, False)
    assert "raise" in third["why_after"]
    # Only the folded seat's round is judged under both: its ante, lost, under either.
    assert _rows(out, "whatif_summary.parquet") == [
        {"casino": "C01", "table_id": "T01", "game": "caribbean_stud", "wager": "ante",
         "wagers_judged": 1, "wagers_changed": 0, "net_before_cents": -1000,
         "net_after_cents": -1000, "difference_cents": 0}]
    assert "not evaluated under one or both: 2" in said


def test_a_period_with_no_round_of_the_game_says_so(shift, tmp_path, capsys):
    out = tmp_path / "out"
    code, said, err = _whatif(capsys, "--ruleset", str(shift / "royal250.json"), "--data",
                              str(shift / "data"), "--casino", "C99", "--out", str(out))
    assert code == 0 and "rounds judged under both rulesets: 0; changed: 0" in said
    assert ("whatif: no caribbean_stud round of the log was dealt in the period at casino "
            "C99: nothing to compare") in err
    assert json.loads((out / "whatif.json").read_text())["counts"]["rounds_selected"] == 0
    assert _rows(out, "whatif_rounds.parquet") == _rows(out, "whatif_summary.parquet") == []


@pytest.mark.parametrize(("args", "words"), [
    (["--ruleset", "caribbean_stud-nosuch-v1"],
     "--ruleset 'caribbean_stud-nosuch-v1' is neither a shipped ruleset nor a file; shipped: "
     "caribbean_stud-standard-v1, face_up_pai_gow-pa688a-v1, pai_gow_poker-classic-v1, "
     "pai_gow_tiles-pr-v1"),
    (["--ruleset", "caribbean_stud-standard-v1", "--since", "2026-11-30", "--until",
      "2026-11-28"], "--since 2026-11-30 is after --until 2026-11-28"),
    (["--ruleset", "caribbean_stud-standard-v1", "--since", "28/11/2026"],
     "--since must be a date written YYYY-MM-DD, got '28/11/2026'"),
    (["--ruleset", "caribbean_stud-standard-v1", "--until", "2026-02-30"],
     "--until must be a date written YYYY-MM-DD, got '2026-02-30'"),
    (["--ruleset", "caribbean_stud-standard-v1", "--game", "pai_gow_tiles"],
     "--game pai_gow_tiles: ruleset caribbean_stud-standard-v1 is for caribbean_stud"),
    (["--ruleset", "caribbean_stud-standard-v1", "--workers", "0"],
     "--workers must be a whole number from 1, got 0"),
])
def test_bad_arguments_are_named(shift, capsys, args, words):
    code, said, err = _whatif(capsys, *args, "--data", str(shift / "data"))
    assert (code, said) == (2, "")
    assert err == f"whatif: {words}" + err[len(f"whatif: {words}"):]
    assert "Traceback" not in err


def test_a_ruleset_file_that_is_not_valid_is_named(shift, tmp_path, capsys):
    data = str(shift / "data")
    broken = tmp_path / "broken.json"
    broken.write_text('{"id": "caribbean_stud-x-v1",', encoding="utf-8")
    code, _, err = _whatif(capsys, "--ruleset", str(broken), "--data", data)
    assert code == 2 and err.startswith(f"whatif: --ruleset {broken}: not valid JSON: ")
    typo = tmp_path / "typo.json"
    body = ruleset_data(shipped_rulesets()[0]) | {"paytable": {}}
    typo.write_text(json.dumps(body), encoding="utf-8")
    code, _, err = _whatif(capsys, "--ruleset", str(typo), "--data", data)
    assert code == 2
    assert err.startswith(f"whatif: --ruleset: not a valid ruleset: {typo}: unknown keys "
                          "['paytable']")
    code, _, err = _whatif(capsys, "--ruleset", str(tmp_path / "absent.json"), "--data", data)
    assert code == 2 and "absent.json: cannot be read: No such file or directory" in err


def test_the_output_is_never_replays(shift, capsys):
    data = shift / "data"
    for out in (data / "replay", data / "replay" / "x", data):
        code, _, err = _whatif(capsys, "--ruleset", "caribbean_stud-standard-v1",
                               "--data", str(data), "--out", str(out))
        assert code == 2 and "never writes into or over replay's outputs" in err
    assert not (data / "replay").exists()


def test_a_directory_that_is_not_a_whatif_is_not_replaced(shift, tmp_path, capsys):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    code, _, err = _whatif(capsys, "--ruleset", "caribbean_stud-standard-v1", "--data",
                           str(shift / "data"), "--out", str(tmp_path / "mine"))
    assert code == 2 and "holds no what-if" in err
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"


@pytest.mark.parametrize("ruleset", shipped_rulesets(), ids=lambda r: r.id)
def test_ruleset_data_reads_back_to_the_same_ruleset(ruleset):
    assert ruleset_from_dict(ruleset_data(ruleset), source="test") == ruleset


def test_the_command_is_one_of_replays(shift, tmp_path):
    from tests.conftest import run_cli

    assert "whatif       judge a period again" in run_cli("replay", "--help").stdout
    done = run_cli("replay", "whatif", "--ruleset", str(shift / "vigdown.json"), "--data",
                   str(shift / "data"), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "pai_gow_tiles main: +$0.15 (1 of 1 wagers changed)" in done.stdout
    assert "whatif: verifying the log" in done.stderr
