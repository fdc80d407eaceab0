"""Why a side-effecting tool call may run, carried to the server as a signed grant in the
request's ``_meta`` (gatehouse_verify/grant.py), so that a server can refuse a call nobody
approved (gatehouse_verify/verifier.py).

The graph says why around the call (``approved_for``: a review, a remembered grant or a policy
rule, and the policy version that allowed it); the pool signs just before sending, for the
name the server announced when it connected (``capabilities.extensions``), so the grant is
made for exactly the request that leaves. A call made outside ``approved_for`` carries nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from gatehouse_verify import EXTENSION_ID, META_KEY
from gatehouse_verify.grant import Why


@dataclass(frozen=True)
class CallApproval:
    """Why the next tool call may run, and under which version of the policy."""

    why: Why
    policy_version: int | None


class GrantSigner(Protocol):
    """Makes the signed grant for one call (gatehouse/approval_keys.py ApprovalSigner)."""

    def grant(
        self, approval: CallApproval, *, server: str, tool: str, arguments: dict[str, Any]
    ) -> dict[str, Any]:
        """The ``_meta`` value (gatehouse_verify/grant.py sign_grant) for this call."""
        ...


_approval: ContextVar[CallApproval | None] = ContextVar("gatehouse_call_approval", default=None)


@contextmanager
def approved_for(approval: CallApproval | None) -> Iterator[None]:
    """Tool calls made inside carry a grant for ``approval`` (none for None)."""
    token = _approval.set(approval)
    try:
        yield
    finally:
        _approval.reset(token)


def current_approval() -> CallApproval | None:
    return _approval.get()


def announced_verification(extensions: dict[str, dict[str, Any]] | None) -> dict[str, Any] | None:
    """What a server announced about verifying grants (its ``capabilities.extensions`` entry),
    or None when it announced nothing."""
    settings = (extensions or {}).get(EXTENSION_ID)
    return dict(settings) if isinstance(settings, dict) else None


def request_meta(
    signer: GrantSigner | None,
    approval: CallApproval | None,
    *,
    server: str,
    announced: dict[str, Any] | None,
    tool: str,
    arguments: dict[str, Any],
) -> dict[str, Any] | None:
    """The ``_meta`` for one tool call: a grant when there is a reason and a key, else None.
    The grant names the server as it announced itself (``server`` in its announcement), else
    by its name in the servers file."""
    if signer is None or approval is None:
        return None
    audience = announced.get("server") if announced else None
    name = audience if isinstance(audience, str) and audience else server
    return {META_KEY: signer.grant(approval, server=name, tool=tool, arguments=arguments)}
