"""What the policy says about a question a server asks during a call (MCP elicitation).

- A server the policy lists under ``[elicitation] refuse_servers`` is declined without asking.
- A form must fit the protocol's restricted schema (mcp_host/elicitation.py), or nobody could
  fill it in: declined.
- A form that asks for a secret is flagged ``asks_for_secret``: the protocol forbids asking for
  passwords, tokens or API keys in form mode (a server sends the person to a page of its own
  for that, in URL mode), and what is typed into a form passes through the host. What counts
  as a secret is the one list the rest of Gatehouse hides (policies/secrets.py SECRET_ARGUMENTS
  and the policy's ``[audit] redact_arguments``), matched in a free-text field's name, title
  or description, or in the question when the form has a free-text field. A number, a yes/no
  or a choice cannot carry one. ``secret_forms`` says whether such a form is declined (the
  default) or asked with the flag.
- A URL must be a web address (http or https) with a host, or it is declined. The person sees
  its domain, which the host reads from the URL itself (never the server's words about it),
  and flags: ``insecure_url`` (plain http), ``url_credentials`` (a user name or password
  before the host, which can make another domain look like the destination) and
  ``unicode_domain`` (letters that can imitate another domain's; the ASCII form is shown too).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from mcp_host.elicitation import FormField
from policies.decision import Flag
from policies.model import Elicitation
from policies.secrets import SecretRedactor


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
    free_text = [f for f in fields if f.kind == "string"]
    asking = [f.name for f in free_text if any(secrets.is_secret_name(text) for text in f.texts)]
    if not asking and free_text and secrets.is_secret_name(message):
        asking = [f.name for f in free_text]
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


def url_domain(url: str) -> str | None:
    """The host a web address leads to (lower case, as browsers read it), or None."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host:
        return None
    return host


def check_url(rules: Elicitation, server: str, url: str) -> QuestionVerdict:
    if refuses_server(rules, server):
        return QuestionVerdict(refusal=f"the policy declines questions from {server}")
    domain = url_domain(url)
    if domain is None:
        return QuestionVerdict(refusal=f"{server} asked to open something that is not a web address")
    parts = urlsplit(url)
    flags: list[Flag] = []
    if parts.scheme != "https":
        flags.append(
            Flag(
                code="insecure_url",
                severity="medium",
                message=f"the page at {domain} is plain http: what you enter there can be read on the way",
            )
        )
    if "@" in parts.netloc:
        flags.append(
            Flag(
                code="url_credentials",
                severity="high",
                message=(
                    f"the address has a user name or password before its host; it leads to {domain}, "
                    "whatever the part before the @ says"
                ),
            )
        )
    if not domain.isascii():
        try:
            ascii_form = domain.encode("idna").decode("ascii")
        except UnicodeError:
            return QuestionVerdict(refusal=f"{server} asked to open an address whose domain is not valid")
        flags.append(
            Flag(
                code="unicode_domain",
                severity="high",
                message=(
                    f"the domain has letters beyond ASCII, which can imitate another domain's; "
                    f"its ASCII form is {ascii_form}"
                ),
            )
        )
    return QuestionVerdict(flags=flags, domain=domain)
