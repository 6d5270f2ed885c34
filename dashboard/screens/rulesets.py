"""The Rulesets page: what each shipped ruleset says, when it is in force, which rulesets
the data shown was judged under, and the casinos' own rulesets that judged it
(docs/guide-regulator.md).

A ruleset is the data a game is judged under (docs/rules.md 6 and 6a; ``replay/rulesets.py``,
``replay/rulesets/*.json``): its posted paytables, its commission (rate and rounding), its
house options and the house way the dealer sets by. This page puts them in words a
regulator can read against the posted rules, with money from integer cents. A casino's own
rulesets (a rulesets directory, docs/rulesets.md) are listed from what replay's manifest
records (each file and its SHA-256), and shown in full from ``$CATWALK_RULESETS`` when that
directory holds the very files that judged the data. Below them, the
what-if runs under ``DATA/whatif/`` (docs/whatif.md), marked as not production.
"""

from __future__ import annotations

import datetime as dt
import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

from dashboard.context import PageContext, Role
from dashboard.integrity import read_manifest
from dashboard.money import format_cents
from dashboard.views import code, literal
from dashboard.whatif_runs import WHATIF_DIR, WhatIfRun, whatif_runs
from replay.cards import Card
from replay.errors import ReplayError
from replay.games import find_game
from replay.rulesets import (
    DEFAULT_RULESET_IDS,
    CommissionRounding,
    Payout,
    Ruleset,
    Wheel,
    shipped_rulesets,
)

TITLE = "Rulesets"
URL_PATH = "rulesets"
ICON = ":material/menu_book:"
ROLES: frozenset[Role] | None = None

ROUNDS = "replay/rounds.parquet"
RULES_DOC = "docs/rules.md"
_BPS_WHOLE = 10_000

# The wheel in words: docs/rules.md 1.1 and 6a.4.
WHEEL_WORDS: Mapping[Wheel, str] = {
    Wheel.SECOND_HIGHEST: "A-2-3-4-5 ranks second highest among straights (below A-K-Q-J-T)",
    Wheel.LOWEST: "A-2-3-4-5 is the lowest straight (below 6-5-4-3-2)",
}

# Where docs/rules.md explains each shipped house way.
HOUSE_WAY_DOC: Mapping[str, str] = {
    "reference-1.3": "docs/rules.md 1.3 (pai gow poker house way) and 7.5",
    "pr-11.2-d": "docs/rules.md 3.4 (pai gow tiles, PR ¶ D and 58 Pa. Code § 621a.8(d))",
}


# Words ------------------------------------------------------------------------------------


def percent(bps: int) -> str:
    """Basis points as an exact percentage: 500 -> "5%", 25 -> "0.25%", 5000 -> "50%"."""
    value = (Decimal(bps) / 100).normalize()
    return f"{value:f}%"


def hand_words(name: str) -> str:
    """A hand class as written in a paytable (``royal_flush_plus_royal_match``) in words."""
    return name.replace("_", " ")


def payout_words(payout: Payout) -> str:
    """A paytable line as posted: "8,000 to 1", "$5,000.00", "10% of the meter"."""
    if payout.odds is not None:
        win, stake = payout.odds
        return f"{win:,} to {stake:,}"
    if payout.fixed_cents is not None:
        return format_cents(payout.fixed_cents)
    assert payout.meter_bps is not None
    return f"{percent(payout.meter_bps)} of the meter"


def commission_words(ruleset: Ruleset) -> str:
    """The commission policy in words (docs/rules.md 1.2, 6a.1, 6a.2)."""
    rate = ruleset.commission.rate_bps
    if rate == 0:
        return "No commission."
    unit = ruleset.commission.unit_cents
    if ruleset.commission.rounding is CommissionRounding.DOWN:
        rounding = ("rounded down to the cent" if unit == 1
                    else f"rounded down to a multiple of {format_cents(unit)}")
    else:
        rounding = ("rounded up to the next cent" if unit == 1
                    else f"rounded up to the next multiple of {format_cents(unit)}")
    example_win = 1010
    example = ruleset.commission.on(example_win)
    words = (f"{percent(rate)} of the win, {rounding} (a win of {format_cents(example_win)} "
             f"pays {format_cents(example)} commission).")
    if not ruleset.commission.ranged:
        return words
    low, high = ruleset.commission.lawful(example_win)
    return (f"{words} Lawful: any commission from {format_cents(low)} to "
            f"{format_cents(high)} on that win (docs/rules.md 6a.19); a settlement is "
            "flagged only outside the range.")


def option_value(name: str, value: str | int | bool) -> str:
    """An option's value in words: cents as money, basis points as a percentage."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and name.endswith("_cents"):
        return format_cents(value)
    if isinstance(value, int) and name.endswith("_bps"):
        return percent(value)
    if isinstance(value, int):
        return f"{value:,}"
    return value.replace("_", " ")


def option_name(name: str) -> str:
    for suffix in ("_cents", "_bps"):
        name = name.removesuffix(suffix)
    return name.replace("_", " ")


def in_force_words(ruleset: Ruleset, today: dt.date) -> str:
    """Since when (and until when) the ruleset is in force, and whether it is today."""
    start = ruleset.effective_from
    span = (f"from {start}, with no end date" if ruleset.effective_to is None
            else f"from {start} up to (not including) {ruleset.effective_to}")
    now = "in force today" if ruleset.in_force_on(today) else "not in force today"
    return f"In force {span}: {now} ({today.isoformat()})."


def house_way_of(ruleset: Ruleset) -> Any | None:
    """The house way the game's module sets the dealer's hand by under this ruleset, or None
    for a game with no house way (Caribbean stud: the dealer does not set a hand). Each game
    module that uses one re-exports its ``HOUSE_WAYS`` (replay/games/); a ruleset read from a
    casino's filing carries the way parsed from its ``.way`` file (``house_way_spec``)."""
    if ruleset.house_way_spec is not None:
        return ruleset.house_way_spec
    try:
        module = importlib.import_module(f"replay.games.{ruleset.game}")
    except ImportError:
        return None
    ways = getattr(module, "HOUSE_WAYS", None)
    if not isinstance(ways, Mapping):
        return None
    return ways.get(ruleset.house_way, ruleset.house_way)


def _dealt_from_cards(ruleset: Ruleset) -> bool:
    """Whether the ruleset's game is dealt from a deck of cards (the wheel matters); tiles
    have no straights."""
    try:
        deck = find_game(ruleset.game).deck
    except ReplayError:
        return True
    return bool(deck) and isinstance(deck[0], Card)


# Data -------------------------------------------------------------------------------------


@st.cache_data(max_entries=16, show_spinner=False)
def rounds_by_ruleset(_con: duckdb.DuckDBPyConnection, path: str, stamp: tuple[Any, ...],
                      where: str, params: tuple[Any, ...]) -> pd.DataFrame:
    """Rounds per ruleset (judged and not) in the filtered data; ``stamp`` keys the cache."""
    with _con.cursor() as cur:
        return cur.execute(
            "SELECT coalesce(ruleset, '(none)') AS ruleset, game, "
            "count(*)::BIGINT AS rounds, "
            "(count(*) FILTER (WHERE evaluated))::BIGINT AS judged, "
            "min(dealt_at) AS first_dealt, max(dealt_at) AS last_dealt "
            f"FROM read_parquet(?) WHERE {where} GROUP BY ALL ORDER BY ruleset, game",
            [path, *params],
        ).df()


def _stamp(path: Path) -> tuple[str, int, int]:
    info = path.stat()
    return (str(path), info.st_mtime_ns, info.st_size)


# Page -------------------------------------------------------------------------------------


def render(ctx: PageContext) -> None:
    """Draw the page: the rulesets the data used, then every shipped ruleset in full."""
    st.title(TITLE)
    st.caption(f"What each ruleset says; the rules behind them are in {code(RULES_DOC)}.")
    try:
        rulesets = shipped_rulesets()
    except ReplayError as error:  # a shipped JSON file that does not load
        st.error(f"The shipped rulesets cannot be read: {literal(error)}. "
                 "Fix the file named and reinstall.")
        return
    known = {r.id: r for r in rulesets}
    filed = casino_rulesets(ctx.root)
    _used(ctx, known, {r.id: r for r in filed.rulesets})
    st.header("Shipped rulesets")
    defaults = set(DEFAULT_RULESET_IDS.values())
    today = dt.datetime.now(dt.UTC).date()
    st.dataframe(pd.DataFrame([
        {"ruleset": r.id, "game": r.game, "in force from": r.effective_from,
         "in force until": r.effective_to or "no end date",
         "in force today": "yes" if r.in_force_on(today) else "no",
         "commission": commission_words(r), "house way": _house_way_name(r)}
        for r in rulesets]), hide_index=True, width="stretch")
    for tab, ruleset in zip(st.tabs([r.id for r in rulesets]), rulesets, strict=True):
        with tab:
            _ruleset(ruleset, default=ruleset.id in defaults, today=today)
    _casino_section(filed, today)
    _whatif_runs(ctx)


def _used(ctx: PageContext, known: Mapping[str, Ruleset],
          filed: Mapping[str, Ruleset] | None = None) -> None:
    """Which rulesets the data shown was judged under: the manifest's list, and the rounds of
    each in the filtered data; ``filed``: the casinos' rulesets that judged it (by id)."""
    filed = filed or {}
    st.header("Rulesets of the data shown")
    manifest = read_manifest(ctx.root)
    if manifest.problem is not None:
        st.warning(f"The replay manifest {code(ctx.root / 'replay/manifest.json')} "
                   f"{literal(manifest.problem)}, so it does not say which rulesets replay "
                   "used. Run `python -m replay` again to rewrite it.")
    elif manifest.rulesets is not None:
        names = ", ".join(code(r) for r in manifest.rulesets) or "none"
        st.markdown(f"Replay judged this data under: {names} (its manifest).")
        unknown = [r for r in manifest.rulesets if r not in known and r not in filed]
        if unknown:
            st.error("Not shipped with this version: "
                     + ", ".join(code(r) for r in unknown)
                     + ". The data was judged under rules this page cannot show; replay it "
                     "again with this version, or read the ruleset of the version that did.")
    path = ctx.root / ROUNDS
    if not path.is_file():
        st.info(f"No {code(path)} yet: run `python -m replay` to judge rounds.")
        return
    where, params = ctx.filters.where()
    try:
        counts = rounds_by_ruleset(ctx.con, str(path), _stamp(path), where, tuple(params))
    except (duckdb.Error, OSError) as error:
        st.error(f"Could not read {code(path)}: {literal(f'{type(error).__name__}: {error}')}. "
                 "Run `python -m replay` again.")
        return
    if counts.empty:
        st.info("No rounds match the filters.")
        return
    table = pd.DataFrame({
        "ruleset": counts["ruleset"],
        "game": counts["game"],
        "rounds": counts["rounds"],
        "judged": counts["judged"],
        "first dealt (UTC)": counts["first_dealt"],
        "last dealt (UTC)": counts["last_dealt"],
        "shipped": ["yes" if r in known else f"casino {filed[r].casino}'s own" if r in filed
                    else "NO" for r in counts["ruleset"]],
    })
    st.dataframe(table, hide_index=True, width="stretch")
    if ctx.filters.active:
        st.caption("Rounds within the filters in the sidebar.")


def _ruleset(ruleset: Ruleset, *, default: bool, today: dt.date) -> None:
    st.subheader(ruleset.id)
    st.markdown(f"**{ruleset.title}**")
    lines = [
        f"Game: {code(ruleset.game)}"
        + (" (the ruleset this game is judged under by default)" if default else ""),
        in_force_words(ruleset, today),
        f"Commission: {commission_words(ruleset)}",
    ]
    if _dealt_from_cards(ruleset):
        lines.append(f"Wheel: {WHEEL_WORDS[ruleset.wheel]} (docs/rules.md 6a.4).")
    st.markdown("\n".join(f"- {line}" for line in lines))
    if ruleset.source:
        st.caption("Where the values come from (the jurisdiction and the rules they "
                   "follow):")
        st.text(ruleset.source)
    if ruleset.options:
        st.markdown("**Options**")
        st.table(pd.DataFrame(
            [{"option": option_name(k), "value": option_value(k, v)}
             for k, v in sorted(ruleset.options.items())]), hide_index=True)
    for name, table in ruleset.paytables.items():
        st.markdown(f"**Paytable: {hand_words(name)}**")
        st.table(pd.DataFrame(
            [{"hand": hand_words(hand), "pays": payout_words(p)} for hand, p in table.items()]),
            hide_index=True)
    _house_way(ruleset)


def _house_way_name(ruleset: Ruleset) -> str:
    way = house_way_of(ruleset)
    return "none" if way is None else ruleset.house_way


def _house_way(ruleset: Ruleset) -> None:
    way = house_way_of(ruleset)
    if way is None:
        st.markdown("**House way**: none; the dealer does not set a hand in this game.")
        return
    doc = HOUSE_WAY_DOC.get(ruleset.house_way, RULES_DOC)
    if isinstance(way, str):
        st.warning(f"House way {code(way)}: the game knows no house way by this name, so "
                   "replay cannot judge the dealer's setting under this ruleset.")
        return
    st.markdown(f"**House way** {code(way.name)}: {way.title}. See {code(doc)}.")
    with st.expander(f"The {len(way.rules)} rules of house way {way.name}, tried in order"):
        st.table(pd.DataFrame(
            [{"rule": n, "clause": rule.clause, "what the dealer does": rule.text}
             for n, rule in enumerate(way.rules, start=1)]), hide_index=True)


# Casinos' rulesets -------------------------------------------------------------------------

RULESETS_ENV = "CATWALK_RULESETS"
"""replay.filings.RULESETS_ENV, named here so that the page imports replay's filings only
when the manifest lists a casino's files."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CasinoRulesets:
    """What the page can say of the casinos' rulesets that judged the data: the files the
    manifest records (path, sha256; None: it records none, an older replay), the rulesets
    read from ``$CATWALK_RULESETS`` when its files are those very files (else none), and
    why they are not shown when they are not."""

    files: tuple[tuple[str, str], ...] | None
    rulesets: tuple[Ruleset, ...] = ()
    note: str | None = None


def casino_rulesets(root: Path) -> CasinoRulesets:
    """The casinos' rulesets the data under ``root`` was judged by (see
    :class:`CasinoRulesets`): trusted only when the directory's files hash to the
    manifest's, file for file."""
    from replay.filings import judging_filings

    files = read_manifest(root).ruleset_files
    if not files:
        return CasinoRulesets(files=files)
    found, note = judging_filings(files, os.environ.get(RULESETS_ENV, ""))
    if found is None:
        return CasinoRulesets(files=files, note=note)
    return CasinoRulesets(files=files, rulesets=tuple(f.ruleset for f in found.filings))


def _casino_section(filed: CasinoRulesets, today: dt.date) -> None:
    """The casinos' rulesets beside the shipped ones: the files that judged, then each
    ruleset in full when they could be read."""
    st.header("Casinos' rulesets")
    if filed.files is None:
        st.caption("The replay manifest does not say whether casinos' rulesets judged this "
                   "data (a replay older than rulesets directories).")
        return
    if not filed.files:
        st.caption("No casino's own rulesets: every round was judged by the shipped "
                   "rulesets (docs/rulesets.md).")
        return
    st.markdown("Replay judged this data by a rulesets directory (docs/rulesets.md); its "
                "files, as the manifest records them:")
    st.dataframe(pd.DataFrame([{"file": path, "SHA-256": digest}
                               for path, digest in filed.files]),
                 hide_index=True, width="stretch")
    if filed.note is not None:
        st.info(filed.note)
        return
    st.dataframe(pd.DataFrame([
        {"casino": r.casino, "ruleset": r.id, "game": r.game,
         "in force from": r.effective_from, "in force until": r.effective_to or "no end date",
         "commission": commission_words(r)} for r in filed.rulesets]),
        hide_index=True, width="stretch")
    for tab, ruleset in zip(st.tabs([r.id for r in filed.rulesets]), filed.rulesets,
                            strict=True):
        with tab:
            st.markdown(f"Casino {code(ruleset.casino or '')}'s own ruleset: its rounds of "
                        f"{code(ruleset.game)} are judged by it while it is in force.")
            _ruleset(ruleset, default=False, today=today)


# What-if runs -----------------------------------------------------------------------------

WHATIF_DOC = "docs/whatif.md"


def _whatif_runs(ctx: PageContext) -> None:
    """The what-if runs under ``DATA/whatif/`` (dashboard/whatif_runs.py), each marked as
    not production, with whether its files match its manifest."""
    st.header("What-if runs (not production)")
    st.caption("Each run judged the rounds of one game again under a proposed ruleset "
               f"(`python -m replay whatif`, {code(WHATIF_DOC)}), beside production's "
               "judgement of the same rounds by the same engine. No other page reads them. "
               "Money is the patrons' expected net: positive, to the patrons; negative, to "
               "the house.")
    runs = whatif_runs(ctx.root)
    if not runs:
        st.info(f"No what-if runs under {code(ctx.root / WHATIF_DIR)}: "
                "`python -m replay whatif --ruleset ID` makes one.")
        return
    for run in runs:
        _whatif_run(run)


def whatif_provenance_words(run: WhatIfRun) -> str:
    """What can be said of the run's provenance (Markdown): a what-if, trusted or not, and
    why not."""
    log = _object(run.manifest or {}, "log")
    if not run.trusted:
        return ("What-if, not production, NOT TRUSTED: "
                + "; ".join(literal(p) for p in run.problems)
                + ". Its figures are not to be relied on; make the run again with "
                "`python -m replay whatif`.")
    records = log.get("records")
    size = f"{records:,} records" if type(records) is int else "an unknown number of records"
    return (f"What-if, not production. Its files match the SHA-256 its manifest names; the "
            f"manifest itself is not signed. It was built from the log's signed checkpoint "
            f"of {size} (Merkle root {code(log.get('root'))}), which verified when the run "
            "was made.")


def _whatif_run(run: WhatIfRun) -> None:
    st.subheader(f"What-if {run.name}")
    words = whatif_provenance_words(run)
    (st.warning if run.trusted else st.error)(words)
    manifest = run.manifest
    if manifest is None:
        return
    rulesets = _object(manifest, "rulesets")
    proposed = _object(rulesets, "proposed")
    production = rulesets.get("production")
    production = production if isinstance(production, list) else []
    counts = _object(manifest, "counts")
    since, until = manifest.get("since"), manifest.get("until")
    period = ("any day" if since is None and until is None
              else f"{since or 'the first day'} to {until or 'the last day'}")
    difference = counts.get("difference_cents")
    moved = (format_cents(difference, signed=True) if type(difference) is int else "unknown")
    lines = [
        f"Proposed ruleset: {code(proposed.get('id'))} (SHA-256 "
        f"{code(str(proposed.get('sha256'))[:16])}), from {code(proposed.get('source'))}",
        "Against production's: " + (", ".join(
            f"{code(r.get('id'))} (SHA-256 {code(str(r.get('sha256'))[:16])})"
            for r in production if isinstance(r, dict)) or "none"),
        f"Game: {code(manifest.get('game'))}; rounds dealt (UTC) {period}; casino: "
        f"{literal(manifest.get('casino') or 'every casino')}",
        f"Rounds judged under both: {_count(counts, 'rounds_judged')}; changed: "
        f"{_count(counts, 'rounds_changed')}; not evaluated under one or both: "
        f"{_count(counts, 'rounds_not_evaluated')} (listed in whatif_not_evaluated.parquet, "
        "counted neither changed nor unchanged)",
        f"Wagers changed: {_count(counts, 'wagers_changed')} of "
        f"{_count(counts, 'wagers_judged')}; money moved: {moved} (to the patrons when "
        "positive)",
    ]
    st.markdown("\n".join(f"- {line}" for line in lines))
    if run.summary is not None and not run.summary.empty:
        st.dataframe(whatif_table(run.summary), hide_index=True, width="stretch")


def _object(within: Mapping[str, Any], name: str) -> dict[str, Any]:
    """``within[name]`` when it is a JSON object, else an empty one (a manifest is read as
    found, never trusted to be well formed)."""
    value = within.get(name)
    return value if isinstance(value, dict) else {}


def _count(counts: Mapping[str, Any], name: str) -> str:
    value = counts.get(name)
    return f"{value:,}" if type(value) is int else "unknown"


def whatif_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The run's summary by casino, table, game and wager, money in dollars."""
    def money(column: str) -> list[str]:
        return [format_cents(int(v)) for v in summary[column]]

    return pd.DataFrame({
        "casino": summary["casino"], "table": summary["table_id"], "game": summary["game"],
        "wager": summary["wager"], "wagers judged": summary["wagers_judged"],
        "wagers changed": summary["wagers_changed"],
        "expected net, production": money("net_before_cents"),
        "expected net, proposed": money("net_after_cents"),
        "difference": [format_cents(int(v), signed=True) for v in summary["difference_cents"]],
    })
