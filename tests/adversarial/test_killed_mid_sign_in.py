"""Attack: kill -9 `gatehouse servers login` after it printed the authorization address and
before the browser came back, then sign in again while the old sign-in's return arrives late.

The server is tests/oauth_server.py (OAuth 2.1 with dynamic registration; it approves every
authorization at once). Expected: the killed sign-in leaves nothing that breaks the next one;
the server shows "needs sign-in" until then; the old sign-in's return (its ``state``), coming
back to the new sign-in's loopback listener, is refused there and does not end the new
sign-in, which then succeeds.

First tried: the defect. The killed sign-in left only its client registration (reused by the
next one) and the server showed "needs sign-in" (held), but the loopback listener took the
first return carrying a code, whatever its ``state``: the old sign-in's late return (or any
local page requesting ``http://127.0.0.1:PORT/callback?code=x``) was answered "Signed in" and
ended the new sign-in with the SDK's state mismatch. Now a return whose ``state`` is not the
one this sign-in sent is answered 400 and the listener goes on waiting.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from cryptography.fernet import Fernet

from tests.http_servers import REPO_ROOT, free_port, serving
from tests.reviews.review_support import finish

pytestmark = pytest.mark.processes


@dataclass(frozen=True)
class Notes:
    servers: Path
    callback_port: int
    env: dict[str, str]

    def gatehouse(self, *args: str, new_session: bool = False) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "gatehouse.cli", *args, "--servers", str(self.servers)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=self.env,
            cwd=REPO_ROOT,
            start_new_session=new_session,
        )


@pytest.fixture
def notes(tmp_path: Path) -> Iterator[Notes]:
    """The OAuth-protected test server in a servers file, a data folder and a credentials key."""
    with serving("tests.oauth_server") as port:
        callback_port = free_port()
        entry = {
            "type": "http",
            "url": f"http://127.0.0.1:{port}/mcp",
            "oauth": {"callbackPort": callback_port},
        }
        servers = tmp_path / "servers.json"
        servers.write_text(json.dumps({"mcpServers": {"notes": entry}}), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GATEHOUSE_")}
        env |= {
            "GATEHOUSE_DATA": str(tmp_path / "data"),
            "GATEHOUSE_SECRET_KEY": Fernet.generate_key().decode(),
        }
        yield Notes(servers, callback_port, env)


def _address_shown(login: subprocess.Popen[str]) -> str:
    """Read the login's output up to the authorization address it prints; return it."""
    assert login.stdout is not None
    for line in login.stdout:
        if line.strip().startswith("http"):
            return line.strip()
    raise AssertionError(f"the login printed no address: {finish(login)}")


def _state(address: str) -> str:
    return parse_qs(urlsplit(address).query)["state"][0]


def _check(notes: Notes) -> str:
    return finish(notes.gatehouse("servers", "check"), timeout=120)[1]


def test_a_sign_in_killed_before_the_return_leaves_nothing_that_breaks_the_next_and_its_late_return_is_refused(
    notes: Notes,
) -> None:
    killed = notes.gatehouse("servers", "login", "notes", "--timeout", "60", new_session=True)
    old_address = _address_shown(killed)
    os.killpg(killed.pid, signal.SIGKILL)
    finish(killed, timeout=30)
    assert "needs sign-in" in _check(notes)

    login = notes.gatehouse("servers", "login", "notes", "--timeout", "60", new_session=True)
    try:
        address = _address_shown(login)
        assert _state(address) != _state(old_address)
        # The person finishes the old sign-in in the browser: the authorization server sends it
        # back, with the old state and a real code, to the loopback port the new login listens on.
        late = httpx2.get(old_address, follow_redirects=True, timeout=20)
        assert late.status_code == 400, late.text
        assert "Signed in" not in late.text
        # So does a local page asking for the return address with a made-up code or error.
        for query in ("code=forged&state=guess", "error=access_denied&state=guess", "code=forged"):
            stray = httpx2.get(f"http://127.0.0.1:{notes.callback_port}/callback?{query}", timeout=20)
            assert stray.status_code == 400, (query, stray.text)
        assert login.poll() is None, "the new sign-in ended on a return that was not its own"

        page = httpx2.get(address, follow_redirects=True, timeout=20)
        assert page.status_code == 200 and "Signed in to notes" in page.text
        code, output, _ = finish(login, timeout=60)
    finally:
        if login.poll() is None:
            os.killpg(login.pid, signal.SIGKILL)
            finish(login, timeout=30)

    assert code == 0, output
    assert "Signed in to notes: connected, 1 tool, 0 prompts, 0 resources" in output
    assert "ok    notes" in _check(notes)
