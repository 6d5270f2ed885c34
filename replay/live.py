"""Replay kept resident for the live loop (``python -m checks --follow``): each
pass costs what the records appended since the last one cost, not the whole log.

:class:`LiveReplay` keeps, between calls of :meth:`LiveReplay.step`, how many records of the
log it took and their Merkle root, the fold of their events (``replay.fold.Folding``), each
round's rows (``replay.run.rows_of``) and, per (casino, table), its Arrow tables. A step:

1. verifies the log first as ``python -m replay`` does (the same function,
   ``replay.__main__._provenance``, so the same key handling and the same words), through
   a ``schemas.log_resume.ResumableVerifier``: after a whole verification it verifies only
   the segments appended since the last step, once it has proved those verified before
   unchanged (their fingerprints), and verifies the whole log again whenever it cannot, or
   when a whole verification run every ``full_every`` seconds in the background failed.
   Its verdict, root and checkpoint are those a whole verification gives. A log that does
   not verify, or cannot be read, is refused: nothing is written, the step says why, and
   the next step tries again from what is kept;
2. takes the records verification gave: those appended since the last step when it went on
   from there; the whole log when it verified all, of which the first N are those taken
   when their Merkle root is the one taken (the log is append-only; the root covers every
   byte of every record), else everything kept is dropped and the log is replayed whole:
   a cache is never trusted over a log that changed;
3. decodes the new records (``replay.batch_decode.decode_entries``: a record that does not
   decode is the same finding), folds their events after the others, and judges again only
   the rounds they touched (a round's judgement and rows depend on its own events alone,
   the end of the log included: ``Folding.state``);
4. rebuilds the Arrow tables of the (casino, table)s touched, from their first round
   touched on (the rounds before it are sliced from the tables kept), and writes the
   files with ``replay.run.write_replay``, as ``replay.run.replay`` writes them.

The files are byte for byte those of ``python -m replay --data DATA`` over the same log
(tests/test_replay_live.py): rows in (casino, table, round) order, findings in log order
(the records that do not decode, then the fold's), the same manifest.

What it does not take: a data directory whose log is several chains (ingest workers,
``log/workers/NAME``), whose records are merged across chains and so not only appended.
:meth:`LiveReplay.step` then returns ``status="fallback"`` and writes nothing; the caller
runs ``python -m replay`` (checks/follow.py does, and says so once).
"""

from __future__ import annotations

import bisect
import contextlib
import io
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from replay.batch_decode import (
    Entry,
    KeptRecords,
    decode_entries,
    schema_id_of,
    undecodable_finding,
)
from replay.clock import clock, judged_at
from replay.fold import Finding, Folding, RoundKey
from replay.heap import collector_paused
from replay.high_water import HighWaterError
from replay.parallel import Shard, arrow_table
from replay.reconstruct import judge_state
from replay.rulebook import Rulebook
from replay.run import ROWS, provenance_of, rows_of, write_replay
from schemas import DecodeError
from schemas.log_resume import FULL_EVERY, ResumableVerifier
from schemas.logformat import LogError

Rows = dict[str, list[dict[str, Any]]]
TableKey = tuple[str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class StepResult:
    """What one step did. ``status``: ``done`` (the files are up to date with the log),
    ``refused`` (the log did not verify or could not be read: nothing written, ``message``
    says why) or ``fallback`` (a log this class does not take: nothing written, run
    ``python -m replay``; ``message`` says why)."""

    status: str
    message: str
    records: int = 0
    """Records of the log that verified."""
    new: int = 0
    """Records decoded this step (all of them after a rebuild)."""
    verified: str = ""
    """What verification did (``3 new segments after 10,422``, or ``the whole log (why)``)."""
    rebuilt: bool = False
    """Whether what was kept was dropped and the whole log replayed."""
    rounds: int = 0
    judged: int = 0
    """Rounds judged again this step."""
    verify_s: float = 0.0
    replay_s: float = 0.0
    write_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "done"

    @property
    def seconds(self) -> float:
        return self.verify_s + self.replay_s + self.write_s


@dataclass(slots=True)
class _Table:
    """One (casino, table)'s rounds in order and its Arrow tables (one per file)."""

    round_ids: list[str]
    tables: dict[str, pa.Table]


class LiveReplay:
    """Replay of ``data``'s log kept up to date, step by step, into ``data/replay``;
    ``key``: the public key the checkpoints must verify with (``python -m replay --key``:
    its text or a file; default the keyring ``CATWALK_TRUSTED_KEYS`` names, else
    ``keys/signing.pub`` under ``data``, not pinned: schemas.keyring.log_key); each step
    holds the log against the largest tree verified (replay/high_water.py); ``full_every``:
    seconds between whole verifications in the background (None: none); ``book``: the
    rulesets rounds are judged by (replay/rulebook.py; default the shipped ones), as
    ``python -m replay --rulesets DIR`` judges them. Not thread-safe: one caller steps it;
    :meth:`close` stops the background verification."""

    def __init__(self, data: Path, key: str | None = None, *,
                 full_every: float | None = FULL_EVERY, book: Rulebook | None = None) -> None:
        self.data = data
        self.key = key
        self.book = book
        self.verifier = ResumableVerifier(full_every=full_every)
        self._reset()

    def _reset(self) -> None:
        self._count = 0
        self._root = ""
        self._folding = Folding()
        self._undecodable: list[tuple[int, Finding]] = []
        self._clocks: dict[RoundKey, int] = {}
        self._rows: dict[RoundKey, Rows] = {}
        self._tables: dict[TableKey, _Table] = {}

    @property
    def records(self) -> int:
        """Records taken so far."""
        return self._count

    def poll(self) -> bool:
        """Whether a step is needed although the log may look unchanged: the whole
        verification in the background found the log not as verified (the next step
        verifies it whole, and refuses it if it does not verify)."""
        return self.verifier.poll()

    def spot(self) -> str | None:
        """Why a step is needed although the directories look unchanged: a file verified
        is no longer as it was (``ResumableVerifier.spot``: a share of the files a call)."""
        return self.verifier.spot()

    def close(self) -> None:
        """Stop the whole verification running in the background, if any."""
        self.verifier.close()

    def step(self) -> StepResult:
        """Bring ``data/replay`` up to date with the log (see the module docstring). Raises
        only for what ``python -m replay`` would fail on other than the log (a full disk:
        OSError; the previous files are then kept); what was kept is then dropped, and the
        next step replays the log whole."""
        start = time.monotonic()
        log = self.data / "log"
        if not log.is_dir():
            return StepResult(status="refused", message=f"no log at {log}: run `python -m "
                              "ingest` first")
        from schemas.log_verify import data_chains

        found = data_chains(self.data)
        if len(found) != 1 or found[0].name:
            names = ", ".join(c.name or "the lone ingest" for c in found)
            return StepResult(status="fallback", message=(
                f"the log under {log} is written by ingest workers ({names}): their records "
                "are merged, not only appended, so it is replayed whole by `python -m replay`"
                if found else f"no log segment under {log} yet"))
        kept = KeptRecords()
        said = io.StringIO()
        try:
            with contextlib.redirect_stderr(said):
                from replay.__main__ import _provenance

                provenance = _provenance(self.data, self.key, False, kept, self.verifier)
        except HighWaterError as exc:
            self.verifier.forget("the largest tree verified could not be read")
            from replay.refusal import mark_refused

            mark_refused(self.data / "replay", str(exc))
            return StepResult(status="refused", message=str(exc),
                              verify_s=time.monotonic() - start)
        except LogError as exc:
            self.verifier.forget("the log could not be read")
            from replay.refusal import mark_refused

            mark_refused(self.data / "replay", f"the log cannot be read: {exc}")
            return StepResult(status="refused", message=f"the log cannot be read: {exc}. Run "
                              "`python -m ingest verify`", verify_s=time.monotonic() - start)
        verified = time.monotonic()
        how = self.verifier.said
        if provenance is None:
            words = " ".join(said.getvalue().split()).removeprefix("replay: ")
            return StepResult(status="refused", message=words or "the log does not verify",
                              verify_s=verified - start, verified=how)
        entries = kept.entries.get(found[0], [] if self.verifier.resumed else None)
        base = self.verifier.base
        if entries is None or base + len(entries) != provenance["records"]:
            self.verifier.forget("verification kept not every record as entries")
            return StepResult(status="fallback", message="verification kept no records of "
                              f"{log} as entries", verify_s=verified - start, verified=how)
        if base not in (0, self._count):  # never so while both are stepped together
            self.verifier.forget(f"verification went on after record {base:,} but replay "
                                 f"took {self._count:,}")
            self._reset()
            return self.step()
        if base:  # the ordinals count in the whole log, as python -m replay counts them
            entries = [(base + e[0], *e[1:]) for e in entries]
        try:
            with collector_paused():
                rebuilt, new, judged, shard = self._take(entries, base, provenance["root"])
            made = time.monotonic()
            write_replay(self.data / "replay", shard, provenance_of(provenance), self.book)
        except BaseException:
            self._reset()  # never trust what a step that failed half-way left
            self.verifier.forget()
            raise
        return StepResult(status="done", message=f"{self._count:,} records, "
                          f"{shard.rounds:,} rounds", records=self._count,
                          new=new, verified=how,
                          rebuilt=rebuilt, rounds=shard.rounds, judged=judged,
                          verify_s=verified - start, replay_s=made - verified,
                          write_s=time.monotonic() - made)

    def _take(self, entries: list[Entry], base: int, root: str,
              ) -> tuple[bool, int, int, Shard]:
        """Replay the entries that follow those taken (``base``: the records before
        ``entries``; all of them when the log's first records are not those taken):
        whether everything was dropped, the entries decoded, the rounds judged, the rows.
        ``root``: the Merkle root of the log verified (hex), kept to recognise it."""
        taken = self._count
        rebuilt = False
        if base == taken:
            new = entries
        elif base == 0 and (root_then := self.verifier.root_at(taken)) is not None \
                and root_then.hex() == self._root:
            new = entries[taken:]  # verified whole: its first records are those taken
        else:
            rebuilt = taken > 0
            self._reset()
            new = entries
        self._count = base + len(entries)
        self._root = root
        touched: dict[RoundKey, None] = {}
        self._folding.add(self._events(new, touched))
        first: dict[TableKey, int] = {}
        for key in touched:
            self._rows[key] = _rows(self._folding, key, self.book, self._clocks)
            tk: TableKey = (key[0], key[1])
            table = self._tables.get(tk)
            if table is None:
                table = self._tables[tk] = _Table(round_ids=[], tables={})
            ids = table.round_ids
            at = bisect.bisect_left(ids, key[2])
            if at == len(ids) or ids[at] != key[2]:
                ids.insert(at, key[2])
            first[tk] = min(first.get(tk, at), at)
        for tk, at in first.items():
            self._rebuild(tk, at)
        return rebuilt, len(new), len(touched), self._shard()

    def _events(self, new: list[Entry], touched: dict[RoundKey, None]) -> Iterator[
            tuple[str, Any, int]]:
        """The events of ``new`` for the fold, noting their rounds; a record that does not
        decode is a finding."""
        for entry, got in decode_entries(new):
            if isinstance(got, DecodeError):
                self._undecodable.append((entry[0], undecodable_finding(entry[1], got)))
                continue
            clock(entry, got, self._undecodable, self._clocks)
            touched[(got.casino, got.table_id, got.round_id)] = None
            yield entry[1], got, schema_id_of(entry)

    def _rebuild(self, tk: TableKey, at: int) -> None:
        """The table's Arrow tables again from its round ``at`` on (those before are kept)."""
        table = self._tables[tk]
        casino, table_id = tk
        keys = [(casino, table_id, r) for r in table.round_ids]
        for name, schema in ROWS.schemas.items():
            head_rows = sum(len(self._rows[k][name]) for k in keys[:at])
            rows = [row for k in keys[at:] for row in self._rows[k][name]]
            tail = arrow_table(rows, schema)
            held = table.tables.get(name)
            table.tables[name] = tail if held is None or head_rows == 0 else \
                pa.concat_tables([held.slice(0, head_rows), tail]).combine_chunks()

    def _shard(self) -> Shard:
        order = sorted(self._tables)
        tables = {}
        for name, schema in ROWS.schemas.items():
            parts = [self._tables[tk].tables[name] for tk in order]
            tables[name] = (pa.concat_tables(parts).combine_chunks() if parts
                            else arrow_table([], schema))
        # write_replay reads the findings in the order given (ordinals only order them
        # for replay.parallel.merge): records that do not decode, then the fold's.
        return Shard(tables=tables, rounds=len(self._rows),
                     undecodable=tuple(self._undecodable),
                     fold_findings=tuple((0, f) for f in self._folding.findings))


def _rows(folding: Folding, key: RoundKey, book: Rulebook | None,
          clocks: dict[RoundKey, int]) -> Rows:
    """One round's rows as replay writes them, judged by ``book`` as the log stands now
    (its ruleset chosen by the broker's time when its RoundStarted was skewed: ``clocks``,
    replay/clock.py)."""
    state = judged_at(folding.state(key), clocks)
    return rows_of(state, judge_state(state, book), book)
