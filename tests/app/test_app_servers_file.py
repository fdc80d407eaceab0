"""The app with the servers file a person has: a broken entry leaves the other servers working
and is named (file, entry and key) on the Servers page, with a short notice on every page; a
file that cannot be used at all is one message on the Servers page, never a traceback; a copy
of the shipped file runs as the shipped one does. Real stdio servers, a real SQLite file."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.web.literal import markdown_lines, markdown_literal
from gatehouse.web.page import services
from servers.catalog import BUNDLED_CONFIG
from tests.app.test_app import markdown_text, on_page, session
from tests.mcp_host.helpers import REPO_ROOT
from tests.support import bundled_server_entry

UNSET = "GATEHOUSE_TEST_NEVER_SET"


@pytest.fixture
def servers_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Where the app reads its servers file; each test writes it before the first session."""
    path = tmp_path / "servers.json"
    monkeypatch.setenv("GATEHOUSE_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("GATEHOUSE_SERVERS", str(path))
    for name in ("GATEHOUSE_DB", "GATEHOUSE_POLICY", "GATEHOUSE_PYTHON", "GATEHOUSE_DEMO_DATA", UNSET):
        monkeypatch.delenv(name, raising=False)
    services.clear()
    yield path
    services().close()
    services.clear()


def _notices(app: AppTest) -> str:
    return "\n".join(str(block.value) for block in app.warning)


@pytest.mark.processes
def test_a_broken_entry_is_named_on_the_servers_page_and_the_other_servers_work(
    servers_file: Path, tmp_path: Path
) -> None:
    entries = {
        "greeter": bundled_server_entry("greeter", tmp_path / "data" / "demo"),
        "glossary": {
            "command": sys.executable,
            "args": ["-m", "tests.mcp_host.partial_server"],
            "cwd": str(REPO_ROOT),
        },
        "crm": {"command": f"${{{UNSET}}}"},
    }
    servers_file.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")

    chat = session("admin")
    assert "crm" in _notices(chat)
    page = markdown_text(on_page(chat, "servers"))

    named = f"{servers_file}: mcpServers.crm.command: environment variable {UNSET} is not set"
    assert markdown_literal(f"not started: {named}") in page, page
    assert markdown_literal("connected · 1 tool, 1 prompt, 1 resource") in page
    # The server that does not serve an optional method works, and the page says what is missing.
    assert markdown_literal("not served: resources/templates/list (Method not found") in page


def test_a_servers_file_that_is_not_json_is_one_message_on_the_servers_page_and_no_traceback(
    servers_file: Path,
) -> None:
    servers_file.write_text('{"mcpServers": {', encoding="utf-8")

    chat = session("admin")
    assert "cannot be used" in _notices(chat)
    servers = on_page(chat, "servers")

    [message] = [block.value for block in servers.error]
    assert markdown_literal(f"{servers_file}: not valid JSON") in message
    assert not servers.exception


@pytest.mark.processes
def test_a_copy_of_the_shipped_servers_file_runs_in_the_app(servers_file: Path) -> None:
    shutil.copyfile(BUNDLED_CONFIG, servers_file)
    shipped = json.loads(servers_file.read_text(encoding="utf-8"))
    shipped["mcpServers"] = {"greeter": shipped["mcpServers"]["greeter"]}
    servers_file.write_text(json.dumps(shipped), encoding="utf-8")

    page = on_page(session("admin"), "servers")

    assert not page.error and not _notices(page)
    assert markdown_literal("connected · 1 tool, 0 prompts, 0 resources") in markdown_text(page)


@pytest.mark.processes
def test_a_name_given_twice_is_two_boxes_on_the_servers_page_the_first_connected(servers_file: Path) -> None:
    glossary = {
        "command": sys.executable,
        "args": ["-m", "tests.mcp_host.partial_server"],
        "cwd": str(REPO_ROOT),
    }
    servers_file.write_text(
        f'{{"mcpServers": {{"glossary": {json.dumps(glossary)}, "glossary": {{"command": "/bin/cat"}}}}}}',
        encoding="utf-8",
    )

    page = on_page(session("admin"), "servers")

    assert not page.exception
    text = markdown_text(page)
    assert markdown_literal("connected · 1 tool, 1 prompt, 1 resource") in text
    named = f"{servers_file}: mcpServers.glossary (2nd): mcpServers.glossary is given 2 times in the file"
    assert markdown_literal(f"not started: {named}") in text, text


def test_every_mistake_of_a_broken_entry_is_named_on_the_servers_page_one_a_line(servers_file: Path) -> None:
    entry = {"command": "python", "argz": ["x"], "evn": {}, "timeout": "30"}
    servers_file.write_text(json.dumps({"mcpServers": {"files": entry}}), encoding="utf-8")

    page = on_page(session("admin"), "servers")

    assert not page.exception
    at = f"{servers_file}: mcpServers.files"
    mistakes = [
        f"not started: {at}.argz: unknown key for a stdio server (did you mean 'args'?)",
        f"{at}.evn: unknown key for a stdio server (did you mean 'env'?)",
        f'{at}.timeout: must be a positive number of seconds, not the string "30" (write "timeout": 30, without quotes)',
    ]
    # Each on a line of its own (a hard line break between them), none run into the next.
    assert markdown_lines(mistakes) in markdown_text(page), markdown_text(page)
