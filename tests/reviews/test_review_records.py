"""What the ledger and the command line say about a review matches what happened: the
arguments that ran, the approvals that count, and released output."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from graph.runner import thread_config
from mcp_host.sdk_client import SdkMcpClient
from tests.policies.adversarial_server import build_server
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    VIOLATION_LINE,
    email_servers,
    gatehouse,
    policy_file,
    services_for,
)

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


def test_releasing_held_output_is_recorded_as_approved_not_as_not_run(data_dir: Path) -> None:
    calls: Counter[str] = Counter()
    with SdkMcpClient({"sneaky": build_server(calls)}) as mcp, services_for(data_dir, mcp=mcp) as services:
        held = services.requests.ask("Read today's office bulletin", requester="operator")
        assert held.final_output.status == "needs_review"
        assert held.final_output.review is not None and held.final_output.review.stage == "untrusted_output"

        released = services.reviews.decide(held.final_output.review.id, reviewer="reviewer", approve=True)

        assert released.run is not None and released.run.final_output.status == "ok"
        assert released.review.status == "approved"
        kinds = [e.kind for e in services.audit.events(thread_id=held.final_output.thread_id)]
        assert "review_not_run" not in kinds
    assert calls["read_bulletin"] == 1


def test_the_review_list_shows_the_arguments_that_ran_beside_the_proposal(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        services.reviews.decide(
            paused.final_output.review.id,
            reviewer="reviewer",
            approve=True,
            arguments={"to": "bob@example.com", "body": "hello instead"},
        )

    listed = gatehouse(data_dir, "reviews", "list", "--json")

    row = json.loads(listed.stdout)["reviews"][0]
    assert row["status"] == "executed"
    assert row["arguments"]["body"] == "hello instead"
    assert row["proposed_arguments"]["body"] == "hi"


def test_an_edited_second_approval_reports_the_count_for_its_own_arguments(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    two = policy_file(
        data_dir, "two.toml", (VIOLATION_LINE, f"{VIOLATION_LINE}\n[rules.review]\nrequired_approvals = 2")
    )
    common = ("--servers", str(servers), "--policy", str(two))
    with services_for(data_dir, servers=servers, policy=two) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review_id = paused.final_output.review.id
        services.reviews.decide(review_id, reviewer="reviewer", approve=True)

    edited = gatehouse(
        data_dir, "reviews", "decide", review_id, "--approve", "--reviewer", "reviewer2",
        "--args", '{"to": "bob@example.com", "body": "changed"}', *common,
    )  # fmt: skip

    assert edited.returncode == 0, edited.stderr
    assert "(1 of 2 for these arguments)" in edited.stdout
    assert "(2 of 2" not in edited.stdout


def test_the_operator_is_told_who_approved_and_what_they_changed(data_dir: Path) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        plain = services.requests.ask(EMAIL_REQUEST, requester="operator").final_output
        edited = services.requests.ask(
            "Send an email to bob@example.com saying draft", requester="operator"
        ).final_output
        assert plain.review is not None and edited.review is not None

        as_asked = services.reviews.decide(plain.review.id, reviewer="reviewer", approve=True)
        changed = services.reviews.decide(
            edited.review.id,
            reviewer="reviewer2",
            approve=True,
            arguments={"to": "bob@example.com", "body": "final"},
        )

    assert as_asked.run is not None and changed.run is not None
    assert as_asked.run.final_output.response.startswith("Approved by reviewer. ")
    assert changed.run.final_output.response.startswith("Approved by reviewer2, who changed body. ")
    assert changed.run.final_output.review is not None
    assert changed.run.final_output.review.decided_by == "reviewer2"


def test_each_ending_says_how_who_and_when_in_the_output_and_an_edit_says_from_what_to_what(
    data_dir: Path,
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        asks = [
            services.requests.ask(
                f"Send an email to bob@example.com saying {word}", requester="operator"
            ).final_output
            for word in ("draft", "no", "later")
        ]
        edited, rejected, withdrawn = (output.review.id for output in asks if output.review is not None)

        approved = services.reviews.decide(
            edited, reviewer="reviewer2", approve=True, arguments={"to": "bob@example.com", "body": "final"}
        )
        refused = services.reviews.decide(rejected, reviewer="reviewer", approve=False, reason="not today")
        cancelled = services.reviews.withdraw(withdrawn, by="operator")

        assert approved.run is not None and refused.run is not None
        endings = {
            "approve": (approved.run.final_output.review, edited),
            "reject": (refused.run.final_output.review, rejected),
            "cancel": (cancelled.final_output.review, withdrawn),
        }
        for action, (summary, review_id) in endings.items():
            assert summary is not None
            ledger = services.ledger.require(review_id)
            assert (summary.decision, summary.decided_by) == (action, ledger.decided_by)
            assert summary.decided_at is not None and summary.decided_at == ledger.decided_at
        approved_summary = endings["approve"][0]
        assert approved_summary is not None and approved_summary.changes is not None
        assert approved_summary.changes.model_dump() == {
            "proposed": {"body": "draft"},
            "approved": {"body": "final"},
        }
        assert endings["reject"][0] is not None and endings["reject"][0].reason == "not today"
        assert endings["reject"][0].changes is None
        # What ran, for a person to read: the tool's structured result rides along.
        assert approved.run.final_output.result is not None
        assert approved.run.final_output.result["structured"]["queued"] is True
        assert refused.run.final_output.result is None


def test_the_command_line_says_who_decided_when_and_the_diff_of_what_they_changed(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        paused = services.requests.ask("Send an email to bob@example.com saying draft", requester="operator")
        assert paused.final_output.review is not None
        review_id = paused.final_output.review.id

    decided = gatehouse(
        data_dir, "reviews", "decide", review_id, "--approve", "--reviewer", "reviewer2",
        "--args", '{"to": "bob@example.com", "body": "final"}', "--servers", str(servers),
    )  # fmt: skip

    assert decided.returncode == 0, decided.stderr
    lines = decided.stdout.splitlines()
    [headline] = [line for line in lines if line.startswith("decided:")]
    assert re.fullmatch(r"decided:\s+Approved by reviewer2 at (\d+ \w+, )?\d\d:\d\d( \S+)?", headline)
    changed = lines.index(next(line for line in lines if line.startswith("changed:")))
    assert [line.strip() for line in lines[changed : changed + 3]] == [
        "changed:    body",
        "- draft",
        "+ final",
    ]
    # The e-mail server's answer as fields, not as its JSON.
    assert "queued: true" in decided.stdout and '"queued"' not in decided.stdout


def test_a_paused_runs_review_names_the_checkpoint_and_interrupt_it_waits_in_without_reading_them_again(
    data_dir: Path,
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        checkpointer = services.checkpointer  # the graph's own
        assert services.graph.checkpointer is checkpointer
        reads: list[object] = []
        read_tuple = checkpointer.get_tuple

        def counting_get_tuple(config: Any) -> Any:
            reads.append(config)
            return read_tuple(config)

        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None and paused.pending is not None
        checkpointer.get_tuple = counting_get_tuple  # type: ignore[method-assign]
        services.reviews.record_run(paused, actor="operator")
        checkpointer.get_tuple = read_tuple  # type: ignore[method-assign]

        assert reads == []  # the outcome already holds what the checkpoint says
        snapshot = services.graph.get_state(thread_config(paused.final_output.thread_id))
        review = services.ledger.require(paused.final_output.review.id)
        assert review.checkpoint_id == snapshot.config["configurable"]["checkpoint_id"]
        assert review.interrupt_id == snapshot.interrupts[0].id
