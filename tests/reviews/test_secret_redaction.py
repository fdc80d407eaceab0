"""Secrets written into a request never reach what Gatehouse keeps or shows: the audit export
(JSON lines and CSV), the stored conversation, the trace, the review queue on the command line.
The call itself still gets the real value.

Every secret is made up when the test runs; the request is a real one through the bundled
e-mail server, so it is selected, validated and paused for a reviewer like any other.
"""

from __future__ import annotations

import json
import secrets
import string
from collections.abc import Callable
from pathlib import Path

import pytest

from graph.trace import trace_steps
from mcp_host.sdk_client import SdkMcpClient
from servers.email import build_server
from tests.cli_support import Ran
from tests.reviews.review_support import email_servers, gatehouse, outbox, services_for
from tests.support import bundled_server_entry

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

_ALPHABET = string.ascii_letters + string.digits


def made_up(length: int = 24, alphabet: str = _ALPHABET) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


def base64url(length: int) -> str:
    return made_up(length, _ALPHABET + "-_")


# Each form takes a made-up secret and writes it the way people do. The first ten are the ways
# the issue found (seven of them leaked); the rest are token shapes that need no name at all.
FORMS: dict[str, Callable[[str], str]] = {
    "json inside text": lambda s: f'the config {{"apiKey": "{s}"}}',
    "api-key=": lambda s: f"use api-key={s} for it",
    "x-api-key header": lambda s: f"the header x-api-key: {s}",
    "private_key=": lambda s: f"private_key={s}",
    "pwd=": lambda s: f"pwd={s}",
    "bearer header": lambda s: f"Authorization: Bearer {s}",
    "password is": lambda s: f"the password is {s}",
    "api_token=": lambda s: f"api_token={s}",
    "password:": lambda s: f"password: {s}",
    "client_secret quoted": lambda s: f"client_secret='{s}'",
    "passphrase is": lambda s: f"my passphrase is {s}.",
    "access_token in a url": lambda s: f"open https://api.example.com/v1?access_token={s}&page=2",
    "--token flag": lambda s: f"run deploy --token {s}",
    "password in a connection url": lambda s: f"connect to postgresql://app:{s}@db.example.com/app",
    "basic auth": lambda s: f"Authorization: Basic {s}",
}
SHAPES: dict[str, Callable[[], str]] = {
    "aws access key": lambda: "AKIA" + made_up(16, string.ascii_uppercase + string.digits),
    "github classic": lambda: "ghp_" + made_up(36),
    "github fine-grained": lambda: "github_pat_" + made_up(22) + "_" + made_up(59),
    "slack": lambda: "xoxb-" + made_up(12, string.digits) + "-" + made_up(24),
    "sk- api key": lambda: "sk-proj-" + base64url(48),
    "jwt": lambda: f"eyJ{base64url(30)}.eyJ{base64url(40)}.{base64url(43)}",
}


def requests_with_secrets() -> dict[str, tuple[str, str]]:
    """name -> (request text, the secret in it)."""
    cases = {}
    for name, form in FORMS.items():
        secret = made_up()
        cases[name] = (f"Send an email to bob@example.com saying {form(secret)}", secret)
    for name, shape in SHAPES.items():
        secret = shape()
        cases[name] = (f"Send an email to bob@example.com saying the key {secret} is yours", secret)
    return cases


def test_no_form_of_secret_in_a_request_reaches_the_audit_export_the_conversation_or_the_trace(
    data_dir: Path,
) -> None:
    cases = requests_with_secrets()
    with (
        SdkMcpClient({"email": build_server(data_dir / "demo")}) as pool,
        services_for(data_dir, mcp=pool) as services,
    ):
        kept: dict[str, str] = {}
        for name, (text, secret) in cases.items():
            outcome = services.requests.ask(text)
            thread = outcome.final_output.thread_id
            assert outcome.final_output.status == "needs_review", name
            # The call itself gets the real value: only what is kept or shown is redacted.
            assert secret in json.dumps(outcome.state["proposed_arguments"]), name
            conversation = [m.model_dump() for m in services.conversations.messages(thread)]
            titles = [c.title for c in services.conversations.recent() if c.thread_id == thread]
            steps = trace_steps(services.graph, thread, services.secrets)
            kept[name] = json.dumps([conversation, titles, steps], default=str)
        exports = {fmt: services.audit.export(fmt) for fmt in ("jsonl", "csv")}

    # Named, never printed: a failure must not show the secret it found.
    leaks = [f"{name}: conversation or trace" for name, (_, s) in cases.items() if s in kept[name]]
    leaks += [
        f"{name}: {fmt} export" for name, (_, s) in cases.items() for fmt in exports if s in exports[fmt]
    ]
    assert leaks == []
    # What happened stays readable: the names stand, only their values are hidden.
    readable = exports["jsonl"]
    for shown in ('\\"apiKey\\": \\"***\\"', "api-key=***", "x-api-key: ***", "Authorization: Bearer ***"):
        assert shown in readable
    assert "the password is ***" in readable and "postgresql://app:***@db.example.com" in readable


def test_the_command_line_shows_no_secret_from_a_request_in_export_trace_or_queue(data_dir: Path) -> None:
    servers = str(email_servers(data_dir))
    token, password = "ghp_" + made_up(36), made_up(16)
    text = f"Send an email to bob@example.com saying token {token}, and the password is {password}"

    asked = gatehouse(data_dir, "ask", "--json", "--servers", servers, text)
    assert asked.returncode == 0, asked.stderr
    thread = json.loads(asked.stdout)["thread_id"]
    shown = [asked]
    shown += [gatehouse(data_dir, "audit", "export", "--format", fmt) for fmt in ("jsonl", "csv")]
    shown += [gatehouse(data_dir, "trace", "--json", thread), gatehouse(data_dir, "trace", thread)]
    shown += [gatehouse(data_dir, "reviews", "list", "--json"), gatehouse(data_dir, "reviews", "list")]

    for done in shown:
        assert done.returncode == 0, (done.args, done.stderr)
    leaks = [done.args[3:] for done in shown for s in (token, password) if s in done.stdout + done.stderr]
    assert leaks == []
    assert "the password is ***" in shown[1].stdout


def ticket_servers(data: Path) -> Path:
    """A servers file with only the bundled tickets server."""
    path = data / "tickets-servers.json"
    entry = bundled_server_entry("tickets", data / "demo")
    path.write_text(json.dumps({"mcpServers": {"tickets": entry}}), encoding="utf-8")
    return path


def everything_printed_about(data: Path, thread: str, *also: Ran) -> list[Ran]:
    """What the command line shows of a thread afterwards: the audit export in both formats,
    the trace as text and JSON, and the queue of every review as text and JSON."""
    shown = list(also)
    shown += [gatehouse(data, "audit", "export", "--format", fmt) for fmt in ("jsonl", "csv")]
    shown += [gatehouse(data, "trace", "--json", thread), gatehouse(data, "trace", thread)]
    shown += [gatehouse(data, "reviews", "list", "--json"), gatehouse(data, "reviews", "list")]
    for done in shown:
        assert done.returncode == 0, (done.args, done.stderr)
    return shown


def leaks_of(secret: str, shown: list[Ran]) -> list[str]:
    """The commands whose output holds ``secret``: named, never printed."""
    named = [" ".join(arg for arg in done.args if secret not in arg) for done in shown]
    return [name for name, done in zip(named, shown, strict=True) if secret in done.stdout + done.stderr]


def audited_kinds(data: Path) -> set[str]:
    exported = gatehouse(data, "audit", "export", "--format", "jsonl").stdout
    return {json.loads(line)["kind"] for line in exported.splitlines()}


def test_a_secret_the_planner_cut_out_of_its_quotes_is_hidden_in_every_event_and_output_and_still_sent(
    data_dir: Path,
) -> None:
    # The request's "apiKey": "..." is recognised; the body the planner extracts is the
    # fragment apiKey": "... (quotes broken), which no shape matches on its own.
    servers = str(email_servers(data_dir))
    key = "SK7-" + made_up(24)
    text = f'Send an email to bob@example.com saying "apiKey": "{key}"'

    asked = gatehouse(data_dir, "ask", "--json", "--servers", servers, text)
    assert asked.returncode == 0, asked.stderr
    output = json.loads(asked.stdout)
    assert output["status"] == "needs_review"
    told = gatehouse(data_dir, "ask", "--servers", servers, text)
    # Decided by another run of the command line: it learns the thread's secrets from the thread.
    decided = gatehouse(
        data_dir, "reviews", "decide", output["review"]["id"], "--approve", "--reviewer", "reviewer",
        "--json", "--servers", servers,
    )  # fmt: skip
    shown = everything_printed_about(data_dir, output["thread_id"], asked, told, decided)

    assert leaks_of(key, shown) == []
    assert {"selection", "review_requested", "decision", "execution_result"} <= audited_kinds(data_dir)
    assert 'apiKey\\": \\"***' in shown[3].stdout  # the event still says what was hidden
    # The call itself got the real value.
    assert [sent["body"] for sent in outbox(data_dir)] == [f'apiKey": "{key}']


def test_a_secret_in_the_arguments_of_another_tool_and_in_its_result_is_hidden(data_dir: Path) -> None:
    servers = str(ticket_servers(data_dir))
    secret = made_up(20)
    text = f'Add a note to ticket 3 saying "client_secret": "{secret}"'

    asked = gatehouse(data_dir, "ask", "--json", "--servers", servers, text)
    assert asked.returncode == 0, asked.stderr
    output = json.loads(asked.stdout)
    assert output["selected_capability"]["name"] == "update_ticket", output["response"]
    decided = gatehouse(
        data_dir, "reviews", "decide", output["review"]["id"], "--approve", "--reviewer", "reviewer",
        "--json", "--servers", servers,
    )  # fmt: skip
    assert json.loads(decided.stdout)["final_output"]["status"] == "ok", decided.stdout
    shown = everything_printed_about(data_dir, output["thread_id"], asked, decided)

    assert leaks_of(secret, shown) == []
    # The ticket the server sent back holds the note: the result echoes the secret.
    assert 'client_secret\\": \\"***' in decided.stdout


def test_a_secret_a_later_run_of_the_thread_shows_is_hidden_in_its_stored_conversation(
    data_dir: Path,
) -> None:
    key = "SK7-" + made_up(24)
    text = f'Send an email to bob@example.com saying "apiKey": "{key}"'
    with (
        SdkMcpClient({"email": build_server(data_dir / "demo")}) as pool,
        services_for(data_dir, mcp=pool) as services,
    ):
        outcome = services.requests.ask(text)
        assert outcome.final_output.review is not None
    # The decision in a process of its own that has never seen the request.
    with (
        SdkMcpClient({"email": build_server(data_dir / "demo")}) as pool,
        services_for(data_dir, mcp=pool) as services,
    ):
        decided = services.reviews.decide(outcome.final_output.review.id, reviewer="reviewer", approve=True)
        assert decided.run is not None
        thread = outcome.final_output.thread_id
        conversation = [m.model_dump() for m in services.conversations.messages(thread)]
        events = [e.model_dump() for e in services.audit.events()]

    leaked = key in json.dumps([conversation, events], default=str)
    assert not leaked
    assert key in json.dumps(decided.run.state["proposed_arguments"])
