"""Which of the identity provider's claims name a person: a verified e-mail address, or the
configured claim; never a display name, never an address nobody proved."""

from __future__ import annotations

import pytest

from gatehouse.credentials.oidc_identity import SignInRefused, identity_claim, signed_in_user
from gatehouse.errors import ConfigurationError


def test_a_verified_email_address_is_the_user_name() -> None:
    assert signed_in_user({"email": "grace@example.com", "email_verified": True}) == "grace@example.com"
    # Amazon Cognito's userinfo sends the flag as a string.
    assert signed_in_user({"email": "grace@example.com", "email_verified": "true"}) == "grace@example.com"


@pytest.mark.parametrize("verified", [False, "false", "yes", 1, None, "", [True]])
def test_an_email_address_the_provider_does_not_call_verified_names_nobody(verified: object) -> None:
    with pytest.raises(SignInRefused, match=r"'grace@example\.com' but does not say it is verified"):
        signed_in_user({"email": "grace@example.com", "email_verified": verified, "name": "grace"})


@pytest.mark.parametrize("claims", [{"name": "admin"}, {"preferred_username": "admin"}, {"email": " "}, {}])
def test_without_an_email_address_no_other_claim_stands_in(claims: dict[str, object]) -> None:
    with pytest.raises(SignInRefused, match="gave no e-mail address"):
        signed_in_user(claims | {"email_verified": True})


def test_a_configured_claim_names_the_person_and_the_address_does_not() -> None:
    claims = {"sub": "00u1grace", "email": "admin@example.com", "email_verified": True}
    assert signed_in_user(claims, identity_claim("sub")) == "00u1grace"


@pytest.mark.parametrize("value", [None, "", 42])
def test_a_sign_in_without_the_configured_claim_is_refused(value: object) -> None:
    with pytest.raises(SignInRefused, match="no 'sub' claim"):
        signed_in_user({"sub": value, "email": "grace@example.com", "email_verified": True}, "sub")


def test_without_a_configured_claim_the_verified_email_address_names_people() -> None:
    assert identity_claim(None) == "email"
    # Configured as the address, the address still has to be verified.
    with pytest.raises(SignInRefused, match="does not say it is verified"):
        signed_in_user({"email": "grace@example.com"}, identity_claim("email"))


@pytest.mark.parametrize("claim", ["name", "preferred_username", "nickname", " given_name "])
def test_a_claim_people_choose_for_themselves_cannot_be_configured(claim: str) -> None:
    with pytest.raises(ConfigurationError, match=r"\[identity\] claim = '\w+': people choose that claim"):
        identity_claim(claim)


@pytest.mark.parametrize("claim", ["", "  ", 7, ["sub"]])
def test_a_configured_claim_must_be_a_name(claim: object) -> None:
    with pytest.raises(ConfigurationError, match=r"\[identity\] claim: expected a claim's name"):
        identity_claim(claim)
