"""Figure 15: an allowed call through `gatehouse serve` against Gatehouse's own warm request.
One Gatehouse (SQLite file, the bundled filesystem server over stdio on a warm pool), and in
this process its MCP endpoint (the app `gatehouse serve` runs, served by uvicorn on 127.0.0.1)
and a bare SDK server over Streamable HTTP whose one tool answers at once with the same result.
Interleaved, in rounds: figure 1's warm read-only request (the graph, start_request), the same
read through the chat's whole path (RequestService.ask), the same call by an MCP client through
the endpoint, and the same client's call to the bare server.

The time a call spends in the gateway is the client's round trip through the endpoint less its
round trip to the bare server: what is left is what Gatehouse adds to an MCP call over HTTP
(the bearer token checked, the call claimed and closed, the request and its run recorded, the
graph with the policy and the server's call, the result made an MCP result), with the HTTP
request and the SDK's JSON-RPC handling on both sides, which any MCP server over HTTP costs, left
out. Timed on the client rather than in the server, so no part of the gateway's own handling
escapes the timer."""

from __future__ import annotations

import statistics
import time
from typing import Any

from bench.mcp_http import TimedClient, bare_app, serving
from bench.report import Figure, Target, listed, summary_ms
from bench.workspace import READ_REQUEST, Workspace
from gatehouse.credentials.access_tokens import AccessTokenStore
from gatehouse.gateway.server import gateway_app
from gatehouse.wiring import Services
from graph.runner import start_request

SECTION = "15 the gateway: an allowed call"
CALLS = 300
WARMUP = 30
# Rounds, each judged against its own warm requests, as figure 1's are: a shared machine's
# speed drifts between minutes by more than the 30 % allowed.
ROUNDS = 5
RATIO_TARGET = 1.3
TOOL = "filesystem__list_directory"
ARGUMENTS: dict[str, Any] = {"path": "."}
REQUESTER = "operator"


def run(space: Workspace) -> list[Figure]:
    settings = space.demo("filesystem")
    with space.services(settings) as services:
        tokens = AccessTokenStore(services.ledger.database)
        token = tokens.issue(REQUESTER).token
        with serving(gateway_app(services, tokens)) as url:
            gateway = TimedClient(url, token)
            try:
                _, answer = gateway.call(TOOL, ARGUMENTS)
                with serving(bare_app(TOOL, answer)) as bare_url:
                    bare = TimedClient(bare_url, token)
                    try:
                        return measure(services, gateway, bare)
                    finally:
                        bare.close()
            finally:
                gateway.close()


def measure(services: Services, gateway: TimedClient, bare: TimedClient) -> list[Figure]:
    def request() -> float:
        began = time.perf_counter()
        outcome = start_request(services.graph, services.context, READ_REQUEST)
        seconds = time.perf_counter() - began
        if outcome.final_output.status != "ok":
            raise RuntimeError(f"the read-only request did not succeed: {outcome.final_output.response}")
        return seconds

    def ask() -> float:
        began = time.perf_counter()
        services.requests.ask(READ_REQUEST, requester=REQUESTER)
        return time.perf_counter() - began

    def through_gateway() -> float:
        seconds, result = gateway.call(TOOL, ARGUMENTS)
        if result.is_error:
            raise RuntimeError(f"the allowed call failed through the gateway: {result.content}")
        return seconds

    def to_bare() -> float:
        return bare.call(TOOL, ARGUMENTS)[0]

    for _ in range(WARMUP):
        request(), ask(), through_gateway(), to_bare()
    requests: list[float] = []
    asks: list[float] = []
    calls: list[float] = []
    bares: list[float] = []
    ratios: list[float] = []
    ask_ratios: list[float] = []
    for _ in range(ROUNDS):
        round_samples: tuple[list[float], ...] = ([], [], [], [])
        # Interleaved, so a burst of load on this shared machine hits every side alike.
        for _ in range(CALLS // ROUNDS):
            for samples, measure_once in zip(
                round_samples, (request, ask, through_gateway, to_bare), strict=True
            ):
                samples.append(measure_once())
        r, a, g, b = (statistics.median(s) for s in round_samples)
        ratios.append((g - b) / r)
        ask_ratios.append((g - b) / a)
        for whole, samples in zip((requests, asks, calls, bares), round_samples, strict=True):
            whole += samples
    request_ms, ask_ms, call_ms, bare_ms = (summary_ms(s) for s in (requests, asks, calls, bares))
    in_gateway_ms = call_ms["median_ms"] - bare_ms["median_ms"]
    return [
        Figure(
            SECTION,
            "time in the gateway / warm request",
            statistics.median(ratios),
            "x",
            Target("<=", RATIO_TARGET),
            f"median of {ROUNDS} rounds, each (client's round trip through the endpoint - its round trip to the "
            f"bare server) / figure 1's warm request, medians of the round ({listed(ratios)}); over the whole run "
            f"{in_gateway_ms:.2f} ms in the gateway against {request_ms['median_ms']:.2f} ms",
            {"rounds": ratios},
        ),
        Figure(
            SECTION,
            "time in the gateway / the chat's request",
            statistics.median(ask_ratios),
            "x",
            None,
            "the same rounds against the same read asked through the chat's path (RequestService.ask, which "
            f"records the request and its run as the gateway does): {listed(ask_ratios)}",
            {"rounds": ask_ratios},
        ),
        Figure(
            SECTION,
            "time in the gateway",
            in_gateway_ms,
            "ms",
            None,
            f"{CALLS} calls after {WARMUP} warm-up, in {ROUNDS} rounds: median round trip through the endpoint less "
            "the median to the bare server",
        ),
        Figure(SECTION, "round trip through the endpoint", call_ms["median_ms"], "ms", None, "", call_ms),
        Figure(
            SECTION,
            "round trip to the bare server",
            bare_ms["median_ms"],
            "ms",
            None,
            "the SDK's stateless Streamable HTTP server, one tool answering the endpoint's result at once; the "
            "same client, connection and token",
            bare_ms,
        ),
        Figure(
            SECTION,
            "warm request",
            request_ms["median_ms"],
            "ms",
            None,
            "figure 1's, start_request",
            request_ms,
        ),
        Figure(SECTION, "the chat's request", ask_ms["median_ms"], "ms", None, "RequestService.ask", ask_ms),
    ]
