"""`gatehouse policy check` and `policy explain`: a policy file summarised, one decision explained."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gatehouse.display.visible_text import continued
from mcp_host.reported import InvalidValueError
from policies.constraints import Roots, is_path_argument, is_within
from policies.engine import PolicyEngine
from policies.names import key_glob

if TYPE_CHECKING:
    from mcp_host.manifest import Capability, Manifest
    from policies.decision import PolicyDecision
    from policies.model import PolicyFile
    from policies.rule_trace import AppliedRule, RuleTrace

_RANK = {"allow": 0, "review": 1, "deny": 2}


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
    evaluation, trace = engine.evaluate_traced(capability, arguments)
    decision = evaluation.decision
    return (
        {"capability": capability.ref() | {"key": key}, "arguments": arguments}
        | decision.model_dump(mode="json")
        | {"rules": _rules(trace, decision, capability.key), "roots": _roots(engine, capability, trace)}
    )


def _rules(trace: RuleTrace, decision: PolicyDecision, key: str) -> dict[str, Any]:
    """Every rule that applied and why, those that did not although they name the capability
    or a category it was rated in, why the deciding one won, and how to let an allow rule
    that lost decide instead."""
    return {
        "applied": [
            {"name": rule.name, "action": rule.action, "because": list(rule.because), "decides": rule.decides}
            for rule in trace.applied
        ],
        "passed_over": [
            {"name": rule.name, "action": rule.action, "why": rule.why} for rule in trace.passed_over
        ],
        "why_this_rule": _why_this_rule(trace, decision),
        "to_let_decide": _to_let_decide(trace, decision, key),
    }


def _quoted(rules: Sequence[AppliedRule]) -> str:
    return ", ".join(f"'{rule.name}' ({rule.action})" for rule in rules)


def _why_this_rule(trace: RuleTrace, decision: PolicyDecision) -> str:
    deciding = next((rule for rule in trace.applied if rule.decides), None)
    if deciding is None:
        if trace.step == "held":
            return (
                "no rule applies to it and the policy's default allows it, but an allowed call still"
                " goes to a reviewer when the engine rates a risk nobody accepted or raises a high flag"
            )
        return (
            f"no rule applies to it, so the policy's default decides ([defaults] action = {decision.action})"
        )
    name = f"'{deciding.name}'"
    if trace.step == "constraint":
        return (
            f"the call breaks a constraint of {name}, and its on_violation ({decision.action}) is"
            " stricter than what the rules that apply say"
        )
    if trace.step == "held":
        return (
            f"{name} allows it, but an allowed call still goes to a reviewer when the engine rates"
            " a risk the rule does not accept, or raises a high flag"
        )
    others = [rule for rule in trace.applied if not rule.decides]
    if not others:
        return f"{name} is the only rule that applies"
    why = f"{name} ({deciding.action}) wins: among the rules that apply the strictest action wins (deny > review > allow)"
    weaker = [rule for rule in others if _RANK[rule.action] < _RANK[deciding.action]]
    alike = [rule for rule in others if rule.action == deciding.action]
    if weaker:
        why += f"; it outranks {_quoted(weaker)}"
    if alike:
        why += f"; of rules as strict, the first in the policy decides ({_quoted(alike)} come after)"
    return why


def _to_let_decide(trace: RuleTrace, decision: PolicyDecision, key: str) -> list[str]:
    """For each allow rule that applied and lost to a stricter one: the exclude that would let
    it decide (what `policy suggest` adopts), and the risks it would still have to accept."""
    stricter = [rule for rule in trace.applied if rule.action != "allow"]
    deciding = next((rule for rule in trace.applied if rule.decides), None)
    if trace.step == "held" and deciding is not None:
        # It decided, and was held: what it does not accept (a high flag is named in why).
        unaccepted = [category for category in decision.categories if category not in deciding.accepts]
        if unaccepted:
            return [
                f"'{deciding.name}' does not accept {', '.join(unaccepted)}: it runs the call unreviewed"
                " only once its accepts names them"
            ]
    if not stricter:
        return []
    advice = []
    for rule in trace.applied:
        if rule.action != "allow":
            continue
        outranking = " and ".join(
            f"'{other.name}'"
            + (" (a rule that refuses it: lift that on purpose only)" if other.action == "deny" else "")
            for other in stricter
        )
        words = f"to let '{rule.name}' decide, add {key_glob(key)} to the exclude of {outranking}"
        unaccepted = [category for category in decision.categories if category not in rule.accepts]
        if unaccepted:
            words += (
                f"; it would then still go to a reviewer unless '{rule.name}' accepts"
                f" {', '.join(unaccepted)} (its accepts)"
            )
        advice.append(words)
    return advice


def _roots(engine: PolicyEngine, capability: Capability, trace: RuleTrace) -> dict[str, Any] | None:
    """Where the capability's path arguments must stay, where those folders come from, and
    whether any rule that applied holds them there; None for one that takes no path."""
    if not any(is_path_argument(name) for name in capability.properties):
        return None
    server = capability.server
    roots = engine.roots_for(server)
    missing = [path for path in roots.paths if not Path(path).is_dir()]
    checked_by = [rule.name for rule in trace.applied if rule.checks_roots]
    notes = []
    if not checked_by:
        # Shown all the same (they are the server's), but a reader must not take them for a
        # bound on this call: only a rule with paths_within_roots holds a path to them.
        notes.append(_not_checked(trace))
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
        "checked": bool(checked_by),
        "checked_by": checked_by,
        "notes": notes,
    }


def _not_checked(trace: RuleTrace) -> str:
    deciding = next((rule for rule in trace.applied if rule.decides), None)
    if deciding is None:
        return (
            "not checked for this call: no rule applies to it, and only a rule with"
            " paths_within_roots holds a path to these folders, so a path outside them is not refused"
        )
    others = ", nor does any other rule that applies" if len(trace.applied) > 1 else ""
    return (
        f"not checked for this call: rule '{deciding.name}' does not check paths (no"
        f" paths_within_roots){others}, so a path outside these folders is not refused"
    )


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
    rules = report.get("rules")
    if rules:
        lines.extend(_rule_lines(rules))
    return "\n".join(lines)


def _rule_lines(rules: dict[str, Any]) -> list[str]:
    """The rules that applied (the deciding one marked), those passed over, and the advice."""
    lines = [continued(f"  rules: {rules['why_this_rule']}", 9)]
    for rule in rules["applied"]:
        decides = " (decides)" if rule["decides"] else ""
        lines.append(
            continued(
                f"         {rule['action']:<6} {rule['name']}{decides}: {'; '.join(rule['because'])}", 9
            )
        )
    lines.extend(
        continued(f"         not applied: {rule['action']} {rule['name']}: {rule['why']}", 9)
        for rule in rules["passed_over"]
    )
    lines.extend(continued(f"         {advice}", 9) for advice in rules["to_let_decide"])
    return lines
