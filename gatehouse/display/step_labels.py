"""What each step of the graph means to a person, in plain words: the chat's progress lines,
the Traces page's steps and diagram, and `gatehouse trace` name steps with these."""

from __future__ import annotations

# What each graph step means to the person waiting for it (the graph's node names: graph/builder.py).
STEP_LABELS = {
    "preprocess_request": "Read the request",
    "classify_intent": "Decided whether a server is needed",
    "discover_capabilities": "Asked the servers what they offer",
    "select_capability": "Chose a capability",
    "validate_capability": "Checked it against the policy",
    "build_mcp_request": "Prepared the call",
    "invoke_mcp_capability": "Called the server",
    "integrate_result": "Read the result",
    "mark_needs_review": "Stopped for a person",
    "answer_without_mcp": "Answered without a server",
    "generate_final_response": "Wrote the answer",
}
# The graph's start and end, as the diagram draws them.
ENDS = {"__start__": "Start", "__end__": "End"}


def step_label(node: str) -> str:
    """The plain words for a node (its name when it has none: a node added to the graph and
    not yet worded here still shows)."""
    return STEP_LABELS.get(node) or ENDS.get(node) or node
