"""`gatehouse servers check`: each configured server's session and what it offers.

Every entry of the servers file is reported, from its health (mcp_host/health.py): a server
that works is ``ok``; one that works without an optional list method (templates, prompts,
resources) passes too, with a warning naming the method and its error; a server that cannot
be used, and an entry the file could not load (naming the file, the entry and the key), is
``FAIL``. Each working server also says whether it verifies Gatehouse's signed grants (it
announced the ``io.gatehouse/approval`` extension in its capabilities: gatehouse_verify/), so
that another client cannot run its side-effecting tools without a review. A broken entry makes the command exit non-zero (a configuration error); a server
that fails to start does not (it is the server's state, which is what the command reports).
When no entry could be loaded at all, the report ends saying so.
"""

from __future__ import annotations

from typing import Any

from gatehouse.display.server_words import offer_words, state_words
from gatehouse.display.visible_text import continued
from mcp_host.config import ServersConfig
from mcp_host.health import ServerHealth, with_config_problems
from mcp_host.manifest import CapabilityType
from mcp_host.sdk_client import SdkMcpClient
from policies.secrets import DEFAULT_REDACTOR


def check_servers(config: ServersConfig, pool: SdkMcpClient) -> dict[str, Any]:
    pool.discover(fresh=True)
    described = config.describe()["servers"]
    shown = {entry.name: entry.shown() for entry in config.servers}
    report = [
        _server_report(health, described.get(health.name, {}), shown.get(health.name))
        for health in _healths(config, pool)
    ]
    # An error can quote what it failed on (a URL with a token in its query): hide secrets.
    redacted: dict[str, Any] = DEFAULT_REDACTOR.value(
        {
            "source": config.source,
            "servers": report,
            "broken_entries": len(config.problems),
            "usable_entries": len(config.servers),
        }
    )
    return redacted


def _healths(config: ServersConfig, pool: SdkMcpClient) -> list[ServerHealth]:
    return with_config_problems(config, pool.health())


def _server_report(health: ServerHealth, transport: dict[str, Any], command: str | None) -> dict[str, Any]:
    offers = health.offers
    return {
        "name": health.name,
        "ok": health.verdict != "failed",
        "status": health.verdict,
        "state": state_words(health),
        "listing": health.listing,
        "connection": health.connection,
        "transport": transport,
        "command": command,
        "protocol_version": health.protocol_version,
        "connect_ms": round(health.connect_ms, 1) if health.connect_ms is not None else None,
        "restarts": health.restarts,
        "tools": offers.get("tool", 0),
        "resources": offers.get("resource", 0),
        "resource_templates": offers.get("resource_template", 0),
        "prompts": offers.get("prompt", 0),
        "rejected": health.rejected,
        "missing": [gap.model_dump(mode="json") for gap in health.missing],
        "error": _error(health),
        "reason_in_log": health.reason_in_log(),
        "log": health.log,
        "log_written": health.written_log() is not None,
        # Whether it refuses side-effecting calls without Gatehouse's grant, and what it announced.
        "verifies_approvals": health.verifies is not None,
        "approvals": health.verifies,
    }


def _error(health: ServerHealth) -> dict[str, Any] | None:
    if health.verdict != "failed":
        return None
    if health.config_error is not None:
        return {"kind": "config", "message": health.config_error}
    error = health.listing_error or health.error
    if error is not None:
        return error.model_dump(mode="json")
    return {"kind": "unavailable", "message": health.last_error or "no session"}


def render_check(report: dict[str, Any]) -> str:
    lines = [f"servers from {report['source']}"]
    if report.get("planner"):
        lines.insert(0, f"planner: {report['planner']}")
    for server in report["servers"]:
        if server["ok"]:
            # What it offers in the Servers page's words (gatehouse/display/server_words.py).
            offers: dict[CapabilityType, int] = {
                "tool": server["tools"],
                "prompt": server["prompts"],
                "resource": server["resources"],
                "resource_template": server["resource_templates"],
            }
            lines.append(
                f"  ok    {server['name']:<14} {offer_words(offers)}  "
                f"({server['protocol_version']}, {server['connect_ms']} ms)"
            )
            lines.extend(
                f"        warning: {gap['method']} not served: {continued(gap['error']['message'], 18)}"
                for gap in server.get("missing", [])
            )
            lines.extend(f"        rejected: {continued(reason, 18)}" for reason in server["rejected"])
            if server["tools"]:
                lines.append(f"        approvals: {_approval_words(server)}")
        else:
            error = server["error"] or {"kind": "unavailable", "message": "no session"}
            # The message is often the server's own words: a line break in it stays indented.
            lines.append(f"  FAIL  {server['name']:<14} {error['kind']}: {continued(error['message'], 8)}")
            if server.get("reason_in_log"):
                lines.append(f"        from its log: {continued(server['reason_in_log'], 22)}")
        if server.get("command"):
            lines.append(f"        command: {continued(server['command'], 17)}")
        if server.get("log_written"):
            # Where to read more: the server's own log.
            lines.append(f"        log: {server['log']}")
    broken = report.get("broken_entries") or 0
    if broken and not report.get("usable_entries"):
        # Said outright: a list of FAILs alone reads as if one bad entry took the file down.
        lines.append(
            f"the one entry of {report['source']} could not be used: fix it and check again"
            if broken == 1
            else f"none of the {broken} entries of {report['source']} could be used: fix them and check again"
        )
    return "\n".join(lines)


def _approval_words(server: dict[str, Any]) -> str:
    announced = server.get("approvals")
    if not server.get("verifies_approvals") or not isinstance(announced, dict):
        return "not verified (it runs its tools for any client that asks)"
    keys = ", ".join(str(kid) for kid in announced.get("keyIds") or []) or "none yet"
    return (
        f"verified (side-effecting calls need Gatehouse's grant for {announced.get('server')!r}; keys {keys})"
    )
