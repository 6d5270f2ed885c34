"""A dispute report as ONE self-contained printable HTML page (``python -m replay round
--html``, the dashboard's "Dispute report" download).

The page is a single document: its style is inline (with ``@media print`` rules, so that it
prints on A4 or Letter without the screen's colours and with no section split across pages
where it can be helped), its cards and tiles are inline SVG (replay/pictures.py), and it
holds no script and no reference to anything outside itself (no link, font, image or
URL): it can be mailed to a patron, printed for a manager or filed with a regulator as it
is. Every value that comes from the data is HTML-escaped (``html.escape``): a round id, a
``recorded_by`` or a finding is untrusted text. Data that cannot be trusted (a log that did
not verify) is said so in a red box at the top. Money from integer cents (replay/money.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from replay.dispute_views import HandView, ProofView, RoundReport, WagerView
from replay.money import format_cents, format_lawful
from replay.pictures import picture
from schemas.proof import PROOF_FORMAT

STYLE = """
body { font-family: Georgia, 'Times New Roman', serif; color: #111; margin: 2em auto;
       max-width: 60em; padding: 0 1em; line-height: 1.35; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; border-bottom: 1px solid #999; margin-top: 1.6em; }
table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.45em; text-align: left;
         vertical-align: top; }
th { background: #eee; }
td.money, th.money { text-align: right; font-variant-numeric: tabular-nums;
                     white-space: nowrap; }
.banner { border: 3px solid #b00020; background: #fde8ea; padding: 0.6em 0.9em;
          font-weight: bold; }
.ok { border: 1px solid #2e7d32; background: #edf7ee; padding: 0.4em 0.9em; }
.hand { border: 1px solid #ccc; padding: 0.5em 0.8em; margin: 0.6em 0;
        page-break-inside: avoid; break-inside: avoid; }
.hand h3 { margin: 0 0 0.3em 0; font-size: 1em; }
.pictures svg { margin: 0 2px 2px 0; vertical-align: middle; }
.label { display: inline-block; min-width: 6.5em; color: #444; }
.result { font-weight: bold; }
.bad { color: #b00020; font-weight: bold; }
.struck td { color: #777; text-decoration: line-through; }
.mono, pre { font-family: 'DejaVu Sans Mono', Consolas, monospace; font-size: 0.8em; }
pre { white-space: pre-wrap; word-break: break-all; background: #f6f6f6; padding: 0.5em; }
footer { margin-top: 2em; font-size: 0.8em; color: #555; }
@media print {
  body { margin: 0; max-width: none; font-size: 10pt; }
  .banner { background: none; }
  th { background: none; }
  h2 { page-break-after: avoid; break-after: avoid; }
  tr, .hand { page-break-inside: avoid; break-inside: avoid; }
}
"""


def _e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def _money(cents: int | None, *, signed: bool = False) -> str:
    return "" if cents is None else _e(format_cents(cents, signed=signed))


def _lawful(cents: int | None, low: int | None, high: int | None, *,
            signed: bool = False) -> str:
    return "" if cents is None else _e(format_lawful(cents, low, high, signed=signed))


def _pictures(tokens: Sequence[str]) -> str:
    return f'<span class="pictures">{"".join(picture(t) for t in tokens)}</span>'


def _table(head: Sequence[str], rows: Iterable[str], money_columns: frozenset[int]) -> str:
    cells = "".join(f'<th{" class=money" if i in money_columns else ""}>{_e(h)}</th>'
                    for i, h in enumerate(head))
    body = "".join(rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def _row(values: Sequence[str], money_columns: frozenset[int], css: str = "") -> str:
    cells = "".join(f'<td{" class=money" if i in money_columns else ""}>{v}</td>'
                    for i, v in enumerate(values))
    return f'<tr{f" class={css}" if css else ""}>{cells}</tr>'


def _facts(r: RoundReport) -> str:
    rows = [("Round", r.round_id), ("Casino", r.casino), ("Table", r.table_id),
            ("Game", r.game or "unknown"), ("Dealt at (UTC)", r.dealt_at or "unknown"),
            ("Dealer", r.dealer_id or "unknown"), ("Banker", r.banker or "unknown"),
            ("Ruleset", r.ruleset or "none"),
            ("Evaluated", "yes" if r.evaluated else "NO: the round was not judged"),
            ("Notation", r.notation or "")]
    body = "".join(f'<tr><th scope="row">{_e(k)}</th><td'
                   f'{" class=mono" if k == "Notation" else ""}>{_e(v)}</td></tr>'
                   for k, v in rows)
    return f"<table>{body}</table>"


def _hand(h: HandView) -> str:
    parts = [f"<h3>{_e(h.position)}" + (f" ({_e(h.action)})" if h.action else "") + "</h3>"]
    if h.cards:
        parts.append(f'<div><span class="label">Dealt</span>{_pictures(h.cards)}</div>')
    if h.high or h.low:
        parts.append(f'<div><span class="label">High hand</span>{_pictures(h.high)} '
                     f"{_e(h.high_rank or '')}</div>")
        parts.append(f'<div><span class="label">Low hand</span>{_pictures(h.low)} '
                     f"{_e(h.low_rank or '')}</div>")
    if h.foul:
        parts.append('<div class="bad">Foul: the high hand ranks below the low hand</div>')
    if h.house_way_high or h.house_way_low:
        follows = {True: "the dealer's setting follows the house way",
                   False: "the dealer's setting does NOT follow the house way",
                   None: "whether the dealer followed it was not judged"}[h.house_way]
        css = "bad" if h.house_way is False else ""
        parts.append(f'<div><span class="label">House way</span>'
                     f"{_pictures(h.house_way_high)} / {_pictures(h.house_way_low)} "
                     f'<span class="{css}">{_e(follows)}</span></div>')
    if h.result or h.why:
        parts.append(f'<div><span class="label">Result</span><span class="result">'
                     f"{_e(h.result or 'no result')}</span>: {_e(h.why or '')}</div>")
    return f'<div class="hand">{"".join(parts)}</div>'


_WAGER_MONEY = frozenset({2, 4, 5, 7, 8, 9})


def _wager(w: WagerView) -> str:
    differs = bool(w.difference_cents) or (
        w.expected_outcome is not None and (w.recorded_outcome != w.expected_outcome
                                            or not w.commission_lawful))
    diff = _money(w.difference_cents, signed=True)
    return _row([_e(w.position), _e(w.wager), _money(w.amount_cents),
                 _e(w.recorded_outcome or "never settled"), _money(w.recorded_net_cents,
                                                                   signed=True),
                 _money(w.recorded_commission_cents), _e(w.expected_outcome or "not judged"),
                 _lawful(w.expected_net_cents, w.expected_net_min_cents,
                         w.expected_net_max_cents, signed=True),
                 _lawful(w.expected_commission_cents, w.expected_commission_min_cents,
                         w.expected_commission_max_cents),
                 f'<span class="bad">{diff}</span>' if differs else diff],
                _WAGER_MONEY)


def _flags(flags: Sequence[Mapping[str, Any]]) -> str:
    if not flags:
        return "<p>No flag was raised on this round.</p>"
    rows = [_row([_e(f.get("severity")), _e(f.get("check_id")), _e(f.get("seat")),
                  _e(f.get("wager")), _money(f.get("amount_at_stake_cents")),
                  _e(f.get("direction")), _e(f.get("detail") or f.get("title"))],
                 frozenset({4})) for f in flags]
    return _table(["Severity", "Check", "Seat", "Wager", "At stake", "Direction", "Detail"],
                  rows, frozenset({4}))


def _proof(p: ProofView | None, round_id: str) -> str:
    if p is None:
        return ("<p>No proof attached. Run <span class=mono>python -m replay round ROUND_ID "
                "--proof --html FILE</span> (or the dashboard's proof) to prove the round's "
                "events against the signed checkpoint.</p>")
    box = "ok" if p.verified else "banner"
    parts = [f'<p class="{box}">{_e(p.line)}</p>']
    if p.key:
        parts.append(f'<p><span class="label">Key</span><span class="mono">{_e(p.key)}</span>'
                     "</p>")
    if p.checkpoint:
        parts.append(f"<p>Signed checkpoint:</p><pre>{_e(p.checkpoint)}</pre>")
    if p.events:
        rows = [_row([_e(e.get("index")), _e(e.get("event_id")), _e(e.get("kind")),
                      _e(e.get("coordinates")), _e(len(e.get("path") or ()))], frozenset())
                for e in p.events]
        parts.append(_table(["Leaf", "Event", "Kind", "Kafka record", "Path hashes"], rows,
                            frozenset()))
        whole: dict[str, Any] = {"format": PROOF_FORMAT, "round_id": round_id,
                                 "events": list(p.events)}
        if p.checkpoint and p.tree_size is not None:
            whole.update(tree_size=p.tree_size, checkpoint=p.checkpoint, key=p.key)
        if p.document is not None:
            whole = dict(p.document)
        parts.append("<p>The proof itself (save it as a file and check it with "
                     "<span class=mono>python -m ingest verify --proof FILE --key KEY</span>):"
                     f"</p><pre>{_e(json.dumps(whole, indent=1, sort_keys=True))}</pre>")
    return "".join(parts)


def render(r: RoundReport) -> str:
    """The page (see the module docstring)."""
    title = f"Dispute report: round {r.round_id}, casino {r.casino} table {r.table_id}"
    trust = (f'<p class="ok">{_e(r.provenance)}</p>' if r.verified else
             f'<p class="banner">{_e(r.provenance)}. These figures come from data that cannot '
             "be trusted as they stand: do not settle a dispute on them.</p>")
    problems = "".join(f"<li>{_e(p)}</li>" for p in r.problems)
    timeline = [_row([_e(e.table_seq), _e(e.occurred_at), _e(e.recorded_by), _e(e.event),
                      _e(e.summary) + (" (superseded by a correction)" if e.superseded else ""),
                      f'<span class="mono">{_e(e.event_id)}</span>'],
                     frozenset(), "struck" if e.superseded else "") for e in r.timeline]
    findings = "".join(f"<li>{_e(f)}</li>" for f in r.findings)
    wager_head = ["Party", "Wager", "Amount", "Recorded", "Recorded net",
                  "Recorded commission", "Expected", "Expected net", "Expected commission",
                  "Difference"]
    sections = [
        f"<h1>{_e(title)}</h1>", trust, _facts(r),
        (f"<h2>Problems</h2><ul>{problems}</ul>" if problems else ""),
        "<h2>Hands</h2>", "".join(_hand(h) for h in r.hands) or "<p>No hand recorded.</p>",
        "<h2>Wagers: recorded against expected</h2>",
        _table(wager_head, (_wager(w) for w in r.wagers), _WAGER_MONEY) if r.wagers
        else "<p>No wager recorded.</p>",
        "<h2>Timeline</h2>",
        _table(["#", "When (UTC)", "Recorded by", "Event", "What", "Event id"], timeline,
               frozenset()) if timeline else "<p>No event in the timeline.</p>",
        f"<h2>Findings</h2>{f'<ul>{findings}</ul>' if findings else '<p>None.</p>'}",
        "<h2>Flags</h2>", _flags(r.flags),
        f"<h2>Ruleset in force</h2><p>{_e(r.ruleset_words)}</p>",
        "<h2>Proof</h2>", _proof(r.proof, r.round_id),
        "<footer>Catwalk dispute report. Amounts in dollars, from integer cents as recorded "
        "and as the rules require; rules cited from docs/rules.md and the regulations it "
        "names.</footer>",
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>"
            + "".join(sections) + "</body></html>\n")
