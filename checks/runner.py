"""Run every check in checks/sql/ with DuckDB over replay's Parquet and collect the flags.

A check is one SQL file returning the offending rows, zero rows = pass. Its
header comments carry id, title, severity, the rule it enforces (with its citation) and what
the analyst should do next. A check returns casino, table_id, round_id and seat, and when it
has them wager, recorded_cents, expected_cents and detail; the runner adds the round's time,
dealer, game and ruleset (joined from ``rounds``) and the money at stake and its direction
(:data:`FLAG_SCHEMA`), so that the SQL files stay simple. The inputs are exposed
as views named after the files replay writes (``rounds``, ``hands``, ``wagers``, ``envy``,
``bankers``, ``jackpots``, ``findings``); file paths are bound, never formatted
into SQL. Rows are named by casino, table and round: a round id is only unique at its
casino's table.

The checks do not trust silently: replay's signed ``manifest.json`` says whether the log it
read was verified, and the SHA-256 and size of each file it wrote; the one reader of it,
``replay.outputs.trust``, checks the signature and every file while the checks run. Outputs
that cannot be trusted (a file or the manifest altered, an unsigned or missing manifest, a
signature by a key other than the trusted one) are refused: :class:`Untrusted`, nothing is
written. Outputs that can be read but are not all verified (the log replayed
``--unverified``, a key not pinned, a later refusal of the log) are marked: the state is
returned with the counts, written into the metadata of ``flags.parquet``
(:data:`PROVENANCE_KEY`, :data:`TRUST_KEY`) and, by ``python -m checks``, printed loudly.
The replay directory is resolved once (replay switches it atomically by a symbolic link), so
that every view reads the same set of files. The flags are then listed with their SHA-256
in the checks' own signed manifest, ``checks/manifest.json`` and ``manifest.sig``, signed
with the outputs' key (replay/outputs.py), which the dashboard checks before showing them.

The flags of a run replace ``flags.parquet`` atomically (a temporary file beside it, fsynced,
renamed over it), or not at all: a check that fails to run, or a write that fails, leaves the
previous file byte for byte as it was.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from replay.outputs import (
    REPLAY_FORMAT,
    OutputsError,
    Trust,
    checks_manifest,
    listing,
    output_signer,
    trust,
    write_signed,
)

INPUTS = ("rounds", "hands", "wagers", "envy", "bankers", "jackpots", "findings")
OPTIONAL_INPUTS = ("timeline",)
"""Replay's files a check may read that an older replay (or a hand-built test) may not have
written: a missing one is an empty view, so the checks of the order of play judge nothing
there (a file a signed manifest lists and that is missing is refused before, as untrusted)."""
TIMELINE_FACTS = (("replacement", "VARCHAR"), ("seat", "INTEGER"), ("position", "VARCHAR"),
                  ("wager", "VARCHAR"), ("outcome", "VARCHAR"), ("action", "VARCHAR"),
                  ("for_seat", "INTEGER"), ("net_cents", "BIGINT"), ("stands_at", "BIGINT"),
                  ("bank_to", "VARCHAR"), ("bank_reason", "VARCHAR"), ("shuffle", "VARCHAR"),
                  ("deck_id", "VARCHAR"), ("patron_id", "VARCHAR"))
"""The typed columns of ``timeline.parquet`` (replay/timeline.py ``facts``); an older file
without them reads them as null (nothing to judge the order of play by). The last five are
schema id 3's (a bank passed, a shuffle, a patron's id): null in an older file, whose rounds
the checks of those facts do not judge (``rounds.vocabulary``, :data:`LATER_COLUMNS`)."""
LATER_COLUMNS = {
    "rounds": (("vocabulary", "INTEGER"), ("banker_cover_cents", "BIGINT")),
    "wagers": (("patron_id", "VARCHAR"),),
}
"""Columns of replay's files that an older replay did not write, read as null when absent:
``rounds.vocabulary`` (the smallest schema id among the round's events; null: unknown, so a
check of a fact only schema id 3 carries does not judge the round, and
checks/reports/vocabulary_unjudged.sql says why), ``rounds.banker_cover_cents`` (the player
banker's cover; null: not recorded, not evaluated) and ``wagers.patron_id`` (the patron's
tracking id; null: not recorded, the seat stands for the patron)."""
HEADER = re.compile(r"^--\s*(id|title|severity|rule|next|kind|params|catches):\s*(.+?)\s*$")
HEADER_KEYS = ("id", "title", "severity", "rule", "next")
"""The header lines every check has. Optional: ``-- kind: rule`` (the default) or
``-- kind: statistical`` (surveillance reported apart from the rule checks: an outlier is a
lead, not a breach), ``-- params: name=value, ...``, the check's parameters (integers or
decimals), bound to the query as ``$name``, never formatted into it, and ``-- catches:
kind, ...``, the simulator's fault kinds (``ingest.sim_faults.FAULT_KINDS``) the check must
flag, or ``-- catches: none`` (every shipped check says it, :func:`load_checks`;
``checks.evaluate.FAULT_CHECKS`` is derived from it)."""
NO_CATCHES = "none"
CATCH = re.compile(r"^[a-z_][a-z0-9_]*$")
KINDS = ("rule", "statistical")
SEVERITIES = ("critical", "high", "medium", "low", "info")
PARAM = re.compile(r"^([a-z_][a-z0-9_]*)=(-?\d+(?:\.\d+)?)$")

INT64_MAX = 2**63 - 1
_TS = pa.timestamp("us", tz="UTC")
FLAG_SCHEMA = pa.schema([
    ("check_id", pa.string()),
    ("title", pa.string()),
    ("severity", pa.string()),
    ("kind", pa.string()),
    ("occurred_at", _TS),
    ("casino", pa.string()),
    ("table_id", pa.string()),
    ("dealer_id", pa.string()),
    ("game", pa.string()),
    ("ruleset", pa.string()),
    ("round_id", pa.string()),
    ("seat", pa.int32()),
    ("wager", pa.string()),
    ("recorded_cents", pa.int64()),
    ("expected_cents", pa.int64()),
    ("amount_at_stake_cents", pa.int64()),
    ("direction", pa.string()),
    ("difference_cents", pa.int64()),
    ("counted", pa.bool_()),
    ("detail", pa.string()),
])
"""One row per flag. ``occurred_at``, ``dealer_id``, ``game`` and ``ruleset`` come from the
round (``rounds``, joined on casino, table and round); the rest from the check. A money flag
is one whose check returned both ``recorded_cents`` and ``expected_cents``:
``amount_at_stake_cents`` is then ``|recorded - expected|`` (never negative; clamped to the
largest 64-bit integer, with the detail giving the exact amount, when it does not fit) and
``direction`` is ``over`` (recorded above expected: overpaid) or ``under`` (null when they
are equal); ``difference_cents`` is ``recorded - expected`` (null when it does not fit 64
bits). For any other flag the three are null.

``counted`` says which money flags make up a total: several rule checks may flag the same
wrong amount (an overpaid wager, and the foul or the commission that caused it), so of the
rule flags with money on one (casino, table, round, seat, wager) in one direction, only the
largest is counted (the first in check order on a tie). Summing ``amount_at_stake_cents``
over the counted flags gives each mispaid amount once; statistical leads are never
counted."""

REQUIRED_COLUMNS = ("casino", "table_id", "round_id", "seat")
OPTIONAL_COLUMNS = ("wager", "recorded_cents", "expected_cents", "detail", "dealer_id", "game")
ROW_COLUMNS = REQUIRED_COLUMNS + OPTIONAL_COLUMNS
"""What a check's query returns: the first four always, the others when it has them
(``dealer_id`` and ``game`` for a flag about a dealer or a table rather than one round;
a round's flag takes them from the round)."""

_FLAGS = f"""
WITH keyed AS (
    SELECT casino, table_id, round_id, any_value(dealt_at) AS dealt_at,
           any_value(dealer_id) AS dealer_id, any_value(game) AS game,
           any_value(ruleset) AS ruleset
    FROM rounds AS r
    SEMI JOIN check_rows AS c USING (casino, table_id, round_id)
    GROUP BY casino, table_id, round_id
), diffed AS (
    SELECT c.* EXCLUDE (dealer_id, game), r.dealt_at,
           coalesce(c.dealer_id, r.dealer_id) AS dealer_id, coalesce(c.game, r.game) AS game,
           r.ruleset, CAST(c.recorded_cents AS HUGEINT) - c.expected_cents AS diff
    FROM check_rows AS c
    LEFT JOIN keyed AS r USING (casino, table_id, round_id)
)
SELECT
    check_id, title, severity, kind, dealt_at AS occurred_at,
    casino, table_id, dealer_id, game, ruleset, round_id, seat, wager,
    recorded_cents, expected_cents,
    -- least() skips a null, so a flag without money must be kept null explicitly
    CASE WHEN diff IS NOT NULL THEN CAST(least(abs(diff), {INT64_MAX}) AS BIGINT) END
        AS amount_at_stake_cents,
    CASE WHEN diff > 0 THEN 'over' WHEN diff < 0 THEN 'under' END AS direction,
    CASE WHEN abs(diff) <= {INT64_MAX} THEN CAST(diff AS BIGINT) END AS difference_cents,
    coalesce(kind = 'rule' AND diff <> 0 AND row_number() OVER (
        PARTITION BY casino, table_id, round_id, seat, wager, sign(diff)
        ORDER BY abs(diff) DESC, ordinal) = 1, false) AS counted,
    CASE WHEN abs(diff) > {INT64_MAX}
         THEN concat_ws('; ', detail, 'amount at stake ' || CAST(abs(diff) AS VARCHAR)
                        || ' cents does not fit a 64-bit integer: amount_at_stake_cents '
                        || 'holds {INT64_MAX}, the largest that does')
         ELSE detail END AS detail
FROM diffed
ORDER BY ordinal
"""
"""Every check's rows (``check_rows``, in check order then each query's own order) with the
round's time, dealer, game and ruleset, and the money at stake computed in HUGEINT so that
no amount can overflow."""

MANIFEST = "manifest.json"
MANIFEST_FORMAT = REPLAY_FORMAT
PROVENANCE_KEY = b"catwalk.provenance"
"""flags.parquet metadata: JSON {"log_trust", "verified", "verification", "manifest"}."""
TRUST_KEY = b"catwalk.log_trust"
"""flags.parquet metadata: ``verified``, ``unverified`` or ``unknown``."""
RUN_KEY = b"catwalk.checks_run"
"""flags.parquet metadata: JSON {"checks": [ids run], "since": ISO time or null}."""


class CheckError(Exception):
    """The checks could not run; the message says why and what to do."""


class InputError(CheckError):
    """Bad arguments or missing inputs (``python -m checks`` exits 2)."""


class CheckFailed(CheckError):
    """A check failed to run, or the flags could not be written; the message names the
    check file (``python -m checks`` exits 1). The previous flags file is left as it was."""


class Untrusted(CheckFailed):
    """Replay's outputs cannot be trusted (``replay.outputs.trust``); the message says why.
    Nothing is written."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    id: str
    title: str
    severity: str
    rule: str
    next: str
    """What the analyst should do next with one of its flags."""
    sql: str
    source: str
    kind: str = "rule"
    """``rule`` (a breach of a rule) or ``statistical`` (an outlier worth a look)."""
    params: tuple[tuple[str, int | float], ...] = ()
    """The check's parameters and their defaults, bound as ``$name``."""
    catches: tuple[str, ...] | None = None
    """The simulator's fault kinds the check must flag (``-- catches:``; ``()`` for ``none``,
    None when the header has no such line)."""


def parse_param(text: str) -> tuple[str, int | float]:
    """``name=number`` (an integer, or a decimal with a point) as in a check's ``params``
    header and ``python -m checks --param``; ValueError otherwise."""
    m = PARAM.match(text.strip())
    if m is None:
        raise ValueError(f"{text!r} is not name=number")
    number = m.group(2)
    return m.group(1), float(number) if "." in number else int(number)


def fault_kinds() -> frozenset[str]:
    """The fault kinds the simulator injects (``ingest.sim_faults.FAULT_KINDS``), which a
    check's ``-- catches:`` line may name."""
    from ingest.sim_faults import FAULT_KINDS  # the simulator's, read only for the names

    return frozenset(FAULT_KINDS)


def parse_catches(value: str, source: str, line: int,
                  known: frozenset[str] | None = None) -> tuple[str, ...]:
    """A ``-- catches:`` header's fault kinds (``none``: no kind), each one of ``known``
    (default :func:`fault_kinds`); a :class:`CheckError` naming the file and line
    otherwise."""
    where = f"{source} line {line}"
    names = [x.strip() for x in value.split(",")]
    if names == [NO_CATCHES]:
        return ()
    if any(not n for n in names) or NO_CATCHES in names:
        raise CheckError(f"{where}: catches {value!r} is not a list of fault kinds "
                         f"separated by commas, or '{NO_CATCHES}'")
    kinds = fault_kinds() if known is None else known
    unknown = [n for n in names if not CATCH.match(n) or n not in kinds]
    if unknown:
        raise CheckError(f"{where}: catches names unknown fault kind "
                         f"{', '.join(map(repr, unknown))}; the simulator's are "
                         f"{', '.join(sorted(kinds))} (ingest/sim_faults.py FAULT_KINDS)")
    if len(set(names)) < len(names):
        raise CheckError(f"{where}: catches names a fault kind twice: {value!r}")
    return tuple(names)


def parse_check(text: str, source: str) -> Check:
    """Read a check file: header lines ``-- id: ...`` etc., then the query."""
    header: dict[str, str] = {}
    catches: tuple[str, ...] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        m = HEADER.match(line)
        if m and m.group(1) == "catches":
            if catches is not None:
                raise CheckError(f"{source} line {number}: a second catches line")
            catches = parse_catches(m.group(2), source, number)
        elif m:
            header.setdefault(m.group(1), m.group(2))
    missing = [k for k in HEADER_KEYS if k not in header]
    if missing:
        raise CheckError(f"{source}: header lacks {', '.join(missing)} (lines like '-- id: x')")
    kind = header.get("kind", "rule")
    if kind not in KINDS:
        raise CheckError(f"{source}: kind {kind!r} is not one of {', '.join(KINDS)}")
    if header["severity"] not in SEVERITIES:
        raise CheckError(f"{source}: severity {header['severity']!r} is not one of "
                         f"{', '.join(SEVERITIES)}")
    params: list[tuple[str, int | float]] = []
    for part in filter(None, (x.strip() for x in header.get("params", "").split(","))):
        try:
            params.append(parse_param(part))
        except ValueError:
            raise CheckError(f"{source}: parameter {part!r} is not name=number") from None
    return Check(id=header["id"], title=header["title"], severity=header["severity"],
                 rule=header["rule"], next=header["next"], sql=text, source=source,
                 kind=kind, params=tuple(params), catches=catches)


def load_checks() -> list[Check]:
    """Every shipped check, in file-name order (the files of ``checks/sql/``; the shared
    relations of ``checks/sql/_views/`` are not checks). A shipped check must say what it
    catches (``-- catches:``, ``none`` for no fault kind)."""
    folder = resources.files("checks").joinpath("sql")
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql") and f.is_file()),
                   key=lambda f: f.name)
    checks = [parse_check(f.read_text(encoding="utf-8"), f"checks/sql/{f.name}") for f in files]
    for check in checks:
        if check.catches is None:
            raise CheckError(f"{check.source}: header lacks catches (a line like '-- catches: "
                             f"overpay' naming the fault kinds it must flag, or '-- catches: "
                             f"{NO_CATCHES}')")
    return checks


def select_checks(checks: list[Check], ids: list[str] | None) -> list[Check]:
    """The checks named by ``ids`` (all when None), in catalogue order; an unknown id is an
    :class:`InputError` naming the known ones."""
    if not ids:
        return checks
    known = {c.id for c in checks}
    unknown = [i for i in dict.fromkeys(ids) if i not in known]
    if unknown:
        raise InputError(f"unknown check id {', '.join(unknown)}; the checks are: "
                         f"{', '.join(c.id for c in checks)} (`python -m checks --list`)")
    return [c for c in checks if c.id in ids]


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance:
    """What can be said of the outputs the checks read (``replay.outputs.trust``).
    ``trust`` is its state (``verified``, ``key-not-pinned``, ``unverified-log``,
    ``refused``; the others are refused before any flag is written); ``verification`` says
    why in words."""

    trust: str
    verification: str
    manifest: dict[str, Any] | None = None

    @property
    def verified(self) -> bool:
        return self.trust == "verified"

    def warning(self) -> str | None:
        """A loud sentence for a person, or None when everything verified."""
        if self.trust == "verified":
            return None
        return (f"WARNING: these data are not verified ({self.trust}: {self.verification}). "
                "The flags are only as good as the log: verify it (`python -m ingest verify`, "
                "with the key you pinned) and replay again before relying on them.")

    def metadata(self) -> dict[bytes, bytes]:
        record = {"log_trust": self.trust, "verified": self.verified,
                  "verification": self.verification, "manifest": self.manifest}
        return {PROVENANCE_KEY: json.dumps(record, sort_keys=True, separators=(",", ":"),
                                           ensure_ascii=False).encode("utf-8"),
                TRUST_KEY: self.trust.encode("ascii")}


def outputs_trust(data_dir: Path) -> Trust:
    """``replay.outputs.trust`` of ``data_dir`` (one name, so a benchmark can measure the
    checks without it)."""
    return trust(data_dir)


def read_provenance(replay_dir: Path) -> Provenance:
    """What can be said of ``replay_dir`` (``DATA/replay``) and its files, by
    ``replay.outputs.trust``."""
    return provenance_of(outputs_trust(Path(os.path.abspath(replay_dir)).parent))


def provenance_of(found: Trust) -> Provenance:
    words = "; ".join(found.reasons) if found.reasons else found.words
    return Provenance(trust=found.state, verification=words,
                      manifest=dict(found.manifest) if found.manifest is not None else None)


MEMORY_ENV = "CATWALK_CHECKS_MEMORY"
"""DuckDB's memory limit for the checks (e.g. ``8GB``); default half the machine's memory."""

VIEWS = "_views"
"""The folder beside the checks (``checks/sql/_views/``) of the relations they share."""
VIEW_FILE = re.compile(r"^\d+_([a-z_][a-z0-9_]*)\.sql$")
IN_PLAY_FILE = "in_play.sql"
"""In ``_views/`` too, but built before the views, with ``live`` only (:data:`IN_PLAY`)."""


def load_views(folder: Traversable | None = None) -> tuple[tuple[str, str], ...]:
    """The shared relations of ``checks/sql/_views/`` (or ``folder``), in file-name order: a
    file ``NN_name.sql`` (``NN`` its place in the order, so that a relation may read those
    before it) holds the query of the relation ``name``; :data:`IN_PLAY_FILE` is read apart.
    Any other file there is a :class:`CheckError` naming it; none of them is a check."""
    if folder is None:
        folder = resources.files("checks").joinpath("sql").joinpath(VIEWS)
    views = []
    names: set[str] = set()
    for f in sorted((f for f in folder.iterdir() if f.is_file() and f.name != IN_PLAY_FILE),
                    key=lambda f: f.name):
        m = VIEW_FILE.match(f.name)
        if m is None or m.group(1) in names or m.group(1) in INPUTS:
            raise CheckError(f"checks/sql/{VIEWS}/{f.name}: not a shared relation (a file "
                             "named NN_name.sql, one per name, none named after an input)")
        names.add(m.group(1))
        views.append((m.group(1), f.read_text(encoding="utf-8")))
    return tuple(views)


PREPARED = load_views()
"""Relations the runner builds once, before the checks run, from the views (so ``since``
holds for them too), for the checks to read instead of scanning millions of rows each:
``(name, query)`` of every file of ``checks/sql/_views/`` (:func:`load_views`), where each
says what it holds: ``wager_exceptions``, every wager whose recorded settlement falls
outside the lawful one in any way; ``round_problems``, every round not evaluated or with a
problem; ``unjudged``, the keys of the rounds not evaluated (a check keeps to judged rounds
with ``ANTI JOIN unjudged USING (casino, table_id, round_id)``); ``envy_paid``, the Envy
payments per seat; ``play_marks`` and ``marked_play``, the marks of the order of play per
round and the events of the rounds marked (the seven checks of the order of play read
these, not the timeline); ``jackpot_award_exceptions``, the jackpots whose recorded award
is outside the lawful one (jackpot_award_wrong and jackpot_share_wrong read it);
``preceding_dealer_hand``, each player-banked pai gow poker round's preceding
dealer-banked hand, and ``dealer_wager_against``, the dealer's wager against each player
banker with the banker as the log names them and that player's preceding wager
(dealer_wager_not_preceding and its report read them); ``seat_turns``,
each player's exposure and tiles payment in the rounds with a table layout, with its place
in the seat order (the three checks of the order around the table read it), and
``tiles_out_of_turn``, the pai gow tiles players shown or paid out of turn under every
lawful reading (the two checks of the tiles read it). A check reads
them as it reads the views; a wager settled lawfully, or a judged round without a problem,
is in none of them."""

PLAY = """
SELECT casino, table_id, round_id, game, stands_at AS table_seq, occurred_at, event_id,
       coalesce(replacement, event) AS event,
       seat, position, wager, outcome, action, for_seat, net_cents
FROM timeline
WHERE stands_at IS NOT NULL
"""
"""The view ``play``: every event of a round as it stands, for the checks of the order of
play (replay/timeline.py ``stands_at``). An event a correction replaced is its replacement
at the original's place (its ``table_seq``: a correction fixes the record of what was done
then, it is not a later act; ``occurred_at`` is the correction's own); an event struck,
and the corrections that strike, are left out. A view, not a table: it is scanned once per
run for ``play_marks`` and ``marked_play`` (checks/sql/_views/), which the checks of the
order of play read, and by any check that reads ``play`` itself."""


def memory_limit() -> str:
    """:data:`MEMORY_ENV`, else half the physical memory (DuckDB spills beyond it)."""
    configured = os.environ.get(MEMORY_ENV, "").strip()
    if configured:
        return configured
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return "2GB"
    return f"{max(total // 2 // (1 << 20), 512)}MB"


IN_PLAY = resources.files("checks").joinpath("sql").joinpath(VIEWS).joinpath(
    IN_PLAY_FILE).read_text(encoding="utf-8")
"""With ``live``: the rounds still in play (``checks/sql/_views/in_play.sql``, which says
why), each the latest round of its table with no RoundEnded and no void yet, left out of
every view until the round ends or a later round of its table shows that it never did."""


def connect(replay_dir: Path, since: datetime | None = None, *,
            temp_dir: Path | None = None, prepare: bool = True,
            live: bool = False) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with replay's Parquet files as views. With ``since``, ``rounds``
    holds only the rounds dealt at or after it, and every other view only the rows of those
    rounds (``findings`` without a round are left out). With ``live``, the rounds still in
    play (:data:`IN_PLAY`, kept in the temporary table ``in_play``) are left out of every
    view. Then the :data:`PREPARED`
    relations (unless ``prepare`` is false). DuckDB spills to ``temp_dir`` (default: the
    system's temporary directory), never to the current directory. File paths, the date and
    the settings are bound."""
    for name in INPUTS:
        path = replay_dir / f"{name}.parquet"
        if not path.is_file():
            raise InputError(f"{path} is missing: run `python -m replay` first")
    con = duckdb.connect()
    try:
        con.execute("SET memory_limit = ?", [memory_limit()])
    except duckdb.Error as exc:
        con.close()
        raise InputError(f"{MEMORY_ENV}={os.environ.get(MEMORY_ENV)!r} is not a memory "
                         f"size DuckDB understands (e.g. 8GB): {exc}") from exc
    con.execute("SET temp_directory = ?", [str(temp_dir or tempfile.gettempdir())])
    con.execute("SET TimeZone='UTC'")
    _views(con, replay_dir, since, live)
    con.execute(f"CREATE TEMP VIEW play AS {PLAY}")
    if prepare:
        for name, sql in PREPARED:
            con.execute(f"CREATE TEMP TABLE {name} AS {sql}")
    return con


RANGE_COLUMNS = {
    "expected_net_min_cents": "expected_net_cents",
    "expected_net_max_cents": "expected_net_cents",
    "expected_commission_min_cents": "expected_commission_cents",
    "expected_commission_max_cents": "expected_commission_cents",
}
"""The lawful range of an expected settlement in ``wagers`` and ``bankers`` (docs/rules.md
6a.19), each with the point it ranges around."""

RANGED_INPUTS = frozenset({"wagers", "bankers"})


def _read(con: duckdb.DuckDBPyConnection, path: Path, name: str) -> duckdb.DuckDBPyRelation:
    """Replay's file ``name`` as a relation; in ``wagers`` and ``bankers`` the four
    :data:`RANGE_COLUMNS`, null taken as the point. A file without all four (an older
    replay's) is judged on the point alone, the range being the point: stricter, never a
    pass of what the point would flag. A file with some of them and not others is refused.
    An ``envy`` file without ``qualifying_minimum_cents`` (an older replay's) has it null:
    the minimum unknown, which the Envy checks never take as a pass."""
    rel = con.read_parquet(str(path))
    later = [f"NULL::{kind} AS {c}" for c, kind in LATER_COLUMNS.get(name, ())
             if c not in rel.columns]
    if later:  # an older replay's: the facts of schema id 3 not recorded
        rel = rel.project("*, " + ", ".join(later))
    if name == "rounds" and "seat_order" not in rel.columns:
        # an older replay's: no table layout known, so the order around the table is not
        # evaluated (the checks say so), never passed
        rel = rel.project("*, NULL::INTEGER[] AS seat_order")
    if name == "rounds" and "progressive_meter_id" not in rel.columns:
        # an older replay's: the meter is then its table's, and a hit's reading not judged
        return rel.project("*, NULL::VARCHAR AS progressive_meter_id, "
                           "NULL::BIGINT AS progressive_reset_cents")
    if name == "envy" and "qualifying_minimum_cents" not in rel.columns:
        # an older replay's: the ruleset's least Qualifying Wager is unknown, and the Envy
        # checks say a payment it decides is not evaluated (never a pass)
        return rel.project("*, NULL::BIGINT AS qualifying_minimum_cents")
    if name not in RANGED_INPUTS:
        return rel
    present = [c for c in RANGE_COLUMNS if c in rel.columns]
    if present and len(present) < len(RANGE_COLUMNS):
        absent = [c for c in RANGE_COLUMNS if c not in rel.columns]
        raise InputError(
            f"{path} has {', '.join(present)} but not {', '.join(absent)}: not a file replay "
            f"wrote; re-run `python -m replay` to write it again")
    if present:
        return rel.project("* REPLACE (" + ", ".join(
            f"coalesce({c}, {point}) AS {c}" for c, point in RANGE_COLUMNS.items()) + ")")
    return rel.project("*, " + ", ".join(
        f"{point} AS {c}" for c, point in RANGE_COLUMNS.items()))


def _optional(con: duckdb.DuckDBPyConnection, path: Path, name: str
              ) -> duckdb.DuckDBPyRelation:
    """An :data:`OPTIONAL_INPUTS` file as a relation: empty when it is missing, its typed
    columns null when an older replay wrote it without them."""
    if not path.is_file():
        from replay.run import TABLES  # only for a missing file
        rel = con.from_arrow(TABLES[name].empty_table())
    else:
        rel = con.read_parquet(str(path))
    absent = [f"NULL::{kind} AS {c}" for c, kind in TIMELINE_FACTS if c not in rel.columns]
    return rel.project("*, " + ", ".join(absent)) if absent else rel


def _views(con: duckdb.DuckDBPyConnection, replay_dir: Path, since: datetime | None,
           live: bool = False) -> None:
    if since is None and not live:
        for name in INPUTS:
            _read(con, replay_dir / f"{name}.parquet", name).create_view(name)
        for name in OPTIONAL_INPUTS:
            _optional(con, replay_dir / f"{name}.parquet", name).create_view(name)
        return
    for name in INPUTS:
        _read(con, replay_dir / f"{name}.parquet", name).create_view(f"all_{name}")
    for name in OPTIONAL_INPUTS:
        _optional(con, replay_dir / f"{name}.parquet", name).create_view(f"all_{name}")
    rounds = "SELECT * FROM all_rounds"
    if since is not None:
        con.execute("CREATE TEMP TABLE window_start (since TIMESTAMPTZ NOT NULL)")
        con.execute("INSERT INTO window_start VALUES (?)", [since])
        rounds += " WHERE dealt_at >= (SELECT since FROM window_start)"
    playing = ""
    if live:
        con.execute(f"CREATE TEMP TABLE in_play AS {IN_PLAY}")
        playing = " ANTI JOIN in_play USING (casino, table_id, round_id)"
    con.execute(f"CREATE VIEW rounds AS {rounds}{playing}")
    for name in (*INPUTS, *OPTIONAL_INPUTS):
        if name != "rounds":
            narrowed = " SEMI JOIN rounds USING (casino, table_id, round_id)" if since else ""
            con.execute(f"CREATE VIEW {name} AS SELECT * FROM all_{name}{narrowed}{playing}")


def bind(check: Check, overrides: Mapping[str, int | float] | None = None
         ) -> dict[str, int | float]:
    """The check's parameters, with ``overrides`` for those it declares (others ignored)."""
    given = overrides or {}
    return {name: given.get(name, default) for name, default in check.params}


def run_check(con: duckdb.DuckDBPyConnection, check: Check,
              overrides: Mapping[str, int | float] | None = None) -> pa.Table:
    """The check's rows: :data:`ROW_COLUMNS` (null where the query has no such column),
    with the check's id, title, severity and kind in front. Its parameters are bound."""
    try:
        params = bind(check, overrides)
        rows = con.sql(check.sql, params=params or None).to_arrow_table()
    except duckdb.Error as exc:
        raise CheckFailed(f"{check.source} failed to run: {exc}") from exc
    absent = [c for c in REQUIRED_COLUMNS if c not in rows.column_names]
    if absent:
        raise CheckFailed(f"{check.source}: the query must return columns {', '.join(absent)}")
    n = rows.num_rows
    columns = [pa.array([check.id] * n, pa.string()), pa.array([check.title] * n, pa.string()),
               pa.array([check.severity] * n, pa.string()), pa.array([check.kind] * n, pa.string())]
    for c in ROW_COLUMNS:
        kind = FLAG_SCHEMA.field(c).type
        try:
            columns.append(rows.column(c).cast(kind) if c in rows.column_names
                           else pa.nulls(n, kind))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise CheckFailed(f"{check.source}: column {c} is not {kind}: {exc}") from exc
    return pa.Table.from_arrays(columns,
                                names=["check_id", "title", "severity", "kind", *ROW_COLUMNS])


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckSummary:
    """One check's flags: how many, and the money at stake overpaid and underpaid (cents;
    exact, summed as Python integers)."""

    id: str
    severity: str
    title: str
    flags: int
    kind: str = "rule"
    over_cents: int
    under_cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckRun:
    """Flags per check id, the summary by check, and what replay's manifest says of the log."""

    counts: dict[str, int]
    provenance: Provenance
    summary: tuple[CheckSummary, ...] = ()
    path: Path | None = None
    over_cents: int = 0
    """Money at stake overpaid over every rule check, each mispaid amount once
    (:func:`money_totals`)."""
    under_cents: int = 0
    in_play: int = 0
    """With ``live``: the rounds still in play, left out until they end (:data:`IN_PLAY`)."""


def flag_table(con: duckdb.DuckDBPyConnection, checks: list[Check],
               overrides: Mapping[str, int | float] | None = None,
               progress: Callable[[int, int, Check], None] | None = None) -> pa.Table:
    """Run ``checks`` over ``con``'s views; their flags, enriched from ``rounds``.
    ``progress(i, n, check)`` is told before each check runs."""
    parts = []
    for i, check in enumerate(checks):
        if progress is not None:
            progress(i, len(checks), check)
        parts.append(run_check(con, check, overrides))
    rows = pa.concat_tables(parts) if parts else pa.schema(
        [(n, FLAG_SCHEMA.field(n).type) for n in ("check_id", "title", "severity", "kind",
                                                    *ROW_COLUMNS)]).empty_table()
    rows = rows.append_column("ordinal", pa.array(range(rows.num_rows), pa.int64()))
    con.register("check_rows", rows)
    try:
        flags = con.sql(_FLAGS).to_arrow_table()
    except duckdb.Error as exc:
        raise CheckFailed(f"checks/runner.py: the flags could not be put together: {exc}") \
            from exc
    finally:
        con.unregister("check_rows")
    return flags.select(FLAG_SCHEMA.names).cast(FLAG_SCHEMA)


def summarize(flags: pa.Table, checks: list[Check]) -> tuple[CheckSummary, ...]:
    """Count and money at stake over and under, by check, in catalogue order."""
    totals = {c.id: [0, 0, 0] for c in checks}
    for check_id, amount, direction in zip(flags.column("check_id").to_pylist(),
                                           flags.column("amount_at_stake_cents").to_pylist(),
                                           flags.column("direction").to_pylist(), strict=True):
        t = totals[check_id]
        t[0] += 1
        if direction == "over":
            t[1] += amount
        elif direction == "under":
            t[2] += amount
    return tuple(CheckSummary(id=c.id, severity=c.severity, title=c.title, kind=c.kind,
                              flags=totals[c.id][0],
                              over_cents=totals[c.id][1], under_cents=totals[c.id][2])
                 for c in checks)


def money_totals(flags: pa.Table) -> tuple[int, int]:
    """The money at stake overpaid and underpaid over the ``counted`` flags: each mispaid
    amount once, however many rule checks flagged it (exact Python integers)."""
    over = under = 0
    for amount, direction, counted in zip(flags.column("amount_at_stake_cents").to_pylist(),
                                          flags.column("direction").to_pylist(),
                                          flags.column("counted").to_pylist(), strict=True):
        if counted and direction == "over":
            over += amount
        elif counted and direction == "under":
            under += amount
    return over, under


def write_atomically(table: pa.Table, path: Path) -> None:
    """Write ``table`` to a temporary file beside ``path``, fsync it, rename it over
    ``path`` and fsync the directory: readers see the old file or the new one, never a
    half-written one; on any failure the old file is untouched and the temporary removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as f:
            pq.write_table(table, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def run_checks(replay_dir: Path, out_dir: Path, *, since: datetime | None = None,
               live: bool = False,
               only: list[str] | None = None, checks: list[Check] | None = None,
               params: Mapping[str, int | float] | None = None,
               progress: Callable[[int, int, Check], None] | None = None,
               output_key: str | None = None) -> CheckRun:
    """Run the checks (``only`` those ids; ``checks`` instead of the shipped ones) over one
    set of replay's files (``since``: rounds dealt at or after it; ``live``: without the
    rounds still in play, :data:`IN_PLAY`), and replace
    ``out_dir/flags.parquet`` atomically with their flags (the provenance, the checks run and
    the window in its metadata). ``params`` overrides the parameters of the checks that
    declare them (an unknown name is an :class:`InputError`). Raises :class:`InputError`
    for an unknown id or a missing input, :class:`CheckFailed` when a check fails to run or
    the file cannot be written, :class:`Untrusted` when replay's outputs cannot be trusted
    (``replay.outputs.trust``); the old flags file is then left as it was. The flags are
    listed in the checks' signed manifest (``out_dir/manifest.json``, ``manifest.sig``),
    signed with ``output_key`` (default: the outputs' key of the data directory)."""
    chosen = select_checks(load_checks() if checks is None else checks, only)
    declared = {name for c in chosen for name, _ in c.params}
    unknown = sorted(set(params or {}) - declared)
    if unknown:
        raise InputError(f"unknown parameter {', '.join(unknown)}; the checks run declare: "
                         f"{', '.join(sorted(declared)) or 'none'} (`python -m checks --list`)")
    if since is not None and since.tzinfo is None:
        raise InputError("--since needs a time zone (naive datetimes are taken as UTC by "
                         "the command line)")
    data_dir = Path(os.path.abspath(replay_dir)).parent
    try:
        signer = output_signer(data_dir, output_key, who="checks")
    except OutputsError as exc:
        raise CheckFailed(f"the flags cannot be signed: {exc}") from exc
    replay_dir = replay_dir.resolve()  # one generation of replay's files for every view
    # the signature and the files' SHA-256 are checked while the checks run
    with ThreadPoolExecutor(max_workers=1) as pool, \
            tempfile.TemporaryDirectory(prefix="catwalk-checks-") as spill:
        hashed = pool.submit(outputs_trust, data_dir)
        try:
            con = connect(replay_dir, since, temp_dir=Path(spill), live=live)
        except InputError as exc:  # a file missing: refused if a manifest lists it
            found = hashed.result()
            if not found.usable and found.manifest is not None:
                raise Untrusted(f"{found.refusal('the replay outputs')}; no flag was "
                                "written") from exc
            raise
        try:
            flags = flag_table(con, chosen, params, progress)
            in_play = (con.execute("SELECT count(*) FROM in_play").fetchone() or (0,))[0] \
                if live else 0
        except CheckFailed as exc:  # files not trusted (an older replay's form) said as such
            found = hashed.result()
            if not found.usable:
                raise Untrusted(f"{found.refusal('the replay outputs')}; no flag was "
                                "written") from exc
            raise
        finally:
            con.close()
        found = hashed.result()
    if not found.usable:
        raise Untrusted(f"{found.refusal('the replay outputs')}; no flag was written (replay "
                        "again from a log that verifies)")
    if found.directory != replay_dir:
        raise Untrusted(f"replay switched its outputs while the checks read them "
                        f"({found.directory} checked, {replay_dir} read): run the checks "
                        "again")
    provenance = provenance_of(found)
    run = {"checks": [c.id for c in chosen],
           "since": since.astimezone(UTC).isoformat() if since is not None else None,
           "live": live, "in_play": in_play,
           "params": {c.id: bind(c, params) for c in chosen if c.params}}
    flags = flags.replace_schema_metadata({
        **provenance.metadata(),
        RUN_KEY: json.dumps(run, separators=(",", ":")).encode("utf-8")})
    path = out_dir / "flags.parquet"
    try:
        write_atomically(flags, path)
    except OSError as exc:
        raise CheckFailed(f"{path} could not be written ({exc}); the previous flags file is "
                          "unchanged") from exc
    try:
        hashes, sizes = listing(out_dir, [path.name])
        write_signed(out_dir, checks_manifest(hashes, sizes, found, run), signer)
    except OSError as exc:
        raise CheckFailed(f"{out_dir / 'manifest.json'} could not be written ({exc}); the "
                          "flags are written but not signed, and will be refused") from exc
    summary = summarize(flags, chosen)
    over, under = money_totals(flags)
    return CheckRun(counts={s.id: s.flags for s in summary}, provenance=provenance,
                    summary=summary, path=path, over_cents=over, under_cents=under,
                    in_play=int(in_play))


def run_all(replay_dir: Path, out_dir: Path) -> dict[str, int]:
    """Run every check, write ``flags.parquet`` (atomically), return flags per check id
    (:func:`run_checks` also returns what the manifest says of the log)."""
    return run_checks(replay_dir, out_dir).counts
