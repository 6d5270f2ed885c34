"""Each check on a tiny hand-built table, with the exact flagged ids."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checks.runner import SEVERITIES, CheckError, load_checks, parse_check, run_all
from replay.run import TABLES
from tests.outputs_support import sign_replay


def _round(round_id, *, evaluated=True, problems=None):
    if isinstance(problems, str):  # Arrow would take a text for a list of its letters
        raise TypeError("problems is a list of the round's problems, one element each")
    return {"round_id": round_id, "casino": "C01", "table_id": "T01", "game": "pai_gow_poker",
            "ruleset": "pai_gow_poker-classic-v1", "dealt_at": None, "dealer_id": "E011",
            "evaluated": evaluated, "problems": problems, "notation": None}


def _wager(round_id, seat, amount, recorded, expected):
    rec_outcome, rec_net, rec_comm = recorded if recorded else (None, None, None)
    exp_outcome, exp_net, exp_comm = expected if expected else (None, None, None)
    return {"round_id": round_id, "casino": "C01", "table_id": "T01", "seat": seat,
            "game": "pai_gow_poker", "position": f"seat {seat}",
            "wager": "main", "amount_cents": amount,
            "recorded_outcome": rec_outcome, "recorded_net_cents": rec_net,
            "recorded_commission_cents": rec_comm, "expected_outcome": exp_outcome,
            "expected_net_cents": exp_net, "expected_commission_cents": exp_comm}


@pytest.fixture
def data(tmp_path):
    rounds = [_round("R1"), _round("R2"), _round("R3", evaluated=False,
                                                 problems=["dealer was never dealt cards"]),
              _round("R4", problems=["seat 2 placed main 5000 after the cards were dealt "
                                     "(table_seq 9): past-posting"])]
    wagers = [
        _wager("R1", 1, 2500, ("win", 2375, 125), ("win", 2375, 125)),     # right
        _wager("R1", 2, 2500, ("win", 2500, 0), ("win", 2375, 125)),       # overpay 125
        _wager("R1", 3, 1000, ("push", 0, 0), ("push", 0, 0)),             # trap: push
        _wager("R1", 4, 1000, ("loss", -1000, 0), ("loss", -1000, 0)),     # trap: foul loses
        _wager("R2", 1, 5000, ("loss", -5500, 0), ("loss", -5000, 0)),     # underpay 500
        _wager("R2", 2, 5000, None, ("win", 4750, 250)),                    # never settled
        _wager("R3", 1, 5000, ("win", 9999, 0), None),                      # not judged: no flag
    ]
    rounds += [_round("R5"), _round("R6"), _round("R7", evaluated=False, problems=["x"])]
    hands = [
        {"round_id": "R5", "table_id": "T01", "game": "pai_gow_tiles", "position": "dealer",
         "high": "6-6 1-3", "low": "2-4 1-2", "house_way": False},          # flagged
        {"round_id": "R6", "table_id": "T01", "game": "pai_gow_tiles", "position": "dealer",
         "house_way": True},                                                # trap: conforms
        {"round_id": "R6", "table_id": "T01", "position": "seat 1", "seat": 1,
         "house_way": False},                                               # trap: a seat
        {"round_id": "R7", "table_id": "T01", "position": "dealer",
         "house_way": False},                                               # trap: not judged
    ]
    envy = [
        _envy("R5", 2, "total", 500, 500, True),                 # right
        _envy("R5", 3, "total", 500, 0, False),                  # paid without Qualifying Wager
        _envy("R5", 2, "payment", 500, None, True, for_seat=1),  # trap: another seat's hand
        _envy("R5", 3, "payment", 500, None, False, for_seat=3),  # own hand
        _envy("R6", 4, "payment", 2000, None, True),             # the dealer's hand
        _envy("R6", 4, "total", 2000, 0, True),                  # ... and so mispaid
        _envy("R7", 1, "total", 900, None, True),                # trap: not evaluated
    ]
    bankers = [
        _banker("R5", 3, (-1750, 0), (-1750, 0, -625)),           # right
        _banker("R6", 2, (950, 0), (950, 50, 0)),                 # commission not taken
        _banker("R1", 4, None, (1000, 50, 0)),                    # never settled
        _banker("R7", 4, (5, 0), None),                           # trap: not judged
    ]
    steps = {"hand_verified": True, "light_illuminated": True, "validated": True,
             "paid": True, "documented": True}
    jackpots = [
        {"round_id": "R5", "table_id": "T01", "seat": 1, "recorded_award_cents": 25000,
         **steps, "validated_by": "F1", "validator_role": "floorperson"},      # complete
        {"round_id": "R6", "table_id": "T01", "seat": 2, "recorded_award_cents": 25000,
         **steps, "light_illuminated": False, "validated_by": "F1",
         "validator_role": "floorperson"},                                     # no light
        {"round_id": "R6", "table_id": "T01", "seat": 3, "recorded_award_cents": 25000,
         **steps, "validated_by": "E011", "validator_role": "dealer"},         # a dealer
        {"round_id": "R2", "table_id": "T01", "seat": 4, "recorded_award_cents": 250_000,
         **steps, "validated_by": "F1", "validator_role": "floorperson",
         "award_from_meter": True, "paid_from": "table_inventory"},            # from inventory
        {"round_id": "R2", "table_id": "T01", "seat": 5, "recorded_award_cents": 25000,
         **steps, "validated_by": "F1", "validator_role": "floorperson",
         "award_from_meter": False, "paid_from": "table_inventory"},           # trap: fixed sum
        {"round_id": "R2", "table_id": "T01", "seat": 6, "recorded_award_cents": 250_000,
         **steps, "validated_by": "F1", "validator_role": "floorperson",
         "award_from_meter": True, "paid_from": "meter"},                      # trap: meter
    ]
    findings = [{"kind": "sequence_gap", "table_id": "T01", "where": "log position 7",
                 "detail": "table T01 sequence gap: 9 after 7"}]
    replay_dir = tmp_path / "replay"
    replay_dir.mkdir()
    given = {"rounds": rounds, "hands": hands, "wagers": wagers, "envy": envy,
             "bankers": bankers, "jackpots": jackpots, "findings": findings}
    for name, schema in TABLES.items():
        rows = [{"casino": "C01", **row} for row in given.get(name, [])]  # joins on casino too
        pq.write_table(pa.Table.from_pylist(rows, schema=schema),
                       replay_dir / f"{name}.parquet")
    sign_replay(tmp_path)
    return tmp_path


def _envy(round_id, seat, row, recorded, expected, qualifying, for_seat=None):
    return {"round_id": round_id, "table_id": "T01", "seat": seat, "row": row,
            "for_seat": for_seat, "recorded_cents": recorded, "expected_cents": expected,
            "qualifying_wager": qualifying}


def _banker(round_id, seat, recorded, expected):
    rec_net, rec_comm = recorded if recorded else (None, None)
    exp_net, exp_comm, house = expected if expected else (None, None, None)
    return {"round_id": round_id, "table_id": "T01", "seat": seat, "co_bank": False,
            "recorded_net_cents": rec_net, "recorded_commission_cents": rec_comm,
            "expected_net_cents": exp_net, "expected_commission_cents": exp_comm,
            "expected_house_net_cents": house}


def _flags(data, check_id):
    rows = pq.read_table(data / "checks" / "flags.parquet").to_pylist()
    return [(r["round_id"], r["seat"], r["difference_cents"]) for r in rows
            if r["check_id"] == check_id]


def test_overpay_and_underpay_flag_exactly_the_over_and_underpaid_seats(data):
    counts = run_all(data / "replay", data / "checks")
    assert _flags(data, "overpay") == [("R1", 2, 125)]
    assert _flags(data, "underpay") == [("R2", 1, -500)]
    assert counts["paid_loser"] == counts["collected_winner"] == 0


def test_unsettled_and_not_evaluated_are_flagged_on_their_own(data):
    run_all(data / "replay", data / "checks")
    assert _flags(data, "unsettled") == [("R2", 2, None)]
    assert _flags(data, "not_evaluated") == [("R3", None, None), ("R7", None, None)]


def test_flag_money_is_integer_cents(data):
    run_all(data / "replay", data / "checks")
    schema = pq.read_schema(data / "checks" / "flags.parquet")
    for name in ("recorded_cents", "expected_cents", "amount_at_stake_cents",
                 "difference_cents"):
        assert schema.field(name).type == pa.int64()


def test_every_shipped_check_has_a_full_header():
    checks = load_checks()
    assert {c.id for c in checks} >= {"paid_loser", "collected_winner", "overpay", "underpay",
                                      "unsettled", "not_evaluated", "irregular_round"}
    assert "mispay" not in {c.id for c in checks}  # split into the four above
    assert all(c.rule and c.severity in SEVERITIES for c in checks)


def test_a_check_without_header_is_refused():
    with pytest.raises(CheckError, match=r"x\.sql: header lacks id, title"):
        parse_check("-- severity: high\n-- rule: none\nSELECT 1", "x.sql")


def test_missing_replay_output_says_what_to_run(tmp_path):
    with pytest.raises(CheckError, match=r"run `python -m replay` first"):
        run_all(tmp_path / "replay", tmp_path / "checks")


def test_irregular_round_flags_judged_rounds_with_problems_only(data):
    """R4 was judged but its record holds a past-posted wager; R3 (not evaluated) belongs to
    not_evaluated, and R1/R2 have no problems."""
    run_all(data / "replay", data / "checks")
    assert _flags(data, "irregular_round") == [("R4", None, None)]
    rows = pq.read_table(data / "checks" / "flags.parquet").to_pylist()
    (r4,) = [r for r in rows if r["check_id"] == "irregular_round"]
    assert "past-posting" in r4["detail"]


def test_house_way_flags_only_the_judged_dealer_hands_against_the_way(data):
    run_all(data / "replay", data / "checks")
    assert _flags(data, "house_way") == [("R5", None, None)]


def test_envy_checks_flag_the_wrong_totals_and_the_forbidden_payments(data):
    run_all(data / "replay", data / "checks")
    # the payments for the player's own hand and the dealer's are flagged by their own check,
    # which holds their money; envy_mispay is left for wrong amounts of lawful payments
    assert _flags(data, "envy_own_or_dealer_hand") == [("R5", 3, 500), ("R6", 4, 2000)]
    assert _flags(data, "envy_mispay") == []
    # seat 3 of R5 also held no Qualifying Wager: flagged, its money already counted above
    assert _flags(data, "envy_without_qualifying_wager") == [("R5", 3, None)]


def test_banker_mispay_flags_an_unsettled_account_and_the_commission_is_apart(data):
    run_all(data / "replay", data / "checks")
    assert _flags(data, "banker_mispay") == [("R1", 4, None)]
    # the net is right, the commission was not taken: the banker got 50 more
    assert _flags(data, "banker_commission_wrong") == [("R6", 2, 50)]


def test_jackpot_unverified_names_the_missing_step_and_the_unqualified_validator(data):
    run_all(data / "replay", data / "checks")
    rows = pq.read_table(data / "checks" / "flags.parquet").to_pylist()
    got = [(r["round_id"], r["seat"], r["detail"]) for r in rows
           if r["check_id"] == "jackpot_unverified"]
    assert [(r, s) for r, s, _ in got] == [("R6", 2), ("R6", 3)]
    assert "progressive light not verified" in got[0][2]
    assert "validated by E011 (dealer), not a floorperson or above" in got[1][2]


def test_log_findings_reach_the_flags(data):
    run_all(data / "replay", data / "checks")
    rows = pq.read_table(data / "checks" / "flags.parquet").to_pylist()
    (gap,) = [r for r in rows if r["check_id"] == "sequence_gap"]
    assert gap["table_id"] == "T01" and "sequence_gap" in gap["detail"]
    assert not [r for r in rows if r["check_id"] == "log_findings"]


def test_an_absurd_amount_is_a_flag_not_a_failure(data):
    """One settlement at the limit of a 64-bit integer must not stop the run."""
    path = data / "replay" / "wagers.parquet"
    rows = pq.read_table(path).to_pylist()
    rows.append(_wager("R1", 5, 100, ("win", -(2**63), 0), ("win", 2**63 - 1, 0)))
    pq.write_table(pa.Table.from_pylist(rows, schema=TABLES["wagers"]), path)
    sign_replay(data)
    run_all(data / "replay", data / "checks")
    assert ("R1", 5, None) in _flags(data, "collected_winner")


def test_a_percentage_award_paid_from_the_table_inventory_is_flagged(data):
    run_all(data / "replay", data / "checks")
    assert _flags(data, "award_from_inventory") == [("R2", 4, None)]


# Rounds missing from the log, or missing their start or end, reach the checks -------------

def _incomplete_shift(tmp_path):
    """Table T01 deals seven rounds; the log lost round 2's RoundStarted, round 3's
    RoundEnded, the whole of round 5 and the end of round 7 (the table's last)."""
    from replay.run import replay
    from schemas import encode
    from tests.events_factory import Table
    from tests.test_replay_workers import _write

    table = Table()
    seat = {1: {"main": 2500, "hand": ("5s 5h 5d Tc 2c", "As Kh"),
                "settled": ("win", 2375, 125)}}
    rounds = {n: table.round(f"T01-{n:06d}", dealer=("Kc Kd 9s 7h 3c", "Ah Qs"), seats=seat)
              for n in range(1, 8)}
    rounds[2] = rounds[2][1:]
    rounds[3] = rounds[3][:-1]
    rounds[5] = []
    rounds[7] = rounds[7][:-1]
    log = _write(tmp_path, [(b"T01", encode(e)) for n in range(1, 8) for e in rounds[n]])
    replay(log, tmp_path / "replay")
    return tmp_path


def _ids(data, check_id):
    rows = pq.read_table(data / "checks" / "flags.parquet").to_pylist()
    return [(r["casino"], r["table_id"], r["round_id"]) for r in rows
            if r["check_id"] == check_id]


def test_missing_rounds_starts_and_ends_reach_the_checks_with_exact_ids(tmp_path):
    data = _incomplete_shift(tmp_path)
    findings = pq.read_table(data / "replay" / "findings.parquet").to_pylist()
    assert [(f["kind"], f["round_id"]) for f in findings] == [
        ("sequence_gap", "T01-000002"), ("sequence_gap", "T01-000004"),
        ("sequence_gap", "T01-000006")]
    counts = run_all(data / "replay", data / "checks")
    # the gaps: before round 2 (its start), after round 3 (its end), round 5 (all of it)
    assert _ids(data, "sequence_gap") == [("C01", "T01", "T01-000002"),
                                          ("C01", "T01", "T01-000004"),
                                          ("C01", "T01", "T01-000006")]
    # no RoundStarted: cannot be judged
    assert _ids(data, "not_evaluated") == [("C01", "T01", "T01-000002")]
    # started, judged, never ended (round 7 leaves no gap behind: the log ends)
    assert _ids(data, "round_not_ended") == [("C01", "T01", "T01-000003"),
                                             ("C01", "T01", "T01-000007")]
    assert _ids(data, "irregular_round") == []
    rows = pq.read_table(data / "checks" / "flags.parquet").to_pylist()
    details = {r["round_id"]: r["detail"] for r in rows if r["check_id"] != "sequence_gap"}
    assert "but no RoundStarted" in details["T01-000002"]
    assert "no RoundEnded in the log" in details["T01-000007"]
    assert sum(counts.values()) == 6


# The checks do not trust silently -------------------------------------------------------

VERIFIED = {"verified": True, "verification": "verified: 48 records, checkpoint 3 signed",
            "records": 48, "root": "ab" * 32, "checkpoint": None, "key_fingerprint": "k"}


def _replayed(tmp_path, provenance):
    from replay.run import replay
    from tests.test_replay_workers import _interleaved, _shift, _write

    log = _write(tmp_path, _interleaved(_shift(tables=2, rounds=1)))
    replay(log, tmp_path / "replay", provenance=provenance)
    return tmp_path


def _trust(data):
    import json

    from checks.runner import PROVENANCE_KEY, TRUST_KEY

    meta = pq.read_schema(data / "checks" / "flags.parquet").metadata
    return meta[TRUST_KEY].decode(), json.loads(meta[PROVENANCE_KEY])


def test_data_without_a_manifest_are_refused_and_nothing_is_written(data):
    from checks.runner import Untrusted, run_checks

    (data / "replay" / "manifest.json").unlink()
    with pytest.raises(Untrusted, match=r"\(missing\): .*manifest.json is missing"):
        run_checks(data / "replay", data / "checks")
    assert not (data / "checks" / "flags.parquet").exists()


def test_an_unverified_log_is_said_loudly_and_recorded_in_the_flags(tmp_path):
    from tests.conftest import run_cli

    data = _replayed(tmp_path, None)
    proc = run_cli("checks", "--data", str(data))
    assert proc.returncode == 0, proc.stderr
    assert "WARNING: these data are not verified (unverified-log: " in proc.stdout
    assert "not verified: replay was given no verification" in proc.stdout
    trust, record = _trust(data)
    assert trust == "unverified-log" and record["verified"] is False
    assert record["manifest"]["verification"] == "not verified: replay was given no verification"


def test_a_verified_log_with_pinned_keys_is_said_and_recorded(tmp_path, monkeypatch):
    from tests.conftest import run_cli
    from tests.outputs_support import pin_outputs_key

    data = _replayed(tmp_path, {**VERIFIED, "key_pinned": True})
    pin_outputs_key(data, monkeypatch)
    proc = run_cli("checks", "--data", str(data))
    assert proc.returncode == 0, proc.stderr
    assert "WARNING" not in proc.stdout
    assert "checks: log verified: " in proc.stdout and "48 records, checkpoint 3" in proc.stdout
    trust, record = _trust(data)
    assert trust == "verified" and record["manifest"]["log"]["records"] == 48


def test_a_verified_log_without_a_keyring_is_key_not_pinned(tmp_path):
    from tests.conftest import run_cli

    data = _replayed(tmp_path, VERIFIED)
    proc = run_cli("checks", "--data", str(data))
    assert proc.returncode == 0, proc.stderr
    assert "WARNING: these data are not verified (key-not-pinned: " in proc.stdout
    assert _trust(data)[0] == "key-not-pinned"


def test_a_file_changed_after_replay_is_refused(tmp_path):
    from checks.runner import Untrusted, run_checks
    from tests.conftest import run_cli

    data = _replayed(tmp_path, VERIFIED)
    path = data / "replay" / "wagers.parquet"
    table = pq.read_table(path)
    pq.write_table(table.slice(1), path)  # a wager less, written by someone else
    with pytest.raises(Untrusted, match=r"wagers\.parquet is not the file the manifest lists"):
        run_checks(data / "replay", data / "checks")
    proc = run_cli("checks", "--data", str(data))
    assert proc.returncode == 1 and "REFUSED: the replay outputs" in proc.stderr
    assert "(tampered)" in proc.stderr and not (data / "checks" / "flags.parquet").exists()
