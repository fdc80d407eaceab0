"""Where the third-party MCP servers live, and how the interop tests start them.

`make peers` installs them under .peers/ (npm packages in .peers/npm, one venv per PyPI
server), never into .venv: they pin other SDK versions than the app. A test that needs a peer
calls one of the ``*_server`` helpers here; a peer that was not built skips the test with the
command that builds it, or fails it when GATEHOUSE_REQUIRE_PEERS=1 (CI with npm, where a
silent skip would hide a broken install).
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import anyio
import pytest
from mcp import Client, StdioServerParameters

from mcp_host.manifest import CapabilityType, Manifest, ServerManifest
from tests.http_servers import free_port

REPO = Path(__file__).resolve().parents[2]
PEERS = REPO / ".peers"
NPM_PREFIX = PEERS / "npm"
NODE_MODULES = NPM_PREFIX / "node_modules"
LOOPBACK_PRELOAD = REPO / "peers" / "loopback.mjs"

FILESYSTEM_JS = NODE_MODULES / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
EVERYTHING_JS = NODE_MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
# The 2025.9.25 release under an npm alias: the last one whose resource listing is paginated.
EVERYTHING_PAGED_JS = NODE_MODULES / "server-everything-paged" / "dist" / "index.js"
# Clients, not servers: the TypeScript SDK's client and the MCP Inspector's launcher (its --cli
# mode), which tests/gatehouse/test_npm_clients.py points at Gatehouse's endpoint.
TS_CLIENT_JS = NODE_MODULES / "@modelcontextprotocol" / "client" / "dist" / "index.mjs"
INSPECTOR_JS = (
    NODE_MODULES / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
)
MEMORY_JS = NODE_MODULES / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
TIME_BIN = PEERS / "venv-time" / "bin" / "mcp-server-time"
GIT_BIN = PEERS / "venv-git" / "bin" / "mcp-server-git"
# The servers of the 2026-11 benchmark batch (eval/batches/2026-11-new-servers.json).
REDIS_JS = NODE_MODULES / "@modelcontextprotocol" / "server-redis" / "dist" / "index.js"
SQLITE_BIN = PEERS / "venv-sqlite" / "bin" / "mcp-server-sqlite"
CALCULATOR_BIN = PEERS / "venv-calculator" / "bin" / "mcp-server-calculator"
EXCEL_BIN = PEERS / "venv-excel" / "bin" / "excel-mcp-server"
# The excel venv's interpreter: the eval workspace seeds its workbooks with the openpyxl there.
EXCEL_PYTHON = PEERS / "venv-excel" / "bin" / "python"
# The servers of the 2026-11-held-out-3 batch: a vault of markdown notes and Word documents.
VAULT_JS = NODE_MODULES / "@bitbonsai" / "mcpvault" / "dist" / "server.js"
WORD_BIN = PEERS / "venv-word" / "bin" / "word_mcp_server"
# The word venv's interpreter: the eval workspace seeds its documents with the python-docx there.
WORD_PYTHON = PEERS / "venv-word" / "bin" / "python"
# The servers of the 2026-11-held-out-4 batch: slide decks, and a desk of todos, notes and timers.
POWERPOINT_BIN = PEERS / "venv-powerpoint" / "bin" / "ppt_mcp_server"
# The powerpoint venv's interpreter: the eval workspace seeds its decks with the python-pptx there.
POWERPOINT_PYTHON = PEERS / "venv-powerpoint" / "bin" / "python"
TOOLKIT_BIN = PEERS / "venv-toolkit" / "bin" / "agent-toolkit-mcp-server"
# The toolkit venv's interpreter: the eval workspace seeds its todos and notes through the server's
# own tools, in process.
TOOLKIT_PYTHON = PEERS / "venv-toolkit" / "bin" / "python"

# Written by the Makefile's peers target when an environment is complete.
STAMP = ".installed"
REQUIRE_PEERS_VARIABLE = "GATEHOUSE_REQUIRE_PEERS"
HTTP_START_SECONDS = 15.0
HTTP_STOP_SECONDS = 5.0


def peers_required() -> bool:
    return os.environ.get(REQUIRE_PEERS_VARIABLE) == "1"


def missing_peer(reason: str) -> NoReturn:
    """Skip the test, or fail it when the environment says every peer must be there."""
    if peers_required():
        pytest.fail(f"{reason} ({REQUIRE_PEERS_VARIABLE}=1)", pytrace=False)
    pytest.skip(reason)


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        missing_peer("node not found: the npm peers need Node.js on PATH")
    return node


def npm_entry(script: Path) -> tuple[str, Path]:
    """Node and ``script`` (a file under NODE_MODULES), or a skip saying to run `make peers`."""
    node = _node()
    # The stamp is written only after `npm ci` succeeded: a half-done install counts as missing.
    if not (NPM_PREFIX / STAMP).is_file() or not script.is_file():
        missing_peer("npm peers not built: run `make peers` (needs npm)")
    return node, script


def _python_entry(executable: Path) -> Path:
    venv = executable.parent.parent
    if not (venv / STAMP).is_file() or not executable.is_file():
        missing_peer(f"{venv.name} not built: run `make peers`")
    return executable


# -- stdio servers ---------------------------------------------------------------------------


def filesystem_server(root: Path) -> StdioServerParameters:
    """@modelcontextprotocol/server-filesystem confined to ``root``."""
    node, script = npm_entry(FILESYSTEM_JS)
    return StdioServerParameters(command=node, args=[str(script), str(root)])


def everything_server() -> StdioServerParameters:
    """@modelcontextprotocol/server-everything (the pinned current release) over stdio."""
    node, script = npm_entry(EVERYTHING_JS)
    return StdioServerParameters(command=node, args=[str(script), "stdio"])


def everything_paged_server() -> StdioServerParameters:
    """server-everything 2025.9.25: 100 static resources, listed 10 per page."""
    node, script = npm_entry(EVERYTHING_PAGED_JS)
    return StdioServerParameters(command=node, args=[str(script), "stdio"])


def memory_server(memory_file: Path) -> StdioServerParameters:
    """@modelcontextprotocol/server-memory; its graph file must not default into node_modules."""
    node, script = npm_entry(MEMORY_JS)
    return StdioServerParameters(command=node, args=[str(script)], env={"MEMORY_FILE_PATH": str(memory_file)})


def time_server() -> StdioServerParameters:
    """mcp-server-time from its own venv, with a fixed local zone so answers do not depend on the box."""
    return StdioServerParameters(command=str(_python_entry(TIME_BIN)), args=["--local-timezone", "UTC"])


def git_server(repository: Path) -> StdioServerParameters:
    """mcp-server-git from its own venv, on ``repository``."""
    executable = _python_entry(GIT_BIN)
    if shutil.which("git") is None:
        missing_peer("git not found: mcp-server-git needs it on PATH")
    return StdioServerParameters(command=str(executable), args=["--repository", str(repository)])


# -- what a server declares, asked with the plain SDK (not through the host) -----------------


def declared_types(target: StdioServerParameters | str) -> set[CapabilityType]:
    """The capability types a server's initialize/discover result declares.

    A server that declares resources may offer plain resources, templates or both, so
    "resource" here stands for either.
    """

    async def probe() -> set[CapabilityType]:
        with anyio.fail_after(20):
            async with Client(target) as client:
                declared = client.server_capabilities
        types: set[CapabilityType] = set()
        if declared.tools is not None:
            types.add("tool")
        if declared.resources is not None:
            types.add("resource")
        if declared.prompts is not None:
            types.add("prompt")
        return types

    return anyio.run(probe)


def only_server(manifest: Manifest) -> ServerManifest:
    assert len(manifest.servers) == 1, manifest.server_names()
    return manifest.servers[0]


def type_counts(server: ServerManifest) -> dict[str, int]:
    """How many capabilities of each type a server's manifest holds."""
    counts: dict[str, int] = {}
    for capability in server.capabilities:
        counts[capability.type] = counts.get(capability.type, 0) + 1
    return counts


def offered_types(server: ServerManifest) -> set[CapabilityType]:
    """The manifest's capability types, templates counted as resources (see declared_types)."""
    return {"resource" if c.type == "resource_template" else c.type for c in server.capabilities}


# -- child processes -------------------------------------------------------------------------


def _parent_of(stat: str) -> int:
    # /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
    return int(stat.rsplit(")", 1)[1].split()[1])


def child_pids(marker: str) -> list[int]:
    """Live children of this test process whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue  # gone while we looked
        state = stat.rsplit(")", 1)[1].split()[0]
        if _parent_of(stat) == os.getpid() and marker in command and state != "Z":
            found.append(int(entry.name))
    return sorted(found)


def kill_and_wait(pid: int, timeout: float = 5.0) -> None:
    """SIGKILL a process and wait, bounded, until it has exited (without reaping it: its
    parent, the SDK's transport, does that)."""
    descriptor = os.pidfd_open(pid)
    try:
        os.kill(pid, signal.SIGKILL)
        readable, _, _ = select.select([descriptor], [], [], timeout)
        assert readable, f"process {pid} still running {timeout:g} s after SIGKILL"
    finally:
        os.close(descriptor)


# -- server-everything over Streamable HTTP --------------------------------------------------


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the server's whole process group and check nothing of it is left."""
    group = process.pid  # start_new_session: the server leads its own group
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(group, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=HTTP_STOP_SECONDS)
            break
        except subprocess.TimeoutExpired:
            continue
    assert process.returncode is not None, "server-everything outlived SIGKILL"
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return
    raise AssertionError(f"process group {group} of server-everything is still alive")


@contextmanager
def everything_over_http(log_path: Path, attempts: int = 3) -> Iterator[str]:
    """Run server-everything's Streamable HTTP transport on a free 127.0.0.1 port; yield its URL.

    The server takes its port from $PORT and calls listen() with no host, so peers/loopback.mjs
    is preloaded to keep it on 127.0.0.1. A port taken between choosing and binding makes the
    server exit at once; that is retried on another port.
    """
    node, script = npm_entry(EVERYTHING_JS)
    for _ in range(attempts):
        port = free_port()
        with log_path.open("ab") as log:
            process = subprocess.Popen(
                [node, "--import", LOOPBACK_PRELOAD.as_uri(), str(script), "streamableHttp"],
                env={"PATH": os.environ.get("PATH", ""), "PORT": str(port)},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            deadline = time.monotonic() + HTTP_START_SECONDS
            while not _accepts(port):
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"server-everything did not accept connections on 127.0.0.1:{port} "
                        f"within {HTTP_START_SECONDS:g} s; log: {log_path}"
                    )
                try:
                    process.wait(timeout=0.05)  # the pause between attempts notices an early exit
                except subprocess.TimeoutExpired:
                    continue
                break  # exited: the port was taken after all, or the server failed
            if process.poll() is None:
                yield f"http://127.0.0.1:{port}/mcp"
                return
        finally:
            _stop(process)
    raise AssertionError(f"server-everything exited before listening, {attempts} times; log: {log_path}")
