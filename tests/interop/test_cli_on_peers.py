"""A Claude Desktop servers file pointing at server-filesystem works unchanged with the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.interop.peers import filesystem_server

REPO = Path(__file__).resolve().parents[2]


def test_a_claude_desktop_file_for_server_filesystem_lists_the_folder(
    tmp_path: Path, project_root: Path
) -> None:
    peer = filesystem_server(project_root)
    claude_desktop = {"mcpServers": {"filesystem": {"command": peer.command, "args": peer.args}}}
    servers_file = tmp_path / "claude_desktop_config.json"
    servers_file.write_text(json.dumps(claude_desktop, indent=2), encoding="utf-8")
    env = {**os.environ, "GATEHOUSE_DATA": str(tmp_path / "data")}

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gatehouse.cli",
            "ask",
            "--servers",
            str(servers_file),
            "--json",
            f"List the files in {project_root}",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert output["status"] == "ok", output
    assert output["selected_capability"] == {"server": "filesystem", "type": "tool", "name": "list_directory"}
    assert "notes.md" in output["response"] and "sample.txt" in output["response"]
