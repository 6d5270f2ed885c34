"""The dispute reconstruction shows the facts of schema id 3 in words: the changed hand, the
hands collected, the shuffle and the bank passing, in the table's order, in the text and the
HTML report. The data: a signed log holding one hand-built player-banked round, verified and
replayed as ``python -m replay`` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from checks.runner import run_all
from replay.__main__ import main as replay_main
from replay.dispute import report_html, report_text, round_report
from schemas import encode
from schemas.keyring import ENV
from tests.events_factory import Table
from tests.keyring_support import pin
from tests.test_replay_v3 import _banked
from tests.test_replay_workers import _write


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory):
    root: Path = tmp_path_factory.mktemp("dispute_v3")
    t = Table("T90")
    events = [*_banked(t, "R-1", change_before_banker=True),
              *_banked(t, "R-2", change_before_banker=False)]
    _write(root, [(e.table_id.encode(), encode(e)) for e in events])
    assert replay_main(["--data", str(root), "--key", str(root / "keys" / "signing.pub")]) == 0
    run_all(root / "replay", root / "checks")
    with pytest.MonkeyPatch.context() as env:
        env.setenv(ENV, str(pin(root)))
        yield root


WORDS = ["dealer changed seat 1's hand to high Ks Kh 7c 6s 3d, low Jh Tc",
         "seat 1's cards collected", "deck changed to D-17",
         "the bank passes to seat 4: rotation"]


def test_the_report_lists_the_new_events_in_words_in_the_tables_order(data):
    report = round_report(data, "R-1", casino="C01", table_id="T90")
    assert report is not None
    summaries = [e.summary for e in report.timeline]
    assert [s for s in summaries if s in WORDS] == WORDS
    assert [e.event for e in report.timeline if e.summary in WORDS] == [
        "hand changed", "hand collected", "shuffled", "bank passed"]
    text = report_text(report)
    page = report_html(report)
    for words in WORDS:
        assert words in text
        assert words.replace("'", "&#x27;") in page


def test_the_report_of_an_unlawful_change_shows_it_and_its_problem(data):
    report = round_report(data, "R-2", casino="C01", table_id="T90")
    assert report is not None
    assert WORDS[0] in [e.summary for e in report.timeline]
    text = report_text(report)
    assert "procedure (9) permits no change once the banker's hand is exposed" in text
