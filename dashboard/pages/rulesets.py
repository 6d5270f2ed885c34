"""The Rulesets page of the dashboard (issue 9); a stub until the page is filled in."""

from __future__ import annotations

import streamlit as st

from dashboard.context import PageContext, Role

TITLE = "Rulesets"
URL_PATH = "rulesets"
ICON = ":material/menu_book:"
ROLES: frozenset[Role] | None = None


def render(ctx: PageContext) -> None:
    """Draw the page for ``ctx.user``."""
    st.title(TITLE)
    st.info("This page is being built.")
