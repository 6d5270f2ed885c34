"""schemas/log_resume.py: verification that goes on from its last call gives, after each
append, the verdict, root and checkpoint of a whole verification (``verify_data``); a
segment or checkpoint file changed after it was verified makes it verify the whole log,
which names the change in its usual words; a change its fingerprints cannot see is caught
by the whole verification in the background (schemas/log_recheck.py), after which the next
call refuses; a new segment that does not chain is refused in today's words."""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import threading
from pathlib import Path

import pytest

from checks.__main__ import parse_full_every
from checks.follow import follow, log_mark
from ingest.keys import load_signer
from ingest.log import LogWriter, Received
from replay.batch_decode import KeptRecords
from replay.live import LiveReplay
from schemas import log_resume
from schemas.checkpoint import Checkpoint, Verifier
from schemas.log_recheck import Recheck
from schemas.log_resume import ResumableVerifier
from schemas.log_verify import DataVerdict, verify_data
from schemas.logformat import leaf_input, read_log
from schemas.merkle import Tree, leaf_hash

WAIT = 120.0
"""Seconds a test waits at most for the child verifying in the background."""


class _Log:
    """A lone ingest's log written segment by segment (records of a few bytes each)."""

    def __init__(self, data: Path, tag: bytes = b"") -> None:
        self.data = data
        self.writer = LogWriter(data / "log", data / "quarantine", signer=load_signer(data))
        self.offset = 0
        self.tag = tag

    def append(self, n: int) -> None:
        self.writer.append([Received(topic="round-events", partition=0, offset=self.offset + i,
                                     timestamp_ms=1_000 + self.offset + i, key=b"T01",
                                     value=self.tag + b"event %d" % (self.offset + i))
                            for i in range(n)], [])
        self.offset += n

    def close(self) -> None:
        self.writer.close()


def _key(data: Path) -> Verifier:
    return load_signer(data).verifier


def _same(got: DataVerdict, want: DataVerdict) -> None:
    assert (got.ok, got.problem, got.records, got.root, got.checkpoint_text, got.line()) == (
        want.ok, want.problem, want.records, want.root, want.checkpoint_text, want.line())
    assert got.chains[0][1].segments == want.chains[0][1].segments


def _segment(data: Path, number: int) -> Path:
    return data / "log" / f"segment-{number:06d}.avro"


def _log(tmp_path: Path, sizes: list[int]) -> tuple[Path, _Log]:
    data = tmp_path / "data"
    log = _Log(data)
    for n in sizes:
        log.append(n)
    return data, log


def test_each_call_after_an_append_gives_the_whole_verification_s_verdict(tmp_path):
    data, log = _log(tmp_path, [3])
    key = _key(data)
    rv = ResumableVerifier(full_every=None)
    try:
        got = rv(data, key)
        _same(got, verify_data(data, key))
        assert got.ok and not rv.resumed and "first pass" in rv.said
        for n in (1, 5, 2, 4, 1):
            before = rv.records
            log.append(n)
            log.append(1)
            kept = KeptRecords()
            got = rv(data, key, keep=kept)
            want = verify_data(data, key)
            _same(got, want)
            assert rv.resumed and rv.said.startswith("2 new segments after"), rv.said
            assert rv.base == before and got.records == before + n + 1
            # the records given are exactly the new ones, as a whole verification reads them
            whole = KeptRecords()
            verify_data(data, key, keep=whole)
            (mine,) = kept.entries.values()
            (theirs,) = whole.entries.values()
            assert [e[1:] for e in mine] == [e[1:] for e in theirs[before:]]
        again = rv(data, key)  # nothing new: the same verdict, nothing read
        _same(again, verify_data(data, key))
        assert rv.resumed and rv.said.startswith("no new segment")
    finally:
        log.close()
    # the shutdown checkpoint (latest.checkpoint rewritten, the same size) is checked too
    _same(rv(data, key), verify_data(data, key))
    assert rv.resumed


def _flip(path: Path) -> None:
    """A byte of the records' compressed block changed, in place (the same size)."""
    raw = bytearray(path.read_bytes())
    raw[-30] ^= 0xFF
    with path.open("r+b") as fo:
        fo.write(raw)


def _swap(a: Path, b: Path) -> None:
    tmp = a.with_name("swap.tmp")
    a.rename(tmp)
    b.rename(a)
    tmp.rename(b)


TAMPERS = {
    "altered": lambda data: _flip(_segment(data, 2)),
    "removed": lambda data: _segment(data, 2).unlink(),
    "renamed": lambda data: _segment(data, 3).rename(_segment(data, 9)),
    "swapped": lambda data: _swap(_segment(data, 2), _segment(data, 3)),
    "truncated": lambda data: os.truncate(_segment(data, 3),
                                          _segment(data, 3).stat().st_size - 40),
}


def test_a_segment_changed_after_it_was_verified_is_named_by_a_whole_verification(tmp_path):
    for name, tamper in TAMPERS.items():
        data, log = _log(tmp_path / name, [4, 3, 5, 2])
        log.close()
        key = _key(data)
        rv = ResumableVerifier(full_every=None)
        assert rv(data, key).ok
        tamper(data)
        got = rv(data, key)
        want = verify_data(data, key)
        assert not want.ok, name
        _same(got, want)
        assert not rv.resumed and rv.said.startswith("the whole log ("), (name, rv.said)
        assert rv.records == 0, name  # nothing kept: the next call verifies all again
        rv(data, key)
        assert not rv.resumed, name


def test_what_fingerprints_say_changed(tmp_path):
    data, log = _log(tmp_path, [4, 3, 5, 2])
    log.close()
    key = _key(data)
    rv = ResumableVerifier(full_every=None)
    rv(data, key)
    _flip(_segment(data, 2))
    rv(data, key)
    assert "segment-000002.avro changed since it was verified" in rv.said, rv.said
    rv2 = ResumableVerifier(full_every=None)
    data2, log2 = _log(tmp_path / "b", [4, 3, 5, 2])
    log2.close()
    rv2(data2, _key(data2))
    _segment(data2, 3).rename(_segment(data2, 9))
    rv2(data2, _key(data2))
    assert "segment-000004.avro is where segment-000003.avro was verified" in rv2.said, rv2.said


def test_a_checkpoint_file_changed_after_it_was_verified_is_checked_again(tmp_path):
    data, log = _log(tmp_path, [4, 3, 5])
    key = _key(data)
    rv = ResumableVerifier(full_every=None)
    try:
        assert rv(data, key).ok
        beside = data / "checkpoints"
        # the signed checkpoint of segment 1 put in segment 3's file: it verifies, but it
        # is not of the log's first 12 records
        (beside / "segment-000003.checkpoint").write_text(
            (beside / "segment-000001.checkpoint").read_text())
        log.append(2)
        got = rv(data, key)
    finally:
        log.close()
    want = verify_data(data, key)
    _same(got, want)
    assert want.ok  # a checkpoint of the first 4 records is still one of this log
    assert rv.resumed
    # a text that does not verify is refused, in a whole verification's words
    (data / "checkpoints" / "segment-000002.checkpoint").write_text("not a checkpoint\n")
    got = rv(data, key)
    want = verify_data(data, key)
    assert not want.ok and "segment-000002.checkpoint" in (want.problem or "")
    _same(got, want)
    assert not rv.resumed


def test_a_checkpoint_of_records_not_at_a_segment_end_is_verified_whole(tmp_path):
    data, log = _log(tmp_path, [4, 3, 5])
    log.close()
    key = _key(data)
    rv = ResumableVerifier(full_every=None)
    first = rv(data, key)
    tree, chain = Tree(), b""
    for rec in list(read_log(data / "log"))[:6]:
        tree.append(leaf_hash(leaf_input(position=rec.position, topic=rec.topic,
                                         partition=rec.partition, offset=rec.offset,
                                         timestamp_ms=rec.timestamp_ms, key=rec.key,
                                         value=rec.value)))
        chain = rec.hash
    assert first.checkpoint is not None
    text = load_signer(data).sign(Checkpoint(
        log_id=first.checkpoint.log_id, size=6, root=tree.root(),
        signed_at="2026-12-01T00:00:00.000000Z", segment="segment-000002.avro", chain=chain))
    (data / "checkpoints" / "by-hand.checkpoint").write_text(text)
    got = rv(data, key)
    _same(got, verify_data(data, key))
    assert got.ok and not rv.resumed
    assert "by-hand.checkpoint covers 6 records, not the end of a segment" in rv.said


def test_a_new_segment_that_does_not_chain_is_refused_in_today_s_words(tmp_path):
    data, log = _log(tmp_path / "a", [4, 3, 5])
    log.close()
    key = _key(data)
    rv = ResumableVerifier(full_every=None)
    assert rv(data, key).ok
    other = tmp_path / "b"
    (other / "keys").mkdir(parents=True)
    for name in ("signing.key", "signing.pub"):
        shutil.copy(data / "keys" / name, other / "keys" / name)
    forger = _Log(other, tag=b"other ")
    for n in (4, 3, 5, 2):
        forger.append(n)
    forger.close()
    shutil.copy(_segment(other, 4), _segment(data, 4))
    got = rv(data, key)
    want = verify_data(data, key)
    assert not want.ok and "prev_hash does not match the record before it" in (want.problem
                                                                              or "")
    _same(got, want)
    assert got.records == 12 and not rv.resumed
    assert rv.said.startswith("the whole log (what was appended did not verify"), rv.said


def _forge(seg: Path) -> None:
    """Alter a segment in place and set its times back: only its change time differs."""
    st = seg.stat()
    _flip(seg)
    os.utime(seg, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = seg.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (st.st_size, st.st_mtime_ns,
                                                                st.st_ino)


def _blind(st: os.stat_result) -> tuple[int, int, int, int]:
    """A fingerprint that a tamperer able to set the change time back would leave."""
    return (st.st_ino, st.st_size, st.st_mtime_ns, 0)


def test_a_change_fingerprints_cannot_see_is_caught_in_the_background(tmp_path, monkeypatch):
    monkeypatch.setattr(log_resume, "fingerprint", _blind)
    data, log = _log(tmp_path, [4, 3, 5])
    key = _key(data)
    rv = ResumableVerifier(full_every=0.0)
    try:
        assert rv(data, key).ok
        assert rv.rechecking  # started as soon as due, after the call
        assert not rv.settle(WAIT)
        assert rv.rechecked is not None and rv.rechecked.ok and rv.rechecked.records == 12
        _forge(_segment(data, 2))
        log.append(2)
        blind = rv(data, key)
        assert blind.ok and rv.resumed  # what the fingerprints cannot see
        assert rv.settle(WAIT)  # the whole verification in the background sees it
        assert rv.rechecked is not None and not rv.rechecked.ok
        assert rv.records == 0
        got = rv(data, key)
    finally:
        log.close()
        rv.close()
    want = verify_data(data, key)
    assert not want.ok and "segment-000002.avro" in (want.problem or "")
    _same(got, want)
    assert rv.rechecked.problem == want.problem
    assert "the whole verification in the background found" in rv.said


def test_a_background_verification_that_does_not_finish_is_not_trusted(tmp_path,
                                                                      monkeypatch):
    monkeypatch.setattr(Recheck, "command", (
        sys.executable, "-c", "import sys; sys.exit('out of memory, say')"))
    data, log = _log(tmp_path, [4, 3])
    log.close()
    key = _key(data)
    rv = ResumableVerifier(full_every=0.0)
    assert rv(data, key).ok
    assert rv.rechecking
    assert rv.settle(WAIT)
    assert rv.rechecked is not None and not rv.rechecked.finished
    assert "exit 1: out of memory, say" in (rv.rechecked.problem or ""), rv.rechecked
    assert rv(data, key).ok and not rv.resumed
    assert "did not finish" in rv.said
    rv.close()


def test_live_replay_refuses_after_the_background_verification_failed(tmp_path, monkeypatch):
    monkeypatch.setattr(log_resume, "fingerprint", _blind)
    data, log = _log(tmp_path, [4, 3, 5])
    live = LiveReplay(data, full_every=0.0)
    try:
        assert live.step().ok
        assert not live.verifier.settle(WAIT)
        _forge(_segment(data, 2))
        log.append(2)
        blind = live.step()
        assert blind.ok and blind.new == 2  # what the fingerprints cannot see
        written = {p.name: p.read_bytes() for p in (data / "replay").iterdir()}
        assert live.verifier.settle(WAIT)
        got = live.step()
    finally:
        log.close()
        live.close()
    assert got.status == "refused" and "REFUSED" in got.message, got
    assert "segment-000002.avro" in got.message
    assert got.verified.startswith("the whole log (the whole verification in the background")
    assert {p.name: p.read_bytes() for p in (data / "replay").iterdir()} == written


def _follow(data: Path, *, passes: int, say, full_every: float | None) -> None:
    """The follow loop for ``passes`` passes, stopped by SIGTERM after WAIT seconds at most
    (so that a loop that never runs them fails the test instead of hanging it)."""
    timer = threading.Timer(WAIT, lambda: os.kill(os.getpid(), signal.SIGTERM))
    timer.start()
    try:
        assert follow(data, every=0.1, passes=passes, say=say, full_every=full_every) == 0
    finally:
        timer.cancel()


def test_follow_runs_a_pass_when_the_background_verification_fails(tmp_path, monkeypatch):
    """The log looks unchanged to the loop (the segment's size and time set back), yet the
    pass after the background verification found the change refuses it."""
    monkeypatch.setattr(log_resume, "fingerprint", _blind)
    data, log = _log(tmp_path, [4, 3, 5])
    log.close()
    lines: list[str] = []
    forged = []

    def say(line: str) -> None:
        lines.append(line)
        if "up to date" in line and not forged:
            forged.append(True)
            _forge(_segment(data, 2))

    _follow(data, passes=2, say=say, full_every=0.0)
    text = "\n".join(lines)
    assert forged and "the whole verification in the background" in text, text
    assert "replay failed (refused)" in text and "segment-000002.avro" in text, text


def test_the_follow_loop_s_look_changes_with_every_segment_and_checkpoint(tmp_path):
    data, log = _log(tmp_path, [2])
    try:
        marks = [log_mark(data)]
        assert marks[0] == log_mark(data)  # nothing written: the same
        for _ in range(5):  # back to back, within a timestamp's granularity or not
            log.append(1)
            marks.append(log_mark(data))
    finally:
        log.close()
    marks.append(log_mark(data))  # the shutdown checkpoint
    assert len(set(marks)) == len(marks)
    worker = LogWriter(data / "log" / "workers" / "w1", data / "quarantine" / "workers" / "w1",
                       signer=load_signer(data),
                       checkpoint_dir=data / "checkpoints" / "workers" / "w1")
    try:
        before = log_mark(data)
        worker.append([Received(topic="round-events", partition=1, offset=0, timestamp_ms=1,
                                key=b"T02", value=b"x")], [])
        assert log_mark(data) != before
    finally:
        worker.close()


def test_full_every_is_a_number_of_seconds_from_10_to_a_day():
    assert parse_full_every("600") == 600.0
    for bad in ("5", "0", "-600", "100000", "ten"):
        with pytest.raises(argparse.ArgumentTypeError, match="--full-every takes seconds"):
            parse_full_every(bad)


def test_spot_looks_again_at_every_file_verified_a_share_at_a_time(tmp_path):
    """A segment edited in place (same size, its modification time set back) while the
    log looks unchanged is named by ``spot`` within one round of the files; untouched
    files are never named; the pass that follows verifies the whole log and refuses it."""
    data, log = _log(tmp_path, [4, 3, 5, 2])
    log.close()
    key = _key(data)
    rv = ResumableVerifier(full_every=None)
    assert rv(data, key).ok
    files = 4 + len(list((data / "checkpoints").glob("*.checkpoint")))
    assert [rv.spot(files=1) for _ in range(2 * files)] == [None] * (2 * files)
    seg = _segment(data, 3)
    before = seg.stat()
    _flip(seg)
    os.utime(seg, ns=(before.st_atime_ns, before.st_mtime_ns))
    said = [rv.spot(files=1) for _ in range(files)]
    assert said.count("segment-000003.avro changed since it was verified") == 1, said
    assert rv.records  # nothing dropped by looking
    got = rv(data, key)
    assert not got.ok and not rv.resumed
    _same(got, verify_data(data, key))


def test_spot_names_a_checkpoint_file_changed_or_a_file_removed(tmp_path):
    data, log = _log(tmp_path, [2, 2])
    log.close()
    key = _key(data)
    rv = ResumableVerifier(full_every=None)
    assert rv(data, key).ok
    latest = data / "checkpoints" / "latest.checkpoint"
    latest.write_text(latest.read_text(encoding="utf-8"), encoding="utf-8")  # new ctime
    assert rv.spot() == "latest.checkpoint changed since it was verified"
    assert rv(data, key).ok and rv.resumed  # read again and checked: still the log's
    assert rv.spot() is None
    _segment(data, 1).unlink()
    assert "cannot be looked at" in (rv.spot() or "")
    assert ResumableVerifier(full_every=None).spot() is None  # nothing verified yet


def test_follow_runs_a_pass_when_a_segment_is_edited_in_place(tmp_path):
    """The directories and latest.checkpoint do not change (an edit in place, the time set
    back): the loop's next look at a share of the files finds it within a few ticks, and
    the pass refuses the log, long before the whole verification in the background."""
    data, log = _log(tmp_path, [4, 3, 5])
    log.close()
    lines: list[str] = []
    edited = []

    def say(line: str) -> None:
        lines.append(line)
        if "up to date" in line and not edited:
            edited.append(True)
            seg = _segment(data, 2)
            before = seg.stat()
            _flip(seg)
            os.utime(seg, ns=(before.st_atime_ns, before.st_mtime_ns))

    _follow(data, passes=2, say=say, full_every=None)
    text = "\n".join(lines)
    assert "segment-000002.avro changed since it was verified" in text, text
    assert "replay failed (refused)" in text, text
    # the last replay's files stay, and what shows them now says the log no longer verifies
    from dashboard.data import provenance

    seen = provenance(data)
    assert seen.state == "refused" and "segment-000002.avro" in seen.line, seen


def test_follow_replays_a_log_put_back_after_a_refusal(tmp_path):
    """A log refused is tried again at every tick (a refusal for want of a key must clear
    once the key is there); once the segment is put back, the next pass replays it and the
    record of the refusal is gone."""
    data, log = _log(tmp_path, [4, 3, 5])
    log.close()
    seg = _segment(data, 2)
    original = seg.read_bytes()
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        if "up to date" in line and len(lines) < 4:
            before = seg.stat()
            _flip(seg)
            os.utime(seg, ns=(before.st_atime_ns, before.st_mtime_ns))
        elif "refused" in line:
            assert (data / "replay.refused.json").exists()
            seg.write_bytes(original)

    _follow(data, passes=3, say=say, full_every=None)
    text = "\n".join(lines)
    assert sum("replay failed (refused)" in line for line in lines) == 1, text
    assert sum("up to date" in line for line in lines) == 2, text
    assert not (data / "replay.refused.json").exists()
