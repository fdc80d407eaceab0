"""Demo prompts server: a reusable prompt template for summarising support tickets."""

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer, UserMessage
from pydantic import Field

from servers._common import SERVER_VERSION, run_stdio


def build_server(data_dir: Path) -> MCPServer:
    # Prompts are pure templates with no data; data_dir keeps the build signature uniform.
    del data_dir
    server = MCPServer(
        name="prompts", version=SERVER_VERSION, instructions="Prompt templates for support work."
    )

    @server.prompt(
        title="Summarize tickets",
        description="Prompt template: summarize support tickets filtered by priority and status.",
    )
    def summarize_tickets(
        priority: Annotated[
            str, Field(description="Ticket priority to include: low, medium, high or urgent.")
        ] = "high",
        status: Annotated[
            str, Field(description="Ticket status to include: open, pending or closed.")
        ] = "open",
    ) -> list[UserMessage]:
        return [
            UserMessage(
                f"Summarize the support tickets with priority '{priority}' and status '{status}'. "
                f"Find them with the search_tickets tool (priority={priority!r}, status={status!r}), "
                "following next_cursor until every page is read. "
                "For each ticket give its id, customer and a one-sentence summary of the problem, "
                "then end with the themes they have in common and which ticket to handle first."
            )
        ]

    return server


def main(argv: Sequence[str] | None = None) -> None:
    run_stdio(build_server, argv, description="Gatehouse demo prompts MCP server (stdio).")


if __name__ == "__main__":
    main()
