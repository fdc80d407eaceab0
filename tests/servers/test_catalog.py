from pathlib import Path

import anyio
import pytest
from mcp import Client

from servers.catalog import BUNDLED_SERVERS, build_all

EXPECTED = {"filesystem", "tickets", "email", "greeter", "prompts", "documents"}


def test_catalog_lists_all_six_bundled_servers() -> None:
    assert set(BUNDLED_SERVERS) == EXPECTED


def test_build_all_builds_every_server_under_one_data_folder(data_dir: Path) -> None:
    servers = build_all(data_dir)
    assert set(servers) == EXPECTED
    assert {name: server.name for name, server in servers.items()} == {name: name for name in EXPECTED}
    assert (data_dir / "project" / "sample.txt").is_file()
    assert (data_dir / "tickets.db").is_file()


def test_build_all_twice_is_harmless(data_dir: Path) -> None:
    build_all(data_dir)
    (data_dir / "project" / "notes.md").write_text("mine\n")
    build_all(data_dir)
    assert (data_dir / "project" / "notes.md").read_text() == "mine\n"


@pytest.mark.anyio
async def test_every_bundled_tool_has_a_description_annotations_and_an_output_schema(data_dir: Path) -> None:
    with anyio.fail_after(10):
        for name, server in build_all(data_dir).items():
            async with Client(server) as client:
                for tool in (await client.list_tools()).tools:
                    where = f"{name}.{tool.name}"
                    assert tool.description and "\n" not in tool.description, where
                    assert tool.annotations is not None, where
                    assert tool.annotations.read_only_hint is not None, where
                    assert tool.annotations.open_world_hint is not None, where
                    assert tool.output_schema is not None, where
                    for parameter, schema in tool.input_schema.get("properties", {}).items():
                        assert schema.get("description"), f"{where}({parameter})"
