"""Replay's outputs and the facts of schema id 3: each round's vocabulary (the smallest
schema id of its events, read from the frames in the log), the player banker's cover, the
patrons' tracking ids, the judged setting after a changed hand, and the new events in the
timeline, in words and as typed columns."""

from __future__ import annotations

import hashlib

import pyarrow.parquet as pq
import pytest

from ingest.log import LogWriter, Received
from replay.run import ROUNDS, TIMELINE, WAGERS, replay
from replay.timeline import EVENT_WORDS, FACT_COLUMNS, facts, summary
from schemas import (
    BankPassed,
    CardsDealt,
    EventCorrected,
    HandChanged,
    HandCollected,
    HandSet,
    HandsExposed,
    RoundEnded,
    RoundStarted,
    Shuffled,
    WagerPlaced,
    WagerSettled,
    encode,
)
from tests.events_factory import Table


def _c(text: str) -> tuple[str, ...]:
    return tuple(text.split(" "))


FOUL = (("Jh", "Tc", "7c", "6s", "3d"), ("Ks", "Kh"))
RIGHT = (("Ks", "Kh", "7c", "6s", "3d"), ("Jh", "Tc"))


def _write_log(tmp_path, events, schema_ids=None):
    ids = schema_ids or [3] * len(events)
    log = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    log.append([Received(topic="round-events", partition=0, offset=i, timestamp_ms=i,
                         key=e.table_id.encode(), value=encode(e, schema_id=sid))
                for i, (e, sid) in enumerate(zip(events, ids, strict=True))], [])


def _table(tmp_path, name):
    return pq.read_table(tmp_path / "replay" / f"{name}.parquet").to_pylist()


def _banked(t: Table, round_id: str, *, change_before_banker: bool, v3: bool = True):
    """A player-banked pai gow poker round (seat 3 banks): seat 1 set its cards foul, the
    dealer changes it to the kings behind, before or after seat 3's hand is exposed."""
    started = RoundStarted(game="pai_gow_poker", dealer_id="E011", banker_seat=3,
                           banker_cover_cents=40_000 if v3 else None)
    out = [t.event(round_id, started),
           t.event(round_id, WagerPlaced(seat=1, wager="main", amount_cents=2500,
                                         patron_id="P-000417" if v3 else None)),
           t.event(round_id, WagerPlaced(seat=3, wager="main", amount_cents=5000)),
           t.event(round_id, CardsDealt(seat=1, cards=(*FOUL[0], *FOUL[1]))),
           t.event(round_id, CardsDealt(seat=3, cards=_c("9c 9d 7d 4h 2d Ad Jd"))),
           t.event(round_id, CardsDealt(seat=None, cards=_c("Kc Kd 9s 7h 3c Ah Qs"))),
           t.event(round_id, HandSet(seat=1, high=FOUL[0], low=FOUL[1])),
           t.event(round_id, HandSet(seat=3, high=_c("9c 9d 7d 4h 2d"),
                                     low=("Ad", "Jd"))),
           t.event(round_id, HandSet(seat=None, high=_c("Kc Kd 9s 7h 3c"),
                                     low=("Ah", "Qs"))),
           t.event(round_id, HandsExposed(seat=None)),
           t.event(round_id, HandsExposed(seat=1))]
    change = t.event(round_id, HandChanged(seat=1, high=RIGHT[0], low=RIGHT[1]))
    banker = t.event(round_id, HandsExposed(seat=3))
    out += [change, banker] if change_before_banker else [banker, change]
    out += [t.event(round_id, WagerSettled(seat=1, wager="main", outcome="push", net_cents=0,
                                           commission_cents=0)),
            t.event(round_id, HandCollected(seat=1)),
            t.event(round_id, Shuffled(kind="deck_change", deck_id="D-17")),
            t.event(round_id, BankPassed(to_seat=4, reason="rotation")),
            t.event(round_id, RoundEnded())]
    if not v3:
        out = [e for e in out if type(e.payload) not in (
            HandChanged, HandCollected, Shuffled, BankPassed)]
    return out


def test_the_columns_of_schema_id_3_are_in_the_schemas():
    assert ROUNDS.field("vocabulary").type == "int32"
    assert ROUNDS.field("banker_cover_cents").type == "int64"
    assert WAGERS.field("patron_id").type == "string"
    for name in ("bank_to", "bank_reason", "shuffle", "deck_id", "patron_id"):
        assert TIMELINE.field(name).type == "string"
    assert set(FACT_COLUMNS) <= set(TIMELINE.names)


def test_a_lawful_change_is_judged_and_an_unlawful_one_is_not(tmp_path):
    t = Table()
    _write_log(tmp_path, [*_banked(t, "R-1", change_before_banker=True),
                          *_banked(t, "R-2", change_before_banker=False)])
    replay(tmp_path / "log", tmp_path / "replay")
    hands = {(h["round_id"], h["seat"]): h for h in _table(tmp_path, "hands")}
    wagers = {(w["round_id"], w["seat"]): w for w in _table(tmp_path, "wagers")}
    rounds = {r["round_id"]: r for r in _table(tmp_path, "rounds")}
    # before the player banker's exposure: the kings behind are judged (push)
    assert hands["R-1", 1]["high"] == "Ks Kh 7c 6s 3d" and hands["R-1", 1]["foul"] is False
    assert wagers["R-1", 1]["expected_outcome"] == "push"
    assert rounds["R-1"]["problem_kinds"] == [] and rounds["R-1"]["evaluated"] is True
    # after it: the foul setting stands (loss), and the round has the problem
    assert hands["R-2", 1]["high"] == "Jh Tc 7c 6s 3d" and hands["R-2", 1]["foul"] is True
    assert wagers["R-2", 1]["expected_outcome"] == "loss"
    assert rounds["R-2"]["problem_kinds"] == ["hand_changed_after_banker_exposed"]
    assert "procedure (9)" in rounds["R-2"]["problems"]


def test_the_round_carries_its_vocabulary_cover_and_patrons(tmp_path):
    t = Table()
    v3 = _banked(t, "R-3", change_before_banker=True)
    v2 = _banked(t, "R-2", change_before_banker=True, v3=False)
    mixed = _banked(t, "R-M", change_before_banker=True, v3=False)
    events = [*v3, *v2, *mixed]
    ids = [3] * len(v3) + [2] * len(v2) + [3] * (len(mixed) - 1) + [2]
    _write_log(tmp_path, events, ids)
    replay(tmp_path / "log", tmp_path / "replay")
    rounds = {r["round_id"]: r for r in _table(tmp_path, "rounds")}
    assert {k: r["vocabulary"] for k, r in rounds.items()} == {"R-3": 3, "R-2": 2, "R-M": 2}
    assert rounds["R-3"]["banker_cover_cents"] == 40_000
    assert rounds["R-2"]["banker_cover_cents"] is None
    wagers = {(w["round_id"], w["seat"]): w["patron_id"] for w in _table(tmp_path, "wagers")}
    assert wagers[("R-3", 1)] == "P-000417"
    assert wagers[("R-3", 3)] is None
    assert wagers[("R-2", 1)] is None


def test_the_timeline_has_the_new_events_in_words_and_typed_columns(tmp_path):
    t = Table()
    _write_log(tmp_path, _banked(t, "R-1", change_before_banker=True))
    replay(tmp_path / "log", tmp_path / "replay")
    rows = {r["event"]: r for r in _table(tmp_path, "timeline")
            if r["event"] in ("shuffled", "hand collected", "bank passed", "hand changed")}
    assert rows["hand changed"]["summary"] == (
        "dealer changed seat 1's hand to high Ks Kh 7c 6s 3d, low Jh Tc")
    assert (rows["hand changed"]["seat"], rows["hand changed"]["position"]) == (1, "seat 1")
    assert rows["hand collected"]["summary"] == "seat 1's cards collected"
    assert (rows["hand collected"]["seat"], rows["hand collected"]["position"]) == (1, "seat 1")
    assert rows["shuffled"]["summary"] == "deck changed to D-17"
    assert (rows["shuffled"]["shuffle"], rows["shuffled"]["deck_id"]) == ("deck_change", "D-17")
    assert (rows["shuffled"]["seat"], rows["shuffled"]["position"]) == (None, None)
    assert rows["bank passed"]["summary"] == "the bank passes to seat 4: rotation"
    assert (rows["bank passed"]["bank_to"], rows["bank passed"]["bank_reason"]) == (
        "seat 4", "rotation")
    assert (rows["bank passed"]["seat"], rows["bank passed"]["position"]) == (None, None)
    started = next(r for r in _table(tmp_path, "timeline") if r["event"] == "round started")
    assert started["summary"] == ("dealer E011 opened a round of pai gow poker; seat 3 banks, "
                                  "covering $400.00; the ruleset in force that day")
    placed = [r for r in _table(tmp_path, "timeline") if r["event"] == "wager placed"]
    assert placed[0]["summary"] == "seat 1 placed main $25.00 (patron P-000417)"
    assert [(r["seat"], r["patron_id"]) for r in placed] == [(1, "P-000417"), (3, None)]
    other = [r for r in _table(tmp_path, "timeline") if r["event"] != "bank passed"]
    assert {r["bank_to"] for r in other} == {None}


def test_the_new_events_summaries_and_facts():
    assert EVENT_WORDS[Shuffled] == "shuffled"
    assert summary(Shuffled()) == "reshuffled"
    assert summary(Shuffled(kind="deck_change")) == "deck changed"
    assert summary(HandCollected(seat=None)) == "dealer's cards collected"
    assert summary(HandCollected(seat=2), tiles=True) == "seat 2's tiles collected"
    assert summary(BankPassed(to_seat=None, reason="cannot_cover")) == (
        "the bank passes to the dealer: cannot cover the wagers")
    assert summary(HandChanged(seat=None, high=("6-6", "4-4"), low=("1-1", "1-3"))) == (
        "dealer changed its own hand to high 6-6 4-4, low 1-1 1-3")
    got = facts(BankPassed(to_seat=None, reason="declined"), banker_seat=3)
    assert (got["bank_to"], got["bank_reason"], got["seat"], got["position"]) == (
        "dealer", "declined", None, None)
    assert facts(HandCollected(seat=3), banker_seat=3)["position"] == "banker"
    assert facts(HandChanged(seat=None, high=("As",), low=("Ks",)), banker_seat=3)[
        "position"] == "dealer"
    fix = EventCorrected(corrects="00000000-0000-0000-0000-000000000001", reason="wrong",
                         replacement=Shuffled(kind="reshuffle", deck_id="D-2"))
    assert facts(fix, banker_seat=None)["shuffle"] == "reshuffle"
    assert summary(fix) == ("event 00000000-0000-0000-0000-000000000001 replaced by: "
                            "reshuffled (deck D-2) (reason: wrong)")


def _digests(out):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.glob("*.parquet"))}


@pytest.mark.parametrize("workers", [2])
def test_the_same_log_of_schema_id_3_gives_the_same_bytes_on_one_and_many_workers(
        tmp_path, workers):
    events = []
    for n in range(4):
        t = Table(f"T0{n}")
        events += _banked(t, f"R-{n}", change_before_banker=n % 2 == 0)
    _write_log(tmp_path, events)
    replay(tmp_path / "log", tmp_path / "one")
    replay(tmp_path / "log", tmp_path / "many", workers=workers)
    one = _digests(tmp_path / "one")
    assert len(one) == 8 and one == _digests(tmp_path / "many")


def test_live_replay_reads_each_rounds_vocabulary_from_the_frames_as_a_batch_replay_does(
        tmp_path):
    from replay.live import LiveReplay
    from tests.test_replay_live import _Log, _same_as_batch

    t = Table()
    v3 = _banked(t, "R-3", change_before_banker=True)
    v2 = _banked(t, "R-2", change_before_banker=True, v3=False)
    data = tmp_path / "data"
    log = _Log(data)
    live = LiveReplay(data, full_every=None)
    try:
        log.append([(e.table_id.encode(), encode(e, schema_id=3)) for e in v3])
        assert live.step().ok
        log.append([(e.table_id.encode(), encode(e, schema_id=2)) for e in v2])
        assert live.step().ok
    finally:
        log.close()
    rounds = pq.read_table(data / "replay" / "rounds.parquet").to_pylist()
    assert {r["round_id"]: r["vocabulary"] for r in rounds} == {"R-3": 3, "R-2": 2}
    _same_as_batch(data, tmp_path)


def test_a_round_written_under_schema_id_1_has_vocabulary_1(tmp_path):
    t = Table()
    events = t.round("R-1", dealer=("Kc Kd 9s 7h 3c", "Ah Qs"), seats={
        1: {"main": 2500, "hand": ("5s 5h 5d Tc 2c", "As Kh"), "settled": ("win", 2375, 125)}})
    _write_log(tmp_path, events, [1] * len(events))
    replay(tmp_path / "log", tmp_path / "replay")
    (rnd,) = _table(tmp_path, "rounds")
    assert (rnd["vocabulary"], rnd["evaluated"], rnd["banker_cover_cents"]) == (1, True, None)
