"""The journals' signed heads (dashboard/anchor.py): an insider who can write the dashboard's
home but has not the journal key rewrites, cuts or re-signs a journal, and ``python -m
dashboard access verify`` names it (exit 1), while the dashboard refuses to append to it.

The attacks recompute the hash chain with their own code (SHA-256 of canonical JSON, as the
journal's format says), not with the journal's, so that the journal's chain is whole and only
the signed heads can tell."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dashboard.access import AccessLog
from dashboard.journal import Journal, JournalError
from schemas.checkpoint import Signer
from tests.conftest import REPO


def _cli(home: Path, *args: str, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("CATWALK_DASHBOARD_HOME", "CATWALK_TRUSTED_KEYS", "CATWALK_JOURNAL_KEY")}
    return subprocess.run([sys.executable, "-m", "dashboard", "access", *args, "--home",
                           str(home)], capture_output=True, text=True, timeout=120, cwd=REPO,
                          env={**clean, **(env or {})})


def _recompute(lines: list[dict[str, object]]) -> bytes:
    """The journal's format, written by an attacker: seq, prev and hash made afresh."""
    out, prev = [], ""
    for seq, entry in enumerate(lines, start=1):
        body = {k: v for k, v in entry.items() if k not in ("seq", "prev", "hash")}
        body |= {"seq": seq, "prev": prev}
        canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        digest = hashlib.sha256(canon.encode()).hexdigest()
        full = json.dumps({**body, "hash": digest}, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=True)
        out.append(full.encode() + b"\n")
        prev = digest
    return b"".join(out)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "data" / "dashboard"
    log = AccessLog(home)
    log.record("ann", "sign_in", role="admin")
    for _ in range(3):
        log.record("mallory", "sign_in_failed")
    log.record("ann", "page_view", "flags", role="admin")
    return home


def _pinned(home: Path) -> str:
    return (home.parent / "keys" / "journal.pub").read_text().strip()


def _entries(home: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (home / "access.jsonl").read_bytes().splitlines()]


def _notes(home: Path) -> list[str]:
    text = (home / "access.jsonl.checkpoints").read_text()
    starts = [i for i in range(len(text)) if text.startswith("catwalk.invalid/", i)
              and (i == 0 or text[i - 1] == "\n")]
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]


def test_a_whole_journal_verifies_with_the_pinned_key(home: Path) -> None:
    done = _cli(home, "verify", "--key", _pinned(home))
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(x for x in done.stdout.splitlines() if "access.jsonl" in x)
    assert line.startswith("ok") and "5 entries" in line and "5 signed heads" in line
    assert "pinned" in line and "not pinned" not in line
    assert len(_notes(home)) == 5


def test_the_key_beside_the_data_is_not_pinned(home: Path) -> None:
    done = _cli(home, "verify")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "unverified: key not pinned" in done.stdout
    assert "unverified: key not pinned" in done.stderr


def test_the_keyring_pins_the_journal_key(home: Path, tmp_path: Path) -> None:
    ring = tmp_path / "ring.txt"
    ring.write_text(f"{_pinned(home)} role=journal\n")
    done = _cli(home, "verify", env={"CATWALK_TRUSTED_KEYS": str(ring)})
    assert done.returncode == 0, done.stdout + done.stderr


def test_failed_sign_ins_removed_and_the_chain_recomputed_are_seen(home: Path) -> None:
    """The insider's edit: the failed sign-ins gone, every hash after them made again."""
    kept = [e for e in _entries(home) if e["action"] != "sign_in_failed"]
    (home / "access.jsonl").write_bytes(_recompute(kept))
    assert Journal(home / "access.jsonl").verify() is None  # the chain alone is fooled
    done = _cli(home, "verify", "--key", _pinned(home))
    assert done.returncode == 1
    broken = next(x for x in done.stdout.splitlines() if x.startswith("BROKEN"))
    assert "note 2" in broken and "rewritten" in broken and "Traceback" not in done.stderr
    with pytest.raises(JournalError, match=r"rewritten|removed at the end"):
        AccessLog(home).record("ann", "page_view", "flags", role="admin")


def test_lines_cut_at_the_end_are_seen(home: Path) -> None:
    data = (home / "access.jsonl").read_bytes().splitlines(keepends=True)
    (home / "access.jsonl").write_bytes(b"".join(data[:3]))
    done = _cli(home, "verify", "--key", _pinned(home))
    assert done.returncode == 1
    assert "signs a head at entry 4" in done.stdout and "holds 3" in done.stdout
    with pytest.raises(JournalError, match="removed at the end"):
        AccessLog(home).record("ann", "page_view", "flags", role="admin")


def test_a_signed_head_removed_while_later_ones_remain(home: Path) -> None:
    notes = _notes(home)
    (home / "access.jsonl.checkpoints").write_text("".join(notes[:2] + notes[3:]))
    done = _cli(home, "verify", "--key", _pinned(home))
    assert done.returncode == 1
    assert "note 3" in done.stdout and "removed, inserted, reordered" in done.stdout


def test_the_newest_heads_removed_leave_an_unsigned_tail(home: Path) -> None:
    notes = _notes(home)
    (home / "access.jsonl.checkpoints").write_text("".join(notes[:3]))
    done = _cli(home, "verify", "--key", _pinned(home))
    assert done.returncode == 1
    assert "entries 4 to 5 are after the last signed head" in done.stdout
    with pytest.raises(JournalError, match="after the last signed head"):
        AccessLog(home).record("ann", "page_view", "flags", role="admin")


def test_a_whole_rewrite_re_signed_with_another_key_fails_the_pinned_key(home: Path) -> None:
    """The insider makes a key of their own, rewrites journal and heads with it, and puts
    its public half beside the data: the key beside agrees, the pinned one does not."""
    pinned = _pinned(home)
    kept = [e for e in _entries(home) if e["action"] != "sign_in_failed"]
    (home / "access.jsonl").write_bytes(_recompute(kept))
    (home / "access.jsonl.checkpoints").unlink()
    forger = Signer("catwalk-journal", Ed25519PrivateKey.generate())
    forged = Journal(home / "access.jsonl", signer=forger)
    assert forged.anchor_head() is not None
    (home.parent / "keys" / "journal.pub").write_text(forger.verifier.vkey + "\n")
    beside = _cli(home, "verify")
    assert beside.returncode == 3  # only the directory agrees with itself
    done = _cli(home, "verify", "--key", pinned)
    assert done.returncode == 1 and "does not verify with catwalk-journal" in done.stdout


def test_an_edited_head_does_not_verify(home: Path) -> None:
    notes = _notes(home)
    lines = notes[1].split("\n")
    lines[1] = "7"
    (home / "access.jsonl.checkpoints").write_text("".join([notes[0], "\n".join(lines),
                                                            *notes[2:]]))
    done = _cli(home, "verify", "--key", _pinned(home))
    assert done.returncode == 1, "the next note does not name it any more"
    assert "note 3" in done.stdout and "does not name the note before it" in done.stdout
    every = _cli(home, "verify", "--key", _pinned(home), "--every-signature")
    assert every.returncode == 1 and "note 2" in every.stdout
    assert "its signature does not verify" in every.stdout


def test_the_last_head_edited_does_not_verify(home: Path) -> None:
    """The last note is vouched for by nothing but its own signature."""
    notes = _notes(home)
    lines = notes[-1].split("\n")
    lines[3] = "catwalk-time 2027-01-01T00:00:00.000000Z"
    (home / "access.jsonl.checkpoints").write_text("".join(notes[:-1]) + "\n".join(lines))
    done = _cli(home, "verify", "--key", _pinned(home))
    assert done.returncode == 1 and "note 5" in done.stdout
    assert "its signature does not verify" in done.stdout


def test_a_journal_from_before_signed_heads_is_not_anchored_until_signed(tmp_path: Path
                                                                          ) -> None:
    home = tmp_path / "data" / "dashboard"
    old = Journal(home / "access.jsonl", anchored=False)
    for n in range(3):
        old.append({"user": "ann", "action": "page_view", "target": f"p{n}", "detail": {}})
    AccessLog(home).journal.signer()  # the key exists, as after an upgrade
    done = _cli(home, "verify", "--key", _pinned(home))
    assert done.returncode == 1
    line = next(x for x in done.stdout.splitlines() if "access.jsonl" in x)
    assert line.startswith("NOT ANCHORED") and "written before signed heads" in line
    with pytest.raises(JournalError, match="not anchored"):
        AccessLog(home).record("ann", "page_view", "flags")
    signed = _cli(home, "anchor")
    assert signed.returncode == 0, signed.stdout + signed.stderr
    assert "anchored" in signed.stdout and "head seq 3" in signed.stdout
    AccessLog(home).record("ann", "page_view", "flags")
    done = _cli(home, "verify", "--key", _pinned(home))
    assert done.returncode == 0, done.stdout
    actions = [e["action"] for e in _entries(home)]
    assert actions[3:] == ["journal_anchored", "page_view"]


def test_anchor_refuses_a_rewritten_journal(home: Path) -> None:
    kept = [e for e in _entries(home) if e["action"] != "sign_in_failed"]
    (home / "access.jsonl").write_bytes(_recompute(kept))
    done = _cli(home, "anchor")
    assert done.returncode == 1 and "nothing was signed" in done.stderr
    assert len(_notes(home)) == 5


def test_a_symlinked_history_is_not_followed(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("")
    history = home / "access.jsonl.checkpoints"
    history.unlink()
    history.symlink_to(target)
    with pytest.raises(JournalError, match="never followed"):
        AccessLog(home).record("ann", "page_view", "flags")
    assert target.read_text() == ""


_WRITER = """
import sys
from pathlib import Path
from dashboard.access import AccessLog
log = AccessLog(Path(sys.argv[1]))
for n in range(int(sys.argv[2])):
    log.record(sys.argv[3], "page_view", f"p{n}")
"""


def test_two_processes_appending_at_once_leave_one_signed_history(tmp_path: Path) -> None:
    """Each head is signed under the journal's lock, so the notes follow the lines: 2 x 40
    appends at once give 80 entries and 80 notes, numbered 1 to 80, each matching."""
    home = tmp_path / "data" / "dashboard"
    AccessLog(home).journal.signer()  # the key made once, before the writers start
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(home), "40", who],
                              cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
             for who in ("ann", "bob")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    notes = _notes(home)
    assert len(_entries(home)) == 80 and len(notes) == 80
    assert [int(n.split("\n")[1]) for n in notes] == list(range(1, 81))
    done = _cli(home, "verify", "--key", _pinned(home))
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_journal_deleted_while_its_heads_remain(home: Path) -> None:
    (home / "access.jsonl").unlink()
    done = _cli(home, "verify", "--key", _pinned(home))
    assert done.returncode == 1
    assert "signs a head at entry 1" in done.stdout and "holds 0" in done.stdout
    with pytest.raises(JournalError, match="removed at the end"):
        AccessLog(home).record("ann", "page_view", "flags")


def test_anchor_signs_every_journal_written_before(tmp_path: Path) -> None:
    """After an upgrade all three journals lack signed heads: one command signs them all,
    and records each signing in the access log."""
    home = tmp_path / "data" / "dashboard"
    for name in ("users", "access", "cases"):
        old = Journal(home / f"{name}.jsonl", anchored=False)
        old.append({"user": "ann", "action": "page_view", "target": name, "detail": {}})
    AccessLog(home).journal.signer()
    signed = _cli(home, "anchor")
    assert signed.returncode == 0, signed.stdout + signed.stderr
    assert signed.stdout.count("anchored ") == 3
    recorded = [e["target"] for e in _entries(home) if e["action"] == "journal_anchored"]
    assert recorded == ["users.jsonl", "access.jsonl", "cases.jsonl"]
    assert _cli(home, "anchor").stdout.count("its head was signed already") == 3
