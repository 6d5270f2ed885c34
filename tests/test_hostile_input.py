"""Hostile input (every command answers it with a clear error and exit 2, never a
traceback): round documents built to hurt `python -m replay adjudicate`, and
event text built to be rendered as Markdown or HTML by the dashboard.

adjudicate must answer every one with a one-line error naming the file, the line and the
limit, exit code 2 and no traceback; the dashboard must show text from the log as text.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import views
from replay.adjudicate import Refused, judge_lines, loads, nesting_refused, read_documents
from replay.document import MAX_DEPTH, MAX_DOCUMENT_BYTES, shown
from tests.conftest import REPO

GOOD = {
    "round_id": "r-17", "game": "pai_gow_poker", "banker": "dealer",
    "dealer": {"cards": ["Kc", "Kd", "9s", "7h", "3c", "Ah", "Qs"],
               "high": ["Kc", "Kd", "9s", "7h", "3c"], "low": ["Ah", "Qs"]},
    "seats": [{"seat": 1, "cards": ["5s", "5h", "5d", "Tc", "2c", "As", "Kh"],
               "high": ["5s", "5h", "5d", "Tc", "2c"], "low": ["As", "Kh"],
               "wagers": {"main": 2500}}],
}  # fmt: skip


def _adjudicate(data_in: bytes, *args: str) -> subprocess.CompletedProcess[str]:
    """Run adjudicate on ``args`` (default: standard input, fed ``data_in``)."""
    return _decoded(subprocess.run(
        [sys.executable, "-m", "replay", "adjudicate", *(args or ("-",))], input=data_in,
        capture_output=True, cwd=REPO, timeout=120, check=False))


def _decoded(proc: subprocess.CompletedProcess[bytes]) -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(proc.args, proc.returncode,
                                       proc.stdout.decode("utf-8", "replace"),
                                       proc.stderr.decode("utf-8", "replace"))


def _one_clear_error(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    assert proc.returncode == 2, proc
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr[:2000]
    assert len(lines[0]) < 700, lines[0][:2000]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _doc(**changes: Any) -> dict[str, Any]:
    doc = json.loads(json.dumps(GOOD))
    doc.update(changes)
    return doc


# adjudicate: one error line, exit code 2, never a traceback --------------------------------


def test_100000_open_brackets_are_refused_before_parsing() -> None:
    err = _one_clear_error(_adjudicate(b"[" * 100_000 + b"\n"),
                           "- line 1", f"nested more than {MAX_DEPTH} deep", "column 65")
    assert err.startswith("adjudicate: - line 1: round <not read>:")


def test_deep_nesting_inside_a_pretty_printed_document_names_line_and_column() -> None:
    text = '{\n  "round_id": "r-1",\n  "seats": ' + "[" * 200 + "\n}\n"
    # the document's "{" is the first level, so the 64th "[" (column 11 + 64) is one too many
    _one_clear_error(_adjudicate(text.encode()), "- line 3:", "column 75", "nested more than")


@pytest.mark.parametrize("digits", [25, 4_000, 5_000, 100_000])
def test_integers_of_thousands_of_digits_are_refused(digits: int) -> None:
    doc = json.dumps(GOOD).replace('"main": 2500', '"main": ' + "9" * digits)
    _one_clear_error(_adjudicate(doc.encode() + b"\n"), "- line 1",
                     f"an integer of {digits:,} digits", "at most 19 digits")


def test_cents_beyond_64_bits_are_refused_by_the_reader() -> None:
    doc = json.dumps(GOOD).replace('"main": 2500', '"main": 9999999999999999999')
    _one_clear_error(_adjudicate(doc.encode() + b"\n"), "round r-17",
                     "seat 1 wagers.main is more than 9,223,372,036,854,775,807 cents")


@pytest.mark.parametrize("amount", ["25.0", "2500.5", "2.5e3", "-0.0", "1e400"])
def test_floats_where_cents_are_required_are_refused(amount: str) -> None:
    doc = json.dumps(GOOD).replace('"main": 2500', f'"main": {amount}')
    _one_clear_error(_adjudicate(doc.encode() + b"\n"), "round r-17",
                     "seat 1 wagers.main must be non-negative integer cents")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json_numbers(constant: str) -> None:
    doc = json.dumps(GOOD).replace('"main": 2500', f'"main": {constant}')
    _one_clear_error(_adjudicate(doc.encode() + b"\n"), f"{constant} is not a JSON number")


def test_a_file_that_is_not_utf8_names_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(json.dumps(_doc(round_id="caf\u00e9"), ensure_ascii=False)
                     .encode("latin-1") + b"\n")
    _one_clear_error(_adjudicate(b"", str(path)), f"{path} line 1", "not UTF-8",
                     "byte 0xe9 at column 18")


def test_a_missing_file_and_a_directory_say_what_to_give(tmp_path: Path) -> None:
    _one_clear_error(_adjudicate(b"", str(tmp_path / "nope.jsonl")), "cannot read",
                     "No such file", "or - for standard input")
    _one_clear_error(_adjudicate(b"", str(tmp_path)), "cannot read", str(tmp_path),
                     "Is a directory")


def test_lines_that_are_not_objects_are_named_and_the_rest_still_judged() -> None:
    lines = ["[1, 2]", '"text"', "42", "null", json.dumps(GOOD), "true"]
    proc = _adjudicate(("\n".join(lines) + "\n").encode())
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert [json.loads(line)["round_id"] for line in proc.stdout.splitlines()] == ["r-17"]
    err = proc.stderr.splitlines()
    assert [e.split(":")[1] for e in err] == [" - line 1", " - line 2", " - line 3",
                                               " - line 4", " - line 6"]
    assert all("must be a JSON object" in e for e in err)


def test_a_line_longer_than_the_limit_is_skipped_and_the_next_judged() -> None:
    huge = json.dumps(_doc(round_id="x" * (3 * MAX_DOCUMENT_BYTES))).encode()
    proc = _adjudicate(huge + b"\n" + json.dumps(GOOD).encode() + b"\n")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [
        "adjudicate: - line 1: round <not read>: the line is longer than 1 MiB, the limit for "
        "one round document; it was skipped (JSON lines hold one document per line)"]
    assert json.loads(proc.stdout)["round_id"] == "r-17"


def test_a_pretty_printed_document_over_the_limit_is_one_error() -> None:
    pretty = json.dumps(_doc(round_id="y" * (2 * MAX_DOCUMENT_BYTES)), indent=2).encode()
    _one_clear_error(_adjudicate(pretty), "- line 1", "one JSON document", "longer than 1 MiB")


def test_a_value_of_a_megabyte_is_quoted_short_and_control_characters_escaped() -> None:
    doc = _doc(round_id="r-\x1b[31mred\nnext", seats="A" * (MAX_DOCUMENT_BYTES // 2))
    err = _one_clear_error(_adjudicate(json.dumps(doc).encode() + b"\n"),
                           r"round r-\x1b[31mred\nnext", "seats must be a list")
    assert "AAAA...AAAA" in err and "\x1b" not in err


def test_good_documents_judge_as_before_pretty_printed_crlf_and_with_a_bom() -> None:
    one = _adjudicate(json.dumps(GOOD).encode() + b"\n")
    assert one.returncode == 0 and one.stderr == ""
    pretty = _adjudicate(json.dumps(GOOD, indent=2).encode())
    crlf = _adjudicate((json.dumps(GOOD) + "\r\n" + json.dumps(GOOD) + "\r\n").encode())
    bom = _adjudicate(b"\xef\xbb\xbf" + json.dumps(GOOD).encode())
    assert pretty.stdout == bom.stdout == one.stdout and crlf.stdout == one.stdout * 2
    assert pretty.returncode == crlf.returncode == bom.returncode == 0


def test_help_states_the_limits() -> None:
    proc = subprocess.run([sys.executable, "-m", "replay", "adjudicate", "--help"],
                          capture_output=True, text=True, cwd=REPO, timeout=120, check=False)
    flat = " ".join(proc.stdout.split())
    assert proc.returncode == 0
    assert "at most 1 MiB per document or per line of JSON lines" in flat
    assert f"nesting at most {MAX_DEPTH} deep" in flat and "at most 19 digits" in flat


# The reader, in process --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "deep_at"),
    [
        ("[" * 65, 64),
        ("[" * 64 + "]" * 64, None),
        ('["' + "[" * 100 + '"]', None),  # brackets inside a string do not nest
        ('["\\"' + "[" * 100 + '"]', None),  # nor after an escaped quote
        ('["\\\\"' + "[" * 70, 68),  # an escaped backslash ends the string: 5 + 63
        ("{" * 30 + '"a":' + "[" * 40, 68),  # objects count too: 34 + 34
    ],
)
def test_nesting_is_counted_outside_strings(text: str, deep_at: int | None) -> None:
    assert nesting_refused(text) == deep_at


def test_loads_refuses_depth_and_digits_with_their_offset() -> None:
    with pytest.raises(Refused) as deep:
        loads('{"a": ' + "[" * 100)
    assert deep.value.offset == 6 + MAX_DEPTH - 1  # the '{' is the first level
    with pytest.raises(Refused) as digits:
        loads('{"a": 1, "b": ' + "7" * 30 + "}")
    assert digits.value.offset == 14
    assert loads('{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}


def test_memory_stays_bounded_on_a_long_stream() -> None:
    """A stream of many documents is read a line at a time: the reader never holds more
    than the first MAX_DOCUMENT_BYTES it reads to tell a document from JSON lines."""
    line = json.dumps(GOOD).encode() + b"\n"
    count = 3 * MAX_DOCUMENT_BYTES // len(line)

    class Counted(io.RawIOBase):
        def __init__(self) -> None:
            self.left, self.high = count, 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            if not self.left:
                return 0
            self.left -= 1
            buffer[: len(line)] = line
            return len(line)

    raw = Counted()
    reader = read_documents(io.BufferedReader(raw, buffer_size=len(line)))
    seen = 0
    for _, doc in reader:
        assert doc["round_id"] == "r-17"
        seen += 1
        if seen == count // 2:
            assert raw.left > 0, "the reader read the whole stream before yielding"
    assert seen == count


def test_judge_lines_still_takes_text() -> None:
    (judged,) = judge_lines([json.dumps(GOOD) + "\n"])
    assert judged.result is not None and judged.result["round_id"] == "r-17"


def test_shown_cuts_values_short() -> None:
    assert shown("A" * 10_000) == "'" + "A" * 37 + "..." + "A" * 38 + "'"
    assert shown(10**500) == "<an integer of 1661 bits>"
    assert len(shown([[[["x" * 1000] * 100]]])) < 200


# The dashboard: text from the log is shown as text -----------------------------------------

HOSTILE = "**bold** [link](javascript:alert(1)) <img src=x onerror=alert(1)> $x$ :red[hi]"
MORE = "-> www.example.com a@b.co :streamlit: :material/home: `tick` ``two``"
FRAGMENTS = ("**bold**", "[link]", "javascript:", "<img", "$x$", ":red[", "www.", "a@b",
             ":streamlit:", ":material", "`tick`")


def split_code(markdown: str) -> tuple[list[str], str]:
    """The contents of the Markdown code spans in ``markdown`` (CommonMark: a run of backticks
    closed by a run of the same length; one space stripped from each side when both have
    one), and the text outside them."""
    inside, outside, at = [], [], 0
    while (opening := re.compile("`+").search(markdown, at)) is not None:
        outside.append(markdown[at:opening.start()])
        fence = opening.group()
        closing = re.compile(f"(?<!`){fence}(?!`)").search(markdown, opening.end())
        if closing is None:
            outside.append(fence)
            at = opening.end()
            continue
        content = markdown[opening.end():closing.start()]
        if content.startswith(" ") and content.endswith(" ") and content.strip():
            content = content[1:-1]
        inside.append(content)
        at = closing.end()
    outside.append(markdown[at:])
    return inside, "".join(outside)


@pytest.mark.parametrize(
    "text", [HOSTILE, MORE, "`", "``", " lead", "trail ", "a\nb", "seat 1: no hand set", ""]
)
def test_literal_shows_exactly_the_text(text: str) -> None:
    rendered = views.literal(text)
    inside, outside = split_code(rendered)
    one_line = " ".join(text.splitlines()).replace(":material/", ":material\u200b/")
    if inside:
        assert inside == [one_line] and outside == ""
    else:
        assert rendered == one_line
    for fragment in FRAGMENTS:
        assert fragment not in outside


@pytest.mark.parametrize(
    "text", ["t1-000042", "seat 1: cards dealt but no hand set", "flush, king high",
             "pai_gow_poker", "win paid without the 5% commission", "Kh Jh 8h 5h 3h"],
)
def test_words_stay_as_they_are(text: str) -> None:
    assert views.literal(text) == text


@pytest.mark.parametrize(
    "text", ["1. list", "- item", "a -> b", "a--b", "www.x.com", "x@y.z", "a:b", ":smile:",
             "# h", "a  b", "a_b_", "_a", "x>=1", "\\*", "c&amp;", "a|b", "T.B.D"],
)
def test_anything_else_is_code(text: str) -> None:
    assert views.literal(text).startswith("`")


def _hostile_data(root: Path) -> dict[str, str]:
    """The pages' fixture (tests/dashboard_pages_fixtures.py) with one flagged round's id,
    its dealer, table and casino, and its flags' details, all hostile."""
    from tests import dashboard_pages_fixtures as pages

    pages.write_pages_fixture(root)
    flagged = next(r for r in pages.FLAG_ROWS if r["round_id"])["round_id"]
    round_id = f"{flagged} {HOSTILE}"
    for name in ("replay/rounds.parquet", "replay/wagers.parquet", "checks/flags.parquet"):
        table = pq.read_table(root / name)
        rows = table.to_pylist()
        for row in rows:
            if row.get("round_id") == flagged:
                row["round_id"] = round_id
                for column, value in (("dealer_id", MORE), ("detail", HOSTILE),
                                      ("problems", MORE)):
                    if column in row:
                        row[column] = value
        pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), root / name)
    from tests.outputs_support import sign_checks, sign_replay

    sign_replay(root)  # signed again, as replay and the checks sign what they write
    sign_checks(root)
    return {"round_id": round_id, "dealer": MORE}


def _markdown_of(at: AppTest) -> list[str]:
    kinds = ("markdown", "caption", "info", "warning", "error", "success", "subheader")
    values = [str(e.value) for kind in kinds for e in getattr(at, kind)]
    for table in at.table:
        frame = table.value
        values += [str(v) for v in frame.to_numpy().ravel()]
    return values


def _assert_shown_as_text(at: AppTest, *texts: str) -> None:
    spans: list[str] = []
    for value in _markdown_of(at):
        inside, outside = split_code(value)
        spans += inside
        for fragment in FRAGMENTS:
            assert fragment not in outside, value
    for text in texts:
        assert any(text.replace(":material/", ":material\u200b/") in span for span in spans), text


def test_the_dashboard_shows_hostile_event_text_as_text(monkeypatch, tmp_path: Path) -> None:
    """Signed in, every page an admin sees, with a hostile round id, dealer and flag detail
    in the data and in the URL (?round=): no exception, and nothing hostile reaches Markdown
    outside a code span; the hostile round id typed into the Round page is shown as text."""
    from tests.dashboard_pages_fixtures import app_test, open_page, write_users

    data_dir, home = tmp_path / "data", tmp_path / "home"
    ids = _hostile_data(data_dir)
    write_users(home, tmp_path)
    from dashboard.screens import load

    for spec in load():
        at = open_page(app_test(data_dir, home, monkeypatch, role="admin"), spec.url_path).run()
        assert not at.exception, (spec.url_path, at.exception)
        assert [t.value for t in at.title] == [spec.title]
        _assert_shown_as_text(at)
    for round_id in (ids["round_id"], HOSTILE):
        at = app_test(data_dir, home, monkeypatch, role="admin", params={"round": round_id}).run()
        assert not at.exception
        assert [t.value for t in at.title] == ["Round"]
        _assert_shown_as_text(at, round_id)
