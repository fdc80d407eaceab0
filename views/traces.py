"""Traces: the graph drawn from its own structure, a thread's route, its steps, as JSON.

The checkpoints keep real values; the steps and titles shown have their secrets hidden. Values
are shown as JSON and names as literal text (gatehouse/web/literal.py), never as Markdown."""

from __future__ import annotations

import json

import streamlit as st

from gatehouse.display.visible_text import visible, visible_in
from gatehouse.web.literal import markdown_literal, name_literal
from gatehouse.web.page import services
from gatehouse.web.short_ids import short_thread

THREADS_LISTED = 50

st.title("Traces")
st.caption(
    "The workflow as compiled, drawn from the graph itself. Pick a thread to see the path it "
    "took (highlighted) and every step from its checkpoints: what each node changed, where it "
    "paused and what a person decided."
)
app = services()
recent = {c.thread_id: c for c in app.conversations.recent(limit=THREADS_LISTED)}
# The chat page's thread comes first: it is the one a demo just ran.
current = st.session_state.get("thread")
choices = ([current] if current in recent else []) + [t for t in recent if t != current]
picked_column, typed_column = st.columns([3, 1])
with picked_column:
    thread = st.selectbox(
        "Thread",
        choices,
        format_func=lambda t: visible(
            f"{app.secrets.text(recent[t].title)[:60]} · {recent[t].owner} · {short_thread(t)}"
        ),
        index=0 if choices else None,
        placeholder="No threads yet: ask something on the Chat page",
    )
with typed_column:
    typed = st.text_input("or a thread id", placeholder="thread id").strip()
if typed:
    thread = typed

trace = app.requests.trace(thread)
route, steps = trace.route, trace.steps
st.graphviz_chart(app.requests.diagram(route))
if thread and not trace.exists:
    st.warning(markdown_literal(f"No checkpoints for thread {thread}."))
elif thread:
    st.markdown("**Route:** " + " → ".join(name_literal(node) for node in route))
    for request in sorted({step["request"] for step in steps}):
        st.header(f"Request {request:d}", divider="gray")
        for step in (s for s in steps if s["request"] == request):
            when = f"+{step['offset_s']:.2f} s" if step.get("offset_s") is not None else ""
            if step["node"] is None:
                who = markdown_literal(str(step.get("decided_by") or "someone"))
                stage = markdown_literal(str(step.get("waiting") or "review"))
                st.info(
                    f"{when} · waited {step['duration_s']:.1f} s for a person ({stage}); {who} decided",
                    icon=":material/hourglass_top:",
                )
                continue
            took = f" · {step['duration_s'] * 1000:.0f} ms" if step.get("duration_s") is not None else ""
            label = f"{when}{took} · {markdown_literal(str(step['node']))}"
            if step.get("interrupt"):
                label += f" — paused, waiting ({markdown_literal(str(step['interrupt'].get('stage')))})"
            if step.get("decision"):
                decision = step["decision"]
                action, by = str(decision.get("action")), str(decision.get("by"))
                label += f" — {markdown_literal(action)} by {markdown_literal(by)}"
            with st.expander(label):
                changed = trace.changes_of(step)
                st.caption(
                    f"{markdown_literal(step['at'][11:19])} UTC · changed: {markdown_literal(changed)}"
                )
                if step.get("interrupt"):
                    st.markdown("**Interrupt payload** (what the reviewer saw)")
                    st.json(visible_in(step["interrupt"]), expanded=False)
                st.json(visible_in(step["values"]), expanded=False)
    st.download_button(
        "Export trace (JSON)",
        json.dumps({"thread_id": thread, "route": route, "steps": steps}, indent=2, default=str),
        file_name=f"trace-{thread}.json",
        mime="application/json",
    )
