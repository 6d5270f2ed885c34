"""``/_stcore/metrics`` closed: the dashboard as served (``streamlit run dashboard/serve.py``,
as ``make serve`` and deploy/live.sh run it) answers 404 there, and its page and health
check still answer; the bare script (``streamlit run dashboard/app.py``) shows that the
endpoint is Streamlit's and open without that layer, so a rename in Streamlit is noticed.
Real servers on free loopback ports, real HTTP GETs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from dashboard.serve import closed
from tests.browser_support import free_port
from tests.conftest import REPO


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code


@contextmanager
def _streamlit(script: str, data: Path) -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.headless=true",
         "--server.address=127.0.0.1", f"--server.port={port}",
         "--server.fileWatcherType=none", "--browser.gatherUsageStats=false"],
        cwd=REPO, env={**os.environ, "CATWALK_DATA": str(data),
                       "CATWALK_DASHBOARD_HOME": str(data / "dashboard")},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if _status(url + "/_stcore/health") == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit run {script} did not become healthy")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_served_the_metrics_are_closed_and_the_app_answers(tmp_path: Path) -> None:
    with _streamlit("dashboard/serve.py", tmp_path) as url:
        for path in ("/_stcore/metrics", "/_stcore/metrics/", "//_stcore/metrics",
                     "/_stcore/metrics?families=session_events"):
            assert _status(url + path) == 404, path
        assert _status(url + "/") == 200
        assert _status(url + "/_stcore/health") == 200


def test_without_the_layer_streamlit_serves_them(tmp_path: Path) -> None:
    with _streamlit("dashboard/app.py", tmp_path) as url:
        assert _status(url + "/_stcore/metrics") == 200


@pytest.mark.parametrize(("path", "shut"), [
    ("/_stcore/metrics", True), ("/_stcore/metrics/", True), ("//_stcore//metrics", True),
    ("/catwalk/_stcore/metrics", True), ("/_stcore/health", False), ("/", False),
    ("/_stcore/metricsx", False), ("/flags", False),
])
def test_which_paths_are_closed(path: str, shut: bool) -> None:
    assert closed(path) is shut
