"""How well the catalogue catches known faults: ``python -m checks.evaluate``.

A shift simulated with faults (``python -m ingest.simulate --fault-rate F --labels FILE``)
says, one JSON line per faulty round, which fault was injected where. Run that shift
through the pipeline (ingest, replay, checks), then this compares the flags with the
labels:

- recall, per fault kind: each labelled round must be flagged by the check that answers
  that kind (:data:`FAULT_CHECKS`), at the labelled seat where both name one;
- precision, per rule check: each round it flags must carry a label (of any kind: an
  overpaid commission is also an overpay). A rule check that flags a round without a label
  is a false alarm. Statistical checks (``-- kind: statistical``) are leads, not breaches:
  they are counted apart and never scored.

Exit status 0 when every labelled fault was caught by its check and no rule check flagged
a round without a label; 1 otherwise (the tables say where); 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pyarrow.parquet as pq

FAULT_CHECKS: Mapping[str, str] = MappingProxyType({
    "overpay": "overpay",
    "underpay": "underpay",
    "paid_loser": "paid_loser",
    "collected_winner": "collected_winner",
    "commission_on_push_or_loss": "commission_on_push_or_loss",
    "wrong_commission": "commission_wrong",
    "jackpot_step_missing": "jackpot_unverified",
    "award_from_inventory": "award_from_inventory",
    "dealer_not_house_way": "house_way",
    "foul_paid": "foul_settled_as_win",
    "envy_for_own_or_dealer_hand": "envy_own_or_dealer_hand",
    "envy_without_qualifying_wager": "envy_without_qualifying_wager",
    "raise_paid_not_qualified": "raise_not_qualified",
    "raise_not_twice_ante": "raise_not_twice_ante",
    "past_posting": "wager_after_deal",
    "dealt_twice": "card_dealt_twice",
    "missing_events": "sequence_gap",
    "duplicated_events": "duplicate_event",
    "dealer_wager_not_preceding": "dealer_wager_not_preceding",
    "meter_jump": "meter_discontinuity",
})
"""For every fault kind the simulator injects (``ingest.simulate`` FAULT_KINDS), the check
that must flag it."""

RoundKey = tuple[str, str]
"""(casino, round id): a round id names its table, so it is unique at its casino."""


class EvaluationError(Exception):
    """Bad input: a labels file or a flags file that cannot be read; says which and where."""


@dataclass(frozen=True, slots=True, kw_only=True)
class KindScore:
    """One fault kind: how many rounds carry it, how many its check flagged, and the first
    rounds it missed."""

    kind: str
    check: str
    labelled: int
    caught: int
    missed: tuple[RoundKey, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckScore:
    """One rule check: the rounds it flagged, how many carry a label, and the first rounds
    it flagged without one (false alarms; a flag naming no round counts as one)."""

    check: str
    flagged: int
    labelled: int
    false_alarms: tuple[RoundKey | None, ...]
    false_alarm_count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Evaluation:
    kinds: tuple[KindScore, ...]
    checks: tuple[CheckScore, ...]
    labels: int
    leads: int
    """Flags of the statistical checks (counted, never scored)."""

    @property
    def perfect(self) -> bool:
        return (all(k.caught == k.labelled for k in self.kinds)
                and all(c.false_alarm_count == 0 for c in self.checks))


def read_labels(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Every label of ``paths`` (JSON lines); a bad line is an :class:`EvaluationError`
    naming the file and line. A label without a casino is one of casino C01 (the
    simulator's default)."""
    labels: list[dict[str, Any]] = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise EvaluationError(f"{path}: cannot be read ({exc})") from exc
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                label = json.loads(line)
                if not isinstance(label, dict):
                    raise ValueError("not a JSON object")
                for key in ("round_id", "kind"):
                    if not isinstance(label.get(key), str):
                        raise ValueError(f"no {key}")
                if label["kind"] not in FAULT_CHECKS:
                    raise ValueError(f"unknown fault kind {label['kind']!r}")
            except ValueError as exc:
                raise EvaluationError(f"{path} line {number}: not a label ({exc}): "
                                      f"{line[:120]}") from exc
            labels.append({**label, "casino": label.get("casino") or "C01"})
    return labels


def evaluate(labels: Iterable[Mapping[str, Any]], flags: Iterable[Mapping[str, Any]],
             *, keep: int = 5) -> Evaluation:
    """Score ``flags`` (rows of flags.parquet) against ``labels``; ``keep`` examples of
    each miss and false alarm."""
    labels = list(labels)
    by_round: dict[RoundKey, list[Mapping[str, Any]]] = {}
    for label in labels:
        by_round.setdefault((label["casino"], label["round_id"]), []).append(label)
    raised: dict[tuple[str, RoundKey], set[int | None]] = defaultdict(set)
    per_check: dict[str, list[RoundKey | None]] = defaultdict(list)
    leads = 0
    for flag in flags:
        if flag.get("kind", "rule") != "rule":
            leads += 1
            continue
        key = ((flag["casino"], flag["round_id"]) if flag["round_id"] is not None
               else None)
        per_check[flag["check_id"]].append(key)
        if key is not None:
            raised[flag["check_id"], key].add(flag["seat"])
    kinds = []
    for kind, check in FAULT_CHECKS.items():
        mine = [x for x in labels if x["kind"] == kind]
        missed = []
        for label in mine:
            key = (label["casino"], label["round_id"])
            seats = raised.get((check, key))
            if not seats or (label.get("seat") is not None and None not in seats
                             and label["seat"] not in seats):
                missed.append(key)
        kinds.append(KindScore(kind=kind, check=check, labelled=len(mine),
                               caught=len(mine) - len(missed), missed=tuple(missed[:keep])))
    checks = []
    for check in sorted(per_check):
        rounds = list(dict.fromkeys(per_check[check]))
        alarms = [k for k in rounds if k is None or k not in by_round]
        checks.append(CheckScore(check=check, flagged=len(rounds),
                                 labelled=len(rounds) - len(alarms),
                                 false_alarms=tuple(alarms[:keep]),
                                 false_alarm_count=len(alarms)))
    return Evaluation(kinds=tuple(kinds), checks=tuple(checks), labels=len(labels),
                      leads=leads)


def _pct(part: int, whole: int) -> str:
    """A percentage to one decimal from integers (no float rounding surprises)."""
    if whole == 0:
        return "n/a"
    tenths = (1000 * part + whole // 2) // whole
    return f"{tenths // 10}.{tenths % 10}%"


def _key(key: RoundKey | None) -> str:
    return "a flag naming no round" if key is None else f"{key[0]} {key[1]}"


def markdown(ev: Evaluation) -> str:
    """The confusion tables, in Markdown: recall per fault kind, precision per rule check."""
    out = ["| fault kind | its check | labelled | caught | missed | recall |",
           "|---|---|---:|---:|---:|---:|"]
    for k in ev.kinds:
        out.append(f"| {k.kind} | {k.check} | {k.labelled:,} | {k.caught:,} | "
                   f"{k.labelled - k.caught:,} | {_pct(k.caught, k.labelled)} |")
    total, caught = sum(k.labelled for k in ev.kinds), sum(k.caught for k in ev.kinds)
    out.append(f"| **all** | | **{total:,}** | **{caught:,}** | **{total - caught:,}** | "
               f"**{_pct(caught, total)}** |")
    out += ["", "| rule check | rounds flagged | labelled | not labelled (false alarms) | "
            "precision |", "|---|---:|---:|---:|---:|"]
    for c in ev.checks:
        out.append(f"| {c.check} | {c.flagged:,} | {c.labelled:,} | {c.false_alarm_count:,} "
                   f"| {_pct(c.labelled, c.flagged)} |")
    out.append("")
    out.append(f"{ev.labels:,} labelled faults; {ev.leads:,} statistical leads (not scored).")
    for k in ev.kinds:
        if k.missed:
            out.append(f"- {k.kind} missed by {k.check}: "
                       + ", ".join(_key(m) for m in k.missed))
    for c in ev.checks:
        if c.false_alarms:
            out.append(f"- {c.check} false alarms: "
                       + ", ".join(_key(a) for a in c.false_alarms))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m checks.evaluate",
        description="Score the checks' flags (DATA/checks/flags.parquet) against the labels "
        "of a simulated shift: recall per fault kind, precision per rule check, as Markdown. "
        "Exit 0 when every labelled fault was caught by its check and no rule check flagged "
        "a round without a label, 1 otherwise, 2 for bad input.",
        epilog="example: python -m ingest.simulate --tables 8 --rounds 200 --fault-rate 0.05 "
        "--labels var/labels.jsonl && python -m ingest --until-idle 5 && python -m replay && "
        "python -m checks && python -m checks.evaluate --labels var/labels.jsonl",
    )
    p.add_argument("--data", type=Path, default=Path("var"),
                   help="data directory (default ./var)")
    p.add_argument("--labels", type=Path, action="append", required=True, metavar="FILE",
                   help="labels written by `python -m ingest.simulate --labels` (repeatable, "
                   "one per simulated casino)")
    args = p.parse_args(argv)
    path = args.data / "checks" / "flags.parquet"
    try:
        labels = read_labels(args.labels)
        try:
            flags = pq.read_table(path).to_pylist()
        except (OSError, ValueError) as exc:
            raise EvaluationError(f"{path} cannot be read ({exc}): run `python -m checks` "
                                  "first") from exc
    except EvaluationError as exc:
        print(f"checks.evaluate: {exc}", file=sys.stderr)
        return 2
    ev = evaluate(labels, flags)
    print(markdown(ev))
    return 0 if ev.perfect else 1


if __name__ == "__main__":
    sys.exit(main())
