import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError
from mcp.types import TextResourceContents

from servers.tickets import SEED_TICKETS, build_server, encode_cursor
from tests.servers.helpers import error_text, structured

pytestmark = pytest.mark.anyio


async def walk_pages(client: Client, **arguments: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Follow next_cursor to the end; return every ticket and every page."""
    tickets: list[dict[str, Any]] = []
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        call = dict(arguments) if cursor is None else {**arguments, "cursor": cursor}
        page = structured(await client.call_tool("search_tickets", call))
        pages.append(page)
        tickets.extend(page["tickets"])
        cursor = page["next_cursor"]
        if cursor is None:
            return tickets, pages
        assert len(pages) < 100, "pagination never ended"


def test_seed_data_has_forty_tickets_with_five_high_and_open() -> None:
    combos = Counter((priority, status) for priority, status, *_ in SEED_TICKETS)
    assert len(SEED_TICKETS) == 40
    assert combos["high", "open"] == 5
    assert combos["high", "closed"] >= 2
    assert {priority for priority, _ in combos} == {"low", "medium", "high", "urgent"}
    assert {status for _, status in combos} == {"open", "pending", "closed"}


async def test_search_tickets_finds_the_five_high_priority_open_tickets(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            page = structured(
                await client.call_tool("search_tickets", {"priority": "high", "status": "open"})
            )
    assert page["total"] == 5
    assert page["next_cursor"] is None
    assert [ticket["id"] for ticket in page["tickets"]] == [1, 6, 10, 17, 24]
    assert all(t["priority"] == "high" and t["status"] == "open" for t in page["tickets"])
    assert set(page["tickets"][0]) == {
        "id", "title", "description", "priority", "status", "customer", "created", "updated", "notes"
    }  # fmt: skip


async def test_search_tickets_without_filters_returns_the_first_twenty(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            page = structured(await client.call_tool("search_tickets", {}))
    assert page["total"] == 40
    assert [ticket["id"] for ticket in page["tickets"]] == list(range(1, 21))
    assert page["next_cursor"] is not None


async def test_pagination_walks_all_pages_and_ends_with_no_cursor(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            tickets, pages = await walk_pages(client, limit=7)
    assert [ticket["id"] for ticket in tickets] == list(range(1, 41))
    assert [len(page["tickets"]) for page in pages] == [7, 7, 7, 7, 7, 5]
    assert all(page["total"] == 40 for page in pages)
    assert pages[-1]["next_cursor"] is None


async def test_pagination_keeps_the_filters_across_pages(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            tickets, pages = await walk_pages(client, priority="high", status="open", limit=2)
    assert [ticket["id"] for ticket in tickets] == [1, 6, 10, 17, 24]
    assert len(pages) == 3


async def test_search_tickets_enforces_limit_bounds(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            too_small = error_text(await client.call_tool("search_tickets", {"limit": 0}))
            too_big = error_text(await client.call_tool("search_tickets", {"limit": 51}))
            smallest = structured(await client.call_tool("search_tickets", {"limit": 1}))
            largest = structured(await client.call_tool("search_tickets", {"limit": 50}))
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert "limit" in too_small and "limit" in too_big
    assert len(smallest["tickets"]) == 1
    assert len(largest["tickets"]) == 40 and largest["next_cursor"] is None
    limit_schema = tools["search_tickets"].input_schema["properties"]["limit"]
    assert (limit_schema["minimum"], limit_schema["maximum"], limit_schema["default"]) == (1, 50, 20)


async def test_search_tickets_rejects_an_invalid_cursor(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            garbage = error_text(await client.call_tool("search_tickets", {"cursor": "not-a-cursor!"}))
            not_json = error_text(await client.call_tool("search_tickets", {"cursor": "aGVsbG8"}))
            forged = error_text(
                await client.call_tool("search_tickets", {"cursor": encode_cursor(2**63, None, None)})
            )
            negative = error_text(
                await client.call_tool("search_tickets", {"cursor": encode_cursor(-1, None, None)})
            )
    assert "invalid cursor" in garbage and "not-a-cursor!" in garbage
    assert "invalid cursor" in not_json
    assert "invalid cursor" in forged
    assert "invalid cursor" in negative


async def test_search_tickets_rejects_a_cursor_from_a_different_search(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            first = structured(await client.call_tool("search_tickets", {"status": "closed", "limit": 2}))
            reused = error_text(
                await client.call_tool("search_tickets", {"status": "open", "cursor": first["next_cursor"]})
            )
    assert "other filters" in reused


async def test_search_tickets_past_the_end_returns_an_empty_last_page(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            page = structured(
                await client.call_tool("search_tickets", {"cursor": encode_cursor(40, None, None)})
            )
    assert page == {"tickets": [], "total": 40, "next_cursor": None}


async def test_update_ticket_changes_status_and_records_a_note(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            updated = structured(
                await client.call_tool(
                    "update_ticket", {"id": 1, "status": "closed", "note": "Reset the account."}
                )
            )
            still_open = structured(
                await client.call_tool("search_tickets", {"priority": "high", "status": "open"})
            )
    assert updated["id"] == 1
    assert updated["status"] == "closed"
    assert updated["priority"] == "high"
    assert updated["notes"] == ["Reset the account."]
    assert updated["updated"] is not None
    assert still_open["total"] == 4


async def test_update_ticket_changes_priority_only(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            updated = structured(await client.call_tool("update_ticket", {"id": 2, "priority": "urgent"}))
    assert (updated["priority"], updated["status"], updated["notes"]) == ("urgent", "open", [])


async def test_update_ticket_rejects_an_unknown_ticket(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            message = error_text(await client.call_tool("update_ticket", {"id": 999, "status": "closed"}))
    assert "no such ticket: 999" in message


async def test_update_ticket_rejects_a_call_with_nothing_to_change(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            nothing = error_text(await client.call_tool("update_ticket", {"id": 1}))
            blank_note = error_text(await client.call_tool("update_ticket", {"id": 1, "note": "   "}))
    assert "nothing to change" in nothing
    assert "nothing to change" in blank_note


async def test_update_ticket_rejects_an_unknown_status(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            message = error_text(await client.call_tool("update_ticket", {"id": 1, "status": "solved"}))
    assert "status" in message


async def test_list_all_tickets_takes_no_parameters_and_returns_everything(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            everything = structured(await client.call_tool("list_all_tickets", {}))
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert everything["total"] == 40
    assert [ticket["id"] for ticket in everything["tickets"]] == list(range(1, 41))
    legacy = tools["list_all_tickets"]
    assert legacy.description == "Legacy: return every ticket with no filters or paging."
    assert not legacy.input_schema.get("properties")


async def test_ticket_tools_declare_accurate_annotations(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"search_tickets", "update_ticket", "list_all_tickets"}
    for name in ("search_tickets", "list_all_tickets"):
        annotations = tools[name].annotations
        assert annotations is not None and annotations.read_only_hint is True
    update = tools["update_ticket"].annotations
    assert update is not None
    assert (update.read_only_hint, update.destructive_hint, update.idempotent_hint) == (False, True, False)
    assert all(tool.output_schema is not None for tool in tools.values())


async def test_ticket_template_reads_ticket_one_as_json(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            templates = (await client.list_resource_templates()).resource_templates
            result = await client.read_resource("ticket://1")
    assert [(t.uri_template, t.mime_type) for t in templates] == [("ticket://{id}", "application/json")]
    [content] = result.contents
    assert isinstance(content, TextResourceContents)
    assert content.mime_type == "application/json"
    ticket = json.loads(content.text)
    assert ticket["id"] == 1
    assert ticket["title"] == "Cannot log in after password reset"


async def test_ticket_template_rejects_an_unknown_or_malformed_id(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            with pytest.raises(MCPError, match="no such ticket: 999"):
                await client.read_resource("ticket://999")
            with pytest.raises(MCPError, match="whole number"):
                await client.read_resource("ticket://abc")


def test_seeding_is_idempotent_and_keeps_user_changes(data_dir: Path) -> None:
    build_server(data_dir)
    db = data_dir / "tickets.db"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE tickets SET status = 'closed' WHERE id = 1")
        conn.execute("DELETE FROM tickets WHERE id = 40")
    conn.close()

    build_server(data_dir)
    build_server(data_dir)

    with sqlite3.connect(db) as conn:
        count = conn.execute("SELECT COUNT(*) FROM tickets").fetchone()[0]
        status = conn.execute("SELECT status FROM tickets WHERE id = 1").fetchone()[0]
    conn.close()
    assert (count, status) == (39, "closed")


async def test_two_servers_share_one_database_file(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as writer, Client(build_server(data_dir)) as reader:
            await writer.call_tool("update_ticket", {"id": 3, "note": "Seen by the writer."})
            ticket = structured(await reader.call_tool("list_all_tickets", {}))["tickets"][2]
    assert ticket["notes"] == ["Seen by the writer."]
