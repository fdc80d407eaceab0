"""The folders a server was given to work in, read off how it is started.

A file server started as ``server-filesystem /srv/share`` serves /srv/share; a git server
started with ``--repository /srv/repo`` serves that repository. Knowing this lets the planner
tell two look-alike tools on two servers apart by the path a request names: the one whose
server was given that folder. Only what the configuration states is used (absolute folders
that exist); a server started without one says nothing either way.

The same folders stand for a server's roots in the policy (``root_folders``) when nothing
names roots for it, minus those too broad to mean "the team's folder": the filesystem root,
home directories and any folder holding one, and the folders a launcher's own options name
(``uv --directory``: where the server's program lives, not its data).
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from mcp import StdioServerParameters

from mcp_host.config import StdioServer

if TYPE_CHECKING:
    from mcp_host.transports import ServerTarget


# Launcher options whose value is where the server's program or project lives (uv, uvx, npm,
# npx, node): the folder it runs from, not the one it works on. The MCP quickstart's own
# entry is `uv --directory /path/to/weather run weather.py`.
_PROGRAM_OPTIONS = frozenset({"--directory", "--project", "--prefix", "--from", "--with-editable"})
# Where people's home folders are kept, whether or not anyone's is there now.
_HOME_PARENTS = ("/home", "/Users")


def configured_folders(target: ServerTarget) -> list[str]:
    """Absolute, existing folders among a stdio server's arguments (``--flag=/path`` too)."""
    return [folder for _, folder in _folder_arguments(target)]


def root_folders(target: ServerTarget) -> list[str]:
    """The folders a stdio server is started on that may stand for its roots: absolute,
    existing folders among its arguments, except the filesystem root, a home directory (anyone's
    in the user database, and $HOME) or a folder holding one, and a launcher's program folder
    (``--directory DIR``). Its ``cwd`` is not one: it is where the server runs from (often its
    own code or environment), and a server works on the folders it is given, not on that.

    Args:
        target: the server's entry.

    Returns:
        The folders, resolved, in the order of the arguments; empty for a remote server.
    """
    folders = [folder for option, folder in _folder_arguments(target) if option not in _PROGRAM_OPTIONS]
    if not folders:
        # Most servers are started on no folder, and every command asks this of every server:
        # the user database is read only for those that are.
        return []
    homes = _home_directories()
    return [folder for folder in folders if not _holds_a_home(folder, homes)]


def names_a_place(target: ServerTarget) -> bool:
    """Whether a stdio server is given a place to work in among its arguments: an absolute
    path other than "/", an existing file or a launcher's program folder, whether or not it
    exists yet (a demo server creates its data folder on its first start). A server given none
    can only read a relative path argument from the folder it runs in."""
    if not isinstance(target, StdioServer | StdioServerParameters):
        return False
    return any(
        path.is_absolute() and str(path) != "/" and not path.is_file()
        for option, path in _arguments(target)
        if option not in _PROGRAM_OPTIONS
    )


def _arguments(target: StdioServer | StdioServerParameters) -> list[tuple[str | None, Path]]:
    """Each argument's value as a path, with the option it is the value of (``--flag /path``
    or ``--flag=/path``; None for a bare one)."""
    found: list[tuple[str | None, Path]] = []
    previous: str | None = None
    for argument in target.args:
        option = previous if previous is not None and previous.startswith("-") else None
        value = argument
        if argument.startswith("-") and "=" in argument:
            option, value = argument.split("=", 1)
        previous = argument
        found.append((option, Path(value)))
    return found


def _folder_arguments(target: ServerTarget) -> list[tuple[str | None, str]]:
    """Each absolute, existing folder among the arguments (never "/"), with the option it is
    the value of (``--flag /path`` or ``--flag=/path``; None for a bare one)."""
    if not isinstance(target, StdioServer | StdioServerParameters):
        return []
    found: list[tuple[str | None, str]] = []
    for option, path in _arguments(target):
        if path.is_absolute() and path.is_dir():
            resolved = str(path.resolve())
            if resolved != "/" and all(resolved != folder for _, folder in found):
                found.append((option, resolved))
    return found


def _home_directories() -> set[str]:
    """Every home directory this machine knows of: the user database's, $HOME and the
    conventional folders homes are kept in, resolved."""
    homes = {*_HOME_PARENTS, *(entry.pw_dir for entry in pwd.getpwall())}
    homes.add(os.environ.get("HOME", ""))  # the user database holds this user's too, unless $HOME moved
    return {os.path.realpath(home) for home in homes if home.startswith("/")}


def _holds_a_home(folder: str, homes: Iterable[str]) -> bool:
    """Whether ``folder`` is a home directory or holds one (``/home``, ``/Users``)."""
    return any(home == folder or home.startswith(folder.rstrip("/") + "/") for home in homes)


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
