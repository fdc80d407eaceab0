"""Why a side-effecting call may run, as the signed grant it carries says: the review that
approved it, the remembered approval it runs under, or the policy rule that allowed it; a read
carries none (graph/nodes/invocation.py)."""

from __future__ import annotations

from typing import Any

from gatehouse_verify.grant import Why
from graph.nodes.invocation import _call_approval
from graph.state import ApprovedCall, GraphState, McpRequest

SEND = McpRequest(
    server="email",
    capability_key="email__send_email",
    capability_type="tool",
    method="tools/call",
    name="send_email",
    arguments={"to": "carol@example.com"},
)


def state(**validation: Any) -> GraphState:
    checked = {"risk": "high", "policy_version": 3, **validation}
    return GraphState(capability_validation=checked)  # type: ignore[typeddict-item]


def test_a_call_run_under_a_remembered_approval_says_which_grant() -> None:
    approval = _call_approval(
        state(grant={"id": "g-0123456789ab"}, matched_rule="outgoing messages"), SEND, None
    )

    assert approval is not None
    assert approval.why == Why.remembered("g-0123456789ab")
    assert approval.policy_version == 3


def test_a_reviewed_call_names_its_review_and_reviewer_even_under_a_grant() -> None:
    reviewed = ApprovedCall(review_id="r-1", by="reviewer")  # type: ignore[typeddict-item]
    approval = _call_approval(state(grant={"id": "g-0123456789ab"}), SEND, reviewed)

    assert approval is not None
    assert approval.why == Why.review("r-1", "reviewer")


def test_a_call_the_policy_allowed_names_the_rule_and_a_read_carries_nothing() -> None:
    allowed = _call_approval(state(matched_rule="outgoing messages"), SEND, None)
    assert allowed is not None and allowed.why == Why.policy("outgoing messages")
    assert _call_approval(state(risk="low"), SEND, None) is None
