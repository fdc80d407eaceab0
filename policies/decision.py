"""What a policy says about one proposed call, in the shape reviewers are shown verbatim."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from mcp_host.manifest import Capability
    from mcp_host.results import McpResult
    from policies.model import EffectDeclaration
    from policies.pins import Pin

Action = Literal["allow", "review", "deny"]
Severity = Literal["info", "low", "medium", "high", "critical"]


class Flag(BaseModel):
    """One validation finding: a stable code for machines, a sentence for people."""

    model_config = ConfigDict(frozen=True)

    code: str
    severity: Severity
    message: str


class ReviewTerms(BaseModel):
    """How a review of this call is run: who may decide, how many, for how long."""

    expiry_minutes: int = 30
    required_approvals: int = 1
    four_eyes: bool = True
    reviewer_roles: list[str] = Field(default_factory=list)


class PolicyDecision(BaseModel):
    action: Action
    rule: str
    category: str | None = None
    categories: list[str] = Field(default_factory=list)
    explanation: str
    flags: list[Flag] = Field(default_factory=list)
    args_valid: bool = True
    # "structured", "text", "readable" (a resource whose type the agent reads) or "opaque".
    output_expectation: str = "text"
    risk: Literal["low", "elevated"] = "low"
    reasons: list[str] = Field(default_factory=list)
    review: ReviewTerms = Field(default_factory=ReviewTerms)
    # The definition pinned earlier, when it differs from the one offered now.
    previous_definition: dict[str, Any] | None = None
    # The version of the policy that decided (policies/versions.py); None: a policy file alone.
    policy_version: int | None = None


@dataclass(frozen=True)
class StandingRefusal:
    """A capability the policy refuses whatever the arguments: the rule that does (``default``
    when the policy's default does) and its explanation, as a refused call is told them."""

    rule: str
    explanation: str


@dataclass(frozen=True)
class Evaluation:
    """What evaluating a call found: the decision, and the pins it would record.

    Evaluating stores nothing, so an explanation, a preview or a re-check of edited arguments
    can evaluate freely. Only a caller that means to record first sight (the graph's
    validation of a real request) passes ``pins_to_record`` to ``record_pins``.
    """

    decision: PolicyDecision
    # Capability key -> the definition seen for the first time (no pin held for it yet).
    pins_to_record: Mapping[str, Pin] = field(default_factory=dict)


class OutputPolicy(Protocol):
    max_bytes: int

    def readable(self, mime_type: str | None) -> bool: ...

    def opaque(self, result: McpResult) -> bool: ...


class Policy(Protocol):
    """What validate_capability and integrate_result ask. Server words never decide."""

    @property
    def output(self) -> OutputPolicy: ...

    def evaluate(
        self, capability: Capability, arguments: dict[str, Any], *, derived: Mapping[str, str] | None = None
    ) -> Evaluation:
        """The decision on calling ``capability`` with ``arguments`` (``derived``: those nobody
        stated, with the words each was derived from); stores nothing."""
        ...

    def standing_refusal(self, capability: Capability) -> StandingRefusal | None:
        """The rule that refuses every call of ``capability`` whatever its arguments, with its
        explanation; None when some call of it may be allowed or go to a reviewer."""
        ...

    def record_pins(self, pins: Mapping[str, Pin]) -> None:
        """Record definitions seen for the first time (an evaluation's ``pins_to_record``)."""
        ...

    def effect_of(self, key: str) -> EffectDeclaration | None:
        """How this capability's effect is previewed and read back; None when not declared."""
        ...

    def scan_output(self, text: str) -> list[str]:
        """Why output text looks like an attempt to steer the agent (empty when it does not)."""
        ...

    def hide_secrets(self, value: Any, *, thread_id: str | None = None) -> Any:
        """A copy of a JSON-like value with its secrets hidden, for what leaves in telemetry."""
        ...

    def accept(self, capability: Capability) -> None:
        """A reviewer approved a call to this definition: pin it."""
        ...

    def trusts(self, server: str) -> bool:
        """Whether this server's own claims (annotations, change notifications) are relied on."""
        ...
