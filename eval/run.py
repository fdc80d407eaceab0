"""`python -m eval` (`make eval`): every case of eval/selection_cases.json through `gatehouse ask
--json` on the real servers, scored; the figures printed beside their targets; exit 1 when a
target is missed.

Each case is one call of the real command line (``gatehouse.cli.main``) in this process, its
stdout read back as the final_output JSON. By default the eleven servers are started once and
kept for every case: the command's services are opened over that one session pool instead of a
pool of their own (``--fresh-servers`` starts them per case, exactly as a lone `gatehouse ask`
does, which takes several seconds a case). Everything else is what an operator's command does:
its argument parsing, the same database, the shipped policy, the planner that is configured.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any
from unittest import mock

from eval.cases import CASES_FILE, GROUPS, Case, CasesFileError, load_cases
from eval.facts import CapabilityFacts, capability_facts
from eval.report import render_json, render_text
from eval.scoring import CaseResult, answer_from_output, failed_case, figures, score_case
from eval.workspace import BATCH_SERVERS, EvalWorkspace, PeersMissingError, eval_workspace
from gatehouse import cli, wiring
from gatehouse.settings import DATA_ENV, WEBHOOK_ENV, Settings
from gatehouse.wiring import open_services, policy_file, server_pool
from mcp_host.client import McpClient
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY
from policies.pins import MemoryPinStore

EXIT_OK = 0
EXIT_TARGET_MISSED = 1
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m eval", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-k", dest="selector", metavar="TEXT", help="only cases whose id contains TEXT, or of the group TEXT"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--cases", default=str(CASES_FILE), metavar="PATH", help="the cases file")
    parser.add_argument(
        "--fresh-servers",
        action="store_true",
        help="start the servers for every case, as a lone `gatehouse ask` does (slow)",
    )
    return parser


@contextmanager
def _environment(workspace: EvalWorkspace) -> Iterator[None]:
    """The variables a Gatehouse on this workspace reads: its data folder (the shipped policy's
    roots are under it); no webhook, so a benchmark never notifies anyone."""
    saved = {name: os.environ.get(name) for name in (DATA_ENV, WEBHOOK_ENV)}
    os.environ[DATA_ENV] = str(workspace.data_dir)
    os.environ.pop(WEBHOOK_ENV, None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def _commands_share(pool: McpClient) -> Iterator[None]:
    """`gatehouse` commands run in this process open their services over ``pool``."""

    def with_pool(settings: Settings, **options: Any) -> Any:
        options.setdefault("mcp", pool)
        return open_services(settings, **options)

    # The command line imports open_services from gatehouse.wiring when a command runs (it
    # imports what a command uses, for its start time), so that is where it is replaced.
    with mock.patch.object(wiring, "open_services", with_pool):
        yield


def ask(workspace: EvalWorkspace, request: str) -> tuple[int, dict[str, Any] | None, str]:
    """`gatehouse ask --json REQUEST` with the workspace's options: exit code, the final_output
    (None when the command printed none) and what it wrote on stderr."""
    out, err = io.StringIO(), io.StringIO()
    options = [*workspace.cli_options(), "--policy", str(DEFAULT_POLICY)]
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(["ask", *options, "--json", request])
    try:
        output = json.loads(out.getvalue()) if code == 0 else None
    except json.JSONDecodeError:
        output = None
    return code, output, err.getvalue().strip()


def run_cases(
    cases: Sequence[Case],
    workspace: EvalWorkspace,
    facts: dict[str, CapabilityFacts],
    *,
    progress: Callable[[str], None],
) -> tuple[list[CaseResult], str | None]:
    """Score every case; also returns the planner final_output names."""
    results: list[CaseResult] = []
    planner: str | None = None
    for number, template in enumerate(cases, 1):
        case = template.filled(workspace.placeholders)
        code, output, errors = ask(workspace, case.request)
        if output is None:
            result = failed_case(case, f"gatehouse ask exited {code}: {errors or 'no output'}")
        else:
            planner = planner or output.get("planner")
            result = score_case(case, answer_from_output(output), facts)
        results.append(result)
        mark = "right" if result.right else "WRONG"
        shown = result.answer.capability if result.answer else "-"
        status = result.answer.status if result.answer else "-"
        progress(f"[{number}/{len(cases)}] {mark:<5} {case.id}: {shown} / {status}")
    return results, planner


def _facts(workspace: EvalWorkspace, pool: McpClient) -> dict[str, CapabilityFacts]:
    settings = Settings.resolve(db=str(workspace.db_path), servers=str(workspace.servers_file))
    # Rating never pins a definition: first sight is recorded by the real calls.
    engine = PolicyEngine(policy_file(settings), pins=MemoryPinStore())
    manifest = pool.discover()
    # A server the host cannot use is a finding, not a broken benchmark: its cases are still
    # asked and count as wrong (a new team's first hour meets exactly that).
    for problem in manifest.problems():
        print(f"warning: {problem}", file=sys.stderr, flush=True)
    return capability_facts(manifest, engine)


def _unknown_capabilities(cases: Sequence[Case], facts: dict[str, CapabilityFacts]) -> list[str]:
    return [f"{c.id}: {key}" for c in cases for key in c.capabilities if key not in facts]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        cases = load_cases(Path(args.cases))
    except (OSError, CasesFileError, json.JSONDecodeError) as exc:
        print(f"python -m eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.selector:
        cases = [c for c in cases if c.matches(args.selector)]
    if not cases:
        print(f"python -m eval: no case matches -k {args.selector!r}", file=sys.stderr)
        return EXIT_USAGE

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    started = time.perf_counter()
    try:
        with ExitStack() as stack:
            # The 2026-11 batch's servers are started when a case is for one of them.
            batch_servers = any(case.group in BATCH_SERVERS for case in cases)
            workspace = stack.enter_context(eval_workspace(batch_servers=batch_servers))
            stack.enter_context(_environment(workspace))
            settings = Settings.resolve(db=str(workspace.db_path), servers=str(workspace.servers_file))
            policy = policy_file(settings)
            pool = stack.enter_context(server_pool(settings, output_cap_bytes=policy.output.max_bytes))
            facts = _facts(workspace, pool)
            for line in _unknown_capabilities(cases, facts):
                progress(f"warning: no server offers the expected capability of {line}")
            if not args.fresh_servers:
                stack.enter_context(_commands_share(pool))
            results, planner = run_cases(cases, workspace, facts, progress=progress)
    except PeersMissingError as exc:
        print(f"python -m eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    seconds = time.perf_counter() - started
    summary = figures(results, GROUPS)
    if args.json:
        print(json.dumps(render_json(results, summary, planner=planner, seconds=seconds), indent=2))
    else:
        print(render_text(results, summary, planner=planner, seconds=seconds))
    return EXIT_OK if summary.passed else EXIT_TARGET_MISSED


if __name__ == "__main__":
    sys.exit(main())
