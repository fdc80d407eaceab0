"""`gatehouse policy suggest`: rules learned from reviewers' decisions, each with its replay over
the recorded history (reviews/suggestions.py), and `--propose N` to adopt one as a policy change."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gatehouse.settings import Settings
    from reviews.suggestions import Suggestions


def add_suggest_command(actions: Any, common: argparse.ArgumentParser) -> None:
    suggest = actions.add_parser(
        "suggest",
        parents=[common],
        help="rules learned from reviewers' decisions, each replayed over the recorded history",
    )
    suggest.add_argument(
        "--days",
        type=int,
        metavar="N",
        help="read this many days of decisions (default 30, GATEHOUSE_SUGGEST_DAYS)",
    )
    suggest.add_argument(
        "--min-decisions",
        type=int,
        metavar="N",
        help="decisions one capability needs before a rule is suggested (default 5, GATEHOUSE_SUGGEST_MIN_DECISIONS)",
    )
    suggest.add_argument(
        "--propose",
        type=int,
        metavar="N",
        help="propose the current policy plus suggestion N as a policy change (another admin approves it)",
    )
    suggest.add_argument("--user", metavar="NAME", help="who proposes it (manage_policy); with --propose")
    suggest.add_argument("--reason", metavar="TEXT", help="why (default: the suggestion's evidence)")


def run_suggest_command(
    args: argparse.Namespace, settings: Settings, suggestions: Suggestions
) -> dict[str, Any]:
    """The suggestions as a report, or the policy change proposing one of them."""
    from gatehouse.errors import ConfigurationError

    days = args.days if args.days is not None else settings.suggest_days
    min_decisions = args.min_decisions if args.min_decisions is not None else settings.suggest_min_decisions
    if days < 1 or min_decisions < 1:
        raise ConfigurationError("--days and --min-decisions are whole numbers of 1 or more")
    if args.propose is None:
        found = suggestions.suggest(days=days, min_decisions=min_decisions)
        return {"days": days, "min_decisions": min_decisions, "suggestions": [s.report() for s in found]}
    if not args.user:
        raise ConfigurationError("--propose needs --user NAME: who proposes the change (manage_policy)")
    chosen, change = suggestions.propose(
        args.propose, by=args.user, reason=args.reason, days=days, min_decisions=min_decisions
    )
    return {"proposed": chosen.report(), "change": change.id, "status": change.status}


def render_suggest_report(report: dict[str, Any]) -> str:
    # The exclude gets the capability's glob (its spelling where its name holds glob marks).
    # Imported here: `gatehouse --help` loads this module and imports nothing it does not show.
    from policies.names import key_glob

    if "change" in report:
        narrows = report["proposed"]["narrows"]
        narrowed = (
            f"\nand adds {key_glob(report['proposed']['capability'])} to the exclude of rule {', '.join(narrows)}"
            if narrows
            else ""
        )
        return (
            f"policy change {report['change']} proposed ({report['status']}): it adds\n"
            f"{report['proposed']['rule'].rstrip()}{narrowed}\n"
            f"see `gatehouse policy diff {report['change']}`; another admin approves it"
        )
    if not report["suggestions"]:
        return (
            f"no suggestions: no capability has {report['min_decisions']} or more decisions all one way"
            f" in the last {report['days']} days"
        )
    blocks = []
    for item in report["suggestions"]:
        evidence, replay = item["evidence"], item["replay"]
        lines = [
            f"{item['number']}. {item['kind']} {item['capability']}: {evidence['decisions']} decisions"
            f" ({evidence['approved_unchanged']} approved unchanged, {evidence['edited']} edited,"
            f" {evidence['rejected']} rejected)",
            f"   replay: would have decided {replay['would_decide']} calls; {replay['rejected']} rejected,"
            f" {replay['edited']} edited, {replay['failed']} failed, {replay['outcome_unknown']} outcome unknown",
        ]
        if evidence["bounds"]:
            lines.append(f"   bounds: {evidence['bounds']}")
        if evidence["unbounded_arguments"]:
            lines.append(f"   left free: {', '.join(evidence['unbounded_arguments'])}")
        if item["narrows"]:
            lines.append(
                f"   adopting it narrows: {', '.join(item['narrows'])} ({key_glob(item['capability'])} added to their"
                " exclude; this rule keeps their review terms and refusals)"
            )
        if item["still_held_by"]:
            lines.append(
                f"   still held for review by: {', '.join(item['still_held_by'])} (never narrowed:"
                " they hold tools by what their server says of them)"
            )
        if item.get("in_force"):
            lines.append(
                f"   already in force: rule {item['in_force']} of the policy decides it so (nothing to adopt)"
            )
        elif item["not_adoptable"]:
            lines.append(f"   not adoptable: {item['not_adoptable']}")
        lines += ["   " + line for line in item["rule"].rstrip("\n").splitlines()]
        blocks.append("\n".join(lines))
    listing = "\n\n".join(blocks)
    if not any(item["adoptable"] for item in report["suggestions"]):
        return listing + "\n\nnone to adopt: each is in force already or not adoptable"
    return listing + "\n\nadopt one: gatehouse policy suggest --propose N --user NAME"
