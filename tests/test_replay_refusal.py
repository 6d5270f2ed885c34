"""A replay that refuses the log records it beside its output (replay/refusal.py), so that the
dashboard's banner and the dispute report stop calling the last replay's data verified;
the next replay that writes its files removes the record."""

from __future__ import annotations

import json
from pathlib import Path

from dashboard.data import provenance
from replay.dispute import provenance_line
from replay.dispute_views import NOT_VERIFIED, VERIFIED
from replay.refusal import mark_refused, refusal, refused_mark
from schemas.keyring import ENV
from tests.conftest import run_cli
from tests.keyring_support import pinned_env
from tests.test_replay_workers import _interleaved, _shift, _write


def _flip(path: Path) -> bytes:
    raw = path.read_bytes()
    changed = bytearray(raw)
    changed[-30] ^= 0xFF
    path.write_bytes(bytes(changed))
    return raw


def test_a_refused_log_is_recorded_and_cleared_by_the_next_replay(tmp_path, monkeypatch):
    log = _write(tmp_path, _interleaved(_shift(tables=3, rounds=2)))
    data = log.parent
    env = pinned_env(data, outputs=True)
    assert run_cli("replay", "--data", str(data), env=env).returncode == 0
    monkeypatch.setenv(ENV, env[ENV])  # the readers in this process trust it too
    assert provenance(data).state == "verified"
    assert provenance_line(data / "replay").startswith(VERIFIED)
    files = {p.name: p.read_bytes() for p in (data / "replay").iterdir()}
    segment = sorted(log.glob("segment-*.avro"))[0]
    original = _flip(segment)

    refused = run_cli("replay", "--data", str(data), env=env)
    assert refused.returncode == 1 and "REFUSED" in refused.stderr
    assert {p.name: p.read_bytes() for p in (data / "replay").iterdir()} == files
    told = json.loads((data / "replay.refused.json").read_text(encoding="utf-8"))
    assert told["why"].startswith("the log does not verify: FAILED after ")
    assert segment.name in told["why"]
    seen = provenance(data)
    assert seen.state == "refused" and seen.refused_at == told["first_refused_at"]
    assert seen.line.startswith("the log no longer verifies: a later replay refused it at ")
    assert provenance_line(data / "replay").startswith(NOT_VERIFIED)

    segment.write_bytes(original)  # put back: the log verifies again
    assert run_cli("replay", "--data", str(data), env=env).returncode == 0
    assert not (data / "replay.refused.json").exists()
    assert provenance(data).state == "verified"


def test_a_refusal_with_no_key_is_recorded_too(tmp_path):
    log = _write(tmp_path, _interleaved(_shift(tables=1, rounds=1)))
    data = log.parent
    (data / "keys" / "signing.pub").unlink()
    assert run_cli("replay", "--data", str(data)).returncode == 1
    assert "no public key" in (refusal(data / "replay") or "")


def test_a_refusal_record_that_cannot_be_read_still_says_refused(tmp_path):
    out = tmp_path / "replay"
    assert refusal(out) is None
    refused_mark(out).write_bytes(b"\xff not json")
    assert (refusal(out) or "").startswith("the log no longer verifies: a later replay "
                                           "refused it (no reason recorded)")
    refused_mark(out).unlink()
    refused_mark(out).mkdir()  # not a file at all
    assert "cannot be read" in (refusal(out) or "")


def test_a_mark_that_cannot_be_written_is_said(tmp_path, capsys):
    blocked = tmp_path / "file"
    blocked.write_text("x")
    mark_refused(blocked / "replay", "why")  # its directory is a file
    assert "could not record the refusal" in capsys.readouterr().err
