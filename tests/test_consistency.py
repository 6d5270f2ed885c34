"""Consistency proofs (RFC 9162 2.1.4) against the Certificate Transparency reference vectors
(the RFC 6962 test data of transparency-dev/merkle and certificate-transparency-go), every
pair of sizes up to 64 between prover and verifier, altered proofs refused; the
``catwalk-consistency-proof/1`` file built from a real log and checked offline; the
C2SP origin line and its second signature line; and the commands a regulator runs."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ingest.log import LogWriter, Received
from schemas import WagerPlaced, encode
from schemas.checkpoint import (
    Checkpoint,
    Signer,
    Verifier,
    key_hash,
    open_signed,
    parse,
    read_verifier,
)
from schemas.consistency import check_consistency, consistency_proof_of
from schemas.log_verify import verify_data
from schemas.merkle import (
    EMPTY_ROOT,
    Levels,
    Subtrees,
    Tree,
    consistency_proof,
    leaf_hash,
    root_of,
    verify_consistency,
)
from tests.events_factory import Table
from tests.test_merkle import LEAVES, REFERENCE_ROOTS

REPO = Path(__file__).resolve().parent.parent

# (old size, new size, proof) from the reference data (transparency-dev/merkle
# proof/verify_test.go, the same as certificate-transparency-go's).
REFERENCE_PROOFS = [
    (1, 1, []),
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
    (6, 7, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
]


def _root(size: int) -> bytes:
    return bytes.fromhex(REFERENCE_ROOTS[size])


def _altered(proof: list[bytes], old_root: bytes, new_root: bytes) -> list[list[bytes]]:
    """The reference verifier's corruptions: each hash with a bit flipped, a hash removed,
    garbage or a root added in front or behind."""
    out = [proof[:-1], [*proof, b""], [*proof, old_root], [*proof, new_root],
           [b"", *proof], [old_root, *proof], [new_root, *proof], [proof[0], *proof], []]
    for i in range(len(proof)):
        bad = list(proof)
        bad[i] = bytes([bad[i][0] ^ 16]) + bad[i][1:]
        out.append(bad)
    return out


@pytest.mark.parametrize(("old", "new", "expected"), REFERENCE_PROOFS)
def test_proofs_match_the_reference(old: int, new: int, expected: list[str]) -> None:
    proof = consistency_proof(LEAVES[:new], old, new)
    assert [h.hex() for h in proof] == expected
    assert verify_consistency(old, new, _root(old), _root(new), proof)
    if not proof:
        return
    for bad in _altered(proof, _root(old), _root(new)):
        assert not verify_consistency(old, new, _root(old), _root(new), bad)
    for o, n in ((old - 1, new), (old + 1, new), (old ^ 2, new), (old, new * 2),
                 (old, new // 2)):
        assert not verify_consistency(o, n, _root(old), _root(new), proof)
    assert not verify_consistency(old, new, _root(new), _root(old), proof)
    assert not verify_consistency(old, new, b"WrongRoot", _root(new), proof)


def test_the_edge_sizes_of_the_reference() -> None:
    some = bytes.fromhex("abacaba000000000000000000000000000000000000000000060061e00123456")
    assert verify_consistency(0, 0, EMPTY_ROOT, EMPTY_ROOT, [])
    assert verify_consistency(0, 5, EMPTY_ROOT, _root(5), [])
    assert verify_consistency(1, 1, _root(1), _root(1), [])
    assert not verify_consistency(1, 1, _root(1), _root(2), [])  # two roots of one size
    assert not verify_consistency(1, 0, _root(1), EMPTY_ROOT, [])  # back in time
    assert not verify_consistency(2, 1, _root(2), _root(1), [])
    assert not verify_consistency(1, 2, _root(1), _root(2), [])  # no proof
    assert not verify_consistency(1, 1, _root(1), _root(1), [EMPTY_ROOT])  # proof too many
    assert not verify_consistency(0, 1, EMPTY_ROOT, _root(1), [EMPTY_ROOT])
    assert not verify_consistency(0, 3, some, _root(3), [])


def test_every_pair_up_to_64_agrees_and_altered_proofs_fail() -> None:
    leaves = [leaf_hash(i.to_bytes(2, "big")) for i in range(64)]
    roots = [root_of(leaves[:n]) for n in range(65)]
    levels = Levels(leaves)
    for new in range(1, 65):
        kept = Subtrees(leaves[:new], [Tree(size, _subtrees(leaves[:size]))
                                       for size in range(0, new + 1, 5)])
        for old in range(1, new + 1):
            proof = consistency_proof(leaves[:new], old, new)
            assert consistency_proof(levels, old, new) == proof
            assert consistency_proof(kept, old, new) == proof
            assert verify_consistency(old, new, roots[old], roots[new], proof), (old, new)
            if old == new:
                assert proof == []
                continue
            for bad in _altered(proof, roots[old], roots[new]):
                assert not verify_consistency(old, new, roots[old], roots[new], bad)
            for other in range(1, new):
                if other != old:
                    assert not verify_consistency(other, new, roots[other], roots[new], proof)


def _subtrees(leaves: list[bytes]) -> tuple[bytes, ...]:
    tree = Tree()
    for leaf in leaves:
        tree.append(leaf)
    return tree.subtrees


def test_a_proof_from_kept_subtrees_hashes_little() -> None:
    """A proof across 2**16 leaves with a compact range kept every 500: the nodes it needs
    are found in the kept ranges, so a wrong leaf far from a kept size's end is never read."""
    leaves = [leaf_hash(i.to_bytes(4, "big")) for i in range(1 << 16)]
    ranges = [Tree(size, _subtrees(leaves[:size])) for size in range(500, len(leaves), 500)]
    whole = Tree(len(leaves), _subtrees(leaves))
    doctored = list(leaves)
    doctored[1234] = b"\x00" * 32  # not used when the nodes above it are kept
    nodes = Subtrees(doctored, [*ranges, whole])
    proof = consistency_proof(nodes, 40_000, 1 << 16)
    assert proof == consistency_proof(leaves, 40_000, 1 << 16)
    assert verify_consistency(40_000, 1 << 16, root_of(leaves[:40_000]), root_of(leaves), proof)


# --- the origin line and its signature lines -----------------------------------------------

def _signer() -> Signer:
    return Signer("catwalk-ingest", Ed25519PrivateKey.from_private_bytes(bytes(range(32))))


def test_new_checkpoints_have_a_c2sp_origin_and_a_key_named_by_it() -> None:
    signer = _signer()
    cp = Checkpoint(log_id="5f0c" * 8, size=9, root=b"\x01" * 32,
                    signed_at="2026-12-01T00:00:00.000000Z")
    note = signer.sign(cp)
    origin = note.split("\n")[0]
    assert origin == "catwalk.invalid/log/" + "5f0c" * 8
    assert " " not in origin and "+" not in origin
    lines = note.split("\n\n")[1].splitlines()
    assert [line.split(" ")[1] for line in lines] == ["catwalk-ingest", origin]
    raw = base64.b64decode(lines[1].split(" ")[2])
    assert raw[:4] == key_hash(origin, signer.verifier.public)
    # a tool that looks the key up by origin verifies the note with that line
    by_origin = Verifier(origin, signer.verifier.public)
    assert open_signed(note, by_origin).log_id == "5f0c" * 8
    assert open_signed(note, signer.verifier) == parse(note) == cp
    assert parse(note).body() == note.split("\n\n")[0] + "\n"


def test_an_old_checkpoint_reads_and_verifies_as_before() -> None:
    """A checkpoint written before the C2SP origin: built here by hand, signed with the
    cryptography library directly, so the reader is checked on bytes it did not write."""
    private = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    body = ("catwalk event log 0123456789abcdef0123456789abcdef\n9\n"
            + base64.b64encode(b"\x02" * 32).decode() + "\n"
            "catwalk-time 2026-11-30T23:59:59.123456Z\ncatwalk-segment segment-000003.avro\n"
            f"catwalk-chain {'ab' * 32}\ncatwalk-next-offsets {{\"round-events[0]\":9}}\n")
    signer = _signer()
    stamp = base64.b64encode(key_hash("catwalk-ingest", signer.verifier.public)
                             + private.sign(body.encode())).decode()
    note = f"{body}\n\u2014 catwalk-ingest {stamp}\n"
    cp = open_signed(note, signer.verifier)
    assert cp.log_id == "0123456789abcdef0123456789abcdef" and cp.size == 9
    assert cp.legacy_origin and cp.origin == "catwalk event log " + cp.log_id
    assert cp.body() == body
    assert signer.sign(cp) == note  # re-signed, still one line and the old origin


# --- a real log, the file, and the commands ------------------------------------------------

def _received(offset: int) -> Received:
    value = encode(Table().event("T01-000001", WagerPlaced(seat=1, wager="main",
                                                           amount_cents=100 + offset),
                                 seq=offset + 1))
    return Received(topic="round-events", partition=0, offset=offset,
                    timestamp_ms=1_000 + offset, key=b"T01", value=value)


def write_log(data: Path, batches: int, *, start: int = 0, signer: Signer | None = None) -> None:
    with LogWriter(data / "log", data / "quarantine", signer=signer) as log:
        for batch in range(batches):
            log.append([_received(start + batch * 3 + i) for i in range(3)], [])


@pytest.fixture
def data(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    write_log(d, 2)
    (tmp_path / "old.checkpoint").write_text((d / "checkpoints" / "latest.checkpoint").read_text())
    write_log(d, 3, start=6)
    return d


def test_the_file_built_from_a_log_checks_offline(data: Path) -> None:
    key = read_verifier(data / "keys" / "signing.pub")
    old = (data.parent / "old.checkpoint").read_text()
    verdict = verify_data(data, key, checkpoints=[("old", old)])
    doc = consistency_proof_of(verdict, old)
    assert doc["format"] == "catwalk-consistency-proof/1"
    assert (doc["old_size"], doc["new_size"]) == (6, 15)
    check = check_consistency(json.loads(json.dumps(doc)), key)
    assert check.ok, check.problem
    assert check.old is not None and check.new is not None and check.new.size == 15

    other = Signer("catwalk-ingest", Ed25519PrivateKey.generate()).verifier
    assert "not signed by the key" in str(check_consistency(doc, other).problem)
    swapped = {**doc, "old_checkpoint": doc["new_checkpoint"],
               "new_checkpoint": doc["old_checkpoint"], "old_size": 15, "new_size": 6}
    assert "smaller tree" in str(check_consistency(swapped, key).problem)
    bad = {**doc, "proof": [base64.b64encode(b"\x00" * 32).decode(), *doc["proof"][1:]]}
    assert "does not show the old tree" in str(check_consistency(bad, key).problem)
    lied = {**doc, "new_size": 99}
    assert "new_size says 99" in str(check_consistency(lied, key).problem)


def _ingest(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ingest", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_the_commands_end_to_end(data: Path) -> None:
    pub = str(data / "keys" / "signing.pub")
    out = data.parent / "c.json"
    made = _ingest("consistency", str(data.parent / "old.checkpoint"), "--data", str(data),
                   "--key", pub, "--out", str(out))
    assert made.returncode == 0, made.stderr
    ok = _ingest("verify", "--consistency", str(out), "--key", pub, "--data",
                 str(data.parent / "nothing-here"))
    assert ok.returncode == 0, ok.stderr
    assert "holds the 6 records" in ok.stdout and "9 more" in ok.stdout

    doc = json.loads(out.read_text())
    doc["proof"][0] = base64.b64encode(b"\x07" * 32).decode()
    out.write_text(json.dumps(doc))
    bad = _ingest("verify", "--consistency", str(out), "--key", pub)
    assert bad.returncode == 1 and "does not show the old tree" in bad.stderr
    assert "Traceback" not in bad.stderr
    nokey = _ingest("verify", "--consistency", str(out))
    assert nokey.returncode == 2
    (data.parent / "junk.json").write_text("{")
    junk = _ingest("verify", "--consistency", str(data.parent / "junk.json"), "--key", pub)
    assert junk.returncode == 2 and "Traceback" not in junk.stderr


def fork_of(data: Path, dest: Path) -> Path:
    """A copy of ``data`` cut after its first segment (3 records) and grown with other
    records by the same key: one log id, two histories."""
    shutil.copytree(data, dest)
    for seg in sorted((dest / "log").glob("segment-*.avro"))[1:]:
        seg.unlink()
    for cp in (dest / "checkpoints").glob("*.checkpoint"):
        if cp.name != "segment-000001.checkpoint":
            cp.unlink()
    write_log(dest, 3, start=100)
    return dest


def test_a_checkpoint_of_a_rewritten_log_gets_no_proof(data: Path, tmp_path: Path) -> None:
    """A log with the same key and log id whose records differ after its first 3: the old
    checkpoint (6 records) does not match it, so consistency refuses (exit 1)."""
    fork = fork_of(data, tmp_path / "fork")
    pub = str(data / "keys" / "signing.pub")
    run = _ingest("consistency", str(data.parent / "old.checkpoint"), "--data", str(fork),
                  "--key", pub)
    assert run.returncode == 1 and "Traceback" not in run.stderr


def test_a_log_begun_with_the_old_origin_keeps_it(tmp_path: Path) -> None:
    """A log whose first checkpoints carry ``catwalk event log <id>`` (as every log written
    before the C2SP origin): a restarted writer goes on with that origin and one signature
    line, and the log verifies; its consistency proofs work the same."""
    data = tmp_path / "data"
    with LogWriter(data / "log", data / "quarantine") as log:
        log._legacy_origin = True  # as a log written by the earlier ingest began
        log.append([_received(i) for i in range(3)], [])
    (tmp_path / "old.checkpoint").write_text((data / "checkpoints" / "latest.checkpoint")
                                             .read_text())
    write_log(data, 2, start=3)
    key = read_verifier(data / "keys" / "signing.pub")
    notes = [p.read_text() for p in sorted((data / "checkpoints").glob("*.checkpoint"))]
    assert len(notes) == 4
    for note in notes:
        assert note.startswith("catwalk event log ")
        assert note.split("\n\n")[1].count("\n") == 1  # one signature line
        assert open_signed(note, key).legacy_origin
    old = (tmp_path / "old.checkpoint").read_text()
    verdict = verify_data(data, key, checkpoints=[("old", old)])
    assert verdict.ok, verdict.problem
    assert check_consistency(consistency_proof_of(verdict, old), key).ok
    fresh = tmp_path / "fresh"
    write_log(fresh, 1)
    assert (fresh / "checkpoints" / "latest.checkpoint").read_text().startswith(
        "catwalk.invalid/log/")


def test_verify_consistency_with_a_witness(data: Path, tmp_path: Path) -> None:
    pub = str(data / "keys" / "signing.pub")
    state = tmp_path / "w"
    cosigned = tmp_path / "cosigned.checkpoint"
    assert _ingest("witness", "--state", str(state), "--key", pub,
                   str(data.parent / "old.checkpoint")).returncode == 0
    grew = tmp_path / "grew.json"
    assert _ingest("consistency", str(data.parent / "old.checkpoint"), "--data", str(data),
                   "--key", pub, "--out", str(grew)).returncode == 0
    run = _ingest("witness", "--state", str(state), "--key", pub, "--proof", str(grew),
                  str(data / "checkpoints" / "latest.checkpoint"), "--out", str(cosigned))
    assert run.returncode == 0, run.stderr
    witness = (state / "witness.pub").read_text().strip()
    plain = _ingest("verify", "--consistency", str(grew), "--key", pub, "--witness", witness)
    assert plain.returncode == 1 and "not cosigned by witness catwalk-witness" in plain.stderr
    both = tmp_path / "both.json"
    assert _ingest("consistency", str(data.parent / "old.checkpoint"), str(cosigned),
                   "--data", str(data), "--key", pub, "--out", str(both)).returncode == 0
    ok = _ingest("verify", "--consistency", str(both), "--key", pub, "--witness", witness)
    assert ok.returncode == 0, ok.stderr
    assert "cosigned by catwalk-witness" in ok.stdout


def test_extension_lines_are_read_by_name_not_by_place() -> None:
    """The body's catwalk- lines in another order, with one this reader does not know: the
    same checkpoint; a line that is no extension, or one twice, is refused."""
    from schemas.checkpoint import CheckpointError

    cp = Checkpoint(log_id="ab" * 16, size=3, root=b"\x03" * 32, signed_at="2026-12-01T00:00:00Z",
                    next_offsets={"t[0]": 3}, segment="segment-000001.avro", chain=b"\x04" * 32)
    lines = cp.body().splitlines()
    shuffled = [*lines[:3], "catwalk-epoch 7", *reversed(lines[3:])]
    note = "\n".join(shuffled) + "\n\n\u2014 catwalk-ingest AAAA\n"
    assert parse(note) == cp
    for bad in ([*lines, "not an extension"], [*lines, lines[3]], [*lines[:3], *lines[4:]]):
        with pytest.raises(CheckpointError):
            parse("\n".join(bad) + "\n\n\u2014 catwalk-ingest AAAA\n")
