"""Fixtures for the browser tests: the app on a real Streamlit server, Chromium, pages.

    def test_something(app_server: AppServer, open_app: OpenApp) -> None:
        page = open_app()                  # a new browser context: a Streamlit session of its own
        pick_identity(page, "reviewer")    # helpers in tests/browser/harness.py
        go_to(page, "Reviews")

Without Chromium or the playwright package every test here is skipped with the reason, or
fails when GATEHOUSE_REQUIRE_BROWSER=1 (see harness.missing_browser).
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.harness import (
    ARTIFACTS,
    EXPECT_TIMEOUT_MS,
    AppServer,
    OpenApp,
    browser_problem,
    chromium_executable,
    launch_chromium,
    missing_browser,
    new_page,
    running_app,
    screenshot,
    visit,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


class _MissingBrowser(pytest.Module):
    """Stands in for a test module when the browser cannot run, before the module is imported
    (so test modules may import playwright at the top): one item that skips with the reason,
    or fails under GATEHOUSE_REQUIRE_BROWSER=1. A failing item, not a collection error, so the
    rest of the suite still runs."""

    reason = ""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        return [_BrowserMissing.from_parent(self, name="browser_tests", reason=self.reason)]


class _BrowserMissing(pytest.Item):
    def __init__(self, *, reason: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reason = reason

    def runtest(self) -> None:
        missing_browser(self.reason)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.name}: browser tests"


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    problem = browser_problem()
    if problem is None:
        return None
    module = _MissingBrowser.from_parent(parent, path=module_path)
    module.reason = problem
    return module


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    # Kept per phase, so open_app's teardown can tell whether the test failed.
    report: pytest.TestReport = yield
    item.stash.setdefault(_REPORTS, {})[report.when] = report
    server = getattr(item, "funcargs", {}).get("app_server")
    if report.failed and isinstance(server, AppServer):
        report.sections.append(("streamlit log (tail)", server.log_tail()))
    return report


@pytest.fixture(scope="session")
def chromium() -> str:
    """The system Chromium's path; skips (or fails, see harness) when it or playwright is missing."""
    return chromium_executable()


@pytest.fixture(scope="package")
def browser(chromium: str) -> Iterator[Browser]:
    """Headless Chromium for every test of this folder.

    Package-scoped, not session-scoped: Playwright's sync API runs its own asyncio loop and a
    driver process, and those are stopped once the last browser test has run, before the rest
    of the suite (anyio tests with loops of their own) goes on.
    """
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)  # global to Playwright: reset below
    try:
        with sync_playwright() as playwright:
            launched = launch_chromium(playwright)
            try:
                yield launched
            finally:
                launched.close()
    finally:
        expect.set_options(timeout=None)


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """``streamlit run app.py`` on a free 127.0.0.1 port, with a data folder of its own.

    Module-scoped: the server takes a few seconds to start (and its first page load starts the
    stdio servers), and a flow test needs several browser contexts (operator, reviewer) on one
    server anyway. Tests of one module share the server's state: its database, its demo files,
    the pending count. A test that needs a fresh server uses harness.running_app(folder) itself.
    """
    with running_app(tmp_path_factory.mktemp("gatehouse-app")) as server:
        yield server


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The release file of a module's held server (tests/held_server.py: a call it holds
    answers once the file exists); created at the latest when the module ends, so no call is
    left waiting for it."""
    path = tmp_path_factory.mktemp("held") / "release"
    try:
        yield path
    finally:
        path.touch()


@pytest.fixture
def artifacts() -> Path:
    """tests/browser/artifacts/ (gitignored): where screenshots go."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def open_app(request: pytest.FixtureRequest, browser: Browser, app_server: AppServer) -> Iterator[OpenApp]:
    """A factory: ``open_app(path="", height=None)`` opens the app at ``path`` in a new browser
    context (a Streamlit session of its own: call it twice for two people) once its first run
    is done; ``height`` gives it a taller viewport, for screenshots.

    Every context is closed after the test; when the test failed, each page is saved first as
    artifacts/<test>-<n>-failed.png (the server's log tail is in the failure report).
    """
    pages: list[Page] = []

    def opener(path: str = "", *, height: int | None = None) -> Page:
        page = new_page(browser, height=height)
        pages.append(page)  # before loading: a page that fails to load is still shot and closed
        visit(page, app_server.page_url(path))
        return page

    try:
        yield opener
    finally:
        reports = request.node.stash.get(_REPORTS, {})
        failed = any(report.failed for report in reports.values())
        name = re.sub(r"[^\w.-]+", "_", request.node.name)
        for n, page in enumerate(pages, 1):
            if failed and not page.is_closed():
                try:
                    screenshot(page, f"{name}-{n}-failed")
                except Exception as exc:  # noqa: BLE001 - a missing screenshot must not hide the failure
                    print(f"no screenshot of page {n}: {exc}")
            page.context.close()
