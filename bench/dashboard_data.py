"""The dashboard's benchmark data: 1,000,000 rounds and 50,000 flags with the real schemas.

Usage: .venv/bin/python bench/dashboard_data.py [--rounds 1000000] [--flags 50000]
       [--seed 1] [--fault-rate 0.05] [--out DIR]

Writes a data directory as the pipeline leaves it for the dashboard (``$CATWALK_DATA``):

- ``OUT/replay/``: replay's seven Parquet files and ``manifest.json``, drawn by
  bench/synthetic_replay.py (replay's schemas and writer options; the manifest says the data
  were not verified: there is no log, so the dashboard shows its "did not verify" banner);
- ``OUT/checks/flags.parquet``: the flags of the real check catalogue run over those files
  (``checks.runner.run_checks``: its schema, column order and metadata), then thinned to
  exactly ``--flags`` rows by a seeded draw, so that they stay spread over the rounds, the
  checks and the days. ``--fault-rate`` sets how many faults the rounds carry, hence how many
  flags the catalogue raises; it must raise at least ``--flags`` (it says so when not).

- ``OUT/replay/timeline.parquet`` (when replay writes one: ``timeline`` in
  ``replay.run.TABLES``), drawn from the rounds, hands and wagers written above by DuckDB, a
  few tables at a time: for each round, in the table's order, round started, the progressive
  meter read, each wager placed, each hand dealt and set, each decision, the hands exposed,
  each wager settled as recorded, the void and the end, with replay's event words, summaries
  in its words (money from integer cents) and one ``table_seq`` a table, recorded by the
  round's dealer; no corrections. The manifest then carries its SHA-256.

``OUT/dashboard.json`` records the parameters and what was written; a later run with the
same ones reuses the data (bench/dashboard_speed.py calls :func:`ensure`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic_replay  # noqa: E402

from checks import runner  # noqa: E402
from replay.run import MANIFEST, TABLES  # noqa: E402

FORMAT = 6
"""Bump when what is written here changes, so that older cached data are not reused."""
FLAGS = "checks/flags.parquet"
STAMP = "dashboard.json"
TIMELINE_NOTE = ("no timeline.parquet: replay.run.TABLES has no timeline table yet"
                 if "timeline" not in TABLES else "")
TABLES_AT_A_TIME = 10

_MONEY = """
CREATE OR REPLACE TEMP MACRO money(c) AS
    CASE WHEN c < 0 THEN '-' ELSE '' END || '$' || format('{:,}', abs(c) // 100) || '.'
    || lpad(CAST(abs(c) % 100 AS VARCHAR), 2, '0');
CREATE OR REPLACE TEMP MACRO signed_money(c) AS
    CASE WHEN c > 0 THEN '+' ELSE '' END || money(c);
CREATE OR REPLACE TEMP MACRO who(seat) AS coalesce('seat ' || seat, 'dealer');
CREATE OR REPLACE TEMP MACRO whose(seat) AS coalesce('seat ' || seat || '''s', 'dealer''s');
CREATE OR REPLACE TEMP MACRO wager_words(w) AS CASE w WHEN 'ace_high' THEN 'Ace High'
    WHEN 'fortune' THEN 'Fortune' WHEN 'progressive' THEN 'Progressive' ELSE w END;
"""
"""replay/timeline.py's words (format_cents, WAGER_WORDS, _who, _whose) as DuckDB macros."""

_TIMELINE = """
WITH r AS (
    SELECT casino, table_id, round_id, game, ruleset, dealt_at, dealer_id, banker, voided,
           void_reason, progressive_meter_cents AS meter,
           CAST(split_part(round_id, '-', 2) AS BIGINT) AS seq
    FROM read_parquet($rounds)
    WHERE casino = $casino AND table_id BETWEEN $first AND $last
), w AS (
    SELECT casino, table_id, round_id, seat, wager, amount_cents, recorded_outcome,
           recorded_net_cents, recorded_commission_cents,
           row_number() OVER (PARTITION BY casino, table_id, round_id
                              ORDER BY seat NULLS FIRST, wager) AS k
    FROM read_parquet($wagers)
    WHERE casino = $casino AND table_id BETWEEN $first AND $last
), h AS (
    SELECT casino, table_id, round_id, seat, cards, high, low, action,
           row_number() OVER (PARTITION BY casino, table_id, round_id
                              ORDER BY seat NULLS FIRST) AS k
    FROM read_parquet($hands)
    WHERE casino = $casino AND table_id BETWEEN $first AND $last
), e AS (
    SELECT casino, table_id, round_id, 0 AS phase, 0 AS k, -20 AS at_s,
           'round started' AS event,
           'round started: ' || CASE game WHEN 'pai_gow_poker' THEN 'pai gow poker'
               WHEN 'face_up_pai_gow' THEN 'Face Up pai gow poker'
               WHEN 'pai_gow_tiles' THEN 'pai gow tiles'
               WHEN 'caribbean_stud' THEN 'Caribbean stud' ELSE game END
           || ', dealer ' || dealer_id || ', '
           || CASE WHEN banker = 'dealer' THEN 'the dealer banks'
                   WHEN banker LIKE '% co-bank' THEN replace(banker, ' co-bank', '')
                        || ' banks with the house (co-bank)'
                   ELSE banker || ' banks' END
           || ', ruleset ' || ruleset AS summary
    FROM r
    UNION ALL
    SELECT casino, table_id, round_id, 1, 0, -19, 'progressive meter read',
           'progressive meter read ' || money(meter)
    FROM r WHERE meter IS NOT NULL
    UNION ALL
    SELECT casino, table_id, round_id, 2, k, -18 + k, 'wager placed',
           who(seat) || ' placed ' || wager_words(wager) || ' ' || money(amount_cents)
    FROM w
    UNION ALL
    SELECT h.casino, h.table_id, h.round_id, 3, k, 10 + k,
           CASE WHEN r.game = 'pai_gow_tiles' THEN 'tiles dealt' ELSE 'cards dealt' END,
           who(seat) || ' dealt '
           || CASE WHEN r.game = 'pai_gow_tiles' THEN 'tiles ' ELSE '' END || cards
    FROM h JOIN r USING (casino, table_id, round_id)
    UNION ALL
    SELECT casino, table_id, round_id, 4, k, 25 + k, 'hand set',
           whose(seat) || ' hand set: high ' || high || ', low ' || low
    FROM h WHERE high IS NOT NULL
    UNION ALL
    SELECT casino, table_id, round_id, 5, k, 35 + k, 'player acted',
           'seat ' || seat || ' ' || CASE action WHEN 'fold' THEN 'folded'
               WHEN 'raise' THEN 'raised' WHEN 'concede' THEN 'conceded'
               WHEN 'withdraw' THEN 'withdrew' ELSE action END
    FROM h WHERE action IS NOT NULL AND seat IS NOT NULL
    UNION ALL
    SELECT casino, table_id, round_id, 6, 0, 45, 'hands exposed', 'dealer''s hands exposed'
    FROM r
    UNION ALL
    SELECT casino, table_id, round_id, 7, k, 50 + k, 'wager settled',
           who(seat) || ' ' || wager_words(wager) || ' settled: ' || recorded_outcome || ' '
           || signed_money(recorded_net_cents)
           || CASE WHEN recorded_commission_cents > 0
                   THEN ', commission ' || money(recorded_commission_cents) ELSE '' END
    FROM w WHERE recorded_outcome IS NOT NULL
    UNION ALL
    SELECT casino, table_id, round_id, 8, 0, 80, 'round voided',
           CASE WHEN trim(coalesce(void_reason, '')) = '' THEN 'round voided without a reason'
                ELSE 'round voided: ' || trim(void_reason) END
    FROM r WHERE voided
    UNION ALL
    SELECT casino, table_id, round_id, 9, 0, 85, 'round ended', 'round ended'
    FROM r
), numbered AS (
    SELECT e.*, r.game, r.dealt_at, r.dealer_id,
           row_number() OVER (PARTITION BY e.casino, e.table_id
                              ORDER BY r.seq, e.phase, e.k) AS table_seq
    FROM e JOIN r USING (casino, table_id, round_id)
)
SELECT round_id, casino, table_id, game, table_seq,
       dealt_at + to_seconds(at_s) AS occurred_at, dealer_id AS recorded_by, event, summary,
       concat_ws('-', substr(h, 1, 8), substr(h, 9, 4), '4' || substr(h, 14, 3),
                 '8' || substr(h, 18, 3), substr(h, 21, 12)) AS event_id,
       CAST(NULL AS VARCHAR) AS corrects, false AS superseded,
       -- the typed facts (replay/timeline.py) are not made here: the pages show the words
       CAST(NULL AS VARCHAR) AS replacement, CAST(NULL AS INTEGER) AS seat,
       CAST(NULL AS VARCHAR) AS position, CAST(NULL AS VARCHAR) AS wager,
       CAST(NULL AS VARCHAR) AS outcome, CAST(NULL AS VARCHAR) AS action,
       CAST(NULL AS INTEGER) AS for_seat, CAST(NULL AS BIGINT) AS net_cents,
       table_seq AS stands_at
FROM (SELECT *, md5(casino || '/' || table_id || '/' || table_seq) AS h FROM numbered)
ORDER BY casino, table_id, round_id, table_seq
"""
"""One group of tables' timeline rows, in replay's order (see the module docstring)."""


@dataclass(frozen=True)
class Params:
    rounds: int = 1_000_000
    flags: int = 50_000
    seed: int = 1
    fault_rate: float = 0.05
    chunk: int = 250_000
    format: int = FORMAT

    def replay(self) -> synthetic_replay.Params:
        return synthetic_replay.Params(rounds=self.rounds, seed=self.seed,
                                       fault_rate=self.fault_rate, chunk=self.chunk)


@dataclass(frozen=True, slots=True, kw_only=True)
class DataSet:
    root: Path
    """The data directory: ``root/replay``, ``root/checks/flags.parquet``."""
    rows: dict[str, int]
    """Rows per file (the seven replay files, and ``flags``)."""
    flags_raised: int
    """How many flags the catalogue raised before they were thinned to ``rows["flags"]``."""
    flagged_round: tuple[str, str, str]
    """(round, casino, table) of a round with a money flag (the benchmark opens it on the
    Round page: a round id is unique only at its casino's table)."""
    reused: bool


def thin(flags: pa.Table, keep: int, seed: int) -> pa.Table:
    """``keep`` rows of ``flags`` drawn without replacement by a seeded generator, in their
    original order, the schema and its metadata unchanged."""
    if flags.num_rows < keep:
        raise SystemExit(f"the checks raised {flags.num_rows:,} flags, fewer than the "
                         f"{keep:,} asked for: raise --fault-rate")
    rng = np.random.default_rng([seed, 50_000])
    chosen = np.sort(rng.choice(flags.num_rows, size=keep, replace=False))
    return flags.take(pa.array(chosen))


def flagged_round(flags_path: Path) -> tuple[str, str, str]:
    """(round, casino, table) of a counted overpay flag with a seat (a money flag: its
    wagers show recorded against expected), the middle one in the file's order."""
    table = pq.read_table(flags_path, columns=["casino", "table_id", "round_id", "counted",
                                               "direction", "seat"])
    rows = table.to_pylist()
    money = [r for r in rows if r["counted"] and r["direction"] == "over" and r["seat"]]
    if not money:
        raise SystemExit(f"{flags_path}: no counted overpay flag with a seat to open")
    chosen = money[len(money) // 2]
    return str(chosen["round_id"]), str(chosen["casino"]), str(chosen["table_id"])


def write_timeline(replay_dir: Path, progress: bool = True) -> int:
    """Write ``replay_dir/timeline.parquet`` from its rounds, hands and wagers (replay's
    schema and writer options, row groups of at most ``ROW_GROUP`` rows) and put its SHA-256
    in the manifest; returns the rows written."""
    files = {name: str(replay_dir / f"{name}.parquet") for name in ("rounds", "hands", "wagers")}
    schema = TABLES["timeline"]
    group_rows = synthetic_replay.ROW_GROUP
    path = replay_dir / "timeline.parquet"
    building = replay_dir / ".timeline.parquet.building"
    written = 0
    start = time.perf_counter()
    con = duckdb.connect()
    try:
        con.execute("SET TimeZone='UTC'")
        con.execute(_MONEY)
        groups = con.execute(
            "SELECT casino, list(DISTINCT table_id ORDER BY table_id) FROM read_parquet(?) "
            "GROUP BY casino ORDER BY casino", [files["rounds"]]).fetchall()
        pending: list[pa.Table] = []
        with pq.ParquetWriter(building, schema, **synthetic_replay.WRITE_OPTIONS) as writer:
            for casino, tables in groups:
                for i in range(0, len(tables), TABLES_AT_A_TIME):
                    group = tables[i:i + TABLES_AT_A_TIME]
                    rows = con.sql(_TIMELINE, params={
                        **files, "casino": casino, "first": group[0], "last": group[-1],
                    }).to_arrow_table().cast(schema)
                    written += rows.num_rows
                    pending.append(rows)
                    # full row groups as they fill, as one write of the whole table would
                    whole = pa.concat_tables(pending)
                    cut = whole.num_rows // group_rows * group_rows
                    for lo in range(0, cut, group_rows):
                        writer.write_table(whole.slice(lo, group_rows))
                    pending = [whole.slice(cut)]
                    if progress:
                        print(f"timeline: {casino} {group[-1]}: {written:,} rows "
                              f"({time.perf_counter() - start:.0f} s)", file=sys.stderr,
                              flush=True)
            rest = pa.concat_tables(pending) if pending else None
            if rest is not None and rest.num_rows:
                writer.write_table(rest)
        building.replace(path)
    finally:
        con.close()
        building.unlink(missing_ok=True)
    manifest_path = replay_dir / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest["files"]["timeline.parquet"] = synthetic_replay.sha256(path)
    manifest.setdefault("sizes", {})["timeline.parquet"] = path.stat().st_size
    from replay.outputs import output_signer, write_signed

    write_signed(replay_dir, manifest, output_signer(replay_dir.parent, who="bench"))
    return written


def write_flags(p: Params, root: Path) -> tuple[int, int]:
    """Run the real catalogue over ``root/replay`` and write ``p.flags`` of its flags to
    ``root/checks/flags.parquet`` (atomically, as the runner writes). Returns (raised, kept)."""
    with tempfile.TemporaryDirectory(prefix="catwalk-dashboard-checks-") as scratch:
        run = runner.run_checks(root / "replay", Path(scratch))
        raised = pq.read_table(run.path)
    kept = thin(raised, p.flags, p.seed)
    runner.write_atomically(kept, root / FLAGS)
    return raised.num_rows, kept.num_rows


def ensure(p: Params, out: Path, progress: bool = True) -> DataSet:
    """``out`` holding the data of parameters ``p``: reused when ``out/dashboard.json``
    says so and the files are there, else written (replay's files first, reused by
    bench/synthetic_replay.py when they match)."""
    replay_dir, counts, replay_reused = synthetic_replay.ensure(p.replay(), out, progress)
    stamp = out / STAMP
    try:
        known = json.loads(stamp.read_text())
    except (OSError, ValueError):
        known = None
    if (replay_reused and isinstance(known, dict) and known.get("params") == asdict(p)
            and (out / FLAGS).is_file()):
        return DataSet(root=out, rows=known["rows"], flags_raised=known["flags_raised"],
                       flagged_round=tuple(known["flagged_round"]), reused=True)
    stamp.unlink(missing_ok=True)
    start = time.perf_counter()
    if "timeline" in TABLES:
        written = pq.read_metadata(replay_dir / "timeline.parquet").num_rows
        if written == 0:  # bench/synthetic_replay.py leaves it empty
            written = write_timeline(replay_dir, progress)
        counts = {**counts, "timeline": written}
    raised, kept = write_flags(p, out)
    rows = {**counts, "flags": kept}
    round_id = flagged_round(out / FLAGS)
    stamp.write_text(json.dumps({"params": asdict(p), "rows": rows, "flags_raised": raised,
                                 "flagged_round": round_id,
                                 "seconds_to_write_flags": round(time.perf_counter() - start, 1)},
                                indent=2) + "\n")
    return DataSet(root=out, rows=rows, flags_raised=raised, flagged_round=round_id,
                   reused=False)


def default_out(p: Params) -> Path:
    return (Path(tempfile.gettempdir())
            / f"catwalk-dashboard-{p.rounds}-{p.flags}-seed{p.seed}-f{p.fault_rate:g}")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--rounds", type=int, default=Params.rounds)
    ap.add_argument("--flags", type=int, default=Params.flags)
    ap.add_argument("--seed", type=int, default=Params.seed)
    ap.add_argument("--fault-rate", type=float, default=Params.fault_rate,
                    help="share of rounds with a fault; the checks must raise at least "
                    "--flags flags over them")
    ap.add_argument("--out", type=Path, default=None,
                    help="data directory (default: a directory under the system's temporary "
                    "directory named by the parameters); reused when its parameters match")


def params_of(args: argparse.Namespace) -> Params:
    return Params(rounds=args.rounds, flags=args.flags, seed=args.seed,
                  fault_rate=args.fault_rate)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(ap)
    args = ap.parse_args(argv)
    p = params_of(args)
    out = args.out or default_out(p)
    start = time.perf_counter()
    data = ensure(p, out)
    print(f"{'reused' if data.reused else 'wrote'} {data.root} in "
          f"{time.perf_counter() - start:.1f} s; rows "
          + ", ".join(f"{k} {v:,}" for k, v in data.rows.items())
          + f" (of {data.flags_raised:,} flags raised); a flagged round: "
          + "{} ({}, {})".format(*data.flagged_round)
          + (f"; {TIMELINE_NOTE}" if TIMELINE_NOTE else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
