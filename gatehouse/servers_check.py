"""`gatehouse servers check`: each configured server's session and what it offers."""

from __future__ import annotations

from typing import Any

from gatehouse.visible_text import continued
from mcp_host.config import ServersConfig
from mcp_host.manifest import Manifest
from mcp_host.sdk_client import SdkMcpClient
from policies.secrets import DEFAULT_REDACTOR


def check_servers(config: ServersConfig, pool: SdkMcpClient) -> dict[str, Any]:
    manifest: Manifest = pool.discover(fresh=True)
    health = {entry.name: entry for entry in pool.health()}
    described = config.describe()["servers"]
    report = []
    for server in manifest.servers:
        state = health[server.name]
        counts = {kind: 0 for kind in ("tool", "resource", "resource_template", "prompt")}
        for capability in server.capabilities:
            counts[capability.type] += 1
        error = server.error or state.error
        report.append(
            {
                "name": server.name,
                "ok": server.ok,
                "transport": described.get(server.name, {}),
                "protocol_version": server.protocol_version,
                "connect_ms": round(state.connect_ms, 1) if state.connect_ms is not None else None,
                "restarts": state.restarts,
                "tools": counts["tool"],
                "resources": counts["resource"],
                "resource_templates": counts["resource_template"],
                "prompts": counts["prompt"],
                "rejected": server.rejected,
                "error": error.model_dump() if error and not server.ok else None,
            }
        )
    # An error can quote what it failed on (a URL with a token in its query): hide secrets.
    shown: dict[str, Any] = DEFAULT_REDACTOR.value({"source": config.source, "servers": report})
    return shown


def render_check(report: dict[str, Any]) -> str:
    lines = [f"servers from {report['source']}"]
    if report.get("planner"):
        lines.insert(0, f"planner: {report['planner']}")
    for server in report["servers"]:
        if server["ok"]:
            lines.append(
                f"  ok    {server['name']:<14} {server['protocol_version']}  {server['connect_ms']} ms  "
                f"tools {server['tools']}, resources {server['resources']}, "
                f"templates {server['resource_templates']}, prompts {server['prompts']}"
            )
            lines.extend(f"        rejected: {continued(reason, 18)}" for reason in server["rejected"])
        else:
            error = server["error"] or {"kind": "unavailable", "message": "no session"}
            # The message is often the server's own words: a line break in it stays indented.
            message = continued(error["message"], 8)
            lines.append(f"  FAIL  {server['name']:<14} {error['kind']}: {message}")
    return "\n".join(lines)
