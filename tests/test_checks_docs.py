"""docs/checks.md shows the catalogue the code runs: its generated block equals
``python -m checks --list --markdown``, and every shipped check is in it."""

from __future__ import annotations

from pathlib import Path

from checks.runner import load_checks
from tests.conftest import run_cli

DOC = Path(__file__).resolve().parent.parent / "docs" / "checks.md"
BEGIN, END = "<!-- catalogue:begin -->\n", "<!-- catalogue:end -->"


def _block() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)]


def test_the_catalogue_in_the_docs_is_the_one_the_code_runs():
    proc = run_cli("checks", "--list", "--markdown")
    assert proc.returncode == 0, proc.stderr
    assert _block() == proc.stdout, (
        "docs/checks.md is stale: regenerate its catalogue block with "
        "`python -m checks --list --markdown`")


def test_every_check_is_in_the_docs_with_its_kind():
    block = _block()
    rules, stats = block.split("### Statistical surveillance")
    for check in load_checks():
        assert f"| `{check.id}` |" in (rules if check.kind == "rule" else stats), check.id
