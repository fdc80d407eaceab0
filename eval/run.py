"""`python -m eval` (`make eval`): every case of the benchmark (eval/selection_cases.json and
eval/batches/*.json) through `gatehouse ask --json` on the real servers of the benchmark's
workspace (eval/workspace.py), scored (eval/asking.py); the figures printed beside their targets,
each batch's score beside its score before tuning; exit 1 when a target is missed.

``--jobs N`` asks the cases on N processes, each on workspaces and servers of its own (a
case's answer depends on nothing another case did: what acts is held for a reviewer), and
prints the same report, in the same order, as one process does.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

from eval.asking import Evaluation, Progress, Target, evaluate
from eval.case_sets import BATCHES_DIR, CaseSet, load_benchmark
from eval.cases import CASES_FILE, GROUPS, CasesFileError
from eval.report import render_json, render_text
from eval.scoring import CaseResult, figures
from eval.workspace import (
    BATCH_SERVERS,
    DESK_SERVERS,
    DOCUMENT_SERVERS,
    EvalWorkspace,
    PeersMissingError,
    eval_workspace,
)
from gatehouse.settings import DATA_ENV, Settings
from policies.loader import DEFAULT_POLICY

EXIT_OK = 0
EXIT_TARGET_MISSED = 1
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m eval", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-k",
        dest="selector",
        metavar="TEXT",
        help="only cases whose id contains TEXT, or of the group or the batch TEXT",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--cases", default=str(CASES_FILE), metavar="PATH", help="the cases file")
    parser.add_argument(
        "--batches",
        default=str(BATCHES_DIR),
        metavar="DIR",
        help="the folder of batch files read beside the cases file",
    )
    parser.add_argument(
        "--jobs",
        type=_positive,
        default=1,
        metavar="N",
        help="ask the cases on N processes, each with servers of its own (the same report)",
    )
    parser.add_argument(
        "--fresh-servers",
        action="store_true",
        help="start the servers for every case, as a lone `gatehouse ask` does (slow)",
    )
    return parser


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of at least 1")
    return number


@contextmanager
def _data_folder(workspace: EvalWorkspace) -> Iterator[None]:
    """The data folder a Gatehouse on this workspace reads (the shipped policy's roots are
    under it)."""
    saved = os.environ.get(DATA_ENV)
    os.environ[DATA_ENV] = str(workspace.data_dir)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(DATA_ENV, None)
        else:
            os.environ[DATA_ENV] = saved


def workspace_target(workspace: EvalWorkspace) -> Target:
    """The benchmark's servers, its temporary database and the shipped policy."""
    settings = Settings.resolve(
        db=str(workspace.db_path), servers=str(workspace.servers_file), policy=str(DEFAULT_POLICY)
    )
    options = [*workspace.cli_options(), "--policy", str(DEFAULT_POLICY)]
    return Target(settings=settings, options=options, placeholders=workspace.placeholders)


# The servers later batches came with, in the order they came. A batch runs with the servers of
# the latest of these it names (in its header or its cases' groups) and every one before them:
# tier 0 is the original eleven, 1 adds the 2026-11 four, 2 the two of 2026-11-held-out-3, 3 the
# two of 2026-11-held-out-4.
SERVER_TIERS = (BATCH_SERVERS, DOCUMENT_SERVERS, DESK_SERVERS)


def _tier(groups: set[str]) -> int:
    return max((n for n, servers in enumerate(SERVER_TIERS, 1) if groups & set(servers)), default=0)


def _by_servers(case_set: CaseSet) -> list[tuple[CaseSet, int]]:
    """The cases split by the servers their batch was written for, each part with its tier: a
    batch runs on those servers only, since one more configured server changes what is chosen
    (a calculator configured would make "nothing serves that" cases of the eleven wrong on the
    facts)."""
    named = {b.id: set(b.servers) for b in case_set.batches}
    for case in case_set.cases:
        named.setdefault(case.batch, set()).add(case.group)
    tiers = {batch: _tier(groups) for batch, groups in named.items()}
    parts = []
    for tier in range(len(SERVER_TIERS) + 1):
        cases = [c for c in case_set.cases if tiers[c.batch] == tier]
        if cases:
            kept = {c.batch for c in cases}
            parts.append((CaseSet([b for b in case_set.batches if b.id in kept], cases), tier))
    return parts


def _evaluate_on(case_set: CaseSet, *, tier: int, fresh_servers: bool, progress: Progress) -> Evaluation:
    """``case_set`` on a workspace of its own with the servers of ``tier``. A server that fails
    to start or list is a warning and its cases count as wrong: a team's first hour meets exactly
    that."""
    with ExitStack() as stack:
        workspace = stack.enter_context(
            eval_workspace(batch_servers=tier >= 1, document_servers=tier >= 2, desk_servers=tier >= 3)
        )
        stack.enter_context(_data_folder(workspace))
        return evaluate(
            case_set,
            workspace_target(workspace),
            progress=progress,
            group_order=case_set.groups(GROUPS),
            fresh_servers=fresh_servers,
        )


def _dealt(case_set: CaseSet, count: int) -> list[CaseSet]:
    """``case_set``'s cases dealt in turn into at most ``count`` sets (the slow cases of a
    group, written one after the other, are shared out), each with the batches of its cases."""
    count = min(count, len(case_set.cases))
    hands = [case_set.cases[n::count] for n in range(count)]
    return [CaseSet([b for b in case_set.batches if b.id in {c.batch for c in hand}], hand) for hand in hands]


def _gathered(case_set: CaseSet, runs: Sequence[Evaluation]) -> Evaluation:
    """The runs of ``_dealt(case_set, len(runs))`` as one run of ``case_set``: its results in
    its order."""
    results: list[CaseResult | None] = [None] * len(case_set.cases)
    for n, run in enumerate(runs):
        results[n :: len(runs)] = run.results
    gathered = [result for result in results if result is not None]
    return Evaluation(
        results=gathered,
        figures=figures(gathered, case_set.groups(GROUPS), case_set.batches),
        planner=next((run.planner for run in runs if run.planner), None),
        seconds=max(run.seconds for run in runs),
        # Each process starts the same servers: a server's problem once.
        server_problems=list(dict.fromkeys(problem for run in runs for problem in run.server_problems)),
    )


def _evaluate_hand(hand: CaseSet, tier: int, fresh_servers: bool, label: str) -> Evaluation:
    """One process's share (``--jobs``): its progress on stderr, each line with ``label``."""

    def progress(line: str) -> None:
        print(f"{label} {line}", file=sys.stderr, flush=True)

    return _evaluate_on(hand, tier=tier, fresh_servers=fresh_servers, progress=progress)


def _shared_out(parts: Sequence[CaseSet], jobs: int) -> list[list[CaseSet]]:
    """Each part whole, or dealt into shares when it alone holds more than one process's share
    of all the cases (``--jobs``): a process starts the servers of what it is given for itself,
    which takes seconds of CPU (more with more servers), so parts are split no more than needed."""
    fair = -(-sum(len(part.cases) for part in parts) // jobs)
    return [_dealt(part, -(-len(part.cases) // fair)) for part in parts]


def _evaluate_parts(
    parts: Sequence[tuple[CaseSet, int]], *, jobs: int, fresh_servers: bool, progress: Progress
) -> tuple[list[Evaluation], float]:
    """Every part on the servers of its tier, on ``jobs`` processes; the runs in the parts'
    order and the seconds the cases took. The parts and shares go out largest first, each to
    the next free process."""
    if jobs == 1:
        runs = [
            _evaluate_on(part, tier=tier, fresh_servers=fresh_servers, progress=progress)
            for part, tier in parts
        ]
        return runs, sum(run.seconds for run in runs)
    started = time.perf_counter()
    shared = _shared_out([part for part, _ in parts], jobs)
    shares = sorted(
        ((p, n) for p, hands in enumerate(shared) for n in range(len(hands))),
        key=lambda share: -len(shared[share[0]][share[1]].cases),
    )
    # Spawned, not forked: a process with threads (a test runner's, the servers' readers) is
    # not safely forked, and each process opens its own servers anyway.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        pending: dict[tuple[int, int], Future[Evaluation]] = {}
        for p, n in shares:
            tier, hands = parts[p][1], shared[p]
            label = f"[servers of tier {tier}" + (f", share {n + 1}/{len(hands)}]" if len(hands) > 1 else "]")
            pending[p, n] = pool.submit(_evaluate_hand, hands[n], tier, fresh_servers, label)
        try:
            runs = [
                _gathered(part, [pending[p, n].result() for n in range(len(shared[p]))])
                for p, (part, _) in enumerate(parts)
            ]
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
    return runs, time.perf_counter() - started


def _combined(runs: Sequence[Evaluation], case_set: CaseSet, seconds: float) -> Evaluation:
    results = [result for run in runs for result in run.results]
    return Evaluation(
        results=results,
        figures=figures(results, case_set.groups(GROUPS), case_set.batches),
        planner=next((run.planner for run in runs if run.planner), None),
        seconds=seconds,
        server_problems=[problem for run in runs for problem in run.server_problems],
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        case_set = load_benchmark(Path(args.cases), Path(args.batches))
    except CasesFileError as exc:
        print(f"python -m eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.selector:
        case_set = case_set.selected(args.selector)
    if not case_set.cases:
        print(f"python -m eval: no case matches -k {args.selector!r}", file=sys.stderr)
        return EXIT_USAGE

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        runs, seconds = _evaluate_parts(
            _by_servers(case_set), jobs=args.jobs, fresh_servers=args.fresh_servers, progress=progress
        )
    except PeersMissingError as exc:
        print(f"python -m eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    evaluation = _combined(runs, case_set, seconds)
    report = (evaluation.results, evaluation.figures)
    if args.json:
        print(
            json.dumps(render_json(*report, planner=evaluation.planner, seconds=evaluation.seconds), indent=2)
        )
    else:
        print(render_text(*report, planner=evaluation.planner, seconds=evaluation.seconds))
    return EXIT_OK if evaluation.figures.passed else EXIT_TARGET_MISSED


if __name__ == "__main__":
    sys.exit(main())
