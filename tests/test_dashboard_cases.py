"""Cases (dashboard/cases.py): a flag's key stable across re-runs of the checks, its states
and history with who and when, the dispositions and their amounts, and a regulator who can
change nothing."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dashboard.cases import DISPOSITION_WORDS, DISPOSITIONS, CaseError, Cases, flag_key
from dashboard.context import User
from dashboard.journal import JournalError

ANN = User(name="ann", role="analyst")
ROOT = User(name="root", role="admin")
REG = User(name="rita", role="regulator")
DISPUTE = User(name="dee", role="dispute")

FLAG = {"check_id": "overpay", "casino": "C1", "table_id": "T01", "round_id": "T01-000002",
        "seat": 3, "wager": "main", "direction": "over", "amount_at_stake_cents": 2500}
KEY = "overpay|C1|T01|T01-000002|3|main|over"


@pytest.fixture
def cases(tmp_path: Path) -> Cases:
    return Cases(tmp_path / "home")


# flag_key -------------------------------------------------------------------------------------


def test_flag_key_joins_the_flags_coordinates() -> None:
    assert flag_key(FLAG) == KEY


def test_flag_key_writes_missing_values_as_a_dash() -> None:
    flag = {**FLAG, "seat": None, "wager": None, "direction": None}
    assert flag_key(flag) == "overpay|C1|T01|T01-000002|-|-|-"
    assert flag_key({k: v for k, v in flag.items() if k not in ("wager", "direction")}) == \
        "overpay|C1|T01|T01-000002|-|-|-"


def test_flag_key_is_the_same_for_a_seat_read_back_as_a_float_or_nan() -> None:
    """A seat column with nulls comes back from pandas as float64."""
    assert flag_key({**FLAG, "seat": 3.0}) == KEY
    assert flag_key({**FLAG, "seat": math.nan}) == flag_key({**FLAG, "seat": None})


def test_flag_key_reads_rows_as_pandas_gives_them() -> None:
    frame = pd.DataFrame([FLAG, {**FLAG, "seat": None, "wager": None}])
    frame["seat"] = frame["seat"].astype("Int32")
    rows = frame.to_dict("records")
    assert flag_key(rows[0]) == KEY
    assert flag_key(rows[1]) == "overpay|C1|T01|T01-000002|-|-|over"
    assert flag_key({**FLAG, "seat": np.int32(3)}) == KEY


def test_flag_key_escapes_separators_so_two_flags_never_share_a_key() -> None:
    one = flag_key({**FLAG, "casino": "C1|T01", "table_id": "X"})
    two = flag_key({**FLAG, "casino": "C1", "table_id": "T01|X"})
    assert one != two
    assert one == "overpay|C1\\|T01|X|T01-000002|3|main|over"
    assert flag_key({**FLAG, "wager": "-"}) != flag_key({**FLAG, "wager": None})


def test_flag_key_needs_the_check_and_the_round() -> None:
    with pytest.raises(ValueError, match="round_id"):
        flag_key({k: v for k, v in FLAG.items() if k != "round_id"})
    with pytest.raises(ValueError, match="seat is not a whole number"):
        flag_key({**FLAG, "seat": 2.5})


def test_every_disposition_has_plain_words() -> None:
    assert set(DISPOSITION_WORDS) == set(DISPOSITIONS)
    assert DISPOSITIONS == ("dealer_error", "patron_error", "false_alarm", "amount_recovered",
                            "note")


# States and history ---------------------------------------------------------------------------


def test_a_flag_nobody_touched_has_no_case(cases: Cases) -> None:
    assert cases.states() == {}
    assert cases.history(KEY) == []


def test_acknowledge_then_resolve(cases: Cases) -> None:
    cases.acknowledge(KEY, by=ANN, note="looking at the tape")
    state = cases.states()[KEY]
    assert (state.status, state.disposition, state.by, state.entries) == \
        ("acknowledged", None, "ann", 1)
    cases.dispose(KEY, by=ROOT, disposition="dealer_error", note="paid 3:2 on a push")
    state = cases.states()[KEY]
    assert (state.status, state.disposition, state.amount_recovered_cents, state.by,
            state.entries) == ("resolved", "dealer_error", None, "root", 2)
    history = cases.history(KEY)
    assert [(e["action"], e["disposition"], e["by"], e["role"], e["note"]) for e in history] == [
        ("acknowledged", None, "ann", "analyst", "looking at the tape"),
        ("disposed", "dealer_error", "root", "admin", "paid 3:2 on a push")]
    assert history[0]["at"] <= history[1]["at"] == state.at
    assert [e["seq"] for e in history] == [1, 2]


def test_a_note_changes_no_status(cases: Cases) -> None:
    cases.dispose(KEY, by=ANN, disposition="note", note="called the pit boss")
    assert cases.states()[KEY].status == "new"
    cases.acknowledge(KEY, by=ANN)
    cases.dispose(KEY, by=ANN, disposition="note", note="waiting for surveillance video")
    state = cases.states()[KEY]
    assert (state.status, state.disposition, state.entries) == ("acknowledged", None, 3)
    with pytest.raises(CaseError, match="needs some text"):
        cases.dispose(KEY, by=ANN, disposition="note", note="  ")


def test_a_case_may_be_resolved_without_acknowledging_first(cases: Cases) -> None:
    cases.dispose(KEY, by=ANN, disposition="false_alarm")
    assert cases.states()[KEY].status == "resolved"


def test_acknowledging_twice_names_who_did_it(cases: Cases) -> None:
    cases.acknowledge(KEY, by=ANN)
    with pytest.raises(CaseError, match=r"acknowledged already \(latest by ann at "):
        cases.acknowledge(KEY, by=ROOT)
    cases.dispose(KEY, by=ANN, disposition="patron_error")
    with pytest.raises(CaseError, match="resolved already"):
        cases.acknowledge(KEY, by=ROOT)
    assert len(cases.history(KEY)) == 2


def test_a_later_disposition_supersedes_and_history_keeps_both(cases: Cases) -> None:
    cases.dispose(KEY, by=ANN, disposition="dealer_error")
    cases.dispose(KEY, by=ANN, disposition="amount_recovered", amount_recovered_cents=2500)
    state = cases.states()[KEY]
    assert (state.disposition, state.amount_recovered_cents) == ("amount_recovered", 2500)
    cases.dispose(KEY, by=ANN, disposition="false_alarm", note="the tape shows a correct pay")
    state = cases.states()[KEY]
    assert (state.disposition, state.amount_recovered_cents) == ("false_alarm", None)
    assert [e["disposition"] for e in cases.history(KEY)] == [
        "dealer_error", "amount_recovered", "false_alarm"]


def test_states_keep_cases_apart(cases: Cases) -> None:
    other = flag_key({**FLAG, "seat": 4})
    cases.acknowledge(KEY, by=ANN)
    cases.dispose(other, by=ANN, disposition="false_alarm")
    states = cases.states()
    assert {k: s.status for k, s in states.items()} == {KEY: "acknowledged",
                                                        other: "resolved"}
    assert [e["key"] for e in cases.history(other)] == [other]


# Who may change a case ------------------------------------------------------------------------


@pytest.mark.parametrize("user", [REG, DISPUTE])
def test_a_regulator_or_dispute_staff_changes_nothing(cases: Cases, user: User) -> None:
    with pytest.raises(PermissionError, match=f"{user.role}.* may not acknowledge"):
        cases.acknowledge(KEY, by=user)
    with pytest.raises(PermissionError, match="may not record a disposition"):
        cases.dispose(KEY, by=user, disposition="note", note="I was here")
    assert not cases.journal.path.exists()
    assert cases.states() == {}


# Amounts and notes ----------------------------------------------------------------------------


@pytest.mark.parametrize("amount", [None, 0, -5, 2.5, 2500.0, True, "2500", 10**12])
def test_amount_recovered_needs_a_positive_whole_number_of_cents(cases: Cases,
                                                                 amount: object) -> None:
    with pytest.raises(CaseError, match="amount"):
        cases.dispose(KEY, by=ANN, disposition="amount_recovered",
                      amount_recovered_cents=amount)  # type: ignore[arg-type]
    assert cases.history(KEY) == []


def test_the_largest_amount_recovered_is_kept_exactly(cases: Cases) -> None:
    cases.dispose(KEY, by=ANN, disposition="amount_recovered",
                  amount_recovered_cents=10**12 - 1)
    assert cases.states()[KEY].amount_recovered_cents == 999_999_999_999
    assert type(cases.history(KEY)[0]["amount_recovered_cents"]) is int


def test_an_amount_goes_with_amount_recovered_only(cases: Cases) -> None:
    with pytest.raises(CaseError, match="amount_recovered only, not with dealer_error"):
        cases.dispose(KEY, by=ANN, disposition="dealer_error", amount_recovered_cents=100)


def test_an_unknown_disposition_is_refused(cases: Cases) -> None:
    with pytest.raises(CaseError, match="'fraud' is not a disposition"):
        cases.dispose(KEY, by=ANN, disposition="fraud")


def test_notes_are_kept_as_given(cases: Cases) -> None:
    note = "**not bold** <script>x</script> ünïcödé\nsecond line\tand a tab"
    cases.acknowledge(KEY, by=ANN, note=note)
    assert cases.history(KEY)[0]["note"] == note


@pytest.mark.parametrize("note", ["bell\x07", "escape\x1b[31m", "nul\x00", "cr\r", "del\x7f"])
def test_control_characters_in_a_note_are_refused(cases: Cases, note: str) -> None:
    with pytest.raises(CaseError, match="control characters"):
        cases.dispose(KEY, by=ANN, disposition="note", note=note)


def test_a_note_is_at_most_two_thousand_characters(cases: Cases) -> None:
    with pytest.raises(CaseError, match="2,001 characters long; keep it to 2,000"):
        cases.acknowledge(KEY, by=ANN, note="x" * 2001)
    cases.acknowledge(KEY, by=ANN, note="x" * 2000)
    assert cases.states()[KEY].status == "acknowledged"


def test_a_tampered_cases_file_is_named_and_refused(cases: Cases) -> None:
    cases.acknowledge(KEY, by=ANN)
    cases.dispose(KEY, by=ANN, disposition="dealer_error")
    path = cases.journal.path
    path.write_text(path.read_text().replace('"dealer_error"', '"false_alarm"'))
    with pytest.raises(JournalError, match=re.escape(f"{path} line 2: ")):
        cases.states()
    with pytest.raises(JournalError, match="nothing was appended"):
        cases.dispose(KEY, by=ANN, disposition="note", note="more")
