"""What the host knows about each offered capability, for scoring: whether it has side effects,
the defaults its schema declares, and the status the shipped policy gives a call of it.

"Side-effecting" is defined here once, from the host's own judgement, never from the planner's:
a tool is side-effecting when the policy engine rates it in an action category (writes files,
updates records, sends messages, destructive, financial action, runs commands, controls
devices), or when its annotations do not say it is read-only (the MCP default for a tool
without annotations is "not read-only"). Reading a resource and getting a prompt change
nothing, so neither is side-effecting. "Sensitive data" and "open world" are risks of a read,
not effects, and do not count.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_host.manifest import Capability, Manifest
from policies.engine import PolicyEngine
from policies.model import Category
from policies.risk import rate

ACTION_CATEGORIES: frozenset[Category] = frozenset(
    {
        "writes files",
        "updates records",
        "sends messages",
        "destructive",
        "financial action",
        "runs commands",
        "controls devices",
    }
)


@dataclass(frozen=True)
class CapabilityFacts:
    key: str
    side_effecting: bool
    # Why it counts as side-effecting (empty when it does not), for the failure table.
    why: str = ""
    # The policy engine finds an action in it (sending, deleting, ...), not only annotations
    # that leave it at the MCP defaults: a read request may expect an unannotated read
    # (a third-party server's `list_tables`), never one of these.
    rated_acting: bool = False
    # The values the input schema declares as defaults: sending one is the same as omitting it.
    defaults: dict[str, Any] = field(default_factory=dict)


def _read_only_annotation(capability: Capability) -> bool:
    annotations = capability.annotations
    return annotations.get("read_only_hint", annotations.get("readOnlyHint")) is True


def side_effect_reason(capability: Capability, categories: list[str]) -> str:
    """Why a capability has side effects, or "" when it only reads."""
    if capability.type != "tool":
        return ""
    acting = [c for c in categories if c in ACTION_CATEGORIES]
    if acting:
        return f"the policy engine rates it {', '.join(acting)}"
    if not _read_only_annotation(capability):
        return "its annotations do not say it is read-only"
    return ""


def _rated_acting(capability: Capability) -> bool:
    """The tool says it acts: an action category in its name or its annotations. Not the MCP
    defaults a tool without annotations gets, nor a parameter that could hold a command (a
    `read_query`'s `query`): those make the gate careful, not the request a write."""
    if capability.type != "tool":
        return False
    evidence = rate(capability, trusted=False).evidence
    return any(evidence.get(category, set()) & {"name", "annotations"} for category in ACTION_CATEGORIES)


def schema_defaults(capability: Capability) -> dict[str, Any]:
    return {
        name: schema["default"]
        for name, schema in capability.properties.items()
        if isinstance(schema, dict) and "default" in schema
    }


def capability_facts(manifest: Manifest, engine: PolicyEngine) -> dict[str, CapabilityFacts]:
    """Facts for every capability the servers offer, keyed ``server__name``."""
    facts: dict[str, CapabilityFacts] = {}
    for capability in manifest.capabilities():
        decision = engine.evaluate(capability, {}).decision
        categories = list(decision.categories)
        why = side_effect_reason(capability, categories)
        facts[capability.key] = CapabilityFacts(
            key=capability.key,
            side_effecting=bool(why),
            why=why,
            rated_acting=_rated_acting(capability),
            defaults=schema_defaults(capability),
        )
    return facts


def policy_status(engine: PolicyEngine, capability: Capability, arguments: dict[str, Any]) -> str:
    """The final status the policy gives a call of ``capability`` with ``arguments`` that
    holds every required argument (the graph's validate_capability, without a planner): refused
    is ``error``, review is ``needs_review``, an allowed resource the agent cannot read is
    answered without MCP, anything else allowed runs (``ok``)."""
    decision = engine.evaluate(capability, arguments).decision
    if decision.action == "deny":
        return "error"
    if decision.action == "review":
        return "needs_review"
    if decision.output_expectation == "opaque":
        return "answered_without_mcp"
    return "ok"
