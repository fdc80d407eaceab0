"""One MCP client's call, from its key and arguments to the MCP result, synchronously (the
server runs it on a worker thread).

The arguments are checked against the tool's schema first, with the policy's own check
(policies/constraints.py schema_flags) and its required list: an agent that sent the wrong
arguments is told at once, rather than opening a thread that waits for an operator's answer
nobody will give (a client has no clarification form)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gatehouse.gateway.outcomes import error_result, result_of
from policies.constraints import schema_flags
from reviews.errors import NotAllowedError

if TYPE_CHECKING:
    import mcp_types as types

    from gatehouse.wiring import Services


def answer_call(
    services: Services, key: str, arguments: dict[str, Any], *, requester: str, client: str | None = None
) -> types.CallToolResult:
    capability = services.requests.offered().find(key)
    if capability is None or capability.type != "tool":
        return error_result(f"No configured server offers the tool {key} now (list the tools again).")
    problems = [
        f"required argument '{name}' is missing"
        for name in capability.required_arguments
        if name not in arguments
    ]
    problems += [flag.message for flag in schema_flags(capability, arguments)]
    if problems:
        return error_result(f"{key} was not called: " + "; ".join(problems))
    try:
        run = services.requests.call(key, arguments, requester=requester, client=client)
    except NotAllowedError as exc:
        return error_result(str(exc))
    if run.pending is not None and run.pending["stage"] == "clarification":
        # Not reached with the check above unless the policy asks something more: nobody
        # answers a client's thread, so it is withdrawn rather than left waiting.
        services.reviews.withdraw(run.final_output.thread_id, by=requester)
    return result_of(run, requester)
