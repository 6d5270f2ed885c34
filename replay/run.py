"""The replay stage: log in, Parquet out. The only part of replay that does I/O.

Reads the log written by ingest, folds it into rounds (replay/fold.py), judges each round
through the game registry under the ruleset in force on the day it was dealt, or the one the
table named (replay/reconstruct.py), and writes, under the output directory:

- ``rounds.parquet``: one row per round (game, ruleset, dealer, banker, evaluated or why not,
  its problems (a list, one element a problem) and their kinds, its one-line notation);
- ``hands.parquet``: one row per hand (cards or tiles as dealt and as set, re-sets, foul,
  house way for the dealer, the seat's decision);
- ``wagers.parquet``: one row per wager of every game, the dealer's own wager against a
  player banker included (seat null), with the recorded and the expected settlement;
- ``envy.parquet``: one row per seat of a round with Envy: recorded and expected Envy Bonus,
  and one row per recorded payment (``for_seat``);
- ``bankers.parquet``: one row per player-banked round: the banker's account recorded and
  expected;
- ``jackpots.parquet``: one row per progressive winner or jackpot declared: the award
  recorded and expected, the meter, and each verification step;
- ``timeline.parquet``: one row per event of each round, in the order the table recorded
  them (``table_seq``): when, who recorded it, the kind and a summary in words, the event a
  correction names and whether a correction replaced or struck it, and what it says as
  typed columns (seat, position, wager, outcome, action, for_seat: replay/timeline.py);
- ``findings.parquet``: the log-level findings (duplicates, sequence gaps, records that do
  not decode).

Same log and rulesets: byte-identical files (docs/design.md principle 5): rows are sorted,
no wall clock is read, and files are written with fixed options. This module names no game.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from replay.batch_decode import KeptRecords, events_of, log_entries, undecodable_finding
from replay.errors import ReplayError
from replay.fold import DEALER, Finding, Replayed, RoundState
from replay.games import find_game
from replay.games.results import BankerEntry
from replay.outputs import REPLAY_FORMAT, output_signer, write_signed
from replay.parallel import RowMaker, Shard, Workers, replay_entries, write_parquet
from replay.reconstruct import (
    Judgement,
    award_from_meter,
    banker_text,
    dealt_at,
    judge_state,
    judged_hand,
    progressive_classes,
)
from replay.refusal import clear_refused
from replay.rulebook import Rulebook, shipped_book
from replay.rulesets import PROGRESSIVE_RESET_CENTS
from replay.timeline import timeline_rows
from schemas import JACKPOT_STEPS, RoundEvent
from schemas.checkpoint import Signer

QUALIFYING_WAGER_OPTION = "qualifying_wager_cents"
"""The ruleset option of the least Qualifying Wager (58 Pa. Code § 688a.1; docs/rules.md 6a.11;
``replay.games.pai_gow_bonus.QUALIFYING_WAGER_CENTS``, named here as this module names no
game)."""
RESET_OPTION = PROGRESSIVE_RESET_CENTS
"""The ruleset option of the amount a progressive meter resets to after a hit
(docs/rulesets.md; absent from the shipped rulesets: neither the rule texts nor
docs/rules.md give one)."""
_TS = pa.timestamp("us", tz="UTC")
ROUNDS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()), ("ruleset", pa.string()),
    ("dealt_at", _TS), ("dealer_id", pa.string()), ("banker", pa.string()),
    ("evaluated", pa.bool_()), ("voided", pa.bool_()), ("void_reason", pa.string()),
    ("ended", pa.bool_()), ("events", pa.int32()), ("corrections", pa.int32()),
    ("progressive_meter_cents", pa.int64()), ("progressive_meter_id", pa.string()),
    ("progressive_reset_cents", pa.int64()),
    ("seat_order", pa.list_(pa.int32())),
    ("problems", pa.list_(pa.string())), ("problem_kinds", pa.list_(pa.string())),
    ("notation", pa.string()),
    ("wagered_cents", pa.int64()), ("house_win_cents", pa.int64()),
    ("mispay_cents", pa.int64()), ("mispaid_wagers", pa.int32()),
    ("vocabulary", pa.int32()), ("banker_cover_cents", pa.int64()),
])
"""``problems``: the round's problems in words, one element a problem in the order the fold
and the rules engine found them (empty when none; a problem's words may hold "; ", so
they are never joined for a reader to split); ``problem_kinds``: their kinds, sorted,
each once. ``progressive_meter_cents`` and ``progressive_meter_id``: the round's last reading of the
progressive meter and the id of the meter read (ProgressiveMeterRead; null when none);
``progressive_reset_cents``: the amount the meter resets to after a hit, the judging
ruleset's option ``progressive_reset_cents`` (null when the ruleset is unknown or names none;
docs/rulesets.md). ``seat_order``: the table's seats from the dealer's far right, right to
left (counter-clockwise seen from above, docs/rules.md 6a.21), by the table layout the casino
filed that was in force when the round was dealt (docs/rulesets.md "Table layouts"); null
when the casino filed none for the table, none was in force then, or the round has no
dealt_at. ``wagered_cents`` and ``house_win_cents``: the patrons' wagers of the
round (the player banker's bank, the dealer's own wager against it and the Progressive, which
is paid from the meter, left out) and the house's win on them as recorded (minus their
recorded nets; a wager never settled counts 0); ``mispay_cents``: recorded minus expected net
over every patron's wager settled outside its lawful range, the expected net being the nearer
end of the range (docs/rules.md 6a.19), and ``mispaid_wagers``: how many of the round's
wagers were settled for a net outside it (never settled included), both null when the round
was not evaluated. The surveillance checks read them instead of every wager. A total that
does not fit 64 bits is null. ``vocabulary``: the smallest schema id among the round's events
(the id of each event's frame in the log; null when not known), so that a check of a fact
only schema id 3 can carry judges only rounds recorded under it; ``banker_cover_cents``:
what the player banker put up to cover the wagers against the bank (RoundStarted, schema
id 3; pai gow poker procedure (11)), null when not recorded."""
HANDS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()),
    ("position", pa.string()), ("seat", pa.int32()), ("cards", pa.string()),
    ("high", pa.string()), ("low", pa.string()), ("high_rank", pa.string()),
    ("low_rank", pa.string()), ("foul", pa.bool_()), ("house_way", pa.bool_()),
    ("house_way_high", pa.string()), ("house_way_low", pa.string()),
    ("resets", pa.int32()), ("exposed", pa.bool_()), ("action", pa.string()),
])
RANGE_COLUMNS = (
    ("expected_net_min_cents", pa.int64()), ("expected_net_max_cents", pa.int64()),
    ("expected_commission_min_cents", pa.int64()), ("expected_commission_max_cents", pa.int64()),
)
"""The lawful range of an expected settlement, both ends included (docs/rules.md 6a.19)."""
WAGERS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()), ("ruleset", pa.string()), ("dealt_at", _TS),
    ("dealer_id", pa.string()), ("banker", pa.string()),
    ("seat", pa.int32()), ("position", pa.string()), ("wager", pa.string()),
    ("amount_cents", pa.int64()),
    ("recorded_outcome", pa.string()), ("recorded_net_cents", pa.int64()),
    ("recorded_commission_cents", pa.int64()),
    ("expected_outcome", pa.string()), ("expected_net_cents", pa.int64()),
    ("expected_commission_cents", pa.int64()),
    *RANGE_COLUMNS,
    ("patron_id", pa.string()),
])
"""``expected_net_cents`` and ``expected_commission_cents`` are the house's default
settlement; ``expected_*_min_cents`` and ``expected_*_max_cents`` the lawful range of each
(docs/rules.md 6a.19), equal to the point where the rules leave no choice, null with it.
``patron_id``: the casino's player-tracking id of the patron who placed the wager
(WagerPlaced, schema id 3), null when not recorded (always for the dealer's own wager)."""
ENVY = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()),
    ("seat", pa.int32()), ("for_seat", pa.int32()), ("for_position", pa.string()),
    ("row", pa.string()), ("recorded_cents", pa.int64()), ("expected_cents", pa.int64()),
    ("qualifying_wager", pa.bool_()), ("qualifying_wager_cents", pa.int64()),
    ("qualifying_minimum_cents", pa.int64()),
])
"""``qualifying_minimum_cents``: the least Qualifying Wager of the ruleset that judged the
round (its option ``qualifying_wager_cents``: the casino's own, 58 Pa. Code § 688a.1 says $5;
null when the ruleset is unknown or names none), which the Envy checks use before their
parameter. ``qualifying_wager``: the seat holds a Fortune or Progressive wager; and
``qualifying_wager_cents``, its largest (null when none), which the Envy checks compare
with the ruleset's minimum for a Qualifying Wager."""
BANKERS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()),
    ("seat", pa.int32()), ("co_bank", pa.bool_()),
    ("recorded_net_cents", pa.int64()), ("recorded_commission_cents", pa.int64()),
    ("expected_net_cents", pa.int64()), ("expected_commission_cents", pa.int64()),
    ("expected_house_net_cents", pa.int64()),
    *RANGE_COLUMNS,
])
"""The banker's lawful range (``expected_*_min_cents``, ``expected_*_max_cents``) as in
:data:`WAGERS`: the commission's range and a co-bank's odd cent (docs/rules.md 6a.19)."""
JACKPOTS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()),
    ("seat", pa.int32()), ("hand", pa.string()), ("judged_hand", pa.string()),
    ("hand_known", pa.bool_()), ("progressive_meter_cents", pa.int64()),
    ("recorded_award_cents", pa.int64()), ("expected_net_cents", pa.int64()),
    *[(step, pa.bool_()) for step in JACKPOT_STEPS],
    ("validated_by", pa.string()), ("validator_role", pa.string()), ("paid_from", pa.string()),
    ("award_from_meter", pa.bool_()), ("steps", pa.string()),
])
"""``hand``: the class the table declared (JackpotHit); ``judged_hand``: the class the engine
judged from the seat's dealt cards (reconstruct.judged_hand; null when it makes none or
cannot be judged); ``hand_known``: the declared class is a line of the judging ruleset's
progressive paytable (null without a declaration or a known ruleset); ``award_from_meter``:
the posted award of the judged class is a share of the meter."""
FINDINGS = pa.schema([
    ("kind", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("round_id", pa.string()),
    ("where", pa.string()), ("detail", pa.string()),
])
TIMELINE = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()),
    ("table_seq", pa.int64()), ("occurred_at", _TS), ("recorded_by", pa.string()),
    ("event", pa.string()), ("summary", pa.string()), ("event_id", pa.string()),
    ("corrects", pa.string()), ("superseded", pa.bool_()), ("replacement", pa.string()),
    ("seat", pa.int32()), ("position", pa.string()), ("wager", pa.string()),
    ("outcome", pa.string()), ("action", pa.string()), ("for_seat", pa.int32()),
    ("net_cents", pa.int64()),
    ("bank_to", pa.string()), ("bank_reason", pa.string()), ("shuffle", pa.string()),
    ("deck_id", pa.string()), ("patron_id", pa.string()),
    ("stands_at", pa.int64()),
])
"""One row per event of a round, corrections included, by ``table_seq``: ``event`` the
payload kind in words (``wager placed``), ``summary`` what it says (``seat 3 placed Fortune
$5.00``, money from integer cents), ``corrects`` the event id a correction names (else
null), ``superseded`` whether a correction replaced or struck the event (replay/timeline.py;
docs/rules.md 8.5); then what the event says as typed columns, for the checks of the order of
play: ``seat`` (null: the dealer, or the whole round), ``position`` (``dealer``, ``banker``,
``seat N``), ``wager``, ``outcome``, ``action``, ``for_seat`` (an Envy Bonus's holder),
``net_cents`` (a settlement's recorded net), and of schema id 3: ``bank_to`` (who banks the
next round, ``dealer`` or ``seat N``) and ``bank_reason`` (``rotation``, ``declined``,
``cannot_cover``) on a bank-passed row, ``shuffle`` (``reshuffle``, ``deck_change``) and
``deck_id`` on a shuffled row, ``patron_id`` (the player-tracking id) on a wager-placed row;
a correction carrying its replacement's and ``replacement`` its kind in words
(replay/timeline.py ``facts``); ``stands_at`` the ``table_seq`` where what the row says
stands in the corrected round (a replacement at the place of the event it replaced; null
for what no longer stands)."""
TABLES = {"rounds": ROUNDS, "hands": HANDS, "wagers": WAGERS, "envy": ENVY,
          "bankers": BANKERS, "jackpots": JACKPOTS, "timeline": TIMELINE,
          "findings": FINDINGS}


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplaySummary:
    rounds: int
    evaluated: int
    wagers: int
    findings: tuple[Finding, ...]
    verified: bool
    """Whether the caller said the log was verified (the manifest's ``verified``)."""
    verification: str


def events_from_log(log_dir: Path,
                    findings: list[Finding]) -> Iterator[tuple[str, RoundEvent, int]]:
    """Decode every log record into ``(where, event, schema id)`` for the fold; one that does
    not decode is a finding, never a crash.
    Records are decoded many at a time (replay/batch_decode.py), with the same events and
    the same findings as decoding them one by one."""
    return events_of(log_entries(log_dir),
                     lambda entry, exc: findings.append(undecodable_finding(entry[1], exc)))


def _banker_range(entry: BankerEntry | None) -> dict[str, int | None]:
    """The banker's lawful range as :data:`BANKERS` columns (the point when it has none)."""
    if entry is None:
        return {name: None for name, _ in RANGE_COLUMNS}
    net_lo, net_hi = entry.get("net_range", (entry["net"], entry["net"]))
    com_lo, com_hi = entry.get("commission_range", (entry["commission"], entry["commission"]))
    return {"expected_net_min_cents": net_lo, "expected_net_max_cents": net_hi,
            "expected_commission_min_cents": com_lo, "expected_commission_max_cents": com_hi}


def _position(seat: int) -> str:
    return "dealer" if seat == DEALER else f"seat {seat}"


def _joined(tokens: Any) -> str | None:
    return None if tokens is None else " ".join(tokens)


def _describer(game: str | None) -> Callable[[Any], str | None]:
    """The game's namer of hands (GameRules.describe_hand), never raising."""
    try:
        describe = find_game(game).describe_hand if game is not None else None
    except LookupError:
        describe = None
    if describe is None:
        return lambda tokens: None

    def safe(tokens: Any) -> str | None:
        try:
            return describe(tokens)
        except (ReplayError, ValueError, LookupError):
            return None

    return safe


def _int64(value: int) -> int | None:
    return value if -(2**63) <= value < 2**63 else None


def _round_totals(state: RoundState, j: Judgement) -> dict[str, int | None]:
    """The round's totals of :data:`ROUNDS` (``wagered_cents`` ... ``mispaid_wagers``)."""
    wagered = house_win = mispay = mispaid = 0
    for seat, wager, amount in state.wagers:
        rec = state.settlement(seat, wager)
        net = rec.net_cents if rec is not None else None
        exp = j.expected.get((seat, wager)) if j.evaluated else None
        lawful = exp is not None and net is not None and (
            exp.net_range[0] <= net <= exp.net_range[1])
        if not lawful:
            mispaid += 1
        if seat == DEALER or (seat == state.banker_seat and wager == "main"):
            continue
        if exp is not None and not lawful:
            low, high = exp.net_range
            nearest = exp.net_cents if net is None else high if net > high else low
            mispay += (net or 0) - nearest
        if wager != "progressive":
            wagered += amount
            house_win -= net or 0
    return {"wagered_cents": _int64(wagered), "house_win_cents": _int64(house_win),
            "mispay_cents": _int64(mispay) if j.evaluated else None,
            "mispaid_wagers": mispaid if j.evaluated else None}


def rows_of(state: RoundState, j: Judgement,
            book: Rulebook | None = None) -> dict[str, list[dict[str, Any]]]:
    """One round's rows for every table (see the module docstring); ``book``: the rulebook
    it was judged by (the shipped rulesets by default), for its posted paytables."""
    game = state.game
    banker = banker_text(state)
    when = dealt_at(state)
    result: Mapping[str, Any] = j.result or {}
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES if name != "findings"}
    out["rounds"].append({
        "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
        "game": game, "ruleset": j.ruleset, "dealt_at": when, "dealer_id": state.dealer_id,
        "banker": banker, "evaluated": j.evaluated, "voided": state.voided is not None,
        "void_reason": state.voided, "ended": state.ended, "events": state.events,
        "corrections": len(state.corrections), "progressive_meter_cents": state.meter_cents,
        "progressive_meter_id": state.meter_id,
        "progressive_reset_cents": _ruleset_cents(j.ruleset, book, RESET_OPTION),
        "seat_order": _seat_order(state.casino, state.table_id, when, book),
        "problems": [p.detail for p in j.problems],
        "problem_kinds": sorted({p.kind.value for p in j.problems}),
        "notation": j.notation,
        **_round_totals(state, j),
        "vocabulary": state.vocabulary, "banker_cover_cents": state.banker_cover_cents,
    })
    seat_results = {s["seat"]: s for s in result.get("seats", ())}
    describe = _describer(game)
    dealer_result = result.get("dealer") or {}
    for seat in (DEALER, *state.seats):
        hand = state.hand_set(seat)
        row: dict[str, Any] = {
            "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
            "game": game,
            "position": _position(seat), "seat": None if seat == DEALER else seat,
            "cards": _joined(state.cards(seat)),
            "high": _joined(hand[0]) if hand else None,
            "low": _joined(hand[1]) if hand else None,
            "high_rank": describe(hand[0]) if hand else None,
            "low_rank": describe(hand[1]) if hand else None,
            "foul": None, "house_way": None,
            "house_way_high": None, "house_way_low": None,
            "resets": state.resets.count(seat), "exposed": seat in state.exposed,
            "action": None if seat == DEALER else state.action(seat),
        }
        if seat == DEALER and dealer_result:
            row.update(foul=dealer_result.get("foul"), house_way=dealer_result.get("house_way"))
        elif seat in seat_results:
            row["foul"] = seat_results[seat].get("foul")
        out["hands"].append(row)
    for seat, wager, amount in sorted(state.wagers):
        rec = state.settlement(seat, wager)
        exp = j.expected.get((seat, wager))
        out["wagers"].append({
            "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
            "game": game, "ruleset": j.ruleset, "dealt_at": when, "dealer_id": state.dealer_id,
            "banker": banker, "seat": None if seat == DEALER else seat,
            "position": ("banker" if seat == state.banker_seat and wager == "main"
                         else _position(seat)),
            "wager": wager, "amount_cents": amount,
            "recorded_outcome": rec.outcome if rec else None,
            "recorded_net_cents": rec.net_cents if rec else None,
            "recorded_commission_cents": rec.commission_cents if rec else None,
            "expected_outcome": exp.outcome if exp and j.evaluated else None,
            "expected_net_cents": exp.net_cents if exp and j.evaluated else None,
            "expected_commission_cents": exp.commission_cents if exp and j.evaluated else None,
            "expected_net_min_cents": exp.net_range[0] if exp and j.evaluated else None,
            "expected_net_max_cents": exp.net_range[1] if exp and j.evaluated else None,
            "expected_commission_min_cents": (exp.commission_range[0] if exp and j.evaluated
                                              else None),
            "expected_commission_max_cents": (exp.commission_range[1] if exp and j.evaluated
                                              else None),
            "patron_id": state.patron(seat, wager) if state.patrons else None,
        })
    largest: dict[int, int] = {}
    for s, w, a in state.wagers:
        if w in ("fortune", "progressive") and a > 0:
            largest[s] = max(a, largest.get(s, 0))
    qualifying = set(largest)
    minimum = _qualifying_minimum(j.ruleset, book)
    envy_seats = {s for s, _, _ in state.envy}
    if j.evaluated:
        envy_seats |= {s for s, v in j.envy.items() if v}
    for seat in sorted(envy_seats):
        out["envy"].append({
            "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
            "game": game,
            "seat": seat, "for_seat": None, "for_position": None, "row": "total",
            "recorded_cents": sum(a for s, _, a in state.envy if s == seat),
            "expected_cents": j.envy.get(seat, 0) if j.evaluated else None,
            "qualifying_wager": seat in qualifying,
            "qualifying_wager_cents": largest.get(seat),
            "qualifying_minimum_cents": minimum,
        })
    for seat, for_seat, amount in sorted(state.envy, key=lambda x: (x[0], x[1] or 0, x[2])):
        out["envy"].append({
            "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
            "game": game,
            "seat": seat, "for_seat": for_seat,
            "for_position": "dealer" if for_seat is None else f"seat {for_seat}",
            "row": "payment", "recorded_cents": amount, "expected_cents": None,
            "qualifying_wager": seat in qualifying,
            "qualifying_wager_cents": largest.get(seat),
            "qualifying_minimum_cents": minimum,
        })
    if state.banker_seat is not None:
        exp_b = result.get("banker") if j.evaluated else None
        rec_b = state.banker_settled
        out["bankers"].append({
            "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
            "game": game,
            "seat": state.banker_seat, "co_bank": state.co_bank,
            "recorded_net_cents": rec_b[1] if rec_b else None,
            "recorded_commission_cents": rec_b[2] if rec_b else None,
            "expected_net_cents": exp_b["net"] if exp_b else None,
            "expected_commission_cents": exp_b["commission"] if exp_b else None,
            "expected_house_net_cents": exp_b["house_net"] if exp_b else None,
            **_banker_range(exp_b),
        })
    winners = {s for (s, w), e in j.expected.items()
               if w == "progressive" and e.outcome == "win"}
    for seat in sorted(winners | {s for s, _, _ in state.jackpots}):
        steps = [x for x in state.jackpot_steps if x.seat == seat]
        hit = next((x for x in state.jackpots if x[0] == seat), None)
        validated = next((x for x in steps if x.step == "validated"), None)
        paid = next((x for x in steps if x.step == "paid"), None)
        exp_p = j.expected.get((seat, "progressive"))
        judged = judged_hand(state, seat, j.ruleset, book)
        classes = progressive_classes(j.ruleset, book) if hit else None
        out["jackpots"].append({
            "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
            "game": game,
            "seat": seat, "hand": hit[1] if hit else None, "judged_hand": judged,
            "hand_known": None if hit is None or classes is None else hit[1] in classes,
            "progressive_meter_cents": state.meter_cents,
            "recorded_award_cents": hit[2] if hit else None,
            "expected_net_cents": exp_p.net_cents if exp_p and j.evaluated else None,
            **{step: any(x.step == step for x in steps) for step in JACKPOT_STEPS},
            "validated_by": validated.employee_id if validated else None,
            "validator_role": validated.role if validated else None,
            "paid_from": paid.paid_from if paid else None,
            "award_from_meter": award_from_meter(j.ruleset, judged, book),
            "steps": ", ".join(f"{x.step} by {x.employee_id} ({x.role})" for x in steps)
            or None,
        })
    out["timeline"] = timeline_rows(state)
    return out


def judge_rounds(replayed: Replayed,
                 book: Rulebook | None = None) -> Iterator[tuple[RoundState, Judgement]]:
    """Every folded round with its judgement under ``book`` (default: the shipped rulesets),
    in (casino, table, round) order."""
    for state in sorted(replayed.rounds, key=lambda s: s.key):
        yield state, judge_state(state, book)


def warm_rules_engine() -> None:
    """Build what the rules engine builds on first use, as judging would: the shipped
    rulesets, the 5-card and 7-card tables (filled as hands are met, to keep replay fast, so
    little here) and the house way's straights (about 0.02 s; 0.8 s when the tables were
    built whole)."""
    from replay.cards import DECK_53
    from replay.games.pai_gow_house_way import house_way_setting
    from replay.games.poker_ranks import rank_tables
    from replay.games.seven_card_classes import seven_card_class
    from replay.rulesets import Wheel, shipped_rulesets

    shipped_rulesets()
    for wheel in Wheel:
        rank_tables(wheel)
    seven_card_class(DECK_53[:7])
    house_way_setting(DECK_53[:7])


ROWS = RowMaker(judge=judge_rounds, rows_of=rows_of,
                schemas={name: s for name, s in TABLES.items() if name != "findings"},
                warm=warm_rules_engine)
"""What a judged round becomes, for :func:`replay.parallel.replay_entries`."""


@dataclass(frozen=True, slots=True)
class _JudgeBy:
    """:func:`judge_rounds` under one rulebook: a value (compared, and pickled for spawned
    helpers, with its rulebook), so that every process of a replay judges by the same."""

    book: Rulebook

    def __call__(self, replayed: Replayed) -> Iterator[tuple[RoundState, Judgement]]:
        return judge_rounds(replayed, self.book)


@dataclass(frozen=True, slots=True)
class _RowsBy:
    """:func:`rows_of` under one rulebook (see :class:`_JudgeBy`)."""

    book: Rulebook

    def __call__(self, state: RoundState, j: Judgement) -> dict[str, list[dict[str, Any]]]:
        return rows_of(state, j, self.book)


def _qualifying_minimum(ruleset_id: str | None, book: Rulebook | None) -> int | None:
    """The least Qualifying Wager in cents of ``ruleset_id`` (found in ``book``, default the
    shipped rulesets); None when the ruleset is unknown or has no such option."""
    return _ruleset_cents(ruleset_id, book, QUALIFYING_WAGER_OPTION)


def _seat_order(casino: str | None, table_id: str | None, when: Any,
                book: Rulebook | None) -> list[int] | None:
    """``rounds.seat_order``: the seats of the layout in force when the round was dealt."""
    if book is None or casino is None or table_id is None:
        return None
    order = book.seat_order(casino, table_id, when)
    return None if order is None else list(order)


def _ruleset_cents(ruleset_id: str | None, book: Rulebook | None, option: str) -> int | None:
    """The amount in cents of ``option`` in ``ruleset_id`` (found in ``book``, default the
    shipped rulesets); None when the ruleset is unknown or has no such option."""
    if ruleset_id is None:
        return None
    try:
        value = (shipped_book() if book is None else book).find(ruleset_id).options.get(option)
    except (ReplayError, LookupError):
        return None
    return value if type(value) is int and value >= 0 else None


def rows_for(book: Rulebook | None) -> RowMaker:
    """:data:`ROWS` judging by ``book`` (:data:`ROWS` itself for None or the shipped
    rulesets alone)."""
    if book is None or book == shipped_book():
        return ROWS
    return RowMaker(judge=_JudgeBy(book), rows_of=_RowsBy(book), schemas=ROWS.schemas,
                    warm=ROWS.warm)


def start_workers(workers: int, book: Rulebook | None = None) -> Workers:
    """The helper processes of ``replay(..., workers=N, book=book)``, started ahead of it:
    they import the code and build the rules engine's tables while the caller verifies the
    log. Pass the result as ``workers``, within ``with start_workers(n, book) as pool:``;
    they judge by ``book`` (default: the shipped rulesets), as the replay must."""
    return Workers(workers, rows_for(book))


MANIFEST = "manifest.json"
MANIFEST_FORMAT = REPLAY_FORMAT
"""Signed (replay/outputs.py): ``manifest.sig`` beside it; ``/1`` was unsigned, ``/2`` wrote
``rounds.problems`` as one text (the problems joined with "; ")."""
PROVENANCE_KEY = b"catwalk.provenance"
"""The Parquet schema metadata key under which every file carries the log's provenance."""
NO_VERIFICATION = "not verified: replay was given no verification"
LOG_KEYS = ("records", "root", "checkpoint", "key_fingerprint")
"""What the caller may say about the log beside ``verified`` and ``verification``."""


def provenance_of(given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The provenance replay records, from what its caller found when verifying the log:
    ``{"verified", "verification", "key_pinned", "log": {records, root, checkpoint,
    key_fingerprint}}`` (``key_pinned``: the key that verified was given or in the keyring
    ``CATWALK_TRUSTED_KEYS``, not only found beside the log; absent: false). None: not
    verified. ValueError for a key it does not know or a value of the wrong type
    (a record of trust is not guessed at)."""
    if given is None:
        return {"verified": False, "verification": NO_VERIFICATION, "key_pinned": False,
                "log": dict.fromkeys(LOG_KEYS)}
    unknown = sorted(set(given) - {"verified", "verification", "key_pinned", *LOG_KEYS})
    if unknown:
        raise ValueError(f"provenance: unknown key(s) {', '.join(map(repr, unknown))}; known: "
                         f"verified, verification, key_pinned, {', '.join(LOG_KEYS)}")
    verified, verification = given.get("verified"), given.get("verification")
    if not isinstance(verified, bool):
        raise ValueError(f"provenance: 'verified' must be true or false, got {verified!r}")
    if not isinstance(verification, str) or not verification.strip():
        raise ValueError("provenance: 'verification' must say in words what was verified")
    records = given.get("records")
    if records is not None and (type(records) is not int or records < 0):
        raise ValueError(f"provenance: 'records' must be a count, got {records!r}")
    log: dict[str, Any] = {"records": records}
    for key in LOG_KEYS[1:]:
        value = given.get(key)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"provenance: {key!r} must be text or null, got {value!r}")
        log[key] = value
    pinned = given.get("key_pinned", False)
    if not isinstance(pinned, bool):
        raise ValueError(f"provenance: 'key_pinned' must be true or false, got {pinned!r}")
    return {"verified": verified, "verification": verification, "key_pinned": pinned,
            "log": log}


def trees_of(checkpoint: str | None) -> list[dict[str, Any]]:
    """The tree size and root (hex) of each chain's signed checkpoint in ``checkpoint``
    (one note, or per chain a line ``chain NAME`` then its note), for the manifest; a note
    that does not parse is left out (the verification that gave it already checked it)."""
    from schemas.checkpoint import CheckpointError, parse

    if not checkpoint:
        return []
    parts: list[tuple[str, str]] = []
    chain, lines = "-", list[str]()
    for line in checkpoint.splitlines(keepends=True):
        if line.startswith("chain ") and not lines:
            chain = line[len("chain "):].strip()
            continue
        lines.append(line)
        if line.startswith("\u2014 ") and line.endswith("\n"):
            parts.append((chain, "".join(lines)))
            chain, lines = "-", []
    trees = []
    for name, note in parts:
        try:
            point = parse(note)
        except CheckpointError:
            continue
        trees.append({"chain": name, "log_id": point.log_id, "size": point.size,
                      "root": point.root.hex()})
    return trees

@functools.cache
def code_version() -> str:
    """``catwalk <version> (git <commit>)``: the package's version and the commit checked out
    where this code lives (``unknown`` when that is not a git checkout or git is absent). The
    same for the same checkout; uncommitted edits are not seen."""
    import importlib.metadata  # here: replay's helper processes never need it

    try:
        version = importlib.metadata.version("catwalk")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    repo = Path(__file__).resolve().parent.parent
    commit = "unknown"
    if (repo / ".git").exists():
        try:
            done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                                  text=True, timeout=30, check=False)
        except (OSError, subprocess.SubprocessError):
            done = None
        if done is not None and done.returncode == 0 and re.fullmatch(
                r"[0-9a-f]{40}|[0-9a-f]{64}", done.stdout.strip()):
            commit = done.stdout.strip()
    return f"catwalk {version} (git {commit})"


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def replay(log_dir: Path, out_dir: Path,
           progress: Callable[[int], None] | None = None, *, workers: int | Workers = 1,
           provenance: Mapping[str, Any] | None = None,
           records: KeptRecords | None = None,
           book: Rulebook | None = None, signer: Signer | None = None) -> ReplaySummary:
    """Fold the whole log, judge every round, write the Parquet tables and ``manifest.json``.
    With ``workers`` above 1 (or the helpers :func:`start_workers` started) the tables'
    records are folded and judged in that many processes (replay/parallel.py); the files
    are the same, byte for byte.

    ``provenance`` is what the caller found when it verified the log (see
    :func:`provenance_of`); it goes into the manifest and, as JSON under
    :data:`PROVENANCE_KEY` with the rulesets used and the code version, into every file's
    schema metadata. None: not verified.

    ``records``: the log's records as its verification read them
    (``replay.batch_decode.KeptRecords``), replayed instead of reading the log again; give
    them only when the log verified (the verifier stops at the first problem).

    ``out_dir`` is switched atomically (:func:`publish`): the files are written to a new
    directory beside it, which ``out_dir`` (a symbolic link) then names. A failure leaves the
    previous outputs as they were.

    ``book``: the rulesets rounds are judged by (replay/rulebook.py; default the shipped
    ones alone; helpers started ahead must have been started with it); the manifest and
    every file's metadata list the files of its rulesets directory (``ruleset_files``).

    ``signer``: the key the manifest is signed with (replay/outputs.py ``output_signer``;
    default ``DATA/keys/outputs.key`` beside ``out_dir``, made on first use)."""
    recorded = provenance_of(provenance)  # a bad provenance fails before any work
    signer = signer or output_signer(Path(os.path.abspath(out_dir)).parent)
    twice: list[tuple[int, Finding]] = []
    done = replay_entries(log_entries(log_dir, records, twice), rows_for(book),
                          workers=workers, progress=progress)
    return write_replay(out_dir, done, recorded, book, twice=twice, signer=signer)


def write_replay(out_dir: Path, done: Shard, recorded: Mapping[str, Any],
                 book: Rulebook | None = None,
                 twice: list[tuple[int, Finding]] | None = None, *,
                 signer: Signer | None = None) -> ReplaySummary:
    """Write what replaying the log gave (``done``: its rows and log-level findings) under
    ``out_dir`` as :func:`replay` writes it, the manifest and every file's metadata saying
    ``recorded`` (:func:`provenance_of`); published atomically (:func:`publish`).
    replay/live.py gives it the rows it keeps between passes over a growing log. ``twice``:
    the messages two chains hold that were taken once (``replay.batch_decode.entries_of``),
    findings listed first. The manifest lists every file's SHA-256 and size, the trees the
    log's checkpoints sign and whether the log's key was pinned, and is signed
    (``manifest.sig``, replay/outputs.py) with ``signer`` (default: the outputs' key of the
    data directory) in the same switch."""
    signer = signer or output_signer(Path(os.path.abspath(out_dir)).parent)
    key_pinned = bool(recorded.get("key_pinned", False))
    all_findings = tuple(f for _, f in (*(twice or ()), *done.undecodable,
                                        *done.fold_findings))
    tables = dict(done.tables)
    tables["findings"] = pa.Table.from_pylist(
        [{"kind": f.kind, "casino": f.casino, "table_id": f.table_id or None,
          "round_id": f.round_id, "where": f.where, "detail": f.detail}
         for f in all_findings], schema=FINDINGS)
    rulesets = sorted({r for r in tables["rounds"]["ruleset"].to_pylist() if r is not None})
    ruleset_files = (shipped_book() if book is None else book).manifest_files()
    metadata = {PROVENANCE_KEY: _canonical({**recorded, "rulesets": rulesets,
                                            "ruleset_files": ruleset_files,
                                            "code_version": code_version()})}

    def write(build: Path) -> None:
        files = {}
        for name in TABLES:
            table = tables[name].replace_schema_metadata(metadata)
            files[f"{name}.parquet"] = write_parquet(table, build / f"{name}.parquet")
        manifest = {"format": MANIFEST_FORMAT, "verified": recorded["verified"],
                    "verification": recorded["verification"], "log": recorded["log"],
                    "key_pinned": key_pinned,
                    "trees": trees_of(recorded["log"].get("checkpoint")),
                    "rulesets": rulesets, "ruleset_files": ruleset_files,
                    "code_version": code_version(), "files": files,
                    "sizes": {name: (build / name).stat().st_size for name in files}}
        write_signed(build, manifest, signer)

    publish(out_dir, write)
    clear_refused(out_dir)
    rounds = tables["rounds"]
    return ReplaySummary(rounds=rounds.num_rows,
                         evaluated=pc.sum(rounds["evaluated"]).as_py() or 0,
                         wagers=tables["wagers"].num_rows, findings=all_findings,
                         verified=recorded["verified"], verification=recorded["verification"])


# Publishing a set of files atomically ---------------------------------------------------
#
# ``out`` is a symbolic link to ``.<out>-NNNNNN`` beside it (a generation). A replay writes
# its files into a fresh ``.<out>.building-<pid>-<random>``, fsyncs them and the directory,
# renames it to the next generation, and replaces ``out`` with a new link to it
# (``os.replace`` of a link is atomic on POSIX): a reader resolving ``out`` sees the old set
# or the new one, never a mix nor a half-written one. The generation ``out`` named before
# stays until the next replay, so that a reader who resolved the link just before the
# switch can finish; older ones go. A build left by a process that died (killed, power
# lost) is removed by the next replay; one that fails in this process is removed at once.
# A real directory ``out`` (written by older versions) is swapped for the link atomically
# with renameat2(RENAME_EXCHANGE) where Linux offers it, else by two renames (a moment
# without ``out``), and then removed.

_GENERATION = re.compile(r"-(\d{6,})")
_TEMPORARY = re.compile(r"\.(?:building|link|old)-(\d+)(?:-.*)?")


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def _siblings(out: Path) -> Iterator[tuple[str, str, Path]]:
    """Replay's own entries beside ``out``: ("generation", number, path) and
    ("temporary", pid, path)."""
    prefix = f".{out.name}"
    for entry in out.parent.iterdir():
        if not entry.name.startswith(prefix):
            continue
        rest = entry.name[len(prefix):]
        if (m := _GENERATION.fullmatch(rest)) and entry.is_dir() and not entry.is_symlink():
            yield "generation", m.group(1), entry
        elif m := _TEMPORARY.fullmatch(rest):
            yield "temporary", m.group(1), entry


def _sweep_dead(out: Path) -> None:
    """Remove what replays that died left beside ``out`` (their pid is gone)."""
    for what, pid, path in list(_siblings(out)):
        if what == "temporary" and not _alive(int(pid)):
            _remove(path)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two names atomically (Linux renameat2 RENAME_EXCHANGE); False where the system
    cannot."""
    if sys.platform != "linux":
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    """One replay at a time switches ``out`` and removes generations."""
    fd = os.open(out.parent / f".{out.name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def publish(out: Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(directory)`` to fill a fresh directory beside ``out``, then make ``out``
    name it, atomically; the generation directory. ``write`` must fsync what it writes.
    Anything raised (a full disk, an interrupt) leaves ``out`` as it was and removes the
    new directory."""
    out = Path(os.path.abspath(out))
    if out.exists() and not out.is_dir():
        raise ReplayError(f"{out} exists and is not a directory: not replacing it")
    out.parent.mkdir(parents=True, exist_ok=True)
    _sweep_dead(out)
    pid = os.getpid()
    build = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-{pid}-", dir=out.parent))
    try:
        write(build)
        _fsync_dir(build)
        with _locked(out):
            return _switch(out, build, pid)
    finally:
        if build.exists():
            shutil.rmtree(build, ignore_errors=True)


def _switch(out: Path, build: Path, pid: int) -> Path:
    parent, name = out.parent, out.name
    before = (parent / os.readlink(out)).resolve() if out.is_symlink() else None
    numbers = [int(n) for what, n, _ in _siblings(out) if what == "generation"]
    number = max(numbers, default=0) + 1
    while True:
        final = parent / f".{name}-{number:06d}"
        try:
            os.rename(build, final)
            break
        except OSError as exc:
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
            number += 1
    link = parent / f".{name}.link-{pid}"
    _remove(link)
    os.symlink(final.name, link)
    if out.is_symlink() or not out.exists():
        os.replace(link, out)
    else:  # a real directory, from an older version
        old = parent / f".{name}.old-{pid}"
        _remove(old)
        if _exchange(link, out):
            os.rename(link, old)
        else:
            os.rename(out, old)
            os.replace(link, out)
        shutil.rmtree(old, ignore_errors=True)
    _fsync_dir(parent)
    for what, _, path in list(_siblings(out)):
        if what == "generation" and path not in (final, before):
            shutil.rmtree(path, ignore_errors=True)
    return final
