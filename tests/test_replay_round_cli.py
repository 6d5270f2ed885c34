"""``python -m replay round`` and ``python -m replay table`` as a user runs them: the report
in the terminal and as an HTML file, a table's last rounds in order, and the exit codes and
messages of what goes wrong, never a traceback.

The data are tests/test_dispute_report.py's: hand-built rounds at casino C01 table T90 in a
signed log, replayed and checked; a round R-1 at C02's table T90 too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from schemas.checkpoint import Signer
from schemas.keyring import ENV
from tests.conftest import run_cli
from tests.test_dispute_report import HOSTILE, build


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build(tmp_path_factory.mktemp("cli"))
    ring = root.parent / "keyring"  # the regulator's keyring, outside the data
    ring.write_text(f"{(root / 'keys' / 'outputs.pub').read_text().strip()} role=outputs\n"
                    f"{(root / 'keys' / 'signing.pub').read_text().strip()} role=log\n")
    KEYRING[ENV] = str(ring)
    return root


KEYRING: dict[str, str] = {}


def _replay(*args: str):
    done = run_cli("replay", *args, timeout=300, env=KEYRING)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr
    return done


def test_round_prints_the_report(data):
    done = _replay("round", "R-1", "--casino", "C01", "--data", str(data))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("round R-1 at casino C01 table T90: pai_gow_poker, dealt "
                          "2026-11-28T18:00:01.000000Z, dealer E011, banker dealer, evaluated\n")
    assert "provenance: Verified: OK: " in out and "WARNING" not in out
    assert ("  seat 4 main $10.00: recorded win +$9.50 (commission $0.50); expected loss "
            "-$10.00  MISPAID +$19.50") in out
    assert "    pushes: high hand: three sevens, 8-4 kickers beats pair of kings" in out
    assert "  #17 2026-11-28T18:00:17.000000Z by E011: seat 2 main settled: loss -$5.00  " \
           "[SUPERSEDED by a correction]" in out
    assert "critical paid_loser seat 4 main, $19.50 over" in out


def test_round_html_writes_one_page_and_says_where(data, tmp_path):
    page = tmp_path / "r.html"
    done = _replay("round", "R-1", "--casino", "C01", "--data", str(data), "--html", str(page),
                   "--proof")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"dispute report of round R-1 (casino C01 table T90) "
                                  f"written to {page}; proof: 21 of 21 events proved")
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "http" not in html and "<script" not in html
    assert 'aria-label="Kc"' in html and "+$23.75" in html and "21 of 21 events proved" in html


def test_a_proof_with_another_key_is_exit_1_and_says_why(data):
    other = Signer(name="someone-else", private=Ed25519PrivateKey.generate()).verifier.vkey
    done = _replay("round", "R-1", "--casino", "C01", "--data", str(data), "--proof",
                   "--key", other)
    assert done.returncode == 1, done.stderr
    assert "\nProof\n  no proof: the log does not verify, so no proof is given: FAILED" in (
        done.stdout)
    pinned = _replay("round", "R-2", "--casino", "C01", "--data", str(data), "--proof",
                     "--key", str(data / "keys" / "signing.pub"))
    assert pinned.returncode == 0, pinned.stdout
    assert "\nProof\n  11 of 11 events proved against the checkpoint signed at" in pinned.stdout
    assert pinned.stdout.rstrip().endswith("checked with the key given")


def test_table_lists_the_last_ten_rounds_oldest_first(data):
    done = _replay("table", "T90", "--last", "10", "--casino", "C01", "--data", str(data))
    assert done.returncode == 0, done.stderr
    numbered = [line for line in done.stdout.splitlines() if line[:3].rstrip(". ").isdigit()]
    assert [line.split()[2] for line in numbered] == [f"R-{n}" for n in range(12, 22)]
    assert done.stdout.startswith("the last 10 round(s) of casino C01 table T90, oldest first:")
    assert "   R-12 caribbean_stud D=AhQd9c5s2d S1(ante 1000,raise 2000)[raise]=KsKh7d7c3s" in (
        done.stdout)
    assert "   seat 1 ante $10.00: recorded never settled; expected win +$10.00" in done.stdout


def test_unknown_round_or_table_is_exit_1_with_a_hint(data):
    done = _replay("round", "R-404", "--data", str(data))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (f"replay round: no round R-404 in {data / 'replay'}: check the id; "
                           f"`python -m replay table TABLE_ID --last 10 --data {data}` lists a "
                           "table's rounds\n")
    table = _replay("table", "T404", "--data", str(data))
    assert table.returncode == 1
    assert "no rounds at table T404" in table.stderr and "the tables are: T90" in table.stderr


def test_what_cannot_run_is_exit_2(data, tmp_path):
    ambiguous = _replay("round", "R-1", "--data", str(data))
    assert ambiguous.returncode == 2
    assert "round R-1 is at 2 tables: casino C01 table T90, casino C02 table T90" in (
        ambiguous.stderr)
    both = _replay("table", "T90", "--data", str(data))
    assert both.returncode == 2 and "--casino" in both.stderr
    nothing = _replay("round", "R-1", "--data", str(tmp_path / "none"))
    assert nothing.returncode == 2 and "run `python -m replay --data" in nothing.stderr
    unwritable = _replay("round", "R-2", "--casino", "C01", "--data", str(data), "--html",
                         str(tmp_path / "no" / "such" / "dir" / "r.html"))
    assert unwritable.returncode == 2 and "cannot write" in unwritable.stderr
    bad = _replay("table", "T90", "--last", "0", "--data", str(data))
    assert bad.returncode == 2 and "--last must be a whole number from 1" in bad.stderr


def test_hostile_text_reaches_the_terminal_printable(data):
    done = _replay("round", HOSTILE, "--data", str(data))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "<b>E9</b>&co" in done.stdout


def test_help_shows_examples_and_the_default_command_still_replays(data):
    helped = _replay("round", "--help")
    assert helped.returncode == 0
    assert "python -m replay round T01-000001 --data var/demo --html" in helped.stdout
    assert "1 no such round" in helped.stdout
    top = _replay("--help")
    assert "round        one round as a dispute needs it" in top.stdout
    assert "timeline.parquet" in top.stdout
    again = _replay("--data", str(data))
    assert again.returncode == 0 and "16 rounds" in again.stdout
