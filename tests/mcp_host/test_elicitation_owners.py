"""Whose question it is: the pool carries the request a call is made for (``on_behalf_of`` on
the caller's thread) across its own event loop to the elicitation handler, on both ways a
server asks; a question that could belong to two requests is nobody's; and the call's timeout
stands still while a person answers."""

from __future__ import annotations

import concurrent.futures

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.types import ElicitRequestParams, ElicitResult

from mcp_host.elicitation import (
    CallOwner,
    UnsupportedFormError,
    call_owner,
    check_answer,
    form_fields,
    on_behalf_of,
)
from mcp_host.sdk_client import SdkMcpClient
from tests.mcp_host.helpers import REPO_ROOT
from tests.questions_server import FORECAST_FORM, entry

ANN = CallOwner(thread_id="thread-ann", requester="ann")
BOB = CallOwner(thread_id="thread-bob", requester="bob")


def almanac(*, legacy: bool, together: int = 1) -> StdioServerParameters:
    spec = entry("form", legacy=legacy, together=together)
    return StdioServerParameters(command=spec["command"], args=spec["args"], cwd=str(REPO_ROOT))


class OwnerRecorder:
    """Answers every question with units=fahrenheit, after ``delay`` seconds, noting whose it was."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.owners: list[CallOwner | None] = []

    async def __call__(self, server: str, request: ElicitRequestParams) -> ElicitResult:
        self.owners.append(call_owner())
        await anyio.sleep(self.delay)
        return ElicitResult(action="accept", content={"units": "fahrenheit", "days": 2, "alerts": True})


def text_of(pool: SdkMcpClient, owner: CallOwner | None) -> str:
    with on_behalf_of(owner):
        result = pool.call_tool("almanac", "get_forecast", {"city": "Paris"})
    assert result.success, result.error
    return " ".join(item.text or "" for item in result.content)


@pytest.mark.processes
@pytest.mark.parametrize("legacy", [False, True], ids=["input-required", "elicitation-create"])
def test_the_handler_learns_whose_call_asked_though_the_call_runs_on_the_pools_own_loop(legacy: bool) -> None:
    recorder = OwnerRecorder()
    with SdkMcpClient({"almanac": almanac(legacy=legacy)}, connect_timeout=20, elicitation=recorder) as pool:
        answered = text_of(pool, ANN)
        # Set on this thread before, never on the pool's: it must not leak into the next call.
        unnamed = text_of(pool, None)

    assert answered == "Forecast for Paris: 2 day(s) in fahrenheit, alerts on."
    assert unnamed == answered
    assert recorder.owners == [ANN, None]


@pytest.mark.processes
def test_a_server_initiated_question_while_two_requests_call_the_server_belongs_to_neither() -> None:
    recorder = OwnerRecorder()
    targets = {"almanac": almanac(legacy=True, together=2)}
    with (
        SdkMcpClient(targets, connect_timeout=20, elicitation=recorder) as pool,
        concurrent.futures.ThreadPoolExecutor(2) as threads,
    ):
        # The server asks only once both calls are under way: each question could be either's.
        calls = [threads.submit(text_of, pool, owner) for owner in (ANN, BOB)]
        for call in calls:
            call.result(timeout=60)

    assert recorder.owners == [None, None]


@pytest.mark.processes
@pytest.mark.parametrize("legacy", [False, True], ids=["input-required", "elicitation-create"])
def test_the_calls_timeout_stands_still_while_a_person_answers(legacy: bool) -> None:
    # The person takes longer than the whole call may: the call still gets the answer.
    recorder = OwnerRecorder(delay=2.5)
    targets = {"almanac": almanac(legacy=legacy)}
    with SdkMcpClient(targets, connect_timeout=20, call_timeout=1.5, elicitation=recorder) as pool:
        assert "in fahrenheit" in text_of(pool, ANN)


def test_a_form_is_read_field_by_field_with_its_defaults_choices_and_bounds() -> None:
    fields = {f.name: f for f in form_fields(FORECAST_FORM)}

    assert [(f.name, f.kind, f.default, f.required) for f in fields.values()] == [
        ("units", "choice", "celsius", True),
        ("days", "integer", 3, False),
        ("alerts", "boolean", False, False),
    ]
    assert fields["units"].options == (("celsius", "celsius"), ("fahrenheit", "fahrenheit"))
    assert (fields["days"].minimum, fields["days"].maximum) == (1, 7)


def test_an_answer_is_checked_against_the_form() -> None:
    fields = form_fields(FORECAST_FORM)

    assert check_answer(fields, {"units": "celsius", "days": 7, "alerts": False}) == []
    assert check_answer(fields, {"days": 9, "units": "kelvin", "extra": 1, "alerts": "yes"}) == [
        "extra: the form does not ask for it",
        "Units: must be one of the choices",
        "Days: must be at most 7",
        "Weather alerts: must be yes or no",
    ]
    assert check_answer(fields, {}) == ["Units: required"]


def test_choices_may_be_titled_and_lists_of_choices_are_asked_but_nothing_nested() -> None:
    titled = {
        "type": "object",
        "properties": {
            "size": {
                "type": "string",
                "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
            },
            "toppings": {
                "type": "array",
                "items": {"anyOf": [{"const": "ham", "title": "Ham"}]},
                "maxItems": 1,
            },
        },
    }
    size, toppings = form_fields(titled)
    assert (size.kind, size.options) == ("choice", (("s", "Small"), ("l", "Large")))
    assert (toppings.kind, toppings.options, toppings.max_items) == ("choices", (("ham", "Ham"),), 1)

    nested = {"type": "object", "properties": {"address": {"type": "object", "properties": {}}}}
    with pytest.raises(UnsupportedFormError, match="address: a property of type 'object'"):
        form_fields(nested)
