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
    assert lookalike.domain == "xn--exmple-4nf.com"
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


# -- a secret under another spelling (look-alike letters) or another name ---------------------


@pytest.mark.parametrize(
    "name",
    [
        "Pаssword",  # a Cyrillic "а"
        "Ｐａｓｓｗｏｒｄ",  # full-width letters
        "pass\u200bword",  # a zero-width space inside
        "pass\u00adword",  # a soft hyphen inside
        "ΡΑSSWΟRD",  # Greek capitals Rho, Alpha, Omicron
        "𝐏𝐚𝐬𝐬𝐰𝐨𝐫𝐝",  # mathematical bold
        "Pásswörd",  # accents
        "pa$$w0rd",  # symbols and digits for letters
        "ΑPI kеy",  # a Greek Alpha, a Cyrillic "е"
        "tοken",  # a Greek omicron
    ],
)
def test_a_secret_spelled_with_look_alike_letters_is_declined(name: str) -> None:
    spec: dict[str, object] = {"type": "string"}
    as_name = check_form(Elicitation(), SECRETS, "bank", "Sign in", form(**{name: spec}))
    as_title = check_form(
        Elicitation(), SECRETS, "bank", "Sign in", form(value={"type": "string", "title": name})
    )

    assert codes(as_name) == ["asks_for_secret"] and as_name.refusal is not None
    assert codes(as_title) == ["asks_for_secret"] and as_title.refusal is not None


@pytest.mark.parametrize(
    "properties",
    [
        {"pin": {"type": "string"}},
        {"cardPin": {"type": "string"}},
        {"value": {"type": "string", "title": "Card PIN"}},
        {"passphrase": {"type": "string"}},
        {"passcode": {"type": "string"}},
        {"otp": {"type": "string"}},
        {"oneTimeCode": {"type": "string"}},
        {"code": {"type": "string", "title": "2FA code"}},
        {"code": {"type": "string", "description": "The verification code from your authenticator"}},
        {"code": {"type": "string", "description": "Enter the 6-digit code we texted you"}},
        {"cvv": {"type": "string"}},
        {"CVC2": {"type": "string"}},
        {"value": {"type": "string", "title": "Security code (back of the card)"}},
        {"card_number": {"type": "string"}},
        {"recovery_code": {"type": "string"}},
        {"backupCodes": {"type": "string"}},
        {"words": {"type": "string", "title": "Seed phrase"}},
        {"mnemonic": {"type": "string"}},
        {"ssn": {"type": "string"}},
        {"value": {"type": "string", "title": "Social security number"}},
        {"private_key": {"type": "string"}},
        {"value": {"type": "string", "title": "Passwort"}},
        {"value": {"type": "string", "title": "Пароль"}},
        {"value": {"type": "string", "title": "Answer to your security question"}},
    ],
    ids=lambda p: "-".join(f"{k}:{v.get('title') or v.get('description') or ''}" for k, v in p.items()),
)
def test_a_form_asking_for_any_kind_of_secret_is_declined(properties: dict[str, dict[str, object]]) -> None:
    verdict = check_form(Elicitation(), SECRETS, "bank", "Confirm the payment", form(**properties))

    assert verdict.refusal is not None and "forbids" in verdict.refusal
    assert codes(verdict) == ["asks_for_secret"]


@pytest.mark.parametrize(
    ("message", "properties"),
    [
        ("Confirm", {"pin": {"type": "integer"}}),
        ("Confirm", {"cvv": {"type": "number", "minimum": 0, "maximum": 9999}}),
        ("Enter the one-time code we sent you", {"value": {"type": "integer"}}),
        ("Confirm", {"pin_digit_1": {"type": "string", "enum": [str(d) for d in range(10)]}}),
    ],
    ids=["integer PIN", "number CVV", "number under a question for a code", "a PIN digit by choice"],
)
def test_a_number_or_a_choice_that_carries_a_pin_or_a_code_is_declined(
    message: str, properties: dict[str, dict[str, object]]
) -> None:
    verdict = check_form(Elicitation(), SECRETS, "bank", message, form(**properties))

    assert codes(verdict) == ["asks_for_secret"]


def test_a_field_the_server_itself_marks_as_a_password_is_declined() -> None:
    specs: list[dict[str, object]] = [
        {"type": "string", "format": "password"},
        {"type": "string", "writeOnly": True},
    ]
    for spec in specs:
        verdict = check_form(Elicitation(), SECRETS, "bank", "Confirm", form(value=spec))
        assert codes(verdict) == ["asks_for_secret"], spec


@pytest.mark.parametrize(
    ("message", "properties"),
    [
        ("Where to?", {"shipping_address": {"type": "string"}}),
        ("Your view?", {"opinion": {"type": "string"}}),
        ("Where to?", {"zip_code": {"type": "string", "title": "ZIP code"}}),
        ("Where to?", {"postal_code": {"type": "string"}, "country_code": {"type": "string"}}),
        ("Discount?", {"promo": {"type": "string", "title": "Promo code"}}),
        ("How long?", {"max_tokens": {"type": "integer"}}),
        ("Pin it?", {"pinned": {"type": "boolean"}}),
        ("Which spin?", {"spin": {"type": "string", "enum": ["left", "right"]}}),
        ("Sign in with?", {"method": {"type": "string", "enum": ["password", "passkey"]}}),
        ("Which team?", {"team": {"type": "string", "description": "The team that maintains the pipeline"}}),
    ],
)
def test_ordinary_fields_that_resemble_secret_words_are_asked_without_a_flag(
    message: str, properties: dict[str, dict[str, object]]
) -> None:
    verdict = check_form(Elicitation(), SECRETS, "shop", message, form(**properties))

    assert (verdict.refusal, verdict.flags) == (None, [])


# -- the host a browser opens (WHATWG URL parsing) ----------------------------------------------


@pytest.mark.parametrize(
    ("url", "domain"),
    [
        ("https://evil.example\\@paypal.com/login", "evil.example"),
        ("https://evil.example\\.paypal.com/", "evil.example"),
        ("https:\\\\evil.example\\@paypal.com", "evil.example"),
        ("https:evil.example/@paypal.com", "evil.example"),
        ("https:///\\evil.example", "evil.example"),
        ("https://evil.ex\tample\n.net@pay\rpal.com/", "paypal.com"),
        ("\x00 https://evil.example/ \x1f", "evil.example"),
        ("https://user@bank.example.com@evil.example.net/", "evil.example.net"),
        ("https://paypal.com%2eevil.example/", "paypal.com.evil.example"),
        ("https://%65vil.example/", "evil.example"),
        ("https://EVIL.example.:443/", "evil.example."),
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://2130706433/", "127.0.0.1"),
        ("http://0177.0.0.01/", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://[0:0::1]/", "[::1]"),
        ("https://ｐａｙｐａｌ.com/", "paypal.com"),
        ("https://bücher.example/", "xn--bcher-kva.example"),
        ("https://faß.de/", "xn--fa-hia.de"),
    ],
)
def test_a_url_names_the_host_a_browser_opens(url: str, domain: str) -> None:
    verdict = check_url(Elicitation(), "crm", url)

    assert verdict.refusal is None
    assert verdict.domain == domain


def test_an_address_written_to_read_as_another_host_is_flagged() -> None:
    backslash = check_url(Elicitation(), "crm", "https://evil.example\\@paypal.com/login")
    assert codes(backslash) == ["misleading_url"]
    assert "evil.example" in backslash.flags[0].message and "backslash" in backslash.flags[0].message

    for url in (
        "https://evil.ex\tample.net/",
        "https://paypal.com%2eevil.example/",
        "http://0x7f.1/",
        "http://2130706433/",
    ):
        assert "misleading_url" in codes(check_url(Elicitation(), "crm", url)), url

    assert codes(check_url(Elicitation(), "crm", "https://127.0.0.1/")) == []


def test_a_punycode_domain_is_shown_in_ascii_with_how_it_reads() -> None:
    for url in ("https://pаypal.com/", "https://xn--pypal-4ve.com/"):  # a Cyrillic "а"; its ASCII form
        verdict = check_url(Elicitation(), "crm", url)
        assert verdict.domain == "xn--pypal-4ve.com", url
        assert codes(verdict) == ["unicode_domain"]
        assert "pаypal.com" in verdict.flags[0].message


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://256.256.256.256/", "host"),
        ("http://0x100000000/", "host"),
        ("http://1.2.3.4.5/", "host"),
        ("https://exa mple.com/", "host"),
        ("https://exa%20mple.com/", "host"),
        ("https://exa<mple.com/", "host"),
        ("https://example.com:99999/", "port"),
        ("https://example.com:8o/", "port"),
        ("https://[::1/", "host"),
        ("https://xn--a.com/", "host"),
        ("https://%/", "host"),
    ],
)
def test_an_address_a_browser_would_not_open_is_declined_saying_why(url: str, why: str) -> None:
    refusal = check_url(Elicitation(), "crm", url).refusal

    assert refusal is not None and refusal.startswith(
        "crm asked to open an address a browser would not open:"
    )
    assert why in refusal
