"""An approved call whose server is down for good (killed, and its restart fails at start) ends
``not_run`` with the server's reason (issue 32, item 5): no second review "no longer offered",
no "it may have run", since nothing could have reached the server."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from graph.runner import pending_interrupt
from tests.held_server import Hold, entry
from tests.mcp_host.helpers import child_processes
from tests.reviews.review_support import json_lines, services_for

SEND = "Send a message to bob@example.com saying hi"
# What the server's second start writes to its stderr before it exits with status 1.
REFUSAL = "ModuleNotFoundError: No module named 'slowmail'"
# Starts the server the first time; later starts fail as a server whose module was removed.
_ONCE = 'if [ -e "$0" ]; then echo "' + REFUSAL + '" >&2; exit 1; fi; touch "$0"; exec "$@"'


def _servers(data: Path, effects: Path) -> Path:
    server = entry("mail", Hold(0.0), effects=effects)
    started = data / "started"
    once = {
        "command": "/bin/sh",
        "args": ["-c", _ONCE, str(started), server["command"], *server["args"]],
        "cwd": server["cwd"],
    }
    path = data / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"slow": once}}), encoding="utf-8")
    return path


@pytest.mark.processes  # kills a real server process; its restart fails
def test_an_approved_call_to_a_server_that_cannot_start_again_ends_not_run_with_its_reason(
    data_dir: Path,
) -> None:
    effects = data_dir / "effects.jsonl"
    earlier = set(child_processes())
    with services_for(data_dir, servers=_servers(data_dir, effects)) as services:
        paused = services.requests.ask(SEND, requester="operator")
        assert paused.final_output.review is not None, paused.final_output
        review_id, thread = paused.final_output.review.id, paused.final_output.thread_id
        for pid in set(child_processes()) - earlier:
            os.kill(pid, signal.SIGKILL)
        # Its keeper restarts it once, which fails at start: then it is down for good.
        deadline = time.monotonic() + 20
        while not any("exited with status 1" in line for line in services.requests.offered().problems()):
            assert time.monotonic() < deadline, services.requests.offered().problems()
            time.sleep(0.05)

        done = services.reviews.decide(review_id, reviewer="reviewer", approve=True)

        assert done.run is not None
        final = done.run.final_output
        assert final.status == "error", final
        assert REFUSAL in final.response and "not sent" in final.response
        assert pending_interrupt(services.graph, thread) is None, "a second review was opened"
        assert services.ledger.require(review_id).status == "not_run"
        assert "execution_started" not in [e.kind for e in services.audit.events(thread_id=thread)]
    assert json_lines(effects) == []
