"""A stdio server whose results repeat what it was given, and hand out a secret of its own.

``find_words`` answers with the words of its text, one by one: a secret the operator wrote as
"my token is ..." comes back as a bare word, with no name that says it is one.
``open_vault`` answers with an access token under a secret-like key in its structured content,
and the same token, unnamed, in its text.

Run: ``python -m tests.adversarial.echo_server``.
"""

from __future__ import annotations

import hashlib

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations

server = MCPServer("notes")
_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def vault_token(name: str) -> str:
    """The token open_vault hands out for ``name`` (a test computes it too)."""
    return "vt" + hashlib.sha256(name.encode()).hexdigest()[:30]


@server.tool(description="Find the notes that hold the words of a text.", annotations=_READ_ONLY)
def find_words(text: str) -> str:
    return "No note holds any of these words: " + ", ".join(text.split())


@server.tool(description="Read the access details of a vault by its name.", annotations=_READ_ONLY)
def open_vault(name: str) -> CallToolResult:
    token = vault_token(name)
    return CallToolResult(
        content=[TextContent(type="text", text=f"Vault {name} is open. Use {token} for the next step.")],
        structured_content={"vault": name, "access_token": token},
    )


if __name__ == "__main__":
    server.run("stdio")
