"""The replay stage: log in, Parquet out. The only part of replay that does I/O.

Reads the log written by ingest, folds it into rounds (replay/fold.py), judges each round
through the game registry under the ruleset in force on the day it was dealt, or the one the
table named (replay/reconstruct.py), and writes, under the output directory:

- ``rounds.parquet``: one row per round (game, ruleset, dealer, banker, evaluated or why not,
  the kinds of its problems, its one-line notation);
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
- ``findings.parquet``: the log-level findings (duplicates, sequence gaps, records that do
  not decode).

Same log and rulesets: byte-identical files (docs/design.md principle 5): rows are sorted,
no wall clock is read, and files are written with fixed options. This module names no game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from replay.batch_decode import events_of, log_entries, undecodable_finding
from replay.errors import ReplayError
from replay.fold import DEALER, Finding, Replayed, RoundState
from replay.games import find_game
from replay.parallel import RowMaker, replay_entries, write_parquet
from replay.reconstruct import (
    Judgement,
    award_from_meter,
    banker_text,
    dealt_at,
    judge_state,
)
from schemas import JACKPOT_STEPS, RoundEvent

_TS = pa.timestamp("us", tz="UTC")
ROUNDS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()), ("ruleset", pa.string()),
    ("dealt_at", _TS), ("dealer_id", pa.string()), ("banker", pa.string()),
    ("evaluated", pa.bool_()), ("voided", pa.bool_()), ("void_reason", pa.string()),
    ("ended", pa.bool_()), ("events", pa.int32()), ("corrections", pa.int32()),
    ("progressive_meter_cents", pa.int64()),
    ("problems", pa.string()), ("problem_kinds", pa.list_(pa.string())),
    ("notation", pa.string()),
])
HANDS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()),
    ("position", pa.string()), ("seat", pa.int32()), ("cards", pa.string()),
    ("high", pa.string()), ("low", pa.string()), ("high_rank", pa.string()),
    ("low_rank", pa.string()), ("foul", pa.bool_()), ("house_way", pa.bool_()),
    ("house_way_high", pa.string()), ("house_way_low", pa.string()),
    ("resets", pa.int32()), ("exposed", pa.bool_()), ("action", pa.string()),
])
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
])
ENVY = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()),
    ("seat", pa.int32()), ("for_seat", pa.int32()), ("for_position", pa.string()),
    ("row", pa.string()), ("recorded_cents", pa.int64()), ("expected_cents", pa.int64()),
    ("qualifying_wager", pa.bool_()),
])
BANKERS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()),
    ("seat", pa.int32()), ("co_bank", pa.bool_()),
    ("recorded_net_cents", pa.int64()), ("recorded_commission_cents", pa.int64()),
    ("expected_net_cents", pa.int64()), ("expected_commission_cents", pa.int64()),
    ("expected_house_net_cents", pa.int64()),
])
JACKPOTS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()),
    ("seat", pa.int32()), ("hand", pa.string()), ("progressive_meter_cents", pa.int64()),
    ("recorded_award_cents", pa.int64()), ("expected_net_cents", pa.int64()),
    *[(step, pa.bool_()) for step in JACKPOT_STEPS],
    ("validated_by", pa.string()), ("validator_role", pa.string()), ("paid_from", pa.string()),
    ("award_from_meter", pa.bool_()), ("steps", pa.string()),
])
FINDINGS = pa.schema([
    ("kind", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("round_id", pa.string()),
    ("where", pa.string()), ("detail", pa.string()),
])
TABLES = {"rounds": ROUNDS, "hands": HANDS, "wagers": WAGERS, "envy": ENVY,
          "bankers": BANKERS, "jackpots": JACKPOTS, "findings": FINDINGS}


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplaySummary:
    rounds: int
    evaluated: int
    wagers: int
    findings: tuple[Finding, ...]


def events_from_log(log_dir: Path, findings: list[Finding]) -> Iterator[tuple[str, RoundEvent]]:
    """Decode every log record; one that does not decode is a finding, never a crash.
    Records are decoded many at a time (replay/batch_decode.py), with the same events and
    the same findings as decoding them one by one."""
    return events_of(log_entries(log_dir),
                     lambda entry, exc: findings.append(undecodable_finding(entry[1], exc)))


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


def rows_of(state: RoundState, j: Judgement) -> dict[str, list[dict[str, Any]]]:
    """One round's rows for every table (see the module docstring)."""
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
        "problems": "; ".join(p.detail for p in j.problems) or None,
        "problem_kinds": sorted({p.kind.value for p in j.problems}),
        "notation": j.notation,
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
        })
    qualifying = {s for s, w, a in state.wagers if w in ("fortune", "progressive") and a > 0}
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
        })
    for seat, for_seat, amount in sorted(state.envy, key=lambda x: (x[0], x[1] or 0, x[2])):
        out["envy"].append({
            "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
            "game": game,
            "seat": seat, "for_seat": for_seat,
            "for_position": "dealer" if for_seat is None else f"seat {for_seat}",
            "row": "payment", "recorded_cents": amount, "expected_cents": None,
            "qualifying_wager": seat in qualifying,
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
        })
    winners = {s for (s, w), e in j.expected.items()
               if w == "progressive" and e.outcome == "win"}
    for seat in sorted(winners | {s for s, _, _ in state.jackpots}):
        steps = [x for x in state.jackpot_steps if x.seat == seat]
        hit = next((x for x in state.jackpots if x[0] == seat), None)
        validated = next((x for x in steps if x.step == "validated"), None)
        paid = next((x for x in steps if x.step == "paid"), None)
        exp_p = j.expected.get((seat, "progressive"))
        out["jackpots"].append({
            "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
            "game": game,
            "seat": seat, "hand": hit[1] if hit else None,
            "progressive_meter_cents": state.meter_cents,
            "recorded_award_cents": hit[2] if hit else None,
            "expected_net_cents": exp_p.net_cents if exp_p and j.evaluated else None,
            **{step: any(x.step == step for x in steps) for step in JACKPOT_STEPS},
            "validated_by": validated.employee_id if validated else None,
            "validator_role": validated.role if validated else None,
            "paid_from": paid.paid_from if paid else None,
            "award_from_meter": award_from_meter(j.ruleset, hit[1] if hit else None),
            "steps": ", ".join(f"{x.step} by {x.employee_id} ({x.role})" for x in steps)
            or None,
        })
    return out


def judge_rounds(replayed: Replayed) -> Iterator[tuple[RoundState, Judgement]]:
    """Every folded round with its judgement, in (casino, table, round) order."""
    for state in sorted(replayed.rounds, key=lambda s: s.key):
        yield state, judge_state(state)


def replay(log_dir: Path, out_dir: Path,
           progress: Callable[[int], None] | None = None, *, workers: int = 1) -> ReplaySummary:
    """Fold the whole log, judge every round, write the Parquet tables. With ``workers``
    above 1 the tables' records are folded and judged in that many processes
    (replay/parallel.py); the files are the same, byte for byte."""
    rows = RowMaker(judge=judge_rounds, rows_of=rows_of,
                    schemas={name: s for name, s in TABLES.items() if name != "findings"})
    done = replay_entries(log_entries(log_dir), rows, workers=workers, progress=progress)
    all_findings = tuple(f for _, f in (*done.undecodable, *done.fold_findings))
    tables = dict(done.tables)
    tables["findings"] = pa.Table.from_pylist(
        [{"kind": f.kind, "casino": f.casino, "table_id": f.table_id or None,
          "round_id": f.round_id, "where": f.where, "detail": f.detail}
         for f in all_findings], schema=FINDINGS)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in TABLES:
        write_parquet(tables[name], out_dir / f"{name}.parquet")
    rounds = tables["rounds"]
    return ReplaySummary(rounds=rounds.num_rows,
                         evaluated=pc.sum(rounds["evaluated"]).as_py() or 0,
                         wagers=tables["wagers"].num_rows, findings=all_findings)
