"""Servers asking for a model completion (``sampling/createMessage``): every request is a review.

The MCP specification wants a person able to see and deny what a server asks a model, so
Gatehouse treats each request like a high-impact call: it becomes a review in the ledger (stage
``sampling``), with the server, the messages, the system prompt and the limits, and the
server's call waits. An approval is answered by the configured language model (GATEHOUSE_MODEL)
or, with none, by text the reviewer writes; a rejection, an expired wait or a request over the
server's rate limit is an error for the server. Everything goes through the database: the
handler polls it (off the pool's event loop), so the reviewer may decide on any replica.

``SamplingReviews`` is the session pool's sampling handler (mcp_host/sampling.py);
``decide_sampling`` is what ReviewService.decide does with such a review.
"""

from __future__ import annotations

import threading
import uuid
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, TypedDict

import anyio
from mcp.types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ErrorData,
    SamplingMessage,
    TextContent,
)

from graph.accessors import flags_data, review_terms_data
from graph.planner.model_calls import ModelFailure
from mcp_host.elicitation import CallOwner, callers
from mcp_host.sampling import SAMPLING_REFUSED
from policies.decision import Flag
from policies.injection import suspicious_reasons
from reviews.errors import DecisionNotAllowedError
from reviews.notifications import NoNotifications, Notifier
from storage.transactions import one_transaction

if TYPE_CHECKING:
    from graph.state import FlagData, ReviewTermsData
    from policies.engine import PolicyEngine
    from reviews.audit import AuditLog
    from reviews.ledger import DecisionRecorded, Review, ReviewLedger

SAMPLING_STAGE: Final = "sampling"
SAMPLING_CATEGORY = "sampling"
SAMPLING_METHOD = "sampling/createMessage"
# The `model` of an answer a reviewer wrote: a person, not a model, and not who (the server
# learns nothing about Gatehouse's people).
REVIEWER_MODEL = "gatehouse-reviewer"
# How often a waiting request reads its review: a decision reaches the server within this.
POLL_SECONDS = 0.5
_RATE_WINDOW = timedelta(minutes=1)


class SamplingCapability(TypedDict):
    """The server that asks and the method, where the ledger keeps a review's capability."""

    key: str
    server: str
    type: Literal["sampling"]
    name: str


class SamplingCause(TypedDict):
    """A request whose call the server's request may have come from, and the people behind it."""

    thread_id: str
    requester: str
    contributors: list[str]
    review_id: str | None


class SamplingPayload(TypedDict):
    """What a server's request for a completion opens its review with (ReviewLedger.open_review
    takes this or the graph's ReviewPayload): the keys the ledger reads and the explanation
    the Reviews page shows. No graph thread waits on it, so nothing of a request is here."""

    review_id: str
    thread_id: str
    stage: Literal["sampling"]
    capability: SamplingCapability
    arguments: dict[str, Any]
    flags: list[FlagData]
    category: str
    requester: str
    # Every request the server's may have come from (one, unless a handshake-era server's
    # request arrived while calls of several were in flight): four-eyes keeps their people out.
    caused_by: list[SamplingCause]
    review_terms: ReviewTermsData
    explanation: str


class Sampler(Protocol):
    """A language model answering approved requests (gatehouse/sampling_model.py)."""

    @property
    def label(self) -> str:
        """The configured model, as people read it (provider:model)."""
        ...

    def complete(self, request: dict[str, Any]) -> dict[str, Any]:
        """The completion for a request (a review's fields), as a CreateMessageResult's JSON.
        Raises ModelFailure with a one-line reason when the model gives none."""
        ...


def requester_of(server: str) -> str:
    """The server as an actor in the audit log (a refusal names no person's request)."""
    return f"server:{server}"


def causes_of(owners: tuple[CallOwner, ...]) -> list[SamplingCause]:
    """The requests behind the calls a server's request may have come from, each once."""
    causes: list[SamplingCause] = []
    for owner in dict.fromkeys(owners):
        causes.append(
            {
                "thread_id": owner.thread_id,
                "requester": owner.requester,
                "contributors": [name for name in owner.people if name != owner.requester],
                "review_id": owner.review_id,
            }
        )
    return causes


def kept_out(review: Review, reviewer: str) -> str | None:
    """The thread of the request that keeps ``reviewer`` from deciding a request for a
    completion under four-eyes (they asked for it or shaped it), or None."""
    for cause in review.payload.get("caused_by", []):
        if reviewer == cause.get("requester") or reviewer in cause.get("contributors", []):
            return str(cause.get("thread_id"))
    return None


def capability_key(server: str) -> str:
    return f"{server}__sampling"


def request_fields(params: CreateMessageRequestParams) -> dict[str, Any]:
    """What a review keeps of a request (its JSON, as the protocol spells it, without the
    transport's _meta): what the reviewer sees and what a model is given."""
    return params.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"meta", "task"})


def request_of(review: Review) -> CreateMessageRequestParams:
    return CreateMessageRequestParams.model_validate(review.arguments)


def texts_of(message: SamplingMessage) -> list[str]:
    return [block.text for block in message.content_as_list if isinstance(block, TextContent)]


def sampling_flags(server: str, params: CreateMessageRequestParams) -> list[Flag]:
    """What a reviewer should know before approving: that a server asks at all (always), text
    that tries to steer the model, context asked for and not given, content a model will not see."""
    flags = [
        Flag(
            code="sampling",
            severity="high",
            message=f"{server} asks for a language-model completion; what you approve is sent back to it",
        )
    ]
    texts = [("system prompt", params.system_prompt or "")]
    for number, message in enumerate(params.messages, start=1):
        texts += [(f"message {number} ({message.role})", text) for text in texts_of(message)]
        for block in message.content_as_list:
            if not isinstance(block, TextContent):
                flags.append(
                    Flag(
                        code="not_text",
                        severity="medium",
                        message=f"message {number} holds {block.type} content: it is not shown, and a model is given only the text",
                    )
                )
    for where, text in texts:
        for reason in suspicious_reasons(text):
            flags.append(Flag(code="suspicious_text", severity="high", message=f"{server} {where}: {reason}"))
    if params.include_context not in (None, "none"):
        flags.append(
            Flag(
                code="include_context",
                severity="info",
                message=f"asks to include context ({params.include_context}); Gatehouse adds none",
            )
        )
    return flags


def answer_text(answer: dict[str, Any]) -> str:
    content = answer.get("content")
    return str(content.get("text") or "") if isinstance(content, dict) else ""


class SamplingReviews:
    """The pool's sampling handler: each request of a server becomes a review in the ledger,
    unless the server is over its rate limit, and the server's call waits for the decision."""

    def __init__(
        self,
        ledger: ReviewLedger,
        audit: AuditLog,
        policy: PolicyEngine,
        notifier: Notifier | None = None,
        *,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self._ledger = ledger
        self._audit = audit
        self._policy = policy
        self._notifier = notifier or NoNotifications()
        self._poll = poll_seconds
        # Counting a server's recent requests and opening one more are one step in this process.
        self._opening = threading.Lock()

    async def __call__(
        self, server: str, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData:
        # Read here, in the pool's task: the worker thread below need not share its context.
        opened = await anyio.to_thread.run_sync(self._open, server, params, callers())
        if isinstance(opened, ErrorData):
            return opened
        try:
            return await self._wait(opened)
        except BaseException:
            # The server's call ended (its session closed, the process stops): the review
            # leaves the queue rather than wait for an answer nobody can receive.
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self._abandon, opened)
            raise

    # -- opening -----------------------------------------------------------------------------

    def _open(
        self, server: str, params: CreateMessageRequestParams, owners: tuple[CallOwner | None, ...]
    ) -> Review | ErrorData:
        if params.tools or params.tool_choice:
            return self._refuse(server, "it offers the model tools, which Gatehouse does not do in sampling")
        known = tuple(owner for owner in owners if owner is not None)
        if not owners or len(known) != len(owners):
            # A call made for nobody named (a reviewer's preview) or none at all: whoever
            # caused it is unknown, so four-eyes could not keep them from approving it.
            return self._refuse(
                server, "it came outside any person's request, so nobody could review it for them"
            )
        with self._opening:
            limit = self._policy.sampling_limit(server)
            recent = self._ledger.count_opened_since(
                SAMPLING_STAGE, capability_key(server), self._ledger.now() - _RATE_WINDOW
            )
            if recent >= limit:
                why = (
                    "the policy lets this server ask for none"
                    if limit == 0
                    else f"this server may ask for at most {limit} a minute"
                )
                return self._refuse(server, why, limit=limit)
            return self._open_review(server, params, causes_of(known))

    def _refuse(self, server: str, why: str, *, limit: int | None = None) -> ErrorData:
        self._audit.append(
            "sampling_refused",
            {"server": server, "why": why} | ({"limit_per_minute": limit} if limit is not None else {}),
            actor=requester_of(server),
        )
        return ErrorData(
            code=SAMPLING_REFUSED, message=f"Gatehouse refused this request for a model completion: {why}"
        )

    def _open_review(
        self, server: str, params: CreateMessageRequestParams, causes: list[SamplingCause]
    ) -> Review:
        thread = uuid.uuid4().hex
        terms = self._policy.sampling_terms()
        flags = sampling_flags(server, params)
        characters = sum(len(text) for message in params.messages for text in texts_of(message))
        # One transaction: the review is opened with its audit event or not at all.
        with one_transaction(self._ledger.database, self._audit.database):
            review, _ = self._ledger.open_review(
                {
                    "review_id": f"{thread}-r1",
                    "thread_id": thread,
                    "stage": SAMPLING_STAGE,
                    "capability": {
                        "key": capability_key(server),
                        "server": server,
                        "type": SAMPLING_STAGE,
                        "name": SAMPLING_METHOD,
                    },
                    "arguments": request_fields(params),
                    "flags": flags_data(flags),
                    "category": SAMPLING_CATEGORY,
                    # The person whose call caused it: four-eyes applies against them.
                    "requester": causes[0]["requester"],
                    "caused_by": causes,
                    "review_terms": review_terms_data(terms),
                    "explanation": "Every request for a model completion waits for a reviewer (policy [sampling]).",
                }
            )
            self._audit.append(
                "sampling_requested",
                {
                    "server": server,
                    "messages": len(params.messages),
                    "characters": characters + len(params.system_prompt or ""),
                    "max_tokens": params.max_tokens,
                    "include_context": params.include_context,
                    "call_hash": review.call_hash,
                    "flags": [flag.code for flag in flags],
                    "expires_at": review.expires_at,
                    "caused_by": causes,
                },
                thread_id=review.thread_id,
                review_id=review.id,
                actor=review.requester,
            )
        # After the commit: nobody is told of a review that was rolled back.
        self._notifier.review_event("review_opened", review)
        return review

    # -- waiting -----------------------------------------------------------------------------

    async def _wait(self, review: Review) -> CreateMessageResult | ErrorData:
        deadline = datetime.fromisoformat(review.expires_at)
        while True:
            current = await anyio.to_thread.run_sync(self._ledger.require, review.id)
            if current.status == "approved":
                return await anyio.to_thread.run_sync(self._deliver, current)
            if current.status != "pending":
                return _refusal(current)
            if self._ledger.now() >= deadline:
                if await anyio.to_thread.run_sync(self._expire, current):
                    return _refusal(await anyio.to_thread.run_sync(self._ledger.require, review.id))
                continue  # decided at this very moment: read it again
            await anyio.sleep(self._poll)

    def _deliver(self, review: Review) -> CreateMessageResult:
        answer = review.approved_arguments() or {}
        result = CreateMessageResult.model_validate(answer)
        with one_transaction(self._ledger.database, self._audit.database):
            if self._ledger.begin_execution(review.id, review.call_hash, review.thread_id):
                self._ledger.finish_execution(review.id, "executed", answer)
                self._audit.append(
                    "sampling_answered",
                    {"model": result.model, "characters": len(answer_text(answer))},
                    thread_id=review.thread_id,
                    review_id=review.id,
                )
        return result

    def _expire(self, review: Review) -> bool:
        with one_transaction(self._ledger.database, self._audit.database):
            if not self._ledger.expire(review.id):
                return False
            expired = self._ledger.require(review.id)
            self._ledger.mark_carried_out(expired.id)
            self._audit.append(
                "review_expired",
                {"expires_at": expired.expires_at},
                thread_id=expired.thread_id,
                review_id=expired.id,
            )
        self._notifier.review_event("review_expired", expired)
        return True

    def _abandon(self, review: Review) -> None:
        why = "the server's call ended before the answer reached it"
        with one_transaction(self._ledger.database, self._audit.database):
            cancelled = self._ledger.cancel(
                review.id, "gatehouse", reason="the server's call ended before anyone decided"
            )
            if cancelled:
                self._ledger.mark_carried_out(review.id)
                self._audit.append(
                    "review_cancelled",
                    {"stage": SAMPLING_STAGE, "why": "the server's call ended before anyone decided"},
                    thread_id=review.thread_id,
                    review_id=review.id,
                )
            elif self._ledger.mark_not_run(review.id):
                self._audit.append(
                    "review_not_run", {"why": why}, thread_id=review.thread_id, review_id=review.id
                )
        if cancelled:
            self._notifier.review_event("review_cancelled", self._ledger.require(review.id), by="gatehouse")


def _refusal(review: Review) -> ErrorData:
    """The error a server gets for a request that was not approved, saying why, never who."""
    waited = datetime.fromisoformat(review.expires_at) - datetime.fromisoformat(review.created_at)
    minutes = round(waited.total_seconds() / 60)
    why = {
        "rejected": "a reviewer declined it",
        "expired": f"no reviewer decided it within {minutes} minutes",
        "cancelled": "it was withdrawn",
    }.get(review.status, f"it cannot be answered ({review.status})")
    return ErrorData(
        code=SAMPLING_REFUSED, message=f"Gatehouse refused this request for a model completion: {why}"
    )


# -- deciding ---------------------------------------------------------------------------------


def reviewer_answer(text: str) -> dict[str, Any]:
    result = CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text=text),
        model=REVIEWER_MODEL,
        stop_reason="endTurn",
    )
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def decide_sampling(
    ledger: ReviewLedger,
    audit: AuditLog,
    sampler: Sampler | None,
    review: Review,
    *,
    reviewer: str,
    approve: bool,
    reason: str | None,
    answer: str | None,
) -> DecisionRecorded:
    """Record a reviewer's decision on a request for a completion. An approval carries the
    answer the server gets: ``answer`` (the reviewer's text) or, without it, the configured
    model's completion, made here before anything is recorded (a model that fails leaves the
    review pending, for another try or the reviewer's own text)."""
    text = (answer or "").replace("\x00", "")
    completion: dict[str, Any] | None = None
    answered_by = None
    if approve:
        if text.strip():
            completion, answered_by = reviewer_answer(text), "reviewer"
        elif sampler is None:
            raise DecisionNotAllowedError(
                "no language model is configured (GATEHOUSE_MODEL): write the answer the server gets"
            )
        else:
            try:
                completion = sampler.complete(review.arguments)
            except ModelFailure as exc:
                raise DecisionNotAllowedError(
                    f"{sampler.label} gave no answer ({exc}): try again, or write the answer yourself"
                ) from exc
            answered_by = f"model {sampler.label}"
    recorded = ledger.record_decision(
        review.id,
        reviewer=reviewer,
        action="approve" if approve else "reject",
        reason=reason,
        arguments=completion,
    )
    audit.append(
        "decision",
        {"action": "approve" if approve else "reject", "reason": reason}
        | (
            {"answered_by": answered_by, "answer_characters": len(answer_text(completion))}
            if completion is not None
            else {}
        ),
        thread_id=review.thread_id,
        review_id=review.id,
        actor=reviewer,
    )
    # No thread waits for this decision: the server's call does, reading the ledger.
    ledger.mark_carried_out(review.id)
    return recorded
