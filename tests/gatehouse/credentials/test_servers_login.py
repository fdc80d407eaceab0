"""`gatehouse servers login NAME` as a person uses it: the CLI prints where to sign in, the
browser (here: an HTTP client following redirects) goes there and comes back to 127.0.0.1, and
from then on every process using the same database is signed in, until `servers logout`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx2
import pytest
from cryptography.fernet import Fernet

from tests.http_servers import REPO_ROOT, free_port, serving

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes

KEY = Fernet.generate_key().decode()


@pytest.fixture
def notes(tmp_path: Path) -> Iterator[Path]:
    """A servers file with the OAuth-protected test server, and the data folder beside it."""
    with serving("tests.oauth_server") as port:
        servers = tmp_path / "servers.json"
        entry = {
            "type": "http",
            "url": f"http://127.0.0.1:{port}/mcp",
            "oauth": {"callbackPort": free_port()},
        }
        servers.write_text(json.dumps({"mcpServers": {"notes": entry}}), encoding="utf-8")
        yield servers


def _environment(tmp_path: Path, key: str | None = KEY) -> dict[str, str]:
    env = {**os.environ, "GATEHOUSE_DATA": str(tmp_path / "data")}
    env.pop("GATEHOUSE_DB", None)
    env.pop("GATEHOUSE_SECRET_KEY", None)
    if key is not None:
        env["GATEHOUSE_SECRET_KEY"] = key
    return env


def _gatehouse(
    tmp_path: Path, servers: Path, *args: str, key: str | None = KEY
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gatehouse.cli", *args, "--servers", str(servers)],
        capture_output=True,
        text=True,
        env=_environment(tmp_path, key),
        cwd=REPO_ROOT,
        timeout=120,
        check=False,
    )


def _login(tmp_path: Path, servers: Path, forged: Sequence[str] = ()) -> tuple[int, str]:
    """Sign in as a person does; first, while the CLI waits, each ``forged`` query reaches its
    callback (another local process, or an image on a web page, sending it)."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gatehouse.cli",
            "servers",
            "login",
            "notes",
            "--servers",
            str(servers),
            "--timeout",
            "60",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=_environment(tmp_path),
        cwd=REPO_ROOT,
    )
    assert process.stdout is not None
    shown: list[str] = []
    for line in process.stdout:
        shown.append(line)
        if line.strip().startswith("http"):
            for query in forged:
                callback = f"http://127.0.0.1:{_callback_port(servers)}/callback?{query}"
                assert httpx2.get(callback, timeout=20).status_code == 400
            # The person opens the address; the authorization server approves at once and the
            # browser follows the redirect back to the CLI's listener on 127.0.0.1.
            page = httpx2.get(line.strip(), follow_redirects=True, timeout=20)
            assert page.status_code == 200 and "Signed in to notes" in page.text
            break
    rest, _ = process.communicate(timeout=60)
    return process.returncode, "".join(shown) + rest


def test_login_then_every_process_is_signed_in_until_logout(tmp_path: Path, notes: Path) -> None:
    before = _gatehouse(tmp_path, notes, "servers", "check")
    code, output = _login(tmp_path, notes)
    after = _gatehouse(tmp_path, notes, "servers", "check")
    out = _gatehouse(tmp_path, notes, "servers", "logout", "notes")
    gone = _gatehouse(tmp_path, notes, "servers", "check")

    assert "needs sign-in" in before.stdout and "gatehouse servers login notes" in before.stdout
    assert code == 0, output
    assert "Open this address in a browser to sign in to notes" in output
    assert "Signed in to notes: connected, 1 tool, 0 prompts, 0 resources" in output
    assert "ok    notes" in after.stdout, after.stdout + after.stderr
    assert out.returncode == 0 and "Signed out of notes" in out.stdout
    assert "needs sign-in" in gone.stdout
    database = b"".join(path.read_bytes() for path in (tmp_path / "data").glob("gatehouse.db*"))
    assert b"access_token" not in database and b"refresh_token" not in database


def test_a_return_without_the_sign_ins_state_neither_ends_nor_speaks_for_the_login(
    tmp_path: Path, notes: Path
) -> None:
    forged = [
        "code=theirs",
        "error=access_denied&error_description=Run+this+to+finish",
        "code=theirs&state=x",
    ]
    code, output = _login(tmp_path, notes, forged)

    assert code == 0, output
    assert "Signed in to notes: connected, 1 tool, 0 prompts, 0 resources" in output
    assert "Run this" not in output and "refused" not in output


def _callback_port(servers: Path) -> int:
    port: int = json.loads(servers.read_text(encoding="utf-8"))["mcpServers"]["notes"]["oauth"][
        "callbackPort"
    ]
    return port


def test_login_without_a_key_says_which_variable_to_set(tmp_path: Path, notes: Path) -> None:
    done = _gatehouse(tmp_path, notes, "servers", "login", "notes", key=None)

    assert done.returncode == 2
    assert "GATEHOUSE_SECRET_KEY is not set" in done.stderr
    assert "http" not in done.stdout  # no sign-in address was shown


def test_login_to_a_local_server_is_refused_with_the_reason(tmp_path: Path) -> None:
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"local": {"command": "true"}}}), encoding="utf-8")
    done = _gatehouse(tmp_path, servers, "servers", "login", "local")

    assert done.returncode == 2
    assert "local (stdio) server" in done.stderr
