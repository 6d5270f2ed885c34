"""What-if re-judging: the rounds of one game judged twice, as production judges them and
under a proposed ruleset, and what changes (docs/design.md principle 6; docs/whatif.md).

Both judgements come from the same engine (``replay.reconstruct.judge_state``) on the same
folded rounds: production's under the ruleset the round names or the one in force on the
day it was dealt (or, through :attr:`WhatIf.production`, the ruleset a caller chooses), the
what-if's with the proposed ruleset given as an override. Only the rounds of the proposed
ruleset's game are judged, dealt (UTC, the date replay chooses a ruleset by) within the
period, at the casino when one is named.

Fail closed (docs/rules.md 8.1): a round not evaluated under either ruleset is listed apart
with both reasons, and none of its wagers is counted, neither as changed nor as unchanged.

Money is integer cents, from the patron's side: a wager's expected net is what the patron
wins (positive) or loses (negative); ``difference_cents`` is the proposed net minus the
production one, so a positive difference is money the proposal moves to the patrons, a
negative one money it moves to the house. Besides every wager judged, a player banker's
account (wager ``bank``) and each seat's Envy Bonus (wager ``envy``) are compared too.

This module does no I/O: it makes the rows (:data:`ROWS` for ``replay.parallel``), and
sums them (:func:`summary_rows`); replay/whatif_cli.py reads the log and writes the files.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from replay.errors import ReplayError
from replay.fold import DEALER, Replayed, RoundState
from replay.games import find_game
from replay.parallel import RowMaker
from replay.reconstruct import Expected, Judgement, dealt_at, judge_state
from replay.rulebook import Rulebook, shipped_book
from replay.rulesets import Payout, Ruleset, ruleset_from_dict

_TS = pa.timestamp("us", tz="UTC")

CHANGED = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()), ("dealt_at", _TS), ("seat", pa.int32()), ("position", pa.string()),
    ("wager", pa.string()), ("amount_cents", pa.int64()),
    ("ruleset_before", pa.string()), ("outcome_before", pa.string()),
    ("net_before_cents", pa.int64()), ("commission_before_cents", pa.int64()),
    ("ruleset_after", pa.string()), ("outcome_after", pa.string()),
    ("net_after_cents", pa.int64()), ("commission_after_cents", pa.int64()),
    ("difference_cents", pa.int64()),
])
"""``whatif_rounds.parquet``: one row per wager whose expected settlement (outcome, net or
commission) differs; ``before`` is production's judgement, ``after`` the proposed one;
``seat`` null for the dealer's own wager against a player banker."""
TOTALS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()), ("wager", pa.string()), ("wagers", pa.int64()),
    ("changed", pa.int64()), ("net_before_cents", pa.int64()), ("net_after_cents", pa.int64()),
])
"""A round's wagers of one name summed (the rows :func:`summary_rows` adds up)."""
ROUNDS = pa.schema([
    ("round_id", pa.string()), ("casino", pa.string()), ("table_id", pa.string()),
    ("game", pa.string()), ("dealt_at", _TS), ("judged", pa.bool_()), ("changed", pa.bool_()),
    ("ruleset_before", pa.string()), ("evaluated_before", pa.bool_()),
    ("why_before", pa.string()),
    ("ruleset_after", pa.string()), ("evaluated_after", pa.bool_()), ("why_after", pa.string()),
    ("notation", pa.string()), ("dealer_reset", pa.bool_()),
])
"""One row per round selected; ``judged``: evaluated under both rulesets. The rows not
judged are ``whatif_not_evaluated.parquet``, with why under each ruleset. ``dealer_reset``:
the proposed ruleset's house way is not production's, so the dealer's hand was set by it
(:func:`proposed_round`) before the round was judged under the proposed ruleset."""
SUMMARY = pa.schema([
    ("casino", pa.string()), ("table_id", pa.string()), ("game", pa.string()),
    ("wager", pa.string()), ("wagers_judged", pa.int64()), ("wagers_changed", pa.int64()),
    ("net_before_cents", pa.int64()), ("net_after_cents", pa.int64()),
    ("difference_cents", pa.int64()),
])
"""``whatif_summary.parquet``: by casino, table, game and wager, the wagers judged under
both rulesets, those whose expected settlement changed, and the patrons' expected net under
each and the difference (proposed minus production: positive, to the patrons)."""
SIGN = ("patron: a net or difference is the patron's, positive money to the patron, "
        "negative money to the house; difference = proposed minus production")
"""Whose side the money's sign is on (the files' metadata and the manifest say it)."""


def ruleset_data(ruleset: Ruleset) -> dict[str, Any]:
    """The ruleset in the JSON layout of ``replay/rulesets/`` (what
    :func:`replay.rulesets.ruleset_from_dict` reads back to an equal ruleset), every option
    written out."""
    def payout(p: Payout) -> dict[str, Any]:
        if p.odds is not None:
            return {"odds": list(p.odds)}
        if p.fixed_cents is not None:
            return {"fixed_cents": p.fixed_cents}
        return {"meter_bps": p.meter_bps}

    data: dict[str, Any] = {} if ruleset.casino is None else {"casino": ruleset.casino}
    return {
        **data,
        "id": ruleset.id, "game": ruleset.game, "title": ruleset.title,
        "effective_from": ruleset.effective_from, "effective_to": ruleset.effective_to,
        "commission": ruleset.commission.as_data(),
        "options": {**ruleset.options, "wheel": ruleset.wheel.value,
                    "house_way": ruleset.house_way},
        "paytables": {name: {hand: payout(p) for hand, p in table.items()}
                      for name, table in ruleset.paytables.items()},
        "source": ruleset.source,
    }


def canonical(value: Any) -> bytes:
    """``value`` as canonical JSON (sorted keys, no spaces, UTF-8)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def ruleset_sha256(ruleset: Ruleset) -> str:
    """The SHA-256 of the ruleset's data as canonical JSON (:func:`ruleset_data`), followed by
    the text of the house-way file it names, if any: the same for the same rules whatever
    file or spacing they came from."""
    digest = hashlib.sha256(canonical(ruleset_data(ruleset)))
    way_text = getattr(ruleset.house_way_spec, "text", "")
    if way_text:
        digest.update(b"\n" + way_text.encode("utf-8"))
    return digest.hexdigest()


@functools.cache
def _ruleset(text: str, source: str, base: str | None = None) -> Ruleset:
    return ruleset_from_dict(json.loads(text), source=source,
                             base=None if base is None else Path(base))


@dataclass(frozen=True, slots=True, kw_only=True)
class WhatIf:
    """Which rounds to judge again, and under what: the proposed ruleset (held as its
    canonical JSON, so that a what-if can be sent to replay's helper processes), the
    casino (None: every casino) and the period of dealt dates, both ends included (None:
    open). The game is the proposed ruleset's.

    ``book`` is the rulebook production judges by (replay/rulebook.py: the shipped rulesets
    and the casinos' filings, ``--rulesets DIR``; None: the shipped rulesets alone), so a
    round is judged as ``python -m replay`` judged it: under the ruleset it names or its
    casino's in force on the day dealt. ``proposed_base`` is the folder of the proposed
    ruleset's file, where a ``.way`` house-way file it names is found. Both are plain data,
    so that they reach the helper processes."""

    proposed_json: str
    proposed_source: str
    casino: str | None = None
    since: dt.date | None = None
    until: dt.date | None = None
    book: Rulebook | None = None
    proposed_base: str | None = None

    def __post_init__(self) -> None:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise ReplayError(f"the period starts on {self.since} after it ends on "
                              f"{self.until}")
        self.proposed  # noqa: B018  (a ruleset that does not load fails here, not in a helper)

    @classmethod
    def of(cls, ruleset: Ruleset, *, source: str, casino: str | None = None,
           since: dt.date | None = None, until: dt.date | None = None,
           book: Rulebook | None = None, base: str | None = None) -> WhatIf:
        """The what-if of ``ruleset`` (read from ``source``; ``base``: its file's folder)."""
        return cls(proposed_json=canonical(ruleset_data(ruleset)).decode("utf-8"),
                   proposed_source=source, casino=casino, since=since, until=until,
                   book=book, proposed_base=base)

    @property
    def proposed(self) -> Ruleset:
        return _ruleset(self.proposed_json, self.proposed_source, self.proposed_base)

    @property
    def game(self) -> str:
        return self.proposed.game

    def selects(self, state: RoundState) -> bool:
        """Whether the round is of the game, the casino and the period."""
        if state.game != self.game or (self.casino is not None and state.casino != self.casino):
            return False
        when = dealt_at(state)
        if when is None:
            return False
        day = when.date()
        return ((self.since is None or self.since <= day)
                and (self.until is None or day <= self.until))

    def production_judgement(self, state: RoundState) -> Judgement:
        return judge_state(state, self.book)


def judge_selected(what: WhatIf, replayed: Replayed) -> Iterator[tuple[RoundState, Judgement]]:
    """The rounds ``what`` selects, in (casino, table, round) order, each with production's
    judgement (``RowMaker.judge``)."""
    for state in sorted(replayed.rounds, key=lambda s: s.key):
        if what.selects(state):
            yield state, what.production_judgement(state)


def _why(j: Judgement) -> str | None:
    if j.evaluated:
        return None
    return "; ".join(p.detail for p in j.problems) or "not evaluated (no reason given)"


def _position(state: RoundState, seat: int, wager: str) -> str:
    if seat == DEALER:
        return "dealer"
    return "banker" if seat == state.banker_seat and wager in ("main", "bank") else f"seat {seat}"


def _outcome(net: int) -> str:
    return "win" if net > 0 else "loss" if net < 0 else "push"


def _compared(state: RoundState, before: Judgement, after: Judgement) -> Iterator[
        tuple[int, str, int | None, Expected, Expected]]:
    """(seat, wager, amount, production's, proposed) for everything judged in the round:
    every wager (the player banker's own main wager is the bank), the banker's account,
    each seat's Envy Bonus. KeyError when one judgement lacks a wager the other has."""
    banker_main = (state.banker_seat, "main")
    for seat, wager, amount in sorted(state.wagers):
        if (seat, wager) == banker_main and state.banker_seat is not None:
            continue
        yield seat, wager, amount, before.expected[(seat, wager)], after.expected[(seat, wager)]
    banks = [None if j.result is None else j.result.get("banker") for j in (before, after)]
    if state.banker_seat is not None and all(banks):
        b, a = (Expected(outcome=_outcome(x["net"]), net_cents=x["net"],
                         commission_cents=x["commission"]) for x in banks if x)
        yield state.banker_seat, "bank", state.wager(state.banker_seat, "main"), b, a
    for seat in sorted(set(before.envy) | set(after.envy)):
        paid = before.envy.get(seat, 0), after.envy.get(seat, 0)
        if any(paid):
            b, a = (Expected(outcome=_outcome(x), net_cents=x, commission_cents=0) for x in paid)
            yield seat, "envy", None, b, a


def compare_rows(what: WhatIf, state: RoundState,
                 before: Judgement) -> dict[str, list[dict[str, Any]]]:
    """One round's rows (``RowMaker.rows_of``): judged again under the proposed ruleset and
    compared with production's judgement ``before``."""
    as_proposed, reset = proposed_round(what, state, before)
    after = judge_state(as_proposed, what.book, ruleset=what.proposed)
    when = dealt_at(state)
    head = {"round_id": state.round_id, "casino": state.casino, "table_id": state.table_id,
            "game": state.game}
    out: dict[str, list[dict[str, Any]]] = {"changed": [], "totals": [], "rounds": []}
    judged = before.evaluated and after.evaluated
    why_before, why_after = _why(before), _why(after)
    if judged:
        try:
            compared = list(_compared(state, before, after))
        except KeyError as exc:  # cannot be with both evaluated; fail closed if it is
            judged = False
            missing = f"the wager {exc} is judged under one ruleset only: not compared"
            why_before = why_after = missing
    totals: dict[str, list[int]] = {}
    if judged:
        for seat, wager, amount, b, a in compared:
            changed = (b.outcome, b.net_cents, b.commission_cents) != (
                a.outcome, a.net_cents, a.commission_cents)
            sums = totals.setdefault(wager, [0, 0, 0, 0])
            sums[0] += 1
            sums[1] += changed
            sums[2] += b.net_cents
            sums[3] += a.net_cents
            if changed:
                out["changed"].append({
                    **head, "dealt_at": when, "seat": None if seat == DEALER else seat,
                    "position": _position(state, seat, wager), "wager": wager,
                    "amount_cents": amount,
                    "ruleset_before": before.ruleset, "outcome_before": b.outcome,
                    "net_before_cents": b.net_cents,
                    "commission_before_cents": b.commission_cents,
                    "ruleset_after": after.ruleset, "outcome_after": a.outcome,
                    "net_after_cents": a.net_cents, "commission_after_cents": a.commission_cents,
                    "difference_cents": a.net_cents - b.net_cents,
                })
    for wager, (n, count, net_before, net_after) in sorted(totals.items()):
        out["totals"].append({**head, "wager": wager, "wagers": n, "changed": count,
                              "net_before_cents": net_before, "net_after_cents": net_after})
    out["rounds"].append({
        **head, "dealt_at": when, "judged": judged, "changed": bool(out["changed"]),
        "ruleset_before": before.ruleset, "evaluated_before": before.evaluated,
        "why_before": why_before, "ruleset_after": after.ruleset,
        "evaluated_after": after.evaluated, "why_after": why_after,
        "notation": before.notation or after.notation, "dealer_reset": reset,
    })
    return out


def _same_house_way(a: Ruleset, b: Ruleset) -> bool:
    return a.house_way == b.house_way and a.house_way_spec == b.house_way_spec


def proposed_round(what: WhatIf, state: RoundState,
                   before: Judgement) -> tuple[RoundState, bool]:
    """The round as it would have been played under the proposed ruleset, and whether it
    differs: the same cards, the same wagers, the players' hands as they set them; the
    dealer's hand set by the proposed house way when that is not the house way production
    judged the round by (the dealer sets by the casino's house way: pai gow poker procedure
    (4), PR pai gow tiles ¶ D), so that a proposed house way moves money. A round whose
    dealer's hand the proposed way cannot set is left as it was: its judgement under the
    proposed ruleset then fails closed as any other."""
    if before.ruleset is None or state.game is None:
        return state, False
    book = shipped_book() if what.book is None else what.book
    try:
        production = book.find(before.ruleset)
        game = find_game(state.game)
    except (ReplayError, LookupError):
        return state, False
    proposed = what.proposed
    dealt = state.cards(DEALER)
    if _same_house_way(production, proposed) or game.dealer_setting is None or dealt is None:
        return state, False
    setting = game.dealer_setting(dealt, proposed)
    if setting is None or state.hand_set(DEALER) == setting:
        return state, False
    sets = ((DEALER, *setting), *(x for x in state.sets if x[0] != DEALER))
    return replace(state, sets=sets), True


def _warm() -> None:
    from replay.run import warm_rules_engine

    warm_rules_engine()


def row_maker(what: WhatIf) -> RowMaker:
    """What a round becomes in a what-if, for ``replay.parallel.replay_entries``."""
    return RowMaker(judge=functools.partial(judge_selected, what),
                    rows_of=functools.partial(compare_rows, what),
                    schemas={"changed": CHANGED, "totals": TOTALS, "rounds": ROUNDS},
                    warm=_warm)


def summary_rows(totals: pa.Table) -> list[dict[str, Any]]:
    """The rows of :data:`SUMMARY`: ``totals`` (:data:`TOTALS`) summed by casino, table,
    game and wager, in that order, in Python integers; ReplayError for a sum that does not
    fit 64-bit cents."""
    sums: dict[tuple[str, str, str, str], list[int]] = {}
    columns = [totals.column(c).to_pylist() for c in (
        "casino", "table_id", "game", "wager", "wagers", "changed", "net_before_cents",
        "net_after_cents")]
    for casino, table, game, wager, n, changed, before, after in zip(*columns, strict=True):
        s = sums.setdefault((casino, table, game, wager), [0, 0, 0, 0])
        s[0] += n
        s[1] += changed
        s[2] += before
        s[3] += after
    rows = []
    for (casino, table, game, wager), (n, changed, before, after) in sorted(sums.items()):
        row = {"casino": casino, "table_id": table, "game": game, "wager": wager,
               "wagers_judged": n, "wagers_changed": changed, "net_before_cents": before,
               "net_after_cents": after, "difference_cents": after - before}
        if not all(-(1 << 63) <= v < (1 << 63) for v in (before, after, after - before)):
            raise ReplayError(f"the expected net of {wager} at {casino} {table} does not fit "
                              "64-bit cents: the recorded amounts are absurd")
        rows.append(row)
    return rows


def production_rulesets(ids: list[str], book: Rulebook | None = None) -> list[dict[str, Any]]:
    """Each ruleset production judged the rounds under, with the SHA-256 of its data (None
    for one neither shipped nor in ``book``: its data is not known here)."""
    book = shipped_book() if book is None else book
    out = []
    for rid in sorted(set(ids)):
        try:
            digest: str | None = ruleset_sha256(book.find(rid))
        except ReplayError:
            digest = None
        out.append({"id": rid, "sha256": digest})
    return out


def moved_by_game_and_wager(summary: list[Mapping[str, Any]]) -> list[tuple[str, str, int, int,
                                                                           int]]:
    """(game, wager, wagers changed, wagers judged, difference in cents) over every table,
    by game and wager."""
    sums: dict[tuple[str, str], list[int]] = {}
    for row in summary:
        s = sums.setdefault((row["game"], row["wager"]), [0, 0, 0])
        s[0] += row["wagers_changed"]
        s[1] += row["wagers_judged"]
        s[2] += row["difference_cents"]
    return [(g, w, c, n, d) for (g, w), (c, n, d) in sorted(sums.items())]
