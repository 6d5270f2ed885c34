"""The dashboard: money formatting, integer money from DuckDB, the readers of one round, and
the banner every page carries (replay/manifest.json). The shell and the Overview, Flags and
Dealers and tables pages are tested in tests/test_dashboard_pages.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dashboard import banner, data, views
from dashboard.money import format_cents
from schemas.keyring import NOT_PINNED
from tests.dashboard_fixtures import write_fixture
from tests.dashboard_pages_fixtures import (
    APP,
    app_test,
    open_page,
    write_pages_fixture,
    write_users,
)
from tests.outputs_support import pin_outputs_key, sign_checks, sign_replay

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


def write_manifest(root: Path, verified: bool, verification: str = VERIFIED) -> None:
    """``replay/manifest.json`` as replay writes it, signed: whether the log verified, and
    how (and the checks' signed manifest when there are flags)."""
    (root / "replay").mkdir(parents=True, exist_ok=True)
    sign_replay(root, verified=verified, verification=verification)
    if (root / data.FLAGS).exists():
        sign_checks(root)


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


# Provenance: the banner from replay/manifest.json, on every page ----------------------------


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    write_users(path, tmp_path)
    return path


def run_signed_in(monkeypatch, data_dir: Path, home: Path, page: str = "overview"):
    at = app_test(data_dir, home, monkeypatch, role="analyst").run()
    if page != "overview":
        at = open_page(at, page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_data_from_a_verified_log_says_so_quietly(monkeypatch, tmp_path, home) -> None:
    root = write_pages_fixture(tmp_path, manifest=None)
    write_manifest(root, True)
    pin_outputs_key(root, monkeypatch)
    at = run_signed_in(monkeypatch, root, home)
    assert not at.warning and not [e for e in at.error if "verif" in e.value]
    assert (f"Built from a verified log, outputs signed and checked: `{VERIFIED}`"
            in [c.value for c in at.caption])


def test_keys_found_beside_the_data_are_a_warning_not_verified(
    monkeypatch, tmp_path, home
) -> None:
    root = write_pages_fixture(tmp_path, manifest=None)
    write_manifest(root, True)
    at = run_signed_in(monkeypatch, root, home)
    (warning,) = [w for w in at.warning if "key not pinned" in w.value]
    assert warning.value.startswith("**Unverified: key not pinned**: ")
    assert not [c for c in at.caption if c.value.startswith("Built from a verified log")]


@pytest.mark.parametrize("page", ["overview", "flags", "dealers"])
def test_data_from_a_log_that_did_not_verify_has_an_error_banner_on_every_page(
    monkeypatch, tmp_path, home, page: str
) -> None:
    write_pages_fixture(tmp_path, manifest=None)
    line = "segment 3 record 17: hash **mismatch** [fix](javascript:alert(1)) :red[x]"
    write_manifest(tmp_path, False, line)
    at = run_signed_in(monkeypatch, tmp_path, home, page)
    (banner_,) = [e for e in at.error if "verif" in e.value]
    assert at.error[0] == banner_, "the banner comes first"
    assert banner_.value.startswith(f"**{banner.UNVERIFIED}**: ")
    assert banner_.value.startswith("**Built from a log that did not verify**: ")
    assert f"`{line}`" in banner_.value, "the verification line is shown as text (a code span)"
    assert "python -m ingest verify" in banner_.value


def test_data_from_a_log_whose_key_is_not_pinned_says_so(monkeypatch, tmp_path, home) -> None:
    write_pages_fixture(tmp_path, manifest=None)
    line = f"{NOT_PINNED}: OK: 9 records in 3 segments (checked with the key beside the data)"
    (tmp_path / "replay").mkdir(parents=True, exist_ok=True)
    sign_replay(tmp_path, verified=False, verification=line, key_pinned=False)
    at = run_signed_in(monkeypatch, tmp_path, home)
    (banner_,) = [w for w in at.warning if "pinned" in w.value]
    assert banner_.value.startswith("**Unverified: key not pinned**: ")
    assert line in banner_.value and "CATWALK_TRUSTED_KEYS" in banner_.value
    assert not [e for e in at.error if "did not verify" in e.value]
    assert not [c for c in at.caption if c.value.startswith("Built from a verified log")]


def test_data_without_a_manifest_is_not_shown(monkeypatch, tmp_path, home) -> None:
    write_pages_fixture(tmp_path, manifest=None)
    at = run_signed_in(monkeypatch, tmp_path, home)
    (banner_,) = [e for e in at.error if e.value.startswith("**Not shown")]
    assert "(missing)" in banner_.value and "replay/manifest.json is missing" in banner_.value
    assert any("Nothing is shown here" in e.value for e in at.error)
    assert not at.metric, "no figure from untrusted files"


def test_no_data_at_all_is_not_a_provenance_warning(monkeypatch, tmp_path, home) -> None:
    at = run_signed_in(monkeypatch, tmp_path / "empty", home)
    assert not [w for w in at.warning if "Provenance" in w.value]
    assert not at.error
    assert any("No data yet" in i.value and "make demo" in i.value for i in at.info)


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b'{"verified": "yes", "verification": "ok"}', "unsigned"),
        (b'{"verification": "ok"}', "unsigned"),
        (b"[true]", "is not a JSON object"),
        (b"{not json", "is not JSON"),
        (b"\xff\xfe", "is not JSON"),
        (b"[" * 60_000, "is not JSON"),
        (b" " * (1 << 16 + 1), "is not JSON"),
        (b'{"format": "catwalk-replay-manifest/1", "verified": true}',
         "unsigned: written before outputs were signed"),
    ],
)
def test_a_manifest_that_cannot_be_trusted_is_never_verified(
    monkeypatch, tmp_path, home, content: bytes, why: str
) -> None:
    write_pages_fixture(tmp_path, manifest=None)
    (tmp_path / data.MANIFEST).write_bytes(content)
    known = data.provenance(tmp_path)
    assert known.state in ("tampered", "unsigned") and not known.shown
    assert why in " ".join(known.reasons) + known.line
    at = run_signed_in(monkeypatch, tmp_path, home)
    assert any(e.value.startswith("**Not shown: the data cannot be trusted**") for e in at.error)
    assert not at.metric


def test_provenance_reads_the_signed_manifest(tmp_path, monkeypatch) -> None:
    assert data.provenance(tmp_path).state == "missing"
    assert not data.provenance(tmp_path).shown
    write_manifest(tmp_path, True, "log verified:\n 12 segments")
    pin_outputs_key(tmp_path, monkeypatch)
    known = data.provenance(tmp_path)
    assert (known.state, known.line, known.shown) == ("verified", "log verified: 12 segments",
                                                      True)
    write_manifest(tmp_path, False, "record 9 altered")
    known = data.provenance(tmp_path)
    assert (known.state, known.line, known.shown) == ("unverified-log", "record 9 altered",
                                                      True)


def test_data_replay_later_refused_to_replace_has_the_error_banner(
    monkeypatch, tmp_path, home
) -> None:
    """The manifest says verified, but a later replay refused the log (the live loop, after
    a segment was edited): fail closed, the banner says the log no longer verifies."""
    from replay.refusal import mark_refused

    root = write_pages_fixture(tmp_path, manifest=None)
    write_manifest(root, True)
    mark_refused(root / "replay", "the log does not verify: segment-000002.avro **altered**")
    at = run_signed_in(monkeypatch, root, home)
    (banner_,) = [e for e in at.error if "verif" in e.value]
    assert banner_.value.startswith("**Built from a log that did not verify**: ")
    assert "the log no longer verifies: a later replay refused it at " in banner_.value
    assert "segment-000002.avro **altered**" in banner_.value  # inside the code span
    assert "First refused at " in banner_.value
    assert not [c for c in at.caption if c.value.startswith("Built from a verified log")]
