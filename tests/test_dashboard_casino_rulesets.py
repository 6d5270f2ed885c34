"""The Rulesets page's casinos' rulesets (docs/rulesets.md): listed from the files replay's
manifest records, shown in full only from a directory holding those very files."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from dashboard.context import User
from tests.dashboard_round_fixtures import copy_data, run_page, shown, write_pipeline

PAGE = "dashboard.screens.rulesets"
REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "docs" / "examples" / "rulesets"
STUD = "caribbean_stud-c02-royal250-v1"
FILE = f"C02/{STUD}.json"
REGULATOR = User(name="rita", role="regulator")


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("casino-rulesets") / "data"
    write_pipeline(root)
    return root


@pytest.fixture
def data(pipeline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = copy_data(pipeline, tmp_path / "data")
    monkeypatch.setenv("CATWALK_DATA", str(root))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CATWALK_RULESETS", raising=False)
    return root


def _judged_by_c02(root: Path) -> str:
    """Say in the manifest that C02's example filing judged the data (as replay
    --rulesets docs/examples/rulesets records it); its SHA-256, worked from the bytes."""
    digest = hashlib.sha256((EXAMPLE / FILE).read_bytes()).hexdigest()
    path = root / "replay" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["ruleset_files"] = [
        {"path": p.relative_to(EXAMPLE).as_posix(),
         "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for p in sorted((EXAMPLE / "C02").rglob("*")) if p.is_file()]  # tables/ too
    manifest["rulesets"] = [*manifest["rulesets"], STUD]
    from replay.outputs import output_signer, write_signed

    write_signed(path.parent, manifest, output_signer(root))  # signed, as replay would
    return digest


def test_shipped_rulesets_alone_are_said_so(data: Path) -> None:
    at = run_page(PAGE, REGULATOR)
    assert not at.exception
    assert "No casino's own rulesets: every round was judged by the shipped rulesets " \
        "(docs/rulesets.md)." in shown(at)


def test_a_casinos_ruleset_is_shown_in_full_from_the_same_files(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    digest = _judged_by_c02(data)
    monkeypatch.setenv("CATWALK_RULESETS", str(EXAMPLE))
    at = run_page(PAGE, REGULATOR)
    assert not at.exception
    frames = [d.value.to_dict("records") for d in at.dataframe]
    (files,) = [f for f in frames if f and set(f[0]) == {"file", "SHA-256"}]
    assert {"file": FILE, "SHA-256": digest} in files
    assert {"file": "C02/flamingo.way", "SHA-256": hashlib.sha256(
        (EXAMPLE / "C02" / "flamingo.way").read_bytes()).hexdigest()} in files
    (rulesets,) = [f for f in frames if f and "casino" in f[0] and "in force from" in f[0]]
    assert {"casino": "C02", "ruleset": STUD, "game": "caribbean_stud",
            "in force from": "2026-01-01", "in force until": "no end date",
            "commission": "No commission."} in rulesets
    assert [r["ruleset"] for r in rulesets] == [STUD, "pai_gow_poker-c02-flamingo-v1"]
    # the pai gow poker filing's house way is the one its .way file holds
    assert any("House way" in m.value and "flamingo" in m.value for m in at.markdown)
    raise_table = next(t.value.to_dict("records") for t in at.table
                       if {"hand": "royal flush", "pays": "250 to 1"}
                       in t.value.to_dict("records"))
    assert raise_table[1] == {"hand": "straight flush", "pays": "50 to 1"}
    assert not any("Not shipped with this version" in e.value for e in at.error)


def test_a_directory_whose_files_differ_is_not_shown_as_what_judged(
        data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _judged_by_c02(data)
    changed = tmp_path / "rulesets"
    shutil.copytree(EXAMPLE, changed)
    text = (changed / FILE).read_text().replace('"odds": [250, 1]', '"odds": [200, 1]')
    (changed / FILE).write_text(text)
    monkeypatch.setenv("CATWALK_RULESETS", str(changed))
    at = run_page(PAGE, REGULATOR)
    assert not at.exception
    assert any(t.startswith(f"The rulesets directory {changed} (CATWALK_RULESETS) does not "
                            "hold the files that judged this data") for t in shown(at))
    assert not any({"hand": "royal flush", "pays": "200 to 1"} in t.value.to_dict("records")
                   for t in at.table)


def test_without_the_directory_the_files_are_listed_and_how_to_see_more_said(
        data: Path) -> None:
    digest = _judged_by_c02(data)
    at = run_page(PAGE, REGULATOR)
    assert any({"file": FILE, "SHA-256": digest} in d.value.to_dict("records")
               for d in at.dataframe)
    assert ("Set CATWALK_RULESETS to the rulesets directory replay judged by to read these "
            "rulesets here in full.") in shown(at)
