"""The client command the official MCP conformance suite drives: Gatehouse's own host, not the
raw SDK.

The suite starts a test server per scenario and runs ``python -m conformance.client URL`` with
the scenario in ``MCP_CONFORMANCE_SCENARIO`` (auth scenarios add ``MCP_CONFORMANCE_CONTEXT``).
This command does what Gatehouse does with a configured remote server: a servers file entry
of type ``http`` (mcp_host/config.py), the session pool (mcp_host/sdk_client.py), discovery,
and a call of every tool the server offers, with arguments built from each tool's schema. A
server's question during a call is answered with the form's defaults (SEP-1034), as a
person who accepts the form as shown would.

Two scenarios of the pre-release (2026-07-28) ask for particular calls instead: one hands the
calls to make in the context (``toolCalls``: tool names and arguments, to see how the values
travel as ``Mcp-Param-*`` headers, SEP-2243), and ``json-schema-2020-12-preservation`` asks for
one tool's input schema back through an echo tool, to see what the host kept of it (SEP-1613).
The schema sent back is the one in Gatehouse's manifest, so the scenario judges the host.

Signing in goes through mcp_host/oauth.py like any remote server's. What the suite hands over
in ``MCP_CONFORMANCE_CONTEXT`` (a pre-registered client, a private key, an identity provider's
token) becomes the entry's ``oauth`` object, exactly what an operator would write, with the
secrets passed as ``${VAR}`` references. The person who signs in is a headless authorizer: it
opens the authorization URL without following the redirect and reads the code from it, as the
suite's authorization server approves every request at once.

Exit status: 0 when every step worked, 1 otherwise (the suite judges the protocol; the exit
status only helps reading its logs).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.shared.auth import AuthorizationCodeResult
from mcp.types import ElicitRequestFormParams, ElicitRequestParams, ElicitResult

from mcp_host.config import parse_servers_config
from mcp_host.elicitation import form_defaults
from mcp_host.manifest import Capability
from mcp_host.oauth import MemoryCredentialStore, SignIn
from mcp_host.sdk_client import SdkMcpClient

SERVER = "conformance"
# The Client ID Metadata Document URL the suite expects a client to present (SEP-991).
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
REDIRECT_URI = "http://127.0.0.1:33418/callback"
# json-schema-2020-12-preservation: the tool whose schema is judged, and the tool to echo it.
SCHEMA_SCENARIO = "json-schema-2020-12-preservation"
SCHEMA_TOOL = "json_schema_2020_12_tool"
SCHEMA_ECHO_TOOL = "json_schema_echo"

ToolCall = tuple[str, dict[str, Any]]


class HeadlessAuthorizer:
    """A person who approves at once: the suite's authorization server redirects straight back."""

    redirect_uri = REDIRECT_URI

    async def authorize(self, server: str, authorization_url: str) -> AuthorizationCodeResult:
        async with httpx2.AsyncClient(follow_redirects=False, timeout=20.0) as http:
            response = await http.get(authorization_url)
        location = response.headers.get("location")
        if location is None:
            raise RuntimeError(
                f"the authorization endpoint answered HTTP {response.status_code}, not a redirect"
            )
        query = {key: values[0] for key, values in parse_qs(urlsplit(location).query).items()}
        if "code" not in query:
            raise RuntimeError(f"the redirect carries no code: {query.get('error', 'no error either')}")
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


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


def planned_calls(scenario: str, context: dict[str, Any], tools: dict[str, Capability]) -> list[ToolCall]:
    """The tool calls to make, in order: the ones the scenario asks for, or else every tool
    once with sample arguments."""
    if scenario == SCHEMA_SCENARIO and SCHEMA_TOOL in tools:
        # The schema as the host holds it: whatever discovery dropped is missing from the echo.
        return [(SCHEMA_ECHO_TOOL, {"schema": tools[SCHEMA_TOOL].input_schema})]
    scripted = context.get("toolCalls")
    if isinstance(scripted, list) and scripted:
        return [(str(call["name"]), dict(call.get("arguments") or {})) for call in scripted]
    return [(name, sample_arguments(capability)) for name, capability in tools.items()]


def exercise(pool: SdkMcpClient, scenario: str, context: dict[str, Any]) -> int:
    """Discover the server and make the scenario's calls; the number of steps that failed."""
    failures = 0
    manifest = pool.discover()
    for problem in manifest.problems():
        print(f"discovery: {problem}", file=sys.stderr)
        failures += 1
    tools = {c.name: c for c in manifest.capabilities() if c.type == "tool" and c.server == SERVER}
    for name, arguments in planned_calls(scenario, context, tools):
        if name not in tools:
            # Not offered, or set aside by discovery (an invalid x-mcp-header, say): never called.
            print(f"call {name}: not in the manifest", file=sys.stderr)
            failures += 1
            continue
        result = pool.call_tool(SERVER, name, arguments)
        status = "ok" if result.success else f"failed: {result.error}"
        print(f"call {name}: {status}", file=sys.stderr)
        failures += 0 if result.success else 1
    return failures


def oauth_entry(scenario: str, context: dict[str, Any], url: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The entry's ``oauth`` object for what the suite handed over, and the variables its
    ``${VAR}`` references name."""
    oauth: dict[str, Any] = {"clientMetadataUrl": CLIENT_METADATA_URL}
    secrets: dict[str, str] = {}
    if "client_id" in context:
        oauth = {"clientId": context["client_id"]}
    if "client_secret" in context:
        secrets["CONFORMANCE_CLIENT_SECRET"] = context["client_secret"]
        oauth["clientSecret"] = "${CONFORMANCE_CLIENT_SECRET}"
    if "private_key_pem" in context:
        secrets["CONFORMANCE_PRIVATE_KEY"] = context["private_key_pem"]
        oauth["privateKey"] = "${CONFORMANCE_PRIVATE_KEY}"
        oauth["signingAlgorithm"] = context.get("signing_algorithm", "RS256")
        oauth["tokenEndpointAuthMethod"] = "private_key_jwt"
    if scenario.startswith("auth/client-credentials"):
        oauth["grant"] = "client_credentials"
    if "idp_token_endpoint" in context:
        secrets["CONFORMANCE_ID_TOKEN"] = context["idp_id_token"]
        oauth["grant"] = "jwt_bearer"
        # The operator reads the authorization server off the server's protected-resource
        # metadata once and writes it down: cross-app access never lets the server choose.
        oauth["issuer"] = authorization_server_of(url)
        oauth["idp"] = {
            "tokenEndpoint": context["idp_token_endpoint"],
            "clientId": context["idp_client_id"],
            "idToken": "${CONFORMANCE_ID_TOKEN}",
        }
    return oauth, secrets


def authorization_server_of(url: str) -> str:
    parts = urlsplit(url)
    metadata = f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path}"
    response = httpx2.get(metadata, timeout=20.0)
    response.raise_for_status()
    servers = response.json().get("authorization_servers") or []
    if not servers:
        raise RuntimeError(f"{metadata} names no authorization server")
    return str(servers[0])


def servers_file(url: str, oauth: dict[str, Any]) -> dict[str, Any]:
    """The servers file an operator would write for this server."""
    return {"mcpServers": {SERVER: {"type": "http", "url": url, "oauth": oauth}}}


def run(url: str, scenario: str, context: dict[str, Any]) -> int:
    oauth, secrets = oauth_entry(scenario, context, url)
    config = parse_servers_config(
        servers_file(url, oauth),
        source=f"conformance scenario {scenario or '?'}",
        environ={**os.environ, **secrets},
    )
    pool = SdkMcpClient(
        {entry.name: entry for entry in config.servers},
        connect_timeout=20,
        elicitation=accept_defaults,
        sign_in=SignIn(store=MemoryCredentialStore(), authorizer=HeadlessAuthorizer()),
    )
    try:
        failures = exercise(pool, scenario, context)
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
