"""Cases through `gatehouse ask` against a set of servers: what `make eval` does on the
benchmark's workspace (eval/run.py) and `gatehouse eval FILE` on a team's own servers and policy
(eval/team.py), so both print the same report from the same code.

Each case is one call of the real command line (``gatehouse.cli.main``) in this process, its
stdout read back as the final_output JSON. The servers are started once and kept for every case:
the command's services are opened over that one session pool instead of a pool of their own
(``fresh_servers`` starts them per case, exactly as a lone `gatehouse ask` does, which takes
several seconds a case). Everything else is what an operator's command does: its argument
parsing, the database it is given, the policy, the planner that is configured.
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import Any
from unittest import mock

from eval.case_sets import CaseSet
from eval.cases import Case
from eval.expectations import expectation_problems
from eval.facts import CapabilityFacts, capability_facts
from eval.scoring import (
    CaseResult,
    Figures,
    answer_from_output,
    failed_case,
    figures,
    score_case,
    unscored_case,
)
from gatehouse import cli, wiring
from gatehouse.settings import WEBHOOK_ENV, Settings
from gatehouse.wiring import open_services, policy_file, server_pool, servers_config
from mcp_host.client import McpClient
from mcp_host.manifest import Capability, Manifest
from policies.engine import PolicyEngine
from policies.pins import MemoryPinStore

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Target:
    """Where the cases are asked: the settings every command resolves to, the `gatehouse`
    options that say so, and the values of the placeholders requests may hold."""

    settings: Settings
    options: list[str]
    placeholders: dict[str, str]


@dataclass(frozen=True)
class Evaluation:
    results: list[CaseResult]
    figures: Figures
    planner: str | None
    seconds: float
    # A server that failed to start or list, one line each (its cases are still run).
    server_problems: list[str]
    # What the servers offered when the run began, with the admin's words from the servers file:
    # what a missed case can be taught as (eval/teaching.py). Only a single run's (`gatehouse
    # eval FILE`); `make eval`'s combined runs leave it empty, as the benchmark is not taught.
    listing: tuple[Capability, ...] = ()


@contextmanager
def no_notifications() -> Iterator[None]:
    """No webhook while cases run: a request held for review would otherwise notify the
    reviewers of a review nobody will ever decide."""
    saved = os.environ.pop(WEBHOOK_ENV, None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ[WEBHOOK_ENV] = saved


@contextmanager
def _commands_share(pool: McpClient) -> Iterator[None]:
    """`gatehouse` commands run in this process open their services over ``pool``."""

    def with_pool(settings: Settings, **options: Any) -> Any:
        options.setdefault("mcp", pool)
        # The servers file as well: the policy holds each server to the roots it reads there
        # (declared, or the folders a server is started on), as a lone `gatehouse ask` does.
        options.setdefault("servers", servers_config(settings))
        return open_services(settings, **options)

    # The command line imports open_services from gatehouse.wiring when a command runs (it
    # imports what a command uses, for its start time), so that is where it is replaced.
    with mock.patch.object(wiring, "open_services", with_pool):
        yield


@contextmanager
def _nobody_to_ask() -> Iterator[None]:
    """Input that is not a terminal: a server's question during a case is declined at once (as
    in a script), never put to the person who started the run, who would wait on it."""
    saved = sys.stdin
    sys.stdin = io.StringIO()
    try:
        yield
    finally:
        sys.stdin = saved


def ask(options: Sequence[str], request: str) -> tuple[int, dict[str, Any] | None, str]:
    """`gatehouse ask --json REQUEST` with ``options``: exit code, the final_output (None when
    the command printed none) and what it wrote on stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), _nobody_to_ask():
        code = cli.main(["ask", *options, "--json", request])
    try:
        output = json.loads(out.getvalue()) if code == 0 else None
    except json.JSONDecodeError:
        output = None
    return code, output, err.getvalue().strip()


def run_cases(
    cases: Sequence[Case],
    target: Target,
    facts: dict[str, CapabilityFacts],
    *,
    progress: Progress,
    manifest: Manifest,
) -> tuple[list[CaseResult], str | None]:
    """Score every case; also returns the planner final_output names. A case naming what
    ``manifest`` does not offer (eval/expectations.py) is not asked: it is the file's problem."""
    results: list[CaseResult] = []
    planner: str | None = None
    for number, template in enumerate(cases, 1):
        case = template.filled(target.placeholders)
        mistakes = expectation_problems(case, manifest)
        if mistakes:
            results.append(unscored_case(case, mistakes))
            progress(f"[{number}/{len(cases)}] NOT SCORED {case.id}: {'; '.join(mistakes)}")
            continue
        code, output, errors = ask(target.options, case.request)
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


def offered(settings: Settings, pool: McpClient) -> tuple[dict[str, CapabilityFacts], list[str]]:
    """What every capability the servers offer is (eval/facts.py), and each server's problem."""
    manifest = pool.discover()
    return facts_of(settings, manifest), manifest.problems()


def facts_of(settings: Settings, manifest: Manifest) -> dict[str, CapabilityFacts]:
    # Rating never pins a definition: first sight is recorded by the real calls.
    engine = PolicyEngine(policy_file(settings), pins=MemoryPinStore())
    return capability_facts(manifest, engine)


def evaluate(
    case_set: CaseSet,
    target: Target,
    *,
    progress: Progress,
    group_order: Sequence[str] = (),
    fresh_servers: bool = False,
    servers_must_start: Callable[[list[str]], None] | None = None,
) -> Evaluation:
    """Every case of ``case_set`` through `gatehouse ask` on ``target``'s servers, scored.
    ``servers_must_start`` may refuse to go on when a server failed (it raises)."""
    started = time.perf_counter()
    with ExitStack() as stack:
        stack.enter_context(no_notifications())
        policy = policy_file(target.settings)
        pool = stack.enter_context(server_pool(target.settings, output_cap_bytes=policy.output.max_bytes))
        manifest = pool.discover()
        facts, problems = facts_of(target.settings, manifest), manifest.problems()
        if servers_must_start is not None:
            servers_must_start(problems)
        for line in problems:
            progress(f"warning: {line}")
        if not fresh_servers:
            stack.enter_context(_commands_share(pool))
        results, planner = run_cases(case_set.cases, target, facts, progress=progress, manifest=manifest)
    seconds = time.perf_counter() - started
    order = list(group_order) or case_set.groups()
    return Evaluation(
        results=results,
        figures=figures(results, order, case_set.batches),
        planner=planner,
        seconds=seconds,
        server_problems=problems,
        listing=tuple(manifest.capabilities()),
    )
