"""A stdio MCP server that reports the environment it was started with (for isolation tests)."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("env-reporter")


@server.tool()
def environment() -> dict[str, str]:
    """Return this process's environment variables."""
    return dict(os.environ)


if __name__ == "__main__":
    server.run("stdio")
