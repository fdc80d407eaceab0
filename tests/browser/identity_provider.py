"""A real OpenID Connect provider on 127.0.0.1 for the sign-in tests, and signing in through it.

The provider is panva's oidc-provider (OpenID Certified), pinned in peers/package.json and
installed into .peers/npm by `make peers`, run by peers/oidc-provider.mjs. Its development login
page takes any login name: the subject (``sub``) it then vouches for, with the verified e-mail
address that name at example.com. Without node or the package the test is skipped with the command
that installs it, or fails when GATEHOUSE_REQUIRE_PEERS=1 or GATEHOUSE_REQUIRE_BROWSER=1 says the
sign-in must be tested (CI).
"""

from __future__ import annotations

import json
import secrets
import select
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest

from tests.browser.harness import (
    ROOT,
    START_SECONDS,
    browser_required,
    log_tail,
    sidebar,
    stop_process_tree,
    wait_for_app,
)
from tests.interop.peers import REQUIRE_PEERS_VARIABLE, peers_required

if TYPE_CHECKING:
    from playwright.sync_api import Page

SCRIPT = ROOT / "peers" / "oidc-provider.mjs"
PACKAGE = ROOT / ".peers" / "npm" / "node_modules" / "oidc-provider" / "package.json"
CLIENT_ID = "gatehouse"
# The domain of the e-mail address the provider gives a login name (peers/oidc-provider.mjs).
EMAIL_DOMAIN = "example.com"


@dataclass(frozen=True)
class IdentityProvider:
    issuer: str  # http://127.0.0.1:<port>
    client_id: str
    client_secret: str
    log: Path

    def auth_table(self, redirect_uri: str, cookie_secret: str) -> str:
        """The ``[auth]`` table of .streamlit/secrets.toml for an app signing in here,
        as docs/configuration.md shows it."""
        settings = {
            "redirect_uri": redirect_uri,
            "cookie_secret": cookie_secret,
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "server_metadata_url": f"{self.issuer}/.well-known/openid-configuration",
        }
        # JSON strings are valid TOML basic strings for these values (ASCII, no control characters).
        # Streamlit asks for prompt=select_account unless told otherwise, which this provider,
        # like others, refuses ("unsupported prompt value requested"): docs/configuration.md.
        return (
            "[auth]\n"
            + "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items())
            + 'client_kwargs = { prompt = "login" }\n'
        )


def _missing(reason: str) -> NoReturn:
    if peers_required() or browser_required():
        pytest.fail(f"{reason} ({REQUIRE_PEERS_VARIABLE}=1 or GATEHOUSE_REQUIRE_BROWSER=1)", pytrace=False)
    pytest.skip(reason)


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        _missing("node not found: the sign-in tests run an OpenID Connect provider on Node.js")
    if not PACKAGE.is_file():
        _missing(
            f"oidc-provider is not installed ({PACKAGE.relative_to(ROOT)} is missing): "
            "run `make peers` (it needs npm)"
        )
    return node


@contextmanager
def running_provider(folder: Path) -> Iterator[IdentityProvider]:
    """The provider on a free port of 127.0.0.1, with one client made for this run; stopped
    afterwards. Its log is ``folder``/oidc-provider.log."""
    node = _node()
    client_secret = secrets.token_urlsafe(24)
    log = folder / "oidc-provider.log"
    with log.open("wb") as errors:
        process = subprocess.Popen(
            [node, str(SCRIPT), CLIENT_ID, client_secret],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors, start_new_session=True,
        )  # fmt: skip
    try:
        issuer = _announced_issuer(process, log)
        yield IdentityProvider(issuer=issuer, client_id=CLIENT_ID, client_secret=client_secret, log=log)
    finally:
        stop_process_tree(process)
        assert process.stdout is not None
        process.stdout.close()


def _announced_issuer(process: subprocess.Popen[bytes], log: Path) -> str:
    """The issuer from the script's one line of output, written once it listens."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], START_SECONDS)
    line = process.stdout.readline() if ready else b""
    if not line:
        pytest.fail(f"the identity provider did not start; its log:\n{log_tail(log)}", pytrace=False)
    issuer: str = json.loads(line)["issuer"]
    return issuer


def sign_in(page: Page, provider: IdentityProvider, login: str) -> None:
    """Click the sidebar's Sign in, sign in at the provider as ``login`` (any password), agree
    to share the claims, and wait for the app's first run after the return."""
    from playwright.sync_api import expect

    sidebar(page).get_by_role("button", name="Sign in").click()
    login_name = page.get_by_placeholder("Enter any login")
    exception = page.get_by_test_id("stException")
    # Without a working sign-in the app shows an exception instead of leaving for the provider.
    expect(login_name.or_(exception)).to_be_visible()
    assert exception.count() == 0, f"Sign in failed in the app: {exception.first.inner_text()}"
    assert page.url.startswith(f"{provider.issuer}/"), page.url
    login_name.fill(login)
    page.get_by_placeholder("and password").fill("any password")
    page.get_by_role("button", name="Sign-in").click()
    page.get_by_role("button", name="Continue").click()  # the consent page
    expect(sidebar(page).get_by_text("Signed in as")).to_be_visible()
    wait_for_app(page)
