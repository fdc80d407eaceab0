"""Servers' questions during a call, put to the person whose request the call is for.

``OperatorQuestions`` is the session pool's elicitation handler (mcp_host/elicitation.py). For
each question it finds whose call asked (``call_owner()``: the graph names the thread and its
requester around every call), applies the policy (policies/questions.py), writes the question
to the database (reviews/questions.py) and waits, polling the row without blocking the pool's
event loop, until someone answers or the policy's ``[elicitation] timeout_seconds`` pass; then
the call goes on with "cancel" and the question is marked expired.

The answer comes from wherever the person is: the chat page of any replica (``answer``), or the
terminal of `gatehouse ask` (``ask_on_terminal``), or the MCP client whose call it is
(`gatehouse serve`, gatehouse/gateway/client_questions.py, which reads the row and answers it
here like the chat). A command with no terminal to ask on declines every question at once and
says so (``decline_all``), rather than leave a call waiting for an answer nobody can give; the
endpoint declines those of the calls whose client cannot be asked (``decline_when``).

The audit log records each question asked, refused, answered and expired: the server, the
mode, the domain of a URL, the flags and the names of the fields answered, never their values.

A field that could hold a secret (policies/questions.py ``secret_fields``; asked at all only
where the policy says ``secret_forms = "ask"``) is typed unseen, on the terminal and in the
chat, and its value never lies in the database in clear: the waiting call makes a key pair
when it asks, whoever answers seals those values to its public half (reviews/sealing.py), the
row keeps ``***`` in their place, and the call opens them in memory.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

import anyio
import anyio.to_thread
from mcp.types import ElicitRequestFormParams, ElicitRequestParams, ElicitResult

from mcp_host.elicitation import FormField, UnsupportedFormError, call_owner, check_answer, form_fields
from policies.engine import PolicyEngine
from policies.questions import QuestionVerdict, check_form, check_url, secret_fields
from policies.secrets import REDACTED, SecretRedactor
from reviews.audit import AuditLog
from reviews.questions import (
    AnswerAction,
    Question,
    QuestionClosedError,
    QuestionError,
    QuestionMode,
    QuestionStore,
)
from reviews.sealing import AnswerKey, SealError, seal
from storage.transactions import one_transaction

# How often a waiting call reads its question's row: an answer reaches the server within this.
POLL_SECONDS = 0.25


# Why a question must be declined without asking anyone, given its thread, the server that
# asked and its mode; None when it may be asked.
DeclineReason = Callable[[str, str, QuestionMode], str | None]


@dataclass(frozen=True)
class Answer:
    action: AnswerAction
    content: dict[str, Any] | None = None


class TerminalAsker(Protocol):
    """Puts a question to the person at a terminal (gatehouse/cli/terminal_questions.py). Called on
    a worker thread; returns their answer, or None when they gave none within ``seconds``.
    The fields named in ``secret`` could hold a secret: what is typed there is not shown."""

    def __call__(
        self, question: Question, fields: list[FormField], secret: set[str], seconds: float
    ) -> Answer | None: ...


def question_fields(question: Question) -> list[FormField]:
    """A stored form question's fields (none for a URL); its schema was checked when asked."""
    if question.mode != "form" or question.requested_schema is None:
        return []
    return form_fields(question.requested_schema)


class OperatorQuestions:
    def __init__(
        self,
        store: QuestionStore,
        audit: AuditLog,
        policy: PolicyEngine,
        secrets: SecretRedactor,
        *,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.store = store
        self._audit = audit
        self._policy = policy
        self._secrets = secrets
        self._poll = poll_seconds
        self._terminal: tuple[TerminalAsker, str] | None = None
        self._declining: tuple[DeclineReason, Callable[[str], None]] | None = None

    # -- where questions go ------------------------------------------------------------------

    def ask_on_terminal(self, asker: TerminalAsker, *, user: str) -> None:
        """Questions are put to ``user``, the person at this terminal, when they may answer
        them (they may still be answered in the chat: whichever answer comes first counts).
        The answer is theirs: recorded as ``user``'s, a take-over when the question was put to
        someone else."""
        self._terminal = (asker, user)

    def decline_all(self, reason: str, tell: Callable[[str], None]) -> None:
        """Every question is declined at once, for ``reason``; ``tell`` says so to the person."""
        self.decline_when(lambda thread_id, server, mode: reason, tell)

    def decline_when(self, reason: DeclineReason, tell: Callable[[str], None]) -> None:
        """A question the policy lets through is declined at once when ``reason`` gives a reason
        for it (its thread's caller cannot be asked, say), and ``tell`` says so; the others are
        asked as usual."""
        self._declining = (reason, tell)

    @property
    def timeout_seconds(self) -> float:
        return float(self._policy.policy.elicitation.timeout_seconds)

    # -- the pool's handler ------------------------------------------------------------------

    async def __call__(self, server: str, request: ElicitRequestParams) -> ElicitResult:
        owner = call_owner()
        mode: QuestionMode = "form" if isinstance(request, ElicitRequestFormParams) else "url"
        facts: dict[str, Any] = {"server": server, "mode": mode}
        if owner is None:
            # A call made for nobody in particular (a preview for a reviewer), or a question
            # that could belong to several requests: never put it to the wrong person.
            await self._refused(facts, "no request to ask for: it came outside an operator's call", None)
            return ElicitResult(action="decline")
        fields: list[FormField] = []
        rules = self._policy.policy.elicitation
        if isinstance(request, ElicitRequestFormParams):
            try:
                fields = form_fields(request.requested_schema)
            except UnsupportedFormError as exc:
                verdict = QuestionVerdict(refusal=f"the form cannot be shown: {exc}")
            else:
                verdict = check_form(rules, self._secrets, server, request.message, fields)
            facts["fields"] = [f.name for f in fields]
        else:
            verdict = check_url(rules, server, request.url)
            facts["domain"] = verdict.domain
        flags = [flag.model_dump() for flag in verdict.flags]
        facts["flags"] = [flag["code"] for flag in flags]
        if verdict.refusal is not None:
            await self._refused(facts, verdict.refusal, owner.thread_id, owner.requester)
            return ElicitResult(action="decline")
        if self._declining is not None:
            reason_for, tell = self._declining
            reason = reason_for(owner.thread_id, server, mode)
            if reason is not None:
                await self._refused(facts, reason, owner.thread_id, owner.requester)
                tell(
                    f"{server} asked a question during the call "
                    f"({self._secrets.text(request.message, thread_id=owner.thread_id)!r}); declined: {reason}"
                )
                return ElicitResult(action="decline")
        message = self._secrets.text(request.message, thread_id=owner.thread_id)
        # Answers to fields that could hold a secret are sealed to this key (in memory only).
        key = AnswerKey() if secret_fields(self._secrets, message, fields) else None
        question = await anyio.to_thread.run_sync(
            lambda: self.store.open(
                thread_id=owner.thread_id,
                operator=owner.requester,
                server=server,
                mode=mode,
                message=message,
                timeout=timedelta(seconds=self.timeout_seconds),
                requested_schema=request.requested_schema
                if isinstance(request, ElicitRequestFormParams)
                else None,
                url=None if isinstance(request, ElicitRequestFormParams) else request.url,
                domain=verdict.domain,
                elicitation_id=None
                if isinstance(request, ElicitRequestFormParams)
                else request.elicitation_id,
                flags=flags,
                answer_key=key.public if key is not None else None,
            )
        )
        await self._log("question_asked", facts | {"question": question.id}, owner.thread_id, owner.requester)
        try:
            answered = await self._wait(question, fields)
        except anyio.get_cancelled_exc_class():
            # The call was abandoned (timed out, closed): the question goes with it.
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self.store.expire, question.id)
            raise
        if answered is None:
            await self._log(
                "question_expired",
                {"question": question.id, "server": server, "after_seconds": self.timeout_seconds},
                owner.thread_id,
                None,
            )
            return ElicitResult(action="cancel")
        content = dict(answered.content or {}) if answered.action == "accept" and mode == "form" else None
        try:
            if content is not None and answered.sealed_answer is not None:
                if key is None:
                    raise SealError(f"question {question.id} holds a sealed answer it never asked for")
                opened = key.open(answered.sealed_answer)
                content |= opened
                # What was sealed is a secret wherever it appears later in the thread (a
                # result that echoes the PIN back).
                self._secrets.remember_secret(owner.thread_id, list(opened.values()))
        finally:
            await anyio.to_thread.run_sync(self._keep_shown, answered)
        return ElicitResult(action=answered.action or "cancel", content=content)

    async def _wait(self, question: Question, fields: list[FormField]) -> Question | None:
        """The answered question, or None once it expired unanswered."""
        deadline = time.monotonic() + self.timeout_seconds
        if self._terminal is not None:
            await self._from_terminal(question, fields, deadline)
        while True:
            current = await anyio.to_thread.run_sync(self.store.require, question.id)
            if current.status == "answered":
                return current
            if current.status == "expired":
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                if await anyio.to_thread.run_sync(self.store.expire, question.id):
                    return None
                continue  # answered at the last moment: read it
            await anyio.sleep(min(self._poll, left))

    async def _from_terminal(self, question: Question, fields: list[FormField], deadline: float) -> None:
        assert self._terminal is not None
        terminal, user = self._terminal
        if not self.may_answer(question, user):
            # A call made in this process for someone else (a reviewer's approval runs the
            # operator's call): the question waits for its operator, in their chat.
            return
        given = await anyio.to_thread.run_sync(
            terminal,
            question,
            fields,
            self.secret_fields(question),
            max(deadline - time.monotonic(), 0.0),
            abandon_on_cancel=True,
        )
        if given is None:
            return
        # Answered in the chat first, or expired: the loop reads which.
        with contextlib.suppress(QuestionClosedError):
            await anyio.to_thread.run_sync(
                lambda: self.answer(question.id, by=user, action=given.action, content=given.content)
            )

    def _keep_shown(self, question: Question) -> None:
        """The stored answer, once the call has it, keeps no secret: the sealed values go, and
        values of fields that could hold one and secrets of a known shape are hidden."""
        if not question.content and question.sealed_answer is None:
            return
        flagged = self.secret_fields(question)
        shown = {
            name: REDACTED if name in flagged and value is not None else value
            for name, value in (question.content or {}).items()
        }
        # A flagged field's answer not sealed (a policy that lets it be stored) is a secret
        # wherever it appears later in the thread, like one recognised in the request.
        self._secrets.remember_secret(
            question.thread_id,
            [
                value
                for name, value in (question.content or {}).items()
                if name in flagged and value != REDACTED
            ],
        )
        shown = self._secrets.value(shown, thread_id=question.thread_id)
        if shown != question.content or question.sealed_answer is not None:
            self.store.keep_shown(question.id, shown if question.content is not None else None)

    def secret_fields(self, question: Question) -> set[str]:
        """The fields of a form question that could hold a secret: typed unseen, never stored
        in clear (the policy's judgement, policies/questions.py)."""
        return set(secret_fields(self._secrets, question.message, question_fields(question)))

    # -- answering ---------------------------------------------------------------------------

    def pending(self, thread_id: str) -> list[Question]:
        """The thread's questions waiting for an answer, oldest first."""
        return self.store.pending_for(thread_id)

    def may_answer(self, question: Question, user: str) -> bool:
        """The person it was put to, or a role allowed to take threads over."""
        return user == question.operator or self._policy.may_take_over(user)

    def answer(
        self, question_id: str, *, by: str, action: AnswerAction, content: dict[str, Any] | None = None
    ) -> Question:
        """Answer a question once. Only the person it was put to answers it (or a role allowed
        to take threads over, which is recorded); an accepted form's answer must fit the form."""
        question = self.store.require(question_id)
        if not self.may_answer(question, by):
            raise QuestionError(
                f"question {question_id} was put to {question.operator}; only they, or a role allowed "
                "to take threads over, may answer it"
            )
        if question.status != "pending":
            raise QuestionClosedError(question)
        given: dict[str, Any] | None = None
        if action == "accept" and question.mode == "form":
            given = {name: value for name, value in (content or {}).items() if value is not None}
            problems = check_answer(question_fields(question), given)
            if problems:
                raise QuestionError(f"the answer does not fit the form: {'; '.join(problems)}")
        kept, sealed = self._sealed(question, given)
        # One transaction: an answer is never on record without its audit events, and a
        # take-over is on record only with the answer it made (a refused one took nothing over).
        with one_transaction(self.store.database, self._audit.database):
            answered = self.store.answer(question_id, action=action, content=kept, by=by, sealed=sealed)
            if by != question.operator:
                self._audit.append(
                    "thread_taken_over", {"owner": question.operator}, thread_id=question.thread_id, actor=by
                )
            self._audit.append(
                "question_answered",
                {
                    "question": question_id,
                    "server": question.server,
                    "action": action,
                    # Which fields were filled in, never what was typed.
                    "fields": sorted(given or {}),
                },
                thread_id=question.thread_id,
                actor=by,
            )
        return answered

    def _sealed(
        self, question: Question, given: dict[str, Any] | None
    ) -> tuple[dict[str, Any] | None, str | None]:
        """The answer as the row may keep it (``***`` for what could be a secret), and those
        values sealed to the waiting call's key."""
        secret = {
            name: value for name, value in (given or {}).items() if name in self.secret_fields(question)
        }
        if not secret:
            return given, None
        if question.answer_key is None:
            # No call holds a key for it (a question written by another version, say): storing
            # the answer would keep the secret in clear.
            raise QuestionError(
                f"question {question.id} asks for what could be a secret ({', '.join(sorted(secret))}) "
                "and has no key to seal the answer with; it cannot be answered without storing that in clear"
            )
        kept = {name: REDACTED if name in secret else value for name, value in (given or {}).items()}
        return kept, seal(question.answer_key, secret)

    # -- the audit log -----------------------------------------------------------------------

    async def _refused(
        self, facts: dict[str, Any], reason: str, thread_id: str | None, actor: str | None = None
    ) -> None:
        await self._log("question_refused", facts | {"reason": reason}, thread_id, actor)

    async def _log(self, kind: str, data: dict[str, Any], thread_id: str | None, actor: str | None) -> None:
        await anyio.to_thread.run_sync(
            lambda: self._audit.append(kind, data, thread_id=thread_id, actor=actor)
        )
