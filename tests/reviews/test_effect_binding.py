"""What is reviewed is what runs: an approval of a file write is bound to what the preview
showed of the file (the file the path led to, whether it existed, what it held), checked when
the decision is recorded and again right before the call; a file that changed in between is
not written, and a person is told why.

Everything runs on the real bundled filesystem server, on a real folder, and the real review
service, graph and ledger (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gatehouse.web.effect_preview import FileDiffPreview, effect_preview
from gatehouse.wiring import Services
from graph.builder import CompiledGraph
from graph.state import EffectBinding, ReviewDecision
from mcp_host.sdk_client import SdkMcpClient
from policies.engine import PolicyEngine
from reviews.errors import DecisionNotAllowedError
from reviews.resume import resume
from servers.filesystem import build_server as build_filesystem
from tests.fakes import FaultInjectingClient
from tests.reviews.review_support import policy_file, run_sql, services_for
from tests.support import ask, context_for

WRITE_REPORT = 'Write "# Report" to the file report.md'
WRITE_PLAN = 'Write "step one" to the file plan.md'
PLAN = "step 1\nstep 2\n"


@dataclass
class Workspace:
    services: Services
    mcp: FaultInjectingClient
    project: Path

    def preview(self, review_id: str) -> FileDiffPreview:
        """The Reviews page's preview of a review's write (the page sends its binding)."""
        review = self.services.ledger.require(review_id)
        preview = effect_preview(self.mcp, self.services.policy, review.capability, review.arguments)
        assert isinstance(preview, FileDiffPreview)
        return preview

    def pause(self, text: str) -> str:
        paused = self.services.requests.ask(text, requester="operator")
        assert paused.final_output.status == "needs_review"
        assert paused.final_output.review is not None
        return paused.final_output.review.id

    def events(self, review_id: str, kind: str) -> list[dict[str, Any]]:
        """The data of the review's audit events of this kind."""
        return [e.data for e in self.services.audit.events() if e.review_id == review_id and e.kind == kind]

    def writes(self) -> list[dict[str, object]]:
        return [arguments for _, name, arguments in self.mcp.calls if name == "write_file"]


def _workspace(data: Path, policy: Path | None = None) -> Iterator[Workspace]:
    with SdkMcpClient({"filesystem": build_filesystem(data / "demo")}) as pool:
        mcp = FaultInjectingClient(pool)
        with services_for(data, mcp=mcp, policy=policy) as services:
            project = data / "demo" / "project"
            (project / "plan.md").write_text(PLAN, encoding="utf-8")
            yield Workspace(services, mcp, project)


@pytest.fixture
def workspace(data_dir: Path) -> Iterator[Workspace]:
    yield from _workspace(data_dir)


@pytest.fixture
def two_approvals(data_dir: Path) -> Iterator[Workspace]:
    """File writes need two approvals: the first approver's view and the second's can differ."""
    constraint = "paths_within_roots = true             # refuse paths outside the server's roots ([paths])"
    policy = policy_file(
        data_dir, "two-approvals.toml", (constraint, constraint + "\n[rules.review]\nrequired_approvals = 2")
    )
    yield from _workspace(data_dir, policy)


# -- at the decision ---------------------------------------------------------------------------


def test_a_new_file_swapped_for_a_link_after_the_preview_is_refused_at_the_decision(
    workspace: Workspace,
) -> None:
    review_id = workspace.pause(WRITE_REPORT)
    shown = workspace.preview(review_id)
    assert shown.new_file and shown.binding is not None
    notes = (workspace.project / "notes.md").read_text(encoding="utf-8")

    (workspace.project / "report.md").symlink_to("notes.md")
    with pytest.raises(DecisionNotAllowedError) as refused:
        workspace.services.reviews.decide(
            review_id, reviewer="reviewer", approve=True, shown_effect=shown.binding
        )

    assert "report.md did not exist when the review was shown and does now (it leads to notes.md)" in str(
        refused.value
    )
    assert (workspace.project / "notes.md").read_text(encoding="utf-8") == notes
    assert workspace.writes() == []
    review = workspace.services.ledger.require(review_id)
    assert (review.status, review.decisions) == ("pending", [])


def test_a_file_edited_after_the_preview_is_refused_at_the_decision(workspace: Workspace) -> None:
    review_id = workspace.pause(WRITE_PLAN)
    shown = workspace.preview(review_id)

    (workspace.project / "plan.md").write_text("step 1\nstep 2\nstep 3 added meanwhile\n", encoding="utf-8")
    with pytest.raises(DecisionNotAllowedError, match=r"plan\.md changed since the review was shown"):
        workspace.services.reviews.decide(
            review_id, reviewer="reviewer", approve=True, shown_effect=shown.binding
        )

    assert "meanwhile" in (workspace.project / "plan.md").read_text(encoding="utf-8")
    assert workspace.services.ledger.require(review_id).status == "pending"


def test_an_edit_approved_on_the_preview_of_another_path_is_refused(workspace: Workspace) -> None:
    # The form's path changed and the button was clicked before the page showed its preview.
    review_id = workspace.pause(WRITE_REPORT)
    shown = workspace.preview(review_id)

    with pytest.raises(
        DecisionNotAllowedError, match=r"report\.md on filesystem is not the file this call writes"
    ):
        workspace.services.reviews.decide(
            review_id,
            reviewer="reviewer",
            approve=True,
            arguments={"path": "notes.md", "content": "# Report"},
            shown_effect=shown.binding,
        )

    assert workspace.writes() == []
    assert workspace.services.ledger.require(review_id).status == "pending"


def test_an_unchanged_file_is_written_exactly_once_and_the_decision_keeps_what_it_was_bound_to(
    workspace: Workspace,
) -> None:
    review_id = workspace.pause(WRITE_REPORT)
    shown = workspace.preview(review_id)

    done = workspace.services.reviews.decide(
        review_id, reviewer="reviewer", approve=True, shown_effect=shown.binding
    )

    assert done.run is not None and done.run.final_output.status == "ok"
    assert (workspace.project / "report.md").read_text(encoding="utf-8") == "# Report"
    assert workspace.writes() == [{"path": "report.md", "content": "# Report"}]
    review = workspace.services.ledger.require(review_id)
    assert review.status == "executed"
    assert [d.effect for d in review.decisions] == [
        EffectBinding(server="filesystem", path="report.md", exists=False)
    ]
    [decision] = workspace.events(review_id, "decision")
    assert decision["bound_to"]["exists"] is False


# -- right before the call -----------------------------------------------------------------------


def test_a_file_that_changed_between_two_approvals_is_not_written_and_goes_back_to_review(
    two_approvals: Workspace,
) -> None:
    service = two_approvals.services.reviews
    review_id = two_approvals.pause(WRITE_REPORT)
    # The first reviewer approves the new file the page showed.
    service.decide(
        review_id, reviewer="reviewer", approve=True, shown_effect=two_approvals.preview(review_id).binding
    )
    notes = (two_approvals.project / "notes.md").read_text(encoding="utf-8")

    (two_approvals.project / "report.md").symlink_to("notes.md")
    # The second approves from the command line, which shows no preview: bound to what is there.
    done = service.decide(review_id, reviewer="reviewer2", approve=True)

    assert (two_approvals.project / "notes.md").read_text(encoding="utf-8") == notes
    assert two_approvals.writes() == []
    assert done.run is not None
    output = done.run.final_output
    assert output.status == "needs_review"
    assert output.fallback_reason is not None
    assert "report.md did not exist when the approval was given and does now" in output.fallback_reason
    assert output.review is not None and output.review.id != review_id
    flags = {flag.code: flag for flag in output.review.flags}
    assert flags["target_changed"].severity == "critical"
    # Each approval keeps what it was bound to: the second, shown no preview, the link it found.
    review = two_approvals.services.ledger.require(review_id)
    assert [
        (d.reviewer, d.effect and d.effect.exists, d.effect and d.effect.target) for d in review.decisions
    ] == [
        ("reviewer", False, None),
        ("reviewer2", True, "notes.md"),
    ]
    # The approval that did not run says so, and why.
    assert review.status == "not_run"
    [not_run] = two_approvals.events(review_id, "review_not_run")
    assert "report.md did not exist" in str(not_run["reason"])


@contextmanager
def _project(data_dir: Path) -> Iterator[tuple[SdkMcpClient, Path]]:
    """The filesystem server on its folder, with a plan and a copy of it."""
    with SdkMcpClient({"filesystem": build_filesystem(data_dir)}) as pool:
        project = data_dir / "project"
        (project / "plan.md").write_text(PLAN, encoding="utf-8")
        (project / "copy-of-plan.md").write_text(PLAN, encoding="utf-8")
        yield pool, project


def _approved_on_the_preview(
    graph: CompiledGraph, pool: SdkMcpClient, path: str, thread: str
) -> ReviewDecision:
    """Ask for a write of "approved text" to ``path``, and the approval of what its preview shows."""
    paused = ask(graph, pool, f'Write "approved text" to the file {path}', thread_id=thread)
    assert paused.pending is not None and paused.pending["arguments"]["path"] == path
    policy = context_for(pool).policy
    assert isinstance(policy, PolicyEngine)
    shown = effect_preview(pool, policy, dict(paused.pending["capability"]), paused.pending["arguments"])
    assert isinstance(shown, FileDiffPreview) and shown.binding is not None
    return ReviewDecision(action="approve", by="reviewer", effects=[shown.binding])


def _written_anywhere(folder: Path) -> bool:
    """Whether the approved text reached any file under ``folder`` (links not followed)."""
    return any(
        b"approved text" in path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file() and not path.is_symlink()
    )


def _relink(path: Path, target: str) -> None:
    """Replace the file at ``path`` with a symlink to ``target``."""
    path.unlink()
    path.symlink_to(target)


# Each change made between the approval and the call, and what the refusal says about it.
CHANGES: dict[str, tuple[str, Callable[[Path], object], str]] = {
    "new-file-now-a-link": (
        "report.md",
        lambda project: (project / "report.md").symlink_to("notes.md"),
        "report.md did not exist when the approval was given and does now (it leads to notes.md)",
    ),
    "new-file-now-created": (
        "report.md",
        lambda project: (project / "report.md").write_text("someone else's report\n", encoding="utf-8"),
        "report.md did not exist when the approval was given and does now:",
    ),
    "content-changed": (
        "plan.md",
        lambda project: (project / "plan.md").write_text("step 1\nstep 2\nstep 3\n", encoding="utf-8"),
        "plan.md changed since the approval was given",
    ),
    "deleted": (
        "plan.md",
        lambda project: (project / "plan.md").unlink(),
        "plan.md existed when the approval was given and is gone now",
    ),
    "now-a-link-to-a-file-with-the-same-text": (
        "plan.md",
        lambda project: _relink(project / "plan.md", "copy-of-plan.md"),
        "plan.md led to plan.md when the approval was given and leads to copy-of-plan.md now",
    ),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_file_changed_after_the_approval_is_not_written_and_goes_back_to_review(
    graph: CompiledGraph, data_dir: Path, change: str
) -> None:
    path, make_change, reason = CHANGES[change]
    with _project(data_dir) as (pool, project):
        approval = _approved_on_the_preview(graph, pool, path, f"t-{change}")

        make_change(project)
        again = resume(graph, context_for(pool), f"t-{change}", approval)

    assert not _written_anywhere(data_dir)
    assert again.final_output.status == "needs_review"
    assert again.final_output.fallback_reason is not None
    assert reason in again.final_output.fallback_reason
    assert again.pending is not None
    assert again.pending["flags"][-1]["code"] == "target_changed"
    assert again.pending["flags"][-1]["severity"] == "critical"


def test_a_new_file_swapped_for_a_link_out_of_the_folder_is_refused_by_the_server(
    graph: CompiledGraph, data_dir: Path, tmp_path: Path
) -> None:
    # The server hides such a link from its listing and refuses to read it, so to the host the
    # file is still not there; the server itself refuses to write through it.
    secret = tmp_path / "secret.txt"
    secret.write_text("keep\n", encoding="utf-8")
    with _project(data_dir) as (pool, project):
        approval = _approved_on_the_preview(graph, pool, "report.md", "t-out")

        (project / "report.md").symlink_to(secret)
        done = resume(graph, context_for(pool), "t-out", approval)

    assert secret.read_text(encoding="utf-8") == "keep\n"
    assert done.final_output.status == "error"
    assert "symlink" in (done.final_output.fallback_reason or "")


def test_an_unchanged_file_is_written_once_under_its_binding(graph: CompiledGraph, data_dir: Path) -> None:
    with _project(data_dir) as (pool, project):
        approval = _approved_on_the_preview(graph, pool, "plan.md", "t-same")
        done = resume(graph, context_for(pool), "t-same", approval)

    assert done.final_output.status == "ok"
    assert (project / "plan.md").read_text(encoding="utf-8") == "approved text"


def test_an_approval_bound_to_nothing_runs_as_before(graph: CompiledGraph, data_dir: Path) -> None:
    # A preview that could not read the file binds nothing, and the reviewer was told so.
    with _project(data_dir) as (pool, project):
        ask(graph, pool, 'Write "fresh" to the file report.md', thread_id="t-unbound")
        done = resume(graph, context_for(pool), "t-unbound", ReviewDecision(action="approve", by="reviewer"))

    assert done.final_output.status == "ok"
    assert (project / "report.md").read_text(encoding="utf-8") == "fresh"


def test_a_decision_whose_process_died_is_carried_out_by_the_sweep_under_its_binding(
    workspace: Workspace, data_dir: Path
) -> None:
    review_id = workspace.pause(WRITE_REPORT)
    shown = workspace.preview(review_id)
    ledger = workspace.services.ledger
    # The decision is on record, bound to the new file; its process died before carrying it out.
    ledger.record_decision(
        review_id,
        reviewer="reviewer",
        action="approve",
        reason=None,
        arguments=ledger.require(review_id).arguments,
        effect=shown.binding,
    )
    run_sql(data_dir, f"UPDATE reviews SET decider_host = NULL WHERE id = '{review_id}'")
    notes = (workspace.project / "notes.md").read_text(encoding="utf-8")
    (workspace.project / "report.md").symlink_to("notes.md")

    swept = workspace.services.reviews.sweep()

    assert swept["resumed"] == [review_id]
    assert (workspace.project / "notes.md").read_text(encoding="utf-8") == notes
    assert workspace.writes() == []
    assert ledger.require(review_id).status == "not_run"
    assert json.dumps(ledger.queue("pending")[0].flags).count("target_changed") == 1
