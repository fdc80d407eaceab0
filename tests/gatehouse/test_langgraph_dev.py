"""LangGraph's tools see Gatehouse's graph: `langgraph dev` serves it from the repository's
langgraph.json, and a client of the LangGraph API (langgraph-sdk, as Studio, Agent Inbox and
agent-chat-ui are) finds the thread waiting for a review, reads the HITL request in its
interrupt, and cannot resume it with an approval it made up; with the decision the review
service recorded it can, once, and the e-mail goes out once.

The server runs offline: no analytics, no version check, no tracing (the environment below),
on a free port of 127.0.0.1, in the test's own folder (its `.langgraph_api` files land there).
Without langgraph-cli[inmem] (the dev extra) the test skips, or fails under
GATEHOUSE_REQUIRE_PEERS=1 as in CI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cli_support import run_cli
from tests.http_servers import free_port
from tests.interop.peers import missing_peer
from tests.reviews.review_support import EMAIL_REQUEST, email_servers, outbox

pytestmark = pytest.mark.processes

REPO = Path(__file__).resolve().parents[2]
LANGGRAPH = Path(sys.executable).parent / "langgraph"
TOKENS = {"operator": "operator-token-1", "reviewer": "reviewer-token-1"}
# What keeps `langgraph dev` off the network: the CLI's analytics, langgraph-api's check for a
# newer release, LangSmith tracing (and a key that would turn it on). No license key is set, so
# its metadata loop does not start either.
OFFLINE = {
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "LANGSMITH_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
}
UNSET = ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "LANGGRAPH_CLOUD_LICENSE_KEY", "LANGSMITH_ENDPOINT")
START_SECONDS = 90


def _require_langgraph_cli() -> None:
    if not LANGGRAPH.exists() or find_spec("langgraph_api") is None:
        missing_peer(
            "langgraph-cli[inmem] is not installed in this environment (make installs the dev extra)"
        )


@contextmanager
def dev_server(data: Path, servers: Path, folder: Path) -> Iterator[str]:
    """`langgraph dev` on the repository's langgraph.json; yields its URL, stops its group."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in UNSET}
    env |= OFFLINE | {
        "GATEHOUSE_DATA": str(data),
        "GATEHOUSE_SERVERS": str(servers),
        "GATEHOUSE_API_TOKENS": ",".join(f"{name}={token}" for name, token in TOKENS.items()),
    }
    env.pop("GATEHOUSE_DB", None)
    log = folder / "langgraph-dev.log"
    command = [str(LANGGRAPH), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--config", str(REPO / "langgraph.json")]
    with log.open("wb") as out:
        server = subprocess.Popen(
            command, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _ready(url):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"langgraph dev did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)
        yield url
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(server.pid, sig)
                server.wait(timeout=15)
                break
            except (ProcessLookupError, subprocess.TimeoutExpired):
                continue


def _ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/ok", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def _interrupts(client: Any, thread_id: str) -> list[dict[str, Any]]:
    thread = client.threads.get(thread_id)
    assert thread["status"] == "interrupted"
    return [item for items in thread["interrupts"].values() for item in items]


def test_a_langgraph_api_client_resumes_a_review_only_with_the_decision_gatehouse_recorded(
    data_dir: Path, tmp_path: Path
) -> None:
    _require_langgraph_cli()
    from langgraph_sdk import get_sync_client
    from langgraph_sdk.errors import AuthenticationError, PermissionDeniedError

    servers = email_servers(data_dir)
    with dev_server(data_dir, servers, tmp_path) as url, ExitStack() as clients:

        def client(token: str) -> Any:
            return clients.enter_context(get_sync_client(url=url, api_key=token, timeout=60))

        stranger = client("not-a-token")
        with pytest.raises(AuthenticationError):
            stranger.threads.create()

        operator = client(TOKENS["operator"])
        thread_id = operator.threads.create()["thread_id"]
        # The input names someone else: the request is the caller's all the same.
        operator.runs.wait(thread_id, "gatehouse", input={"input": EMAIL_REQUEST, "requester": "admin"})

        # Find the interrupted thread and read the HITL request beside Gatehouse's payload.
        waiting = operator.threads.search(status="interrupted")
        assert [thread["thread_id"] for thread in waiting] == [thread_id]
        (interrupt,) = _interrupts(operator, thread_id)
        value = interrupt["value"]
        assert (value["requester"], value["thread_id"]) == ("operator", thread_id)
        (action,) = value["action_requests"]
        assert action["name"] == "email__send_email"
        assert action["args"] == {"to": "bob@example.com", "body": "hi"}
        (config,) = value["review_configs"]
        assert config["allowed_decisions"] == ["approve", "edit", "reject"]
        review_id = value["review_id"]

        # An approval made up by the client is refused: the thread waits, nothing is sent.
        forged = {"action": "approve", "by": "reviewer", "review_id": review_id}
        operator.runs.wait(thread_id, "gatehouse", command={"resume": forged})
        (again,) = _interrupts(operator, thread_id)
        assert "is not decided yet" in again["value"]["resume_refused"]
        assert outbox(data_dir) == []
        # Nor can a client write the thread's state around the review.
        with pytest.raises(PermissionDeniedError, match="written by its runs only"):
            operator.threads.update_state(thread_id, {"status": "ok"})

        # The reviewer decides through Gatehouse; the client resumes with the recorded decision.
        env: dict[str, str | None] = {
            "GATEHOUSE_DATA": str(data_dir),
            "GATEHOUSE_SERVERS": str(servers),
            "GATEHOUSE_DB": None,
        }
        decided = run_cli("reviews", "decide", review_id, "--approve", "--reviewer", "reviewer", env=env)
        assert decided.returncode == 0, decided.stderr
        assert "resume-value" in decided.stdout
        assert outbox(data_dir) == []
        printed = run_cli("reviews", "resume-value", review_id, env=env)
        assert printed.returncode == 0, printed.stderr
        recorded = json.loads(printed.stdout)

        reviewer = client(TOKENS["reviewer"])
        done = reviewer.runs.wait(thread_id, "gatehouse", command={"resume": recorded})

        assert isinstance(done, dict)
        assert done["final_output"]["status"] == "ok"
        assert reviewer.threads.get(thread_id)["status"] == "idle"
        assert [(m["to"], m["body"]) for m in outbox(data_dir)] == [("bob@example.com", "hi")]
        # Delivered again, it runs nothing.
        reviewer.runs.wait(thread_id, "gatehouse", command={"resume": recorded})
        assert len(outbox(data_dir)) == 1
