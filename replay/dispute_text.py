"""A dispute report for a terminal (``python -m replay round``): plain text, the provenance
first, then the round, its hands with why each won or lost, its wagers recorded against
expected, its timeline, findings, flags, ruleset and proof.

Every value that comes from the data is made printable first (a control character, such as
the escape that starts a terminal sequence, is shown as ``\\x1b``): a round id or a
``recorded_by`` is untrusted text. Money from integer cents (replay/money.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from replay.dispute_views import HandView, RoundReport, WagerView
from replay.money import format_cents, format_lawful


def plain(value: object) -> str:
    """``value`` as text fit for a terminal: every non-printable character escaped."""
    text = "" if value is None else str(value)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def money(cents: int | None, *, signed: bool = False) -> str:
    return "-" if cents is None else format_cents(cents, signed=signed)


def lawful(cents: int | None, low: int | None, high: int | None, *,
           signed: bool = False) -> str:
    """An expected amount with its lawful range when wider (docs/rules.md 6a.19)."""
    return "-" if cents is None else format_lawful(cents, low, high, signed=signed)


def header(report: RoundReport) -> str:
    """One line naming the round: id, casino, table, game, when, dealer, banker, evaluated."""
    evaluated = "evaluated" if report.evaluated else "NOT EVALUATED"
    return (f"round {plain(report.round_id)} at casino {plain(report.casino)} table "
            f"{plain(report.table_id)}: {plain(report.game or 'game unknown')}, dealt "
            f"{plain(report.dealt_at or 'at an unknown time')}, dealer "
            f"{plain(report.dealer_id or 'unknown')}, banker {plain(report.banker or 'unknown')}, "
            f"{evaluated}")


def settlement(w: WagerView) -> str:
    """One wager in a line: recorded against expected (with its lawful range where the
    rules let the house choose), and how far outside that range the recorded net lies."""
    who = f"{w.position} {w.wager}"
    recorded = ("never settled" if w.recorded_outcome is None else
                f"{w.recorded_outcome} {money(w.recorded_net_cents, signed=True)}"
                + (f" (commission {money(w.recorded_commission_cents)})"
                   if w.recorded_commission_cents else ""))
    net = lawful(w.expected_net_cents, w.expected_net_min_cents, w.expected_net_max_cents,
                 signed=True)
    commission = lawful(w.expected_commission_cents, w.expected_commission_min_cents,
                        w.expected_commission_max_cents)
    expected = ("not judged" if w.expected_outcome is None else
                f"{w.expected_outcome} {net}"
                + (f" (commission {commission})" if w.expected_commission_cents else ""))
    diff = ""
    if w.difference_cents:
        diff = f"  MISPAID {money(w.difference_cents, signed=True)}"
    elif w.difference_cents == 0 and not w.commission_lawful:
        diff = "  COMMISSION DIFFERS"
    return (f"{plain(who)} {money(w.amount_cents)}: recorded {plain(recorded)}; expected "
            f"{plain(expected)}{diff}")


def _hand(h: HandView) -> list[str]:
    lines = [f"  {plain(h.position)}: dealt {plain(' '.join(h.cards)) or '-'}"
             + (f"; {plain(h.action)}" if h.action else "")]
    if h.high or h.low:
        foul = "  FOUL" if h.foul else ""
        lines.append(f"    high {plain(' '.join(h.high))} ({plain(h.high_rank or '?')}), low "
                     f"{plain(' '.join(h.low))} ({plain(h.low_rank or '?')}){foul}")
    if h.house_way_high or h.house_way_low:
        follows = {True: "follows it", False: "DOES NOT follow it", None: "not judged"}[
            h.house_way]
        lines.append(f"    house way: high {plain(' '.join(h.house_way_high))}, low "
                     f"{plain(' '.join(h.house_way_low))} ({follows})")
    if h.result:
        lines.append(f"    {plain(h.result)}: {plain(h.why or '')}".rstrip(": "))
    elif h.why:
        lines.append(f"    {plain(h.why)}")
    return lines


def _flag(f: Mapping[str, Any]) -> str:
    where = " ".join(plain(x) for x in (
        f"seat {f['seat']}" if f.get("seat") is not None else None, f.get("wager")) if x)
    amount = f.get("amount_at_stake_cents")
    stake = (f", {money(amount)} {plain(f.get('direction') or '')}".rstrip()
             if isinstance(amount, int) else "")
    return (f"  {plain(f.get('severity') or '')} {plain(f.get('check_id'))}"
            f"{' ' + where if where else ''}{stake}: {plain(f.get('detail') or f.get('title'))}")


def _section(title: str, lines: Iterable[str], empty: str) -> list[str]:
    body = list(lines)
    return ["", title, *(body or [f"  {empty}"])]


def render(report: RoundReport) -> str:
    """The whole report as text (see the module docstring)."""
    out = []
    if not report.verified:
        out.append(f"WARNING: {plain(report.provenance)}")
        out.append("WARNING: these figures come from data that cannot be trusted as they "
                   "stand; do not settle a dispute on them")
    out += [header(report), f"notation: {plain(report.notation or '-')}",
            f"provenance: {plain(report.provenance)}",
            f"ruleset: {plain(report.ruleset_words)}"]
    if report.problems:
        out += _section("Problems", (f"  {plain(p)}" for p in report.problems), "none")
    out += _section("Hands", (line for h in report.hands for line in _hand(h)), "none recorded")
    out += _section("Wagers (recorded against expected)",
                    (f"  {settlement(w)}" for w in report.wagers), "none recorded")
    out += _section("Timeline", (
        f"  #{e.table_seq} {plain(e.occurred_at)} by {plain(e.recorded_by)}: {plain(e.summary)}"
        f"{'  [SUPERSEDED by a correction]' if e.superseded else ''}"
        for e in report.timeline), "no events (timeline.parquet holds none for this round)")
    out += _section("Findings", (f"  {plain(f)}" for f in report.findings), "none")
    out += _section("Flags", (_flag(f) for f in report.flags), "none")
    proof = report.proof
    out += _section("Proof", [f"  {plain(proof.line)}"] if proof else [],
                    "not attached: add --proof to prove the round's events against the "
                    "signed checkpoint (reads the whole log)")
    return "\n".join(out) + "\n"
