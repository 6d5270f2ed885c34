"""A round's proof is of one round at one casino and table, and of the round whole.

Every event carries its table's sequence number (``table_seq``), so a proof shows that the
numbers from the round's RoundStarted to its RoundEnded are each held by one event of the
round, all in the proof: ``prove`` refuses a round with a gap, no RoundEnded or a foreign
event in its range, and ``verify --proof`` refuses, from the proof alone, a proof with an
event taken out (docs/log-integrity.md "Proving one round"). A round id two casinos share
is never mixed. Logs are written with ``LogWriter`` as ingest writes them; the commands run
as a regulator runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.log import LogWriter, Received
from schemas import RoundEvent, WagerPlaced, encode
from schemas.checkpoint import read_verifier
from schemas.log_verify import verify_data
from schemas.proof import PRESENCE_FORMAT, ProofError, check_round_proof, envelope, round_proof
from tests.events_factory import Table

REPO = Path(__file__).resolve().parent.parent
DEALER = ("Kh Kd", "As Ks Qh Qd 9c")
SEATS = {1: {"main": 1000, "hand": ("Ah 7c", "2d 3h 4s 8c Jd"), "settled": ("loss", -1000, 0)},
         2: {"main": 2500, "hand": ("As Ad", "Kc Ks Qs Qc 5h"), "settled": ("win", 2375, 125)}}


def _round(round_id: str = "R-1", *, table: Table | None = None) -> list[RoundEvent]:
    return (table or Table()).round(round_id, dealer=DEALER, seats=SEATS)


def _write(data: Path, events: list[RoundEvent | bytes], *, batch: int = 4) -> None:
    messages = [e if isinstance(e, bytes) else encode(e) for e in events]
    with LogWriter(data / "log", data / "quarantine") as log:
        for start in range(0, len(messages), batch):
            log.append([Received(topic="round-events", partition=0, offset=i,
                                 timestamp_ms=1_795_888_800_000 + i, key=b"T01", value=v)
                        for i, v in enumerate(messages[start:start + batch], start=start)],
                       [])


def _prove(data: Path, round_id: str = "R-1", **where: str) -> dict:
    verdict = verify_data(data, read_verifier(data / "keys" / "signing.pub"))
    assert verdict.ok, verdict.line()
    return round_proof(verdict, round_id, **where)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ingest", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_the_envelope_read_from_the_bytes_is_the_decoded_one() -> None:
    event = _round(table=Table("T07", casino="C09"))[3]
    assert envelope(encode(event)) == ("C09", "T07", 4, "R-1")
    assert envelope(encode(event, schema_id=1)) == ("C09", "T07", 4, "R-1")
    assert envelope(b"\x00\x00\x00\x00\x07" + encode(event)[5:]) is None
    assert envelope(encode(event)[:12]) is None


def test_a_whole_round_is_proved_complete_and_names_casino_and_table(tmp_path: Path) -> None:
    events = _round()
    _write(tmp_path, events)
    proof = _prove(tmp_path)
    assert proof["format"] == "catwalk-inclusion-proof/2"
    assert (proof["casino"], proof["table_id"]) == ("C01", "T01")
    assert proof["complete"] == {"first_seq": 1, "last_seq": len(events)}
    assert [e["table_seq"] for e in proof["events"]] == list(range(1, len(events) + 1))
    check = check_round_proof(proof, read_verifier(tmp_path / "keys" / "signing.pub"))
    assert check.ok and check.complete == (1, len(events)), check.problem


def test_a_proof_without_its_wager_settlements_fails(tmp_path: Path) -> None:
    _write(tmp_path, _round())
    vkey = (tmp_path / "keys" / "signing.pub").read_text().strip()
    out = tmp_path / "r.proof"
    made = _cli("prove", "R-1", "--data", str(tmp_path), "--out", str(out))
    assert made.returncode == 0, made.stderr
    assert "complete: table_seq 1-12" in made.stderr
    whole = _cli("verify", "--proof", str(out), "--key", vkey, "--data", str(tmp_path / "x"))
    assert whole.returncode == 0, whole.stderr
    assert ("round R-1 at casino C01 table T01: complete: table_seq 1-12, RoundStarted to "
            "RoundEnded") in whole.stdout
    body = json.loads(out.read_text())
    settled = [e["table_seq"] for e in body["events"] if e["kind"] == "WagerSettled"]
    assert settled == [10, 11]
    body["events"] = [e for e in body["events"] if e["kind"] != "WagerSettled"]
    out.write_text(json.dumps(body))
    cut = _cli("verify", "--proof", str(out), "--key", vkey, "--data", str(tmp_path / "x"))
    assert cut.returncode == 1, cut.stdout
    assert "not complete: table_seq 10-11 of the range 1-12" in cut.stderr
    assert "Traceback" not in cut.stderr
    body["complete"] = {"first_seq": 1, "last_seq": 9}  # the range shrunk to hide them
    out.write_text(json.dumps(body))
    shrunk = _cli("verify", "--proof", str(out), "--key", vkey, "--data", str(tmp_path / "x"))
    assert shrunk.returncode == 1
    assert "its RoundEnded is at 12" in shrunk.stderr


def test_the_proof_checks_what_it_names_against_the_records(tmp_path: Path) -> None:
    _write(tmp_path, _round())
    proof = _prove(tmp_path)
    key = read_verifier(tmp_path / "keys" / "signing.pub")
    other = dict(proof, casino="C02")
    assert check_round_proof(other, key).problem == (
        "event 1 (round-events[0]@0): the record is of casino C01 table T01, not casino "
        "C02 table T01 the proof names")
    doubled = dict(proof, events=[*proof["events"], proof["events"][4]])
    assert check_round_proof(doubled, key).problem == (
        "not complete: table_seq 5 is held by 2 events of the proof (events 5, 13)")
    renumbered = json.loads(json.dumps(proof))
    renumbered["events"][2]["table_seq"] = 9
    assert "the record's table_seq is 3, not '9' as the proof says" in (
        check_round_proof(renumbered, key).problem or "")


def test_a_proof_of_the_first_format_is_presence_only(tmp_path: Path) -> None:
    _write(tmp_path, _round())
    proof = _prove(tmp_path)
    old = {k: v for k, v in proof.items() if k not in ("casino", "table_id", "complete")}
    old["format"] = PRESENCE_FORMAT
    old["events"] = [{k: v for k, v in e.items() if k != "table_seq"} for e in old["events"]
                     if e["kind"] != "WagerSettled"]
    check = check_round_proof(old, read_verifier(tmp_path / "keys" / "signing.pub"))
    assert check.ok and check.presence_only and check.complete is None
    out = tmp_path / "old.proof"
    out.write_text(json.dumps(old))
    vkey = (tmp_path / "keys" / "signing.pub").read_text().strip()
    done = _cli("verify", "--proof", str(out), "--key", vkey, "--data", str(tmp_path / "x"))
    assert done.returncode == 0, done.stderr
    assert "OK: 10 events of round R-1" in done.stdout
    assert ("presence only: written before proofs showed completeness "
            "(catwalk-inclusion-proof/1)") in done.stdout


def test_a_round_id_two_casinos_share_is_never_mixed(tmp_path: Path) -> None:
    ours, theirs = _round(table=Table("T01", "C01")), _round(table=Table("T01", "C02"))
    _write(tmp_path, [e for pair in zip(ours, theirs, strict=True) for e in pair])
    refused = _cli("prove", "R-1", "--data", str(tmp_path))
    assert refused.returncode == 2
    assert ("prove: round 'R-1' is held at 2 tables (casino C01 table T01, casino C02 table "
            "T01): a proof is of one; add --casino CASINO to say which") in refused.stderr
    proof = _prove(tmp_path, casino="C02")
    assert proof["casino"] == "C02"
    assert {e["event_id"] for e in proof["events"]} == {e.event_id for e in theirs}
    assert [e["coordinates"] for e in proof["events"]][:2] == [
        "round-events[0]@1", "round-events[0]@3"]


def test_a_round_id_two_tables_share_asks_for_the_table(tmp_path: Path) -> None:
    _write(tmp_path, [*_round(table=Table("T01")), *_round(table=Table("T02"))])
    with pytest.raises(ProofError, match=r"held at 2 tables \(casino C01 table T01, casino "
                       r"C01 table T02\): a proof is of one; add --table TABLE_ID"):
        _prove(tmp_path)
    assert _prove(tmp_path, table_id="T02")["table_id"] == "T02"
    assert _prove(tmp_path, casino="C01", table_id="T01")["table_id"] == "T01"


def test_a_gap_a_missing_end_and_a_foreign_event_are_refused(tmp_path: Path) -> None:
    events = _round()
    gap = tmp_path / "gap"
    _write(gap, [e for e in events if e.table_seq not in (4, 5)])
    with pytest.raises(ProofError, match=r"round R-1 \(casino C01 table T01\): table_seq 4-5 "
                       r"missing from the log between its RoundStarted \(table_seq 1\) and "
                       r"its RoundEnded \(table_seq 12\)"):
        _prove(gap)
    open_ = tmp_path / "open"
    _write(open_, events[:-1])
    with pytest.raises(ProofError, match="the round is not ended: the log holds no RoundEnded"):
        _prove(open_)
    foreign = tmp_path / "foreign"
    table = Table()
    intruder = table.event("R-9", WagerPlaced(seat=3, wager="main", amount_cents=500), seq=6)
    _write(foreign, [*(e for e in events if e.table_seq != 6), intruder])
    with pytest.raises(ProofError, match=r"a foreign event inside its range table_seq 1-12: "
                       r"table_seq 6 is of round R-9 \(partition 0 offset 11"):
        _prove(foreign)
    refused = _cli("prove", "R-1", "--data", str(foreign))
    assert refused.returncode == 2 and "foreign event" in refused.stderr


def test_the_same_record_twice_is_proved_once(tmp_path: Path) -> None:
    events = _round()
    _write(tmp_path, [*events[:5], events[4], *events[5:]])
    proof = _prove(tmp_path)
    assert len(proof["events"]) == len(events)
    assert [e["coordinates"] for e in proof["events"]][4:6] == [
        "round-events[0]@4", "round-events[0]@6"]
    assert check_round_proof(proof, read_verifier(tmp_path / "keys" / "signing.pub")).ok


@pytest.mark.parametrize("how", ["text", "plus", "file", "binary"])
def test_a_huge_or_binary_key_gives_one_short_line(tmp_path: Path, how: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """In process: the kernel refuses a 600 KB argument to a new process (128 KB at most),
    but a caller of the function, or a key file, is not so bounded."""
    from ingest.__main__ import main

    _write(tmp_path, _round())
    big = tmp_path / "big.pub"
    key = {"text": "k" * 600_000, "plus": "catwalk+" + "0" * 600_000 + "+AAAA",
           "file": str(big), "binary": str(big)}[how]
    if how == "file":
        big.write_text("catwalk+" + "0" * 600_000)
    if how == "binary":
        big.write_bytes(bytes(range(256)) * 2400)
    capsys.readouterr()
    assert main(["verify", "--data", str(tmp_path), "--key", key]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) < 300, lines[0][:400]
    assert lines[0].startswith("verify: --key: ")
    said = {"text": "... (600,000 characters): cannot read the public key: File name too long",
            "plus": "... (600,013 characters); a verifier key is at most 4,096 characters",
            "file": f"{big}: the public key file is 600,008 bytes; a key file is at most 4,096",
            "binary": f"{big}: the public key file is 614,400 bytes; a key file is at most "
                      "4,096"}[how]
    assert said in lines[0], lines[0]


def test_a_forged_checkpoint_of_50_kb_is_not_echoed_whole(tmp_path: Path) -> None:
    _write(tmp_path, _round())
    proof = _prove(tmp_path)
    lines = proof["checkpoint"].split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("catwalk-time "))
    lines[at] = "catwalk-time " + "9" * 50_000
    forged = dict(proof, checkpoint="\n".join(lines))
    problem = check_round_proof(forged, read_verifier(tmp_path / "keys" / "signing.pub")).problem
    assert problem is not None and problem.startswith("its checkpoint: bad signature: ")
    assert "(50,000 characters)" in problem and len(problem) < 400, problem[:500]


def test_a_round_that_is_not_there_is_named_short(tmp_path: Path) -> None:
    _write(tmp_path, _round())
    with pytest.raises(ProofError) as raised:
        _prove(tmp_path, "R-" + "9" * 100_000, casino="C01")
    said = str(raised.value)
    assert said.startswith("round 'R-999")
    assert "(100,002 characters) at casino C01 has no event in the log" in said
    assert len(said) < 300
