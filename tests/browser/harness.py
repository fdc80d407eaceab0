"""The browser tests' machinery: the app as a real Streamlit server, Chromium driven by Playwright.

Chromium is Debian's (``/usr/bin/chromium``), never one Playwright downloads. A machine without
it, or without the playwright package, skips the browser tests with the reason, or fails them
when GATEHOUSE_REQUIRE_BROWSER=1 (CI, where a silent skip would hide a broken install).

playwright is imported only inside functions (and for type checking), so this module, and the
conftest that uses it, load on a machine without it: that is what lets the tests skip there.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, Protocol

import pytest

from bench.browser_tabs import CHROMIUM_ARGS
from policies.loader import DEFAULT_POLICY, load_policy
from tests.processes import processes

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page, Playwright, ViewportSize

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

REQUIRE_BROWSER_VARIABLE = "GATEHOUSE_REQUIRE_BROWSER"
# Headless, no sandbox (containers run as root), and no traffic of Chromium's own; every host
# name unresolvable but 127.0.0.1. One list for the tests and the bench's browser tabs.
VIEWPORT: ViewportSize = {"width": 1280, "height": 900}  # wide enough for the sidebar to stay open
# The zone every test browser reports, whatever this machine's zone is; the pages show times in
# it. Not UTC, the pages' fallback, so a page that ignores the browser's zone shows up; Japan
# keeps no daylight saving time, so its times are always named JST.
BROWSER_ZONE = "Asia/Tokyo"
BROWSER_ZONE_NAME = "JST"

START_SECONDS = 60.0  # until /_stcore/health answers "ok"
STOP_SECONDS = 10.0  # after SIGTERM, before SIGKILL
START_ATTEMPTS = 3  # a port taken between choosing and binding is retried on another
# A Streamlit run in these tests can start the stdio servers or make MCP calls: generous.
RUN_TIMEOUT_MS = 60_000
# How often go_to() clicks a sidebar link a rerun dropped, and how long it waits for each.
_NAVIGATION_TRIES = 4
_NAVIGATION_WAIT_MS = 10_000
# Playwright's defaults (5 s for expect, 30 s for actions) are short for a two-core CI box that
# also runs the app and its servers; the browser fixture sets these for every context and expect.
EXPECT_TIMEOUT_MS = 15_000
ACTION_TIMEOUT_MS = 30_000
LOG_TAIL_LINES = 60

# Environment variables the app reads that a test must not inherit from the developer's shell.
_INHERITED_SETTINGS = ("GATEHOUSE_DB", "GATEHOUSE_POLICY", "GATEHOUSE_SERVERS")


# -- is there a browser ----------------------------------------------------------------------


def browser_required() -> bool:
    return os.environ.get(REQUIRE_BROWSER_VARIABLE) == "1"


def missing_browser(reason: str) -> NoReturn:
    """Skip the test, or fail it when the environment says the browser must be there."""
    if browser_required():
        pytest.fail(f"{reason} ({REQUIRE_BROWSER_VARIABLE}=1)", pytrace=False)
    pytest.skip(reason)


def browser_problem() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"the playwright package does not import ({exc}): install the dev dependencies (`make test`)"
    if shutil.which("chromium") is None:
        return "chromium not found on PATH: the browser tests drive Debian's (`apt-get install chromium`)"
    return None


def chromium_executable() -> str:
    """The system Chromium, or skip/fail the test (see missing_browser)."""
    problem = browser_problem()
    if problem is not None:
        missing_browser(problem)
    path = shutil.which("chromium")
    assert path is not None  # browser_problem checked it
    return path


def launch_chromium(playwright: Playwright) -> Browser:
    return playwright.chromium.launch(
        executable_path=chromium_executable(), headless=True, args=list(CHROMIUM_ARGS)
    )


class OpenApp(Protocol):
    """The open_app fixture: a page of the app at ``path`` ("" is Chat, "review_queue",
    "traces") in a new browser context, i.e. a Streamlit session of its own."""

    def __call__(self, path: str = "", *, height: int | None = None) -> Page: ...


# -- the app as a Streamlit server -----------------------------------------------------------


@dataclass(frozen=True)
class AppServer:
    """A running ``streamlit run app.py``: where it answers, its data folder and its log."""

    url: str  # http://127.0.0.1:<port>, no trailing slash
    data: Path  # GATEHOUSE_DATA: the database, the demo servers' files under demo/
    log: Path  # the server's stdout and stderr
    pid: int

    def page_url(self, path: str = "") -> str:
        """The URL of a page: "" for the default (Chat), "review_queue", "traces"."""
        return f"{self.url}/{path.lstrip('/')}"

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        return log_tail(self.log, lines)


def log_tail(log: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return f"(no log: {exc})"
    return "\n".join(text.splitlines()[-lines:]) or "(empty log)"


def app_environment(
    folder: Path,
    *,
    db_url: str | None = None,
    shipped_servers: bool = False,
    extra_servers: Mapping[str, Mapping[str, object]] | None = None,
) -> dict[str, str]:
    """The app's environment: data under ``folder/data``, the demo filesystem and email servers
    over stdio (as tests/app/test_app.py's app_env), the shipped policy, and the default database
    (or ``db_url``: several apps on one PostgreSQL database are replicas). ``extra_servers``
    adds entries (name: {"command", "args"}) beside the two demo servers. With
    ``shipped_servers``, no servers file: every bundled server, started as `make run` starts
    them (servers/bundled.mcp.json)."""
    data = folder / "data"
    env = {k: v for k, v in os.environ.items() if k not in _INHERITED_SETTINGS}
    env["GATEHOUSE_DATA"] = str(data)
    if not shipped_servers:
        entries: dict[str, Mapping[str, object]] = {
            name: {
                "command": sys.executable,
                "args": ["-m", f"servers.{name}", "--data-dir", str(data / "demo")],
            }
            for name in ("filesystem", "email")
        }
        entries.update(extra_servers or {})
        servers = folder / "servers.json"
        servers.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
        env["GATEHOUSE_SERVERS"] = str(servers)
    if db_url is not None:
        env["GATEHOUSE_DB"] = db_url
    return env


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# Straight to 127.0.0.1, whatever *_proxy variables the shell has.
_LOCAL = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _healthy(url: str) -> bool:
    try:
        with _LOCAL.open(f"{url}/_stcore/health", timeout=2) as response:
            body: bytes = response.read()
            return response.status == 200 and body.strip() == b"ok"
    except OSError:  # refused, reset, timed out; URLError and HTTPError are OSErrors too
        return False


def _command(port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        # The views may be edited while the tests run: no "source changed" prompt, no reruns.
        "--server.fileWatcherType",
        "none",
    ]


@contextlib.contextmanager
def running_app(
    folder: Path,
    *,
    db_url: str | None = None,
    shipped_servers: bool = False,
    extra_servers: Mapping[str, Mapping[str, object]] | None = None,
    extra_env: Mapping[str, str] | None = None,
    remote_servers: Mapping[str, Mapping[str, object]] | None = None,
    knows_its_address: bool = False,
    secrets: Callable[[str], str] | None = None,
) -> Iterator[AppServer]:
    """Run the app on a free 127.0.0.1 port with its data under ``folder``; stop it afterwards.

    ``extra_env`` adds variables. ``remote_servers`` adds entries of remote (http) servers to
    the servers file, and tells the app its own address (GATEHOUSE_PUBLIC_URL), where their
    sign-ins return; ``knows_its_address`` tells it that address without them (the links in
    its notifications then lead to it). ``secrets`` gives the text of the app's
    .streamlit/secrets.toml for its address (an ``[auth]`` redirect_uri names it); the file is
    written under ``folder``, never into the checkout.

    Yields once /_stcore/health answers "ok". Failing to get there within START_SECONDS, or the
    server exiting first, fails with the tail of its log. A port taken between choosing and
    binding makes Streamlit exit at once; that is retried on another port.
    """
    folder.mkdir(parents=True, exist_ok=True)
    servers = {**(extra_servers or {}), **(remote_servers or {})}
    env = app_environment(folder, db_url=db_url, shipped_servers=shipped_servers, extra_servers=servers)
    env.update(extra_env or {})
    log = folder / "streamlit.log"
    for _ in range(START_ATTEMPTS):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        if remote_servers or knows_its_address:
            env["GATEHOUSE_PUBLIC_URL"] = url
        if secrets is not None:
            # Streamlit reads the file when it starts (its cookies are signed with [auth]'s secret).
            secrets_file = folder / "secrets.toml"
            secrets_file.write_text(secrets(url), encoding="utf-8")
            env["STREAMLIT_SECRETS_FILES"] = str(secrets_file)
        with log.open("ab") as sink:
            start = sink.tell()
            sink.write(f"$ {' '.join(_command(port))}\n".encode())
            sink.flush()
            process = subprocess.Popen(
                _command(port),
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, stopped as a whole
            )
        try:
            deadline = time.monotonic() + START_SECONDS
            while not _healthy(url):
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"streamlit did not answer {url}/_stcore/health within {START_SECONDS:g} s; "
                        f"log {log}:\n{log_tail(log)}",
                        pytrace=False,
                    )
                try:
                    process.wait(timeout=0.1)  # the pause between polls notices an early exit
                except subprocess.TimeoutExpired:
                    continue
                break
            if process.poll() is None:
                yield AppServer(url=url, data=folder / "data", log=log, pid=process.pid)
                return
            with log.open("rb") as written:
                written.seek(start)
                output = written.read().decode(errors="replace")
            if not re.search(rf"Port {port} is (not available|already in use)", output):
                pytest.fail(
                    f"streamlit exited with status {process.returncode} before answering; "
                    f"log {log}:\n{log_tail(log)}",
                    pytrace=False,
                )
        finally:
            stop_process_tree(process)
    pytest.fail(f"streamlit found no free port in {START_ATTEMPTS} attempts; log {log}", pytrace=False)


# -- stopping a server and everything it started ---------------------------------------------


def _descendants(root: int) -> list[int]:
    """Live descendants of ``root`` (the app's stdio MCP servers run in sessions of their own,
    so signalling the app's process group does not reach them)."""
    children: dict[int, list[int]] = {}
    for process in processes():
        if process.state != "Z":
            children.setdefault(process.parent, []).append(process.pid)
    found: list[int] = []
    pending = [root]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def _exited(descriptor: int, timeout: float) -> bool:
    readable, _, _ = select.select([descriptor], [], [], timeout)
    return bool(readable)


def stop_process_tree(process: subprocess.Popen[bytes], timeout: float = STOP_SECONDS) -> None:
    """SIGTERM the process's group, SIGKILL it after ``timeout``; then the same for every
    descendant that outlived it. Fails if anything of it is still running."""
    # pidfds, taken before anything is signalled: a pid reused later is never signalled.
    descendants: list[int] = []
    for pid in _descendants(process.pid):
        with contextlib.suppress(ProcessLookupError):
            descendants.append(os.pidfd_open(pid))
    try:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sig)  # start_new_session: the pid is the group's id
            try:
                process.wait(timeout=timeout)
                break
            except subprocess.TimeoutExpired:
                continue
        # Usually gone already: their stdin closed with the app.
        survivors = [d for d in descendants if not _exited(d, 0)]
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for descriptor in survivors:
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(descriptor, sig)
            deadline = time.monotonic() + timeout
            survivors = [d for d in survivors if not _exited(d, max(0.0, deadline - time.monotonic()))]
    finally:
        for descriptor in descendants:
            os.close(descriptor)
    if process.returncode is None:
        pytest.fail(f"streamlit (pid {process.pid}) outlived SIGKILL", pytrace=False)
    if survivors:
        pytest.fail(f"{len(survivors)} process(es) started by streamlit outlived SIGKILL", pytrace=False)


# -- pages -----------------------------------------------------------------------------------


def new_page(browser: Browser, *, height: int | None = None, zone: str = BROWSER_ZONE) -> Page:
    """A blank page in a new browser context: cookies, and so a Streamlit session, of its own,
    and its clock in ``zone``. ``height`` makes the viewport taller than usual (for
    screenshots). Close it with ``page.context.close()``."""
    viewport: ViewportSize = {"width": VIEWPORT["width"], "height": height or VIEWPORT["height"]}
    context = browser.new_context(viewport=viewport, timezone_id=zone)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    return context.new_page()


def visit(page: Page, url: str) -> None:
    """Load ``url`` and wait for the app's first run to finish. A load starts a new Streamlit
    session; in local mode it starts as the name in ``?as=``, else the one this browser
    context picked last (its cookie), else operator. Within a session, move with go_to()."""
    page.goto(url)
    wait_for_app(page)


def open_page(browser: Browser, url: str) -> Page:
    """new_page() then visit(): the app at ``url`` in a new context, its first run done."""
    page = new_page(browser)
    try:
        visit(page, url)
    except BaseException:
        page.context.close()
        raise
    return page


def wait_for_app(page: Page, timeout_ms: float = RUN_TIMEOUT_MS) -> None:
    """Wait until the page is connected to the server and no script run is in progress.

    Streamlit marks its root element with the connection and run state, as its own end-to-end
    tests read them. Right after an action the rerun it causes may not have started yet, so
    this alone cannot tell that the action's effect is there: wait for that effect (text, a
    widget's value) with ``expect``, then call this to let the run finish.
    """
    from playwright.sync_api import expect

    app = page.get_by_test_id("stApp")
    expect(app).to_have_attribute("data-test-connection-state", "CONNECTED", timeout=timeout_ms)
    expect(app).to_have_attribute("data-test-script-state", "notRunning", timeout=timeout_ms)


def new_thread(page: Page) -> None:
    """On the Chat page, start a new thread and wait until the page shows it.

    A new session reopens the operator's latest thread, which may be a finished one: a message
    sent before the click's rerun has landed would go there (seen in CI: the click's run had not
    started when wait_for_app() returned), so wait for the effect, the empty thread's label."""
    from playwright.sync_api import expect

    page.get_by_role("button", name="New thread").click()
    expect(selectbox(page, "Your threads")).to_have_value("New thread")
    wait_for_app(page)


def no_exception(page: Page) -> None:
    """Assert the page shows no exception box (what AppTest's ``app.exception`` catches)."""
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stException")).to_have_count(0)


def sidebar(page: Page) -> Locator:
    return page.get_by_test_id("stSidebar")


def selectbox(page: Page, label: str, within: Locator | None = None) -> Locator:
    """The input of the Streamlit selectbox labelled ``label`` (exactly), optionally inside
    ``within``. Streamlit's selectbox is a react-aria combobox: its value is the input's."""
    scope = within if within is not None else page.locator("body")
    return scope.get_by_role("combobox", name=label, exact=True)


def choose(page: Page, combobox: Locator, option: str) -> None:
    """Pick ``option`` (its exact text) in a Streamlit selectbox (see selectbox()).

    The list opens in a popover at the end of the document, not inside the widget, so the
    option is looked up there. Typing the option first filters the list, so an option that a
    long (virtualised) list has not drawn is found too. Returns once the box shows the option;
    the rerun the change starts may still be running (see wait_for_app).
    """
    from playwright.sync_api import expect

    combobox.click()
    combobox.fill(option)
    dropdown = page.get_by_test_id("stSelectboxVirtualDropdown")
    dropdown.get_by_role("option", name=option, exact=True).click()
    expect(dropdown).to_have_count(0)
    expect(combobox).to_have_value(option)


def roster() -> dict[str, str]:
    """The shipped policy's users and their roles: the app server runs with that policy."""
    return dict(load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": "/nonexistent"}).users)


def pick_identity(page: Page, name: str) -> None:
    """In local mode, become ``name`` (a user of the shipped policy's roster) in this page's
    session, and wait until the sidebar shows that user's role.

    The choice lives in the Streamlit session, the page's address (?as=NAME) and a cookie of
    the browser context: a reload or a new page of the same context keeps it, a new browser
    context starts as "operator". Move between pages with go_to(), which keeps the session.
    Between two names of the same role (reviewer, reviewer2) the caption does not change, so
    the rerun may still be finishing on return; any later action carries the new value anyway
    (every rerun sends all widget values), so nothing acts under the old name.
    """
    from playwright.sync_api import expect

    role = roster().get(name)
    if role is None:
        raise AssertionError(f"{name!r} is not in the shipped roster: {sorted(roster())}")
    choose(page, selectbox(page, "You are", within=sidebar(page)), name)
    expect(sidebar(page).get_by_text(re.compile(r"^Role: "))).to_have_text(f"Role: {role}")
    wait_for_app(page)


def go_to(page: Page, title: str) -> None:
    """Open another page of the app by its sidebar link (same session: the identity stays).

    Loading a page's URL instead would start a new Streamlit session (see visit())."""
    from playwright.sync_api import expect

    link = sidebar(page).get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True)
    # A click that lands while a live fragment reruns the page can be dropped by Streamlit, as a
    # person's would be (seen on loaded machines, three times in a row with 5 s waits). So click
    # only once the app reports no run in progress, and like a person, click again if dropped.
    for _ in range(_NAVIGATION_TRIES - 1):
        wait_for_app(page)
        link.click()
        try:
            expect(link).to_have_attribute("aria-current", "page", timeout=_NAVIGATION_WAIT_MS)
            break
        except AssertionError:
            continue
    else:
        wait_for_app(page)
        link.click()
    expect(link).to_have_attribute("aria-current", "page")
    wait_for_app(page)


def chat_input(page: Page) -> Locator:
    return page.get_by_test_id("stChatInputTextArea")


def send_chat(page: Page, text: str, timeout_ms: float = RUN_TIMEOUT_MS) -> None:
    """Type ``text`` into the chat box and send it; return once the run it starts is done.

    The request and its answer are drawn together, by the run the message starts (or the rerun
    that run asks for), so the thread holding more messages than before is the sign that the
    answer is there; the text alone is not (a thread may hold the same request twice). Fails
    early when the box is disabled: the current thread waits for a reviewer, start a new one.
    """
    from playwright.sync_api import expect

    messages = page.get_by_test_id("stChatMessage")
    before = messages.count()
    box = chat_input(page)
    # Disabled while the thread waits for a reviewer: say so rather than time out typing.
    expect(box).to_be_enabled()
    box.fill(text)
    box.press("Enter")
    expect(messages).not_to_have_count(before, timeout=timeout_ms)
    wait_for_app(page, timeout_ms)


def expect_waiting_for_a_reviewer(operator: Page) -> None:
    """The operator's last answer says the request waits for a reviewer."""
    from playwright.sync_api import expect

    answer = operator.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("waiting for a reviewer")).to_be_visible()


def reviewer_on_reviews(open_app: OpenApp, name: str = "reviewer", *, height: int = 1900) -> Page:
    """A new session as ``name`` on the Reviews page, tall enough for a review in full."""
    page = open_app(height=height)
    pick_identity(page, name)
    go_to(page, "Reviews")
    return page


def screenshot(page: Page, name: str) -> Path:
    """Save a screenshot as tests/browser/artifacts/<name>.png. Streamlit scrolls inside its
    own container, so the picture is the viewport: open the page with a taller one
    (``open_app(height=...)``) to show more."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=path, full_page=True)
    return path
