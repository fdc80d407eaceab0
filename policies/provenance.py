"""Arguments nobody stated, and secrets on their way to a server the policy does not trust.

A planner marks each argument stated (the operator's words, or a normalisation of them it can
show) or derived (graph/planner/provenance.py). A derived value is what a language model, or
text steering it, made up: the call waits for a reviewer whatever the rules allow, flagged
``derived_argument``. Its severity says what a wrong value costs:

- high for a recipient, a path or an amount: the value decides where data goes, what is read
  or written, or how much moves;
- medium otherwise (a rephrased query, a title): what is asked changes, not where it goes; it
  is still held, because a value nobody stated is not the operator's request.

A call whose arguments carry a recognisable secret (policies/secrets.py: a token's shape, or a
secret-like argument name) to a server the policy does not trust is held too, flagged
``secret_to_untrusted_server`` (high): the operator may have pasted a token into a request, and
nothing but a person decides that it leaves for a server nobody vouched for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from policies.constraints import is_path_argument, is_recipient_argument
from policies.decision import Flag, Severity
from policies.risk import is_amount_argument
from policies.secrets import SecretRedactor

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

DERIVED = "derived_argument"
SECRET_TO_UNTRUSTED = "secret_to_untrusted_server"
# Flags that hold an allowed call for a reviewer whatever their severity.
HOLDING = frozenset({DERIVED, SECRET_TO_UNTRUSTED})
_SHOWN_WORDS = 80


def _severity(name: str, schema: Mapping[str, Any]) -> Severity:
    where = schema.get("format") in {"email", "idn-email", "uri", "url"}
    if where or is_recipient_argument(name) or is_path_argument(name) or is_amount_argument(name):
        return "high"
    return "medium"


def _shown(words: str, redactor: SecretRedactor) -> str:
    one_line = " ".join(redactor.text(words).split())
    return one_line if len(one_line) <= _SHOWN_WORDS else one_line[: _SHOWN_WORDS - 1] + "…"


def derived_flags(capability: Capability, derived: Mapping[str, str], redactor: SecretRedactor) -> list[Flag]:
    """One ``derived_argument`` flag per argument nobody stated.

    Args:
        capability: the capability the call is for (its schema says what an argument is).
        derived: argument name -> the words of the request it was derived from ("" for none).
        redactor: hides secrets in those words (the flag is shown and stored).
    """
    flags = []
    for name in sorted(derived):
        schema = capability.properties.get(name) or {}
        words = derived[name]
        source = f"derived from '{_shown(words, redactor)}'" if words.strip() else "tied to no words"
        flags.append(
            Flag(
                code=DERIVED,
                severity=_severity(name, schema),
                message=f"argument '{name}' is not what the operator stated: {source}; "
                "check it against the request",
            )
        )
    return flags


def secret_flags(
    capability: Capability, arguments: dict[str, Any], redactor: SecretRedactor, *, trusted: bool
) -> list[Flag]:
    """A ``secret_to_untrusted_server`` flag naming the arguments that carry a secret, when the
    capability's server is not trusted; none otherwise."""
    if trusted:
        return []
    carrying = sorted(
        name for name, value in arguments.items() if redactor.value({name: value}) != {name: value}
    )
    if not carrying:
        return []
    return [
        Flag(
            code=SECRET_TO_UNTRUSTED,
            severity="high",
            message=f"argument {', '.join(repr(n) for n in carrying)} carries what looks like a secret "
            f"to {capability.server}, a server the policy does not trust",
        )
    ]
