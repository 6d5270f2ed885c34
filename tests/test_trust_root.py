"""A trust root that is not in the directory under audit, and a log that cannot shrink under
replay: the keyring (``CATWALK_TRUSTED_KEYS``, schemas/keyring.py) chooses every command's
log key, a key found only beside the log is "unverified: key not pinned" (``ingest verify``
exit 3, ``verified: false`` and ``key_pinned: false`` in replay's manifest), and the largest
tree replay verified (replay/high_water.py) refuses a rolled-back or replaced log.

Each test writes a real signed log with ``LogWriter`` and tampers with it as an insider who
can write the data directory, but holds no pinned key, would."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from checks.follow import follow
from ingest.log import LogWriter, Received
from replay import high_water
from schemas import WagerPlaced, encode
from schemas.checkpoint import Signer, parse, read_verifier
from schemas.keyring import ENV, NOT_PINNED
from schemas.log_verify import verify_data
from schemas.logformat import META_CHECKPOINT, segments
from tests.events_factory import Table
from tests.keyring_support import pin, pinned_env
from tests.test_log_integrity import _rewrite

REPO = Path(__file__).resolve().parent.parent


def _received(offset: int) -> Received:
    value = encode(Table().event("T01-000001", WagerPlaced(seat=1, wager="main",
                                                           amount_cents=100 + offset),
                                 seq=offset + 1))
    return Received(topic="round-events", partition=0, offset=offset,
                    timestamp_ms=1_000 + offset, key=b"T01", value=value)


def _log(data: Path, batches: int, per: int = 3, *, signer: Signer | None = None) -> Path:
    with LogWriter(data / "log", data / "quarantine", signer=signer) as log:
        for batch in range(batches):
            log.append([_received(batch * per + i) for i in range(per)], [])
    return data


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return _log(tmp_path / "data", 3)


def _run(*args: str, env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m ARGS`` with no keyring unless ``env`` names one."""
    full = {k: v for k, v in os.environ.items() if k != ENV}
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, env={**full, **(env or {})})


def _manifest(data: Path) -> dict:
    return json.loads((data / "replay" / "manifest.json").read_text())


def _resign(data: Path) -> None:
    """Re-sign every segment with a key of the insider's own and put its public half beside
    the log (the checkpoints beside it removed, as they no longer match)."""
    forger = Signer("catwalk-ingest", Ed25519PrivateKey.generate())
    for seg in segments(data / "log"):
        _rewrite(seg, change_meta=lambda m: {**m, META_CHECKPOINT: forger.sign(
            parse(m[META_CHECKPOINT]))})
    (data / "keys" / "signing.pub").write_text(forger.verifier.vkey + "\n")
    shutil.rmtree(data / "checkpoints")


# --- the trust root --------------------------------------------------------------------


def test_verify_with_only_the_key_beside_the_log_is_exit_3_not_pinned(data: Path) -> None:
    alone = _run("ingest", "verify", "--data", str(data))
    assert alone.returncode == 3, alone.stderr
    assert "OK: 9 records in 3 segments" in alone.stdout
    assert f"verify: {NOT_PINNED}: " in alone.stderr
    pinned = _run("ingest", "verify", "--data", str(data), env=pinned_env(data))
    assert pinned.returncode == 0, pinned.stderr
    assert f"checked with the keyring {data.parent / 'data.trusted.keys'} ({ENV})" in pinned.stdout
    given = _run("ingest", "verify", "--data", str(data), "--key",
                 str(data / "keys" / "signing.pub"))
    assert given.returncode == 0 and "checked with the key given with --key" in given.stdout


def test_a_swapped_key_is_never_a_pass(data: Path) -> None:
    """The insider re-signs the log and replaces keys/signing.pub: without a keyring the log
    is reported unverified (exit 3, and replay records verified false); with the keyring it
    fails (exit 1) and replay refuses it."""
    env = pinned_env(data)
    _resign(data)
    unpinned = _run("ingest", "verify", "--data", str(data))
    assert unpinned.returncode == 3 and NOT_PINNED in unpinned.stderr
    pinned = _run("ingest", "verify", "--data", str(data), env=env)
    assert pinned.returncode == 1
    assert "is not signed by the key catwalk-ingest" in pinned.stderr

    marked = _run("replay", "--data", str(data))
    assert marked.returncode == 0, marked.stderr
    assert f"WARNING: {NOT_PINNED}" in marked.stderr
    manifest = _manifest(data)
    assert manifest["verified"] is False and manifest["key_pinned"] is False
    assert manifest["verification"].startswith(f"{NOT_PINNED}: OK: 9 records")
    refused = _run("replay", "--data", str(data), env=env)
    assert refused.returncode == 1 and "REFUSED: the log does not verify" in refused.stderr
    assert "is not signed by the key" in json.loads(
        (data / "replay.refused.json").read_text())["why"]


def test_a_pinned_replay_says_key_pinned_true(data: Path) -> None:
    done = _run("replay", "--data", str(data), env=pinned_env(data))
    assert done.returncode == 0, done.stderr
    manifest = _manifest(data)
    assert manifest["verified"] is True and manifest["key_pinned"] is True
    assert manifest["verification"].startswith("OK: 9 records in 3 segments")


def test_a_rotation_trusts_both_keys_during_the_overlap(tmp_path: Path) -> None:
    """The keyring holds the old key until the end of its overlap and the new one from its
    first day: a log signed by either verifies with the keyring alone, each with its own
    key; a key the keyring does not hold fails."""
    old, new, other = (Signer("catwalk-ingest", Ed25519PrivateKey.generate()) for _ in range(3))
    keyring = tmp_path / "trusted.keys"
    keyring.write_text(f"{old.verifier.vkey} role=log until=2026-12-31\n"
                       f"{new.verifier.vkey} role=log from=2026-12-01\n"
                       f"{other.verifier.vkey} role=outputs\n")
    env = {ENV: str(keyring)}
    for name, signer in (("old", old), ("new", new)):
        data = _log(tmp_path / name, 2, signer=signer)
        done = _run("ingest", "verify", "--data", str(data), env=env)
        assert done.returncode == 0, done.stderr
        assert f"key catwalk-ingest ({signer.verifier.key_hash.hex()})" in done.stdout
    stranger = _log(tmp_path / "other", 2, signer=other)  # trusted for outputs, not the log
    refused = _run("ingest", "verify", "--data", str(stranger), env=env)
    assert refused.returncode == 1 and "is not signed by the key" in refused.stderr


# --- the largest tree verified ---------------------------------------------------------


def _roll_back(data: Path) -> None:
    """Delete the newest segment and its checkpoints, and put the one before it back as
    latest.checkpoint: what remains is a shorter log that verifies on its own."""
    newest = segments(data / "log")[-1]
    newest.unlink()
    cps = data / "checkpoints"
    (cps / newest.name.replace(".avro", ".checkpoint")).unlink()
    before = sorted(cps.glob("segment-*.checkpoint"))[-1]
    shutil.copy(before, cps / "latest.checkpoint")


def test_replay_refuses_a_rolled_back_log_until_the_operator_says_it_is_restored(
        data: Path) -> None:
    env = pinned_env(data)
    assert _run("replay", "--data", str(data), env=env).returncode == 0
    kept = json.loads((data / high_water.FILE).read_text())
    assert kept["format"] == "catwalk-trusted-tree/1"
    mark = kept["chains"]["-"]
    assert mark["size"] == 9 and mark["checkpoint"].startswith("catwalk.invalid/log/")
    key = read_verifier(data / "keys" / "signing.pub")
    assert mark["root"] == verify_data(data, key).root
    _roll_back(data)
    assert verify_data(data, key).ok  # the shorter log is consistent on its own

    refused = _run("replay", "--data", str(data), env=env)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert (f"the log is shorter than the 9 records verified at {mark['at']} (it holds 6): "
            "a rollback") in refused.stderr
    why = json.loads((data / "replay.refused.json").read_text())["why"]
    assert "shorter than the 9 records verified" in why and "a rollback" in why
    assert _manifest(data)["log"]["records"] == 9  # the outputs of the longer log are kept

    restored = _run("replay", "--data", str(data), "--restored",
                    "restored from the backup of 2026-12-01 after a disk failure", env=env)
    assert restored.returncode == 0, restored.stderr
    assert _manifest(data)["log"]["records"] == 6
    assert not (data / "replay.refused.json").exists()
    kept = json.loads((data / high_water.FILE).read_text())
    assert kept["chains"]["-"]["size"] == 6
    [entry] = kept["restored"]
    assert entry["reason"] == "restored from the backup of 2026-12-01 after a disk failure"
    assert entry["dropped"]["-"]["size"] == 9
    again = _run("replay", "--data", str(data), env=env)  # from now on, 6 is the floor
    assert again.returncode == 0, again.stderr


def test_the_follow_loop_refuses_a_log_that_lost_its_newest_segment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A follow loop verifies 5 segments; the newest segment and its checkpoints are
    deleted; the next pass (another process, so only the file remembers) refuses the log
    instead of publishing the shorter one."""
    data = _log(tmp_path / "data", 5, per=4)
    monkeypatch.setenv(ENV, str(pin(data)))
    said: list[str] = []
    assert follow(data, every=0.0, passes=1, say=said.append, full_every=None) == 0
    assert any("up to date" in line for line in said), said
    assert _manifest(data)["log"]["records"] == 20
    _roll_back(data)
    said.clear()
    assert follow(data, every=0.0, passes=1, say=said.append, full_every=None) == 0
    refused = [line for line in said if "refused" in line]
    assert refused and "the log is shorter than the 20 records verified at " in refused[0], said
    assert not any("up to date" in line for line in said), said
    assert _manifest(data)["log"]["records"] == 20  # the shorter log was not published
    assert "a rollback" in json.loads((data / "replay.refused.json").read_text())["why"]


def test_judge_names_a_replaced_a_rewritten_and_an_inconsistent_log(data: Path) -> None:
    key = read_verifier(data / "keys" / "signing.pub")
    verdict = verify_data(data, key)
    marks = high_water.marks_of(verdict, "2026-12-01T00:00:00+00:00")
    assert high_water.judge(marks, verdict, None) is None
    chain, v = verdict.chains[0]
    other_root = dataclasses.replace(verdict, chains=((chain, dataclasses.replace(
        v, root=b"\x07" * 32)),))
    assert "its first 9 records do not give the root" in (
        high_water.judge(marks, other_root, None) or "")
    other_id = {"-": dataclasses.replace(marks["-"], log_id="f" * 32)}
    assert f"not log {'f' * 32} of which 9 records were verified at " in (
        high_water.judge(other_id, verdict, None) or "")
    smaller = {"-": dataclasses.replace(marks["-"], size=6)}
    assert high_water.judge(smaller, verdict, lambda c, n: b"\x07" * 32) is not None
    assert high_water.judge(smaller, verdict, lambda c, n: None) is None  # ok: not known
    gone = {"w9": dataclasses.replace(marks["-"], chain="w9")}
    assert "the log of worker w9 holds no record, but 9 were verified" in (
        high_water.judge(gone, verdict, None) or "")


def test_a_damaged_trusted_tree_file_refuses_the_log(data: Path) -> None:
    env = pinned_env(data)
    assert _run("replay", "--data", str(data), env=env).returncode == 0
    (data / high_water.FILE).write_text("{not json")
    refused = _run("replay", "--data", str(data), env=env)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "the largest tree verified cannot be read" in refused.stderr
    assert _run("replay", "--data", str(data), "--restored", "the file was damaged",
                env=env).returncode == 0


def test_a_key_retired_by_a_rotation_does_not_vouch_for_a_later_checkpoint(
        tmp_path: Path) -> None:
    retired = Signer("catwalk-ingest", Ed25519PrivateKey.generate())
    keyring = tmp_path / "trusted.keys"
    keyring.write_text(f"{retired.verifier.vkey} role=log from=2020-01-01 until=2020-12-31\n")
    data = _log(tmp_path / "data", 2, signer=retired)
    done = _run("ingest", "verify", "--data", str(data), env={ENV: str(keyring)})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"({retired.verifier.key_hash.hex()}) that signed the newest checkpoint" in done.stderr
    assert "outside its from=/until= days" in done.stderr
    refused = _run("replay", "--data", str(data), env={ENV: str(keyring)})
    assert refused.returncode == 1 and "outside its from=/until= days" in refused.stderr
