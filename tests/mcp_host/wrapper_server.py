"""An MCP server started the way a wrapper starts one (a shell script, ``npx``, ``uvx``): its
process first starts a helper process of its own, then serves. The helper never reads the
server's stdin, so it does not stop when the host closes that: only the host ending the
server's whole process group ends it.

Run it with ``python -m tests.mcp_host.wrapper_server PIDS`` from the repository root: each
start appends its helper's pid to the file PIDS, one a line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.mcp_host.helpers import echo_server

# Sleeps far longer than any test: a helper still alive afterwards was left behind.
HELPER = "import time; time.sleep(600)"


def main() -> None:
    pids = Path(sys.argv[1])
    helper = subprocess.Popen(
        [sys.executable, "-c", HELPER],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with pids.open("a", encoding="utf-8") as written:
        written.write(f"{helper.pid}\n")
    echo_server("wrapped").run("stdio")


if __name__ == "__main__":
    main()
