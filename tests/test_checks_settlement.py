"""The settlement checks on tiny hand-built tables, with the exact flagged wagers and their
false-positive traps, and on a simulated shift against the simulator's labels:

- paid_loser, collected_winner, overpay and underpay partition the wagers settled for a
  net other than the rules require (every one gets exactly one of them);
- settled_not_placed: a settlement of a wager the log never placed;
- banker_mispay, co_bank_share_wrong and banker_commission_wrong: the player banker's
  account, each fault counted by the check that names it.
"""

from __future__ import annotations

import collections
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.runner import run_all
from replay.run import TABLES, replay
from schemas import RoundEnded, WagerSettled, encode
from tests.events_factory import Table
from tests.outputs_support import sign_replay
from tests.test_checks import _round, _wager
from tests.test_replay_workers import _write as _write_log

SETTLEMENT = ("paid_loser", "collected_winner", "overpay", "underpay")


def _write(replay_dir: Path, given: dict[str, list[dict]]) -> None:
    replay_dir.mkdir(parents=True, exist_ok=True)
    for name, schema in TABLES.items():
        rows = [{"casino": "C01", **row} for row in given.get(name, [])]
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), replay_dir / f"{name}.parquet")
    sign_replay(replay_dir.parent)


def _run(tmp_path: Path, given: dict[str, list[dict]]) -> list[dict]:
    _write(tmp_path / "replay", given)
    run_all(tmp_path / "replay", tmp_path / "checks")
    return pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()


def _of(flags, check_id):
    return [(f["round_id"], f["seat"], f["wager"], f["recorded_cents"], f["expected_cents"],
             f["amount_at_stake_cents"], f["direction"])
            for f in flags if f["check_id"] == check_id]


def _side(round_id, seat, wager, amount, recorded, expected, game="face_up_pai_gow"):
    return {**_wager(round_id, seat, amount, recorded, expected), "wager": wager, "game": game}


# The four settlement checks ---------------------------------------------------------------

@pytest.fixture
def settled(tmp_path):
    rounds = [_round("S1"), _round("S2"), _round("S3", evaluated=False, problems=["x"]),
              {**_round("S4"), "voided": True, "void_reason": "shuffle machine fault"}]
    dealer = {**_wager("S2", None, 1000, ("win", 1500, 0), ("win", 1000, 0)),
              "position": "dealer"}
    bank = {**_wager("S2", 6, 0, ("win", 9000, 0), None), "position": "banker"}
    wagers = [
        _wager("S1", 1, 2500, ("win", 2375, 125), ("win", 2375, 125)),        # trap: right
        _wager("S1", 2, 1000, ("win", 950, 50), ("loss", -1000, 0)),          # paid_loser
        _wager("S1", 3, 2000, ("loss", -2000, 0), ("win", 1900, 100)),        # collected
        _wager("S1", 4, 2000, ("win", 2000, 0), ("win", 1900, 100)),          # overpay 100
        _wager("S1", 5, 2000, ("win", 1500, 0), ("win", 1900, 100)),          # underpay 400
        _wager("S1", 6, 1000, ("push", 0, 0), ("push", 0, 0)),                # trap: a push
        _wager("S1", 7, 1000, ("loss", -1000, 0), ("loss", -1000, 0)),        # trap: foul lost
        {**_wager("S1", 8, 1500, ("win", 1425, 75), ("win", 1425, 75)),
         "game": "pai_gow_tiles"},                                            # trap: rounded vig
        _wager("S2", 1, 1000, ("push", 0, 0), ("loss", -1000, 0)),            # loser pushed: over
        _wager("S2", 2, 1000, ("loss", -1000, 0), ("push", 0, 0)),            # push taken: under
        _wager("S2", 3, 1000, ("loss", -1200, 0), ("loss", -1000, 0)),        # loser short: under
        _side("S2", 4, "raise", 2000, ("win", 2000, 0), ("void", 0, 0), "caribbean_stud"),
        dealer,                                                               # the dealer's own
        bank,                                                                 # trap: the bank
        _wager("S2", 5, 1000, None, ("win", 950, 50)),                        # unsettled's
        _wager("S3", 1, 1000, ("win", 9999, 0), None),                        # trap: not judged
        _wager("S4", 1, 1000, ("void", 0, 0), ("void", 0, 0)),                # trap: voided, right
        _wager("S4", 2, 1000, ("win", 950, 50), ("void", 0, 0)),              # voided, paid: over
    ]
    return _run(tmp_path, {"rounds": rounds, "wagers": wagers})


def test_a_loser_paid_as_a_win_is_paid_loser(settled):
    assert _of(settled, "paid_loser") == [("S1", 2, "main", 950, -1000, 1950, "over")]


def test_a_winner_collected_is_collected_winner(settled):
    assert _of(settled, "collected_winner") == [("S1", 3, "main", -2000, 1900, 3900, "under")]


def test_overpay_is_every_other_net_above_the_rules(settled):
    assert _of(settled, "overpay") == [
        ("S1", 4, "main", 2000, 1900, 100, "over"),
        ("S2", None, "main", 1500, 1000, 500, "over"),    # the dealer's wager vs the banker
        ("S2", 1, "main", 0, -1000, 1000, "over"),        # a loser pushed
        ("S2", 4, "raise", 2000, 0, 2000, "over"),        # a void raise paid
        ("S4", 2, "main", 950, 0, 950, "over"),           # a voided round's wager paid
    ]


def test_underpay_is_every_other_net_below_the_rules(settled):
    assert _of(settled, "underpay") == [
        ("S1", 5, "main", 1500, 1900, 400, "under"),
        ("S2", 2, "main", -1000, 0, 1000, "under"),       # a push collected
        ("S2", 3, "main", -1200, -1000, 200, "under"),    # a loser collected too much
    ]


def test_the_four_partition_every_wrong_net_once(settled):
    flagged = collections.Counter((f["round_id"], f["seat"], f["wager"]) for f in settled
                                  if f["check_id"] in SETTLEMENT)
    assert set(flagged.values()) == {1}
    assert len(flagged) == 10
    assert not any(f["check_id"] == "mispay" for f in settled)
    assert _of(settled, "unsettled") == [("S2", 5, "main", None, 950, None, None)]


def test_a_wrong_net_is_in_exactly_one_check_whatever_its_signs(tmp_path):
    """Every sign of recorded and expected, and the 64-bit edges: one flag per wager."""
    values = [-(2**63), -5000, -1, 0, 1, 5000, 2**63 - 1]
    wagers = [_wager("P1", i * len(values) + j + 1, 100, ("win", rec, 0), ("win", exp, 0))
              for i, rec in enumerate(values) for j, exp in enumerate(values)]
    flags = _run(tmp_path, {"rounds": [_round("P1")], "wagers": wagers})
    by_seat = {f["seat"]: f["check_id"] for f in flags if f["check_id"] in SETTLEMENT}
    assert len(by_seat) == len([f for f in flags if f["check_id"] in SETTLEMENT])
    for w in wagers:
        rec, exp = w["recorded_net_cents"], w["expected_net_cents"]
        want = (None if rec == exp else "paid_loser" if exp < 0 < rec
                else "collected_winner" if rec < 0 < exp
                else "overpay" if rec > exp else "underpay")
        assert by_seat.get(w["seat"]) == want, (rec, exp)


# settled_not_placed -----------------------------------------------------------------------

def _never_placed_round(table: Table, round_id: str, extra: list[WagerSettled]):
    """A right dealer-banked round in which the table also settled ``extra``, never placed."""
    seats = {1: {"main": 2500, "hand": ("5s 5h 5d Tc 2c", "As Kh"),
                 "settled": ("win", 2375, 125)}}
    events = table.round(round_id, dealer=("Kc Kd 9s 7h 3c", "Ah Qs"), seats=seats)
    if not extra:
        return events
    end = events.pop()  # its sequence number goes to the first extra settlement
    events.append(table.event(round_id, extra[0], seq=end.table_seq))
    events += [table.event(round_id, payload) for payload in extra[1:]]
    events.append(table.event(round_id, RoundEnded()))
    return events


def test_a_settlement_of_a_wager_never_placed_is_flagged_from_the_log(tmp_path):
    table = Table()
    events = [*_never_placed_round(table, "N1", [
                  WagerSettled(seat=1, wager="fortune", outcome="win", net_cents=5000,
                               commission_cents=0),
                  WagerSettled(seat=3, wager="main", outcome="loss", net_cents=-1000,
                               commission_cents=0)]),
              *_never_placed_round(table, "N2", [])]           # trap: a right round
    log = _write_log(tmp_path, [(b"T01", encode(e)) for e in events])
    replay(log, tmp_path / "replay")
    rounds = {r["round_id"]: r for r in
              pq.read_table(tmp_path / "replay" / "rounds.parquet").to_pylist()}
    assert rounds["N1"]["evaluated"] and rounds["N1"]["problem_kinds"] == ["settled_not_placed"]
    run_all(tmp_path / "replay", tmp_path / "checks")
    flags = pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
    got = [(f["round_id"], f["seat"], f["wager"], f["recorded_cents"], f["detail"])
           for f in flags if f["check_id"] == "settled_not_placed"]
    assert [g[:4] for g in got] == [("N1", 1, "fortune", None), ("N1", 3, "main", None)]
    assert got[0][4].startswith("seat 1 fortune settled but never placed (table_seq ")
    assert {f["round_id"] for f in flags} == {"N1"}


def test_settled_not_placed_names_the_dealer_and_falls_back_to_the_round(tmp_path):
    never = "settled_not_placed"
    rounds = [
        {**_round("U1"), "problems": ["dealer main settled but never placed (table_seq 12)",
                                      "seat 2 placed main 500 after the cards were dealt"],
         "problem_kinds": [never, "past_posting"]},
        {**_round("U2", evaluated=False, problems=["an older replay's words"]),
         "problem_kinds": [never]},                                   # not evaluated: still
        {**_round("U3", problems=["seat 4 main settled twice (table_seq 9)"]),
         "problem_kinds": ["settled_twice"]},                         # trap: another kind
        {**_round("U4"), "problem_kinds": []},                        # trap: clean
    ]
    flags = _run(tmp_path, {"rounds": rounds})
    got = [(f["round_id"], f["seat"], f["wager"], f["detail"]) for f in flags
           if f["check_id"] == never]
    assert got == [
        ("U1", None, "main", "dealer main settled but never placed (table_seq 12)"),
        ("U2", None, None, "a settlement of a wager never placed (seat not named in the "
                           "problems: an older replay's words)"),
    ]


# The player banker's account --------------------------------------------------------------

def _banker(round_id, seat, recorded, expected, *, co_bank=False):
    rec_net, rec_comm = recorded if recorded else (None, None)
    exp_net, exp_comm, house = expected if expected else (None, None, None)
    return {"round_id": round_id, "table_id": "T01", "seat": seat, "co_bank": co_bank,
            "game": "pai_gow_poker",
            "recorded_net_cents": rec_net, "recorded_commission_cents": rec_comm,
            "expected_net_cents": exp_net, "expected_commission_cents": exp_comm,
            "expected_house_net_cents": house}


@pytest.fixture
def banked(tmp_path):
    rounds = [_round(f"B{n}") for n in range(1, 9)] + [_round("B9", evaluated=False,
                                                              problems=["x"])]
    bankers = [
        _banker("B1", 3, (-1750, 0), (-1750, 0, -625)),                   # trap: right
        _banker("B2", 2, (1900, 0), (1805, 95, 0)),                       # no commission taken:
        #                                                                   net and commission
        _banker("B3", 4, None, (1000, 50, 0)),                            # never settled
        _banker("B4", 1, (1805, 95), (1805, 95, 0), co_bank=True),        # trap: right co-bank
        _banker("B5", 1, (1900, 100), (902, 48, 950), co_bank=True),      # the whole bank kept
        _banker("B6", 5, (950, 0), (950, 50, 0)),                         # commission only
        _banker("B7", 2, (-3000, 0), (-1500, 0, -1500), co_bank=True),    # the house's half lost
        _banker("B8", 6, None, (500, 25, 500), co_bank=True),             # co-bank never settled
        _banker("B9", 4, (5, 0), None),                                   # trap: not judged
    ]
    return _run(tmp_path, {"rounds": rounds, "bankers": bankers})


def test_banker_mispay_is_a_bank_held_alone_settled_wrong_or_never(banked):
    assert _of(banked, "banker_mispay") == [
        ("B2", 2, None, 1900, 1805, 95, "over"),
        ("B3", 4, None, None, 1000, None, None),
    ]


def test_co_bank_share_wrong_is_a_shared_bank_settled_wrong_or_never(banked):
    assert _of(banked, "co_bank_share_wrong") == [
        ("B5", 1, None, 1900, 902, 998, "over"),            # the house's half kept by the player
        ("B7", 2, None, -3000, -1500, 1500, "under"),       # the house's half of a loss charged
        ("B8", 6, None, None, 500, None, None),
    ]
    detail = next(f["detail"] for f in banked if f["check_id"] == "co_bank_share_wrong")
    assert detail == ("co-banker at seat 1: recorded net 1900, expected share 902 (the "
                      "house's half: 950) (cents)")


def test_banker_commission_wrong_is_the_commission_alone_as_its_effect_on_the_net(banked):
    assert _of(banked, "banker_commission_wrong") == [
        ("B2", 2, None, 0, -95, 95, "over"),                # not taken: the banker got more
        ("B5", 1, None, -100, -48, 52, "under"),
        ("B6", 5, None, 0, -50, 50, "over"),                # the net right, the commission not
    ]


# A simulated shift against the simulator's labels ------------------------------------------

MINE = (*SETTLEMENT, "settled_not_placed", "banker_mispay", "co_bank_share_wrong",
        "banker_commission_wrong", "foul_settled_as_win", "ace_high_mispay",
        "raise_not_twice_ante", "raise_not_qualified", "folded_hand_paid")
NET = {"overpay": {"overpay"}, "underpay": {"underpay"}, "paid_loser": {"paid_loser"},
       "collected_winner": {"collected_winner"}, "commission_on_push_or_loss": {"underpay"},
       "wrong_commission": {"overpay", "underpay"}, "foul_paid": {"paid_loser", "overpay"},
       "raise_paid_not_qualified": {"overpay", "underpay"},
       "ace_high_mispaid": {"paid_loser", "collected_winner"}}
"""A fault that changes a settled net: the settlement check(s) that may count it (a fouled
main paid as a win is a loser paid, pushed it is an overpay; a void raise taken is an
underpay ...)."""


def _shift(tmp_path: Path, **shift):
    from ingest.simulate import simulate_shift

    events, labels = simulate_shift(**shift)
    log = _write_log(tmp_path, [(e.table_id.encode(), encode(e)) for e in events], batch=500)
    replay(log, tmp_path / "replay")
    run_all(tmp_path / "replay", tmp_path / "checks")
    flags = [f for f in pq.read_table(tmp_path / "checks" / "flags.parquet").to_pylist()
             if f["check_id"] in MINE]
    hands = pq.read_table(tmp_path / "replay" / "hands.parquet").to_pylist()
    return labels, flags, {(h["round_id"], h["seat"]): h["action"] for h in hands}


OWN = {"banker_mispaid": {"banker_mispay"}, "co_bank_share_wrong": {"co_bank_share_wrong"},
       "banker_commission_wrong": {"banker_commission_wrong"},
       "settled_not_placed": {"settled_not_placed"}}
"""The faults of the bank and of a wager never placed: the check that names each. A wrong
commission moves the banker's net with it: banker_mispay or co_bank_share_wrong counts that
too (the bank's net check of the round, one of the two)."""
BANK_NET = {"banker_mispay", "co_bank_share_wrong"}


def _expected_checks(label, action) -> set[str]:
    """The checks of this file and of tests/test_checks_games.py that a label raises."""
    if label.kind == "raise_not_twice_ante":
        return {"raise_not_twice_ante"}
    if label.kind in OWN:
        return OWN[label.kind]
    if label.kind not in NET:
        return set()
    extra = set()
    if label.kind == "foul_paid":
        extra.add("foul_settled_as_win")
    if label.kind == "raise_paid_not_qualified":
        extra.add("raise_not_qualified")
    if label.wager == "ace_high":
        extra.add("ace_high_mispay")
    if label.kind in ("paid_loser", "foul_paid") and action in ("fold", "concede", "withdraw"):
        extra.add("folded_hand_paid")
    return extra


@pytest.mark.parametrize("shift", [
    {"tables": 8, "rounds": 60, "seed": 5, "fault_rate": 0.6, "rich_hands": 0.3},
    {"tables": 8, "rounds": 40, "seed": 6, "fault_rate": 1.0, "rich_hands": 0.5,
     "faults": ["foul_paid", "raise_paid_not_qualified", "raise_not_twice_ante",
                "paid_loser", "collected_winner"]},
], ids=["mixed", "rare-kinds"])
def test_a_simulated_shift_raises_exactly_the_labelled_settlement_flags(tmp_path, shift):
    """Each labelled round raises exactly the checks its fault should (the seat, the wager
    and, for the settlement checks, the label's amount at stake); no round without a label
    raises any of them."""
    labels, flags, action = _shift(tmp_path, **shift)
    by_round: dict[str, list[dict]] = collections.defaultdict(list)
    for f in flags:
        by_round[f["round_id"]].append(f)
    labelled = {label.round_id: label for label in labels}
    assert set(by_round) <= set(labelled), "a round without a label raised a flag"
    seen = collections.Counter()
    for round_id, label in labelled.items():
        if label.kind == "dealt_twice":
            # judged as recorded (docs/rules.md 8.1), settled for the cards the table thought
            # it dealt: any of these checks may flag it (tests/test_replay_dealt_twice.py)
            continue
        raised = by_round.get(round_id, [])
        ids = {f["check_id"] for f in raised}
        counted = ids & set(SETTLEMENT)
        if label.kind in NET:
            assert len(counted) == 1 and counted <= NET[label.kind], (label, raised)
            (money,) = [f for f in raised if f["check_id"] in SETTLEMENT]
            assert (money["seat"], money["wager"], money["amount_at_stake_cents"]) == (
                label.seat, label.wager, label.amount_cents), (label, money)
        if label.kind == "banker_commission_wrong":
            assert len(ids & BANK_NET) == 1, (label, raised)
            ids -= BANK_NET
        assert ids - counted == _expected_checks(label, action.get((round_id, label.seat))) \
            - set(SETTLEMENT), (label, raised)
        for f in raised:
            assert (f["seat"], f["wager"]) == (label.seat, label.wager), (label, f)
        seen.update(ids)
    if "faults" in shift:
        assert {"foul_settled_as_win", "raise_not_qualified", "raise_not_twice_ante",
                "paid_loser", "collected_winner"} <= set(seen)
    else:
        assert set(SETTLEMENT) <= set(seen)
