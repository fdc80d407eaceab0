"""The folders a server was given to work in, read off how it is started.

A file server started as ``server-filesystem /srv/share`` serves /srv/share; a git server
started with ``--repository /srv/repo`` serves that repository. Knowing this lets the planner
tell two look-alike tools on two servers apart by the path a request names: the one whose
server was given that folder. Only what the configuration states is used (absolute folders
that exist); a server started without one says nothing either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mcp import StdioServerParameters

from mcp_host.config import StdioServer

if TYPE_CHECKING:
    from mcp_host.transports import ServerTarget


def configured_folders(target: ServerTarget) -> list[str]:
    """Absolute, existing folders among a stdio server's arguments (``--flag=/path`` too)."""
    if not isinstance(target, StdioServer | StdioServerParameters):
        return []
    found: list[str] = []
    for argument in target.args:
        value = argument.split("=", 1)[1] if argument.startswith("-") and "=" in argument else argument
        path = Path(value)
        if path.is_absolute() and path.is_dir():
            resolved = str(path.resolve())
            if resolved != "/" and resolved not in found:
                found.append(resolved)
    return found


def holds(folder: str, path: str) -> bool:
    """Whether ``path`` (absolute) is ``folder`` or inside it, compared as written and resolved."""
    candidate = Path(path)
    if not candidate.is_absolute():
        return False
    for form in {candidate, _resolved(candidate)}:
        if form == Path(folder) or Path(folder) in form.parents:
            return True
    return False


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path
