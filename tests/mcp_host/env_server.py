"""A stdio MCP server for pool tests: reports its environment, or takes its time answering."""

from __future__ import annotations

import os

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("env-reporter")


@server.tool()
def environment() -> dict[str, str]:
    """Return this process's environment variables."""
    return dict(os.environ)


@server.tool()
async def nap(seconds: float) -> str:
    """Answer after the given number of seconds."""
    await anyio.sleep(seconds)
    return "rested"


if __name__ == "__main__":
    server.run("stdio")
