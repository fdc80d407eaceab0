"""The runner end to end on a few cases: real servers, the real `gatehouse ask`, a report."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from eval.asking import Evaluation
from eval.case_sets import Batch, CaseSet
from eval.cases import STATUSES, Case
from eval.run import EXIT_OK, EXIT_TARGET_MISSED, EXIT_USAGE, _dealt, _gathered, _shared_out, main
from eval.scoring import failed_case, figures
from eval.workspace import PeersMissingError, eval_workspace
from tests.interop.peers import missing_peer


@pytest.fixture
def peers_built() -> None:
    try:
        with eval_workspace():
            pass
    except PeersMissingError as exc:
        missing_peer(str(exc))


@pytest.mark.processes
@pytest.mark.usefixtures("peers_built")
def test_the_selected_cases_run_through_gatehouse_ask_and_are_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Only the cases file's own batches (an empty batches folder): a later batch's greet cases
    # would match -k too.
    code = main(["-k", "bundled-greet", "--batches", str(tmp_path), "--json"])
    report = json.loads(capsys.readouterr().out)

    ids = [case["id"] for case in report["cases"]]
    assert ids == ["bundled-greet", "bundled-greet-polite", "bundled-greet-missing"]
    for case in report["cases"]:
        assert case["got"] is not None, case["problems"]
        assert case["got"]["status"] in STATUSES
    assert report["figures"]["cases"] == 3
    assert report["figures"]["right"] == sum(case["right"] for case in report["cases"])
    # Each case with its batch; the batch's score now beside the one recorded before tuning.
    assert {case["batch"] for case in report["cases"]} == {"2026-11-issue-15"}
    assert [(b["id"], b["now"]["cases"]) for b in report["batches"]] == [("2026-11-issue-15", 3)]
    assert report["figures"]["invariants"]["broken"] == 0
    assert report["planner"]
    assert code == (EXIT_OK if report["passed"] else EXIT_TARGET_MISSED)


def _report(text: str) -> dict[str, Any]:
    """A JSON report less what differs from run to run: its seconds and its workspace's folder."""
    report: dict[str, Any] = json.loads(re.sub(r"/tmp/gatehouse-eval-[\w]+", "<workspace>", text))
    report.pop("seconds")
    return report


@pytest.mark.processes
@pytest.mark.usefixtures("peers_built")
def test_on_two_processes_the_report_is_the_one_process_report_case_for_case(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    selection = ["-k", "bundled-greet", "--batches", str(tmp_path), "--json"]
    alone = main(selection)
    one_process = _report(capsys.readouterr().out)
    shared = main([*selection, "--jobs", "2"])
    two_processes = _report(capsys.readouterr().out)

    # Three cases dealt to two processes (the first and third, the second), gathered back.
    assert [case["id"] for case in two_processes["cases"]] == [
        "bundled-greet",
        "bundled-greet-polite",
        "bundled-greet-missing",
    ]
    assert two_processes == one_process
    assert shared == alone


def _case(number: int, batch: str) -> Case:
    return Case(
        id=f"case-{number}",
        group="files",
        request="list the files",
        capabilities=(),
        statuses=("ok",),
        read_only=True,
        batch=batch,
    )


def test_cases_dealt_to_processes_are_gathered_back_in_their_order() -> None:
    cases = [_case(n, "first" if n < 3 else "second") for n in range(7)]
    case_set = CaseSet([Batch("first"), Batch("second")], cases)

    hands = _dealt(case_set, 3)
    runs = [
        Evaluation(
            results=[failed_case(case, "not asked") for case in hand.cases],
            figures=figures([]),
            planner="deterministic",
            seconds=1.0,
            server_problems=["server broken: it failed"],
        )
        for hand in hands
    ]
    gathered = _gathered(case_set, runs)

    assert [[case.id for case in hand.cases] for hand in hands] == [
        ["case-0", "case-3", "case-6"],
        ["case-1", "case-4"],
        ["case-2", "case-5"],
    ]
    assert [batch.id for batch in hands[1].batches] == ["first", "second"]
    assert [result.case.id for result in gathered.results] == [case.id for case in cases]
    assert gathered.figures.overall.cases == 7
    # The same server, started by each process, failed once.
    assert gathered.server_problems == ["server broken: it failed"]
    # Never more processes than cases.
    assert [len(hand.cases) for hand in _dealt(CaseSet([Batch("first")], cases[:2]), 4)] == [1, 1]


def test_a_part_is_shared_out_only_when_it_alone_is_more_than_a_process_can_take() -> None:
    def part(cases: int) -> CaseSet:
        return CaseSet([Batch("first")], [_case(n, "first") for n in range(cases)])

    def shares(sizes: list[int], jobs: int) -> list[list[int]]:
        return [[len(hand.cases) for hand in hands] for hands in _shared_out([part(n) for n in sizes], jobs)]

    # The whole benchmark on two processes: each part whole, on one process's servers.
    assert shares([363, 292, 135, 108], 2) == [[363], [292], [135], [108]]
    assert shares([363, 292, 135, 108], 4) == [[182, 181], [146, 146], [135], [108]]
    assert shares([3], 2) == [[2, 1]]
    assert shares([1, 1], 8) == [[1], [1]]


def test_the_number_of_processes_is_a_whole_number_of_at_least_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for wrong in ("0", "-1", "two"):
        with pytest.raises(SystemExit) as exited:
            main(["--jobs", wrong])
        assert exited.value.code == EXIT_USAGE
        assert "at least 1" in capsys.readouterr().err


def test_a_filter_that_matches_nothing_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-k", "no-such-case"]) == EXIT_USAGE
    assert "no case matches" in capsys.readouterr().err


# Just under what the deterministic planner reached on the batches it was tuned with (92.6% of
# the 363 cases of eval/selection_cases.json; the target is 0.90, issue 15): a change that makes
# it choose worse fails here, not in a report. A held-out batch (eval/batches/) must never fall
# below the score it had before the planner was tuned for it.
ACCURACY_FLOOR = 0.92


@pytest.mark.processes
@pytest.mark.usefixtures("peers_built")
def test_the_deterministic_planner_on_the_whole_benchmark_never_acts_for_a_read_nor_invents(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # On two processes (the same report as on one, tests above): CI's longest test.
    main(["--json", "--jobs", "2"])
    report = json.loads(capsys.readouterr().out)
    figures = report["figures"]

    assert figures["side_effects"] == 0
    # No write answered by a read with ok, nothing run where nothing was expected (issue 30).
    assert figures["invariants"]["broken"] == 0, figures["invariants"]
    # A request in another language never runs another capability (issue 30).
    assert figures["other_languages"]["ran_wrong"] == [], figures["other_languages"]
    assert figures["invented"] == 0
    tuned = {b["id"] for b in report["batches"] if (b["source"] or "").endswith("selection_cases.json")}
    tuned_cases = [case for case in report["cases"] if case["batch"] in tuned]
    assert len(tuned_cases) >= 363
    accuracy = sum(case["right"] for case in tuned_cases) / len(tuned_cases)
    assert accuracy >= ACCURACY_FLOOR, figures["groups"]
    for batch in report["batches"]:
        if batch["id"] not in tuned and batch["before_tuning"] is not None:
            assert batch["now"]["right"] >= batch["before_tuning"]["right"], batch
