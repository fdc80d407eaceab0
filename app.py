"""Gatehouse in the browser: chat for operators, a queue for reviewers, traces for demos.

Pages stay thin: every decision is made by the services (gatehouse/, reviews/), which also
enforce every permission; the UI only hides what the person may not do.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from gatehouse.credentials.local_identity import COOKIE, DEFAULT_USER, cookie_script, remembered_user
from gatehouse.credentials.oidc_identity import SignInRefused
from gatehouse.display.visible_text import visible
from gatehouse.errors import ConfigurationError
from gatehouse.settings import REVIEWS_PAGE_PATH, SERVERS_PAGE_PATH
from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import (
    current_user,
    oidc_configured,
    role_of,
    servers_file_notice,
    services,
    signed_in,
    signed_in_identity,
)
from gatehouse.web.review_link import follow_review_link
from gatehouse.web.waiting_on_you import live_waiting_count

# The tab's icon, a file of this repository (sent inline as a data: URL). A material icon's name
# (":material/shield:") makes the browser fetch the picture from fonts.gstatic.com: no icon
# offline, and a request to an outside host from every open tab.
FAVICON = Path(__file__).resolve().parent / "gatehouse" / "web" / "favicon.svg"
# What Streamlit's styles leave out (gatehouse/web/page.css says what and why).
PAGE_STYLE = FAVICON.with_name("page.css")
# The Reviews page lived at /review_queue (its file's name): old links and bookmarks still open it.
REVIEWS_OLD_PATH = "review_queue"
# Chat is the default page, at the root; /chat (what a person types, as /reviews) opens it too.
CHAT_PATH = "chat"


def remember_user() -> None:
    """Local mode: keep who you are in the address, so a reload or a copied link keeps it
    (remember_in_browser() keeps it in a cookie too, for new tabs)."""
    st.query_params["as"] = st.session_state["user"]


def identity() -> None:
    app = services()
    with st.sidebar:
        if oidc_configured():
            if not signed_in():
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


def refuse_unidentified_sign_in() -> None:
    """A person the identity provider signed in but no claim it vouches for names (an address
    it never verified, only a display name): the page says why, offers to sign out, and stops,
    so no page runs for someone who is nobody (gatehouse/credentials/oidc_identity.py)."""
    if not (oidc_configured() and signed_in()):
        return
    try:
        signed_in_identity()
        return
    except SignInRefused as refused:
        why = f"**Your sign-in is refused:** {markdown_literal(str(refused))}."
    except ConfigurationError as problem:
        why = f"**Sign-in is misconfigured:** {markdown_literal(str(problem))}"
    st.title("Gatehouse")
    st.error(why)
    st.button("Sign out", on_click=st.logout)
    st.stop()


def remember_in_browser() -> None:
    """Local mode: store the picked name in the browser's identity cookie, so a new tab at
    the bare address starts as the same person (gatehouse/credentials/local_identity.py).

    Last in the sidebar: the script's empty element still takes a gap, unseen at the end.
    Streamlit redraws an unchanged element without running its script again, so the script
    runs when the page loads and when the name changes."""
    picked = st.session_state.get("user")
    if not oidc_configured() and picked:
        st.sidebar.html(cookie_script(picked), unsafe_allow_javascript=True)


def main() -> None:
    st.set_page_config(page_title="Gatehouse", page_icon=FAVICON, layout="wide")
    st.html(PAGE_STYLE)  # style only: Streamlit puts it where it takes no room
    refuse_unidentified_sign_in()
    identity()
    # Each page's address is its title's word (/reviews), as a person would type it.
    reviews = st.Page(
        "views/review_queue.py", title="Reviews", icon=":material/fact_check:", url_path=REVIEWS_PAGE_PATH
    )
    page = st.navigation(
        [
            # Its url_path is the root's own (""): the one inferred from the file, "chat",
            # would be reserved by the default page although it is served at the root only.
            st.Page("views/chat.py", title="Chat", icon=":material/chat:", default=True, url_path=""),
            reviews,
            st.Page("views/traces.py", title="Traces", icon=":material/account_tree:"),
            st.Page("views/servers.py", title="Servers", icon=":material/dns:", url_path=SERVERS_PAGE_PATH),
            st.Page("views/policy.py", title="Policy", icon=":material/policy:"),
            # The same page at its old address, unlisted: links with ?review=ID made before work.
            st.Page("views/review_queue.py", title="Reviews", url_path=REVIEWS_OLD_PATH, visibility="hidden"),
            # Chat at /chat too, unlisted: the root is its entry in the navigation.
            st.Page("views/chat.py", title="Chat", url_path=CHAT_PATH, visibility="hidden"),
        ]
    )
    # A link to a review (?review=ID, from a notification) lands on it whichever page it opens.
    follow_review_link(reviews, page)
    with st.sidebar:
        notice = servers_file_notice()
        if notice is not None:
            st.warning(markdown_literal(notice))
        # A fragment of the sidebar's own, not one of the page's writing into the sidebar: with
        # those, a page crashed in the browser tests ("Bad delta path index", Streamlit 1.67).
        live_waiting_count()
    remember_in_browser()
    page.run()


main()
