"""One MCP client's call, from its key and arguments to either its MCP result or the open call
that waits for a reviewer, synchronously (the server runs it on a worker thread).

The arguments are checked against the tool's schema first, with the policy's own check
(policies/constraints.py schema_flags) and its required list: an agent that sent the wrong
arguments is told at once, rather than opening a thread that waits for an operator's answer
nobody will give (a client has no clarification form).

Then the call is claimed (gatehouse/gateway/client_calls.py): the same call while an earlier
one is open joins it instead of running again, so a retry of a call waiting for a reviewer
waits on the same review, and an approved call runs once."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from gatehouse.gateway.client_calls import Claim, ClientCall, ClientCalls
from gatehouse.gateway.outcomes import error_result, result_of
from graph.runner import new_thread_id
from policies.constraints import schema_flags
from reviews.errors import AlreadyDecidedError, NotAllowedError, NothingToResumeError

if TYPE_CHECKING:
    import mcp_types as types

    from gatehouse.wiring import Services

# How long after its decision was carried out an answer nobody fetched is still the answer to
# the same call: a client that gave up waiting and asks again within this gets the result of
# the call that ran, not a new review. Later, the same call is a new one.
JOIN_WINDOW = timedelta(minutes=15)
# A call whose thread never opened a review nor finished this long after it was claimed was
# lost with its process (a crash mid-run): the same call again starts afresh.
LOST_AFTER = timedelta(minutes=10)


def problems_with(services: Services, key: str, arguments: dict[str, Any]) -> types.CallToolResult | None:
    """A tool error when the call cannot be made as sent: no such tool, or arguments its
    schema refuses. None when it can."""
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
    return None


def claim_call(
    services: Services,
    calls: ClientCalls,
    key: str,
    arguments: dict[str, Any],
    *,
    requester: str,
    client: str | None = None,
) -> types.CallToolResult | Claim:
    """The call's answer when it cannot be made (wrong arguments, a caller off the roster), else
    its claim: opened (the caller runs it, ``run_claimed``) or joined (an earlier same call is
    open)."""
    refused = problems_with(services, key, arguments)
    if refused is not None:
        return refused
    refusal = services.policy.refusal_to_request(requester)
    if refusal is not None:
        return error_result(refusal)
    claim = calls.claim(requester, key, arguments, client=client, thread_id=new_thread_id())
    if not claim.opened and _lost_or_answered_long_ago(services, claim.call):
        calls.close(claim.call.id, "unclaimed")
        claim = calls.claim(requester, key, arguments, client=client, thread_id=new_thread_id())
    return claim


def run_claimed(
    services: Services, calls: ClientCalls, call: ClientCall, arguments: dict[str, Any]
) -> types.CallToolResult | None:
    """Run an opened call through the graph: its answer when it has one (the call stays open
    until that answer reached the client: whoever hands it over closes it), None when it waits
    for a reviewer. Blocks while the call waits on a server's question."""
    try:
        run = services.requests.call(
            call.capability_key,
            arguments,
            requester=call.requester,
            client=call.client,
            thread_id=call.thread_id,
        )
    except NotAllowedError as exc:
        # Nothing was opened in the thread: the same call again is a new one.
        calls.close(call.id, "delivered")
        return error_result(str(exc))
    except BaseException:
        # Nothing waits on a run that failed to start or finish: the same call may be made again.
        calls.close(call.id, "unclaimed")
        raise
    if run.pending is not None and run.pending["stage"] == "clarification":
        # Not reached with the check above unless the policy asks something more: nobody
        # answers a client's thread, so it is withdrawn rather than left waiting.
        run = services.reviews.withdraw(run.final_output.thread_id, by=call.requester)
    if run.pending is None:
        return result_of(run, call.requester)
    return None


def _lost_or_answered_long_ago(services: Services, call: ClientCall) -> bool:
    now = services.ledger.now()
    review = services.ledger.latest_for_thread(call.thread_id)
    if review is None:
        return call.opened_at < now - LOST_AFTER
    carried_out = review.carried_out_at
    return (
        carried_out is not None
        and review.status != "pending"
        and datetime.fromisoformat(carried_out) < now - JOIN_WINDOW
    )


def withdraw(services: Services, calls: ClientCalls, call: ClientCall) -> bool:
    """The client gave the call up: its review leaves the queue, withdrawn by the caller, unless a
    reviewer decided first. True when it was withdrawn."""
    try:
        services.reviews.withdraw(call.thread_id, by=call.requester)
    except (AlreadyDecidedError, NothingToResumeError):
        return False
    calls.close(call.id, "cancelled")
    return True
