"""What the graph depends on, injected per run through LangGraph's runtime context."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp_host.client import McpClient
    from policies.decision import Policy


@dataclass(frozen=True)
class Limits:
    max_input_chars: int = 4000
    # Invocations per request, across candidates: the spec allows one more safe try.
    max_invoke_attempts: int = 2
    # Transport failures (unavailable, timeout) before a person has to look.
    max_transport_failures: int = 2
    # Below this score the best candidate is too weak to use.
    min_score: float = 4.0
    # Two candidates closer than this are ambiguous: ask instead of guessing.
    ambiguity_margin: float = 1.0
    # Characters of tool output quoted in a response.
    response_chars: int = 1500


@dataclass(frozen=True)
class GraphContext:
    mcp: McpClient
    policy: Policy
    limits: Limits = field(default_factory=Limits)
