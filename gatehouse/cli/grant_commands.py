"""`gatehouse grants list|revoke` and the `--remember` options of `gatehouse reviews decide`:
remembered approvals (reviews/grant_service.py) from a terminal."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reviews.grant_service import GrantService, Remember
    from reviews.grants import Grant


def add_remember_options(decide: argparse.ArgumentParser) -> None:
    """`reviews decide --approve --remember thread|DURATION|requester [--within JSON] [--uses N]`."""
    decide.add_argument(
        "--remember",
        metavar="thread|DURATION|requester",
        help="also approve later calls of this capability within bounds: on this thread, for a"
        " time window (30m, 8h, 7d; anyone's requests) or for this requester (docs/grants.md)",
    )
    decide.add_argument(
        "--within",
        metavar="JSON",
        help='with --remember: bounds per argument, e.g. {"to": {"domain": "example.com"}, "body": "any"};'
        " every other argument stays exactly as approved",
    )
    decide.add_argument("--uses", type=int, metavar="N", help="with --remember: at most N calls")


def remember_from(args: argparse.Namespace) -> Remember | None:
    """The Remember the options ask for (None without --remember); checked before anything
    is opened."""
    from gatehouse.cli.cli_input import json_arguments
    from gatehouse.errors import ConfigurationError
    from reviews.errors import ReviewError
    from reviews.grant_service import parse_remember

    if args.remember is None:
        if args.within is not None or args.uses is not None:
            raise ConfigurationError("--within and --uses go with --remember")
        return None
    if not args.approve:
        raise ConfigurationError("--remember goes with --approve")
    within = json_arguments(args.within, "--within") if args.within is not None else None
    try:
        return parse_remember(args.remember, within=within, uses=args.uses)
    except ReviewError as exc:
        raise ConfigurationError(str(exc)) from exc


def add_grant_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    grants_cmd = commands.add_parser("grants", help="remembered approvals: list and revoke them")
    actions = grants_cmd.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser(
        "list", parents=[common], help="the grants that cover calls now, newest first"
    )
    listing.add_argument(
        "--all", action="store_true", help="also those expired, used up, revoked or ended by the policy"
    )
    revoke = actions.add_parser("revoke", parents=[common], help="end a grant now (audited)")
    revoke.add_argument("grant_id", metavar="ID")
    revoke.add_argument(
        "--user", required=True, metavar="NAME", help="who revokes it (its maker or a reviewer)"
    )
    revoke.add_argument("--reason", metavar="TEXT", help="why (kept in the audit log)")


def grant_row(grant: Grant, now: Any) -> dict[str, Any]:
    from policies.grant_bounds import describe

    return {
        "id": grant.id,
        "state": grant.state(now),
        "capability": grant.capability_key,
        "scope": grant.scope_words(),
        "bounds": describe(grant.bounds),
        "approved_by": grant.created_by,
        "review_id": grant.review_id,
        "created_at": grant.created_at,
        "expires_at": grant.expires_at,
        "uses": grant.uses_max,
        "uses_left": grant.uses_left,
        "used": grant.use_count,
        "revoked_by": grant.revoked_by,
        "revoke_reason": grant.revoke_reason,
    }


def run_grant_command(args: argparse.Namespace, grants: GrantService) -> dict[str, Any]:
    if args.action == "revoke":
        grant = grants.revoke(args.grant_id, by=args.user, reason=args.reason)
        return {"revoked": grant_row(grant, grants.store.now())}
    now = grants.store.now()
    return {"grants": [grant_row(grant, now) for grant in grants.list(everything=args.all)]}


def render_grants(report: dict[str, Any]) -> str:
    if "revoked" in report:
        grant = report["revoked"]
        return f"grant {grant['id']} revoked by {grant['revoked_by']}: {grant['revoke_reason']}"
    rows = report["grants"]
    if not rows:
        return "no grants"
    lines = []
    for row in rows:
        uses = "no cap" if row["uses"] is None else f"{row['uses_left']} of {row['uses']} left"
        lines.append(
            f"{row['id']}  {row['state']:<8} {row['capability']}  for {row['scope']}; {row['bounds']};"
            f" approved by {row['approved_by']}; until {row['expires_at']}; {uses}"
        )
        if row["revoked_by"]:
            lines.append(f"    ended by {row['revoked_by']}: {row['revoke_reason']}")
    return "\n".join(lines)
