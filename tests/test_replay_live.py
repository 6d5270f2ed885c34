"""replay/live.py: a log that grows in random chunks, stepped after each, gives after every
step the files ``python -m replay`` writes for the same log, byte for byte; a log that
does not verify writes nothing; a rewritten log is replayed whole; ingest workers' chains
are left to ``python -m replay``."""

from __future__ import annotations

import contextlib
import io
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.keys import load_signer
from ingest.log import LogWriter, Received
from ingest.simulate import simulate_shift
from replay.__main__ import _provenance, log_verified
from replay.live import LiveReplay
from replay.run import replay
from schemas import encode
from schemas.keyring import ENV
from tests.conftest import REPO, run_cli
from tests.keyring_support import pin

FAULTS = ["duplicated_events", "missing_events", "dealt_twice", "overpay", "past_posting",
          "jackpot_step_missing"]


def _messages(seed: int, tables: int = 4, rounds: int = 10,
              ) -> tuple[list[tuple[bytes | None, bytes]], set[str]]:
    """A shift of all four games with faults, and two records that do not decode; the
    kinds of fault injected."""
    events, labels = simulate_shift(tables=tables, rounds=rounds, seed=seed, fault_rate=0.3,
                                    faults=FAULTS)
    messages: list[tuple[bytes | None, bytes]] = [(e.table_id.encode(), encode(e))
                                                  for e in events]
    messages.insert(len(messages) // 3, (b"T02", b"\x00\x00\x00\x00\x02broken"))
    messages.insert(2 * len(messages) // 3, (None, b"not even framed"))
    return messages, {label.kind for label in labels}


class _Log:
    """A data directory's log written batch by batch, each batch a signed segment."""

    def __init__(self, data: Path, worker: str | None = None) -> None:
        sub = Path("workers") / worker if worker else Path()
        self.writer = LogWriter(data / "log" / sub, data / "quarantine" / sub,
                                signer=load_signer(data),
                                checkpoint_dir=data / "checkpoints" / sub)
        self.offset = 0

    def append(self, messages: list[tuple[bytes | None, bytes]]) -> None:
        self.writer.append([Received(topic="round-events", partition=0, offset=self.offset + i,
                                     timestamp_ms=self.offset + i, key=key, value=value)
                            for i, (key, value) in enumerate(messages)], [])
        self.offset += len(messages)

    def close(self) -> None:
        self.writer.close()


def _batch(data: Path, out: Path) -> None:
    """What ``python -m replay --data DATA`` writes, into ``out``: the same verification
    (replay/__main__.py) and the same replay, in this process."""
    with contextlib.redirect_stderr(io.StringIO()):
        provenance = _provenance(data, None, False)
    assert provenance is not None and log_verified(provenance)
    from replay.outputs import output_signer

    # signed with the data directory's outputs key, as ``python -m replay --data DATA``
    replay(data / "log", out, provenance=provenance, signer=output_signer(data))


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def _same_as_batch(data: Path, tmp: Path) -> dict[str, bytes]:
    batch = tmp / "batch"
    _batch(data, batch)
    live, want = _files(data / "replay"), _files(batch)
    # eight tables, the manifest and its signature
    assert sorted(live) == sorted(want) and len(want) == 10
    for name in want:
        assert live[name] == want[name], f"{name} differs from a batch replay"
    return live


@pytest.mark.parametrize("seed", [3, 11])
def test_every_step_writes_what_a_batch_replay_writes(tmp_path, seed):
    data = tmp_path / "data"
    messages, kinds = _messages(seed)
    assert {"duplicated_events", "missing_events", "dealt_twice"} <= kinds, kinds
    rng = random.Random(seed)
    log = _Log(data)
    live = LiveReplay(data, full_every=None)
    at = steps = whole = 0
    try:
        while at < len(messages):
            size = rng.choice([1, 2, 7, 40, 150, 400])
            log.append(messages[at:at + size])
            if rng.random() < 0.5:
                log.append(messages[at + size:at + size + 3])  # two segments in one step
                size += 3
            at += size
            forgot = steps > 0 and rng.random() < 0.25
            if forgot:  # the next step verifies the whole log, and takes only what is new
                live.verifier.forget()
            got = live.step()
            assert got.ok, got.message
            assert got.records == min(at, len(messages)) and not got.rebuilt
            assert got.new == min(size, len(messages) - at + size)
            if steps == 0 or forgot:
                whole += 1
                assert got.verified.startswith("the whole log ("), got.verified
            else:
                assert " new segment" in got.verified, got.verified
            steps += 1
            _same_as_batch(data, tmp_path)
    finally:
        log.close()
    assert steps > 5 and steps - whole > 3 and whole > 1
    again = live.step()  # nothing new: nothing decoded, the same files
    assert again.ok and again.new == 0 and again.judged == 0
    _same_as_batch(data, tmp_path)


def test_the_files_are_those_of_python_m_replay(tmp_path):
    """The command itself, once, over a log stepped in three chunks."""
    data = tmp_path / "data"
    messages, _ = _messages(5, tables=3, rounds=6)
    log = _Log(data)
    live = LiveReplay(data)
    try:
        for part in (messages[:100], messages[100:101], messages[101:]):
            log.append(part)
            assert live.step().ok
    finally:
        log.close()
    mine = _files(data / "replay")
    done = subprocess.run([sys.executable, "-m", "replay", "--data", str(data)], cwd=REPO,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert _files(data / "replay") == mine


def test_a_log_that_does_not_verify_writes_nothing_and_the_next_step_tries_again(tmp_path):
    data = tmp_path / "data"
    messages, _ = _messages(3)
    log = _Log(data)
    live = LiveReplay(data)
    try:
        log.append(messages[:200])
        assert live.step().ok
        before = _files(data / "replay")
        log.append(messages[200:400])
        segment = sorted((data / "log").glob("segment-*.avro"))[-1]
        good = segment.read_bytes()
        bad = bytearray(good)
        bad[len(bad) // 2] ^= 0xFF
        segment.write_bytes(bytes(bad))
        refused = live.step()
        assert refused.status == "refused" and "REFUSED" in refused.message, refused
        assert "Nothing was written" in refused.message
        assert _files(data / "replay") == before
        segment.write_bytes(good)
        got = live.step()
        assert got.ok and got.new == 200 and not got.rebuilt
        _same_as_batch(data, tmp_path)
    finally:
        log.close()


def test_a_log_rewritten_under_it_is_refused_then_replayed_whole_once_restored(
        tmp_path, monkeypatch):
    """The same number of records and more, but another log (another shift): the largest
    tree verified (with the key pinned) refuses it (replay/high_water.py) until the operator
    says, with ``python -m replay --restored REASON``, that it is meant; then nothing kept
    is trusted."""
    data = tmp_path / "data"
    live = LiveReplay(data)
    first = _Log(data)
    monkeypatch.setenv(ENV, str(pin(data)))
    try:
        first.append(_messages(3)[0][:300])
        assert live.step().ok
    finally:
        first.close()
    shutil.rmtree(data / "log")
    shutil.rmtree(data / "checkpoints")
    other = _Log(data)
    try:
        other.append(_messages(8)[0][:350])
        refused = live.step()
        assert refused.status == "refused"
        assert "of which 300 records were verified at " in refused.message, refused.message
        assert "the log was replaced" in refused.message
        assert (data / "replay.refused.json").exists()
        restored = run_cli("replay", "--data", str(data), "--restored", "a new shift's log")
        assert restored.returncode == 0, restored.stderr
        got = live.step()
    finally:
        other.close()
    assert got.ok and got.new == got.records == 350  # nothing of the old log kept
    _same_as_batch(data, tmp_path)


def test_ingest_workers_chains_are_left_to_python_m_replay(tmp_path):
    data = tmp_path / "data"
    w1, w2 = _Log(data, "w1"), _Log(data, "w2")
    messages, _ = _messages(3, tables=2, rounds=3)
    try:
        w1.append(messages[:50])
        w2.offset = 50
        w2.append(messages[50:90])
    finally:
        w1.close()
        w2.close()
    got = LiveReplay(data).step()
    assert got.status == "fallback" and "ingest workers (w1, w2)" in got.message, got
    assert not (data / "replay").exists()


def test_no_log_is_refused(tmp_path):
    got = LiveReplay(tmp_path / "nothing").step()
    assert got.status == "refused" and "no log at" in got.message
