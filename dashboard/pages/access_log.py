"""The Access log page of the dashboard (issue 9); a stub until the page is filled in."""

from __future__ import annotations

import streamlit as st

from dashboard.context import CAN_SEE_ACCESS_LOG, PageContext, Role

TITLE = "Access log"
URL_PATH = "access-log"
ICON = ":material/history:"
ROLES: frozenset[Role] | None = CAN_SEE_ACCESS_LOG


def render(ctx: PageContext) -> None:
    """Draw the page for ``ctx.user``."""
    st.title(TITLE)
    st.info("This page is being built.")
