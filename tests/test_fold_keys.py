"""Rounds are keyed by (casino, table, round id): the same round id at another casino or
table is another round, judged apart, from the fold to the flags, with any workers."""

from __future__ import annotations

import dataclasses
import uuid

import pyarrow.parquet as pq

from checks.runner import run_all
from replay.fold import fold
from replay.run import TABLES, replay
from schemas import encode
from tests.events_factory import Table
from tests.test_replay_workers import _files, _write

DEALER = ("Kc Kd 9s 7h 3c", "Ah Qs")


def _seats(net):
    """Seat 1 wins 2500 less 5%: 2375 is right, anything else a wrong net (an overpay, an
    underpay ...)."""
    return {1: {"main": 2500, "hand": ("5s 5h 5d Tc 2c", "As Kh"),
                "settled": ("win", net, 2500 - net)}}


def _at(casino, events):
    """The events as another casino's devices write them (their own event ids)."""
    return [dataclasses.replace(e, event_id=str(uuid.uuid5(uuid.NAMESPACE_URL,
                                                            f"{casino}/{e.event_id}")))
            for e in events]


def _two_casinos():
    """Casino C01 and C02 each deal round R-1 at their table T01 (same ids, same sequence
    numbers); C02 overpays seat 1 by 125. C01's table T02 also deals an R-1."""
    c1 = _at("C01", Table("T01", casino="C01").round("R-1", dealer=DEALER, seats=_seats(2375)))
    c2 = _at("C02", Table("T01", casino="C02").round("R-1", dealer=DEALER, seats=_seats(2500)))
    t2 = _at("C01", Table("T02", casino="C01").round("R-1", dealer=DEALER, seats=_seats(2375)))
    return c1, c2, t2


def _pairs(events):
    return [(f"position {i}", e) for i, e in enumerate(events)]


def test_the_same_round_id_at_two_casinos_and_two_tables_is_three_rounds():
    c1, c2, t2 = _two_casinos()
    mixed = [e for trio in zip(c1, c2, t2, strict=True) for e in trio]
    replayed = fold(_pairs(mixed))
    assert replayed.findings == ()  # each casino's table numbers its own events
    assert sorted(s.key for s in replayed.rounds) == [("C01", "T01", "R-1"),
                                                      ("C01", "T02", "R-1"),
                                                      ("C02", "T01", "R-1")]
    assert all(s.problems == () and s.events == len(c1) for s in replayed.rounds)
    by_key = {s.key: s for s in replayed.rounds}
    assert by_key[("C02", "T01", "R-1")].settlement(1, "main").net_cents == 2500
    assert by_key[("C01", "T01", "R-1")].settlement(1, "main").net_cents == 2375


def test_a_gap_is_per_casinos_table():
    c1, c2, _ = _two_casinos()
    replayed = fold(_pairs([*c1, *c2[:3], *c2[4:]]))
    assert [(f.kind, f.casino, f.table_id) for f in replayed.findings] == [
        ("sequence_gap", "C02", "T01")]


def test_two_casinos_rounds_are_judged_apart_and_flagged_apart(tmp_path):
    c1, c2, t2 = _two_casinos()
    messages = [(e.table_id.encode(), e) for trio in zip(c1, c2, t2, strict=True) for e in trio]
    log = _write(tmp_path, [(k, encode(e)) for k, e in messages], batch=7)
    summary = replay(log, tmp_path / "replay")
    replay(log, tmp_path / "two", workers=2)
    assert _files(tmp_path / "two") == _files(tmp_path / "replay")
    assert (summary.rounds, summary.evaluated, summary.findings) == (3, 3, ())
    for name in TABLES:
        assert "casino" in pq.read_schema(tmp_path / "replay" / f"{name}.parquet").names
    rounds = pq.read_table(tmp_path / "replay" / "rounds.parquet").to_pylist()
    assert [(r["casino"], r["table_id"], r["round_id"]) for r in rounds] == [
        ("C01", "T01", "R-1"), ("C01", "T02", "R-1"), ("C02", "T01", "R-1")]
    hands = pq.read_table(tmp_path / "replay" / "hands.parquet").to_pylist()
    assert [(h["casino"], h["table_id"], h["position"]) for h in hands] == [
        ("C01", "T01", "dealer"), ("C01", "T01", "seat 1"), ("C01", "T02", "dealer"),
        ("C01", "T02", "seat 1"), ("C02", "T01", "dealer"), ("C02", "T01", "seat 1")]
    counts = run_all(tmp_path / "replay", tmp_path / "checks")
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    assert [(f["check_id"], f["casino"], f["table_id"], f["round_id"], f["seat"],
             f["difference_cents"]) for f in flags] == [
        ("commission_wrong", "C02", "T01", "R-1", 1, 125),  # the 5% was not taken
        ("overpay", "C02", "T01", "R-1", 1, 125)]
    assert sum(counts.values()) == 2
