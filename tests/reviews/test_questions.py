"""Servers' questions during a call, on both backends: kept in the database, answered once, put
to the operator whose request the call is for, and answered from another thread or another
process (a second replica) while the call waits; refused, flagged or timed out by the policy.

The server is a real one (tests/questions_server.py), served in-process from its servers-file
entry (the test_servers_in_process fixture), whose tool asks during the call and answers with
what it was told, so each test reads the answer in the tool's own result. Only the test with a
second replica starts a process (that replica).
"""

from __future__ import annotations

import concurrent.futures
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from gatehouse.wiring import Services
from graph.runner import RunOutcome
from reviews.questions import Question, QuestionClosedError, QuestionError, QuestionStore
from tests.questions_server import CONNECT_URL, FORM_MESSAGE, Ask, entry
from tests.reviews.review_support import REPO, Clock, _env, policy_file, services_for
from tests.support import wait_until

FORECAST = "Get the weather forecast with city=Paris"
THREAD = "forecast-thread"
KEY = "wk-3141592653589793238462643383"


# -- the store -------------------------------------------------------------------------------


def a_question(store: QuestionStore, *, thread: str = THREAD, minutes: int = 5) -> Question:
    return store.open(
        thread_id=thread,
        operator="operator",
        server="almanac",
        mode="form",
        message=FORM_MESSAGE,
        timeout=timedelta(minutes=minutes),
        requested_schema={"type": "object", "properties": {}},
    )


def test_a_question_is_answered_once_and_only_while_it_is_pending(backend: str | Path) -> None:
    store = QuestionStore(backend, clock=Clock())
    question = a_question(store)
    other = a_question(store, thread="another-thread")

    assert [q.id for q in store.pending_for(THREAD)] == [question.id]
    answered = store.answer(question.id, action="accept", content={"units": "celsius"}, by="operator")

    assert (answered.status, answered.action, answered.content, answered.answered_by) == (
        "answered",
        "accept",
        {"units": "celsius"},
        "operator",
    )
    with pytest.raises(QuestionClosedError, match=f"question {question.id} was already answered by operator"):
        store.answer(question.id, action="decline", content=None, by="admin")
    assert store.expire(question.id) is False
    assert store.pending_for(THREAD) == []
    assert [q.id for q in store.pending_for("another-thread")] == [other.id]


def test_an_expired_question_takes_no_answer(backend: str | Path) -> None:
    store = QuestionStore(backend, clock=Clock())
    question = a_question(store)

    assert store.expire(question.id) is True
    assert store.expire(question.id) is False
    with pytest.raises(QuestionClosedError, match="expired at"):
        store.answer(question.id, action="accept", content={}, by="operator")
    assert store.require(question.id).status == "expired"


def test_a_question_past_its_deadline_is_no_longer_offered_nor_answerable(backend: str | Path) -> None:
    clock = Clock()
    store = QuestionStore(backend, clock=clock)
    question = a_question(store, minutes=5)

    clock.skip(6)  # the process that asked may be gone: nobody marked it expired

    assert store.pending_for(THREAD) == []
    with pytest.raises(QuestionClosedError, match="expired at"):
        store.answer(question.id, action="accept", content={}, by="operator")


# -- put to the operator while the call waits -----------------------------------------------


@pytest.fixture(autouse=True)
def _almanac_in_process(test_servers_in_process: None) -> None:
    """The almanac's entry is served in this process (tests/in_process_servers.py)."""


def servers_file(data: Path, ask_mode: Ask, *, reviewed: bool = False) -> Path:
    path = data / f"almanac-{ask_mode}.json"
    server = entry(ask_mode, reviewed=reviewed)
    path.write_text(json.dumps({"mcpServers": {"almanac": server}}), encoding="utf-8")
    return path


@contextmanager
def almanac(
    data: Path, ask_mode: Ask = "form", *edits: tuple[str, str], reviewed: bool = False
) -> Iterator[Services]:
    policy = policy_file(data, "policy.toml", *edits) if edits else None
    with services_for(
        data, servers=servers_file(data, ask_mode, reviewed=reviewed), policy=policy
    ) as services:
        yield services


@contextmanager
def request_running(
    services: Services, thread: str = THREAD
) -> Iterator[concurrent.futures.Future[RunOutcome]]:
    """The forecast request, asked by the operator on another thread while the test answers."""
    with concurrent.futures.ThreadPoolExecutor(1) as runner:
        yield runner.submit(services.requests.ask, FORECAST, thread_id=thread, requester="operator")


def first_question(services: Services, thread: str = THREAD) -> Question:
    # The question's row is opened before its ``question_asked`` event is written (the event
    # names the row): wait for both, so a test counting events starts from a settled log.
    wait_until(
        lambda: (
            bool(services.questions.pending(thread))
            and any(event.kind == "question_asked" for event in services.audit.events(thread_id=thread))
        ),
        timeout=30,
        what="the server's question and its question_asked event",
    )
    return services.questions.pending(thread)[0]


def tool_text(run: RunOutcome) -> str:
    assert run.final_output.status == "ok", run.final_output
    result = run.final_output.result or {}
    return " ".join(str(item.get("text", "")) for item in result.get("content", []))


def audit_of(services: Services, kind: str) -> list[dict[str, Any]]:
    return [event.data | {"actor": event.actor} for event in services.audit.events() if event.kind == kind]


def test_the_question_reaches_the_operators_thread_and_the_tool_uses_the_answer_given_elsewhere(
    data_dir: Path,
) -> None:
    with almanac(data_dir) as services, request_running(services) as running:
        question = first_question(services)
        assert (question.operator, question.server, question.mode, question.message) == (
            "operator",
            "almanac",
            "form",
            FORM_MESSAGE,
        )
        services.questions.answer(
            question.id, by="operator", action="accept", content={"units": "fahrenheit", "days": 5}
        )
        run = running.result(timeout=60)

        assert tool_text(run) == "Forecast for Paris: 5 day(s) in fahrenheit, alerts off."
        assert services.questions.store.require(question.id).status == "answered"
        [asked] = audit_of(services, "question_asked")
        assert (asked["question"], asked["server"], asked["mode"], asked["fields"]) == (
            question.id,
            "almanac",
            "form",
            ["units", "days", "alerts"],
        )
        [answered] = audit_of(services, "question_answered")
        assert answered == {
            "question": question.id,
            "server": "almanac",
            "action": "accept",
            "fields": ["days", "units"],
            "actor": "operator",
        }


@pytest.mark.processes  # the second replica is a process of its own
def test_a_second_replica_answers_the_question_through_the_database(data_dir: Path) -> None:
    with almanac(data_dir) as services, request_running(services) as running:
        replica = subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.reviews.answering_replica",
                THREAD,
                "operator",
                "accept",
                json.dumps({"units": "fahrenheit", "days": 1, "alerts": True}),
            ],
            capture_output=True,
            text=True,
            env=_env(data_dir),
            cwd=REPO,
            timeout=90,
            check=False,
        )
        assert replica.returncode == 0, replica.stdout + replica.stderr
        assert json.loads(replica.stdout)["server"] == "almanac"

        assert (
            tool_text(running.result(timeout=60)) == "Forecast for Paris: 1 day(s) in fahrenheit, alerts on."
        )


def test_declining_in_the_chat_is_what_the_tool_hears(data_dir: Path) -> None:
    with almanac(data_dir) as services, request_running(services) as running:
        services.questions.answer(first_question(services).id, by="operator", action="decline")

        assert tool_text(running.result(timeout=60)) == "No forecast for Paris: the question was declined."


def test_an_unanswered_question_is_cancelled_after_the_policys_timeout(data_dir: Path) -> None:
    with (
        almanac(data_dir, "form", ("timeout_seconds = 300", "timeout_seconds = 1")) as services,
        request_running(services) as running,
    ):
        question = first_question(services)
        text = tool_text(running.result(timeout=60))

        assert text == "No forecast for Paris: the question was cancelled."
        assert services.questions.store.require(question.id).status == "expired"
        assert services.questions.pending(THREAD) == []
        with pytest.raises(QuestionClosedError):
            services.questions.answer(
                question.id, by="operator", action="accept", content={"units": "celsius"}
            )
        [expired] = audit_of(services, "question_expired")
        assert (expired["question"], expired["after_seconds"]) == (question.id, 1.0)


def test_the_policy_declines_questions_from_a_refused_server_without_asking(data_dir: Path) -> None:
    with almanac(data_dir, "form", ("refuse_servers = []", 'refuse_servers = ["alma*"]')) as services:
        run = services.requests.ask(FORECAST, thread_id=THREAD, requester="operator")

        assert tool_text(run) == "No forecast for Paris: the question was declined."
        assert services.questions.store.of_thread(THREAD) == []
        [refused] = audit_of(services, "question_refused")
        assert refused["reason"] == "the policy declines questions from almanac"


def test_a_form_asking_for_a_secret_is_declined_and_flagged(data_dir: Path) -> None:
    with almanac(data_dir, "secret") as services:
        run = services.requests.ask(FORECAST, thread_id=THREAD, requester="operator")

        assert tool_text(run) == "No forecast for Paris: the question was declined."
        assert services.questions.store.of_thread(THREAD) == []
        [refused] = audit_of(services, "question_refused")
        assert refused["flags"] == ["asks_for_secret"]
        assert "api_key" in refused["reason"] and "forbids" in refused["reason"]


def test_a_secret_form_the_policy_lets_through_is_flagged_and_what_was_typed_is_not_kept(
    data_dir: Path,
) -> None:
    with (
        almanac(data_dir, "secret", ('secret_forms = "decline"', 'secret_forms = "ask"')) as services,
        request_running(services) as running,
    ):
        question = first_question(services)
        assert [flag["code"] for flag in question.flags] == ["asks_for_secret"]
        services.questions.answer(question.id, by="operator", action="accept", content={"api_key": KEY})

        assert (
            tool_text(running.result(timeout=60))
            == f"Forecast for Paris with a key of {len(KEY)} characters."
        )
        # The call took the key; the database and the audit log keep no copy of it.
        assert services.questions.store.require(question.id).content == {"api_key": "***"}
        assert KEY not in services.audit.export("jsonl")


def questions_table(services: Services) -> str:
    """Every row of the questions table, as stored."""
    with services.questions.store.database.read() as conn:
        return repr([dict(row) for row in conn.execute("SELECT * FROM questions").fetchall()])


def test_a_form_asking_for_a_pin_under_a_look_alike_letter_is_declined(data_dir: Path) -> None:
    with almanac(data_dir, "pin") as services:
        run = services.requests.ask(FORECAST, thread_id=THREAD, requester="operator")

        assert tool_text(run) == "No forecast for Paris: the question was declined."
        assert services.questions.store.of_thread(THREAD) == []
        [refused] = audit_of(services, "question_refused")
        assert refused["flags"] == ["asks_for_secret"]


def test_a_pin_the_policy_lets_through_reaches_the_call_but_is_never_in_the_questions_table(
    data_dir: Path,
) -> None:
    pin = "4921"
    with (
        almanac(data_dir, "pin", ('secret_forms = "decline"', 'secret_forms = "ask"')) as services,
        request_running(services) as running,
    ):
        question = first_question(services)
        assert [flag["code"] for flag in question.flags] == ["asks_for_secret"]
        assert services.questions.secret_fields(question) == {"card"}
        services.questions.answer(question.id, by="operator", action="accept", content={"card": pin})
        # Not even while the call has yet to take it: the answer is sealed for the waiting call.
        assert pin not in questions_table(services)

        assert tool_text(running.result(timeout=60)) == "Forecast for Paris with a PIN of 4 characters."
        assert services.questions.store.require(question.id).content == {"card": "***"}
        assert pin not in questions_table(services)
        assert pin not in services.audit.export("jsonl")


def test_a_url_question_names_its_domain_and_accepting_lets_the_call_go_on(data_dir: Path) -> None:
    with almanac(data_dir, "url") as services, request_running(services) as running:
        question = first_question(services)
        assert (question.mode, question.url, question.domain, question.flags) == (
            "url",
            CONNECT_URL,
            "weather.example.com",
            [],
        )
        services.questions.answer(question.id, by="operator", action="accept")

        assert (
            tool_text(running.result(timeout=60)) == "Connected: forecast for Paris from weather.example.com."
        )


def test_only_the_operator_answers_and_the_answer_must_fit_the_form(data_dir: Path) -> None:
    with almanac(data_dir) as services, request_running(services) as running:
        question = first_question(services)

        with pytest.raises(QuestionError, match="was put to operator; only they"):
            services.questions.answer(
                question.id, by="reviewer", action="accept", content={"units": "celsius"}
            )
        with pytest.raises(QuestionError, match="does not fit the form: Units: must be one of the choices"):
            services.questions.answer(
                question.id, by="operator", action="accept", content={"units": "kelvin"}
            )
        # A role that may take threads over may answer, and that is recorded.
        services.questions.answer(
            question.id, by="admin", action="accept", content={"units": "celsius", "days": 4}
        )

        assert tool_text(running.result(timeout=60)) == "Forecast for Paris: 4 day(s) in celsius, alerts off."
        assert [event["actor"] for event in audit_of(services, "thread_taken_over")] == ["admin"]


def test_a_question_outside_any_operators_request_is_declined_without_asking(data_dir: Path) -> None:
    with almanac(data_dir) as services:
        # Called directly, for nobody (as a reviewer's preview reads a file): nobody to ask.
        result = services.mcp.call_tool("almanac", "get_forecast", {"city": "Paris"})

        assert [item.text for item in result.content] == ["No forecast for Paris: the question was declined."]
        [refused] = audit_of(services, "question_refused")
        assert refused["reason"].startswith("no request to ask for")


def test_a_question_asked_while_a_reviewers_approval_runs_the_call_goes_to_the_operator(
    data_dir: Path,
) -> None:
    with almanac(data_dir, reviewed=True) as services:
        waiting = services.requests.ask(
            "Book a weather forecast with city=Paris", thread_id=THREAD, requester="operator"
        )
        assert waiting.final_output.status == "needs_review"
        review = waiting.final_output.review
        assert review is not None

        with concurrent.futures.ThreadPoolExecutor(1) as reviewer:
            deciding = reviewer.submit(services.reviews.decide, review.id, reviewer="reviewer", approve=True)
            # The reviewer's process runs the call; the question is the operator's, not theirs.
            question = first_question(services)
            assert question.operator == "operator"
            services.questions.answer(
                question.id, by="operator", action="accept", content={"units": "fahrenheit", "days": 2}
            )
            decided = deciding.result(timeout=60)

        assert decided.run is not None
        assert tool_text(decided.run) == "Forecast for Paris: 2 day(s) in fahrenheit, alerts off."
