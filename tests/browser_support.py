"""The dashboard served for real and driven in headless Chromium: what the browser tests
(tests/test_dashboard_browser.py) and the page-speed benchmark (bench/dashboard_speed.py)
share.

- :func:`serve`: ``streamlit run dashboard/serve.py`` headless on a free loopback port over a
  data directory (``$CATWALK_DATA``) and a dashboard home (``$CATWALK_DASHBOARD_HOME``:
  users, access log, cases), until it answers its health check; stopped on exit.
- :func:`launch`: Debian's ``/usr/bin/chromium`` through Playwright (never a browser
  downloaded by ``playwright install``); a missing Chromium is an error that says what to
  install.
- :func:`sign_in`: the shell's sign-in form (text inputs "Name" and "Password", button
  "Sign in"; the contract in dashboard/context.py and the pages' shared words), until the
  sidebar's "Sign out" button shows.
- :func:`go` and :func:`wait_rendered`: move to a page of the multipage app inside the
  signed-in session (a full page load would start a new, signed-out session) and wait until
  it is fully drawn: Streamlit says its script is not running
  (``data-test-script-state="notRunning"`` on the app's root, the state behind its running
  indicator), the page's title (``st.title``) is shown, not stale, and what the browser draws
  after the script (every chart's canvas or SVG, every table's canvas, every picture) is
  there, with no skeleton or spinner left.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

    from dashboard.context import Role

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
"""``--no-sandbox`` because the tests may run as root; the rest keep Chromium off the
network and quiet."""
DATA_ENV = "CATWALK_DATA"
HOME_ENV = "CATWALK_DASHBOARD_HOME"
STARTUP_TIMEOUT_S = 60.0
RENDER_TIMEOUT_S = 60.0


class BrowserSupportError(RuntimeError):
    """The dashboard could not be served or driven; the message says why and what to do."""


def chromium() -> Path:
    """Debian's Chromium, or an error naming what to install (never a download)."""
    if not CHROMIUM.is_file():
        raise BrowserSupportError(
            f"{CHROMIUM} is missing: install Debian's Chromium with `apt-get update && "
            "apt-get install -y chromium` (or `make browser`); never `playwright install`")
    return CHROMIUM


def free_port() -> int:
    """A TCP port free on the loopback interface right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _health(url: str) -> str:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return str(response.read().decode().strip())
    except (urllib.error.URLError, OSError):
        return ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Server:
    """A served dashboard: its address, its process and where its output goes."""

    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@contextmanager
def serve(data_dir: Path, home: Path, log_path: Path, *,
          env: Mapping[str, str] | None = None,
          timeout_s: float = STARTUP_TIMEOUT_S) -> Iterator[Server]:
    """``streamlit run dashboard/serve.py`` over ``data_dir`` with its home in ``home``,
    headless on a free loopback port, its output in ``log_path``; yields once it is healthy
    and stops it (terminate, then kill after 10 s) on exit. Raises
    :class:`BrowserSupportError` with the server's output when it exits or is not healthy
    within ``timeout_s``."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "dashboard/serve.py",
             "--server.headless=true", "--server.address=127.0.0.1", f"--server.port={port}",
             "--server.fileWatcherType=none", "--browser.gatherUsageStats=false",
             "--global.developmentMode=false", "--client.toolbarMode=minimal"],
            cwd=ROOT,
            env={**os.environ, DATA_ENV: str(data_dir), HOME_ENV: str(home), **(env or {})},
            stdout=log, stderr=subprocess.STDOUT,
        )
        server = Server(url=url, process=proc, log_path=log_path)
        try:
            deadline = time.monotonic() + timeout_s
            while _health(url) != "ok":
                if proc.poll() is not None:
                    raise BrowserSupportError(
                        f"streamlit exited with {proc.returncode} before it was healthy:\n"
                        + server.log_text())
                if time.monotonic() > deadline:
                    raise BrowserSupportError(
                        f"streamlit not healthy at {url} after {timeout_s:.0f} s:\n"
                        + server.log_text())
                time.sleep(0.1)
            yield server
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def launch(playwright: Playwright) -> Browser:
    """Headless Debian Chromium with :data:`CHROMIUM_ARGS`."""
    return playwright.chromium.launch(executable_path=str(chromium()), headless=True,
                                      args=list(CHROMIUM_ARGS))


def add_user(home: Path, name: str, role: Role, password: str, *,
             by: str = "tests/browser_support.py") -> None:
    """Add a dashboard user to the users file under ``home`` (dashboard/accounts.py)."""
    from dashboard.accounts import Accounts  # the dashboard's own code, not streamlit

    Accounts(home).add(name, role, password, by=by)


# Rendering --------------------------------------------------------------------------------

_RENDERED = """
([title, timeoutMs, start]) => new Promise((resolve) => {
  const t0 = start ?? performance.now();
  let seen = 0;
  const drawn = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    const main = document.querySelector('[data-testid="stMain"]');
    if (!main) return false;
    let titled = false;
    for (const h of main.querySelectorAll('h1')) {
      if (h.textContent.trim() === title && h.getClientRects().length > 0
          && !h.closest('[data-stale="true"]')) titled = true;
    }
    if (!titled) return false;
    // what the browser draws after the script is done: charts, tables, pictures
    if (main.querySelector('[data-testid="stSkeleton"], [data-testid="stSpinner"]')) return false;
    for (const chart of main.querySelectorAll('[data-testid="stVegaLiteChart"]')) {
      if (!chart.querySelector('canvas, svg')) return false;
    }
    for (const grid of main.querySelectorAll('[data-testid="stDataFrame"]')) {
      if (!grid.querySelector('canvas')) return false;
    }
    for (const img of main.querySelectorAll('img')) {
      if (!img.complete) return false;
    }
    return true;
  };
  const tick = () => {
    const now = performance.now();
    // drawn on two frames running: not a gap between two runs of the script
    seen = drawn() ? seen + 1 : 0;
    if (seen >= 2) { resolve(now - t0); return; }
    if (now - t0 > timeoutMs) { resolve(-1); return; }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})
"""
"""Milliseconds from ``start`` (a ``performance.now()`` reading, or now) until the page
titled ``title`` is drawn and Streamlit's script is not running; -1 after ``timeoutMs``."""

_GO = """
([path]) => {
  const start = performance.now();
  window.history.pushState({}, '', path);
  window.dispatchEvent(new PopStateEvent('popstate', {state: {}}));
  return start;
}
"""
"""Move the single-page app to ``path`` (and its query string) as the browser's history
does: Streamlit finds the page by its URL path and reruns with the query string, in the
same session (what a click on a page link does). Returns the ``performance.now()`` at the
move."""


def wait_rendered(page: Page, title: str, *, start: float | None = None,
                  timeout_s: float = RENDER_TIMEOUT_S) -> float:
    """Seconds from ``start`` (a ``performance.now()`` reading in the page; None: now) until
    the page titled ``title`` is drawn and Streamlit's script is not running. Raises
    :class:`BrowserSupportError` after ``timeout_s``, naming what the page showed."""
    ms = float(page.evaluate(_RENDERED, [title, timeout_s * 1000, start]))
    if ms < 0:
        shown = page.locator('[data-testid="stMain"] h1').all_inner_texts()
        state = page.locator('[data-testid="stApp"]').first.get_attribute(
            "data-test-script-state", timeout=1000)
        raise BrowserSupportError(
            f"page {title!r} not drawn within {timeout_s:.0f} s at {page.url}: titles shown "
            f"{shown}, script state {state!r}")
    return ms / 1000


def go(page: Page, path: str) -> float:
    """Move to ``path`` (``/flags``, ``/round?round=T01-000002``) inside the session; the
    ``performance.now()`` reading at the move, for :func:`wait_rendered`."""
    return float(page.evaluate(_GO, [path]))


def visit(page: Page, path: str, title: str, *, timeout_s: float = RENDER_TIMEOUT_S) -> float:
    """:func:`go` to ``path`` and wait until the page titled ``title`` is drawn; seconds."""
    return wait_rendered(page, title, start=go(page, path), timeout_s=timeout_s)


def sign_in(page: Page, url: str, name: str, password: str, *,
            timeout_s: float = RENDER_TIMEOUT_S, load: bool = True) -> float:
    """Open ``url`` (unless ``load`` is false: the form is already shown), fill the sign-in
    form and press "Sign in"; wait until the sidebar's "Sign out" button shows and the
    script is not running. Returns the ``performance.now()`` reading at the press (for
    :func:`wait_rendered`: the first page drawn after signing in)."""
    if load:
        page.goto(url, wait_until="domcontentloaded")
    name_box = page.get_by_label("Name", exact=True)
    name_box.wait_for(timeout=timeout_s * 1000)
    name_box.fill(name)
    password_box = page.get_by_label("Password", exact=True)
    password_box.fill(password)
    password_box.press("Tab")
    start = float(page.evaluate("() => performance.now()"))
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.locator('[data-testid="stSidebar"]').get_by_role(
        "button", name="Sign out", exact=True).wait_for(timeout=timeout_s * 1000)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"stApp\"]')"
        "?.getAttribute('data-test-script-state') === 'notRunning'",
        timeout=timeout_s * 1000)
    return start


def sign_out(page: Page, *, timeout_s: float = RENDER_TIMEOUT_S) -> None:
    """Press the sidebar's "Sign out" and wait for the sign-in form."""
    page.locator('[data-testid="stSidebar"]').get_by_role(
        "button", name="Sign out", exact=True).click()
    page.get_by_label("Name", exact=True).wait_for(timeout=timeout_s * 1000)


def settle(page: Page, *, timeout_s: float = RENDER_TIMEOUT_S) -> None:
    """Wait for the run a click or a typed value started to finish (the run may be over
    before it is seen starting: then only the end is waited for)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with contextlib.suppress(PlaywrightTimeout):
        page.locator('[data-testid="stApp"]:not([data-test-script-state="notRunning"])'
                     ).wait_for(timeout=1500)
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(
        timeout=timeout_s * 1000)


def errors_shown(page: Page) -> list[str]:
    """The text of every error the page shows in its main area (``st.error``, an
    exception), the log-verification banner included."""
    found = page.locator('[data-testid="stMain"] [data-testid^="stAlertContentError"], '
                         '[data-testid="stMain"] [data-testid="stException"]')
    return [" ".join(text.split()) for text in found.all_inner_texts()]


FAILURE = re.compile(r"(?i)\bpage (failed|stopped|could not|cannot be shown)|could not read|"
                     r"cannot be (read|trusted|written)|traceback")
"""The words of an error that says the page itself failed (the shell's error boundary,
dashboard/shell.py, or a page that cannot read its data), not a finding it shows (a flag
drawn as an error, the banner of a log that did not verify)."""


def failures_shown(page: Page) -> list[str]:
    """The errors on the page that say the page failed (:data:`FAILURE`), and any
    exception Streamlit shows."""
    shown = [e for e in errors_shown(page) if FAILURE.search(e)]
    if page.locator('[data-testid="stMain"] [data-testid="stException"]').count():
        shown.append("an exception is shown")
    return shown
