"""Every game through the log: the README's hand-checked rounds, recorded as events, replayed
from a real log and checked, with the failures an older replay had (it judged the main wager
only and dropped the banker)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from checks.runner import run_all
from ingest.log import LogWriter, Received
from replay.run import replay
from schemas import BankerSettled, RoundStarted, RoundVoided, WagerPlaced, encode
from tests.events_factory import Table, events_of_document

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = re.compile(r"echo '(?P<doc>\{.*?\})' \| python -m replay adjudicate -\n```\n```json\n"
                     r"(?P<result>\{.*?\})\n```", re.S)


def _examples():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return {json.loads(m.group("doc"))["round_id"]: (json.loads(m.group("doc")),
                                                     json.loads(m.group("result")))
            for m in EXAMPLE.finditer(text)}


EXAMPLES = _examples()


def _settlements(result):
    """The README's hand-checked result as the table's settlements."""
    out = {}
    for seat in result["seats"]:
        for name, w in seat["wagers"].items():
            out[(seat["seat"], name)] = (w["outcome"], w["net"], w["commission"])
    return out


def _replay(tmp_path, events):
    log = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    log.append([Received(topic="round-events", partition=0, offset=i, timestamp_ms=i,
                         key=e.table_id.encode(), value=encode(e))
                for i, e in enumerate(events)], [])
    replay(tmp_path / "log", tmp_path / "replay")
    run_all(tmp_path / "replay", tmp_path / "checks")

    def table(name):
        return pq.read_table(tmp_path / "replay" / f"{name}.parquet").to_pylist()

    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    return table, flags


def test_the_readme_has_one_example_per_game():
    assert {doc["game"] for doc, _ in EXAMPLES.values()} == {
        "pai_gow_poker", "face_up_pai_gow", "pai_gow_tiles", "caribbean_stud"}


@pytest.mark.parametrize("round_id", sorted(EXAMPLES))
def test_each_readme_round_recorded_as_events_is_judged_like_its_document(tmp_path, round_id):
    doc, result = EXAMPLES[round_id]
    settle = _settlements(result)
    if result["dealer"]["net"]:
        net = result["dealer"]["net"]
        settle[(None, "main")] = ("win" if net > 0 else "loss", net, 0)
    envy = {}
    for seat in result["seats"]:
        if seat["envy"]:
            holders = [s["seat"] for s in doc["seats"] if s["seat"] != seat["seat"]]
            envy[(seat["seat"], holders[0])] = seat["envy"]   # r-20: seat 1 holds the quads
    banker = (result["banker"]["net"], result["banker"]["commission"]) \
        if "banker" in result else None
    table, flags = _replay(tmp_path, events_of_document(Table(), doc, settle=settle,
                                                        envy=envy, banker=banker))
    (rnd,) = table("rounds")
    assert rnd["evaluated"] is True, rnd["problems"]
    assert rnd["game"] == doc["game"]
    expected = {(w["seat"], w["wager"]): (w["expected_outcome"], w["expected_net_cents"],
                                          w["expected_commission_cents"])
                for w in table("wagers") if w["position"] != "banker"}
    assert expected == settle
    assert [f["check_id"] for f in flags] == []
    if "banker" in result:
        (b,) = table("bankers")
        assert (b["seat"], b["expected_net_cents"], b["expected_commission_cents"],
                b["expected_house_net_cents"]) == (result["banker"]["seat"],
                                                   result["banker"]["net"],
                                                   result["banker"]["commission"],
                                                   result["banker"]["house_net"])


def test_a_fortune_wager_recorded_as_won_9999_99_is_an_overpay(tmp_path):
    """An older replay judged the main wager only and passed this round. Seat 1
    holds three fives: Fortune pays 3 to 1 on trips (docs/rules.md 2.4), 500 x 3 = 1500."""
    doc, result = EXAMPLES["r-17"]
    doc = json.loads(json.dumps(doc))
    doc["seats"][0]["wagers"]["fortune"] = 500
    settle = _settlements(result)
    settle[(1, "fortune")] = ("win", 999_999, 0)
    table, flags = _replay(tmp_path, events_of_document(Table(), doc, settle=settle,
                                                        meter=2_500_000))
    (rnd,) = table("rounds")
    assert rnd["evaluated"] is True
    wrong = [(f["check_id"], f["seat"], f["recorded_cents"], f["expected_cents"]) for f in flags
             if f["check_id"] in ("paid_loser", "collected_winner", "overpay", "underpay")]
    assert wrong == [("overpay", 1, 999_999, 1500)]


def test_a_player_banked_round_is_judged_against_the_banker_not_the_dealer(tmp_path):
    """An older replay dropped the banker field and flagged a correctly paid seat. Seat 1
    wins against the dealer's hands and the banker's alike; seat 2 shows the difference."""
    doc, result = EXAMPLES["r-18"]
    doc = json.loads(json.dumps(doc))
    # Seat 2: pair of queens behind, K-J in front. Against the dealer (pair of kings, A-Q) it
    # loses both hands; against the banker at seat 3 (pair of jacks, 8-6) it wins both.
    doc["seats"].insert(1, {"seat": 2, "cards": ["Qc", "Qd", "7s", "6h", "4c", "Ks", "Jh"],
                            "high": ["Qc", "Qd", "7s", "6h", "4c"], "low": ["Ks", "Jh"],
                            "wagers": {"main": 2000}})
    settle = _settlements(result)
    settle[(2, "main")] = ("win", 1900, 100)
    settle[(None, "main")] = ("win", 1000, 0)
    # banker's gross: -(2500 + 2000) - 1000 = -5500, shared 50/50: -2750 (docs/rules.md 6a.14)
    table, flags = _replay(tmp_path, events_of_document(Table(), doc, settle=settle,
                                                        banker=(-2750, 0)))
    (rnd,) = table("rounds")
    assert rnd["evaluated"] is True and rnd["banker"] == "seat 3 co-bank"
    assert [f["check_id"] for f in flags] == []
    wagers = {(w["seat"], w["wager"]): w for w in table("wagers")}
    assert wagers[(2, "main")]["expected_net_cents"] == 1900
    assert wagers[(None, "main")]["position"] == "dealer"


def test_a_wager_the_judgement_does_not_cover_fails_closed(tmp_path):
    """An Ace High wager on a classic table (it exists only in Face Up): the old replay
    marked the round evaluated; now the round is not evaluated, with the reason."""
    doc, result = EXAMPLES["r-17"]
    table_ = Table()
    events = events_of_document(table_, doc, settle=_settlements(result))
    events.insert(2, table_.event("r-17", WagerPlaced(seat=1, wager="raise", amount_cents=100)))
    table, flags = _replay(tmp_path, events)
    (rnd,) = table("rounds")
    assert rnd["evaluated"] is False
    assert "not_evaluated" in {f["check_id"] for f in flags}


def test_an_unknown_ruleset_makes_the_round_not_evaluated_with_its_name(tmp_path):
    doc, result = EXAMPLES["r-21"]
    t = Table()
    events = events_of_document(t, doc, settle=_settlements(result))
    start = events[0]
    events[0] = t.event("r-21", RoundStarted(game="pai_gow_tiles", dealer_id="E011",
                                              ruleset="pai_gow_tiles-nowhere-v9"), seq=1)
    assert start.table_seq == 1
    table, _ = _replay(tmp_path, events)
    (rnd,) = table("rounds")
    assert rnd["evaluated"] is False
    assert any("pai_gow_tiles-nowhere-v9" in p for p in rnd["problems"])
    assert "not_judgeable" in rnd["problem_kinds"]


def test_an_absurd_wager_is_not_evaluated_instead_of_stopping_replay(tmp_path):
    """A Fortune wager near the 64-bit limit wins 3 to 1: its expected net cannot be written
    as 64-bit cents. The round is not evaluated with that reason; replay and checks finish."""
    doc, result = EXAMPLES["r-17"]
    doc = json.loads(json.dumps(doc))
    doc["seats"][0]["wagers"]["fortune"] = 2**62
    table, flags = _replay(tmp_path, events_of_document(Table(), doc, meter=2_500_000,
                                                        settle=_settlements(result)))
    (rnd,) = table("rounds")
    assert rnd["evaluated"] is False
    assert any("does not fit 64-bit cents" in p for p in rnd["problems"])
    assert any("seat 1 fortune" in p for p in rnd["problems"])
    assert "not_evaluated" in {f["check_id"] for f in flags}


def test_a_raise_not_twice_the_ante_is_settled_as_recorded_and_reported(tmp_path):
    """docs/rules.md 6a.17: the raise is settled on the amount recorded and flagged apart.
    Seat 1's two pair beats the qualifying dealer: the 1500 raise wins 2 to 1 = 3000."""
    doc, result = EXAMPLES["r-19"]
    doc = json.loads(json.dumps(doc))
    doc["seats"][0]["wagers"]["raise"] = 1500
    settle = _settlements(result)
    settle[(1, "raise")] = ("win", 3000, 0)
    table, flags = _replay(tmp_path, events_of_document(Table(), doc, settle=settle))
    (rnd,) = table("rounds")
    assert rnd["evaluated"] is True
    assert "rule_irregularity" in rnd["problem_kinds"]
    assert any("seat 1 raised 1500 on an ante of 1000" in p for p in rnd["problems"])
    raised = [(f["check_id"], f["seat"], f["wager"], f["amount_at_stake_cents"]) for f in flags]
    assert ("raise_not_twice_ante", 1, "raise", None) in raised  # settled right: no money
    assert {c for c, *_ in raised} <= {"raise_not_twice_ante", "irregular_round"}


def test_a_banker_account_recorded_in_a_dealer_banked_round_fails_closed(tmp_path):
    """Money recorded for a player banker the round does not have: nothing judges it, so the
    round is not evaluated rather than passed."""
    doc, result = EXAMPLES["r-17"]
    t = Table()
    events = events_of_document(t, doc, settle=_settlements(result))
    events.append(t.event("r-17", BankerSettled(seat=3, net_cents=500, commission_cents=0)))
    table, _ = _replay(tmp_path, events)
    (rnd,) = table("rounds")
    assert rnd["evaluated"] is False
    assert any("a player banker's account was recorded for seat 3" in p for p in rnd["problems"])


def test_a_log_written_under_schema_id_1_still_replays(tmp_path):
    """A log from before schema id 2 (classic rounds, the banker as text) is upcast and
    judged like the same round written today."""
    doc, result = EXAMPLES["r-17"]
    events = events_of_document(Table(), doc, settle=_settlements(result))
    events = [e for e in events if e.kind != "HandsExposed"]   # no such event in schema id 1
    log = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    log.append([Received(topic="round-events", partition=0, offset=i, timestamp_ms=i,
                         key=e.table_id.encode(), value=encode(e, schema_id=1))
                for i, e in enumerate(events)], [])
    replay(tmp_path / "log", tmp_path / "replay")
    (rnd,) = pq.read_table(tmp_path / "replay" / "rounds.parquet").to_pylist()
    assert rnd["evaluated"] is True and rnd["problems"] == []
    wagers = pq.read_table(tmp_path / "replay" / "wagers.parquet").to_pylist()
    assert {(w["seat"], w["expected_net_cents"]) for w in wagers} == {(1, 2375), (3, 0)}


def test_a_voided_round_returns_every_wager_and_a_paid_one_is_an_overpay(tmp_path):
    """docs/rules.md 8.4: a void returns every wager (void, net 0); a void without a reason is
    an irregularity."""
    doc, _ = EXAMPLES["r-17"]
    t = Table()
    events = events_of_document(t, doc, settle={(1, "main"): ("void", 0, 0),
                                                (3, "main"): ("win", 3800, 200)})
    events.insert(-1, t.event("r-17", RoundVoided(reason="")))
    table, flags = _replay(tmp_path, events)
    (rnd,) = table("rounds")
    assert rnd["evaluated"] is True and rnd["voided"] is True
    assert "void_without_reason" in rnd["problem_kinds"]
    got = {(f["check_id"], f["seat"], f["difference_cents"]) for f in flags}
    assert ("overpay", 3, 3800) in got
    assert got & {("irregular_round", None, None), ("void_without_reason", None, None)}
    assert not any(c in ("paid_loser", "collected_winner", "overpay", "underpay") and s == 1
                   for c, s, _ in got)


def test_an_engine_fault_on_one_round_fails_that_round_closed_not_the_replay(tmp_path,
                                                                            monkeypatch):
    """A programming error of a judge on one round must not stop the shift's replay."""
    import replay.reconstruct as reconstruct

    real = reconstruct.judge_document

    def flaky(doc, *args, **kwargs):
        if doc["round_id"] == "r-19":
            raise TypeError("unexpected")
        return real(doc, *args, **kwargs)

    monkeypatch.setattr(reconstruct, "judge_document", flaky)
    t = Table()
    events = []
    for rid in ("r-17", "r-19"):
        doc, result = EXAMPLES[rid]
        events += events_of_document(t, doc, settle=_settlements(result))
    table, _ = _replay(tmp_path, events)
    rounds = {r["round_id"]: r for r in table("rounds")}
    assert rounds["r-17"]["evaluated"] is True
    assert rounds["r-19"]["evaluated"] is False
    assert "the rules engine failed on this round (TypeError: unexpected)" in \
        "; ".join(rounds["r-19"]["problems"])
