"""Helpers more than one node module uses: text normalisation and the live definition."""

from __future__ import annotations

import re
import unicodedata

from graph.context import GraphContext
from mcp_host.errors import ErrorInfo
from mcp_host.manifest import Manifest

_WHITESPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Drop control and invisible format characters, then collapse whitespace."""
    kept = [
        " " if ch in "\t\r\n" else ch
        for ch in text
        if unicodedata.category(ch) not in {"Cc", "Cf"} or ch in "\t\r\n"
    ]
    return _WHITESPACE.sub(" ", "".join(kept)).strip()


def server_down(listing: Manifest, server: str) -> ErrorInfo | None:
    """Why ``server`` offers nothing in ``listing`` because it cannot be reached (not connected,
    its process cannot start), or None: a capability missing from a server that answered is
    gone, one missing from a server that did not is only out of reach."""
    offer = listing.server(server)
    if offer is None or offer.ok:
        return None
    return offer.error or ErrorInfo(kind="unavailable", message="its listing failed")


def current_listing(context: GraphContext, server: str) -> Manifest:
    """The servers' offer with ``server``'s as it is now: what a decision or an approved call
    is judged on (the capability's definition, or why its server cannot say).

    Discovery may serve a cached listing; a server that quietly swapped a tool's description
    or schema (a "rug pull" without a list_changed notification) must be judged on the new
    one, so its listing is fetched fresh. The exception is a server the policy trusts that
    promised list_changed notifications: its cached listing is current by that promise (a
    notification drops it), as mature hosts treat every server; that saves a round trip.
    """
    listing = context.mcp.discover(only=[server])
    cached = listing.server(server)
    if not (cached is not None and cached.announces_changes and context.policy.trusts(server)):
        listing = context.mcp.discover(fresh=True, only=[server])
    return listing
