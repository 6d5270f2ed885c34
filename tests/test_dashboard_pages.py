"""The dashboard's shell (sign-in, menu by role, shared filters, access log, error boundary) and
its Overview, Flags and Dealers and tables pages, under AppTest on hand-built data
(tests/dashboard_pages_fixtures.py: every expected figure there is worked out by hand)."""

from __future__ import annotations

import csv
import datetime as dt
import io
from decimal import Decimal
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.runner import FLAG_SCHEMA
from dashboard import data, flag_queries, summaries
from dashboard.access import AccessLog
from dashboard.accounts import Accounts
from dashboard.cases import Cases, flag_key
from dashboard.context import ROLES, Filters, PageContext, User
from dashboard.screens import PAGES, load
from dashboard.screens import flags as flags_page
from replay.run import ROUNDS
from tests.dashboard_fixtures import write_fixture
from tests.dashboard_pages_fixtures import (
    EXPECTED,
    FLAG_ROWS,
    HOSTILE,
    PASSWORD,
    ROUND_ROWS,
    USERS,
    app_test,
    open_page,
    write_pages_fixture,
    write_users,
)
from tests.outputs_support import sign_checks, sign_replay


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_pages_fixture(tmp_path / "data")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    write_users(path, tmp_path)
    return path


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def signed_in(monkeypatch, root: Path, home: Path, role="analyst", page="overview"):
    at = _ok(app_test(root, home, monkeypatch, role=role).run())
    if page != "overview":
        at = _ok(open_page(at, page).run())
    return at


def access(home: Path, action: str | None = None) -> list[dict]:
    """The access log, oldest first."""
    return list(reversed(AccessLog(home).entries(action=action)))


def texts(at) -> str:
    parts = [e.value for kind in ("markdown", "caption", "info", "warning", "error", "success")
             for e in getattr(at, kind)]  # fmt: skip
    return "\n".join(str(p) for p in parts)


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def frame_with(at, column: str) -> pd.DataFrame:
    frames = [d.value for d in at.dataframe if column in d.value.columns]
    assert frames, f"no table with a {column!r} column"
    return frames[0]


def sign_in(at, name: str, password: str):
    name_box = next(t for t in at.text_input if t.label == "Name")
    password_box = next(t for t in at.text_input if t.label == "Password")
    name_box.input(name)
    password_box.input(password)
    return next(b for b in at.button if b.label == "Sign in").click().run()


# Sign-in -----------------------------------------------------------------------------------


def test_with_no_users_the_page_says_how_to_create_one(monkeypatch, root, tmp_path):
    at = _ok(app_test(root, tmp_path / "empty-home", monkeypatch).run())
    words = texts(at) + "\n".join(c.value for c in at.code)
    assert "No users yet" in words
    assert "python -m dashboard users add NAME --role admin --password-stdin" in words
    assert not [t for t in at.text_input if t.label == "Password"], "no sign-in that cannot work"


def test_a_wrong_password_or_name_gets_the_same_words_and_is_recorded(monkeypatch, root, home):
    at = _ok(app_test(root, home, monkeypatch).run())
    assert [t.label for t in at.text_input] == ["Name", "Password"]
    at = _ok(sign_in(at, USERS["analyst"], "not the password"))
    assert [e.value for e in at.error] == ["Wrong name or password"]
    at = _ok(sign_in(at, "nobody.here", PASSWORD))
    assert [e.value for e in at.error] == ["Wrong name or password"]
    assert not at.title or at.title[0].value == "Catwalk", "no page behind a failed sign-in"
    failed = access(home, "sign_in_failed")
    assert [e["user"] for e in failed] == [USERS["analyst"], "nobody.here"]
    assert not access(home, "sign_in")


def test_wrong_passwords_make_this_browser_wait_not_the_name(monkeypatch, root, home):
    """Three wrong passwords for the analyst from one browser: that browser must wait, even
    with the right password (not checked), while another browser signs the analyst in at
    once. Each failure is recorded with the client it came from. (AppTest gives every run
    the same session id and no address, so the two browsers are told apart here by the
    address the shell's client_id would read from st.context.ip_address.)"""
    monkeypatch.setattr("dashboard.accounts.BACKOFF_BASE_S", 60.0)  # longer than the test
    monkeypatch.setattr("dashboard.signin.client_id", lambda: "address 10.0.0.66")
    mallory = _ok(app_test(root, home, monkeypatch).run())
    for _ in range(3):
        mallory = _ok(sign_in(mallory, USERS["analyst"], "not the password"))
    assert mallory.error[0].value.startswith("Wrong name or password: too many failed")
    assert "seconds before trying again" in mallory.error[0].value
    mallory = _ok(sign_in(mallory, USERS["analyst"], PASSWORD))
    assert mallory.error[0].value.startswith("Not checked: too many failed sign-ins")
    assert not access(home, "sign_in")
    monkeypatch.setattr("dashboard.signin.client_id", lambda: "address 10.0.0.7")
    analyst = _ok(app_test(root, home, monkeypatch).run())
    analyst = _ok(sign_in(analyst, USERS["analyst"], PASSWORD))
    assert analyst.title[0].value == "Overview"
    failed = access(home, "sign_in_failed")
    assert [e["detail"]["client"] for e in failed] == ["address 10.0.0.66"] * 4
    waits = [e["detail"].get("waiting_s") for e in failed]
    assert waits[:3] == [None, None, None] and 50 <= waits[3] <= 60, waits


def test_signing_in_opens_the_overview_and_is_recorded(monkeypatch, root, home):
    at = _ok(app_test(root, home, monkeypatch).run())
    at = _ok(sign_in(at, USERS["regulator"], PASSWORD))
    assert at.title[0].value == "Overview"
    sidebar = "\n".join(m.value for m in at.sidebar.markdown)
    assert "regulator.one" in sidebar and "(regulator)" in sidebar
    assert "Sign out" in [b.label for b in at.sidebar.button]
    entries = access(home)
    assert [(e["user"], e["action"], e["target"]) for e in entries] == [
        ("regulator.one", "sign_in", ""), ("regulator.one", "page_view", "overview")]
    assert all(e["detail"]["role"] == "regulator" for e in entries)


def test_a_round_link_survives_sign_in_and_opens_the_round_page(monkeypatch, root, home):
    at = _ok(app_test(root, home, monkeypatch, params={"round": "T01-000002"}).run())
    assert [t.label for t in at.text_input] == ["Name", "Password"]
    at = _ok(sign_in(at, USERS["dispute"], PASSWORD))
    assert at.title[0].value == "Round"
    assert at.query_params.get("round") in ("T01-000002", ["T01-000002"])
    views = access(home, "page_view")
    assert [e["target"] for e in views] == ["round"]


def test_a_round_link_opens_the_round_page_from_any_page(monkeypatch, root, home):
    at = app_test(root, home, monkeypatch, role="analyst", params={"round": "T09-000001"})
    at = _ok(open_page(at.run(), "dealers").run())
    assert at.title[0].value == "Round"


def test_signing_out_forgets_the_user(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home)
    at = _ok(next(b for b in at.sidebar.button if b.label == "Sign out").click().run())
    assert [t.label for t in at.text_input] == ["Name", "Password"]
    assert "user" not in at.session_state
    assert [e["action"] for e in access(home)][-1] == "sign_out"


def test_a_user_disabled_since_signing_in_is_signed_out(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home)
    Accounts(home).disable(USERS["analyst"], by="tests")
    at = _ok(at.run())
    assert [t.label for t in at.text_input] == ["Name", "Password"]
    assert "user" not in at.session_state


def test_a_users_file_that_does_not_verify_lets_nobody_in(monkeypatch, root, home):
    users = home / "users.jsonl"
    users.write_text(users.read_text().replace("analyst.one", "analyst.two"))
    at = _ok(app_test(root, home, monkeypatch, role="admin").run())
    assert any("Nobody can sign in" in e.value for e in at.error)
    assert not at.metric and not [t for t in at.text_input if t.label == "Password"]


# The menu, the boundary and the access log -------------------------------------------------


def test_the_pages_are_listed_in_order_and_each_role_sees_its_own():
    specs = load()
    assert [s.name for s in specs] == list(PAGES)
    mine = {s.name: s for s in specs}
    assert (mine["overview"].title, mine["flags"].title, mine["dealers"].title) == (
        "Overview", "Flags", "Dealers and tables")
    assert (mine["overview"].url_path, mine["flags"].url_path, mine["dealers"].url_path) == (
        "overview", "flags", "dealers")
    for role in ROLES:
        assert all(mine[n].visible_to(role) for n in ("overview", "flags", "dealers"))
    access_log = mine["access_log"]
    if access_log.roles is not None:  # helper E's page: regulator and admin only
        assert not access_log.visible_to("analyst") and access_log.visible_to("regulator")


def test_a_page_that_cannot_be_imported_is_listed_with_its_error():
    (broken,) = load(("no_such_page",))
    assert broken.render is None and "cannot be imported" in broken.error
    assert broken.url_path == "no-such-page"


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("page", "title"), [("overview", "Overview"), ("flags", "Flags"),
                                             ("dealers", "Dealers and tables")])
def test_every_role_sees_the_page(monkeypatch, root, home, role, page, title):
    at = signed_in(monkeypatch, root, home, role=role, page=page)
    assert at.title[0].value == title
    assert not at.error, [e.value for e in at.error]
    assert at.dataframe, "the page shows its table"


def test_a_page_view_is_recorded_once_per_visit(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home, page="flags")
    at = _ok(at.text_input(key="flags_search").input("T01").run())
    at = _ok(at.run())
    at = _ok(open_page(at, "dealers").run())
    at = _ok(open_page(at, "flags").run())
    assert [e["target"] for e in access(home, "page_view")] == [
        "overview", "flags", "dealers", "flags"]


def test_when_the_access_log_cannot_be_written_the_page_is_refused(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home)
    log = home / "access.jsonl"
    log.write_text(log.read_text().replace('"page_view"', '"page_vieW"'))
    at = _ok(open_page(at, "flags").run())
    refused = [e.value for e in at.error if "access log cannot be written" in e.value]
    assert refused and "python -m dashboard access verify" in refused[0]
    assert not at.dataframe and not at.title, "nothing of the page is shown"


def test_a_page_that_raises_shows_a_message_not_a_traceback(monkeypatch, root, home):
    def broken(*args, **kwargs):
        raise RuntimeError("the aggregate fell over")

    monkeypatch.setattr(summaries, "headline", broken)
    at = signed_in(monkeypatch, root, home)
    (message,) = [e.value for e in at.error if "page failed" in e.value]
    assert message.startswith("**The Overview page failed**: RuntimeError: ")
    assert "the aggregate fell over" in message and "administrator" in message
    assert "sidebar" not in message and at.sidebar.button, "the shell still stands"


def test_a_flags_file_from_an_older_checks_says_what_to_run(monkeypatch, tmp_path, home):
    write_fixture(tmp_path)  # the flags schema before kind, counted, occurred_at ...
    sign_replay(tmp_path)
    sign_checks(tmp_path)
    at = signed_in(monkeypatch, tmp_path, home, page="flags")
    (message,) = [e.value for e in at.error if "could not read the data" in e.value]
    assert "`counted`" in message and "Run `python -m checks` again" in message


def test_an_empty_data_directory_says_what_to_run(monkeypatch, tmp_path, home):
    for page in ("overview", "flags", "dealers"):
        at = signed_in(monkeypatch, tmp_path / "nothing", home, page=page)
        assert any("No data yet" in i.value and "make demo" in i.value for i in at.info)


# Shared filters ----------------------------------------------------------------------------


def test_the_filters_offer_what_the_rounds_hold_and_follow_the_user(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home)
    boxes = {m.label: m for m in at.sidebar.multiselect}
    assert boxes["Casino"].options == ["c1", "c2"]
    assert boxes["Table"].options == ["T01", "T02", "T09"]
    assert boxes["Dealer"].options == ["d-117", "d-204", "d-300"]
    assert set(boxes["Game"].options) == {"Pai gow poker", "Caribbean stud", "Pai gow tiles"}
    at = _ok(boxes["Casino"].select("c1").run())
    assert metrics(at)["Overpaid"] == "$11.50" and metrics(at)["Underpaid"] == "$15.00"
    assert metrics(at)["Rounds audited"] == "4"
    at = _ok(open_page(at, "flags").run())
    assert at.sidebar.multiselect[0].value == ["c1"], "the filter holds on every page"
    assert set(frame_with(at, "casino")["casino"]) == {"c1"}
    assert len(frame_with(at, "casino")) == 7


def test_a_date_range_narrows_every_figure(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home)
    at = _ok(at.sidebar.date_input[0].set_value((dt.date(2026, 3, 15), dt.date(2026, 3, 15)))
             .run())
    m = metrics(at)
    assert (m["Judged"], m["Not evaluated"]) == ("1", "1")
    assert (m["Overpaid"], m["Underpaid"], m["Money at stake"]) == ("$10.00", "$5.00", "$15.00")
    at = _ok(next(b for b in at.sidebar.button if b.label == "Clear filters").click().run())
    assert metrics(at)["Money at stake"] == EXPECTED["at_stake"]


# Overview ----------------------------------------------------------------------------------


def test_the_overview_counts_rounds_and_keeps_overpaid_and_underpaid_apart(
    monkeypatch, root, home
):
    at = signed_in(monkeypatch, root, home)
    m = metrics(at)
    assert m["Rounds audited"] == "5"
    assert (m["Judged"], m["Not evaluated"]) == ("4", "1")
    assert (m["Rule flags"], m["Statistical leads"]) == ("7", "1")
    assert (m["Overpaid"], m["Underpaid"], m["Money at stake"]) == (
        EXPECTED["overpaid"], EXPECTED["underpaid"], EXPECTED["at_stake"])
    rules, leads = [d.value for d in at.dataframe]
    assert list(rules.columns) == ["check", "title", "severity", "flags", "rounds",
                                   "overpaid", "underpaid"]
    assert list(zip(rules["check"], rules["severity"], rules["flags"], strict=True)) == [
        ("underpay", "critical", 1), ("overpay", "high", 2), ("underpay", "high", 1),
        ("commission_not_taken", "medium", 1), ("not_evaluated", "medium", 1),
        ("underpay", "medium", 1)]
    overpay = rules[rules["check"] == "overpay"].iloc[0]
    assert (overpay["overpaid"], overpay["underpaid"]) == (Decimal("11.50"), Decimal("0.00"))
    commission = rules[rules["check"] == "commission_not_taken"].iloc[0]
    assert commission["overpaid"] == Decimal("0.00"), "a flag not counted adds no money"
    assert leads["check"].tolist() == ["peer_outlier"]
    assert len(at.get("vega_lite_chart")) == 2, "flags and mispaid amounts over time"


def test_the_overview_without_checks_shows_the_rounds_and_what_to_run(
    monkeypatch, root, home
):
    (root / data.FLAGS).unlink()
    at = signed_in(monkeypatch, root, home)
    assert metrics(at) == {"Rounds audited": "5", "Judged": "4", "Not evaluated": "1"}
    assert any("python -m checks" in w.value for w in at.warning)


def test_headline_money_is_exact_integer_cents(root):
    h = summaries.headline(data.connect(), root, Filters(), with_flags=True)
    assert (h.overpaid_cents, h.underpaid_cents, h.at_stake_cents) == (1150, 4000, 5150)
    assert all(type(v) is int for v in (h.overpaid_cents, h.underpaid_cents))
    assert (h.rule_flags, h.leads, h.flagged_rounds) == (7, 1, 5)


def test_the_trend_is_per_hour_over_three_days_at_most_else_per_day(root):
    con = data.connect()
    assert summaries.span_bucket(con, root, Filters()) == "hour", "14th 21:05 to 16th 12:00"
    later = {**ROUND_ROWS[0], "round_id": "T01-000099",
             "dealt_at": dt.datetime(2026, 3, 17, 21, 6, tzinfo=dt.UTC)}
    pq.write_table(pa.Table.from_pylist([*ROUND_ROWS, later], schema=ROUNDS),
                   root / data.ROUNDS)
    assert summaries.span_bucket(data.connect(), root, Filters()) == "day", "3 days 1 minute"
    trend = summaries.flag_trend(con, root, Filters(), "day")
    per_day = trend.groupby(trend["period"].dt.day)[["flags", "overpaid_cents",
                                                      "underpaid_cents"]].sum()
    assert per_day.to_dict("index") == {
        14: {"flags": 4, "overpaid_cents": 150, "underpaid_cents": 1000},
        15: {"flags": 3, "overpaid_cents": 1000, "underpaid_cents": 500},
        16: {"flags": 1, "overpaid_cents": 0, "underpaid_cents": 2500},
    }


# Flags -------------------------------------------------------------------------------------


def test_the_flags_page_lists_every_flag_with_its_columns(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home, page="flags")
    table = frame_with(at, "check")
    assert list(table.columns[:16]) == list(flags_page.COLUMNS)
    assert len(table) == 8 and "**8 flags**" in texts(at)
    first = table.iloc[0]  # newest first: the tiles round of the 16th
    assert (first["severity"], first["check"], first["round"], first["dealer"]) == (
        "critical", "underpay", "T09-000001", "d-300")
    assert (first["recorded"], first["expected"], first["difference"]) == (
        Decimal("-10.00"), Decimal("15.00"), Decimal("-25.00"))
    assert first["detail"] == HOSTILE, "shown as text in a grid cell, never as Markdown"
    assert set(table["case status"]) == {"new"}


def test_money_columns_sort_as_numbers_not_text(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home, page="flags")
    at = _ok(at.selectbox(key="flags_sort").select("difference").run())
    at = _ok(at.toggle(key="flags_descending").set_value(False).run())
    diffs = frame_with(at, "difference")["difference"].tolist()
    assert diffs[:6] == [Decimal(x) for x in ("-25.00", "-10.00", "-5.00", "1.50", "1.50",
                                              "10.00")]
    assert diffs[6:] == [None, None], "flags without money last"
    rows = flag_queries.flag_page(data.connect(), root, Filters(), flag_queries.FlagQuery(
        sort="difference", descending=False), None).rows
    assert rows.schema.field("difference").type == pa.decimal128(38, 2), "numeric in the grid"


@pytest.mark.parametrize(("control", "value", "rounds"), [
    ("flags_search", "d-300", ["T09-000001"]),
    ("flags_search", "COMMISSION", ["T01-000001", "T01-000001"]),
    ("flags_search", "t02-", ["T02-000001", "T02-000001"]),
    ("flags_directions", ["none"], ["T01-000003", "T01-000002"]),
    ("flags_kinds", ["statistical"], ["T01-000002"]),
    ("flags_severities", ["critical"], ["T09-000001"]),
    ("flags_checks", ["overpay"], ["T02-000001", "T01-000001"]),
])  # fmt: skip
def test_the_flags_can_be_filtered_and_searched(monkeypatch, root, home, control, value,
                                                rounds):
    at = signed_in(monkeypatch, root, home, page="flags")
    widget = (at.text_input(key=control) if control == "flags_search"
              else at.multiselect(key=control))
    at = _ok((widget.input(value) if control == "flags_search" else widget.set_value(value))
             .run())
    assert frame_with(at, "round")["round"].tolist() == rounds


def test_the_case_status_comes_from_the_cases_and_can_be_filtered(monkeypatch, root, home):
    analyst = User(name=USERS["analyst"], role="analyst")
    Cases(home).acknowledge(flag_key(FLAG_ROWS[0]), by=analyst)
    Cases(home).dispose(flag_key(FLAG_ROWS[5]), by=analyst, disposition="dealer_error")
    at = signed_in(monkeypatch, root, home, page="flags")
    table = frame_with(at, "case status")
    status = dict(zip(table["key"], table["case status"], strict=True))
    assert status[flag_key(FLAG_ROWS[0])] == "acknowledged"
    assert status[flag_key(FLAG_ROWS[5])] == "resolved"
    assert sum(s == "new" for s in status.values()) == 6
    at = _ok(at.multiselect(key="flags_statuses").set_value(["new"]).run())
    assert len(frame_with(at, "round")) == 6


def test_the_sql_key_is_the_cases_key_even_for_awkward_values(tmp_path):
    awkward = [
        {**FLAG_ROWS[0], "check_id": "a|b", "round_id": "R\\1", "wager": "-"},
        {**FLAG_ROWS[0], "casino": "c|", "seat": None, "wager": None, "direction": None},
        {**FLAG_ROWS[2]},
    ]
    path = tmp_path / "checks" / "flags.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(awkward, schema=FLAG_SCHEMA), path)
    with duckdb.connect() as con:
        keys = [r[0] for r in con.execute(
            f"SELECT {flag_queries.key_sql()} FROM read_parquet(?)", [str(path)]).fetchall()]
    assert keys == [flag_key(f) for f in awkward]
    assert keys[0] == "a\\|b|c1|T01|R\\\\1|3|\\-|over"


def test_a_click_on_a_flag_opens_its_round(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home, page="flags")
    at.session_state[flags_page.TABLE_KEY] = {"selection": {"rows": [1], "columns": [],
                                                            "cells": []}}
    at = _ok(at.run())
    assert at.title[0].value == "Round"
    assert at.query_params.get("round") in ("T02-000001", ["T02-000001"])
    # the same round id may be dealt at several tables: the click names the flag's table
    row = next(r for r in FLAG_ROWS if r["round_id"] == "T02-000001")
    assert at.query_params.get("casino") in (row["casino"], [row["casino"]])
    assert at.query_params.get("table") in (row["table_id"], [row["table_id"]])


def test_new_flags_appear_when_the_checks_write_again(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home, page="flags")
    assert len(frame_with(at, "round")) == 8
    late = {**FLAG_ROWS[3], "check_id": "late_settlement", "title": "Late settlement",
            "seat": 2, "wager": "ante", "detail": "settled after the next round started"}
    pq.write_table(pa.Table.from_pylist([*FLAG_ROWS, late], schema=FLAG_SCHEMA),
                   root / data.FLAGS)
    sign_checks(root)  # as the checks sign what they write
    at = _ok(at.run())
    assert "late_settlement" in frame_with(at, "round")["check"].tolist()
    assert "**9 flags**" in texts(at)


def _ctx(root: Path, home: Path, recorded: list, filters: Filters | None = None
         ) -> PageContext:
    return PageContext(
        root=root, home=home, user=User(name="analyst.one", role="analyst"),
        filters=filters or Filters(),
        con=data.connect(), record=lambda *a, **k: recorded.append((a, k)),
    )


def test_the_export_has_numeric_columns_and_is_recorded(root, home):
    recorded: list = []
    query = flag_queries.FlagQuery(sort="difference", descending=False)
    content = flags_page.export(_ctx(root, home, recorded, Filters(casinos=("c1",))), query,
                                None)
    rows = list(csv.DictReader(io.StringIO(content.decode("utf-8"))))
    assert len(rows) == 7 and list(rows[0]) == list(flag_queries.CSV_COLUMNS)
    first = rows[0]
    assert (first["round_id"], first["difference_cents"], first["difference_dollars"]) == (
        "T01-000002", "-1000", "-10.00")
    assert (first["recorded_dollars"], first["expected_dollars"]) == ("-10.00", "0.00")
    assert first["amount_at_stake_cents"] == "1000" and first["occurred_at"].startswith(
        "2026-03-14T22:10:00")
    assert all("$" not in v and "," not in v
               for r in rows for k, v in r.items() if k.endswith(("_cents", "_dollars")))
    ((action, target), detail) = recorded[0][0], recorded[0][1]
    assert (action, target, detail["rows"]) == ("export", "flags.csv", 7)
    assert detail["filters"]["casinos"] == ["c1"]


def test_text_a_spreadsheet_would_run_is_neutralised_in_the_export(root, home):
    hostile = {**FLAG_ROWS[0], "detail": "=HYPERLINK(\"http://x\")", "dealer_id": "+d"}
    pq.write_table(pa.Table.from_pylist([hostile], schema=FLAG_SCHEMA), root / data.FLAGS)
    sign_checks(root)
    content = flags_page.export(_ctx(root, home, []), flag_queries.FlagQuery(), None)
    (row,) = list(csv.DictReader(io.StringIO(content.decode("utf-8"))))
    assert row["detail"] == "'=HYPERLINK(\"http://x\")" and row["dealer_id"] == "'+d"
    assert row["difference_dollars"] == "1.50", "numbers are left as numbers"


def test_an_export_that_cannot_be_recorded_hands_nothing_over(root, home):
    def refuse(*args, **kwargs):
        raise OSError("No space left on device")

    ctx = PageContext(root=root, home=home, user=User(name="a.b", role="analyst"),
                      filters=Filters(), con=data.connect(), record=refuse)
    with pytest.raises(OSError, match="No space"):
        flags_page.export(ctx, flag_queries.FlagQuery(), None)


def test_the_flag_list_is_paged_with_the_count_of_all(root):
    page = flag_queries.flag_page(data.connect(), root, Filters(), flag_queries.FlagQuery(),
                                  None, limit=3)
    assert (page.total, page.rows.num_rows) == (8, 3)


# Dealers and tables ------------------------------------------------------------------------


def test_per_dealer_error_rate_mispaid_amounts_and_hold(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home, page="dealers")
    table = frame_with(at, "dealer").set_index("dealer")
    d117, d204, d300 = (table.loc[d] for d in ("d-117", "d-204", "d-300"))
    assert (d117["rounds"], d117["judged"], d117["wagers"], d117["mispaid wagers"]) == (
        2, 2, 3, 2)
    assert d117["error rate"] == pytest.approx(2 / 3)
    assert (d117["overpaid"], d117["underpaid"]) == (Decimal("1.50"), Decimal("10.00"))
    assert (d117["wagered"], d117["house win"]) == (Decimal("45.00"), Decimal("-24.75"))
    assert d117["hold"] == pytest.approx(-2475 / 4500)
    assert (d204["rounds"], d204["judged"], d204["wagers"]) == (2, 1, 3), (
        "the wager of the round not evaluated is left out")
    assert (d204["overpaid"], d204["underpaid"]) == (Decimal("10.00"), Decimal("5.00"))
    assert d300["error rate"] == pytest.approx(0.5) and d300["hold"] == pytest.approx(0.025)
    assert at.get("vega_lite_chart"), "a chart over time"


def test_per_table(monkeypatch, root, home):
    at = signed_in(monkeypatch, root, home, page="dealers")
    at = _ok(at.get("button_group")[0].set_value("table").run())
    table = frame_with(at, "table").set_index("table")
    t01 = table.loc["T01"]
    assert (t01["casino"], t01["rounds"], t01["judged"], t01["wagers"]) == ("c1", 3, 2, 3)
    assert (t01["wagered"], t01["house win"]) == (Decimal("60.00"), Decimal("-39.00"))
    assert table.loc["T09", "casino"] == "c2"


def test_group_trend_per_day(root):
    trend = summaries.group_trend(data.connect(), root, Filters(), "dealer", "day",
                                  with_flags=True)
    d204 = trend[trend["dealer_id"] == "d-204"]
    assert d204["rounds"].tolist() == [2] and d204["wagers"].tolist() == [3]
    assert d204["overpaid_cents"].tolist() == [1000]


def test_no_pages_folder_beside_the_app_so_no_page_runs_without_the_shell():
    """A folder named pages/ beside dashboard/app.py puts Streamlit in its legacy multipage
    mode, where a request for /flags runs that file as a script, without the sign-in (seen
    in Chromium on a fresh server). The pages live in dashboard/screens/ for that reason;
    every page is reached through the shell's st.navigation only."""
    app_dir = Path(flags_page.__file__).resolve().parents[1]
    assert (app_dir / "app.py").is_file()
    assert not (app_dir / "pages").exists()
    assert {spec.url_path for spec in load()} == {
        "overview", "flags", "round", "dealers", "integrity", "rulesets", "cases",
        "access-log"}
