"""The banner on every page: whether the data shown was built from a log that verified, as
replay recorded it in ``replay/manifest.json`` (dashboard/data.py :func:`provenance`).

Fail closed: a log that did not verify, a manifest that cannot be trusted and a missing
manifest are each said in so many words above the page; only a verified log is quiet (a
caption). The verification line comes from the manifest, so it is shown as text, never as
Markdown.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dashboard import data
from dashboard.views import code, literal
from schemas.keyring import ENV as KEYRING
from schemas.keyring import NOT_PINNED

UNVERIFIED = "Built from a log that did not verify"
NOT_PINNED_WORDS = "Built from a log whose key is not pinned"


def show(root: Path) -> data.Provenance:
    """Draw the banner for the data under ``root``; returns what it said."""
    known = data.provenance(root)
    manifest = code(root / data.MANIFEST)
    if known.state == "verified":
        st.caption(f"Built from a verified log: {literal(known.line or 'verified')}")
    elif known.state == "unverified" and known.line.startswith(NOT_PINNED):
        st.error(
            f"**{NOT_PINNED_WORDS}**: {literal(known.line)}. "
            "It verifies only with the key found beside it, which whoever can write the data "
            f"directory can replace: set {KEYRING} to your keyring (or replay with --key) and "
            "replay again.",
            icon=":material/gpp_bad:",
        )
    elif known.state == "unverified":
        why = literal(known.line or "no reason given")
        st.error(
            f"**{UNVERIFIED}**: {why}. "
            "The rounds and flags below may rest on records that were altered, lost or added: "
            "run `python -m ingest verify` to find the first bad record, and replay again once "
            "the log verifies.",
            icon=":material/gpp_bad:",
        )
    elif known.state == "unknown":
        if data.missing(root) == list(data.ALL_FILES):
            return known  # nothing replayed yet: the page says what to run
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
    return known
