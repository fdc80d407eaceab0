"""One MCP client's ``resources/read`` or ``prompts/get``, from its URI or key to the MCP result,
synchronously (the server runs it on a worker thread).

Each goes through the same graph and policy as a tool call (``RequestService.call``, on a
thread of its own, the client's arguments taken as stated): a template's values come from the
URI, a prompt's are checked against its arguments first, as calls.py checks a tool's. Neither
method has a result that can be an error, so everything but the contents is a JSON-RPC error:

- no such resource or prompt, or arguments it does not take: ``-32602`` (Invalid params, as
  the SDK's own server answers an unknown resource);
- refused by the policy, or by the roster: ``REFUSED`` (-32003), naming the rule and its reason;
- waiting for a reviewer (or its output held for one): ``NEEDS_REVIEW`` (-32004), naming the
  review, with its id in ``data``;
- failed (the server's error, a capability nothing can use): ``-32603`` with the reason.

The two codes of Gatehouse's own are in the JSON-RPC band for implementation-defined server
errors that MCP leaves to implementations (-32000..-32019; the SDK uses -32000 and -32001).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from gatehouse.gateway.resource_uris import resolved
from mcp_host.convert import prompt_role
from policies.constraints import schema_flags
from reviews.errors import NotAllowedError

if TYPE_CHECKING:
    from gatehouse.wiring import Services
    from graph.runner import RunOutcome
    from graph.state import ContentItemData, McpResultData

REFUSED = -32003
NEEDS_REVIEW = -32004

# What happens once a reviewer decides, by the stage the review was opened at.
_AFTER_REVIEW = {
    "before_execution": "When a reviewer approves it, Gatehouse runs it once itself",
    "untrusted_output": "It ran; its result is held until a reviewer releases it",
    "after_failure": "It failed in a way a person must look at before anything is tried again",
}


def answer_read(
    services: Services, uri: str, *, requester: str, client: str | None = None
) -> types.ReadResourceResult:
    """The contents of the resource ``uri`` names (one of the endpoint's own URIs), as the
    policy lets ``requester`` read it; raises MCPError otherwise."""
    found = resolved(uri, services.requests.offered())
    if found is None:
        raise MCPError(
            types.INVALID_PARAMS,
            f"No configured server offers the resource {uri} now (list them again).",
            {"uri": uri},
        )
    capability, arguments = found
    result = _result(_run(services, capability.key, arguments, requester, client), requester)
    read = result["name"]
    return types.ReadResourceResult(
        contents=[
            _resource_contents(item, uri if item["uri"] in {None, read} else item["uri"])
            for item in result["content"]
        ]
    )


def answer_prompt(
    services: Services, key: str, arguments: dict[str, str], *, requester: str, client: str | None = None
) -> types.GetPromptResult:
    """The messages of the prompt ``key`` with ``arguments``, as the policy lets ``requester``
    get it; raises MCPError otherwise."""
    capability = services.requests.offered().find(key)
    if capability is None or capability.type != "prompt":
        raise MCPError(
            types.INVALID_PARAMS, f"No configured server offers the prompt {key} now (list them again)."
        )
    problems = [
        f"required argument '{name}' is missing"
        for name in capability.required_arguments
        if name not in arguments
    ]
    # A prompt's arguments are all it takes (its schema is built from them, mcp_host/discovery.py).
    problems += [f"it takes no argument '{name}'" for name in arguments if name not in capability.properties]
    problems += [flag.message for flag in schema_flags(capability, dict(arguments))]
    if problems:
        raise MCPError(types.INVALID_PARAMS, f"{key} was not asked for: " + "; ".join(problems))
    result = _result(_run(services, key, dict(arguments), requester, client), requester)
    structured = result["structured"] or {}
    description = structured.get("description")
    return types.GetPromptResult(
        description=str(description) if description else None,
        messages=[_message(item) for item in result["content"]],
    )


def _run(
    services: Services, key: str, arguments: dict[str, Any], requester: str, client: str | None
) -> RunOutcome:
    try:
        run = services.requests.call(key, arguments, requester=requester, client=client)
    except NotAllowedError as exc:
        raise MCPError(REFUSED, str(exc)) from exc
    if run.pending is not None and run.pending["stage"] == "clarification":
        # Nobody answers a client's thread (calls.py says so for tools): withdrawn, not left waiting.
        services.reviews.withdraw(run.final_output.thread_id, by=requester)
        raise MCPError(types.INVALID_PARAMS, run.final_output.response.strip())
    return run


def waiting_error(run: RunOutcome, requester: str) -> MCPError:
    """The answer to a read that waits for a reviewer: at once, naming the review. The one
    place to change for a read that waits for the decision instead."""
    pending = run.pending
    assert pending is not None
    then = _AFTER_REVIEW.get(pending["stage"], _AFTER_REVIEW["before_execution"])
    return MCPError(
        NEEDS_REVIEW,
        f"{run.final_output.response.strip()}\n"
        f"Review {pending['review_id']} waits on Gatehouse's Reviews page (requested by {requester}). "
        f"{then}; this endpoint does not wait for the decision yet. Asking again opens a new review "
        "(unless a grant a reviewer made covers it).",
        {"review_id": pending["review_id"], "stage": pending["stage"]},
    )


def _result(run: RunOutcome, requester: str) -> McpResultData:
    """The server's result of a run that was allowed and succeeded; raises MCPError otherwise."""
    if run.pending is not None:
        raise waiting_error(run, requester)
    validation = run.state.get("capability_validation") or {}
    if validation.get("decision") == "deny":
        rule = validation.get("matched_rule")
        raise MCPError(
            REFUSED,
            f"Refused by Gatehouse's policy (rule {rule}): {validation.get('explanation')}",
            {"rule": rule},
        )
    result: McpResultData | None = run.state.get("mcp_result")
    if run.final_output.status == "ok" and result is not None and result["success"]:
        return result
    reasons = [run.final_output.response.strip(), *run.final_output.errors]
    raise MCPError(types.INTERNAL_ERROR, "\n".join(dict.fromkeys(r for r in reasons if r)))


def _not_passed_on(item: ContentItemData) -> str:
    what = " ".join(str(part) for part in (item["type"], item["mime_type"], item["uri"]) if part)
    return f"[{what}, {item['size']} bytes: not passed on by Gatehouse's endpoint yet]"


def _resource_contents(item: ContentItemData, uri: str) -> types.TextResourceContents:
    if item["text"] is not None:
        return types.TextResourceContents(uri=uri, mime_type=item["mime_type"], text=item["text"])
    # The host keeps a blob's size, not its bytes (mcp_host/convert.py).
    return types.TextResourceContents(uri=uri, mime_type="text/plain", text=_not_passed_on(item))


def _message(item: ContentItemData) -> types.PromptMessage:
    if item["text"] is None:
        return types.PromptMessage(
            role="user", content=types.TextContent(type="text", text=_not_passed_on(item))
        )
    role, text = prompt_role(item["text"])
    content: types.TextContent | types.EmbeddedResource = types.TextContent(type="text", text=text)
    if item["type"] == "resource" and item["uri"]:
        resource = types.TextResourceContents(uri=item["uri"], mime_type=item["mime_type"], text=text)
        content = types.EmbeddedResource(type="resource", resource=resource)
    return types.PromptMessage(role=role or "user", content=content)
