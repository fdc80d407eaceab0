"""Gatehouse in the browser: chat for operators, a queue for reviewers, traces for demos.

Pages stay thin: every decision is made by the services (gatehouse/, reviews/), which also
enforce every permission; the UI only hides what the person may not do.
"""

from __future__ import annotations

import streamlit as st

from gatehouse.web import current_user, oidc_configured, role_of, services


def remember_user() -> None:
    """Local mode: keep who you are in the address, so a reload or a copied link keeps it."""
    st.query_params["as"] = st.session_state["user"]


def identity() -> None:
    app = services()
    with st.sidebar:
        if oidc_configured():
            if not getattr(st.user, "is_logged_in", False):
                st.button("Sign in", on_click=st.login)
            else:
                st.write(f"Signed in as **{current_user()}**")
                st.button("Sign out", on_click=st.logout)
        else:
            roster = sorted(app.policy.policy.users)
            st.caption(
                "Local mode: no sign-in is configured. Pick who you are from the policy's roster. "
                "The choice is kept in the page's address (?as=NAME) so a reload keeps it: a "
                "convenience, not security (anyone can pick any name)."
            )
            remembered = st.query_params.get("as")
            default = remembered if remembered in roster else "operator"
            st.selectbox(
                "You are",
                roster,
                key="user",
                index=roster.index(default) if default in roster else 0,
                on_change=remember_user,
            )
            if st.session_state.get("user") and st.query_params.get("as") != st.session_state["user"]:
                st.query_params["as"] = st.session_state["user"]
        user = current_user()
        if user:
            st.caption(f"Role: {role_of(user) or 'not in the roster'}")


@st.fragment(run_every=5)
def pending_count() -> None:
    pending = services().ledger.count("pending")
    st.sidebar.metric("Pending reviews", pending)


def main() -> None:
    st.set_page_config(page_title="Gatehouse", page_icon=":material/shield:", layout="wide")
    identity()
    pending_count()
    page = st.navigation(
        [
            st.Page("views/chat.py", title="Chat", icon=":material/chat:", default=True),
            st.Page("views/review_queue.py", title="Reviews", icon=":material/fact_check:"),
            st.Page("views/traces.py", title="Traces", icon=":material/account_tree:"),
        ]
    )
    page.run()


main()
