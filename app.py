"""Gatehouse in the browser. Until the UI issue lands this is one page: ask, see final_output."""

from __future__ import annotations

import streamlit as st

from gatehouse.operator_requests import ask
from gatehouse.settings import Settings
from gatehouse.wiring import Services, build_services


@st.cache_resource
def services() -> Services:
    """Process-wide: one MCP session pool, one checkpointer, one compiled graph."""
    # Held open for the life of the server process: sessions are reused by every rerun and user.
    services = build_services(Settings.resolve())
    # A restart is when calls cut off by a crash are found: mark them outcome_unknown, ask a reviewer.
    services.reviews.sweep()
    return services


def main() -> None:
    st.set_page_config(page_title="Gatehouse", page_icon="🛡️")
    st.title("Gatehouse")
    st.caption(
        "Human-in-the-loop review for MCP tool calls. The full chat, review queue and traces are coming."
    )
    app = services()
    st.write("Connected MCP servers: " + ", ".join(app.mcp.server_names()))
    with st.form("ask"):
        text = st.text_input("Request", placeholder="List the files in the managed project folder.")
        submitted = st.form_submit_button("Ask")
    if submitted:
        outcome = ask(app, text)
        output = outcome.final_output
        st.subheader(output.status)
        st.write(output.response)
        st.json(output.model_dump(mode="json"))


main()
