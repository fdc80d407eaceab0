"""``${VAR}`` in a configuration file, taken from the environment: the one expander every file
Gatehouse reads uses (the servers file with its oauth objects, the policy file).

One syntax: ``${NAME}``, and VS Code's ``${env:NAME}`` for servers files copied from it. A
variable that is not set is an error naming the file and key it appears in, never an empty
string: an empty path or token fails later, far from its cause.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from mcp_host.reported import ReportedError

_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")


class UnsetVariableError(ReportedError):
    """A ``${VAR}`` whose variable is not set: a configuration error (exit 2) whose message is
    already the line to show, since ``where`` is "file: key" as the caller named it. The file
    readers re-raise it as their own error (mcp_host/config.py ConfigError, policies/loader.py
    PolicyError) with the same ``where`` and ``reason``, so each file has one error type; a
    reader that did not would still report that line, not an internal error."""

    def __init__(self, where: str, name: str) -> None:
        self.where = where
        self.name = name
        self.reason = f"environment variable {name} is not set"
        super().__init__(f"{where}: {self.reason}")


def expand_variables(value: str, environ: Mapping[str, str], where: str) -> str:
    """``value`` with every ``${VAR}`` (or ``${env:VAR}``) replaced from ``environ``.

    Raises:
        UnsetVariableError: a variable is not in ``environ``; ``where`` says where it was used.
    """

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise UnsetVariableError(where, name)
        return environ[name]

    return _VARIABLE.sub(replace, value)
