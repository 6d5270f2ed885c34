"""Drills through the real Apache Kafka broker (tests/conftest.py; nothing is mocked): a
table device whose clock says 1971, and a round proof with its settlements taken out.

Events are produced to a fresh topic (the broker stamps each message with the time it was
produced), ingested with ``python -m ingest --until-idle``, replayed and checked, and the
round is proved and the proof checked as a regulator runs them."""

from __future__ import annotations

import dataclasses
import json
import time
import uuid

import pyarrow.parquet as pq
import pytest
from kafka import KafkaProducer

from schemas import encode
from tests.conftest import run_cli
from tests.events_factory import Table
from tests.test_replay import DEALER, SEATS

pytestmark = pytest.mark.kafka

Y1971_US = 31_536_000_000_000  # 1971-01-01 00:00:00 UTC


def _ok(proc):
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_a_1971_clock_and_a_cut_proof_through_the_broker(kafka_bootstrap, tmp_path):
    from ingest.kafka_io import ensure_topic

    topic = f"it-clock-{uuid.uuid4().hex[:10]}"
    ensure_topic(kafka_bootstrap, topic)
    now_us = int(time.time() * 1_000_000)
    table = Table("T04", casino="C07")
    right = [dataclasses.replace(e, occurred_at_us=now_us + e.table_seq * 1000)
             for e in table.round("T04-000001", dealer=DEALER, seats=SEATS)]
    wrong = [dataclasses.replace(e, occurred_at_us=Y1971_US + e.table_seq * 1_000_000)
             for e in table.round("T04-000002", dealer=DEALER, seats=SEATS)]
    with KafkaProducer(bootstrap_servers=kafka_bootstrap) as kp:
        for e in [*right, *wrong]:
            kp.send(topic, value=encode(e), key=b"T04")  # the broker's time: now
        kp.flush()
    data = tmp_path / "data"
    _ok(run_cli("ingest", "--data", str(data), "--until-idle", "2", "--quiet",
                "--bootstrap", kafka_bootstrap, "--topic", topic))
    vkey = (data / "keys" / "signing.pub").read_text().strip()
    _ok(run_cli("replay", "--data", str(data), "--key", vkey))
    rounds = {r["round_id"]: r for r in
              pq.read_table(data / "replay" / "rounds.parquet").to_pylist()}
    assert rounds["T04-000002"]["evaluated"] is True, rounds["T04-000002"]["problems"]
    assert rounds["T04-000002"]["ruleset"] == rounds["T04-000001"]["ruleset"]
    findings = pq.read_table(data / "replay" / "findings.parquet").to_pylist()
    skewed = [f for f in findings if f["kind"] == "clock_skew"]
    assert [f["round_id"] for f in skewed] == ["T04-000002"] * len(wrong)
    assert skewed[0]["detail"].startswith(
        f"RoundStarted (table_seq {len(right) + 1}) occurred_at 1971-01-01T00:00:")
    assert skewed[0]["detail"].endswith("s behind the broker's; the round's ruleset is "
                                        "chosen by the broker's time")
    _ok(run_cli("checks", "--data", str(data)))
    flags = pq.read_table(data / "checks" / "flags.parquet").to_pylist()
    assert sorted({f["round_id"] for f in flags if f["check_id"] == "clock_skew"}) == [
        "T04-000002"]

    proof = tmp_path / "r.proof"
    made = _ok(run_cli("ingest", "prove", "T04-000001", "--casino", "C07", "--table", "T04",
                       "--data", str(data), "--out", str(proof)))
    assert "complete: table_seq 1-16" in made.stderr
    checked = _ok(run_cli("ingest", "verify", "--proof", str(proof), "--key", vkey,
                          "--data", str(tmp_path / "nothing")))
    assert "round T04-000001 at casino C07 table T04: complete: table_seq 1-16" in (
        checked.stdout)
    body = json.loads(proof.read_text())
    body["events"] = [e for e in body["events"] if e["kind"] != "WagerSettled"]
    proof.write_text(json.dumps(body))
    cut = run_cli("ingest", "verify", "--proof", str(proof), "--key", vkey,
                  "--data", str(tmp_path / "nothing"))
    assert cut.returncode == 1
    assert "not complete: table_seq 13-15 of the range 1-16" in cut.stderr
