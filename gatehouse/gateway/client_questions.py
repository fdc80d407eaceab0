"""A configured server's question during an MCP client's call, as that client is asked it and as
its answer comes back (MCP 2026-07-28: an ``InputRequiredResult``, or a task whose status is
``input_required``).

The question is the row the host opened for the call's thread (reviews/questions.py), after the
policy let it through (a form asking for a secret, a refused server, an address a browser
would not open are declined before any row is opened, as in the chat: the client is never
asked those). Each pending question is an ``elicitation/create`` input request keyed by the
question's id: the server's form, or the page it asks to open, with the message the chat shows
(secrets hidden), the server named, and the policy's warnings under it.

An answer is taken as the chat takes one (reviews/asking.py ``OperatorQuestions.answer``): only
from the person it was put to, once, while it is pending; an accepted form's content must fit
the form; what could hold a secret is sealed to the waiting call's key. It is written to the
row, so whichever replica the client's answer reaches, the call waiting for it (in the process
that runs it) reads it there.

``requestState`` is the open call's id (gatehouse/gateway/client_calls.py). A client's retry
is taken only for its caller's own open call of the same tool and arguments, as a task handle
is, so it needs no key of the process's own (the SDK's sealed request states are bound to one
process's key), and any replica takes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ValidationError

from gatehouse.gateway.client_calls import arguments_hash
from reviews.questions import Question, QuestionClosedError, QuestionError

if TYPE_CHECKING:
    from gatehouse.gateway.client_calls import ClientCall, ClientCalls
    from gatehouse.wiring import Services


def pending_questions(services: Services, call: ClientCall) -> list[Question]:
    """The call's questions waiting for its caller's answer, oldest first."""
    return [q for q in services.questions.pending(call.thread_id) if q.operator == call.requester]


def _message(question: Question) -> str:
    lines = [f"{question.server} asks, during your call through Gatehouse: {question.message}"]
    lines += [f"Gatehouse warns: {flag['message']}" for flag in question.flags if flag.get("message")]
    return "\n".join(lines)


def input_request(question: Question) -> types.ElicitRequest:
    """The question as the client is asked it."""
    if question.mode == "url" and question.url is not None:
        return types.ElicitRequest(
            params=types.ElicitRequestURLParams(message=_message(question), url=question.url)
        )
    schema = question.requested_schema or {"type": "object", "properties": {}}
    return types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=_message(question), requested_schema=schema)
    )


def input_requests(questions: list[Question]) -> dict[str, types.InputRequest]:
    return {question.id: input_request(question) for question in questions}


def asked(call: ClientCall, questions: list[Question]) -> types.InputRequiredResult:
    """What a tools/call answers while the call waits on its caller's answers."""
    return types.InputRequiredResult(input_requests=input_requests(questions), request_state=call.id)


def call_in_state(
    calls: ClientCalls, state: str, *, requester: str, key: str, arguments: dict[str, Any]
) -> ClientCall:
    """The open call a retry's ``requestState`` names; MCPError when it names none of the
    caller's with this tool and these arguments (a state is never taken on trust)."""
    call = calls.get(state)
    if (
        call is None
        or call.requester != requester
        or call.capability_key != key
        or call.arguments_hash != arguments_hash(arguments)
    ):
        raise MCPError(
            types.INVALID_PARAMS,
            "requestState names no call of yours with this tool and these arguments; call the tool again "
            "without it",
        )
    if not call.open:
        raise MCPError(
            types.INVALID_PARAMS,
            f"the call requestState names has ended ({call.closed_how}); call the tool again without it",
        )
    return call


def _elicit_result(key: str, value: Any) -> types.ElicitResult:
    if isinstance(value, types.ElicitResult):
        return value
    data = value.model_dump(by_alias=True, exclude_none=True) if isinstance(value, BaseModel) else value
    try:
        return types.ElicitResult.model_validate(data)
    except ValidationError as exc:
        raise MCPError(
            types.INVALID_PARAMS,
            f"inputResponses[{key!r}] is not an answer to a question (elicitation): {exc}",
        ) from None


def answer_inputs(
    services: Services, call: ClientCall, responses: Mapping[str, Any], *, by: str
) -> list[str]:
    """Answer the call's questions with the client's responses, keyed by question id, as the
    chat answers them. Returns a line for each answer that came too late (the question was
    answered elsewhere first, or expired and the call went on without it); MCPError for a
    response to no question of this call, or one the question does not take."""
    late: list[str] = []
    for key, value in responses.items():
        question = services.questions.store.get(key)
        if question is None or question.thread_id != call.thread_id:
            raise MCPError(types.INVALID_PARAMS, f"inputResponses: {key!r} is no question of this call")
        answer = _elicit_result(key, value)
        try:
            services.questions.answer(key, by=by, action=answer.action, content=answer.content)
        except QuestionClosedError as exc:
            late.append(f"Your answer to {question.server}'s question was not used: {exc}.")
        except QuestionError as exc:
            raise MCPError(
                types.INVALID_PARAMS, f"the answer to {question.server}'s question was not taken: {exc}"
            ) from None
    return late
