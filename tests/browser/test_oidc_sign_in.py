"""Signing in through a real OpenID Connect provider (tests/browser/identity_provider.py), with
``[auth]`` in .streamlit/secrets.toml as docs/configuration.md shows it: the person clicks Sign
in, signs in at the provider, and comes back named by the claim the provider vouches for
(gatehouse/credentials/oidc_identity.py), with the role the roster gives that name.

Behind HAProxy (docs/replicas.md), replicas that share ``[auth] cookie_secret`` keep a person
signed in when their next page load reaches another replica; replicas with secrets of their own
do not, which shows the first case measures the shared secret and not the proxy.

These drive Streamlit's own sign-in (st.login), which needs Authlib: without it the Sign in
button shows an exception instead of the provider's page.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.harness import (
    ROOT,
    free_port,
    new_page,
    no_exception,
    running_app,
    sidebar,
    visit,
)
from tests.browser.identity_provider import (
    EMAIL_DOMAIN,
    IdentityProvider,
    running_provider,
    sign_in,
)
from tests.browser.proxy import COOKIE, REPLICAS, replica_of, running_proxy

# The roster beside the shipped policy's: a verified address, and a provider-assigned subject.
# The provider gives each login name both; only the claim the rules choose may name the person,
# so grace's subject and otto's address are not on it.
GRACE = f"grace@{EMAIL_DOMAIN}"
OTTO = "otto"
ROSTER = {GRACE: "reviewer", OTTO: "operator"}


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IdentityProvider]:
    with running_provider(tmp_path_factory.mktemp("identity-provider")) as running:
        yield running


@pytest.fixture
def roster_policy(tmp_path: Path) -> Path:
    """The shipped policy with the identity provider's names on its roster."""
    users = "".join(f'"{name}" = "{role}"\n' for name, role in ROSTER.items())
    policy = (
        (ROOT / "policies" / "default.toml")
        .read_text(encoding="utf-8")
        .replace("[users]\n", f"[users]\n{users}")
    )
    path = tmp_path / "policy.toml"
    path.write_text(policy, encoding="utf-8")
    return path


def _always(text: str) -> Callable[[str], str]:
    """The same secrets.toml text whatever the replica's own address (behind the proxy, the
    redirect address is the proxy's)."""
    return lambda _url: text


def expect_signed_in_as(page: Page, name: str, role: str) -> None:
    expect(sidebar(page).get_by_text("Signed in as")).to_have_text(f"Signed in as {name}")
    expect(sidebar(page).get_by_text("Role:")).to_have_text(f"Role: {role}")
    expect(sidebar(page).get_by_role("button", name="Sign out")).to_be_visible()
    no_exception(page)


@pytest.mark.parametrize(
    ("identity_table", "login", "named"),
    [
        pytest.param("", "grace", GRACE, id="verified-email"),
        pytest.param('[identity]\nclaim = "sub"\n', "otto", OTTO, id="configured-claim"),
    ],
)
def test_a_person_signs_in_at_the_identity_provider_and_the_page_names_them_by_the_roster(
    browser: Browser,
    provider: IdentityProvider,
    roster_policy: Path,
    tmp_path: Path,
    identity_table: str,
    login: str,
    named: str,
) -> None:
    def secrets_for(url: str) -> str:
        return provider.auth_table(f"{url}/oauth2callback", secrets.token_urlsafe(32)) + identity_table

    with running_app(
        tmp_path / "app", extra_env={"GATEHOUSE_POLICY": str(roster_policy)}, secrets=secrets_for
    ) as app:
        page = new_page(browser)
        try:
            visit(page, app.url)
            expect(sidebar(page).get_by_text("Signed in as")).to_have_count(0)
            sign_in(page, provider, login)
            expect_signed_in_as(page, named, ROSTER[named])
        finally:
            page.context.close()


@pytest.mark.parametrize(
    ("shared_secret", "stays_signed_in"),
    [
        pytest.param(True, True, id="shared-cookie-secret"),
        pytest.param(False, False, id="own-cookie-secrets"),
    ],
)
def test_behind_the_proxy_a_person_signed_in_on_one_replica_is_signed_in_on_the_other_when_they_share_the_cookie_secret(
    browser: Browser,
    provider: IdentityProvider,
    roster_policy: Path,
    tmp_path: Path,
    shared_secret: bool,
    stays_signed_in: bool,
) -> None:
    database = tmp_path / "shared" / "gatehouse.db"
    database.parent.mkdir()
    proxy_port = free_port()
    proxy_url = f"http://127.0.0.1:{proxy_port}"
    # The whole [auth] table is shared (docs/replicas.md), its redirect_uri the proxy's address;
    # only the cookie secret differs in the second case.
    common = secrets.token_urlsafe(32)
    auth = {
        name: provider.auth_table(
            f"{proxy_url}/oauth2callback", common if shared_secret else secrets.token_urlsafe(32)
        )
        for name in REPLICAS
    }
    env = {"GATEHOUSE_POLICY": str(roster_policy)}
    with ExitStack() as stack:
        replicas = {
            name: stack.enter_context(
                running_app(tmp_path / name, db_url=str(database), extra_env=env, secrets=_always(auth[name]))
            )
            for name in REPLICAS
        }
        stack.enter_context(running_proxy(tmp_path, replicas, port=proxy_port))
        page = new_page(browser)
        stack.callback(page.context.close)

        visit(page, proxy_url)
        signed_in_on = replica_of(page)
        sign_in(page, provider, "grace")
        expect_signed_in_as(page, GRACE, "reviewer")
        assert replica_of(page) == signed_in_on  # the return from the provider came back to it

        # The next page load goes to the other replica, as when the proxy moves a person whose
        # replica stopped: the sticky cookie names it.
        [other] = [name for name in REPLICAS if name != signed_in_on]
        page.context.add_cookies([{"name": COOKIE, "value": other, "url": proxy_url}])
        visit(page, proxy_url)
        assert replica_of(page) == other

        if stays_signed_in:
            expect_signed_in_as(page, GRACE, "reviewer")
        else:
            expect(sidebar(page).get_by_role("button", name="Sign in")).to_be_visible()
            expect(sidebar(page).get_by_text("Signed in as")).to_have_count(0)
            no_exception(page)
