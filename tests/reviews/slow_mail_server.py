"""A mail server whose one tool records its effect first and then takes a long time to answer.

It stands in for a real side effect that happened while the host died waiting for the
result: ``send_message`` appends one JSON line (recipient, body, the server's pid) to the
effects file, then waits ``--delay`` seconds (or until the ``--release`` file exists) before
it returns. Run it over stdio with ``python -m tests.reviews.slow_mail_server --effects FILE
[--delay SECONDS] [--release FILE] [--exit-after-effect]`` (from the repository root, so the module imports), or
build it in-process with ``build_server``.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from pathlib import Path

import anyio
from mcp.server.mcpserver import MCPServer


def build_server(
    effects: Path, delay: float = 60.0, release: Path | None = None, *, exit_after_effect: bool = False
) -> MCPServer:
    server = MCPServer("slowmail")

    @server.tool(description="Send a message to a recipient. Slow: it answers only after a long delay.")
    async def send_message(to: str, body: str, api_token: str | None = None) -> str:
        line = json.dumps({"to": to, "body": body, "pid": os.getpid()}) + "\n"
        # One write on an O_APPEND handle: the effect is on disk before the delay starts.
        with effects.open("a", encoding="utf-8") as handle:
            handle.write(line)
        if exit_after_effect:
            os._exit(0)  # acted, then died before answering: the host's request is left open
        with anyio.move_on_after(delay):
            while release is None or not release.exists():
                await anyio.sleep(0.02)
        return f"sent to {to}"

    return server


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--effects", type=Path, required=True, help="file that gets one line per send")
    parser.add_argument("--delay", type=float, default=60.0, help="seconds to wait before answering")
    parser.add_argument("--release", type=Path, help="answer as soon as this file exists")
    parser.add_argument("--exit-after-effect", action="store_true", help="die right after the effect")
    args = parser.parse_args(argv)
    build_server(args.effects, args.delay, args.release, exit_after_effect=args.exit_after_effect).run(
        "stdio"
    )


if __name__ == "__main__":
    main()
