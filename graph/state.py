"""The graph's state and the pydantic models for the shapes it carries.

State values are plain JSON (dicts, lists, strings) so every checkpoint serialises without
custom types and a trace can be exported as it is; the models below validate those dicts at
the points where they are made or read.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from pydantic import BaseModel, Field

from policies.decision import Flag

Status = Literal[
    "ok",
    "answered_without_mcp",
    "needs_clarification",
    "needs_review",
    "rejected",
    "expired",
    "cancelled",
    "error",
]
ReviewStage = Literal["clarification", "before_execution", "after_failure", "untrusted_output"]
ValidationDecision = Literal["allow", "review", "deny", "clarify", "unusable"]


class GraphInput(TypedDict, total=False):
    """What a caller supplies to start a request."""

    input: str
    thread_id: str
    requester: str
    server_preferences: list[str]


class GraphState(TypedDict, total=False):
    # The spec's state table.
    input: str
    intent: str | None
    operation_type: str | None
    server_preferences: list[str]
    capability_manifest: dict[str, Any]
    candidate_capabilities: list[dict[str, Any]]
    selected_capability: dict[str, Any] | None
    capability_validation: dict[str, Any]
    mcp_request: dict[str, Any] | None
    mcp_result: dict[str, Any] | None
    context_update: dict[str, Any] | None
    fallback_reason: str | None
    # The same reason as a sentence for the person who asked, where the machine's words
    # (scores, thresholds) would mean nothing to them; fallback_reason stays as it is.
    fallback_text: str | None
    needs_human_review: bool
    errors: list[str]
    final_output: dict[str, Any] | None
    # Who asked, on which thread.
    thread_id: str
    requester: str
    # The request after normalisation, and the operator's answers to clarifying questions.
    request_text: str
    clarifications: list[str]
    # Everyone besides the requester who shaped this request (answered its questions): they
    # count as requesters for four-eyes.
    contributors: list[str]
    proposed_arguments: dict[str, Any]
    argument_sources: dict[str, str]
    # The words of the request each argument was read from (never invented: see the planner).
    argument_evidence: dict[str, str]
    invalid_arguments: dict[str, str]
    missing_arguments: list[str]
    # Why the graph stopped for a person, and what they decided.
    review_stage: ReviewStage | None
    review: dict[str, Any] | None
    review_round: int
    approved_call: dict[str, Any] | None
    # The definition a reviewer approved, kept when the server changed it afterwards.
    previous_definition: dict[str, Any] | None
    status: Status | None
    # Attempt counters: they bound every loop in the graph.
    invoke_attempts: int
    transport_failures: int
    tried_capabilities: list[str]


class CapabilityRef(BaseModel):
    server: str
    type: str
    name: str


class Choice(BaseModel):
    """One capability the operator can pick when two fit a request about equally well."""

    key: str
    title: str


class ArgumentChanges(BaseModel):
    """The arguments a reviewer changed, each as proposed and as approved (what ran); a name
    missing on one side was not set there. Keyed by argument name so that secret-like names
    are hidden wherever the output is shown (policies/secrets.py hides values by key)."""

    proposed: dict[str, Any] = Field(default_factory=dict)
    approved: dict[str, Any] = Field(default_factory=dict)


class ReviewSummary(BaseModel):
    id: str
    stage: ReviewStage
    flags: list[Flag] = Field(default_factory=list)
    reason: str | None = None
    decided_by: str | None = None
    # How it ended (None while it waits): approve, reject, expire, cancel or answer; and when
    # (ISO, UTC) the decision was recorded.
    decision: str | None = None
    decided_at: str | None = None
    changes: ArgumentChanges | None = None
    # "Which one do you mean?": the candidates to pick from (answering with a key picks one).
    choices: list[Choice] = Field(default_factory=list)


class FinalOutput(BaseModel):
    """The contract the UI, the CLI and the tests share (DESIGN.md)."""

    status: Status
    response: str
    selected_capability: CapabilityRef | None = None
    mcp_result_summary: dict[str, Any] | None = None
    fallback_reason: str | None = None
    review: ReviewSummary | None = None
    missing_arguments: list[str] = Field(default_factory=list)
    thread_id: str
    errors: list[str] = Field(default_factory=list)
    # What the call returned (its content items and structured content, capped like all
    # output), for a person to read as tables and text; None when nothing ran or it failed.
    result: dict[str, Any] | None = None
    # The arguments proposed for the selected capability, the words of the request each came
    # from, the planner's one-sentence reason for its choice, and which planner chose.
    arguments: dict[str, Any] = Field(default_factory=dict)
    argument_evidence: dict[str, str] = Field(default_factory=dict)
    explanation: str | None = None
    planner: str | None = None
    # True when the planner wrote ``response`` from the result (a language model's answer):
    # the chat shows it above the result, which it otherwise says in its own words.
    composed: bool = False


class McpRequest(BaseModel):
    """The standardised request build_mcp_request prepares for the selected server."""

    server: str
    capability_key: str
    capability_type: str
    method: Literal["tools/call", "resources/read", "prompts/get"]
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    uri: str | None = None


class ReviewDecision(BaseModel):
    """What a person answers when the graph is paused in mark_needs_review."""

    # "cancel": the requester withdrew the request while it waited.
    action: Literal["approve", "reject", "expire", "answer", "cancel"]
    by: str
    reason: str | None = None
    # Edited arguments for an approval; the edit is re-validated before anything runs.
    arguments: dict[str, Any] | None = None
    # The operator's reply to a clarifying question.
    text: str | None = None
    # When the decision was recorded (ISO, UTC; the ledger's time), for the operator's answer.
    at: str | None = None
