"""Every dashboard page in the browser over 1,000,000 rounds and 50,000 flags (the
target: each under 2 seconds).

Usage: .venv/bin/python bench/dashboard_speed.py [--rounds 1000000] [--flags 50000]
       [--seed 1] [--fault-rate 0.05] [--out DIR] [--repeat 3] [--timeout 60]

Target: every page drawn in under 2 s in headless Chromium, its first visit (Streamlit's
caches cold) and its second (warm).

The data are bench/dashboard_data.py's (replay's seven files drawn by
bench/synthetic_replay.py, the real check catalogue's flags thinned to --flags; written once
under the system's temporary directory or --out, then reused). Each turn of --repeat:

1. a throwaway dashboard home with one admin user (dashboard/accounts.py), then
   ``streamlit run dashboard/app.py`` headless on a free loopback port
   (``CATWALK_DATA`` = the data, ``CATWALK_DASHBOARD_HOME`` = the home): a fresh server
   process, so every cache of the dashboard is cold (the operating system's file cache is
   not: the data were read by the turn before, or by the checks when written);
2. Debian's /usr/bin/chromium through Playwright (tests/browser_support.py: the browser
   tests' arguments; never ``playwright install``), a 1400x1000 window; sign in;
3. the first visit of each page, in the navigation's order: Overview is the page drawn after
   "Sign in" is pressed (timed from the press); every other page is reached inside the
   session as a page link does (the URL changes, Streamlit reruns with the new page and its
   query string: ``round?round=<a flagged round>``);
4. the second visit of each page, the same way.

A page is drawn when Streamlit's script is no longer running (the state behind its running
indicator, ``data-test-script-state`` on the app's root) and the page's title (``st.title``)
shows, on two animation frames running; timed in the page (``performance.now()``), from the
URL change (or the press) to then. A page that says it failed (the shell's error boundary,
data it cannot read, an exception) fails whatever its time. Prints a Markdown table: best
and median of the turns.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import secrets
import shlex
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dashboard_data  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402
from timing import cpu_model  # noqa: E402

from tests import browser_support as bs  # noqa: E402

TARGET_SECONDS = 2.0
ADMIN = "bench-admin"
PAGES = (
    ("overview", "Overview"),
    ("flags", "Flags"),
    ("round", "Round"),
    ("dealers", "Dealers and tables"),
    ("integrity", "Log integrity"),
    ("rulesets", "Rulesets"),
    ("cases", "Cases"),
    ("access-log", "Access log"),
)
"""URL path and title of every page, in the navigation's order (the pages' contract)."""


@dataclass
class Results:
    seconds: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    errors: dict[tuple[str, str], str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    server_rss_mb: list[float] = field(default_factory=list)
    browser: str = ""

    def add(self, path: str, visit: str, seconds: float) -> None:
        self.seconds.setdefault((path, visit), []).append(seconds)

    def fail(self, path: str, visit: str, error: str) -> None:
        self.errors.setdefault((path, visit), error.splitlines()[0][:300])


def page_path(path: str, where: tuple[str, str, str]) -> str:
    """The page's URL path; the Round page's names the round, its casino and table."""
    round_id, casino, table = (urllib.parse.quote(part) for part in where)
    return f"/{path}?round={round_id}&casino={casino}&table={table}" if path == "round" \
        else f"/{path}"


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set (VmHWM), in MB; 0 when /proc cannot say."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def shoot(page: Page, work: Path, number: int, visit: str, path: str) -> None:
    """What a page that was not drawn showed, kept for the report (``work`` is kept when a
    page failed)."""
    with contextlib.suppress(PlaywrightError):
        page.screenshot(path=str(work / f"turn{number}-{visit}-{path}.png"), full_page=True)


def check_errors(page: Page, results: Results, path: str, visit: str) -> None:
    """A page that says it failed (the shell's error boundary, data it cannot read, an
    exception) fails whatever its time; a finding it shows as an error does not."""
    shown = bs.failures_shown(page)
    if shown:
        results.fail(path, visit, f"shows an error: {shown[0][:200]}")


def turn(data: dashboard_data.DataSet, results: Results, *, timeout_s: float,
         work: Path, number: int) -> None:
    """One fresh server and browser: sign in, every page once (cold), then again (warm)."""
    home = work / f"home-{number}"
    home.mkdir()
    password = secrets.token_urlsafe(18)
    bs.add_user(home, ADMIN, "admin", password)
    with bs.serve(data.root, home, work / f"streamlit-{number}.log") as server, \
            sync_playwright() as p:
        browser = bs.launch(p)
        results.browser = f"Chromium {browser.version}"
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            pages = list(PAGES)
            start = bs.sign_in(page, server.url, ADMIN, password, timeout_s=timeout_s)
            path, title = pages.pop(0)
            try:
                results.add(path, "cold", bs.wait_rendered(page, title, start=start,
                                                           timeout_s=timeout_s))
                check_errors(page, results, path, "cold")
            except (bs.BrowserSupportError, PlaywrightError) as exc:
                results.fail(path, "cold", f"not drawn: {exc}")
                shoot(page, work, number, "cold", path)
            for visit, order in (("cold", pages), ("warm", list(PAGES))):
                for path, title in order:
                    try:
                        seconds = bs.visit(page, page_path(path, data.flagged_round), title,
                                           timeout_s=timeout_s)
                    except (bs.BrowserSupportError, PlaywrightError) as exc:
                        results.fail(path, visit, f"not drawn: {exc}")
                        print(f"turn {number}: {visit} {path}: not drawn: "
                              f"{str(exc).splitlines()[0][:300]}", file=sys.stderr, flush=True)
                        shoot(page, work, number, visit, path)
                        continue
                    results.add(path, visit, seconds)
                    check_errors(page, results, path, visit)
                    if path == "round" and not page.get_by_role(
                            "button", name="Dispute report", exact=True).count():
                        results.fail(path, visit, "the round's report is not shown (no "
                                     "\"Dispute report\" button)")
                    print(f"turn {number}: {visit} {path}: {seconds:.2f} s", file=sys.stderr,
                          flush=True)
        finally:
            results.server_rss_mb.append(peak_rss_mb(server.process.pid))
            browser.close()


def cell(values: list[float] | None, pick: str) -> str:
    if not values:
        return "-"
    return f"{(min(values) if pick == 'best' else statistics.median(values)):.2f}"


def report(args: argparse.Namespace, data: dashboard_data.DataSet, results: Results,
           repeat: int) -> str:
    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    lines = [
        f"## Dashboard pages in the browser ({datetime.now(UTC):%Y-%m-%d})",
        "",
        f"- machine: {cpu_model()}, {mem_gb:.0f} GB RAM, {platform.system()} "
        f"{platform.release()}; Python {platform.python_version()}; {results.browser}; "
        f"load average {os.getloadavg()[0]:.2f} at the end",
        f"- command: `.venv/bin/python bench/dashboard_speed.py "
        f"{shlex.join(sys.argv[1:])}`",
        f"- data: {data.rows['rounds']:,} rounds, {data.rows['wagers']:,} wagers, "
        f"{data.rows['hands']:,} hands, "
        + (f"{data.rows['timeline']:,} timeline events, " if "timeline" in data.rows else "")
        + f"{data.rows['flags']:,} flags (of "
        f"{data.flags_raised:,} the catalogue raised); Round page opened on "
        f"{data.flagged_round[0]} ({data.flagged_round[1]}, {data.flagged_round[2]}); "
        f"{data.root}"
        + (f"; {dashboard_data.TIMELINE_NOTE}" if dashboard_data.TIMELINE_NOTE else ""),
        f"- {repeat} turns, each a fresh server (Streamlit's caches cold); "
        f"server peak RSS {max(results.server_rss_mb, default=0):.0f} MB",
        *(f"- note: {note}" for note in results.notes),
        "",
        "| page | first visit best (s) | first visit median (s) | second visit best (s) "
        "| second visit median (s) | under 2 s |",
        "|---|---:|---:|---:|---:|---|",
    ]
    passed = 0
    for path, _title in PAGES:
        cold = results.seconds.get((path, "cold"))
        warm = results.seconds.get((path, "warm"))
        failed = [v for v in ("cold", "warm") if (path, v) in results.errors]
        ok = (not failed and cold and warm and len(cold) == repeat and len(warm) == repeat
              and statistics.median(cold) < TARGET_SECONDS
              and statistics.median(warm) < TARGET_SECONDS)
        passed += bool(ok)
        verdict = "pass" if ok else "**fail**"
        if failed:
            verdict += " (" + "; ".join(
                f"{v}: {results.errors[(path, v)]}" for v in failed) + ")"
        shown = page_path(path, data.flagged_round).lstrip("/")
        lines.append(f"| {shown} | {cell(cold, 'best')} | {cell(cold, 'median')} | "
                     f"{cell(warm, 'best')} | {cell(warm, 'median')} | {verdict} |")
    lines += ["", f"**Target (every page under {TARGET_SECONDS:.0f} s, first and second "
                  f"visit, median of the turns): {'met' if passed == len(PAGES) else 'not met'}"
                  f"** ({passed} of {len(PAGES)} pages)."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    dashboard_data.add_arguments(ap)
    ap.add_argument("--repeat", type=int, default=3, help="turns, each a fresh server")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds to wait for a page before it counts as not drawn")
    args = ap.parse_args(argv)
    try:
        bs.chromium()
    except bs.BrowserSupportError as exc:
        print(exc, file=sys.stderr)
        return 2
    p = dashboard_data.params_of(args)
    out = args.out or dashboard_data.default_out(p)
    start = time.perf_counter()
    data = dashboard_data.ensure(p, out)
    print(f"data: {data.root} ({'reused' if data.reused else 'written'} in "
          f"{time.perf_counter() - start:.0f} s)", file=sys.stderr)
    results = Results()
    work = Path(tempfile.mkdtemp(prefix="catwalk-dashboard-speed-"))
    try:
        for number in range(1, args.repeat + 1):
            turn(data, results, timeout_s=args.timeout, work=work, number=number)
    except (bs.BrowserSupportError, PlaywrightError) as exc:
        print(f"the dashboard could not be served or signed in to: {exc}\n(the servers' "
              f"output and screenshots are kept in {work})", file=sys.stderr)
        return 1
    if results.errors:
        results.notes.append(f"the servers' output and screenshots of the pages not drawn are "
                             f"kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    print(report(args, data, results, args.repeat))
    return 0 if not results.errors else 1


if __name__ == "__main__":
    sys.exit(main())
