"""The replay stage: log in, Parquet out. The only part of replay that does I/O.

Reads the log written by ingest, folds it into rounds (replay/fold.py), judges each round
under the ruleset in force on the day it was dealt (or the one the table named), and writes
``rounds``, ``hands`` and ``wagers`` as Parquet with the recorded and the expected
settlement of every wager. Same log and rulesets: byte-identical files (DESIGN.md 5): rows
are sorted, no wall clock is read, and files are written with fixed options.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from replay.cards import parse_cards, render_cards
from replay.errors import ReplayError
from replay.fold import DEALER, Replayed, RoundState, fold
from replay.games import pai_gow_poker as pgp
from replay.notation import HandHolding, PaiGowRound, SeatHolding, render_round
from replay.rulesets import Ruleset, load_ruleset, ruleset_in_force
from schemas import DecodeError, RoundEvent, decode
from schemas.logformat import read_log

ROUNDS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()), ("ruleset", pa.string()),
    ("dealt_at", pa.timestamp("us", tz="UTC")), ("dealer_id", pa.string()),
    ("evaluated", pa.bool_()), ("problems", pa.string()), ("notation", pa.string()),
])
HANDS = pa.schema([
    ("round_id", pa.string()), ("table_id", pa.string()), ("position", pa.string()),
    ("seat", pa.int32()), ("cards", pa.string()), ("high", pa.string()), ("low", pa.string()),
    ("high_rank", pa.string()), ("low_rank", pa.string()), ("foul", pa.bool_()),
    ("house_way", pa.bool_()), ("house_way_high", pa.string()), ("house_way_low", pa.string()),
])
WAGERS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("seat", pa.int32()), ("wager", pa.string()), ("amount_cents", pa.int64()),
    ("recorded_outcome", pa.string()), ("recorded_net_cents", pa.int64()),
    ("recorded_commission_cents", pa.int64()),
    ("expected_outcome", pa.string()), ("expected_net_cents", pa.int64()),
    ("expected_commission_cents", pa.int64()),
])


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplaySummary:
    rounds: int
    evaluated: int
    wagers: int
    findings: tuple[str, ...]


def events_from_log(log_dir: Path, findings: list[str]) -> Iterator[tuple[str, RoundEvent]]:
    """Decode every log record; one that does not decode is a finding, never a crash."""
    for rec in read_log(log_dir):
        where = f"log position {rec.position} ({rec.coordinates})"
        try:
            yield where, decode(rec.value)
        except DecodeError as exc:
            findings.append(f"{where}: cannot be decoded: {exc}")


def _dealt_at(state: RoundState) -> dt.datetime | None:
    if state.started_at_us is None:
        return None
    return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=state.started_at_us)


def _ruleset(state: RoundState) -> Ruleset:
    if state.ruleset is not None:
        return load_ruleset(state.ruleset)
    when = _dealt_at(state)
    if state.game is None or when is None:
        raise ReplayError("the round never started: no game or date to choose a ruleset by")
    return ruleset_in_force(state.game, when.date())


def _holding(state: RoundState, seat: int) -> tuple[Any, Any, Any]:
    cards = state.cards(seat)
    hand = state.hand_set(seat)
    who = "dealer" if seat == DEALER else f"seat {seat}"
    if cards is None:
        raise ReplayError(f"{who} was never dealt cards")
    high = low = None
    if hand is not None:
        high, low = parse_cards(" ".join(hand[0])), parse_cards(" ".join(hand[1]))
    elif seat == DEALER:
        raise ReplayError("the dealer's hand was never set")
    return parse_cards(" ".join(cards)), high, low


def to_round(state: RoundState) -> PaiGowRound:
    """The round as the rules engine sees it; ReplayError says what is missing."""
    cards, high, low = _holding(state, DEALER)
    seats = []
    for seat in state.seats:
        s_cards, s_high, s_low = _holding(state, seat)
        wagers = {w: a for s, w, a in state.wagers if s == seat}
        seats.append(SeatHolding(seat=seat, cards=s_cards, high=s_high, low=s_low,
                                 wagers=wagers))
    return PaiGowRound(round_id=state.round_id, game=state.game or "?",
                       dealer=HandHolding(cards=cards, high=high, low=low), seats=tuple(seats))


def _text(cards: Any) -> str | None:
    return None if cards is None else render_cards(cards)


def judge_round(state: RoundState) -> tuple[dict[str, Any], list[dict[str, Any]],
                                            list[dict[str, Any]]]:
    """One round's rows for the three tables. A round that cannot be judged is marked
    not evaluated with its reasons; its wagers keep the recorded side only."""
    problems = list(state.problems)
    ruleset_id: str | None = None
    notation: str | None = None
    result = None
    rnd = None
    try:
        if state.game != pgp.GAME:
            raise ReplayError(f"game {state.game!r} cannot be judged yet")
        ruleset = _ruleset(state)
        ruleset_id = ruleset.id
        rnd = to_round(state)
        notation = render_round(rnd)
        result = pgp.adjudicate(rnd, ruleset)
        problems.extend(result.problems)
    except (ReplayError, ValueError) as exc:
        problems.append(str(exc))
    # Irregularities of the record (past-posting, a card dealt twice ...) do not stop the
    # judgement (DESIGN.md 8: judge, don't reject); they stay in `problems` for the checks.
    evaluated = result is not None and result.evaluated
    round_row = {
        "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
        "game": state.game, "ruleset": ruleset_id, "dealt_at": _dealt_at(state),
        "dealer_id": state.dealer_id, "evaluated": evaluated,
        "problems": "; ".join(problems) or None, "notation": notation,
    }
    hands = _hand_rows(state, rnd, result)
    wagers = []
    expected = {s.seat: s for s in result.seats} if result is not None and evaluated else {}
    for seat, wager, amount in sorted(state.wagers):
        rec = state.settlement(seat, wager)
        exp = expected[seat].main if seat in expected and wager == "main" else None
        wagers.append({
            "round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
            "seat": seat, "wager": wager, "amount_cents": amount,
            "recorded_outcome": rec.outcome if rec else None,
            "recorded_net_cents": rec.net_cents if rec else None,
            "recorded_commission_cents": rec.commission_cents if rec else None,
            "expected_outcome": exp.outcome.value if exp else None,
            "expected_net_cents": exp.net_cents if exp else None,
            "expected_commission_cents": exp.commission_cents if exp else None,
        })
    return round_row, hands, wagers


def _hand_rows(state: RoundState, rnd: PaiGowRound | None, result: Any) -> list[dict[str, Any]]:
    rows = []
    seat_results = {s.seat: s for s in result.seats} if result is not None else {}
    for seat in (DEALER, *state.seats):
        cards = state.cards(seat)
        hand = state.hand_set(seat)
        high = parse_cards(" ".join(hand[0])) if hand else None
        low = parse_cards(" ".join(hand[1])) if hand else None
        row: dict[str, Any] = {
            "round_id": state.round_id, "table_id": state.table_id,
            "position": "dealer" if seat == DEALER else f"seat {seat}",
            "seat": None if seat == DEALER else seat,
            "cards": " ".join(cards) if cards else None,
            "high": _text(high), "low": _text(low),
            "high_rank": _describe(pgp.rank_high, high, 5),
            "low_rank": _describe(pgp.rank_low, low, 2),
            "foul": None, "house_way": None, "house_way_high": None, "house_way_low": None,
        }
        if result is not None and seat == DEALER:
            d = result.dealer
            row.update(foul=d.foul, house_way=d.house_way,
                       house_way_high=_text(d.house_way_high), house_way_low=_text(d.house_way_low))
        elif seat in seat_results:
            row["foul"] = seat_results[seat].foul
        rows.append(row)
    return rows


def _describe(rank: Callable[[Any], Any], cards: Any, size: int) -> str | None:
    if cards is None or len(cards) != size:
        return None
    try:
        return str(rank(cards).describe())
    except (ReplayError, ValueError):
        return None


def _write(rows: list[dict[str, Any]], schema: pa.Schema, path: Path) -> None:
    table = pa.Table.from_pylist(rows, schema=schema)
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp, compression="zstd", use_dictionary=True, write_statistics=True)
    os.replace(tmp, path)


def replay(log_dir: Path, out_dir: Path,
           progress: Callable[[int], None] | None = None) -> ReplaySummary:
    """Fold the whole log, judge every round, write the three Parquet tables."""
    findings: list[str] = []
    replayed: Replayed = fold(events_from_log(log_dir, findings))
    rounds, hands, wagers = [], [], []
    ordered = sorted(replayed.rounds, key=lambda s: (s.table_id, s.round_id))
    for i, state in enumerate(ordered, start=1):
        r, h, w = judge_round(state)
        rounds.append(r)
        hands.extend(h)
        wagers.extend(w)
        if progress is not None and (i % 500 == 0 or i == len(ordered)):
            progress(i)
    out_dir.mkdir(parents=True, exist_ok=True)
    _write(rounds, ROUNDS, out_dir / "rounds.parquet")
    _write(hands, HANDS, out_dir / "hands.parquet")
    _write(wagers, WAGERS, out_dir / "wagers.parquet")
    return ReplaySummary(rounds=len(rounds), evaluated=sum(r["evaluated"] for r in rounds),
                         wagers=len(wagers), findings=(*findings, *replayed.findings))
