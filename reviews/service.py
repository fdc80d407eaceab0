"""The review service: the queue, decisions that count once, expiry, and recovery.

It is the one place that continues a paused thread (with reviews/resume.py) and the one
place that enforces who may decide: the CLI and the web app only call it.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from graph.effects import observe, what_changed
from graph.runner import RunOutcome, execute, outcome, pending_interrupt, thread_config, thread_exists
from graph.state import DecisionAction, EffectBinding, ReviewDecision, ReviewPayload, rejection_problem
from mcp_host.manifest import Capability
from reviews.audit import AuditEntry, AuditLog
from reviews.clock import iso
from reviews.edited_arguments import check_against_policy
from reviews.errors import (
    AlreadyDecidedError,
    DecisionNotAllowedError,
    NothingToResumeError,
    NotPermittedError,
    ReviewError,
)
from reviews.notifications import NoNotifications, Notifier
from reviews.resume import check_decision, resume, resume_value
from reviews.review_trace import record_wait
from reviews.sampling import SAMPLING_STAGE, Sampler, decide_sampling, kept_out
from reviews.thread_ids import resolve_thread
from storage.database import Connection
from storage.transactions import one_transaction
from telemetry.spans import workflow_run

if TYPE_CHECKING:
    from graph.builder import CompiledGraph
    from graph.context import GraphContext
    from policies.engine import PolicyEngine
    from policies.grant_bounds import Bounds
    from reviews.conversations import Conversations
    from reviews.grant_service import GrantService, Remember
    from reviews.grants import Grant
    from reviews.ledger import DecisionRecorded, Review, ReviewLedger


# The stages whose approval runs a call (releasing held output runs nothing).
RUNS_A_CALL = frozenset({"before_execution", "after_failure"})


class ReviewExpiredError(ReviewError):
    """The review's deadline passed; it can no longer be approved."""


@dataclass(frozen=True)
class DecideResult:
    review: Review
    # The thread's run after the decision settled the review; None while more approvals are due.
    run: RunOutcome | None
    approvals: int
    required: int
    # The approval remembered for more calls with this decision (None: this call only).
    grant: Grant | None = None


def _argument_diff(before: dict[str, Any], after: dict[str, Any] | None) -> dict[str, Any]:
    if after is None:
        return {}
    keys = sorted(set(before) | set(after))
    return {k: {"from": before.get(k), "to": after.get(k)} for k in keys if before.get(k) != after.get(k)}


class ReviewService:
    def __init__(
        self,
        graph: CompiledGraph,
        context: GraphContext,
        ledger: ReviewLedger,
        audit: AuditLog,
        policy: PolicyEngine,
        conversations: Conversations,
        notifier: Notifier | None = None,
        sampler: Sampler | None = None,
        grants: GrantService | None = None,
    ) -> None:
        self.notifier = notifier or NoNotifications()
        # Remembered approvals (None: approvals cover their one call only).
        self.grants = grants
        # Answers servers' approved requests for a model completion (None: reviewers write them).
        self.sampler = sampler
        self.graph = graph
        self.conversations = conversations
        self.context = context
        self.ledger = ledger
        self.audit = audit
        self.policy = policy

    # -- runs --------------------------------------------------------------------------------

    def record_run(self, run: RunOutcome, *, actor: str | None = None) -> None:
        """Audit what a run decided (selection, validation, errors), add its answer to the
        thread's conversation, and tie its review, if it paused for one, to the checkpoint and
        interrupt it waits in. One transaction: the answer and its audit events go in together.

        Args:
            run: the outcome of starting, continuing or resuming a thread.
            actor: who the run was for (None: the thread's own doing, such as an expiry).
        """
        with self._transaction():
            self._record_answer(run, actor)
            # Last: the audit chain's head is the lock every writer takes (reviews/hooks.py).
            self.audit.append_all(self._run_events(run, actor))

    def _transaction(self) -> AbstractContextManager[Connection]:
        """One write transaction on the database the ledger, audit log and conversations share."""
        return one_transaction(self.ledger.database, self.audit.database, self.conversations.database)

    def _record_answer(self, run: RunOutcome, actor: str | None) -> None:
        """The run's answer in the conversation, and its review tied to where it waits."""
        state = run.state
        self.conversations.record_answer(
            run.final_output.thread_id,
            run.final_output.model_dump(mode="json"),
            checkpoint_id=run.checkpoint_id,
            owner=str(state.get("requester") or actor or "unknown"),
            author=actor,
        )
        if run.pending is not None and run.pending["stage"] != "clarification":
            # The run's outcome already read the checkpoint it paused in: no second read.
            self.ledger.attach_ids(
                run.pending["review_id"], checkpoint_id=run.checkpoint_id, interrupt_id=run.interrupt_id
            )

    @staticmethod
    def _run_events(run: RunOutcome, actor: str | None) -> list[AuditEntry]:
        """The audit events of a run: what it selected, how it was validated, its errors and
        its outcome, kept together in the chain."""
        state = run.state
        thread = run.final_output.thread_id
        entries: list[AuditEntry] = []
        selected = state.get("selected_capability")
        if selected:
            entries.append(
                AuditEntry(
                    "selection",
                    {
                        "capability": selected.get("key"),
                        "score": selected.get("score"),
                        "arguments": state.get("proposed_arguments", {}),
                    },
                    thread_id=thread,
                    actor=actor,
                )
            )
        validation = state.get("capability_validation") or {}
        if validation:
            entries.append(
                AuditEntry(
                    "validation",
                    {k: validation.get(k) for k in ("decision", "matched_rule", "category", "args_valid")}
                    | {"flags": [f.get("code") for f in validation.get("flags", [])]}
                    # Allowed without a review because a remembered approval covers it: which.
                    | ({"grant": grant["id"]} if (grant := validation.get("grant")) else {}),
                    thread_id=thread,
                )
            )
        if run.final_output.errors:
            entries.append(AuditEntry("errors", {"errors": run.final_output.errors}, thread_id=thread))
        entries.append(
            AuditEntry(
                "outcome",
                {"status": run.final_output.status, "fallback_reason": run.final_output.fallback_reason},
                thread_id=thread,
            )
        )
        return entries

    def record_request(self, text: str, *, thread_id: str, requester: str) -> None:
        """Audit an operator's request and add it to the thread's conversation.

        Args:
            text: the request as the operator wrote it (secrets are redacted when stored).
            thread_id: the thread it starts or continues.
            requester: who asked.
        """
        with self._transaction():
            self.conversations.record_request(thread_id, requester, text)
            self.audit.append("request", {"text": text}, thread_id=thread_id, actor=requester)

    # -- the queue ---------------------------------------------------------------------------

    def expire_overdue(self) -> list[str]:
        """Expire the reviews past their deadline, as sweep(recover=False) does, but only after
        a read finds one: what a view refreshing every few seconds calls before it counts.

        Returns:
            The ids of the reviews expired (their threads resumed to end ``expired``).
        """
        return self.sweep(recover=False)["expired"] if self.ledger.any_due() else []

    def queue(self, status: str | None = None, *, limit: int | None = None, offset: int = 0) -> list[Review]:
        """The reviews the ledger holds, oldest first: a read that writes nothing.

        A review past its deadline stays ``pending`` here until a sweep (``sweep`` or
        ``expire_overdue``, which the app and ``gatehouse reviews sweep`` run) expires it.

        Args:
            status: only reviews with this status (None: every review).
            limit: at most this many (None: all).
            offset: skip this many first, for paging.

        Returns:
            The reviews, oldest first.
        """
        return self.ledger.queue(status, limit=limit, offset=offset)

    def sweep(self, *, recover: bool = True) -> dict[str, list[str]]:
        """Expire what is past its deadline and (with ``recover``) escalate calls whose
        outcome is unknown, which needs the servers: the thread continues from its checkpoint.

        Several sweepers may run at once (replicas, cron): each piece of work is claimed in
        the ledger first, so it is done once.

        Args:
            recover: also mark calls cut off mid-run ``outcome_unknown`` and carry out
                decisions whose process died before it did.

        Returns:
            The review ids under ``expired``, ``outcome_unknown`` and ``resumed``.
        """
        # One transaction: no review is expired without its audit event.
        with self._transaction():
            due = self.ledger.expire_due()
            self.audit.append_all(
                [
                    AuditEntry(
                        "review_expired",
                        {"expires_at": review.expires_at},
                        thread_id=review.thread_id,
                        review_id=review.id,
                    )
                    for review in due
                ]
            )
        expired = [review.id for review in due]
        for review in due:
            self.notifier.review_event("review_expired", review)
            if review.served_by is not None:
                continue  # its thread is resumed with the expiry by the API's caller
            pending = pending_interrupt(self.graph, review.thread_id)
            if pending is not None and pending.get("review_id") == review.id:
                self._carry_out(
                    review, ReviewDecision(action="expire", by="gatehouse", at=review.decided_at), pending
                )
            else:
                self.ledger.mark_carried_out(review.id)
        unknown: list[str] = []
        for review in self.ledger.unfinished_executions() if recover else []:
            if not self.ledger.claim(review):
                continue  # another sweeper took it
            unknown.append(review.id)
            with self._transaction():
                self.ledger.set_status(review.id, "outcome_unknown")
                self.audit.append(
                    "outcome_unknown",
                    {"why": "the call's start was recorded and its result never was; it is not run again"},
                    thread_id=review.thread_id,
                    review_id=review.id,
                )
            self._continue_interrupted(review.thread_id)
            self.ledger.mark_carried_out(review.id)
        resumed = [
            review.id
            for review in (self.ledger.not_carried_out() if recover else [])
            if self._finish_decision(review)
        ]
        return {"expired": expired, "outcome_unknown": unknown, "resumed": resumed}

    def _continue_interrupted(self, thread_id: str) -> None:
        """A thread whose process died mid-run: continue it from its last checkpoint. A
        reviewed call whose start was recorded is not made again: the invoke step uses its
        recorded result, or, without one, asks a reviewer (it may have run)."""
        snapshot = self.graph.get_state(thread_config(thread_id))
        # ``tasks``, not ``next``: a step that ended but whose checkpoint was never written
        # (LangGraph writes it in the background) has saved writes, so it is left out of
        # ``next``; continuing applies those writes and goes on from the step after it.
        if snapshot.tasks and not snapshot.interrupts:
            trace = snapshot.values.get("trace_context")
            with workflow_run(thread_id, run="continue", parent=trace):
                self.record_run(execute(self.graph, self.context, None, thread_id))

    def _carry_out(self, review: Review, decision: ReviewDecision, pending: ReviewPayload) -> RunOutcome:
        """Resume the thread with a settled review's decision, and record that it was done."""
        # The wait for a person ends here, in whichever process carries the decision out: it
        # joins the request's trace, as the thread's continuation does (reviews/review_trace.py).
        trace = record_wait(self.graph, self.policy, review, decision, self.ledger.now())
        run = resume(self.graph, self.context, review.thread_id, decision, pending=pending, trace=trace)
        # An expiry is nobody's answer: the conversation shows it as the thread's own.
        actor = None if decision.action == "expire" else decision.by
        still_waiting = run.pending is not None and run.pending.get("review_id") == review.id
        with self._transaction():
            self._record_answer(run, actor)
            events = self._run_events(run, actor)
            # Only an approval that was to run a call can end without running it; releasing held
            # output runs nothing by design.
            if decision.action == "approve" and not still_waiting:
                events += self._close_if_not_run(
                    review,
                    {"status": run.final_output.status, "reason": run.final_output.fallback_reason},
                    actor=decision.by,
                )
            self.ledger.mark_carried_out(review.id)
            self.audit.append_all(events)
        return run

    def _close_if_not_run(
        self, review: Review, details: dict[str, Any], *, actor: str | None
    ) -> list[AuditEntry]:
        """An approval to run a call whose thread went on without starting it is ``not_run``,
        never ``approved`` for ever. Releasing held output runs nothing by design. Returns the
        audit event to append (none when the review was not closed)."""
        runs_a_call = review.stage in RUNS_A_CALL
        if runs_a_call and self.ledger.mark_not_run(review.id):
            return [
                AuditEntry(
                    "review_not_run", details, thread_id=review.thread_id, review_id=review.id, actor=actor
                )
            ]
        return []

    def _recorded_decision(self, review: Review) -> ReviewDecision:
        """The decision the ledger holds for a settled review, as the thread is resumed with."""
        at = review.decided_at
        if review.status == "expired":
            return ReviewDecision(action="expire", by="gatehouse", at=at)
        if review.status == "cancelled":
            return ReviewDecision(action="cancel", by=review.decided_by or "unknown", at=at)
        if review.status == "rejected":
            return ReviewDecision(
                action="reject", by=review.decided_by or "unknown", reason=review.reason, at=at
            )
        arguments = review.approved_arguments()
        edited = arguments if arguments is not None and arguments != review.arguments else None
        effects = review.approved_effects(arguments) if arguments is not None else None
        return ReviewDecision(
            action="approve", by=review.decided_by or "unknown", arguments=edited, at=at, effects=effects
        )

    def resume_value(self, review_id: str) -> dict[str, Any]:
        """What resumes the review's thread with its recorded decision: for a thread served
        by the LangGraph API (`langgraph dev`), whose caller resumes it with
        ``Command(resume=...)``; the graph accepts exactly this value, once.

        Args:
            review_id: the review's full id.

        Returns:
            The decision as JSON, with the review's id.

        Raises:
            ReviewNotFoundError: no review has this id.
            DecisionNotAllowedError: the review is not decided yet, or its decision was
                carried out already.
        """
        review = self.ledger.require(review_id)
        if review.status == "pending":
            raise DecisionNotAllowedError(
                f"review {review.id} is not decided yet: decide it first (`gatehouse reviews decide`)"
            )
        if review.carried_out_at is not None:
            raise DecisionNotAllowedError(
                f"review {review.id}'s decision was carried out already at {review.carried_out_at}"
            )
        return resume_value(self._recorded_decision(review), review.id)

    def _finish_decision(self, review: Review) -> bool:
        """Carry out a decision whose process died before it was carried out. True if this
        process took it over (another sweeper may have)."""
        if not self.ledger.claim(review):
            return False
        pending = pending_interrupt(self.graph, review.thread_id)
        if pending is None or pending.get("review_id") != review.id:
            # The thread got past the pause before the process died: continue it. Where the
            # resume never took hold (the answer was not written with the step), continuing
            # pauses it again on this same review, and the recorded decision is given again.
            self._continue_interrupted(review.thread_id)
            pending = pending_interrupt(self.graph, review.thread_id)
        if pending is not None and pending.get("review_id") == review.id:
            decision = self._recorded_decision(review)
            self.audit.append(
                "decision_resumed",
                {"action": decision.action, "why": "the process that recorded the decision ended first"},
                thread_id=review.thread_id,
                review_id=review.id,
            )
            self._carry_out(review, decision, pending)
        else:
            details: dict[str, Any] | None = None
            if review.status == "approved":
                # Read before the transaction: the checkpointer is not part of it.
                final = self.graph.get_state(thread_config(review.thread_id)).values.get("final_output") or {}
                details = {
                    "status": final.get("status"),
                    "reason": "the thread went on without running the call",
                }
            # The process may have died after the thread went on and before its answer was
            # recorded: the conversation gets the thread's answer now (once per checkpoint).
            run = outcome(self.graph, self.context, review.thread_id, [])
            with self._transaction():
                self._record_answer(run, None if review.status == "expired" else review.decided_by)
                events = self._close_if_not_run(review, details, actor=None) if details is not None else []
                self.ledger.mark_carried_out(review.id)
                self.audit.append_all(events)
        return True

    # -- withdrawal --------------------------------------------------------------------------

    def resolve_thread(self, reference: str) -> str:
        """The full id of the thread ``reference`` names: its id or its review's, full or short
        (reviews/thread_ids.py, which says what it raises)."""
        return resolve_thread(
            reference,
            conversations=self.conversations,
            ledger=self.ledger,
            exists=partial(thread_exists, self.graph),
        )

    def withdraw(self, thread_or_review: str, *, by: str) -> RunOutcome:
        """The requester takes back a request that waits (for a reviewer or for an answer): the
        thread ends ``cancelled`` and its review, if any, leaves the queue as ``cancelled``.
        A role allowed to take threads over may withdraw someone else's; nobody else may.

        Args:
            thread_or_review: the thread's id, or its review's; full, or short as shown on
                screen (reviews/thread_ids.py).
            by: who withdraws it.

        Returns:
            The thread's run, ended ``cancelled``.

        Raises:
            ThreadNotFoundError: it names no thread, or several (AmbiguousThreadIdError).
            NothingToResumeError: the thread waits for nothing.
            NotPermittedError: ``by`` is neither the requester nor allowed to take threads over.
            AlreadyDecidedError: the review was decided first.
        """
        review = self.ledger.get(thread_or_review)
        thread_id = review.thread_id if review is not None else self.resolve_thread(thread_or_review)
        pending = pending_interrupt(self.graph, thread_id)
        if pending is None:
            # A decision that won the race has already taken the thread past its pause (its
            # call may be running): that is "decided first", not "nothing to withdraw".
            decided = review if review is not None else self.ledger.latest_for_thread(thread_id)
            if decided is not None and decided.status != "pending" and decided.decided_by != by:
                raise AlreadyDecidedError(decided.id, decided.status, decided.decided_by, decided.decided_at)
            raise NothingToResumeError(thread_id)
        owner = str(pending.get("requester") or "")
        if by != owner and not self.policy.may_take_over(by):
            raise NotPermittedError(
                f"only {owner or 'the requester'} may withdraw the request on thread {thread_id}"
            )
        decision = ReviewDecision(action="cancel", by=by, at=iso(self.ledger.now()))
        if pending["stage"] == "clarification":
            # A question to the operator has no review in the ledger: only the thread ends.
            self.audit.append("request_withdrawn", {"stage": "clarification"}, thread_id=thread_id, actor=by)
            run = resume(self.graph, self.context, thread_id, decision, pending=pending)
            self.record_run(run, actor=by)
            return run
        review_id = str(pending["review_id"])
        with self._transaction():
            withdrawn = self.ledger.cancel(review_id, by)
            if withdrawn:
                self.audit.append(
                    "review_cancelled",
                    {"stage": pending["stage"]},
                    thread_id=thread_id,
                    review_id=review_id,
                    actor=by,
                )
        if not withdrawn:
            current = self.ledger.require(review_id)
            raise AlreadyDecidedError(review_id, current.status, current.decided_by, current.decided_at)
        cancelled = self.ledger.require(review_id)
        self.notifier.review_event("review_cancelled", cancelled, by=by)
        decision.at = cancelled.decided_at or decision.at
        return self._carry_out(cancelled, decision, pending)

    # -- decisions ---------------------------------------------------------------------------

    def live_definition(self, review: Review) -> Capability | None:
        """The reviewed capability as its server offers it now, to compare with what the review
        shows (None: no longer offered, or the review names none). Raises McpHostError when
        the server cannot be reached."""
        server, key = review.capability.get("server"), review.capability.get("key")
        if not server or not key:
            return None
        return self.context.mcp.discover(only=[server]).find(key)

    def check_permission(self, review: Review, reviewer: str) -> None:
        """Whether ``reviewer`` may decide ``review`` (see permission_problem).

        Raises:
            NotPermittedError: naming the rule that keeps them out.
        """
        problem = self.permission_problem(review, reviewer)
        if problem is not None:
            raise NotPermittedError(problem)

    def permission_problem(self, review: Review, reviewer: str) -> str | None:
        """Why ``reviewer`` may not decide ``review``, or None when they may: their role
        reviews its kind, and under four-eyes they neither asked for the call nor answered its
        questions (for a server's request for a model completion: the request whose call
        caused it). The one statement of the rule: decide() enforces it, and the pages count
        and show with it (waits_on)."""
        role = self.policy.role_of(reviewer)
        if role is None:
            return f"{reviewer!r} is not in the policy's roster"
        if role not in review.reviewer_roles:
            allowed = ", ".join(review.reviewer_roles) or "no role"
            return f"{reviewer} has role {role}; reviews of {review.category or 'this kind'} need {allowed}"
        if review.four_eyes and (thread := kept_out(review, reviewer)) is not None:
            return (
                f"four-eyes: {reviewer} is behind the request (thread {thread}) whose call"
                " caused this request for a model completion, and may not approve or reject it"
            )
        if review.four_eyes and reviewer == review.requester:
            return f"four-eyes: {reviewer} asked for this call and may not approve or reject it"
        if review.four_eyes and reviewer in review.payload.get("contributors", []):
            return f"four-eyes: {reviewer} answered this request's questions and may not approve or reject it"
        return None

    def waits_on(self, review: Review, user: str) -> bool:
        """Whether ``review`` waits for ``user``'s decision: it is pending, they may decide it
        (permission_problem), and they have not decided it yet (an approval of several is
        given once: the ledger refuses a second)."""
        return (
            review.status == "pending"
            and self.permission_problem(review, user) is None
            and all(decision.reviewer != user for decision in review.decisions)
        )

    def waiting_on(self, user: str, pending: Sequence[Review] | None = None) -> list[Review]:
        """The pending reviews that wait for ``user``'s decision (waits_on), oldest first: what
        a person's own count of reviews to decide counts. A read that writes nothing; it reads
        every pending review, as deciding who may decide needs each one's terms, unless given
        them (``pending``: the live views share one read of them among every open tab)."""
        reviews = self.ledger.queue("pending") if pending is None else pending
        return [review for review in reviews if self.waits_on(review, user)]

    def _selected(self, review: Review, purpose: str) -> Capability:
        """The capability the review's thread selected (its definition as the thread holds it)."""
        selected = self.graph.get_state(thread_config(review.thread_id)).values.get("selected_capability")
        if not selected:
            raise DecisionNotAllowedError(f"thread {review.thread_id} has no capability {purpose}")
        return Capability.model_validate(selected)

    def _check_edited(self, review: Review, arguments: dict[str, Any]) -> None:
        """Against the capability and the policy (storable they are: _check_call_decision)."""
        check_against_policy(self._selected(review, "to edit arguments for"), arguments, self.policy)

    def _remember(
        self,
        review: Review,
        reviewer: str,
        remember: Remember | None,
        granting: tuple[Capability, Bounds] | None,
        arguments: dict[str, Any],
    ) -> Grant | None:
        """Record the grant an approval asked for (inside the decision's transaction)."""
        if remember is None or granting is None or self.grants is None:
            return None
        capability, bounds = granting
        return self.grants.create(review, reviewer, remember, capability, arguments, bounds)

    def _check_remember(
        self, review: Review, reviewer: str, approve: bool, remember: Remember, arguments: dict[str, Any]
    ) -> tuple[Capability, Bounds]:
        """Whether this approval may be remembered (reviews/grant_service.py check): the
        capability it would cover and the grant's bounds."""
        if self.grants is None:
            raise DecisionNotAllowedError("remembered approvals are not available here")
        if not approve:
            raise DecisionNotAllowedError("only an approval can be remembered")
        capability = self._selected(review, "to remember an approval of")
        return capability, self.grants.check(review, reviewer, remember, capability, arguments)

    def decide(
        self,
        review_id: str,
        *,
        reviewer: str,
        approve: bool,
        reason: str | None = None,
        arguments: dict[str, Any] | None = None,
        expected: str | None = None,
        answer: str | None = None,
        shown_effect: EffectBinding | None = None,
        remember: Remember | None = None,
    ) -> DecideResult:
        """Record one reviewer's decision, once, and carry it out when it settles the review.

        Expires what is overdue first (this review included). A settled approval resumes the
        thread, which runs the call once; a rejection resumes it to tell the operator.

        Args:
            review_id: the review's full id.
            reviewer: who decides (a name in the policy's roster).
            approve: True to approve, False to reject.
            reason: why; required to reject.
            arguments: edited arguments, with an approval before execution only; checked
                against the capability's schema and the policy before anything is recorded.
            expected: the call hash of the proposal the decider was shown (the web page sends
                it); a decision made on a view of anything else is refused.
            answer: a reviewer's own answer to a server's request for a model completion.
            shown_effect: what the decider's preview showed of the file the call writes (the
                web page sends it): an approval is bound to it, and refused when the file is no
                longer that. Without one (the command line shows no preview) an approval is
                bound to the file as it is when the decision is recorded.
            remember: extend the approval to later calls of the same capability within bounds,
                for a thread, a requester or a time window (reviews/grant_service.py): checked
                before anything is recorded, and recorded with the decision.

        Returns:
            The review as it is now, the thread's run (None while more approvals are due) and
            the approvals counted against those required.

        Raises:
            ReviewExpiredError: the review's deadline passed.
            AlreadyDecidedError: someone decided it first (or withdrew the request).
            NotPermittedError: the reviewer's role, four-eyes or the roster forbids it.
            DecisionNotAllowedError: a stale view (of the proposal, or of the file it writes),
                a rejection without a reason, edited arguments or an answer where none may go,
                or a thread that no longer waits.
        """
        self.expire_overdue()
        review = self.ledger.require(review_id)
        self._check_decidable(review, reviewer, approve=approve, reason=reason, expected=expected)
        if review.stage == SAMPLING_STAGE:
            if remember is not None:
                raise DecisionNotAllowedError("a request for a model completion cannot be remembered")
            return self._decide_sampling(review, reviewer, approve, reason, arguments, answer)
        self._check_call_decision(
            review, reviewer, approve=approve, reason=reason, arguments=arguments, answer=answer
        )
        # A thread served elsewhere (the LangGraph API) is not in this database to wait here.
        pending = self._waiting_on(review) if review.served_by is None else None
        if arguments is not None:
            # Checked before anything is recorded: a refused edit leaves the review pending,
            # with nothing in the ledger or the audit log, for a corrected decision.
            self._check_edited(review, arguments)
        # An approval counts for the exact arguments it saw: edited arguments need their own
        # full set of approvals, so nobody's approval carries a call they never saw.
        effective = arguments if arguments is not None else review.arguments
        granting = (
            self._check_remember(review, reviewer, approve, remember, effective)
            if remember is not None
            else None
        )
        effect = self._bound_effect(review, effective, shown_effect) if approve else None
        with self._transaction():
            recorded = self._record_decision(review, reviewer, approve, reason, arguments, effective, effect)
            grant = self._remember(review, reviewer, remember, granting, effective)
        if recorded.final:
            self.notifier.review_event("review_decided", recorded.review)
        if not recorded.final or pending is None:
            # Not settled yet; or settled on a thread served elsewhere, whose caller resumes it
            # with the recorded decision (resume_value).
            return DecideResult(
                review=recorded.review, run=None, approvals=recorded.approvals, required=recorded.required
            )
        decision = ReviewDecision(
            action="approve" if approve else "reject",
            by=reviewer,
            reason=reason,
            arguments=effective if approve and effective != review.arguments else None,
            at=recorded.review.decided_at,
            effects=recorded.review.approved_effects(effective) if approve else None,
        )
        run = self._carry_out(recorded.review, decision, pending)
        return DecideResult(
            review=self.ledger.require(review.id),
            run=run,
            approvals=recorded.approvals,
            required=recorded.required,
            grant=grant,
        )

    def _check_decidable(
        self, review: Review, reviewer: str, *, approve: bool, reason: str | None, expected: str | None
    ) -> None:
        """Whether anyone may decide this review now, and this reviewer in particular."""
        if review.status == "expired":
            raise ReviewExpiredError(
                f"review {review.id} expired at {review.expires_at}; it can no longer be approved"
            )
        if review.status != "pending":
            raise AlreadyDecidedError(review.id, review.status, review.decided_by, review.decided_at)
        if expected is not None and expected != review.call_hash:
            raise DecisionNotAllowedError(
                f"review {review.id} changed since it was shown (its capability or arguments differ): "
                "reload it and decide on what it proposes now"
            )
        self.check_permission(review, reviewer)
        problem = None if approve else rejection_problem(reason)
        if problem is not None:
            raise DecisionNotAllowedError(problem)

    @staticmethod
    def _check_call_decision(
        review: Review,
        reviewer: str,
        *,
        approve: bool,
        reason: str | None,
        arguments: dict[str, Any] | None,
        answer: str | None,
    ) -> None:
        """What may go with a decision on a paused thread's call (not a completion request):
        the stage's rule (graph/state.py ReviewDecision.problem_at), checked before anything
        is recorded."""
        if answer is not None:
            raise DecisionNotAllowedError(
                "an answer goes with a server's request for a model completion only"
            )
        action: DecisionAction = "approve" if approve else "reject"
        check_decision(
            review.stage, ReviewDecision(action=action, by=reviewer, reason=reason, arguments=arguments)
        )

    def _bound_effect(
        self, review: Review, arguments: dict[str, Any], shown: EffectBinding | None
    ) -> EffectBinding | None:
        """What an approval of ``arguments`` is bound to of the file the call writes (None:
        nothing to bind, or a stage that runs no call). What the decider was shown must still
        hold: it is read again now, and once more right before the call (graph/nodes/call_checks.py)."""
        if review.stage not in RUNS_A_CALL:
            return None
        now = observe(self.context.mcp, self.context.policy, review.capability, arguments)
        if shown is None:
            return now.binding if now is not None else None
        why = what_changed(shown, now, then="the review was shown")
        if why is not None:
            raise DecisionNotAllowedError(
                f"review {review.id} was not decided: {why}. Reload it and decide on what it shows now"
            )
        return shown

    def _waiting_on(self, review: Review) -> ReviewPayload:
        """The interrupt the review's thread waits in; refused when it waits for nothing, or
        for another review."""
        pending = pending_interrupt(self.graph, review.thread_id)
        if pending is not None and pending.get("review_id") == review.id:
            return pending
        # Someone may have won the race between our first read and now: say who.
        current = self.ledger.require(review.id)
        if current.status != "pending":
            raise AlreadyDecidedError(review.id, current.status, current.decided_by, current.decided_at)
        raise DecisionNotAllowedError(
            f"thread {review.thread_id} no longer waits for review {review.id} (it was resumed already)"
        )

    def _record_decision(
        self,
        review: Review,
        reviewer: str,
        approve: bool,
        reason: str | None,
        edited: dict[str, Any] | None,
        effective: dict[str, Any],
        effect: EffectBinding | None,
    ) -> DecisionRecorded:
        """Count the decision in the ledger (once, whoever races) and audit it (the caller
        announces a review it settles, after the commit)."""
        action: Literal["approve", "reject"] = "approve" if approve else "reject"
        # One transaction: a decision is never on record without its audit event.
        with self._transaction():
            recorded = self.ledger.record_decision(
                review.id,
                reviewer=reviewer,
                action=action,
                reason=reason,
                arguments=effective if approve else None,
                effect=effect,
            )
            self.audit.append(
                "decision",
                {
                    "action": action,
                    "reason": reason,
                    "edited_arguments": _argument_diff(review.arguments, edited),
                    "approvals": recorded.approvals,
                    "required": recorded.required,
                }
                # What the approval is bound to of the file the call writes, when anything.
                | ({"bound_to": effect.model_dump(mode="json")} if effect is not None else {}),
                thread_id=review.thread_id,
                review_id=review.id,
                actor=reviewer,
            )
        return recorded

    def _decide_sampling(
        self,
        review: Review,
        reviewer: str,
        approve: bool,
        reason: str | None,
        arguments: dict[str, Any] | None,
        answer: str | None,
    ) -> DecideResult:
        """A server's request for a model completion: no thread resumes; the server's call,
        waiting on the ledger (reviews/sampling.py), gets the answer or an error."""
        if arguments is not None:
            raise DecisionNotAllowedError("a request for a model completion has no arguments to edit")
        recorded = decide_sampling(
            self.ledger,
            self.audit,
            self.sampler,
            review,
            reviewer=reviewer,
            approve=approve,
            reason=reason,
            answer=answer,
        )
        self.notifier.review_event("review_decided", recorded.review)
        return DecideResult(
            review=recorded.review, run=None, approvals=recorded.approvals, required=recorded.required
        )
