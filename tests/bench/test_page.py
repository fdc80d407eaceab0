"""docs/benchmark.md is written from the committed results (bench/page.py): a number edited by
hand on the page, or a results file missing or broken, fails here and says what to run."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from bench import page, report
from bench.__main__ import FIGURES
from bench.report import Figure, Target, write_report


def test_the_committed_page_is_the_one_its_results_give() -> None:
    rendered = page.render()
    committed = page.PAGE.read_text(encoding="utf-8")
    assert committed == rendered, (
        "docs/benchmark.md differs from what bench/page_template.md and bench/results/figures/*.json "
        "give: its numbers come only from the results. Run `make bench-page` (python -m bench.page) "
        "and commit the page; change prose in bench/page_template.md, numbers by running the benchmark."
    )


def test_the_template_shows_every_figure_the_benchmark_runs_once() -> None:
    named = re.findall(r"\{\{figure ([a-z_]+)\}\}", page.TEMPLATE.read_text(encoding="utf-8"))
    assert sorted(named) == sorted(FIGURES)
    assert len(named) == len(set(named))


def test_every_figure_has_committed_results() -> None:
    for name in FIGURES:
        run = page.load_run(page.FIGURES_DIR / f"{name}.json")
        assert run.figures, name
        assert {line["figure"] for line in run.figures} == {name}


def _copy_results(tmp_path: Path) -> Path:
    folder = tmp_path / "figures"
    shutil.copytree(page.FIGURES_DIR, folder)
    return folder


def test_a_missing_results_file_is_named_with_what_to_run(tmp_path: Path) -> None:
    folder = _copy_results(tmp_path)
    (folder / "memory.json").unlink()
    with pytest.raises(page.PageError) as raised:
        page.render(figures_dir=folder)
    message = str(raised.value)
    assert str(folder / "memory.json") in message
    assert "no such results file" in message
    assert "python -m bench --only memory" in message


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"when": "20261130T000000Z", "figures": [', "not JSON"),
        ("[1, 2]", "not a results report"),
        (
            '{"when": "20261130T000000Z", "command": "make bench", "commit": "abc", "environment": {}}',
            '"figures"',
        ),
        (
            '{"when": "x", "command": "make bench", "commit": "abc", "environment": {}, "figures": [{"name": "median"}]}',
            "figure line 1 lacks section, unit, verdict",
        ),
    ],
)
def test_a_corrupt_results_file_is_named_with_the_problem(tmp_path: Path, content: str, problem: str) -> None:
    folder = _copy_results(tmp_path)
    (folder / "replicas.json").write_text(content, encoding="utf-8")
    with pytest.raises(page.PageError) as raised:
        page.render(figures_dir=folder)
    assert str(folder / "replicas.json") in str(raised.value)
    assert problem in str(raised.value)


def test_a_run_writes_the_results_the_page_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What `python -m bench` writes for a figure is what its block on the page prints: the
    value, the target, the verdict, the notes, and the run's command and commit."""
    # The commit comes from git and the platform from uname in a real run; fixed ones here,
    # so no process starts (the quick lane).
    monkeypatch.setattr(report, "commit", lambda: "abc1234567")
    machine = {"python": "3.11.7", "machine": "x86_64", "cpus": 2, "platform": "Linux-test"}
    monkeypatch.setattr(report, "environment", lambda: machine)
    figures = [
        (
            "cli_start",
            Figure("9 command line start", "gatehouse --help", 48.25, "ms", Target("<=", 300), "15 rounds"),
        ),
        (
            "cli_start",
            Figure("9 command line start", "broken", float("nan"), "ms", Target("<=", 1), error="no | pipe"),
        ),
    ]
    write_report(figures, tmp_path, command="python -m bench --only cli_start", seconds=1.0)
    saved = json.loads((tmp_path / "figures" / "cli_start.json").read_text(encoding="utf-8"))
    assert "seconds" not in saved
    block = page.render_run(page.load_run(tmp_path / "figures" / "cli_start.json"))
    assert "| PASS | 9 command line start: gatehouse --help | 48.25 ms | <= 300 | 15 rounds |" in block
    assert "| FAIL | 9 command line start: broken | not measured | <= 1 | no \\| pipe |" in block
    assert "by `python -m bench --only cli_start` at commit `abc1234567`" in block
    assert "on 2 CPUs (x86_64, Linux-test), Python 3.11.7: 1 of 2 targets met" in block
