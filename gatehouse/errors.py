"""Errors the command line and the app report as "bad usage or configuration" (exit 2).

Every error meant for a person derives from mcp_host.reported.ReportedError, which carries the
exit code; these are the ones the wiring and the app raise themselves."""

from __future__ import annotations

from mcp_host.reported import ReportedError


class ConfigurationError(ReportedError):
    """Names where the problem is (file, option or variable), what, and why."""


class ThreadBusyError(ReportedError):
    """The thread waits for a reviewer, so an operator's new message cannot be applied."""


class NotAllowedError(ReportedError):
    """The policy's roster does not let this user do this."""
