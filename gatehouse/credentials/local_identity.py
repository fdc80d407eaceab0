"""Local mode's memory of who is at the browser: the address (?as=NAME), then a cookie.

Without sign-in (no OIDC), the person picks a name from the policy's roster. The choice is
kept in the page's address, so a reload or a copied link keeps it, and in a cookie of the
app's origin, so a new tab opened at the bare address starts as the same person. Both are a
convenience, not security: anyone can pick any name. With sign-in, neither is used.

Streamlit reads cookies (``st.context.cookies``, those sent when the session connected) but
cannot set them; the page sets this one with a small script (see ``cookie_script``).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from urllib.parse import unquote

COOKIE = "gatehouse_local_identity"
# Long enough to outlive a browser restart and a holiday; it holds a roster name, nothing secret.
MAX_AGE_SECONDS = 90 * 24 * 3600
DEFAULT_USER = "operator"


def remembered_user(linked: str | None, cookie: str | None, roster: Collection[str]) -> str | None:
    """Who the session starts as: the address's name, else the cookie's (as the browser sent
    it, URI-encoded), else None (the caller's default). A name not in the roster is ignored,
    wherever it came from."""
    for name in (linked, unquote(cookie) if cookie else None):
        if name and name in roster:
            return name
    return None


def cookie_script(user: str) -> str:
    """An HTML ``<script>`` that stores ``user`` in the identity cookie for the whole origin.

    The name is written as a JSON string literal with ``<`` escaped, so no name can end the
    script element, and URI-encoded into the cookie (read back decoded by the server).
    SameSite=Strict: no other site's page or link carries it to the app.
    """
    value = json.dumps(user).replace("<", "\\u003c")
    return (
        "<script>"
        f"document.cookie = {json.dumps(COOKIE)} + '=' + encodeURIComponent({value})"
        f" + '; path=/; max-age={MAX_AGE_SECONDS}; SameSite=Strict';"
        "</script>"
    )
