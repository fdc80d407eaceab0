"""What the policy says about a question a server asks during a call (MCP elicitation).

- A server the policy lists under ``[elicitation] refuse_servers`` is declined without asking.
- A form must fit the protocol's restricted schema (mcp_host/elicitation.py), or nobody could
  fill it in: declined.
- A form that asks for a secret is flagged ``asks_for_secret``: the protocol forbids asking for
  passwords, tokens, API keys or payment credentials in form mode (a server sends the person
  to a page of its own for that, in URL mode), and what is typed into a form passes through
  the host. Which fields could hold one is ``secret_fields`` (below): the one list of secret
  names the rest of Gatehouse hides (policies/secrets.py and the policy's ``[audit]
  redact_arguments``) and a wider list (PINs, one-time and verification codes, CVVs, recovery
  codes, seed phrases, ...), compared after folding look-alike letters (policies/lookalikes.py),
  in a field's name, title or description or in the question. A yes/no cannot carry one.
  ``secret_forms`` says whether such a form is declined (the default) or asked with the flag;
  then those fields are typed unseen and their answers never stored in clear
  (reviews/asking.py).
- A URL must be a web address (http or https) with a host, read as a browser reads it
  (policies/web_address.py), or it is declined; so is one a browser would refuse. The person
  sees the host the browser opens (never the server's words about it), and flags:
  ``insecure_url`` (plain http), ``url_credentials`` (a user name or password before the
  host, which can make another domain look like the destination), ``misleading_url`` (a
  backslash, dropped tabs, a percent-escaped host, a number for a host in an unusual form)
  and ``unicode_domain`` (letters that can imitate another domain's: the host is shown in
  ASCII, and how it reads in Unicode beside it).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

from mcp_host.elicitation import FormField
from policies.decision import Flag
from policies.lookalikes import fold, unleet
from policies.model import Elicitation
from policies.secrets import SecretRedactor
from policies.web_address import AddressError, WebAddress, parse_web_address


@dataclass(frozen=True)
class QuestionVerdict:
    """Refused (with the reason the audit log keeps), or asked with these flags."""

    refusal: str | None = None
    flags: list[Flag] = field(default_factory=list)
    # URL mode: the host the address leads to, as the person is shown it.
    domain: str | None = None


def refuses_server(rules: Elicitation, server: str) -> bool:
    return any(fnmatch.fnmatchcase(server, glob) for glob in rules.refuse_servers)


def check_form(
    rules: Elicitation, secrets: SecretRedactor, server: str, message: str, fields: list[FormField]
) -> QuestionVerdict:
    if refuses_server(rules, server):
        return QuestionVerdict(refusal=f"the policy declines questions from {server}")
    asking = secret_fields(secrets, message, fields)
    if not asking:
        return QuestionVerdict()
    flag = Flag(
        code="asks_for_secret",
        severity="high",
        message=(
            f"{server} asks for what looks like a secret ({', '.join(asking)}) in a form; the protocol "
            "forbids that (a secret belongs on a page of the service itself, not in a form that passes "
            "through Gatehouse)"
        ),
    )
    if rules.secret_forms == "decline":
        return QuestionVerdict(refusal=flag.message, flags=[flag])
    return QuestionVerdict(flags=[flag])


# -- which fields could hold a secret ------------------------------------------------------------
#
# Any field that takes text, a number or a choice can carry a secret when it is asked for one
# (a PIN is a number; a choice of ten digits, four times, is a PIN too). A yes/no cannot.
#
# What counts as asking for one, compared after folding look-alike letters (policies/lookalikes.py):
# - the one list of secret names Gatehouse hides everywhere (policies/secrets.py, and the
#   policy's ``[audit] redact_arguments``), for fields that take text;
# - _SECRETS below, for fields that take text: passwords in other words and languages, answers
#   to security questions, seed phrases, card numbers, social security numbers;
# - _CODES below, for every field that can carry one: PINs, one-time and verification codes,
#   card security codes (CVV), recovery and backup codes;
# - a field the server itself marks as hidden (``format: password``, ``writeOnly``).
# The question's own words count for every field they could be about: "Enter the code we sent
# you" above a number field asks for that code.
#
# Words are compared whole (``pin`` is not in ``shipping``; ``code`` alone, as in "ZIP code",
# is nothing); a name of several words may be run together (``oneTimeCode``, ``recoverycode``).

_CODES = (
    "pin", "pin code", "pin number", "passcode", "pass code", "otp", "totp", "hotp", "one time code",
    "one time password", "one time passcode", "one time pin", "2fa", "mfa", "two factor", "2 factor",
    "second factor", "multi factor", "verification code", "security code", "auth code",
    "authentication code", "authorization code", "authenticator", "login code", "sign in code",
    "access code", "sms code", "reset code", "recovery code", "recovery key", "backup code", "cvv",
    "cvc", "csc", "cvn", "card verification", "card number", "credit card number", "ssn",
    "social security",
)  # fmt: skip
_SECRETS = (
    "password", "passphrase", "pass phrase", "pw", "security question", "security answer",
    "maiden name", "seed phrase", "seed words", "recovery phrase", "mnemonic", "credit card",
    "debit card", "national insurance number",
    # "password" in other languages (compared folded, like the rest)
    "passwort", "kennwort", "wachtwoord", "mot de passe", "motdepasse", "contrasena", "senha",
    "salasana", "haslo", "losenord", "adgangskode", "jelszo", "heslo", "sifre", "пароль",
)  # fmt: skip
# Scripts written without spaces: matched anywhere in the text.
_UNSPACED = ("密码", "密碼", "パスワード", "暗証番号", "비밀번호", "كلمة المرور", "كلمة السر", "סיסמה")
# "the 6-digit code", "the code we sent you": a code that came by message.
_CODE_SENTENCES = re.compile(
    r"\b(?:\d+ digit code|code (?:\w+ ){0,3}?(?:sent|texted|emailed|messaged|received))\b"
)
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class _Phrase:
    words: tuple[str, ...]
    # The words run together, when long enough to find inside another word (``userpasscode``).
    joined: str | None


def _phrases(texts: tuple[str, ...]) -> tuple[_Phrase, ...]:
    phrases = []
    for text in texts:
        words = tuple(_WORD.findall(fold(text)))
        joined = "".join(words)
        phrases.append(_Phrase(words, joined if len(joined) >= 6 else None))
    return tuple(phrases)


_CODE_PHRASES = _phrases(_CODES)
_TEXT_PHRASES = _CODE_PHRASES + _phrases(_SECRETS)
_FOLDED_UNSPACED = tuple(fold(text) for text in _UNSPACED)


def _spaced_camel_case(text: str) -> str:
    """``cardPin`` as ``card Pin``, so that each word of a name is compared on its own."""
    spaced: list[str] = []
    for index, char in enumerate(text):
        if index and text[index - 1].islower() and char.isupper():
            spaced.append(" ")
        spaced.append(char)
    return "".join(spaced)


def _same_word(word: str, wanted: str) -> bool:
    """The word, or its plural, or it numbered (``codes``, ``cvc2``)."""
    return (
        word == wanted or word == wanted + "s" or (word.startswith(wanted) and word[len(wanted) :].isdigit())
    )


def _says(words: list[str], phrase: _Phrase) -> bool:
    size = len(phrase.words)
    for start in range(len(words) - size + 1):
        window = words[start : start + size]
        if window[:-1] == list(phrase.words[:-1]) and _same_word(window[-1], phrase.words[-1]):
            return True
    return phrase.joined is not None and any(phrase.joined in word for word in words)


def _readings(text: str) -> tuple[str, ...]:
    """The text as a person reads it: look-alike letters folded, and also with digits and
    symbols read as letters (``pa$$w0rd``)."""
    folded = fold(_spaced_camel_case(text))
    return (folded, unleet(folded))


def _names(text: str, phrases: tuple[_Phrase, ...], secrets: SecretRedactor | None) -> bool:
    for reading in _readings(text):
        words = _WORD.findall(reading)
        if any(_says(words, phrase) for phrase in phrases) or _CODE_SENTENCES.search(" ".join(words)):
            return True
        if secrets is not None and (
            secrets.is_secret_name(reading) or any(word in reading for word in _FOLDED_UNSPACED)
        ):
            return True
    return False


def _asks_for_text_secret(secrets: SecretRedactor, text: str) -> bool:
    return _names(text, _TEXT_PHRASES, secrets)


def _asks_for_code(text: str) -> bool:
    return _names(text, _CODE_PHRASES, None)


def _field_texts(f: FormField) -> list[str]:
    """What the server wrote about the field itself (a choice's labels are its answers, not
    what it asks: "Sign in with: password / passkey" asks for no password)."""
    return [text for text in (f.name, f.title, f.description) if text]


def secret_fields(secrets: SecretRedactor, message: str, fields: list[FormField]) -> list[str]:
    """The names of the fields of a form that could hold a secret, in the form's order: their
    answers are declined by default, and never shown as typed nor kept in clear."""
    text_secret = _asks_for_text_secret(secrets, message)
    code = _asks_for_code(message)
    asking: list[str] = []
    for f in fields:
        if f.kind == "boolean":
            continue
        if f.kind == "string":
            holds = f.masked or text_secret or any(_asks_for_text_secret(secrets, t) for t in _field_texts(f))
        else:
            holds = f.masked or code or any(_asks_for_code(t) for t in _field_texts(f))
        if holds:
            asking.append(f.name)
    return asking


def url_domain(url: str) -> str | None:
    """The host a browser opens for a web address (policies/web_address.py), or None when it
    is not one a browser would open."""
    try:
        address = parse_web_address(url)
    except AddressError:
        return None
    return address.host if address is not None else None


def check_url(rules: Elicitation, server: str, url: str) -> QuestionVerdict:
    if refuses_server(rules, server):
        return QuestionVerdict(refusal=f"the policy declines questions from {server}")
    try:
        address = parse_web_address(url)
    except AddressError as exc:
        return QuestionVerdict(refusal=f"{server} asked to open an address a browser would not open: {exc}")
    if address is None:
        return QuestionVerdict(refusal=f"{server} asked to open something that is not a web address")
    return QuestionVerdict(flags=_url_flags(address), domain=address.host)


def _url_flags(address: WebAddress) -> list[Flag]:
    host = address.host
    flags: list[Flag] = []
    if address.scheme != "https":
        flags.append(
            Flag(
                code="insecure_url",
                severity="medium",
                message=f"the page at {host} is plain http: what you enter there can be read on the way",
            )
        )
    if address.has_credentials:
        flags.append(
            Flag(
                code="url_credentials",
                severity="high",
                message=(
                    f"the address has a user name or password before its host; it leads to {host}, "
                    "whatever the part before the @ says"
                ),
            )
        )
    if address.misleading:
        flags.append(
            Flag(
                code="misleading_url",
                severity="high",
                message=(
                    f"the address is written so that it may read as another host: it has "
                    f"{'; '.join(address.misleading)}. A browser opens {host}"
                ),
            )
        )
    if address.unicode_host is not None:
        flags.append(
            Flag(
                code="unicode_domain",
                severity="high",
                message=(
                    f"the domain has letters beyond ASCII, which can imitate another domain's: it reads "
                    f"{address.unicode_host}, and the browser opens {host}"
                ),
            )
        )
    return flags
