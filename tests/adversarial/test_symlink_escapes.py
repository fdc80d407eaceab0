"""Symlinks that lead out of the filesystem server's folder: read, write and list through them.

The attack: someone who can put links into the managed folder (or a careless setup) plants
symlinks that point outside it, then asks for a read, a write or a listing through them: a
symlinked directory (also as a parent of a file that does not exist yet), a link that dangles
(writing would create the file it names, outside), a chain of links whose last one leads out,
``..`` after a symlink (the kernel climbs from the link's target, a lexical check from the
link), and a loop. The bundled ``filesystem`` server is the real one, in-process.

First tried: held for every escape (nothing outside was read, written, created or listed). A
symlink loop, though, was a defect: asking for it failed with the SDK's generic "Error executing
tool" (the server's log got pathlib's message with the host's absolute path) instead of a
refusal naming the path asked for, and a loop anywhere in a folder made listing that folder
fail the same way. Fixed in servers/filesystem.py;
``test_a_symlink_loop_is_refused_naming_the_path_asked_for`` failed before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from servers.filesystem import SAMPLE_TXT, build_server
from tests.servers.helpers import error_text, structured

pytestmark = pytest.mark.anyio

SECRET = "top secret, outside the folder"


def _project(data_dir: Path) -> Path:
    return data_dir / "project"


def _outside(data_dir: Path) -> Path:
    """A folder beside the managed one, with a secret file in it and in a subfolder."""
    outside = data_dir / "outside"
    (outside / "a" / "b").mkdir(parents=True)
    (outside / "secret.txt").write_text(SECRET)
    (outside / "a" / "secret.txt").write_text(SECRET)
    return outside


async def _calls(data_dir: Path, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    """Each call's result, on one session of the real server."""
    server = build_server(data_dir)
    with anyio.fail_after(10):
        async with Client(server) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]


def _files_under(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


async def test_a_write_through_a_symlinked_folder_that_leads_out_is_refused_and_creates_nothing(
    data_dir: Path,
) -> None:
    outside = _outside(data_dir)
    before = _files_under(outside)
    build_server(data_dir)
    (_project(data_dir) / "shared").symlink_to(outside, target_is_directory=True)

    existing, new, nested = await _calls(
        data_dir,
        ("write_file", {"path": "shared/secret.txt", "content": "overwritten"}),
        ("write_file", {"path": "shared/planted.txt", "content": "planted"}),
        ("write_file", {"path": "shared/new/deeper/planted.txt", "content": "planted"}),
    )

    for result, path in ((existing, "shared/secret.txt"), (new, "shared/planted.txt")):
        assert "symlink to outside the project folder" in error_text(result) and path in error_text(result)
    assert "shared/new/deeper/planted.txt" in error_text(nested)
    assert _files_under(outside) == before
    assert not (outside / "new").exists()  # no folder made on the way either


async def test_a_write_through_a_dangling_symlink_does_not_create_its_target_outside(data_dir: Path) -> None:
    build_server(data_dir)
    target = data_dir / "planted.txt"
    (_project(data_dir) / "fresh.txt").symlink_to(target)

    [result] = await _calls(data_dir, ("write_file", {"path": "fresh.txt", "content": "planted"}))

    assert "symlink to outside the project folder: fresh.txt" in error_text(result)
    assert not target.exists()


async def test_a_chain_of_symlinks_whose_last_link_leads_out_is_refused_for_read_write_and_list(
    data_dir: Path,
) -> None:
    outside = _outside(data_dir)
    before = _files_under(outside)
    project = _project(data_dir)
    build_server(data_dir)
    # first -> second -> third -> outside: only the last link leaves the folder.
    (project / "third.txt").symlink_to(outside / "secret.txt")
    (project / "second.txt").symlink_to(project / "third.txt")
    (project / "first.txt").symlink_to("second.txt")
    (project / "third_dir").symlink_to(outside, target_is_directory=True)
    (project / "second_dir").symlink_to("third_dir", target_is_directory=True)
    (project / "first_dir").symlink_to(project / "second_dir", target_is_directory=True)

    read, write, listed, read_in_dir, root = await _calls(
        data_dir,
        ("read_file", {"path": "first.txt"}),
        ("write_file", {"path": "first.txt", "content": "overwritten"}),
        ("list_directory", {"path": "first_dir"}),
        ("read_file", {"path": "first_dir/secret.txt"}),
        ("list_directory", {}),
    )

    for result, path in (
        (read, "first.txt"),
        (write, "first.txt"),
        (listed, "first_dir"),
        (read_in_dir, "first_dir/secret.txt"),
    ):
        message = error_text(result)
        assert "symlink to outside the project folder" in message and path in message
        assert SECRET not in message
    assert _files_under(outside) == before
    # The listing hides every link of both chains: none of them can be used.
    assert [entry["name"] for entry in structured(root)["entries"]] == ["notes.md", "sample.txt"]


async def test_dot_dot_after_a_symlink_never_reaches_beyond_the_folder(data_dir: Path) -> None:
    outside = _outside(data_dir)
    before = _files_under(outside)
    build_server(data_dir)
    # The kernel would take deep/.. to outside/a, where a secret.txt waits; the server must not.
    (_project(data_dir) / "deep").symlink_to(outside / "a" / "b", target_is_directory=True)

    read, listed, written = await _calls(
        data_dir,
        ("read_file", {"path": "deep/../secret.txt"}),
        ("list_directory", {"path": "deep/.."}),
        ("write_file", {"path": "deep/../planted.txt", "content": "planted"}),
    )

    assert read.is_error and SECRET not in error_text(read)
    # ".." is taken from the link's place in the folder: the listing is the folder's own.
    names = [entry["name"] for entry in structured(listed)["entries"]]
    assert "secret.txt" not in names and "b" not in names
    assert not written.is_error and structured(written)["path"] == "planted.txt"
    assert _files_under(outside) == before
    assert (_project(data_dir) / "planted.txt").read_text() == "planted"


async def test_a_symlink_loop_is_refused_naming_the_path_asked_for(data_dir: Path) -> None:
    project = _project(data_dir)
    build_server(data_dir)
    (project / "loop_a").symlink_to("loop_b")
    (project / "loop_b").symlink_to("loop_a")

    read, write, listed, root = await _calls(
        data_dir,
        ("read_file", {"path": "loop_a"}),
        ("write_file", {"path": "loop_a", "content": "x"}),
        ("list_directory", {"path": "loop_a"}),
        ("list_directory", {}),
    )

    for result in (read, write, listed):
        message = error_text(result)
        assert "symlink loop: loop_a" in message
        assert str(data_dir) not in message  # the host's own folder is not the server's to tell
    # The folder holding the loop still lists, without the links that lead nowhere.
    assert [entry["name"] for entry in structured(root)["entries"]] == ["notes.md", "sample.txt"]
    assert (project / "sample.txt").read_text() == SAMPLE_TXT
