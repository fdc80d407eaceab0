"""Servers: each configured MCP server's state, and Connect for remote servers behind OAuth.

Everyone sees the states (connected, needs sign-in, error, a listing that failed and when it
is tried again, optional list methods a server does not serve, an entry of the servers file
that could not be loaded, naming the file, the entry and the key) and what each server offers,
all read from one health model (mcp_host/health.py); people whose role may manage servers (``manage_servers`` in the policy) connect a remote server here,
once for every user and replica (gatehouse/credentials/app_sign_in.py). The sign-in's return lands on this
page (``?code=...&state=...``) and is handed to the waiting flow through the database.

Server names, addresses and error messages come from the servers file and the servers
themselves: shown as literal text, never as Markdown, addresses without their secrets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from gatehouse.credentials.app_sign_in import Attempt, SignInAttempts, start_connect
from gatehouse.credentials.server_credentials import credential_key
from gatehouse.display.policy_report import roots_line
from gatehouse.display.server_words import state_words
from gatehouse.web.literal import markdown_lines, markdown_literal, name_literal, show
from gatehouse.web.page import current_user, may_manage_servers, services
from mcp_host.reported import ReportedError

if TYPE_CHECKING:
    from mcp_host.config import ServersConfig

REFRESH_SECONDS = 2


def _on_the_services_database(cached: SignInAttempts) -> bool:
    # Services opened afresh bring a new database and close the old one.
    return cached.database is services().ledger.database


@st.cache_resource(validate=_on_the_services_database)
def attempts() -> SignInAttempts:
    settings = services().settings
    # On the database the app's stores already share (one pool per process, not one more).
    return SignInAttempts(services().ledger.database, credential_key(settings.secret_key))


def take_the_return() -> None:
    """The browser is back from an authorization server: give the code to the waiting flow."""
    state = st.query_params.get("state")
    if not state:
        return
    server = attempts().returned(
        state, st.query_params.get("code"), st.query_params.get("iss"), st.query_params.get("error")
    )
    for key in ("code", "state", "iss", "error", "error_description", "session_state"):
        st.query_params.pop(key, None)
    if server is None:
        st.warning(
            "This sign-in is not waited for (finished already, or started too long ago). Connect again."
        )
    else:
        st.session_state["returned_from"] = server


def attempt_line(attempt: Attempt, user: str | None) -> None:
    if attempt.status == "waiting" and attempt.authorization_url:
        if attempt.started_by == user:
            st.link_button("Open the sign-in page", attempt.authorization_url, type="primary")
            st.caption(
                "Sign in there; the browser comes back to this page and the connection finishes by itself."
            )
        else:
            st.caption(f"{markdown_literal(attempt.started_by)} is signing in to this server.")
    elif attempt.status in {"waiting", "returned"}:
        st.caption("Signing in ...")
    elif attempt.status == "connected":
        st.caption(
            f"Connected by {markdown_literal(attempt.started_by)} ({markdown_literal(attempt.detail or '')})."
        )
    else:
        st.caption(f"The last sign-in failed: {markdown_literal(attempt.detail or 'no reason given')}")


def connect(server: str, user: str) -> None:
    app = services()
    try:
        config = app.requests.servers_file()
        # After the sign-in, this replica's session to the server reads the new tokens.
        start_connect(app.settings, config, server, user, on_connected=app.requests.reconnect)
    except ReportedError as exc:
        st.session_state["connect_error"] = exc.lines


@st.fragment(run_every=REFRESH_SECONDS)
def server_list(config: ServersConfig, user: str | None) -> None:
    app = services()
    # The servers' health after a discovery (which re-opens a session waiting for a sign-in).
    rows = app.requests.server_rows(config)
    manager = may_manage_servers(user)
    for row in rows:
        name, health = row.name, row.health
        # Keyed, so each server's box is addressable (the CSS class st-key-server-NAME).
        with st.container(border=True, key=f"server-{name}"):
            name_column, state_column, action_column = st.columns([2, 3, 2])
            with name_column:
                st.markdown(f"**{name_literal(name)}**")
                if row.where is not None:
                    show(row.where)  # plain text: an address is never turned into a link
                    # Folders come from the servers file or its arguments: literal text, too.
                    st.caption(markdown_literal(roots_line(app.policy, name)))
            with state_column:
                # An error may quote what it failed on (a URL with a token): secrets hidden.
                state = app.secrets.text(state_words(health))
                if health is not None and health.config_error is not None:
                    # Every mistake of the entry, one a line (ConfigProblem.lines).
                    st.markdown(markdown_lines(state.splitlines()))
                else:
                    st.markdown(markdown_literal(state))
                if row.reason_in_log is not None:
                    st.markdown(f"From its log: {markdown_literal(row.reason_in_log)}")
                if row.log is not None:
                    st.caption(f"Full log: {markdown_literal(row.log)}")
                latest = attempts().latest(name) if row.remote else None
                if latest is not None:
                    attempt_line(latest, user)
            with action_column:
                if row.needs_person and manager and user:
                    label = "Connect" if health is None or not health.connected else "Sign in again"
                    if st.button(label, key=f"connect-{name}"):
                        connect(name, user)
                        st.rerun(scope="fragment")
    problem = st.session_state.pop("connect_error", None)
    if problem:
        st.error(markdown_lines(problem))


st.title("Servers")
st.caption(
    "The MCP servers in the servers file: connected, waiting for someone to sign in, or failing, "
    "and what each offers. A remote server behind OAuth is connected once, here or with "
    "`gatehouse servers login NAME`, for every user and replica; its tokens are kept encrypted."
)
take_the_return()
returned = st.session_state.pop("returned_from", None)
if returned:
    st.success(f"Back from signing in to {markdown_literal(returned)}: finishing the connection.")
person = current_user()
if not may_manage_servers(person):
    st.info("Only people whose role may manage servers (admin in the shipped policy) connect servers here.")
configured = services().requests.servers_file()
for problem in configured.problems:
    if problem.entry is None:
        # The file as a whole could not be used: no server runs, and this says why.
        first, *more = problem.lines
        st.error(markdown_lines([f"The servers file cannot be used: {first}", *more]))
server_list(configured, person)
