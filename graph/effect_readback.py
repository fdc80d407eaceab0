"""After a reviewed call ran: is its effect the one that was approved?

A reviewer approved an effect on its preview (gatehouse/web/effect_preview.py): the content a
write puts in a file, the message a send sends. The server may do something else: write other
bytes, write them elsewhere, or something may change the result right after. So once the
call succeeded, the effect is read back through the same server's own read tool, the one the
policy declares for the capability (``[[effects]] read``, policies/model.py), and compared with
what the approved arguments said it would be.

The read is a call like any other: it runs only when the policy would let it run without a
review (graph/effects.py current_file evaluates it), so checking never does something that
itself needs approving. Where nothing can be read back (no read declared, the policy would
not run it, the server does not offer it, the read failed) the effect is "not verified", and
the check says why; it is never counted as verified.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graph.accessors import errors_with, flag_data, validation, validation_with_flags
from graph.effects import current_file, file_effect, written_path
from graph.state import EffectCheckData, GraphState
from mcp_host.manifest import capability_key

if TYPE_CHECKING:
    from graph.context import GraphContext
    from graph.state import McpRequest
    from mcp_host.client import McpClient
    from policies.decision import Policy
    from policies.model import EffectDeclaration


def _not_verified(key: str, why: str) -> EffectCheckData:
    return {"status": "not_verified", "detail": f"the effect of {key} was not verified: {why}"}


def _file_written(
    mcp: McpClient, policy: Policy, request: McpRequest, declared: EffectDeclaration
) -> EffectCheckData:
    """Whether the file holds, read back now, exactly the content that was approved."""
    key = request.capability_key
    path = written_path(declared, request.arguments)
    approved = request.arguments.get(declared.content_argument)
    if path is None or not isinstance(approved, str):
        return _not_verified(key, f"its arguments name no file ({declared.path_argument}) or content")
    now = current_file(mcp, policy, request.server, path, declared.read)
    if now.note is not None:
        return _not_verified(key, now.note)
    if now.absent:
        return {
            "status": "mismatch",
            "detail": f"{path} on {request.server} is not there after {key} wrote it",
        }
    if now.text != approved:
        return {
            "status": "mismatch",
            "detail": f"{path} on {request.server} does not hold the approved content after {key} wrote it",
        }
    return {"status": "verified", "detail": f"{path} on {request.server} holds the approved content"}


def check_effect(mcp: McpClient, policy: Policy, request: McpRequest) -> EffectCheckData | None:
    """What the effect of a call that succeeded reads back as; None when the policy declares
    no preview for its capability (nothing was shown, so nothing is compared)."""
    if request.capability_type != "tool":
        return None
    key = capability_key(request.server, request.name)
    declared = policy.effect_of(key)
    if declared is None:
        return None
    if not declared.read:
        return _not_verified(key, "no read is declared for it ([[effects]] read in the policy)")
    called = {"type": request.capability_type, "server": request.server, "name": request.name}
    written = file_effect(policy, called)
    if written is None:
        # Only whole-file writes have a comparison today; a declared read of another kind of
        # effect is not run rather than guessed at.
        return _not_verified(key, f"reading back a {declared.preview} effect is not supported")
    return _file_written(mcp, policy, request, written)


def read_back(state: GraphState, context: GraphContext, request: McpRequest, review_id: str) -> GraphState:
    """The update that records a reviewed call's effect check (empty when nothing was
    previewed): in the verdict (the operator's final output shows it), in the errors when it
    is a mismatch, and in the audit log through the review hooks."""
    check = check_effect(context.mcp, context.policy, request)
    if check is None:
        return {}
    context.reviews.effect_checked(review_id, check)
    if check["status"] != "mismatch":
        return {"capability_validation": {**validation(state), "effect_check": check}}
    flagged = validation_with_flags(state, flag_data("effect_mismatch", "critical", check["detail"]))
    return {
        "capability_validation": {**flagged, "effect_check": check},
        "errors": errors_with(state, check["detail"]),
    }
