"""``python -m replay house-way check``: exit codes, messages, and no traceback for a hostile
FILE (binary bytes, a huge file, a FIFO, a directory, a missing file)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "replay" / "rulesets" / "house_ways"
FLAMINGO = REPO / "docs" / "examples" / "rulesets" / "C02" / "flamingo.way"


def run(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "replay", "house-way", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO, env=env)


def refused(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    return done.stderr


def test_check_prints_the_way_and_sets_the_hands_given() -> None:
    done = run("check", FLAMINGO, "--hand", "Ts Tc Th Td Kh Kd 2s",
               "--hand", "Ks Jd 9h 7c 5s 3d 2c")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"house way flamingo (game pai_gow_poker) from {FLAMINGO}"
    assert ("   5. four_seven_to_ten_with_pair [Four of a kind, 7 through 10; F1]: when "
            "four_of_a_kind ranks 7-T with pair -> front highest_pair or split_four") in lines
    assert ("hand Ts Tc Th Td Kh Kd 2s: high Ts Th Td Tc 2s / low Kh Kd (rule "
            "four_seven_to_ten_with_pair, Four of a kind, 7 through 10; F1)") in lines
    assert "  also lawful: high Kh Kd Ts Th 2s / low Td Tc" in lines
    assert ("hand Ks Jd 9h 7c 5s 3d 2c: high Ks 7c 5s 3d 2c / low Jd 9h (rule no_pair, "
            "No pair)") in lines


def test_check_sets_tiles_and_covers_every_tile_hand() -> None:
    done = run("check", SHIPPED / "pr-11.2-d.way", "--hand", "6-6 2-4 1-3 5-6", "--coverage")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # 6-6 with 2-4 is 12 + 6 = 18: 8 points (D.3), the best of the 9/8/7 hands here
    assert "hand 6-6 2-4 1-3 5-6: 6-6 2-4 / 1-3 5-6 (rule nine_eight_seven, D.3; C4)" in out
    assert "coverage over all 35,960 four-tile hands:" in out
    assert "no setting fouls" in out and "rules that never apply here: none" in out


def test_coverage_of_the_reference_way_names_five_aces_as_never_met() -> None:
    done = run("check", SHIPPED / "reference-1.3.way", "--coverage")
    assert done.returncode == 0, done.stderr
    assert "coverage over 20,000 hands of the fixed sample" in done.stdout
    assert "rules that never apply here: five_aces" in done.stdout
    assert "no setting fouls (20,000 lawful settings checked)" in done.stdout


def test_a_bad_file_exits_2_naming_file_line_and_rule(tmp_path: Path) -> None:
    bad = tmp_path / "flamingo.way"
    bad.write_text(FLAMINGO.read_text(encoding="utf-8").replace(
        "front lower_pair\n  text Two pair otherwise", "front lower_pairs\n  text Two pair "
        "otherwise"), encoding="utf-8")
    line = next(i for i, text in enumerate(bad.read_text(encoding="utf-8").splitlines(), 1)
                if "lower_pairs" in text)
    err = refused(run("check", bad))
    assert err.startswith(f"house-way check: {bad} line {line} (rule two_pair_split): unknown "
                          f"choice 'lower_pairs'; choices: ")


def test_a_bad_hand_exits_2_naming_it() -> None:
    err = refused(run("check", FLAMINGO, "--hand", "As Kd Qh"))
    assert "--hand 'As Kd Qh'" in err


@pytest.mark.parametrize("kind", ["binary", "huge", "directory", "missing", "not utf-8"])
def test_a_hostile_file_is_refused_without_a_traceback(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "hostile.way"
    if kind == "binary":
        path.write_bytes(b"format catwalk-house-way 1\n\x00\x01\x02\xff" * 10)
        expected = "binary bytes"
    elif kind == "huge":
        path.write_bytes(b"# comment\n" * 100_000)
        expected = "a house-way file is at most 262,144"
    elif kind == "directory":
        path.mkdir()
        expected = "is a directory"
    elif kind == "missing":
        expected = "no such house-way file"
    else:
        path.write_bytes(b"format catwalk-house-way 1\ngame pai_gow_poker\nname \xff\n")
        expected = "line 3: not UTF-8 text"
    err = refused(run("check", path))
    assert expected in err and str(path) in err


def test_a_fifo_is_refused_at_once_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.way"
    os.mkfifo(fifo)
    err = refused(run("check", fifo, timeout=20))  # nobody writes: a read would block
    assert "not a regular file" in err


def test_help_has_examples_and_the_top_level_names_the_command() -> None:
    done = run("check", "--help")
    assert done.returncode == 0 and "examples:" in done.stdout and "--coverage" in done.stdout
    top = subprocess.run([sys.executable, "-m", "replay", "--help"], capture_output=True,
                         text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert "house-way" in top.stdout
