"""Messages and records checked after they are made: once an approved send or update
succeeded, the message (by the id the send returned) or the record (by the id the update
named) is read back through its server's own resource template, when the policy lets that
read run, and compared with what was approved. A mismatch is flagged to the operator and
audited as ``effect_mismatch``; where nothing can be read back the result says "not verified",
and why.

The servers are real, over stdio: the bundled e-mail and tickets servers, and
tests/drifting_records_server.py (its records changed right after a send or an update, or its
reads failing)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gatehouse.display.render import render_text
from gatehouse.wiring import Services
from graph.state import FinalOutput
from tests.drifting_records_server import REPO, entry
from tests.reviews.review_support import policy_file, services_for
from tests.support import bundled_server_entry

pytestmark = pytest.mark.processes

SEND = "Send an email to bob@example.com with the subject Lunch saying see you at noon"
CLOSE = "Close ticket 7"
NOTE = "Add an internal note to ticket 7 saying 'customer called back'"
EMAIL_READ = 'read = ["mail://sent/{id}"]'
TICKET_READ = 'read = ["ticket://{id}"]'


def _audited(services: Services, review_id: str, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in services.audit.events() if e.review_id == review_id and e.kind == kind]


def _approve(services: Services, request: str) -> tuple[str, FinalOutput]:
    paused = services.requests.ask(request, requester="operator")
    assert paused.final_output.status == "needs_review", paused.final_output.response
    assert paused.final_output.review is not None
    review_id = paused.final_output.review.id
    done = services.reviews.decide(review_id, reviewer="reviewer", approve=True)
    assert done.run is not None
    assert done.run.final_output.status == "ok", done.run.final_output.response
    return review_id, done.run.final_output


def _servers(data: Path, name: str, server: dict[str, Any]) -> Path:
    path = data / "servers.json"
    path.write_text(json.dumps({"mcpServers": {name: server}}), encoding="utf-8")
    return path


@pytest.fixture
def log(data_dir: Path) -> Path:
    """Which calls reached the drifting server: a tool's name, or the URI it read."""
    return data_dir / "calls.log"


def _drifting(
    data: Path,
    log: Path,
    *,
    drift: dict[str, Any] | None = None,
    failing_reads: bool = False,
    policy: Path | None = None,
) -> Iterator[Services]:
    server = entry(data / "records", drift=drift, failing_reads=failing_reads, log=log)
    with services_for(data, servers=_servers(data, "office", server), policy=policy) as services:
        yield services


def _bundled(data: Path, name: str) -> Iterator[Services]:
    """Gatehouse on bundled server ``name``: the shipped entry's environment (the public keys
    its verifying needs), with ``python -m servers.NAME`` from this checkout for its command
    (the server whose read is the subject, not the launcher's)."""
    shipped = bundled_server_entry(name, data / "demo")
    args = ["-m", f"servers.{name}", "--data-dir", str(data / "demo")]
    server = {"command": sys.executable, "args": args, "cwd": str(REPO), "env": shipped["env"]}
    with services_for(data, servers=_servers(data, name, server)) as services:
        yield services


def _calls(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines()


def _deny_or_review(data: Path, action: str, glob: str) -> Path:
    """The shipped policy with a rule that sends every read of ``glob`` to ``action``."""
    rule = (
        f'\n[[rules]]\nname = "no-looking-back"\nmatch = ["{glob}"]\naction = "{action}"\n'
        'explanation = "nothing is read back"\n\n[sampling]\n'
    )
    return policy_file(data, f"{action}-reads.toml", ("\n[sampling]\n", rule))


# -- e-mail ----------------------------------------------------------------------------------------


def test_a_sent_message_that_reads_back_as_approved_is_verified(data_dir: Path) -> None:
    for services in _bundled(data_dir, "email"):
        review_id, output = _approve(services, SEND)

        [line] = (data_dir / "demo" / "outbox.jsonl").read_text(encoding="utf-8").splitlines()
        sent = json.loads(line)
        assert (sent["subject"], sent["to"]) == ("Lunch", "bob@example.com")
        assert output.effect_check is not None
        assert (output.effect_check.status, output.effect_check.detail) == (
            "verified",
            f"mail://sent/{sent['id']} on email is the approved message",
        )
        assert _audited(services, review_id, "effect_mismatch") == []
        [audited] = _audited(services, review_id, "effect_check")
        assert audited["status"] == "verified"


def test_a_message_changed_after_the_send_is_flagged_and_audited_as_an_effect_mismatch(
    data_dir: Path, log: Path
) -> None:
    for services in _drifting(data_dir, log, drift={"subject": "Lunch is off"}):
        review_id, output = _approve(services, SEND)

        assert output.effect_check is not None
        assert output.effect_check.status == "mismatch"
        assert "is not the approved message after office__send_email sent it: its subject differs" in (
            output.effect_check.detail
        )
        assert output.effect_check.detail.startswith("mail://sent/")
        assert output.effect_check.detail in output.errors
        assert f"effect:     mismatch: {output.effect_check.detail}" in render_text(
            output.model_dump(mode="json")
        )
        [audited] = _audited(services, review_id, "effect_mismatch")
        assert audited == {"status": "mismatch", "detail": output.effect_check.detail}
        assert _calls(log)[0] == "send_email" and _calls(log)[1].startswith("mail://sent/")


def test_a_message_with_no_read_declared_is_not_verified(data_dir: Path, log: Path) -> None:
    policy = policy_file(data_dir, "no-read.toml", (EMAIL_READ, "read = []"))
    for services in _drifting(data_dir, log, drift={"subject": "Lunch is off"}, policy=policy):
        _, output = _approve(services, SEND)

        assert output.effect_check is not None
        assert output.effect_check.status == "not_verified"
        assert "no read is declared" in output.effect_check.detail
        assert _calls(log) == ["send_email"]


@pytest.mark.parametrize(
    ("action", "said"),
    [
        ("deny", "is denied by rule no-looking-back"),
        ("review", "would need a review by rule no-looking-back"),
    ],
)
def test_a_message_read_back_the_policy_refuses_is_never_run_and_the_reason_says_what_it_decided(
    data_dir: Path, log: Path, action: str, said: str
) -> None:
    policy = _deny_or_review(data_dir, action, "*__outbox_entry")
    for services in _drifting(data_dir, log, drift={"subject": "Lunch is off"}, policy=policy):
        _, output = _approve(services, SEND)

        assert output.effect_check is not None
        assert output.effect_check.status == "not_verified"
        assert f"reading it with office__outbox_entry {said}" in output.effect_check.detail
        assert _calls(log) == ["send_email"]


def test_a_message_whose_read_fails_is_not_verified(data_dir: Path, log: Path) -> None:
    for services in _drifting(data_dir, log, failing_reads=True):
        _, output = _approve(services, SEND)

        assert output.effect_check is not None
        assert output.effect_check.status == "not_verified"
        assert "the message store is locked for maintenance" in output.effect_check.detail
        assert _calls(log)[0] == "send_email" and _calls(log)[1].startswith("mail://sent/")


# -- tickets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_text", "compared"), [(CLOSE, "status"), (NOTE, "note")], ids=["status", "note"]
)
def test_a_ticket_update_that_reads_back_as_approved_is_verified(
    data_dir: Path, request_text: str, compared: str
) -> None:
    for services in _bundled(data_dir, "tickets"):
        review_id, output = _approve(services, request_text)

        assert output.effect_check is not None
        assert (output.effect_check.status, output.effect_check.detail) == (
            "verified",
            f"ticket://7 on tickets holds the approved {compared}",
        )
        [audited] = _audited(services, review_id, "effect_check")
        assert audited["status"] == "verified"


@pytest.mark.parametrize(
    ("request_text", "drift", "said"),
    [
        (CLOSE, {"status": "open"}, 'status is "open", not "closed"'),
        (NOTE, {"notes": []}, 'notes does not hold "customer called back"'),
    ],
    ids=["status", "note"],
)
def test_a_ticket_changed_after_the_update_is_flagged_and_audited_as_an_effect_mismatch(
    data_dir: Path, log: Path, request_text: str, drift: dict[str, Any], said: str
) -> None:
    for services in _drifting(data_dir, log, drift=drift):
        review_id, output = _approve(services, request_text)

        assert output.effect_check is not None
        assert (output.effect_check.status, output.effect_check.detail) == (
            "mismatch",
            f"ticket://7 on office does not hold what was approved after office__update_ticket changed it: {said}",
        )
        assert output.effect_check.detail in output.errors
        [audited] = _audited(services, review_id, "effect_mismatch")
        assert audited == {"status": "mismatch", "detail": output.effect_check.detail}
        assert _calls(log) == ["update_ticket", "ticket://7"]


def test_a_ticket_update_with_no_read_declared_is_not_verified(data_dir: Path, log: Path) -> None:
    policy = policy_file(data_dir, "no-read.toml", (TICKET_READ, "read = []"))
    for services in _drifting(data_dir, log, drift={"status": "open"}, policy=policy):
        _, output = _approve(services, CLOSE)

        assert output.effect_check is not None
        assert output.effect_check.status == "not_verified"
        assert "no read is declared" in output.effect_check.detail
        assert _calls(log) == ["update_ticket"]


@pytest.mark.parametrize(
    ("action", "said"),
    [
        ("deny", "is denied by rule no-looking-back"),
        ("review", "would need a review by rule no-looking-back"),
    ],
)
def test_a_ticket_read_back_the_policy_refuses_is_never_run_and_the_reason_says_what_it_decided(
    data_dir: Path, log: Path, action: str, said: str
) -> None:
    policy = _deny_or_review(data_dir, action, "*__ticket")
    for services in _drifting(data_dir, log, drift={"status": "open"}, policy=policy):
        _, output = _approve(services, CLOSE)

        assert output.effect_check is not None
        assert output.effect_check.status == "not_verified"
        assert f"reading it with office__ticket {said}" in output.effect_check.detail
        assert _calls(log) == ["update_ticket"]


def test_a_ticket_whose_read_fails_is_not_verified(data_dir: Path, log: Path) -> None:
    for services in _drifting(data_dir, log, failing_reads=True):
        _, output = _approve(services, CLOSE)

        assert output.effect_check is not None
        assert output.effect_check.status == "not_verified"
        assert "office__ticket: " in output.effect_check.detail
        assert "the ticket store is locked for maintenance" in output.effect_check.detail
        assert _calls(log) == ["update_ticket", "ticket://7"]
