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
from typing import TYPE_CHECKING, Any

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
from gatehouse.review_commands import dumps, render_decision, render_queue, render_trace, review_row
from gatehouse.servers_check import check_servers, render_check
from gatehouse.settings import Settings
from gatehouse.visible_text import continued, visible
from gatehouse.wiring import open_services, policy_file, server_pool, servers_config
from graph.runner import thread_exists
from graph.trace import trace_steps
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY
from policies.pins import DatabasePinStore
from reviews.audit import AuditLog
from reviews.errors import AlreadyDecidedError, ReviewError

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_ALREADY_DECIDED = 3
# `audit verify` found a tampered row: the command ran, the log failed it.
EXIT_VERIFY_FAILED = 1


def _emit(text: str, *, error: bool = False, end: str = "\n") -> None:
    """The one way out to the terminal: whatever the CLI prints (answers, tool output, error
    lines, JSON, exports) passes here, with terminal control characters made visible."""
    (sys.stderr if error else sys.stdout).write(visible(text + end))


class _Parser(argparse.ArgumentParser):
    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # argparse echoes what it was given (an unknown choice, say): through the same door.
        if message:
            _emit(message, error=file is not sys.stdout, end="")


class _TerminalLogFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return visible(super().format(record))


def _common_options() -> _Parser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--db",
        metavar="PATH_OR_URL",
        help="database file or postgresql:// URL (default: $GATEHOUSE_DB or data/gatehouse.db)",
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
    parser = _Parser(prog="gatehouse", description="Human-in-the-loop review for MCP tool calls.")
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

    reviews_cmd = commands.add_parser("reviews", help="the review queue")
    reviews_actions = reviews_cmd.add_subparsers(dest="action", required=True, metavar="ACTION")
    list_cmd = reviews_actions.add_parser("list", parents=[common], help="reviews, oldest first, with expiry")
    list_cmd.add_argument(
        "--status",
        help="only this status (pending, approved, rejected, expired, executed, failed, not_run, outcome_unknown)",
    )
    decide_cmd = reviews_actions.add_parser("decide", parents=[common], help="approve or reject one review")
    decide_cmd.add_argument("review_id", metavar="ID")
    verdict = decide_cmd.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--approve", action="store_true")
    verdict.add_argument("--reject", action="store_true")
    decide_cmd.add_argument("--reviewer", required=True, metavar="NAME")
    decide_cmd.add_argument("--reason", metavar="TEXT", help="why (required to reject)")
    decide_cmd.add_argument(
        "--args", metavar="JSON", help="edited arguments to approve instead (re-validated)"
    )
    reviews_actions.add_parser(
        "sweep", parents=[common], help="expire overdue reviews; escalate unknown outcomes"
    )

    audit_cmd = commands.add_parser("audit", help="the hash-chained audit log")
    audit_actions = audit_cmd.add_subparsers(dest="action", required=True, metavar="ACTION")
    audit_actions.add_parser(
        "verify", parents=[common], help="check the chain; exit 1 naming any tampered row"
    )
    export_cmd = audit_actions.add_parser("export", parents=[common], help="print every event")
    export_cmd.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")

    trace_cmd = commands.add_parser("trace", parents=[common], help="a thread's steps from its checkpoints")
    trace_cmd.add_argument("thread_id", metavar="THREAD")
    return parser


def _usage_error(message: str) -> int:
    _emit(f"gatehouse: {continued(message, len('gatehouse: '))}", error=True)
    return EXIT_USAGE


def _print(data: dict[str, Any], as_json: bool, render: Callable[[dict[str, Any]], str]) -> None:
    _emit(json.dumps(data, indent=2, ensure_ascii=False) if as_json else render(data))


def _run_servers_check(args: argparse.Namespace) -> int:
    settings = _settings(args)
    config = servers_config(settings)
    with server_pool(settings, config=config) as pool:
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
    pins = DatabasePinStore(settings.store_target)
    try:
        with server_pool(settings) as pool:
            manifest = pool.discover()
        engine = PolicyEngine(policy, pins=ReadOnlyPins(pins))
        report = explain(engine, manifest, args.key, arguments)
    except UnknownCapabilityError as exc:
        return _usage_error(f"{args.key}: {exc}")
    finally:
        pins.close()
    _print(report, args.json, render_explanation)
    return EXIT_OK


def _run_reviews(args: argparse.Namespace) -> int:
    with open_services(_settings(args), connect_servers=args.action != "list") as services:
        if args.action == "list":
            rows = [review_row(r) for r in services.reviews.queue(args.status)]
            _print({"status": args.status, "reviews": rows}, args.json, render_queue)
            return EXIT_OK
        if args.action == "sweep":
            swept = services.reviews.sweep()
            _print(
                swept,
                args.json,
                lambda r: f"expired: {len(r['expired'])}; outcome unknown: {len(r['outcome_unknown'])}",
            )
            return EXIT_OK
        edited = None
        if args.args is not None:
            try:
                edited = json.loads(args.args)
            except json.JSONDecodeError as exc:
                return _usage_error(f"--args: not valid JSON: {exc.msg} at column {exc.colno}")
            if not isinstance(edited, dict):
                return _usage_error("--args: must be a JSON object of argument names and values")
        result = services.reviews.decide(
            args.review_id, reviewer=args.reviewer, approve=args.approve, reason=args.reason, arguments=edited
        )
        report = {
            "review": review_row(result.review),
            "final_output": result.run.final_output.model_dump(mode="json") if result.run else None,
        }
        _print(report, args.json, render_decision)
        return EXIT_OK


def _run_audit(args: argparse.Namespace) -> int:
    settings = _settings(args)
    audit = AuditLog(settings.store_target)
    try:
        if args.action == "export":
            _emit(audit.export(args.format), end="")
            return EXIT_OK
        report = audit.verify()
    finally:
        audit.close()
    _print(
        report.model_dump(),
        args.json,
        lambda r: (
            f"audit log ok: {r['events']} events, chain intact"
            if r["ok"]
            else "audit log TAMPERED:\n" + "\n".join(f"  {p}" for p in r["problems"])
        ),
    )
    return EXIT_OK if report.ok else EXIT_VERIFY_FAILED


def _run_trace(args: argparse.Namespace) -> int:
    with open_services(_settings(args), connect_servers=False) as services:
        if not thread_exists(services.graph, args.thread_id):
            return _usage_error(f"no thread {args.thread_id} in {services.settings.database}")
        report = {"thread_id": args.thread_id, "steps": trace_steps(services.graph, args.thread_id)}
    _emit(dumps(report) if args.json else render_trace(report))
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
    log_handler = logging.StreamHandler()
    log_handler.setFormatter(_TerminalLogFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[log_handler])
    args = _parser().parse_args(argv)
    try:
        if args.command == "ask":
            return _run_ask(args)
        if args.command == "servers":
            return _run_servers_check(args)
        if args.command == "policy":
            return _run_policy_check(args) if args.action == "check" else _run_policy_explain(args)
        if args.command == "reviews":
            return _run_reviews(args)
        if args.command == "audit":
            return _run_audit(args)
        if args.command == "trace":
            return _run_trace(args)
    except ConfigurationError as exc:
        return _usage_error(str(exc))
    except AlreadyDecidedError as exc:
        _emit(f"gatehouse: {exc}", error=True)
        return EXIT_ALREADY_DECIDED
    except ReviewError as exc:
        return _usage_error(str(exc))
    return _usage_error(f"unknown command {args.command}")


if __name__ == "__main__":
    sys.exit(main())
