"""Replay split by table over worker processes, merged into the rows one process would write.

The log's Kafka key is the table id, and everything the fold keeps across events is keyed by
table, round or event: the table's sequence numbers (gaps are findings per table), the
rounds (by round id) and the events seen (by event id, for duplicates). So the records of one
key can be folded and judged on their own, each key a task for a worker process, and the
parent merges the rows: rows sorted by (table, round) as one process sorts them (a stable
sort, so each round's rows keep their order), the log-level findings in log order (the
records that do not decode first, then the fold's). The files are then byte for byte those
of one process (tests/test_replay_workers.py).

That holds when no table id, round id or event id spans two keys, which is what a table's
devices write. A log where one does (a round recorded under two tables' keys, an event id
reused at another table) is not split there: tasks that share an id are merged into one
and replayed again, so that the fold sees them together, as one process would.

Workers are started with ``spawn`` (STACK.md 4: no inherited state) and a worker that dies
stops the replay with :class:`ReplayWorkerError` before anything is written. This module
names no table and no game: what a row is comes from the caller (:class:`RowMaker`).
"""

from __future__ import annotations

import gc
import importlib
import multiprocessing
import os
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from replay.batch_decode import Entry, decode_entries, undecodable_finding
from replay.errors import ReplayError
from replay.fold import Finding, Replayed, RoundState, fold
from replay.reconstruct import Judgement
from schemas import DecodeError, RoundEvent

ORDER = [("table_id", "ascending"), ("round_id", "ascending")]
"""How rows are ordered: by table, then round (``replay.run.judge_rounds``)."""


class ReplayWorkerError(ReplayError):
    """A worker process stopped before it returned its tables' rows."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RowMaker:
    """What a folded round becomes: ``judge`` yields each round of a fold with its
    judgement in (table, round) order, ``rows_of`` gives one round's rows per table name,
    ``schemas`` the Arrow schema of each table (those ``rows_of`` fills; others are the
    caller's). Passed to workers by reference to the functions' module."""

    judge: Callable[[Replayed], Iterator[tuple[RoundState, Judgement]]]
    rows_of: Callable[[RoundState, Judgement], dict[str, list[dict[str, Any]]]]
    schemas: dict[str, pa.Schema]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shard:
    """The rows of some of the log's records, and what a merge must know about them:
    each finding with the ordinal of its record, and every table, round and event id seen
    (empty when the shard was the whole log)."""

    tables: dict[str, pa.Table]
    rounds: int
    undecodable: tuple[tuple[int, Finding], ...]
    fold_findings: tuple[tuple[int, Finding], ...]
    ids: frozenset[tuple[str, str]] = frozenset()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a while. A replay's events, rounds and
    rows hold no reference cycles, so reference counting frees them; the collector would
    only walk the growing heap again and again (about a sixth of a replay's time)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def replay_shard(entries: Sequence[Entry], rows: RowMaker, *, collect_ids: bool = False,
                 progress: Callable[[int], None] | None = None) -> Shard:
    """Decode, fold and judge ``entries`` (log order) into one table of rows per name;
    ``progress`` gets the number of rounds judged every 500 rounds and at the end."""
    with collector_paused():
        return _replay_shard(entries, rows, collect_ids=collect_ids, progress=progress)


def _replay_shard(entries: Sequence[Entry], rows: RowMaker, *, collect_ids: bool,
                  progress: Callable[[int], None] | None) -> Shard:
    undecodable: list[tuple[int, Finding]] = []
    folded: list[tuple[int, str]] = []
    ids: set[tuple[str, str]] = set()

    def watched() -> Iterator[tuple[str, RoundEvent]]:
        for entry, got in decode_entries(entries):
            if isinstance(got, DecodeError):
                undecodable.append((entry[0], undecodable_finding(entry[1], got)))
                continue
            folded.append((entry[0], entry[1]))
            if collect_ids:
                ids.update((("table", got.table_id), ("round", got.round_id),
                            ("event", got.event_id)))
            yield entry[1], got

    replayed = fold(watched())
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in rows.schemas}
    total = len(replayed.rounds)
    for i, (state, judgement) in enumerate(rows.judge(replayed), start=1):
        for name, got in rows.rows_of(state, judgement).items():
            out[name].extend(got)
        if progress is not None and (i % 500 == 0 or i == total):
            progress(i)
    return Shard(
        tables={name: pa.Table.from_pylist(out[name], schema=schema)
                for name, schema in rows.schemas.items()},
        rounds=total,
        undecodable=tuple(undecodable),
        fold_findings=tuple(_placed(replayed.findings, folded)),
        ids=frozenset(ids),
    )


def _placed(findings: Iterable[Finding], folded: list[tuple[int, str]]) -> Iterator[
        tuple[int, Finding]]:
    """Each fold finding with the ordinal of its record: the fold reports at most one
    finding per event, in the order of the events, under the event's ``where``."""
    records = iter(folded)
    for finding in findings:
        for ordinal, where in records:
            if where == finding.where:
                yield ordinal, finding
                break


def _shard_task(entries: list[Entry], rows: RowMaker) -> Shard:
    return replay_shard(entries, rows, collect_ids=True)


def _warm_up(entries: list[Entry], rows: RowMaker) -> int:
    """Replay some records and throw the rows away: whatever the games build on first use
    (rank tables ...) is then built while the parent still reads the log."""
    return replay_shard(entries, rows).rounds


WARM_UP = 4_000
"""Records of the log's start each helper replays, and throws away, while the log is read."""


def _by_key(entries: Iterable[Entry]) -> list[list[Entry]]:
    """The entries of each Kafka key, in log order; the largest group first (so that two
    workers finish together), then in key order."""
    groups: dict[bytes | None, list[Entry]] = defaultdict(list)
    for entry in entries:
        groups[entry[2]].append(entry)
    return [groups[k] for k in sorted(groups, key=lambda k: (-len(groups[k]), k is None,
                                                                k or b""))]


def _joined(shards: list[Shard]) -> list[list[int]]:
    """Groups of shards that share a table, round or event id (the usual log has none)."""
    parent = list(range(len(shards)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[tuple[str, str], int] = {}
    for i, shard in enumerate(shards):
        for key in shard.ids:
            j = root(owner.setdefault(key, i))
            if j != root(i):
                parent[root(i)] = j
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(shards)):
        groups[root(i)].append(i)
    return [members for members in groups.values() if len(members) > 1]


def _share(pool: ProcessPoolExecutor, helpers: int, tasks: list[list[Entry]],
           rows: RowMaker, done: Callable[[list[Entry], Shard], None]) -> None:
    """Run ``tasks`` (largest first) on the pool's ``helpers`` processes and on this one:
    the pool is kept one task ahead of each helper; this process takes the next task
    whenever it is free, and waits for the helpers once none is left."""
    queue = deque(tasks)
    running: dict[Future[Shard], list[Entry]] = {}
    try:
        while queue or running:
            while queue and len(running) < 2 * helpers:
                task = queue.popleft()
                running[pool.submit(_shard_task, task, rows)] = task
            if queue:
                task = queue.popleft()
                done(task, replay_shard(task, rows, collect_ids=True))
                finished = [f for f in running if f.done()]
            else:
                finished = list(wait(running, return_when=FIRST_COMPLETED).done)
            for future in finished:
                done(running.pop(future), future.result())
    except BrokenProcessPool as exc:
        lost = sorted(_key_of(task) for task in running.values())
        raise ReplayWorkerError(
            f"a replay worker process stopped abruptly (killed, out of memory, or it could "
            f"not start) while it held the records of {', '.join(lost) or 'a table'}; "
            f"nothing was written") from exc
    finally:
        for future in running:
            future.cancel()


def _warming(entries: Iterable[Entry], pool: ProcessPoolExecutor, helpers: int,
             rows: RowMaker) -> Iterator[Entry]:
    """``entries``, once the first :data:`WARM_UP` of them are sent to each helper to
    replay while the rest are read (errors there show again in the real tasks)."""
    first: list[Entry] = []
    sent = False
    for entry in entries:
        if not sent:
            first.append(entry)
            if len(first) == WARM_UP:
                for _ in range(helpers):
                    pool.submit(_warm_up, first, rows)
                sent = True
        yield entry
    if not sent:
        for _ in range(helpers):
            pool.submit(_warm_up, first, rows)


def _key_of(task: list[Entry]) -> str:
    key = task[0][2]
    return "key None" if key is None else f"table {key.decode('utf-8', 'replace')}"


def replay_entries(entries: Iterable[Entry], rows: RowMaker, *, workers: int = 1,
                   progress: Callable[[int], None] | None = None) -> Shard:
    """Every entry replayed into one table of rows per name and the log-level findings, in
    the order one process gives them, by ``workers`` processes: this one and
    ``workers - 1`` started for the purpose."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    with collector_paused():
        return _replay_entries(entries, rows, workers, progress)


def _replay_entries(entries: Iterable[Entry], rows: RowMaker, workers: int,
                    progress: Callable[[int], None] | None) -> Shard:
    if workers == 1:
        return replay_shard(list(entries), rows, progress=progress)
    helpers = workers - 1
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=helpers, mp_context=context,
                             initializer=importlib.import_module,
                             initargs=(rows.rows_of.__module__,)) as pool:
        tasks = _by_key(_warming(entries, pool, helpers, rows))
        if not tasks:
            return replay_shard([], rows, progress=progress)
        results: list[tuple[list[Entry], Shard]] = []

        def done(task: list[Entry], shard: Shard) -> None:
            results.append((task, shard))
            if progress is not None:
                progress(sum(s.rounds for _, s in results))

        _share(pool, helpers, tasks, rows, done)
        joined = _joined([s for _, s in results])
        if joined:
            again = [sorted((e for i in members for e in results[i][0]), key=lambda e: e[0])
                     for members in joined]
            gone = {i for members in joined for i in members}
            results = [r for i, r in enumerate(results) if i not in gone]
            _share(pool, helpers, again, rows, done)
    return merge([s for _, s in results])


def merge(shards: list[Shard]) -> Shard:
    """One shard of several whose ids do not overlap: rows in (table, round) order,
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


def write_parquet(table: pa.Table, path: Path) -> None:
    """Write one table the way every replay file is written (fixed options, so the same
    rows give the same bytes), under a temporary name renamed into place."""
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp, compression="zstd", use_dictionary=True, write_statistics=True)
    os.replace(tmp, path)
