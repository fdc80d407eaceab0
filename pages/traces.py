"""Traces: the graph drawn from its own structure, a thread's route, its steps, as JSON."""

from __future__ import annotations

import json

import streamlit as st

from gatehouse.web import services
from graph.diagram import to_dot
from graph.trace import route_from_checkpoints, trace_steps

st.title("Traces")
app = services()
threads = list(dict.fromkeys(r.thread_id for r in reversed(app.ledger.queue())))
session_threads = [t for t in st.session_state.get("threads", {}) if st.session_state["threads"][t]]
choices = list(dict.fromkeys(session_threads + threads))
thread = st.selectbox("Thread", choices) if choices else st.text_input("Thread id")
route = route_from_checkpoints(app.graph, thread) if thread else []
st.graphviz_chart(to_dot(app.graph, route))
if thread and route:
    steps = trace_steps(app.graph, thread)
    for step in steps:
        label = f"{step['step']}: {step['node']}"
        if step.get("interrupt"):
            label += f" — waiting ({step['interrupt'].get('stage')})"
        if step.get("decision"):
            label += f" — {step['decision'].get('action')} by {step['decision'].get('by')}"
        with st.expander(label):
            st.caption(f"{step['at']} · changed: {', '.join(step['changed']) or 'nothing'}")
            st.json(step["values"], expanded=False)
    st.download_button(
        "Export trace (JSON)",
        json.dumps({"thread_id": thread, "route": route, "steps": steps}, indent=2, default=str),
        file_name=f"trace-{thread}.json",
        mime="application/json",
    )
elif thread:
    st.caption("No checkpoints for this thread.")
