"""The one base of the errors Gatehouse reports to a person: their message is the line to show
(what was wrong and where) and ``exit_code`` what a command exits with, as click's
ClickException carries both. The command line turns any of them into that line and that code
without knowing the class (gatehouse/cli/commands.py); the app shows the message.

It lives in the bottom layer and imports nothing, so that every package (mcp_host/,
policies/, reviews/, graph/, gatehouse/) can derive its errors from it without an import that
points up the layers."""

from __future__ import annotations

# Bad usage or configuration: an option, a file, a variable, a request the policy or the
# review's state does not allow.
EXIT_USAGE = 2
# The review was already decided by someone else.
EXIT_ALREADY_DECIDED = 3


class ReportedError(Exception):
    """An error whose message is meant for the person who ran the command (never a bug).

    Subclasses set ``exit_code`` as a class attribute; the default is bad usage or
    configuration."""

    exit_code: int = EXIT_USAGE

    @property
    def message(self) -> str:
        return str(self)


class McpHostError(Exception):
    """Base of the errors the MCP side raises for misuse (unknown server, closed client)."""
