"""An MCP server that starts once: started again (after it was killed, say) it writes why it
cannot to its stderr and exits with status 1, as a server whose module was removed would.

Run it with ``python -m tests.mcp_host.once_server MARKER`` from the repository root: the first
start creates MARKER, every later one finds it and refuses.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.mcp_host.helpers import echo_server

REFUSAL = "RuntimeError: this server was started once already"


def main() -> None:
    marker = Path(sys.argv[1])
    if marker.exists():
        print("Traceback (most recent call last):\n  ...", file=sys.stderr)
        print(REFUSAL, file=sys.stderr)
        sys.exit(1)
    marker.touch()
    echo_server("once").run("stdio")


if __name__ == "__main__":
    main()
