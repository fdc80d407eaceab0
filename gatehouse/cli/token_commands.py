"""`gatehouse tokens issue|list|revoke`, `gatehouse serve` and `gatehouse bridge`: the bearer
tokens MCP clients call Gatehouse's MCP endpoint with (gatehouse/credentials/access_tokens.py),
the endpoint itself, and the stdio bridge to it for clients that only start local servers
(gatehouse/gateway/, docs/mcp-gateway.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from gatehouse.settings import BRIDGE_TOKEN_ENV

if TYPE_CHECKING:
    from datetime import datetime

    from gatehouse.credentials.access_tokens import TokenRecord

DEFAULT_PORT = 8765
# What --wait takes: an hour is longer than any client keeps a request open.
MAX_WAIT_SECONDS = 3600


def add_token_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    from gatehouse.credentials.access_tokens import DEFAULT_EXPIRY_DAYS

    tokens_cmd = commands.add_parser("tokens", help="bearer tokens for MCP clients of `gatehouse serve`")
    actions = tokens_cmd.add_subparsers(dest="action", required=True, metavar="ACTION")
    issue = actions.add_parser(
        "issue", parents=[common], help="issue a token for a person of the roster (shown once)"
    )
    issue.add_argument("user", metavar="USER", help="the roster name the token's calls are requested as")
    issue.add_argument(
        "--expires",
        type=float,
        default=DEFAULT_EXPIRY_DAYS,
        metavar="DAYS",
        help=f"days until the token stops working (default {DEFAULT_EXPIRY_DAYS})",
    )
    actions.add_parser("list", parents=[common], help="every token issued: whose, until when, its state")
    revoke = actions.add_parser("revoke", parents=[common], help="end a token now")
    revoke.add_argument("token_id", metavar="ID")


def add_serve_command(commands: Any, common: argparse.ArgumentParser) -> None:
    from gatehouse.settings import DEFAULT_GATEWAY_WAIT_SECONDS as DEFAULT_WAIT_SECONDS

    serve = commands.add_parser(
        "serve",
        parents=[common],
        help="serve the configured servers' tools as an MCP server (Streamable HTTP), every call gated",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})"
    )
    serve.add_argument(
        "--wait",
        type=_positive_seconds,
        default=DEFAULT_WAIT_SECONDS,
        metavar="SECONDS",
        help=(
            "how long a call that needs a reviewer stays open for a client without the tasks extension "
            f"(default {DEFAULT_WAIT_SECONDS:g}; calling again with the same arguments keeps waiting)"
        ),
    )


def _positive_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < seconds <= MAX_WAIT_SECONDS:
        raise argparse.ArgumentTypeError(
            f"{text}: give a number of seconds above 0 and at most {MAX_WAIT_SECONDS}"
        )
    return seconds


def add_bridge_command(commands: Any) -> None:
    bridge = commands.add_parser(
        "bridge",
        help="an MCP server over stdio that forwards every request to a `gatehouse serve` endpoint",
        description=(
            "Serve MCP over stdin and stdout for a client that only starts local servers, forwarding "
            f"every request to URL with the token in ${BRIDGE_TOKEN_ENV} (never on the command line). "
            "Plain http only to this machine."
        ),
    )
    bridge.add_argument("url", metavar="URL", help="the endpoint, e.g. http://127.0.0.1:8765/mcp")


def token_row(record: TokenRecord, now: datetime) -> dict[str, Any]:
    return {
        "id": record.id,
        "user": record.user,
        "state": record.state(now),
        "created_at": record.created_at.isoformat(),
        "expires_at": record.expires_at.isoformat(),
        "revoked_at": record.revoked_at.isoformat() if record.revoked_at else None,
    }


def render_tokens(report: dict[str, Any]) -> str:
    if "token" in report:
        row = report["issued"]
        return (
            f"token {row['id']} for {row['user']}, until {row['expires_at']}:\n{report['token']}\n"
            "It is shown this once: Gatehouse keeps only its hash. Clients send it as "
            "'Authorization: Bearer TOKEN'."
        )
    if "revoked" in report:
        row = report["revoked"]
        return f"token {row['id']} of {row['user']} revoked at {row['revoked_at']}"
    # Listed under "issued": a key named like "tokens" is a secret's to every redactor.
    rows = report["issued"]
    if not rows:
        return "no tokens"
    return "\n".join(
        f"{row['id']}  {row['state']:<8} {row['user']}  issued {row['created_at']}, until {row['expires_at']}"
        for row in rows
    )
