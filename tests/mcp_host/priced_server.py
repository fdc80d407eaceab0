"""A stdio MCP server offering one price look-up under the tool name given on its command line:
`python -m tests.mcp_host.priced_server NAME TOOL`. Its description names the server, so which
of two servers answered shows."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer


def build_server(name: str, tool: str) -> MCPServer:
    server = MCPServer(name)

    def lookup(item: str) -> str:
        return f"{name}: {item} costs 1"

    server.add_tool(lookup, name=tool, description=f"Look up a price in {name}'s catalogue.")
    return server


if __name__ == "__main__":
    build_server(sys.argv[1], sys.argv[2]).run("stdio")
