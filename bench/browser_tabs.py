"""The web app as people leave it: a real `streamlit run app.py` on a 127.0.0.1 port, real
Chromium tabs (Debian's, driven by Playwright) resting on its pages, and the server process's
CPU time read from /proc while they rest.

Used by figure 10 (bench/figures/idle_tabs.py). The browser tests have their own, stricter
harness (tests/browser/harness.py); this one only needs a server that starts, tabs that load,
and a clean stop.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

ROOT = Path(__file__).resolve().parent.parent
START_SECONDS = 60.0
LOAD_TIMEOUT_MS = 60_000
# Headless, no sandbox, no traffic of Chromium's own, 127.0.0.1 only (the browser tests use it too).
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
)
_LOCAL = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Server:
    url: str
    pid: int
    log: Path


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` (all its threads, not its children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # After "pid (comm)": state is field 0, utime 11, stime 12 (proc(5) fields 14 and 15).
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def healthy(url: str) -> bool:
    """Whether the Streamlit app at ``url`` (or a proxy in front of it) answers its health check
    with "ok", straight to 127.0.0.1 whatever *_proxy variables the shell has."""
    try:
        with _LOCAL.open(f"{url}/_stcore/health", timeout=2) as response:
            body: bytes = response.read()
            return response.status == 200 and body.strip() == b"ok"
    except OSError:  # refused, reset, timed out; URLError and HTTPError are OSErrors too
        return False


@contextmanager
def streamlit_app(folder: Path, env: Mapping[str, str]) -> Iterator[Server]:
    """`streamlit run app.py` on a free port with ``env``; its log in ``folder``; stopped after."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = folder / "streamlit.log"
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true"]
    command += ["--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, cwd=ROOT, env=dict(env), stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + START_SECONDS
        while not healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"streamlit did not start on {url}; its log ends:\n{tail}")
            time.sleep(0.2)
        yield Server(url, process.pid, log)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def chromium() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    path = shutil.which("chromium")
    if path is None:
        raise RuntimeError(
            "chromium not found on PATH: the figure drives Debian's (`apt-get install chromium`)"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=list(CHROMIUM_ARGS))
        try:
            yield browser
        finally:
            browser.close()


def settled(page: Page) -> None:
    """Wait until the page is connected and no script run is in progress."""
    from playwright.sync_api import expect

    app = page.get_by_test_id("stApp")
    expect(app).to_have_attribute("data-test-connection-state", "CONNECTED", timeout=LOAD_TIMEOUT_MS)
    expect(app).to_have_attribute("data-test-script-state", "notRunning", timeout=LOAD_TIMEOUT_MS)


def open_tabs(browser: Browser, url: str, count: int) -> list[Page]:
    """``count`` tabs at ``url`` in one browser context (one person's tabs: each its own
    Streamlit session, the app's scripts loaded once), each with its first run done."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(LOAD_TIMEOUT_MS)
    pages = []
    for _ in range(count):
        page = context.new_page()
        page.goto(url, wait_until="commit")
        pages.append(page)
    for page in pages:
        settled(page)
    return pages
