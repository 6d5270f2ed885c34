"""The dashboard's append-only journal (dashboard/journal.py): the hash chain, tampering named
by file and line, a torn tail reported and never extended, and two processes appending at
once without interleaving or forking the chain.

Expected hashes are computed here from the documented rule (SHA-256 over the canonical JSON of
the entry without "hash"), not by the module's own helpers."""

from __future__ import annotations

import hashlib
import itertools
import json
import multiprocessing
import re
import stat
from pathlib import Path

import pytest

from dashboard.access import AccessLog
from dashboard.journal import Journal, JournalError

AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def _sha(entry: dict[str, object]) -> str:
    body = {k: v for k, v in entry.items() if k != "hash"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _journal(tmp_path: Path, n: int = 3) -> Journal:
    journal = Journal(tmp_path / "home" / "j.jsonl")
    for i in range(n):
        journal.append({"n": i, "text": f"entry {i}"})
    return journal


def _lines(journal: Journal) -> list[bytes]:
    return journal.path.read_bytes().splitlines(keepends=True)


def test_entries_are_chained_numbered_and_timestamped(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    entries = journal.entries()
    assert [e["n"] for e in entries] == [0, 1, 2]
    assert [e["seq"] for e in entries] == [1, 2, 3]
    assert entries[0]["prev"] == ""
    assert [e["prev"] for e in entries[1:]] == [e["hash"] for e in entries[:-1]]
    for entry in entries:
        assert entry["hash"] == _sha(entry)
        assert AT.fullmatch(entry["at"])
    assert entries[0]["at"] <= entries[1]["at"] <= entries[2]["at"]
    assert journal.verify() is None
    assert journal.head() == (3, entries[-1]["hash"])
    # one line per entry, as written: what append returned is what the file holds
    lines = _lines(journal)
    assert len(lines) == 3 and all(line.endswith(b"\n") for line in lines)
    assert json.loads(lines[2]) == entries[2]


def test_append_returns_the_entry_as_written(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.jsonl")
    written = journal.append({"who": "ann", "amount_cents": 2500})
    assert written == journal.entries()[0]
    assert written["who"] == "ann" and written["amount_cents"] == 2500


def test_files_and_directories_are_private(tmp_path: Path) -> None:
    journal = _journal(tmp_path, 1)
    assert stat.S_IMODE(journal.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(journal.path.parent.stat().st_mode) == 0o700


def test_a_missing_file_is_an_empty_journal(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "nothing" / "j.jsonl")
    assert journal.entries() == []
    assert journal.verify() is None
    assert not journal.path.parent.exists()  # reading creates nothing


def test_an_edited_value_is_named_by_file_and_line(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    lines = _lines(journal)
    lines[1] = lines[1].replace(b'"entry 1"', b'"entry X"')
    journal.path.write_bytes(b"".join(lines))
    problem = journal.verify()
    assert problem is not None
    assert problem.startswith(f"{journal.path} line 2: ")
    assert "hash does not match" in problem
    with pytest.raises(JournalError, match=re.escape(f"{journal.path} line 2: ")) as caught:
        journal.entries()
    assert caught.value.line == 2 and caught.value.path == journal.path


def test_an_edit_with_its_hash_recomputed_breaks_the_next_line(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    lines = _lines(journal)
    entry = json.loads(lines[1])
    entry["text"] = "rewritten"
    entry["hash"] = _sha(entry)
    lines[1] = json.dumps(entry, sort_keys=True, separators=(",", ":")).encode() + b"\n"
    journal.path.write_bytes(b"".join(lines))
    problem = journal.verify()
    assert problem is not None and problem.startswith(f"{journal.path} line 3: ")
    assert "prev" in problem


def test_a_removed_line_is_named(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    lines = _lines(journal)
    journal.path.write_bytes(lines[0] + lines[2])
    problem = journal.verify()
    assert problem is not None and problem.startswith(f"{journal.path} line 2: ")
    assert "seq is 3, expected 2" in problem


def test_a_line_reformatted_with_the_same_content_is_named(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    lines = _lines(journal)
    lines[0] = json.dumps(json.loads(lines[0]), indent=None).encode() + b"\n"  # spaces added
    journal.path.write_bytes(b"".join(lines))
    problem = journal.verify()
    assert problem is not None and problem.startswith(f"{journal.path} line 1: ")
    assert "canonical" in problem


def test_a_torn_tail_is_reported_and_never_extended(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    data = journal.path.read_bytes()
    journal.path.write_bytes(data[:-20])  # killed mid-write: the last line is cut
    torn = journal.path.read_bytes()
    problem = journal.verify()
    assert problem is not None and problem.startswith(f"{journal.path} line 3: ")
    assert "incomplete" in problem
    with pytest.raises(JournalError, match="nothing was appended") as caught:
        Journal(journal.path).append({"n": 99})
    assert "line 3" in str(caught.value) and "backup" in str(caught.value)
    assert journal.path.read_bytes() == torn  # not repaired, nothing dropped, nothing added


def test_a_torn_tail_after_this_process_appended_is_still_refused(tmp_path: Path) -> None:
    """The appender checks only what was added since its last append: a torn line written
    by another writer since then is found."""
    journal = _journal(tmp_path)
    with journal.path.open("ab") as file:
        file.write(b'{"n":')  # another writer died mid-line
    with pytest.raises(JournalError, match="line 4: the last line is incomplete"):
        journal.append({"n": 4})


def test_a_shortened_file_after_this_process_appended_is_refused(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    journal.path.write_bytes(journal.path.read_bytes()[:-1])  # the last newline is gone
    with pytest.raises(JournalError, match="line 3: the last line is incomplete"):
        journal.append({"n": 4})


def test_a_changed_last_line_after_this_process_appended_is_refused(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    lines = _lines(journal)
    lines[2] = lines[2].replace(b'"entry 2"', b'"entry Z"')
    journal.path.write_bytes(b"".join(lines))
    with pytest.raises(JournalError, match="line 3: its hash does not match"):
        journal.append({"n": 4})


def test_lines_added_by_another_writer_are_checked_before_appending(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    with journal.path.open("ab") as file:
        file.write(b'{"not":"chained"}\n')
    with pytest.raises(JournalError, match="line 4: the 'seq' field is missing"):
        journal.append({"n": 4})


def test_a_change_anywhere_after_a_verified_read_is_found_again(tmp_path: Path) -> None:
    """Reading again checks the part read before by its digest: an edit of the same length
    in the first line, after the whole file verified in this process, is still named."""
    journal = _journal(tmp_path)
    assert journal.verify() is None and len(journal.entries()) == 3
    lines = _lines(journal)
    lines[0] = lines[0].replace(b'"entry 0"', b'"entry 9"')
    journal.path.write_bytes(b"".join(lines))
    problem = journal.verify()
    assert problem is not None and problem.startswith(f"{journal.path} line 1: ")
    with pytest.raises(JournalError, match="line 1: its hash does not match"):
        journal.entries()


def test_lines_added_after_a_verified_read_are_checked(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    assert journal.verify() is None
    journal.append({"n": 3})
    assert [e["n"] for e in journal.entries(newest_first=True, limit=2)] == [3, 2]
    with journal.path.open("ab") as file:
        file.write(b'{"seq":5}\n')
    problem = journal.verify()
    assert problem is not None and problem.startswith(f"{journal.path} line 5: ")


def test_entries_filter_and_order(tmp_path: Path) -> None:
    journal = _journal(tmp_path, 6)
    odd = journal.entries(where=lambda e: e["n"] % 2 == 1)
    assert [e["n"] for e in odd] == [1, 3, 5]
    assert [e["n"] for e in journal.entries(newest_first=True, limit=2,
                                            where=lambda e: e["n"] < 4)] == [3, 2]
    assert journal.entries(limit=0) == []


def test_an_entry_may_not_carry_the_journals_fields(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.jsonl")
    with pytest.raises(ValueError, match="seq"):
        journal.append({"seq": 7})
    with pytest.raises(ValueError, match="JSON"):
        journal.append({"x": float("nan")})
    with pytest.raises(ValueError, match="JSON"):
        journal.append({"x": object()})
    assert journal.entries() == []


def test_a_guard_sees_every_entry_and_may_refuse(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    seen: list[int] = []

    def guard(entries: list[dict[str, object]]) -> None:
        seen.extend(int(e["n"]) for e in entries)  # type: ignore[call-overload]
        raise LookupError("refused")

    with pytest.raises(LookupError):
        journal.append({"n": 3}, guard=guard)
    assert seen == [0, 1, 2]
    assert len(journal.entries()) == 3


def _append_many(path: str, worker: int, count: int, start: object) -> None:
    """Half the entries, then wait for every worker to have written its half (so the
    workers are appending at the same time even on a loaded machine), then the rest."""
    journal = Journal(Path(path))
    for i in range(count):
        if i == count // 2:
            start.wait(60)  # type: ignore[attr-defined]
        journal.append({"worker": worker, "i": i, "pad": "x" * (i % 7) * 50})


def test_processes_appending_at_once_never_interleave_or_fork(tmp_path: Path) -> None:
    path = tmp_path / "shared" / "j.jsonl"
    workers, count = 4, 60
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(workers)
    procs = [ctx.Process(target=_append_many, args=(str(path), w, count, start))
             for w in range(workers)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=120)
        assert proc.exitcode == 0
    journal = Journal(path)
    assert journal.verify() is None
    entries = journal.entries()
    assert [e["seq"] for e in entries] == list(range(1, workers * count + 1))
    assert sorted((e["worker"], e["i"]) for e in entries) == [
        (w, i) for w in range(workers) for i in range(count)]
    # each worker's own entries are in the order it wrote them
    for w in range(workers):
        assert [e["i"] for e in entries if e["worker"] == w] == list(range(count))
    # and they did run at once: the workers' entries alternate somewhere in the file
    switches = sum(a["worker"] != b["worker"] for a, b in itertools.pairwise(entries))
    assert switches > workers - 1


# The access log: a journal of who did what ---------------------------------------------------


def test_the_access_log_records_and_filters_newest_first(tmp_path: Path) -> None:
    log = AccessLog(tmp_path)
    log.record("ann", "sign_in")
    log.record("ann", "page_view", "Flags")
    log.record("rita", "round_view", "T01-000002", casino="C1")
    log.record("ann", "export", "flags.csv", rows=118)
    assert [(e["user"], e["action"], e["target"]) for e in log.entries()] == [
        ("ann", "export", "flags.csv"), ("rita", "round_view", "T01-000002"),
        ("ann", "page_view", "Flags"), ("ann", "sign_in", "")]
    assert [e["action"] for e in log.entries(user="ann")] == ["export", "page_view", "sign_in"]
    assert [e["target"] for e in log.entries(action="round_view")] == ["T01-000002"]
    assert log.entries(user="rita")[0]["detail"] == {"casino": "C1"}
    assert [e["action"] for e in log.entries(user="ann", limit=2)] == ["export", "page_view"]
    assert log.entries(limit=0) == []
    assert log.verify() is None
    assert stat.S_IMODE(log.journal.path.stat().st_mode) == 0o600


def test_the_access_log_refuses_what_it_cannot_record_faithfully(tmp_path: Path) -> None:
    log = AccessLog(tmp_path)
    with pytest.raises(ValueError, match="'peek' is not an access-log action"):
        log.record("ann", "peek")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one line"):
        log.record("ann\nrita", "sign_in")
    with pytest.raises(ValueError, match="JSON"):
        log.record("ann", "export", "x.csv", rows=float("inf"))
    assert log.entries() == []


def test_a_broken_access_log_fails_closed(tmp_path: Path) -> None:
    """The shell shows no page when the access log cannot record the view."""
    log = AccessLog(tmp_path)
    log.record("ann", "sign_in")
    log.record("ann", "page_view", "Overview")
    log.journal.path.write_text(log.journal.path.read_text().replace("Overview", "Flags"))
    problem = log.verify()
    assert problem is not None and problem.startswith(f"{log.journal.path} line 2: ")
    with pytest.raises(JournalError):
        AccessLog(tmp_path).record("ann", "page_view", "Flags")
    with pytest.raises(JournalError, match="line 2"):
        log.entries()
