"""The frame around every page of the dashboard: who is signed in, which pages
their role may see, the shared filters, the log-verification banner, the access log, and
the error boundary.

One run of the app, top to bottom (dashboard/app.py calls :func:`main`):

1. The users file (dashboard/accounts.py) is read. With no active user, every URL shows how
   to create the first one (dashboard/signin.py :func:`~dashboard.signin.no_users`); when it
   cannot be trusted, nobody signs in.
2. Signed out: every URL shows the sign-in form, and the URL (``?round=ID`` included) is
   kept, so the user lands where the link pointed once signed in. A user disabled since
   signing in is signed out on their next click.
3. Signed in: ``st.navigation`` lists the pages of dashboard/screens/__init__.py PAGES that the
   user's role may see; the sidebar shows who is signed in, "Sign out", the shared filters
   (dashboard/filters.py) and the data directory; ``?round=ID`` on any page opens the Round
   page; the banner (dashboard/banner.py) goes above the page.
4. A page visit is written to the access log (``page_view``, once per visit, not per
   widget rerun) before the page is drawn; when it cannot be written the page is refused
   (fail closed). Then the page's ``render(ctx)`` runs inside the boundary: whatever it
   raises becomes a message naming the page and what to do, never a traceback (the
   traceback goes to the server's log), and the server carries on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import streamlit as st

from dashboard import banner, data, filters, signin, ui
from dashboard.access import AccessLog
from dashboard.accounts import AccountError, Accounts, home_dir
from dashboard.context import ROLE_WORDS, Filters, PageContext, User
from dashboard.journal import JournalError
from dashboard.screens import PageSpec, load
from dashboard.signin import SESSION_USER
from dashboard.views import code, literal

ROUND_PAGE = "round"
"""The URL path of the Round page, which ``?round=ID`` opens from any page."""
ROUND_PARAM = "round"
VIEWED = "_catwalk_viewed"
"""``st.session_state`` key: the URL path of the page whose visit was last recorded."""

GAME_WORDS = {
    "pai_gow_poker": "Pai gow poker",
    "face_up_pai_gow": "Face Up pai gow",
    "pai_gow_tiles": "Pai gow tiles",
    "caribbean_stud": "Caribbean stud",
}

_LOG = logging.getLogger(__name__)


@st.cache_resource
def connection() -> duckdb.DuckDBPyConnection:
    """One in-memory DuckDB per server process; every query takes its own cursor."""
    return data.connect()


# ``stamp`` is only a cache key: a rerun of replay rewrites the file, which changes the key.
@st.cache_data(max_entries=8, show_spinner=False)
def _filter_options(root: str, stamp: tuple[Any, ...]) -> data.FilterOptions:
    return data.filter_options(connection(), Path(root))


def game_words(game: Any) -> str:
    return GAME_WORDS.get(str(game), str(game))


def _page(spec: PageSpec, body: Callable[[], None], *, default: bool) -> Any:
    body.__name__ = f"page_{spec.name}"
    return st.Page(body, title=spec.title, icon=spec.icon, url_path=spec.url_path,
                   default=default)


def _everywhere(specs: list[PageSpec], body: Callable[[PageSpec], None]) -> None:
    """Show ``body`` at every page's URL, with no menu: the URL the user came with (and its
    query) is kept for when the body lets them in (``body`` is told which page it stands
    in for)."""
    def at(spec: PageSpec) -> Callable[[], None]:
        def run() -> None:
            body(spec)
        return run

    pages = [_page(spec, at(spec), default=i == 0) for i, spec in enumerate(specs)]
    st.navigation(pages, position="hidden").run()


def _after_sign_in(specs: list[PageSpec], asked: PageSpec, user: User) -> None:
    """Go where the URL pointed: the Round page for ``?round=ID``, else the page asked for
    when the role may see it, else the first page the role may see."""
    params = {k: st.query_params.get_all(k) for k in st.query_params}
    visible = [s for s in specs if s.visible_to(user.role)]
    if not visible:
        st.rerun()
    target = asked if asked in visible else visible[0]
    if params.get(ROUND_PARAM):
        target = next((s for s in visible if s.url_path == ROUND_PAGE), target)
    st.switch_page(_page(target, lambda: None, default=False), query_params=params)


def _signed_in(accounts: Accounts) -> User | None:
    """The session's user, if still an active user with the same role (one disabled since
    is signed out here)."""
    user = st.session_state.get(SESSION_USER)
    if not isinstance(user, User):
        return None
    account = accounts.get(user.name)
    if account is None or not account.active or account.role != user.role:
        st.session_state.pop(SESSION_USER, None)
        st.session_state.pop(VIEWED, None)
        st.toast("You were signed out: your account was disabled or changed.")
        return None
    return user


def _sidebar(user: User, root: Path, access: AccessLog) -> Filters:
    """Who is signed in, "Sign out", the shared filters and the data directory."""
    with st.sidebar:
        st.markdown(f"Signed in as **{literal(user.name)}** ({user.role})")
        st.caption(ROLE_WORDS[user.role])
        st.button("Sign out", on_click=signin.sign_out, args=(access, user, (VIEWED,)),
                  icon=":material/logout:")
        st.divider()
        chosen = Filters()
        try:
            stamp = data.stamp(root, data.ROUNDS)
            options = _filter_options(str(root), stamp)
        except FileNotFoundError:
            st.caption("No rounds to filter yet.")
        except (data.DataError, duckdb.Error, OSError) as error:
            st.caption(f"Filters unavailable: {literal(type(error).__name__)} reading "
                       f"{code(data.ROUNDS)}.")
        else:
            st.markdown("**Filters**")
            chosen = filters.draw(options, format_game=game_words)
        st.divider()
        st.caption(f"Data: {code(root)}")
    return chosen


def _recorder(access: AccessLog, user: User) -> Callable[..., None]:
    def record(action: Any, target: str = "", **detail: Any) -> None:
        access.record(user.name, action, target, role=user.role, **detail)
    return record


def _boundary(spec: PageSpec, make_ctx: Callable[[], PageContext]) -> Callable[[], None]:
    """The page's body as the shell runs it: the visit recorded first, then ``render``;
    anything raised is shown as a message naming the page, never a traceback."""
    def run() -> None:
        ctx = make_ctx()
        if st.session_state.get(VIEWED) != spec.url_path:
            try:
                ctx.record("page_view", spec.url_path)
            except (JournalError, OSError, ValueError) as error:
                st.session_state.pop(VIEWED, None)
                signin.access_log_error(error)
                return
            st.session_state[VIEWED] = spec.url_path
        if spec.render is None:
            st.title(spec.title)
            st.error(f"**The {spec.title} page cannot be shown**: {literal(spec.error)}. "
                     "The other pages work; tell the dashboard's administrator.")
            return
        if spec.name in WITHHELD and _withheld(ctx.root):
            st.title(spec.title)
            st.error("Nothing is shown here: the data cannot be trusted (the banner above says "
                     "why). The Log integrity page shows what was checked.")
            return
        with ui.boundary(spec.title, ctx.root):
            spec.render(ctx)
    return run


WITHHELD = frozenset({"overview", "flags", "round", "dealers"})
"""The pages that show replay's outputs and the flags: withheld when they cannot be trusted."""


def _withheld(root: Path) -> bool:
    """Whether the data under ``root`` may not be shown (banner.show says why); not when
    nothing was replayed yet (the pages say what to run)."""
    known = data.provenance(root)
    return not known.shown and data.missing(root) != list(data.ALL_FILES)


def main() -> None:
    """One run of the dashboard (see the module docstring)."""
    st.set_option("client.showErrorDetails", "type")
    st.set_page_config(page_title="Catwalk", page_icon=":material/policy:", layout="wide")
    root = data.data_dir()
    home = home_dir(root)
    specs = load()
    accounts = Accounts(home)
    try:
        user = _signed_in(accounts)
        anyone = user is not None or any(a.active for a in accounts.accounts())
    except (JournalError, AccountError, OSError) as error:
        _LOG.error("the users file cannot be trusted: %s", error)
        problem = error
        _everywhere(specs, lambda _: signin.users_unreadable(problem))
        return
    access = AccessLog(home)
    if user is None:
        if not anyone:
            _everywhere(specs, lambda _: signin.no_users(home))
        else:
            _everywhere(specs, lambda asked: signin.sign_in_form(
                accounts, access, on_success=lambda u: _after_sign_in(specs, asked, u)))
        return

    chosen = _sidebar(user, root, access)
    visible = [s for s in specs if s.visible_to(user.role)]

    def make_ctx() -> PageContext:
        return PageContext(
            root=root, home=home, user=user, filters=chosen, con=connection(),
            record=_recorder(access, user), params=dict(st.query_params.to_dict()),
        )

    pages = {s.url_path: _page(s, _boundary(s, make_ctx), default=i == 0)
             for i, s in enumerate(visible)}
    current = st.navigation(list(pages.values()))
    if (ROUND_PARAM in st.query_params and ROUND_PAGE in pages
            and current.url_path != ROUND_PAGE):
        st.switch_page(pages[ROUND_PAGE], query_params=st.query_params.to_dict())
    banner.show(root)
    current.run()
