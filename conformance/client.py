"""The client command the official MCP conformance suite drives: Gatehouse's own host, not the
raw SDK.

The suite starts a test server per scenario and runs ``python -m conformance.client URL`` with
the scenario in ``MCP_CONFORMANCE_SCENARIO`` (auth scenarios add ``MCP_CONFORMANCE_CONTEXT``).
This command does what Gatehouse does with a configured remote server: a servers file entry
of type ``http`` (mcp_host/config.py), the session pool (mcp_host/sdk_client.py), discovery,
and a call of every tool the server offers, with arguments built from each tool's schema. A
server's question during a call is answered with the form's defaults (SEP-1034), as a
person who accepts the form as shown would.

Exit status: 0 when every step worked, 1 otherwise (the suite judges the protocol; the exit
status only helps reading its logs).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from mcp.types import ElicitRequestFormParams, ElicitRequestParams, ElicitResult

from mcp_host.config import parse_servers_config
from mcp_host.elicitation import form_defaults
from mcp_host.manifest import Capability
from mcp_host.sdk_client import SdkMcpClient

SERVER = "conformance"


async def accept_defaults(server: str, request: ElicitRequestParams) -> ElicitResult:
    """A person who accepts a form as it is shown: every default filled in."""
    if isinstance(request, ElicitRequestFormParams):
        return ElicitResult(action="accept", content=form_defaults(request.requested_schema))
    return ElicitResult(action="decline")


def sample_arguments(capability: Capability) -> dict[str, Any]:
    """Values of each required property's type: numbers 1, 2, ...; strings "test"; flags on."""
    arguments: dict[str, Any] = {}
    for index, name in enumerate(capability.required_arguments, start=1):
        schema = capability.properties.get(name) or {}
        kind = schema.get("type") if isinstance(schema, dict) else None
        if kind in {"number", "integer"}:
            arguments[name] = index
        elif kind == "boolean":
            arguments[name] = True
        elif kind == "array":
            arguments[name] = []
        elif kind == "object":
            arguments[name] = {}
        else:
            arguments[name] = "test"
    return arguments


def servers_file(url: str) -> dict[str, Any]:
    """The servers file an operator would write for this server."""
    return {"mcpServers": {SERVER: {"type": "http", "url": url}}}


def run(url: str, scenario: str, context: dict[str, Any]) -> int:
    config = parse_servers_config(servers_file(url), source=f"conformance scenario {scenario or '?'}")
    pool = SdkMcpClient(
        {entry.name: entry for entry in config.servers}, connect_timeout=20, elicitation=accept_defaults
    )
    failures = 0
    try:
        manifest = pool.discover()
        for problem in manifest.problems():
            print(f"discovery: {problem}", file=sys.stderr)
            failures += 1
        for capability in manifest.capabilities():
            if capability.type != "tool":
                continue
            result = pool.call_tool(SERVER, capability.name, sample_arguments(capability))
            status = "ok" if result.success else f"failed: {result.error}"
            print(f"call {capability.name}: {status}", file=sys.stderr)
            failures += 0 if result.success else 1
    finally:
        pool.close()
    return 0 if failures == 0 else 1


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m conformance.client SERVER_URL", file=sys.stderr)
        return 2
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    return run(args[-1], os.environ.get("MCP_CONFORMANCE_SCENARIO", ""), context)


if __name__ == "__main__":
    sys.exit(main())
