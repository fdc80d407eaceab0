"""The `gatehouse` command line. Exit 0 when the command did its job (whatever the graph's
status), 2 for bad usage or configuration, 3 when a review was already decided."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from gatehouse.errors import ConfigurationError, NotAllowedError, ThreadBusyError
from gatehouse.operator_requests import ask
from gatehouse.policy_report import (
    ReadOnlyPins,
    UnknownCapabilityError,
    explain,
    policy_summary,
    render_explanation,
    render_summary,
)
from gatehouse.render import render_text
from gatehouse.servers_check import check_servers, render_check
from gatehouse.settings import Settings
from gatehouse.wiring import open_services, policy_file, servers_config
from mcp_host.sdk_client import SdkMcpClient
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY
from policies.pins import SqlitePinStore
from reviews.errors import ReviewError

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_ALREADY_DECIDED = 3


def _common_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db", metavar="PATH", help="database file (default: $GATEHOUSE_DB or data/gatehouse.db)"
    )
    common.add_argument(
        "--servers",
        metavar="PATH",
        help="servers file, mcpServers or VS Code format (default: $GATEHOUSE_SERVERS, else bundled servers)",
    )
    common.add_argument(
        "--policy",
        metavar="PATH",
        help="policy file (default: $GATEHOUSE_POLICY, else policies/default.toml)",
    )
    common.add_argument("--json", action="store_true", help="print JSON instead of text")
    return common


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gatehouse", description="Human-in-the-loop review for MCP tool calls."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = _common_options()

    ask_cmd = commands.add_parser("ask", parents=[common], help="send a request and print final_output")
    ask_cmd.add_argument("text", metavar="TEXT", help="the request, in plain words")
    ask_cmd.add_argument(
        "--prefer", action="append", default=[], metavar="SERVER", help="prefer this server (repeatable)"
    )
    ask_cmd.add_argument(
        "--thread", metavar="ID", help="continue this thread (answers a clarifying question)"
    )
    ask_cmd.add_argument(
        "--user", default="operator", metavar="NAME", help="who is asking (default: operator)"
    )

    servers_cmd = commands.add_parser("servers", help="inspect the configured MCP servers")
    servers_actions = servers_cmd.add_subparsers(dest="action", required=True, metavar="ACTION")
    servers_actions.add_parser(
        "check", parents=[common], help="connect to every server; report protocol, counts and connect time"
    )

    policy_cmd = commands.add_parser("policy", help="check a policy file or explain a decision")
    policy_actions = policy_cmd.add_subparsers(dest="action", required=True, metavar="ACTION")
    check_cmd = policy_actions.add_parser("check", parents=[common], help="validate a policy file")
    check_cmd.add_argument(
        "path", nargs="?", metavar="PATH", help="the policy file (default: the configured one)"
    )
    explain_cmd = policy_actions.add_parser(
        "explain", parents=[common], help="the decision for one capability and every reason"
    )
    explain_cmd.add_argument("key", metavar="SERVER__CAPABILITY")
    explain_cmd.add_argument(
        "--args", default="{}", metavar="JSON", help="the arguments to judge (a JSON object)"
    )
    return parser


def _usage_error(message: str) -> int:
    print(f"gatehouse: {message}", file=sys.stderr)
    return EXIT_USAGE


def _print(data: dict[str, Any], as_json: bool, render: Callable[[dict[str, Any]], str]) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False) if as_json else render(data))


def _run_servers_check(args: argparse.Namespace) -> int:
    settings = _settings(args)
    config = servers_config(settings)
    with SdkMcpClient(
        {entry.name: entry for entry in config.servers}, log_dir=settings.server_log_dir
    ) as pool:
        report = check_servers(config, pool)
    _print(report, args.json, render_check)
    return EXIT_OK


def _settings(args: argparse.Namespace) -> Settings:
    return Settings.resolve(db=args.db, servers=args.servers, policy=args.policy)


def _run_policy_check(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if args.path:
        settings = replace(settings, policy_path=Path(args.path))
    policy = policy_file(settings)
    source = str(settings.policy_path or DEFAULT_POLICY)
    _print(policy_summary(policy, source), args.json, render_summary)
    return EXIT_OK


def _run_policy_explain(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args)
    except json.JSONDecodeError as exc:
        return _usage_error(f"--args: not valid JSON: {exc.msg} at column {exc.colno}")
    if not isinstance(arguments, dict):
        return _usage_error("--args: must be a JSON object of argument names and values")
    settings = _settings(args)
    policy = policy_file(settings)
    config = servers_config(settings)
    targets = {entry.name: entry for entry in config.servers}
    pins = SqlitePinStore(settings.db_path)
    try:
        with SdkMcpClient(targets, log_dir=settings.server_log_dir) as pool:
            manifest = pool.discover()
        engine = PolicyEngine(policy, pins=ReadOnlyPins(pins))
        report = explain(engine, manifest, args.key, arguments)
    except UnknownCapabilityError as exc:
        return _usage_error(f"{args.key}: {exc}")
    finally:
        pins.close()
    _print(report, args.json, render_explanation)
    return EXIT_OK


def _run_ask(args: argparse.Namespace) -> int:
    settings = _settings(args)
    with open_services(settings) as services:
        known = services.mcp.server_names()
        unknown = [name for name in args.prefer if name not in known]
        if unknown:
            listed = ", ".join(known) or "none"
            return _usage_error(
                f"--prefer: unknown server {', '.join(unknown)}; configured servers: {listed}"
            )
        try:
            outcome = ask(
                services,
                args.text,
                thread_id=args.thread,
                requester=args.user,
                server_preferences=args.prefer,
            )
        except ThreadBusyError as exc:
            return _usage_error(f"--thread: {exc}")
        except NotAllowedError as exc:
            return _usage_error(f"--user: {exc}")
    _print(outcome.final_output.model_dump(mode="json"), args.json, render_text)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    # In-process demo servers log through the root logger; keep their chatter off the terminal.
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = _parser().parse_args(argv)
    try:
        if args.command == "ask":
            return _run_ask(args)
        if args.command == "servers":
            return _run_servers_check(args)
        if args.command == "policy":
            return _run_policy_check(args) if args.action == "check" else _run_policy_explain(args)
    except ConfigurationError as exc:
        return _usage_error(str(exc))
    except ReviewError as exc:
        return _usage_error(str(exc))
    return _usage_error(f"unknown command {args.command}")


if __name__ == "__main__":
    sys.exit(main())
