"""HAProxy in front of app replicas, run from deploy/haproxy.cfg as docs/replicas.md shows, and
which replica it pinned a browser to (its sticky cookie).

Without HAProxy the test is skipped with the reason, or fails under GATEHOUSE_REQUIRE_BROWSER=1
(CI installs it: .ci/run)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.harness import (
    ROOT,
    START_SECONDS,
    AppServer,
    free_port,
    log_tail,
    missing_browser,
    stop_process_tree,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

CONFIG = ROOT / "deploy" / "haproxy.cfg"


def _sticky_cookie() -> str:
    """The name of the cookie the config has HAProxy insert (its `cookie NAME insert` line)."""
    found = re.search(r"^\s+cookie (\w+) insert ", CONFIG.read_text(encoding="utf-8"), re.M)
    assert found is not None, f"{CONFIG} inserts no sticky cookie"
    return found.group(1)


COOKIE = _sticky_cookie()
# The replicas' names in deploy/haproxy.cfg (its `server` lines), with the variables that
# give their addresses.
REPLICAS = {"replica1": "GATEHOUSE_REPLICA_1", "replica2": "GATEHOUSE_REPLICA_2"}


def _haproxy() -> str:
    path = shutil.which("haproxy")
    if path is None:
        missing_browser(
            "haproxy not found on PATH: the replica test runs Debian's (`apt-get install haproxy`)"
        )
    return path


def _answers(url: str) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"{url}/_stcore/health", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@contextmanager
def running_proxy(folder: Path, replicas: Mapping[str, AppServer], port: int | None = None) -> Iterator[str]:
    """HAProxy with deploy/haproxy.cfg in front of ``replicas`` (by their names in REPLICAS) on
    127.0.0.1:``port`` (a free one when None); yields its address once it answers, and stops it
    afterwards. Its log is ``folder``/haproxy.log."""
    haproxy = _haproxy()
    port = port or free_port()
    env = dict(os.environ)
    env["GATEHOUSE_PROXY_BIND"] = f"127.0.0.1:{port}"
    for name, variable in REPLICAS.items():
        env[variable] = replicas[name].url.removeprefix("http://")
    log = folder / "haproxy.log"
    with log.open("wb") as sink:
        # -db: in the foreground, stopped with the test.
        process = subprocess.Popen(
            [haproxy, "-db", "-f", str(CONFIG)],
            env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + START_SECONDS
        while not _answers(url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"haproxy did not answer {url}; its log:\n{log_tail(log)}", pytrace=False)
            time.sleep(0.1)
        yield url
    finally:
        stop_process_tree(process)


def replica_of(page: Page) -> str:
    """The replica the proxy pinned this browser to (its sticky cookie)."""
    values = [c["value"] for c in page.context.cookies() if c["name"] == COOKIE]
    assert len(values) == 1, f"expected one {COOKIE} cookie, got {values}"
    return values[0]
