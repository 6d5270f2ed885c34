"""The dashboard: money formatting, integer money from DuckDB, and the page under AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import data, views
from dashboard.money import format_cents
from tests.dashboard_fixtures import FLAGS_SCHEMA, write_fixture

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"


# Money as text -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cents", "text"),
    [
        (0, "$0.00"),
        (5, "$0.05"),
        (-1, "-$0.01"),
        (2375, "$23.75"),
        (-2500, "-$25.00"),
        (100000, "$1,000.00"),
        (-123456789, "-$1,234,567.89"),
        (np.int64(2500), "$25.00"),
    ],
)
def test_format_cents(cents: int, text: str) -> None:
    assert format_cents(cents) == text


@pytest.mark.parametrize(("cents", "text"), [(125, "+$1.25"), (0, "$0.00"), (-5, "-$0.05")])
def test_format_cents_signed_marks_overpay_with_plus(cents: int, text: str) -> None:
    assert format_cents(cents, signed=True) == text


@pytest.mark.parametrize("bad", [23.75, 2375.0, True, "2375", None])
def test_format_cents_refuses_anything_but_integer_cents(bad: object) -> None:
    with pytest.raises(TypeError, match="integer cents"):
        format_cents(bad)  # type: ignore[arg-type]


# Data access -------------------------------------------------------------------------------


VERIFIED = "log verified: 3 segments, 10,322 records, hash chain intact"


def write_manifest(root: Path, verified: object, verification: str = VERIFIED) -> None:
    """``replay/manifest.json`` as replay writes it: whether the log verified, and how."""
    path = root / data.MANIFEST
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"verified": verified, "verification": verification}))


@pytest.fixture
def fixture_dir(tmp_path: Path) -> tuple[Path, dict]:
    fx = write_fixture(tmp_path)
    write_manifest(tmp_path, True)
    return tmp_path, fx


def _assert_integer_money(frame: pd.DataFrame, columns: tuple[str, ...]) -> None:
    for column in columns:
        dtype = frame[column].dtype
        assert pd.api.types.is_integer_dtype(dtype), f"{column} came back as {dtype}"
        assert not pd.api.types.is_float_dtype(dtype), f"{column} came back as {dtype}"


def test_money_columns_come_back_as_integers_even_with_nulls(fixture_dir) -> None:
    root, fx = fixture_dir
    con = data.connect()
    flags = data.flags(con, root)
    _assert_integer_money(flags, data.MONEY_COLUMNS["flags"])
    assert flags["recorded_cents"].isna().any(), "fixture has a round-level flag without money"
    unjudged = data.wagers(con, root, fx["not_evaluated_round"])
    _assert_integer_money(unjudged, data.MONEY_COLUMNS["wagers"])
    assert unjudged["expected_net_cents"].isna().all()
    judged = data.wagers(con, root, fx["flagged_round"])
    _assert_integer_money(judged, data.MONEY_COLUMNS["wagers"])
    seat = judged[judged["seat"] == fx["flagged_seat"]].iloc[0]
    assert (seat["recorded_net_cents"], seat["expected_net_cents"]) == (2500, 2375)


def test_totals_are_python_ints_not_hugeint_floats(fixture_dir) -> None:
    root, fx = fixture_dir
    con = data.connect()
    count, over, under = data.flag_totals(con, root)
    assert (count, over, under) == (fx["flag_count"], 125, 0)
    assert type(over) is int and type(under) is int
    assert data.round_counts(con, root) == (2, 1)


def test_round_info_reads_one_round_and_renders_utc(fixture_dir) -> None:
    root, fx = fixture_dir
    info = data.round_info(data.connect(), root, fx["flagged_round"])
    assert info is not None
    assert info["dealt_at"] == "2026-03-14 21:07:33 UTC"
    assert info["notation"].startswith("t1-000042 pai_gow_poker D=AsKdQhJcTc/9s2d")
    assert data.round_info(data.connect(), root, "t9-999999") is None


def test_hands_come_dealer_first(fixture_dir) -> None:
    root, fx = fixture_dir
    hands = data.hands(data.connect(), root, fx["flagged_round"])
    assert hands["position"].tolist() == ["dealer", "seat 1", "seat 3"]


def test_data_dir_defaults_to_var_at_the_repository_root(monkeypatch) -> None:
    monkeypatch.delenv(data.DATA_ENV, raising=False)
    assert data.data_dir() == APP.parents[1] / "var"
    monkeypatch.setenv(data.DATA_ENV, "/srv/catwalk")
    assert data.data_dir() == Path("/srv/catwalk")


# The page ----------------------------------------------------------------------------------


def run_app(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> AppTest:
    monkeypatch.setenv(data.DATA_ENV, str(data_dir))
    at = AppTest.from_file(str(APP), default_timeout=30).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at: AppTest) -> str:
    parts = [e.value for kind in ("markdown", "caption", "info", "warning", "error", "success")
             for e in getattr(at, kind)]  # fmt: skip
    parts += [e.value for e in at.code] + [s.value for s in at.subheader]
    return "\n".join(str(p) for p in parts)


def _frame_with(at: AppTest, column: str) -> pd.DataFrame:
    frames = [d.value for d in [*at.dataframe, *at.table] if column in d.value.columns]
    assert frames, f"no table with a {column!r} column"
    return frames[0]


def test_page_lists_the_flags_and_reconstructs_the_flagged_round(monkeypatch, fixture_dir):
    root, fx = fixture_dir
    at = run_app(monkeypatch, root)
    assert at.title[0].value == "Catwalk: flags"
    summary = at.markdown[0].value
    assert f"{fx['flag_count']} flags" in summary
    assert "2 rounds judged" in summary and "1 not evaluated" in summary
    assert "overpaid **$1.25**" in summary and "underpaid **$0.00**" in summary

    flags = _frame_with(at, "check")
    assert fx["flagged_round"] in flags["round"].tolist()
    overpay = flags[flags["round"] == fx["flagged_round"]].iloc[0]
    assert (overpay["recorded"], overpay["expected"], overpay["difference"]) == (
        "$25.00", "$23.75", "+$1.25",
    )  # fmt: skip

    picker = at.selectbox(key="flag")
    label = next(o for o in picker.options if o.startswith(fx["flagged_round"]))
    assert "seat 3" in label and "+$1.25" in label
    at = picker.select(label).run()
    assert not at.exception

    assert f"Round {fx['flagged_round']}" in [s.value for s in at.subheader]
    assert at.code[0].value.startswith(fx["flagged_round"])
    hands = _frame_with(at, "cards")
    assert hands["cards"].tolist() == [
        fx["dealer_cards"],
        "4c 4d 8s 6c 3d Js 5s",
        fx["flagged_cards"],
    ]
    dealer = hands.iloc[0]
    assert dealer["position"] == "dealer" and dealer["house way followed"] == "yes"
    assert dealer["house way high hand"] == "As Kd Qh Jc Tc"
    seat3 = hands[hands["position"] == "seat 3"].iloc[0]
    assert (seat3["high hand"], seat3["low hand"]) == ("Kh Jh 8h 5h 3h", "7c 7d")
    assert (seat3["high hand rank"], seat3["low hand rank"], seat3["foul"]) == (
        "flush, king high", "pair of sevens", "no",
    )  # fmt: skip

    wagers = _frame_with(at, "recorded net")
    flagged = wagers[wagers["seat"] == str(fx["flagged_seat"])].iloc[0]
    assert flagged["flag"] == "overpay"
    assert (flagged["recorded net"], flagged["expected net"]) == (fx["recorded"], fx["expected"])
    assert (flagged["expected commission"], flagged["difference"]) == ("$1.25", "+$1.25")
    assert wagers[wagers["seat"] == "1"].iloc[0]["flag"] == ""
    assert "overpaid by $1.25" in _texts(at)


def test_a_round_flagged_as_not_evaluated_says_so(monkeypatch, fixture_dir):
    root, fx = fixture_dir
    at = run_app(monkeypatch, root)
    picker = at.selectbox(key="flag")
    label = next(o for o in picker.options if o.startswith(fx["not_evaluated_round"]))
    at = picker.select(label).run()
    assert not at.exception
    texts = _texts(at)
    assert "Not evaluated: seat 1: cards dealt but no hand set" in texts
    assert "not a pass" in texts
    wagers = _frame_with(at, "recorded net")
    row = wagers.iloc[0]
    assert (row["recorded net"], row["expected net"], row["difference"]) == ("$14.25", "", "")


def test_any_round_can_be_looked_up_by_id_and_a_flag_choice_clears_it(monkeypatch, fixture_dir):
    root, fx = fixture_dir
    at = run_app(monkeypatch, root)
    at = at.text_input(key="round").input(f" {fx['unflagged_round']} ").run()
    assert not at.exception
    assert f"Round {fx['unflagged_round']}" in [s.value for s in at.subheader]
    hands = _frame_with(at, "cards")
    assert fx["unflagged_cards"] in hands["cards"].tolist()
    fouled = hands[hands["position"] == "seat 5"].iloc[0]
    assert fouled["foul"] == "yes"
    assert at.selectbox(key="flag").value is None, "a typed round lets go of the chosen flag"
    assert not at.warning

    picker = at.selectbox(key="flag")
    at = picker.select(picker.options[0]).run()
    assert not at.exception and not at.warning
    assert at.text_input(key="round").value == ""
    assert f"Round {fx['flagged_round']}" in [s.value for s in at.subheader]

    at = at.text_input(key="round").input(fx["unflagged_round"]).run()
    at = at.text_input(key="round").input("").run()
    assert (
        not at.exception and not at.subheader and "Choose a flag or enter a round id" in _texts(at)
    )


def test_an_unknown_round_id_is_a_plain_message(monkeypatch, fixture_dir):
    root, _ = fixture_dir
    at = run_app(monkeypatch, root)
    at = at.text_input(key="round").input("t9-999999").run()
    assert not at.exception
    assert "No round `t9-999999`" in _texts(at)


def test_an_empty_data_dir_says_what_to_run(monkeypatch, tmp_path):
    at = run_app(monkeypatch, tmp_path)
    message = " ".join(i.value for i in at.info)
    assert "No data yet" in message and "make demo" in message and "python -m replay" in message
    assert not at.dataframe and not at.selectbox


def test_empty_files_say_there_are_no_rounds_yet(monkeypatch, tmp_path):
    write_fixture(tmp_path, empty=True)
    at = run_app(monkeypatch, tmp_path)
    message = " ".join(i.value for i in at.info)
    assert "No rounds yet" in message and "make demo" in message


def test_replay_without_checks_still_reconstructs_rounds(monkeypatch, tmp_path):
    fx = write_fixture(tmp_path)
    (tmp_path / data.FLAGS).unlink()
    at = run_app(monkeypatch, tmp_path)
    assert "python -m checks" in _texts(at)
    assert not at.selectbox
    at = at.text_input(key="round").input(fx["flagged_round"]).run()
    assert not at.exception
    wagers = _frame_with(at, "recorded net")
    assert "$23.75" in wagers["expected net"].tolist()


def test_checks_that_found_nothing_say_so(monkeypatch, tmp_path):
    fx = write_fixture(tmp_path)
    pq.write_table(FLAGS_SCHEMA.empty_table(), tmp_path / data.FLAGS)
    at = run_app(monkeypatch, tmp_path)
    assert "No flags" in " ".join(s.value for s in at.success)
    assert "0 flags" in at.markdown[0].value and "$0.00" in at.markdown[0].value
    at = at.text_input(key="round").input(fx["flagged_round"]).run()
    assert f"Round {fx['flagged_round']}" in [s.value for s in at.subheader]


def test_missing_replay_file_is_named(monkeypatch, tmp_path):
    write_fixture(tmp_path)
    (tmp_path / data.HANDS).unlink()
    at = run_app(monkeypatch, tmp_path)
    assert "replay/hands.parquet" in _texts(at)


def test_a_corrupt_file_is_an_error_message_not_a_traceback(monkeypatch, tmp_path):
    write_fixture(tmp_path)
    (tmp_path / data.FLAGS).write_bytes(b"half written")
    at = run_app(monkeypatch, tmp_path)
    errors = " ".join(e.value for e in at.error)
    assert "Could not read the data" in errors and "make demo" in errors


# Views -------------------------------------------------------------------------------------


def test_absent_money_is_a_blank_cell_not_nan() -> None:
    assert views.money(pd.NA) == "" and views.money(None) == ""
    assert views.money(np.int64(-1000)) == "-$10.00"


def test_flag_sentence_names_the_direction_of_a_wrong_net() -> None:
    flag = {
        "check_id": "underpay", "title": "Underpay", "severity": "high", "seat": 4,
        "recorded_cents": 900, "expected_cents": 950, "amount_at_stake_cents": 50,
        "direction": "under", "detail": None,
    }  # fmt: skip
    assert views.flag_sentence(flag) == (
        "Seat 4: Underpay (underpay, severity high). "
        "Recorded $9.00, expected $9.50: underpaid by $0.50."
    )
    even = {**flag, "recorded_cents": 950, "amount_at_stake_cents": 0, "direction": None}
    assert views.flag_sentence(even).endswith("Recorded $9.50, expected $9.50.")


# Provenance: the banner from replay/manifest.json ------------------------------------------


def test_data_from_a_verified_log_says_so_quietly(monkeypatch, fixture_dir) -> None:
    root, _ = fixture_dir
    at = run_app(monkeypatch, root)
    assert not at.warning and not [e for e in at.error if "verif" in e.value]
    assert f"Built from a verified log: `{VERIFIED}`" in [c.value for c in at.caption]


def test_data_from_a_log_that_did_not_verify_has_an_error_banner(monkeypatch, tmp_path) -> None:
    write_fixture(tmp_path)
    line = "segment 3 record 17: hash **mismatch** [fix](javascript:alert(1)) :red[x]"
    write_manifest(tmp_path, False, line)
    at = run_app(monkeypatch, tmp_path)
    (banner,) = [e for e in at.error if "verif" in e.value]
    assert at.error[0] == banner, "the banner comes first"
    assert banner.value.startswith("**Built from a log that did not verify**: ")
    assert f"`{line}`" in banner.value, "the verification line is shown as text (a code span)"
    assert "python -m ingest verify" in banner.value
    at = at.text_input(key="round").input("t1-000041").run()
    assert any("did not verify" in e.value for e in at.error), "the banner stays on every view"


def test_data_without_a_manifest_warns_that_provenance_is_unknown(monkeypatch, tmp_path) -> None:
    write_fixture(tmp_path)
    at = run_app(monkeypatch, tmp_path)
    (banner,) = at.warning
    assert "Provenance unknown" in banner.value and "replay/manifest.json" in banner.value
    assert not [e for e in at.error if "Provenance" in e.value]


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b'{"verified": "yes", "verification": "ok"}', '"verified": true or false'),
        (b'{"verification": "ok"}', '"verified": true or false'),
        (b"[true]", "is not a JSON object"),
        (b"{not json", "is not JSON"),
        (b"\xff\xfe", "is not JSON"),
        (b"[" * 60_000, "is not JSON"),
        (b" " * (data.MANIFEST_MAX_BYTES + 1), "larger than 65,536 bytes"),
    ],
)
def test_a_manifest_that_cannot_be_trusted_is_never_verified(
    monkeypatch, tmp_path, content: bytes, why: str
) -> None:
    write_fixture(tmp_path)
    (tmp_path / data.MANIFEST).write_bytes(content)
    known = data.provenance(tmp_path)
    assert known.state == "unreadable" and why in known.line
    at = run_app(monkeypatch, tmp_path)
    assert any("Provenance unknown" in e.value and "unverified" in e.value for e in at.error)


def test_provenance_reads_the_manifest(tmp_path) -> None:
    assert data.provenance(tmp_path) == data.Provenance("unknown")
    write_manifest(tmp_path, True, "log verified:\n 12 segments")
    assert data.provenance(tmp_path) == data.Provenance("verified", "log verified: 12 segments")
    write_manifest(tmp_path, False, "record 9 altered")
    assert data.provenance(tmp_path) == data.Provenance("unverified", "record 9 altered")
