"""What every page shares: the process-wide services, who the person at the browser is, and
their time zone."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import tzinfo

import streamlit as st

from gatehouse.credentials.oidc_identity import (
    CONFIG_KEY,
    CONFIG_TABLE,
    SignInRefused,
    identity_claim,
    signed_in_user,
)
from gatehouse.display.reader_time import zone_named
from gatehouse.errors import ConfigurationError
from gatehouse.settings import (
    MODEL_ENV,
    MODEL_TIMEOUT_ENV,
    PUBLIC_URL_ENV,
    WEBHOOK_ENV,
    WEBHOOK_FORMAT_ENV,
    Settings,
)
from gatehouse.web.background_runs import RunsInProgress
from gatehouse.web.live_queue import expire_overdue_and_count_pending
from gatehouse.web.live_view import SharedLooks
from gatehouse.wiring import Services, build_services, servers_config_or_problem
from policies.secrets import install_log_redaction


@st.cache_resource
def services() -> Services:
    """Process-wide: one MCP session pool, one database, one compiled graph for every user."""
    # Its notifications sender runs on a thread for as long as the app does.
    settings = Settings.resolve(environ=secret_settings() | dict(os.environ))
    # A broken servers file, or a broken entry in it, is shown on the Servers page (and noted
    # on the others), never raised here: that would be a traceback on every page.
    shared = build_services(settings, servers=servers_config_or_problem(settings))
    install_log_redaction(shared.secrets)
    # A restart is when calls cut off by a crash are found: mark them outcome_unknown, ask a reviewer.
    shared.reviews.sweep()
    return shared


@st.cache_resource
def shared_looks() -> SharedLooks:
    """Process-wide: the reads every open tab's live views share for a second (live_view.py)."""
    return SharedLooks()


def pending_count(*, fresh: bool) -> int:
    """Every review waiting for a decision (those past their deadline expired first), read
    once a second for all the tabs' timed looks; ``fresh``: read now (a page's own run)."""
    return shared_looks().look(
        "pending", lambda: expire_overdue_and_count_pending(services().reviews), fresh=fresh
    )


@st.cache_resource
def runs_in_progress() -> RunsInProgress:
    """Process-wide: the chat's requests running on threads of their own (one per thread)."""
    return RunsInProgress()


# Tables of .streamlit/secrets.toml that hold settings: table -> {key: environment variable}.
_SECRET_SETTINGS = {
    "notifications": {
        "webhook_url": WEBHOOK_ENV,
        "webhook_format": WEBHOOK_FORMAT_ENV,
        "public_url": PUBLIC_URL_ENV,
    },
    "planner": {"model": MODEL_ENV, "timeout_seconds": MODEL_TIMEOUT_ENV},
}


def secret_settings() -> dict[str, str]:
    """Settings kept in .streamlit/secrets.toml (``[notifications]`` webhook_url, webhook_format
    and public_url, ``[planner]`` model and timeout_seconds), as their environment variables; a
    variable that is set wins. A provider's key (OPENAI_API_KEY, ...) is a root-level entry of
    that file, which Streamlit itself exports as an environment variable."""
    found: dict[str, str] = {}
    for name, keys in _SECRET_SETTINGS.items():
        try:
            table = st.secrets.get(name) or {}
        except FileNotFoundError:
            return {}
        found |= {variable: str(table[key]) for key, variable in keys.items() if table.get(key)}
    return found


def oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except FileNotFoundError:
        return False


def signed_in() -> bool:
    """Whether the identity provider has signed this browser's person in (OIDC)."""
    return bool(getattr(st.user, "is_logged_in", False))


def signed_in_identity() -> str:
    """The signed-in person's user name, from a claim the identity provider vouches for
    (gatehouse/credentials/oidc_identity.py). Raises SignInRefused when none names them, and
    ConfigurationError for an ``[identity] claim`` that cannot identify anyone."""
    claim = identity_claim(_secret_table(CONFIG_TABLE).get(CONFIG_KEY))
    return signed_in_user(st.user.to_dict(), claim)


def current_user() -> str | None:
    """The signed-in user (OIDC), or the name picked from the roster in local mode. None for a
    sign-in refused (app.py shows why and runs no page)."""
    if oidc_configured():
        if not signed_in():
            return None
        try:
            return signed_in_identity()
        except (SignInRefused, ConfigurationError):
            return None
    picked = st.session_state.get("user")
    return str(picked) if picked else None


def _secret_table(name: str) -> Mapping[str, object]:
    """The table ``[name]`` of .streamlit/secrets.toml, empty when there is none."""
    try:
        table = st.secrets.get(name)
    except FileNotFoundError:
        return {}
    if table is None:
        return {}
    if not isinstance(table, Mapping):
        raise ConfigurationError(
            f".streamlit/secrets.toml: {name} must be a table ([{name}]), not a {type(table).__name__}"
        )
    return table


def reader_zone() -> tzinfo:
    """The time zone the reader's browser reports, UTC without a usable one (reader_time.zone_named)."""
    return zone_named(st.context.timezone)


def servers_file_notice() -> str | None:
    """A short line for every page when the servers file has entries that could not be
    loaded (the Servers page says which and why), else None."""
    config = services().servers
    if config is None or not config.problems:
        return None
    whole = next((problem for problem in config.problems if problem.entry is None), None)
    if whole is not None:
        return "The servers file cannot be used, so no server runs: see Servers."
    names = ", ".join(problem.entry or "?" for problem in config.problems)
    return f"Skipped in the servers file (broken): {names}. See Servers."


def role_of(user: str | None) -> str | None:
    return services().policy.role_of(user) if user else None


def may_review(user: str | None) -> bool:
    # One read of the policy: a newer version may arrive between two (policies/engine.py).
    role = services().policy.role(user) if user else None
    return role is not None and bool(role.review)


def may_manage_servers(user: str | None) -> bool:
    role = services().policy.role(user) if user else None
    return role is not None and role.manage_servers


def may_manage_policy(user: str | None) -> bool:
    return user is not None and services().policy.may_manage_policy(user)
