"""The planner for a call an MCP client makes through Gatehouse's own MCP endpoint
(`gatehouse serve`, docs/mcp-gateway.md).

An agent names the capability and supplies the arguments itself: there is nothing to classify,
score or read from words. This planner proposes exactly that call, as the planner seam allows
(graph/planner/protocol.py: a planner chooses, it never permits), so the call goes through the
same nodes as an operator's request: the same policy, pins, grants, review, execution journal
and output checks. Its arguments are *stated*, by the caller: the policy judges the call as
proposed (there are no operator's words to cite, and nothing was derived from any).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graph.planner.arguments import Extraction
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.intent import IntentDecision
from graph.planner.protocol import Composition, PlanningRequest, Selection
from graph.planner.provenance import Provenance
from graph.planner.scoring import ScoredCapability

if TYPE_CHECKING:
    from graph.context import Limits
    from mcp_host.manifest import Capability

# How a reviewer reads where each value came from.
SUPPLIED_BY_CLIENT = "supplied by the MCP client's call"


def client_call_text(key: str, client: str | None) -> str:
    """The request's text, as the ledger, the conversation and the reviewer read it."""
    by = f" ({client})" if client else ""
    return f"An MCP client{by} called {key} through Gatehouse, with the arguments it supplied."


class ClientCallPlanner:
    """Proposes the one call a client made; words it is never asked to read."""

    def __init__(self, key: str, arguments: Mapping[str, Any]) -> None:
        self.key = key
        self.arguments = dict(arguments)
        # Answers and compositions are the deterministic planner's: the draft, no model.
        self._words = DeterministicPlanner()

    @property
    def label(self) -> str:
        return "an MCP client's own call (no planning)"

    def classify(self, text: str) -> IntentDecision:
        return IntentDecision("execute_tool", "tool", "an MCP client called a tool")

    def select(
        self, request: PlanningRequest, capabilities: Sequence[Capability], limits: Limits
    ) -> Selection:
        offered = [c for c in capabilities if c.key == self.key and c.key not in request.exclude]
        if not offered:
            return Selection(no_match=f"No configured server offers {self.key} now.")
        chosen = ScoredCapability(offered[0], limits.min_score, ["named by the MCP client's call"])
        return Selection(
            candidates=[chosen],
            chosen=chosen,
            explanation=f"The MCP client called {self.key} itself.",
            arguments=self.extract(offered[0], request),
        )

    def extract(self, capability: Capability, request: PlanningRequest) -> Extraction:
        arguments = self.arguments
        shown = {name: json.dumps(value, ensure_ascii=False) for name, value in arguments.items()}
        return Extraction(
            arguments=dict(arguments),
            missing=[name for name in capability.required_arguments if name not in arguments],
            sources=dict.fromkeys(arguments, SUPPLIED_BY_CLIENT),
            evidence=shown,
            provenance={name: Provenance("stated", shown[name], SUPPLIED_BY_CLIENT) for name in arguments},
        )

    def answer(self, question: str) -> str | None:
        return None

    def compose(self, composition: Composition) -> str:
        return self._words.compose(composition)
