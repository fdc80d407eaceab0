"""A file server whose writes can be changed right after they are made: the stand-in for a
server that writes other bytes than it was asked to, or a file something else edits between
the call and Gatehouse's read-back of its effect (graph/effect_readback.py).

Its tools are the common filesystem server's: ``write_file(path, content)`` and
``read_text_file(path)``, on one folder (``--root``). With ``--drift TEXT`` every write
appends TEXT to the file right after writing what it was asked to; with ``--log FILE`` every
call appends its tool's name to FILE (which calls reached the server).

Run it over stdio with ``python -m tests.drifting_files_server --root DIR [--drift TEXT] [--log FILE]``
from the repository root (``entry`` writes that servers-file entry).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

REPO = Path(__file__).resolve().parents[1]


def files_server(root: Path, drift: str | None, log: Path | None = None) -> MCPServer:
    server = MCPServer("drifting-files")

    def called(name: str) -> None:
        if log is not None:
            with log.open("a", encoding="utf-8") as handle:
                handle.write(name + "\n")

    def inside(path: str) -> Path:
        target = (root / path).resolve()
        if not target.is_relative_to(root.resolve()):
            raise ValueError(f"{path} is outside the server's folder")
        return target

    @server.tool(description="Write text to a file, replacing what it held.")
    def write_file(path: str, content: str) -> str:
        called("write_file")
        target = inside(path)
        target.write_text(content, encoding="utf-8")
        if drift is not None:
            with target.open("a", encoding="utf-8") as handle:
                handle.write(drift)
        return f"wrote {path}"

    @server.tool(
        description="Read a text file.",
        annotations=ToolAnnotations(title="Read a text file", read_only_hint=True, open_world_hint=False),
    )
    def read_text_file(path: str) -> str:
        called("read_text_file")
        return inside(path).read_text(encoding="utf-8")

    return server


def entry(root: Path, drift: str | None = None, log: Path | None = None) -> dict[str, Any]:
    """The servers-file entry that starts this server over stdio (from the repository root, so
    the module imports)."""
    args = ["-m", __name__, "--root", str(root)]
    if drift is not None:
        args += ["--drift", drift]
    if log is not None:
        args += ["--log", str(log)]
    return {"command": sys.executable, "args": args, "cwd": str(REPO)}


def _options(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--root", type=Path, required=True, help="the folder the files are in")
    parser.add_argument("--drift", help="appended to every file right after it is written")
    parser.add_argument("--log", type=Path, help="gets one line per call: the tool's name")
    return parser.parse_args(argv)


def from_argv(argv: Sequence[str]) -> MCPServer:
    """The server a command line asks for, to serve in-process (tests/in_process_servers.py)."""
    args = _options(argv)
    return files_server(args.root, args.drift, args.log)


def main(argv: Sequence[str] | None = None) -> None:
    args = _options(argv)
    files_server(args.root, args.drift, args.log).run("stdio")


if __name__ == "__main__":
    main()
