"""`python -m replay adjudicate`: bad rounds are named on stderr, the rest still judged."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO


def _adjudicate(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "replay", "adjudicate", "-"], input=text,
                          capture_output=True, text=True, cwd=REPO, timeout=120)


def test_each_bad_round_is_named_and_exit_code_is_2():
    lines = [
        json.dumps({"round_id": "r-1", "game": "baccarat"}),
        "this is not json",
        json.dumps({"round_id": "r-3", "game": "pai_gow_poker", "ruleset": "no-such-v9"}),
        json.dumps(["not", "an", "object"]),
        json.dumps({"game": "pai_gow_poker"}),
    ]
    proc = _adjudicate("\n".join(lines) + "\n")
    assert proc.returncode == 2
    assert proc.stdout == ""
    err = proc.stderr.splitlines()
    assert len(err) == 5, proc.stderr
    assert err[0].startswith("adjudicate: - line 1: round r-1: unknown game 'baccarat'")
    assert err[1].startswith("adjudicate: - line 2: round <not JSON>: not valid JSON")
    assert err[2].startswith("adjudicate: - line 3: round r-3: unknown ruleset 'no-such-v9'")
    assert "must be a JSON object" in err[3]
    assert "round <round without a round_id>" in err[4]
    assert "Traceback" not in proc.stderr


def test_unreadable_file_is_a_clear_error(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "replay", "adjudicate",
                           str(tmp_path / "missing.jsonl")], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert proc.returncode == 2
    assert "cannot read" in proc.stderr and "missing.jsonl" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_help_teaches_the_commands():
    proc = subprocess.run([sys.executable, "-m", "replay", "--help"], capture_output=True,
                          text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0
    for word in ("adjudicate", "census", "rounds.parquet", "byte-identical"):
        assert word in proc.stdout


def test_mapping_reader_names_missing_and_unknown_keys():
    import pytest

    from replay.document import DocumentError, mapping

    assert mapping({"a": 1}, "seat 1", frozenset({"a", "b"})) == {"a": 1}
    with pytest.raises(DocumentError, match=r"seat 1 has no 'b'"):
        mapping({"a": 1}, "seat 1", frozenset({"a", "b"}), required=frozenset({"b"}))
    with pytest.raises(DocumentError, match=r"seat 1 has unknown keys \['c'\]"):
        mapping({"c": 1}, "seat 1", frozenset({"a"}))
    with pytest.raises(DocumentError, match="seat 1 must be an object"):
        mapping([1], "seat 1", frozenset({"a"}))
