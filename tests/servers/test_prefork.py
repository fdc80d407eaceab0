"""The bundled servers started through servers.launch: forked from one prefork process per
data folder, over real stdio pipes, with the SDK client on the other end."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.settings import Settings
from gatehouse.wiring import bundled_servers_config, server_pool
from servers.catalog import BUNDLED_CONFIG, BUNDLED_SERVERS
from servers.launch import SCOPE_ENV_VAR
from servers.names import BUNDLED
from servers.prefork import socket_name
from tests.processes import alive, live_children, prefork_pids
from tests.support import wait_until

LAUNCH = [sys.executable, "-m", "servers.launch"]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Path]:
    """A demo data folder; its prefork process is gone (or made to go) by the end of the test."""
    data = tmp_path / "demo"
    yield data
    for pid in prefork_pids(data):
        os.kill(pid, signal.SIGTERM)


def _launcher(
    server: str, data: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*LAUNCH, server, "--data-dir", str(data), *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def _initialize(process: subprocess.Popen[bytes]) -> dict[str, object]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    answer = json.loads(process.stdout.readline())
    assert isinstance(answer, dict)
    return answer


def test_the_shipped_servers_file_starts_every_bundled_server_through_the_launcher(tmp_path: Path) -> None:
    config = bundled_servers_config(tmp_path / "demo")
    assert set(BUNDLED) == set(BUNDLED_SERVERS) == {entry.name for entry in config.servers}
    for entry in config.servers:
        assert getattr(entry, "args", [])[:3] == ["-m", "servers.launch", entry.name], entry
    assert "servers.launch" in BUNDLED_CONFIG.read_text()


@pytest.mark.processes
def test_five_servers_started_together_fork_from_one_prefork_process(tmp_path: Path, demo: Path) -> None:
    names = ("filesystem", "tickets", "email", "greeter", "documents")
    bundled = {entry.name: entry for entry in bundled_servers_config(demo).servers}
    servers_file = tmp_path / "servers.json"
    entries = {n: {"command": bundled[n].command, "args": bundled[n].args} for n in names}  # type: ignore[union-attr]
    servers_file.write_text(json.dumps({"mcpServers": entries}))
    pool = server_pool(
        Settings(data_dir=tmp_path, db_path=tmp_path / "gatehouse.db", servers_path=servers_file)
    )
    try:
        manifest = pool.discover()
        assert manifest.problems() == []
        assert set(manifest.server_names()) == set(names)
        greeting = pool.call_tool("greeter", "greet", {"name": "Ann"})
        assert greeting.success and "Hello, Ann!" in json.dumps(greeting.model_dump())
        [prefork] = prefork_pids(demo)
        assert len(live_children(prefork)) == len(names)
        # The servers wrote their data where the launcher's arguments said.
        assert (demo / "project" / "sample.txt").is_file()
    finally:
        pool.close()
    wait_until(lambda: live_children(prefork) == [], timeout=15, what="its servers to end")
    wait_until(lambda: not alive(prefork), timeout=20, what="the idle prefork process to exit")


@pytest.mark.processes
def test_closing_stdin_ends_the_server_and_the_launcher_with_its_exit_code(demo: Path) -> None:
    with _launcher("greeter", demo) as process:
        answer = _initialize(process)
        assert answer["id"] == 1 and "result" in answer
        [prefork] = prefork_pids(demo)
        [server] = live_children(prefork)
        assert server != process.pid
        assert Path(f"/proc/{server}/comm").read_text().strip() == "gh-greeter"
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=15) == 0
    wait_until(lambda: not alive(server), timeout=15, what="the server to end")


@pytest.mark.processes
def test_a_terminate_signal_reaches_the_server(demo: Path) -> None:
    with _launcher("greeter", demo) as process:
        _initialize(process)
        [prefork] = prefork_pids(demo)
        [server] = live_children(prefork)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 128 + signal.SIGTERM
    wait_until(lambda: not alive(server), timeout=15, what="the server to end")


@pytest.mark.processes
def test_the_servers_own_errors_and_exit_code_come_back(demo: Path) -> None:
    with _launcher("greeter", demo, "--no-such-option") as process:
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 2
    assert b"unrecognized arguments: --no-such-option" in stderr
    assert b"in this process" not in stderr, "it ran without the prefork process"


@pytest.mark.processes
def test_the_server_gets_the_launchers_environment_and_folder(tmp_path: Path, demo: Path) -> None:
    # Without --data-dir, the filesystem server seeds $GATEHOUSE_DATA/demo/project.
    data_root = tmp_path / "from-env"
    with subprocess.Popen(
        [*LAUNCH, "filesystem"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PATH": os.environ.get("PATH", ""), "GATEHOUSE_DATA": str(data_root)},
        cwd=tmp_path,
    ) as process:
        _initialize(process)
        assert (data_root / "demo" / "project" / "sample.txt").is_file()
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=15) == 0
    for pid in prefork_pids(data_root):
        os.kill(pid, signal.SIGTERM)


@pytest.mark.processes
def test_gatehouses_naming_one_prefork_scope_share_its_process_and_keep_their_own_folders(
    tmp_path: Path,
) -> None:
    scope = tmp_path / "shared-scope"
    env = {"PATH": os.environ.get("PATH", ""), SCOPE_ENV_VAR: str(scope)}
    first, second = tmp_path / "first" / "demo", tmp_path / "second" / "demo"
    try:
        with _launcher("filesystem", first, env=env) as one, _launcher("filesystem", second, env=env) as two:
            _initialize(one)
            _initialize(two)
            [prefork] = prefork_pids(scope)
            assert len(live_children(prefork)) == 2
            assert prefork_pids(first) == prefork_pids(second) == []
            # Each server seeded the folder its own arguments named.
            assert (first / "project" / "sample.txt").is_file()
            assert (second / "project" / "sample.txt").is_file()
            for process in (one, two):
                assert process.stdin is not None
                process.stdin.close()
                assert process.wait(timeout=15) == 0
    finally:
        for pid in prefork_pids(scope):
            os.kill(pid, signal.SIGTERM)


@pytest.mark.processes
def test_unknown_servers_are_refused_by_the_launcher() -> None:
    result = subprocess.run([*LAUNCH, "nope"], capture_output=True, timeout=30, check=False)
    assert result.returncode == 2
    assert b"NAME is one of: filesystem" in result.stderr


@pytest.mark.processes
def test_the_prefork_process_refuses_a_bad_request_and_serves_the_next(demo: Path) -> None:
    with _launcher("greeter", demo) as first:
        _initialize(first)  # the prefork process is up
        name = socket_name(str(demo))
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(name)
            conn.sendall(b"\0\0\0\x02{}")  # no descriptors
            assert b"expected stdin, stdout and stderr" in conn.recv(4096)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn, Path(os.devnull).open("rb") as null:
            conn.connect(name)
            payload = json.dumps({"server": "../../evil", "args": [], "env": {}, "cwd": "/"}).encode()
            socket.send_fds(conn, [len(payload).to_bytes(4, "big") + payload], [null.fileno()] * 3)
            assert b"unknown server" in conn.recv(4096)
        with _launcher("greeter", demo) as second:
            assert "result" in _initialize(second)
            assert len(prefork_pids(demo)) == 1
            for launched in (first, second):
                assert launched.stdin is not None
                launched.stdin.close()
                assert launched.wait(timeout=15) == 0


@pytest.mark.processes
def test_without_a_usable_prefork_process_the_launcher_runs_the_server_itself(demo: Path) -> None:
    # Something else holds the name and refuses every request.
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_name(str(demo)))
    listener.listen(8)

    def refuse() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                # Read the request (and drop the descriptors) first, as the real one does.
                _, fds, _, _ = socket.recv_fds(conn, 65536, 3)
                for fd in fds:
                    os.close(fd)
                conn.sendall(b'{"error": "no"}\n')

    threading.Thread(target=refuse, daemon=True).start()
    try:
        with _launcher("greeter", demo) as process:
            assert "result" in _initialize(process)
            assert process.stdin is not None
            process.stdin.close()
            assert process.wait(timeout=15) == 0
            assert process.stderr is not None
            stderr = process.stderr.read()
        assert b"the prefork process refused: no; starting servers.greeter in this process" in stderr
    finally:
        listener.close()
