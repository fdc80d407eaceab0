"""The review payload in the human-in-the-loop request schemas LangGraph's tools read.

mark_needs_review's interrupt value is Gatehouse's ReviewPayload with these keys beside it, so
LangGraph Studio, Agent Inbox and agent-chat-ui show a paused thread as what it is: one action
waiting for a decision. Two schemas, because the tools read one or the other:

- LangChain's ``HITLRequest`` (``langchain.agents.middleware.human_in_the_loop``):
  ``action_requests`` (``name``, ``args``, ``description``) and ``review_configs``
  (``action_name``, ``allowed_decisions``, ``args_schema``);
- the older ``HumanInterrupt`` (``langgraph.prebuilt.interrupt``): ``action_request``
  (``action``, ``args``), ``config`` (``allow_accept``, ``allow_edit``, ``allow_respond``,
  ``allow_ignore``) and ``description``.

They describe; they decide nothing. A resume is checked against the review ledger's recorded
decision (graph/nodes/review.py), whatever a tool offers to send.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from graph.state import ReviewPayload, ReviewStage

HitlDecision = Literal["approve", "edit", "reject", "respond"]


class ActionRequest(TypedDict):
    name: str
    args: dict[str, Any]
    description: str


class ReviewConfig(TypedDict):
    action_name: str
    allowed_decisions: list[HitlDecision]
    args_schema: dict[str, Any] | None


class OlderAction(TypedDict):
    action: str
    args: dict[str, Any]


class OlderConfig(TypedDict):
    allow_accept: bool
    allow_edit: bool
    allow_respond: bool
    allow_ignore: bool


class HitlRequest(TypedDict):
    action_requests: list[ActionRequest]
    review_configs: list[ReviewConfig]
    action_request: OlderAction
    config: OlderConfig
    description: str


# The keys hitl_request adds: readers of Gatehouse's own payload take them off (without_hitl).
HITL_KEYS = frozenset(HitlRequest.__annotations__)

# What a person may answer at each stage, in the schemas' words. Only an approval before
# execution takes edited arguments; a clarification is answered in words ("respond").
_ALLOWED: dict[ReviewStage, list[HitlDecision]] = {
    "clarification": ["respond", "reject"],
    "before_execution": ["approve", "edit", "reject"],
    "after_failure": ["approve", "reject"],
    "untrusted_output": ["approve", "reject"],
}

_WHAT_WAITS: dict[ReviewStage, str] = {
    "clarification": "a question for the operator",
    "before_execution": "a call waiting for approval",
    "after_failure": "a failed call: approve one more try, or reject",
    "untrusted_output": "output held for review: approve to release it, or reject",
}


def _description(payload: ReviewPayload) -> str:
    """One paragraph a person reads in the tool: what waits, why, the flags, and where to decide."""
    stage = payload["stage"]
    lines = [f"Gatehouse review {payload['review_id']}: {_WHAT_WAITS[stage]}."]
    if payload.get("question"):
        lines.append(str(payload.get("question")))
    why = payload.get("explanation") or payload.get("reason")
    if why:
        lines.append(str(why))
    lines += [
        f"[{flag.get('severity')}] {flag.get('code')}: {flag.get('message')}" for flag in payload["flags"]
    ]
    lines.append(
        "Decide in Gatehouse (Reviews page or `gatehouse reviews decide`): a resume is accepted "
        "only with the decision Gatehouse recorded."
    )
    return "\n".join(lines)


def hitl_request(payload: ReviewPayload) -> HitlRequest:
    """The payload as one action request in both schemas. Pure: rebuilt on every resume."""
    stage = payload["stage"]
    capability = payload["capability"]
    name = capability.get("key") or ("clarification" if stage == "clarification" else "review")
    args = dict(payload["arguments"])
    allowed = _ALLOWED[stage]
    description = _description(payload)
    return {
        "action_requests": [{"name": name, "args": args, "description": description}],
        "review_configs": [
            {
                "action_name": name,
                "allowed_decisions": list(allowed),
                "args_schema": capability.get("input_schema") if "edit" in allowed else None,
            }
        ],
        "action_request": {"action": name, "args": args},
        "config": {
            "allow_accept": "approve" in allowed,
            "allow_edit": "edit" in allowed,
            "allow_respond": "respond" in allowed,
            # Ignoring a review leaves it waiting: there is nothing to ignore it into.
            "allow_ignore": False,
        },
        "description": description,
    }


def with_hitl(payload: ReviewPayload) -> dict[str, Any]:
    """The interrupt value: Gatehouse's payload, the HITL schemas beside it."""
    return {**payload, **hitl_request(payload)}


def without_hitl(value: dict[str, Any]) -> ReviewPayload:
    """Gatehouse's payload out of an interrupt value (a thread an older release paused has no
    HITL keys; it comes back as it was)."""
    return {key: item for key, item in value.items() if key not in HITL_KEYS}  # type: ignore[return-value]
