"""Tamper drill: a log written by ``python -m ingest`` from the real broker, tampered with in
every way the log's tamper evidence must detect (a byte changed, a record removed,
inserted or reordered, the tail cut, a header edited, the chain rewritten, a bad signature),
each caught by ``python -m ingest verify --key`` and named.

The log is ingested in three runs (three segments of 5 events each); each case works on a
copy of it. The cases and what the verdict must name are those of docs/log-integrity.md.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastavro import reader

from ingest.kafka_io import TopicSettings, ensure_topic
from schemas.checkpoint import Signer, parse
from schemas.logformat import META_CHECKPOINT, META_NEXT_OFFSETS, segments
from tests.conftest import run_cli
from tests.test_log_integrity import _rechain, _rewrite, damage_block
from tests.test_log_integrity_kafka import _events, _send

pytestmark = [pytest.mark.kafka, pytest.mark.drills]


@pytest.fixture(scope="module")
def ingested(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    topic = f"tamper-{uuid.uuid4().hex[:10]}"
    ensure_topic(kafka_bootstrap, topic, TopicSettings(partitions=1))
    data = tmp_path_factory.mktemp("tamper") / "data"
    for run in range(3):
        _send(kafka_bootstrap, topic, _events(run * 5, 5))
        done = run_cli("ingest", "--data", str(data), "--topic", topic, "--bootstrap",
                       kafka_bootstrap, "--until-idle", "1", "--quiet", timeout=120)
        assert done.returncode == 0, done.stderr
    assert len(segments(data / "log")) == 3
    return data


def _copy(ingested: Path, tmp_path: Path) -> tuple[Path, str, Path]:
    data = tmp_path / "data"
    shutil.copytree(ingested, data)
    kept = tmp_path / "kept.checkpoint"
    shutil.copy(data / "checkpoints" / "latest.checkpoint", kept)
    return data, (data / "keys" / "signing.pub").read_text().strip(), kept


def _seg(data: Path, n: int) -> Path:
    return segments(data / "log")[n]


def _flip_value(rs):
    v = bytearray(rs[2]["value"])
    v[-1] ^= 1
    return [rs[0], rs[1], {**rs[2], "value": bytes(v)}, *rs[3:]]


def _resign(data: Path) -> None:
    forger = Signer("catwalk-ingest", Ed25519PrivateKey.generate())
    for seg in segments(data / "log"):
        _rewrite(seg, change_meta=lambda m: {**m, META_CHECKPOINT: forger.sign(
            parse(m[META_CHECKPOINT]))})
    (data / "keys" / "signing.pub").write_text(forger.verifier.vkey + "\n")


def _forge_chain(data: Path) -> None:
    seg = _seg(data, 1)
    with seg.open("rb") as fo:
        prev = next(iter(reader(fo)))["prev_hash"]
    _rewrite(seg, lambda rs: _rechain(_flip_value(rs), prev))


def _damage_block(data: Path) -> None:
    damage_block(_seg(data, 1), at=20)


CASES = {
    "modified byte": (lambda d: _rewrite(_seg(d, 1), _flip_value),
                      "segment-000002.avro record 3 (position 7, tamper-"),
    "removed record": (lambda d: _rewrite(_seg(d, 1), lambda rs: [rs[0], *rs[2:]]),
                       "position 7 where 6 was expected"),
    "inserted record": (lambda d: _rewrite(_seg(d, 1), lambda rs: [rs[0], rs[0], *rs[1:]]),
                        "segment-000002.avro record 2"),
    "reordered records": (lambda d: _rewrite(_seg(d, 1), lambda rs: [rs[1], rs[0], *rs[2:]]),
                          "position 6 where 5 was expected"),
    "removed tail": (lambda d: (_seg(d, 2).unlink(), shutil.rmtree(d / "checkpoints")),
                     "it covers 15 records but the log holds 10: records 10 to 14 were removed"),
    "truncated tail": (lambda d: _rewrite(_seg(d, 2), lambda rs: rs[:2]),
                       "segment-000003.avro: its signed checkpoint covers 15 records"),
    "edited header": (lambda d: _rewrite(_seg(d, 2), change_meta=lambda m: {
        **m, META_NEXT_OFFSETS: json.dumps({"x[0]": 1})}),
        "segment-000003.avro: the header's catwalk.next_offsets"),
    "rewritten chain": (_forge_chain, "segment-000002.avro (records 5 to 9): the records do "
                        "not give the Merkle root"),
    "bad signature": (lambda d: _rewrite(_seg(d, 0), change_meta=lambda m: {
        **m, META_CHECKPOINT: m[META_CHECKPOINT].replace("\n5\n", "\n4\n", 1)}),
        "segment-000001.avro header: bad signature"),
    "re-signed with another key": (_resign, "is not signed by the key catwalk-ingest"),
    "damaged compressed block": (_damage_block, "segment-000002.avro: cannot be read"),
    "missing log": (lambda d: shutil.rmtree(d / "log"), "no such directory"),
    "empty log": (lambda d: [s.unlink() for s in segments(d / "log")], "is empty"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_tampering_of_an_ingested_log_is_named(ingested: Path, tmp_path: Path,
                                                     case: str) -> None:
    data, vkey, kept = _copy(ingested, tmp_path)
    untouched = run_cli("ingest", "verify", "--data", str(data), "--key", vkey)
    assert untouched.returncode == 0, untouched.stderr
    tamper, named = CASES[case]
    tamper(data)
    verdict = run_cli("ingest", "verify", "--data", str(data), "--key", vkey,
                      "--checkpoint", str(kept))
    assert verdict.returncode == 1, verdict.stdout
    assert "Traceback" not in verdict.stderr
    assert named in verdict.stderr, verdict.stderr
