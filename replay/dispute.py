"""A round as a dispute needs it: what was dealt, why each hand won or lost, what was paid
against what the rules require, every event with who recorded it, the findings, the ruleset,
and the proof that ties the round to the signed checkpoint (docs/guide-dispute.md: the Round
page and ``python -m replay round``).

:func:`round_report` reads what replay and the checks wrote (``DATA/replay/*.parquet``,
``DATA/replay/manifest.json``, ``DATA/checks/flags.parquet`` when present) for one round;
:func:`table_rounds` a table's last rounds in the order the table dealt them. With
``with_proof`` the report also carries the inclusion proof of each of the round's events
against the latest signed checkpoint, built from the log (schemas/proof.py) and checked
with the public key: slow on a big log, so only on demand. :func:`report_text` renders a
report for a terminal; ``replay/dispute_html.py`` :func:`report_html` as one printable
HTML page. The words of each hand's result come from replay/dispute_why.py, which asks the
rules engine.

Fail closed: data whose log was not verified (or whose manifest is missing) is said to be
so in :attr:`RoundReport.provenance`, which the renderings put first; a round that was not
evaluated gets no result; missing or unreadable outputs raise :class:`ReportError`, whose
message says what is missing and what to run. Money is integer cents throughout.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb

from replay.dispute_html import render as render_html
from replay.dispute_text import render as render_text
from replay.dispute_views import (
    NOT_VERIFIED,
    VERIFIED,
    EventView,
    HandView,
    ProofView,
    ReportError,
    RoundReport,
    WagerView,
)
from replay.dispute_why import HOUSE_WAY_GAMES, WHEEL_GAMES, Holding, Table, verdicts
from replay.errors import ReplayError
from replay.outputs import Trust
from replay.outputs import trust as outputs_trust
from replay.pictures import card_svg, tile_svg
from replay.rulebook import Rulebook, shipped_book
from replay.rulesets import CommissionRounding, Ruleset

__all__ = ["EventView", "HandView", "ProofView", "ReportError", "RoundReport", "WagerView",
           "card_svg", "report_html", "report_text", "round_report", "table_rounds",
           "tile_svg"]


class UntrustedOutputs(ReportError):
    """Replay's outputs may not be read (altered, unsigned, no manifest: replay/outputs.py);
    ``python -m replay round`` and ``table`` exit 1 with the reason."""


INPUTS = ("rounds", "hands", "wagers", "timeline", "findings")


def _iso(value: object) -> str | None:
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return None if value is None else str(value)


class _Reader:
    """Reads replay's Parquet files with DuckDB, one in-memory connection per report: the
    filters are pushed down to the files (row groups skipped by their statistics, and only
    the rows that match decoded), so that one round of a million is read in milliseconds.
    Paths and values are bound, never formatted into SQL; a file that cannot be read is a
    :class:`ReportError` naming it."""

    def __init__(self) -> None:
        self.con = duckdb.connect(":memory:", config={"preserve_insertion_order": True})

    def __enter__(self) -> _Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.con.close()

    def sql(self, path: Path, query: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The rows of ``query`` (over ``read_parquet($path)``) as dicts."""
        try:
            table = self.con.sql(query, params={"path": str(path), **params}).to_arrow_table()
        except duckdb.Error as exc:
            raise ReportError(f"{path} cannot be read ({str(exc).splitlines()[0]}): run "
                              f"`python -m replay --data {path.parent.parent}` again") from exc
        rows: list[dict[str, Any]] = table.to_pylist()
        return rows

    def rows(self, path: Path, where: Mapping[str, list[Any]],
             columns: list[str] | None = None) -> list[dict[str, Any]]:
        """The rows of one file whose column ``k`` is one of ``where[k]``, for every k, in
        the file's order (``columns``: only those)."""
        shown = ", ".join(f'"{c}"' for c in columns) if columns else "*"
        test = " AND ".join(f'"{k}" = ANY(${k})' for k in where)
        query = f"SELECT {shown} FROM read_parquet($path)" + (f" WHERE {test}" if test else "")
        return self.sql(path, query, where)


def _replay_dir(data: Path) -> Path:
    """The replay output in use (replay switches a symbolic link: resolved once, so every
    file read is of one replay), once ``replay.outputs.trust`` says its files may be read
    (:class:`UntrustedOutputs` otherwise)."""
    out = (data / "replay").resolve()
    missing = [f"{n}.parquet" for n in ("rounds", "hands", "wagers")
               if not (out / f"{n}.parquet").is_file()]
    if missing:
        raise ReportError(f"no replay output in {data / 'replay'} ({', '.join(missing)} "
                          f"missing): run `python -m replay --data {data}` first")
    return trusted_outputs(data).directory


def provenance_line(data: Path, *, check_files: bool = True) -> str:
    """What can be said of replay's outputs under ``data`` (``replay.outputs.trust``: the
    signed manifest, every file's SHA-256, the refusal record), in one line that starts with
    :data:`VERIFIED` only when all of it verified with pinned keys, else
    :data:`NOT_VERIFIED`. ``data`` may also be the ``replay`` directory itself. The files
    are always checked (``check_files`` is kept for callers that still pass it)."""
    found = outputs_trust(_data_of(data))
    if found.verified:
        return f"{VERIFIED}{found.words}"
    if found.usable:
        return f"{NOT_VERIFIED}{found.words}"
    return f"{NOT_VERIFIED}{found.state}: {'; '.join(found.reasons) or found.words}"


def _data_of(path: Path) -> Path:
    """The data directory of ``path``: itself, or its parent when it is ``DATA/replay``."""
    path = Path(os.path.abspath(path))
    return path.parent if path.name == "replay" else path


def trusted_outputs(data: Path) -> Trust:
    """``replay.outputs.trust`` of ``data``; :class:`UntrustedOutputs` when its files may
    not be read at all (altered, unsigned, no manifest)."""
    found = outputs_trust(data)
    if not found.usable:
        raise UntrustedOutputs(f"{found.refusal('the replay outputs')}; no report is made "
                               f"from them (replay again: `python -m replay --data {data}`)")
    return found


def judging_book(replay_dir: Path) -> tuple[Rulebook, str | None]:
    """The rulebook the outputs under ``replay_dir`` were judged by, as far as this reader
    can trust it: the casinos' filings their manifest records, read from
    ``$CATWALK_RULESETS`` when that directory holds those very files
    (replay.filings.judging_filings), else the shipped rulesets alone, with why."""
    from replay.filings import RULESETS_ENV, judging_filings

    try:
        manifest = json.loads((replay_dir / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = None
    given = manifest.get("ruleset_files") if isinstance(manifest, dict) else None
    files = tuple((str(f.get("path")), str(f.get("sha256"))) for f in given
                  if isinstance(f, dict)) if isinstance(given, list) else None
    found, note = judging_filings(files, os.environ.get(RULESETS_ENV, ""))
    if found is None or found.problems:
        return shipped_book(), note
    return found.book(), None


def ruleset_words(ruleset_id: str | None, book: Rulebook | None = None,
                  note: str | None = None) -> str:
    """What a ruleset says, in one paragraph: its title, when it is in force, commission,
    wheel, house way, options and sources, looked up in ``book`` (default the shipped
    rulesets; replay/rulesets/*.json, a casino's filing); ``note``: why a casino's filings
    could not be read, said when the ruleset is not found."""
    if ruleset_id is None:
        return "no ruleset: the round was never started, so none could be chosen"
    try:
        rs = (shipped_book() if book is None else book).find(ruleset_id)
    except (ReplayError, LookupError) as exc:
        if note:
            return (f"ruleset {ruleset_id} is neither shipped nor in a casino's filing this "
                    f"report can read: {note}")
        return f"ruleset {ruleset_id} is not shipped with this version: {exc}"
    return _described(rs)


def _described(rs: Ruleset) -> str:
    until = f" to {rs.effective_to}" if rs.effective_to else " (no end date)"
    c = rs.commission
    unit = "the cent" if c.unit_cents == 1 else f"a multiple of {c.unit_cents} cents"
    rounding = ("rounded down to " + unit if c.rounding is CommissionRounding.DOWN
                else "rounded up to " + unit)
    commission = (f"Commission {c.rate_bps // 100}.{c.rate_bps % 100:02d}% of a win, {rounding}"
                  if c.rate_bps else "No commission")
    parts = [f"{rs.id}: {rs.title}", f"In force from {rs.effective_from}{until}", commission]
    if rs.game in WHEEL_GAMES:
        parts.append(f"Wheel (A-2-3-4-5): {rs.wheel.value.replace('_', ' ')}")
    if rs.game in HOUSE_WAY_GAMES:
        parts.append(f"House way: {rs.house_way}")
    options = ", ".join(f"{k} {v}" for k, v in sorted(rs.options.items()))
    parts += [f"Options: {options or 'none'}",
              f"Paytables: {', '.join(sorted(rs.paytables)) or 'none'}",
              f"Sources: {rs.source or 'not given'}"]
    return ". ".join(parts)


def _split(tokens: object) -> tuple[str, ...]:
    return tuple(str(tokens).split()) if tokens else ()


def _banker_seat(banker: object) -> int | None:
    parts = str(banker or "").split()
    if len(parts) >= 2 and parts[0] == "seat" and parts[1].isdigit():
        return int(parts[1])
    return None


def _hand_views(round_row: Mapping[str, Any], hands: list[dict[str, Any]],
                wagers: list[dict[str, Any]], book: Rulebook) -> tuple[HandView, ...]:
    """Each hand with its result and why (replay/dispute_why.py), the rules engine's
    outcome of the party's deciding wager (the main, else the ante) as the result."""
    evaluated = bool(round_row.get("evaluated"))
    deciding: dict[int | None, str | None] = {}
    for w in wagers:
        if w["wager"] in ("main", "ante") and w["position"] != "banker":
            deciding.setdefault(w["seat"], w["expected_outcome"] if evaluated else None)
    holdings = {h["seat"]: Holding(position=h["position"], seat=h["seat"],
                                   cards=_split(h["cards"]), high=_split(h["high"]),
                                   low=_split(h["low"]), action=h["action"],
                                   house_way=h["house_way"]) for h in hands}
    said = {}
    ruleset_id = round_row.get("ruleset")
    if ruleset_id is not None:
        try:
            ruleset = book.find(str(ruleset_id))
        except (ReplayError, LookupError):
            ruleset = None
        if ruleset is not None:
            said = verdicts(round_row.get("game"), Table(
                ruleset=ruleset, holdings=holdings,
                banker_seat=_banker_seat(round_row.get("banker")), outcomes=deciding))
    out = []
    for h in hands:
        verdict = said.get(h["seat"])
        result, why = (verdict.result, verdict.why) if verdict else (None, None)
        if round_row.get("voided"):
            result = "void"
            why = (f"the round was voided ({round_row.get('void_reason') or 'no reason given'})"
                   ": every wager is returned (docs/rules.md 8.4)")
        elif not evaluated and h["seat"] is not None:
            result, why = None, ("not judged: the round was not evaluated, so no result is "
                                 "given (docs/rules.md 8.1; see its problems)")
        out.append(HandView(
            position=h["position"], seat=h["seat"], cards=_split(h["cards"]),
            high=_split(h["high"]), low=_split(h["low"]), high_rank=h["high_rank"],
            low_rank=h["low_rank"], foul=h["foul"], house_way=h["house_way"],
            house_way_high=_split(h["house_way_high"]) or (
                verdict.house_way_high if verdict else ()),
            house_way_low=_split(h["house_way_low"]) or (
                verdict.house_way_low if verdict else ()),
            action=h["action"], result=result, why=why))
    return tuple(out)


def _wager_view(w: Mapping[str, Any]) -> WagerView:
    """A wager row as a view; the lawful range of an older replay's row (without the
    columns) is its point (docs/checks.md, "Lawful ranges")."""
    rec, exp = w["recorded_net_cents"], w["expected_net_cents"]
    low = exp if w.get("expected_net_min_cents") is None else w["expected_net_min_cents"]
    high = exp if w.get("expected_net_max_cents") is None else w["expected_net_max_cents"]
    difference = None
    if rec is not None and exp is not None and low is not None and high is not None:
        difference = rec - high if rec > high else rec - low if rec < low else 0
    return WagerView(
        seat=w["seat"], position=w["position"], wager=w["wager"],
        amount_cents=w["amount_cents"], recorded_outcome=w["recorded_outcome"],
        recorded_net_cents=rec, recorded_commission_cents=w["recorded_commission_cents"],
        expected_outcome=w["expected_outcome"], expected_net_cents=exp,
        expected_commission_cents=w["expected_commission_cents"],
        difference_cents=difference, expected_net_min_cents=low, expected_net_max_cents=high,
        expected_commission_min_cents=w.get("expected_commission_min_cents"),
        expected_commission_max_cents=w.get("expected_commission_max_cents"))


def _event_view(e: Mapping[str, Any]) -> EventView:
    return EventView(table_seq=e["table_seq"], occurred_at=_iso(e["occurred_at"]) or "",
                     recorded_by=e["recorded_by"], event=e["event"], summary=e["summary"],
                     event_id=e["event_id"], superseded=bool(e["superseded"]))


def _flag(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _iso(v) if isinstance(v, dt.datetime) else v for k, v in row.items()}


Key = tuple[str, str, str]


def _reports(reader: _Reader, data: Path, replay_dir: Path, keys: list[Key], *,
             provenance: str) -> dict[Key, RoundReport]:
    """The reports of the rounds ``keys`` (casino, table, round), each file read once."""
    if not keys:
        return {}
    where = {"casino": sorted({k[0] for k in keys}), "table_id": sorted({k[1] for k in keys}),
             "round_id": sorted({k[2] for k in keys})}
    by: dict[str, dict[Key, list[dict[str, Any]]]] = {}
    notes: list[str] = []
    book, filings_note = judging_book(replay_dir)
    for name in INPUTS:
        path = replay_dir / f"{name}.parquet"
        if not path.is_file():
            notes.append(f"{name}.parquet is missing from {data / 'replay'} (written by an "
                         f"older replay): run `python -m replay --data {data}` again")
            rows: list[dict[str, Any]] = []
        else:
            rows = reader.rows(path, where)
        grouped: dict[Key, list[dict[str, Any]]] = {}
        for row in rows:
            grouped.setdefault((row["casino"], row["table_id"], row["round_id"]), []).append(row)
        by[name] = grouped
    flags_path = data / "checks" / "flags.parquet"
    flagged: dict[Key, list[dict[str, Any]]] = {}
    if flags_path.is_file():
        try:
            for row in reader.rows(flags_path, where):
                flagged.setdefault((row["casino"], row["table_id"], row["round_id"]),
                                   []).append(_flag(row))
        except ReportError as exc:
            notes.append(f"checks: {exc}")
    else:
        notes.append(f"checks: no flags ({flags_path} is missing): run `python -m checks "
                     f"--data {data}` to check the round")
    out = {}
    for key in keys:
        found = by["rounds"].get(key)
        if not found:
            continue
        r = found[0]
        timeline = sorted(by["timeline"].get(key, []), key=lambda e: (e["table_seq"],
                                                                      e["event_id"]))
        wagers = by["wagers"].get(key, [])
        out[key] = RoundReport(
            round_id=r["round_id"], casino=r["casino"], table_id=r["table_id"],
            game=r["game"], ruleset=r["ruleset"],
            ruleset_words=ruleset_words(r["ruleset"], book, filings_note),
            dealt_at=_iso(r["dealt_at"]), dealer_id=r["dealer_id"], banker=r["banker"],
            evaluated=bool(r["evaluated"]),
            problems=tuple(r["problems"] or ()),
            notation=r["notation"],
            hands=_hand_views(r, by["hands"].get(key, []), wagers, book),
            wagers=tuple(_wager_view(w) for w in wagers),
            timeline=tuple(_event_view(e) for e in timeline),
            findings=(*(f"{f['kind']} at {f['where']}: {f['detail']}"
                        for f in by["findings"].get(key, [])), *notes),
            flags=tuple(flagged.get(key, [])),
            provenance=provenance, proof=None)
    return out


def _matching(reader: _Reader, replay_dir: Path, round_id: str, casino: str | None,
              table_id: str | None) -> list[Key]:
    where = {"round_id": [round_id]}
    if casino is not None:
        where["casino"] = [casino]
    if table_id is not None:
        where["table_id"] = [table_id]
    rows = reader.rows(replay_dir / "rounds.parquet", where, ["casino", "table_id", "round_id"])
    return sorted((r["casino"], r["table_id"], r["round_id"]) for r in rows)


def round_report(data: Path, round_id: str, *, with_proof: bool = False,
                 key: str | None = None, casino: str | None = None,
                 table_id: str | None = None, check_files: bool = False,
                 ) -> RoundReport | None:
    """The report of round ``round_id`` (at ``casino``'s table ``table_id`` when given: a
    round id is only unique at its casino's table), or None when replay wrote no such round.
    ReportError when replay's output is missing or unreadable, or when the id names rounds
    at several tables (the message names them). ``with_proof``: prove the round's events
    against the signed checkpoint, reading the log under ``data`` and checking with ``key``
    (the public key's text or a file; default the key beside the log). ``check_files``:
    also check each file's SHA-256 against replay's manifest (reads them whole)."""
    replay_dir = _replay_dir(data)
    with _Reader() as reader:
        keys = _matching(reader, replay_dir, round_id, casino, table_id)
        if not keys:
            return None
        if len(keys) > 1:
            raise ReportError(f"round {round_id} is at {len(keys)} tables: "
                              + ", ".join(f"casino {c} table {t}" for c, t, _ in keys)
                              + "; name one with casino and table (--casino C --table T)")
        report = _reports(reader, data, replay_dir, keys,
                          provenance=provenance_line(data))[keys[0]]
    if with_proof:
        from replay.dispute_proof import prove_report

        return prove_report(data, report, key=key)
    return report


_LAST_ROUNDS = """
SELECT r.casino, r.round_id
FROM read_parquet($path) AS r
LEFT JOIN (SELECT casino, round_id, min(table_seq) AS first
           FROM read_parquet($timeline)
           WHERE table_id = $table AND ($casino IS NULL OR casino = $casino)
           GROUP BY casino, round_id) AS t USING (casino, round_id)
WHERE r.table_id = $table AND ($casino IS NULL OR r.casino = $casino)
ORDER BY t.first DESC NULLS FIRST, r.dealt_at DESC NULLS FIRST, r.round_id DESC
LIMIT $last
"""
"""A table's last rounds, newest first: by the table's sequence number of each round's first
event, then when it was dealt, then id (a round never started has no time: oldest)."""


def _casinos_of(reader: _Reader, replay_dir: Path, table_id: str) -> list[str]:
    rows = reader.sql(replay_dir / "rounds.parquet",
                      "SELECT DISTINCT casino FROM read_parquet($path) WHERE table_id = $table "
                      "ORDER BY casino", {"table": table_id})
    return [r["casino"] for r in rows]


def table_rounds(data: Path, table_id: str, *, last: int = 10, casino: str | None = None,
                 check_files: bool = False) -> list[RoundReport]:
    """The last ``last`` rounds of table ``table_id`` in the order the table dealt them
    (its sequence numbers, else when each was dealt), oldest first; empty when the table has
    none. ReportError when the table id is at several casinos and ``casino`` is not given
    (the message names them), or when replay's output is missing or unreadable."""
    if last < 1:
        raise ReportError(f"--last must be at least 1, got {last}")
    replay_dir = _replay_dir(data)
    timeline = replay_dir / "timeline.parquet"
    with _Reader() as reader:
        if casino is None:
            casinos = _casinos_of(reader, replay_dir, table_id)
            if len(casinos) > 1:
                raise ReportError(f"table {table_id} is at {len(casinos)} casinos: "
                                  f"{', '.join(casinos)}; name one with --casino")
        if timeline.is_file():
            newest = reader.sql(replay_dir / "rounds.parquet", _LAST_ROUNDS, {
                "timeline": str(timeline), "table": table_id, "casino": casino,
                "last": last})
        else:  # an older replay's output: by when each round was dealt
            newest = reader.sql(replay_dir / "rounds.parquet", (
                "SELECT casino, round_id FROM read_parquet($path) WHERE table_id = $table "
                "AND ($casino IS NULL OR casino = $casino) ORDER BY dealt_at DESC NULLS "
                "FIRST, round_id DESC LIMIT $last"),
                {"table": table_id, "casino": casino, "last": last})
        keys = [(r["casino"], table_id, r["round_id"]) for r in reversed(newest)]
        found = _reports(reader, data, replay_dir, keys, provenance=provenance_line(data))
    return [found[k] for k in keys if k in found]


def table_ids(data: Path, casino: str | None = None) -> list[str]:
    """Every table id replay wrote rounds for (for a message that names them)."""
    with _Reader() as reader:
        rows = reader.sql(_replay_dir(data) / "rounds.parquet",
                          "SELECT DISTINCT table_id FROM read_parquet($path) WHERE $casino IS "
                          "NULL OR casino = $casino ORDER BY table_id", {"casino": casino})
    return [r["table_id"] for r in rows]


def report_text(report: RoundReport) -> str:
    """The report for a terminal (replay/dispute_text.py): what a dispute needs, in the
    order the dispute report gives it, the provenance first."""
    return render_text(report)


def report_html(report: RoundReport) -> str:
    """The report as ONE self-contained printable HTML page (replay/dispute_html.py): inline
    CSS with print rules, inline SVG pictures, no script and no external reference; every
    value from the data HTML-escaped."""
    return render_html(report)
