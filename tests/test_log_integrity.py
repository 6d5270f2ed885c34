"""Tamper evidence of the log (issue 7 item 1): every kind of tampering is detected and the
first bad record, header or checkpoint is named; inclusion proofs check offline.

Each test writes a real log with ``LogWriter`` (three segments of three records), tampers
with it as an adversary would, and runs the verifier and the command a regulator runs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastavro import block_reader, reader, writer

from ingest.log import LogWriter, Received
from schemas import RoundEnded, RoundStarted, WagerPlaced, encode
from schemas.checkpoint import Signer, read_verifier
from schemas.log_verify import verify_log
from schemas.logformat import (
    META_CHECKPOINT,
    META_NEXT_OFFSETS,
    chain_hash,
    record_schema,
    segments,
)
from tests.events_factory import Table
from tests.keyring_support import pinned_env

REPO = Path(__file__).resolve().parent.parent


def _received(offset: int) -> Received:
    value = encode(Table().event("T01-000001", WagerPlaced(seat=1, wager="main",
                                                           amount_cents=100 + offset),
                                 seq=offset + 1))
    return Received(topic="round-events", partition=0, offset=offset,
                    timestamp_ms=1_000 + offset, key=b"T01", value=value)


def _whole_received(offset: int, last: int) -> Received:
    """Record ``offset`` of one whole round of ``last + 1`` events: RoundStarted at offset 0
    (table_seq 1), RoundEnded at ``last``, wagers between."""
    payload = (RoundStarted(game="pai_gow_poker", dealer_id="E011") if offset == 0 else
               RoundEnded() if offset == last else
               WagerPlaced(seat=1, wager="main", amount_cents=100 + offset))
    value = encode(Table().event("T01-000001", payload, seq=offset + 1))
    return Received(topic="round-events", partition=0, offset=offset,
                    timestamp_ms=1_000 + offset, key=b"T01", value=value)


@pytest.fixture
def whole(tmp_path: Path) -> Path:
    """A log of one whole round, RoundStarted to RoundEnded: three segments of three."""
    with LogWriter(tmp_path / "log", tmp_path / "quarantine") as log:
        for batch in range(3):
            log.append([_whole_received(batch * 3 + i, 8) for i in range(3)], [])
    return tmp_path


@pytest.fixture
def data(tmp_path: Path) -> Path:
    with LogWriter(tmp_path / "log", tmp_path / "quarantine") as log:
        for batch in range(3):
            log.append([_received(batch * 3 + i) for i in range(3)], [])
    return tmp_path


def _verify(data: Path, *kept: Path):
    key = read_verifier(data / "keys" / "signing.pub")
    extra = [(str(p), p.read_text()) for p in kept]
    extra += [(str(p), p.read_text()) for p in sorted((data / "checkpoints").glob("*"))]
    return verify_log(data / "log", key, checkpoints=extra)


def _segment(data: Path, n: int) -> Path:
    return segments(data / "log")[n]


def _rewrite(segment: Path, change_records=None, change_meta=None) -> None:
    with segment.open("rb") as fo:
        r = reader(fo)
        meta = {k: v for k, v in r.metadata.items() if k.startswith("catwalk.")}
        records = list(r)
    if change_records:
        records = change_records(records)
    if change_meta:
        meta = change_meta(meta)
    with segment.open("wb") as fo:
        writer(fo, record_schema(), records, metadata=meta, codec="deflate")


def _rechain(records, prev):
    out = []
    for rec in records:
        fields = {k: rec[k] for k in ("position", "topic", "partition", "offset",
                                      "timestamp_ms", "key", "value")}
        digest = chain_hash(prev_hash=prev, **fields)
        out.append({**rec, "prev_hash": prev, "hash": digest})
        prev = digest
    return out


def test_an_untouched_log_verifies(data: Path) -> None:
    verdict = _verify(data)
    assert verdict.ok, verdict.problem
    assert verdict.records == 9 and verdict.segments == 3
    assert verdict.checkpoint is not None and verdict.checkpoint.size == 9
    assert verdict.checkpoint.next_offsets == {"round-events[0]": 9}


def test_a_modified_byte_in_a_record_is_named(data: Path) -> None:
    def flip(rs):
        v = bytearray(rs[1]["value"])
        v[-2] ^= 1  # the amount's last byte (before the patron id's null): still an event
        return [rs[0], {**rs[1], "value": bytes(v)}, rs[2]]

    _rewrite(_segment(data, 1), flip)
    verdict = _verify(data)
    assert not verdict.ok and verdict.records == 4
    assert re.search(r"segment-000002\.avro record 2 \(position 4, round-events\[0\]@4, "
                     r"event [0-9a-f-]{36}\): its contents do not match its hash",
                     verdict.problem or ""), verdict.problem


def test_a_flipped_byte_inside_a_compressed_block_is_a_named_failure(data: Path) -> None:
    seg = _segment(data, 0)
    raw = bytearray(seg.read_bytes())
    with seg.open("rb") as fo:
        header_end = next(iter(block_reader(fo))).offset
    for i in range(16):  # 16 corrupted bytes in the middle of the deflate block
        raw[header_end + 20 + i] ^= 0xA5
    seg.write_bytes(bytes(raw))
    verdict = _verify(data)
    assert not verdict.ok and verdict.records == 0
    assert "segment-000001.avro" in (verdict.problem or "")


@pytest.mark.parametrize(("change", "found"), [
    (lambda rs: [rs[0], rs[2]], r"segment-000002\.avro record 2 \(position 4, "
     r"round-events\[0\]@5.*position 5 where 4 was expected"),
    (lambda rs: [rs[1], rs[0], rs[2]], r"segment-000002\.avro record 1 \(position 3, "
     r"round-events\[0\]@4.*position 4 where 3 was expected"),
    (lambda rs: [rs[0], rs[1], {**rs[1], "position": 5}, rs[2]],
     r"segment-000002\.avro record 3 .*prev_hash does not match"),
], ids=["removed", "reordered", "inserted"])
def test_a_removed_reordered_or_inserted_record_is_named(data: Path, change, found) -> None:
    _rewrite(_segment(data, 1), change)
    verdict = _verify(data)
    assert not verdict.ok
    assert re.search(found, verdict.problem or ""), verdict.problem


def test_a_rewritten_chain_is_caught_by_the_signed_root(data: Path) -> None:
    """An insider alters a wager and recomputes every hash after it: the chain holds, the
    signed Merkle root does not."""
    seg = _segment(data, 1)
    with seg.open("rb") as fo:
        prev = next(iter(reader(fo)))["prev_hash"]

    def forge(rs):
        other = _received(4).value.replace(b"T01", b"T01")
        altered = [rs[0], {**rs[1], "value": other[:-1] + bytes([other[-1] ^ 2])}, rs[2]]
        return _rechain(altered, prev)

    _rewrite(seg, forge)
    verdict = _verify(data)
    assert not verdict.ok and verdict.records == 6
    assert re.search(r"segment-000002\.avro \(records 3 to 5\): the records do not give the "
                     r"Merkle root its signed checkpoint holds", verdict.problem or "")


def test_a_removed_tail_is_caught_by_the_checkpoints_kept(data: Path, tmp_path: Path) -> None:
    kept = tmp_path / "regulator.checkpoint"
    shutil.copy(data / "checkpoints" / "latest.checkpoint", kept)
    _segment(data, 2).unlink()
    shutil.rmtree(data / "checkpoints")  # the adversary removes the ones beside the log too
    assert _verify(data).ok  # what the directory alone can show: a shorter, intact log
    verdict = _verify(data, kept)
    assert not verdict.ok
    assert re.search(r"regulator\.checkpoint: signed at .*, it covers 9 records but the log "
                     r"holds 6: records 6 to 8 were removed", verdict.problem or "")


def test_a_removed_tail_is_caught_by_the_checkpoints_beside_the_log(data: Path) -> None:
    _segment(data, 2).unlink()
    verdict = _verify(data)
    assert not verdict.ok and "covers 9 records but the log holds 6" in (verdict.problem or "")


def test_a_segment_cut_at_a_block_boundary_is_named(data: Path) -> None:
    _rewrite(_segment(data, 2), lambda rs: rs[:1])
    verdict = _verify(data)
    assert not verdict.ok
    assert re.search(r"segment-000003\.avro: its signed checkpoint covers 9 records but the "
                     r"log holds 7 .*cut", verdict.problem or ""), verdict.problem


def test_an_edited_next_offsets_header_is_named(data: Path) -> None:
    def skip(meta):
        return {**meta, META_NEXT_OFFSETS: json.dumps({"round-events[0]": 2009})}

    _rewrite(_segment(data, 2), change_meta=skip)
    verdict = _verify(data)
    assert not verdict.ok
    assert "segment-000003.avro: the header's catwalk.next_offsets" in (verdict.problem or "")
    with LogWriter(data / "log", data / "quarantine") as log:  # ingest resumes from the
        assert log.next_offset("round-events", 0) == 9  # signed offsets, never the header's


def test_an_altered_checkpoint_has_a_bad_signature(data: Path) -> None:
    def alter(meta):
        text = meta[META_CHECKPOINT].replace("\n9\n", "\n8\n", 1)
        return {**meta, META_CHECKPOINT: text}

    _rewrite(_segment(data, 2), change_meta=alter)
    verdict = _verify(data)
    assert not verdict.ok
    assert re.search(r"segment-000003\.avro header: bad signature: the checkpoint for 8 "
                     r"records .* was altered or forged", verdict.problem or "")


def test_a_log_resigned_by_another_key_fails_against_the_pinned_key(data: Path,
                                                                   tmp_path: Path) -> None:
    """The insider with write access re-signs every segment with a key of his own and
    replaces keys/signing.pub: the key the regulator pinned still refuses it."""
    pinned = read_verifier(data / "keys" / "signing.pub")
    forger = Signer("catwalk-ingest", Ed25519PrivateKey.generate())
    for seg in segments(data / "log"):
        def resign(meta):
            from schemas.checkpoint import parse
            return {**meta, META_CHECKPOINT: forger.sign(parse(meta[META_CHECKPOINT]))}
        _rewrite(seg, change_meta=resign)
    (data / "keys" / "signing.pub").write_text(forger.verifier.vkey + "\n")
    shutil.rmtree(data / "checkpoints")
    assert _verify(data).ok  # against the key in the directory, it looks fine
    verdict = verify_log(data / "log", pinned)
    assert not verdict.ok
    assert "is not signed by the key catwalk-ingest" in (verdict.problem or "")


@pytest.mark.parametrize("what", ["missing", "empty"])
def test_a_missing_or_empty_log_does_not_verify(data: Path, what: str) -> None:
    for seg in segments(data / "log"):
        seg.unlink()
    if what == "missing":
        shutil.rmtree(data / "log")
    verdict = verify_log(data / "log", read_verifier(data / "keys" / "signing.pub"))
    assert not verdict.ok
    assert ("no such directory" if what == "missing" else "is empty") in (verdict.problem or "")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ingest", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_the_regulators_commands(whole: Path, tmp_path: Path) -> None:
    data = whole
    vkey = (data / "keys" / "signing.pub").read_text().strip()
    ok = _cli("verify", "--data", str(data), "--key", vkey)
    assert ok.returncode == 0, ok.stderr
    assert "OK: 9 records in 3 segments" in ok.stdout
    proof = tmp_path / "r.proof"
    made = _cli("prove", "T01-000001", "--data", str(data), "--out", str(proof))
    assert made.returncode == 0, made.stderr
    body = json.loads(proof.read_text())
    assert [e["coordinates"] for e in body["events"]] == [
        f"round-events[0]@{i}" for i in range(9)]
    checked = _cli("verify", "--proof", str(proof), "--key", vkey, "--data", str(tmp_path / "x"))
    assert checked.returncode == 0, checked.stderr
    assert "OK: 9 events of round T01-000001" in checked.stdout
    body["events"][3]["path"][0] = body["events"][4]["path"][0]
    proof.write_text(json.dumps(body))
    forged = _cli("verify", "--proof", str(proof), "--key", vkey, "--data", str(tmp_path / "x"))
    assert forged.returncode == 1
    assert "event 4 (round-events[0]@3): not in the tree of 9 records" in forged.stderr
    _rewrite(_segment(data, 0), lambda rs: rs[:2])
    bad = _cli("verify", "--data", str(data), "--key", vkey)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert "segment-000001.avro" in bad.stderr
    refused = _cli("prove", "T01-000001", "--data", str(data))
    assert refused.returncode == 2 and "does not verify" in refused.stderr
    nothing = _cli("verify", "--data", str(tmp_path / "nowhere"), "--key", vkey)
    assert nothing.returncode == 1 and "no such directory" in nothing.stderr
    badkey = _cli("verify", "--data", str(data), "--key", "not-a-key")
    assert badkey.returncode == 2 and "--key" in badkey.stderr


def test_two_writers_the_second_refuses(data: Path) -> None:
    with LogWriter(data / "log", data / "quarantine"):
        code = ("import sys; from pathlib import Path; from ingest.log import LogWriter\n"
                f"LogWriter(Path({str(data / 'log')!r}), Path({str(data / 'quarantine')!r}))")
        other = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                               text=True, timeout=60)
        assert other.returncode != 0
        assert "is already being written by pid" in other.stderr
    with LogWriter(data / "log", data / "quarantine") as again:  # released on close
        assert again.records == 9


def _replay_cli(*args: str, env: dict[str, str] | None = None,
                ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "replay", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def test_replay_verifies_first_and_refuses_a_broken_log(data: Path) -> None:
    env = pinned_env(data)
    ok = _replay_cli("--data", str(data), env=env)
    assert ok.returncode == 0, ok.stderr
    manifest = json.loads((data / "replay" / "manifest.json").read_text())
    assert manifest["verified"] is True
    assert manifest["log"]["records"] == 9
    assert manifest["log"]["checkpoint"].startswith("catwalk.invalid/log/")
    before = (data / "replay" / "rounds.parquet").read_bytes()

    _rewrite(_segment(data, 2), lambda rs: rs[:1])  # the tail cut
    refused = _replay_cli("--data", str(data), env=env)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "REFUSED: the log does not verify" in refused.stderr
    assert "segment-000003.avro" in refused.stderr
    assert (data / "replay" / "rounds.parquet").read_bytes() == before  # nothing replaced

    marked = _replay_cli("--data", str(data), "--unverified", env=env)
    assert marked.returncode == 0, marked.stderr
    manifest = json.loads((data / "replay" / "manifest.json").read_text())
    assert manifest["verified"] is False
    assert "segment-000003.avro" in manifest["verification"]
    import pyarrow.parquet as pq

    meta = pq.read_schema(data / "replay" / "wagers.parquet").metadata
    assert json.loads(meta[b"catwalk.provenance"])["verified"] is False
    checks = subprocess.run([sys.executable, "-m", "checks", "--data", str(data)], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert checks.returncode == 0
    assert "unverified" in (checks.stdout + checks.stderr).lower()


def test_replay_without_a_key_refuses(data: Path) -> None:
    (data / "keys" / "signing.pub").unlink()
    refused = _replay_cli("--data", str(data))
    assert refused.returncode == 1
    assert "no public key" in refused.stderr and "--key" in refused.stderr
    assert not (data / "replay").exists()


def damage_block(seg: Path, at: int = 30) -> None:
    """Flip 16 bytes inside the segment's first compressed block."""
    raw = bytearray(seg.read_bytes())
    with seg.open("rb") as fo:
        start = next(iter(block_reader(fo))).offset
    for i in range(16):
        raw[start + at + i] ^= 0x5A
    seg.write_bytes(bytes(raw))


def test_a_damaged_compressed_block_is_a_named_error_for_every_command(data: Path) -> None:
    damage_block(_segment(data, 1))
    runs = {
        "verify": _cli("verify", "--data", str(data)),
        "replay": _replay_cli("--data", str(data)),
        "replay --unverified": _replay_cli("--data", str(data), "--unverified"),
        "ingest": _cli("--data", str(data), "--bootstrap", "127.0.0.1:9", "--until-idle", "1"),
    }
    for name, run in runs.items():
        assert run.returncode != 0, name
        assert "Traceback" not in run.stderr, f"{name}:\n{run.stderr}"
        assert "segment-000002.avro" in run.stderr, f"{name}:\n{run.stderr}"


def test_a_note_that_checked_once_does_not_let_an_altered_copy_through() -> None:
    """Verifier.check remembers only signatures that checked, by key, signature and message:
    the same note again checks without Ed25519; the same signature on an altered body, or
    an altered signature on the same body, is checked for real and refused, even after the
    genuine one was remembered."""
    import base64

    from schemas.checkpoint import Checkpoint, CheckpointError, open_signed

    signer = Signer("catwalk-ingest", Ed25519PrivateKey.generate())
    key = signer.verifier
    note = signer.sign(Checkpoint(log_id="0" * 32, size=9, root=b"\x01" * 32,
                                  signed_at="2026-12-01T00:00:00Z", segment="segment-000001.avro",
                                  chain=b"\xab" * 32, next_offsets={"t[0]": 9}))
    assert open_signed(note, key).size == 9
    assert open_signed(note, key).size == 9  # remembered
    altered_body = note.replace("\n9\n", "\n8\n", 1)
    with pytest.raises(CheckpointError, match="bad signature"):
        open_signed(altered_body, key)
    body, _, lines = note.partition("\n\n")
    name, stamp = lines.split("\n")[0].rsplit(" ", 1)  # the catwalk-ingest line
    raw = bytearray(base64.b64decode(stamp))
    raw[-1] ^= 1
    forged_sig = f"{body}\n\n{name} {base64.b64encode(bytes(raw)).decode()}\n"
    with pytest.raises(CheckpointError, match="bad signature"):
        open_signed(forged_sig, key)
