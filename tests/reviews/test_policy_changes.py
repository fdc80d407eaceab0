"""Changes to the policy from the app or the command line: proposed with a reason, checked as
`policy check` checks a file, approved by another admin, applied in one transaction with its
audit event, and in force on every replica (each process on the database) within seconds."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gatehouse.wiring import Services, open_services
from policies.loader import PolicyError
from reviews.errors import NotPermittedError
from reviews.policy_changes import PolicyChangeClosedError, PolicyChangeError
from tests.capabilities import tool
from tests.reviews.review_support import DEFAULT_POLICY_TEXT, email_servers, gatehouse_process, settings_for

SEND = tool("email", "send_email", "Send an email", {"to": {"type": "string"}}, ["to"])
DENY_EMAIL = """
[[rules]]
name = "no e-mail this week"
match = ["email__*"]
action = "deny"
explanation = "e-mail is paused while the mail relay moves"
"""


@contextmanager
def replica(data: Path, policy: Path | None) -> Iterator[Services]:
    """One process's services on the test's database, without server processes."""
    with open_services(settings_for(data, policy=policy), connect_servers=False) as services:
        yield services


@pytest.fixture
def policy_path(tmp_path: Path) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(DEFAULT_POLICY_TEXT, encoding="utf-8")
    return path


def action_on_send(services: Services) -> str:
    return services.policy.evaluate(SEND, {"to": "bob@example.com"}).decision.action


def events(services: Services, kind: str) -> list[dict[str, object]]:
    return [event.data for event in services.audit.events() if event.kind == kind]


def test_an_approved_change_is_in_force_on_every_replica_and_recorded_once(
    tmp_path: Path, policy_path: Path
) -> None:
    with replica(tmp_path, policy_path) as first, replica(tmp_path, policy_path) as second:
        assert action_on_send(first) == action_on_send(second) == "review"

        change = first.policy_changes.propose(
            DEFAULT_POLICY_TEXT + DENY_EMAIL, by="admin", reason="relay moves"
        )
        assert action_on_send(first) == "review", "a proposal changes nothing until approved"
        applied = second.policy_changes.approve(change.id, by="admin2")

        # The approving process at once; the other at its next look (every few seconds).
        assert action_on_send(second) == "deny"
        assert first.policy.refresh() is True
        decision = first.policy.evaluate(SEND, {"to": "bob@example.com"}).decision
        assert decision.action == "deny"
        assert decision.rule == "no e-mail this week"
        assert decision.policy_version == applied.version.seq == 2
        assert events(first, "policy_change_proposed")[0]["change"] == change.id
        [done] = events(first, "policy_change_applied")
        assert done["change"] == change.id
        assert done["proposed_by"] == "admin"
        assert done["version"] == 2
        assert first.audit.verify().ok
    # Written into the configured file, which still held the version it was proposed against.
    assert policy_path.read_text(encoding="utf-8") == DEFAULT_POLICY_TEXT + DENY_EMAIL
    assert applied.file_note.endswith("rewritten with it")


def test_the_proposer_cannot_approve_their_own_change_under_four_eyes(
    tmp_path: Path, policy_path: Path
) -> None:
    with replica(tmp_path, policy_path) as services:
        change = services.policy_changes.propose(
            DEFAULT_POLICY_TEXT + DENY_EMAIL, by="admin", reason="why not"
        )

        with pytest.raises(NotPermittedError, match="another admin approves it"):
            services.policy_changes.approve(change.id, by="admin")

        assert services.policy_changes.get(change.id).status == "pending"
        assert action_on_send(services) == "review"


def test_a_team_of_one_admin_may_apply_its_own_change_when_four_eyes_is_off(tmp_path: Path) -> None:
    solo = DEFAULT_POLICY_TEXT.replace(
        "four_eyes = true                      # another admin", "four_eyes = false # x"
    )
    assert solo != DEFAULT_POLICY_TEXT
    path = tmp_path / "solo.toml"
    path.write_text(solo, encoding="utf-8")
    with replica(tmp_path, path) as services:
        change = services.policy_changes.propose(solo + DENY_EMAIL, by="admin", reason="alone here")

        services.policy_changes.approve(change.id, by="admin")

        assert action_on_send(services) == "deny"


@pytest.mark.parametrize("who", ["reviewer", "operator", "stranger"])
def test_only_a_role_with_manage_policy_proposes_or_approves(
    tmp_path: Path, policy_path: Path, who: str
) -> None:
    with replica(tmp_path, policy_path) as services:
        with pytest.raises(NotPermittedError, match="manage_policy"):
            services.policy_changes.propose(DEFAULT_POLICY_TEXT + DENY_EMAIL, by=who, reason="mine")
        change = services.policy_changes.propose(DEFAULT_POLICY_TEXT + DENY_EMAIL, by="admin", reason="ok")
        with pytest.raises(NotPermittedError, match="manage_policy"):
            services.policy_changes.approve(change.id, by=who)
        assert events(services, "policy_change_applied") == []


def test_a_proposed_change_turning_four_eyes_off_with_a_string_is_refused_naming_key_and_type(
    tmp_path: Path, policy_path: Path
) -> None:
    # The app's proposals go through the policy file's parser: "0" is no boolean there either.
    quoted = DEFAULT_POLICY_TEXT.replace("four_eyes = true ", 'four_eyes = "0"', 1)
    assert quoted != DEFAULT_POLICY_TEXT
    with replica(tmp_path, policy_path) as services:
        with pytest.raises(PolicyError) as refused:
            services.policy_changes.propose(quoted, by="admin", reason="fewer clicks")
        change = services.policy_changes.propose(DEFAULT_POLICY_TEXT + DENY_EMAIL, by="admin", reason="ok")

        assert refused.value.where == "the proposed policy: defaults.four_eyes"
        assert refused.value.reason == 'must be true or false, not the string "0"'
        assert [kept.id for kept in services.policy_changes.changes()] == [change.id]


def test_an_invalid_policy_is_refused_naming_the_key_and_nothing_is_kept(
    tmp_path: Path, policy_path: Path
) -> None:
    broken = DEFAULT_POLICY_TEXT.replace('action = "review"  ', 'action = "maybe"  ', 1)
    assert broken != DEFAULT_POLICY_TEXT
    with replica(tmp_path, policy_path) as services:
        with pytest.raises(PolicyError, match=r"the proposed policy: defaults\.action"):
            services.policy_changes.propose(broken, by="admin", reason="typo")
        with pytest.raises(PolicyError, match="not valid TOML"):
            services.policy_changes.propose("[rules", by="admin", reason="half a file")

        assert services.policy_changes.changes() == []
        assert events(services, "policy_change_proposed") == []


@pytest.mark.parametrize(
    ("text", "reason", "refusal"),
    [
        (DEFAULT_POLICY_TEXT, "same", "changes nothing"),
        (DEFAULT_POLICY_TEXT + DENY_EMAIL, "  ", "needs a reason"),
        (DEFAULT_POLICY_TEXT.replace('admin = "admin"\nadmin2 = "admin"\n', ""), "bye", "manage_policy"),
    ],
    ids=["no change", "no reason", "locks every admin out"],
)
def test_a_proposal_that_changes_nothing_says_nothing_or_locks_admins_out_is_refused(
    tmp_path: Path, policy_path: Path, text: str, reason: str, refusal: str
) -> None:
    with replica(tmp_path, policy_path) as services:
        with pytest.raises(PolicyChangeError, match=refusal):
            services.policy_changes.propose(text, by="admin", reason=reason)
        assert services.policy_changes.changes() == []


def test_a_change_written_against_an_older_version_is_superseded_not_applied_over_the_newer(
    tmp_path: Path, policy_path: Path
) -> None:
    with replica(tmp_path, policy_path) as services:
        first = services.policy_changes.propose(DEFAULT_POLICY_TEXT + DENY_EMAIL, by="admin", reason="one")
        rename = DEFAULT_POLICY_TEXT.replace('reviewer2 = "reviewer"', 'reviewer3 = "reviewer"')
        second = services.policy_changes.propose(rename, by="admin2", reason="two")

        applied = services.policy_changes.approve(first.id, by="admin2")

        assert applied.superseded == [second.id]
        with pytest.raises(PolicyChangeClosedError, match="superseded") as refused:
            services.policy_changes.approve(second.id, by="admin")
        assert refused.value.exit_code == 3
        assert "reviewer2" in services.policy.policy.users
        assert services.policy_changes.get(second.id).status == "superseded"


def test_a_text_made_from_a_version_no_longer_in_force_is_refused_not_proposed_over_the_newer(
    tmp_path: Path, policy_path: Path
) -> None:
    """A rule added by code to the text in force (a suggestion) while another change applied:
    kept against the newer version, it would undo that change; it is refused instead."""
    with replica(tmp_path, policy_path) as services:
        read = services.policy_changes.current()
        rename = DEFAULT_POLICY_TEXT.replace('reviewer2 = "reviewer"', 'reviewer3 = "reviewer"')
        services.policy_changes.approve(
            services.policy_changes.propose(rename, by="admin2", reason="meanwhile").id, by="admin"
        )

        with pytest.raises(PolicyChangeError, match="changed meanwhile \\(it is version 2 now, not 1\\)"):
            services.policy_changes.propose(
                read.text + DENY_EMAIL, by="admin", reason="r", written_on=read.seq
            )

        assert services.policy_changes.changes("pending") == []
        on_current = services.policy_changes.propose(
            rename + DENY_EMAIL, by="admin", reason="r", written_on=services.policy_changes.current().seq
        )
        assert on_current.base_seq == 2


def test_a_rejection_needs_a_reason_and_only_the_proposer_withdraws(
    tmp_path: Path, policy_path: Path
) -> None:
    with replica(tmp_path, policy_path) as services:
        change = services.policy_changes.propose(DEFAULT_POLICY_TEXT + DENY_EMAIL, by="admin", reason="one")
        with pytest.raises(PolicyChangeError, match="needs a reason"):
            services.policy_changes.reject(change.id, by="admin2", reason="")
        with pytest.raises(NotPermittedError, match="only they withdraw it"):
            services.policy_changes.withdraw(change.id, by="admin2")

        rejected = services.policy_changes.reject(change.id, by="admin2", reason="the relay is fine")

        assert (rejected.status, rejected.decided_by, rejected.decision_reason) == (
            "rejected",
            "admin2",
            "the relay is fine",
        )
        with pytest.raises(PolicyChangeClosedError, match="already rejected by admin2"):
            services.policy_changes.approve(change.id, by="admin2")
        assert events(services, "policy_change_rejected") == [
            {"change": change.id, "reason": "the relay is fine"}
        ]


def test_a_restart_on_the_untouched_file_keeps_the_approved_change(tmp_path: Path, policy_path: Path) -> None:
    with replica(tmp_path, policy_path) as services:
        change = services.policy_changes.propose(DEFAULT_POLICY_TEXT + DENY_EMAIL, by="admin", reason="one")
        services.policy_changes.approve(change.id, by="admin2")
    with replica(tmp_path, policy_path) as again:
        assert action_on_send(again) == "deny"
        assert again.policy.version == 2
    # Another machine's replica: its copy of the file, at the same path, as it was before.
    policy_path.write_text(DEFAULT_POLICY_TEXT, encoding="utf-8")
    with replica(tmp_path, policy_path) as elsewhere:
        assert action_on_send(elsewhere) == "deny"
        assert elsewhere.policy.version == 2


def test_choosing_another_file_and_back_again_runs_on_the_file_chosen(
    tmp_path: Path, policy_path: Path
) -> None:
    other = tmp_path / "strict.toml"
    other.write_text(DEFAULT_POLICY_TEXT + DENY_EMAIL, encoding="utf-8")
    with replica(tmp_path, policy_path) as first:
        assert action_on_send(first) == "review"
    with replica(tmp_path, other) as second:
        assert action_on_send(second) == "deny"
    with replica(tmp_path, policy_path) as third:
        assert action_on_send(third) == "review"
        assert third.policy.version == 3


def test_a_file_edited_on_disk_is_adopted_as_the_newest_version_at_start(
    tmp_path: Path, policy_path: Path
) -> None:
    with replica(tmp_path, policy_path) as services:
        change = services.policy_changes.propose(DEFAULT_POLICY_TEXT + DENY_EMAIL, by="admin", reason="one")
        services.policy_changes.approve(change.id, by="admin2")
    # Someone edits the file by hand (back to the shipped text, plus a comment).
    policy_path.write_text(DEFAULT_POLICY_TEXT + "# edited by hand\n", encoding="utf-8")

    with replica(tmp_path, policy_path) as again:
        assert action_on_send(again) == "review"
        assert again.policy.version == 3
        [adopted] = [e for e in events(again, "policy_adopted_from_file") if e.get("replaced_version")]
        assert adopted["replaced_version"] == 2
        assert "# edited by hand" in str(adopted["diff"])


def test_the_file_is_not_overwritten_when_it_was_edited_after_the_proposal(
    tmp_path: Path, policy_path: Path
) -> None:
    with replica(tmp_path, policy_path) as services:
        change = services.policy_changes.propose(DEFAULT_POLICY_TEXT + DENY_EMAIL, by="admin", reason="one")
        policy_path.write_text(DEFAULT_POLICY_TEXT + "# someone's edit\n", encoding="utf-8")

        applied = services.policy_changes.approve(change.id, by="admin2")

        assert "was not rewritten: it was edited since" in applied.file_note
        assert policy_path.read_text(encoding="utf-8").endswith("# someone's edit\n")
        assert action_on_send(services) == "deny"


def test_the_shipped_default_file_is_never_rewritten(tmp_path: Path) -> None:
    shipped = Path(__file__).resolve().parents[2] / "policies" / "default.toml"
    with replica(tmp_path, None) as services:
        change = services.policy_changes.propose(DEFAULT_POLICY_TEXT + DENY_EMAIL, by="admin", reason="one")

        applied = services.policy_changes.approve(change.id, by="admin2")

        assert "shipped default policy file is never rewritten" in applied.file_note
        assert shipped.read_text(encoding="utf-8") == DEFAULT_POLICY_TEXT
        assert action_on_send(services) == "deny"


def test_a_version_this_process_cannot_read_leaves_it_on_the_one_it_has(
    tmp_path: Path, policy_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    needs_variable = (DEFAULT_POLICY_TEXT + DENY_EMAIL).replace(
        "redact_arguments = []", 'redact_arguments = ["${GATEHOUSE_TEST_ONLY_THERE}"]'
    )
    assert needs_variable != DEFAULT_POLICY_TEXT + DENY_EMAIL
    with replica(tmp_path, policy_path) as here:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("GATEHOUSE_TEST_ONLY_THERE", "ticket_secret")
            with replica(tmp_path, policy_path) as there:
                change = there.policy_changes.propose(needs_variable, by="admin", reason="one")
                there.policy_changes.approve(change.id, by="admin2")
                assert action_on_send(there) == "deny"
        with caplog.at_level(logging.ERROR):
            assert here.policy.refresh() is False
        assert action_on_send(here) == "review"
        assert "stays on policy version 1" in caplog.text
        assert "GATEHOUSE_TEST_ONLY_THERE" in caplog.text


@pytest.mark.processes
def test_a_change_approved_by_another_process_reaches_this_one(tmp_path: Path, policy_path: Path) -> None:
    proposal = tmp_path / "proposal.toml"
    proposal.write_text(DEFAULT_POLICY_TEXT + DENY_EMAIL, encoding="utf-8")
    with replica(tmp_path, policy_path) as services:
        common = ["--policy", str(policy_path)]
        proposed = gatehouse_process(
            tmp_path,
            "policy",
            "propose",
            str(proposal),
            "--user",
            "admin",
            "--reason",
            "relay",
            "--json",
            *common,
        )
        assert proposed.returncode == 0, proposed.stderr
        change_id = json.loads(proposed.stdout)["id"]

        approved = gatehouse_process(tmp_path, "policy", "approve", change_id, "--user", "admin2", *common)

        assert approved.returncode == 0, approved.stderr
        assert "applied: version 2" in approved.stdout
        assert services.policy.refresh() is True
        assert action_on_send(services) == "deny"
        again = gatehouse_process(tmp_path, "policy", "approve", change_id, "--user", "admin2", *common)
        assert again.returncode == 3
        assert "already applied by admin2" in again.stderr


@pytest.mark.processes
def test_policy_explain_explains_with_the_version_in_force(tmp_path: Path, policy_path: Path) -> None:
    with replica(tmp_path, policy_path) as services:
        change = services.policy_changes.propose(DEFAULT_POLICY_TEXT + DENY_EMAIL, by="admin", reason="relay")
        services.policy_changes.approve(change.id, by="admin2")
    # Another machine's copy of the file, as it was before the change.
    policy_path.write_text(DEFAULT_POLICY_TEXT, encoding="utf-8")

    explained = gatehouse_process(
        tmp_path,
        "policy",
        "explain",
        "email__send_email",
        "--args",
        '{"to": "bob@example.com", "subject": "hi", "body": "hi"}',
        "--policy",
        str(policy_path),
        "--servers",
        str(email_servers(tmp_path)),
    )

    assert explained.returncode == 0, explained.stderr
    assert "rule: no e-mail this week" in explained.stdout
