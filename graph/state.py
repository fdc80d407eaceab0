"""The graph's state and the pydantic models for the shapes it carries.

State values are plain JSON (dicts, lists, strings) so every checkpoint serialises without
custom types and a trace can be exported as it is; the models below validate those dicts at
the points where they are made or read.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, Required, TypedDict, cast

from pydantic import BaseModel, Field

from mcp_host.errors import ErrorKind
from mcp_host.manifest import CapabilityType
from mcp_host.results import ContentType
from policies.decision import Flag, Severity

NoCallReason = Literal["general_question", "nothing_fits", "nothing_offered", "not_usable"]
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
McpMethod = Literal["tools/call", "resources/read", "prompts/get"]
# "cancel": the requester withdrew the request while it waited.
DecisionAction = Literal["approve", "reject", "expire", "answer", "cancel"]
# Why the operator is asked which capability they mean: two fit about equally well ("tie"), the
# planner is not sure of its best fit ("doubt": meaning chose it more than words), or the request
# is in another language, read only roughly, and its best fits are offered ("language").
AskReason = Literal["tie", "doubt", "language"]


class GraphInput(TypedDict, total=False):
    """What a caller supplies to start a request."""

    input: str
    thread_id: str
    requester: str
    server_preferences: list[str]
    # The request's trace context (W3C traceparent), only when tracing is on (telemetry/).
    trace_context: dict[str, str]


# -- The nested shapes ----------------------------------------------------------------------
#
# Each is the JSON a pydantic model dumps (``model_dump(mode="json")``) or a dict a node
# builds; tests/graph/test_state_shapes.py holds every mirror to its model's fields, so a
# field added to a model without its mirror fails a test.


class FlagData(TypedDict):
    """A policies.decision.Flag as JSON."""

    code: str
    severity: Severity
    message: str


class ProvenanceData(TypedDict):
    """Where an argument's value came from (graph/planner/provenance.py): ``stated`` (the
    operator's words, or a normalisation of them ``how`` names), ``derived`` (made from
    ``words`` by a planner, reviewed before it runs) or ``edited`` (a reviewer set it)."""

    kind: Literal["stated", "derived", "edited"]
    words: str
    how: str


class CapabilityDefinition(TypedDict):
    """A mcp_host.manifest.Capability as JSON, fingerprint included."""

    key: str
    server: str
    type: CapabilityType
    name: str
    title: str | None
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: dict[str, Any]
    mime_type: str | None
    uri: str | None
    uri_template: str | None
    examples: list[str]
    aliases: list[str]
    fingerprint: str


class SelectedCapability(CapabilityDefinition):
    """The capability select_capability chose, with why (validate_capability refreshes its
    definition from the server and keeps the rest)."""

    score: float
    reason: str
    # The one sentence the operator and the reviewer read about the choice.
    explanation: str
    planner: str
    # Why another planner's choice stands in (a model that failed), or None.
    planner_fallback: str | None
    # The key of the other capability the operator is asked to pick from, or None.
    ambiguous_with: str | None
    # Why the operator is asked which one they mean, or None when the choice stands. Absent
    # from a selection checkpointed by an older release: there ambiguous_with alone asked, as a
    # tie (graph/accessors.py asked_about).
    asked: NotRequired[AskedData | None]
    # Calls the model proposed beyond the one it may make (one capability per request): never
    # run, named for the reviewer because a model that asks for more than it was told may be steered.
    ignored_calls: NotRequired[list[str]]


class Candidate(TypedDict):
    """One capability the planner considered, with its score and the evidence for it."""

    key: str
    score: float
    reasons: list[str]


class ErrorInfoData(TypedDict):
    """A mcp_host.errors.ErrorInfo as JSON."""

    kind: ErrorKind
    message: str
    may_have_run: bool
    sent: bool


class MissingMethodData(TypedDict):
    """A mcp_host.manifest.MissingMethod as JSON: an optional list method the server did not serve."""

    method: str
    error: ErrorInfoData


class ServerManifestData(TypedDict):
    """A mcp_host.manifest.ServerManifest as JSON."""

    name: str
    ok: bool
    error: ErrorInfoData | None
    protocol_version: str | None
    server_version: str | None
    capabilities: list[CapabilityDefinition]
    rejected: list[str]
    missing: list[MissingMethodData]
    announces_changes: bool
    folders: list[str]


class ManifestData(TypedDict, total=False):
    """A mcp_host.manifest.Manifest as JSON; empty (``{}``) before discovery ran."""

    servers: list[ServerManifestData]


class ReviewTermsData(TypedDict):
    """A policies.decision.ReviewTerms as JSON."""

    expiry_minutes: int
    required_approvals: int
    four_eyes: bool
    reviewer_roles: list[str]


class GrantUseData(TypedDict):
    """The remembered approval (reviews/grants.py) a call ran under instead of a review."""

    id: str
    by: str
    review_id: str
    # Whose calls it covers, in words (a thread, a requester, anyone's), and the bounds.
    scope: str
    bounds: str
    expires_at: str
    # Uses left after this one (None: no cap).
    uses_left: int | None


EffectCheckStatus = Literal["verified", "mismatch", "not_verified"]


class EffectCheckData(TypedDict):
    """What reading a reviewed call's effect back found (graph/effect_readback.py): the
    effect is the one approved, it is not, or it could not be read back; ``detail`` says
    which effect, and why in words."""

    status: EffectCheckStatus
    detail: str


class CapabilityValidation(TypedDict, total=False):
    """validate_capability's verdict. Empty (``{}``) before it ran; only ``decision`` and
    ``flags`` when the capability is gone; later nodes add flags (a failure, held output)."""

    decision: ValidationDecision
    matched_rule: str
    category: str | None
    categories: list[str]
    risk: Literal["low", "elevated"]
    risk_reasons: list[str]
    explanation: str
    flags: list[FlagData]
    args_valid: bool
    missing_arguments: list[str]
    output_expectation: str
    review_terms: ReviewTermsData
    # The version of the policy that judged it (policies/versions.py); None: a file alone.
    policy_version: int | None
    # The remembered approval the call runs under instead of a review (absent: none).
    grant: GrantUseData
    # What the reviewed call's effect read back as after it ran (absent: nothing previewed).
    effect_check: EffectCheckData


class McpRequestData(TypedDict):
    """A McpRequest (below) as JSON."""

    server: str
    capability_key: str
    capability_type: str
    method: McpMethod
    name: str
    arguments: dict[str, Any]
    uri: str | None


class ContentItemData(TypedDict):
    """A mcp_host.results.ContentItem as JSON."""

    type: ContentType
    text: str | None
    mime_type: str | None
    uri: str | None
    size: int


class ReviewedResult(TypedDict):
    """A McpResultData without its content: what the review payload shows of a failed call
    or of output held for a reviewer (the flags say why; the content stays in the state)."""

    success: bool
    server: str
    capability_type: str
    name: str
    structured: dict[str, Any] | None
    error: ErrorInfoData | None
    untrusted: bool
    untrusted_reason: str | None
    original_bytes: int
    truncated: bool
    duration_ms: float


class McpResultData(ReviewedResult):
    """A mcp_host.results.McpResult as JSON (already capped by the host)."""

    content: list[ContentItemData]


class ResultSummary(TypedDict):
    """final_output's ``mcp_result_summary`` (graph/results_view.py summarize)."""

    success: bool
    item_count: int
    content_types: list[str]
    bytes: int
    truncated: bool
    untrusted: NotRequired[bool]
    error_kind: NotRequired[ErrorKind]
    total: NotRequired[int]


class ContextUpdate(TypedDict, total=False):
    """What the request learned, in one of three shapes: a result's readable context
    (graph/results_view.py context_from), a failure (``source`` and ``error``), or
    Gatehouse's own answer (``source`` "gatehouse" and ``text``)."""

    source: Required[str]
    capability_type: str
    text: str
    records: list[Any] | None
    structured: dict[str, Any] | None
    truncated: bool
    # Output a reviewer released although the host could not trust it.
    untrusted: bool
    error: ErrorInfoData


class PreviousDefinition(TypedDict, total=False):
    """The definition a reviewer saw before the server changed it, as the policy's pin keeps
    it (policies/pins.py PINNED_FIELDS)."""

    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: dict[str, Any]


class ApprovedCall(TypedDict):
    """What an approval covers: this capability, this definition, these arguments, once."""

    key: str
    fingerprint: str
    arguments: dict[str, Any]
    by: str
    review_id: str
    # graph/calls.py call_hash of server, fingerprint and arguments: the ledger's run-once key.
    call_hash: str
    # What the approvals were given on of the file the call writes (graph/effects.py): checked
    # again right before the call. Absent in an approval an older release checkpointed.
    effects: NotRequired[list[EffectBindingData]]


class EffectBindingData(TypedDict):
    """An EffectBinding (below) as JSON."""

    server: str
    path: str
    exists: bool
    target: str | None
    sha256: str | None


class ReviewDecisionData(TypedDict):
    """A ReviewDecision (below) as JSON."""

    action: DecisionAction
    by: str
    reason: str | None
    arguments: dict[str, Any] | None
    text: str | None
    at: str | None
    effects: list[EffectBindingData] | None


class ArgumentChangesData(TypedDict):
    """An ArgumentChanges (below) as JSON."""

    proposed: dict[str, Any]
    approved: dict[str, Any]


class ReviewRecord(TypedDict):
    """What mark_needs_review records when a person decided."""

    id: str
    stage: ReviewStage
    flags: list[FlagData]
    decision: ReviewDecisionData
    # The arguments the reviewer changed, by name, and from what to what (None: unchanged).
    changed_arguments: list[str]
    changes: ArgumentChangesData | None


class CapabilityRefData(TypedDict):
    """A CapabilityRef (below) as JSON."""

    server: str
    type: str
    name: str


class ChoiceData(TypedDict):
    """A Choice (below) as JSON."""

    key: str
    title: str


class AskedData(TypedDict):
    """An Asked (below) as JSON."""

    reason: AskReason
    language: str | None
    not_offered: list[str]


class ReviewedCapability(TypedDict):
    """The selected capability as a reviewer is shown it. Each field is None when the
    selection lacks it: review_payload is rebuilt on every resume, also from a selection an
    older release checkpointed."""

    key: str | None
    server: str | None
    type: CapabilityType | None
    name: str | None
    description: str | None
    input_schema: dict[str, Any] | None
    annotations: dict[str, Any] | None
    fingerprint: str | None


class ReviewedDefinition(TypedDict):
    """The definition a reviewer approved before the server changed it, as a reviewer is shown
    it beside the new one; None for a field the policy's pin does not keep."""

    description: str | None
    input_schema: dict[str, Any] | None
    output_schema: dict[str, Any] | None
    annotations: dict[str, Any] | None


class ReviewPayload(TypedDict):
    """What mark_needs_review sends through interrupt() (graph/nodes/review.py review_payload):
    everything a person needs to decide. The checkpoint keeps it as the thread's pending
    interrupt and the ledger opens a review from it and stores it with the review."""

    review_id: str
    stage: ReviewStage
    thread_id: str | None
    request: str | None
    requester: str | None
    contributors: list[str]
    capability: ReviewedCapability
    arguments: dict[str, Any]
    argument_sources: dict[str, str]
    # Stated or derived, and from which words, per argument (a payload an older release stored
    # lacks it: readers use .get).
    argument_provenance: dict[str, ProvenanceData]
    missing_arguments: list[str]
    flags: list[FlagData]
    category: str | None
    matched_rule: str | None
    explanation: str | None
    risk_reasons: list[str]
    # The verdict's terms (expiry, approvals, four-eyes, roles); None when it carries none.
    review_terms: ReviewTermsData | None
    reason: str | None
    # A clarification: the question the operator answers and, when it asks which capability
    # they mean, the ones to pick from (an empty list otherwise) and why it asks.
    question: NotRequired[str]
    choices: NotRequired[list[ChoiceData]]
    asked: NotRequired[AskedData]
    # The server changed a definition a reviewer had approved: the approved one.
    previous_capability: NotRequired[ReviewedDefinition]
    # A failed call, or output held for a reviewer: the result without its content.
    result: NotRequired[ReviewedResult]
    # The thread was resumed with something that is not the review's recorded decision and
    # waits again (graph/nodes/review.py _await_decision): why it was refused.
    resume_refused: NotRequired[str]


class ReviewSummaryData(TypedDict):
    """A ReviewSummary (below) as JSON."""

    id: str
    stage: ReviewStage
    flags: list[FlagData]
    reason: str | None
    decided_by: str | None
    decision: str | None
    decided_at: str | None
    changes: ArgumentChangesData | None
    choices: list[ChoiceData]
    asked: AskedData | None


class FinalOutputData(TypedDict):
    """A FinalOutput (below) as JSON: what generate_final_response leaves in the state."""

    status: Status
    response: str
    selected_capability: CapabilityRefData | None
    mcp_result_summary: ResultSummary | None
    fallback_reason: str | None
    review: ReviewSummaryData | None
    missing_arguments: list[str]
    thread_id: str
    errors: list[str]
    server_notes: list[str]
    result: dict[str, Any] | None
    arguments: dict[str, Any]
    argument_evidence: dict[str, str]
    explanation: str | None
    planner: str | None
    composed: bool
    no_call_reason: NoCallReason | None
    grant: GrantUseData | None
    effect_check: EffectCheckData | None


class GraphState(TypedDict, total=False):
    # What the workflow carries from node to node (each node's docstring in graph/nodes/
    # says which fields it reads and writes).
    input: str
    intent: str | None
    operation_type: str | None
    server_preferences: list[str]
    capability_manifest: ManifestData
    candidate_capabilities: list[Candidate]
    selected_capability: SelectedCapability | None
    capability_validation: CapabilityValidation
    mcp_request: McpRequestData | None
    mcp_result: McpResultData | None
    context_update: ContextUpdate | None
    fallback_reason: str | None
    # The same reason as a sentence for the person who asked, where the machine's words
    # (scores, thresholds) would mean nothing to them; fallback_reason stays as it is.
    fallback_text: str | None
    needs_human_review: bool
    errors: list[str]
    final_output: FinalOutputData | None
    # Who asked, on which thread.
    thread_id: str
    requester: str
    # The request after normalisation, and the operator's answers to clarifying questions.
    request_text: str
    clarifications: list[str]
    # Values the operator typed into the clarification form, by argument name: taken as they
    # are (a file's lines stay lines), never re-read from the answer's words.
    answered_arguments: dict[str, Any]
    # Everyone besides the requester who shaped this request (answered its questions): they
    # count as requesters for four-eyes.
    contributors: list[str]
    # The arguments are whatever JSON the capability's input schema admits.
    proposed_arguments: dict[str, Any]
    argument_sources: dict[str, str]
    # The words of the request each argument was read from (never invented: see the planner).
    argument_evidence: dict[str, str]
    # Whether each argument is the operator's words or derived from them (derived: reviewed).
    argument_provenance: dict[str, ProvenanceData]
    invalid_arguments: dict[str, str]
    missing_arguments: list[str]
    # Why the graph stopped for a person, and what they decided.
    review_stage: ReviewStage | None
    review: ReviewRecord | None
    review_round: int
    approved_call: ApprovedCall | None
    # The definition a reviewer approved, kept when the server changed it afterwards: the
    # pinned fields (from the policy) or the whole definition (from invoke_mcp_capability).
    previous_definition: PreviousDefinition | CapabilityDefinition | None
    status: Status | None
    # Attempt counters: they bound every loop in the graph.
    invoke_attempts: int
    transport_failures: int
    tried_capabilities: list[str]
    # The request's trace context as text (W3C traceparent; empty when tracing is off): the run
    # that continues the thread after a decision, in any process, joins the request's trace
    # under it (telemetry/spans.py). Set with each new request's input, as ``input`` is.
    trace_context: dict[str, str]


# Fields that span a thread's requests, which fresh_request_state leaves alone: ``input`` is
# the new request itself, ``thread_id`` names the thread, and ``review_round`` numbers reviews
# across the whole thread so a later request never reuses an earlier one's review id.
# ``trace_context`` comes with each request's input like ``input`` itself.
PER_THREAD_FIELDS = frozenset({"input", "thread_id", "review_round", "trace_context"})


def fresh_request_state(text: str, requester: str, server_preferences: list[str]) -> GraphState:
    """Every per-request field as a new request starts: a thread can carry several requests,
    and nothing of an earlier one (its selection, its review, its counters) may leak into the
    next. Covers every field of GraphState but PER_THREAD_FIELDS (a test holds it to that)."""
    return {
        "request_text": text,
        "requester": requester,
        "server_preferences": list(server_preferences),
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
        "answered_arguments": {},
        "contributors": [],
        "proposed_arguments": {},
        "argument_sources": {},
        "argument_evidence": {},
        "argument_provenance": {},
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


# The workflow's own fields, as opposed to Gatehouse's bookkeeping (request_text, review,
# counters, ...): every request's state holds each of them whichever route it took, so
# whoever reads a thread's state (the trace, the tests, an operator's script) finds the whole
# shape, empty where the request never got that far.
CORE_FIELDS = frozenset(
    {
        "intent",
        "operation_type",
        "server_preferences",
        "capability_manifest",
        "candidate_capabilities",
        "selected_capability",
        "capability_validation",
        "mcp_request",
        "mcp_result",
        "context_update",
        "fallback_reason",
        "needs_human_review",
        "errors",
        "final_output",
    }
)


def changes(state: GraphState, update: GraphState) -> GraphState:
    """The part of a node's ``update`` that changes what ``state`` reads: a field whose value
    differs from the one the state holds, or that the state does not hold unless the value is
    empty (None, False, 0, [] or {}: what every reader takes a missing field for) and the field
    is not one of CORE_FIELDS. A list or a dict that *is* the state's own object is kept: it
    may have been changed in place, and only a write gets that into the checkpoint.

    Why the graph writes no more (graph/builder.py applies this to every node): each field a
    node returns is a row in the checkpointer's writes table and, for a list or a dict, a
    blob in the next checkpoint, changed or not. A new request resets every per-request field
    (fresh_request_state); on a new thread that was 29 of an ask-and-decide cycle's 81 writes
    and 13 of its 32 blobs, for values the thread already read as they were.
    """
    held = cast("dict[str, Any]", state)

    def changed(key: str, value: Any) -> bool:
        if key not in held:
            return bool(value) or key in CORE_FIELDS
        old = held[key]
        return bool(old != value) or (old is value and isinstance(value, list | dict))

    return cast("GraphState", {key: value for key, value in update.items() if changed(key, value)})


def with_empty_fields(values: dict[str, Any]) -> dict[str, Any]:
    """A thread's state values as every reader takes them: each per-request field the thread
    never held (changes leaves an empty one unwritten) as its empty value, so a caller that
    looks at a whole state (RunOutcome.state) finds every field."""
    empty = {key: value for key, value in fresh_request_state("", "", []).items() if not value}
    return empty | {"trace_context": {}} | values


class CapabilityRef(BaseModel):
    server: str
    type: str
    name: str


class Choice(BaseModel):
    """One capability the operator can pick when asked which one they mean."""

    key: str
    title: str


class Asked(BaseModel):
    """Why the operator is asked which capability they mean, and what is left out of the choices."""

    reason: AskReason
    # The language the request reads as, in English ("German"), when the reason is "language".
    language: str | None = None
    # The capabilities the policy refuses whatever the arguments, left out of the choices: each
    # as the refusal says it ("policy rule R refused KEY: why"), so the operator is not left to ask.
    not_offered: list[str] = Field(default_factory=list)


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
    # "Which one do you mean?": the candidates to pick from (answering with a key picks one),
    # and why the operator is asked.
    choices: list[Choice] = Field(default_factory=list)
    asked: Asked | None = None


class GrantUse(BaseModel):
    """A GrantUseData (above) as the operator is shown it."""

    id: str
    by: str
    review_id: str
    scope: str
    bounds: str
    expires_at: str
    uses_left: int | None = None


class EffectCheck(BaseModel):
    """An EffectCheckData (above) as the operator is shown it."""

    status: EffectCheckStatus
    detail: str


class FinalOutput(BaseModel):
    """The contract the UI, the CLI and the tests share (the "final_output" section of docs/cli.md)."""

    status: Status
    response: str
    selected_capability: CapabilityRef | None = None
    mcp_result_summary: dict[str, Any] | None = None
    fallback_reason: str | None = None
    review: ReviewSummary | None = None
    missing_arguments: list[str] = Field(default_factory=list)
    thread_id: str
    errors: list[str] = Field(default_factory=list)
    # The trouble of servers this answer needed (one it preferred, the chosen capability's, or
    # any when nothing was chosen): notes, not errors; a server's state is on the Servers page
    # (graph/server_notes.py). Another server's trouble is in neither list.
    server_notes: list[str] = Field(default_factory=list)
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
    # Why no server was called, with the status answered_without_mcp (None otherwise): a
    # general question, nothing fits the request, no server offers anything, or the capability
    # chosen cannot be used. The chat's badge and the CLI's status line say it in words.
    no_call_reason: NoCallReason | None = None
    # The remembered approval the call ran under without a review (reviews/grants.py): its id,
    # who approved, whose calls it covers and within which bounds, until when, uses left.
    grant: GrantUse | None = None
    # What the approved effect read back as after the call (graph/effect_readback.py):
    # "verified", a "mismatch" (also in ``errors``), or "not_verified" and why; None when no
    # preview was declared for the capability or nothing was reviewed.
    effect_check: EffectCheck | None = None


class McpRequest(BaseModel):
    """The standardised request build_mcp_request prepares for the selected server."""

    server: str
    capability_key: str
    capability_type: str
    method: McpMethod
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    uri: str | None = None


class EffectBinding(BaseModel):
    """What a reviewer was shown of the file a write acts on, which the approval is bound to
    (graph/effects.py): the path, whether a file was there, the file the path led to (symlinks
    followed, as the server names it) and a fingerprint of the content the diff was made from."""

    server: str
    # The path as the call's arguments name it.
    path: str
    exists: bool
    # The file the path leads to, as the server's read reported it; None when it does not say.
    target: str | None = None
    # SHA-256 of the text the diff was computed against; None when there was no file.
    sha256: str | None = None


# Which decision resumes a thread paused at which stage: the one statement of the rule, read by
# the review service before anything is recorded, by resume, and by mark_needs_review itself.
DECISIONS_AT: dict[str, frozenset[DecisionAction]] = {
    "clarification": frozenset({"answer", "reject", "expire", "cancel"}),
    "before_execution": frozenset({"approve", "reject", "expire", "cancel"}),
    "after_failure": frozenset({"approve", "reject", "expire", "cancel"}),
    "untrusted_output": frozenset({"approve", "reject", "expire", "cancel"}),
}


def rejection_problem(reason: str | None) -> str | None:
    """A rejection is explained to the operator who asked: it needs a reason."""
    return None if (reason or "").strip() else "a rejection needs a reason the operator can read"


def _takes_arguments(action: str, stage: str) -> bool:
    """Arguments go with an approval before execution (the reviewer's edit) and with an answer
    to a clarifying question (the values asked for)."""
    return (action, stage) in {("approve", "before_execution"), ("answer", "clarification")}


class ReviewDecision(BaseModel):
    """What a person answers when the graph is paused in mark_needs_review."""

    action: DecisionAction
    by: str
    reason: str | None = None
    # Edited arguments for an approval; the edit is re-validated before anything runs. With an
    # answer to a clarifying question: the values the operator typed for what was asked.
    arguments: dict[str, Any] | None = None
    # The operator's reply to a clarifying question.
    text: str | None = None
    # When the decision was recorded (ISO, UTC; the ledger's time), for the operator's answer.
    at: str | None = None
    # An approval's binding to what its approvers were shown of the file the call writes (one
    # per distinct view; None: nothing to bind): checked again right before the call.
    effects: list[EffectBinding] | None = None

    def problem_at(self, stage: str) -> str | None:
        """Why this decision cannot resume a thread paused at ``stage``; None when it can."""
        allowed = DECISIONS_AT.get(stage, frozenset())
        if self.action not in allowed:
            return f"a thread paused for {stage} takes {', '.join(sorted(allowed))}, not {self.action}"
        if self.action == "reject" and stage != "clarification":
            return rejection_problem(self.reason)
        if self.action == "answer" and not (self.text or "").strip():
            return "an answer to a clarifying question cannot be blank"
        if self.arguments is not None and not _takes_arguments(self.action, stage):
            return "edited arguments go with an approval before execution only"
        return None
