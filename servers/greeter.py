"""Demo greeter server: the smallest useful MCP server, handy for smoke tests."""

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from servers._common import SERVER_VERSION, run_stdio


def build_server(data_dir: Path) -> MCPServer:
    # The greeter keeps no data; data_dir is accepted so every bundled server builds the same way.
    del data_dir
    server = MCPServer(name="greeter", version=SERVER_VERSION, instructions="Greet someone by name.")

    @server.tool(
        annotations=ToolAnnotations(
            title="Greet",
            read_only_hint=True,
            idempotent_hint=True,
            open_world_hint=False,
        )
    )
    def greet(name: Annotated[str, Field(description="Name of the person to greet.")]) -> str:
        """Greet a person by name and return the greeting text."""
        cleaned = name.strip()
        if not cleaned:
            raise ToolError("name must not be blank")
        return f"Hello, {cleaned}!"

    return server


def main(argv: Sequence[str] | None = None) -> None:
    run_stdio(build_server, argv, description="Gatehouse demo greeter MCP server (stdio).")


if __name__ == "__main__":
    main()
