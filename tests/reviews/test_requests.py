"""The request service is the operator's side: a message starts a request or answers the
question its thread asked, only the thread's owner (or a role allowed to take threads over,
recorded) continues it, a thread waiting for a reviewer takes no new message, and the trace,
the drawn graph and the servers' health are read through it. In-process: the bundled servers
run inside the test through the SDK client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.wiring import Services, open_services
from graph.runner import pending_interrupt
from mcp_host.config import ConfigError, ConfigProblem, ServersConfig, load_servers_config
from mcp_host.sdk_client import SdkMcpClient
from reviews.errors import NotAllowedError, NothingToResumeError, ThreadBusyError
from reviews.requests import RequestService, ServerRow
from servers.catalog import build_all
from tests.fakes import FaultInjectingClient
from tests.reviews.review_support import settings_for

LIST_FILES = "List the files in the managed project folder."
SEND_MAIL = "Send an email to bob@example.com saying hi"
MAIL_WITHOUT_RECIPIENT = "Send an email saying hi"


@pytest.fixture
def services(data_dir: Path) -> Iterator[Services]:
    # On the test's backend (tests/reviews/conftest.py): the SQLite file or PostgreSQL.
    with SdkMcpClient(build_all(data_dir)) as mcp, open_services(settings_for(data_dir), mcp=mcp) as opened:
        yield opened


@pytest.fixture
def requests(services: Services) -> RequestService:
    return services.requests


def test_a_message_starts_a_request_on_a_new_thread_recorded_as_the_requesters(
    services: Services, requests: RequestService
) -> None:
    run = requests.ask(LIST_FILES, requester="operator")

    thread = run.final_output.thread_id
    assert run.final_output.status == "ok"
    assert requests.thread_owner(thread) == "operator"
    assert [m.role for m in services.conversations.messages(thread)] == ["operator", "gatehouse"]
    kinds = [event.kind for event in services.audit.events(thread_id=thread)]
    assert kinds[0] == "request" and kinds[-1] == "outcome"


def test_someone_off_the_roster_is_refused_and_nothing_is_recorded(
    services: Services, requests: RequestService
) -> None:
    thread = requests.new_thread_id()

    with pytest.raises(NotAllowedError, match="'mallory' may not make requests"):
        requests.ask(LIST_FILES, thread_id=thread, requester="mallory")

    assert services.conversations.messages(thread) == []
    assert services.audit.events(thread_id=thread) == []
    assert requests.thread_owner(thread) is None


def test_a_thread_waiting_for_a_reviewer_takes_no_new_message(requests: RequestService) -> None:
    paused = requests.ask(SEND_MAIL, requester="operator")
    assert paused.final_output.status == "needs_review"

    with pytest.raises(ThreadBusyError, match="waits for a reviewer"):
        requests.ask("never mind", thread_id=paused.final_output.thread_id, requester="operator")


def test_a_message_on_a_thread_asking_for_clarification_is_the_answer(
    services: Services, requests: RequestService
) -> None:
    asked = requests.ask(MAIL_WITHOUT_RECIPIENT, requester="operator")
    thread = asked.final_output.thread_id
    assert asked.final_output.status == "needs_clarification"

    answered = requests.ask("to=bob@example.com", thread_id=thread, requester="operator")

    assert answered.final_output.thread_id == thread
    assert answered.final_output.status == "needs_review"
    waiting = pending_interrupt(services.graph, thread)
    assert waiting is not None and waiting["stage"] == "before_execution"
    assert [m.role for m in services.conversations.messages(thread)] == ["operator", "gatehouse"] * 2


def test_answers_typed_into_the_clarification_form_reach_the_call_as_typed(
    services: Services, requests: RequestService
) -> None:
    asked = requests.ask("Write a file named todo.md", requester="operator")
    thread = asked.final_output.thread_id
    assert asked.final_output.missing_arguments == ["content"]
    lines = "# To do\n\n- first.\n- second   with  spaces.\n"

    answered = requests.ask(lines, thread_id=thread, requester="operator", answers={"content": lines})

    assert answered.final_output.status == "needs_review"
    waiting = pending_interrupt(services.graph, thread)
    assert waiting is not None and waiting["arguments"] == {"path": "todo.md", "content": lines}


def test_answers_to_a_thread_that_asks_nothing_are_refused_not_sent_as_a_new_request(
    services: Services, requests: RequestService
) -> None:
    done = requests.ask(LIST_FILES, requester="operator")
    thread = done.final_output.thread_id

    with pytest.raises(NothingToResumeError, match="is not waiting"):
        requests.ask("hello", thread_id=thread, requester="operator", answers={"content": "hello"})

    assert [m.role for m in services.conversations.messages(thread)] == ["operator", "gatehouse"]


def test_another_persons_thread_is_refused_and_an_admin_taking_it_over_is_recorded(
    services: Services, requests: RequestService
) -> None:
    asked = requests.ask(MAIL_WITHOUT_RECIPIENT, requester="operator")
    thread = asked.final_output.thread_id

    with pytest.raises(NotAllowedError, match="belongs to operator"):
        requests.ask("to=eve@example.com", thread_id=thread, requester="reviewer")
    requests.ask("to=eve@example.com", thread_id=thread, requester="admin")

    taken = [e for e in services.audit.events(thread_id=thread) if e.kind == "thread_taken_over"]
    assert [(e.actor, e.data["owner"]) for e in taken] == [("admin", "operator")]
    assert requests.thread_owner(thread) == "operator"


def test_a_threads_trace_has_its_route_and_steps_and_the_diagram_highlights_the_route(
    requests: RequestService,
) -> None:
    run = requests.ask(LIST_FILES, requester="operator")

    trace = requests.trace(run.final_output.thread_id)

    assert trace.exists
    assert trace.route == run.path
    assert [step["node"] for step in trace.steps if step["node"]] == run.path
    assert trace.changes_of(trace.steps[0])
    drawn, plain = requests.diagram(trace.route), requests.diagram()
    assert drawn.startswith("digraph") and plain.startswith("digraph") and drawn != plain
    assert requests.trace(run.final_output.thread_id, with_route=False).route == []


def test_a_thread_without_checkpoints_or_none_picked_has_an_empty_trace(requests: RequestService) -> None:
    unknown = requests.trace("no-such-thread")
    nothing = requests.trace(None)

    assert (unknown.exists, unknown.route, unknown.steps) == (False, [], [])
    assert (nothing.exists, nothing.route, nothing.steps) == (False, [], [])


def test_server_rows_give_each_loaded_entry_its_health_then_each_broken_entry(
    requests: RequestService, data_dir: Path
) -> None:
    servers_file = data_dir / "servers.json"
    servers_file.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "filesystem": {"command": "python", "args": ["-m", "servers.filesystem"]},
                    "remote": {"url": "https://mcp.example.com/mcp"},
                    "broken": {"command": 7},
                }
            }
        ),
        encoding="utf-8",
    )
    config = load_servers_config(servers_file, environ={}, skip_broken=True)

    rows = requests.server_rows(config)

    by_name = {row.name: row for row in rows}
    assert [row.name for row in rows] == ["filesystem", "remote", "broken"]
    # The pool runs the bundled filesystem server: its health is the pool's.
    filesystem = by_name["filesystem"].health
    assert filesystem is not None and filesystem.connected
    # A local server is shown by its command with the arguments that tell servers apart.
    assert by_name["filesystem"].where == "python -m servers.filesystem"
    assert not by_name["filesystem"].remote
    # No session was started for the remote entry; it is remote, with its address.
    assert by_name["remote"].health is None
    assert by_name["remote"].remote and by_name["remote"].where == "https://mcp.example.com/mcp"
    # A broken entry has no entry, and its health says why.
    broken = by_name["broken"]
    assert broken.entry is None and broken.where is None and not broken.remote and not broken.needs_person
    assert broken.health is not None and broken.health.config_error


def test_the_servers_file_is_the_one_the_pool_started_from_else_read_when_asked(
    services: Services,
) -> None:
    started_from = ServersConfig(
        source="servers.json", problems=[ConfigProblem.of(ConfigError("x", "y"), None)]
    )
    kept = RequestService(
        services.graph,
        services.context,
        services.policy,
        services.audit,
        services.conversations,
        services.reviews,
        servers=started_from,
    )
    assert kept.servers_file() is started_from
    # Handed a client without a file: the wiring's reader reads the shipped one.
    assert [entry.name for entry in services.requests.servers_file().servers]
    with pytest.raises(LookupError):
        RequestService(
            services.graph,
            services.context,
            services.policy,
            services.audit,
            services.conversations,
            services.reviews,
        ).servers_file()


def test_reconnecting_reaches_only_a_session_pool(services: Services, demo_servers: SdkMcpClient) -> None:
    """After a sign-in the pool's session to that server is opened again; a client that is no
    pool (a test's fake) is left alone."""
    before = {h.name: h for h in demo_servers.health()}["filesystem"]
    over_pool = RequestService(
        services.graph,
        services.context.__class__(**{**vars(services.context), "mcp": demo_servers}),
        services.policy,
        services.audit,
        services.conversations,
        services.reviews,
    )
    over_pool.reconnect("filesystem")
    after = {h.name: h for h in demo_servers.health()}["filesystem"]
    assert before.connected and after.connected
    assert demo_servers.discover(only=["filesystem"]).capabilities()
    fake = FaultInjectingClient(demo_servers)
    over_fake = RequestService(
        services.graph,
        services.context.__class__(**{**vars(services.context), "mcp": fake}),
        services.policy,
        services.audit,
        services.conversations,
        services.reviews,
    )
    over_fake.reconnect("filesystem")  # no pool: nothing to reopen, nothing raised


def test_a_remote_server_a_person_signs_in_to_needs_a_person_and_one_the_host_signs_in_to_does_not() -> None:
    config = ServersConfig.model_validate(
        {
            "source": "servers.json",
            "servers": [
                {"name": "code", "url": "https://mcp.example.com/mcp"},
                {"name": "off", "url": "https://mcp.example.com/mcp", "oauth": {"enabled": False}},
            ],
        }
    )
    by_person, without = (ServerRow(entry.name, None, entry) for entry in config.servers)
    assert by_person.remote and by_person.needs_person
    assert without.remote and not without.needs_person


def test_what_the_servers_offer_is_the_pools_listing(
    requests: RequestService, demo_servers: SdkMcpClient
) -> None:
    offered = {capability.key for capability in requests.offered().capabilities()}
    assert offered == {capability.key for capability in demo_servers.discover().capabilities()}
    assert any(key.startswith("filesystem__") for key in offered)
