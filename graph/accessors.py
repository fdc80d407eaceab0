"""Typed reads of GraphState, and the pydantic models' JSON as the state's shapes.

A field a node has not written yet reads as its empty value here, in one place, so the nodes
never spell ``(state.get(...) or {}).get(...)``. The ``*_data`` functions dump a model as the
TypedDict graph/state.py declares for it; tests/graph/test_state_shapes.py keeps each
declaration equal to its model's fields, which is what makes the casts below honest.
"""

from __future__ import annotations

from typing import Any, cast

from graph.choice_words import TIE
from graph.state import (
    ApprovedCall,
    AskedData,
    CapabilityDefinition,
    CapabilityValidation,
    EffectBinding,
    EffectBindingData,
    ErrorInfoData,
    FinalOutput,
    FinalOutputData,
    FlagData,
    GraphState,
    ManifestData,
    McpRequest,
    McpRequestData,
    McpResultData,
    PreviousDefinition,
    ReviewDecision,
    ReviewDecisionData,
    ReviewTermsData,
    SelectedCapability,
)
from mcp_host.errors import ErrorInfo
from mcp_host.manifest import Capability, Manifest
from mcp_host.results import McpResult
from policies.decision import Flag, ReviewTerms, Severity

# -- models as state values -----------------------------------------------------------------


def flag_data(code: str, severity: Severity, message: str) -> FlagData:
    """A validation finding as state JSON (checked by policies.decision.Flag on the way)."""
    return cast("FlagData", Flag(code=code, severity=severity, message=message).model_dump(mode="json"))


def error_data(error: ErrorInfo) -> ErrorInfoData:
    return cast("ErrorInfoData", error.model_dump(mode="json"))


def flags_data(flags: list[Flag]) -> list[FlagData]:
    return [cast("FlagData", flag.model_dump(mode="json")) for flag in flags]


def capability_data(capability: Capability) -> CapabilityDefinition:
    return cast("CapabilityDefinition", capability.model_dump(mode="json"))


def manifest_data(manifest: Manifest) -> ManifestData:
    return cast("ManifestData", manifest.model_dump(mode="json"))


def previous_definition_data(pinned: dict[str, Any]) -> PreviousDefinition:
    """A definition the policy pinned (policies/pins.py definition_of: the fields a
    PreviousDefinition declares)."""
    return cast("PreviousDefinition", pinned)


def review_terms_data(terms: ReviewTerms) -> ReviewTermsData:
    return cast("ReviewTermsData", terms.model_dump(mode="json"))


def request_data(request: McpRequest) -> McpRequestData:
    return cast("McpRequestData", request.model_dump(mode="json"))


def result_data(result: McpResult) -> McpResultData:
    return cast("McpResultData", result.model_dump(mode="json"))


def decision_data(decision: ReviewDecision) -> ReviewDecisionData:
    return cast("ReviewDecisionData", decision.model_dump(mode="json"))


def effect_binding_data(binding: EffectBinding) -> EffectBindingData:
    return cast("EffectBindingData", binding.model_dump(mode="json"))


def final_output_data(output: FinalOutput) -> FinalOutputData:
    return cast("FinalOutputData", output.model_dump(mode="json"))


# -- reads ----------------------------------------------------------------------------------


def errors_with(state: GraphState, *new: str) -> list[str]:
    """The request's errors so far, then ``new``."""
    return [*state.get("errors", []), *new]


def selection(state: GraphState) -> SelectedCapability:
    """The selected capability as the state holds it.

    Raises:
        ValueError: nothing is selected (the graph routed to a node that needs a selection
            without one: a bug in routing, never the operator's doing).
    """
    selected = state.get("selected_capability")
    if not selected:
        raise ValueError("no capability is selected: the graph reached a node that needs one")
    return selected


def asked_about(selected: SelectedCapability | None) -> tuple[AskedData, list[str]] | None:
    """Why the operator is asked which capability they mean, with the keys offered (the
    selected one first); None when the selection stands. A selection checkpointed by an older
    release has no ``asked``: its ``ambiguous_with`` alone asked, as a tie."""
    if not selected:
        return None
    other = selected.get("ambiguous_with")
    keys = [selected["key"], *([other] if other else [])]
    if "asked" in selected:
        asked = selected["asked"]
        return (asked, keys) if asked is not None else None
    return (TIE.copy(), keys) if other else None


def selected_capability(state: GraphState) -> Capability:
    """The selected capability as a model (its selection fields dropped).

    Raises:
        ValueError: nothing is selected (see selection).
    """
    return Capability.model_validate(selection(state))


def manifest(state: GraphState) -> Manifest:
    """What discovery found; empty before discover_capabilities ran."""
    return Manifest.model_validate(state.get("capability_manifest") or {})


def validation(state: GraphState) -> CapabilityValidation:
    """validate_capability's verdict; empty before it ran."""
    return state.get("capability_validation") or {}


def validation_flags(state: GraphState) -> list[FlagData]:
    return list(validation(state).get("flags", []))


def validation_with_flags(state: GraphState, *flags: FlagData) -> CapabilityValidation:
    """A copy of the verdict with ``flags`` added after the ones it has: later findings (a
    failed call, held output, a changed definition) add to it and never rewrite it."""
    current = validation(state)
    return {**current, "flags": [*current.get("flags", []), *flags]}


def proposed_arguments(state: GraphState) -> dict[str, Any]:
    return state.get("proposed_arguments", {})


def approval_for(state: GraphState, key: str) -> ApprovedCall | None:
    """The approval the state holds for the capability ``key``, if it holds one for it."""
    approved = state.get("approved_call")
    return approved if approved and approved["key"] == key else None
