"""The verifier a server built on the MCP Python SDK (2.x) runs: every side-effecting tool call
must carry a valid Gatehouse grant in its request ``_meta``, or it is refused.

Use::

    from gatehouse_verify.keys import keys_from_environment
    from gatehouse_verify.verifier import ApprovalVerifier

    verifier = ApprovalVerifier("email", keys_from_environment())
    server = MCPServer("email", extensions=[verifier])
    ...                      # register tools
    verifier.guard(server)   # which tools act: every tool not annotated read-only

It is an SDK extension (SEP-2133): it wraps ``tools/call`` and is announced in the server's
capabilities (``capabilities.extensions["io.gatehouse/approval"]``), which is how a client
such as ``gatehouse servers check`` tells that the server verifies. A tool whose annotations
say ``readOnlyHint: true`` runs without a grant; every other tool needs one (the MCP default
for an unannotated tool is "may act"). A refused call is answered with a JSON-RPC error
(``-32602``, invalid params) whose message says why, and the tool never runs.

A grant passes when: it is signed by one of the configured keys; it names this server and
this tool; its argument digest is the digest of the call's arguments; it has not expired (and
does not claim to live longer than ``max_lifetime_seconds``); and its nonce was not used
before (gatehouse_verify/nonces.py, which says what a server with several processes must do).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension
from mcp_types import CallToolRequestParams

from gatehouse_verify import EXTENSION_ID, META_KEY
from gatehouse_verify.canonical import arguments_digest
from gatehouse_verify.grant import GrantError, Why, signature_holds, signed_fields, why_of
from gatehouse_verify.keys import PublicKeys
from gatehouse_verify.nonces import MemoryNonceStore, NonceStore

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

# JSON-RPC "invalid params": the request's parameters (its grant) are what is wrong.
REFUSED_CODE = -32602
# A grant is made right before its call: one that claims a longer life is refused, which also
# bounds how long a nonce must be remembered.
DEFAULT_MAX_LIFETIME_SECONDS = 600
# How far Gatehouse's clock may run ahead of the server's.
DEFAULT_CLOCK_SKEW_SECONDS = 60


class ApprovalRefused(MCPError):
    """A side-effecting call without a grant this server accepts."""

    def __init__(self, tool: str, reason: str) -> None:
        super().__init__(
            REFUSED_CODE,
            f"{tool} needs a Gatehouse approval and this call's was refused: {reason}",
            {"extension": EXTENSION_ID, "reason": reason},
        )


class ApprovalVerifier(Extension):
    """Refuses side-effecting tool calls that carry no valid Gatehouse grant."""

    identifier = EXTENSION_ID

    def __init__(
        self,
        server: str,
        keys: PublicKeys,
        *,
        nonces: NonceStore | None = None,
        clock: Callable[[], float] = time.time,
        max_lifetime_seconds: int = DEFAULT_MAX_LIFETIME_SECONDS,
        clock_skew_seconds: int = DEFAULT_CLOCK_SKEW_SECONDS,
    ) -> None:
        self._server_name = server
        self._keys = keys
        self._nonces: NonceStore = nonces if nonces is not None else MemoryNonceStore(clock=clock)
        self._clock = clock
        self._max_lifetime = max_lifetime_seconds
        self._skew = clock_skew_seconds
        self._guarded: MCPServer[Any] | None = None
        # Tool name -> whether it may act, from the server's own listing (read once, again
        # for a name not seen yet).
        self._acts: dict[str, bool] = {}

    def guard(self, server: MCPServer[Any]) -> None:
        """Judge tools by ``server``'s own annotations. Until this is called every tool is
        treated as side-effecting (refused without a grant)."""
        self._guarded = server
        self._acts = {}

    def settings(self) -> dict[str, Any]:
        """What the server announces: where it reads grants, the name grants must carry, and
        the ids of the keys it accepted when it started."""
        return {"metaKey": META_KEY, "server": self._server_name, "keyIds": self._keys.key_ids()}

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        if await self._side_effecting(params.name):
            meta: dict[str, Any] = dict(params.meta or {})
            try:
                self.check(meta.get(META_KEY), params.name, params.arguments or {})
            except GrantError as exc:
                raise ApprovalRefused(params.name, str(exc)) from None
        return await call_next(ctx)

    async def _side_effecting(self, tool: str) -> bool:
        if self._guarded is None:
            return True
        if tool not in self._acts:
            for listed in await self._guarded.list_tools():
                hints = listed.annotations
                self._acts[listed.name] = not (hints is not None and hints.read_only_hint is True)
        # A name the server does not offer: the server answers it ("unknown tool").
        return self._acts.get(tool, False)

    def check(self, value: Any, tool: str, arguments: dict[str, Any]) -> Why:
        """Accept the grant ``value`` for calling ``tool`` with ``arguments`` once, or say why not.

        Raises:
            GrantError: no grant, or one that is not valid for this call (already used ones
                included; a grant that passes is used by this check).
        """
        if value is None:
            raise GrantError(f"the request carries no grant (_meta {META_KEY!r})")
        grant, kid, signature = signed_fields(value)
        key = self._keys.find(kid)
        if key is None:
            raise GrantError(f"the grant is signed with key {kid!r}, which this server does not accept")
        if not signature_holds(key, grant, signature):
            raise GrantError("the grant's signature does not match its contents")
        why = why_of(grant)
        if grant["server"] != self._server_name:
            raise GrantError(f"the grant is for server {grant['server']!r}, not {self._server_name!r}")
        if grant["tool"] != tool:
            raise GrantError(f"the grant is for tool {grant['tool']!r}, not {tool!r}")
        if grant["arguments_sha256"] != arguments_digest(arguments):
            raise GrantError("the call's arguments are not the ones the grant was given for")
        self._check_time(grant)
        if not isinstance(grant["nonce"], str) or not self._nonces.use(grant["nonce"], grant["expires_at"]):
            raise GrantError("the grant was used before (each grant runs one call)")
        return why

    def _check_time(self, grant: dict[str, Any]) -> None:
        issued, expires = grant["issued_at"], grant["expires_at"]
        if not isinstance(issued, int | float) or not isinstance(expires, int | float):
            raise GrantError("the grant's issued_at and expires_at must be numbers")
        now = self._clock()
        if expires <= now:
            raise GrantError(f"the grant expired {now - expires:.0f} s ago")
        if issued > now + self._skew:
            raise GrantError("the grant was issued in the future (check the clocks)")
        if expires - issued > self._max_lifetime:
            raise GrantError(f"the grant claims to live longer than {self._max_lifetime} s")


def verifying_server(name: str, keys: PublicKeys | None, **options: Any) -> MCPServer[Any]:
    """An MCPServer named ``name`` that verifies Gatehouse grants with ``keys``; with no keys
    (None) a plain one that verifies nothing and announces nothing. ``options`` go to
    MCPServer as they are (``extensions`` too: the verifier is added first, outermost)."""
    from mcp.server.mcpserver import MCPServer

    if keys is None:
        return MCPServer(name, **options)
    verifier = ApprovalVerifier(name, keys)
    extensions = [verifier, *options.pop("extensions", ())]
    server: MCPServer[Any] = MCPServer(name, extensions=extensions, **options)
    verifier.guard(server)
    return server
