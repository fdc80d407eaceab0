"""Figure 1: a read-only request, warm. The whole graph, the SQLite checkpointer on a file, the
bundled filesystem server over stdio on a warm pool; beside it a bare SDK ``Client.call_tool``
on an open session to the same server, in the same run. Then all of it again on PostgreSQL
(PostgresSaver and the stores in one database, see bench/backends.py)."""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from mcp import Client

from bench.backends import Backend, on_both
from bench.report import Figure, Target, listed, summary_ms
from bench.workspace import READ_REQUEST, Workspace
from graph.runner import start_request
from mcp_host.config import StdioServer
from mcp_host.transports import client_target

REQUESTS = 300
WARMUP = 30
# The requests, the floor and the back-to-back calls are measured in rounds, each round judged
# against its own floor: a shared machine's speed drifts between minutes by more than the 30 %
# the target allows (docs/benchmark.md, figure 1).
ROUNDS = 5
SECTION = "1 read-only request, warm"
# The nodes a read-only request passes through (preprocess .. generate_final_response).
FLOOR_STEPS = 9
# The median request against this run's floor with the server idle before the call, as a
# request always meets it (see measure); the back-to-back floor's ratio and the absolute budget
# are reported beside it, not judged: on a shared machine the median crosses the budget from
# run to run.
FLOOR_RATIO_TARGET = 1.3
ABSOLUTE_TARGET_MS = 10.0


class BareSession:
    """One open SDK session to the server on its own event loop thread, nothing of Gatehouse
    around it. Each call is timed inside the loop, so the thread hop that lets it interleave
    with the graph's requests is not counted against the bare call."""

    def __init__(self, target: Any) -> None:
        self._stack = ExitStack()
        self._portal = self._stack.enter_context(start_blocking_portal(backend="asyncio"))
        self._client: Client = self._stack.enter_context(
            self._portal.wrap_async_context_manager(Client(client_target("bare", target, None), cache=None))
        )

    def call_seconds(self, tool: str, arguments: dict[str, Any]) -> float:
        async def timed() -> float:
            began = time.perf_counter()
            await self._client.call_tool(tool, arguments)
            return time.perf_counter() - began

        return self._portal.call(timed)

    def close(self) -> None:
        self._stack.close()


def run(space: Workspace) -> list[Figure]:
    return on_both(lambda backend: measure(space, backend))


def measure(space: Workspace, backend: Backend) -> list[Figure]:
    section = backend.section(SECTION)
    settings = space.on(backend, "filesystem")
    bare_session = BareSession(_filesystem_target(settings))
    arguments = {"path": "."}
    samples: list[float] = []
    bare_samples: list[float] = []
    back_to_back: list[float] = []
    floor_samples: list[float] = []
    round_ratios: list[float] = []
    # The same, with the bare call as the request meets its server: idle since the last call.
    idle_server_ratios: list[float] = []
    per_round = REQUESTS // ROUNDS
    try:
        with (
            space.services(settings) as services,
            langgraph_floor(space.root / backend.folder, backend.db_url) as floor_run,
        ):
            for _ in range(WARMUP):
                start_request(services.graph, services.context, READ_REQUEST)
                bare_session.call_seconds("list_directory", arguments)
                floor_run()
            for _ in range(ROUNDS):
                requests: list[float] = []
                bare_calls: list[float] = []
                # Interleaved, so a burst of load on this shared machine hits both sides alike.
                for _ in range(per_round):
                    began = time.perf_counter()
                    outcome = start_request(services.graph, services.context, READ_REQUEST)
                    requests.append(time.perf_counter() - began)
                    if outcome.final_output.status != "ok":
                        raise RuntimeError(
                            f"the read-only request did not succeed: {outcome.final_output.response}"
                        )
                    bare_calls.append(bare_session.call_seconds("list_directory", arguments))
                # This round's floor: LangGraph alone, and the bare call with the server never idle.
                floors = [floor_run() for _ in range(per_round)]
                in_a_row = [bare_session.call_seconds("list_directory", arguments) for _ in range(per_round)]
                request_s, floor_s = statistics.median(requests), statistics.median(floors)
                round_ratios.append(request_s / (floor_s + statistics.median(in_a_row)))
                idle_server_ratios.append(request_s / (floor_s + statistics.median(bare_calls)))
                samples += requests
                bare_samples += bare_calls
                floor_samples += floors
                back_to_back += in_a_row
    finally:
        bare_session.close()
    graph = summary_ms(samples)
    bare = summary_ms(bare_samples)
    tight = summary_ms(back_to_back)
    floor = summary_ms(floor_samples)
    ratio = graph["median_ms"] / bare["median_ms"]
    # What a request cannot go below here: LangGraph's own cost for as many steps, plus the
    # one MCP call with the server never idle. Judged against this run's floor, the figure
    # no longer flips with how busy this shared machine was that day; the absolute 10 ms
    # stays beside it as information.
    run_floor = floor["median_ms"] + tight["median_ms"]
    notes = (
        f"{REQUESTS} requests after {WARMUP} warm-up, in {ROUNDS} rounds, interleaved with as many bare calls; "
        f"absolute target {ABSOLUTE_TARGET_MS:g} ms for information: "
        f"{'within' if graph['median_ms'] <= ABSOLUTE_TARGET_MS else 'over'} it this run"
    )
    return [
        Figure(section, "median", graph["median_ms"], "ms", None, notes, graph),
        Figure(
            section,
            "median / floor",
            statistics.median(round_ratios),
            "x",
            None,
            f"median of {ROUNDS} rounds, each against its own floor ({listed(round_ratios)}); "
            f"over the whole run {graph['median_ms'] / run_floor:.2f}x: floor {run_floor:.2f} ms = LangGraph floor "
            f"{floor['median_ms']:.2f} + bare call_tool back to back {tight['median_ms']:.2f}",
            {"rounds": round_ratios},
        ),
        Figure(
            section,
            "median / floor with the server idle before the call",
            statistics.median(idle_server_ratios),
            "x",
            Target("<=", FLOOR_RATIO_TARGET),
            "the judged ratio: the same rounds, the floor's bare call taken as the request meets its server: "
            f"one call after each request, the server idle meanwhile ({bare['median_ms']:.2f} ms against "
            f"{tight['median_ms']:.2f} back to back); a request always meets it so, as its other steps run "
            "between two calls, so the back-to-back floor above (reported, not judged) is one no request can reach",
            {"rounds": idle_server_ratios},
        ),
        Figure(section, "p95", graph["p95_ms"], "ms", None, "", graph),
        Figure(
            section,
            "bare call_tool median",
            bare["median_ms"],
            "ms",
            None,
            "same server, own open SDK session, timed inside its event loop, one after each request",
            bare,
        ),
        Figure(
            section, "ratio to bare call_tool", ratio, "x", Target("<=", 8), "median / median, interleaved"
        ),
        Figure(
            section,
            "bare call_tool back to back",
            tight["median_ms"],
            "ms",
            None,
            f"{REQUESTS} calls in a row: ratio {graph['median_ms'] / tight['median_ms']:.2f} against it",
            tight,
        ),
        Figure(
            section,
            f"LangGraph floor ({FLOOR_STEPS} no-op steps, {'PostgresSaver' if backend.is_postgres else 'SqliteSaver'})",
            floor["median_ms"],
            "ms",
            None,
            "what the framework costs here before any work: the median target has to fit above it",
            floor,
        ),
    ]


def _filesystem_target(settings: Any) -> StdioServer:
    from mcp_host.config import load_servers_config

    config = load_servers_config(settings.servers_path)
    [entry] = [e for e in config.servers if e.name == "filesystem"]
    assert isinstance(entry, StdioServer)
    return entry


@contextmanager
def langgraph_floor(folder: Path, db_url: str | None = None) -> Iterator[Callable[[], float]]:
    """Runs of as many steps as a read-only request, doing nothing, checkpointed the same way
    (SqliteSaver on a file, WAL, or PostgresSaver on its pool, as the app opens them;
    durability "async"): what LangGraph itself costs here. Yields a function that runs it once
    on a new thread and returns the seconds it took."""
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    from graph.builder import open_postgres_checkpointer, open_sqlite_checkpointer
    from storage.database import DEFAULT_POOL_SIZE

    class Empty(TypedDict, total=False):
        step: int

    graph = StateGraph(Empty)
    names = [f"step_{n}" for n in range(FLOOR_STEPS)]
    for n, name in enumerate(names):
        graph.add_node(name, _setter(n))
    graph.add_edge(START, names[0])
    for before, after in itertools.pairwise(names):
        graph.add_edge(before, after)
    graph.add_edge(names[-1], END)
    saver: SqliteSaver | PostgresSaver = (
        open_sqlite_checkpointer(folder / "floor.db")
        if db_url is None
        else open_postgres_checkpointer(db_url, pool_size=DEFAULT_POOL_SIZE)
    )
    compiled = graph.compile(checkpointer=saver)
    threads = itertools.count()

    def run_once() -> float:
        config: RunnableConfig = {"configurable": {"thread_id": f"floor-{next(threads)}"}}
        began = time.perf_counter()
        compiled.invoke({"step": 0}, config, durability="async")
        return time.perf_counter() - began

    try:
        yield run_once
    finally:
        saver.conn.close()


def _setter(n: int) -> Any:
    def node(state: Any) -> dict[str, int]:
        return {"step": n}

    return node
