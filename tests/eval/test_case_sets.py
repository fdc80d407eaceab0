"""Batches: every case carries the batch it came in, read from the benchmark's cases file and
every batch file beside it (a small copy of that layout lives in tests/eval/fixture/), and a
wrong file is one error naming the file, the case or batch, and the field."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from eval.case_sets import OVERALL, Tally, load_benchmark, read_case_file
from eval.cases import CASES_FILE, CasesFileError, load_cases

FIXTURE = Path(__file__).resolve().with_name("fixture")
FIXTURE_CASES = FIXTURE / "selection_cases.json"
FIXTURE_BATCHES = FIXTURE / "batches"


def _fixture(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    """A writable copy of the fixture: the cases file, the batches folder, the batch file's data."""
    batches = tmp_path / "batches"
    batches.mkdir()
    cases = tmp_path / "selection_cases.json"
    cases.write_text(FIXTURE_CASES.read_text(encoding="utf-8"), encoding="utf-8")
    batch = json.loads((FIXTURE_BATCHES / "2026-12-weather.json").read_text(encoding="utf-8"))
    return cases, batches, batch


def _problems(cases: Path, batches: Path) -> str:
    with pytest.raises(CasesFileError) as caught:
        load_benchmark(cases, batches)
    return str(caught.value)


def test_every_case_gets_the_batch_of_its_file_or_the_one_it_names() -> None:
    benchmark = load_benchmark(FIXTURE_CASES, FIXTURE_BATCHES)

    assert {c.id: c.batch for c in benchmark.cases} == {
        "time-tokyo": "seed",
        "time-paris": "held-out",
        "none-sms": "held-out",
        "weather-oslo": "2026-12-weather",
        "weather-alert": "2026-12-weather",
        "none-umbrella": "2026-12-weather",
    }
    weather = benchmark.batches[-1]
    assert weather.servers == {"weather": "mcp-weather@1.2.0"}
    assert weather.before_tuning["weather"] == Tally(1, 2)
    assert weather.source == "2026-12-weather.json"
    assert benchmark.batches[1].before_tuning == {OVERALL: Tally(1, 2)}


def test_a_group_a_batch_declares_is_known_without_a_change_to_the_code() -> None:
    benchmark = load_benchmark(FIXTURE_CASES, FIXTURE_BATCHES)

    assert benchmark.groups() == ["time", "none", "weather"]


def test_selecting_by_batch_keeps_that_batch_and_its_cases() -> None:
    picked = load_benchmark(FIXTURE_CASES, FIXTURE_BATCHES).selected("held-out")

    assert [c.id for c in picked.cases] == ["time-paris", "none-sms"]
    assert [b.id for b in picked.batches] == ["held-out"]


def test_a_case_id_used_in_two_files_names_both(tmp_path: Path) -> None:
    cases, batches, batch = _fixture(tmp_path)
    batch["cases"][0]["id"] = "time-tokyo"
    (batches / "b.json").write_text(json.dumps(batch), encoding="utf-8")

    assert _problems(cases, batches) == f"{batches / 'b.json'}: case time-tokyo: id also used in {cases}"


def test_an_unknown_group_names_the_file_the_case_and_the_field(tmp_path: Path) -> None:
    cases, batches, batch = _fixture(tmp_path)
    batch["cases"][1]["group"] = "wether"
    (batches / "b.json").write_text(json.dumps(batch), encoding="utf-8")

    message = _problems(cases, batches)
    assert message.startswith(f"{batches / 'b.json'}: case weather-alert: group must be one of ")
    assert "weather" in message and "\n" not in message


def test_a_case_in_a_batch_file_cannot_name_another_batch(tmp_path: Path) -> None:
    cases, batches, batch = _fixture(tmp_path)
    batch["cases"][0]["batch"] = "seed"
    (batches / "b.json").write_text(json.dumps(batch), encoding="utf-8")

    assert _problems(cases, batches) == (
        f"{batches / 'b.json'}: case weather-oslo: batch must be one of the file's batches: 2026-12-weather"
    )


def test_a_batch_header_is_checked_field_by_field(tmp_path: Path) -> None:
    cases, batches, batch = _fixture(tmp_path)
    batch["batch"] |= {
        "written": "1 December",
        "before_tuning": {"weather": {"right": 3, "of": 2}, "rain": {"right": 0, "of": 1}},
    }
    del batch["batch"]["by"]
    (batches / "b.json").write_text(json.dumps(batch), encoding="utf-8")

    assert _problems(cases, batches) == f"{batches / 'b.json'}: " + "; ".join(
        [
            "batch 2026-12-weather: missing field 'by'",
            "batch 2026-12-weather: written must be a date, YYYY-MM-DD",
            "batch 2026-12-weather: before_tuning weather: right and of are counts, right at most of",
            "batch 2026-12-weather: before_tuning names the unknown group 'rain'",
        ]
    )


def test_a_case_in_a_file_of_several_batches_must_name_one(tmp_path: Path) -> None:
    cases, batches, _ = _fixture(tmp_path)
    data = json.loads(cases.read_text(encoding="utf-8"))
    del data["cases"][0]["batch"]
    data["cases"][1]["batch"] = "later"
    cases.write_text(json.dumps(data), encoding="utf-8")

    assert _problems(cases, batches) == f"{cases}: " + "; ".join(
        [
            "case time-tokyo: missing field 'batch'",
            "case time-paris: batch must be one of the file's batches: seed, held-out",
        ]
    )


def test_a_file_that_is_not_json_names_the_line(tmp_path: Path) -> None:
    broken = tmp_path / "cases.json"
    broken.write_text('{"cases": [\n  {"id": }\n]}', encoding="utf-8")

    with pytest.raises(CasesFileError, match=r"cases.json: is not JSON: Expecting value at line 2 column 10"):
        read_case_file(broken)


def test_a_file_without_batches_is_one_batch_named_after_it(tmp_path: Path) -> None:
    mine = tmp_path / "our-requests.json"
    mine.write_text(
        json.dumps(
            {
                "cases": [
                    {
                        "id": "a",
                        "group": "tickets",
                        "request": "List {all} tickets",
                        "capability": "tickets__search_tickets",
                        "status": "ok",
                        "read_only": True,
                    },
                    {
                        "id": "b",
                        "group": "none",
                        "batch": "week-2",
                        "request": "Hi",
                        "capability": None,
                        "status": "answered_without_mcp",
                        "read_only": True,
                    },
                ]
            }
        ),
        encoding="utf-8",
    )

    # A team's file: its groups are its servers; no placeholders, so braces are text.
    mine_set = read_case_file(mine, groups=["tickets", "none"], placeholders=None)
    assert [(c.id, c.batch) for c in mine_set.cases] == [("a", "our-requests"), ("b", "week-2")]
    assert [b.id for b in mine_set.batches] == ["our-requests", "week-2"]
    assert mine_set.batches[0].before_tuning == {}


# -- the benchmark's own batches --------------------------------------------------------------

# What the history of eval/selection_cases.json says came in together (see its "batches" notes).
BATCH_SIZES = {
    "2026-11-issue-15": 142,
    "2026-11-tool-lists-1": 70,
    "2026-11-tool-lists-2": 59,
    "2026-11-tool-lists-3": 50,
    "2026-11-tool-lists-4": 42,
}


def test_every_case_of_the_benchmark_file_came_in_a_recorded_batch() -> None:
    sizes = Counter(case.batch for case in load_cases(CASES_FILE))

    assert sizes == BATCH_SIZES
    recorded = {b.id: b.before_tuning.get(OVERALL) for b in read_case_file(CASES_FILE).batches}
    # 59%, 70%, 64% and 74% before the planner saw them (issue 15's closing note).
    assert recorded == {
        "2026-11-issue-15": None,
        "2026-11-tool-lists-1": Tally(41, 70),
        "2026-11-tool-lists-2": Tally(42, 60),
        "2026-11-tool-lists-3": Tally(32, 50),
        "2026-11-tool-lists-4": Tally(31, 42),
    }


def test_the_benchmark_with_every_batch_file_loads() -> None:
    benchmark = load_benchmark()

    ids = [c.id for c in benchmark.cases]
    assert len(ids) == len(set(ids)) >= sum(BATCH_SIZES.values())
    assert {c.batch for c in benchmark.cases} == {b.id for b in benchmark.batches}


def test_the_example_file_in_docs_eval_md_is_a_valid_cases_file(tmp_path: Path) -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "eval.md").read_text(encoding="utf-8")
    example = tmp_path / "our-cases.json"
    example.write_text(docs.split("```json\n", 1)[1].split("```", 1)[0], encoding="utf-8")

    read = read_case_file(example, groups=["tickets", "none"], placeholders=None)

    assert [b.id for b in read.batches] == ["2026-12-support-team"]
    assert len(read.cases) == 4
