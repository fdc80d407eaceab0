"""Demo filesystem server: list, read and write text files inside one managed project folder.

Every path is interpreted relative to `data_dir/project` and must stay inside it, also after
following symlinks, so an agent can never reach the rest of the disk through this server.
"""

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from gatehouse_verify.keys import PublicKeys
from gatehouse_verify.verifier import verifying_server
from servers._common import SERVER_VERSION, approval_keys, run_stdio, seed_text_file

PROJECT_FOLDER = "project"
MAX_READ_BYTES = 1024 * 1024

SAMPLE_TXT = "This is a sample file in the managed project folder.\n"
NOTES_MD = """\
# Project notes

- The managed project folder is the only place this server can read or write.
- `sample.txt` is a plain text file you can read back.
- Ask before overwriting files: `write_file` replaces the whole content.
"""


DirectoryPath = Annotated[
    str, Field(description="Directory to list, relative to the project folder ('.' is the folder itself).")
]
FilePath = Annotated[str, Field(description="File path relative to the project folder, e.g. 'notes.md'.")]
FileText = Annotated[str, Field(description="The complete new text of the file (UTF-8).")]


class DirectoryEntry(BaseModel):
    name: str = Field(description="File or folder name, without any parent path.")
    type: Literal["file", "directory"] = Field(description="Whether the entry is a file or a directory.")
    size: int | None = Field(description="Size in bytes for files; null for directories.")


class DirectoryListing(BaseModel):
    path: str = Field(description="The listed directory, relative to the project folder.")
    entries: list[DirectoryEntry] = Field(description="The directory's entries, sorted by name.")


class FileContent(BaseModel):
    path: str = Field(description="The file that was read, relative to the project folder.")
    content: str = Field(description="The file's full UTF-8 text.")
    size: int = Field(description="The file's size in bytes.")


class WriteResult(BaseModel):
    path: str = Field(description="The file that was written, relative to the project folder.")
    bytes_written: int = Field(description="Number of UTF-8 bytes written.")
    created: bool = Field(description="True if the file did not exist before this call.")


def seed_project(root: Path) -> None:
    """Create the managed folder with its sample files, leaving any existing file untouched."""
    root.mkdir(parents=True, exist_ok=True)
    seed_text_file(root / "sample.txt", SAMPLE_TXT)
    seed_text_file(root / "notes.md", NOTES_MD)


def _display(root: Path, target: Path) -> str:
    relative = target.relative_to(root).as_posix()
    return relative or "."


def resolve_inside(root: Path, path: str) -> Path:
    """Map a user-supplied path to an absolute path inside `root`, or raise a ToolError naming it.

    The lexical check catches `..` and absolute paths before touching the disk; the second
    check, after `resolve()`, catches symlinks (anywhere along the path) that point outside.
    """
    if "\0" in path:
        raise ToolError(f"invalid path (contains a NUL byte): {path!r}")
    # normpath rather than resolve() so the lexical verdict does not depend on symlinks.
    lexical = Path(os.path.normpath(root / path))
    if not lexical.is_relative_to(root):
        if Path(path).is_absolute():
            raise ToolError(f"absolute path outside the project folder: {path}")
        raise ToolError(f"path escapes the project folder: {path}")
    try:
        resolved = lexical.resolve()
    except RuntimeError:
        # pathlib's word for ELOOP; its message holds the host's absolute path, not the caller's.
        raise ToolError(f"path cannot be resolved, it runs into a symlink loop: {path}") from None
    if not resolved.is_relative_to(root):
        raise ToolError(f"path resolves through a symlink to outside the project folder: {path}")
    return resolved


_NO_FOLLOW_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_under(root: Path, target: Path, flags: int, *, make_parents: bool = False) -> int:
    """Open ``target`` (already resolved inside ``root``) one component at a time from ``root``,
    following no symlink: a component swapped for a link after resolve_inside checked the path
    (a race by another local process) fails to open instead of leading out of the folder."""
    parts = target.relative_to(root).parts
    folder = os.open(root, _NO_FOLLOW_DIR)
    try:
        for part in parts[:-1]:
            if make_parents:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=folder)
            inner = os.open(part, _NO_FOLLOW_DIR, dir_fd=folder)
            os.close(folder)
            folder = inner
        return os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=folder)
    except OSError as exc:
        raise ToolError(
            f"{_display(root, target)} changed while it was opened (a link now stands in its way): {exc.strerror}"
        ) from None
    finally:
        os.close(folder)


def _resolved(entry: Path) -> Path | None:
    """Where a folder entry really is, or None for a symlink loop (pathlib raises RuntimeError)."""
    try:
        return entry.resolve()
    except RuntimeError:
        return None


def build_server(data_dir: Path, approvals: PublicKeys | None = None) -> MCPServer:
    """The server on ``data_dir``; with ``approvals`` (Gatehouse's public keys) its
    side-effecting tools run only under a grant Gatehouse signed (gatehouse_verify/)."""
    root = (data_dir / PROJECT_FOLDER).resolve()
    seed_project(root)

    server = verifying_server(
        "filesystem",
        approvals,
        version=SERVER_VERSION,
        instructions=(
            "Read and write text files in the managed project folder. "
            "Paths are relative to that folder; nothing outside it is reachable."
        ),
    )

    @server.tool(
        annotations=ToolAnnotations(
            title="List directory",
            read_only_hint=True,
            idempotent_hint=True,
            open_world_hint=False,
        )
    )
    def list_directory(path: DirectoryPath = ".") -> DirectoryListing:
        """List the files and folders in a directory of the managed project folder."""
        target = resolve_inside(root, path)
        if not target.exists():
            raise ToolError(f"no such directory: {path}")
        if not target.is_dir():
            raise ToolError(f"not a directory: {path}")
        entries: list[DirectoryEntry] = []
        for child in target.iterdir():
            real = _resolved(child)
            # Entries that lead outside (or nowhere, or round in a loop) are unusable through
            # this server, so hide them.
            if real is None or not real.is_relative_to(root) or not real.exists():
                continue
            if real.is_dir():
                entries.append(DirectoryEntry(name=child.name, type="directory", size=None))
            else:
                entries.append(DirectoryEntry(name=child.name, type="file", size=real.stat().st_size))
        entries.sort(key=lambda entry: entry.name)
        return DirectoryListing(path=_display(root, target), entries=entries)

    @server.tool(
        annotations=ToolAnnotations(
            title="Read file",
            read_only_hint=True,
            idempotent_hint=True,
            open_world_hint=False,
        )
    )
    def read_file(path: FilePath) -> FileContent:
        """Read the full text of a UTF-8 file in the managed project folder."""
        target = resolve_inside(root, path)
        if not target.exists():
            raise ToolError(f"no such file: {path}")
        if target.is_dir():
            raise ToolError(f"is a directory, not a file: {path}")
        size = target.stat().st_size
        if size > MAX_READ_BYTES:
            raise ToolError(f"file too large to read ({size} bytes, limit {MAX_READ_BYTES}): {path}")
        with os.fdopen(_open_under(root, target, os.O_RDONLY), "rb") as handle:
            data = handle.read(MAX_READ_BYTES + 1)
        binary_error = ToolError(f"not a UTF-8 text file (binary content): {path}")
        # NUL is valid UTF-8, but text files never contain it, so it is the cheap binary tell.
        if b"\0" in data:
            raise binary_error
        try:
            content = data.decode("utf-8")
        except UnicodeDecodeError:
            raise binary_error from None
        return FileContent(path=_display(root, target), content=content, size=len(data))

    @server.tool(
        annotations=ToolAnnotations(
            title="Write file",
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=True,
            open_world_hint=False,
        )
    )
    def write_file(path: FilePath, content: FileText) -> WriteResult:
        """Create or overwrite a UTF-8 text file in the managed project folder with the given content."""
        target = resolve_inside(root, path)
        if target == root or target.is_dir():
            raise ToolError(f"is a directory, not a file: {path}")
        created = not target.exists()
        data = content.encode("utf-8")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        with os.fdopen(_open_under(root, target, flags, make_parents=True), "wb") as handle:
            handle.write(data)
        return WriteResult(path=_display(root, target), bytes_written=len(data), created=created)

    return server


def main(argv: Sequence[str] | None = None) -> None:
    run_stdio(
        lambda data_dir: build_server(data_dir, approval_keys("filesystem")),
        argv,
        description="Gatehouse demo filesystem MCP server (stdio).",
    )


if __name__ == "__main__":
    main()
