"""Remembered approvals, made, used, listed and ended, each with its audit event.

The review service asks here whether a reviewer's approval may be remembered (check) and
records the grant with the decision (create); the graph asks whether a grant covers a call the
rules send to review (cover, the GrantHooks of graph/context.py); the command line and the
Reviews page list and revoke grants. The policy is asked every time: a grant never covers what
it refuses or marks ungrantable, and a grant a newer version of the policy would not allow is
ended the first time it is looked at under that version.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, cast

from graph.calls import call_hash
from graph.context import CallToCover
from graph.state import GrantUseData
from mcp_host.manifest import Capability
from policies.grant_bounds import Bounds, BoundsError, describe, grant_bounds, outside
from policies.provenance import HOLDING
from reviews.audit import AuditLog
from reviews.clock import iso
from reviews.errors import DecisionNotAllowedError, NotPermittedError, ReviewError
from reviews.grants import POLICY_REVOKER, Grant, GrantScope, GrantStore, new_grant_id
from storage.database import Connection
from storage.transactions import one_transaction

if TYPE_CHECKING:
    from policies.engine import PolicyEngine
    from reviews.ledger import Review

# The stage whose approval a grant may extend: a call before it runs.
GRANTABLE_STAGE = "before_execution"
_DURATION = re.compile(r"(?P<count>[1-9]\d{0,5})(?P<unit>[mhd])")
_UNIT = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}
# Flags that say nothing a reviewer weighs: a later call may raise them without a new review.
_NOTHING_TO_WEIGH = frozenset({"info"})


class GrantNotFoundError(ReviewError):
    """No grant has that id."""


@dataclass(frozen=True)
class Remember:
    """What a reviewer asks to remember with an approval: for whom, for how long, within
    which bounds (policies/grant_bounds.py), for how many uses (None: no cap)."""

    scope: GrantScope
    # The window (scope "window"); for a thread or a requester, None: the policy's longest.
    duration: timedelta | None = None
    within: dict[str, Any] | None = None
    uses: int | None = None


def parse_remember(text: str, *, within: dict[str, Any] | None = None, uses: int | None = None) -> Remember:
    """``thread``, ``requester`` or a duration (``30m``, ``8h``, ``7d``) as a Remember.

    Raises:
        DecisionNotAllowedError: anything else, or a use count below one.
    """
    if uses is not None and uses < 1:
        raise DecisionNotAllowedError("--uses: a grant needs at least one use")
    word = text.strip().lower()
    if word in {"thread", "requester"}:
        return Remember(scope=cast("GrantScope", word), within=within, uses=uses)
    match = _DURATION.fullmatch(word)
    if match is None:
        raise DecisionNotAllowedError(
            f"--remember takes thread, requester or a duration such as 30m, 8h or 7d, not {text!r}"
        )
    return Remember(
        scope="window", duration=int(match["count"]) * _UNIT[match["unit"]], within=within, uses=uses
    )


def _weighed(codes: Iterable[tuple[str, str]]) -> set[str]:
    return {code for code, severity in codes if severity not in _NOTHING_TO_WEIGH}


class GrantService:
    """Grants on the ledger's database, audited in the same transaction as each change."""

    def __init__(self, store: GrantStore, audit: AuditLog, policy: PolicyEngine) -> None:
        self.store = store
        self.audit = audit
        self.policy = policy

    def _transaction(self) -> AbstractContextManager[Connection]:
        return one_transaction(self.store.database, self.audit.database)

    # -- making one --------------------------------------------------------------------------

    def check(
        self,
        review: Review,
        reviewer: str,
        remember: Remember,
        capability: Capability,
        arguments: dict[str, Any],
    ) -> Bounds:
        """Whether this approval may be remembered so; checked before anything is recorded.
        The reviewer's role and four-eyes were checked for the decision itself; a grant adds
        that its maker is never the requester, nor anyone who shaped the request, whatever
        the policy's four-eyes says.

        Returns:
            The grant's bounds.

        Raises:
            NotPermittedError: the reviewer is behind the request.
            DecisionNotAllowedError: the stage, the policy, the flags or the bounds forbid it.
        """
        if reviewer == review.requester or reviewer in review.payload.get("contributors", []):
            raise NotPermittedError(
                f"{reviewer} is behind this request and may not remember an approval of it"
            )
        if review.stage != GRANTABLE_STAGE:
            raise DecisionNotAllowedError("only an approval of a call before it runs can be remembered")
        if review.required_approvals > 1:
            raise DecisionNotAllowedError(
                f"this call needs {review.required_approvals} approvals each time; one reviewer cannot remember it"
            )
        held = [f for f in review.flags if f.get("code") in HOLDING]
        if held:
            raise DecisionNotAllowedError(f"no grant may cover this call: {held[0].get('message')}")
        problem = self.policy.grant_problem(
            capability.key, self.policy.evaluate(capability, arguments).decision
        )
        if problem is not None:
            raise DecisionNotAllowedError(f"no grant may cover this call: {problem}")
        longest = timedelta(hours=self.policy.policy.grants.max_hours)
        if remember.duration is not None and remember.duration > longest:
            raise DecisionNotAllowedError(
                f"a grant lasts at most {self.policy.policy.grants.max_hours} hours ([grants] max_hours)"
            )
        try:
            return grant_bounds(arguments, remember.within)
        except BoundsError as exc:
            raise DecisionNotAllowedError(f"--within: {exc}") from exc

    def create(
        self,
        review: Review,
        reviewer: str,
        remember: Remember,
        capability: Capability,
        arguments: dict[str, Any],
        bounds: Bounds,
    ) -> Grant:
        """Record the grant and its audit event (inside the decision's transaction)."""
        now = self.store.now()
        lasts = remember.duration or timedelta(hours=self.policy.policy.grants.max_hours)
        grant = Grant(
            id=new_grant_id(),
            review_id=review.id,
            capability_key=capability.key,
            server=capability.server,
            fingerprint=capability.fingerprint,
            capability=capability.model_dump(mode="json"),
            arguments=arguments,
            bounds=bounds,
            flag_codes=sorted(_weighed((f.get("code", ""), f.get("severity", "")) for f in review.flags)),
            scope=remember.scope,
            thread_id=review.thread_id if remember.scope == "thread" else None,
            requester=review.requester if remember.scope == "requester" else None,
            created_by=reviewer,
            created_at=iso(now),
            expires_at=iso(now + lasts),
            uses_max=remember.uses,
            uses_left=remember.uses,
            policy_version=self.policy.version,
        )
        with self._transaction():
            self.store.add(grant)
            self.audit.append(
                "grant_created",
                {
                    "grant": grant.id,
                    "capability": grant.capability_key,
                    "scope": grant.scope_words(),
                    "bounds": describe(bounds),
                    "expires_at": grant.expires_at,
                    "uses": grant.uses_max,
                },
                thread_id=review.thread_id,
                review_id=review.id,
                actor=reviewer,
            )
        return grant

    # -- using one ---------------------------------------------------------------------------

    def cover(self, call: CallToCover) -> GrantUseData | None:
        """The grant a call the rules send to review runs under, its use consumed, or None.

        A grant covers the call when the policy lets grants cover it at all, and the grant is
        live, of this definition, in scope, not its own requester's (nor a contributor's), the
        call raises no concern the approved one did not, and its arguments are within bounds.
        """
        key = call.capability.key
        if self.policy.grant_problem(key, call.decision) is not None:
            # Nothing may cover it; the grants that would have are checked against the policy
            # in force (and ended if it no longer allows their own call).
            for grant in self.store.live_for(key):
                self._still_allowed(grant)
            return None
        concerns = _weighed((f.code, f.severity) for f in call.decision.flags)
        for grant in self.store.live_for(key):
            if not self._fits(grant, call, concerns) or not self._still_allowed(grant):
                continue
            hashed = call_hash(call.capability.server, call.capability.fingerprint, call.arguments)
            with self._transaction():
                used = self.store.use(
                    grant.id, use_key=call.use_key, thread_id=call.thread_id, call_hash=hashed
                )
                if used is None:
                    continue  # revoked, expired or used up since it was read
                if not used.again:
                    self.audit.append(
                        "grant_used",
                        {
                            "grant": grant.id,
                            "capability": key,
                            "call_hash": hashed,
                            "approved_by": grant.created_by,
                            "uses_left": used.uses_left,
                        },
                        thread_id=call.thread_id,
                        actor=call.requester,
                    )
            return cast("GrantUseData", grant.summary() | {"uses_left": used.uses_left})
        return None

    @staticmethod
    def _fits(grant: Grant, call: CallToCover, concerns: set[str]) -> bool:
        capability = call.capability
        if grant.server != capability.server or grant.fingerprint != capability.fingerprint:
            return False
        if grant.scope == "thread" and grant.thread_id != call.thread_id:
            return False
        if grant.scope == "requester" and grant.requester != call.requester:
            return False
        # Nobody's own approval covers their own request.
        if grant.created_by == call.requester or grant.created_by in call.contributors:
            return False
        if not concerns <= set(grant.flag_codes):
            return False
        return outside(call.arguments, grant.bounds) is None

    # -- the policy changes ------------------------------------------------------------------

    def _still_allowed(self, grant: Grant) -> bool:
        """Whether the policy in force still lets the grant's approved call be covered: a
        grant checked under an older version is checked again, and ended if not."""
        version = self.policy.version
        if grant.policy_version == version:
            return True
        stored = self.store.get(grant.id)
        if stored is None or stored.capability is None or stored.arguments is None:
            return False
        capability = Capability.model_validate(stored.capability)
        decision = self.policy.evaluate(capability, stored.arguments).decision
        problem = self.policy.grant_problem(grant.capability_key, decision)
        if problem is None:
            self.store.mark_checked(grant.id, version)
            return True
        with self._transaction():
            ended = self.store.revoke(
                grant.id, by=POLICY_REVOKER, reason=f"policy version {version} no longer allows it: {problem}"
            )
            if ended:
                self.audit.append(
                    "grant_ended",
                    {"grant": grant.id, "policy_version": version, "why": problem},
                    thread_id=grant.thread_id,
                    review_id=grant.review_id,
                )
        return False

    def recheck(self) -> list[str]:
        """Check every live grant against the policy in force; returns the ids of those ended."""
        return [grant.id for grant in self.store.live() if not self._still_allowed(grant)]

    # -- listing and revoking ----------------------------------------------------------------

    def list(self, *, everything: bool = False) -> list[Grant]:
        """The grants, newest first: the live ones (after checking them against the policy in
        force), or every grant ever made."""
        self.recheck()
        grants = self.store.all()
        if everything:
            return grants
        now = self.store.now()
        return [grant for grant in grants if grant.state(now) == "active"]

    def require(self, grant_id: str) -> Grant:
        grant = self.store.get(grant_id)
        if grant is None:
            raise GrantNotFoundError(f"no grant {grant_id}")
        return grant

    def revoke(self, grant_id: str, *, by: str, reason: str | None = None) -> Grant:
        """End a grant now, audited. Its maker, or anyone whose role reviews, may.

        Raises:
            GrantNotFoundError: no grant has that id.
            NotPermittedError: ``by`` is not in the roster, or reviews nothing.
            DecisionNotAllowedError: it was revoked or ended before.
        """
        grant = self.require(grant_id)
        role = self.policy.role(by)
        if by != grant.created_by and (role is None or not role.review):
            raise NotPermittedError(f"{by!r} neither made grant {grant_id} nor reviews calls")
        why = reason or "revoked"
        with self._transaction():
            if not self.store.revoke(grant_id, by=by, reason=why):
                raise DecisionNotAllowedError(
                    f"grant {grant_id} was already ended by {grant.revoked_by} at {grant.revoked_at}"
                )
            self.audit.append(
                "grant_revoked",
                {"grant": grant_id, "reason": why},
                thread_id=grant.thread_id,
                review_id=grant.review_id,
                actor=by,
            )
        return self.require(grant_id)
