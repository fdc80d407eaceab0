"""A person signs in from a terminal: the browser comes back to 127.0.0.1 (RFC 8252 §7.3).

``gatehouse servers login NAME`` prints the authorization URL; the person opens it, signs in,
and the authorization server redirects the browser to ``http://127.0.0.1:PORT/callback`` with
the code, where this listener takes it and answers with a page saying the terminal can take
over. The port is the entry's ``oauth.callbackPort`` (33418 by default), fixed so the client
registered on the first sign-in keeps working. Only the loopback interface listens, and only
for as long as one sign-in takes. Any local process, and any web page (an ``<img>``), can send
the browser to that address too; only a return carrying this sign-in's ``state``, which only the
authorization server was given, counts: anything else is answered and ignored, and the terminal
keeps waiting.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

from mcp.shared.auth import AuthorizationCodeResult

from mcp_host.reported import SignInError

_PAGE = (
    "<!doctype html><meta charset=utf-8><title>Gatehouse</title>"
    "<p style='font-family:sans-serif'>{message} You can close this tab and return to the terminal.</p>"
)


class SignInListenerError(SignInError, RuntimeError):
    """The loopback port cannot be used, or the browser came back with an error."""


class LoopbackAuthorizer:
    """mcp_host.oauth.Authorizer for a person at a terminal."""

    def __init__(self, port: int, show: Callable[[str, str], None], *, timeout: float = 300.0) -> None:
        """``show(server, url)`` tells the person where to sign in (the CLI prints it)."""
        self._port = port
        self._show = show
        self._timeout = timeout

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self._port}/callback"

    async def authorize(self, server: str, authorization_url: str) -> AuthorizationCodeResult:
        state = _only(parse_qs(urlsplit(authorization_url).query).get("state", []))
        if not state:
            # Without it, any page or process could end this sign-in with a code of its own.
            raise SignInListenerError(
                f"the authorization address for {server} carries no state (or several), so its "
                "return cannot be told from anyone else's request to 127.0.0.1; not listening"
            )
        returned: asyncio.Future[dict[str, str]] = asyncio.get_running_loop().create_future()

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                query = await _return_of(reader, writer, server, state)
                if query is not None and not returned.done():
                    returned.set_result(query)
            except (TimeoutError, ConnectionError):
                return
            finally:
                writer.close()

        try:
            listener = await asyncio.start_server(handle, "127.0.0.1", self._port)
        except OSError as exc:
            raise SignInListenerError(
                f"cannot listen on 127.0.0.1:{self._port} for the sign-in's return ({exc.strerror or exc}); "
                f"set oauth.callbackPort for {server} in the servers file to a free port"
            ) from None
        async with listener:
            self._show(server, authorization_url)
            try:
                query = await asyncio.wait_for(returned, self._timeout)
            except TimeoutError:
                raise SignInListenerError(
                    f"no sign-in to {server} came back within {self._timeout:g} seconds"
                ) from None
        if "error" in query:
            detail = query.get("error_description") or query["error"]
            raise SignInListenerError(f"the authorization server refused the sign-in to {server}: {detail}")
        return AuthorizationCodeResult(code=query["code"], state=state, iss=query.get("iss"))


async def _return_of(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, server: str, state: str
) -> dict[str, str] | None:
    """Answer one request to the listener; the query when it is this sign-in's return (its
    ``state``, and a code or an error), None for anything else, which changes nothing."""
    request_line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
    parts = request_line.split()
    target = urlsplit(parts[1]) if len(parts) >= 2 else None
    if target is None or target.path != "/callback":
        await _answer(writer, 404, "Not the sign-in address.")
        return None
    values = parse_qs(target.query)
    returned_state = _only(values.get("state", []))
    # Only the authorization server was given the state (in the address the terminal printed):
    # a request without it comes from someone else, whatever code or error it carries.
    if returned_state is None or not hmac.compare_digest(returned_state.encode(), state.encode()):
        await _answer(writer, 400, "This is not this sign-in's return; the terminal is still waiting.")
        return None
    query = {key: found[0] for key, found in values.items()}
    if "error" in query:
        await _answer(writer, 400, f"The sign-in to {_html(server)} was refused.")
    elif "code" in query:
        await _answer(writer, 200, f"Signed in to {_html(server)}.")
    else:
        await _answer(writer, 400, "The address carries no sign-in code.")
        return None
    return query


def _only(values: list[str]) -> str | None:
    """The one value of a query parameter; None when it is absent, empty, or given twice."""
    return values[0] if len(values) == 1 and values[0] else None


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


async def _answer(writer: asyncio.StreamWriter, status: int, message: str) -> None:
    body = _PAGE.format(message=message).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    await writer.drain()
