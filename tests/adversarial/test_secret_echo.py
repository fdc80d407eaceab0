"""A secret is hidden wherever it comes back: a server that repeats a request's secret as a
bare word, or hands out a token under a secret-like name and repeats it unnamed, shows it to
nobody (the answer, the trace, the audit export): the server from its stdio entry, served
in-process (tests/in_process_servers.py), through the real command line."""

from __future__ import annotations

import secrets
import string
from pathlib import Path

import pytest

from tests.adversarial.echo_server import vault_token
from tests.adversarial.harness import Gatehouse, Printed, gatehouse_with

# The servers' stdio entries are served in-process (tests/in_process_servers.py); the CLI runs in-process.
pytestmark = pytest.mark.usefixtures("test_servers_in_process")


@pytest.fixture
def gatehouse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Gatehouse:
    return gatehouse_with(tmp_path, monkeypatch, capsys, {"notes": "echo_server"})


def shown_afterwards(gatehouse: Gatehouse, thread: str) -> list[Printed]:
    """The thread's trace (text and JSON) and the audit export (JSON lines and CSV)."""
    shown = [gatehouse.run("trace", thread), gatehouse.run("trace", "--json", thread)]
    shown += [gatehouse.run("audit", "export", "--format", fmt) for fmt in ("jsonl", "csv")]
    assert all(printed.code == 0 for printed in shown), [printed.err for printed in shown]
    return shown


def holding(secret: str, shown: list[Printed]) -> list[int]:
    """Which of the outputs hold ``secret`` (by position: a failure must not print it)."""
    return [n for n, printed in enumerate(shown) if secret in printed.out + printed.err]


def test_a_requests_secret_a_server_repeats_as_a_bare_word_is_hidden_in_the_answer_trace_and_audit(
    gatehouse: Gatehouse,
) -> None:
    token = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(20))
    text = f"Find the notes saying my token is {token}"

    answered = gatehouse.run("ask", "--json", text)
    assert answered.code == 0, answered.err
    assert answered.json()["status"] == "ok", answered.out
    told = gatehouse.run("ask", text)
    shown = [answered, told, *shown_afterwards(gatehouse, answered.json()["thread_id"])]

    assert holding(token, shown) == []
    assert "these words: my, token, is, ***" in told.out


def test_a_token_a_result_names_is_hidden_where_the_result_repeats_it_unnamed(gatehouse: Gatehouse) -> None:
    token = vault_token("payroll")

    asked = gatehouse.run("ask", "--json", "Open the vault name=payroll")
    assert asked.code == 0, asked.err
    output = asked.json()
    answered = asked
    if output["status"] == "needs_review":  # output that names credentials may be held first
        answered = gatehouse.run("reviews", "decide", output["review"]["id"], "--approve", "--json")
        assert answered.code == 0, answered.err
    shown = [asked, answered, *shown_afterwards(gatehouse, output["thread_id"])]

    assert holding(token, shown) == []
    assert "Use *** for the next step" in answered.out
