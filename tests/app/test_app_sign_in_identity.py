"""Who a person signed in through the identity provider is: only a claim the provider vouches
for (a verified e-mail address, or the claim configured under ``[identity]``) names them; any
other sign-in is refused with a page that says why, and the person is nobody."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.web.literal import markdown_literal
from tests.app.test_app import (
    APP,
    AUTH_SECRETS,
    EMAIL,
    app_env,
    ask,
    button,
    oidc_roster,
    on_page,
    outbox,
    signed_in_session,
)
from tests.app.test_app_secrets import everything_shown

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

__all__ = ["app_env", "oidc_roster"]  # the fixtures, imported so pytest finds them here

DECISIONS = {"Approve", "Reject", "Approve with my changes"}


def signed_in_with(secrets: Mapping[str, object], user: dict[str, object]) -> AppTest:
    """A session signed in as ``user`` under these .streamlit/secrets.toml tables."""
    app = AppTest.from_file(str(APP), default_timeout=60)
    app.secrets = dict(secrets)
    app.user = user
    app.run()
    assert not app.exception, app.exception
    return app


def assert_refused_as_nobody(app: AppTest, why: str) -> None:
    """The sign-in is refused on a page of its own: it says why, offers to sign out, and no
    page (chat, reviews) runs for this person."""
    [refusal] = [box.value for box in app.error if "Your sign-in is refused" in box.value]
    assert markdown_literal(why) in refusal
    assert [b.label for b in app.button] == ["Sign out"]
    assert not app.chat_input
    assert not [caption for caption in app.sidebar.caption if "Role:" in caption.value]
    assert not [text for text in app.markdown if "Signed in as" in text.value]


def test_a_display_name_that_is_a_roster_name_identifies_nobody(oidc_roster: Path) -> None:
    # The provider lets anyone choose their display name; "admin" is a name on the roster.
    app = signed_in_session({"is_logged_in": True, "name": "admin"})

    assert_refused_as_nobody(app, "gave no e-mail address")


def test_an_unverified_email_address_identifies_nobody(oidc_roster: Path) -> None:
    # A self-registered account at the provider, claiming a reviewer's address it never proved.
    for verified in ({}, {"email_verified": False}, {"email_verified": "false"}, {"email_verified": None}):
        app = signed_in_session(
            {"is_logged_in": True, "email": "grace@example.com", "name": "admin"} | verified
        )
        assert_refused_as_nobody(app, "does not say it is verified")
        assert markdown_literal("grace@example.com") in everything_shown(app)


def test_an_unverified_address_cannot_decide_a_review(oidc_roster: Path) -> None:
    operator = signed_in_session({"is_logged_in": True, "email": "otto@example.com", "email_verified": True})
    ask(operator, EMAIL)
    impostor = signed_in_session({"is_logged_in": True, "email": "grace@example.com"})

    on_page(impostor, "review_queue")

    assert not [b.label for b in impostor.button if b.label in DECISIONS]
    assert outbox(oidc_roster) == []


def test_a_configured_claim_identifies_the_person_by_the_roster(oidc_roster: Path) -> None:
    policy = oidc_roster.parent / "policy.toml"
    policy.write_text(
        policy.read_text(encoding="utf-8").replace("[users]\n", '[users]\n"00u1grace" = "reviewer"\n'),
        encoding="utf-8",
    )
    by_subject = AUTH_SECRETS | {"identity": {"claim": "sub"}}
    operator = signed_in_session({"is_logged_in": True, "email": "otto@example.com", "email_verified": True})
    ask(operator, EMAIL)

    # The address is not what identifies people here: the subject is.
    reviewer = signed_in_with(
        by_subject,
        {"is_logged_in": True, "sub": "00u1grace", "email": "otto@example.com", "email_verified": True},
    )
    assert any("Role: reviewer" in caption.value for caption in reviewer.sidebar.caption)
    on_page(reviewer, "review_queue")
    button(reviewer, "Approve").click().run()

    assert len(outbox(oidc_roster)) == 1


def test_a_sign_in_without_the_configured_claim_is_refused(oidc_roster: Path) -> None:
    by_subject = AUTH_SECRETS | {"identity": {"claim": "sub"}}

    app = signed_in_with(
        by_subject, {"is_logged_in": True, "email": "grace@example.com", "email_verified": True}
    )

    assert_refused_as_nobody(app, "no 'sub' claim")


def test_a_claim_people_choose_for_themselves_cannot_be_configured(oidc_roster: Path) -> None:
    by_name = AUTH_SECRETS | {"identity": {"claim": "preferred_username"}}

    app = signed_in_with(by_name, {"is_logged_in": True, "preferred_username": "admin"})

    [problem] = [box.value for box in app.error]
    assert markdown_literal("[identity] claim") in problem
    assert markdown_literal("preferred_username") in problem
    assert not app.chat_input
    assert not [caption for caption in app.sidebar.caption if "Role:" in caption.value]
