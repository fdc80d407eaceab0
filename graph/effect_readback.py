"""After a reviewed call ran: is its effect the one that was approved?

A reviewer approved an effect on its preview (gatehouse/web/effect_preview.py): the content a
write puts in a file, the message a send sends, the fields an update sets on a record. The
server may do something else: write other bytes, write them elsewhere, send another message,
or something may change the result right after. So once the call succeeded, the effect is
read back through the same server's own read, the tool or resource template the policy
declares for the capability (``[[effects]] read``, policies/model.py), and compared with what
the approved arguments said it would be: a file's whole content, a message's recipients,
subject and body, a record's fields that the arguments set (graph/effect_records.py reads a
message or a record, by the id the call returned or the one its arguments named).

The read is a call like any other: it runs only when the policy would let it run without a
review (graph/effects.py refused_read), so checking never does something that itself needs
approving. Where nothing can be read back (no read declared, the policy denies the read or
would hold it for a review, the server does not offer it, the read failed) the effect is "not
verified", and the check says why; it is never counted as verified.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from graph.accessors import errors_with, flag_data, validation, validation_with_flags
from graph.effect_records import field_at, read_record
from graph.effects import current_file, written_path
from graph.email_message import email_message
from graph.state import EffectCheckData, GraphState
from mcp_host.manifest import capability_key

if TYPE_CHECKING:
    from graph.context import GraphContext
    from graph.state import McpRequest
    from mcp_host.client import McpClient
    from mcp_host.results import McpResult
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


def _email_sent(
    mcp: McpClient, policy: Policy, request: McpRequest, result: McpResult, declared: EffectDeclaration
) -> EffectCheckData:
    """Whether the message read back (by the id the send returned) is the approved one."""
    key = request.capability_key
    now = read_record(mcp, policy, request.server, declared, request.arguments, result)
    if now.note is not None:
        return _not_verified(key, now.note)
    if now.record is None:
        return {"status": "mismatch", "detail": f"{now.what} is not there after {key} sent it"}
    differ = email_message(request.arguments).differences(email_message(now.record))
    if differ:
        return {
            "status": "mismatch",
            "detail": f"{now.what} is not the approved message after {key} sent it: "
            f"its {', '.join(differ)} {'differs' if len(differ) == 1 else 'differ'}",
        }
    return {"status": "verified", "detail": f"{now.what} is the approved message"}


def _same(approved: Any, read: Any) -> bool:
    # Servers trim the text they store (a note's surrounding spaces), never the words.
    if isinstance(approved, str) and isinstance(read, str):
        return approved.strip() == read.strip()
    return bool(approved == read)


def record_differences(
    declared: EffectDeclaration, arguments: dict[str, Any], record: dict[str, Any]
) -> list[str]:
    """How ``record`` falls short of what the approved ``arguments`` set (``fields``) and added
    (``appended``); an argument the call left out is not compared."""
    differ = [
        f"{field} is {json.dumps(field_at(record, field))}, not {json.dumps(arguments[argument])}"
        for argument, field in declared.fields.items()
        if arguments.get(argument) is not None and not _same(arguments[argument], field_at(record, field))
    ]
    for argument, field in declared.appended.items():
        added = arguments.get(argument)
        if added is None or added == "":
            continue
        held = field_at(record, field)
        if not isinstance(held, list) or not any(_same(added, item) for item in held):
            differ.append(f"{field} does not hold {json.dumps(added)}")
    return differ


def _record_updated(
    mcp: McpClient, policy: Policy, request: McpRequest, result: McpResult, declared: EffectDeclaration
) -> EffectCheckData:
    """Whether the record read back holds the fields the approved arguments set."""
    key = request.capability_key
    compared = [
        a for a in [*declared.fields, *declared.appended] if request.arguments.get(a) not in (None, "")
    ]
    if not compared:
        return _not_verified(key, "its arguments set none of the declared fields")
    now = read_record(mcp, policy, request.server, declared, request.arguments, result)
    if now.note is not None:
        return _not_verified(key, now.note)
    if now.record is None:
        return {"status": "mismatch", "detail": f"{now.what} is not there after {key} changed it"}
    differ = record_differences(declared, request.arguments, now.record)
    if differ:
        return {
            "status": "mismatch",
            "detail": f"{now.what} does not hold what was approved after {key} changed it: {'; '.join(differ)}",
        }
    return {"status": "verified", "detail": f"{now.what} holds the approved {', '.join(compared)}"}


def check_effect(
    mcp: McpClient, policy: Policy, request: McpRequest, result: McpResult
) -> EffectCheckData | None:
    """What the effect of a call that succeeded (``result``) reads back as; None when the
    policy declares no preview for its capability (nothing was shown, so nothing is compared)."""
    if request.capability_type != "tool":
        return None
    key = capability_key(request.server, request.name)
    declared = policy.effect_of(key)
    if declared is None:
        return None
    if not declared.read:
        return _not_verified(key, "no read is declared for it ([[effects]] read in the policy)")
    if declared.preview == "email":
        return _email_sent(mcp, policy, request, result, declared)
    if declared.preview == "record":
        return _record_updated(mcp, policy, request, result, declared)
    return _file_written(mcp, policy, request, declared)


def read_back(
    state: GraphState, context: GraphContext, request: McpRequest, result: McpResult, review_id: str
) -> GraphState:
    """The update that records a reviewed call's effect check (empty when nothing was
    previewed): in the verdict (the operator's final output shows it), in the errors when it
    is a mismatch, and in the audit log through the review hooks."""
    check = check_effect(context.mcp, context.policy, request, result)
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
