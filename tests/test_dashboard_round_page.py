"""The Round page on rounds the real pipeline judged (tests/dashboard_round_fixtures.py):
the cards and tiles as pictures, each hand's result and why, the house way, recorded
against required per wager, the timeline with who recorded each event, the flags, the
ruleset, the proof on demand, the dispute report, and one round_view per round shown. The
expected values are worked out by hand from the fixtures' hands and docs/rules.md."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from dashboard.access import AccessLog
from dashboard.context import ROLES, Role, User
from dashboard.screens import round as page
from replay.dispute import round_report
from schemas.keyring import ENV
from tests.dashboard_pages_fixtures import USERS, app_test, write_users
from tests.dashboard_round_fixtures import (
    HOSTILE_RECORDER,
    OVERPAID_ROUND,
    SHARED_ROUND,
    TILES_ROUND,
    UNDERPAID_ROUND,
    UNJUDGED_ROUND,
    copy_data,
    run_page,
    shown,
    write_pipeline,
)
from tests.keyring_support import pin

PAGE = "dashboard.screens.round"
DISPUTE = User(name="dora", role="dispute")


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("round") / "data"
    write_pipeline(root)
    return root


@pytest.fixture
def data(pipeline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(ENV, str(pin(pipeline)))  # the regulator's keyring, outside the data
    monkeypatch.setenv("CATWALK_DATA", str(pipeline))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    return pipeline


@pytest.fixture
def own_data(pipeline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the data for a test that alters it."""
    root = copy_data(pipeline, tmp_path / "data")
    monkeypatch.setenv("CATWALK_DATA", str(root))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    return root


def _open(round_id: str, user: User = DISPUTE, **params: str) -> Any:
    return run_page(PAGE, user, params={"round": round_id, **params})


def _hand(at: Any, who: str) -> str:
    """The HTML of one hand (``Dealer``, ``Seat 3``)."""
    return next(h.proto.body for h in at.html if f"<strong>{who}</strong>" in h.proto.body)


def _labels(markup: str) -> list[str]:
    return re.findall(r'alt="([^"]*)"', markup)


def _wagers(at: Any) -> list[dict[str, Any]]:
    return next(t.value for t in at.table if "required net" in t.value.columns).to_dict(
        "records")


def _views(at: Any) -> list[tuple[str, str, dict[str, Any]]]:
    return [r for r in at.session_state["recorded"] if r[0] == "round_view"]


@pytest.mark.parametrize("role", ROLES)
def test_every_role_opens_a_round_by_link(data: Path, role: Role) -> None:
    at = _open(OVERPAID_ROUND, User(name="u", role=role))
    assert not at.exception
    assert at.title[0].value == "Round"
    assert at.text_input(key="round_id_input").value == OVERPAID_ROUND
    assert _views(at) == [("round_view", OVERPAID_ROUND, {"casino": "C01", "table_id": "T01"})]
    (entry,) = AccessLog(Path(os.environ["CATWALK_DASHBOARD_HOME"])).entries()
    assert (entry["user"], entry["action"], entry["target"], entry["detail"]) == (
        "u", "round_view", OVERPAID_ROUND, {"casino": "C01", "table_id": "T01", "role": role})


def test_the_cards_are_drawn_with_ranks_results_and_why(data: Path) -> None:
    at = _open(OVERPAID_ROUND)
    seat3 = _hand(at, "Seat 3")
    assert _labels(seat3) == ["Kh", "Jh", "8h", "5h", "3h", "7c", "7d"]
    # Each picture is replay/pictures.py's drawing of that card.
    sources = re.findall(r'src="data:image/svg\+xml;base64,([^"]*)"', seat3)
    drawn = [base64.b64decode(s).decode("utf-8") for s in sources]
    assert [re.search(r'aria-label="([^"]*)"', d).group(1) for d in drawn] == _labels(seat3)
    assert all(d.startswith('<svg xmlns="http://www.w3.org/2000/svg" ') for d in drawn)
    # A flush and a pair of sevens against the dealer's pair of aces and K-9: both hands win.
    assert ("<strong>Wins</strong>: high hand: flush, K-J-8-5-3 beats pair of aces, 6-4-2 "
            "kickers; low hand: pair of sevens beats K-9") in seat3
    dealer = _hand(at, "Dealer")
    assert _labels(dealer) == ["Ah", "Ad", "6s", "4h", "2c", "Kc", "9d"]
    assert "House way: followed." in dealer
    assert "pair of aces" in dealer


def test_a_dealer_who_broke_the_house_way_is_shown_the_house_way(data: Path) -> None:
    at = _open(UNDERPAID_ROUND)
    dealer = _hand(at, "Dealer")
    assert "House way: NOT followed." in dealer
    # As set (A-K-Q-J-T / 9-2), then the setting the house way gives, the same seven cards.
    labels = _labels(dealer)
    assert labels[:7] == ["As", "Kd", "Qh", "Jc", "Tc", "9s", "2d"]
    assert sorted(labels[7:]) == sorted(labels[:7])


def test_a_push_collected_as_a_loss_is_underpaid(data: Path) -> None:
    at = _open(UNDERPAID_ROUND)
    # J-8 beats 9-2 but a pair of fours loses to the straight: a push, recorded as a loss.
    assert "<strong>Pushes</strong>" in _hand(at, "Seat 1")
    (wager,) = _wagers(at)
    assert (wager["recorded net"], wager["required net"], wager["difference"]) == (
        "-$10.00", "$0.00", "-$10.00")
    assert "Overpaid \\$0.00, underpaid \\$10.00 (recorded minus required, wager by wager)." \
        in shown(at)


def test_recorded_against_required_per_wager_with_the_difference(data: Path) -> None:
    at = _open(OVERPAID_ROUND)
    assert _wagers(at) == [
        {"who": "seat 2", "wager": "main", "amount": "$5.00", "recorded": "win",
         "recorded net": "+$4.75", "recorded commission": "$0.25", "required": "win",
         "required net": "+$4.75", "required commission": "$0.25", "difference": "$0.00"},
        # $25.00 paid in full where 5% commission ($1.25) is due: +$1.25 overpaid.
        {"who": "seat 3", "wager": "main", "amount": "$25.00", "recorded": "win",
         "recorded net": "+$25.00", "recorded commission": "$0.00", "required": "win",
         "required net": "+$23.75", "required commission": "$1.25", "difference": "+$1.25"},
    ]
    assert "Overpaid \\$1.25, underpaid \\$0.00 (recorded minus required, wager by wager)." \
        in shown(at)
    overpay = [e.value for e in at.error if "`overpay`" in e.value]
    assert len(overpay) == 1
    assert "Recorded \\$25.00, required \\$23.75: overpaid by \\$1.25." in overpay[0]


def test_the_timeline_names_who_recorded_each_event(data: Path) -> None:
    at = _open(OVERPAID_ROUND)
    timeline = next(d.value for d in at.dataframe if "recorded by" in d.value.columns)
    # Start, two wagers, three deals, three settings, two settlements, end.
    assert list(timeline["seq"]) == list(range(1, 13))
    assert set(timeline["recorded by"]) == {"E011"}


def test_tiles_are_drawn_and_hostile_text_stays_text(data: Path) -> None:
    at = _open(TILES_ROUND)
    assert not at.exception
    dealer = _hand(at, "Dealer")
    assert _labels(dealer) == ["6-6", "3-6", "1-3", "2-2"]
    assert dealer.count('class="catwalk-tile"') == 4
    timeline = next(d.value for d in at.dataframe if "recorded by" in d.value.columns)
    assert set(timeline["recorded by"]) == {HOSTILE_RECORDER}
    assert not any("<b>pit</b>" in t or "**boss**" in t for t in shown(at))
    assert not any("<b>pit</b>" in h.proto.body for h in at.html)


def test_a_round_not_evaluated_is_not_judged_never_a_pass(data: Path) -> None:
    at = _open(UNJUDGED_ROUND)
    (warning,) = [w.value for w in at.warning if w.value.startswith("**Not judged**")]
    assert "this is not a pass" in warning
    assert "seat 1's hand was not set" in warning
    seat1 = _hand(at, "Seat 1")
    assert "<strong>Not judged</strong>" in seat1
    assert _wagers(at)[0]["required"] == "not judged"
    assert not [s.value for s in at.success if "No finding" in s.value]


def test_an_unknown_round_says_so_and_points_to_the_flags_page(data: Path) -> None:
    at = _open("T99-000001")
    assert not at.exception
    (warning,) = [w.value for w in at.warning]
    assert warning.startswith("No round `T99-000001` in ")
    assert "Flags page" in warning
    assert _views(at) == []


def test_no_round_asked_shows_the_input_only(data: Path) -> None:
    at = run_page(PAGE, DISPUTE)
    assert at.text_input(key="round_id_input").value == ""
    assert at.caption[0].value.startswith("Type a round id")
    assert _views(at) == []


def test_one_round_view_per_round_shown(data: Path) -> None:
    at = _open(OVERPAID_ROUND)
    at.run()
    at.text_input(key="round_key").input("").run()  # a widget rerun on the same round
    assert len(_views(at)) == 1
    at.text_input(key="round_id_input").input(UNDERPAID_ROUND).run()
    assert [v[1] for v in _views(at)] == [OVERPAID_ROUND, UNDERPAID_ROUND]
    assert any(t == f"Round {UNDERPAID_ROUND}" for t in shown(at))
    at.run()
    assert len(_views(at)) == 2


def test_a_round_id_at_two_tables_asks_which(data: Path) -> None:
    at = _open(SHARED_ROUND)
    assert at.warning[0].value.startswith(f"Round id `{SHARED_ROUND}` was dealt at 2 tables")
    assert _views(at) == []
    at.selectbox(key=f"round_table_{SHARED_ROUND}").select(("C01", "T05")).run()
    facts = dict(next(d.value for d in at.dataframe if "what" in d.value.columns)
                 .itertuples(index=False))
    assert facts["table"] == "T05"
    assert _views(at) == [("round_view", SHARED_ROUND, {"casino": "C01", "table_id": "T05"})]
    linked = _open(SHARED_ROUND, casino="C01", table="T04")
    assert _views(linked) == [("round_view", SHARED_ROUND,
                               {"casino": "C01", "table_id": "T04"})]


def test_the_proof_ties_every_event_to_the_signed_checkpoint(data: Path) -> None:
    at = _open(OVERPAID_ROUND)
    at.button(key="round_prove").click().run()
    assert not at.exception
    (proved,) = [s.value for s in at.success if s.value.startswith("**Proved**")]
    assert "12 of 12 events proved against the checkpoint signed at" in proved
    ((action, target, detail),) = [r for r in at.session_state["recorded"]
                                   if r[0] == "proof_made"]
    assert (action, target, detail["casino"], detail["table"], detail["verified"],
            detail["key"]) == ("proof_made", OVERPAID_ROUND, "C01", "T01", True,
                               "beside the log")
    at.download_button(key="round_report_download").click().run()
    assert [r for r in at.session_state["recorded"] if r[0] == "report_download"] == [
        ("report_download", OVERPAID_ROUND, {"casino": "C01", "table_id": "T01",
                                             "proof": True})]


def test_a_tampered_log_gives_no_proof(own_data: Path) -> None:
    segment = own_data / "log" / "segment-000001.avro"
    raw = bytearray(segment.read_bytes())
    raw[-40] ^= 0xFF
    segment.write_bytes(bytes(raw))
    at = _open(OVERPAID_ROUND)
    at.button(key="round_prove").click().run()
    assert not at.exception
    assert any(e.value.startswith("**Not proved**: `no proof: the log does not verify")
               for e in at.error)
    assert [r[2]["verified"] for r in at.session_state["recorded"]
            if r[0] == "proof_made"] == [False]
    assert not [s for s in at.success if s.value.startswith("**Proved**")]


def test_a_pinned_key_that_is_not_a_key_is_refused(data: Path) -> None:
    at = _open(OVERPAID_ROUND)
    at.text_input(key="round_key").input("nonsense")
    at.button(key="round_prove").click().run()
    assert any(e.value.startswith("Public key: `not a verifier key") for e in at.error)


def test_the_dispute_report_download_is_recorded(data: Path) -> None:
    at = _open(OVERPAID_ROUND)
    assert at.download_button(key="round_report_download").label == "Dispute report"
    at.download_button(key="round_report_download").click().run()
    assert [r for r in at.session_state["recorded"] if r[0] == "report_download"] == [
        ("report_download", OVERPAID_ROUND, {"casino": "C01", "table_id": "T01",
                                             "proof": False})]


def test_the_report_file_name_is_safe(data: Path) -> None:
    report = round_report(data, OVERPAID_ROUND)
    assert report is not None
    assert page.file_name(report) == "dispute-C01-T01-T01-000001.html"
    hostile = type(report)(**{**{f: getattr(report, f) for f in report.__dataclass_fields__},
                              "round_id": "../<b>x</b>/..", "casino": ".."})
    assert re.fullmatch(r"dispute-[A-Za-z0-9_.-]+\.html", page.file_name(hostile))
    assert "/" not in page.file_name(hostile) and ".." not in page.file_name(hostile)


def test_data_from_a_log_that_did_not_verify_is_a_red_error(own_data: Path) -> None:
    path = own_data / "replay" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest.update(verified=False, verification="not verified: record 3 altered")
    from replay.outputs import output_signer, write_signed

    write_signed(path.parent, manifest, output_signer(own_data))  # signed, as replay would
    at = _open(OVERPAID_ROUND)
    assert at.error[0].value.startswith("**Where the data came from**: ")
    assert "NOT VERIFIED: not verified: record 3 altered" in at.error[0].value


def test_no_replay_output_says_what_to_run(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CATWALK_DATA", str(tmp_path / "nothing"))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    at = _open(OVERPAID_ROUND)
    assert not at.exception
    assert at.info[0].value.startswith("No rounds yet in ")


def test_through_the_dashboard_a_link_opens_the_round_and_both_views_are_logged(
        pipeline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole app (dashboard/app.py): a signed-in dispute user follows ?round=ID; the
    shell shows the Round page and the access log holds the page view and the round view."""
    home = tmp_path / "home"
    write_users(home, tmp_path)
    at = app_test(pipeline, home, monkeypatch, role="dispute",
                  params={"round": OVERPAID_ROUND}).run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Round"]
    assert _labels(_hand(at, "Seat 3")) == ["Kh", "Jh", "8h", "5h", "3h", "7c", "7d"]
    logged = [(e["user"], e["action"], e["target"]) for e in AccessLog(home).entries()]
    assert logged == [(USERS["dispute"], "round_view", OVERPAID_ROUND),
                      (USERS["dispute"], "page_view", "round")]


def test_a_tiles_win_shows_the_lawful_range_of_its_vigorish(data: Path) -> None:
    # seat 1's Mooy pair beats the dealer's Teen wong and its Teen wong the dealer's 8: a
    # $7.00 win, vigorish 5% = $0.35, collected rounded up to $0.50; lawful from $0.35 to
    # $0.50, so the net from $6.50 to $6.65 (docs/rules.md 6a.2, 6a.19). The fixture
    # records no settlement.
    at = _open(TILES_ROUND)
    (wager,) = _wagers(at)
    assert (wager["recorded"], wager["required net"], wager["required commission"],
            wager["difference"]) == ("not settled", "+$6.50 (lawful +$6.50 to +$6.65)",
                                     "$0.50 (lawful $0.35 to $0.50)", "")
