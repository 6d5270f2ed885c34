"""The witness (ingest/witness.py) and the C2SP tlog-cosignature format
(schemas/cosignature.py): it accepts a first checkpoint, then only checkpoints consistent
with the largest it kept; it refuses a rollback (a smaller checkpoint) and a fork (two logs
of one key and log id that diverge), naming both sizes and roots; its state and key are
durable; and `verify --witness` requires its cosignature. Logs are written with LogWriter,
no Kafka needed."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ingest.witness import Refused, Witness, load_cosigner
from schemas.checkpoint import CheckpointError, read_verifier
from schemas.cosignature import Cosigner, WitnessKey, cosigner_key_id, signed_message
from tests.test_consistency import fork_of, write_log

REPO = Path(__file__).resolve().parent.parent

SPEC_LINE = ("jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZ"
             "qhf5nNo0xUe+mbIUBkBIfZ+qnA==")
"""The cosignature line of the C2SP tlog-cosignature example, cosigned at time 1679315147
(the time line of the spec's signed-message example)."""


def test_the_signature_layout_is_the_specs() -> None:
    raw = base64.b64decode(SPEC_LINE)
    assert len(raw) == 4 + 8 + 64
    assert int.from_bytes(raw[4:12], "big") == 1679315147
    assert signed_message("example.com/behind-the-sofa\n20852163\n"
                          "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n", 1679315147) == (
        b"cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n20852163\n"
        b"CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n")


def test_a_cosignature_checks_with_an_independent_ed25519() -> None:
    private = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    cosigner = Cosigner("witness.example/w1", private)
    note = "example.com/log\n3\n" + base64.b64encode(b"\x05" * 32).decode() + "\n\n\u2014 x AAAA\n"
    cosigned = cosigner.cosign(note, 1_700_000_000)
    line = cosigned.splitlines()[-1]
    assert line.startswith("\u2014 witness.example/w1 ")
    raw = base64.b64decode(line.split(" ")[2])
    public = cosigner.key.public
    assert raw[:4] == cosigner_key_id("witness.example/w1", public)
    assert raw[:4] == __import__("hashlib").sha256(
        b"witness.example/w1\n\x04" + public).digest()[:4]
    body = note.split("\n\n")[0] + "\n"
    private.public_key().verify(raw[12:], b"cosignature/v1\ntime 1700000000\n" + body.encode())
    key = WitnessKey.from_vkey(cosigner.key.vkey)
    assert key.cosigned_at(cosigned) == 1_700_000_000
    assert cosigner.key.vkey.split("+")[2].startswith("BA")  # base64 of 0x04 ...
    with pytest.raises(CheckpointError, match="bad cosignature"):
        key.cosigned_at(cosigned.replace("\n3\n", "\n4\n"))
    with pytest.raises(CheckpointError, match="not cosigned"):
        key.cosigned_at(note)
    again = cosigner.cosign(cosigned, 1_700_000_100)
    assert again.count("witness.example/w1") == 1 and key.cosigned_at(again) == 1_700_000_100


@pytest.fixture
def log(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write_log(data, 2)
    (tmp_path / "six.checkpoint").write_text((data / "checkpoints" / "latest.checkpoint")
                                             .read_text())
    write_log(data, 3, start=6)
    return data


def _ingest(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ingest", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_the_witness_key_is_made_once_private_and_durable(tmp_path: Path) -> None:
    state = tmp_path / "w"
    state.mkdir()
    first = load_cosigner(state)
    assert os.stat(state / "witness.key").st_mode & 0o777 == 0o600
    assert load_cosigner(state).key == first.key
    assert (state / "witness.pub").read_text().strip() == first.key.vkey
    assert not list(state.glob(".*tmp"))


def test_accepts_grows_and_refuses_a_rollback(log: Path, tmp_path: Path) -> None:
    key = read_verifier(log / "keys" / "signing.pub")
    state = tmp_path / "w"
    state.mkdir()
    witness = Witness(state, key, load_cosigner(state))
    six = (tmp_path / "six.checkpoint").read_text()
    first = witness.accept(six, proof=None, now=1_800_000_000)
    assert first.before is None and first.checkpoint.size == 6
    assert witness.kept(first.checkpoint.log_id) == first.checkpoint
    latest = (log / "checkpoints" / "latest.checkpoint").read_text()
    with pytest.raises(Refused, match="does not show"):
        witness.accept(latest, proof=[b"\x00" * 32])
    assert witness.kept(first.checkpoint.log_id).size == 6  # nothing changed on a refusal

    run = _ingest("witness", "--state", str(state), "--key", str(log / "keys" / "signing.pub"),
                  "--data", str(log), "--out", str(tmp_path / "cosigned"))
    assert run.returncode == 0, run.stderr
    assert "consistent with the 6 records" in run.stderr
    cosigned = (tmp_path / "cosigned").read_text()
    assert cosigned.split("\n")[:3] == latest.split("\n")[:3]  # origin, 15, root
    assert cosigned.split("\n")[1] == "15"
    assert (state / "logs" / f"{first.checkpoint.log_id}.checkpoint").read_text() == cosigned

    back = _ingest("witness", "--state", str(state), "--key", str(log / "keys" / "signing.pub"),
                   str(tmp_path / "six.checkpoint"))
    assert back.returncode == 1 and "rollback" in back.stderr
    assert "15 records" in back.stderr and "has 6" in back.stderr
    assert "Traceback" not in back.stderr

    pub = (state / "witness.pub").read_text().strip()
    ok = _ingest("verify", "--data", str(log), "--key", str(log / "keys" / "signing.pub"),
                 "--checkpoint", str(tmp_path / "cosigned"), "--witness", pub)
    assert ok.returncode == 0, ok.stderr
    unsigned = _ingest("verify", "--data", str(log), "--key", str(log / "keys" / "signing.pub"),
                       "--checkpoint", str(tmp_path / "six.checkpoint"), "--witness", pub)
    assert unsigned.returncode == 1 and "not cosigned by witness" in unsigned.stderr
    other = Cosigner("catwalk-witness", Ed25519PrivateKey.generate()).key.vkey
    stranger = _ingest("verify", "--data", str(log), "--key", str(log / "keys" / "signing.pub"),
                       "--checkpoint", str(tmp_path / "cosigned"), "--witness", other)
    assert stranger.returncode == 1


def test_refuses_a_fork_of_one_key_and_log_id(log: Path, tmp_path: Path) -> None:
    """The witness accepted the log at 15 records; the same key and log id, cut after 3
    records and grown with others to 12, is refused as well as at 15+: a fork."""
    fork = fork_of(log, tmp_path / "fork")
    pub = str(log / "keys" / "signing.pub")
    state = tmp_path / "w"
    assert _ingest("witness", "--state", str(state), "--key", pub, "--data", str(log)
                   ).returncode == 0
    write_log(fork, 2, start=200)  # 3 + 9 + 6 = 18 records: larger than what was accepted
    forked = _ingest("witness", "--state", str(state), "--key", pub, "--data", str(fork))
    assert forked.returncode == 1, forked.stderr
    assert "forked" in forked.stderr and "old: 15 records" in forked.stderr
    assert "new: 18 records" in forked.stderr
    # the proof file route: a consistency proof the fork can make is from its own history
    proof = tmp_path / "p.json"
    made = _ingest("consistency", str(fork / "checkpoints" / "segment-000001.checkpoint"),
                   "--data", str(fork), "--key", pub, "--out", str(proof))
    assert made.returncode == 0, made.stderr
    refused = _ingest("witness", "--state", str(state), "--key", pub, "--proof", str(proof),
                      str(fork / "checkpoints" / "latest.checkpoint"))
    assert refused.returncode == 1 and "not from the 15 records" in refused.stderr


def test_a_larger_checkpoint_without_a_proof_cannot_be_judged(log: Path, tmp_path: Path) -> None:
    state = tmp_path / "w"
    pub = str(log / "keys" / "signing.pub")
    assert _ingest("witness", "--state", str(state), "--key", pub,
                   str(tmp_path / "six.checkpoint")).returncode == 0
    run = _ingest("witness", "--state", str(state), "--key", pub,
                  str(log / "checkpoints" / "latest.checkpoint"))
    assert run.returncode == 2 and "--proof FILE" in run.stderr
    proof = tmp_path / "p.json"
    assert _ingest("consistency", str(tmp_path / "six.checkpoint"), "--data", str(log),
                   "--key", pub, "--out", str(proof)).returncode == 0
    ok = _ingest("witness", "--state", str(state), "--key", pub, "--proof", str(proof),
                 str(log / "checkpoints" / "latest.checkpoint"))
    assert ok.returncode == 0, ok.stderr
    assert "consistent with the 6 records" in ok.stderr


def test_refuses_a_fork_of_the_same_size(log: Path, tmp_path: Path) -> None:
    """Two logs of one key and log id, both of 15 records, with different roots: the
    second is refused without any proof to look at, naming both roots; the witness's state
    still holds the first."""
    fork = fork_of(log, tmp_path / "fork")
    write_log(fork, 1, start=300)  # 3 + 9 + 3 = 15 records
    pub = str(log / "keys" / "signing.pub")
    state = tmp_path / "w"
    first = log / "checkpoints" / "latest.checkpoint"
    assert _ingest("witness", "--state", str(state), "--key", pub, str(first)).returncode == 0
    kept = next((state / "logs").glob("*.checkpoint")).read_text()
    run = _ingest("witness", "--state", str(state), "--key", pub,
                  str(fork / "checkpoints" / "latest.checkpoint"))
    assert run.returncode == 1 and "two trees of one size" in run.stderr
    roots = [note.split("\n")[2] for note in (first.read_text(),
                                              (fork / "checkpoints" / "latest.checkpoint")
                                              .read_text())]
    for root in roots:
        assert base64.b64decode(root).hex() in run.stderr
    assert next((state / "logs").glob("*.checkpoint")).read_text() == kept
