import json
from pathlib import Path

import anyio
import pytest
from mcp import Client, MCPError
from mcp.types import TextResourceContents

from servers.email import build_server
from tests.servers.helpers import error_text, structured

pytestmark = pytest.mark.anyio


def outbox_lines(data_dir: Path) -> list[str]:
    outbox = data_dir / "outbox.jsonl"
    return outbox.read_text(encoding="utf-8").splitlines() if outbox.exists() else []


async def test_send_email_queues_one_outbox_line_and_delivers_nothing(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            result = structured(
                await client.call_tool(
                    "send_email",
                    {
                        "to": "ada@example.com",
                        "subject": "Hi",
                        "body": "Hello there",
                        "cc": ["bob@example.org"],
                    },
                )
            )
    [line] = outbox_lines(data_dir)
    message = json.loads(line)
    assert result == {"queued": True, "id": message["id"], "to": "ada@example.com"}
    assert set(message) == {"id", "to", "cc", "subject", "body", "queued_at"}
    assert message["to"] == "ada@example.com"
    assert message["cc"] == ["bob@example.org"]
    assert (message["subject"], message["body"]) == ("Hi", "Hello there")


async def test_send_email_defaults_the_subject_and_cc(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            structured(await client.call_tool("send_email", {"to": "ada@example.com", "body": "Hi"}))
    [line] = outbox_lines(data_dir)
    message = json.loads(line)
    assert message["subject"] == "(no subject)"
    assert message["cc"] == []


async def test_each_send_appends_exactly_one_line(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            ids = [
                structured(
                    await client.call_tool(
                        "send_email", {"to": "ada@example.com", "body": f"multi\nline {n}"}
                    )
                )["id"]
                for n in range(3)
            ]
    lines = outbox_lines(data_dir)
    assert len(lines) == 3
    assert [json.loads(line)["id"] for line in lines] == ids
    assert len(set(ids)) == 3


async def test_send_email_rejects_an_invalid_recipient(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            bad_to = error_text(await client.call_tool("send_email", {"to": "not-an-address", "body": "x"}))
            bad_cc = error_text(
                await client.call_tool("send_email", {"to": "ada@example.com", "body": "x", "cc": ["bob@"]})
            )
            spaced = error_text(await client.call_tool("send_email", {"to": "a b@example.com", "body": "x"}))
    assert "invalid e-mail address in to: 'not-an-address'" in bad_to
    assert "invalid e-mail address in cc: 'bob@'" in bad_cc
    assert "a b@example.com" in spaced
    assert outbox_lines(data_dir) == []


async def test_send_email_is_described_honestly_as_a_demo(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            [tool] = (await client.list_tools()).tools
    assert tool.name == "send_email"
    assert (
        tool.description == "Send an e-mail message (demo: appended to a local outbox file, never delivered)."
    )
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is False
    assert tool.annotations.idempotent_hint is False
    assert tool.input_schema["required"] == ["to", "body"]


async def test_a_sent_message_reads_back_by_the_id_its_send_returned(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            templates = (await client.list_resource_templates()).resource_templates
            sent = structured(
                await client.call_tool(
                    "send_email",
                    {"to": "ada@example.com", "subject": "Hi", "body": "Zoë says hello", "cc": []},
                )
            )
            other = structured(await client.call_tool("send_email", {"to": "bob@example.org", "body": "x"}))
            result = await client.read_resource(f"mail://sent/{sent['id']}")
    assert [(t.uri_template, t.mime_type) for t in templates] == [("mail://sent/{id}", "application/json")]
    assert other["id"] != sent["id"]
    [content] = result.contents
    assert isinstance(content, TextResourceContents)
    assert content.mime_type == "application/json"
    assert json.loads(content.text) == json.loads(outbox_lines(data_dir)[0])
    assert json.loads(content.text)["body"] == "Zoë says hello"


async def test_a_message_id_never_sent_is_not_found(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            with pytest.raises(MCPError, match="no such message: 0123abc"):
                await client.read_resource("mail://sent/0123abc")
            structured(await client.call_tool("send_email", {"to": "ada@example.com", "body": "Hi"}))
            with pytest.raises(MCPError, match="no such message: 0123abc"):
                await client.read_resource("mail://sent/0123abc")
