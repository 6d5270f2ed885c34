"""The checkpoint topic read as a whole history, and the event topic as a witness, without a
broker: what each message proves (ingest/checkpoint_topic.py ``history_of``), and what a
topic's offsets and settings say against what the log holds (ingest/topic_audit.py
``trim_problems``). The drills through the real broker are tests/test_checkpoint_topic_kafka.py.
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ingest.checkpoint_topic import NAMED, Skip, TopicState, history_of
from ingest.topic_audit import trim_problems
from schemas.checkpoint import Checkpoint, Signer

LOG = "0bc3b0bcf9b14203acc82319b96a2644"
OTHER_LOG = "aa" * 16
KEPT = {"cleanup.policy": "delete", "retention.ms": "-1"}
SIGNER = Signer("catwalk-ingest", Ed25519PrivateKey.generate())
KEY = SIGNER.verifier


def _cp(size: int, *, log_id: str = LOG, at: str = "2026-12-01T00:00:00.000000Z",
        root: bytes | None = None) -> Checkpoint:
    return Checkpoint(log_id=log_id, size=size, root=root or bytes([size % 256]) * 32,
                      signed_at=at, next_offsets={"round-events[0]": size},
                      segment=f"segment-{size:06d}.avro", chain=bytes(32))


def _state(**kw: object) -> TopicState:
    base: dict[str, object] = {"topic": "round-events-checkpoints", "exists": True,
                               "starts": {0: 0}, "ends": {0: 10}, "config": KEPT}
    base.update(kw)
    return TopicState(**base)  # type: ignore[arg-type]


def _at(n: int) -> str:
    return f"round-events-checkpoints[0]@{n}"


def test_every_signed_checkpoint_is_kept_once_and_the_largest_comes_first() -> None:
    small, large = SIGNER.sign(_cp(5)), SIGNER.sign(_cp(13))
    again = SIGNER.sign(_cp(13, at="2026-12-01T00:00:09.000000Z"))  # re-signed at shutdown
    messages = [(_at(0), small.encode()), (_at(1), large.encode()), (_at(2), again.encode()),
                (_at(3), small.encode())]  # an older checkpoint re-published last
    history = history_of(_state(), messages, KEY)
    assert (history.read, history.signed) == (4, 4)
    assert [(w.where, w.size) for w in history.witnessed] == [(_at(1), 13),
                                                                        (_at(0), 5)]
    assert history.checkpoints == [(_at(1), large), (_at(0), small)]
    assert history.largest()[LOG].where == _at(1)
    assert history.summary() == "4 messages read, 4 signed checkpoints matched, 0 skipped"


def test_a_fork_of_one_size_keeps_both_roots() -> None:
    a = SIGNER.sign(_cp(7, root=b"\x01" * 32))
    b = SIGNER.sign(_cp(7, root=b"\x02" * 32))
    history = history_of(_state(), [(_at(0), a.encode()), (_at(1), b.encode())], KEY)
    assert sorted(w.where for w in history.witnessed) == [_at(0), _at(1)]


def test_what_proves_nothing_is_named_counted_and_skipped() -> None:
    genuine = SIGNER.sign(_cp(5))
    lines = genuine.split("\n")
    lines[1] = "999"
    altered = "\n".join(lines)
    insider = Signer("catwalk-ingest", Ed25519PrivateKey.generate()).sign(_cp(999))
    messages = [
        (_at(0), None),
        (_at(1), b"x" * 70_000),
        (_at(2), b"\xff\xfe"),
        (_at(3), b"hello"),
        (_at(4), insider.encode()),
        (_at(5), altered.encode()),
        (_at(6), genuine.encode()),
    ]
    history = history_of(_state(), messages, KEY)
    assert (history.read, history.signed) == (7, 1)
    assert [w.where for w in history.witnessed] == [_at(6)]
    assert [(s.where, s.kind) for s in history.named] == [
        (_at(0), Skip.TOMBSTONE), (_at(1), Skip.OVERSIZED), (_at(2), Skip.NOT_TEXT),
        (_at(3), Skip.NOT_A_CHECKPOINT), (_at(4), Skip.ANOTHER_KEY),
        (_at(5), Skip.BAD_SIGNATURE)]
    assert history.named[1].line() == (f"{_at(1)}: oversized (70,000 bytes; a checkpoint is "
                                       "at most 65,536)")
    assert history.summary() == (
        "7 messages read, 1 signed checkpoints matched, 6 skipped (1 tombstone (no value), "
        "1 oversized, 1 not UTF-8 text, 1 not a checkpoint, 1 signed by another key, "
        "1 bad signature)")


def test_a_flood_of_garbage_is_counted_not_held() -> None:
    history = history_of(_state(), ((_at(n), b"junk") for n in range(10_000)), KEY)
    assert history.skipped == {Skip.NOT_A_CHECKPOINT: 10_000}
    assert len(history.named) == NAMED
    assert history.witnessed == ()


def test_a_topic_that_is_no_witness_is_a_failure() -> None:
    last = _cp(13, at="2026-12-01T00:00:13.000000Z")
    chains = [("log", last)]
    gone = history_of(_state(exists=False, starts={}, ends={}, config={}), [], KEY)
    assert gone.problems(chains) == [
        "the checkpoint topic round-events-checkpoints does not exist, but the log has signed "
        "checkpoints (log: 13 records signed at 2026-12-01T00:00:13.000000Z): the topic was "
        "deleted"]
    assert gone.problems([]) == []  # a log without a checkpoint has nothing to witness

    held = [(_at(3), SIGNER.sign(_cp(13)).encode())]
    trimmed = history_of(_state(starts={0: 3}), held, KEY)
    assert trimmed.problems(chains) == [
        "the checkpoint topic round-events-checkpoints[0] starts at offset 3: the 3 "
        "checkpoints before it were deleted (DeleteRecords, or retention): the topic no "
        "longer holds the log's history"]
    compacted = history_of(_state(config={**KEPT, "cleanup.policy": "compact,delete"}), held,
                           KEY)
    assert [p.split(":")[0] for p in compacted.problems(chains)] == [
        "the checkpoint topic round-events-checkpoints is compacted (cleanup.policy=compact,"
        "delete)"]
    recreated = history_of(_state(), [(_at(0), SIGNER.sign(_cp(4, log_id=OTHER_LOG)).encode())],
                           KEY)
    assert recreated.problems(chains) == [
        f"the checkpoint topic round-events-checkpoints holds no checkpoint of log (log {LOG}, "
        "13 records signed at 2026-12-01T00:00:13.000000Z): the topic was deleted and "
        "recreated, or ingest has not published yet (verify again once it has)"]
    assert history_of(_state(), held, KEY).problems(chains) == []


def test_the_settings_are_said_and_compaction_is_found_in_any_list() -> None:
    assert _state().settings() == "cleanup.policy=delete, retention.ms=-1 (kept forever)"
    week = _state(config={**KEPT, "retention.ms": "604800000"})
    assert week.settings().endswith("(NOT kept forever: messages will be deleted, and verify "
                                    "will then fail)")
    assert not week.compacted
    for policy, compacted in [("compact", True), ("delete, compact", True),
                              ("delete", False), ("", False)]:
        assert _state(config={**KEPT, "cleanup.policy": policy}).compacted is compacted


def test_a_trimmed_topic_fails_on_the_first_offset_the_log_lacks() -> None:
    state = _state(topic="round-events", starts={0: 6, 1: 2}, ends={0: 9, 1: 5})
    failures, notes = trim_problems(state, {0: [0, 1, 2, 4, 6, 7, 8], 1: [0, 1, 2, 3, 4]})
    assert failures == [
        "round-events[0]: its log start offset is 6 (messages were deleted from the topic: "
        "DeleteRecords, or retention), and the log lacks round-events[0]@3 (2 of the offsets "
        "before 6 are neither in the log nor in quarantine)"]
    assert notes == [
        "round-events[1]: its log start offset is 2: the 2 messages before it were deleted "
        "from the topic, and the log or the quarantine holds every one of them"]


def test_a_topic_recreated_deleted_or_compacted_is_a_failure() -> None:
    recreated = _state(topic="round-events", starts={0: 0}, ends={0: 0})
    assert trim_problems(recreated, {0: [0, 1, 2, 3, 4], 1: [0]})[0] == [
        "round-events[0]: the topic ends at offset 0, but the log holds round-events[0]@4: the "
        "topic was deleted and recreated, or truncated",
        "round-events[1]: the topic has no partition 1, but the log holds 1 messages of it: "
        "the topic was deleted and recreated"]
    gone = _state(topic="round-events", exists=False, starts={}, ends={}, config={})
    assert trim_problems(gone, {0: [0, 1, 2]})[0] == [
        "topic round-events does not exist, but the log holds 3 messages of it: the topic was "
        "deleted"]
    assert trim_problems(gone, {}) == ([], [])
    compacted = _state(topic="round-events", config={**KEPT, "cleanup.policy": "compact"})
    assert trim_problems(compacted, {0: list(range(10))})[0][0].startswith(
        "topic round-events is compacted (cleanup.policy=compact): compaction deletes every "
        "message but the last of each key")
    assert trim_problems(_state(topic="round-events"), {0: list(range(10))}) == ([], [])
