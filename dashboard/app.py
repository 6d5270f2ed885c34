"""Catwalk dashboard: the flags the checks raised, and the reconstruction of any round.

Run from the repository root: ``streamlit run dashboard/app.py``. It reads the Parquet files
that replay and checks wrote under ``$CATWALK_DATA`` (default ``var/``) and never writes them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

from dashboard import data, views
from dashboard.money import format_cents
from dashboard.views import code, literal

RUN_HINT = (
    "Run `make demo` for a demo data set, or `python -m replay` and then `python -m checks` "
    "over your own event log."
)


@st.cache_resource
def connection() -> duckdb.DuckDBPyConnection:
    """One in-memory DuckDB per server process; every query takes its own cursor."""
    return data.connect()


# ``stamp`` (path, mtime, size of the files read) is only a cache key: a rerun of replay or
# checks rewrites the files, which changes the key, so the page never shows stale results.
@st.cache_data(max_entries=8, show_spinner=False)
def load_flags(root: str, stamp: tuple[Any, ...]) -> pd.DataFrame:
    return data.flags(connection(), Path(root))


@st.cache_data(max_entries=8, show_spinner=False)
def load_flag_totals(root: str, stamp: tuple[Any, ...]) -> tuple[int, int, int]:
    return data.flag_totals(connection(), Path(root))


@st.cache_data(max_entries=8, show_spinner=False)
def load_round_counts(root: str, stamp: tuple[Any, ...]) -> tuple[int, int]:
    return data.round_counts(connection(), Path(root))


@st.cache_data(max_entries=64, show_spinner=False)
def load_round(
    root: str, round_id: str, stamp: tuple[Any, ...]
) -> tuple[dict[str, Any] | None, pd.DataFrame, pd.DataFrame]:
    con = connection()
    info = data.round_info(con, Path(root), round_id)
    return info, data.hands(con, Path(root), round_id), data.wagers(con, Path(root), round_id)


def _flag_chosen() -> None:
    """Choosing a flag means "show me that flag's round", so drop any round typed by id."""
    if st.session_state.get("flag") is not None:
        st.session_state["round"] = ""


def _round_typed() -> None:
    """Typing a round id means "show me this round", so let go of the chosen flag; choosing
    any flag again (even the same one) is then a change that brings its round back."""
    if st.session_state.get("round", "").strip() and "flag" in st.session_state:
        st.session_state["flag"] = None


def _stamps(root: Path, names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(data.stamp(root, name) for name in names)


def _highlight(table: pd.DataFrame, rows: pd.Series) -> Any:
    """Shade the flagged rows so the disputed seat stands out (the ``flag`` column says why)."""
    shade = "background-color: rgba(255, 75, 75, 0.18)"
    return table.style.apply(lambda row: [shade if rows[row.name] else "" for _ in row], axis=1)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def show_summary(root: Path, have_flags: bool) -> int:
    """The summary line; returns how many rounds replay wrote."""
    judged, not_evaluated = load_round_counts(str(root), _stamps(root, (data.ROUNDS,)))
    if judged + not_evaluated == 0:
        return 0
    line = f"**{_plural(judged, 'round')} judged**"
    if not_evaluated:
        line += f" ({not_evaluated} not evaluated)"
    if have_flags:
        flag_count, over, under = load_flag_totals(str(root), _stamps(root, (data.FLAGS,)))
        line = f"**{_plural(flag_count, 'flag')}** · " + line
        line += f" · overpaid **{format_cents(over)}** · underpaid **{format_cents(under)}**"
    st.markdown(line)
    return judged + not_evaluated


def choose_flag(flags: pd.DataFrame) -> dict[str, Any] | None:
    """The flags table and the flag picker; returns the chosen flag."""
    st.dataframe(views.flags_table(flags), hide_index=True, width="stretch")
    records = flags.to_dict("records")
    labels: dict[str, dict[str, Any]] = {}
    for flag in records:
        label = views.flag_label(flag)
        while label in labels:
            label += " "
        labels[label] = flag
    chosen = st.selectbox(
        "Flagged round",
        list(labels),
        key="flag",
        on_change=_flag_chosen,
        placeholder="Choose a flag",
        help="Round, seat, difference (recorded minus expected) and check.",
    )
    return labels.get(chosen) if chosen is not None else None


def show_provenance(root: Path) -> None:
    """The banner saying whether the data was built from a log that verified (the manifest
    replay writes); nothing to say when the log verified but a caption."""
    known = data.provenance(root)
    manifest = code(root / data.MANIFEST)
    if known.state == "verified":
        st.caption(f"Built from a verified log: {literal(known.line or 'verified')}")
    elif known.state == "unverified":
        why = literal(known.line or "no reason given")
        st.error(
            f"**Built from a log that did not verify**: {why}. "
            "The rounds and flags below may rest on records that were altered, lost or added: "
            "run `python -m ingest verify` to find the first bad record, and replay again once "
            "the log verifies."
        )
    elif known.state == "unknown":
        st.warning(
            f"**Provenance unknown**: no {manifest}, so nothing says whether the log this data "
            "was built from verified (a replay older than the manifest). Run `python -m replay` "
            "again to record it."
        )
    else:
        st.error(
            f"**Provenance unknown**: {manifest} {literal(known.line)}, so nothing says whether "
            "the log this data was built from verified. Treat the data as unverified; run "
            "`python -m replay` again to rewrite the manifest."
        )


def show_round(root: Path, round_id: str, flags: pd.DataFrame | None) -> None:
    """Everything a dispute needs about one round: cards, how each hand was set, the money."""
    info, hands, wagers = load_round(str(root), round_id, _stamps(root, data.REPLAY_FILES))
    st.subheader(f"Round {literal(round_id)}")
    if info is None:
        st.warning(f"No round {code(round_id)} in {code(root / data.ROUNDS)}. Check the round id.")
        return
    st.code(info["notation"] or "(no notation)", language=None, wrap_lines=True)
    st.caption(
        " · ".join(
            [
                f"table {literal(info['table_id'])}",
                f"casino {literal(info['casino'])}",
                literal(info["game"]),
                f"ruleset {literal(info['ruleset'])}",
                f"dealt {info['dealt_at']}",
                f"dealer {literal(info['dealer_id'])}",
            ]
        )
    )
    if not info["evaluated"]:
        st.warning(
            f"Not evaluated: {literal(info['problems'] or 'no reason recorded')}. Replay could not "
            "judge "
            "this round, so there is no expected settlement; this is not a pass."
        )
    elif info["problems"]:
        st.warning(f"Problems: {literal(info['problems'])}")

    flagged: dict[int, list[str]] = {}
    if flags is not None:
        for flag in flags[flags["round_id"] == round_id].to_dict("records"):
            st.error(views.flag_sentence(flag, quote=literal))
            if not views.absent(flag["seat"]):
                flagged.setdefault(int(flag["seat"]), []).append(str(flag["check_id"]))

    st.markdown("**Hands**: as dealt and as set")
    if hands.empty:
        st.info("No hands recorded for this round.")
    else:
        table = views.hands_table(hands)
        flagged_hands = pd.Series(hands["seat"].isin(list(flagged)).to_numpy(dtype=bool))
        shaded = _highlight(table, flagged_hands)
        st.table(shaded, hide_index=True)

    st.markdown("**Wagers**: settlement recorded at the table versus what the rules require")
    if wagers.empty:
        st.info("No wagers recorded for this round.")
    else:
        table = views.wagers_table(wagers, flagged)
        st.table(_highlight(table, table["flag"] != ""), hide_index=True)


def main() -> None:
    st.set_page_config(page_title="Catwalk: flags", layout="wide")
    st.title("Catwalk: flags")
    root = data.data_dir()
    st.caption(f"Data: {code(root)}")

    absent = data.missing(root)
    if len(absent) == len(data.ALL_FILES):
        st.info(f"No data yet: nothing has been replayed or checked in {code(root)}. {RUN_HINT}")
        return
    show_provenance(root)
    replay_absent = data.missing(root, data.REPLAY_FILES)
    if replay_absent:
        names = ", ".join(f"`{name}`" for name in replay_absent)
        st.warning(f"Replay output is incomplete in {code(root)}: {names} missing. {RUN_HINT}")
        return
    have_flags = data.FLAGS not in absent

    try:
        if not show_summary(root, have_flags):
            st.info(
                f"No rounds yet: replay wrote an empty `{data.ROUNDS}` in {code(root)}. {RUN_HINT}"
            )
            return
        flags = load_flags(str(root), _stamps(root, (data.FLAGS,))) if have_flags else None
        chosen: dict[str, Any] | None = None
        if flags is None:
            st.warning("No flags: the checks have not run yet. Run `python -m checks`.")
        elif flags.empty:
            st.success("No flags: every judged round was settled as the rules require.")
        else:
            chosen = choose_flag(flags)

        typed = st.text_input(
            "Or look up any round by id",
            key="round",
            placeholder="e.g. t1-000042",
            help="A dispute can start from a round rather than from a flag.",
            on_change=_round_typed,
        ).strip()
        round_id = typed or (str(chosen["round_id"]) if chosen else "")
        if round_id:
            show_round(root, round_id, flags)
        else:
            st.caption("Choose a flag or enter a round id to see the round's reconstruction.")
    except (duckdb.Error, OSError) as error:
        what = literal(f"{type(error).__name__}: {error}")
        st.error(
            f"Could not read the data in {code(root)}: {what}. "
            f"The files may be from an older version or half written. {RUN_HINT}"
        )


main()
