"""Operators chat: each message runs through the graph; answers show status, capability, result."""

from __future__ import annotations

from typing import Any

import streamlit as st

from gatehouse.errors import NotAllowedError, ThreadBusyError
from gatehouse.operator_requests import ask
from gatehouse.web import current_user, services
from graph.runner import new_thread_id, pending_interrupt, thread_config

_BADGE = {
    "ok": ":green-badge[ok]",
    "answered_without_mcp": ":blue-badge[answered without MCP]",
    "needs_clarification": ":orange-badge[needs clarification]",
    "needs_review": ":orange-badge[waiting for a reviewer]",
    "rejected": ":red-badge[rejected]",
    "expired": ":gray-badge[expired]",
    "error": ":red-badge[error]",
}


def show_answer(output: dict[str, Any]) -> None:
    st.markdown(_BADGE.get(output["status"], output["status"]))
    st.markdown(output["response"])
    capability = output.get("selected_capability")
    summary = output.get("mcp_result_summary")
    details = []
    if capability:
        details.append(f"`{capability['server']}` / {capability['type']} / `{capability['name']}`")
    if summary:
        details.append(
            f"{summary.get('item_count', 0)} item(s)" + (", truncated" if summary.get("truncated") else "")
        )
    if details:
        st.caption(" · ".join(details))
    review = output.get("review")
    if review and review.get("flags"):
        with st.expander(f"{len(review['flags'])} flag(s) — review {review['id']}"):
            for flag in review["flags"]:
                st.markdown(f"**{flag['severity']}** `{flag['code']}` — {flag['message']}")
    if output.get("missing_arguments"):
        st.info(
            f"Missing: {', '.join(output['missing_arguments'])}. Reply below, e.g. `{output['missing_arguments'][0]}=...`"
        )
    for error in output.get("errors", []):
        st.caption(f"⚠️ {error}")


def threads() -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = st.session_state.setdefault("threads", {})
    return found


user = current_user()
st.title("Chat")
if user is None:
    st.info("Sign in (or pick who you are in the sidebar) to send requests.")
    st.stop()

history = threads()
if "thread" not in st.session_state or st.session_state["thread"] not in history:
    st.session_state["thread"] = new_thread_id()
    history[st.session_state["thread"]] = []

left, right = st.columns([3, 1])
with right:
    if st.button("New thread", use_container_width=True):
        st.session_state["thread"] = new_thread_id()
        history[st.session_state["thread"]] = []
    current = st.session_state["thread"]
    options = [t for t in history if history[t] or t == current]
    # Labels, not ids, are the options: a person picks a thread by its first message.
    labels = {
        f"{n}. {history[t][0]['text'][:40] if history[t] else '(new thread)'}": t
        for n, t in enumerate(options, 1)
    }
    picked = st.selectbox("Threads", list(labels), index=options.index(current))
    st.session_state["thread"] = labels[picked] if picked else current
thread = st.session_state["thread"]

app = services()
# Read the input first (the box stays at the bottom of the page), so the answer is part of
# this run's history and no extra rerun is needed.
text = st.chat_input("Ask for something the servers can do")
if text:
    history[thread].append({"role": "user", "text": text})
    try:
        outcome = ask(app, text, thread_id=thread, requester=user)
    except (ThreadBusyError, NotAllowedError) as exc:
        history[thread].append(
            {"role": "assistant", "output": {"status": "error", "response": str(exc), "errors": []}}
        )
    else:
        history[thread].append({"role": "assistant", "output": outcome.final_output.model_dump(mode="json")})

with left:
    for message in history[thread]:
        with st.chat_message(message["role"]):
            if message["role"] == "user":
                st.markdown(message["text"])
            else:
                show_answer(message["output"])
    waiting = pending_interrupt(app.graph, thread) if history[thread] else None
    if waiting is not None and waiting["stage"] != "clarification":
        review = app.ledger.get(waiting["review_id"])
        st.caption(
            f"Waiting for a reviewer (review {waiting['review_id']}, {review.status if review else 'pending'})."
        )


@st.fragment(run_every=3)
def follow_review(thread: str) -> None:
    """A thread waiting for a reviewer updates by itself once the reviewer has decided."""
    messages = history.get(thread) or []
    last = messages[-1] if messages else None
    if not last or last["role"] != "assistant" or last["output"]["status"] != "needs_review":
        return
    app = services()
    if pending_interrupt(app.graph, thread) is not None:
        return
    final = app.graph.get_state(thread_config(thread)).values.get("final_output")
    if final:
        messages.append({"role": "assistant", "output": final})
        st.rerun()


follow_review(thread)
