"""Reading back a record an approved call made or changed: the message a send sent, the ticket
an update changed.

Which read does it is the policy's declaration (``[[effects]]``, policies/model.py
EffectDeclaration): one of the same server's tools (by name) or resource templates (by URI
template), with its arguments or the template's variables bound by ``read_with`` to the
approved call's arguments (``arguments.id``) or to a field of the call's structured result
(``result.id``: the id a send returned). The read runs only when the policy would let it run
without a review (graph/effects.py refused_read), so checking never does something that itself
needs approving; whatever stops it, the answer says why instead of a record.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from graph.effects import refused_read, says_not_found
from mcp_host.errors import McpHostError
from mcp_host.manifest import capability_key
from policies.model import names_resource_template

if TYPE_CHECKING:
    from mcp_host.client import McpClient
    from mcp_host.errors import ErrorKind
    from mcp_host.manifest import Capability, Manifest
    from mcp_host.results import McpResult
    from policies.decision import Policy
    from policies.model import EffectDeclaration

_TEMPLATE_VARIABLE = re.compile(r"\{([^{}]+)\}")
# Failures that are the server's own answer about the record (a tool's error result, a
# JSON-RPC error such as resources/read's "not found"): only these can say it is not there. A
# timeout, an unreachable server or refused credentials say nothing about the record.
_OWN_ANSWERS: frozenset[ErrorKind] = frozenset({"tool_error", "protocol", "invalid_params"})


def field_at(record: Any, dotted: str) -> Any:
    """The value at ``dotted`` ("status", "fields.status.name") in a JSON object; None when
    there is none."""
    value = record
    for part in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def read_values(
    declared: EffectDeclaration, arguments: dict[str, Any], result: McpResult | None
) -> dict[str, Any]:
    """The read's values (``read_with``) that can be bound now: from the approved arguments,
    and from the call's structured result when there is one. A value with no source yet (the
    id a send has not returned before it runs) is left out."""
    sources = {"arguments": arguments, "result": (result.structured if result is not None else None) or {}}
    values: dict[str, Any] = {}
    for name, source in declared.read_with.items():
        origin, _, dotted = source.partition(".")
        value = field_at(sources[origin], dotted)
        if value is not None:
            values[name] = value
    return values


@dataclass(frozen=True)
class ReadRecord:
    """What the declared read says the record is now (``record``), or that it is not there
    (``absent``), or why neither is known (``note``). ``what`` names it as details read it."""

    what: str
    record: dict[str, Any] | None = None
    absent: bool = False
    note: str | None = None


def _declared_read(manifest: Manifest, server: str, read: str) -> Capability | None:
    if not names_resource_template(read):
        found = manifest.find(capability_key(server, read))
        return found if found is not None and found.type == "tool" else None
    offer = manifest.server(server)
    templates = offer.capabilities if offer is not None and offer.ok else []
    return next((c for c in templates if c.type == "resource_template" and c.uri_template == read), None)


def _expand(template: str, values: dict[str, Any]) -> str:
    return _TEMPLATE_VARIABLE.sub(lambda m: quote(str(values[m.group(1)]), safe=""), template)


def _as_record(result: McpResult) -> dict[str, Any] | None:
    """The JSON object a read answered with: its structured content, or its text as JSON."""
    if isinstance(result.structured, dict):
        return result.structured
    text = "".join(item.text or "" for item in result.content if item.type in {"text", "resource"})
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def read_record(
    mcp: McpClient,
    policy: Policy,
    server: str,
    declared: EffectDeclaration,
    arguments: dict[str, Any],
    result: McpResult | None,
) -> ReadRecord:
    """The record an approved call acted on, read now through the first of the declared reads
    that ``server`` offers (see the module)."""
    values = read_values(declared, arguments, result)
    missing = [f"{name} ({declared.read_with[name]})" for name in declared.read_with if name not in values]
    if missing:
        return ReadRecord(what=f"the record on {server}", note=f"no value for {', '.join(missing)}")
    try:
        manifest = mcp.discover(only=[server])
    except McpHostError as exc:
        return ReadRecord(what=f"the record on {server}", note=f"server {server} is not reachable: {exc}")
    found = ((read, _declared_read(manifest, server, read)) for read in declared.read)
    read, reader = next(((r, c) for r, c in found if c is not None), (None, None))
    if read is None or reader is None:
        return ReadRecord(
            what=f"the record on {server}",
            note=f"server {server} offers none of the declared reads ({', '.join(declared.read)})",
        )
    template = reader.type == "resource_template"
    uri = ""
    if template:
        # A URI template's variables are text (its schema says so, and the policy checks it).
        values = {name: str(value) for name, value in values.items()}
        uri = _expand(read, values)
        what = f"{uri} on {server}"
    else:
        shown = ", ".join(f"{name}={value}" for name, value in values.items())
        what = f"{reader.name}({shown}) on {server}"
    refused = refused_read(policy.evaluate(reader, values).decision, reader.key)
    if refused is not None:
        return ReadRecord(what=what, note=refused)
    try:
        answer = mcp.read_resource(server, uri) if template else mcp.call_tool(server, reader.name, values)
    except McpHostError as exc:
        return ReadRecord(what=what, note=f"{reader.key}: {exc}")
    if not answer.success:
        error = answer.error
        message = error.message if error is not None else "failed"
        if error is not None and error.kind in _OWN_ANSWERS and says_not_found(message):
            return ReadRecord(what=what, absent=True)
        return ReadRecord(what=what, note=f"{reader.key}: {message}")
    record = _as_record(answer)
    if record is None:
        return ReadRecord(what=what, note=f"{reader.key} did not answer with a JSON object")
    return ReadRecord(what=what, record=record)
