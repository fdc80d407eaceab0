"""Who may call the graph `langgraph dev` serves, and what they may ask of it (langgraph.json's
``auth``; docs/langgraph-studio.md).

Every request names a person of the policy's roster by a token: ``Authorization: Bearer
TOKEN`` or ``x-api-key: TOKEN`` (what the LangGraph SDK, Agent Inbox and agent-chat-ui send as
their API key). ``GATEHOUSE_API_TOKENS`` maps tokens to roster names (``alice=TOKEN,bob=TOKEN``);
without it nobody gets in. An unknown token is refused (401), and so is a token whose name is
not in the roster in force (403). langgraph.json turns Studio's own sign-in off
(``disable_studio_auth``), so Studio's requests are checked here like everyone's.

What a caller may do through the API, beyond reading:

- start a request on a thread: it runs as the caller (the input's ``requester`` and
  ``thread_id`` are set here, whatever the input said), and only for a role that may request;
- resume a thread, with a decision only (``{"resume": ...}``): the graph accepts it when it is
  the decision the review service recorded (graph/nodes/review.py), so anyone in the roster
  may deliver it;
- never write a thread's state (``update_state``, a command's ``update`` or ``goto``, a
  thread created with ``supersteps``): a state from outside could carry an approval nobody
  gave.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable, Mapping
from typing import Any

from langgraph_sdk import Auth

from gatehouse.errors import ConfigurationError
from mcp_host.reported import RefusalError

TOKENS_ENV = "GATEHOUSE_API_TOKENS"

auth = Auth()


class CallerRefusedError(RefusalError):
    """A request the API must not serve: ``status`` is its HTTP status (401 or 403)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def parse_tokens(text: str | None) -> dict[str, str]:
    """``name=token`` pairs, comma-separated, as a token -> name map.

    Raises:
        ConfigurationError: a pair without a name or a token, or a token given twice.
    """
    tokens: dict[str, str] = {}
    for pair in (text or "").split(","):
        if not pair.strip():
            continue
        name, _, token = pair.partition("=")
        name, token = name.strip(), token.strip()
        if not name or not token:
            raise ConfigurationError(f"{TOKENS_ENV}: '{name or '?'}=...' needs a name and a token")
        if token in tokens:
            raise ConfigurationError(f"{TOKENS_ENV}: one token is given to {tokens[token]} and {name}")
        tokens[token] = name
    return tokens


def presented_token(headers: Mapping[bytes, bytes]) -> str | None:
    """The token a request carries: a bearer token, else an API key."""
    authorization = headers.get(b"authorization", b"").decode("latin-1").strip()
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    key = headers.get(b"x-api-key", b"").decode("latin-1").strip()
    return key or None


def caller_of(
    headers: Mapping[bytes, bytes], tokens: Mapping[str, str], role_of: Callable[[str], str | None]
) -> str:
    """The roster name a request's token stands for.

    Raises:
        CallerRefusedError: 401 without a known token; 403 for a name not in the roster.
    """
    presented = presented_token(headers)
    # Compared with every token in constant time: how long a refusal takes tells nothing.
    matches = [
        name
        for token, name in tokens.items()
        if presented is not None and hmac.compare_digest(token.encode(), presented.encode())
    ]
    if not matches:
        raise CallerRefusedError(
            401, f"Gatehouse: send a token {TOKENS_ENV} gives to a roster name (Authorization: Bearer ...)"
        )
    name = matches[0]
    if role_of(name) is None:
        raise CallerRefusedError(403, f"Gatehouse: {name} is not in the policy's roster")
    return name


def run_as_caller(
    kwargs: dict[str, Any], thread_id: Any, caller: str, may_request: Callable[[str], bool]
) -> None:
    """Check a run a caller asks for, and make its request the caller's (in place: the server
    runs what this leaves in ``kwargs``).

    Raises:
        CallerRefusedError: 403 for a run without a thread, a command that is not a plain
            resume, or a request from a role that may not request.
    """
    if thread_id is None:
        raise CallerRefusedError(403, "Gatehouse: a request runs on a thread (create one first)")
    command = kwargs.get("command")
    if command and set(command) != {"resume"}:
        raise CallerRefusedError(
            403, "Gatehouse: a command may only resume a thread, with a decision the review service recorded"
        )
    request = kwargs.get("input")
    if request is None:
        return
    if not isinstance(request, dict):
        raise CallerRefusedError(403, "Gatehouse: a request's input is an object ({'input': TEXT})")
    if not may_request(caller):
        raise CallerRefusedError(403, f"Gatehouse: {caller}'s role may not ask for calls")
    request["requester"] = caller
    request["thread_id"] = str(thread_id)


def state_write_problem(value: Mapping[str, Any]) -> str | None:
    """Why a thread update is refused: a write of the thread's state (the server asks with
    neither ``metadata`` nor ``action``; a metadata change or a run's cancellation has one)."""
    if "metadata" in value or "action" in value:
        return None
    return (
        "Gatehouse: a thread's state is written by its runs only (a state from outside would skip the review)"
    )


def _roster() -> Any:
    # The policy engine of the served graph's process: the roster in force, following changes.
    from gatehouse.langgraph_server import services

    return services.policy


def _refusal(refused: CallerRefusedError) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=refused.status, detail=str(refused))


@auth.authenticate
async def authenticate(headers: dict[bytes, bytes]) -> Auth.types.MinimalUserDict:
    try:
        name = caller_of(headers, parse_tokens(os.environ.get(TOKENS_ENV)), _roster().role_of)
    except CallerRefusedError as refused:
        raise _refusal(refused) from None
    return {"identity": name}


@auth.on.threads.create_run
async def runs_as_caller(ctx: Auth.types.AuthContext, value: Auth.types.RunsCreate) -> None:
    try:
        run_as_caller(value["kwargs"], value.get("thread_id"), ctx.user.identity, _roster().may_request)
    except CallerRefusedError as refused:
        raise _refusal(refused) from None


@auth.on.threads.update
async def no_state_writes(ctx: Auth.types.AuthContext, value: Auth.types.ThreadsUpdate) -> None:
    problem = state_write_problem(value)
    if problem is not None:
        raise Auth.exceptions.HTTPException(status_code=403, detail=problem)
