"""The tasks extension (``io.modelcontextprotocol/tasks``, MCP 2026-07-28) on Gatehouse's
endpoint: a call that waits for a reviewer answers at once with a task handle, and the client
asks `tasks/get` for it until a reviewer decides and the call has run.

Only a client that declared the extension on its request gets a handle (the extension's rule);
any other waits in the request itself (gatehouse/gateway/waits.py). The handle is the open
call's id (gatehouse/gateway/client_calls.py), kept in the database: any replica answers for
it, after a restart too, and only to the caller it belongs to (anyone else is told there is no
such task, as if it did not exist). ``tasks/cancel`` withdraws the call's review unless a
reviewer decided first (cancellation is cooperative in the extension: the task then ends as
the decision says). A client that did not declare the extension is refused the three methods
with -32021 naming it (SEP-2575's missing required client capability, as the extension requires).

A server's question during the call makes the task ``input_required``: ``tasks/get`` carries
the pending questions as ``inputRequests`` (keyed by question id, as gatehouse/gateway/
client_questions.py asks them), and ``tasks/update`` takes the client's ``inputResponses``,
answered as the chat answers a question; then the task is ``working`` again until it ends.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp.server.mcpserver import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CancelTaskRequestParams, GetTaskRequestParams, RequestParams

from gatehouse.gateway.call_status import CallState, CallStatus, status_of
from gatehouse.gateway.calls import withdraw
from gatehouse.gateway.client_questions import answer_inputs, input_requests, pending_questions

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server

    from gatehouse.gateway.client_calls import ClientCall, ClientCalls
    from gatehouse.wiring import Services
    from reviews.questions import Question

EXTENSION = "io.modelcontextprotocol/tasks"
# A reviewer takes minutes, not milliseconds; a decision shows within the watch's second anyway.
POLL_INTERVAL_MS = 2000
_TASK_STATUS: dict[CallState, str] = {
    "waiting": "working",
    "running": "working",
    "completed": "completed",
    "cancelled": "cancelled",
}


def declared(ctx: ServerRequestContext[Any]) -> bool:
    """Whether the client declared the extension (on this request, for a 2026-07-28 client)."""
    capabilities = ctx.session.client_capabilities
    extensions = capabilities.extensions if capabilities is not None else None
    return bool(extensions) and EXTENSION in (extensions or {})


def task_of(call: ClientCall, status: CallStatus, questions: Sequence[Question] = ()) -> dict[str, Any]:
    """The extension's DetailedTask for the call as it stands, with the questions it waits on
    its caller's answers to."""
    asking = bool(questions) and not status.done
    task: dict[str, Any] = {
        "taskId": call.id,
        "status": "input_required" if asking else _TASK_STATUS[status.state],
        "statusMessage": (
            f"{questions[0].server} asks a question during the call." if asking else status.message
        ),
        "createdAt": call.opened_at.isoformat(),
        "lastUpdatedAt": status.changed_at or call.opened_at.isoformat(),
        # The call is kept in the database with its review: no deadline of the task's own
        # (the review's expiry ends the wait, and the task then completes with it).
        "ttlMs": None,
        "pollIntervalMs": POLL_INTERVAL_MS,
    }
    if asking:
        task["inputRequests"] = {
            key: request.model_dump(by_alias=True, mode="json", exclude_none=True)
            for key, request in input_requests(list(questions)).items()
        }
    if status.state == "completed" and status.result is not None:
        task["result"] = status.result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return task


def created(call: ClientCall, status: CallStatus, questions: Sequence[Question] = ()) -> dict[str, Any]:
    """The CreateTaskResult a tools/call answers with instead of its result."""
    return {"resultType": "task", **task_of(call, status, questions)}


class _UpdateTaskParams(RequestParams):
    task_id: str
    input_responses: dict[str, Any] | None = None


Caller = Callable[[], str]


def add_task_methods(server: Server[Any], services: Services, calls: ClientCalls, caller: Caller) -> None:
    """Serve tasks/get, tasks/cancel and tasks/update, and advertise the extension."""

    async def owned(ctx: ServerRequestContext[Any], task_id: str) -> ClientCall:
        require_client_extension(ctx, EXTENSION)
        call = await anyio.to_thread.run_sync(calls.get, task_id)
        if call is None or call.requester != caller():
            raise MCPError(
                INVALID_PARAMS, f"no task {task_id!r} (tasks are answered only to the caller that made them)"
            )
        return call

    async def get_task(ctx: ServerRequestContext[Any], params: GetTaskRequestParams) -> dict[str, Any]:
        call = await owned(ctx, params.task_id)
        questions = await anyio.to_thread.run_sync(pending_questions, services, call)
        status = await anyio.to_thread.run_sync(status_of, services, call)
        if status.state == "completed":
            await anyio.to_thread.run_sync(calls.close, call.id, "delivered")
        return {"resultType": "complete", **task_of(call, status, questions)}

    async def cancel_task(ctx: ServerRequestContext[Any], params: CancelTaskRequestParams) -> dict[str, Any]:
        call = await owned(ctx, params.task_id)
        await anyio.to_thread.run_sync(partial(withdraw, services, calls, call))
        return {"resultType": "complete"}

    async def update_task(ctx: ServerRequestContext[Any], params: _UpdateTaskParams) -> dict[str, Any]:
        call = await owned(ctx, params.task_id)
        if params.input_responses:
            # An answer that came too late changes nothing: the task says how the call went on.
            await anyio.to_thread.run_sync(
                partial(answer_inputs, services, call, params.input_responses, by=call.requester)
            )
        return {"resultType": "complete"}

    handlers: list[tuple[str, type[RequestParams], Callable[..., Awaitable[dict[str, Any]]]]] = [
        ("tasks/get", GetTaskRequestParams, get_task),
        ("tasks/cancel", CancelTaskRequestParams, cancel_task),
        ("tasks/update", _UpdateTaskParams, update_task),
    ]
    for method, params_type, handler in handlers:
        server.add_request_handler(method, params_type, handler)
    server.extensions[EXTENSION] = {}
