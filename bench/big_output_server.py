"""A stdio MCP server for the memory figure: one read-only tool whose answer is a 50 MB text.

`python -m bench.big_output_server [--megabytes N]`. The text is built once, at start, so the
call itself only has to serialise and send it."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

DEFAULT_MEGABYTES = 50
LINE = "2024-01-01T00:00:00Z INFO worker-7 processed job 1234567 in 12 ms status=done\n"  # 80 bytes


def log_text(size_bytes: int) -> str:
    """ASCII log lines, exactly ``size_bytes`` long (so UTF-8 bytes == characters)."""
    whole, rest = divmod(size_bytes, len(LINE))
    return LINE * whole + LINE[:rest]


def build_server(size_bytes: int) -> MCPServer:
    server = MCPServer(name="big", version="0.1.0", instructions="Hands out one very large log.")
    text = log_text(size_bytes)

    # structured_output=False: a str result would otherwise also go out as structuredContent
    # ({"result": text}), doubling what is sent.
    @server.tool(
        annotations=ToolAnnotations(
            title="Read log", read_only_hint=True, idempotent_hint=True, open_world_hint=False
        ),
        structured_output=False,
    )
    def read_log(service: Annotated[str, Field(description="Which service's log to read.")] = "web") -> str:
        """Read a service's log as text."""
        del service  # one log serves every name
        return text

    return server


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--megabytes", type=float, default=DEFAULT_MEGABYTES, help="size of the answer (MB, 10**6 bytes)"
    )
    args = parser.parse_args(argv)
    build_server(int(args.megabytes * 1_000_000)).run("stdio")


if __name__ == "__main__":
    main()
