"""The eleven nodes, one module per concern. Each node is a plain function of (state, runtime)
returning only the keys it changes; every dependency arrives through ``runtime.context``.
graph/builder.py wires them (the routes are graph/routing.py's):

    preprocess_request -> classify_intent -> discover_capabilities -> select_capability
      -> validate_capability -> build_mcp_request -> invoke_mcp_capability -> integrate_result
      -> generate_final_response -> END
    blank input: preprocess_request -> generate_final_response
    nothing to run, or a general question: -> answer_without_mcp -> generate_final_response
    invoke_mcp_capability -> select_capability (a recoverable failure, another candidate)
    validate / invoke / integrate -> mark_needs_review -- interrupt() --> build_mcp_request
      (approved), validate_capability (approved with edited arguments), select_capability
      (an answer), generate_final_response (rejected, expired, released output)

Where each node lives:
    intake.py       preprocess_request, classify_intent
    discovery.py    discover_capabilities
    selection.py    select_capability
    validation.py   validate_capability
    review.py       mark_needs_review, review_payload (what the reviewer is shown)
    invocation.py   build_mcp_request, invoke_mcp_capability
    call_checks.py  what sends a reviewed call back to review right before it is sent
    results.py      integrate_result
    responses.py    answer_without_mcp, generate_final_response
    shared.py       helpers more than one of them uses

Re-runs: LangGraph checkpoints after each node, so a node runs again from its top when the
process died during it (the thread is continued from the last checkpoint), and
mark_needs_review runs again from its top every time its thread resumes after interrupt().
Each node's docstring says what a re-run does. Before its interrupt(), mark_needs_review
computes only from the state, with one write: it opens the review in the ledger
(``ReviewHooks.review_opened``), which creates the review once per review id and does nothing
when called again for the same id.
"""

from graph.nodes.discovery import discover_capabilities
from graph.nodes.intake import classify_intent, preprocess_request
from graph.nodes.invocation import build_mcp_request, invoke_mcp_capability
from graph.nodes.responses import answer_without_mcp, generate_final_response
from graph.nodes.results import integrate_result
from graph.nodes.review import mark_needs_review, review_payload
from graph.nodes.selection import select_capability
from graph.nodes.validation import validate_capability

__all__ = [
    "answer_without_mcp",
    "build_mcp_request",
    "classify_intent",
    "discover_capabilities",
    "generate_final_response",
    "integrate_result",
    "invoke_mcp_capability",
    "mark_needs_review",
    "preprocess_request",
    "review_payload",
    "select_capability",
    "validate_capability",
]
