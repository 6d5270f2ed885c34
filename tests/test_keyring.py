"""The trusted keyring (schemas/keyring.py) and the key files (schemas/keyfile.py): a trust
root outside the data directory, roles and rotation days, and key files that are never a
symlink followed out of the data directory or a FIFO that hangs the reader."""

from __future__ import annotations

import datetime as dt
import os

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from schemas import keyring
from schemas.checkpoint import Signer
from schemas.keyfile import KeyFileError, load_or_create, read_small


def _vkey(name: str = "catwalk-ingest") -> str:
    return Signer(name, Ed25519PrivateKey.generate()).verifier.vkey


def test_a_keyring_line_carries_roles_and_the_days_it_is_trusted(tmp_path):
    old, new = _vkey(), _vkey()
    ring = tmp_path / "trusted.keys"
    ring.write_text(f"# the casino's keys\n{old} role=log until=2026-06-30\n\n"
                    f"{new} role=log,outputs from=2026-06-01  # after rotation\n")
    keys = keyring.load(ring)
    assert [k.verifier.vkey for k in keys.keys] == [old, new]
    assert [v.vkey for v in keys.of_role("log", dt.date(2026, 5, 31))] == [old]
    assert [v.vkey for v in keys.of_role("log", dt.date(2026, 6, 15))] == [old, new]
    assert [v.vkey for v in keys.of_role("log", dt.date(2026, 7, 1))] == [new]
    assert [v.vkey for v in keys.of_role("outputs")] == [new]
    assert keys.of_role("journal") == ()


@pytest.mark.parametrize(("line", "words"), [
    ("not-a-key", "not a verifier key"),
    ("{k} role=owner", "unknown role 'owner'"),
    ("{k} from=2026-13-01", "is not a date"),
    ("{k} from=2026-02-01 until=2026-01-01", "is before"),
    ("{k} colour=blue", "unknown word 'colour'"),
])
def test_a_bad_keyring_line_is_named_by_file_and_line(tmp_path, line, words):
    ring = tmp_path / "ring"
    ring.write_text("# header\n" + line.format(k=_vkey()) + "\n")
    with pytest.raises(keyring.KeyringError) as err:
        keyring.load(ring)
    assert f"{ring} line 2" in str(err.value)
    assert words in str(err.value)


def test_without_key_or_keyring_the_key_beside_is_used_and_said_not_pinned(tmp_path, monkeypatch):
    monkeypatch.delenv(keyring.ENV, raising=False)
    beside = tmp_path / "signing.pub"
    beside.write_text(_vkey() + "\n")
    choice = keyring.choose("log", None, beside)
    assert not choice.pinned
    assert keyring.NOT_PINNED in choice.source
    ring = tmp_path / "ring"
    pinned = _vkey()
    ring.write_text(pinned + "\n")
    monkeypatch.setenv(keyring.ENV, str(ring))
    choice = keyring.choose("log", None, beside)
    assert choice.pinned and [v.vkey for v in choice.verifiers] == [pinned]
    with pytest.raises(keyring.KeyringError, match="holds no outputs key"):
        keyring.choose("outputs", None, beside)


def test_the_key_that_signed_a_note_is_picked_from_a_rotation(tmp_path):
    from schemas.checkpoint import Checkpoint

    a = Signer("catwalk-ingest", Ed25519PrivateKey.generate())
    b = Signer("catwalk-ingest", Ed25519PrivateKey.generate())
    note = b.sign(Checkpoint(log_id="x" * 16, size=0, root=bytes(32),
                             signed_at="2026-12-01T00:00:00.000000Z"))
    choice = keyring.KeyChoice(verifiers=(a.verifier, b.verifier), pinned=True, source="t")
    assert choice.for_note(note) == b.verifier


def test_a_key_file_that_is_a_symlink_or_fifo_is_refused_not_followed(tmp_path):
    outside = tmp_path / "outside.key"
    outside.write_text("secret")
    link = tmp_path / "keys" / "signing.key"
    link.parent.mkdir()
    link.symlink_to(outside)
    with pytest.raises(KeyFileError, match="symlink"):
        load_or_create(link, None, name="n", create=True, who="t", missing_hint="")
    assert outside.read_text() == "secret"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(KeyFileError, match="not a regular file"):
        read_small(fifo)
    big = tmp_path / "big"
    big.write_text("A" * 600_000)
    with pytest.raises(KeyFileError) as err:
        read_small(big)
    assert len(str(err.value)) < 200


def test_a_key_is_created_once_with_mode_0600_and_read_back(tmp_path):
    path = tmp_path / "keys" / "replay.key"
    made = load_or_create(path, tmp_path / "keys" / "replay.pub", name="catwalk-replay",
                          create=True, who="t", missing_hint="")
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    again = load_or_create(path, None, name="other", create=False, who="t", missing_hint="")
    assert again.verifier == made.verifier
    assert (tmp_path / "keys" / "replay.pub").read_text().strip() == made.verifier.vkey
    with pytest.raises(KeyFileError, match="restore it"):
        load_or_create(tmp_path / "none.key", None, name="n", create=False, who="t",
                       missing_hint="restore it")
