import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from servers.greeter import build_server
from tests.servers.helpers import error_text, structured, text_of

pytestmark = pytest.mark.anyio

REPO_ROOT = Path(__file__).resolve().parents[2]


async def test_greet_says_hello_by_name(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            result = await client.call_tool("greet", {"name": "Ada"})
    assert text_of(result) == "Hello, Ada!"
    assert structured(result) == {"result": "Hello, Ada!"}


async def test_greet_rejects_a_blank_name(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            empty = error_text(await client.call_tool("greet", {"name": ""}))
            spaces = error_text(await client.call_tool("greet", {"name": "   "}))
    assert "name must not be blank" in empty
    assert "name must not be blank" in spaces


@pytest.mark.processes
async def test_greeter_runs_as_a_stdio_subprocess(data_dir: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "servers.greeter", "--data-dir", str(data_dir)],
        cwd=REPO_ROOT,
    )
    with anyio.fail_after(10):
        async with Client(params) as client:
            tools = [tool.name for tool in (await client.list_tools()).tools]
            result = await client.call_tool("greet", {"name": "Grace"})
    assert tools == ["greet"]
    assert text_of(result) == "Hello, Grace!"
