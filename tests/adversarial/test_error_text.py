"""A server's error text is data, like its output: scanned, held for a reviewer, never quoted.

A tool error (``is_error`` with text) or a JSON-RPC error message can carry "ignore previous
instructions ..." and terminal escapes just as output can. Such an error waits for a
reviewer (stage ``untrusted_output``, flag ``suspicious_text``) and the operator's answer
names the failure without repeating its text; a reviewer may release the text, marked
untrusted, or reject it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adversarial.harness import Gatehouse, control_characters, gatehouse_with

# The servers' stdio entries are served in-process (tests/in_process_servers.py); the CLI runs in-process.
pytestmark = pytest.mark.usefixtures("test_servers_in_process")

# (server name, module, request, words of the injected message that must not be quoted)
ERROR_SERVERS = [
    ("orders", "error_result_server", "Look up the order number=A-17", "Ignore previous instructions"),
    (
        "invoices",
        "jsonrpc_error_server",
        "Look up the invoice number=F-42",
        "Ignore all previous instructions",
    ),
]


@pytest.fixture(params=ERROR_SERVERS, ids=["is_error-result", "json-rpc-error"])
def failing(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[Gatehouse, str, str]:
    name, module, text, injected = request.param
    return gatehouse_with(tmp_path, monkeypatch, capsys, {name: module}), text, injected


def test_an_error_that_carries_an_injection_waits_for_a_reviewer_flagged_suspicious(
    failing: tuple[Gatehouse, str, str],
) -> None:
    gatehouse, text, injected = failing

    printed = gatehouse.run("ask", "--json", text)

    assert printed.code == 0, printed.err
    output = printed.json()
    assert output["status"] == "needs_review", output["response"]
    assert output["review"]["stage"] == "untrusted_output"
    flags = {f["code"]: f for f in output["review"]["flags"]}
    assert flags["suspicious_text"]["severity"] == "high"
    message = flags["suspicious_text"]["message"]
    assert "error message: control characters" in message and "U+001B" in message
    assert "asks to ignore earlier instructions" in message
    assert injected not in printed.out
    assert "evil@x.test" not in printed.out


def test_the_operator_reads_that_the_call_failed_without_the_error_text(
    failing: tuple[Gatehouse, str, str],
) -> None:
    gatehouse, text, injected = failing

    printed = gatehouse.run("ask", text)

    assert "status:     needs_review" in printed.out
    assert "failed" in printed.out.splitlines()[1]
    assert injected not in printed.out and "evil@x.test" not in printed.out
    assert control_characters(printed.out + printed.err) == []


def test_a_rejected_error_ends_rejected_and_its_text_never_reaches_the_operator(
    failing: tuple[Gatehouse, str, str],
) -> None:
    gatehouse, text, injected = failing
    review_id = gatehouse.run("ask", "--json", text).json()["review"]["id"]

    printed = gatehouse.run(
        "reviews",
        "decide",
        review_id,
        "--reject",
        "--reviewer",
        "reviewer",
        "--reason",
        "injection",
        "--json",
    )

    assert printed.code == 0, printed.err
    final = printed.json()["final_output"]
    assert final["status"] == "rejected"
    assert injected not in printed.out and "evil@x.test" not in printed.out


def test_a_released_error_is_shown_marked_untrusted_as_a_failure_with_escapes_visible(
    failing: tuple[Gatehouse, str, str],
) -> None:
    gatehouse, text, injected = failing
    review_id = gatehouse.run("ask", "--json", text).json()["review"]["id"]

    printed = gatehouse.run("reviews", "decide", review_id, "--approve", "--reviewer", "reviewer")

    assert printed.code == 0, printed.err
    assert "status:   error" in printed.out
    assert "released by reviewer and marked untrusted" in printed.out
    assert injected in printed.out
    assert "\\u001b" in printed.out
    assert control_characters(printed.out + printed.err) == []


def test_an_injected_error_taken_for_an_auth_failure_is_not_quoted_either(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gatehouse = gatehouse_with(tmp_path, monkeypatch, capsys, {"orders": "error_result_server"})

    printed = gatehouse.run("ask", "--json", "Check access for the account=acme")

    assert printed.code == 0, printed.err
    output = printed.json()
    assert output["status"] == "needs_review"
    codes = [flag["code"] for flag in output["review"]["flags"]]
    assert "suspicious_text" in codes
    assert "Ignore previous instructions" not in printed.out
    assert "evil@x.test" not in printed.out
