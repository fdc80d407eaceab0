"""How figure 8 turns rounds of windows into figures (bench/figures/replicas.py): a window counts
only what ended inside it, and a ratio compares windows of the same round."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.figures.replicas import (
    ClientLog,
    CpuSample,
    Run,
    Window,
    clients,
    replica_counts,
    round_ratios,
    run_figures,
)

IDLE = CpuSample(replicas=0.0, postgres=0.0, generator=0.0, busy=0.0, total=0.0)


def _run(count: int, rounds: list[float], per_core: list[float] | None = None) -> Run:
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
        rounds_per_core=per_core or [],
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


def test_a_window_knows_how_many_cores_the_machine_kept_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    # /proc/stat ticks over both cores: 150 of 200 busy is 1.5 cores.
    before = CpuSample(replicas=0.0, postgres=0.0, generator=0.0, busy=1000.0, total=2000.0)
    after = CpuSample(replicas=0.0, postgres=0.0, generator=0.0, busy=1150.0, total=2200.0)
    log = ClientLog(done=[("ask", 10.0 + n / 10, 0.01) for n in range(30)])
    window = Window([log], start=10.0, end=13.0, before=before, after=after)

    assert window.busy_cores() == pytest.approx(1.5)
    assert Window([log], 10.0, 13.0, IDLE, IDLE).steps_per_busy_core() == 0.0


def test_throughput_per_busy_core_counts_the_figures_own_processes_and_not_what_others_ran() -> None:
    # The machine was busy on both cores, but the replicas, their database sessions (one of
    # them started during the window) and the load generator used 1.2 of them.
    before = CpuSample(
        replicas=10.0, postgres=50.0, generator=1.0, busy=1000.0, total=2000.0, sessions={7: 3.0}
    )
    after = CpuSample(
        replicas=12.4, postgres=59.0, generator=1.3, busy=1200.0, total=2200.0, sessions={7: 3.6, 8: 0.3}
    )
    log = ClientLog(done=[("ask", 10.0 + n / 10, 0.01) for n in range(30)])
    window = Window([log], start=10.0, end=13.0, before=before, after=after)

    assert window.used_cores() == pytest.approx((2.4 + 0.6 + 0.3 + 0.3) / 3)
    assert window.steps_per_busy_core() == pytest.approx(10 / 1.2)


def test_per_core_ratios_compare_each_rounds_throughput_per_busy_core() -> None:
    # Two replicas served 1.4x one's, but kept 1.4x the cores busy: per core, the same.
    runs = {1: _run(1, [40.0, 50.0], per_core=[30.0, 37.5]), 2: _run(2, [56.0, 70.0], per_core=[30.0, 37.5])}

    assert round_ratios(runs, 2) == pytest.approx([1.4, 1.4])
    assert round_ratios(runs, 2, per_core=True) == [1.0, 1.0]


def test_the_clients_and_the_replica_counts_are_settings_with_the_figures_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FIG8_CLIENTS", raising=False)
    monkeypatch.delenv("FIG8_REPLICAS", raising=False)
    assert (clients(), replica_counts()) == (8, (1, 2, 4))

    monkeypatch.setenv("FIG8_CLIENTS", "48")
    monkeypatch.setenv("FIG8_REPLICAS", "8, 1,4,2")
    assert (clients(), replica_counts()) == (48, (1, 2, 4, 8))

    for variable, value, named in [
        ("FIG8_CLIENTS", "many", "FIG8_CLIENTS='many'"),
        ("FIG8_CLIENTS", "0", "FIG8_CLIENTS='0'"),
        ("FIG8_REPLICAS", "2,4", "must include 1"),
    ]:
        monkeypatch.setenv(variable, value)
        with pytest.raises(ValueError, match=named):
            clients() if variable == "FIG8_CLIENTS" else replica_counts()
        monkeypatch.delenv(variable)


def _waited(count: int, rounds: list[float], per_core: list[float], share: float) -> Run:
    parties = ("replicas", "database_sessions", "postgres", "load_generator", "others", "machine_busy")
    return replace(
        _run(count, rounds, per_core),
        cores=dict.fromkeys(parties, 1.0),
        waits={"lock_wait_share": share, "samples": 100, "active_sessions": 2.0},
    )


def test_four_replicas_are_judged_on_their_lock_waits_and_on_a_small_machine_per_busy_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    runs = {
        1: _waited(1, [40.0, 40.0], [30.0, 30.0], 0.05),
        2: _waited(2, [50.0, 50.0], [28.0, 28.0], 0.06),
        4: _waited(4, [52.0, 52.0], [20.0, 20.0], 0.12),
    }

    judged = {f.name: f for f in run_figures(runs) if f.target is not None}

    assert judged["4 replicas: active database sessions waiting on a lock"].value == pytest.approx(12.0)
    assert judged["4 replicas: active database sessions waiting on a lock"].verdict == "FAIL"
    assert judged["2 replicas / 1, throughput per busy core"].verdict == "PASS"  # 28 / 30
    assert judged["4 replicas / 1, throughput per busy core"].verdict == "FAIL"  # 20 / 30
    # The absolute ratios are reported, not judged, on two cores.
    assert "2 replicas / 1, throughput" not in judged and "4 replicas / 1, throughput" not in judged

    monkeypatch.setattr("os.cpu_count", lambda: 16)
    judged = {f.name: f for f in run_figures(runs) if f.target is not None}
    assert judged["2 replicas / 1, throughput"].verdict == "FAIL"  # 1.25x
    assert "2 replicas / 1, throughput per busy core" not in judged
