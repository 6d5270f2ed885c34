"""A what-if under another house way: the dealer's hand is set again by the proposed way
before the round is judged under it, so a proposed house way moves money (replay/whatif.py
``proposed_round``; docs/whatif.md).

The hands come from the Flamingo filing (docs/examples/house_ways/flamingo.way) against the
shipped reference-1.3 (docs/rules.md 1.3): four queens and a pair of 8s. reference-1.3 keeps
the four queens behind with the 8s in front (completion C2); Flamingo splits queens from jack
to king unless a pair of 10s or higher is beside them, so it plays Q-Q-8-8 behind and Q-Q in
front. Every expected amount below is worked by hand from docs/rules.md 1.1 (ranks), 6
(win both hands: 1 to 1 less 5%; one of two: push; copies to the banker)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from replay.__main__ import main
from tests.whatif_support import proposed_file, write_log

REPO = Path(__file__).resolve().parent.parent
FLAMINGO = REPO / "docs" / "examples" / "house_ways" / "flamingo.way"
DEALER = {"cards": ["Qs", "Qc", "Qh", "Qd", "8h", "8d", "2s"],
          "high": ["Qs", "Qc", "Qh", "Qd", "2s"], "low": ["8h", "8d"]}
"""Set by reference-1.3 (as production's dealer did): four queens behind, the 8s in front."""
FLUSH = {"seat": 1, "cards": ["Ac", "Kc", "9c", "7c", "3c", "Kd", "Jd"],
         "high": ["Ac", "Kc", "9c", "7c", "3c"], "low": ["Kd", "Jd"], "wagers": {"main": 2500}}
"""A club flush behind and K-J in front, $25: against four queens and 8-8 it loses both (a
loss of 2,500); against Flamingo's Q-Q-8-8-2 and Q-Q the flush wins and K-J loses: a push."""
PAIR_OF_ACES = {"seat": 2, "cards": ["As", "Ah", "Ts", "9h", "6d", "5c", "4s"],
                "high": ["As", "Ah", "Ts", "9h", "6d"], "low": ["5c", "4s"],
                "wagers": {"main": 1000}}
"""Aces behind, 5-4 in front, $10: it loses both against either setting (four queens or two
pair behind; 8-8 or Q-Q in front): 1,000 lost either way, unchanged."""


def _round(round_id: str, *seats: dict[str, Any]) -> dict[str, Any]:
    return {"round_id": round_id, "game": "pai_gow_poker", "dealer": dict(DEALER),
            "seats": list(seats)}


@pytest.fixture(scope="module")
def shift(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("whatif-way")
    write_log(root / "data", [("C01", "T01", 0, [_round("T01-000001", FLUSH, PAIR_OF_ACES)])])
    proposal = root / "proposal"
    proposal.mkdir()
    shutil.copyfile(FLAMINGO, proposal / "flamingo.way")

    def change(data: dict[str, Any]) -> None:
        data["options"]["house_way"] = "flamingo.way"

    proposed_file(proposal / "pai_gow_poker-flamingo-v1.json", "pai_gow_poker-classic-v1",
                  "pai_gow_poker-flamingo-v1", change)
    return root


def test_a_proposed_house_way_sets_the_dealer_again_and_moves_the_money(
        shift: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    proposal = shift / "proposal" / "pai_gow_poker-flamingo-v1.json"
    code = main(["whatif", "--ruleset", str(proposal), "--data", str(shift / "data"),
                 "--out", str(out)])
    said = capsys.readouterr()
    assert code == 0, said.err
    changed = pq.read_table(out / "whatif_rounds.parquet").to_pylist()
    assert [(r["seat"], r["wager"], r["outcome_before"], r["net_before_cents"],
             r["outcome_after"], r["net_after_cents"], r["difference_cents"]) for r in changed] \
        == [(1, "main", "loss", -2500, "push", 0, 2500)]
    assert pq.read_table(out / "whatif_not_evaluated.parquet").to_pylist() == []
    manifest = json.loads((out / "whatif.json").read_text())
    assert manifest["counts"]["rounds_dealer_reset"] == 1
    assert manifest["counts"]["difference_cents"] == 2500
    assert manifest["counts"]["wagers_judged"] == 2


def test_the_same_house_way_leaves_the_dealer_as_set(
        shift: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A proposal that changes nothing of the house way (the shipped ruleset under another
    id) sets no dealer again, and moves nothing."""
    proposed = proposed_file(tmp_path / "same.json", "pai_gow_poker-classic-v1",
                             "pai_gow_poker-same-v1", lambda data: None)
    out = tmp_path / "out"
    code = main(["whatif", "--ruleset", str(proposed), "--data", str(shift / "data"),
                 "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    counts = json.loads((out / "whatif.json").read_text())["counts"]
    assert (counts["rounds_dealer_reset"], counts["rounds_changed"],
            counts["difference_cents"]) == (0, 0, 0)
