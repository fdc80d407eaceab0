"""The app as `make run` starts it: no servers file, so every bundled server, each started by
servers.launch from one prefork process; and when the app stops, so do they."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from servers.names import BUNDLED
from tests.browser.harness import no_exception, open_page, running_app, send_chat
from tests.processes import alive, live_children, prefork_pids
from tests.support import wait_until


def test_the_shipped_servers_answer_in_the_app_and_stop_with_it(browser: Browser, tmp_path: Path) -> None:
    with running_app(tmp_path / "app", shipped_servers=True) as app:
        page = open_page(browser, app.page_url(""))
        try:
            send_chat(page, "List the files in the managed project folder.")
            answer = page.get_by_test_id("stChatMessage").last
            # The listing is a table (a canvas grid: its cells are in the page, drawn not shown).
            expect(answer.get_by_test_id("stDataFrame").first).to_be_visible()
            expect(answer.get_by_text("sample.txt", exact=False).first).to_be_attached()
            no_exception(page)
        finally:
            page.context.close()
        [prefork] = prefork_pids((app.data / "demo").resolve())
        servers = live_children(prefork)
        assert len(servers) == len(BUNDLED), "every bundled server forked from the one prefork process"
        names = sorted(Path(f"/proc/{pid}/comm").read_text().strip() for pid in servers)
        assert names == sorted(f"gh-{name}" for name in BUNDLED)
    # The app is gone (running_app checked its own process tree); its servers saw their stdin
    # close and ended, and the prefork process follows once idle.
    wait_until(
        lambda: not any(alive(pid) for pid in servers), timeout=20, what="the servers to end with the app"
    )
    wait_until(lambda: not alive(prefork), timeout=20, what="the prefork process to end after its servers")
