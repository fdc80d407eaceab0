"""A throwaway Gatehouse for the selection benchmark: the five third-party peer servers and the
bundled demo servers in one servers file (mcpServers format), each on seeded data of its own, a
temporary database and the shipped policy.

Names in the servers file: the bundled servers keep theirs (filesystem, tickets, email, greeter,
prompts, documents); the peers are ``files`` (server-filesystem), ``everything``, ``memory``,
``time`` and ``git``, so the two filesystem servers never share a key.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from gatehouse.wiring import bundled_servers_config
from mcp_host.config import StdioServer
from tests.interop.peers import EVERYTHING_JS, FILESYSTEM_JS, GIT_BIN, MEMORY_JS, NPM_PREFIX, STAMP, TIME_BIN

# The peers, by the name the servers file gives them.
PEER_SERVERS = ("files", "everything", "memory", "time", "git")

# What the folder server-filesystem is confined to holds: a few files a request can name.
SHARED_FILES = {
    "meeting-notes.md": "# Meeting notes\n\nShip the selection benchmark.\n",
    "todo.txt": "- renew the certificate\n- book the review meeting\n",
    "reports/q3.md": "# Q3 report\n\nRevenue grew 4%.\n",
    "reports/q4.md": "# Q4 report\n\nRevenue grew 6%.\n",
    "src/app.py": "print('hello')\n",
    "config.json": '{"debug": false, "port": 8080}\n',
}
# server-memory's graph file: one JSON object a line.
MEMORY_GRAPH = [
    {"type": "entity", "name": "Alice", "entityType": "person", "observations": ["works on billing"]},
    {"type": "entity", "name": "Acme Corp", "entityType": "organization", "observations": ["a customer"]},
    {"type": "relation", "from": "Alice", "to": "Acme Corp", "relationType": "works_with"},
]


class PeersMissingError(RuntimeError):
    """A peer server is not built (`make peers`), or a program it needs is not on PATH."""


@dataclass(frozen=True)
class EvalWorkspace:
    """Where everything lives; ``placeholders`` fill ``{files_root}`` and ``{repo}`` in requests."""

    root: Path
    data_dir: Path
    servers_file: Path
    db_path: Path
    files_root: Path
    repository: Path
    placeholders: dict[str, str] = field(default_factory=dict)

    def cli_options(self) -> list[str]:
        """The options every `gatehouse` command of the benchmark takes (the shipped policy is
        the default, so it is not named)."""
        return ["--servers", str(self.servers_file), "--db", str(self.db_path)]


def _require(path: Path, what: str) -> str:
    if not path.exists():
        raise PeersMissingError(f"{what} not found at {path}: run `make peers`")
    return str(path)


def _program(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise PeersMissingError(f"{name} not found on PATH (the peer servers need it)")
    return found


def _seed_files(root: Path) -> None:
    for relative, text in SHARED_FILES.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _seed_repository(repo: Path) -> None:
    """Three commits on main, a branch, one modified and one untracked file."""
    git = _program("git")
    repo.mkdir(parents=True)

    def run(*args: str) -> None:
        subprocess.run(
            [git, "-c", "user.name=Eval", "-c", "user.email=eval@example.invalid", *args],
            cwd=repo,
            check=True,
            capture_output=True,
            timeout=30,
        )

    run("init", "--quiet", "--initial-branch=main")
    (repo / "README.md").write_text("# Demo\n", encoding="utf-8")
    run("add", "README.md")
    run("commit", "--quiet", "-m", "Initial commit")
    (repo / "login.py").write_text("def login(user):\n    return True\n", encoding="utf-8")
    run("add", "login.py")
    run("commit", "--quiet", "-m", "Add login page")
    (repo / "README.md").write_text("# Demo\n\nA small demo repository.\n", encoding="utf-8")
    run("commit", "--quiet", "-am", "Fix typo in README")
    run("branch", "feature-search")
    (repo / "login.py").write_text("def login(user):\n    return user is not None\n", encoding="utf-8")
    (repo / "scratch.txt").write_text("untracked\n", encoding="utf-8")


def _peer_entries(files_root: Path, repository: Path, memory_file: Path) -> dict[str, dict[str, object]]:
    if not (NPM_PREFIX / STAMP).is_file():
        raise PeersMissingError("the npm peers are not built: run `make peers` (needs npm)")
    node = _program("node")
    for venv_bin in (TIME_BIN, GIT_BIN):
        if not (venv_bin.parent.parent / STAMP).is_file():
            raise PeersMissingError(f"{venv_bin.parent.parent.name} is not built: run `make peers`")
    return {
        "files": {"command": node, "args": [_require(FILESYSTEM_JS, "server-filesystem"), str(files_root)]},
        "everything": {"command": node, "args": [_require(EVERYTHING_JS, "server-everything"), "stdio"]},
        "memory": {
            "command": node,
            "args": [_require(MEMORY_JS, "server-memory")],
            "env": {"MEMORY_FILE_PATH": str(memory_file)},
        },
        "time": {"command": _require(TIME_BIN, "mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "git": {"command": _require(GIT_BIN, "mcp-server-git"), "args": ["--repository", str(repository)]},
    }


def _bundled_entries(demo_dir: Path) -> dict[str, dict[str, object]]:
    """The bundled servers with the commands the shipped servers file gives them."""
    entries: dict[str, dict[str, object]] = {}
    for entry in bundled_servers_config(demo_dir).servers:
        if not isinstance(entry, StdioServer):
            raise TypeError(f"bundled server {entry.name} is not a stdio server")
        entries[entry.name] = {"command": entry.command, "args": entry.args}
    return entries


def build_workspace(root: Path) -> EvalWorkspace:
    """Seed the peers' data under ``root`` and write the servers file naming all eleven servers."""
    data_dir = root / "data"
    files_root = root / "shared"
    repository = root / "repo"
    memory_file = root / "memory.jsonl"
    files_root.mkdir(parents=True)
    _seed_files(files_root)
    _seed_repository(repository)
    memory_file.write_text("\n".join(json.dumps(line) for line in MEMORY_GRAPH) + "\n", encoding="utf-8")
    servers = _peer_entries(files_root, repository, memory_file) | _bundled_entries(data_dir / "demo")
    data_dir.mkdir(parents=True, exist_ok=True)
    servers_file = root / "servers.json"
    servers_file.write_text(json.dumps({"mcpServers": servers}, indent=2), encoding="utf-8")
    return EvalWorkspace(
        root=root,
        data_dir=data_dir,
        servers_file=servers_file,
        db_path=data_dir / "gatehouse.db",
        files_root=files_root,
        repository=repository,
        placeholders={"files_root": str(files_root), "repo": str(repository)},
    )


@contextmanager
def eval_workspace() -> Iterator[EvalWorkspace]:
    with tempfile.TemporaryDirectory(prefix="gatehouse-eval-") as root:
        yield build_workspace(Path(root))
