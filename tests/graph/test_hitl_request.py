"""A paused thread's interrupt carries the HITL request schemas LangGraph's tools read (Studio,
Agent Inbox, agent-chat-ui) beside Gatehouse's own payload, which its readers still get whole."""

from __future__ import annotations

from pathlib import Path

from graph.builder import compile_graph, open_sqlite_checkpointer
from graph.hitl_request import HITL_KEYS
from graph.runner import pending_interrupt, thread_config
from graph.trace import trace_steps
from tests.fakes import FaultInjectingClient
from tests.support import ask

EMAIL = "Send an email to bob@example.com saying hi"


def test_a_call_waiting_for_approval_is_one_action_request_with_approve_edit_and_reject(
    client: FaultInjectingClient, tmp_path: Path
) -> None:
    saver = open_sqlite_checkpointer(tmp_path / "gatehouse.db")
    graph = compile_graph(saver)
    try:
        ask(graph, client, EMAIL, thread_id="t-hitl", requester="operator")
        (waiting,) = graph.get_state(thread_config("t-hitl")).interrupts
        value = waiting.value

        # LangChain's HITLRequest: one action request, its name the capability, its args the call's.
        assert value["action_requests"] == [
            {
                "name": "email__send_email",
                "args": {"to": "bob@example.com", "body": "hi"} | _extra(value["arguments"]),
                "description": value["description"],
            }
        ]
        (config,) = value["review_configs"]
        assert config["action_name"] == "email__send_email"
        assert config["allowed_decisions"] == ["approve", "edit", "reject"]
        assert config["args_schema"] == value["capability"]["input_schema"]
        # The older HumanInterrupt (Agent Inbox): accept and edit, respond not (nothing to answer).
        assert value["action_request"] == {"action": "email__send_email", "args": value["arguments"]}
        assert value["config"] == {
            "allow_accept": True,
            "allow_edit": True,
            "allow_respond": False,
            "allow_ignore": False,
        }
        assert value["review_id"] in value["description"]
        assert "sends_messages" in value["description"]
        assert "only with the decision Gatehouse recorded" in value["description"]

        # Gatehouse's own payload is all there, and its readers get it without the schemas.
        pending = pending_interrupt(graph, "t-hitl")
        assert pending is not None
        assert not HITL_KEYS & set(pending)
        assert {k: v for k, v in value.items() if k not in HITL_KEYS} == pending
        assert pending["stage"] == "before_execution"
        shown = trace_steps(graph, "t-hitl")[-1]["interrupt"]
        assert not HITL_KEYS & set(shown)
    finally:
        saver.conn.close()


def test_a_clarification_is_answered_in_words_never_approved(
    client: FaultInjectingClient, tmp_path: Path
) -> None:
    saver = open_sqlite_checkpointer(tmp_path / "gatehouse.db")
    graph = compile_graph(saver)
    try:
        ask(graph, client, "Send an email saying hi", thread_id="t-ask", requester="operator")
        value = graph.get_state(thread_config("t-ask")).interrupts[0].value

        assert value["stage"] == "clarification"
        assert value["review_configs"][0]["allowed_decisions"] == ["respond", "reject"]
        assert value["review_configs"][0]["args_schema"] is None
        assert value["config"]["allow_respond"] is True
        assert value["config"]["allow_accept"] is False
        assert value["question"] in value["description"]
    finally:
        saver.conn.close()


def _extra(arguments: dict[str, object]) -> dict[str, object]:
    """Arguments the planner filled beyond the two the request states (a subject, say)."""
    return {k: v for k, v in arguments.items() if k not in ("to", "body")}
