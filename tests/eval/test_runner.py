"""The runner end to end on a few cases: real servers, the real `gatehouse ask`, a report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cases import STATUSES
from eval.run import EXIT_OK, EXIT_TARGET_MISSED, EXIT_USAGE, main
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
    main(["--json"])
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
