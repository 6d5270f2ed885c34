"""Bidirectional overrides and other invisible format controls in data are shown, visibly,
as ``<U+XXXX>`` (dashboard/views.py :func:`shown`), never passed to the screen where they
would reorder or hide text (Unicode Standard Annex #9; CVE-2021-42574, "Trojan Source").

The pages run under AppTest on a real replayed log (tests/dashboard_round_fixtures.py), with
a user name typed at the sign-in form and an analyst's note that carry the controls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard import views
from dashboard.access import AccessLog
from dashboard.cases import Cases, flag_key
from dashboard.context import User
from tests.dashboard_round_fixtures import run_page, shown, write_pipeline

CONTROLS = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
            "\u2069", "\u200e", "\u200f", "\u061c", "\u200b", "\u2060", "\ufeff", "\u2028",
            "\u2029"]
"""The embeddings, overrides, pops, isolates, marks, zero-width characters and separators."""
REGULATOR = User(name="rita", role="regulator")
ANALYST = User(name="ann", role="analyst")


@pytest.mark.parametrize("control", CONTROLS)
def test_each_control_is_written_as_its_code_point(control: str) -> None:
    made = views.shown(f"T01-000{control}24")
    assert made == f"T01-000<U+{ord(control):04X}>24"
    assert control not in views.literal(f"a{control}b")
    assert control not in views.code(f"a{control}b")
    assert control not in views.text(f"a{control}b")


def test_ordinary_text_is_unchanged() -> None:
    for value in ("T01-000042", "Dealer Zoë 3", "note:\nline two\tend", "شيء", "<U+202E>"):
        assert views.shown(value) == value
    assert views.shown(None) == "" and views.shown(42) == "42"


def test_tables_from_data_show_the_controls() -> None:
    frame = pd.DataFrame({"round": ["T01\u202e-000042"], "seat": [3]})
    out = views.shown_frame(frame)
    assert out["round"].tolist() == ["T01<U+202E>-000042"] and out["seat"].tolist() == [3]
    assert frame["round"].tolist() == ["T01\u202e-000042"], "the data itself is not changed"
    table = views.shown_frame(pa.table({"dealer": ["ann\u2067ie"], "n": [1]}))
    assert table.column("dealer").to_pylist() == ["ann<U+2067>ie"]
    assert table.column("n").to_pylist() == [1]
    flag = {"check_id": "overpay", "round_id": "T01-0\u202e42", "table_id": "T\u200b01",
            "seat": 1, "recorded_cents": 2500, "expected_cents": 2375,
            "amount_at_stake_cents": 125, "direction": "over"}
    row = views.flags_table(pd.DataFrame([flag])).iloc[0]
    assert row["round"] == "T01-0<U+202E>42" and row["table"] == "T<U+200B>01"
    assert "<U+202E>" in views.flag_label(flag)


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bidi") / "data"
    write_pipeline(root)
    return root


@pytest.fixture
def home(pipeline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CATWALK_DATA", str(pipeline))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _everything(at: Any) -> list[str]:
    texts = list(shown(at))
    for frame in at.dataframe:
        value = frame.value
        texts += [str(v) for v in value.astype(str).to_numpy().ravel()]
    return texts


def test_a_typed_user_name_on_the_access_log_page(home: Path) -> None:
    """A failed sign-in records the name as typed: "mallory" + RLO + "gpj.exe" would read
    "mallory" + "exe.jpg" on screen."""
    AccessLog(home).record("mallory\u202egpj.exe", "sign_in_failed")
    at = run_page("dashboard.screens.access_log", REGULATOR)
    assert not at.exception
    texts = _everything(at)
    assert "mallory<U+202E>gpj.exe" in texts
    assert not any(c in t for t in texts for c in CONTROLS)


def test_a_case_note_on_the_cases_page(home: Path, pipeline: Path) -> None:
    flag = next(f for f in pq.read_table(pipeline / "checks" / "flags.parquet").to_pylist()
                if f["check_id"] == "overpay")
    key = flag_key(flag)
    Cases(home).acknowledge(key, by=ANALYST, note="paid \u2067back\u2069 \u202ein full")
    at = run_page("dashboard.screens.cases", ANALYST, params={"flag": key})
    assert not at.exception
    texts = _everything(at)
    assert any("paid <U+2067>back<U+2069> <U+202E>in full" in t for t in texts), texts
    assert not any(c in t for t in texts for c in CONTROLS)
