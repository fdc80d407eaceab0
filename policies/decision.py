"""What a policy says about one proposed call, in the shape reviewers are shown verbatim."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

Action = Literal["allow", "review", "deny"]
Severity = Literal["info", "low", "medium", "high", "critical"]


class Flag(BaseModel):
    """One validation finding: a stable code for machines, a sentence for people."""

    model_config = ConfigDict(frozen=True)

    code: str
    severity: Severity
    message: str


class PolicyDecision(BaseModel):
    action: Action
    rule: str
    category: str | None = None
    explanation: str
    flags: list[Flag] = Field(default_factory=list)


class Policy(Protocol):
    """The hook validate_capability calls. The policy issue's engine implements it too."""

    def evaluate(self, capability: Capability, arguments: dict[str, Any]) -> PolicyDecision: ...
