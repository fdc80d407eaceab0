"""Which of the servers' capabilities a caller is offered at Gatehouse's MCP endpoint.

What the policy can say about a person is their role's ``request``: someone whose role may
not make requests (or who is off the roster) is offered nothing. Its rules are per
capability, never per person or role, and their verdict depends on the arguments only
through the low-risk rating (policies/engine.py refuses_whatever_the_arguments). So a
capability is left out exactly when every call of it would be refused, whatever the
arguments: a deny rule that applies to it as it is defined (no ``risk = "low"`` limit), or a
default of deny that no rule overrides. One that arguments could make allowed, or send to a
reviewer (a constraint that refuses some values, say), stays listed.

Leaving a capability out changes no answer: a call naming it goes through the policy like any
other and gets the same refusal, with its rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp_host.manifest import Capability, Manifest
    from policies.engine import PolicyEngine


def offered_to(policy: PolicyEngine, caller: str, manifest: Manifest) -> list[Capability]:
    """The capabilities ``caller`` is offered, in the servers' order."""
    if not policy.may_request(caller):
        return []
    return [c for c in manifest.capabilities() if policy.refuses_whatever_the_arguments(c) is None]
