"""Effects checked after they run: once an approved write succeeded, the file is read back
through its server's own read tool (when the policy lets that read run) and compared with the
approved content. A mismatch is flagged to the operator, audited as ``effect_mismatch`` and
kept on the review in the ledger (the reviewer's history shows it); where nothing can be read
back the result says "not verified", and why.

The servers are real: tests/drifting_files_server.py over stdio (a server whose writes change
right after they are made), and the bundled filesystem server in-process for a read that fails
(fault injection, as in tests/graph)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gatehouse.display.render import render_text
from gatehouse.wiring import Services
from graph.state import FinalOutput
from mcp_host.errors import ErrorInfo
from mcp_host.results import McpResult
from mcp_host.sdk_client import SdkMcpClient
from servers.filesystem import build_server as build_filesystem
from tests.drifting_files_server import entry
from tests.fakes import FaultInjectingClient
from tests.reviews.review_support import gatehouse, policy_file, services_for

WRITE_REPORT = 'Write "# Report" to the file report.md'
NO_READ = (
    'read = ["read_text_file", "read_file"]',
    "read = []",
)


def _refusing_reads(action: str) -> tuple[str, str]:
    """A rule that denies every read of a text file, or sends it to review: either way the
    read-back must not run."""
    return (
        "\n[sampling]\n",
        f'\n[[rules]]\nname = "no-reading-text"\nmatch = ["*__read_text_file"]\naction = "{action}"\n'
        'explanation = "no text file is read"\n\n[sampling]\n',
    )


def _audited(services: Services, review_id: str, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in services.audit.events() if e.review_id == review_id and e.kind == kind]


def _approve(services: Services) -> tuple[str, FinalOutput]:
    paused = services.requests.ask(WRITE_REPORT, requester="operator")
    assert paused.final_output.status == "needs_review", paused.final_output.response
    assert paused.final_output.review is not None
    review_id = paused.final_output.review.id
    done = services.reviews.decide(review_id, reviewer="reviewer", approve=True)
    assert done.run is not None
    return review_id, done.run.final_output


def _stdio(
    data: Path, *, drift: str | None = None, policy: Path | None = None
) -> Iterator[tuple[Services, Path]]:
    folder = data / "files"
    folder.mkdir()
    log = data / "calls.log"
    servers = data / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"files": entry(folder, drift, log)}}), encoding="utf-8")
    with services_for(data, servers=servers, policy=policy) as services:
        yield services, log


@pytest.mark.processes
def test_a_write_changed_after_the_call_is_flagged_and_audited_as_an_effect_mismatch(data_dir: Path) -> None:
    for services, _ in _stdio(data_dir, drift="\nappended after the write"):
        review_id, output = _approve(services)

        assert (data_dir / "files" / "report.md").read_text(encoding="utf-8") != "# Report"
        assert output.effect_check is not None
        assert output.effect_check.status == "mismatch"
        assert "report.md on files does not hold the approved content" in output.effect_check.detail
        assert output.effect_check.detail in output.errors
        assert f"effect:     mismatch: {output.effect_check.detail}" in render_text(
            output.model_dump(mode="json")
        )
        [audited] = _audited(services, review_id, "effect_mismatch")
        assert audited == {"status": "mismatch", "detail": output.effect_check.detail}
        reviewed = services.ledger.require(review_id)
        assert (reviewed.status, reviewed.effect_check) == ("executed", output.effect_check)


@pytest.mark.processes
def test_a_write_that_reads_back_as_approved_is_verified(data_dir: Path) -> None:
    for services, log in _stdio(data_dir):
        review_id, output = _approve(services)

        assert output.status == "ok"
        assert output.effect_check is not None
        assert (output.effect_check.status, output.effect_check.detail) == (
            "verified",
            "report.md on files holds the approved content",
        )
        assert log.read_text(encoding="utf-8").splitlines()[-2:] == ["write_file", "read_text_file"]
        assert _audited(services, review_id, "effect_mismatch") == []
        [audited] = _audited(services, review_id, "effect_check")
        assert audited["status"] == "verified"
        assert services.ledger.require(review_id).effect_check == output.effect_check


@pytest.mark.processes
def test_a_write_with_no_read_declared_is_not_verified(data_dir: Path) -> None:
    policy = policy_file(data_dir, "no-read.toml", NO_READ)
    for services, log in _stdio(data_dir, drift="\nappended", policy=policy):
        _, output = _approve(services)

        assert output.effect_check is not None
        assert output.effect_check.status == "not_verified"
        assert "no read is declared" in output.effect_check.detail
        assert "read_text_file" not in log.read_text(encoding="utf-8").splitlines()


@pytest.mark.processes
@pytest.mark.parametrize(
    ("action", "said"), [("deny", "is denied by rule"), ("review", "would need a review by rule")]
)
def test_a_read_back_the_policy_refuses_is_not_run_and_the_reason_says_what_it_decided(
    data_dir: Path, action: str, said: str
) -> None:
    policy = policy_file(data_dir, f"{action}-reads.toml", _refusing_reads(action))
    for services, log in _stdio(data_dir, drift="\nappended", policy=policy):
        _, output = _approve(services)

        assert output.effect_check is not None
        assert output.effect_check.status == "not_verified"
        assert output.effect_check.detail == (
            f"the effect of files__write_file was not verified: reading it with files__read_text_file {said} no-reading-text"
        )
        assert log.read_text(encoding="utf-8").splitlines() == ["write_file"]


def _failed_read(server: str, capability_type: str, name: str) -> McpResult:
    return McpResult.failure(
        server, capability_type, name, ErrorInfo(kind="timeout", message="no answer in 5s")
    )


def test_a_read_back_that_fails_leaves_the_effect_not_verified(data_dir: Path) -> None:
    with SdkMcpClient({"filesystem": build_filesystem(data_dir / "demo")}) as pool:
        mcp = FaultInjectingClient(pool, faults={"filesystem__read_file": [_failed_read]})
        with services_for(data_dir, mcp=mcp) as services:
            _, output = _approve(services)

    assert (data_dir / "demo" / "project" / "report.md").read_text(encoding="utf-8") == "# Report"
    assert output.effect_check is not None
    assert output.effect_check.status == "not_verified"
    assert "no answer in 5s" in output.effect_check.detail
    assert [name for _, name, _ in mcp.calls][-2:] == ["write_file", "read_file"]


@pytest.mark.processes
def test_the_command_line_shows_a_mismatch_to_the_reviewer_who_decides_and_in_the_review_list(
    data_dir: Path,
) -> None:
    folder = data_dir / "files"
    folder.mkdir()
    servers = data_dir / "servers.json"
    entries = {"files": entry(folder, "\nappended after the write", data_dir / "calls.log")}
    servers.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    asked = gatehouse(data_dir, "ask", WRITE_REPORT, "--servers", str(servers), "--json")
    review_id = json.loads(asked.stdout)["review"]["id"]

    decided = gatehouse(
        data_dir,
        "reviews",
        "decide",
        review_id,
        "--approve",
        "--reviewer",
        "reviewer",
        "--servers",
        str(servers),
    )
    listed = gatehouse(data_dir, "reviews", "list")
    listed_json = gatehouse(data_dir, "reviews", "list", "--json")

    detail = "report.md on files does not hold the approved content after files__write_file wrote it"
    assert decided.returncode == 0, decided.stderr
    assert f"effect:   mismatch: {detail}" in decided.stdout.splitlines()
    [row] = [line for line in listed.stdout.splitlines() if line.startswith(review_id)]
    assert row.endswith("effect: MISMATCH")
    assert f"  mismatch: {detail}" in listed.stdout.splitlines()
    [reviewed] = json.loads(listed_json.stdout)["reviews"]
    assert reviewed["effect_check"] == {"status": "mismatch", "detail": detail}
