"""Replay's outputs: a whole new set switched in atomically (never a half-written one, never a
damaged old one), and a manifest with the log's provenance in every file."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import sys
import textwrap

import duckdb
import pyarrow.parquet as pq
import pytest

from replay import run
from replay.run import MANIFEST_FORMAT, NO_VERIFICATION, PROVENANCE_KEY, TABLES, replay
from tests.events_factory import Table
from tests.test_replay_workers import _interleaved, _shift, _write

DEALER = ("Kc Kd 9s 7h 3c", "Ah Qs")
SEATS = {1: {"main": 2500, "hand": ("5s 5h 5d Tc 2c", "As Kh"), "settled": ("win", 2375, 125)}}
VERIFIED = {"verified": True, "verification": "verified: 48 records, checkpoint 3 signed",
            "records": 48, "root": "ab" * 32, "checkpoint": "catwalk-log\n48\nq83v\n",
            "key_fingerprint": "catwalk-ingest+620d4664"}


def _snapshot(out):
    """Every file under ``out`` (through the link) with its SHA-256."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.iterdir())}


def _hidden(tmp_path, name="replay"):
    return sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(f".{name}"))


@pytest.fixture
def log(tmp_path):
    return _write(tmp_path, _interleaved(_shift(tables=3, rounds=2)))


def test_outputs_are_a_link_to_a_complete_set_that_duckdb_and_pyarrow_read(tmp_path, log):
    out = tmp_path / "replay"
    summary = replay(log, out)
    assert out.is_symlink() and os.readlink(out) == ".replay-000001"
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{n}.parquet" for n in TABLES] + ["manifest.json", "manifest.sig"])
    assert pq.read_table(out / "rounds.parquet").num_rows == summary.rounds == 6
    con = duckdb.connect()
    assert con.execute("SELECT count(*) FROM read_parquet(?)",
                       [str(out / "rounds.parquet")]).fetchone() == (6,)
    assert con.execute("SELECT count(*) FROM read_parquet(?)",
                       [str(out / "*.parquet")]).fetchone()[0] > 0
    assert _hidden(tmp_path) == [".replay-000001", ".replay.lock"]


def test_a_second_replay_replaces_the_first_and_keeps_one_before(tmp_path, log):
    out = tmp_path / "replay"
    replay(log, out)
    first = _snapshot(out)
    replay(log, out, provenance=VERIFIED)
    assert os.readlink(out) == ".replay-000002"
    assert _snapshot(tmp_path / ".replay-000001") == first  # a reader of the old set finishes
    assert _snapshot(out) != first  # the provenance differs
    replay(log, out)
    assert os.readlink(out) == ".replay-000003"
    assert _hidden(tmp_path) == [".replay-000002", ".replay-000003", ".replay.lock"]
    assert _snapshot(out) == first  # same log, same (no) provenance: the same bytes


@pytest.mark.parametrize("failure", [OSError(errno.ENOSPC, "No space left on device"),
                                     KeyboardInterrupt()])
def test_a_failure_while_writing_leaves_the_previous_outputs_untouched(
        tmp_path, log, monkeypatch, failure):
    out = tmp_path / "replay"
    replay(log, out)
    before, target = _snapshot(out), os.readlink(out)
    real, written = run.write_parquet, []

    def failing(table, path):
        written.append(path.name)
        if len(written) == 3:
            raise failure
        return real(table, path)

    monkeypatch.setattr(run, "write_parquet", failing)
    with pytest.raises(type(failure)):
        replay(log, out, provenance=VERIFIED)
    assert len(written) == 3
    assert os.readlink(out) == target and _snapshot(out) == before
    assert pq.read_table(out / "wagers.parquet").num_rows > 0
    assert _hidden(tmp_path) == [".replay-000001", ".replay.lock"]  # no build left behind


def test_a_replay_killed_while_writing_leaves_the_previous_outputs_and_the_next_cleans_up(
        tmp_path, log):
    out = tmp_path / "replay"
    replay(log, out)
    before = _snapshot(out)
    script = textwrap.dedent(f"""
        import os, signal, sys
        from pathlib import Path
        from replay import run
        real, n = run.write_parquet, []
        def dying(table, path):
            n.append(1)
            if len(n) == 3:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(table, path)
        run.write_parquet = dying
        run.replay(Path({str(log)!r}), Path({str(out)!r}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=os.path.dirname(os.path.dirname(__file__)), check=False)
    assert done.returncode == -9, done.stderr
    assert _snapshot(out) == before
    stale = [n for n in _hidden(tmp_path) if ".building-" in n]
    assert len(stale) == 1 and len(list((tmp_path / stale[0]).glob("*.parquet"))) == 2
    replay(log, out)
    assert _hidden(tmp_path) == [".replay-000001", ".replay-000002", ".replay.lock"]
    assert _snapshot(out) == before


def test_a_build_of_a_live_process_is_left_alone(tmp_path, log):
    live = tmp_path / f".replay.building-{os.getppid()}-abc"
    live.mkdir()
    replay(log, tmp_path / "replay")
    assert live.is_dir()


def test_a_real_directory_of_an_older_version_is_swapped_for_the_link(tmp_path, log):
    out = tmp_path / "replay"
    out.mkdir()
    (out / "rounds.parquet").write_bytes(b"old")
    (out / "notes.txt").write_text("from an older version")
    replay(log, out)
    assert out.is_symlink()
    assert pq.read_table(out / "rounds.parquet").num_rows == 6
    assert _hidden(tmp_path) == [".replay-000001", ".replay.lock"]


def test_an_output_path_that_is_a_file_is_refused(tmp_path, log):
    (tmp_path / "replay").write_text("not a directory")
    with pytest.raises(run.ReplayError, match="is not a directory"):
        replay(log, tmp_path / "replay")
    assert (tmp_path / "replay").read_text() == "not a directory"


def test_the_manifest_without_provenance_says_not_verified(tmp_path, log):
    summary = replay(log, tmp_path / "replay")
    text = (tmp_path / "replay" / "manifest.json").read_text()
    manifest = json.loads(text)
    assert text == json.dumps(manifest, sort_keys=True, indent=2) + "\n"
    assert manifest["format"] == MANIFEST_FORMAT == "catwalk-replay-manifest/3"
    assert manifest["key_pinned"] is False and manifest["trees"] == []
    assert manifest["sizes"] == {f"{n}.parquet": (tmp_path / "replay" / f"{n}.parquet")
                                 .stat().st_size for n in TABLES}
    assert manifest["verified"] is False and summary.verified is False
    assert manifest["verification"] == NO_VERIFICATION == summary.verification
    assert NO_VERIFICATION == "not verified: replay was given no verification"
    assert manifest["log"] == {"records": None, "root": None, "checkpoint": None,
                               "key_fingerprint": None}
    assert manifest["rulesets"] == ["caribbean_stud-standard-v1", "pai_gow_poker-classic-v1",
                                    "pai_gow_tiles-pr-v1"]
    assert manifest["ruleset_files"] == []  # judged by the shipped rulesets alone
    assert manifest["code_version"].startswith("catwalk ")
    assert manifest["files"] == {f"{n}.parquet": hashlib.sha256(
        (tmp_path / "replay" / f"{n}.parquet").read_bytes()).hexdigest() for n in TABLES}
    for name in TABLES:
        meta = pq.read_schema(tmp_path / "replay" / f"{name}.parquet").metadata
        assert json.loads(meta[PROVENANCE_KEY]) == {
            "verified": False, "verification": NO_VERIFICATION, "key_pinned": False,
            "log": manifest["log"],
            "rulesets": manifest["rulesets"], "ruleset_files": [],
            "code_version": manifest["code_version"]}


def test_the_provenance_given_is_in_the_manifest_and_every_file(tmp_path, log):
    summary = replay(log, tmp_path / "replay", provenance=VERIFIED)
    manifest = json.loads((tmp_path / "replay" / "manifest.json").read_text())
    assert manifest["verified"] is True and summary.verified is True
    assert manifest["verification"] == VERIFIED["verification"]
    assert manifest["log"] == {k: VERIFIED[k] for k in
                               ("records", "root", "checkpoint", "key_fingerprint")}
    for name in TABLES:
        meta = pq.read_schema(tmp_path / "replay" / f"{name}.parquet").metadata
        assert json.loads(meta[PROVENANCE_KEY])["log"]["checkpoint"] == VERIFIED["checkpoint"]


def test_same_log_and_provenance_give_the_same_bytes_for_any_workers(tmp_path, log):
    replay(log, tmp_path / "one", provenance=VERIFIED)
    replay(log, tmp_path / "two", workers=2, provenance=VERIFIED)
    assert _snapshot(tmp_path / "one") == _snapshot(tmp_path / "two")  # manifest.json too


@pytest.mark.parametrize("bad, message", [
    ({**VERIFIED, "verified": "yes"}, "'verified' must be true or false"),
    ({**VERIFIED, "records": -1}, "'records' must be a count"),
    ({**VERIFIED, "root": b"\x00"}, "'root' must be text or null"),
    ({**VERIFIED, "signature": "x"}, "unknown key"),
    ({"verified": False}, "'verification' must say"),
])
def test_a_malformed_provenance_is_refused_before_anything_is_written(tmp_path, log, bad,
                                                                      message):
    with pytest.raises(ValueError, match=message):
        replay(log, tmp_path / "replay", provenance=bad)
    assert not (tmp_path / "replay").exists()


def test_the_code_version_is_stable():
    run.code_version.cache_clear()
    first = run.code_version()
    run.code_version.cache_clear()
    assert run.code_version() == first
    assert first.startswith("catwalk ") and "(git " in first


def test_a_one_round_log(tmp_path):
    """The smallest log: one table, one round."""
    from ingest.log import LogWriter, Received
    from schemas import encode

    events = Table().round("T01-000001", dealer=DEALER, seats=SEATS)
    LogWriter(tmp_path / "log", tmp_path / "quarantine").append(
        [Received(topic="t", partition=0, offset=i, timestamp_ms=i, key=b"T01",
                  value=encode(e)) for i, e in enumerate(events)], [])
    assert replay(tmp_path / "log", tmp_path / "replay").rounds == 1
