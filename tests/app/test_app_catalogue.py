"""The chat's "What you can ask": every capability the servers offer, by server, in plain words
with a request to try (the admin's, when the servers file gives one), and an answer that says
plainly when nothing configured can do what was asked.

The real app script through AppTest, against real bundled servers over stdio."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.web.catalogue_panel import LABEL
from gatehouse.web.literal import markdown_literal, name_literal
from gatehouse.web.page import services
from tests.in_process_servers import serve_bundled_in_process
from tests.support import bundled_server_entry

APP = Path(__file__).resolve().parents[2] / "app.py"
NOTES = {
    "update_ticket": {
        "examples": ["Close ticket 7: the printer works again"],
        "aliases": ["change a ticket", "triage a ticket"],
    }
}


@pytest.fixture(scope="module")
def chat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppTest]:
    """One operator's chat page on a filesystem, tickets (with the admin's words for
    update_ticket), prompts and documents server: tools, a template, a prompt and resources.
    The servers run in this process (tests/in_process_servers.py)."""
    root = tmp_path_factory.mktemp("catalogue")
    data = root / "data"
    entries = {
        name: bundled_server_entry(name, data / "demo")
        for name in ("filesystem", "tickets", "prompts", "documents")
    }
    entries["tickets"]["capabilities"] = NOTES
    servers_file = root / "servers.json"
    servers_file.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        serve_bundled_in_process(patch)
        patch.setenv("GATEHOUSE_DATA", str(data))
        patch.setenv("GATEHOUSE_SERVERS", str(servers_file))
        patch.delenv("GATEHOUSE_DB", raising=False)
        patch.delenv("GATEHOUSE_POLICY", raising=False)
        services.clear()
        app = AppTest.from_file(str(APP), default_timeout=60)
        app.run()
        assert not app.exception, app.exception
        yield app
        services().close()
        services.clear()


def catalogue_lines(app: AppTest) -> list[str]:
    (section,) = [expander for expander in app.expander if expander.label == LABEL]
    return [block.value for block in [*section.markdown, *section.caption]]


def test_an_empty_chat_opens_on_what_each_server_offers_in_plain_words(chat: AppTest) -> None:
    (section,) = [expander for expander in chat.expander if expander.label == LABEL]
    lines = catalogue_lines(chat)

    assert [block.value for block in section.markdown if block.value.startswith("**")] == [
        f"**{name_literal(name)}**" for name in ("filesystem", "tickets", "prompts", "documents")
    ]
    # The server's description, cut to its first sentence; a request made from the schema.
    assert (
        f"{name_literal('read_file')} · tool: "
        + markdown_literal("Read the full text of a UTF-8 file in the managed project folder.")
    ) in lines
    assert "Try: " + markdown_literal("Read file with path …") in lines


def test_tools_templates_prompts_and_resources_all_show_with_a_request_each(chat: AppTest) -> None:
    lines = "\n".join(catalogue_lines(chat))

    for kind, name in [
        ("tool", "search_tickets"),
        ("resource template", "ticket"),
        ("prompt", "summarize_tickets"),
        ("resource", "support-handbook"),
    ]:
        assert f"{name_literal(name)} · {markdown_literal(kind)}: " in lines
    assert "Try: " + markdown_literal("Use the summarize tickets prompt") in lines
    assert "Try: " + markdown_literal("Read support-handbook") in lines


def test_the_admins_example_and_other_names_show_instead_of_a_made_up_request(chat: AppTest) -> None:
    lines = catalogue_lines(chat)

    assert (
        "Try: "
        + markdown_literal("Close ticket 7: the printer works again")
        + " · also called "
        + markdown_literal("change a ticket, triage a ticket")
    ) in lines


def test_a_request_nothing_fits_says_so_in_words_and_the_badge_says_what_happened(chat: AppTest) -> None:
    chat.chat_input[0].set_value("Book me a flight to Lisbon next week.").run()
    assert not chat.exception, chat.exception

    answer = "\n".join(str(block.value) for block in chat.text)
    assert ":orange-badge[nothing configured can do that]" in [block.value for block in chat.markdown]
    assert "Nothing configured can do that, so nothing was run. The closest capabilities: 1) " in answer
    assert "points" not in answer and "score" not in answer and "answered without MCP" not in answer
    # With a conversation under way, the catalogue folds away but stays on the page.
    (section,) = [expander for expander in chat.expander if expander.label == LABEL]
    assert section.proto.expanded is False
