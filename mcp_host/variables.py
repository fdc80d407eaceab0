"""``${VAR}`` in a configuration file, taken from the environment: the one expander every file
Gatehouse reads uses (the servers file with its oauth objects, the policy file).

One syntax: ``${NAME}``, and VS Code's ``${env:NAME}`` for servers files copied from it. A
variable that is not set is an error naming the file and key it appears in, never an empty
string: an empty path or token fails later, far from its cause.

Gatehouse's own credentials are never expanded: a servers file (a ``.mcp.json`` copied from a
repository, say) that wrote ``${GATEHOUSE_SECRET_KEY}`` into a command line would show the key
that encrypts every stored sign-in in ``ps``, and hand it to a server Gatehouse does not trust.
Such a reference is an error naming the file, the key and the variable, never its value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from mcp_host.reported import UsageError

_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")

# The variables Gatehouse reads its own credentials from: the key that encrypts stored sign-ins
# (gatehouse/settings.py SECRET_KEY_ENV), the audit keys (reviews/audit_anchor.py, audit_keys.py), the
# database URL (a PostgreSQL password), the notifications webhook (its URL is its token, and the key that signs its posts), and
# the keys of the model providers the planner ships for (gatehouse/planner_choice.py). Named
# here, below the layers that read them; tests/mcp_host/test_variables.py checks they match.
GATEHOUSE_SECRETS = frozenset(
    {
        "GATEHOUSE_SECRET_KEY",
        "GATEHOUSE_AUDIT_KEY",
        "GATEHOUSE_AUDIT_OLD_KEYS",
        "GATEHOUSE_DB",
        "GATEHOUSE_WEBHOOK_URL",
        "GATEHOUSE_WEBHOOK_SECRET",
        "OPENAI_API_KEY",
        "AZURE_OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
    }
)


class VariableError(UsageError):
    """A ``${VAR}`` that cannot be expanded: a configuration error (exit 2) whose message is
    already the line to show, since ``where`` is "file: key" as the caller named it. The file
    readers re-raise it as their own error (mcp_host/config.py ConfigError, policies/loader.py
    PolicyError) with the same ``where`` and ``reason``, so each file has one error type; a
    reader that did not would still report that line, not an internal error."""

    def __init__(self, where: str, name: str, reason: str) -> None:
        self.where = where
        self.name = name
        self.reason = reason
        super().__init__(f"{where}: {reason}")


class UnsetVariableError(VariableError):
    """A ``${VAR}`` whose variable is not set."""

    def __init__(self, where: str, name: str) -> None:
        super().__init__(where, name, f"environment variable {name} is not set")


class SecretVariableError(VariableError):
    """A ``${VAR}`` naming one of Gatehouse's own credentials (GATEHOUSE_SECRETS)."""

    def __init__(self, where: str, name: str) -> None:
        super().__init__(
            where,
            name,
            f"${{{name}}} is one of Gatehouse's own secrets and is never expanded into a "
            "configuration file; give this entry a credential of its own, in a variable of its own",
        )


def expand_variables(value: str, environ: Mapping[str, str], where: str) -> str:
    """``value`` with every ``${VAR}`` (or ``${env:VAR}``) replaced from ``environ``.

    Raises:
        SecretVariableError: a variable names one of Gatehouse's own credentials, set or not.
        UnsetVariableError: a variable is not in ``environ``; ``where`` says where it was used.
    """

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        # Upper-cased: on Windows ${gatehouse_secret_key} would read the same variable.
        if name.upper() in GATEHOUSE_SECRETS:
            raise SecretVariableError(where, name)
        if name not in environ:
            raise UnsetVariableError(where, name)
        return environ[name]

    return _VARIABLE.sub(replace, value)
