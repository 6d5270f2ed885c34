"""The Round page: one round as a dispute needs it (docs/guide-dispute.md; replay/dispute.py).

The cards or tiles drawn as pictures, each hand's rank and its result against the banker's
hand with the rule that decided it, the house way for the dealer, what each wager was paid
against what the rules require, the timeline of events with who recorded each, the
findings and flags, the ruleset in force, where the data came from, and on demand the proof
that ties the round's events to the signed checkpoint. "Dispute report" downloads the same
as one printable HTML page. Reached from a flag, by typing a round id, or by a link
``?round=ROUND_ID`` (with ``&casino=C&table=T`` when the id is used at several tables).

Untrusted text (ids, who recorded an event, details) is never rendered as Markdown or
HTML: it goes through dashboard/views.py literal()/code(), into st.dataframe/st.text, or
through html.escape; the only HTML handed to st.html is replay/pictures.py's SVG (which
escapes its token) and this module's escaped text around it.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from dashboard import data, views
from dashboard.context import PageContext, Role
from dashboard.money import format_cents
from dashboard.views import code, literal
from replay.dispute import (
    HandView,
    ReportError,
    RoundReport,
    WagerView,
    card_svg,
    report_html,
    round_report,
    tile_svg,
)
from replay.dispute_views import VERIFIED
from replay.errors import ReplayError
from schemas.checkpoint import CheckpointError, Verifier

TITLE = "Round"
URL_PATH = "round"
ICON = ":material/playing_cards:"
ROLES: frozenset[Role] | None = None

ROUND_PARAM = "round"
CASINO_PARAM = "casino"
TABLE_PARAM = "table"
# Session state: the round whose view was last recorded (casino, table, round id).
VIEWED = "round_viewed"
# Session state: the proved reports, by (data directory, casino, table, round id).
PROOFS = "round_proofs"
INPUTS = ("replay/rounds.parquet", "replay/hands.parquet", "replay/wagers.parquet",
          "replay/timeline.parquet", "replay/findings.parquet", "replay/manifest.json",
          "checks/flags.parquet")
_FILE_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_SVG_NS = "http://www.w3.org/2000/svg"


def _stamps(root: Path) -> tuple[Any, ...]:
    """A cache key that changes when replay or the checks write their files again."""
    out: list[tuple[Any, ...]] = []
    for name in INPUTS:
        path = root / name
        try:
            info = path.stat()
        except OSError:
            out.append((name, None))
            continue
        out.append((str(path.resolve()), info.st_mtime_ns, info.st_size))
    return tuple(out)


@st.cache_data(max_entries=64, show_spinner=False)
def _report(root: str, round_id: str, casino: str | None, table_id: str | None,
            stamp: tuple[Any, ...]) -> RoundReport | None:
    return round_report(Path(root), round_id, casino=casino, table_id=table_id)


@st.cache_data(max_entries=64, show_spinner=False)
def _tables_of(_con: Any, path: str, round_id: str, stamp: tuple[Any, ...]
               ) -> list[tuple[str, str]]:
    """The (casino, table) pairs where a round id was dealt (an id is unique only at its
    casino's table)."""
    with _con.cursor() as cur:
        rows = cur.execute("SELECT DISTINCT casino, table_id FROM read_parquet(?) "
                           "WHERE round_id = ? ORDER BY 1, 2 LIMIT 50",
                           [path, round_id]).fetchall()
    return [(str(c), str(t)) for c, t in rows]


def open_round(round_id: str, casino: str, table_id: str) -> None:
    """Go to this page showing the round at that casino's table, in the same session (a
    plain link would load the app again and sign the user out); stops the run."""
    st.switch_page(st.Page(_nothing, title=TITLE, url_path=URL_PATH),
                   query_params={ROUND_PARAM: round_id, CASINO_PARAM: casino,
                                 TABLE_PARAM: table_id})


def _nothing() -> None:
    """The body of a st.Page that only names the Round page the shell registered."""


def file_name(report: RoundReport) -> str:
    """The dispute report's file name: only letters, digits, ``_``, ``.`` and ``-``."""
    parts = [report.casino, report.table_id, report.round_id]
    return "dispute-" + "-".join(_FILE_SAFE.sub("_", p).strip("._") or "x" for p in parts) \
        + ".html"


def pictures(tokens: tuple[str, ...], *, tiles: bool) -> str:
    """The tokens as pictures: replay/pictures.py's SVG of each (which escapes the token it
    draws), as an ``<img>`` whose source is that SVG and whose alternative text is the
    token. st.html sanitises its HTML and drops inline SVG; an image of an SVG runs no
    script whatever it holds."""
    draw = tile_svg if tiles else card_svg
    out = []
    for token in tokens:
        svg = draw(token).replace("<svg ", f'<svg xmlns="{_SVG_NS}" ', 1)
        source = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        label = html.escape(str(token), quote=True)
        out.append(f'<img class="catwalk-{"tile" if tiles else "card"}" alt="{label}" '
                   f'title="{label}" src="data:image/svg+xml;base64,{source}"/>')
    return "".join(out)


# Page -------------------------------------------------------------------------------------


def render(ctx: PageContext) -> None:
    """Draw the page for the round asked for (typed, or ``?round=``)."""
    st.title(TITLE)
    asked = (ctx.params.get(ROUND_PARAM) or "").strip()
    if "round_id_input" not in st.session_state or \
            st.session_state.get("round_id_from") != asked:
        st.session_state["round_id_input"] = asked
        st.session_state["round_id_from"] = asked
    round_id = st.text_input("Round id", key="round_id_input",
                             placeholder="e.g. T01-000042",
                             help="A round id as the table records it. Every round a flag "
                                  "names opens here from the Flags page.").strip()
    if not round_id:
        st.caption("Type a round id, or open a round from a flag on the Flags page.")
        return
    if not (ctx.root / data.ROUNDS).is_file():
        st.info(f"No rounds yet in {code(ctx.root)}. {data.RUN_HINT}")
        return
    where = _where(ctx, round_id)
    if where is None:
        return
    casino, table_id = where
    try:
        report = _report(str(ctx.root), round_id, casino, table_id, _stamps(ctx.root))
    except ReportError as error:
        st.error(f"This round cannot be shown: {literal(str(error))}.")
        return
    if report is None:
        st.warning(f"No round {code(round_id)} in {code(ctx.root / data.ROUNDS)}"
                   + (f" at casino {code(casino)} table {code(table_id)}"
                      if casino or table_id else "")
                   + ". Check the id as the table records it, or search for the round, its "
                   "table or its dealer on the Flags page.")
        return
    proved = st.session_state.get(PROOFS, {}).get(_key(ctx, report))
    if proved is not None:
        report = proved
    _record_view(ctx, report)
    _show(ctx, report)


def _where(ctx: PageContext, round_id: str) -> tuple[str | None, str | None] | None:
    """The casino and table the round is asked at: the link's (for the round it names);
    else, when the id was dealt at several tables, the one the user chooses (None while
    none is chosen: the page stops there); else (None, None)."""
    if round_id == (ctx.params.get(ROUND_PARAM) or "").strip():
        casino = (ctx.params.get(CASINO_PARAM) or "").strip() or None
        table_id = (ctx.params.get(TABLE_PARAM) or "").strip() or None
        if casino is not None or table_id is not None:
            return casino, table_id
    pairs = _tables_of(ctx.con, str(ctx.root / data.ROUNDS), round_id, _stamps(ctx.root)[:1])
    if len(pairs) <= 1:
        return None, None
    st.warning(f"Round id {code(round_id)} was dealt at {len(pairs)} tables: choose one.")
    choice = st.selectbox("Table", pairs, index=None, key=f"round_table_{round_id}",
                          format_func=lambda p: views.shown(f"casino {p[0]} table {p[1]}"),
                          placeholder="Choose the casino and table")
    return None if choice is None else (str(choice[0]), str(choice[1]))


def _key(ctx: PageContext, report: RoundReport) -> tuple[str, str, str, str]:
    return (str(ctx.root), report.casino, report.table_id, report.round_id)


def _record_view(ctx: PageContext, report: RoundReport) -> None:
    """One round_view per round shown: not again while the same round stays on screen."""
    shown = (report.casino, report.table_id, report.round_id)
    if st.session_state.get(VIEWED) == shown:
        return
    ctx.record("round_view", report.round_id, casino=report.casino, table_id=report.table_id)
    st.session_state[VIEWED] = shown


def _show(ctx: PageContext, report: RoundReport) -> None:
    _provenance(report)
    _facts(report)
    if not report.evaluated:
        problems = "; ".join(report.problems) or "no reason recorded"
        st.warning(f"**Not judged**: replay could not evaluate this round, so nothing below "
                   f"says whether it was settled right (this is not a pass). Why: "
                   f"{literal(problems)}.")
    _flags(report)
    _hands(report)
    _wagers(report)
    _timeline(report)
    _findings(report)
    _ruleset(report)
    _proof(ctx, report)
    _download(ctx, report)


def _provenance(report: RoundReport) -> None:
    """Data from a log that did not verify is said first, in red; a verified one is a line
    of the facts (the banner above every page says it too)."""
    line = report.provenance
    if not line.startswith(VERIFIED):
        st.error(f"**Where the data came from**: {literal(line)}. What follows rests on a "
                 "log that did not verify; see the Log integrity page.")


def _facts(report: RoundReport) -> None:
    st.subheader(f"Round {literal(report.round_id)}")
    facts = [
        ("casino", report.casino), ("table", report.table_id), ("game", report.game),
        ("ruleset", report.ruleset), ("dealt at (UTC)", report.dealt_at),
        ("dealer", report.dealer_id), ("banker", report.banker),
        ("judged", "yes" if report.evaluated else "NO: not evaluated"),
        ("data from", report.provenance),
    ]
    st.dataframe(views.shown_frame(pd.DataFrame(
        [(k, "" if v is None else str(v)) for k, v in facts], columns=["what", "value"])),
        hide_index=True)
    if report.notation:
        st.code(report.notation, language=None, wrap_lines=True)


def _flags(report: RoundReport) -> None:
    for flag in report.flags:
        st.error(flag_line(flag))


def flag_line(flag: Any) -> str:
    """A flag on this round in one line of Markdown: who, what, the money (its dollar signs
    escaped: Streamlit reads ``$...$`` as math) and the check's detail as literal text."""
    who = views.seat_label(flag.get("seat")).capitalize()
    wager = flag.get("wager")
    if isinstance(wager, str) and wager:
        who += f", {literal(wager)}"
    parts = [f"**{who}**: {literal(flag.get('title') or flag.get('check_id') or '')} "
             f"({code(flag.get('check_id') or '')}, severity "
             f"{literal(flag.get('severity') or 'unknown')})."]
    recorded, expected = flag.get("recorded_cents"), flag.get("expected_cents")
    if type(recorded) is int and type(expected) is int:
        amounts = f"Recorded {format_cents(recorded)}, required {format_cents(expected)}"
        difference = flag.get("difference_cents")
        if type(difference) is int and difference:
            way = "overpaid" if difference > 0 else "underpaid"
            amounts += f": {way} by {format_cents(abs(difference))}"
        parts.append(_dollar(amounts) + ".")
    detail = flag.get("detail")
    if isinstance(detail, str) and detail.strip():
        parts.append(literal(detail.strip()))
    return " ".join(parts)


def _tiles(report: RoundReport) -> bool:
    """Whether the round is dealt from tiles (the game's deck; replay/games)."""
    from replay.games import find_game
    from replay.tiles import Tile

    try:
        deck = find_game(str(report.game)).deck
    except (ReplayError, LookupError):
        return False
    return bool(deck) and isinstance(deck[0], Tile)


def _hands(report: RoundReport) -> None:
    st.subheader("Hands")
    if not report.hands:
        st.info("No hand was recorded for this round.")
        return
    tiles = _tiles(report)
    for hand in report.hands:
        st.html(hand_html(hand, tiles=tiles))


def hand_html(hand: HandView, *, tiles: bool) -> str:
    """One hand as HTML: the pictures as dealt and as set, the ranks, the house way for the
    dealer, the result against the banker and why. Every text is escaped."""
    e = html.escape
    lines = [f'<div class="catwalk-hand"><p><strong>{e(hand.position.capitalize())}</strong>']
    if hand.action:
        lines.append(f" ({e(hand.action)})")
    lines.append("</p>")
    row = '<div style="display:flex;gap:4px;flex-wrap:wrap;align-items:center">{}</div>'
    if hand.high or hand.low:
        lines.append(row.format(
            '<span style="min-width:6em">high hand</span>'
            + pictures(hand.high, tiles=tiles)
            + f'<span style="margin-left:8px">{e(hand.high_rank or "")}</span>'))
        lines.append(row.format(
            '<span style="min-width:6em">low hand</span>' + pictures(hand.low, tiles=tiles)
            + f'<span style="margin-left:8px">{e(hand.low_rank or "")}</span>'))
    else:
        lines.append(row.format('<span style="min-width:6em">dealt</span>'
                                + pictures(hand.cards, tiles=tiles)))
        lines.append("<p>Not set.</p>")
    if hand.foul:
        lines.append("<p><strong>Foul</strong>: the high hand is set below the low hand.</p>")
    if hand.seat is None and (hand.house_way_high or hand.house_way_low):
        followed = {True: "followed", False: "NOT followed", None: "not judged"}[hand.house_way]
        lines.append(f"<p>House way: {e(followed)}.</p>")
        if hand.house_way is not True:
            lines.append(row.format(
                '<span style="min-width:6em">house way</span>'
                + pictures(hand.house_way_high, tiles=tiles) + '<span style="width:12px"></span>'
                + pictures(hand.house_way_low, tiles=tiles)))
    result = hand.result or ("not judged" if hand.seat is not None else "")
    if result:
        lines.append(f"<p><strong>{e(result.capitalize())}</strong>"
                     + (f": {e(hand.why)}" if hand.why else "") + "</p>")
    elif hand.why:
        lines.append(f"<p>{e(hand.why[0].upper() + hand.why[1:])}</p>")
    lines.append("</div>")
    return "".join(lines)


def _wagers(report: RoundReport) -> None:
    st.subheader("Wagers: recorded against what the rules require")
    if not report.wagers:
        st.info("No wager was recorded for this round.")
        return
    table = wagers_table(report.wagers)
    differs = [w.difference_cents not in (None, 0) for w in report.wagers]
    shade = "background-color: rgba(255, 75, 75, 0.25)"
    styled = table.style.apply(
        lambda row: [shade if differs[row.name] and column in ("recorded net", "difference")
                     else "" for column in row.index], axis=1)
    st.table(styled, hide_index=True)
    differences = [w.difference_cents for w in report.wagers if w.difference_cents is not None]
    over = sum(d for d in differences if d > 0)
    under = -sum(d for d in differences if d < 0)
    if over or under:
        st.markdown(f"Overpaid {_dollar(format_cents(over))}, underpaid "
                    f"{_dollar(format_cents(under))} (recorded minus required, wager by "
                    "wager).")


def _dollar(text: str) -> str:
    """Money of this page's own making in Markdown: the dollar sign escaped."""
    return text.replace("$", "\\$")


def wagers_table(wagers: tuple[WagerView, ...]) -> pd.DataFrame:
    """Each wager as recorded and as the rules require (with the lawful range where the
    rules let the house choose, docs/rules.md 6a.19); money as currency from integer cents,
    the difference signed (positive: overpaid) and counted from the nearer end of the
    range. Cells are Markdown for st.table:
    text from the log goes through views.cell."""
    rows = [{
        "who": views.cell(w.position),
        "wager": views.cell(w.wager),
        "amount": views.money(w.amount_cents),
        "recorded": views.cell(w.recorded_outcome or "not settled"),
        "recorded net": views.money(w.recorded_net_cents, signed=True),
        "recorded commission": views.money(w.recorded_commission_cents),
        "required": views.cell(w.expected_outcome or "not judged"),
        "required net": views.money_lawful(w.expected_net_cents, w.expected_net_min_cents,
                                           w.expected_net_max_cents, signed=True),
        "required commission": views.money_lawful(w.expected_commission_cents,
                                                  w.expected_commission_min_cents,
                                                  w.expected_commission_max_cents),
        "difference": views.money(w.difference_cents, signed=True),
    } for w in wagers]
    return pd.DataFrame(rows)


def _timeline(report: RoundReport) -> None:
    st.subheader("Timeline of events")
    if not report.timeline:
        st.info("No event of this round is in replay's timeline (timeline.parquet missing "
                "or written by an older replay: run `python -m replay` again).")
        return
    st.dataframe(views.shown_frame(pd.DataFrame([{
        "seq": e.table_seq, "when (UTC)": e.occurred_at, "recorded by": e.recorded_by,
        "event": e.event, "what": e.summary, "superseded": "yes" if e.superseded else "",
        "event id": e.event_id,
    } for e in report.timeline])), hide_index=True, width="stretch")


def _findings(report: RoundReport) -> None:
    st.subheader("Findings")
    if not report.findings and not report.flags and not report.problems:
        st.success("No finding and no flag on this round.")
        return
    if report.problems:
        st.markdown("**Problems replay found in the record**")
        for problem in report.problems:
            st.text(views.shown(problem))
    if report.findings:
        st.markdown("**Findings**")
        for finding in report.findings:
            st.text(views.shown(finding))
    if report.flags:
        st.dataframe(views.shown_frame(pd.DataFrame([{
            "check": f.get("check_id"), "severity": f.get("severity"), "seat": f.get("seat"),
            "wager": f.get("wager"),
            "difference": views.dollars(f.get("difference_cents"))
            if type(f.get("difference_cents")) is int else None,
            "detail": f.get("detail"),
        } for f in report.flags])), hide_index=True, width="stretch", column_config={
            "difference": st.column_config.NumberColumn("difference", format="dollar")})


def _ruleset(report: RoundReport) -> None:
    st.subheader("Ruleset in force")
    st.text(report.ruleset_words)
    st.caption("Every shipped ruleset in full: the Rulesets page (in the menu).")


def _proof(ctx: PageContext, report: RoundReport) -> None:
    st.subheader("Proof against the signed checkpoint")
    if report.proof is None:
        st.caption("Ties each event of the round to the log's signed checkpoint (RFC 9162 "
                   "inclusion proofs). It reads the whole log, so it runs on demand.")
        pinned = st.text_input("Public key (pinned)", key="round_key",
                               placeholder="name+8hexdigits+base64key (empty: the key beside "
                                           "the log)")
        if st.button("Prove against the signed checkpoint", key="round_prove"):
            key = pinned.strip() or None
            if key is not None:
                try:
                    Verifier.from_vkey(key)
                except CheckpointError as error:
                    st.error(f"Public key: {literal(str(error))}.")
                    return
            with st.spinner("Reading the log and proving the round's events..."):
                try:
                    proved = round_report(ctx.root, report.round_id, with_proof=True, key=key,
                                          casino=report.casino, table_id=report.table_id)
                except ReportError as error:
                    st.error(f"No proof: {literal(str(error))}.")
                    return
            if proved is None:
                st.error("No proof: the round is no longer in replay's output.")
                return
            proof = proved.proof
            ctx.record("proof_made", report.round_id, casino=report.casino,
                       table=report.table_id, key="pinned" if key else "beside the log",
                       verified=bool(proof is not None and proof.verified),
                       line=(proof.line[:500] if proof is not None else ""))
            st.session_state.setdefault(PROOFS, {})[_key(ctx, report)] = proved
            st.rerun()
        return
    proof = report.proof
    (st.success if proof.verified else st.error)(
        ("**Proved**: " if proof.verified else "**Not proved**: ") + literal(proof.line))
    if proof.checkpoint:
        with st.expander("The signed checkpoint"):
            st.code(proof.checkpoint, language=None)
    if proof.events:
        with st.expander(f"The proof of each of the {len(proof.events)} events"):
            st.dataframe(views.shown_frame(pd.DataFrame([{
                "leaf": e.get("index"), "event id": e.get("event_id"), "kind": e.get("kind"),
                "where": e.get("coordinates"), "audit path (hashes)": len(e.get("path") or ()),
            } for e in proof.events])), hide_index=True, width="stretch")


def _download(ctx: PageContext, report: RoundReport) -> None:
    st.subheader("Dispute report")
    st.caption("One printable HTML page with everything above"
               + (", the proof included." if report.proof is not None else
                  "; prove the round first to include the proof."))
    st.download_button("Dispute report", data=report_html(report), file_name=file_name(report),
                       mime="text/html", key="round_report_download",
                       on_click=_downloaded, args=(ctx, report.round_id, report.casino,
                                                   report.table_id, report.proof is not None))


def _downloaded(ctx: PageContext, round_id: str, casino: str, table_id: str,
                proved: bool) -> None:
    ctx.record("report_download", round_id, casino=casino, table_id=table_id, proof=proved)
