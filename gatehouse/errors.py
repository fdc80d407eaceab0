"""Errors the command line and the app report as "bad usage or configuration" (exit 2).

Every error meant for a person derives from mcp_host.reported.ReportedError, which carries the
exit code; these are the ones the wiring and the app raise themselves."""

from __future__ import annotations

from mcp_host.reported import UsageError

# The operator's refusals are raised by the request service (reviews/requests.py), below this
# package; named here too for the callers that catch them.
from reviews.errors import NotAllowedError as NotAllowedError
from reviews.errors import ThreadBusyError as ThreadBusyError
from reviews.errors import ThreadNotFoundError as ThreadNotFoundError


class ConfigurationError(UsageError):
    """Names where the problem is (file, option or variable), what, and why."""
