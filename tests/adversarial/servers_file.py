"""A servers file that runs adversarial servers over stdio, as a user's configuration would."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.adversarial.effects import ENV
from tests.reviews.review_support import REPO


def servers_file(data: Path, effects: Path, *modules: str, timeout: float | None = None) -> Path:
    """``{"mcpServers": {name: python -m module}}`` for modules of tests.adversarial (or a dotted
    module path); the server's name is the module's, kebab-cased. Each records its calls in ``effects``."""
    entries = {}
    for module in modules:
        entry: dict[str, object] = {
            "command": sys.executable,
            "args": ["-m", module if "." in module else f"tests.adversarial.{module}"],
            "cwd": str(REPO),
            "env": {ENV: str(effects)},
        }
        if timeout is not None:
            entry["timeout"] = timeout
        entries[module.rsplit(".", 1)[-1].replace("_", "-")] = entry
    path = data / "adversarial-servers.json"
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    return path
