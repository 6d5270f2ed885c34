"""``python -m replay`` reads the log once (reading it twice cost replay its speed): the
records its verification read are the ones it replays, the same entries ``log_entries`` reads
from the files, for the lone ingest's chain and for workers' chains; the files are byte for
byte those of a replay that reads the log again; a log that does not verify is still refused,
and with --unverified read again as far as it can be. The command's processes do not import
pandas, with the same bytes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import replay.batch_decode as batch_decode
from replay import parallel
from replay.__main__ import main
from replay.batch_decode import KeptRecords, log_entries
from replay.run import TABLES, replay
from schemas.checkpoint import read_verifier
from schemas.log_verify import verify_data
from tests.test_log_chains import _spread
from tests.test_replay_workers import _faulty, _files, _interleaved, _shift, _write

REPO = Path(__file__).resolve().parent.parent


def _kept(data: Path) -> KeptRecords:
    kept = KeptRecords()
    assert verify_data(data, read_verifier(data / "keys" / "signing.pub"), keep=kept).ok
    return kept


def test_the_records_verification_keeps_are_the_entries_read_from_the_lone_chain(
        tmp_path: Path) -> None:
    log = _write(tmp_path, _faulty(_shift()), batch=40)
    kept = _kept(tmp_path)
    assert list(log_entries(log, kept)) == list(log_entries(log))


@pytest.mark.parametrize("workers", [False, True])
def test_the_records_verification_keeps_are_the_entries_read_from_workers_chains(
        tmp_path: Path, workers: bool) -> None:
    messages = _interleaved(_shift())
    messages.insert(30, (b"T05", b"\x00\x00\x00\x00\x02broken"))
    messages.insert(61, messages[12])
    _spread(tmp_path, messages, workers=workers)
    kept = _kept(tmp_path)
    assert len(kept.placed) + len(kept.entries) == (2 if workers else 1)
    assert len(kept.entries) == (0 if workers else 1)  # the lone chain: entries as read
    assert list(log_entries(tmp_path / "log", kept)) == list(log_entries(tmp_path / "log"))


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    segment_entries, placed = batch_decode._segment_entries, batch_decode._placed

    def counted_segment_entries(*args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append("segment")
        return segment_entries(*args, **kwargs)

    def counted_placed(*args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append("chain")
        return placed(*args, **kwargs)

    monkeypatch.setattr(batch_decode, "_segment_entries", counted_segment_entries)
    monkeypatch.setattr(batch_decode, "_placed", counted_placed)
    # this test process may convert to and from pandas: leave pyarrow as it is
    monkeypatch.setattr(parallel, "pyarrow_without_pandas", lambda: False)
    return reads


def _provenance_of(out: Path) -> dict:
    manifest = json.loads((out / "manifest.json").read_text())
    return {"verified": manifest["verified"], "verification": manifest["verification"],
            **manifest["log"]}


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_command_replays_what_it_verified_without_reading_the_log_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str) -> None:
    log = _write(tmp_path, _faulty(_shift()), batch=40)
    reads = _count_reads(monkeypatch)
    assert main(["run", "--data", str(tmp_path), "--workers", workers]) == 0
    assert reads == []
    again = tmp_path / "again"
    replay(log, again, provenance=_provenance_of(tmp_path / "replay"))
    assert reads  # this one read the files
    assert _files(again) == _files(tmp_path / "replay")
    assert len(_files(again)) == len(TABLES)


def test_with_unverified_a_log_that_does_not_verify_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _write(tmp_path, _interleaved(_shift(tables=3, rounds=2)), batch=10)
    sorted(log.iterdir())[1].unlink()  # a segment removed: verification stops there
    reads = _count_reads(monkeypatch)
    assert main(["run", "--data", str(tmp_path)]) == 1
    assert "REFUSED: the log does not verify" in capsys.readouterr().err
    assert not (tmp_path / "replay").exists() and reads == []
    assert main(["run", "--data", str(tmp_path), "--unverified"]) == 0
    assert reads  # the verifier stopped at the gap: the log is read again, all of it
    manifest = json.loads((tmp_path / "replay" / "manifest.json").read_text())
    assert manifest["verified"] is False
    assert manifest["log"]["records"] < sum(1 for _ in log_entries(log))


def test_the_command_does_not_import_pandas_and_writes_the_same_bytes(tmp_path: Path) -> None:
    log = _write(tmp_path, _faulty(_shift()), batch=40)
    code = ("import sys; from replay.__main__ import main; "
            f"rc = main(['run', '--data', {str(tmp_path)!r}, '--workers', '2']); "
            "print(rc, 'pandas' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=300, check=False)
    assert done.stdout.split()[-2:] == ["0", "False"], done.stderr
    import pandas  # noqa: F401  # this process has pandas; pyarrow's probe finds it

    again = tmp_path / "again"
    replay(log, again, provenance=_provenance_of(tmp_path / "replay"))
    assert _files(again) == _files(tmp_path / "replay")


def test_with_workers_the_helpers_are_dealt_records_while_the_log_is_verified(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``python -m replay --workers 2`` hands the helper its tables' records as verification
    reads them (the log is read once), not after the verdict; the files are those of one process."""
    import schemas.log_verify as log_verify

    log = _write(tmp_path, _faulty(_shift()), batch=40)
    steps: list[str] = []
    deal, verify = parallel.Workers.deal, log_verify.verify_data

    def dealing(self: parallel.Workers, entry: batch_decode.Entry) -> None:
        if not steps or steps[-1] != "deal":
            steps.append("deal")
        deal(self, entry)

    def verifying(*args, **kwargs):  # type: ignore[no-untyped-def]
        steps.append("verify")
        verdict = verify(*args, **kwargs)
        steps.append("verdict")
        return verdict

    monkeypatch.setattr(parallel.Workers, "deal", dealing)
    monkeypatch.setattr(log_verify, "verify_data", verifying)
    monkeypatch.setattr(parallel, "pyarrow_without_pandas", lambda: False)
    assert main(["run", "--data", str(tmp_path), "--workers", "2"]) == 0
    assert steps == ["verify", "deal", "verdict"]
    alone = tmp_path / "alone"
    replay(log, alone, provenance=_provenance_of(tmp_path / "replay"))
    assert _files(alone) == _files(tmp_path / "replay")


def test_with_workers_a_log_refused_after_records_were_dealt_writes_nothing(
        tmp_path: Path) -> None:
    """The helpers were given the records before the broken segment; the verdict refuses
    the log: nothing is written, the helpers are stopped, no traceback."""
    log = _write(tmp_path, _interleaved(_shift()), batch=10)
    segs = sorted(log.iterdir())
    segs[len(segs) // 2].unlink()  # verification stops there, half the log dealt
    done = subprocess.run([sys.executable, "-m", "replay", "--data", str(tmp_path),
                           "--workers", "2"], capture_output=True, text=True, cwd=REPO,
                          timeout=300, check=False)
    assert done.returncode == 1
    assert "REFUSED: the log does not verify" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "replay").exists()


def _swap_values(segment: Path, i: int, j: int) -> None:
    """Rewrite a segment with the values of its records ``i`` and ``j`` swapped (both still
    decode; their hashes no longer match)."""
    from fastavro import reader, writer

    from schemas.logformat import record_schema

    with segment.open("rb") as fo:
        r = reader(fo)
        meta = {k: v for k, v in r.metadata.items() if k.startswith("catwalk.")}
        records = list(r)
    records[i]["value"], records[j]["value"] = records[j]["value"], records[i]["value"]
    with segment.open("wb") as fo:
        writer(fo, record_schema(), records, metadata=meta, codec="deflate")


@pytest.mark.parametrize("damage", ["removed", "altered"])
def test_with_workers_and_unverified_what_was_dealt_is_kept_where_it_was_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    """--unverified with a log that does not verify: the helpers were dealt the records
    verification read before the problem; the log is read again and the files are those of
    one process reading it (a record altered in place is replayed as read again)."""
    log = _write(tmp_path, _faulty(_shift()), batch=20)
    seg = sorted(log.iterdir())[3]
    if damage == "removed":
        seg.unlink()
    else:  # a record's value swapped with the next one's: its hash no longer matches
        _swap_values(seg, 2, 3)
    monkeypatch.setattr(parallel, "pyarrow_without_pandas", lambda: False)
    assert main(["run", "--data", str(tmp_path), "--workers", "2", "--unverified"]) == 0
    two = _files(tmp_path / "replay")
    assert main(["run", "--data", str(tmp_path), "--workers", "1", "--unverified"]) == 0
    assert _files(tmp_path / "replay") == two
