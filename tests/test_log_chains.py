"""A log of several chains (one per ingest worker, docs/log-integrity.md "Several workers"):
every reader reads all of them and they verify together; the lone ingest's chain alone
reads, verifies and replays exactly as before.

The workers' chains are written with ``LogWriter`` as a worker writes them (its own log,
quarantine and checkpoints directories, the data directory's one signing key); partition 0
moves from w1 to w2 and back: w1 holds offsets 0-4 and 10-14, w2 holds 5-9."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ingest.audit import prove
from ingest.event_index import EventIndex, key_of
from ingest.keys import load_signer
from ingest.log import LogWriter, Quarantined, Received
from ingest.topic_audit import _held
from replay.__main__ import _provenance
from replay.batch_decode import log_entries
from replay.run import TABLES, replay
from schemas import decode
from schemas.checkpoint import read_verifier
from schemas.log_verify import verify_data, verify_log
from schemas.logformat import chain_of, chains, segments
from tests.test_log_integrity import _received, _rewrite
from tests.test_replay_workers import _interleaved, _shift

REPO = Path(__file__).resolve().parent.parent


def _writer(data: Path, worker: str | None) -> LogWriter:
    chain = chain_of(data, worker)
    return LogWriter(chain.log, chain.quarantine, checkpoint_dir=chain.checkpoints,
                     signer=load_signer(data))


def _key(data: Path):
    return read_verifier(data / "keys" / "signing.pub")


@pytest.fixture
def lone(tmp_path: Path) -> Path:
    """The lone ingest's chain: 15 records in three segments."""
    data = tmp_path / "lone"
    with _writer(data, None) as log:
        for start in (0, 5, 10):
            log.append([_received(i) for i in range(start, start + 5)], [])
    return data


@pytest.fixture
def two(tmp_path: Path) -> Path:
    """w1: partition 0 offsets 0-4, then 10-14; w2: 5-9 (the partition moved and came back)."""
    data = tmp_path / "two"
    with _writer(data, "w1") as w1, _writer(data, "w2") as w2:
        w1.append([_received(i) for i in range(0, 5)], [])
        w2.append([_received(i) for i in range(5, 8)], [])
        w2.append([_received(i) for i in range(8, 10)], [])
        w1.append([_received(i) for i in range(10, 15)], [])
    return data


def test_the_lone_chain_verifies_reads_and_replays_as_before(lone: Path) -> None:
    key = _key(lone)
    verdict = verify_data(lone, key)
    alone = verify_log(lone / "log", key, checkpoints=[
        (str(p), p.read_text()) for p in sorted((lone / "checkpoints").glob("*.checkpoint"))])
    assert verdict.ok and verdict.lone
    assert verdict.line() == alone.line()
    assert verdict.line().startswith("OK: 15 records in 3 segments, Merkle root")
    assert verdict.root == alone.root.hex()
    assert verdict.checkpoint_text == alone.checkpoint_text
    assert verdict.checkpoint == alone.checkpoint
    assert [e[1] for e in log_entries(lone / "log")] == [
        f"log position {i} (round-events[0]@{i})" for i in range(15)]
    assert _provenance(lone, None, False) == {
        "verified": True, "verification": alone.line(), "records": 15,
        "root": alone.root.hex(), "checkpoint": alone.checkpoint_text,
        "key_fingerprint": key.vkey, "key_pinned": False}
    _rewrite(segments(lone / "log")[1], lambda rs: rs[:2])
    broken = verify_data(lone, key)
    assert broken.problem == verify_log(lone / "log", key).problem
    assert broken.problem is not None and broken.problem.startswith("segment-000002.avro")


def test_two_worker_chains_verify_together(two: Path) -> None:
    assert [c.name for c in chains(two)] == ["w1", "w2"]
    verdict = verify_data(two, _key(two))
    assert verdict.ok, verdict.problem
    assert not verdict.lone and verdict.records == 15
    w1, w2 = (v for _, v in verdict.chains)
    assert (w1.records, w2.records) == (10, 5)
    assert verdict.root == f"w1:{w1.root.hex()},w2:{w2.root.hex()}"
    assert verdict.checkpoint_text == (
        f"chain w1\n{w1.checkpoint_text}chain w2\n{w2.checkpoint_text}")
    assert verdict.line().startswith("OK: 15 records in 2 chains (log of worker w1: 10 records "
                                     "in 2 segments, Merkle root ")
    provenance = _provenance(two, None, False)
    assert provenance is not None and provenance["verified"] is True
    assert provenance["root"] == verdict.root and provenance["records"] == 15
    assert provenance["checkpoint"] == verdict.checkpoint_text


def test_every_chain_is_read_in_kafka_order(two: Path) -> None:
    entries = list(log_entries(two / "log"))
    assert [e[0] for e in entries] == list(range(15))
    assert [e[3] for e in entries] == [_received(i).value for i in range(15)]
    assert entries[4][1] == "log of worker w1 position 4 (round-events[0]@4)"
    assert entries[5][1] == "log of worker w2 position 0 (round-events[0]@5)"
    assert entries[10][1] == "log of worker w1 position 5 (round-events[0]@10)"
    index = EventIndex.from_log(chain_of(two, "w1").log)  # what worker w1 builds at start
    assert index.records == 15
    seen = index.seen(key_of(decode(_received(7).value).event_id))
    assert seen is not None and seen.coordinates == "round-events[0]@7"
    assert EventIndex.from_data(two).records == EventIndex.from_log(two / "log").records == 15


def test_a_tamper_in_w2_is_named_with_its_chain(two: Path) -> None:
    def flip(rs):
        v = bytearray(rs[1]["value"])
        v[-1] ^= 1
        return [rs[0], {**rs[1], "value": bytes(v)}, *rs[2:]]

    _rewrite(segments(chain_of(two, "w2").log)[0], flip)
    verdict = verify_data(two, _key(two))
    assert not verdict.ok
    assert verdict.problem is not None and verdict.problem.startswith(
        "log of worker w2: segment-000001.avro record 2 (position 1, round-events[0]@6")
    assert verdict.line().startswith("FAILED after 11 good records: log of worker w2:")
    assert _provenance(two, None, False) is None
    unverified = _provenance(two, None, True)
    assert unverified is not None and unverified["verified"] is False
    assert unverified["verification"] == f"not verified: {verdict.problem}"


def test_a_message_in_two_chains_is_named_in_both(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with _writer(data, "w1") as w1, _writer(data, "w2") as w2:
        w1.append([_received(i) for i in range(0, 5)], [])
        w2.append([_received(i) for i in range(4, 8)], [])  # 4 again: both took it
    verdict = verify_data(data, _key(data))
    assert verdict.problem == (
        "round-events[0]@4 is in two chains: log of worker w1 segment-000001.avro record 5 "
        "(position 4) and log of worker w2 segment-000001.avro record 1 (position 0) (a "
        "message written by two workers, or a chain's records copied into another)")


def test_a_copied_chain_is_named(two: Path) -> None:
    shutil.copytree(chain_of(two, "w2").log, two / "log" / "workers" / "w3")
    verdict = verify_data(two, _key(two))
    assert verdict.problem is not None
    assert "log of worker w3 and log of worker w2 are one log" in verdict.problem


def test_a_worker_that_wrote_nothing_yet_and_a_lone_chain_emptied(two: Path) -> None:
    _writer(two, "w3").close()  # its directories exist, no segment
    assert verify_data(two, _key(two)).ok
    with _writer(two, None) as lone:
        lone.append([_received(20)], [])
    assert [c.name for c in chains(two)] == ["", "w1", "w2", "w3"]
    assert verify_data(two, _key(two)).ok
    for seg in segments(two / "log"):
        seg.unlink()  # the lone chain's segments removed; its checkpoints stay
    verdict = verify_data(two, _key(two))
    assert verdict.problem is not None and verdict.problem.startswith("log: the log at ")


def test_a_checkpoint_kept_of_a_worker_chain_is_matched_by_its_log_id(
        two: Path, tmp_path: Path) -> None:
    kept = tmp_path / "w2-latest.checkpoint"
    shutil.copy(chain_of(two, "w2").checkpoints / "latest.checkpoint", kept)
    other = tmp_path / "other"
    shutil.copytree(two / "keys", other / "keys")  # the same key, another data directory
    with _writer(other, "w1") as log:
        log.append([_received(0)], [])
    key = _key(two)
    assert verify_data(two, key, checkpoints=[(str(kept), kept.read_text())]).ok
    # A checkpoint of a log no chain of this directory is.
    stranger = other / "checkpoints" / "workers" / "w1" / "latest.checkpoint"
    verdict = verify_data(two, key, checkpoints=[("stranger", stranger.read_text())])
    assert verdict.problem is not None
    assert verdict.problem.startswith("stranger: a checkpoint of log ")
    assert "which no chain of" in verdict.problem
    # w2's last segment removed with the checkpoints beside it: the kept one shows it.
    w2 = chain_of(two, "w2")
    segments(w2.log)[-1].unlink()
    shutil.rmtree(w2.checkpoints)
    assert verify_data(two, key).ok
    verdict = verify_data(two, key, checkpoints=[(str(kept), kept.read_text())])
    assert verdict.problem is not None and verdict.problem.startswith(
        f"log of worker w2: {kept}: signed at ")
    assert "records 3 to 4 were removed" in verdict.problem
    # The whole chain removed: its checkpoint names a log no chain is.
    shutil.rmtree(w2.log)
    verdict = verify_data(two, key, checkpoints=[(str(kept), kept.read_text())])
    assert verdict.problem is not None and "which no chain of" in verdict.problem


def test_topic_audit_holds_every_chain_and_its_quarantine(two: Path) -> None:
    with _writer(two, "w3") as w3:
        bad = Received(topic="round-events", partition=1, offset=0, timestamp_ms=1, key=b"T9",
                       value=b"junk")
        w3.append([_received(20)], [Quarantined(message=bad, reason="undecodable")])
    held = _held(two, "round-events")
    assert sorted(held) == [("round-events", 0, i) for i in [*range(15), 20]] + [
        ("round-events", 1, 0)]


def _cli(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_prove_and_verify_a_proof_across_chains(two: Path, tmp_path: Path) -> None:
    vkey = (two / "keys" / "signing.pub").read_text().strip()
    ok = _cli("ingest", "verify", "--data", str(two), "--key", vkey)
    assert ok.returncode == 0, ok.stderr
    assert "OK: 15 records in 2 chains" in ok.stdout
    body = prove(two, "T01-000001", key=vkey)
    assert "checkpoint" not in body and "tree_size" not in body
    assert [e["coordinates"] for e in body["events"]] == [
        f"round-events[0]@{i}" for i in range(15)]
    assert [e["chain"] for e in body["events"]] == ["w1"] * 5 + ["w2"] * 5 + ["w1"] * 5
    assert {e["tree_size"] for e in body["events"]} == {10, 5}
    proof = tmp_path / "r.proof"
    made = _cli("ingest", "prove", "T01-000001", "--data", str(two), "--out", str(proof))
    assert made.returncode == 0, made.stderr
    assert "against the checkpoint of each event's chain" in made.stderr
    checked = _cli("ingest", "verify", "--proof", str(proof), "--key", vkey,
                   "--data", str(tmp_path / "x"))
    assert checked.returncode == 0, checked.stderr
    assert "OK: 15 events of round T01-000001 are records of the log, in 2 chains" in (
        checked.stdout)
    body = json.loads(proof.read_text())
    body["events"][6]["checkpoint"] = body["events"][0]["checkpoint"]  # w2's event, w1's root
    proof.write_text(json.dumps(body))
    forged = _cli("ingest", "verify", "--proof", str(proof), "--key", vkey,
                  "--data", str(tmp_path / "x"))
    assert forged.returncode == 1
    assert "event 7 (round-events[0]@6): not in the tree of 10 records" in forged.stderr
    body["events"][6]["checkpoint"] = body["events"][5]["checkpoint"].replace("\n5\n", "\n6\n")
    proof.write_text(json.dumps(body))
    altered = _cli("ingest", "verify", "--proof", str(proof), "--key", vkey,
                   "--data", str(tmp_path / "x"))
    assert altered.returncode == 1 and "event 7: its checkpoint: bad signature" in altered.stderr
    kept = tmp_path / "kept.checkpoint"
    shutil.copy(chain_of(two, "w1").checkpoints / "latest.checkpoint", kept)
    with_kept = _cli("ingest", "verify", "--data", str(two), "--key", vkey,
                     "--checkpoint", str(kept))
    assert with_kept.returncode == 0, with_kept.stderr


def _spread(data: Path, messages: list[tuple[bytes | None, bytes]], workers: bool) -> None:
    """The messages on two partitions (by table); with ``workers``, partition 0 moves
    between w1 and w2 every 7 offsets and partition 1 the other way round; else all of it
    in the lone ingest's chain. Each chain appends 10 messages at a time."""
    offsets = [0, 0]
    placed = []
    for key, value in messages:
        partition = int(key[1:]) % 2 if key and key[1:].isdigit() else 0
        placed.append(Received(topic="round-events", partition=partition,
                               offset=offsets[partition], timestamp_ms=len(placed), key=key,
                               value=value))
        offsets[partition] += 1
    names = ["w1", "w2"] if workers else [None]
    writers = {name: _writer(data, name) for name in names}
    pending: dict[str | None, list[Received]] = {name: [] for name in names}
    try:
        for m in placed:
            name = names[(m.offset // 7 + m.partition) % 2] if workers else None
            pending[name].append(m)
            if len(pending[name]) == 10:
                writers[name].append(pending[name], [])
                pending[name] = []
        for name, rest in pending.items():
            if rest:
                writers[name].append(rest, [])
    finally:
        for w in writers.values():
            w.close()


def _rows(out: Path) -> dict[str, list[dict]]:
    rows = {}
    for name in TABLES:
        table = pq.read_table(out / f"{name}.parquet")
        rows[name] = table.drop_columns(["where"]).to_pylist() if name == "findings" else (
            table.to_pylist())
    return rows


def test_replay_of_workers_chains_gives_the_rounds_of_one_chain(tmp_path: Path) -> None:
    by_table = _shift()
    messages = _interleaved(by_table)
    messages.insert(30, (b"T05", b"\x00\x00\x00\x00\x02broken"))
    messages.insert(61, messages[12])  # a duplicate
    one, many = tmp_path / "one", tmp_path / "many"
    _spread(one, messages, workers=False)
    _spread(many, messages, workers=True)
    assert [c.name for c in chains(many)] == ["w1", "w2"]
    assert all(len(segments(c.log)) > 2 for c in chains(many))
    assert verify_data(many, _key(many)).ok
    a = replay(one / "log", one / "replay")
    b = replay(many / "log", many / "replay",
               provenance=_provenance(many, None, False))
    assert (a.rounds, a.evaluated, a.wagers) == (b.rounds, b.evaluated, b.wagers)
    assert a.rounds == 6 * 4
    assert sorted(f.kind for f in b.findings) == ["duplicate_event", "undecodable_record"]
    assert _rows(one / "replay") == _rows(many / "replay")
    wheres = pq.read_table(many / "replay" / "findings.parquet")["where"].to_pylist()
    assert all(w.startswith("log of worker w") for w in wheres)
    manifest = json.loads((many / "replay" / "manifest.json").read_text())
    assert manifest["verified"] is True and manifest["log"]["root"].startswith("w1:")
    # The same bytes for any number of replay processes, and for the same log again.
    c = replay(many / "log", tmp_path / "again", workers=2,
               provenance=_provenance(many, None, False))
    assert c == b
    for name in TABLES:
        assert ((many / "replay" / f"{name}.parquet").read_bytes()
                == (tmp_path / "again" / f"{name}.parquet").read_bytes())
    run = _cli("replay", "--data", str(many))
    assert run.returncode == 0, run.stderr
    assert (many / "replay" / "manifest.json").read_text() == json.dumps(
        manifest, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
