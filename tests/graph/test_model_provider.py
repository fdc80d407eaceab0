"""The language-model planner with a real provider package (the openai extra) over real HTTP:
langchain-openai's ChatOpenAI, made by GATEHOUSE_MODEL through init_chat_model, talks to an
OpenAI-compatible endpoint on 127.0.0.1 that answers from a script. What the provider sends
(tools, markers) and what it parses back (a tool call's arguments, a streamed answer) are the
provider's own. Skips without the extra unless GATEHOUSE_REQUIRE_MODEL_EXTRAS=1."""

from __future__ import annotations

import importlib.util
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from gatehouse.planner_choice import planner_for
from graph.builder import CompiledGraph
from graph.runner import start_request
from tests.fakes import FaultInjectingClient
from tests.graphs import sqlite_graph
from tests.support import SHUTDOWN_POLL_SECONDS, context_for

REQUIRE_EXTRAS_VARIABLE = "GATEHOUSE_REQUIRE_MODEL_EXTRAS"


@pytest.fixture(autouse=True)
def openai_extra() -> None:
    if importlib.util.find_spec("langchain_openai") is None:
        reason = "langchain-openai is not installed (pip install -e '.[openai]')"
        if os.environ.get(REQUIRE_EXTRAS_VARIABLE) == "1":
            pytest.fail(f"{reason} ({REQUIRE_EXTRAS_VARIABLE}=1)", pytrace=False)
        pytest.skip(reason)


@dataclass
class Endpoint:
    """What the scripted endpoint was asked, and what it answers next."""

    replies: list[dict[str, Any]]
    requests: list[dict[str, Any]] = field(default_factory=list)


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _chunks(text: str) -> Iterator[dict[str, Any]]:
    for word in text.split(" "):
        yield {
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "gpt-4.1-mini",
            "choices": [{"index": 0, "delta": {"content": f"{word} "}, "finish_reason": None}],
        }
    yield {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    }


def _handler(endpoint: Endpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            endpoint.requests.append(body)
            reply = endpoint.replies.pop(0)
            if body.get("stream"):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in _chunks(str(reply["content"])):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                return
            payload = json.dumps(_completion(reply)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    scripted = Endpoint(replies=[])
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(scripted))
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS}, daemon=True
    )
    thread.start()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000000000000000000000000000")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    try:
        yield scripted
    finally:
        server.shutdown()
        server.server_close()


graph = sqlite_graph


def test_a_real_provider_proposes_by_tool_call_and_streams_the_answer(
    graph: CompiledGraph, client: FaultInjectingClient, endpoint: Endpoint
) -> None:
    proposal = {
        "arguments": {"path": "notes.md"},
        "citations": {"path": "notes.md"},
        "reason": "The operator asked for notes.md.",
    }
    endpoint.replies += [
        {
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "filesystem__read_file", "arguments": json.dumps(proposal)},
                }
            ],
        },
        {"content": "The notes describe the managed project folder."},
    ]
    planner = planner_for("openai:gpt-4.1-mini", timeout=20.0)
    pieces: list[str] = []

    outcome = start_request(
        graph, replace(context_for(client), planner=planner), "What does notes.md say?", on_text=pieces.append
    )

    output = outcome.final_output
    assert output.status == "ok"
    assert client.calls == [("filesystem", "read_file", {"path": "notes.md"})]
    assert output.response == "The notes describe the managed project folder."
    assert "".join(pieces).strip() == output.response
    planning, writing = endpoint.requests
    tools = {tool["function"]["name"]: tool["function"] for tool in planning["tools"]}
    assert "filesystem__read_file" in tools
    assert "untrusted data" in tools["filesystem__read_file"]["description"]
    assert "tools" not in writing and writing["stream"] is True


def test_a_provider_error_falls_back_to_the_deterministic_planner(
    graph: CompiledGraph, client: FaultInjectingClient, endpoint: Endpoint
) -> None:
    # Not a tool call and not text: the provider's parser refuses arguments that are not JSON.
    endpoint.replies.append(
        {
            "content": None,
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {"name": "email__send_email", "arguments": "{not json"},
                }
            ],
        }
    )
    planner = planner_for("openai:gpt-4.1-mini", timeout=20.0)

    outcome = start_request(
        graph, replace(context_for(client), planner=planner), "Send an email to bob@example.com saying hi"
    )

    assert outcome.final_output.status == "needs_review"
    assert client.calls == []
    review = outcome.final_output.review
    assert review is not None
    assert any(flag.code == "planner_fallback" for flag in review.flags)
