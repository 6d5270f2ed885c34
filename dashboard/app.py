"""Catwalk dashboard: served from the repository root with ``streamlit run dashboard/serve.py``
(which runs this script behind a layer that closes ``/_stcore/metrics``; ``streamlit run
dashboard/app.py`` serves it without that layer).

It reads the Parquet files that replay and checks wrote under ``$CATWALK_DATA`` (default
``var/``) and never writes them; its own files (users, access log, cases) live in
``$CATWALK_DASHBOARD_HOME`` (default ``$CATWALK_DATA/dashboard``). The shell around the pages
is dashboard/shell.py; the pages are listed in dashboard/screens/__init__.py.

``SESSION_USER`` is the ``st.session_state`` key of the signed-in
:class:`~dashboard.context.User`: a test signs a user in with
``at.session_state[SESSION_USER] = User(name=..., role=...)`` (the user must exist, active
and with that role, in the users file of ``$CATWALK_DASHBOARD_HOME``).
"""

from __future__ import annotations

from dashboard.signin import SESSION_USER

__all__ = ["SESSION_USER"]

if __name__ == "__main__":
    from dashboard.shell import main

    main()
