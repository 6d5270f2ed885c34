"""The dashboard served for real and used in headless Chromium (Debian's, never a download), as
its three kinds of users would: an analyst triages a shift, dispute staff settle a
complaint, a regulator audits the log and changes nothing; each sign-in, view and action is
then read back from the access log (dashboard/access.py).

One server for the module, over tests/dashboard_browser_fixtures.py's data: a simulated
shift and table T09's hand-built rounds through a real signed log, replay and the checks,
every expected value worked out by hand in that module. Each test signs in in a browser
context of its own (a new Streamlit session).

Screenshots of each page go to the test's temporary directory, and also to
``$CATWALK_SCREENSHOTS`` when it is set (``make screenshots`` sets docs/images: the pictures of
the user guides).
"""

from __future__ import annotations

import csv
import io
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect, sync_playwright

from tests import browser_support as bs
from tests.dashboard_browser_fixtures import (
    CASINO,
    LOST_ROUND,
    OVERPAID,
    OVERPAID_ROUND,
    T09_FLAGS,
    TABLE,
    UNDERPAID,
    add_users,
    write_pipeline,
)

pytestmark = pytest.mark.browser

SCREENSHOTS_ENV = "CATWALK_SCREENSHOTS"
VIEWPORT: ViewportSize = {"width": 1400, "height": 1000}
T09_ROUND_CARDS = {
    # T09-000001 as dealt (tests/dashboard_browser_fixtures.py): the dealer, seat 2, seat 3
    "Ah", "Ad", "6s", "4h", "2c", "Kc", "9d",
    "Td", "Ts", "5d", "5c", "3s", "Qs", "Qc",
    "Kh", "Jh", "8h", "5h", "3h", "7c", "7d",
}  # fmt: skip
OVERPAY_KEY_FIELDS = {"check_id": "overpay", "casino": CASINO, "table_id": TABLE,
                      "round_id": OVERPAID_ROUND, "seat": 3, "wager": "main",
                      "direction": "over"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Served:
    url: str
    root: Path
    home: Path
    users: dict[str, tuple[str, str]]
    """role -> (name, password)."""
    vkey: str
    """The log's public key, as a regulator pins it (keys/signing.pub)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The fixture's data and one user per role, served by one dashboard for the module."""
    try:
        bs.chromium()
    except bs.BrowserSupportError as exc:
        pytest.fail(str(exc))  # a missing browser is a failure to fix, never a skip
    work = tmp_path_factory.mktemp("dashboard-browser")
    root, home = work / "data", work / "home"
    made = write_pipeline(root)
    users = add_users(home)
    try:
        with bs.serve(root, home, work / "streamlit.log") as server:
            yield Served(url=server.url, root=root, home=home, users=users,
                         vkey=made["vkey"])
    except bs.BrowserSupportError as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="module")
def browser(served: Served) -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = bs.launch(p)
        try:
            yield launched
        finally:
            launched.close()


@dataclass(frozen=True, slots=True)
class Shots:
    """Screenshots into the test's temporary directory, and ``$CATWALK_SCREENSHOTS``."""

    dirs: tuple[Path, ...]

    def take(self, page: Page, name: str, *, height: int | None = None) -> None:
        """The page as shown (``height``: the window made that tall first, for a long page)."""
        if height is not None:
            page.set_viewport_size({"width": VIEWPORT["width"], "height": height})
            page.wait_for_timeout(300)  # the layout follows the new size
        picture = small_png(page.screenshot(full_page=True))
        for folder in self.dirs:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{name}.png").write_bytes(picture)
        if height is not None:
            page.set_viewport_size(VIEWPORT)


def small_png(png: bytes) -> bytes:
    """A screenshot in 256 colours, about a third of the bytes (the guides' pictures are kept
    in the repository)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        fewer = image.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE,
                                              dither=Image.Dither.NONE)
    out = io.BytesIO()
    fewer.save(out, format="PNG", optimize=True)
    return out.getvalue()


@pytest.fixture
def shots(tmp_path: Path) -> Shots:
    extra = os.environ.get(SCREENSHOTS_ENV)
    return Shots((tmp_path / "screenshots", *((Path(extra),) if extra else ())))


# Driving the pages --------------------------------------------------------------------------


@pytest.fixture
def open_session(served: Served, browser: Browser) -> Iterator[Callable[[str], Page]]:
    """``open_session(role)``: a new browser context signed in as the fixture's user of
    that role, on the first page the shell shows (Overview)."""
    contexts = []

    def open_as(role: str) -> Page:
        context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
        contexts.append(context)
        page = context.new_page()
        name, password = served.users[role]
        start = bs.sign_in(page, served.url, name, password)
        bs.wait_rendered(page, "Overview", start=start)
        return page

    yield open_as
    for context in contexts:
        context.close()


def nav_titles(page: Page) -> list[str]:
    """The page titles of the sidebar's menu, in order."""
    links = page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]')
    return [text.splitlines()[-1].strip() for text in links.all_inner_texts()]


def open_page(page: Page, title: str) -> None:
    """Click ``title`` in the sidebar's menu and wait until that page is drawn."""
    page.locator('[data-testid="stSidebarNavLink"]').filter(
        has=page.get_by_text(title, exact=True)).click()
    bs.wait_rendered(page, title)


def choose(page: Page, label: str, typed: str, *, sidebar: bool = False,
           multi: bool = False) -> None:
    """Pick the first option starting with ``typed`` in the selectbox (or ``multi``:
    multiselect) labelled ``label``, typed in, as a long list shows only some options."""
    scope = page.locator('[data-testid="stSidebar"]') if sidebar else page.locator(
        '[data-testid="stMain"]')
    box = scope.get_by_role("combobox", name=label, exact=True)
    box.click()
    box.press_sequentially(typed)
    page.get_by_role("option").filter(
        has_text=re.compile("^" + re.escape(typed))).first.click()
    if multi:
        page.keyboard.press("Escape")  # a multiselect's list stays open for more
    bs.settle(page)


def no_errors(page: Page) -> None:
    """The page shows no error of its own: no traceback, no page that failed or could not
    read its data (a flag it shows as an error is no failure)."""
    assert bs.failures_shown(page) == [], bs.failures_shown(page)


def download(page: Page, button: str) -> tuple[str, bytes]:
    """Press the download button labelled ``button``: the file's name and bytes."""
    with page.expect_download() as info:
        page.get_by_role("button", name=button, exact=True).click()
    got = info.value
    return got.suggested_filename, Path(got.path()).read_bytes()


def access(served: Served, role: str, action: str) -> list[dict[str, Any]]:
    """The access log's entries of the fixture's user of ``role`` for ``action``."""
    from dashboard.access import AccessLog

    return AccessLog(served.home).entries(user=served.users[role][0], action=action)


def wait_for(check: Callable[[], Any], what: str, timeout_s: float = 15.0) -> Any:
    """Poll ``check`` until it returns something true (written by the server meanwhile)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout_s:.0f} s: {what}")
        time.sleep(0.2)


class _Tables(HTMLParser):
    """Every table row of an HTML page as its cells' text, and the aria-labels of its
    pictures."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.labels: list[str] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "svg":
            label = dict(attrs).get("aria-label")
            if label:
                self.labels.append(label)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def check_dispute_report(name: str, content: bytes) -> _Tables:
    """The dispute report of T09-000001 shows its cards and amounts as worked out by hand."""
    assert name.endswith(".html") and OVERPAID_ROUND in name, name
    text = content.decode("utf-8")
    assert "<script" not in text.lower(), "a printable report runs no script"
    parsed = _Tables()
    parsed.feed(text)
    # every card dealt in the round is drawn, and no other
    assert set(parsed.labels) == T09_ROUND_CARDS, sorted(set(parsed.labels))
    seat3 = [r for r in parsed.rows if r and r[0] == "seat 3" and OVERPAID["amount"] in r]
    assert seat3, [r for r in parsed.rows if r and r[0].startswith("seat")]
    for shown in (OVERPAID["amount"], OVERPAID["recorded_net"], OVERPAID["expected_net"],
                  OVERPAID["expected_commission"], OVERPAID["difference"]):
        assert shown in seat3[0], (shown, seat3[0])
    seat2 = [r for r in parsed.rows if r and r[0] == "seat 2" and "$5.00" in r]
    assert seat2 and seat2[0].count(OVERPAID["other_net"]) == 2, seat2  # recorded = expected
    return parsed


# The tests ----------------------------------------------------------------------------------


def test_sign_in_per_role(served: Served, browser: Browser, shots: Shots) -> None:
    """A wrong password lets nobody in and is recorded; each role signs in and sees its
    pages (the access log to a regulator and an admin only)."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(served.url, wait_until="domcontentloaded")
        page.get_by_label("Name", exact=True).wait_for()
        shots.take(page, "sign-in")
        name, _ = served.users["analyst"]
        page.get_by_label("Name", exact=True).fill(name)
        page.get_by_label("Password", exact=True).fill("not the password at all")
        page.get_by_role("button", name="Sign in", exact=True).click()
        expect(page.get_by_text("Wrong name or password")).to_be_visible()
        expect(page.get_by_role("button", name="Sign out")).to_have_count(0)
    finally:
        context.close()
    assert access(served, "analyst", "sign_in_failed")

    every = ["Overview", "Flags", "Round", "Dealers and tables", "Log integrity", "Rulesets",
             "Cases"]
    for role in ("analyst", "dispute", "regulator", "admin"):
        context = browser.new_context(viewport=VIEWPORT)
        try:
            page = context.new_page()
            name, password = served.users[role]
            start = bs.sign_in(page, served.url, name, password)
            bs.wait_rendered(page, "Overview", start=start)
            expect(page.locator('[data-testid="stSidebar"]').get_by_text(name)).to_be_visible()
            wanted = every + (["Access log"] if role in ("regulator", "admin") else [])
            assert nav_titles(page) == wanted, (role, nav_titles(page))
        finally:
            context.close()
        signed = access(served, role, "sign_in")
        assert signed and signed[0]["detail"].get("role") == role, signed[:1]


def test_the_metrics_endpoint_is_closed(served: Served, browser: Browser) -> None:
    """Streamlit's unauthenticated ``/_stcore/metrics`` (sessions, cache sizes) answers 404
    on the dashboard as served (dashboard/serve.py), under every spelling of its path, while
    the app's page and health check still answer and the app still runs in a browser."""
    import urllib.error
    import urllib.request

    def status(path: str) -> int:
        try:
            with urllib.request.urlopen(served.url + path, timeout=30) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as exc:
            return exc.code

    for path in ("/_stcore/metrics", "/_stcore/metrics/", "//_stcore/metrics",
                 "/_stcore/metrics?families=session_events"):
        assert status(path) == 404, path
    assert status("/_stcore/health") == 200
    assert status("/") == 200
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(served.url, wait_until="domcontentloaded")
        page.get_by_label("Name", exact=True).wait_for()  # the script ran: its form is there
    finally:
        context.close()


def test_analyst_triages_a_shift(served: Served, open_session: Callable[[str], Page],
                                 shots: Shots) -> None:
    """Overview, filter the flags, export them, open a round from a flag, download its
    dispute report, acknowledge the flag and record a disposition; all in the access log."""
    from dashboard.cases import Cases, flag_key

    page = open_session("analyst")
    no_errors(page)
    shots.take(page, "analyst-overview", height=1500)

    open_page(page, "Dealers and tables")
    no_errors(page)
    shots.take(page, "analyst-dealers", height=1500)

    open_page(page, "Flags")
    no_errors(page)
    choose(page, "Table", TABLE, sidebar=True, multi=True)
    expect(page.get_by_text(re.compile(r"^4 flags \("))).to_be_visible()
    shots.take(page, "analyst-flags-filtered")

    name, content = download(page, "Export CSV")
    assert name.endswith(".csv"), name
    rows = list(csv.DictReader(io.StringIO(content.decode("utf-8"))))
    assert sorted((r["round_id"], int(r["seat"]), r["check_id"]) for r in rows) == sorted(
        T09_FLAGS)
    assert {r["table_id"] for r in rows} == {TABLE}
    money = {r["check_id"] + "/" + r["round_id"]: r for r in rows}
    over = money[f"overpay/{OVERPAID_ROUND}"]
    assert (over["recorded_cents"], over["expected_cents"], over["difference_cents"]) == (
        "2500", "2375", "125")
    assert (over["recorded_dollars"], over["expected_dollars"], over["difference_dollars"],
            over["direction"]) == ("25.00", "23.75", "1.25", "over")
    under = money[f"underpay/{UNDERPAID['round']}"]
    assert (under["recorded_cents"], under["expected_cents"], under["difference_dollars"],
            under["direction"]) == ("1800", "1900", "-1.00", "under")

    # one round's flags, and a click on the first row opens it
    search = page.get_by_role("textbox", name="Search")
    search.fill(OVERPAID_ROUND)
    search.press("Enter")
    expect(page.get_by_text(re.compile(r"^2 flags \("))).to_be_visible()
    grid = page.locator('[data-testid="stDataFrame"]').first
    box = grid.bounding_box()
    assert box is not None
    start = float(page.evaluate("() => performance.now()"))
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 18)  # the first row's selection box
    bs.wait_rendered(page, "Round", start=start)
    assert f"round={OVERPAID_ROUND}" in page.url, page.url
    expect(page.get_by_text(f"Round {OVERPAID_ROUND}", exact=True)).to_be_visible()
    no_errors(page)
    shots.take(page, "analyst-round", height=3200)

    name, content = download(page, "Dispute report")
    check_dispute_report(name, content)

    # the flag's case: acknowledge, then record what was done
    open_page(page, "Cases")
    choose(page, "Flag", f"{OVERPAID_ROUND} · seat 3 · overpay")
    key = flag_key(OVERPAY_KEY_FIELDS)
    page.get_by_role("button", name="Acknowledge", exact=True).click()
    state = wait_for(lambda: (s := Cases(served.home).states().get(key)) and
                     s.status == "acknowledged" and s, "the flag acknowledged")
    assert state.by == served.users["analyst"][0]
    bs.settle(page)
    shots.take(page, "analyst-case", height=1800)
    chosen = page.locator('[data-testid="stMain"]').get_by_role("combobox", name="Flag",
                                                                  exact=True)
    the_flag = re.compile("^" + re.escape(f"{OVERPAID_ROUND} · seat 3 · overpay"))
    choose(page, "Disposition", "amount recovered")
    page.get_by_label("Note", exact=True).fill("$1.25 commission collected from seat 3")
    page.get_by_label("Amount recovered ($)", exact=True).fill("1.25")
    page.get_by_role("button", name="Record disposition", exact=True).click()
    bs.settle(page)
    # the case stays open on the page while it is worked (its status changed meanwhile)
    expect(chosen).to_have_value(the_flag)
    state = wait_for(lambda: (s := Cases(served.home).states().get(key)) and
                     s.status == "resolved" and s, "the disposition recorded")
    assert (state.disposition, state.amount_recovered_cents, state.by) == (
        "amount_recovered", 125, served.users["analyst"][0])
    bs.settle(page)
    no_errors(page)
    shots.take(page, "analyst-case-resolved", height=1800)

    viewed = {e["target"] for e in access(served, "analyst", "page_view")}
    assert {"overview", "dealers", "flags", "round", "cases"} <= viewed, viewed
    assert OVERPAID_ROUND in {e["target"] for e in access(served, "analyst", "round_view")}
    exports = access(served, "analyst", "export")
    assert exports and exports[-1]["target"] == "flags.csv", exports
    downloads = access(served, "analyst", "report_download")
    assert [e["target"] for e in downloads] == [OVERPAID_ROUND], downloads
    assert len(access(served, "analyst", "case_action")) == 2


def test_dispute_staff_settle_a_complaint(served: Served, open_session: Callable[[str], Page],
                                          shots: Shots, tmp_path: Path) -> None:
    """Find a round by its id, read the reconstruction, hand over the dispute report."""
    page = open_session("dispute")
    open_page(page, "Round")
    box = page.get_by_role("textbox", name="Round id")
    box.fill(OVERPAID_ROUND)
    start = float(page.evaluate("() => performance.now()"))
    box.press("Enter")
    expect(page.get_by_text(f"Round {OVERPAID_ROUND}", exact=True)).to_be_visible()
    bs.wait_rendered(page, "Round", start=start)
    no_errors(page)
    main = page.locator('[data-testid="stMain"]')
    for card in OVERPAID["cards"]:  # seat 3's cards, drawn as pictures named by the card
        expect(main.get_by_role("img", name=card, exact=True).first).to_be_visible()
    shots.take(page, "dispute-round", height=3200)

    name, content = download(page, "Dispute report")
    check_dispute_report(name, content)
    report = tmp_path / name
    report.write_bytes(content)
    shown = page.context.new_page()
    shown.goto(report.as_uri())
    shots.take(shown, "dispute-report")
    shown.close()

    # another round, typed: a loss settled as the rules require raises no flag
    box.fill(LOST_ROUND)
    box.press("Enter")
    expect(page.get_by_text(f"Round {LOST_ROUND}", exact=True)).to_be_visible()
    bs.settle(page)
    no_errors(page)

    viewed = [e["target"] for e in access(served, "dispute", "round_view")]
    assert OVERPAID_ROUND in viewed and LOST_ROUND in viewed, viewed
    assert [e["target"] for e in access(served, "dispute", "report_download")] == [
        OVERPAID_ROUND]
    assert access(served, "dispute", "case_action") == []


def test_regulator_changes_nothing(served: Served, open_session: Callable[[str], Page],
                                   shots: Shots) -> None:
    """A regulator sees the log's integrity, the rulesets, the cases and the access log, is
    offered no control that changes a case, and the store refuses one anyway."""
    from dashboard.cases import Cases, flag_key
    from dashboard.context import User

    page = open_session("regulator")
    open_page(page, "Log integrity")
    no_errors(page)
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("Built from a log that did not verify")).to_have_count(0)
    page.get_by_role("textbox", name="Public key (pinned)").fill(served.vkey)
    page.get_by_role("button", name="Verify the log now", exact=True).click()
    expect(main.get_by_text(re.compile(r"^Verified at "))).to_be_visible(timeout=30_000)
    bs.settle(page)
    shots.take(page, "regulator-integrity", height=2600)

    open_page(page, "Rulesets")
    no_errors(page)
    shots.take(page, "regulator-rulesets", height=1800)

    for title in ("Cases", "Round"):
        open_page(page, title)
        if title == "Cases":
            choose(page, "Flag", f"{OVERPAID_ROUND} · seat 3 · overpay")
            shots.take(page, "regulator-cases", height=1600)
        else:
            bs.visit(page, f"/round?round={OVERPAID_ROUND}", "Round")
            page.get_by_role("textbox", name="Public key (pinned)").fill(served.vkey)
            page.get_by_role("button", name="Prove against the signed checkpoint").click()
            expect(main.get_by_text(re.compile(r"^Proved"))).to_be_visible(timeout=30_000)
            bs.settle(page)
            shots.take(page, "regulator-round-proved", height=3600)
        no_errors(page)
        for control in ("Acknowledge", "Record disposition"):
            expect(page.get_by_role("button", name=control)).to_have_count(0)
        expect(page.get_by_role("combobox", name="Disposition")).to_have_count(0)

    name = served.users["regulator"][0]
    regulator = User(name=name, role="regulator")
    key = flag_key({**OVERPAY_KEY_FIELDS, "check_id": "commission_wrong"})
    with pytest.raises(PermissionError):
        Cases(served.home).acknowledge(key, by=regulator)
    with pytest.raises(PermissionError):
        Cases(served.home).dispose(key, by=regulator, disposition="false_alarm")
    assert Cases(served.home).history(key) == []

    open_page(page, "Access log")
    no_errors(page)
    shots.take(page, "regulator-access-log", height=1600)
    viewed = {e["target"] for e in access(served, "regulator", "page_view")}
    assert {"integrity", "rulesets", "cases", "round", "access-log"} <= viewed, viewed
    assert OVERPAID_ROUND in {e["target"] for e in access(served, "regulator", "round_view")}
    assert access(served, "regulator", "case_action") == []
