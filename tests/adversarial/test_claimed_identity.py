"""Someone claiming to be another user: through the address (``?as=admin``) where sign-in is
configured, and with a name that only looks like a roster name (``Admin``, ``admin `` with a
trailing space, a Cyrillic ``а``, a zero-width space) in local mode and at the services.

Local mode itself lets anyone pick any roster name: that is documented as a convenience, not
security. What must hold: with sign-in configured the address names nobody, and no spelling of a
name that is not exactly on the roster gets that name's role (nor slips past four-eyes as a
"different" person).

First tried: held. Kept as regression tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.web.literal import markdown_literal
from reviews.errors import NotPermittedError
from tests.app.test_app import (  # noqa: F401 (app_env, oidc_roster: fixtures)
    APP,
    AUTH_SECRETS,
    app_env,
    oidc_roster,
)
from tests.reviews.review_support import EMAIL_REQUEST, email_servers, services_for

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

LOOKALIKES = ["Admin", "admin ", "\u0430dmin", "admin\u200b", "ADMIN"]


def _opened(query: dict[str, str], *, user: dict[str, object] | None = None) -> AppTest:
    """A new browser session opened at an address with ``query``; signed in as ``user`` where
    sign-in is configured (``user`` given)."""
    app = AppTest.from_file(str(APP), default_timeout=60)
    if user is not None:
        app.secrets = dict(AUTH_SECRETS)
        app.user = user
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, app.exception
    return app


def _sidebar_captions(app: AppTest) -> list[str]:
    return [str(caption.value) for caption in app.sidebar.caption]


@pytest.mark.usefixtures("oidc_roster")
def test_with_sign_in_configured_the_address_names_nobody() -> None:
    signed_in = _opened(
        {"as": "admin"}, user={"is_logged_in": True, "email": "otto@example.com", "email_verified": True}
    )
    stranger = _opened({"as": "admin"}, user={"is_logged_in": False})

    assert any(
        markdown_literal("otto@example.com") in str(block.value) for block in signed_in.sidebar.markdown
    )
    assert "Role: operator" in _sidebar_captions(signed_in)
    assert not [s for s in signed_in.sidebar.selectbox if s.label == "You are"]
    assert [b.label for b in stranger.sidebar.button] == ["Sign in"]
    assert not stranger.chat_input
    assert not [caption for caption in _sidebar_captions(stranger) if caption.startswith("Role:")]


@pytest.mark.usefixtures("app_env")
@pytest.mark.parametrize("claimed", LOOKALIKES, ids=ascii)
def test_a_name_that_only_looks_like_a_roster_name_starts_no_session_as_it(claimed: str) -> None:
    opened = _opened({"as": claimed})

    assert opened.sidebar.selectbox(key="user").value == "operator"
    assert "Role: admin" not in _sidebar_captions(opened)


def test_a_lookalike_name_gets_no_role_at_the_services(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review = paused.final_output.review.id
        refusals = []
        for claimed in ["Reviewer", "reviewer ", "r\u0435viewer", "reviewer\u200b"]:
            with pytest.raises(NotPermittedError) as refused:
                services.reviews.decide(review, reviewer=claimed, approve=True)
            refusals.append(str(refused.value))
        # The requester under another spelling is not a second person for four-eyes.
        with pytest.raises(NotPermittedError, match="not in the policy's roster"):
            services.reviews.decide(review, reviewer="Operator", approve=True)
        assert services.ledger.require(review).status == "pending"
        assert services.policy.may_request("Operator") is False

    assert all("is not in the policy's roster" in refusal for refusal in refusals), refusals
