"""A server whose listing fails (one that never stops paging, repeats its cursor, errors) is not
listed again on every request: its failure is remembered and the listing tried again after a
back-off that doubles, up to a cap, so other servers' requests do not pay for it. The clock is
the pool's own (injected): the tests count the listings made within a back-off window rather
than time anything. Real low-level MCP servers in memory."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from mcp_host.manifest import Manifest, ServerManifest
from mcp_host.sdk_client import MAX_LIST_PAGES, SdkMcpClient
from tests.mcp_host.helpers import echo_server, lowlevel

Ctx = ServerRequestContext[Any, Any]
Paging = types.PaginatedRequestParams | None


class Clock:
    """The pool's monotonic clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Lister:
    """A low-level server whose tools/list the test shapes; it counts listings (first pages)."""

    def __init__(self, name: str) -> None:
        self.listings = 0
        self.pages = 0
        self.failing = True
        self.endless = False
        self.server: Server[Any] = Server(name, on_list_tools=self.list_tools)

    async def list_tools(self, ctx: Ctx, params: Paging) -> types.ListToolsResult:
        cursor = params.cursor if params is not None else None
        if cursor is None:
            self.listings += 1
        self.pages += 1
        tool = types.Tool(name="lookup", input_schema={"type": "object", "properties": {}})
        if self.endless:
            # Always one more page, each with a cursor never seen before.
            return types.ListToolsResult(tools=[tool], next_cursor=f"page-{self.pages}")
        if self.failing:
            return types.ListToolsResult(tools=[tool], next_cursor="same-cursor")
        return types.ListToolsResult(tools=[tool])


def server(manifest: Manifest, name: str) -> ServerManifest:
    return next(s for s in manifest.servers if s.name == name)


def test_a_server_that_never_stops_paging_is_listed_once_per_back_off_window() -> None:
    endless = Lister("endless")
    endless.endless = True
    clock = Clock()
    with SdkMcpClient(
        {"endless": lowlevel(endless.server), "echo": echo_server("echo")},
        call_timeout=120.0,
        clock=clock,
        listing_backoff=10.0,
    ) as pool:
        first = pool.discover()
        assert endless.pages == MAX_LIST_PAGES
        failed = server(first, "endless")
        assert not failed.ok and failed.error is not None
        assert f"exceeded {MAX_LIST_PAGES} pages" in failed.error.message

        # Every request of every operator in the window: the remembered failure, no listing.
        clock.now += 9.9
        for _ in range(5):
            again = pool.discover()
            assert server(again, "endless").error == failed.error
            assert server(again, "echo").ok
        assert endless.listings == 1

        clock.now += 0.1  # the window is over: tried again, once; it fails again
        pool.discover()
        pool.discover()
        assert endless.listings == 2

        # The next window is twice as long.
        clock.now += 19.9
        pool.discover()
        assert endless.listings == 2
        clock.now += 0.1
        pool.discover()
        assert endless.listings == 3


def test_the_back_off_doubles_up_to_its_cap_and_fresh_discovery_waits_for_it_too() -> None:
    looping = Lister("looping")
    clock = Clock()
    with SdkMcpClient(
        {"looping": lowlevel(looping.server)}, clock=clock, listing_backoff=10.0, listing_backoff_cap=35.0
    ) as pool:
        windows = []
        for _ in range(4):
            pool.discover()
            [health] = pool.health()
            assert health.listing_error is not None and "same-cursor" in health.listing_error.message
            assert health.listing_retry_in is not None
            windows.append(health.listing_retry_in)
            pool.discover(fresh=True)  # a review's fresh look does not list it early either
            clock.now += health.listing_retry_in

        assert windows == [10.0, 20.0, 35.0, 35.0]
        assert looping.listings == 4


def test_a_listing_that_works_again_clears_its_back_off() -> None:
    flaky = Lister("flaky")
    clock = Clock()
    with SdkMcpClient({"flaky": lowlevel(flaky.server)}, clock=clock, listing_backoff=10.0) as pool:
        assert not server(pool.discover(), "flaky").ok
        flaky.failing = False
        assert not server(pool.discover(), "flaky").ok  # still backing off: not asked

        clock.now += 10.0
        recovered = server(pool.discover(), "flaky")
        assert recovered.ok and [c.name for c in recovered.capabilities] == ["lookup"]
        [health] = pool.health()
        assert (health.listing_error, health.listing_retry_in) == (None, None)

        # A later failure starts from the first window again.
        flaky.failing = True
        pool.discover(fresh=True)
        [health] = pool.health()
        assert health.listing_retry_in == 10.0
        assert flaky.listings == 3


def test_reconnecting_a_server_lists_it_again_at_once() -> None:
    looping = Lister("looping")
    clock = Clock()
    with SdkMcpClient({"looping": lowlevel(looping.server)}, clock=clock, listing_backoff=10.0) as pool:
        pool.discover()
        pool.reconnect("looping")  # an administrator's Connect, a finished sign-in
        pool.discover()

    assert looping.listings == 2


def test_requests_that_need_a_listing_under_way_wait_for_it_instead_of_listing_again() -> None:
    endless = Lister("endless")
    endless.endless = True
    with (
        SdkMcpClient({"endless": lowlevel(endless.server)}, call_timeout=120.0, clock=Clock()) as pool,
        ThreadPoolExecutor(max_workers=4) as operators,
    ):
        manifests = list(operators.map(lambda _: pool.discover(), range(4)))

    assert endless.listings == 1
    assert all(not server(manifest, "endless").ok for manifest in manifests)
