"""`gatehouse policy check` and `policy explain`: a policy file summarised, one decision explained."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gatehouse.display.visible_text import continued
from mcp_host.reported import InvalidValueError
from policies.constraints import Roots, is_path_argument, is_within
from policies.engine import PolicyEngine

if TYPE_CHECKING:
    from mcp_host.manifest import Capability, Manifest
    from policies.model import PolicyFile


def policy_summary(policy: PolicyFile, source: str) -> dict[str, Any]:
    return {
        "source": source,
        "valid": True,
        "default_action": policy.defaults.action,
        "rules": [
            {
                "name": rule.name,
                "match": rule.match,
                "exclude": rule.exclude,
                "action": rule.action,
                "category": rule.category,
                "read_only_hint": rule.read_only_hint,
            }
            for rule in policy.rules
        ],
        "trusted_servers": policy.servers.trusted,
        "roots": policy.paths.roots,
        "roles": sorted(policy.roles),
        "users": policy.users,
    }


def render_summary(report: dict[str, Any]) -> str:
    lines = [f"{report['source']}: valid; default action {report['default_action']}"]
    lines.extend(
        f"  {rule['action']:<6} {rule['name']}: {', '.join(rule['match'])}"
        + (f" (except {', '.join(rule['exclude'])})" if rule.get("exclude") else "")
        + (f" (tools whose read-only mark is {rule['read_only_hint']})" if rule.get("read_only_hint") else "")
        for rule in report["rules"]
    )
    lines.append(f"  users: {', '.join(f'{u} ({r})' for u, r in report['users'].items()) or 'none'}")
    return "\n".join(lines)


def roots_line(engine: PolicyEngine, server: str) -> str:
    """Where a server's path arguments must stay, and where those folders come from, in one
    line (the Servers page): "Paths stay in: /srv/team (the folders server 'files' is started
    on (from its arguments))"."""
    roots = engine.roots_for(server)
    line = f"Paths stay in: {_folders(roots.paths) or 'nowhere (every path is refused)'} ({roots.origin})"
    if _runs_outside(roots):
        line += (
            f"; it runs in {roots.working_folder}, outside them, so a relative path is refused (set its cwd)"
        )
    return line


def _runs_outside(roots: Roots) -> bool:
    """Whether the server runs in a folder outside its roots: a relative path read from there
    lands outside, so every relative path argument fails paths_within_roots."""
    folder, existing = roots.working_folder, [root for root in roots.paths if Path(root).is_dir()]
    # With no root there, every path fails anyway, and the note on missing folders says why.
    return folder is not None and bool(existing) and not any(is_within(folder, root) for root in existing)


def _folders(paths: Sequence[str]) -> str:
    """The folders, each one that does not exist on this machine marked so: a root is kept as
    written (a path argument must still resolve inside it), but a reader should not take a
    folder nobody created for one the server works in."""
    return ", ".join(path if Path(path).is_dir() else f"{path} (missing)" for path in paths)


class UnknownCapabilityError(InvalidValueError, LookupError):
    pass


def explain(engine: PolicyEngine, manifest: Manifest, key: str, arguments: dict[str, Any]) -> dict[str, Any]:
    capability = manifest.find(key)
    if capability is None:
        raise UnknownCapabilityError(manifest.not_offered(key))
    # Evaluating stores nothing: explaining a decision never pins a definition (real requests do).
    decision = engine.evaluate(capability, arguments).decision
    return (
        {"capability": capability.ref() | {"key": key}, "arguments": arguments}
        | decision.model_dump(mode="json")
        | {"roots": _roots(engine, capability)}
    )


def _roots(engine: PolicyEngine, capability: Capability) -> dict[str, Any] | None:
    """Where the capability's path arguments must stay, and where those folders come from;
    None for one that takes no path."""
    if not any(is_path_argument(name) for name in capability.properties):
        return None
    server = capability.server
    roots = engine.roots_for(server)
    missing = [path for path in roots.paths if not Path(path).is_dir()]
    notes = []
    if roots.catch_all:
        notes.append(
            f"server '{server}' has no folders of its own (no [paths.servers] entry, no roots in the"
            " servers file, no folder it is started on), so the policy's [paths] roots hold its"
            " path arguments under rules with paths_within_roots"
        )
    if _runs_outside(roots):
        notes.append(
            f"server '{server}' is given no folder of its own (no roots in the servers file, no"
            f" folder among its arguments), so it reads a relative path from where it runs,"
            f" {roots.working_folder} (its entry's cwd, else the folder Gatehouse was started in),"
            " outside these folders: every relative path argument fails paths_within_roots; give"
            " paths in full, or set the entry's cwd to one of these folders"
        )
    if missing:
        notes.append(
            f"{', '.join(missing)} {'does' if len(missing) == 1 else 'do'} not exist on this machine:"
            " kept as written, a path argument must still resolve inside, and any other still fails"
            " paths_within_roots; create the folder, or name the server's own under [paths.servers]"
            " or as roots in its servers-file entry"
        )
    return {
        "paths": list(roots.paths),
        "origin": roots.origin,
        "working_folder": roots.working_folder,
        "missing": missing,
        "notes": notes,
    }


def render_explanation(report: dict[str, Any]) -> str:
    verdict = {"allow": "ALLOW", "review": "REVIEW", "deny": "REFUSE"}[report["action"]]
    lines = [
        f"{verdict}  {report['capability']['key']}  (rule: {report['rule']}, category: {report['category'] or 'none'})",
        f"  why:   {continued(report['explanation'], 9)}",
        continued(
            f"  risk:  {report['risk']}"
            + (f" ({'; '.join(report['reasons'])})" if report["reasons"] else ""),
            9,
        ),
    ]
    roots = report.get("roots")
    if roots:
        lines.append(continued(f"  roots: {_folders(roots['paths']) or 'none'} ({roots['origin']})", 9))
        lines.extend(continued(f"         {note}", 9) for note in roots.get("notes", []))
    lines.extend(f"  [{f['severity']}] {f['code']}: {continued(f['message'], 4)}" for f in report["flags"])
    if report["action"] == "review":
        terms = report["review"]
        lines.append(
            f"  review: {terms['required_approvals']} approval(s) by {', '.join(terms['reviewer_roles']) or 'nobody'}"
            f" within {terms['expiry_minutes']} min; four-eyes {'on' if terms['four_eyes'] else 'off'}"
        )
    return "\n".join(lines)
