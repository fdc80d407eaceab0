"""The Servers page and the chat with servers in trouble, in a real browser (issue 32, items 5-7).

Beside the demo servers the app has one server that never starts (its module is missing), one
that starts once and cannot start again after it is killed, and one that offers only prompts.
The Servers page shows each one's real state, the reason of a failure from its log, where that
log is and its command with its arguments, secrets hidden; counts say "1 tool", "1 prompt".
An operator's answer from a working server carries no trace of the broken one; an answer that
needed it (nothing else could serve the request) carries a quiet note, not an error.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.harness import AppServer, OpenApp, go_to, no_exception, send_chat, wait_for_app
from tests.mcp_host.once_server import REFUSAL
from tests.processes import alive, processes

MISSING_MODULE = "gatehouse_module_that_is_not_there"
# Given to the broken server as an argument and in its environment: never on the page.
SECRET_ARGUMENT = "s3cr3t-argument-7f41c2"
SECRET_ENV = "s3cr3t-environment-90be3d"
# Read-only, so the policy lets it run at once; the filesystem server answers it.
FILES_REQUEST = "List the files in the project folder"
# Something no configured server offers: what the broken server offers might have served it.
NOTHING_FITS_REQUEST = "Book a table for two at an Italian restaurant tomorrow evening"
STARTED_MARKER = "once-started"
# Caption text is grey; an error line is red (rgb with red well above green and blue).
_RED = re.compile(r"rgba?\((\d+), (\d+), (\d+)")


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    from tests.browser.harness import running_app

    folder = tmp_path_factory.mktemp("gatehouse-app")
    demo = folder / "data" / "demo"
    servers: dict[str, dict[str, object]] = {
        "broken": {
            "command": sys.executable,
            "args": ["-m", MISSING_MODULE, "--token", SECRET_ARGUMENT],
            "env": {"BROKEN_API_KEY": SECRET_ENV},
        },
        "once": {
            "command": sys.executable,
            "args": ["-m", "tests.mcp_host.once_server", str(folder / STARTED_MARKER)],
        },
        "prompts": {"command": sys.executable, "args": ["-m", "servers.prompts", "--data-dir", str(demo)]},
    }
    with running_app(folder, extra_servers=servers) as server:
        yield server


def _box(page: Page, name: str) -> Locator:
    # Each server's box is keyed (views/servers.py): the class st-key-server-NAME.
    return page.locator(f".st-key-server-{name}")


def _servers_page(open_app: OpenApp) -> Page:
    page = open_app()
    go_to(page, "Servers")
    return page


def test_the_servers_page_shows_each_servers_state_reason_log_command_and_counts(
    app_server: AppServer, open_app: OpenApp
) -> None:
    page = _servers_page(open_app)

    broken = _box(page, "broken")
    expect(broken).to_contain_text("not connected")
    # The reason, as the server's own traceback ends, not the SDK's "Connection closed".
    expect(broken).to_contain_text(f"No module named {MISSING_MODULE}")
    expect(broken).to_contain_text(f"Full log: {app_server.data / 'logs' / 'servers' / 'broken.log'}")
    # The command with the arguments that tell servers apart; the token's value hidden.
    expect(broken).to_contain_text(f"-m {MISSING_MODULE} --token '***'")
    expect(broken).to_contain_text("environment: BROKEN_API_KEY")
    expect(_box(page, "email")).to_contain_text("connected · 1 tool, 0 prompts, 0 resources")
    expect(_box(page, "prompts")).to_contain_text("connected · 0 tools, 1 prompt, 0 resources")
    expect(_box(page, "filesystem")).to_contain_text("-m servers.filesystem --data-dir")
    text = page.get_by_test_id("stMain").inner_text()
    assert SECRET_ARGUMENT not in text and SECRET_ENV not in text
    assert not re.search(r"\b1 (tools|prompts|resources)\b", text), text
    no_exception(page)


def _once_pid(app_server: AppServer) -> int:
    marker = str(app_server.data.parent / STARTED_MARKER)
    [pid] = [
        p.pid
        for p in processes()
        if p.state != "Z" and "tests.mcp_host.once_server" in p.command and marker in p.command
    ]
    return pid


def test_a_killed_server_shows_as_not_connected_with_its_reason(
    app_server: AppServer, open_app: OpenApp
) -> None:
    page = _servers_page(open_app)
    once = _box(page, "once")
    expect(once).to_contain_text("connected · 1 tool")
    pid = _once_pid(app_server)

    os.kill(pid, signal.SIGKILL)

    # The page follows by itself (it refreshes); the restart fails, and it says why.
    expect(once).to_contain_text("not connected", timeout=30_000)
    expect(once).to_contain_text(REFUSAL)
    expect(once).not_to_contain_text("connected ·")
    assert not alive(pid)
    no_exception(page)


def _is_red(element: Locator) -> bool:
    match = _RED.match(element.evaluate("e => getComputedStyle(e).color"))
    assert match is not None
    red, green, blue = (int(part) for part in match.groups())
    return red > 150 and red > green + 60 and red > blue + 60


def test_a_broken_server_troubles_only_the_answers_that_needed_it_and_quietly(
    app_server: AppServer, open_app: OpenApp
) -> None:
    page = open_app()
    answers = page.get_by_test_id("stChatMessage")

    send_chat(page, FILES_REQUEST)

    served = answers.last
    expect(served).to_contain_text("filesystem")
    expect(served).not_to_contain_text("broken")
    expect(served.get_by_text("error", exact=True)).to_have_count(0)  # the error icon's name

    send_chat(page, NOTHING_FITS_REQUEST)

    unserved = answers.last
    note = unserved.get_by_test_id("stCaptionContainer").filter(has_text="broken is not available")
    expect(note).to_be_visible()
    expect(note).to_contain_text(f"No module named {MISSING_MODULE}")
    assert not _is_red(note.get_by_text("broken is not available"))
    expect(unserved.get_by_text("error", exact=True)).to_have_count(0)
    wait_for_app(page)
    no_exception(page)
