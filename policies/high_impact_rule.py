"""The interim rule in code: high-impact capabilities wait for a reviewer, the rest run.

The policy engine (policies/default.toml) replaces this. Until then the rule reads only the
capability's name, never the server's annotations or description: a server's own words are
data, not authority, and a server calling its delete tool "read-only" must not skip review.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from policies.decision import Flag, PolicyDecision

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

# Verb in a capability name -> the spec's category of high-impact action.
_HIGH_IMPACT_VERBS: dict[str, str] = {
    **dict.fromkeys(
        ("write", "edit", "save", "create", "append", "move", "rename", "upload"), "writes files"
    ),
    **dict.fromkeys(("delete", "remove", "drop", "purge", "truncate", "destroy", "wipe"), "destructive"),
    **dict.fromkeys(
        ("send", "post", "publish", "notify", "email", "mail", "reply", "forward"), "sends messages"
    ),
    **dict.fromkeys(
        ("update", "set", "patch", "modify", "close", "assign", "commit", "reset"), "updates records"
    ),
    **dict.fromkeys(
        ("pay", "transfer", "charge", "refund", "purchase", "buy", "invoice"), "financial action"
    ),
    **dict.fromkeys(
        ("control", "switch", "turn", "unlock", "lock", "start", "stop", "restart", "reboot", "exec", "run"),
        "controls devices",
    ),
}

_WORD = re.compile(r"[a-z]+")


def _name_words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return _WORD.findall(spaced.lower())


class HighImpactRule:
    """Review anything that writes, sends, updates, deletes, pays or controls devices."""

    name = "code:high-impact-verbs"

    def evaluate(self, capability: Capability, arguments: dict[str, Any]) -> PolicyDecision:
        if capability.type != "tool":
            # Reading a resource or rendering a prompt changes nothing on the server.
            return PolicyDecision(
                action="allow", rule=self.name, explanation=f"{capability.type} reads have no side effects"
            )
        for word in _name_words(capability.name):
            category = _HIGH_IMPACT_VERBS.get(word)
            if category is not None:
                return PolicyDecision(
                    action="review",
                    rule=self.name,
                    category=category,
                    explanation=f"{capability.name} {category}: a high-impact action requires human approval",
                    flags=[
                        Flag(
                            code="high_impact_action",
                            severity="high",
                            message=f"'{word}' in {capability.key} marks it as an action that {category}",
                        )
                    ],
                )
        return PolicyDecision(
            action="allow",
            rule=self.name,
            explanation=f"{capability.name} has no high-impact verb in its name",
        )
