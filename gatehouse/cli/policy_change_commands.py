"""`gatehouse policy show|history|propose|changes|diff|approve|reject|withdraw`: the policy's
versions and the changes proposed to it (reviews/policy_changes.py), from a terminal."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gatehouse.errors import ConfigurationError

if TYPE_CHECKING:
    from policies.versions import PolicyVersion
    from reviews.policy_changes import Applied, PolicyChange, PolicyChanges

CHANGE_ACTIONS = ("show", "history", "propose", "changes", "diff", "approve", "reject", "withdraw")


def add_change_commands(actions: Any, common: argparse.ArgumentParser) -> None:
    """The subcommands of `gatehouse policy` that read or change the versions in the database."""
    show = actions.add_parser(
        "show", parents=[common], help="print the policy in force (the newest version in the database)"
    )
    show.add_argument("--version", type=int, metavar="N", help="an earlier version instead")
    actions.add_parser("history", parents=[common], help="the versions of the policy, newest first")
    propose = actions.add_parser(
        "propose",
        parents=[common],
        help="propose a policy file's text as the new policy; another admin approves it",
    )
    propose.add_argument(
        "file", metavar="FILE", help="the whole new policy (TOML), e.g. an edited `policy show`"
    )
    propose.add_argument("--user", required=True, metavar="NAME", help="who proposes it (manage_policy)")
    propose.add_argument("--reason", required=True, metavar="TEXT", help="why: the approver reads it")
    changes = actions.add_parser("changes", parents=[common], help="proposed changes, newest first")
    changes.add_argument(
        "--status", choices=["pending", "applied", "rejected", "withdrawn", "superseded"], help="only these"
    )
    diff = actions.add_parser("diff", parents=[common], help="what a proposed change does, as a unified diff")
    diff.add_argument("change_id", metavar="ID")
    approve = actions.add_parser(
        "approve", parents=[common], help="apply a proposed change (every replica picks it up within seconds)"
    )
    approve.add_argument("change_id", metavar="ID")
    approve.add_argument("--user", required=True, metavar="NAME", help="who approves it (manage_policy)")
    reject = actions.add_parser("reject", parents=[common], help="turn a proposed change down, saying why")
    reject.add_argument("change_id", metavar="ID")
    reject.add_argument("--user", required=True, metavar="NAME")
    reject.add_argument("--reason", required=True, metavar="TEXT")
    withdraw = actions.add_parser("withdraw", parents=[common], help="take back your own proposed change")
    withdraw.add_argument("change_id", metavar="ID")
    withdraw.add_argument("--user", required=True, metavar="NAME")


def version_row(version: PolicyVersion, *, text: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {
        "version": version.seq,
        "hash": version.hash,
        "from": version.origin,
        "recorded_at": version.recorded_at,
        "recorded_by": version.recorded_by,
        "change": version.change_id,
    }
    if text:
        row["text"] = version.text
    return row


def change_row(change: PolicyChange) -> dict[str, Any]:
    return {
        "id": change.id,
        "status": change.status,
        "proposed_by": change.proposed_by,
        "proposed_at": change.proposed_at,
        "reason": change.reason,
        "base_version": change.base_seq,
        "decided_by": change.decided_by,
        "decided_at": change.decided_at,
        "decision_reason": change.decision_reason,
        "applied_version": change.applied_seq,
    }


def applied_report(applied: Applied) -> dict[str, Any]:
    return {
        "change": change_row(applied.change),
        "version": version_row(applied.version),
        "superseded": applied.superseded,
        "file": applied.file_note,
    }


def read_proposal(path: str) -> str:
    from policies.loader import read_policy_text

    file = Path(path)
    if not file.is_file():
        raise ConfigurationError(
            f"{path}: no such file (the whole new policy, e.g. an edited `gatehouse policy show`)"
        )
    return read_policy_text(file)


def run_change_command(args: argparse.Namespace, changes: PolicyChanges) -> dict[str, Any]:
    """The report of one of CHANGE_ACTIONS (ReportedErrors say what was refused)."""
    if args.action == "show":
        version = changes.current() if args.version is None else changes.versions.get(args.version)
        if version is None:
            raise ConfigurationError(
                f"--version {args.version}: no such version (`gatehouse policy history`)"
            )
        return version_row(version, text=True)
    if args.action == "history":
        return {"versions": [version_row(v) for v in changes.versions.history()]}
    if args.action == "propose":
        change = changes.propose(read_proposal(args.file), by=args.user, reason=args.reason)
        return change_row(change) | {"diff": changes.diff(change)}
    if args.action == "changes":
        return {"changes": [change_row(c) for c in changes.changes(args.status)]}
    if args.action == "diff":
        change = changes.get(args.change_id)
        return change_row(change) | {"diff": changes.diff(change)}
    if args.action == "approve":
        return applied_report(changes.approve(args.change_id, by=args.user))
    if args.action == "reject":
        return change_row(changes.reject(args.change_id, by=args.user, reason=args.reason))
    return change_row(changes.withdraw(args.change_id, by=args.user))


def render_change_report(report: dict[str, Any]) -> str:
    """Plain text for a terminal: `policy show` prints the policy itself, so that it can be
    redirected into a file, edited and proposed."""
    if "text" in report:
        return str(report["text"]).rstrip("\n")
    if "versions" in report:
        return "\n".join(
            f"version {v['version']}  {v['hash'][:12]}  {v['recorded_at']}  {v['from']}"
            for v in report["versions"]
        )
    if "changes" in report:
        if not report["changes"]:
            return "no policy changes"
        return "\n".join(_change_line(c) for c in report["changes"])
    if "superseded" in report:
        change = report["change"]
        lines = [
            f"policy change {change['id']} applied: version {report['version']['version']}"
            f" ({report['version']['hash'][:12]}), every replica adopts it within seconds",
            f"policy file: {report['file']}",
        ]
        if report["superseded"]:
            lines.append("superseded (propose again on the new version): " + ", ".join(report["superseded"]))
        return "\n".join(lines)
    return "\n".join([_change_line(report), *([report["diff"].rstrip("\n")] if report.get("diff") else [])])


def _change_line(change: dict[str, Any]) -> str:
    decided = (
        f"; {change['status']} by {change['decided_by'] or 'Gatehouse'} at {change['decided_at']}"
        if change["decided_at"]
        else ""
    )
    why = f" ({change['decision_reason']})" if change.get("decision_reason") else ""
    return (
        f"{change['id']}  {change['status']}  by {change['proposed_by']} at {change['proposed_at']},"
        f" on version {change['base_version']}: {change['reason']}{decided}{why}"
    )
