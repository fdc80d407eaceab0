"""Who a person signed in through the identity provider (OIDC) is, from the claims it signed.

A claim names someone only when the provider vouches for it. Many providers let anyone register
an account with any e-mail address and any display name, so ``name``, ``preferred_username`` and
an ``email`` the provider has not verified say what the person typed, not who they are: a
display name ``admin`` or an unproved ``grace@example.com`` must never become that roster entry.
So the user name is the ``email`` claim only with ``email_verified`` true, or, when
``.streamlit/secrets.toml`` sets ``[identity] claim`` (e.g. ``sub``, which the provider assigns
and never lets a person choose), that claim's value. Anything else refuses the sign-in.
"""

from __future__ import annotations

from collections.abc import Mapping

from gatehouse.errors import ConfigurationError
from mcp_host.reported import SignInError

EMAIL = "email"
# The secrets.toml table and key that choose another claim than the verified e-mail address.
CONFIG_TABLE = "identity"
CONFIG_KEY = "claim"
# Where the app's choice is set, for messages; `gatehouse serve` names its own setting for the
# access tokens an authorization server issues (gatehouse/gateway/issuer_tokens.py).
APP_SETTING = f".streamlit/secrets.toml [{CONFIG_TABLE}] {CONFIG_KEY}"
# Standard claims (OpenID Connect Core 5.1) that the person edits at the provider, or that many
# people share: none of them may identify anyone.
SELF_ASSERTED = frozenset(
    {
        "name",
        "given_name",
        "family_name",
        "middle_name",
        "nickname",
        "preferred_username",
        "profile",
        "picture",
        "website",
        "gender",
        "birthdate",
        "zoneinfo",
        "locale",
        "phone_number",
        "address",
        "updated_at",
    }
)


class SignInRefused(SignInError):
    """The provider signed the person in, but no claim it vouches for names them."""


def identity_claim(configured: object, setting: str = APP_SETTING) -> str:
    """The claim that names people: ``configured`` (the ``setting``, None when absent), else
    the verified e-mail address. Raises ConfigurationError, naming ``setting``, for a claim a
    person chooses for themselves."""
    if configured is None:
        return EMAIL
    if not isinstance(configured, str) or not configured.strip():
        raise ConfigurationError(f"{setting}: expected a claim's name, got {configured!r}")
    claim = configured.strip()
    if claim in SELF_ASSERTED:
        raise ConfigurationError(
            f"{setting} = {claim!r}: people choose that claim's value "
            "themselves at the identity provider, so it cannot identify anyone; use a claim the "
            f"provider assigns, such as 'sub', or leave it out for the verified {EMAIL!r}"
        )
    return claim


def signed_in_user(claims: Mapping[str, object], claim: str = EMAIL, setting: str = APP_SETTING) -> str:
    """The user name ``claims`` (the provider's signed claims) give under ``claim``; raises
    SignInRefused, saying why (and that ``setting`` chooses another claim), when the provider
    does not vouch for one."""
    if claim == EMAIL:
        return _verified_email(claims, setting)
    value = claims.get(claim)
    if not isinstance(value, str) or not value.strip():
        raise SignInRefused(
            f"the identity provider's sign-in has no {claim!r} claim, which is what identifies people here"
        )
    return value


def _verified_email(claims: Mapping[str, object], setting: str) -> str:
    email = claims.get(EMAIL)
    if not isinstance(email, str) or not email.strip():
        raise SignInRefused(
            "the identity provider gave no e-mail address, and only a verified address identifies "
            f"people here (or the claim set as {setting})"
        )
    if not _is_true(claims.get("email_verified")):
        raise SignInRefused(
            f"the identity provider gave the e-mail address {email!r} but does not say it is "
            "verified (email_verified), and an address nobody proved identifies nobody"
        )
    return email


def _is_true(flag: object) -> bool:
    # Some providers' userinfo sends the JSON string "true" (Amazon Cognito); nothing else counts.
    return flag is True or (isinstance(flag, str) and flag.strip().lower() == "true")
