"""A casino judged by its own filing, end to end through the real Apache Kafka broker.

Casino C02 files its own rulesets (docs/examples/rulesets/C02: pai gow poker dealt by the
Flamingo house way, flamingo.way; docs/rulesets.md, docs/house-way.md); casino C01 files
none and is judged by the shipped rulesets. Both deal into one topic; ingest, replay with the
rulesets directory, and the checks run as a user runs them. The dealers of C02 set by
Flamingo: every setting of theirs that Flamingo allows raises no ``house_way`` flag, even
where Catwalk's reference-1.3 would set the hand otherwise, and every injected
``dealer_not_house_way`` fault (a setting Flamingo does not allow) is flagged. The same log
judged by the shipped rulesets alone flags those Flamingo settings: the filing is what
changed the verdict.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from checks.evaluate import evaluate, markdown
from replay.cards import parse_cards
from replay.filings import load_rulebook
from replay.games.pai_gow_house_way import find_house_way, follows_house_way
from replay.rulesets import load_ruleset
from tests.conftest import run_cli

pytestmark = pytest.mark.kafka

REPO = Path(__file__).resolve().parent.parent
FILINGS = REPO / "docs" / "examples" / "rulesets"
FLAMINGO_RULESET = "pai_gow_poker-c02-flamingo-v1"


def _ok(proc):
    assert proc.returncode == 0, (
        f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def _labels(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _flamingo_only(hands: list[dict]) -> set[str]:
    """The C02 rounds whose dealer set a hand Flamingo allows and reference-1.3 does not
    (worked here from the two ways' files, not from replay's verdict)."""
    flamingo = find_house_way(load_rulebook(FILINGS).find(FLAMINGO_RULESET))
    reference = find_house_way(load_ruleset("pai_gow_poker-classic-v1"))
    out = set()
    for h in hands:
        if h["casino"] != "C02" or h["position"] != "dealer" or not h["high"]:
            continue
        dealt = parse_cards(h["cards"])
        high, low = parse_cards(h["high"]), parse_cards(h["low"])
        if (follows_house_way(dealt, high, low, way=flamingo)
                and not follows_house_way(dealt, high, low, way=reference)):
            out.add(h["round_id"])
    return out


def _house_way_flags(data: Path) -> set[str]:
    flags = pq.read_table(data / "checks" / "flags.parquet").to_pylist()
    return {f["round_id"] for f in flags if f["check_id"] == "house_way" and f["casino"] == "C02"}


def test_a_casino_house_way_file_judges_its_dealers_through_the_broker(kafka_bootstrap,
                                                                       tmp_path):
    topic = f"it-{uuid.uuid4().hex[:10]}"
    kafka = ["--bootstrap", kafka_bootstrap, "--topic", topic]
    data = tmp_path / "data"
    c01, c02 = tmp_path / "labels-C01.jsonl", tmp_path / "labels-C02.jsonl"
    _ok(run_cli("ingest.simulate", "--casino", "C01", "--tables", "2", "--rounds", "30",
                "--seed", "3", "--fault-rate", "0.3", "--labels", str(c01), *kafka))
    _ok(run_cli("ingest.simulate", "--casino", "C02", "--rulesets", str(FILINGS),
                "--games", "pai_gow_poker", "--tables", "6", "--rounds", "60", "--seed", "5",
                "--fault-rate", "0.3", "--faults", "dealer_not_house_way,overpay,underpay",
                "--rich-hands", "0.5", "--labels", str(c02), *kafka))
    _ok(run_cli("ingest", "--data", str(data), "--until-idle", "3", "--quiet", *kafka))
    shipped = tmp_path / "shipped"
    shutil.copytree(data, shipped)
    _ok(run_cli("replay", "--data", str(data), "--rulesets", str(FILINGS)))
    _ok(run_cli("checks", "--data", str(data)))

    rounds = pq.read_table(data / "replay" / "rounds.parquet").to_pylist()
    assert {r["ruleset"] for r in rounds if r["casino"] == "C02"} == {FLAMINGO_RULESET}
    assert FLAMINGO_RULESET not in {r["ruleset"] for r in rounds if r["casino"] == "C01"}
    labels = _labels(c01) + _labels(c02)
    ev = evaluate(labels, pq.read_table(data / "checks" / "flags.parquet").to_pylist())
    assert ev.perfect, markdown(ev)
    faulty = {x["round_id"] for x in _labels(c02) if x["kind"] == "dealer_not_house_way"}
    assert faulty and faulty <= _house_way_flags(data)

    hands = pq.read_table(data / "replay" / "hands.parquet").to_pylist()
    flamingo_only = _flamingo_only(hands)
    assert flamingo_only, "the shift must hold dealer hands the two ways set differently"
    assert not flamingo_only & _house_way_flags(data)
    assert all(h["house_way"] for h in hands
               if h["casino"] == "C02" and h["round_id"] in flamingo_only
               and h["position"] == "dealer")

    # the same log judged by the shipped rulesets alone: those settings are flagged
    _ok(run_cli("replay", "--data", str(shipped)))
    _ok(run_cli("checks", "--data", str(shipped)))
    assert flamingo_only <= _house_way_flags(shipped)
