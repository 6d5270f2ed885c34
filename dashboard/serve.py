"""How the dashboard is served: ``streamlit run dashboard/serve.py`` (``make serve``,
deploy/live.sh), the app of dashboard/app.py behind one more layer.

Streamlit answers ``/_stcore/metrics`` to anyone who can reach the server, unauthenticated:
the number of sessions open, their cache and session-state sizes, and so when people use
the dashboard. Streamlit 1.67 has no option to turn it off (its ``server.*`` options cover
the metrics' contents, not the endpoint). What it does support is serving the app as an
ASGI application of its own, ``st.App``, with middleware in front of its routes; ``streamlit
run`` finds the ``app`` below and serves it as it serves a script. :class:`ClosedPaths`
answers 404 for the paths in :data:`CLOSED` (under any ``server.baseUrlPath``, with or
without a trailing or doubled slash) before Streamlit sees the request; every other path,
the app's page and its websocket included, is Streamlit's as before.
"""

from __future__ import annotations

import re
from typing import Any

import streamlit as st
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse

CLOSED = ("/_stcore/metrics",)
"""Paths nobody is served: what Streamlit would tell anyone about its sessions."""

_SLASHES = re.compile(r"/{2,}")


def closed(path: str) -> bool:
    """Whether ``path`` (the request's, decoded) is one of :data:`CLOSED`, under any base
    path."""
    normal = _SLASHES.sub("/", path).rstrip("/")
    return any(normal == end or normal.endswith(end) for end in CLOSED)


class ClosedPaths:
    """ASGI middleware: 404 for the paths in :data:`CLOSED`, whatever the method."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and closed(str(scope.get("path", ""))):
            await PlainTextResponse("Not Found", status_code=404)(scope, receive, send)
            return
        await self.app(scope, receive, send)


app = st.App("app.py", middleware=[Middleware(ClosedPaths)])
