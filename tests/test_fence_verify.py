"""What verify and replay do with the fencing epochs and with a message in two chains
(schemas/log_epochs.py, docs/log-integrity.md "Several workers"), without a broker.

The chains are written with ``LogWriter`` as workers write them, each batch with the epochs a
worker would sign; partition 0 of ``round-events`` carries a shift of real events."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ingest.keys import load_signer
from ingest.log import LogWriter, Received
from replay.__main__ import _provenance
from replay.run import replay
from schemas.checkpoint import read_verifier
from schemas.log_verify import verify_data
from schemas.logformat import chain_of
from tests.events_factory import T0
from tests.test_replay_workers import _interleaved, _shift

REPO = Path(__file__).resolve().parent.parent
P0 = "round-events[0]"
MESSAGES = _interleaved(_shift(tables=3, rounds=2))


def _message(offset: int) -> Received:
    key, value = MESSAGES[offset]
    return Received(topic="round-events", partition=0, offset=offset,
                    timestamp_ms=T0 // 1000 + offset, key=key, value=value)


def _writer(data: Path, worker: str) -> LogWriter:
    chain = chain_of(data, worker)
    return LogWriter(chain.log, chain.quarantine, checkpoint_dir=chain.checkpoints,
                     signer=load_signer(data))


def _append(log: LogWriter, offsets: range, epoch: int | None) -> None:
    log.append([_message(i) for i in offsets], [], None if epoch is None else {P0: epoch})


def _key(data: Path):
    return read_verifier(data / "keys" / "signing.pub")


def test_epochs_that_grow_with_the_offsets_verify(tmp_path: Path) -> None:
    with _writer(tmp_path, "w1") as w1, _writer(tmp_path, "w2") as w2:
        _append(w1, range(0, 5), 1)
        _append(w2, range(5, 10), 2)  # the partition moved to w2 ...
        _append(w1, range(10, 15), 3)  # ... and back
    verdict = verify_data(tmp_path, _key(tmp_path))
    assert verdict.ok, verdict.problem
    assert verdict.findings == ()


def test_a_write_under_an_older_epoch_after_a_newer_one_is_named(tmp_path: Path) -> None:
    with _writer(tmp_path, "w1") as w1, _writer(tmp_path, "w2") as w2:
        _append(w1, range(0, 5), 1)
        _append(w2, range(5, 10), 2)
        _append(w1, range(10, 12), 1)  # the fenced worker wrote on
    verdict = verify_data(tmp_path, _key(tmp_path))
    assert verdict.problem == (
        "round-events[0]: the epochs go back: log of worker w1 segment-000002.avro wrote "
        "offsets 10..11 under epoch 1, but log of worker w2 segment-000001.avro had written "
        "offset 5 under epoch 2: a worker fenced off the partition wrote it after its new "
        "owner took it")


def test_an_identical_message_in_two_chains_is_a_finding_and_replayed_once(
        tmp_path: Path) -> None:
    twice, once = tmp_path / "twice", tmp_path / "once"
    with _writer(twice, "w1") as w1, _writer(twice, "w2") as w2:
        _append(w1, range(0, 6), 1)
        _append(w2, range(4, 10), 2)  # w1 was stopped and then wrote 4 and 5 too
        _append(w2, range(10, len(MESSAGES)), 2)
    with _writer(once, "w1") as w1:
        _append(w1, range(0, len(MESSAGES)), 1)
    verdict = verify_data(twice, _key(twice))
    assert verdict.ok, verdict.problem
    assert verdict.findings == (
        "round-events[0]@4..5 (2 messages) in two chains, byte for byte the same (key, value, "
        "timestamp): log of worker w1 segment-000001.avro record 5 (position 4, epoch 1) and "
        "log of worker w2 segment-000001.avro record 1 (position 0, epoch 2); written twice "
        "(a worker stopped past its group session), taken once",)
    assert verdict.line().endswith(
        "; 1 finding: messages in two chains with the same bytes, each taken once")

    provenance = _provenance(twice, str(twice / "keys" / "signing.pub"), False)
    assert provenance is not None and provenance["verified"] is True
    got = replay(twice / "log", twice / "replay", provenance=provenance)
    alone = replay(once / "log", once / "replay",
                   provenance=_provenance(once, str(once / "keys" / "signing.pub"), False))
    assert got.rounds == alone.rounds == 6
    assert got.wagers == alone.wagers > 0
    for name in ("rounds", "wagers", "hands"):
        assert pq.read_table(twice / "replay" / f"{name}.parquet").to_pylist() == \
            pq.read_table(once / "replay" / f"{name}.parquet").to_pylist()
    findings = pq.read_table(twice / "replay" / "findings.parquet").to_pylist()
    dup = [f for f in findings if f["kind"] == "message_in_two_chains"]
    assert [f["where"] for f in dup] == [
        "log of worker w2 position 0 (round-events[0]@4)",
        "log of worker w2 position 1 (round-events[0]@5)"]
    assert dup[0]["detail"] == (
        "the same Kafka message (round-events[0]@4, the same key and value) is also at log "
        "of worker w1 position 4 (round-events[0]@4): written twice, taken once")
    assert dup[0]["table_id"] and dup[0]["round_id"]
    # Nothing else: the event was not seen twice by the fold.
    assert [f for f in findings if f["kind"] != "message_in_two_chains"] == [
        f for f in pq.read_table(once / "replay" / "findings.parquet").to_pylist()]


def test_identical_copies_by_the_fenced_worker_are_forgiven_but_not_its_other_writes(
        tmp_path: Path) -> None:
    with _writer(tmp_path, "w1") as w1, _writer(tmp_path, "w2") as w2:
        _append(w2, range(0, 10), 2)
        _append(w1, range(3, 7), 1)  # only copies: a finding
    verdict = verify_data(tmp_path, _key(tmp_path))
    assert verdict.ok and len(verdict.findings) == 1
    with _writer(tmp_path, "w1") as w1:
        _append(w1, range(10, 12), 1)  # a message no one else holds, under the old epoch
    verdict = verify_data(tmp_path, _key(tmp_path))
    assert verdict.problem is not None and verdict.problem.startswith(
        "round-events[0]: the epochs go back: log of worker w1 segment-000002.avro wrote "
        "offsets 10..11 under epoch 1")


def test_segments_without_epochs_are_not_held_to_them(tmp_path: Path) -> None:
    with _writer(tmp_path, "w1") as w1, _writer(tmp_path, "w2") as w2:
        _append(w1, range(0, 5), 3)
        _append(w2, range(5, 10), None)  # written before fencing
    assert verify_data(tmp_path, _key(tmp_path)).ok


@pytest.mark.parametrize("other", ["value", "timestamp", "key"])
def test_other_bytes_at_the_same_coordinates_stay_a_failure(tmp_path: Path,
                                                            other: str) -> None:
    m = _message(4)
    changed = Received(topic=m.topic, partition=m.partition, offset=m.offset,
                       timestamp_ms=m.timestamp_ms + (other == "timestamp"),
                       key=b"T99" if other == "key" else m.key,
                       value=MESSAGES[5][1] if other == "value" else m.value)
    with _writer(tmp_path, "w1") as w1, _writer(tmp_path, "w2") as w2:
        _append(w1, range(0, 5), 1)
        w2.append([changed, _message(5)], [], {P0: 2})
    verdict = verify_data(tmp_path, _key(tmp_path))
    assert verdict.problem is not None and verdict.problem.startswith(
        f"round-events[0]@4 is in two chains with different bytes ({other}): log of worker w1 "
        "segment-000001.avro record 5 (position 4, epoch 1) and log of worker w2")
    assert _provenance(tmp_path, None, False) is None  # replay refuses


def test_verify_prints_the_finding_and_exits_0(tmp_path: Path) -> None:
    with _writer(tmp_path, "w1") as w1, _writer(tmp_path, "w2") as w2:
        _append(w1, range(0, 3), 1)
        _append(w2, range(2, 5), 2)
    done = subprocess.run([sys.executable, "-m", "ingest", "verify", "--data", str(tmp_path),
                           "--key", _key(tmp_path).vkey], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("verify: OK: 6 records in 2 chains")
    assert lines[1] == (
        "verify: finding: round-events[0]@2 in two chains, byte for byte the same (key, "
        "value, timestamp): log of worker w1 segment-000001.avro record 3 (position 2, epoch "
        "1) and log of worker w2 segment-000001.avro record 1 (position 0, epoch 2); written "
        "twice (a worker stopped past its group session), taken once")
