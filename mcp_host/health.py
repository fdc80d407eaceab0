"""One model of a configured server's health, read by every view that shows it.

The Servers page, ``gatehouse servers check`` and any later view show the same things about a
server: whether its listing worked (ok; partial, with the optional methods it did not serve;
failed), whether its session is open (or waits for a sign-in, or never started because its
entry in the servers file is broken), the last error, and where its log is. The pool builds
one ServerHealth per server it holds (SdkMcpClient.health); ``with_config_problems`` adds one
for each entry of the servers file that could not be loaded, so a view lists every entry the
file names without assembling anything of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

from mcp_host.config import ConfigProblem, ServersConfig
from mcp_host.errors import ErrorInfo
from mcp_host.manifest import CapabilityType, MissingMethod, ServerManifest
from mcp_host.server_logs import log_reason

ListingStatus = Literal["ok", "partial", "failed", "not_listed"]
ConnectionState = Literal["connected", "needs_sign_in", "disconnected", "not_started"]
# What a view says of the server as a whole: usable as is, usable with gaps, or not usable.
Verdict = Literal["ok", "warning", "failed"]


class ServerHealth(BaseModel):
    """What the host knows about one server: its session, its last listing, its log."""

    name: str
    connected: bool = False
    protocol_version: str | None = None
    server_version: str | None = None
    connect_ms: float | None = None
    restarts: int = 0
    # Why the session is not open (or was last re-opened).
    error: ErrorInfo | None = None
    # The remote server waits for a person to sign in (mcp_host/oauth.py).
    needs_sign_in: bool = False
    # The server's last listing failed: why, and in how many seconds it is tried again.
    listing_error: ErrorInfo | None = None
    listing_retry_in: float | None = None
    # The last listing: ok, partial (optional methods missing: which, and their errors), failed.
    listing: ListingStatus = "not_listed"
    missing: list[MissingMethod] = Field(default_factory=list)
    # What the last listing that worked offered, by kind, and the entries the host left out.
    offers: dict[CapabilityType, int] = Field(default_factory=dict)
    rejected: list[str] = Field(default_factory=list)
    # Where the server's stderr and the SDK's records about it go (mcp_host/server_logs.py).
    log: str | None = None
    # The entry's problem in the servers file ("file: entry.key: reason", one line for each
    # of its mistakes): never started.
    config_error: str | None = None
    # What the server announced about verifying Gatehouse's signed grants (its
    # ``io.gatehouse/approval`` extension: the name grants must carry, the key ids it accepted
    # when it started); None: it announced nothing (it may run calls nobody approved).
    verifies: dict[str, Any] | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def connection(self) -> ConnectionState:
        if self.config_error is not None:
            return "not_started"
        if self.connected:
            return "connected"
        if self.needs_sign_in:
            return "needs_sign_in"
        return "disconnected"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def last_error(self) -> str | None:
        """The one line that says what is wrong now, or None when nothing is."""
        if self.config_error is not None:
            return self.config_error
        if self.listing_error is not None:
            return self.listing_error.message
        if self.error is not None and not self.connected:
            return self.error.message
        return None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> Verdict:
        if self.connection != "connected" or self.listing == "failed":
            return "failed"
        return "warning" if self.missing else "ok"

    def written_log(self) -> str | None:
        """The server's log when it has written one (a server never started has none)."""
        return self.log if self.log is not None and Path(self.log).is_file() else None

    def reason_in_log(self) -> str | None:
        """For a server that cannot be used: the error line its log's last run ends with (a
        Python exception, say: mcp_host/server_logs.py log_reason), unless the last error
        quotes it already; None when it works, wrote no log, or its log names no error. Only
        the server's own lines count: the host's records about it (the parse error of a line on
        its stdout that is not JSON-RPC, with its traceback) are not its words."""
        log = self.written_log()
        if log is None or self.verdict != "failed":
            return None
        line = log_reason(Path(log), errors_only=True, own_only=True)
        if line is None or line in (self.last_error or ""):
            return None
        return line

    def listed(self, manifest: ServerManifest | None) -> ServerHealth:
        """This health with what ``manifest`` (the server's last listing) says added."""
        if manifest is None:
            return self
        if not manifest.ok:
            return self.model_copy(update={"listing": "failed", "error": self.error or manifest.error})
        offers: dict[CapabilityType, int] = {}
        for capability in manifest.capabilities:
            offers[capability.type] = offers.get(capability.type, 0) + 1
        return self.model_copy(
            update={
                "listing": "partial" if manifest.missing else "ok",
                "missing": list(manifest.missing),
                "offers": offers,
                "rejected": list(manifest.rejected),
                "server_version": manifest.server_version,
            }
        )


def broken_entry(problem: ConfigProblem) -> ServerHealth:
    """The health of an entry the servers file names but the host could not load."""
    return ServerHealth(name=problem.entry or problem.where, config_error=problem.message)


def with_config_problems(config: ServersConfig, healths: list[ServerHealth]) -> list[ServerHealth]:
    """Every entry of the servers file: the pool's servers, then each broken entry."""
    return [*healths, *(broken_entry(problem) for problem in config.problems)]
