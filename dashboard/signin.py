"""Signing in and out of the dashboard, and what is shown instead when nobody can.

- :func:`sign_in_form`: text inputs "Name" and "Password" and a "Sign in" button
  (dashboard/accounts.py :meth:`~dashboard.accounts.Accounts.authenticate`: scrypt hashes,
  and a back-off per client: after 3 failures a client waits 1 s, 2 s, 4 s ... before its
  next try; no name is ever locked). A wrong name and a wrong password get the same words,
  "Wrong name or password", so the form does not tell which names exist. Every attempt is
  written to the access log (``sign_in`` or ``sign_in_failed``, with the client) before the
  user is let in: when the log cannot be written, nobody is (fail closed).
- :func:`client_id`: who "a client" is for the back-off: ``address A`` when Streamlit knows
  the browser's address (``st.context.ip_address``: the peer of the connection, so behind a
  reverse proxy every browser is the proxy's address), else ``session S``, the browser
  session's id. Headers such as ``X-Forwarded-For`` are not used: any browser can send them.
- :func:`no_users`: the page shown while the dashboard has no active user, saying how to
  create the first one, instead of a sign-in that can never work.
- :func:`sign_out`: the sidebar's "Sign out" (recorded as ``sign_out``).

The signed-in :class:`~dashboard.context.User` is kept in ``st.session_state[SESSION_USER]``
for the rest of the browser session.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from dashboard.access import AccessLog
from dashboard.accounts import USERS_FILE, AccountError, Accounts
from dashboard.context import User
from dashboard.journal import JournalError
from dashboard.views import code, literal

SESSION_USER = "user"
"""``st.session_state`` key of the signed-in :class:`~dashboard.context.User` (tests seed
it to sign a user in)."""
SESSION_KEYS_TO_FORGET: tuple[str, ...] = ()
"""Further session keys dropped on sign-out besides the user (the shell adds its own)."""

WRONG = "Wrong name or password"
CREATE_FIRST = "python -m dashboard users add NAME --role admin --password-stdin"
_NAME_CHARS = 100

_LOG = logging.getLogger(__name__)


def typed_name(name: str) -> str:
    """The name as typed, safe for the access log: control characters dropped, at most
    100 characters (a failed sign-in records what was tried, whatever it was)."""
    kept = "".join(c for c in name if ord(c) >= 32 and ord(c) != 127)
    return kept[:_NAME_CHARS]


def access_log_error(error: BaseException) -> None:
    """The message shown instead of a page when the access log cannot be written."""
    st.error(
        "**The access log cannot be written**, so nothing is shown (every sign-in and page "
        f"view must be recorded): {literal(str(error) or type(error).__name__)}. "
        "Tell the dashboard's administrator: `python -m dashboard access verify` names the "
        "problem.",
        icon=":material/block:",
    )


def client_id() -> str:
    """The client a sign-in comes from (see the module's docstring)."""
    try:
        address = st.context.ip_address
    except Exception:  # no request in this run (a test harness): fall back to the session
        address = None
    if isinstance(address, str) and address:  # a test harness may give something else
        return f"address {address}"
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return f"session {ctx.session_id}" if ctx is not None else "session unknown"


def sign_in_form(
    accounts: Accounts, access: AccessLog, *, on_success: Callable[[User], None]
) -> None:
    """The sign-in form. On success the user is recorded, kept in the session and
    ``on_success(user)`` is called (the shell moves on to the page asked for)."""
    st.title("Catwalk")
    st.caption("Casino table games audit. Sign in to see the data.")
    with st.form("sign_in", clear_on_submit=True, width=420):
        name = st.text_input("Name", autocomplete="username")
        password = st.text_input("Password", type="password", autocomplete="current-password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if not submitted:
        return
    name = name.strip()
    client = client_id()
    waiting = accounts.wait_for(client)
    try:
        user = (accounts.authenticate(name, password, client=client)
                if name and password and not waiting else None)
    except (JournalError, AccountError, OSError) as error:
        _LOG.error("sign-in refused: the users file cannot be trusted: %s", error)
        st.error(
            "**Nobody can sign in**: the users file cannot be trusted: "
            f"{literal(str(error))}. Tell the dashboard's administrator."
        )
        return
    who = user.name if user else typed_name(name)
    try:
        if user is None:
            if waiting:
                access.record(who, "sign_in_failed", client=client,
                              waiting_s=math.ceil(waiting))
            else:
                access.record(who, "sign_in_failed", client=client)
        else:
            access.record(who, "sign_in", role=user.role)
    except (JournalError, OSError, ValueError) as error:
        access_log_error(error)
        return
    if user is None:
        wait = accounts.wait_for(client)
        if waiting or wait > 0:
            seconds = max(1, math.ceil(max(waiting, wait)))
            st.error(f"{WRONG if not waiting else 'Not checked'}: too many failed sign-ins "
                     f"from here; wait {seconds} second{'s' if seconds > 1 else ''} before "
                     "trying again.")
        else:
            st.error(WRONG)
        return
    st.session_state[SESSION_USER] = user
    on_success(user)


def sign_out(access: AccessLog, user: User, forget: tuple[str, ...] = ()) -> None:
    """Record the sign-out and forget the user (the "Sign out" button's callback). The user
    is signed out even when the access log cannot be written; that failure is logged."""
    try:
        access.record(user.name, "sign_out", role=user.role)
    except (JournalError, OSError, ValueError) as error:
        _LOG.error("sign-out of %s not recorded: %s", user.name, error)
    for key in (SESSION_USER, *SESSION_KEYS_TO_FORGET, *forget):
        st.session_state.pop(key, None)


def no_users(home: Path) -> None:
    """The page while there is no active user: how to create the first one."""
    st.title("Catwalk")
    st.warning("**No users yet**: nobody can sign in until an administrator is created.",
               icon=":material/person_off:")
    st.markdown(
        "On the dashboard's server, in the repository, with the same `CATWALK_DATA` (and "
        "`CATWALK_DASHBOARD_HOME`, if set) as the dashboard, run:"
    )
    st.code(f"echo 'a long password' | {CREATE_FIRST}", language="bash")
    st.markdown(
        "(replace `NAME` with the administrator's name; without `--password-stdin` a password "
        "is made and printed). The administrator then adds the others with roles `analyst`, "
        "`dispute` and `regulator`. Reload this page once the user exists."
    )
    st.caption(f"Users are kept in {code(home / USERS_FILE)}.")


def users_unreadable(error: BaseException) -> None:
    """The page when the users file cannot be read or trusted: nobody signs in."""
    st.title("Catwalk")
    st.error(
        "**Nobody can sign in**: the users file cannot be trusted: "
        f"{literal(str(error) or type(error).__name__)}. Tell the dashboard's administrator "
        "(`python -m dashboard users list` names the problem)."
    )
