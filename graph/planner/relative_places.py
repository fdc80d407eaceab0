"""Which servers a relative path names: "People/Priya.md" is a note of the vault when the vault's
folder holds People/Priya.md and no other server's folder does.

An absolute path names its server by the folders the server was given (scoring's
``_path_in_its_folders``); a relative one says nothing by itself, since each server reads it
from its own folder. So look: the servers whose folders hold the path, or, for a file a change
would create ("Meetings/2026-12-04-demo.md"), the folder it would go in. A bare name with no
folder ("notes.md" to be written) fits every folder and names none. Only the folders of servers
started on this machine are looked at (``ServerManifest.folders``); nothing is read but whether
a name exists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath


def _is_relative_path(value: str) -> bool:
    # A file name or a path with a slash, not absolute, not in the home folder, not a URI; never
    # one that climbs out of a folder ("../shared/x"), which is no way to name who holds it.
    if not value or value.startswith(("/", "~", "\\")) or "://" in value or "\n" in value:
        return False
    if ".." in PurePosixPath(value).parts:
        return False
    return "/" in value or bool(PurePosixPath(value).suffix)


def _holds_relative(folder: str, path: str) -> bool:
    """Whether ``folder`` holds ``path`` (read from it), or the folder ``path`` would be made in
    when that is not the folder itself; never a path that climbs out of it."""
    base = Path(folder)
    candidate = base / path
    try:
        # Compared resolved, ".." and links followed: "../other/x.md" climbs out of the folder.
        inside, home = candidate.resolve(strict=False), base.resolve(strict=False)
        if inside != home and home not in inside.parents:
            return False
        if candidate.exists():
            return True
        parent = candidate.parent
        return parent != base and parent.is_dir()
    except OSError:
        return False


def servers_holding(
    values: Sequence[object], folders: Mapping[str, Sequence[str]], *, bare_names: bool = True
) -> frozenset[str] | None:
    """The servers whose folders hold every relative path among ``values``; None when no value
    is a relative path, or when the paths fit every server's folders alike (nothing told apart).
    Without ``bare_names`` a name with no folder ("README.md") is left out: a file a change
    makes may share its name with one elsewhere by chance, as a file to read does not."""
    paths = [v for v in values if isinstance(v, str) and _is_relative_path(v) and (bare_names or "/" in v)]
    if not paths or not folders:
        return None
    holding = frozenset(
        server
        for server, given in folders.items()
        if all(any(_holds_relative(folder, path) for folder in given) for path in paths)
    )
    if not holding or holding == frozenset(folders):
        return None
    return holding
