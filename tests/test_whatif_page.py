"""The Rulesets page shows the what-if runs under DATA/whatif/ as what-ifs, never as
production, each checked against its manifest (dashboard/whatif_runs.py). The amounts are
the hand-worked ones of tests/test_whatif.py: a royal at 250 to 1 instead of 100 to 1 on a
$20 raise moves $3,000.00 to the patron."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dashboard.context import User
from dashboard.whatif_runs import whatif_runs
from replay.__main__ import main
from replay.refusal import mark_refused
from tests.dashboard_round_fixtures import copy_data, run_page, shown
from tests.whatif_support import ROYAL, TWO_PAIR, royal_250, stud, write_log

PAGE = "dashboard.screens.rulesets"
RUN = "caribbean_stud-royal250-v1_2026-11-28_2026-11-28_C01"


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("whatif_page")
    root = write_log(base / "data", [
        ("C01", "T01", 0, [stud("T01-000001", ROYAL, TWO_PAIR), stud("T01-000002", TWO_PAIR)]),
    ])
    key = str(root / "keys" / "signing.pub")  # pinned: the log key these tests made
    assert main(["run", "--data", str(root), "--key", key]) == 0
    assert main(["whatif", "--ruleset", str(royal_250(base / "royal250.json")), "--data",
                 str(root), "--casino", "C01", "--since", "2026-11-28", "--until",
                 "2026-11-28", "--key", key]) == 0
    return root


@pytest.fixture
def data(pipeline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = copy_data(pipeline, tmp_path / "data")
    monkeypatch.setenv("CATWALK_DATA", str(root))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    return root


def _page(role: str = "regulator") -> Any:
    at = run_page(PAGE, User(name="rita", role=role))  # type: ignore[arg-type]
    assert not at.exception
    return at


def _whatif_table(at: Any) -> list[dict[str, Any]]:
    frame = next(d.value for d in at.dataframe if "difference" in d.value.columns)
    return frame.to_dict("records")


def test_a_run_is_shown_as_a_what_if_with_its_money_by_wager(data: Path) -> None:
    at = _page()
    texts = shown(at)
    assert "What-if runs (not production)" in texts
    assert f"What-if {RUN}" in texts
    [warning] = [w.value for w in at.warning if "What-if" in w.value]
    assert warning.startswith("What-if, not production. Its files match the SHA-256 its "
                              "manifest names; the manifest itself is not signed.")
    details = next(t for t in texts if "Proposed ruleset" in t)
    assert "caribbean_stud-royal250-v1" in details and "caribbean_stud-standard-v1" in details
    assert "Rounds judged under both: 2; changed: 1; not evaluated under one or both: 0" in details
    assert "Wagers changed: 1 of 6; money moved: +$3,000.00" in details
    # Antes: three wins of $10. Raises: $2,000 on the royal and $40 on each two pair, then
    # $5,000 on the royal.
    assert _whatif_table(at) == [
        {"casino": "C01", "table": "T01", "game": "caribbean_stud", "wager": "ante",
         "wagers judged": 3, "wagers changed": 0, "expected net, production": "$30.00",
         "expected net, proposed": "$30.00", "difference": "$0.00"},
        {"casino": "C01", "table": "T01", "game": "caribbean_stud", "wager": "raise",
         "wagers judged": 3, "wagers changed": 1, "expected net, production": "$2,080.00",
         "expected net, proposed": "$5,080.00", "difference": "+$3,000.00"}]


def test_a_file_changed_after_the_run_makes_it_not_trusted(data: Path) -> None:
    target = data / "whatif" / RUN / "whatif_rounds.parquet"
    target.write_bytes(target.read_bytes() + b"\0")
    [run] = whatif_runs(data)
    assert not run.trusted
    at = _page()
    [error] = [e.value for e in at.error if "What-if" in e.value]
    assert error.startswith("What-if, not production, NOT TRUSTED: `whatif_rounds.parquet has "
                            "SHA-256 ")
    assert "it was changed after the run" in error


def test_a_manifest_that_is_not_a_whatifs_is_not_trusted(data: Path) -> None:
    (data / "whatif" / RUN / "whatif.json").write_text('{"format": "something else"}')
    [run] = whatif_runs(data)
    assert (run.trusted, run.problems) == (
        False, ("its manifest whatif.json is not a what-if manifest "
                "(catwalk-whatif-manifest/1)",))
    assert any("NOT TRUSTED" in e.value for e in _page("analyst").error)


def test_a_log_refused_since_makes_the_run_not_trusted(data: Path) -> None:
    mark_refused(data / "replay", "the log does not verify: FAILED after 3 good records")
    [run] = whatif_runs(data)
    assert not run.trusted
    assert run.problems[0].startswith("the log no longer verifies: a later replay refused it")


def test_no_runs_says_how_to_make_one(data: Path) -> None:
    import shutil

    shutil.rmtree(data / "whatif")
    assert any("No what-if runs under" in i.value for i in _page().info)
