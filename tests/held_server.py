"""An MCP server whose one tool answers only when the test lets it: a call that stays under way
for as long as the test needs, without a guessed pause.

The tool waits until the release file exists (at most the hold's seconds; with no release file,
exactly that long), then answers. Which tool it is (``--tool``) is what the tests differ in:

- ``forecast``: ``get_forecast(city)``, read-only, so the policy lets it run at once: a request
  the browser tests look at while it is under way (tests/browser/test_progress.py).
- ``mail``: ``send_message(to, body)``, a side effect: before it waits it appends one JSON line
  (recipient, body, the server's pid) to ``--effects``, standing in for a real effect that
  happened while the host died waiting for the answer (tests/reviews/). With
  ``--exit-after-effect`` it dies right after the effect and never answers.

Run it over stdio with ``python -m tests.held_server --tool TOOL [--release FILE] [--hold
SECONDS] [--effects FILE] [--exit-after-effect]`` from the repository root (``entry`` writes
that servers-file entry), or build it in-process with ``forecast_server`` or ``mail_server``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

REPO = Path(__file__).resolve().parents[1]
POLL_SECONDS = 0.02
Tool = Literal["forecast", "mail"]


@dataclass(frozen=True)
class Hold:
    """How long a call is held: until ``release`` exists, and at most ``seconds`` whatever happens
    (so a test that fails before releasing leaves no call waiting for ever)."""

    seconds: float = 120.0
    release: Path | None = None

    async def wait(self) -> None:
        with anyio.move_on_after(self.seconds):
            while self.release is None or not self.release.exists():
                await anyio.sleep(POLL_SECONDS)

    def arguments(self) -> list[str]:
        release = ["--release", str(self.release)] if self.release is not None else []
        return ["--hold", str(self.seconds), *release]


def forecast_server(hold: Hold) -> MCPServer:
    server = MCPServer("almanac")

    @server.tool(
        annotations=ToolAnnotations(
            title="Weather forecast", read_only_hint=True, idempotent_hint=True, open_world_hint=False
        )
    )
    async def get_forecast(city: Annotated[str, Field(description="The city to forecast.")]) -> str:
        """Get the weather forecast for a city."""
        await hold.wait()
        return f"Forecast for {city}: sunny, 21 degrees."

    return server


def mail_server(effects: Path, hold: Hold, *, exit_after_effect: bool = False) -> MCPServer:
    server = MCPServer("slowmail")

    @server.tool(description="Send a message to a recipient. Slow: it answers only after a long delay.")
    async def send_message(to: str, body: str, api_token: str | None = None) -> str:
        line = json.dumps({"to": to, "body": body, "pid": os.getpid()}) + "\n"
        # One write on an O_APPEND handle: the effect is on disk before the hold starts.
        with effects.open("a", encoding="utf-8") as handle:
            handle.write(line)
        if exit_after_effect:
            os._exit(0)  # acted, then died before answering: the host's request is left open
        await hold.wait()
        return f"sent to {to}"

    return server


def entry(
    tool: Tool, hold: Hold, *, effects: Path | None = None, exit_after_effect: bool = False
) -> dict[str, Any]:
    """The servers-file entry that starts this server over stdio (from the repository root, so
    the module imports)."""
    args = ["-m", __name__, "--tool", tool, *hold.arguments()]
    if effects is not None:
        args += ["--effects", str(effects)]
    if exit_after_effect:
        args.append("--exit-after-effect")
    return {"command": sys.executable, "args": args, "cwd": str(REPO)}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tool", choices=get_args(Tool), required=True, help="which tool the server has")
    parser.add_argument("--release", type=Path, help="answer as soon as this file exists")
    parser.add_argument("--hold", type=float, default=Hold.seconds, help="answer anyway after this long")
    parser.add_argument("--effects", type=Path, help="mail: the file that gets one line per send")
    parser.add_argument("--exit-after-effect", action="store_true", help="mail: die right after the effect")
    args = parser.parse_args(argv)
    hold = Hold(args.hold, args.release)
    if args.tool == "forecast":
        server = forecast_server(hold)
    elif args.effects is None:
        parser.error("--tool mail needs --effects")
    else:
        server = mail_server(args.effects, hold, exit_after_effect=args.exit_after_effect)
    server.run("stdio")


if __name__ == "__main__":
    main()
