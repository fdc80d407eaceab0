"""How figure 8 turns rounds of windows into figures (bench/figures/replicas.py): a window counts
only what ended inside it, and a ratio compares windows of the same round."""

from __future__ import annotations

import pytest

from bench.figures.replicas import ClientLog, CpuSample, Run, Window, round_ratios

IDLE = CpuSample(replicas=0.0, postgres=0.0, generator=0.0, busy=0.0, total=0.0)


def _run(count: int, rounds: list[float]) -> Run:
    return Run(
        count=count,
        steps_per_s=sum(rounds) / len(rounds),
        cycles_per_s=0.0,
        latency={},
        errors=[],
        decisions_won=0,
        already_decided=0,
        decided_twice=0,
        run_twice=0,
        lost=0,
        cores={},
        rounds=rounds,
    )


def test_a_window_counts_the_requests_that_ended_inside_it_and_no_others() -> None:
    log = ClientLog(
        done=[("ask", 9.9, 0.5), ("ask", 10.0, 0.02), ("queue", 13.5, 0.01), ("decide", 16.0, 0.03)]
    )
    window = Window([log], start=10.0, end=16.0, before=IDLE, after=IDLE)

    assert window.steps() == [("ask", 0.02), ("queue", 0.01)]
    assert window.steps_per_s() == pytest.approx(2 / 6)


def test_each_rounds_ratio_compares_the_windows_of_that_round() -> None:
    # The machine ran slower in round 2 for every set: the ratio of each round stays 1.5.
    runs = {1: _run(1, [40.0, 20.0, 40.0]), 2: _run(2, [60.0, 30.0, 60.0])}

    ratios = round_ratios(runs, 2)

    assert ratios == [1.5, 1.5, 1.5]


def test_a_round_in_which_one_replica_served_nothing_gives_no_ratio_rather_than_a_division_by_zero() -> None:
    runs = {1: _run(1, [40.0, 0.0]), 2: _run(2, [60.0, 10.0])}

    assert round_ratios(runs, 2) == [1.5]
