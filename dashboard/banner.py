"""The banner on every page: what can be said of the data shown, as the one reader of trust
says it (replay/outputs.py ``trust``, through dashboard/data.py :func:`provenance`): replay's
signed manifest and every file it lists, the checks' signed manifest of the flags, whether the
log and the keys were verified and pinned, and a later refusal of the log with the first
refusal's time.

It is evaluated afresh on every run of the page, live pages included: a live page's fragment
calls :func:`changed` at each refresh and reruns the whole page when the banner would say
something else, so an open page turns red once the live loop refuses the log (never a stale
"verified"). Fail closed: only data whose signatures and hashes all verified with pinned keys
is quiet (a caption); a key found beside the data is a warning; a log that did not verify,
or was refused since, is red; outputs that do not match their signed manifest, an unsigned
or a missing manifest are red and no data is shown (:attr:`data.Provenance.shown`). The
words come from files, so they are shown as text, never as Markdown.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dashboard import data
from dashboard.views import literal

UNVERIFIED = "Built from a log that did not verify"
SHOWN = "banner_shown"
"""Session state: (data directory, state, line) of the banner drawn last."""


def _said(known: data.Provenance) -> tuple[str, str, str, bool]:
    return known.state, known.line, known.flags, known.shown


def changed(root: Path) -> bool:
    """Whether the banner drawn last for ``root`` no longer says what is true now."""
    last = st.session_state.get(SHOWN)
    return last is None or last[0] != str(root) or last[1:] != _said(data.provenance(root))


def show(root: Path) -> data.Provenance:
    """Draw the banner for the data under ``root``; returns what it said."""
    known = data.provenance(root)
    st.session_state[SHOWN] = (str(root), *_said(known))
    line = literal(known.line or "no reason given")
    since = f" First refused at {literal(known.refused_at)}." if known.refused_at else ""
    if known.state == "verified" and known.shown:
        flags = "" if known.flags == "verified" else f" (flags: {literal(known.flags)})"
        st.caption(f"Built from a verified log, outputs signed and checked: {line}{flags}")
    elif known.state == "key-not-pinned" and known.shown:
        st.warning(
            f"**Unverified: key not pinned**: {line}. The signatures check only with keys "
            "found beside the data, which whoever can write it can replace: set "
            "`CATWALK_TRUSTED_KEYS` to your keyring.", icon=":material/key_off:")
    elif known.state in ("unverified-log", "refused") and known.shown:
        st.error(
            f"**{UNVERIFIED}**: {line}.{since} "
            "The rounds and flags below may rest on records that were altered, lost or added: "
            "run `python -m ingest verify` to find the first bad record, and replay again once "
            "the log verifies.",
            icon=":material/gpp_bad:",
        )
    elif known.state == "missing" and data.missing(root) == list(data.ALL_FILES):
        return known  # nothing replayed yet: the page says what to run
    else:
        why = literal("; ".join(known.reasons)[:800] or known.flags_line or known.line)
        st.error(
            f"**Not shown: the data cannot be trusted** ({literal(known.state)}"
            f"{'' if known.shown or known.state != 'verified' else ', flags ' + known.flags}"
            f"): {why}.{since} Nothing built from these files is shown. Run `python -m replay` "
            "and `python -m checks` again from a log that verifies.",
            icon=":material/gpp_bad:",
        )
    return known
