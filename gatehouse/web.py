"""What every page shares: the process-wide services and who the person at the browser is."""

from __future__ import annotations

import os

import streamlit as st

from gatehouse.settings import PUBLIC_URL_ENV, WEBHOOK_ENV, Settings
from gatehouse.wiring import Services, build_services
from policies.secrets import install_log_redaction


@st.cache_resource
def services() -> Services:
    """Process-wide: one MCP session pool, one database, one compiled graph for every user."""
    # Its notifications sender runs on a thread for as long as the app does.
    shared = build_services(Settings.resolve(environ=secret_settings() | dict(os.environ)))
    install_log_redaction(shared.secrets)
    # A restart is when calls cut off by a crash are found: mark them outcome_unknown, ask a reviewer.
    shared.reviews.sweep()
    return shared


def secret_settings() -> dict[str, str]:
    """Settings kept in .streamlit/secrets.toml (``[notifications]`` webhook_url and
    public_url), as their environment variables; a variable that is set wins."""
    try:
        table = st.secrets.get("notifications") or {}
    except FileNotFoundError:
        return {}
    keys = {"webhook_url": WEBHOOK_ENV, "public_url": PUBLIC_URL_ENV}
    return {variable: str(table[key]) for key, variable in keys.items() if table.get(key)}


def oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except FileNotFoundError:
        return False


def current_user() -> str | None:
    """The signed-in user (OIDC), or the name picked from the roster in local mode."""
    if oidc_configured():
        user = getattr(st.user, "email", None) or getattr(st.user, "name", None)
        return str(user) if getattr(st.user, "is_logged_in", False) and user else None
    picked = st.session_state.get("user")
    return str(picked) if picked else None


def role_of(user: str | None) -> str | None:
    return services().policy.role_of(user) if user else None


def may_review(user: str | None) -> bool:
    role = role_of(user)
    return role is not None and bool(services().policy.policy.roles[role].review)
