"""What the policy says about a server's question: refused servers, forms asking for secrets
(the one list of secret names Gatehouse hides elsewhere), and the domain a URL really leads to."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_host.elicitation import FormField, form_fields
from policies.loader import PolicyError, load_policy
from policies.model import Elicitation
from policies.questions import QuestionVerdict, check_form, check_url
from policies.secrets import SecretRedactor

SECRETS = SecretRedactor()


def form(**properties: dict[str, object]) -> list[FormField]:
    return form_fields({"type": "object", "properties": properties})


def codes(verdict: QuestionVerdict) -> list[str]:
    return [flag.code for flag in verdict.flags]


@pytest.mark.parametrize(
    "properties",
    [
        {"password": {"type": "string"}},
        {"apiKey": {"type": "string"}},
        {"value": {"type": "string", "title": "Access token"}},
        {"value": {"type": "string", "description": "Your GitHub personal access token"}},
    ],
    ids=["name", "camel-case name", "title", "description"],
)
def test_a_free_text_field_asking_for_a_secret_is_declined_by_default(
    properties: dict[str, dict[str, object]],
) -> None:
    verdict = check_form(Elicitation(), SECRETS, "git", "Sign in", form(**properties))

    assert verdict.refusal is not None and "forbids" in verdict.refusal
    assert codes(verdict) == ["asks_for_secret"]


def test_asked_with_a_warning_when_the_policy_says_ask() -> None:
    verdict = check_form(
        Elicitation(secret_forms="ask"), SECRETS, "git", "Sign in", form(password={"type": "string"})
    )

    assert verdict.refusal is None
    assert codes(verdict) == ["asks_for_secret"]


def test_a_question_naming_a_secret_over_a_free_text_field_counts_too() -> None:
    verdict = check_form(
        Elicitation(), SECRETS, "git", "Paste your API key below", form(value={"type": "string"})
    )

    assert codes(verdict) == ["asks_for_secret"]


def test_numbers_yes_no_and_choices_cannot_carry_a_secret_and_plain_forms_pass() -> None:
    fields = form(
        max_tokens={"type": "integer"},
        token_alerts={"type": "boolean"},
        auth={"type": "string", "enum": ["oauth", "none"]},
        city={"type": "string", "description": "Where you are"},
    )

    verdict = check_form(Elicitation(), SECRETS, "shop", "Which city?", fields)
    assert (verdict.refusal, verdict.flags) == (None, [])


def test_the_policys_own_secret_names_count() -> None:
    verdict = check_form(
        Elicitation(), SecretRedactor(["*pin*"]), "bank", "Confirm", form(card_pin={"type": "string"})
    )

    assert codes(verdict) == ["asks_for_secret"]


def test_a_refused_server_is_declined_whatever_it_asks() -> None:
    rules = Elicitation(refuse_servers=["legacy-*"])

    assert check_form(rules, SECRETS, "legacy-crm", "Name?", form(name={"type": "string"})).refusal
    assert check_url(rules, "legacy-crm", "https://crm.example.com/").refusal
    assert check_url(rules, "crm", "https://crm.example.com/").refusal is None


def test_a_url_shows_the_domain_it_really_leads_to_with_flags_for_what_could_mislead() -> None:
    plain = check_url(Elicitation(), "crm", "https://CRM.example.com/login?next=/")
    assert (plain.domain, plain.flags) == ("crm.example.com", [])

    disguised = check_url(Elicitation(), "crm", "http://bank.example.com@evil.example.net/login")
    assert disguised.domain == "evil.example.net"
    assert codes(disguised) == ["insecure_url", "url_credentials"]

    lookalike = check_url(Elicitation(), "crm", "https://exаmple.com/")  # a Cyrillic "а"
    assert codes(lookalike) == ["unicode_domain"]
    assert "xn--exmple-4nf.com" in lookalike.flags[0].message


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi", "https://"]
)
def test_anything_but_a_web_address_with_a_host_is_declined(url: str) -> None:
    assert (
        check_url(Elicitation(), "crm", url).refusal
        == "crm asked to open something that is not a web address"
    )


def test_the_policy_file_takes_the_elicitation_settings_and_names_a_wrong_one(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[elicitation]\nrefuse_servers = ["x"]\ntimeout_seconds = 60\nsecret_forms = "ask"\n')
    assert load_policy(good).elicitation == Elicitation(
        refuse_servers=["x"], timeout_seconds=60, secret_forms="ask"
    )

    bad = tmp_path / "bad.toml"
    bad.write_text('[elicitation]\nsecret_forms = "always"\n')
    with pytest.raises(PolicyError, match=r"elicitation\.secret_forms"):
        load_policy(bad)
