"""A server asking the host for a language-model completion in the middle of a call
(``sampling/createMessage``).

As with elicitation (mcp_host/elicitation.py), the host only carries the request: whoever holds
the session pool decides how it is answered (a reviewer, then a model or the reviewer's own
text; a test). The pool hands every request to one ``SamplingHandler`` with the server's name,
and declares the sampling capability to servers only when a handler is there.

A request waits for a person, which takes minutes, not the seconds a call is given: while one
of a server's requests is with the handler, the time limits of that server's calls in flight
stand still (mcp_host/call_clocks.py), and the handler bounds the wait itself.
"""

from __future__ import annotations

from typing import Protocol

from mcp.types import CreateMessageRequestParams, CreateMessageResult, ErrorData

# The MCP specification's error code for a sampling request the user rejected (client/sampling,
# "Error Handling"). Every refusal by the host uses it: a reviewer's, an expired wait, a limit.
SAMPLING_REFUSED = -1


class SamplingHandler(Protocol):
    """Answers one server's request for a completion, or refuses it with ErrorData (the server
    gets the error); raising is a refusal too."""

    async def __call__(
        self, server: str, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData: ...
