"""A configured server in words: its state and what it offers.

The Servers page (views/servers.py) and ``gatehouse servers check`` say the same things about a
server, from its health (mcp_host/health.py), with these functions; how it is started is its
entry's ``shown()`` (mcp_host/config.py, secrets hidden).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from gatehouse.display.counted import counted
from mcp_host.health import ServerHealth
from mcp_host.manifest import CapabilityType

# What a server offers, in the order the words name it; templates only when there are some.
_OFFERED: tuple[tuple[CapabilityType, str], ...] = (
    ("tool", "tool"),
    ("prompt", "prompt"),
    ("resource", "resource"),
)


def offer_words(offers: Mapping[CapabilityType, int]) -> str:
    """``3 tools, 1 prompt, 0 resources`` (and ``2 resource templates`` when it has some)."""
    words = [counted(offers.get(kind, 0), noun) for kind, noun in _OFFERED]
    templates = offers.get("resource_template", 0)
    if templates:
        words.append(counted(templates, "resource template"))
    return ", ".join(words)


def state_words(health: ServerHealth | None) -> str:
    """The server's state in one line: connected (with what it offers), needs sign-in, not
    connected (with why), or not started (with why)."""
    if health is None:
        return "not started"
    if health.config_error is not None:
        return f"not started: {health.config_error}"
    if health.connected:
        return _connected_words(health)
    if health.needs_sign_in:
        return "needs sign-in"
    return f"not connected: {health.last_error or 'no session'}"


def _connected_words(health: ServerHealth) -> str:
    if health.listing_error is not None:
        # Its offer is unknown (a listing that never stops paging, say): the failure is kept
        # and the listing not asked again until the back-off ends (mcp_host/sdk_client.py).
        line = (
            f"connected · listing failed: {health.listing_error.message}; "
            f"tried again in {math.ceil(health.listing_retry_in or 0)} s"
        )
    else:
        line = f"connected · {offer_words(health.offers)}" if health.listing != "not_listed" else "connected"
    # Optional list methods it does not serve: the rest of it works (a warning, not an error).
    gaps = "; ".join(f"{gap.method} ({gap.error.message})" for gap in health.missing)
    if gaps:
        line += f" · not served: {gaps}"
    if health.restarts:
        # Up again after its session ended: say so, and why it ended, once it is back.
        why = f" (last end: {health.error.message})" if health.error is not None else ""
        line += f" · restarted {counted(health.restarts, 'time')}{why}"
    return line
