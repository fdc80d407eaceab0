"""What arguments a reviewer may put into an approval, checked before anything is recorded.

A reviewer's edit is input like any other: it must fit the tool's schema and the policy, and it
must be storable and sendable (no NUL, which PostgreSQL cannot store; no nesting so deep that
serialising it exhausts the stack; no payload so large it swamps the ledger and the checkpoints).
A refusal names where the problem is and leaves the review pending for a corrected decision.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from reviews.errors import DecisionNotAllowedError

if TYPE_CHECKING:
    from mcp_host.manifest import Capability
    from policies.decision import Policy

# Real tool arguments are a few levels deep; JSON parsers and serialisers along the way
# (jsonschema, the checkpoint serialiser) recurse per level.
MAX_DEPTH = 32
# Canonical JSON size of all arguments together.
MAX_BYTES = 256 * 1024


def check_storable(arguments: Any, where: str = "arguments") -> None:
    """NUL characters, non-finite numbers and excessive depth or size are refused, naming where.

    Walks iteratively: a structure nested thousands deep must be refused, not crash the walk."""
    stack: list[tuple[Any, str, int]] = [(arguments, where, 1)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DecisionNotAllowedError(
                f"{path} is nested more than {MAX_DEPTH} levels deep; arguments that deep are not accepted"
            )
        if isinstance(value, str) and "\x00" in value:
            raise DecisionNotAllowedError(
                f"{path} contains a NUL character (U+0000): it cannot be stored or sent"
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise DecisionNotAllowedError(f"{path} is {value}, which JSON cannot carry")
        if isinstance(value, dict):
            for key, item in value.items():
                if "\x00" in str(key):
                    raise DecisionNotAllowedError(
                        f"{path} has a key with a NUL character (U+0000): it cannot be stored or sent"
                    )
                stack.append((item, f"{path}.{key}", depth + 1))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{index}]", depth + 1) for index, item in enumerate(value))
    size = len(json.dumps(arguments, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > MAX_BYTES:
        raise DecisionNotAllowedError(f"{where} are {size:,} bytes as JSON; the limit is {MAX_BYTES:,}")


def check_against_policy(capability: Capability, arguments: dict[str, Any], policy: Policy) -> None:
    """The edited call as the policy sees it: schema, required arguments, refusals.

    A review the policy would send it to is what the reviewer is giving, so "review" passes;
    a refusal (deny) or an argument the schema does not accept does not."""
    missing = [name for name in capability.required_arguments if name not in arguments]
    if missing:
        raise DecisionNotAllowedError(
            f"the edited arguments leave out what {capability.key} requires: {', '.join(missing)}"
        )
    verdict = policy.evaluate(capability, arguments).decision
    invalid = [flag.message for flag in verdict.flags if flag.code in {"invalid_argument", "invalid_schema"}]
    if invalid:
        raise DecisionNotAllowedError(
            f"the edited arguments do not fit {capability.key}: {'; '.join(invalid)}"
        )
    if verdict.action == "deny":
        raise DecisionNotAllowedError(
            f"the policy refuses {capability.key} with the edited arguments ({verdict.rule}): {verdict.explanation}"
        )
