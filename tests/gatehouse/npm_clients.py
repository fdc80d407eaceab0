"""MCP clients from npm pointed at `gatehouse serve` for the tests: the TypeScript SDK's client
(driven by tests/gatehouse/ts_client/gateway_client.mjs) and the MCP Inspector's CLI mode. Both
are pinned in peers/package.json and installed into .peers/npm by `make peers`; without them a
test skips with that command, or fails when GATEHOUSE_REQUIRE_PEERS=1 (tests/interop/peers.py)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.interop.peers import INSPECTOR_JS, NODE_MODULES, TS_CLIENT_JS, npm_entry

CLIENT_SCRIPT = Path(__file__).resolve().parent / "ts_client" / "gateway_client.mjs"
# Longer than any one step of the script takes on a loaded machine (connecting pays the
# endpoint's first listing); a decision arrives within the 2 s the task asks to be polled at.
EVENT_SECONDS = 60
INSPECTOR_SECONDS = 60


@dataclass
class TypeScriptClient:
    """gateway_client.mjs running: its JSON lines as they come, and every one seen so far."""

    process: subprocess.Popen[str]
    stderr: Path
    seen: list[dict[str, Any]] = field(default_factory=list)
    _lines: queue.Queue[str | None] = field(default_factory=queue.Queue)

    def expect(self, event: str, timeout: float = EVENT_SECONDS) -> dict[str, Any]:
        """The next line, which must be ``event`` (an "error" line or an exit fails the test)."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no {event!r} from the TypeScript client within {timeout:g} s; {self._told()}"
            ) from None
        if line is None:
            raise AssertionError(f"the TypeScript client ended before {event!r}; {self._told()}")
        told: dict[str, Any] = json.loads(line)
        self.seen.append(told)
        assert told["event"] == event, f"expected {event!r}; {self._told()}"
        return told

    def finish(self, timeout: float = EVENT_SECONDS) -> list[dict[str, Any]]:
        """Wait for the script to exit (it must succeed); the lines it printed after the last
        one read."""
        code = self.process.wait(timeout=timeout)
        rest: list[dict[str, Any]] = []
        while (line := self._lines.get(timeout=timeout)) is not None:
            rest.append(json.loads(line))
        self.seen.extend(rest)
        assert code == 0, self._told()
        return rest

    def _told(self) -> str:
        return f"lines so far: {self.seen}; stderr:\n{self.stderr.read_text(errors='replace')[-3000:]}"

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)


@contextmanager
def typescript_client(url: str, token: str, body: str, logs: Path) -> Iterator[TypeScriptClient]:
    """gateway_client.mjs against ``url`` with ``token``: it lists the tools, calls an allowed
    one, then sends an e-mail of ``body`` following the task (the script says how)."""
    node, _ = npm_entry(TS_CLIENT_JS)
    stderr = logs / "ts-client.stderr"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "GATEHOUSE_URL": url,
        "GATEHOUSE_TOKEN": token,
        "GATEHOUSE_BODY": body,
    }
    with stderr.open("w") as sink:
        process = subprocess.Popen(
            [node, str(CLIENT_SCRIPT), str(NODE_MODULES)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=sink,
            text=True,
        )
    client = TypeScriptClient(process, stderr)
    reader = threading.Thread(target=client._read, daemon=True)
    reader.start()
    try:
        yield client
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        reader.join(timeout=5)
        if process.stdout is not None:
            process.stdout.close()


def inspector(url: str, token: str, home: Path, *arguments: str) -> Any:
    """The MCP Inspector's CLI mode against ``url``, the token in its Authorization header; what
    it printed, as JSON. ``home`` takes the catalog it keeps (~/.mcp-inspector)."""
    node, launcher = npm_entry(INSPECTOR_JS)
    done = subprocess.run(
        [
            node,
            str(launcher),
            "--cli",
            url,
            "--transport",
            "http",
            "--header",
            f"Authorization: Bearer {token}",
            *arguments,
        ],
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(home)},
        cwd=home,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=INSPECTOR_SECONDS,
        check=False,
    )
    assert done.returncode == 0, (
        f"exit {done.returncode}\nstdout:\n{done.stdout[-2000:]}\nstderr:\n{done.stderr[-2000:]}"
    )
    return json.loads(done.stdout)
