"""``replay --workers N`` writes the files of one process, byte for byte: rows merged in
(table, round) order, log findings in log order, also when ids cross tables' keys."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import threading
from dataclasses import replace

import pytest

from ingest.log import LogWriter, Received
from replay import parallel
from replay.parallel import ReplayWorkerError, RowMaker, replay_entries
from replay.run import ROWS, TABLES, judge_rounds, replay, rows_of
from schemas import RoundEnded, encode
from tests.conftest import run_cli
from tests.events_factory import Table, events_of_document

DOCS = [
    {"game": "pai_gow_poker", "dealer": {
        "cards": ["Kc", "Kd", "9s", "7h", "3c", "Ah", "Qs"],
        "high": ["Kc", "Kd", "9s", "7h", "3c"], "low": ["Ah", "Qs"]},
     "seats": [{"seat": 1, "cards": ["5s", "5h", "5d", "Tc", "2c", "As", "Kh"],
                "high": ["5s", "5h", "5d", "Tc", "2c"], "low": ["As", "Kh"],
                "wagers": {"main": 2500}}]},
    {"game": "pai_gow_tiles", "dealer": {
        "tiles": ["6-6", "3-6", "1-3", "2-2"], "high": ["6-6", "3-6"], "low": ["1-3", "2-2"]},
     "seats": [{"seat": 1, "tiles": ["5-5", "5-5", "4-5", "6-6"], "high": ["5-5", "5-5"],
                "low": ["4-5", "6-6"], "wagers": {"main": 700}}]},
    {"game": "caribbean_stud", "progressive_meter": 2500000,
     "dealer": {"cards": ["Ah", "Kd", "9c", "5s", "2d"]},
     "seats": [{"seat": 1, "cards": ["Qs", "Qh", "7d", "7c", "3s"], "action": "play",
                "wagers": {"ante": 1000, "raise": 2000, "progressive": 100}},
               {"seat": 2, "cards": ["Ts", "Js", "Qd", "Ks", "2c"], "action": "fold",
                "wagers": {"ante": 1000, "progressive": 100}}]},
    {"game": "face_up_pai_gow", "progressive_meter": 2500000, "dealer": {
        "cards": ["Kc", "Kd", "9s", "7h", "3c", "Ah", "Qs"],
        "high": ["Kc", "Kd", "9s", "7h", "3c"], "low": ["Ah", "Qs"]},
     "seats": [{"seat": 1, "cards": ["5s", "5h", "5d", "5c", "2c", "As", "Kh"],
                "high": ["5s", "5h", "5d", "5c", "2c"], "low": ["As", "Kh"],
                "wagers": {"main": 2500, "fortune": 500}}]},
]


def _shift(tables: int = 6, rounds: int = 4) -> dict[str, list]:
    """Each table's events (one game per table, in turn), round after round."""
    out = {}
    for t in range(1, tables + 1):
        table = Table(f"T{t:02d}")
        doc = DOCS[(t - 1) % len(DOCS)]
        out[table.table_id] = [e for n in range(1, rounds + 1)
                               for e in events_of_document(
                                   table, {**doc, "round_id": f"{table.table_id}-{n:06d}"})]
    return out


def _interleaved(by_table: dict[str, list]) -> list[tuple[bytes | None, bytes]]:
    """(key, value) in the order a topic would hand them over: tables interleaved."""
    queues = [[(tid.encode(), encode(e)) for e in events] for tid, events in by_table.items()]
    out = []
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out


def _write(tmp_path, messages, batch: int = 50):
    log = LogWriter(tmp_path / "log", tmp_path / "quarantine")
    for start in range(0, len(messages), batch):
        log.append([Received(topic="round-events", partition=0, offset=i, timestamp_ms=i,
                             key=key, value=value)
                    for i, (key, value) in enumerate(messages[start:start + batch],
                                                     start=start)], [])
    return tmp_path / "log"


def _files(out):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.glob("*.parquet"))}


def _same_for_any_workers(tmp_path, log, counts=(2, 3)):
    one = replay(log, tmp_path / "w1")
    for n in counts:
        got = replay(log, tmp_path / f"w{n}", workers=n)
        assert got == one
        assert _files(tmp_path / f"w{n}") == _files(tmp_path / "w1")
    return one


def _faulty(by_table):
    """Duplicates, a conflicting duplicate, a sequence gap and two records that do not
    decode, each where a table would make it."""
    t2, t3 = by_table["T02"], by_table["T03"]
    t2.insert(20, t2[7])
    t3.insert(15, replace(t3[5], recorded_by="E999"))
    t4 = Table("T04")
    by_table["T04"] = [e for e in by_table["T04"] if e.table_seq != 9]
    by_table["T04"].append(t4.event("T04-000009", RoundEnded(), seq=500))
    messages = _interleaved(by_table)
    messages.insert(30, (b"T05", b"\x00\x00\x00\x00\x02broken"))
    messages.insert(70, (None, b"not even framed"))
    return messages


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_two_and_three_workers_write_the_same_bytes_as_one(tmp_path, monkeypatch, method):
    started = []

    def context():
        started.append(method)
        return multiprocessing.get_context(method)

    monkeypatch.setattr(parallel, "start_context", context)
    log = _write(tmp_path, _faulty(_shift()))
    summary = _same_for_any_workers(tmp_path, log)
    kinds = sorted(f.kind for f in summary.findings)
    assert kinds == ["conflicting_duplicate_event", "duplicate_event", "sequence_gap",
                     "sequence_gap", "undecodable_record", "undecodable_record"]
    assert summary.rounds == 6 * 4 + 1
    assert started == [method, method]  # the helpers of 2 and of 3 workers


def test_helpers_are_forked_only_from_a_process_without_other_threads():
    assert threading.active_count() == 1, "the test needs a process without threads"
    assert parallel.start_context().get_start_method() == "fork"
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert parallel.start_context().get_start_method() == "spawn"
    finally:
        stop.set()
        other.join()


def test_ids_that_cross_keys_are_replayed_together(tmp_path, monkeypatch):
    """A round's event under another table's key, a round id used at two tables and an
    event id reused at another table: one process sees them together, so must N."""
    by_table = _shift()
    moved = by_table["T01"].pop(12)
    clash = Table("T05").event("T02-000002", RoundEnded(), seq=900)
    reused = replace(Table("T06").event("T06-000004", RoundEnded(), seq=901),
                     event_id=by_table["T03"][3].event_id)
    messages = _interleaved(by_table)
    messages[40:40] = [(b"T04", encode(moved)), (b"T05", encode(clash)),
                       (b"T06", encode(reused))]
    log = _write(tmp_path, messages)
    # Keys dealt in turn (T01 to the helper, T02 to this process, T03 to the helper ...), so
    # that the moved event and the reused id each join a key of each process.
    monkeypatch.setattr(parallel, "PARENT_SHARE", 1.0)
    joined = []
    monkeypatch.setattr(parallel, "_joined", lambda shards: joined.append(
        real_joined(shards)) or joined[-1])
    summary = _same_for_any_workers(tmp_path, log, counts=(2,))
    assert joined == [True]
    assert "conflicting_duplicate_event" in {f.kind for f in summary.findings}


def test_an_empty_log_and_more_workers_than_tables(tmp_path):
    log = _write(tmp_path, _interleaved(_shift(tables=2, rounds=1)))
    _same_for_any_workers(tmp_path, log, counts=(4,))
    (tmp_path / "empty").mkdir()
    assert replay(tmp_path / "empty", tmp_path / "e1").rounds == 0
    assert replay(tmp_path / "empty", tmp_path / "e2", workers=2).rounds == 0
    assert _files(tmp_path / "e1") == _files(tmp_path / "e2")


real_joined = parallel._joined


def failing_rows_of(state, judgement):
    """rows_of, except in a worker process, where it raises."""
    if multiprocessing.parent_process() is not None:
        raise ZeroDivisionError("rows_of failed in a worker")
    return rows_of(state, judgement)


def test_an_exception_in_a_worker_is_raised_in_the_parent(tmp_path):
    from replay.batch_decode import log_entries

    log = _write(tmp_path, _interleaved(_shift(tables=3, rounds=2)))
    rows = RowMaker(judge=judge_rounds, rows_of=failing_rows_of,
                    schemas={n: s for n, s in TABLES.items() if n != "findings"})
    with pytest.raises(ZeroDivisionError, match="rows_of failed in a worker") as caught:
        replay_entries(log_entries(log), rows, workers=2)
    assert "in replay worker process" in "".join(caught.value.__notes__)


def dying_rows_of(state, judgement):
    """rows_of, except in a worker process, which it kills."""
    if multiprocessing.parent_process() is not None:
        os._exit(7)
    return rows_of(state, judgement)


def test_a_worker_that_dies_stops_the_replay_with_a_clear_error(tmp_path):
    from replay.batch_decode import log_entries

    log = _write(tmp_path, _interleaved(_shift(tables=3, rounds=2)))
    rows = RowMaker(judge=judge_rounds, rows_of=dying_rows_of,
                    schemas={n: s for n, s in TABLES.items() if n != "findings"})
    with pytest.raises(ReplayWorkerError, match=r"stopped abruptly.*nothing was written"):
        replay_entries(log_entries(log), rows, workers=2)


def test_the_command_takes_workers_and_reports_progress(tmp_path):
    _write(tmp_path, _interleaved(_shift(tables=3, rounds=2)))
    one = run_cli("replay", "--data", str(tmp_path), "--workers", "1")
    assert one.returncode == 0, one.stderr
    files_one = _files(tmp_path / "replay")
    proc = run_cli("replay", "--data", str(tmp_path), "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    assert "replay: 6 rounds judged" in proc.stderr
    assert _files(tmp_path / "replay") == files_one
    bad = run_cli("replay", "--data", str(tmp_path), "--workers", "0")
    assert bad.returncode == 2
    assert "--workers must be a whole number from 1" in bad.stderr


def test_a_log_that_cannot_be_read_stops_the_workers_and_says_so(tmp_path):
    from schemas.logformat import LogError

    log = _write(tmp_path, _interleaved(_shift(tables=3, rounds=2)), batch=20)
    seg = sorted(log.iterdir())[-1]
    seg.write_bytes(seg.read_bytes()[:-30])
    with pytest.raises(LogError, match="cannot be read as a log segment"):
        replay(log, tmp_path / "out", workers=2)
    assert multiprocessing.active_children() == []


def test_workers_started_ahead_write_the_same_bytes_and_are_used_once(tmp_path):
    """``python -m replay`` starts the helpers before it verifies the log (they warm up
    meanwhile) and hands them to replay: the same files as one process."""
    from replay.run import start_workers

    log = _write(tmp_path, _faulty(_shift()))
    one = replay(log, tmp_path / "w1")
    with start_workers(2) as pool:
        assert replay(log, tmp_path / "w2", workers=pool) == one
        with pytest.raises(ValueError, match="used already"):
            replay(log, tmp_path / "again", workers=pool)
    assert _files(tmp_path / "w2") == _files(tmp_path / "w1")
    assert not (tmp_path / "again").exists()
    assert multiprocessing.active_children() == []


def test_workers_started_ahead_and_not_used_are_stopped(tmp_path):
    from replay.run import start_workers

    with start_workers(3) as pool:
        assert len(pool.helpers) == 2
    assert multiprocessing.active_children() == []
    with start_workers(1) as pool:  # this process alone: nothing is started
        assert pool.helpers == []


def dying_warm():
    """A warm-up that kills the worker process it runs in."""
    if multiprocessing.parent_process() is not None:
        os._exit(9)


def failing_warm():
    raise ZeroDivisionError("warm-up failed")


def test_a_worker_that_dies_while_warming_up_stops_the_replay(tmp_path):
    from replay.batch_decode import log_entries

    log = _write(tmp_path, _interleaved(_shift(tables=3, rounds=2)))
    rows = replace(ROWS, warm=dying_warm)
    with pytest.raises(ReplayWorkerError, match=r"stopped abruptly.*nothing was written"):
        replay_entries(log_entries(log), rows, workers=2)
    assert multiprocessing.active_children() == []


def test_a_warm_up_that_fails_changes_nothing(tmp_path):
    """Warming up is only ahead of time: what fails there fails (and is said) in judging."""
    from replay.batch_decode import log_entries

    log = _write(tmp_path, _interleaved(_shift(tables=3, rounds=2)))
    alone = replay_entries(log_entries(log), ROWS)
    got = replay_entries(log_entries(log), replace(ROWS, warm=failing_warm), workers=2)
    assert got.tables == alone.tables


def test_the_command_with_workers_refuses_a_log_it_cannot_verify(tmp_path):
    _write(tmp_path, _interleaved(_shift(tables=3, rounds=2)))
    (tmp_path / "keys" / "signing.pub").unlink()
    proc = run_cli("replay", "--data", str(tmp_path), "--workers", "2")
    assert proc.returncode == 1
    assert "no public key" in proc.stderr
    assert not (tmp_path / "replay").exists()


@pytest.mark.parametrize("ahead", ["prefix", "other", "more"])
def test_entries_dealt_ahead_are_used_only_where_they_are_those_replayed(tmp_path, ahead):
    """``Workers.deal`` before the replay (``python -m replay`` deals while it verifies):
    the first entries replayed must be those dealt, else the entries replayed are replayed
    in one process; the same bytes either way, and the helpers are stopped."""
    from replay.batch_decode import log_entries
    from replay.run import start_workers

    log = _write(tmp_path, _faulty(_shift()))
    entries = list(log_entries(log))
    alone = replay_entries(entries, ROWS)
    dealt = {"prefix": entries[:len(entries) // 2],
             "other": [*entries[:10], (10, "log position 99", b"T01", entries[11][3]),
                       *entries[11:40]],
             "more": [*entries, (len(entries), "log position 999", b"T01", entries[0][3])],
             }[ahead]
    with start_workers(2) as pool:
        for entry in dealt:
            pool.deal(entry)
        got = replay_entries(iter(entries), ROWS, workers=pool)
    assert got == alone
    assert multiprocessing.active_children() == []


def test_a_worker_that_dies_while_it_is_dealt_records_stops_the_replay_quietly(
        tmp_path, capfd):
    """The helper dies while records are dealt to it ahead of the replay: a clear error,
    nothing written, and no traceback from the thread that was writing its records."""
    from replay.batch_decode import log_entries

    log = _write(tmp_path, _interleaved(_shift(tables=3, rounds=40)))
    rows = replace(ROWS, warm=dying_warm)
    with parallel.Workers(2, rows) as pool:
        pool.helpers[0].process.join(timeout=60)  # it died warming up
        entries = list(log_entries(log))
        for entry in entries:
            pool.deal(entry)
        with pytest.raises(ReplayWorkerError, match=r"stopped abruptly.*nothing was written"):
            replay_entries(entries, rows, workers=pool)
    assert multiprocessing.active_children() == []
    assert "Traceback" not in capfd.readouterr().err


def test_tables_built_a_column_at_a_time_are_those_of_from_pylist(tmp_path):
    """replay builds each table a column at a time (``parallel.arrow_table``): the same
    table, and the same Parquet bytes, as ``pa.Table.from_pylist``, for every table of
    rows of a shift, for rows that lack a column, no rows, and a table of one column."""
    import pyarrow as pa

    from replay.batch_decode import decode_entries, log_entries
    from replay.fold import fold
    from replay.parallel import arrow_table, write_parquet
    from schemas import DecodeError

    log = _write(tmp_path, _faulty(_shift()))
    replayed = fold((e[1], got) for e, got in decode_entries(log_entries(log))
                    if not isinstance(got, DecodeError))
    rows: dict[str, list] = {name: [] for name in TABLES}
    for state, judgement in judge_rounds(replayed):
        for name, got in rows_of(state, judgement).items():
            rows[name].extend(got)
    lacking = [{k: v for k, v in r.items() if k != "notation"} for r in rows["rounds"]]
    cases = [*((rows[name], TABLES[name]) for name in TABLES if name != "findings"),
             (lacking, TABLES["rounds"]), ([], TABLES["wagers"]),
             ([{"seat": 3}, {"seat": None}], pa.schema([("seat", pa.int32())]))]
    assert all(rows[name] for name in ("rounds", "hands", "wagers"))
    for i, (got_rows, schema) in enumerate(cases):
        built, expected = arrow_table(got_rows, schema), pa.Table.from_pylist(got_rows,
                                                                              schema=schema)
        assert built.equals(expected) and built.schema == expected.schema
        assert (write_parquet(built, tmp_path / f"a{i}.parquet")
                == write_parquet(expected, tmp_path / f"b{i}.parquet"))
