"""A validation flag as one line of Markdown a person reads: Gatehouse's own severity badge,
the flag's code, and its reason as literal text that wraps (never cut off in a table cell).

The badge is Gatehouse's fact (the severity is the policy's, from a fixed set); the code and
the reason may quote a server or a requester, so they go through gatehouse/web/literal.py.
Secrets are hidden by the caller.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gatehouse.web.literal import markdown_literal, name_literal

SEVERITY_BADGES = {
    "critical": ":red-badge[critical]",
    "high": ":red-badge[high]",
    "medium": ":orange-badge[medium]",
    "low": ":gray-badge[low]",
}


def flag_markdown(flag: Mapping[str, Any]) -> str:
    severity = str(flag.get("severity") or "")
    badge = SEVERITY_BADGES.get(severity) or markdown_literal(severity or "unrated")
    code = name_literal(str(flag.get("code") or "flag"))
    reason = markdown_literal(str(flag.get("message") or ""))
    return f"{badge} {code}: {reason}" if reason else f"{badge} {code}"
