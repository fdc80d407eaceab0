"""Gatehouse in the browser: chat for operators, a queue for reviewers, traces for demos.

Pages stay thin: every decision is made by the services (gatehouse/, reviews/), which also
enforce every permission; the UI only hides what the person may not do.
"""

from __future__ import annotations

import streamlit as st

from gatehouse.literal import markdown_literal
from gatehouse.local_identity import COOKIE, DEFAULT_USER, cookie_script, remembered_user
from gatehouse.settings import SERVERS_PAGE_PATH
from gatehouse.visible_text import visible
from gatehouse.web import current_user, live_pending_count, oidc_configured, role_of, services


def remember_user() -> None:
    """Local mode: keep who you are in the address, so a reload or a copied link keeps it
    (remember_in_browser() keeps it in a cookie too, for new tabs)."""
    st.query_params["as"] = st.session_state["user"]


def identity() -> None:
    app = services()
    with st.sidebar:
        if oidc_configured():
            if not getattr(st.user, "is_logged_in", False):
                st.button("Sign in", on_click=st.login)
            else:
                st.write(f"Signed in as **{markdown_literal(current_user() or '')}**")
                st.button("Sign out", on_click=st.logout)
        else:
            roster = sorted(app.policy.policy.users)
            st.caption(
                "Local mode: no sign-in is configured. Pick who you are from the policy's roster. "
                "The choice is kept in the page's address (?as=NAME) and in a cookie of this "
                "browser, so a reload or a new tab keeps it: a convenience, not security (anyone "
                "can pick any name)."
            )
            remembered = remembered_user(st.query_params.get("as"), st.context.cookies.get(COOKIE), roster)
            default = remembered or DEFAULT_USER
            st.selectbox(
                "You are",
                roster,
                key="user",
                index=roster.index(default) if default in roster else 0,
                format_func=visible,
                on_change=remember_user,
            )
            if st.session_state.get("user") and st.query_params.get("as") != st.session_state["user"]:
                st.query_params["as"] = st.session_state["user"]
        user = current_user()
        if user:
            st.caption(f"Role: {markdown_literal(role_of(user) or 'not in the roster')}")
        # Which planner chooses capabilities (a model's proposals go through the same policy).
        st.caption(f"Planner: {markdown_literal(app.context.planner.label)}")


def remember_in_browser() -> None:
    """Local mode: store the picked name in the browser's identity cookie, so a new tab at
    the bare address starts as the same person (gatehouse/local_identity.py).

    Last in the sidebar: the script's empty element still takes a gap, unseen at the end.
    Streamlit redraws an unchanged element without running its script again, so the script
    runs when the page loads and when the name changes."""
    picked = st.session_state.get("user")
    if not oidc_configured() and picked:
        st.sidebar.html(cookie_script(picked), unsafe_allow_javascript=True)


def main() -> None:
    st.set_page_config(page_title="Gatehouse", page_icon=":material/shield:", layout="wide")
    identity()
    page = st.navigation(
        [
            st.Page("views/chat.py", title="Chat", icon=":material/chat:", default=True),
            st.Page("views/review_queue.py", title="Reviews", icon=":material/fact_check:"),
            st.Page("views/traces.py", title="Traces", icon=":material/account_tree:"),
            st.Page("views/servers.py", title="Servers", icon=":material/dns:", url_path=SERVERS_PAGE_PATH),
        ]
    )
    with st.sidebar:
        # A fragment of the sidebar's own, not one of the page's writing into the sidebar: with
        # those, a page crashed in the browser tests ("Bad delta path index", Streamlit 1.67).
        live_pending_count()
    remember_in_browser()
    page.run()


main()
