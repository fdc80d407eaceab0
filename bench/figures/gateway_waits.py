"""Figure 16: calls waiting for reviewers through `gatehouse serve`. The endpoint in a process of
its own (bench/gateway_process.py) on a SQLite file with the bundled filesystem and e-mail
servers over stdio and the shipped policy, which sends every e-mail to review; MCP clients in
this process (the MCP Python SDK's, over Streamable HTTP, without the tasks extension, so each
call waits in its request with progress); a reviewer in this process too, deciding with the
review service on the same database, as the app or the command line would from another process.

Threads: WAITERS clients call at once and all wait; the endpoint's threads while they wait,
against its threads before, once the worker threads that opened the calls have been idle long
enough for anyio to retire them. Memory: the endpoint's resident set after a warm-up, and after
MEASURED_WAITS more waits, in batches of WAITERS, each call decided (half approved and sent,
half rejected with a reason) while its client waits, and its answer checked."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial

import anyio
import anyio.to_thread
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT

from bench.browser_tabs import cpu_seconds
from bench.gateway_process import Endpoint, gatehouse_serve, threads
from bench.process_memory import vm_status
from bench.report import Figure, Target
from bench.workspace import Workspace
from gatehouse.credentials.access_tokens import AccessTokenStore
from gatehouse.wiring import Services

SECTION = "16 the gateway: calls waiting for reviewers"
SEND = "email__send_email"
READ = "filesystem__list_directory"
RECIPIENT = "bob@example.com"
REQUESTER = "operator"
REVIEWER = "reviewer"
REASON = "not this week"
WAITERS = 100
# Waits before the resident set is first taken: the threads' batch and these more batches.
WARMUP_BATCHES = 1
MEASURED_WAITS = 1000
# How long a call stays open for its reviewer (`gatehouse serve --wait`): longer than any batch.
WAIT_SECONDS = 600
# anyio retires a worker thread idle this long (its WorkerThread.MAX_IDLE_TIME, 10 s), at its
# next use; the watch's read each second is one. The threads are counted after this.
RETIRE_SECONDS = 12.0
COUNT_SECONDS = 5.0
SAMPLE_SECONDS = 0.25
BATCH_SECONDS = 600.0
# Threads while WAITERS calls wait, above the endpoint's own before them: the watch's read and
# a spare, nowhere near one per waiting call (nor anyio's 40 worker threads, where a design
# that held a thread per waiting call would stop).
THREADS_TARGET = 5
MEMORY_TARGET_PERCENT = 10.0


@dataclass
class Waiter:
    """One client's call: its arguments' body (unique, so no call joins another), the verdict
    it gets, and what its client saw."""

    body: str
    approve: bool
    waiting: anyio.Event = field(default_factory=anyio.Event)
    result: types.CallToolResult | None = None


@dataclass(frozen=True)
class Gateway:
    endpoint: Endpoint
    token: str
    reviewer: Services


def run(space: Workspace) -> list[Figure]:
    settings = space.demo("filesystem", "email")
    with (
        gatehouse_serve(settings, "--wait", str(WAIT_SECONDS)) as endpoint,
        space.services(settings) as reviewer,
    ):
        token = AccessTokenStore(reviewer.ledger.database).issue(REQUESTER).token
        return anyio.run(measure, Gateway(endpoint, token, reviewer))


async def measure(gateway: Gateway) -> list[Figure]:
    pid = gateway.endpoint.pid
    # Warm-up: an allowed call and a few waits, each path served once.
    await _call(gateway, READ, {"path": "."})
    await wait_batch(gateway, "warm-up", 4)
    # The endpoint's threads with one call waiting, then with WAITERS, counted alike.
    alone: list[int] = []
    await wait_batch(gateway, "one", 1, while_waiting=partial(_count_threads, pid, alone))
    held: list[int] = []
    opening_peak = await wait_batch(
        gateway, "threads", WAITERS, while_waiting=partial(_count_threads, pid, held)
    )
    for n in range(WARMUP_BATCHES):
        await wait_batch(gateway, f"warm-up {n + 1}", WAITERS)
    warm_rss = vm_status(pid)["VmRSS"]
    rss = [warm_rss]
    began, cpu = time.perf_counter(), cpu_seconds(pid)
    for n in range(MEASURED_WAITS // WAITERS):
        await wait_batch(gateway, f"batch {n + 1}", WAITERS)
        rss.append(vm_status(pid)["VmRSS"])
    seconds, cpu = time.perf_counter() - began, cpu_seconds(pid) - cpu
    growth = (rss[-1] - warm_rss) / warm_rss * 100
    mb = [r / 2**20 for r in rss]
    return [
        Figure(
            SECTION,
            f"threads while {WAITERS} calls wait, above those while one waits",
            max(held) - max(alone),
            "",
            Target("<=", THREADS_TARGET),
            f"{max(held)} threads against {max(alone)} while one call waits: the most of {len(held)} counts over "
            f"{COUNT_SECONDS:g} s from {RETIRE_SECONDS:g} s after the last call began waiting, every call still waiting",
            {"one_waiting": alone, "waiting": held},
        ),
        Figure(
            SECTION,
            f"threads while {WAITERS} calls were being opened",
            opening_peak,
            "",
            None,
            "the most counted while the calls were checked and their reviews opened, before all waited: anyio's "
            "worker threads (40 at most) running the graph, and LangGraph's checkpoint writer for each run",
        ),
        Figure(
            SECTION,
            f"resident memory growth over {MEASURED_WAITS:,} waits after warm-up",
            growth,
            "%",
            Target("<=", MEMORY_TARGET_PERCENT),
            f"VmRSS {mb[0]:.1f} MB after {WAITERS * (WARMUP_BATCHES + 1) + 5} waits, {mb[-1]:.1f} MB after "
            f"{MEASURED_WAITS:,} more in batches of {WAITERS} (each MB: {', '.join(f'{m:.1f}' for m in mb)}); "
            f"{seconds:.0f} s, {seconds / MEASURED_WAITS * 1000:.0f} ms a wait, of which the endpoint's CPU "
            f"{cpu / MEASURED_WAITS * 1000:.0f} ms",
            {"rss_bytes": rss},
        ),
    ]


async def wait_batch(
    gateway: Gateway,
    tag: str,
    count: int,
    *,
    while_waiting: Callable[[list[Waiter]], Awaitable[None]] | None = None,
) -> int:
    """``count`` clients call at once and wait; once all wait (and ``while_waiting`` is done)
    the reviewer decides each; every answer is checked. The most threads the endpoint had
    while the calls were being opened."""
    waiters = [Waiter(f"{tag} {n}", approve=n % 2 == 0) for n in range(count)]
    peak = 0
    with anyio.fail_after(BATCH_SECONDS):
        async with anyio.create_task_group() as calls:
            for waiter in waiters:
                calls.start_soon(_wait, gateway, waiter)
            while not all(w.waiting.is_set() for w in waiters):
                peak = max(peak, threads(gateway.endpoint.pid))
                early = [w for w in waiters if w.result is not None and not w.waiting.is_set()]
                if early:
                    raise RuntimeError(f"a call was answered without waiting: {_text(early[0].result)}")
                await anyio.sleep(SAMPLE_SECONDS / 2)
            if while_waiting is not None:
                await while_waiting(waiters)
            await anyio.to_thread.run_sync(partial(_decide, gateway.reviewer, waiters))
    for waiter in waiters:
        _check(waiter)
    return peak


async def _wait(gateway: Gateway, waiter: Waiter) -> None:
    async def progress(progress: float, total: float | None, message: str | None) -> None:
        waiter.waiting.set()

    arguments = {"to": RECIPIENT, "body": waiter.body}
    waiter.result = await _call(gateway, SEND, arguments, progress)


async def _call(
    gateway: Gateway, tool: str, arguments: dict[str, str], progress: ProgressFnT | None = None
) -> types.CallToolResult:
    """One client: its own HTTP connection and SDK client, one call."""
    async with (
        httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {gateway.token}"}, timeout=WAIT_SECONDS + 60
        ) as http,
        Client(streamable_http_client(gateway.endpoint.url, http_client=http)) as client,
    ):
        result = await client.call_tool(tool, arguments, progress_callback=progress)
    if progress is None and result.is_error:
        raise RuntimeError(f"{tool} failed: {_text(result)}")
    return result


async def _count_threads(pid: int, counts: list[int], waiters: list[Waiter]) -> None:
    """Count the endpoint's threads while ``waiters`` wait, once anyio has retired the worker
    threads that opened their calls; none may be answered meanwhile."""
    await anyio.sleep(RETIRE_SECONDS)
    until = time.monotonic() + COUNT_SECONDS
    while time.monotonic() < until:
        counts.append(threads(pid))
        await anyio.sleep(SAMPLE_SECONDS)
    answered = [w.body for w in waiters if w.result is not None]
    if answered:
        raise RuntimeError(f"{len(answered)} calls were answered before a reviewer decided")


def _decide(services: Services, waiters: list[Waiter]) -> None:
    """The reviewer decides every waiting call's review."""
    by_body = {w.body: w for w in waiters}
    reviews = [r for r in services.ledger.queue("pending") if r.arguments.get("body") in by_body]
    if len(reviews) != len(waiters):
        raise RuntimeError(f"{len(reviews)} pending reviews for {len(waiters)} waiting calls")
    for review in reviews:
        approve = by_body[review.arguments["body"]].approve
        services.reviews.decide(
            review.id, reviewer=REVIEWER, approve=approve, reason=None if approve else REASON
        )


def _check(waiter: Waiter) -> None:
    result = waiter.result
    if result is None:
        raise RuntimeError(f"the call {waiter.body!r} got no answer")
    if waiter.approve and result.is_error:
        raise RuntimeError(f"the approved call {waiter.body!r} failed: {_text(result)}")
    if not waiter.approve and not (result.is_error and REASON in _text(result)):
        raise RuntimeError(f"the rejected call {waiter.body!r} was not told the reason: {_text(result)}")


def _text(result: types.CallToolResult | None) -> str:
    if result is None:
        return "(none)"
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
