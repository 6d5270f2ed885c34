"""The Cases page and the Access log page, on flags the real checks raised over a
real replayed log (tests/dashboard_round_fixtures.py): an analyst acknowledges a flag and
records a disposition, kept with who and when; dispute staff and regulators see the history
and change nothing; the access log shows who did what, newest first, with its chain's
state, and exports CSV."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from dashboard.access import AccessLog
from dashboard.accounts import Accounts
from dashboard.cases import Cases, flag_key
from dashboard.context import ROLES, Role, User
from dashboard.screens import access_log as access_page
from dashboard.screens import cases as cases_page
from tests.dashboard_round_fixtures import (
    OVERPAID_ROUND,
    OVERPAID_SEAT,
    run_page,
    shown,
    write_pipeline,
)

CASES = "dashboard.screens.cases"
ACCESS = "dashboard.screens.access_log"
ANALYST = User(name="ann", role="analyst")
ADMIN = User(name="ada", role="admin")
REGULATOR = User(name="rita", role="regulator")
DISPUTE = User(name="dave", role="dispute")


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cases") / "data"
    write_pipeline(root)
    return root


@pytest.fixture
def home(pipeline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The dashboard's home for this test (the data is shared: pages never write it)."""
    monkeypatch.setenv("CATWALK_DATA", str(pipeline))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _flags(root: Path) -> list[dict[str, Any]]:
    return pq.read_table(root / "checks" / "flags.parquet").to_pylist()


def _overpay_key(root: Path) -> str:
    """The case key (dashboard.cases.flag_key) of the overpay flag on the overpaid seat."""
    (flag,) = [f for f in _flags(root) if f["check_id"] == "overpay"
               and f["round_id"] == OVERPAID_ROUND and f["seat"] == OVERPAID_SEAT]
    return flag_key(flag)


def _open(user: User, key: str) -> Any:
    return run_page(CASES, user, params={"flag": key})


def _listed(at: Any) -> Any:
    return next(d.value for d in at.dataframe if "case status" in d.value.columns)


# Amounts typed in dollars --------------------------------------------------------------


@pytest.mark.parametrize(("typed", "cents"), [
    (None, None), ("", None), ("0.01", 1), ("12.5", 1250), ("12.34", 1234), ("0.1", 10),
    ("1.15", 115), ("99999999.99", 9999999999), (25, 2500), ("$1,234.50", 123450),
])
def test_an_amount_in_dollars_becomes_exact_cents(typed: Any, cents: int | None) -> None:
    assert cases_page.dollars_to_cents(typed) == cents


@pytest.mark.parametrize(("typed", "why"), [
    ("12.345", "not a whole number of cents"), ("0.001", "not a whole number of cents"),
    ("-5", "is not an amount"), ("nan", "is not an amount"),
    ("inf", "is not an amount"), ("1e10", "too large"), (True, "typed as text"),
    (1.15, "typed as text"), ("twelve", "is not an amount"),
])
def test_an_amount_that_is_not_whole_cents_is_refused(typed: Any, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        cases_page.dollars_to_cents(typed)


# The list of flags and their cases --------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_every_role_sees_every_flag_with_its_case_status(pipeline: Path, home: Path,
                                                         role: Role) -> None:
    at = run_page(CASES, User(name="u", role=role))
    assert not at.exception
    assert at.title[0].value == "Cases"
    listed = _listed(at)
    flags = _flags(pipeline)
    assert len(listed) == len(flags)
    assert set(listed["case status"]) == {"new"}
    assert sorted(listed["check"]) == sorted(f["check_id"] for f in flags)
    assert len(at.selectbox(key="cases_flag").options) == len(flags)


def test_each_flag_opens_by_the_key_the_case_store_files_it_under(pipeline: Path,
                                                                  home: Path) -> None:
    for flag in _flags(pipeline):
        at = _open(ANALYST, flag_key(flag))
        assert at.selectbox(key="cases_flag").value == flag_key(flag)
        assert f"Round `{flag['round_id']}` at table `{flag['table_id']}`" in shown(at)


def test_open_the_round_goes_to_the_round_page_at_its_table(pipeline: Path,
                                                            home: Path) -> None:
    at = _open(ANALYST, _overpay_key(pipeline))
    at.button(key="case_open_round").click().run()
    assert not at.exception
    assert {k: at.query_params[k] for k in ("round", "casino", "table")} == {
        "round": OVERPAID_ROUND, "casino": "C01", "table": "T01"}


def test_the_overpaid_difference_is_a_number_in_dollars(pipeline: Path, home: Path) -> None:
    at = run_page(CASES, ANALYST)
    listed = _listed(at)
    row = listed[(listed["check"] == "overpay") & (listed["round"] == OVERPAID_ROUND)]
    # Recorded $25.00 against $23.75 required (tests/dashboard_round_fixtures.py).
    assert list(row["difference"]) == [Decimal("1.25")]


def test_an_analyst_acknowledges_a_flag(pipeline: Path, home: Path) -> None:
    key = _overpay_key(pipeline)
    at = _open(ANALYST, key)
    assert at.selectbox(key="cases_flag").value == key
    assert "**Status**: new: nobody has acknowledged it yet" in shown(at)
    # $25.00 paid where $23.75 is due (tests/dashboard_round_fixtures.py).
    assert any(t.startswith("**Seat 3, main**: ") and "Recorded \\$25.00, required \\$23.75: "
               "overpaid by \\$1.25." in t for t in shown(at))
    at.button(key="case_acknowledge").click().run()
    assert not at.exception
    assert [s.value for s in at.success] == ["Acknowledged."]
    (entry,) = Cases(home).history(key)
    assert (entry["action"], entry["by"], entry["role"]) == ("acknowledged", "ann", "analyst")
    assert Cases(home).states()[key].status == "acknowledged"
    assert at.session_state["recorded"] == [
        ("case_action", key, {"did": "acknowledged"})]
    (logged,) = AccessLog(home).entries(action="case_action")
    assert (logged["user"], logged["target"], logged["detail"]) == (
        "ann", key, {"did": "acknowledged", "role": "analyst"})
    # Acknowledged once: the button is gone, the status says who.
    assert not [b for b in at.button if b.key == "case_acknowledge"]
    assert any(t.startswith("**Status**: acknowledged by ann at ") for t in shown(at))
    history = next(d.value for d in at.dataframe if "who" in d.value.columns)
    assert history[["who", "role", "what"]].to_dict("records") == [
        {"who": "ann", "role": "analyst", "what": "acknowledged"}]


@pytest.mark.parametrize("status", ["all", "new"])
def test_a_flag_chosen_in_the_list_stays_chosen_after_it_is_acknowledged(
        pipeline: Path, home: Path, status: str) -> None:
    """Chosen from the list (no ?flag=), acknowledged, then disposed of: the second action
    lands on the same case, even when the list shows only new flags and this one is no
    longer new (a chooser that forgot the flag recorded nothing, silently)."""
    key = _overpay_key(pipeline)
    at = run_page(CASES, ANALYST, params={})
    at.selectbox(key="cases_status").select(status).run()
    at.selectbox(key="cases_flag").select(key).run()
    at.button(key="case_acknowledge").click().run()
    assert not at.exception
    assert [s.value for s in at.success] == ["Acknowledged."]
    assert any(t.startswith("**Status**: acknowledged by ann at ") for t in shown(at))
    at.selectbox[-1].select("dealer_error")
    next(b for b in at.button if b.label == "Record disposition").click()
    at.run()
    assert not at.exception
    assert [(e["action"], e.get("disposition")) for e in Cases(home).history(key)] == [
        ("acknowledged", None), ("disposed", "dealer_error")]


def test_an_analyst_records_an_amount_recovered_in_exact_cents(pipeline: Path,
                                                               home: Path) -> None:
    key = _overpay_key(pipeline)
    at = _open(ADMIN, key)
    at.selectbox[-1].select("amount_recovered")
    at.text_area[0].input("Paid back by the patron **at once** <b>")
    at.text_input(key="case_amount").input("1.15")
    next(b for b in at.button if b.label == "Record disposition").click()
    at.run()
    assert not at.exception
    assert [s.value for s in at.success] == [
        "Recorded: amount recovered: the money at stake was paid back or collected."]
    state = Cases(home).states()[key]
    assert (state.status, state.disposition, state.amount_recovered_cents) == (
        "resolved", "amount_recovered", 115)
    (entry,) = Cases(home).history(key)
    assert entry["note"] == "Paid back by the patron **at once** <b>"
    assert at.session_state["recorded"] == [
        ("case_action", key, {"did": "disposed", "disposition": "amount_recovered",
                              "amount_recovered_cents": 115})]
    history = next(d.value for d in at.dataframe if "who" in d.value.columns)
    assert list(history["amount recovered"]) == [Decimal("1.15")]
    # The note is shown as plain text, never as Markdown.
    assert "Paid back by the patron **at once** <b>" in [t.value for t in at.text]
    assert not any("**at once**" in t for t in shown(at) if t != entry["note"])


def test_a_fraction_of_a_cent_is_refused_and_nothing_recorded(pipeline: Path,
                                                              home: Path) -> None:
    key = _overpay_key(pipeline)
    at = _open(ANALYST, key)
    at.selectbox[-1].select("amount_recovered")
    at.text_input(key="case_amount").input("1.255")
    next(b for b in at.button if b.label == "Record disposition").click()
    at.run()
    assert any(e.value.startswith("Amount recovered: \\$1.255 is not a whole number of cents")
               for e in at.error)
    assert Cases(home).history(key) == []
    assert at.session_state["recorded"] == []


def test_what_the_store_refuses_is_said_and_nothing_recorded(pipeline: Path,
                                                             home: Path) -> None:
    key = _overpay_key(pipeline)
    at = _open(ANALYST, key)
    at.selectbox[-1].select("note")  # a note needs some text
    next(b for b in at.button if b.label == "Record disposition").click()
    at.run()
    assert any(e.value == "Not recorded: a note needs some text." for e in at.error)
    assert Cases(home).history(key) == []


@pytest.mark.parametrize("user", [REGULATOR, DISPUTE])
def test_a_regulator_or_dispute_staff_sees_the_history_and_no_action(
        pipeline: Path, home: Path, user: User) -> None:
    key = _overpay_key(pipeline)
    Cases(home).acknowledge(key, by=ANALYST, note="looking at the video")
    at = _open(user, key)
    assert not at.exception
    history = next(d.value for d in at.dataframe if "who" in d.value.columns)
    assert history[["who", "what", "note"]].to_dict("records") == [
        {"who": "ann", "what": "acknowledged", "note": "looking at the video"}]
    labels = {b.label for b in at.button}
    assert "Acknowledge" not in labels and "Record disposition" not in labels
    assert not [t for t in at.text_input if t.key == "case_amount"] and not at.text_area
    assert any(i.value.startswith("You see the cases and their history; only an analyst")
               for i in at.info)
    with pytest.raises(PermissionError):
        Cases(home).dispose(key, by=user, disposition="false_alarm")


def test_filtering_by_status(pipeline: Path, home: Path) -> None:
    key = _overpay_key(pipeline)
    Cases(home).acknowledge(key, by=ANALYST)
    at = run_page(CASES, ANALYST)
    at.selectbox(key="cases_status").select("acknowledged").run()
    assert len(at.selectbox(key="cases_flag").options) == 1
    assert list(_listed(at)["case status"]) == ["acknowledged"]
    at.selectbox(key="cases_flag").select_index(0).run()
    assert at.selectbox(key="cases_flag").value == key
    at.selectbox(key="cases_status").select("new").run()
    assert len(_listed(at)) == len(_flags(pipeline)) - 1
    assert set(_listed(at)["case status"]) == {"new"}
    assert OVERPAID_ROUND not in set(_listed(at)[_listed(at)["check"] == "overpay"]["round"])
    at.selectbox(key="cases_status").select("resolved").run()
    assert [i.value for i in at.info] == ["No flag is resolved."]


def test_a_cases_file_that_does_not_verify_is_an_error(pipeline: Path, home: Path) -> None:
    key = _overpay_key(pipeline)
    Cases(home).acknowledge(key, by=ANALYST)
    path = home / "cases.jsonl"
    path.write_text(path.read_text().replace('"ann"', '"bob"'))
    at = run_page(CASES, ANALYST)
    assert not at.exception
    assert at.error[0].value.startswith("**The cases file cannot be trusted**")
    assert not at.dataframe


def test_no_flags_says_what_to_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CATWALK_DATA", str(tmp_path / "nothing"))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    at = run_page(CASES, ANALYST)
    assert not at.exception
    assert "python -m checks" in at.info[0].value


# The access log page ----------------------------------------------------------------------


def _seed(home: Path) -> AccessLog:
    accounts = Accounts(home, scrypt_n=2**10)  # a test-only cost, to stay fast
    accounts.add("ann", "analyst", "a long enough password 1", by="tests")
    accounts.add("dave", "dispute", "a long enough password 2", by="tests")
    log = AccessLog(home)
    log.record("ann", "sign_in")
    log.record("ann", "page_view", "flags")
    log.record("dave", "round_view", OVERPAID_ROUND)
    log.record("ann", "case_action", "overpay|C01|T01", did="acknowledged")
    log.record("dave", "report_download", "=HYPERLINK(1)")
    return log


def test_the_access_log_is_for_regulators_and_admins_only() -> None:
    assert frozenset({"regulator", "admin"}) == access_page.ROLES


@pytest.mark.parametrize("user", [ANALYST, DISPUTE])
def test_others_are_refused_the_access_log(home: Path, user: User) -> None:
    at = run_page(ACCESS, user)
    assert [e.value for e in at.error] == ["not allowed"]


@pytest.mark.parametrize("user", [REGULATOR, ADMIN])
def test_the_access_log_newest_first_with_a_whole_chain(home: Path, user: User) -> None:
    _seed(home)
    at = run_page(ACCESS, user)
    assert not at.exception
    assert at.success[0].value.startswith("The access log's hash chain is whole")
    assert at.caption[0].value == "5 entries, newest first."
    table = at.dataframe[0].value
    assert list(table["action"]) == ["report_download", "case_action", "round_view",
                                     "page_view", "sign_in"]
    assert list(table["line"]) == [5, 4, 3, 2, 1]
    assert json.loads(table["detail"][1]) == {"did": "acknowledged"}


def test_the_access_log_filters_by_user_and_action(home: Path) -> None:
    _seed(home)
    at = run_page(ACCESS, REGULATOR)
    at.selectbox(key="access_user").select("ann").run()
    assert list(at.dataframe[0].value["action"]) == ["case_action", "page_view", "sign_in"]
    at.selectbox(key="access_action").select("page_view").run()
    assert list(at.dataframe[0].value["target"]) == ["flags"]
    at.selectbox(key="access_user").select("dave").run()
    assert [i.value for i in at.info] == ["No entry matches."]


def test_a_broken_access_log_is_a_red_error_naming_the_line(home: Path) -> None:
    _seed(home)
    path = home / "access.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace('"dave"', '"eve"')
    path.write_text("".join(lines))
    at = run_page(ACCESS, REGULATOR)
    assert not at.exception
    assert at.error[0].value.startswith("**The access log does not verify**")
    assert "line 3" in at.error[0].value
    assert not at.dataframe


def test_exporting_the_access_log_is_made_on_click_and_recorded(home: Path) -> None:
    log = _seed(home)
    at = run_page(ACCESS, REGULATOR)
    at.selectbox(key="access_user").select("dave").run()
    assert at.download_button(key="access_export").label == "Export CSV"
    recorded: list[tuple[Any, ...]] = []
    make = access_page.export(log, lambda *a, **k: recorded.append((a, k)), "dave", None)
    rows = list(csv.reader(io.StringIO(make().decode("utf-8"))))
    assert [r[3] for r in rows[1:]] == ["report_download", "round_view"]
    assert recorded == [(("export", "access-log"),
                         {"rows": 2, "user_filter": "dave", "action_filter": None})]


def test_the_csv_export_keeps_numbers_and_defuses_formulas(home: Path) -> None:
    entries = _seed(home).entries()
    rows = list(csv.reader(io.StringIO(access_page.access_csv(entries).decode("utf-8"))))
    assert rows[0] == ["seq", "at", "user", "action", "target", "detail"]
    assert [r[0] for r in rows[1:]] == ["5", "4", "3", "2", "1"]
    assert rows[1][4] == "'=HYPERLINK(1)"
    assert json.loads(rows[2][5]) == {"did": "acknowledged"}
