"""Errors the command line and the app report as "bad usage or configuration" (exit 2)."""

from __future__ import annotations


class ConfigurationError(Exception):
    """Names where the problem is (file, option or variable), what, and why."""


class ThreadBusyError(Exception):
    """The thread waits for a reviewer, so an operator's new message cannot be applied."""


class NotAllowedError(Exception):
    """The policy's roster does not let this user do this."""
