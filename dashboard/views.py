"""Turn query results into the tables a surveillance analyst reads: floor words for column
names, money as dollars (from integer cents, never float), yes/no instead of True/False."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any, TypeVar

import pandas as pd
import pyarrow as pa

from dashboard.money import format_cents

DOLLARS = pa.decimal128(38, 2)
"""Dollars in a table shown with st.dataframe: exact (from integer cents, never a float),
and numeric, so the column sorts as numbers (-$25.00 < -$10.00 < -$5.00)."""


def absent(value: Any) -> bool:
    """True for a null cell: None, pandas NA, or NaN (which only a non-money column may hold)."""
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def money(value: Any, *, signed: bool = False) -> str:
    """Cents as dollars, or an empty cell when there is no amount (a round not evaluated)."""
    return "" if absent(value) else format_cents(value, signed=signed)


def money_lawful(value: Any, low: Any, high: Any, *, signed: bool = False) -> str:
    """An expected amount with its lawful range where the rules let the house choose
    (docs/rules.md 6a.19): ``"+$6.50 (lawful +$6.50 to +$6.65)"``; :func:`money` alone when
    the range is the point or absent. The words are those of replay's reports
    (``replay.money.format_lawful``)."""
    text = money(value, signed=signed)
    if not text or absent(low) or absent(high) or low == high:
        return text
    return f"{text} (lawful {money(low, signed=signed)} to {money(high, signed=signed)})"


def dollars(cents: Any) -> Decimal | None:
    """Integer cents as exact dollars: ``-2500`` -> ``Decimal("-25.00")``; None for no
    amount. Refuses a float or a bool as :func:`~dashboard.money.format_cents` does."""
    if absent(cents):
        return None
    format_cents(cents)  # the same type check: integer cents only
    return Decimal(int(cents)).scaleb(-2)


def money_table(frame: pd.DataFrame, money: Iterable[str], *, rename: dict[str, str]
                ) -> pa.Table:
    """``frame`` as an Arrow table for st.dataframe: each column of ``money`` (integer
    cents) becomes exact dollars (:data:`DOLLARS`); columns are renamed by ``rename`` and
    kept in its order (the others are dropped)."""
    columns: dict[str, pa.Array] = {}
    money = set(money)
    for source, label in rename.items():
        values = frame[source].tolist()
        if source in money:
            columns[label] = pa.array([dollars(v) for v in values], DOLLARS)
        else:
            columns[label] = pa.array([None if absent(v) else shown(v) if isinstance(v, str)
                                       else v for v in values])
    return pa.table(columns)


def yes_no(value: Any) -> str:
    return "" if absent(value) else ("yes" if bool(value) else "no")


# Invisible characters --------------------------------------------------------------------------
# A round id, a table or dealer name, a note or a user name can carry Unicode format controls
# (category Cf): the bidirectional embeddings, overrides and isolates (U+202A..U+202E,
# U+2066..U+2069) and marks (U+200E, U+200F, U+061C) reorder what follows them on screen
# (Unicode Standard Annex #9; the "Trojan Source" attack, CVE-2021-42574), so that
# "T01-000\u202e24" reads as T01-00042; zero-width ones (U+200B, U+2060, U+FEFF ...) make two
# different ids look the same. Every text the dashboard shows from data goes through
# :func:`shown`, which replaces each of them, and the line and paragraph separators, by its
# code point made visible, ``<U+202E>``: an analyst sees that something is there, and what.


def _visible(char: str) -> str:
    return f"<U+{ord(char):04X}>"


_HIDDEN = frozenset({"Cf", "Zl", "Zp"})


def shown(value: Any) -> str:
    """``value`` as text with every format control (Unicode category Cf: bidirectional
    overrides, isolates and marks, zero-width characters) and line or paragraph separator
    written as ``<U+XXXX>``; everything else unchanged. ``None`` and NA give ``""``."""
    if absent(value):
        return ""
    text = str(value)
    if text.isprintable():  # the common case: no format control (they are not printable)
        return text
    return "".join(_visible(c) if unicodedata.category(c) in _HIDDEN else c for c in text)


Frame = TypeVar("Frame", pd.DataFrame, pa.Table)


def shown_frame(frame: Frame) -> Frame:
    """A table for st.dataframe with every text cell through :func:`shown` (other cells, the
    column names and the index unchanged, so that numbers still sort as numbers)."""
    if isinstance(frame, pa.Table):
        columns = {}
        for name, column in zip(frame.column_names, frame.columns, strict=True):
            if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
                columns[name] = pa.array([None if v is None else shown(v)
                                          for v in column.to_pylist()], column.type)
            else:
                columns[name] = column
        return pa.table(columns)
    out = frame.copy()
    for name in out.columns:
        if out[name].dtype == object or pd.api.types.is_string_dtype(out[name].dtype):
            out[name] = out[name].map(lambda v: shown(v) if isinstance(v, str) else v)
    return out


def text(value: Any) -> str:
    """A cell's text from data (:func:`shown`): ``""`` for a null."""
    return shown(value)


def seat_label(value: Any) -> str:
    return "round" if absent(value) else f"seat {int(value)}"


def stake(flag: dict[str, Any]) -> int | None:
    """A flag's money at stake, signed as recorded minus expected: positive when overpaid,
    negative when underpaid, 0 when even; None when the flag is not about money."""
    amount = flag["amount_at_stake_cents"]
    if absent(amount):
        return None
    return -int(amount) if flag["direction"] == "under" else int(amount)


def flags_table(flags: pd.DataFrame) -> pd.DataFrame:
    """One row per flag: check, round, table, seat, recorded, expected, difference."""
    rows = [
        {
            "check": text(flag["check_id"]),
            "round": text(flag["round_id"]),
            "table": text(flag["table_id"]),
            "seat": text(flag["seat"]),
            "recorded": money(flag["recorded_cents"]),
            "expected": money(flag["expected_cents"]),
            "difference": money(stake(flag), signed=True),
        }
        for flag in flags.to_dict("records")
    ]
    columns = ["check", "round", "table", "seat", "recorded", "expected", "difference"]
    return pd.DataFrame(rows, columns=columns)


def flag_label(flag: dict[str, Any]) -> str:
    """The choice shown in the flag picker: round, seat, difference and check."""
    parts = [shown(flag["round_id"]), seat_label(flag["seat"])]
    if stake(flag) is not None:
        parts.append(money(stake(flag), signed=True))
    parts.append(shown(flag["check_id"]))
    return " · ".join(parts)


def flag_sentence(flag: dict[str, Any], quote: Callable[[Any], str] = str) -> str:
    """A flag in one line of floor language, for the banner above the round, e.g.
    "Seat 3: Overpay (overpay, severity high). Recorded $25.00, expected $23.75: overpaid by $1.25."
    ``quote`` renders the flag's own text (title, check, severity, detail): :func:`literal`
    for a Markdown banner.
    """
    tag = quote(flag["check_id"])
    if not absent(flag["severity"]):
        tag += f", severity {quote(flag['severity'])}"
    parts = [f"{seat_label(flag['seat']).capitalize()}: {quote(flag['title'])} ({tag})."]
    diff = stake(flag)
    if diff is not None:
        amounts = (
            f"Recorded {money(flag['recorded_cents'])}, expected {money(flag['expected_cents'])}"
        )
        if diff:
            way = "overpaid" if diff > 0 else "underpaid"
            amounts += f": {way} by {format_cents(abs(diff))}"
        parts.append(amounts + ".")
    detail = text(flag["detail"]).strip()
    if detail:
        detail = detail[0].upper() + detail[1:]
        parts.append(quote(detail) + ("" if detail.endswith(".") else "."))
    return " ".join(parts)


def cell(value: Any) -> str:
    """A text cell of a table shown with st.table, whose cells are Markdown: :func:`literal`."""
    return literal(text(value))


def hands_table(hands: pd.DataFrame) -> pd.DataFrame:
    """The hands as dealt and set, with the dealer's house way (blank for seats). The cells
    are Markdown for st.table: text from the log goes through :func:`cell`."""
    rows = [
        {
            "position": cell(hand["position"]),
            "cards": cell(hand["cards"]),
            "high hand": cell(hand["high"]),
            "low hand": cell(hand["low"]),
            "high hand rank": cell(hand["high_rank"]),
            "low hand rank": cell(hand["low_rank"]),
            "foul": yes_no(hand["foul"]),
            "house way followed": yes_no(hand["house_way"]),
            "house way high hand": cell(hand["house_way_high"]),
            "house way low hand": cell(hand["house_way_low"]),
        }
        for hand in hands.to_dict("records")
    ]
    columns = [
        "position", "cards", "high hand", "low hand", "high hand rank", "low hand rank",
        "foul", "house way followed", "house way high hand", "house way low hand",
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def wagers_table(wagers: pd.DataFrame, flagged: dict[int, list[str]]) -> pd.DataFrame:
    """Each wager's settlement as recorded beside what the rules require.

    ``difference`` is recorded net minus expected net (positive = overpaid to the player);
    ``flag`` names the checks that flagged the seat, so the disputed seat stands out. The
    cells are Markdown for st.table: text from the log goes through :func:`cell`.
    """
    rows = []
    for wager in wagers.to_dict("records"):
        recorded, expected = wager["recorded_net_cents"], wager["expected_net_cents"]
        both = not absent(recorded) and not absent(expected)
        seat = None if absent(wager["seat"]) else int(wager["seat"])
        rows.append(
            {
                "flag": cell(", ".join(flagged.get(seat, []))) if seat is not None else "",
                "seat": text(seat),
                "wager": cell(wager["wager"]),
                "amount": money(wager["amount_cents"]),
                "recorded outcome": cell(wager["recorded_outcome"]),
                "recorded net": money(recorded),
                "recorded commission": money(wager["recorded_commission_cents"]),
                "expected outcome": cell(wager["expected_outcome"]),
                "expected net": money(expected),
                "expected commission": money(wager["expected_commission_cents"]),
                "difference": money(int(recorded) - int(expected), signed=True) if both else "",
            }
        )
    columns = [
        "flag", "seat", "wager", "amount", "recorded outcome", "recorded net",
        "recorded commission", "expected outcome", "expected net", "expected commission",
        "difference",
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


# Untrusted text ----------------------------------------------------------------------------
# Everything in the Parquet files came from the event log, that is from table devices: a round
# id, a reason, a detail string can hold Markdown, HTML or Streamlit's own directives. Streamlit
# renders Markdown in st.markdown, st.caption, st.error/warning/info/success, st.subheader and
# the cells of st.table. Backslash escapes are not enough there: Streamlit turns "->" into an
# arrow, ":streamlit:" into its logo and "www.example.com" into a link even when escaped (seen
# in Chromium, Streamlit 1.67), so text from the log is shown either as it is, when it is made
# of words alone, or as an inline code span, inside which Markdown interprets nothing.

_WORDS = re.compile(r"[^\W_]+%?(?:(?:[,:]? |[-_])[^\W_]+%?)*")
_BACKTICKS = re.compile(r"`+")


def code(value: Any) -> str:
    """``value`` as a Markdown code span: shown character for character, in monospace. The
    fence is longer than any run of backticks inside; line breaks become spaces. One
    exception: Streamlit's front end rewrites ":material/" to ":material_" in the source,
    even inside code, so a zero-width space goes before the "/" (as Streamlit does itself)."""
    text = " ".join(shown(value).splitlines()).replace(":material/", ":material\u200b/")
    if not text:
        return ""
    fence = "`" * (1 + max((len(run) for run in _BACKTICKS.findall(text)), default=0))
    pad = " " if text[0] in " `" or text[-1] in " `" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def literal(value: Any) -> str:
    """``value`` as Markdown that shows exactly its text: unchanged when it is words (letters
    and digits joined by spaces, ", ", ": ", "-" or "_"; "t1-000042", "seat 1: no hand set"),
    where Markdown finds nothing to interpret, else as a :func:`code` span. Format controls
    are made visible first (:func:`shown`)."""
    text = " ".join(shown(value).splitlines())
    return text if _WORDS.fullmatch(text) else code(text)
