"""The append-only log: exactly once, resumable, tamper-evident (without a broker)."""

from __future__ import annotations

import json

import pytest
from fastavro import reader, writer
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.consume import judge
from ingest.log import LogWriter, Quarantined, Received
from schemas import WagerPlaced, encode
from schemas.checkpoint import read_verifier
from schemas.log_verify import verify_log
from schemas.logformat import META_NEXT_OFFSETS, read_log, record_schema, segments
from tests.events_factory import Table


def _received(offset: int, *, partition: int = 0, value: bytes | None = None,
              key: bytes | None = b"T01") -> Received:
    if value is None:
        value = encode(Table().event("T01-000001", WagerPlaced(seat=1, wager="main",
                                                               amount_cents=100 + offset),
                                     seq=offset + 1))
    return Received(topic="round-events", partition=partition, offset=offset,
                    timestamp_ms=1_000 + offset, key=key, value=value)


def _writer(tmp_path):
    return LogWriter(tmp_path / "log", tmp_path / "quarantine")


def verify(log_dir):
    return verify_log(log_dir, read_verifier(log_dir.parent / "keys" / "signing.pub"))


def test_batches_append_and_resume_after_reopen(tmp_path):
    log = _writer(tmp_path)
    log.append([_received(0), _received(1)], [])
    log.append([_received(2)], [Quarantined(message=_received(3, value=b"junk"), reason="bad")])
    log.close()
    reopened = _writer(tmp_path)
    assert reopened.next_offset("round-events", 0) == 4
    assert reopened.next_offset("round-events", 1) is None
    reopened.append([_received(0, partition=1)], [])
    records = list(read_log(tmp_path / "log"))
    assert [(r.partition, r.offset) for r in records] == [(0, 0), (0, 1), (0, 2), (1, 0)]
    assert [r.position for r in records] == [0, 1, 2, 3]
    result = verify(tmp_path / "log")
    assert result.ok and result.records == 4 and result.segments == 3


def test_quarantine_keeps_the_message_with_reason_and_coordinates(tmp_path):
    log = _writer(tmp_path)
    log.append([], [Quarantined(message=_received(7, value=b"\x01junk"), reason="not framed")])
    lines = (tmp_path / "quarantine" / "segment-000001.jsonl").read_text().splitlines()
    entry = json.loads(lines[0])
    assert entry["coordinates"] == "round-events[0]@7"
    assert entry["reason"] == "not framed"
    assert entry["value_b64"] == "AWp1bms="
    log.close()
    assert _writer(tmp_path).next_offset("round-events", 0) == 8


def test_a_message_already_in_the_log_is_refused(tmp_path):
    log = _writer(tmp_path)
    log.append([_received(0), _received(1)], [])
    with pytest.raises(Exception, match=r"round-events\[0\]@1 is already in the log"):
        log.append([_received(1)], [])


def test_crash_leftovers_are_cleared_on_open(tmp_path):
    """A temporary segment and a quarantine file without its segment are an uncommitted batch."""
    log = _writer(tmp_path)
    log.append([_received(0)], [])
    (tmp_path / "log" / "segment-000002.avro.tmp").write_bytes(b"half a segment")
    orphan = tmp_path / "quarantine" / "segment-000002.jsonl"
    orphan.write_text("{}\n")
    log.close()
    reopened = _writer(tmp_path)
    assert not orphan.exists()
    assert not list((tmp_path / "log").glob("*.tmp"))
    assert reopened.next_offset("round-events", 0) == 1


def _rewrite(segment, change):
    with segment.open("rb") as fo:
        r = reader(fo)
        meta = {k: v for k, v in r.metadata.items() if k.startswith("catwalk.")}
        assert META_NEXT_OFFSETS in meta
        records = list(r)
    records = change(records)
    with segment.open("wb") as fo:
        writer(fo, record_schema(), records, metadata=meta)


@pytest.mark.parametrize(
    ("change", "found"),
    [
        (lambda rs: [rs[0], {**rs[1], "value": rs[1]["value"][:-1] + b"\x02"}, rs[2]],
         "segment-000001.avro record 2 .*altered"),
        (lambda rs: [rs[0], rs[2]], "record 2 .*position 2 where 1 was expected"),
        (lambda rs: [rs[1], rs[0], rs[2]], "record 1 .*position 1 where 0 was expected"),
        (lambda rs: [rs[0], {**rs[1], "offset": 9}, rs[2]], "record 2 .*altered"),
    ],
    ids=["modified", "removed", "reordered", "offset-changed"],
)
def test_verify_names_the_first_record_that_does_not_fit(tmp_path, change, found):
    log = _writer(tmp_path)
    log.append([_received(0), _received(1), _received(2)], [])
    _rewrite(segments(tmp_path / "log")[0], change)
    result = verify(tmp_path / "log")
    assert not result.ok
    assert result.problem is not None
    import re
    assert re.search(found, result.problem), result.problem


def test_inserted_record_is_found(tmp_path):
    log = _writer(tmp_path)
    log.append([_received(0), _received(1)], [])
    seg = segments(tmp_path / "log")[0]
    _rewrite(seg, lambda rs: [rs[0], {**rs[1], "position": 1}, {**rs[1], "position": 2}])
    result = verify(tmp_path / "log")
    assert not result.ok and "record 3" in (result.problem or "")


def test_judge_is_the_broker_free_seam():
    good = _received(0)
    assert judge(good) is None
    assert "magic byte" in (judge(_received(1, value=b"\x05abcdef")) or "")
    assert "does not match table_id" in (judge(_received(2, key=b"T09")) or "")


def test_a_batch_mixing_good_and_quarantined_messages_in_any_order(tmp_path):
    log = _writer(tmp_path)
    bad = [Quarantined(message=_received(1, value=b"x"), reason="bad"),
           Quarantined(message=_received(3, value=b"y"), reason="bad")]
    log.append([_received(4), _received(0), _received(2)], bad)
    assert [r.offset for r in read_log(tmp_path / "log")] == [0, 2, 4]
    assert log.next_offset("round-events", 0) == 5
    with pytest.raises(Exception, match="already being written by pid"):
        _writer(tmp_path)
    with pytest.raises(Exception, match="is already in the log"):
        log.append([_received(5), _received(5)], [])


@settings(max_examples=300, deadline=None)
@given(body=st.binary(max_size=200), framed=st.booleans())
def test_judge_never_raises_on_arbitrary_bytes(body, framed):
    """Whatever arrives, ingest gets a reason or a pass, never an exception (non-negotiable 4)."""
    value = (b"\x00\x00\x00\x00\x01" + body) if framed else body
    reason = judge(_received(0, value=value))
    assert reason is None or (isinstance(reason, str) and reason)


@settings(max_examples=150, deadline=None)
@given(bodies=st.lists(st.tuples(st.booleans(), st.binary(max_size=120), st.booleans()),
                       max_size=12),
       good=st.lists(st.integers(min_value=0, max_value=5), max_size=6))
def test_judging_many_at_a_time_says_what_judging_one_says(bodies, good):
    """ingest judges a poll's messages a block at a time: each gets exactly the reason (or
    the pass) it gets alone, tombstones, garbage and wrong keys mixed with good events."""
    from ingest.judging import judge_all

    messages = [_received(i, value=(b"\x00\x00\x00\x00\x02" + body) if framed else body,
                          key=b"T01" if keyed else b"T99")
                for i, (framed, body, keyed) in enumerate(bodies)]
    messages += [_received(100 + g) for g in good]
    messages += [Received(topic="round-events", partition=0, offset=999, timestamp_ms=1,
                          key=None, value=None)]
    assert judge_all(messages) == [judge(m) for m in messages]


@given(position=st.integers(0, 2**40), topic=st.text(max_size=20),
       partition=st.integers(0, 2**31 - 1), offset=st.integers(0, 2**62),
       timestamp_ms=st.integers(-2**62, 2**62), key=st.none() | st.binary(max_size=20),
       value=st.binary(max_size=60), prev=st.binary(min_size=32, max_size=32))
def test_the_chain_hashes_the_leaf_input_after_the_previous_hash(position, topic, partition,
                                                                 offset, timestamp_ms, key,
                                                                 value, prev):
    from schemas.logformat import chain_hash, chain_next, leaf_input, parse_leaf_input

    fields = {"position": position, "topic": topic, "partition": partition, "offset": offset,
              "timestamp_ms": timestamp_ms, "key": key, "value": value}
    leaf = leaf_input(**fields)
    assert chain_next(prev, leaf) == chain_hash(prev_hash=prev, **fields)
    back = parse_leaf_input(leaf)
    assert {k: getattr(back, k) for k in fields} == fields


def test_the_judging_helper_process_says_what_judging_here_says():
    """Batches judged one ahead in a helper process get the very words judging here gives;
    a helper that dies is replaced by judging here, with the same words."""
    from ingest.judging import INLINE_BELOW, Judges, judge_pairs

    pairs = [(b"T01", _received(i).value) for i in range(INLINE_BELOW)]
    pairs[3] = (b"T01", b"\x00\x00\x00\x00\x02junk")
    pairs[5] = (b"T01", None)
    pairs[7] = (b"T99", pairs[7][1])
    said: list[str] = []
    judges = Judges(said.append)
    try:
        ticket = judges.submit(pairs)
        assert ticket.reasons() == judge_pairs(pairs)
        assert sum(r is not None for r in ticket.reasons()) == 3
        assert judges._proc is not None and judges._proc.is_alive()
        judges._proc.kill()
        judges._proc.join(10)
        assert judges.submit(pairs).reasons() == judge_pairs(pairs)
        assert len(said) == 1 and "judged in this process" in said[0]
        small = pairs[:INLINE_BELOW - 1]
        assert judges.submit(small).reasons() == judge_pairs(small)
    finally:
        judges.close()


def test_a_worker_knows_the_last_message_of_the_chain_that_holds_a_partition(tmp_path):
    """With several workers, the next offset and the last message's digest of a partition
    come from the same chain: the one that went furthest (ingest/peers.py)."""
    from ingest.keys import load_signer
    from ingest.peers import PeerOffsets
    from schemas.checkpoint import message_digest
    from schemas.logformat import chain_of

    signer = load_signer(tmp_path)
    writers = {}
    for name in ("w1", "w2"):
        chain = chain_of(tmp_path, name)
        writers[name] = LogWriter(chain.log, chain.quarantine, signer=signer,
                                  checkpoint_dir=chain.checkpoints)
        writers[name].peer_offsets = PeerOffsets(tmp_path, chain, signer.verifier)
    w1, w2 = writers["w1"], writers["w2"]
    w1.append([_received(i) for i in range(3)], [])
    w2.refresh_peers()
    assert w2.next_offset("round-events", 0) == 3
    assert w2.last_message("round-events", 0) == message_digest(b"T01", _received(2).value)
    w2.append([_received(3), _received(4)], [])
    w1.refresh_peers()
    assert w1.next_offset("round-events", 0) == 5
    assert w1.last_message("round-events", 0) == message_digest(b"T01", _received(4).value)
    assert w1.last_message("round-events", 1) is None
    for w in writers.values():
        w.close()


def test_the_judges_give_each_accepted_message_the_index_key_its_bytes_hold():
    """The writer takes an accepted message's event-index key from the judges (who decoded
    its body anyway) instead of reading the bytes again: it must be the key ``event_key``
    reads from the bytes, for every message of a shift with faults, for an id that is not a
    canonical UUID (upper case, or without hyphens), and for every schema version; a refused
    message has none."""
    import dataclasses

    from ingest.event_index import event_key
    from ingest.judging import judge_keyed
    from ingest.simulate import simulate_shift
    events, _ = simulate_shift(tables=3, rounds=20, seed=7, fault_rate=0.05)
    odd = [dataclasses.replace(events[0], event_id=events[0].event_id.upper()),
           dataclasses.replace(events[1], event_id=events[1].event_id.replace("-", ""))]
    values = [encode(e) for e in [*events, *odd]]
    assert all(e.event_id.encode() in v for e, v in zip(odd, values[-2:], strict=True))
    pairs = [(e.table_id.encode(), v) for e, v in zip([*events, *odd], values, strict=True)]
    pairs += [(b"T01", b"\x00\x00\x00\x00\x02junk"), (b"T01", None), (b"T99", values[0])]
    verdicts = judge_keyed(pairs)
    accepted = [(v, key) for (_, v), (why, key) in zip(pairs, verdicts, strict=True)
                if why is None]
    assert len(accepted) == len(values)
    assert [key for _, key in accepted] == [event_key(v) for v, _ in accepted]
    assert [key for why, key in verdicts[-3:]] == [None, None, None]
    assert all(why is not None for why, _ in verdicts[-3:])
