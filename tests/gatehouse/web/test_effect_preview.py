"""Previews of what an approval would do: the e-mail as sent, the diff a file write would make.

File previews read through the bundled filesystem server (real, through the SDK client) and
never write: the tests check the file on disk and every call the client saw.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from gatehouse.web.effect_preview import (
    EmailPreview,
    FileDiffPreview,
    RecordPreview,
    effect_preview,
    email_preview,
)
from graph.state import EffectBinding
from mcp_host.errors import ErrorKind
from mcp_host.results import ContentItem, McpResult
from policies.engine import PolicyEngine
from policies.loader import parse_policy
from tests.fakes import FaultInjectingClient, failure
from tests.support import DEFAULT_TEST_POLICY

WRITE_FILE = {"type": "tool", "server": "filesystem", "name": "write_file", "key": "filesystem__write_file"}
SEND_EMAIL = {"type": "tool", "server": "email", "name": "send_email", "key": "email__send_email"}
UPDATE_TICKET = {
    "type": "tool",
    "server": "tickets",
    "name": "update_ticket",
    "key": "tickets__update_ticket",
}

PLAN = "".join(f"step {n}\n" for n in range(1, 11))


@pytest.fixture
def policy() -> PolicyEngine:
    """The shipped policy, under which reading a project file runs without a review."""
    return PolicyEngine(DEFAULT_TEST_POLICY)


@pytest.fixture
def project(data_dir: Path, client: FaultInjectingClient) -> Path:
    """The filesystem server's folder (created by the server), with a ten-line plan in it."""
    folder = data_dir / "project"
    assert folder.is_dir()
    (folder / "plan.md").write_text(PLAN, encoding="utf-8")
    return folder


def preview_write(
    client: FaultInjectingClient, policy: PolicyEngine, path: str, content: str, *, server: str = "filesystem"
) -> FileDiffPreview:
    preview = effect_preview(
        client, policy, WRITE_FILE | {"server": server}, {"path": path, "content": content}
    )
    assert isinstance(preview, FileDiffPreview)
    return preview


def write_calls(client: FaultInjectingClient) -> list[tuple[str, str, Any]]:
    return [call for call in client.calls if call[1] == "write_file"]


# -- records ---------------------------------------------------------------------------------------


def test_a_ticket_update_is_previewed_as_the_fields_it_sets_and_the_note_it_adds(
    client: FaultInjectingClient, policy: PolicyEngine
) -> None:
    preview = effect_preview(
        client, policy, UPDATE_TICKET, {"id": 7, "status": "closed", "priority": None, "note": "refund sent"}
    )

    assert preview == RecordPreview(
        record={"id": 7}, sets={"status": "closed"}, adds={"notes": "refund sent"}
    )
    # What an update sets is its arguments: nothing is read to show it.
    assert client.calls == []


# -- e-mail ----------------------------------------------------------------------------------------


def test_an_email_preview_shows_recipients_subject_and_body() -> None:
    preview = email_preview(
        {"to": "bob@example.com", "cc": ["carol@example.com"], "subject": "Hi", "body": "Hello Bob"}
    )

    assert preview == EmailPreview(
        to=["bob@example.com"], cc=["carol@example.com"], subject="Hi", body="Hello Bob"
    )


def test_recipients_given_as_a_list_are_listed_as_given() -> None:
    preview = email_preview({"to": ["bob@example.com", "dave@example.org"], "body": "x"})

    assert preview.to == ["bob@example.com", "dave@example.org"]


def test_recipients_in_one_string_are_split_on_commas_and_semicolons() -> None:
    preview = email_preview(
        {"to": " bob@example.com; carol@example.com ,dave@example.org;", "cc": "eve@example.com,", "body": ""}
    )

    assert preview.to == ["bob@example.com", "carol@example.com", "dave@example.org"]
    assert preview.cc == ["eve@example.com"]


def test_missing_subject_cc_and_body_are_shown_as_such() -> None:
    preview = email_preview({"to": "bob@example.com"})

    assert (preview.subject, preview.cc, preview.body) == ("(no subject)", [], "")


def test_a_blank_recipient_string_lists_nobody() -> None:
    assert email_preview({"to": "   ", "body": "x"}).to == []


def test_send_email_gets_an_email_preview_without_calling_any_server(
    client: FaultInjectingClient, policy: PolicyEngine
) -> None:
    preview = effect_preview(client, policy, SEND_EMAIL, {"to": "bob@example.com", "body": "hi"})

    assert preview == EmailPreview(to=["bob@example.com"], cc=[], subject="(no subject)", body="hi")
    assert client.calls == []


# -- file writes -----------------------------------------------------------------------------------


def test_a_write_over_an_existing_file_shows_the_lines_it_changes(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    new = PLAN.replace("step 5\n", "step five\n") + "step 11\n"

    preview = preview_write(client, policy, "plan.md", new)

    assert preview.current_known is True
    assert preview.note is None
    assert preview.unchanged is False
    assert (preview.lines_added, preview.lines_removed) == (2, 1)
    lines = preview.diff.splitlines()
    assert lines[:2] == ["--- a/plan.md", "+++ b/plan.md"]
    assert [line for line in lines[2:] if line[:1] in "+-"] == ["-step 5", "+step five", "+step 11"]
    # Three lines of context around each change, not the whole file.
    assert " step 1" not in lines
    assert " step 4" in lines and " step 8" in lines


def test_previewing_a_write_reads_the_file_and_never_writes_it(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    preview_write(client, policy, "plan.md", "all replaced\n")
    preview_write(client, policy, "brand-new.md", "fresh\n")

    assert (project / "plan.md").read_text(encoding="utf-8") == PLAN
    assert not (project / "brand-new.md").exists()
    assert write_calls(client) == []
    assert client.calls == [
        ("filesystem", "read_file", {"path": "plan.md"}),
        ("filesystem", "read_file", {"path": "brand-new.md"}),
    ]


def test_a_write_that_creates_a_file_is_a_new_file_all_added_not_a_failed_read(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    preview = preview_write(client, policy, "drafts/new.md", "one\ntwo\n")

    assert preview.new_file is True
    assert preview.current_known is True
    # The read's "no such file" is how the preview knew, not something to show.
    assert preview.note is None
    assert preview.diff.splitlines() == [
        "--- /dev/null",
        "+++ b/drafts/new.md",
        "@@ -0,0 +1,2 @@",
        "+one",
        "+two",
    ]
    assert (preview.lines_added, preview.lines_removed, preview.unchanged) == (2, 0, False)


def test_an_existing_file_is_not_a_new_file(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    assert preview_write(client, policy, "plan.md", "x\n").new_file is False


def test_creating_an_empty_file_is_a_new_file_and_not_unchanged(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    preview = preview_write(client, policy, "empty-new.txt", "")

    assert (preview.new_file, preview.unchanged) == (True, False)


@pytest.mark.parametrize(
    "message",
    [
        "ENOENT: no such file or directory, open '/srv/project/new.md'",
        "[Errno 2] No such file or directory: 'new.md'",
        "File not found: new.md",
        "new.md does not exist",
        "FileNotFoundError: new.md",
    ],
)
def test_not_found_in_another_servers_words_is_a_new_file(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path, message: str
) -> None:
    client.faults["filesystem__read_file"] = [failure("tool_error", message)]

    preview = preview_write(client, policy, "new.md", "fresh\n")

    assert (preview.new_file, preview.note) == (True, None)


def test_an_unknown_wording_is_settled_by_the_servers_own_listing_of_the_folder(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    client.faults["filesystem__read_file"] = [failure("tool_error", "Datei fehlt")]

    absent = preview_write(client, policy, "new.md", "fresh\n")
    present = preview_write(client, policy, "plan.md", "x\n")

    assert (absent.new_file, absent.note) == (True, None)
    # The file is listed: it exists and could not be read, and the preview says why.
    assert (present.new_file, present.current_known) == (False, False)
    assert present.note == "filesystem__read_file: Datei fehlt"
    assert ("filesystem", "list_directory", {"path": "."}) in client.calls
    assert write_calls(client) == []


def listing_text(*lines: str) -> Any:
    """A list_directory answer as @modelcontextprotocol/server-filesystem writes it."""

    def make(server: str, capability_type: str, name: str) -> McpResult:
        text = ContentItem(type="text", text="\n".join(lines))
        return McpResult(
            success=True, server=server, capability_type=capability_type, name=name, content=[text]
        )

    return make


def test_a_text_listing_in_the_reference_servers_format_is_read_too(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    client.faults["filesystem__read_file"] = [failure("tool_error", "Datei fehlt")]
    client.faults["filesystem__list_directory"] = [listing_text("[DIR] drafts", "[FILE] plan.md")]

    assert preview_write(client, policy, "new.md", "x\n").new_file is True
    assert preview_write(client, policy, "plan.md", "x\n").new_file is False


def test_a_listing_in_an_unknown_shape_proves_nothing(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    client.faults["filesystem__read_file"] = [failure("tool_error", "Datei fehlt")]
    client.faults["filesystem__list_directory"] = [listing_text("plan.md  120 bytes")]

    preview = preview_write(client, policy, "new.md", "x\n")

    assert (preview.new_file, preview.current_known) == (False, False)


@pytest.mark.parametrize("kind", ["timeout", "unavailable", "auth", "protocol"])
def test_a_failure_that_is_not_the_tools_own_answer_never_makes_a_new_file(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path, kind: ErrorKind
) -> None:
    client.faults["filesystem__read_file"] = [failure(kind, "resource not found")]

    preview = preview_write(client, policy, "new.md", "x\n")

    assert (preview.new_file, preview.current_known) == (False, False)
    assert preview.note == "filesystem__read_file: resource not found"
    assert [call for call in client.calls if call[1] == "list_directory"] == []


def test_writing_the_same_content_is_shown_as_unchanged(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    preview = preview_write(client, policy, "plan.md", PLAN)

    assert (preview.unchanged, preview.current_known) == (True, True)
    assert (preview.diff, preview.lines_added, preview.lines_removed) == ("", 0, 0)


def test_an_existing_empty_file_is_known_and_not_taken_for_a_new_one(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    (project / "empty.txt").write_text("", encoding="utf-8")

    filled = preview_write(client, policy, "empty.txt", "now with text\n")
    same = preview_write(client, policy, "empty.txt", "")

    assert (filled.current_known, filled.note, filled.unchanged) == (True, None, False)
    assert filled.diff.splitlines()[0] == "--- a/empty.txt"
    assert (same.current_known, same.unchanged) == (True, True)


def test_a_last_line_without_a_newline_does_not_run_into_the_next_diff_line(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    (project / "short.txt").write_text("keep\nold", encoding="utf-8")

    preview = preview_write(client, policy, "short.txt", "keep\nnew")

    assert preview.diff.endswith("-old\n+new\n")
    assert (preview.lines_added, preview.lines_removed) == (1, 1)


def test_removed_lines_that_start_with_dashes_are_counted(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    (project / "post.md").write_text("---\ntitle: a\n---\nbody\n", encoding="utf-8")

    preview = preview_write(client, policy, "post.md", "title: b\nbody\n")

    assert (preview.lines_added, preview.lines_removed) == (1, 3)


def test_a_server_without_a_read_tool_gives_a_diff_against_nothing_and_says_so(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    # The e-mail server offers no read tool at all.
    preview = preview_write(client, policy, "plan.md", "x\n", server="email")

    assert preview.current_known is False
    assert preview.note == "server email offers no tool to read the current file"
    assert (preview.lines_added, preview.lines_removed) == (1, 0)
    assert client.calls == []


@pytest.mark.parametrize(
    ("action", "said"), [("review", "would need a review by rule"), ("deny", "is denied by rule")]
)
def test_a_read_the_policy_would_send_to_review_or_denies_is_not_made_and_the_note_says_which(
    client: FaultInjectingClient, project: Path, action: str, said: str
) -> None:
    strict = PolicyEngine(
        parse_policy(
            {
                "rules": [
                    {"name": "everything", "match": ["*"], "action": "allow", "explanation": "demo"},
                    {
                        "name": "project reads",
                        "match": ["filesystem__read_file"],
                        "action": action,
                        "explanation": "reading the project needs a look",
                    },
                ]
            },
            source="strict.toml",
            variables={},
        )
    )

    preview = preview_write(client, strict, "plan.md", "x\n")

    assert client.calls == []
    assert preview.current_known is False
    assert preview.note == f"reading it with filesystem__read_file {said} project reads"
    assert preview.diff.splitlines()[0] == "--- /dev/null"
    assert (project / "plan.md").read_text(encoding="utf-8") == PLAN


def test_a_read_that_fails_gives_a_diff_against_nothing_with_the_servers_message(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    client.faults["filesystem__read_file"] = [failure("timeout", "read timed out after 30 s")]

    preview = preview_write(client, policy, "plan.md", "x\n")

    assert preview.current_known is False
    assert preview.note == "filesystem__read_file: read timed out after 30 s"
    assert (project / "plan.md").read_text(encoding="utf-8") == PLAN


# -- what an approval is bound to ------------------------------------------------------------------


def test_a_preview_binds_an_approval_to_the_file_it_showed_and_what_it_held(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    existing = preview_write(client, policy, "plan.md", "x\n")
    new = preview_write(client, policy, "report.md", "x\n")

    assert existing.binding == EffectBinding(
        server="filesystem",
        path="plan.md",
        exists=True,
        target="plan.md",
        sha256=hashlib.sha256(PLAN.encode("utf-8")).hexdigest(),
    )
    assert new.binding == EffectBinding(server="filesystem", path="report.md", exists=False)


def test_a_path_that_is_a_link_is_previewed_as_the_file_it_leads_to(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    (project / "report.md").symlink_to("plan.md")

    preview = preview_write(client, policy, "report.md", "x\n")

    assert (preview.new_file, preview.target, preview.elsewhere) == (False, "plan.md", True)
    assert preview.lines_removed == PLAN.count("\n")
    assert preview.binding is not None and preview.binding.target == "plan.md"


def test_a_preview_that_could_not_read_the_file_binds_nothing(
    client: FaultInjectingClient, policy: PolicyEngine, project: Path
) -> None:
    client.faults["filesystem__read_file"] = [failure("timeout", "read timed out after 30 s")]

    assert preview_write(client, policy, "plan.md", "x\n").binding is None


# -- no preview ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("capability", "arguments"),
    [
        (
            {"type": "resource", "server": "filesystem", "name": "write_file"},
            {"path": "plan.md", "content": ""},
        ),
        ({"type": "prompt", "server": "email", "name": "send_email"}, {"to": "bob@example.com"}),
        ({"type": "tool", "server": "filesystem", "name": "read_file"}, {"path": "plan.md"}),
        ({"type": "tool", "server": "tickets", "name": "create_ticket"}, {"title": "x"}),
        ({"type": "tool", "name": "send_email"}, {"to": "bob@example.com"}),
        (WRITE_FILE, {"content": "no path"}),
        (WRITE_FILE, {"path": ["a", "b"], "content": "x"}),
    ],
    ids=[
        "a resource",
        "a prompt",
        "a read tool",
        "an unknown tool",
        "no server",
        "a write without a path",
        "a path that is not a string",
    ],
)
def test_capabilities_without_a_known_effect_get_no_preview_and_cause_no_call(
    client: FaultInjectingClient, policy: PolicyEngine, capability: dict[str, Any], arguments: dict[str, Any]
) -> None:
    assert effect_preview(client, policy, capability, arguments) is None
    assert client.calls == []
