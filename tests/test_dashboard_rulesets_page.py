"""The Rulesets page, as a regulator audits it: what each shipped ruleset says in words a
regulator reads against the posted rules (docs/rules.md 6 and 6a), when it is in force, and
which rulesets the data shown was judged under. Expected words are written out by hand from
docs/rules.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dashboard.context import ROLES, Filters, Role, User
from dashboard.screens import rulesets as page
from replay.rulesets import Payout, load_ruleset
from tests.dashboard_round_fixtures import copy_data, run_page, shown, write_pipeline

PAGE = "dashboard.screens.rulesets"


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rulesets") / "data"
    write_pipeline(root)
    return root


@pytest.fixture
def data(pipeline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = copy_data(pipeline, tmp_path / "data")
    monkeypatch.setenv("CATWALK_DATA", str(root))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    return root


def _tables(at: Any) -> list[list[dict[str, Any]]]:
    return [t.value.to_dict("records") for t in at.table]


def _table_with(at: Any, row: dict[str, Any]) -> list[dict[str, Any]]:
    return next(rows for rows in _tables(at) if row in rows)


@pytest.mark.parametrize(("bps", "text"), [(500, "5%"), (25, "0.25%"), (5000, "50%"),
                                           (10000, "100%"), (1, "0.01%")])
def test_percent_is_exact(bps: int, text: str) -> None:
    assert page.percent(bps) == text


@pytest.mark.parametrize(("payout", "text"), [
    (Payout(odds=(8000, 1)), "8,000 to 1"),
    (Payout(odds=(3, 2)), "3 to 2"),
    (Payout(fixed_cents=500000), "$5,000.00"),
    (Payout(meter_bps=1000), "10% of the meter"),
])
def test_a_paytable_line_reads_as_posted(payout: Payout, text: str) -> None:
    assert page.payout_words(payout) == text


def test_commission_words_follow_the_rounding_of_each_ruleset() -> None:
    # docs/rules.md 6a.1: 5% of $10.10 is 50.5 cents, rounded down to $0.50.
    assert page.commission_words(load_ruleset("pai_gow_poker-classic-v1")) == (
        "5% of the win, rounded down to the cent (a win of $10.10 pays $0.50 commission).")
    # docs/rules.md 6a.2: rounded up to the next multiple of 25 cents: $0.75; lawful from
    # the exact 5% rounded down to the cent (50.5 -> $0.50) up to that $0.75.
    assert page.commission_words(load_ruleset("pai_gow_tiles-pr-v1")) == (
        "5% of the win, rounded up to the next multiple of $0.25 (a win of $10.10 pays "
        "$0.75 commission). Lawful: any commission from $0.50 to $0.75 on that win "
        "(docs/rules.md 6a.19); a settlement is flagged only outside the range.")
    assert page.commission_words(load_ruleset("face_up_pai_gow-pa688a-v1")) == "No commission."


@pytest.mark.parametrize("role", ROLES)
def test_every_role_reads_every_shipped_ruleset(data: Path, role: Role) -> None:
    at = run_page(PAGE, User(name="u", role=role))
    assert not at.exception
    assert at.title[0].value == "Rulesets"
    summary = next(d.value for d in at.dataframe if "in force from" in d.value.columns)
    assert summary.to_dict("records") == [
        {"ruleset": "caribbean_stud-standard-v1", "game": "caribbean_stud",
         "in force from": "2000-01-01", "in force until": "no end date", "in force today": "yes",
         "commission": "No commission.", "house way": "none"},
        {"ruleset": "face_up_pai_gow-pa688a-v1", "game": "face_up_pai_gow",
         "in force from": "2000-01-01", "in force until": "no end date", "in force today": "yes",
         "commission": "No commission.", "house way": "reference-1.3"},
        {"ruleset": "pai_gow_poker-classic-v1", "game": "pai_gow_poker",
         "in force from": "2000-01-01", "in force until": "no end date", "in force today": "yes",
         "commission": "5% of the win, rounded down to the cent (a win of $10.10 pays $0.50 "
                       "commission).", "house way": "reference-1.3"},
        {"ruleset": "pai_gow_tiles-pr-v1", "game": "pai_gow_tiles",
         "in force from": "2000-01-01", "in force until": "no end date", "in force today": "yes",
         "commission": "5% of the win, rounded up to the next multiple of $0.25 (a win of "
                       "$10.10 pays $0.75 commission). Lawful: any commission from $0.50 to "
                       "$0.75 on that win (docs/rules.md 6a.19); a settlement is flagged only "
                       "outside the range.", "house way": "pr-11.2-d"},
    ]


def test_paytables_options_and_house_way_are_shown_as_posted(data: Path) -> None:
    at = run_page(PAGE, User(name="rita", role="regulator"))
    # Fortune Bonus, docs/rules.md 2.4 and 6: 8,000 / 2,000 / ... / 2 to 1.
    fortune = _table_with(at, {"hand": "natural seven card straight flush", "pays": "8,000 to 1"})
    assert [r["pays"] for r in fortune] == [
        "8,000 to 1", "2,000 to 1", "1,000 to 1", "400 to 1", "150 to 1", "50 to 1", "25 to 1",
        "5 to 1", "4 to 1", "3 to 1", "2 to 1"]
    # Envy Bonus, docs/rules.md 6: $5,000 down to $5, fixed sums.
    envy = _table_with(at, {"hand": "natural seven card straight flush", "pays": "$5,000.00"})
    assert envy[-1] == {"hand": "four of a kind", "pays": "$5.00"}
    # Progressive, docs/rules.md 6: 100% and 10% of the meter, then $2,500 ... $5.
    progressive = _table_with(at, {"hand": "royal flush plus royal match",
                                   "pays": "10% of the meter"})
    assert progressive[0] == {"hand": "natural seven card straight flush",
                              "pays": "100% of the meter"}
    # Caribbean stud raise paytable, docs/rules.md 4.2: 100 / 50 / 20 / 7 / 5 / 4 / 3 / 2 / 1.
    raise_table = _table_with(at, {"hand": "royal flush", "pays": "100 to 1"})
    assert [r["pays"] for r in raise_table][:4] == ["100 to 1", "50 to 1", "20 to 1", "7 to 1"]
    # Options: money as money, basis points as a percentage.
    assert {"option": "qualifying wager", "value": "$5.00"} in _table_with(
        at, {"option": "co bank share", "value": "50%"})
    assert {"option": "progressive wager", "value": "$1.00"} in _table_with(
        at, {"option": "dealer qualifying hand", "value": "A-K-4-3-2"})
    # The tiles house way's four rules of PR ¶ D, in order, with their clauses.
    tiles_way = _table_with(at, {"rule": 1, "clause": "D.1",
                                 "what the dealer does": "With the Supreme Pair (Gee Joon), "
                                 "play it as such: Gee Joon in the high hand, the other two "
                                 "tiles in the low hand."})
    assert [r["clause"].split(";")[0] for r in tiles_way] == ["D.1", "D.2", "D.3", "D.4"]
    texts = shown(at)
    assert "**House way**: none; the dealer does not set a hand in this game." in texts
    assert any(t.startswith("**House way** `reference-1.3`") and "docs/rules.md 1.3" in t
               for t in texts)


def test_where_the_values_come_from_is_shown(data: Path) -> None:
    at = run_page(PAGE, User(name="rita", role="regulator"))
    sources = [t.value for t in at.text]
    assert any(s.startswith("58 Pa. Code § 688a.1 (Qualifying Wager: at least $5)")
               for s in sources)
    assert any("In force from 2000-01-01, with no end date: in force today" in t
               for t in shown(at))


def test_the_rulesets_the_data_used_with_rounds_per_ruleset(data: Path) -> None:
    at = run_page(PAGE, User(name="rita", role="regulator"))
    assert ("Replay judged this data under: `caribbean_stud-standard-v1`, "
            "`pai_gow_poker-classic-v1`, `pai_gow_tiles-pr-v1` (its manifest)." in shown(at))
    used = next(d.value for d in at.dataframe if "judged" in d.value.columns)
    # Five pai gow poker rounds (three at T01, two at T02), one not judged; one tiles round
    # (T03); round R-7 at two tables (tests/dashboard_round_fixtures.py).
    assert used[["ruleset", "game", "rounds", "judged", "shipped"]].to_dict("records") == [
        {"ruleset": "caribbean_stud-standard-v1", "game": "caribbean_stud", "rounds": 2,
         "judged": 2, "shipped": "yes"},
        {"ruleset": "pai_gow_poker-classic-v1", "game": "pai_gow_poker", "rounds": 5,
         "judged": 4, "shipped": "yes"},
        {"ruleset": "pai_gow_tiles-pr-v1", "game": "pai_gow_tiles", "rounds": 1,
         "judged": 1, "shipped": "yes"}]


def test_the_filters_narrow_the_rounds_counted(data: Path) -> None:
    at = run_page(PAGE, User(name="rita", role="regulator"), filters=Filters(tables=("T02",)))
    used = next(d.value for d in at.dataframe if "judged" in d.value.columns)
    assert list(used["rounds"]) == [2]
    assert list(used["judged"]) == [2]


def test_a_ruleset_the_version_does_not_ship_is_an_error(data: Path) -> None:
    path = data / "replay" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["rulesets"] = ["pai_gow_poker-classic-v1", "pai_gow_poker-house-v9"]
    from replay.outputs import output_signer, write_signed

    write_signed(path.parent, manifest, output_signer(data))  # signed, as replay would
    at = run_page(PAGE, User(name="rita", role="regulator"))
    assert any(e.value.startswith("Not shipped with this version: `pai_gow_poker-house-v9`")
               for e in at.error)


def test_no_data_still_shows_the_rulesets(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CATWALK_DATA", str(tmp_path / "nothing"))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    at = run_page(PAGE, User(name="rita", role="regulator"))
    assert not at.exception
    assert len(at.tabs) == 4
    assert any("python -m replay" in t for t in shown(at))
