"""Replay split by table over worker processes, merged into the rows one process would write.

The log's Kafka key is the table id, and everything the fold keeps across events is keyed by
table or event: the table's sequence numbers (gaps are findings per casino's table), the
rounds (by casino, table and round id) and the events seen (by event id, for duplicates). So
the records of one key can be folded and judged apart from the others'. With ``workers`` N,
this process reads the log and deals each key, from its first record on, to itself or to one
of N - 1 helper processes, sending a helper its records in chunks while the log is still
being read (or verified), so that the helpers decode and fold as the records arrive. Each
process folds and judges its tables; this one then merges the rows: sorted by (casino,
table, round) as one process sorts them (a stable sort, so each round's rows keep their
order), and the log-level findings in log order (the records that do not decode first, then
the fold's). The files are byte for byte those of one process (tests/test_replay_workers.py).

That holds when no (casino, table) and no event id spans two keys, which is what a table's
devices write. When one does (a table's event recorded under another table's key, an event
id reused at another table), the shards would not be those of one fold: the whole log is
then replayed again in this process. (A round id used at two tables is two rounds, so it
joins nothing.)

Keys are dealt as they first appear, without knowing their size: the tables of a shift are
alike, and the parent takes fewer (:data:`PARENT_SHARE`), as it also reads the log.
Helpers are started with ``fork`` from a process without threads (else ``spawn``:
:func:`start_context`), if need be ahead of the replay
(:class:`Workers`: ``python -m replay`` starts them before it verifies the log); each
first builds what judging builds on first use (``RowMaker.warm``) and keeps pyarrow from
importing pandas (:func:`pyarrow_without_pandas`), while the parent verifies or reads.
Records may be dealt before the replay (:meth:`Workers.deal`: ``python -m replay`` deals
each record as verification reads it, so the helpers work while the log is verified); the
replay then checks that they are the first records it is given, and otherwise replays what
it is given in this process. A helper's records go through a pipe written by a thread of
this process (:class:`_Feed`), so that dealing never waits for a helper. One that dies
stops the replay with :class:`ReplayWorkerError` before anything is written. This module
names no table and no game: what a row is comes from the caller (:class:`RowMaker`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import importlib.abc
import multiprocessing
import os
import queue
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkContext, SpawnContext
from multiprocessing.process import BaseProcess
from operator import itemgetter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from replay.batch_decode import Entry, decode_entries, undecodable_finding
from replay.clock import clock, judged_at
from replay.errors import ReplayError
from replay.fold import Finding, Replayed, RoundKey, RoundState, fold
from replay.heap import collector_paused
from replay.reconstruct import Judgement
from schemas import DecodeError, RoundEvent

ORDER = [("casino", "ascending"), ("table_id", "ascending"), ("round_id", "ascending")]
"""How rows are ordered: by casino, table, then round (``replay.run.judge_rounds``); every
table of rows has these columns."""


class ReplayWorkerError(ReplayError):
    """A worker process stopped before it returned its tables' rows."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RowMaker:
    """What a folded round becomes: ``judge`` yields each round of a fold with its
    judgement in (casino, table, round) order, ``rows_of`` gives one round's rows per table name,
    ``schemas`` the Arrow schema of each table (those ``rows_of`` fills; others are the
    caller's). Passed to workers by reference to the functions' module."""

    judge: Callable[[Replayed], Iterator[tuple[RoundState, Judgement]]]
    rows_of: Callable[[RoundState, Judgement], dict[str, list[dict[str, Any]]]]
    schemas: dict[str, pa.Schema]
    warm: Callable[[], object] | None = None
    """Builds what judging builds on first use (the rules engine's lookup tables); a
    helper calls it as soon as it has started, while the parent still verifies or reads
    the log, so that building them is off the replay's critical path."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Shard:
    """The rows of some of the log's records, and what a merge must know about them:
    each finding with the ordinal of its record, and every (casino, table) and event id seen
    (empty when the shard was the whole log)."""

    tables: dict[str, pa.Table]
    rounds: int
    undecodable: tuple[tuple[int, Finding], ...]
    fold_findings: tuple[tuple[int, Finding], ...]
    seen_tables: frozenset[tuple[str, str]] = frozenset()
    """The (casino, table) of every round folded (so of every event decoded)."""
    event_ids: tuple[str, ...] = ()
    """The id of every event decoded, in log order (a tuple: sent back from a helper at a
    fraction of the cost of a set)."""


def replay_shard(entries: Iterable[Entry], rows: RowMaker, *, collect_ids: bool = False,
                 progress: Callable[[int], None] | None = None) -> Shard:
    """Decode, fold and judge ``entries`` (log order) into one table of rows per name;
    ``progress`` gets the number of rounds judged every 500 rounds and at the end."""
    with collector_paused():  # the work's locals are gone before the collector resumes
        return _replay_shard(entries, rows, collect_ids=collect_ids, progress=progress)


def _replay_shard(entries: Iterable[Entry], rows: RowMaker, *, collect_ids: bool,
                  progress: Callable[[int], None] | None) -> Shard:
    undecodable: list[tuple[int, Finding]] = []
    folded: list[Entry] = []
    event_ids: list[str] = []

    clocks: dict[RoundKey, int] = {}

    def watched() -> Iterator[tuple[str, RoundEvent, int]]:
        for entry, got in decode_entries(entries):
            if isinstance(got, DecodeError):
                undecodable.append((entry[0], undecodable_finding(entry[1], got)))
                continue
            clock(entry, got, undecodable, clocks)
            folded.append(entry)
            if collect_ids:
                event_ids.append(got.event_id)
            yield entry[1], got, int.from_bytes(entry[3][1:5], "big")  # the frame's schema id

    replayed = fold(watched())
    if clocks:
        replayed = dataclasses.replace(replayed, rounds=tuple(
            judged_at(r, clocks) for r in replayed.rounds))
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in rows.schemas}
    total = len(replayed.rounds)
    for i, (state, judgement) in enumerate(rows.judge(replayed), start=1):
        for name, got in rows.rows_of(state, judgement).items():
            out[name].extend(got)
        if progress is not None and (i % 500 == 0 or i == total):
            progress(i)
    return Shard(
        tables={name: arrow_table(out[name], schema) for name, schema in rows.schemas.items()},
        rounds=total,
        undecodable=tuple(undecodable),
        fold_findings=tuple(_placed(replayed.findings, folded)),
        seen_tables=frozenset((r.casino, r.table_id) for r in replayed.rounds)
        if collect_ids else frozenset(),
        event_ids=tuple(event_ids),
    )


def arrow_table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """The table of ``rows`` (dicts by column name) under ``schema``: the table
    ``pa.Table.from_pylist(rows, schema=schema)`` gives, built a column at a time (about
    half the time for replay's tables of many rows). Rows that lack a column (null there)
    are left to ``from_pylist``."""
    names = schema.names
    if rows and len(names) > 1:
        try:
            columns = list(zip(*map(itemgetter(*names), rows), strict=True))
        except KeyError:
            pass
        else:
            return pa.Table.from_arrays(
                [pa.array(column, type=f.type) for column, f in zip(columns, schema,
                                                                     strict=True)],
                schema=schema)
    return pa.Table.from_pylist(rows, schema=schema)


def _placed(findings: Iterable[Finding], folded: list[Entry]) -> Iterator[
        tuple[int, Finding]]:
    """Each fold finding with the ordinal of its record: the fold reports at most one
    finding per event, in the order of the events, under the event's ``where``."""
    records = iter(folded)
    for finding in findings:
        for ordinal, where, *_ in records:
            if where == finding.where:
                yield ordinal, finding
                break


CHUNK = 1_000
"""Records sent to a helper at a time, while the log is still being read."""

PARENT_SHARE = 0.75
"""The parent's share of tables relative to a helper's (a new key goes to whoever holds
fewest for its share). The parent takes fewer: it also verifies the log (it deals the
records as verification reads them, and replays those verification read), then merges and
writes. Chosen with ``python -m replay --workers 2`` on the shift of
bench/replay_floor.py (20 tables), from the CPU seconds of each process: 0.6 to 0.9 balance
the two within a table's work (bench/README.md)."""


def pyarrow_without_pandas() -> bool:
    """In a process that converts nothing to or from pandas (a replay helper, ``python -m
    replay``): spare it the import of pandas (about 0.3 s of CPU) that pyarrow's first
    conversion of Python values would make. ``pa.array`` asks once, on its first call,
    whether pandas can be imported (to recognise pandas objects, of which no pandas means
    none), and remembers the answer: it is asked here with ``import pandas`` failing, then
    the import is allowed again. The arrays, and so the files, are the same byte for byte
    (tests/test_replay_workers.py); a later ``to_pandas`` imports pandas as usual. False,
    and nothing done, when pandas is imported already or pyarrow has asked before."""
    if "pandas" in sys.modules:
        return False
    sys.meta_path.insert(0, _NO_PANDAS)
    try:
        pa.array([], type=pa.int8())
    finally:
        sys.meta_path.remove(_NO_PANDAS)
    return "pandas" not in sys.modules


class _NoPandas(importlib.abc.MetaPathFinder):
    """Finds no pandas: ``import pandas`` raises ImportError while it is first on the path."""

    def find_spec(self, fullname: str, path: object, target: object = None) -> None:
        if fullname == "pandas" or fullname.startswith("pandas."):
            raise ImportError(f"{fullname} is not imported by replay", name=fullname)
        return None


_NO_PANDAS = _NoPandas()


def _helper(inbox: Connection, outbox: Connection, rows: RowMaker) -> None:
    """A worker process: build what judging needs first (``rows.warm``), replay the
    records that arrive in ``inbox`` (chunks, then None) as they arrive, and send back the
    shard."""
    with collector_paused(), contextlib.suppress(Exception):
        # Only ahead of time: judging builds the same and says what fails.
        pyarrow_without_pandas()
        if rows.warm is not None:
            rows.warm()

    def arriving() -> Iterator[Entry]:
        while (chunk := inbox.recv()) is not None:
            yield from chunk

    try:
        result: Shard | tuple[Exception, str] = replay_shard(arriving(), rows, collect_ids=True)
    except Exception as exc:  # sent to the parent, which raises it as one process would
        result = (exc, traceback.format_exc())
    outbox.send(result)
    outbox.close()


PIPE_BYTES = 1 << 20
"""The size asked of the pipe that carries a helper's records (Linux; its default is 64 KiB):
room for a few chunks, so that a helper need not wait for this process to write the next
one (the thread writing them needs the interpreter lock, which the dealing holds)."""


class _Feed:
    """The records on their way to one helper: chunks are queued at once and written to
    its pipe by a thread of this process, so that the dealing never waits for the helper.
    Once the helper is gone (it died, or was stopped), what is left is dropped: the replay
    learns it from the helper's missing shard (:func:`_collect`)."""

    def __init__(self, pipe: Connection) -> None:
        self.pipe = pipe
        with contextlib.suppress(AttributeError, OSError):
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        self.queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._write, name="replay-feed", daemon=True)
        self.thread.start()

    def put(self, chunk: list[Entry] | None) -> None:
        self.queue.put(chunk)

    def _write(self) -> None:
        while (chunk := self.queue.get()) is not _CLOSED:
            try:
                self.pipe.send(chunk)
            except (OSError, ValueError):  # the helper is gone, or the pipe was closed
                return
            if chunk is None:
                return

    def close(self) -> None:
        """Stop writing (the helper is stopped or has everything) and close the pipe."""
        self.queue.put(_CLOSED)
        self.thread.join(timeout=5)
        if not self.thread.is_alive():
            self.pipe.close()


_CLOSED = object()


@dataclass(slots=True, kw_only=True)
class _Helper:
    process: BaseProcess
    inbox: _Feed
    results: Connection
    keys: int = 0
    pending: list[Entry] = field(default_factory=list)

    def send(self, final: bool = False) -> None:
        if self.pending:
            self.inbox.put(self.pending)
            self.pending = []
        if final:
            self.inbox.put(None)


class Workers:
    """The helper processes of a replay by ``workers`` processes (this one and
    ``workers - 1`` helpers), started ahead of it: each imports the code and builds what
    judging builds on first use (``rows.warm``) while this process does something else,
    such as verifying the log (``python -m replay``). Entries may be dealt to them as they
    are read (:meth:`deal`), before the replay. Give it to :func:`replay_entries` (once),
    and close it (a ``with`` block), which stops helpers still running."""

    def __init__(self, workers: int, rows: RowMaker) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self.rows = rows
        self.used = False
        self.helpers: list[_Helper] = []
        try:
            self.helpers.extend(_start(workers, rows))
        except BaseException:
            self.close()
            raise
        self.dealer = _Dealer(self.helpers)

    def deal(self, entry: Entry) -> None:
        """Send ``entry`` now to the process that owns its key, ahead of the replay: the
        entries dealt must be the first ones later given to :func:`replay_entries`, in the
        same order (ordinals from 0); they are compared there, and when they are not, the
        helpers' work is thrown away and the entries given are replayed in this process.
        Nothing is done without helpers. Not to be called once the replay has begun."""
        if self.helpers and not self.used:
            self.dealer.add(entry)

    def close(self) -> None:
        _stop(self.helpers)
        self.helpers = []
        self.used = True

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_context() -> ForkContext | SpawnContext:
    """How helpers are started: ``fork`` when this process runs no other thread, so that a
    helper begins with the code already imported (about 0.3 s of CPU less for each, and it
    is dealt records sooner); ``spawn`` otherwise (a server, the dashboard: forking a
    process with Python threads may copy a lock another thread holds), and where there is
    no ``fork``. The native threads pyarrow starts on import (jemalloc's background thread,
    an idle one) are fork-aware: jemalloc and Arrow register at-fork handlers that reset
    their locks and thread pools in the child (Python 3.11's own default on Linux is
    ``fork``). The helpers do the same either way: the files are the same byte for byte
    (tests/test_replay_workers.py runs both)."""
    if (threading.active_count() == 1
            and "fork" in multiprocessing.get_all_start_methods()):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _start(workers: int, rows: RowMaker) -> Iterator[_Helper]:
    """Start the helpers, every process before any feeding thread (see
    :func:`start_context`)."""
    context = start_context()
    started: list[tuple[BaseProcess, Connection, Connection]] = []
    try:
        for _ in range(workers - 1):
            inbox, feed = context.Pipe(duplex=False)
            results, outbox = context.Pipe(duplex=False)
            process: BaseProcess = context.Process(target=_helper,
                                                   args=(inbox, outbox, rows), daemon=True)
            try:
                process.start()
            except BaseException:
                feed.close()
                results.close()
                raise
            finally:
                inbox.close()
                outbox.close()
            started.append((process, feed, results))
    except BaseException:
        for stopped, feed, results in started:
            stopped.terminate()
            stopped.join()
            feed.close()
            results.close()
        raise
    for process, feed, results in started:
        yield _Helper(process=process, inbox=_Feed(feed), results=results)


class _Dealer:
    """Deals entries, in log order, to the process that owns each key (a table is owned
    from its first record on), sending a helper its entries in chunks as they come; keeps
    every entry and this process's own."""

    def __init__(self, helpers: list[_Helper]) -> None:
        self.helpers = helpers
        self.owner: dict[bytes | None, _Helper | None] = {}
        self.mine = 0
        self.everything: list[Entry] = []
        self.own: list[Entry] = []

    def add(self, entry: Entry) -> None:
        self.everything.append(entry)
        key = entry[2]
        if key in self.owner:
            helper = self.owner[key]
        else:
            least = min(self.helpers, key=lambda h: h.keys)
            if self.mine / PARENT_SHARE < least.keys:
                helper = self.owner[key] = None
                self.mine += 1
            else:
                helper = self.owner[key] = least
                least.keys += 1
        if helper is None:
            self.own.append(entry)
        else:
            helper.pending.append(entry)
            if len(helper.pending) >= CHUNK:
                helper.send()

    def finish(self) -> None:
        for helper in self.helpers:
            helper.send(final=True)


def _deal(entries: Iterable[Entry], dealer: _Dealer) -> list[Entry] | None:
    """Deal the entries not dealt yet (:meth:`Workers.deal`), after checking that those
    dealt are the first ones given; None when they were (every entry is
    ``dealer.everything``), else every entry given, for this process to replay alone."""
    dealt = dealer.everything
    count = len(dealt)
    given = iter(entries)
    for i in range(count):
        entry = next(given, None)
        if entry is None or (entry is not dealt[i] and entry != dealt[i]):
            return [*dealt[:i], *([] if entry is None else [entry]), *given]
    for entry in given:
        dealer.add(entry)
    dealer.finish()
    return None


def _collect(helpers: list[_Helper]) -> list[Shard]:
    """Each helper's shard; ReplayWorkerError when one stops without sending it."""
    shards: dict[int, Shard] = {}
    pending = {h.results: i for i, h in enumerate(helpers)}
    while pending:
        sentinels = {helpers[i].process.sentinel: i for i in pending.values()}
        ready = wait([*pending, *sentinels])
        for conn in [r for r in ready if r in pending]:
            i = pending.pop(conn)
            try:
                got = conn.recv()
            except EOFError:
                raise _died(helpers[i]) from None
            if isinstance(got, tuple):
                exc, where = got
                exc.add_note(f"in replay worker process {helpers[i].process.pid}:\n{where}")
                raise exc
            shards[i] = got
        for sentinel in [r for r in ready if r in sentinels]:
            i = sentinels[sentinel]
            if helpers[i].results in pending and not helpers[i].results.poll():
                raise _died(helpers[i])
    return [shards[i] for i in range(len(helpers))]


def _died(helper: _Helper) -> ReplayWorkerError:
    helper.process.join(timeout=1)
    return ReplayWorkerError(
        f"a replay worker process (pid {helper.process.pid}, exit code "
        f"{helper.process.exitcode}) stopped abruptly (killed, out of memory, or it could not "
        f"start) before it sent its tables' rows; nothing was written")


def _stop(helpers: list[_Helper]) -> None:
    for h in helpers:
        if h.process.is_alive():
            h.process.terminate()
        h.process.join()
        h.inbox.close()
        h.results.close()


def _joined(shards: list[Shard]) -> bool:
    """Whether two shards share a (casino, table) or an event id (the usual log has none)."""
    tables: set[tuple[str, str]] = set()
    events: set[str] = set()
    for shard in shards:
        if not tables.isdisjoint(shard.seen_tables) or not events.isdisjoint(shard.event_ids):
            return True
        tables |= shard.seen_tables
        events.update(shard.event_ids)
    return False


def replay_entries(entries: Iterable[Entry], rows: RowMaker, *, workers: int | Workers = 1,
                   progress: Callable[[int], None] | None = None) -> Shard:
    """Every entry replayed into one table of rows per name and the log-level findings, in
    the order one process gives them, by ``workers`` processes: this one and
    ``workers - 1`` helpers started for the purpose, or those of a :class:`Workers`
    started ahead (for the same ``rows``; it is closed on return)."""
    if isinstance(workers, Workers):
        if workers.used or workers.rows != rows:
            raise ValueError("these Workers were used already, or started for other rows")
        workers.used = True
        with workers, collector_paused():
            return _replay_entries(entries, rows, workers.helpers, workers.dealer, progress)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if workers == 1:
        with collector_paused():  # the work's locals are gone before the collector resumes
            return replay_shard(list(entries), rows, progress=progress)
    with Workers(workers, rows) as pool:
        return replay_entries(entries, rows, workers=pool, progress=progress)


def _replay_entries(entries: Iterable[Entry], rows: RowMaker, helpers: list[_Helper],
                    dealer: _Dealer, progress: Callable[[int], None] | None) -> Shard:
    if not helpers:
        return replay_shard(list(entries), rows, progress=progress)
    try:
        alone = _deal(entries, dealer)
        if alone is not None:  # not the entries dealt ahead: one process, from scratch
            _stop(helpers)
            return replay_shard(alone, rows, progress=progress)
        mine = replay_shard(dealer.own, rows, collect_ids=True, progress=progress)
        shards = [mine, *_collect(helpers)]
    finally:
        _stop(helpers)
    if progress is not None:
        progress(sum(s.rounds for s in shards))
    if _joined(shards):
        return replay_shard(dealer.everything, rows)
    return merge(shards)


def merge(shards: list[Shard]) -> Shard:
    """One shard of several whose ids do not overlap: rows in (casino, table, round) order,
    findings in log order."""
    tables = {}
    for name in shards[0].tables:
        table = pa.concat_tables([s.tables[name] for s in shards])
        if len(shards) > 1 and table.num_rows:
            table = table.take(pc.sort_indices(table, sort_keys=ORDER))
        tables[name] = table.combine_chunks()
    return Shard(
        tables=tables,
        rounds=sum(s.rounds for s in shards),
        undecodable=tuple(sorted((f for s in shards for f in s.undecodable),
                                 key=lambda f: f[0])),
        fold_findings=tuple(sorted((f for s in shards for f in s.fold_findings),
                                   key=lambda f: f[0])),
    )


def write_parquet(table: pa.Table, path: Path) -> str:
    """Write one table the way every replay file is written (fixed options, so the same
    rows give the same bytes), under a temporary name fsynced and renamed into place;
    the SHA-256 of the bytes written, in hex."""
    import pyarrow.parquet as pq  # here: the helper processes never need it

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", use_dictionary=True, write_statistics=True)
    data = sink.getvalue()
    tmp = path.with_suffix(".parquet.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return hashlib.sha256(data).hexdigest()
