"""The eleven nodes. Each is a plain function of (state, runtime) returning only the keys it
changes; every dependency arrives through ``runtime.context``.

mark_needs_review re-runs from its top when the graph resumes, so everything before its
interrupt() is a pure function of the state: no I/O, no clock, no counters.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any
from urllib.parse import quote

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from graph.calls import call_hash
from graph.context import CallOutcome, GraphContext
from graph.output import build_final_output, clarification_question, no_match_sentence
from graph.planner.protocol import Composition, PlanningRequest
from graph.planner.scoring import ScoredCapability, is_unbounded_listing
from graph.results_view import context_from, readable_text
from graph.state import GraphState, McpRequest, ReviewDecision
from mcp_host.client import McpClient
from mcp_host.elicitation import CallOwner, on_behalf_of
from mcp_host.errors import TRANSPORT_KINDS, ErrorInfo, McpHostError
from mcp_host.manifest import Capability, Manifest
from mcp_host.results import McpResult
from policies.decision import Flag
from policies.injection import request_reasons

_WHITESPACE = re.compile(r"\s+")
_TEMPLATE_VARIABLE = re.compile(r"\{([A-Za-z0-9_]+)\}")
_CANDIDATES_KEPT = 5
# What a reviewer approves besides the name: a change to any of these voids an approval.
_DEFINITION_FIELDS = ("description", "input_schema", "output_schema", "annotations")


def _flag(code: str, severity: Any, message: str) -> dict[str, Any]:
    return Flag(code=code, severity=severity, message=message).model_dump()


def _errors(state: GraphState, *new: str) -> list[str]:
    return [*state.get("errors", []), *new]


def _selected(state: GraphState) -> Capability:
    selected = state.get("selected_capability")
    if not selected:
        raise ValueError("no capability is selected: the graph reached a node that needs one")
    return Capability.model_validate(selected)


def _normalize(text: str) -> str:
    """Drop control and invisible format characters, then collapse whitespace."""
    kept = [
        " " if ch in "\t\r\n" else ch
        for ch in text
        if unicodedata.category(ch) not in {"Cc", "Cf"} or ch in "\t\r\n"
    ]
    return _WHITESPACE.sub(" ", "".join(kept)).strip()


# -- preprocess_request ---------------------------------------------------------------------


def preprocess_request(state: GraphState, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    limit = runtime.context.limits.max_input_chars
    text = _normalize(state.get("input") or "")
    # A thread can carry several requests: every per-request field starts afresh here.
    update: dict[str, Any] = {
        "request_text": text,
        "requester": state.get("requester") or "operator",
        "server_preferences": list(state.get("server_preferences") or []),
        "intent": None,
        "operation_type": None,
        "capability_manifest": {},
        "candidate_capabilities": [],
        "selected_capability": None,
        "capability_validation": {},
        "mcp_request": None,
        "mcp_result": None,
        "context_update": None,
        "fallback_reason": None,
        "fallback_text": None,
        "needs_human_review": False,
        "errors": [],
        "final_output": None,
        "clarifications": [],
        "contributors": [],
        "proposed_arguments": {},
        "argument_sources": {},
        "argument_evidence": {},
        "invalid_arguments": {},
        "missing_arguments": [],
        "review_stage": None,
        "review": None,
        "approved_call": None,
        "previous_definition": None,
        "status": None,
        "invoke_attempts": 0,
        "transport_failures": 0,
        "tried_capabilities": [],
    }
    if not text:
        update |= {
            "status": "error",
            "fallback_reason": "blank request",
            "errors": [
                "The request is empty: say what you need, e.g. 'List the files in the project folder.'"
            ],
        }
    elif len(text) > limit:
        update |= {
            "status": "error",
            "fallback_reason": "request too long",
            "errors": [
                f"The request is {len(text)} characters long; the limit is {limit}. Shorten or split it."
            ],
        }
    return update


# -- classify_intent ------------------------------------------------------------------------


def classify_intent(state: GraphState, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    decision = runtime.context.planner.classify(state["request_text"])
    update: dict[str, Any] = {"intent": decision.intent, "operation_type": decision.operation_type}
    if decision.intent == "answer_without_mcp":
        update["fallback_reason"] = decision.reason
    return update


# -- discover_capabilities ------------------------------------------------------------------


def discover_capabilities(state: GraphState, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    manifest = runtime.context.mcp.discover()
    errors = _errors(state, *manifest.problems())
    update: dict[str, Any] = {"capability_manifest": manifest.model_dump(mode="json"), "errors": errors}
    known = manifest.server_names()
    unknown = [name for name in state.get("server_preferences", []) if name not in known]
    if unknown:
        listed = ", ".join(known) or "none"
        message = f"unknown preferred server {', '.join(map(repr, unknown))}; configured servers: {listed}"
        update |= {"status": "error", "fallback_reason": message, "errors": [*errors, message]}
    elif not known:
        update["fallback_reason"] = "no MCP server is configured"
    elif not manifest.capabilities():
        update["fallback_reason"] = "no configured MCP server offers a usable capability"
        if manifest.problems():
            update["status"] = "error"
    return update


# -- select_capability ----------------------------------------------------------------------


def _named_in_reply(candidates: list[ScoredCapability], reply: str | None) -> ScoredCapability | None:
    """The candidate an operator's reply names exactly (by name or key), if any.

    Answering "which one?" with a tool's name settles it, even when that name is a prefix of
    the other candidate's ("list_directory" vs "list_directory_with_sizes").
    """
    if not reply:
        return None
    tokens = {token.lower() for token in re.findall(r"[\w.-]+", reply)}
    by_key = [s for s in candidates if s.capability.key.lower() in tokens]
    if len(by_key) == 1:
        return by_key[0]
    # A bare name settles it only when one candidate has it (two servers may share a name).
    by_name = [s for s in candidates if s.capability.name.lower() in tokens]
    return by_name[0] if len(by_name) == 1 else None


def select_capability(state: GraphState, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    planner = runtime.context.planner
    limits = runtime.context.limits
    manifest = Manifest.model_validate(state["capability_manifest"])
    clarifications = state.get("clarifications", [])
    latest = clarifications[-1] if clarifications else None
    request = PlanningRequest(
        text=" ".join([state["request_text"], *clarifications[:-1]]),
        operation_type=state.get("operation_type") or "tool",
        answer=latest,
        asked=tuple(state.get("missing_arguments") or ()),
        preferences=tuple(state.get("server_preferences", [])),
        exclude=frozenset(state.get("tried_capabilities", [])),
        folders={server.name: tuple(server.folders) for server in manifest.servers if server.folders},
    )
    selection = planner.select(request, manifest.capabilities(), limits)
    candidates = [
        {"key": s.capability.key, "score": s.score, "reasons": s.reasons} for s in selection.candidates
    ]
    update: dict[str, Any] = {
        "candidate_capabilities": candidates,
        "review_stage": None,
        "needs_human_review": False,
        "mcp_request": None,
    }
    if selection.chosen is None:
        closest = selection.candidates[0] if selection.candidates else None
        best_of = f" (best: {closest.capability.key}, score {closest.score:g})" if closest else ""
        return update | {
            "selected_capability": None,
            "fallback_reason": f"no capability matches the request well enough{best_of}; "
            f"the threshold is {limits.min_score:g}",
            "fallback_text": selection.no_match or no_match_sentence(closest, limits.min_score),
        }
    best, runner_up = selection.chosen, selection.ambiguous_with
    named = _named_in_reply(selection.candidates, latest) if latest else None
    if named is not None:
        # The operator answered "which one?" by naming it: that settles the choice.
        best, runner_up = named, None
    extraction = selection.arguments
    if extraction is None or named is not None:
        extraction = planner.extract(best.capability, request)
    selected = best.capability.model_dump(mode="json") | {
        "score": best.score,
        "reason": "; ".join(best.reasons),
        "explanation": selection.explanation
        if named is None
        else f"Chose {best.capability.key}, as you said.",
        "planner": planner.label,
        "planner_fallback": selection.fallback,
        "ambiguous_with": runner_up.capability.key if runner_up else None,
    }
    return update | {
        "selected_capability": selected,
        "proposed_arguments": extraction.arguments,
        "argument_sources": extraction.sources,
        "argument_evidence": extraction.evidence,
        "invalid_arguments": extraction.invalid,
        "missing_arguments": extraction.missing,
        "fallback_reason": None,
        "fallback_text": None,
    }


# -- validate_capability --------------------------------------------------------------------


def _approved(state: GraphState, capability: Capability, arguments: dict[str, Any]) -> str | None:
    """Who approved exactly this call (capability, definition and arguments), if anyone did."""
    approved = state.get("approved_call")
    if (
        approved
        and approved.get("key") == capability.key
        and approved.get("fingerprint") == capability.fingerprint
        and approved.get("arguments") == arguments
    ):
        return str(approved.get("by"))
    return None


def _current_definition(context: GraphContext, server: str, key: str) -> Capability | None:
    """The capability as its server offers it now, the definition a decision or an approved
    call must be judged on.

    Discovery may serve a cached listing; a server that quietly swapped a tool's description
    or schema (a "rug pull" without a list_changed notification) must be judged on the new
    one, so its listing is fetched fresh. The exception is a server the policy trusts that
    promised list_changed notifications: its cached listing is current by that promise (a
    notification drops it), as mature hosts treat every server; that saves a round trip.
    """
    manifest = context.mcp.discover(only=[server])
    cached = manifest.server(server)
    if not (cached is not None and cached.announces_changes and context.policy.trusts(server)):
        manifest = context.mcp.discover(fresh=True, only=[server])
    return manifest.find(key)


def _live_definition(state: GraphState, context: GraphContext) -> tuple[Capability | None, dict[str, Any]]:
    """The selected capability as its server offers it now, merged into the selection."""
    selected = state.get("selected_capability") or {}
    live = _current_definition(context, str(selected.get("server", "")), str(selected.get("key", "")))
    if live is None:
        return None, {}
    return live, selected | live.model_dump(mode="json")


def validate_capability(state: GraphState, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    capability, refreshed = _live_definition(state, runtime.context)
    if capability is None:
        message = f"{_selected(state).key} is no longer offered by its server"
        return {
            "capability_validation": {
                "decision": "unusable",
                "flags": [_flag("capability_gone", "medium", message)],
            },
            "fallback_reason": message,
            "errors": _errors(state, message),
            "status": "error",
        }
    arguments = state.get("proposed_arguments", {})
    evaluation = runtime.context.policy.evaluate(capability, arguments)
    # A real request is what records first sight of a definition (evaluating stores nothing).
    runtime.context.policy.record_pins(evaluation.pins_to_record)
    policy = evaluation.decision
    flags = [flag.model_dump() for flag in policy.flags]
    missing = state.get("missing_arguments", [])
    invalid = dict(state.get("invalid_arguments", {}))

    unusable_reason = None
    broken_schema = [flag.message for flag in policy.flags if flag.code == "invalid_schema"]
    if broken_schema:
        # No argument can be right for a schema that is itself invalid: nothing to ask for.
        unusable_reason = (
            f"{capability.key} has an input schema that is not valid JSON Schema ({broken_schema[0]})"
        )
    elif policy.output_expectation == "opaque":
        unusable_reason = (
            f"{capability.key} returns {capability.mime_type}, which is opaque to the agent "
            "and no text-extraction capability is available"
        )
        flags.append(_flag("opaque_output", "medium", unusable_reason))
    elif is_unbounded_listing(capability) and policy.risk == "low":
        # Only a read can be a listing: a parameterless tool that acts ("wipes every file")
        # is judged as the action it is.
        unusable_reason = (
            f"{capability.key} returns every record with no filters or paging; "
            "ask with filters a bounded capability supports"
        )
        flags.append(_flag("unbounded_listing", "medium", unusable_reason))
    flags += [
        _flag("missing_argument", "medium", f"required argument '{name}' is not stated in the request")
        for name in missing
    ]
    flags += [_flag("invalid_argument", "medium", f"argument {name}: {why}") for name, why in invalid.items()]
    # The requester's words are shown to the reviewer (literally): words dressed as the app's
    # own badges or as HTML are trying to pass for Gatehouse's verdict, and the reviewer is told.
    for said in [state.get("request_text") or "", *state.get("clarifications", [])]:
        flags += [_flag("suspicious_text", "high", f"request: {reason}") for reason in request_reasons(said)]
    selected = state.get("selected_capability") or {}
    if selected.get("planner_fallback"):
        flags.append(_flag("planner_fallback", "medium", str(selected["planner_fallback"])))
    if selected.get("ambiguous_with"):
        flags.append(
            _flag(
                "ambiguous_selection",
                "medium",
                f"{capability.key} and {selected['ambiguous_with']} fit the request about equally well",
            )
        )

    approved_by = _approved(state, capability, arguments)
    args_valid = policy.args_valid and not (missing or invalid)
    if policy.action == "deny":
        decision = "deny"
    elif unusable_reason:
        decision = "unusable"
    elif not args_valid or selected.get("ambiguous_with"):
        decision = "clarify"
    elif policy.action == "review" and approved_by is None:
        decision = "review"
    else:
        decision = "allow"
    if approved_by is not None and policy.action == "review" and decision == "allow":
        flags.append(_flag("approved", "info", f"approved by {approved_by} for exactly these arguments"))

    validation = {
        "decision": decision,
        "matched_rule": policy.rule,
        "category": policy.category,
        "categories": policy.categories,
        "risk": policy.risk,
        "risk_reasons": policy.reasons,
        "explanation": policy.explanation,
        "flags": flags,
        "args_valid": args_valid,
        "missing_arguments": list(missing),
        "output_expectation": policy.output_expectation,
        "review_terms": policy.review.model_dump(),
    }
    update: dict[str, Any] = {
        "selected_capability": refreshed,
        "capability_validation": validation,
        "needs_human_review": decision in {"review", "clarify"},
        "review_stage": {"review": "before_execution", "clarify": "clarification"}.get(decision),
    }
    if policy.previous_definition is not None:
        update["previous_definition"] = policy.previous_definition
    if decision == "deny":
        update |= {
            "status": "error",
            "fallback_reason": f"refused by policy: {policy.explanation}",
            "errors": _errors(
                state, f"policy rule {policy.rule} refused {capability.key}: {policy.explanation}"
            ),
        }
    elif decision == "unusable":
        # Nothing will be asked of the operator: an unusable capability needs no arguments.
        update |= {"fallback_reason": unusable_reason, "missing_arguments": []}
    elif decision == "review":
        update["fallback_reason"] = policy.explanation
    elif decision == "clarify":
        update["fallback_reason"] = "the request does not state everything the capability needs"
    return update


# -- mark_needs_review ----------------------------------------------------------------------


def review_id(state: GraphState) -> str:
    # review_round counts reviews over the whole thread (preprocess_request never resets it):
    # every request in a thread gets reviews of its own, never an earlier request's id.
    return f"{state.get('thread_id', 'thread')}-r{state.get('review_round', 0) + 1}"


def review_payload(state: GraphState) -> dict[str, Any]:
    """Everything a person needs to decide, as JSON. Pure: it is rebuilt when the node re-runs."""
    stage = state.get("review_stage") or "before_execution"
    selected = state.get("selected_capability") or {}
    validation = state.get("capability_validation") or {}
    payload: dict[str, Any] = {
        "review_id": review_id(state),
        "stage": stage,
        "thread_id": state.get("thread_id"),
        "request": state.get("request_text"),
        "requester": state.get("requester"),
        "contributors": state.get("contributors", []),
        "capability": {
            field: selected.get(field)
            for field in (
                "key",
                "server",
                "type",
                "name",
                "description",
                "input_schema",
                "annotations",
                "fingerprint",
            )
        },
        "arguments": state.get("proposed_arguments", {}),
        "argument_sources": state.get("argument_sources", {}),
        "missing_arguments": state.get("missing_arguments", []),
        "flags": validation.get("flags", []),
        "category": validation.get("category"),
        "matched_rule": validation.get("matched_rule"),
        "explanation": validation.get("explanation"),
        "risk_reasons": validation.get("risk_reasons", []),
        "review_terms": validation.get("review_terms"),
        "reason": state.get("fallback_reason"),
    }
    if stage == "clarification":
        payload["question"] = clarification_question(state)
        payload["choices"] = _choices(state)
    previous = state.get("previous_definition")
    if previous:
        payload["previous_capability"] = {
            field: previous.get(field)
            for field in ("description", "input_schema", "output_schema", "annotations")
        }
    result = state.get("mcp_result")
    if result:
        payload["result"] = {k: v for k, v in result.items() if k != "content"}
    return payload


def _choices(state: GraphState) -> list[dict[str, str]]:
    """The two capabilities an ambiguous selection is between, with titles a person reads."""
    selected = state.get("selected_capability") or {}
    other = selected.get("ambiguous_with")
    if not other:
        return []
    manifest = Manifest.model_validate(state.get("capability_manifest") or {})
    choices = []
    for key in (str(selected.get("key")), str(other)):
        capability = manifest.find(key)
        title = key
        if capability is not None:
            title = capability.title or str(capability.annotations.get("title") or "") or capability.name
        choices.append({"key": key, "title": f"{title} ({key.split('__', 1)[0]})"})
    return choices


def _approved_call(state: GraphState, arguments: dict[str, Any], by: str, review_id: str) -> dict[str, Any]:
    """What an approval covers: this capability, this definition, these arguments, once."""
    selected = state.get("selected_capability") or {}
    return {
        "key": selected.get("key"),
        "fingerprint": selected.get("fingerprint"),
        "arguments": arguments,
        "by": by,
        "review_id": review_id,
        "call_hash": call_hash(selected.get("server", ""), selected.get("fingerprint", ""), arguments),
    }


def mark_needs_review(state: GraphState, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    payload = review_payload(state)
    stage = payload["stage"]
    if stage != "clarification":
        # Idempotent by review id: this line runs again when the node re-runs on resume.
        runtime.context.reviews.review_opened(payload)
    decision = ReviewDecision.model_validate(interrupt(payload))
    proposed = state.get("proposed_arguments", {})
    approved = decision.arguments if decision.arguments is not None else proposed
    changed = sorted(
        name for name in set(proposed) | set(approved) if proposed.get(name) != approved.get(name)
    )
    record = {
        "id": payload["review_id"],
        "stage": stage,
        "flags": payload["flags"],
        "decision": decision.model_dump(mode="json"),
        # What the reviewer changed, by argument name: the operator is told.
        "changed_arguments": changed,
        # ... and from what to what (absent on a side: not set there).
        "changes": {
            "proposed": {name: proposed[name] for name in changed if name in proposed},
            "approved": {name: approved[name] for name in changed if name in approved},
        }
        if changed
        else None,
    }
    update: dict[str, Any] = {
        "review": record,
        "review_round": state.get("review_round", 0) + 1,
        "needs_human_review": False,
        "review_stage": None,
    }
    if decision.action == "reject":
        return update | {
            "status": "rejected",
            "fallback_reason": f"rejected by {decision.by}: {decision.reason or 'no reason given'}",
        }
    if decision.action == "expire":
        return update | {"status": "expired", "fallback_reason": "the review expired before anyone decided"}
    if decision.action == "cancel":
        return update | {"status": "cancelled", "fallback_reason": f"withdrawn by {decision.by}"}
    if stage == "clarification":
        if decision.action != "answer" or not (decision.text or "").strip():
            raise ValueError("a clarification is resumed with an answer, a rejection or an expiry")
        contributors = list(state.get("contributors", []))
        if decision.by != state.get("requester") and decision.by not in contributors:
            contributors.append(decision.by)
        return update | {
            "clarifications": [*state.get("clarifications", []), _normalize(decision.text or "")],
            "contributors": contributors,
        }
    if decision.action != "approve":
        raise ValueError(f"stage {stage} is resumed with approve, reject or expire, not {decision.action}")
    if stage == "before_execution":
        # Runs once per decision (after interrupt() returned): the reviewer has now seen this
        # definition, so it becomes the pinned one.
        runtime.context.policy.accept(_selected(state))
        arguments = (
            decision.arguments if decision.arguments is not None else state.get("proposed_arguments", {})
        )
        edited = decision.arguments is not None and decision.arguments != state.get("proposed_arguments", {})
        update["approved_call"] = _approved_call(state, arguments, decision.by, payload["review_id"])
        if edited:
            update |= {"proposed_arguments": arguments, "missing_arguments": [], "invalid_arguments": {}}
        return update
    if stage == "after_failure":
        # One more try, approved by a person: the transport counter starts again, and the
        # retry is a reviewed call of its own (it runs once, under this review's id).
        retry = _approved_call(state, state.get("proposed_arguments", {}), decision.by, payload["review_id"])
        return update | {"transport_failures": 0, "approved_call": retry}
    # untrusted_output: the reviewer releases the output, marked as untrusted.
    result = McpResult.model_validate(state["mcp_result"])
    context = context_from(result) | {"untrusted": True}
    return update | {"context_update": context, "status": "ok"}


# -- build_mcp_request / invoke_mcp_capability ----------------------------------------------


def _expand(template: str, arguments: dict[str, Any]) -> str:
    return _TEMPLATE_VARIABLE.sub(lambda m: quote(str(arguments.get(m.group(1), "")), safe=""), template)


def build_mcp_request(state: GraphState) -> dict[str, Any]:
    capability = _selected(state)
    arguments = dict(state.get("proposed_arguments", {}))
    method = {"tool": "tools/call", "prompt": "prompts/get"}.get(capability.type, "resources/read")
    uri = capability.uri
    if capability.type == "resource_template" and capability.uri_template:
        uri = _expand(capability.uri_template, arguments)
    if capability.type == "prompt":
        arguments = {name: str(value) for name, value in arguments.items()}
    request = McpRequest(
        server=capability.server,
        capability_key=capability.key,
        capability_type=capability.type,
        method=method,  # type: ignore[arg-type]
        name=capability.name,
        arguments=arguments if capability.type in {"tool", "prompt"} else {},
        uri=uri,
    )
    return {"mcp_request": request.model_dump(mode="json")}


def _request_server(state: GraphState) -> str:
    return str(
        (state.get("mcp_request") or {}).get("server")
        or (state.get("selected_capability") or {}).get("server", "")
    )


def _changed_definition(state: GraphState, context: GraphContext, key: str) -> dict[str, Any] | None:
    """For a reviewed call: the update that sends it back to review if its definition changed.

    The approval covers the definition the reviewer saw. The definition is read again right
    before the call (see _current_definition), so a server that swaps a tool's description or
    schema after approval (a "rug pull") gets a new review, not an execution.
    """
    approved = state.get("approved_call")
    if not approved or approved.get("key") != key:
        return None
    current = _current_definition(context, _request_server(state), key)
    if current is not None and current.fingerprint == approved.get("fingerprint"):
        return None
    old = _selected(state)
    if current is None:
        message = f"{key} is no longer offered by its server; the approval no longer applies"
    else:
        fields = [f for f in _DEFINITION_FIELDS if getattr(old, f) != getattr(current, f)]
        changed = ", ".join(fields) or "definition"
        message = f"{key} changed since it was approved ({changed}); it needs a new review"
    validation = dict(state.get("capability_validation") or {})
    validation["flags"] = [*validation.get("flags", []), _flag("definition_changed", "critical", message)]
    update: dict[str, Any] = {
        "approved_call": None,
        "review_stage": "before_execution",
        "needs_human_review": True,
        "fallback_reason": message,
        "capability_validation": validation,
        "errors": _errors(state, message),
    }
    if current is not None:
        update["previous_definition"] = old.model_dump(mode="json")
        update["selected_capability"] = (state.get("selected_capability") or {}) | current.model_dump(
            mode="json"
        )
    return update


def _outcome_unknown(state: GraphState, review_id: str) -> dict[str, Any]:
    """The approved call was started before and its result never recorded (the process died).
    It is not run again by itself: a person decides, knowing it may have run."""
    message = (
        f"the call approved in review {review_id} was started before and its result was never recorded; "
        "it may have run, so it is not run again without a new decision"
    )
    validation = dict(state.get("capability_validation") or {})
    validation["flags"] = [*validation.get("flags", []), _flag("outcome_unknown", "critical", message)]
    return {
        "approved_call": None,
        "review_stage": "after_failure",
        "needs_human_review": True,
        "fallback_reason": message,
        "capability_validation": validation,
        "errors": _errors(state, message),
    }


def _call(mcp: McpClient, request: McpRequest, owner: CallOwner) -> McpResult:
    try:
        # A question the server asks during the call is put to the person who made the request.
        with on_behalf_of(owner):
            return _send(mcp, request)
    except McpHostError as exc:
        error = ErrorInfo(kind="unavailable", message=str(exc))
        return McpResult.failure(request.server, request.capability_type, request.name, error)


def _send(mcp: McpClient, request: McpRequest) -> McpResult:
    if request.method == "tools/call":
        return mcp.call_tool(request.server, request.name, request.arguments)
    if request.method == "prompts/get":
        return mcp.get_prompt(request.server, request.name, request.arguments)
    return mcp.read_resource(request.server, request.uri or "")


def _call_outcome(result: McpResult) -> CallOutcome:
    if result.error is None:
        return "executed"
    return "outcome_unknown" if result.error.may_have_run else "failed"


def _only_reads(state: GraphState, request: McpRequest) -> bool:
    """Whether repeating the call is harmless: resources and prompts are reads by protocol; a
    tool only when the policy's engine positively rated it a low-risk read."""
    if request.method != "tools/call":
        return True
    return (state.get("capability_validation") or {}).get("risk") == "low"


def invoke_mcp_capability(state: GraphState, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    request = McpRequest.model_validate(state["mcp_request"])
    hooks = runtime.context.reviews
    changed = _changed_definition(state, runtime.context, request.capability_key)
    if changed is not None:
        return changed
    approved = state.get("approved_call") or {}
    reviewed = approved.get("key") == request.capability_key and approved.get("review_id")
    result: McpResult | None = None
    if reviewed:
        review_id = str(approved["review_id"])
        if not hooks.call_starting(review_id, str(approved.get("call_hash")), state["thread_id"]):
            # Started before (this thread is being continued after a crash): never call again.
            # A recorded result is the call's own; without one nobody knows whether it ran.
            recorded = hooks.recorded_result(review_id)
            if recorded is None:
                return _outcome_unknown(state, review_id)
            result = McpResult.model_validate(recorded)
    if result is None:
        owner = CallOwner(thread_id=state["thread_id"], requester=str(state.get("requester") or "operator"))
        result = _call(runtime.context.mcp, request, owner)
        if reviewed:
            hooks.call_finished(
                str(approved["review_id"]), _call_outcome(result), result.model_dump(mode="json")
            )
    attempts = state.get("invoke_attempts", 0) + 1
    failures = state.get("transport_failures", 0)
    update: dict[str, Any] = {
        "mcp_result": result.model_dump(mode="json"),
        "invoke_attempts": attempts,
        "tried_capabilities": [*state.get("tried_capabilities", []), request.capability_key],
    }
    if result.error is None:
        return update
    error = result.error
    # An error message is the server's words: one that reads like instructions is not quoted
    # anywhere (errors, reasons); integrate_result holds such a message for a reviewer.
    suspicious = runtime.context.policy.scan_output(error.message)
    quoted = "(its message is withheld: it reads like instructions)" if suspicious else error.message
    update["errors"] = _errors(state, f"{request.capability_key}: {error.kind}: {quoted}")
    if error.kind in TRANSPORT_KINDS:
        failures += 1
        update["transport_failures"] = failures
    limit = runtime.context.limits.max_transport_failures
    flags = list((state.get("capability_validation") or {}).get("flags", []))
    if error.may_have_run and not _only_reads(state, request):
        # The request reached the server and its answer was lost: it may have acted. Trying
        # again (or another candidate) could do it twice, so a person decides, knowing that.
        reason = (
            f"{request.capability_key} was sent and then {error.kind} ({quoted}): it may have run. "
            "It is not retried automatically; check its effect before approving it again"
        )
        flags.append(_flag("outcome_unknown", "critical", reason))
    elif error.kind == "auth":
        reason = f"authentication failed at {request.server}; it is never retried automatically"
        flags.append(_flag("auth_failure", "high", reason))
    elif failures >= limit:
        reason = f"{failures} transport failures in this request (limit {limit}); the last: {quoted}"
        flags.append(_flag("repeated_transport_failure", "high", reason))
    else:
        return update
    if suspicious:
        flags.append(
            _flag(
                "suspicious_text", "high", f"{request.capability_key} error message: {'; '.join(suspicious)}"
            )
        )
    validation = dict(state.get("capability_validation") or {}) | {"flags": flags}
    return update | {
        "review_stage": "after_failure",
        "needs_human_review": True,
        "fallback_reason": reason,
        "capability_validation": validation,
    }


# -- integrate_result -----------------------------------------------------------------------


def integrate_result(state: GraphState, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    result = McpResult.model_validate(state["mcp_result"])
    source = f"{result.server}/{result.name}"
    if not result.success:
        error = result.error or ErrorInfo(kind="tool_error", message="unknown failure")
        # An error message is the server's words too: scanned like output. A suspicious one is
        # held for a reviewer like suspicious output, and the operator's answer names the
        # failure without quoting it (errors already recorded drop the text).
        suspicious = runtime.context.policy.scan_output(f"{error.message}\n{readable_text(result)}")
        if suspicious:
            message = f"{source} error message: {'; '.join(suspicious)}"
            validation = dict(state.get("capability_validation") or {})
            validation["flags"] = [*validation.get("flags", []), _flag("suspicious_text", "high", message)]
            withheld = f"{source} failed ({error.kind}); its message is held for a reviewer"
            return {
                "review_stage": "untrusted_output",
                "needs_human_review": True,
                "fallback_reason": message,
                "capability_validation": validation,
                "errors": [
                    withheld if error.message and error.message in e else e for e in state.get("errors") or []
                ],
            }
        return {
            "status": "error",
            "context_update": {"source": source, "error": error.model_dump()},
            "fallback_reason": f"{source} failed ({error.kind}): {error.message}",
        }
    problem = None
    structured_text = json.dumps(result.structured, ensure_ascii=False) if result.structured else ""
    suspicious = runtime.context.policy.scan_output(f"{readable_text(result)}\n{structured_text}")
    if result.untrusted:
        why = result.untrusted_reason or "it failed the host's checks"
        problem = _flag("untrusted_output", "high", f"{source} returned output that cannot be trusted: {why}")
    elif suspicious:
        # Output is data: instructions inside it are shown to a person, never followed.
        problem = _flag("suspicious_text", "high", f"{source} output: {'; '.join(suspicious)}")
    elif runtime.context.policy.output.opaque(result):
        types = ", ".join(sorted({item.mime_type or item.type for item in result.content}))
        problem = _flag(
            "opaque_output", "medium", f"{source} returned only {types}, which the agent cannot read"
        )
    if problem is not None:
        validation = dict(state.get("capability_validation") or {})
        validation["flags"] = [*validation.get("flags", []), problem]
        return {
            "review_stage": "untrusted_output",
            "needs_human_review": True,
            "fallback_reason": problem["message"],
            "capability_validation": validation,
        }
    return {"context_update": context_from(result), "status": "ok"}


# -- answer_without_mcp / generate_final_response -------------------------------------------


def answer_without_mcp(state: GraphState, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    reason = state.get("fallback_reason") or "no external capability is needed"
    answered = (
        runtime.context.planner.answer(state.get("request_text") or "")
        if state.get("intent") == "answer_without_mcp"
        else None
    )
    if answered:
        text = answered
    elif state.get("intent") == "answer_without_mcp":
        text = (
            "This reads as a general question, so no MCP server is needed, and Gatehouse has no language "
            "model of its own to answer it. Ask for something the configured servers can do, such as "
            "reading, listing or searching their data."
        )
    else:
        text = state.get("fallback_text") or f"Answered without MCP: {reason}."
    status = state.get("status") or "answered_without_mcp"
    return {"context_update": {"source": "gatehouse", "text": text}, "status": status}


def generate_final_response(state: GraphState, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    output = build_final_output(state, limit=runtime.context.limits.response_chars)
    if output.status == "ok" and output.result is not None:
        # With a result in hand the planner writes the answer (a model summarises it; the
        # deterministic planner keeps the standard text). The raw result is shown beside it.
        selected = state.get("selected_capability") or {}
        written = runtime.context.planner.compose(
            Composition(
                request=state.get("request_text") or "",
                status=output.status,
                draft=output.response,
                result_text=readable_text(McpResult.model_validate(state["mcp_result"])),
                capability=selected.get("key"),
            )
        )
        output.composed = written != output.response
        output.response = written
    return {"final_output": output.model_dump(mode="json")}
