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

from gatehouse.operator_requests import ask
from graph.trace import trace_steps
from mcp_host.sdk_client import SdkMcpClient
from servers.email import build_server
from tests.reviews.review_support import email_servers, gatehouse, services_for

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
            outcome = ask(services, text)
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
