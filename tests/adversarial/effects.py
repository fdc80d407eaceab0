"""Where the adversarial servers write down that a tool ran: one JSON line per call."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

ENV = "ADVERSARIAL_EFFECTS"


def record(tool: str, *, effects: Path | None = None, **details: Any) -> None:
    """Append that ``tool`` ran (one write on an O_APPEND handle) to ``effects``: the file its
    server was built with when served in-process (tests/in_process_servers.py), else the one
    named by $ADVERSARIAL_EFFECTS (a server run as a process of its own)."""
    target = effects or os.environ.get(ENV)
    if not target:
        return
    with Path(target).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"tool": tool, "pid": os.getpid(), **details}) + "\n")


def ran(effects: Path) -> list[str]:
    """The tools that ran, in order."""
    if not effects.exists():
        return []
    return [json.loads(line)["tool"] for line in effects.read_text(encoding="utf-8").splitlines() if line]
