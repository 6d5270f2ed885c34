"""The dashboard served for real and driven in headless Chromium (Debian's, never a download)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.dashboard_fixtures import write_fixture

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
STARTUP_TIMEOUT_S = 60.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _health(url: str) -> str:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return str(response.read().decode().strip())
    except (urllib.error.URLError, OSError):
        return ""


@pytest.fixture
def chromium() -> Path:
    """Debian's Chromium; a missing browser is a failure to fix, never a skip."""
    if not CHROMIUM.is_file():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's Chromium with "
            "`apt-get update && apt-get install -y chromium` (never `playwright install`)"
        )
    return CHROMIUM


@pytest.fixture
def dashboard(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, dict]]:
    """Serve dashboard/app.py over a fresh fixture data set; yields (url, fixture ids)."""
    data_dir = tmp_path / "data"
    fx = write_fixture(data_dir)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "streamlit.log"
    log = log_path.open("wb")
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", "dashboard/app.py",
            "--server.headless=true", "--server.address=127.0.0.1", f"--server.port={port}",
            "--server.fileWatcherType=none", "--browser.gatherUsageStats=false",
        ],
        cwd=ROOT,
        env={**os.environ, "CATWALK_DATA": str(data_dir)},
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip

    def stop() -> None:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()

    request.addfinalizer(stop)

    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while _health(url) != "ok":
        if proc.poll() is not None:
            pytest.fail(
                f"streamlit exited with {proc.returncode} before it was healthy:\n"
                + log_path.read_text(errors="replace")
            )
        if time.monotonic() > deadline:
            pytest.fail(
                f"streamlit not healthy at {url} after {STARTUP_TIMEOUT_S:.0f} s:\n"
                + log_path.read_text(errors="replace")
            )
        time.sleep(0.2)
    yield url, fx


def _choose(page: Page, label_start: str) -> None:
    """Pick the flag whose label starts with ``label_start`` in the "Flagged round" selectbox
    (a combobox in Streamlit 1.67; its value is the chosen label), unless it already is."""
    combo = page.get_by_role("combobox", name="Flagged round")
    if combo.input_value().startswith(label_start):
        return
    combo.click()
    page.get_by_role("option").filter(has_text=label_start).first.click()
    expect(combo).to_have_value(re.compile("^" + re.escape(label_start)))


def test_flagged_round_in_the_browser(chromium: Path, dashboard, tmp_path: Path) -> None:
    url, fx = dashboard
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(chromium), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1700})
            page.goto(url, wait_until="domcontentloaded")
            page.get_by_role("heading", name="Catwalk: flags").wait_for(timeout=30_000)
            page.get_by_text(fx["flagged_round"]).first.wait_for(timeout=30_000)

            _choose(page, fx["not_evaluated_round"])
            expect(page.get_by_text(f"Round {fx['not_evaluated_round']}")).to_be_visible()
            _choose(page, fx["flagged_round"])
            expect(page.get_by_text(f"Round {fx['flagged_round']}")).to_be_visible()

            hands = page.get_by_role("table").filter(has_text="house way followed")
            expect(hands.get_by_role("cell", name=fx["flagged_cards"], exact=True)).to_be_visible()
            wagers = page.get_by_role("table").filter(has_text="expected net")
            flagged_row = wagers.get_by_role("row").filter(has_text="overpay")
            expect(flagged_row).to_be_visible()
            expect(
                flagged_row.get_by_role("cell", name=fx["recorded"], exact=True)
            ).not_to_have_count(0)
            expect(flagged_row.get_by_role("cell", name=fx["expected"], exact=True)).to_be_visible()
            expect(page.get_by_text("overpaid by $1.25")).to_be_visible()
            page.screenshot(path=str(tmp_path / "dashboard.png"), full_page=True)
        finally:
            browser.close()
