"""The `gatehouse` command line. Exit 0 when the command did its job (whatever the graph's
status), 1 when `audit verify` finds the log tampered or `gatehouse eval` misses a target, 2 for
bad usage or configuration, 3 when
a review was already decided, 70 for an unexpected error, 141 when the reader of the output
went away. Every error is one line on stderr."""

from __future__ import annotations

# Only what parsing the command line and reporting its errors needs is imported here: `gatehouse
# --help` and a usage error must not wait for LangGraph, LangChain or the MCP SDK (over a second
# on these machines). Each command imports what it uses when it runs, and `reviews list` reads
# the ledger without the graph (gatehouse/read_only.py). tests/gatehouse/cli/test_cli_imports.py
# holds this.
import argparse
import faulthandler
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from gatehouse.cli.cli_input import check_text_arguments, json_arguments
from gatehouse.cli.grant_commands import add_grant_commands, add_remember_options, remember_from
from gatehouse.cli.policy_change_commands import CHANGE_ACTIONS, add_change_commands
from gatehouse.cli.suggest_commands import add_suggest_command
from gatehouse.cli.token_commands import add_bridge_command, add_serve_command, add_token_commands
from gatehouse.display.visible_text import visible
from gatehouse.settings import Settings
from mcp_host.reported import EXIT_USAGE, ReportedError

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from mcp_host.config import ServersConfig
    from policies.secrets import SecretRedactor

EXIT_OK = 0
# Bad usage or configuration (2) and a review already decided (3) are the exit codes of the
# errors that carry them (mcp_host/reported.py); EXIT_USAGE is also argparse's.
# `audit verify` found a tampered row: the command ran, the log failed it.
EXIT_VERIFY_FAILED = 1
# `gatehouse eval` ran every case and the figures missed a target (as `make eval`).
EXIT_TARGET_MISSED = 1
# Anything else that went wrong: a bug, reported in one line (sysexits' EX_SOFTWARE).
EXIT_INTERNAL_ERROR = 70
EXIT_INTERRUPTED = 130
# The reader of the output went away (`gatehouse audit export | head -1`): what a tool killed
# by SIGPIPE reports (128 + 13), so a pipeline under `set -o pipefail` sees the cut output.
EXIT_BROKEN_PIPE = 141
# GATEHOUSE_DEBUG=1 prints the traceback of an unexpected error after its one line.
DEBUG_ENV = "GATEHOUSE_DEBUG"
# How long `servers login` waits for the browser to come back.
DEFAULT_LOGIN_SECONDS = 300.0


def _emit(text: str, *, error: bool = False, end: str = "\n") -> None:
    """The one way out to the terminal: whatever the CLI prints (answers, tool output, error
    lines, JSON, exports) passes here, with terminal control characters made visible.

    Written through the stream's buffer a buffer's worth at a time: one large write goes to
    the pipe directly, and when the reader leaves halfway Python drops the rest silently (exit
    0, the output cut unnoticed); through the buffer, the cut raises BrokenPipeError (141)."""
    stream = sys.stderr if error else sys.stdout
    shown = visible(text + end)
    chunk = 8192
    for start in range(0, len(shown), chunk):
        stream.write(shown[start : start + chunk])


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line (its default prints the usage block too), and
    everything it echoes through the same door as the rest of the output."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
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
        "--thread",
        metavar="ID",
        help="continue this thread (answers a clarifying question): its id, or the short one shown on screen",
    )
    ask_cmd.add_argument(
        "--user", default="operator", metavar="NAME", help="who is asking (default: operator)"
    )

    commands.add_parser(
        "capabilities",
        parents=[common],
        help="what operators can ask: every capability by server, in plain words, with an example request",
    )

    servers_cmd = commands.add_parser("servers", help="inspect the configured MCP servers")
    servers_actions = servers_cmd.add_subparsers(dest="action", required=True, metavar="ACTION")
    servers_actions.add_parser(
        "check", parents=[common], help="connect to every server; report protocol, counts and connect time"
    )
    login_cmd = servers_actions.add_parser(
        "login",
        parents=[common],
        help="sign in to a remote server (OAuth): prints the address to open, waits on 127.0.0.1",
    )
    login_cmd.add_argument("name", metavar="NAME", help="the server's name in the servers file")
    login_cmd.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_LOGIN_SECONDS,
        metavar="SECONDS",
        help=f"how long to wait for the browser to come back (default: {DEFAULT_LOGIN_SECONDS:g})",
    )
    key_cmd = servers_actions.add_parser(
        "key",
        parents=[common],
        help="print Gatehouse's public keys, which verifying servers check side-effecting calls' grants with",
    )
    key_change = key_cmd.add_mutually_exclusive_group()
    key_change.add_argument(
        "--rotate",
        action="store_true",
        help="make a new signing key; servers keep accepting the one it replaces until --retire",
    )
    key_change.add_argument(
        "--retire", action="store_true", help="stop servers accepting every key a rotation replaced"
    )
    logout_cmd = servers_actions.add_parser(
        "logout", parents=[common], help="forget a remote server's sign-in (for every replica)"
    )
    logout_cmd.add_argument("name", metavar="NAME", help="the server's name in the servers file")

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
    add_change_commands(policy_actions, common)
    add_suggest_command(policy_actions, common)

    reviews_cmd = commands.add_parser("reviews", help="the review queue")
    reviews_actions = reviews_cmd.add_subparsers(dest="action", required=True, metavar="ACTION")
    list_cmd = reviews_actions.add_parser(
        "list",
        parents=[common],
        help="reviews, oldest first, with expiry (reads only: overdue ones wait for `reviews sweep`)",
    )
    list_cmd.add_argument(
        "--status",
        help="only this status (pending, approved, rejected, expired, cancelled, executed, failed, not_run, outcome_unknown)",
    )
    decide_cmd = reviews_actions.add_parser("decide", parents=[common], help="approve or reject one review")
    decide_cmd.add_argument(
        "review_id",
        metavar="ID",
        help="the review's full id, or the short one shown on screen if no other shares it",
    )
    verdict = decide_cmd.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--approve", action="store_true")
    verdict.add_argument("--reject", action="store_true")
    decide_cmd.add_argument("--reviewer", required=True, metavar="NAME")
    decide_cmd.add_argument("--reason", metavar="TEXT", help="why (required to reject)")
    decide_cmd.add_argument(
        "--args", metavar="JSON", help="edited arguments to approve instead (re-validated)"
    )
    decide_cmd.add_argument(
        "--answer",
        metavar="TEXT",
        help="a server's request for a model completion: the answer it gets (default: the configured model's)",
    )
    add_remember_options(decide_cmd)
    resume_value_cmd = reviews_actions.add_parser(
        "resume-value",
        parents=[common],
        help="a decided review's decision as JSON, to resume its thread through the LangGraph API",
    )
    resume_value_cmd.add_argument(
        "review_id",
        metavar="ID",
        help="the review's full id, or the short one shown on screen if no other shares it",
    )
    withdraw_cmd = reviews_actions.add_parser(
        "withdraw", parents=[common], help="withdraw your own request while it waits (it ends cancelled)"
    )
    withdraw_cmd.add_argument(
        "review_id",
        metavar="THREAD_OR_REVIEW",
        help="the thread's or its review's id, full or short as shown on screen",
    )
    withdraw_cmd.add_argument(
        "--user", default="operator", metavar="NAME", help="who withdraws it (the requester)"
    )
    reviews_actions.add_parser(
        "sweep", parents=[common], help="expire overdue reviews; escalate unknown outcomes"
    )

    audit_cmd = commands.add_parser("audit", help="the hash-chained audit log")
    audit_actions = audit_cmd.add_subparsers(dest="action", required=True, metavar="ACTION")
    verify_cmd = audit_actions.add_parser(
        "verify",
        parents=[common],
        help="check the chain (keyed with $GATEHOUSE_AUDIT_KEY when set) and the decisions against"
        " the ledger; exit 1 naming any tampered row",
    )
    verify_cmd.add_argument(
        "--anchor",
        metavar="ANCHOR_OR_FILE",
        help="also check the log still holds what this anchor (its JSON) or every anchor in this file signed",
    )
    anchor_cmd = audit_actions.add_parser(
        "anchor",
        parents=[common],
        help="print the chain's head signed with $GATEHOUSE_AUDIT_KEY, to keep outside the database",
    )
    anchor_cmd.add_argument(
        "--append", metavar="FILE", help="also append the anchor to this file (JSON lines)"
    )
    export_cmd = audit_actions.add_parser("export", parents=[common], help="print every event")
    export_cmd.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")

    add_grant_commands(commands, common)
    add_token_commands(commands, common)
    add_serve_command(commands, common)
    add_bridge_command(commands)

    trace_cmd = commands.add_parser("trace", parents=[common], help="a thread's steps from its checkpoints")
    trace_cmd.add_argument(
        "thread_id",
        metavar="THREAD",
        help="the thread's id, or the short one shown on screen (a review's works too)",
    )
    _add_eval(commands)
    return parser


EVAL_DESCRIPTION = """\
Run your own requests (a cases file: docs/eval.md) through `gatehouse ask` on your servers
and policy, and print how many were right, per group and per batch, with the same report as
`make eval`. It never writes to your database: every request runs on a temporary one, deleted
afterwards (no --db). Requests your policy allows are really run on your servers; the ones it
holds for review wait in the temporary database and are never decided. No notification is
sent. Exit 0 when every target is met, 1 when one is missed, 2 for a bad file or configuration."""


def _add_eval(commands: Any) -> None:
    eval_cmd = commands.add_parser(
        "eval",
        help="score your own requests (docs/eval.md) on your servers; uses a temporary database, never yours",
        description=EVAL_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    eval_cmd.add_argument("file", metavar="FILE", help="the cases file (JSON, docs/eval.md)")
    eval_cmd.add_argument(
        "--servers",
        metavar="PATH",
        help="servers file, mcpServers or VS Code format (default: $GATEHOUSE_SERVERS, else bundled servers)",
    )
    eval_cmd.add_argument(
        "--policy",
        metavar="PATH",
        help="policy file (default: $GATEHOUSE_POLICY, else policies/default.toml)",
    )
    eval_cmd.add_argument(
        "-k",
        dest="selector",
        metavar="TEXT",
        help="only cases whose id contains TEXT, or of the group or batch TEXT",
    )
    eval_cmd.add_argument("--json", action="store_true", help="print the report as JSON")


def _one_line(message: str) -> str:
    """A message as one line: line breaks and other control characters shown escaped."""
    flat = " ".join(message.split())
    return "".join(ch if ch.isprintable() or ch == " " else ascii(ch).strip("'") for ch in flat)


def _error(message: str, code: int) -> int:
    from policies.secrets import DEFAULT_REDACTOR

    _emit(f"gatehouse: {_one_line(DEFAULT_REDACTOR.text(message))}", error=True)
    return code


def _reported(error: ReportedError) -> int:
    """A reported error's lines: the first as any error, each further mistake it names on a
    line of its own, indented under it (each made one line, as every error line is)."""
    _error_lines(*error.lines)
    return error.exit_code


def _warn(message: str) -> None:
    _error_lines(message)


def _error_lines(first: str, *more: str) -> None:
    """Lines on stderr: the first as any error line, each further one (another mistake of the
    same input) indented under it, each made one line."""
    from policies.secrets import DEFAULT_REDACTOR

    _emit(f"gatehouse: {_one_line(DEFAULT_REDACTOR.text(first))}", error=True)
    for line in more:
        _emit(f"gatehouse:   {_one_line(DEFAULT_REDACTOR.text(line))}", error=True)


def _usage_error(message: str) -> int:
    return _error(message, EXIT_USAGE)


def _print(
    data: dict[str, Any],
    as_json: bool,
    render: Callable[[dict[str, Any]], str],
    secrets: SecretRedactor | None = None,
    *,
    thread_id: str | None = None,
) -> None:
    # Everything printed has its secrets hidden (a tool's output, arguments, a server's URL);
    # without the policy's own names, the built-in ones. Output about a thread also hides
    # what the thread's request and results were found to hold, wherever it appears.
    if secrets is None:
        from policies.secrets import DEFAULT_REDACTOR

        secrets = DEFAULT_REDACTOR
    shown = secrets.value(data, thread_id=thread_id)
    _emit(json.dumps(shown, indent=2, ensure_ascii=False) if as_json else render(shown))


def _run_servers_check(args: argparse.Namespace) -> int:
    from gatehouse.cli.servers_check import check_servers, render_check
    from gatehouse.planner_choice import planner_for
    from gatehouse.wiring import server_pool, servers_config

    settings = _settings(args)
    # Broken entries are reported with the others, as FAIL naming the file, entry and key.
    config = servers_config(settings)
    planner = planner_for(settings.model, timeout=settings.model_timeout)
    with server_pool(settings, config=config) as pool:
        report = check_servers(config, pool) | {"planner": planner.label}
    _print(report, args.json, render_check)
    return EXIT_USAGE if config.problems else EXIT_OK


def _run_servers_key(args: argparse.Namespace) -> int:
    from gatehouse.cli.servers_key import key_report, render_key

    report = key_report(_settings(args).data_dir, rotate=args.rotate, retire=args.retire)
    # Printed as it is: public keys only, which the secret redactor could take for tokens.
    _emit(json.dumps(report, indent=2) if args.json else render_key(report))
    return EXIT_OK


def _loaded_servers(settings: Settings) -> ServersConfig:
    """The servers file for a command that uses the servers: each entry left out as broken
    is named on stderr and the command goes on with the others; a file none of whose
    entries loads is refused as a whole, naming every entry's problem (exit 2)."""
    from gatehouse.wiring import servers_config

    config = servers_config(settings)
    unusable = config.unusable()
    if unusable is not None:
        raise unusable
    for problem in config.problems:
        # Every mistake of the entry, one a line, as a refused file's (_reported).
        first, *more = problem.lines
        _error_lines(f"skipping server {problem.entry}: {first}", *more)
    return config


def _run_capabilities(args: argparse.Namespace) -> int:
    from gatehouse.display.catalogue import catalogue_data, catalogue_of, render_catalogue
    from gatehouse.wiring import server_pool

    settings = _settings(args)
    config = _loaded_servers(settings)
    with server_pool(settings, config=config) as pool:
        # The host's own discovery, as a request's: the same listing the planner chooses from.
        manifest = pool.discover()
    notes = {server.name: server.capability_notes for server in config.servers}
    _print(catalogue_data(catalogue_of(manifest, notes)), args.json, render_catalogue)
    return EXIT_OK


def _run_servers_login(args: argparse.Namespace) -> int:
    from gatehouse.credentials.server_login import login

    def show(server: str, url: str) -> None:
        _emit(
            f"Open this address in a browser to sign in to {server}:\n\n  {url}\n\nWaiting for the sign-in to come back ..."
        )

    report = login(_settings(args), args.name, show, timeout=args.timeout)
    if not report["connected"]:
        return _error(f"{args.name}: {report['error']}", EXIT_USAGE)
    _emit(f"Signed in to {args.name}: connected, {report['offers']}. Every replica uses this sign-in.")
    return EXIT_OK


def _settings(args: argparse.Namespace) -> Settings:
    return Settings.resolve(db=args.db, servers=args.servers, policy=args.policy)


def _run_policy_check(args: argparse.Namespace) -> int:
    from gatehouse.display.policy_report import policy_summary, render_summary
    from gatehouse.read_only import policy_file
    from policies.loader import DEFAULT_POLICY

    settings = _settings(args)
    if args.path:
        settings = replace(settings, policy_path=Path(args.path))
    policy = policy_file(settings)
    source = str(settings.policy_path or DEFAULT_POLICY)
    _print(policy_summary(policy, source), args.json, render_summary)
    return EXIT_OK


def _run_policy_explain(args: argparse.Namespace) -> int:
    from gatehouse.display.policy_report import UnknownCapabilityError, explain, render_explanation
    from gatehouse.wiring import (
        declared_roots,
        open_pins_for_reading,
        policy_file,
        policy_in_force,
        server_pool,
    )
    from policies.engine import PolicyEngine

    arguments = json_arguments(args.args, "--args")
    settings = _settings(args)
    policy = policy_file(settings)
    config = _loaded_servers(settings)
    with open_pins_for_reading(settings) as pins:
        # The version in force: a change approved in the app since the file was read, if any.
        policy = policy_in_force(settings, policy, pins)
        try:
            with server_pool(settings, config=config) as pool:
                manifest = pool.discover()
            engine = PolicyEngine(policy, pins=pins, declared_roots=declared_roots(config))
            report = explain(engine, manifest, args.key, arguments)
        except UnknownCapabilityError as exc:
            return _usage_error(f"{args.key}: {exc}")
    _print(report, args.json, render_explanation)
    return EXIT_OK


def _run_policy_change(args: argparse.Namespace) -> int:
    from gatehouse.cli.policy_change_commands import render_change_report, run_change_command
    from gatehouse.wiring import open_services

    # Only reading commands need no database of their own: they never create one.
    reading = args.action in {"show", "history", "changes", "diff"}
    with open_services(_settings(args), connect_servers=False, create_database=not reading) as services:
        report = run_change_command(args, services.policy_changes)
        _print(report, args.json, render_change_report, services.secrets)
    return EXIT_OK


def _run_policy_suggest(args: argparse.Namespace) -> int:
    from gatehouse.cli.suggest_commands import render_suggest_report, run_suggest_command
    from gatehouse.wiring import open_services

    settings = _settings(args)
    # Suggesting only reads; proposing writes a change, as `policy propose` does.
    with open_services(settings, connect_servers=False, create_database=args.propose is not None) as services:
        report = run_suggest_command(args, settings, services.suggestions)
        _print(report, args.json, render_suggest_report, services.secrets)
    return EXIT_OK


def _run_reviews_list(args: argparse.Namespace) -> int:
    """The ledger's rows as they are, without the graph or the servers: listing changes
    nothing (an overdue review becomes `expired` at `reviews sweep` or `reviews decide`)."""
    from gatehouse.display.review_text import render_queue, review_row
    from gatehouse.read_only import open_ledger_for_reading, policy_file
    from policies.secrets import SecretRedactor

    settings = _settings(args)
    secrets = SecretRedactor(policy_file(settings).audit.redact_arguments)
    with open_ledger_for_reading(settings) as ledger:
        reviews = ledger.queue(args.status)
    # No graph is opened to list: each review's own request and result tell its thread's secrets.
    for review in reviews:
        secrets.remember(review.thread_id, review.secret_sources())
    rows = [secrets.value(review_row(r), thread_id=r.thread_id) for r in reviews]
    _print({"status": args.status, "reviews": rows}, args.json, render_queue, secrets)
    return EXIT_OK


def _run_reviews_resume_value(args: argparse.Namespace) -> int:
    """The value that resumes a thread the LangGraph API serves with its review's recorded
    decision (docs/langgraph-studio.md): JSON on one line, whatever --json says."""
    from gatehouse.display.review_text import dumps
    from gatehouse.wiring import open_services

    with open_services(_settings(args), connect_servers=False, create_database=False) as services:
        value = services.reviews.resume_value(services.ledger.resolve_id(args.review_id))
    _emit(dumps(value))
    return EXIT_OK


def _run_reviews(args: argparse.Namespace) -> int:
    if args.action == "list":
        return _run_reviews_list(args)
    if args.action == "resume-value":
        return _run_reviews_resume_value(args)
    from gatehouse.display.render import render_text
    from gatehouse.display.review_text import render_decision, review_row
    from gatehouse.notifications.webhook import notifications_line
    from gatehouse.wiring import open_services

    # Checked before anything is opened: a refusal leaves no trace.
    edited = json_arguments(args.args, "--args") if getattr(args, "args", None) is not None else None
    remember = remember_from(args) if args.action == "decide" else None
    # A withdrawal only ends a paused thread: no server is needed for it. `reviews sweep` posts
    # the notifications that are due itself (below), in the foreground.
    settings = _settings(args)
    connect_servers = args.action != "withdraw"
    with open_services(
        settings,
        connect_servers=connect_servers,
        send_notifications=args.action != "sweep",
        servers=_loaded_servers(settings) if connect_servers else None,
    ) as services:
        if args.action == "sweep":
            swept: dict[str, Any] = dict(services.reviews.sweep())
            if services.webhook is not None:
                swept["notifications"] = asdict(services.webhook.deliver_due())
            _print(
                swept,
                args.json,
                lambda r: (
                    f"expired: {len(r['expired'])}; outcome unknown: {len(r['outcome_unknown'])}; "
                    f"decisions carried out after a crash: {len(r['resumed'])}"
                    + notifications_line(r.get("notifications"))
                ),
            )
            return EXIT_OK
        if args.action == "withdraw":
            run = services.reviews.withdraw(args.review_id, by=args.user)
            final = run.final_output
            _print(
                final.model_dump(mode="json"),
                args.json,
                render_text,
                services.secrets,
                thread_id=final.thread_id,
            )
            return EXIT_OK
        # The full id, or the short one shown on screen when it names one review only.
        result = services.reviews.decide(
            services.ledger.resolve_id(args.review_id),
            reviewer=args.reviewer,
            approve=args.approve,
            reason=args.reason,
            arguments=edited,
            answer=args.answer,
            remember=remember,
        )
        report = {
            "review": review_row(result.review),
            "approvals": result.approvals,
            "required": result.required,
            "final_output": result.run.final_output.model_dump(mode="json") if result.run else None,
        }
        if result.grant is not None:
            report["grant"] = result.grant.summary()
        _print(report, args.json, render_decision, services.secrets, thread_id=result.review.thread_id)
        return EXIT_OK


def _run_audit(args: argparse.Namespace) -> int:
    from gatehouse.cli.audit_commands import anchor_head, render_verify, verify_report
    from gatehouse.read_only import open_audit_log
    from reviews.audit_anchor import read_anchors, require_keys

    settings = _settings(args)
    anchor_source = getattr(args, "anchor", None)
    # The keys and the anchors are checked before the database is read: exit 2, not 1.
    keys = settings.audit_keys()
    if args.action == "anchor" or anchor_source:
        keys = require_keys(keys)
    anchors = read_anchors(anchor_source, keys.anchor_keys) if anchor_source and keys else None
    with open_audit_log(settings) as audit:
        if args.action == "export":
            _emit(audit.export(args.format), end="")
            return EXIT_OK
        chain = audit.check_chain()
    if args.action == "anchor" and keys is not None and chain.report.ok:
        anchor = anchor_head(
            chain, key=keys.current.anchor_key, append=Path(args.append) if args.append else None
        )
        _emit(anchor.line())
        return EXIT_OK
    report = verify_report(chain, anchors)
    _print(report, args.json, render_verify)
    if report["ok"]:
        return EXIT_OK
    # Rows only unchecked for want of a key they name: configuration, not tampering.
    return EXIT_VERIFY_FAILED if report["problems"] else EXIT_USAGE


def _run_grants(args: argparse.Namespace) -> int:
    from gatehouse.cli.grant_commands import render_grants, run_grant_command
    from gatehouse.wiring import open_services

    with open_services(
        _settings(args), connect_servers=False, create_database=args.action != "list"
    ) as services:
        report = run_grant_command(args, services.grants)
        _print(report, args.json, render_grants, services.secrets)
    return EXIT_OK


def _run_tokens(args: argparse.Namespace) -> int:
    from gatehouse.cli.token_commands import render_tokens, token_row
    from gatehouse.credentials.access_tokens import AccessTokenStore
    from gatehouse.errors import NotAllowedError
    from gatehouse.wiring import open_services

    with open_services(
        _settings(args), connect_servers=False, create_database=args.action == "issue"
    ) as services:
        # On the services' own database (closed with them): the roster in force is theirs.
        tokens = AccessTokenStore(services.ledger.database)
        now = services.ledger.now()
        if args.action == "issue":
            refusal = services.policy.refusal_to_request(args.user)
            if refusal is not None:
                raise NotAllowedError(refusal)
            issued = tokens.issue(args.user, days=args.expires)
            report: dict[str, Any] = {"issued": token_row(issued.record, now), "token": issued.token}
            # Printed as it is: the one time the token is shown (no redaction would leave it).
            _emit(json.dumps(report, indent=2) if args.json else render_tokens(report))
            return EXIT_OK
        if args.action == "revoke":
            report = {"revoked": token_row(tokens.revoke(args.token_id), now)}
        else:
            report = {"issued": [token_row(record, now) for record in tokens.list()]}
        _print(report, args.json, render_tokens, services.secrets)
    return EXIT_OK


def _run_serve(args: argparse.Namespace) -> int:
    from gatehouse.credentials.access_tokens import AccessTokenStore
    from gatehouse.gateway.resource_server import oauth_resource_from
    from gatehouse.gateway.server import MCP_PATH, serve
    from gatehouse.wiring import open_services

    settings = _settings(args)
    # Checked before the servers start: a mistake in it is one line naming the variable.
    oauth = oauth_resource_from(os.environ)
    with open_services(settings, servers=_loaded_servers(settings)) as services:
        tokens = AccessTokenStore(services.ledger.database)
        _emit(
            f"gatehouse: serving MCP on http://{args.host}:{args.port}{MCP_PATH} (Ctrl-C stops)", error=True
        )
        if oauth is not None:
            _emit(
                f"gatehouse: accepting access tokens from {oauth.issuer} issued for {oauth.resource}",
                error=True,
            )
        try:
            # A server's question goes to the client whose call it is; one it cannot be put to
            # (a 2025-11-25 client, say) is declined, and said so here.
            serve(
                services,
                tokens,
                host=args.host,
                port=args.port,
                wait_seconds=args.wait,
                oauth=oauth,
                tell=lambda line: _emit(f"gatehouse: {line}", error=True),
            )
        except KeyboardInterrupt:
            # Ctrl-C (or SIGINT) is how it is stopped: uvicorn has shut down by then.
            _emit("gatehouse: stopped", error=True)
    return EXIT_OK


def _run_bridge(args: argparse.Namespace) -> int:
    from gatehouse.gateway.bridge import run
    from gatehouse.gateway.upstream import endpoint_from

    # The token from the environment only: a command line is visible to every user (`ps`).
    endpoint = endpoint_from(args.url, os.environ)
    run(endpoint, _warn)
    return EXIT_OK


def _run_trace(args: argparse.Namespace) -> int:
    from gatehouse.display.review_text import dumps
    from gatehouse.display.trace_text import render_trace
    from gatehouse.errors import ThreadNotFoundError
    from gatehouse.wiring import open_services

    with open_services(_settings(args), connect_servers=False, create_database=False) as services:
        # The full id, or the short one shown on screen (a review's works too).
        try:
            thread = services.requests.resolve_thread(args.thread_id)
        except ThreadNotFoundError as exc:
            return _usage_error(f"{exc} (in {services.settings.database})")
        trace = services.requests.trace(thread, with_route=False)
        if not trace.exists:
            return _usage_error(f"no thread {args.thread_id} in {services.settings.database}")
        report = {"thread_id": thread, "steps": trace.steps}
    _emit(dumps(report) if args.json else render_trace(report))
    return EXIT_OK


# Why `gatehouse ask` declines a server's question when it cannot ask anyone.
NO_TERMINAL = "gatehouse ask has no terminal to ask on (its input is not a terminal)"


def _run_ask(args: argparse.Namespace) -> int:
    from gatehouse.cli.terminal_questions import TerminalQuestions
    from gatehouse.display.render import render_text
    from gatehouse.errors import NotAllowedError, ThreadBusyError, ThreadNotFoundError
    from gatehouse.wiring import open_services

    settings = _settings(args)
    with open_services(settings, servers=_loaded_servers(settings)) as services:
        # A server's question during the call: put to the person at this terminal, or, with
        # nobody to ask (a script, a pipe), declined at once and said so on stderr.
        if sys.stdin.isatty():
            services.questions.ask_on_terminal(TerminalQuestions(sys.stdin, sys.stderr), user=args.user)
        else:
            services.questions.decline_all(NO_TERMINAL, lambda line: _emit(f"gatehouse: {line}", error=True))
        known = services.mcp.server_names()
        unknown = [name for name in args.prefer if name not in known]
        if unknown:
            listed = ", ".join(known) or "none"
            return _usage_error(
                f"--prefer: unknown server {', '.join(unknown)}; configured servers: {listed}"
            )
        try:
            # The thread to continue, by its full id or the short one shown on screen.
            thread = services.requests.resolve_thread(args.thread) if args.thread is not None else None
            outcome = services.requests.ask(
                args.text,
                thread_id=thread,
                requester=args.user,
                server_preferences=args.prefer,
            )
        # The option the refusal is about, named before the reason.
        except (ThreadBusyError, ThreadNotFoundError) as exc:
            return _error(f"--thread: {exc}", exc.exit_code)
        except NotAllowedError as exc:
            return _error(f"--user: {exc}", exc.exit_code)
        # Printed before the services close (which lets the notifications sender finish).
        final = outcome.final_output
        _print(
            final.model_dump(mode="json"), args.json, render_text, services.secrets, thread_id=final.thread_id
        )
    return EXIT_OK


def _run_eval(args: argparse.Namespace) -> int:
    from eval.report import render_json, render_text
    from eval.teaching import suggested_examples
    from eval.team import run_file

    def progress(line: str) -> None:
        _emit(line, error=True)

    evaluation = run_file(
        Path(args.file), servers=args.servers, policy=args.policy, selector=args.selector, progress=progress
    )
    shown = (evaluation.results, evaluation.figures)
    # The requests the planner missed, as examples the admin can add to the servers file.
    teach = suggested_examples(evaluation.results, evaluation.listing)
    if args.json:
        report = render_json(
            *shown, planner=evaluation.planner, seconds=evaluation.seconds, suggestions=teach
        )
        _print(report, True, str)
    else:
        from policies.secrets import DEFAULT_REDACTOR

        text = render_text(
            *shown,
            planner=evaluation.planner,
            seconds=evaluation.seconds,
            title=f"Cases of {args.file}",
            suggestions=teach,
        )
        _emit(DEFAULT_REDACTOR.text(text))
    return EXIT_OK if evaluation.figures.passed else EXIT_TARGET_MISSED


def _run_servers(args: argparse.Namespace) -> int:
    if args.action == "login":
        return _run_servers_login(args)
    if args.action == "logout":
        from gatehouse.credentials.server_login import logout

        logout(_settings(args), args.name)
        _emit(f"Signed out of {args.name}: its tokens are gone from the database.")
        return EXIT_OK
    if args.action == "key":
        return _run_servers_key(args)
    return _run_servers_check(args)


def _run_policy(args: argparse.Namespace) -> int:
    if args.action in CHANGE_ACTIONS:
        return _run_policy_change(args)
    if args.action == "suggest":
        return _run_policy_suggest(args)
    return _run_policy_check(args) if args.action == "check" else _run_policy_explain(args)


# Each command's runner, by the command's name.
_RUNNERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "eval": _run_eval,
    "ask": _run_ask,
    "capabilities": _run_capabilities,
    "servers": _run_servers,
    "policy": _run_policy,
    "reviews": _run_reviews,
    "audit": _run_audit,
    "grants": _run_grants,
    "tokens": _run_tokens,
    "serve": _run_serve,
    "bridge": _run_bridge,
    "trace": _run_trace,
}


def _run(args: argparse.Namespace) -> int:
    check_text_arguments(args)
    runner = _RUNNERS.get(args.command)
    if runner is None:
        return _usage_error(f"unknown command {args.command}")
    return runner(args)


def _run_reported(args: argparse.Namespace) -> int:
    """The command, with every error it raises turned into its lines and its exit code."""
    try:
        return _run(args)
    except ReportedError as exc:  # each carries its own exit code (mcp_host/reported.py)
        return _reported(exc)
    except BrokenPipeError:
        raise
    except Exception as exc:  # the last resort: one line, never a traceback
        if os.environ.get(DEBUG_ENV) == "1":
            logging.exception("unexpected error")
        return _error(
            f"internal error: {type(exc).__name__}: {exc} (a bug in Gatehouse; set {DEBUG_ENV}=1"
            " for the traceback)",
            EXIT_INTERNAL_ERROR,
        )


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush on exit does not hit the
    closed pipe again (and print "Exception ignored ... BrokenPipeError")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        return  # not a real file descriptor (a test's captured stdout): nothing will flush


def _stacks_on_sigusr1() -> None:
    """`kill -USR1 PID` prints every thread's stack on stderr: how to see where a command that
    seems stuck is waiting, without stopping it."""
    if not hasattr(signal, "SIGUSR1") or threading.current_thread() is not threading.main_thread():
        return
    try:
        faulthandler.register(signal.SIGUSR1, file=sys.__stderr__ or sys.stderr, all_threads=True)
    except (AttributeError, OSError, ValueError):
        return  # no stderr with a file descriptor (an embedding that captures it): nowhere to print


@contextmanager
def _terminal_logging() -> Iterator[None]:
    """Warnings and errors logged during the command (in-process demo servers log through the
    root logger too) go to stderr one line each, their secrets hidden and control characters
    shown; everything below a warning stays off the terminal.

    Undone when the command ends, so that main() can run many times in one process (the tests
    run it in-process) without stacking handlers or leaving the root logger changed."""
    from policies.secrets import install_log_redaction

    install_log_redaction()  # once per process: it says so itself
    root = logging.getLogger()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_TerminalLogFormatter("%(levelname)s %(name)s: %(message)s"))
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code. Safe to call again in the same process: what
    it sets up (the SIGUSR1 handler, the log handler, stdout's error mode) is set once or
    undone."""
    _stacks_on_sigusr1()
    # A terminal whose encoding cannot show a character gets an escape, not a traceback.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        try:
            args = _parser().parse_args(argv)
        except SystemExit as exc:  # --help, or a usage error argparse already printed
            return exc.code if isinstance(exc.code, int) else EXIT_USAGE
        # After parsing: --help and a usage error need none of it (nothing has logged yet).
        with _terminal_logging():
            code = _run_reported(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return _error("interrupted", EXIT_INTERRUPTED)
