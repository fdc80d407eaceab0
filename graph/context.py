"""What the graph depends on, injected per run through LangGraph's runtime context."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from graph.planner.deterministic import DeterministicPlanner
from mcp_host.reported import RefusalError

if TYPE_CHECKING:
    from graph.planner.protocol import Planner
    from graph.state import EffectCheckData, GrantUseData, ReviewDecision, ReviewPayload
    from mcp_host.client import McpClient
    from mcp_host.manifest import Capability
    from policies.decision import Policy, PolicyDecision


# How a reviewed call ended: it ran; it failed without doing anything (the server answered
# with an error); it never reached the server (not_run: no open session, or the connection was
# gone before the request was written); or nobody can tell (outcome_unknown: a timeout or a
# lost connection after the request was sent, so it may have run).
CallOutcome = Literal["executed", "failed", "not_run", "outcome_unknown"]


@dataclass(frozen=True)
class Limits:
    max_input_chars: int = 4000
    # Invocations per request, across candidates: after a recoverable failure one more try, on
    # another candidate (graph/routing.py after_invoke).
    max_invoke_attempts: int = 2
    # Transport failures (unavailable, timeout) before a person has to look.
    max_transport_failures: int = 2
    # Below this score the best candidate is too weak to use.
    min_score: float = 4.0
    # Two candidates closer than this are ambiguous: ask instead of guessing.
    ambiguity_margin: float = 0.5
    # Characters of tool output quoted in a response.
    response_chars: int = 1500


class ResumeRefusedError(RefusalError):
    """A resume that is not the review's recorded decision (ReviewHooks.decision_problem) or
    names another review: refused before it has any effect; the thread keeps waiting."""


class ReviewHooks(Protocol):
    """Where the graph tells the review ledger what happens (reviews/ implements it).

    The graph knows nothing of the ledger; it only reports a review it is about to wait for
    and the start and end of every reviewed call, so the call can be made to run once.
    """

    def review_opened(self, payload: ReviewPayload) -> None:
        """Called right before interrupt(), and again each time mark_needs_review re-runs (on
        every resume): it must do nothing for a review id it has opened before."""
        ...

    def call_started(self, review_id: str) -> bool:
        """Whether the start of the call approved in this review was recorded before: a thread
        continued after a crash does not check the approval's binding against a file the
        call itself may have written."""
        ...

    def call_starting(self, review_id: str, call_hash: str, thread_id: str) -> bool:
        """Record the start of a reviewed call. False: it started before, do not call again."""
        ...

    def call_finished(self, review_id: str, outcome: CallOutcome, result: dict[str, Any]) -> None:
        """Record how a reviewed call ended, with its (capped) result."""
        ...

    def recorded_result(self, review_id: str) -> dict[str, Any] | None:
        """The result recorded for a reviewed call that finished, if it did: a thread continued
        after a crash uses it instead of calling again."""
        ...

    def effect_checked(self, review_id: str, check: EffectCheckData) -> None:
        """Record what the reviewed call's effect read back as after it ran (a mismatch is
        audited as ``effect_mismatch``; graph/effect_readback.py)."""
        ...

    def decision_problem(self, payload: ReviewPayload, decision: ReviewDecision) -> str | None:
        """Why ``decision`` may not resume the thread waiting on ``payload``: it is not the
        decision the ledger recorded for that review (undecided, another action, decider,
        arguments or call, or carried out already). None: it is. Asked on every resume,
        before the decision has any effect."""
        ...


class NoReviewHooks:
    """For graphs run without a ledger (unit tests): every reviewed call may start."""

    def review_opened(self, payload: ReviewPayload) -> None:
        return None

    def call_started(self, review_id: str) -> bool:
        return False

    def call_starting(self, review_id: str, call_hash: str, thread_id: str) -> bool:
        return True

    def call_finished(self, review_id: str, outcome: CallOutcome, result: dict[str, Any]) -> None:
        return None

    def recorded_result(self, review_id: str) -> dict[str, Any] | None:
        return None

    def effect_checked(self, review_id: str, check: EffectCheckData) -> None:
        return None

    def decision_problem(self, payload: ReviewPayload, decision: ReviewDecision) -> str | None:
        return None  # no ledger to hold a decision: the caller's decision is the one


@dataclass(frozen=True)
class CallToCover:
    """A call the policy sends to review, as a remembered approval (a grant) may cover it."""

    capability: Capability
    arguments: dict[str, Any]
    decision: PolicyDecision
    thread_id: str
    requester: str
    # Everyone else who shaped the request (answered its questions): like the requester, none
    # of them may be the one whose grant covers it.
    contributors: list[str]
    # The step that asks, the same when the step re-runs after a crash: a grant's use is
    # consumed once per key.
    use_key: str


class GrantHooks(Protocol):
    """Where the graph asks whether a remembered approval covers a call (reviews/ implements
    it): the grant it runs under, its use consumed, or None (the call goes to review)."""

    def cover(self, call: CallToCover) -> GrantUseData | None: ...


class NoGrants:
    """For graphs run without a ledger: nothing is remembered, every review happens."""

    def cover(self, call: CallToCover) -> GrantUseData | None:
        return None


@dataclass(frozen=True)
class GraphContext:
    mcp: McpClient
    policy: Policy
    limits: Limits = field(default_factory=Limits)
    reviews: ReviewHooks = field(default_factory=NoReviewHooks)
    # Who plans each request (graph/planner/protocol.py); its proposals are validated the same.
    planner: Planner = field(default_factory=DeterministicPlanner)
    # Remembered approvals (reviews/grant_service.py): a call one covers runs without review.
    grants: GrantHooks = field(default_factory=NoGrants)
