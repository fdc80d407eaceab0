from pathlib import Path

import anyio
import pytest
from mcp import Client

from servers.filesystem import NOTES_MD, SAMPLE_TXT, build_server
from tests.servers.helpers import error_text, structured

pytestmark = pytest.mark.anyio


def project(data_dir: Path) -> Path:
    return data_dir / "project"


async def test_list_directory_names_the_seeded_files(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            listing = structured(await client.call_tool("list_directory", {}))
    assert listing["path"] == "."
    assert listing["entries"] == [
        {"name": "notes.md", "type": "file", "size": len(NOTES_MD.encode())},
        {"name": "sample.txt", "type": "file", "size": len(SAMPLE_TXT.encode())},
    ]


async def test_list_directory_sorts_entries_and_marks_folders(data_dir: Path) -> None:
    server = build_server(data_dir)
    (project(data_dir) / "docs").mkdir()
    (project(data_dir) / "docs" / "b.txt").write_text("b")
    (project(data_dir) / "docs" / "a").mkdir()
    with anyio.fail_after(10):
        async with Client(server) as client:
            listing = structured(await client.call_tool("list_directory", {"path": "docs"}))
    assert listing["path"] == "docs"
    assert listing["entries"] == [
        {"name": "a", "type": "directory", "size": None},
        {"name": "b.txt", "type": "file", "size": 1},
    ]


async def test_list_directory_rejects_a_missing_folder_and_a_file(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            missing = error_text(await client.call_tool("list_directory", {"path": "nope"}))
            not_dir = error_text(await client.call_tool("list_directory", {"path": "sample.txt"}))
    assert "no such directory: nope" in missing
    assert "not a directory: sample.txt" in not_dir


async def test_list_directory_hides_symlinks_that_lead_outside(data_dir: Path) -> None:
    server = build_server(data_dir)
    (project(data_dir) / "escape").symlink_to(data_dir.parent)
    with anyio.fail_after(10):
        async with Client(server) as client:
            listing = structured(await client.call_tool("list_directory", {}))
    assert [entry["name"] for entry in listing["entries"]] == ["notes.md", "sample.txt"]


async def test_read_file_returns_the_seeded_sample_text(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            result = structured(await client.call_tool("read_file", {"path": "sample.txt"}))
    assert result == {"path": "sample.txt", "content": SAMPLE_TXT, "size": len(SAMPLE_TXT)}


async def test_read_file_accepts_an_absolute_path_inside_the_folder(data_dir: Path) -> None:
    server = build_server(data_dir)
    inside = str((project(data_dir) / "notes.md").resolve())
    with anyio.fail_after(10):
        async with Client(server) as client:
            result = structured(await client.call_tool("read_file", {"path": inside}))
    assert result["path"] == "notes.md"
    assert result["content"] == NOTES_MD


async def test_read_file_reports_a_missing_file_by_name(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            message = error_text(await client.call_tool("read_file", {"path": "missing.txt"}))
    assert "no such file: missing.txt" in message


async def test_read_file_refuses_binary_content(data_dir: Path) -> None:
    server = build_server(data_dir)
    (project(data_dir) / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (project(data_dir) / "latin1.txt").write_bytes("café".encode("latin-1"))
    with anyio.fail_after(10):
        async with Client(server) as client:
            png = error_text(await client.call_tool("read_file", {"path": "image.png"}))
            latin1 = error_text(await client.call_tool("read_file", {"path": "latin1.txt"}))
    assert "not a UTF-8 text file" in png and "image.png" in png
    assert "not a UTF-8 text file" in latin1 and "latin1.txt" in latin1


async def test_read_file_rejects_a_directory(data_dir: Path) -> None:
    server = build_server(data_dir)
    (project(data_dir) / "sub").mkdir()
    with anyio.fail_after(10):
        async with Client(server) as client:
            message = error_text(await client.call_tool("read_file", {"path": "sub"}))
    assert "is a directory" in message and "sub" in message


async def test_read_file_rejects_a_dot_dot_escape_and_names_the_path(data_dir: Path) -> None:
    (data_dir / "secret.txt").write_text("top secret")
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            message = error_text(await client.call_tool("read_file", {"path": "../secret.txt"}))
            sneaky = error_text(await client.call_tool("read_file", {"path": "sub/../../secret.txt"}))
    assert "path escapes the project folder: ../secret.txt" in message
    assert "sub/../../secret.txt" in sneaky
    assert "top secret" not in message + sneaky


async def test_read_file_rejects_an_absolute_path_outside_the_folder(data_dir: Path) -> None:
    outside = data_dir / "secret.txt"
    outside.write_text("top secret")
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            message = error_text(await client.call_tool("read_file", {"path": str(outside)}))
            etc = error_text(await client.call_tool("read_file", {"path": "/etc/passwd"}))
    assert f"absolute path outside the project folder: {outside}" in message
    assert "absolute path outside the project folder: /etc/passwd" in etc


async def test_read_file_rejects_a_symlink_that_points_outside(data_dir: Path) -> None:
    server = build_server(data_dir)
    secret = data_dir / "secret.txt"
    secret.write_text("top secret")
    (project(data_dir) / "link.txt").symlink_to(secret)
    (project(data_dir) / "outside").symlink_to(data_dir)
    with anyio.fail_after(10):
        async with Client(server) as client:
            via_file = error_text(await client.call_tool("read_file", {"path": "link.txt"}))
            via_dir = error_text(await client.call_tool("read_file", {"path": "outside/secret.txt"}))
    assert "symlink" in via_file and "link.txt" in via_file
    assert "symlink" in via_dir and "outside/secret.txt" in via_dir
    assert "top secret" not in via_file + via_dir


async def test_read_file_follows_a_symlink_that_stays_inside(data_dir: Path) -> None:
    server = build_server(data_dir)
    (project(data_dir) / "alias.txt").symlink_to(project(data_dir) / "sample.txt")
    with anyio.fail_after(10):
        async with Client(server) as client:
            result = structured(await client.call_tool("read_file", {"path": "alias.txt"}))
    assert result["content"] == SAMPLE_TXT


async def test_write_file_creates_a_new_file_and_reports_it(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            result = structured(
                await client.call_tool("write_file", {"path": "drafts/todo.md", "content": "- ship it ✓\n"})
            )
            read_back = structured(await client.call_tool("read_file", {"path": "drafts/todo.md"}))
    assert result == {
        "path": "drafts/todo.md",
        "bytes_written": len("- ship it ✓\n".encode()),
        "created": True,
    }
    assert read_back["content"] == "- ship it ✓\n"


async def test_write_file_overwrites_an_existing_file(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            result = structured(
                await client.call_tool("write_file", {"path": "sample.txt", "content": "new"})
            )
    assert result == {"path": "sample.txt", "bytes_written": 3, "created": False}
    assert (project(data_dir) / "sample.txt").read_text() == "new"


async def test_write_file_cannot_escape_the_folder(data_dir: Path) -> None:
    server = build_server(data_dir)
    secret = data_dir / "secret.txt"
    secret.write_text("original")
    (project(data_dir) / "link.txt").symlink_to(secret)
    with anyio.fail_after(10):
        async with Client(server) as client:
            dot_dot = error_text(
                await client.call_tool("write_file", {"path": "../secret.txt", "content": "x"})
            )
            absolute = error_text(await client.call_tool("write_file", {"path": str(secret), "content": "x"}))
            symlink = error_text(await client.call_tool("write_file", {"path": "link.txt", "content": "x"}))
    assert "../secret.txt" in dot_dot
    assert str(secret) in absolute
    assert "symlink" in symlink and "link.txt" in symlink
    assert secret.read_text() == "original"
    assert not (data_dir.parent / "secret.txt").exists()


async def test_write_file_rejects_a_directory_target(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            message = error_text(await client.call_tool("write_file", {"path": ".", "content": "x"}))
    assert "is a directory" in message


def test_seeding_is_idempotent_and_keeps_user_changes(data_dir: Path) -> None:
    build_server(data_dir)
    sample = project(data_dir) / "sample.txt"
    sample.write_text("edited by the user\n")
    (project(data_dir) / "notes.md").unlink()

    build_server(data_dir)
    build_server(data_dir)

    assert sample.read_text() == "edited by the user\n"
    assert (project(data_dir) / "notes.md").read_text() == NOTES_MD
    assert sorted(path.name for path in project(data_dir).iterdir()) == ["notes.md", "sample.txt"]


async def test_filesystem_tools_declare_accurate_annotations(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"list_directory", "read_file", "write_file"}
    for name in ("list_directory", "read_file"):
        annotations = tools[name].annotations
        assert annotations is not None and annotations.read_only_hint is True
    write = tools["write_file"].annotations
    assert write is not None
    assert write.read_only_hint is False and write.destructive_hint is True
    assert all(tool.output_schema is not None for tool in tools.values())
    assert tools["list_directory"].description == (
        "List the files and folders in a directory of the managed project folder."
    )


@pytest.mark.parametrize("tool", ["write_file", "read_file"])
async def test_a_file_swapped_for_a_link_outside_after_the_path_was_checked_is_neither_written_nor_read(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    # Another local process wins the race between the server's check of the path and its
    # open: the check saw a plain file, the open meets a link to a file outside the folder.
    import servers.filesystem as filesystem

    server = build_server(data_dir)
    outside = data_dir / "outside.txt"
    outside.write_text("keep me")
    checked = filesystem.resolve_inside

    def swapped_after_the_check(root: Path, path: str) -> Path:
        target = checked(root, path)
        target.unlink(missing_ok=True)
        target.symlink_to(outside)
        return target

    monkeypatch.setattr(filesystem, "resolve_inside", swapped_after_the_check)
    arguments = (
        {"path": "report.md", "content": "overwritten"} if tool == "write_file" else {"path": "report.md"}
    )
    (project(data_dir) / "report.md").write_text("report")
    with anyio.fail_after(10):
        async with Client(server) as client:
            refused = error_text(await client.call_tool(tool, arguments))

    assert "report.md changed while it was opened" in refused
    assert outside.read_text() == "keep me" and "keep me" not in refused


async def test_a_folder_swapped_for_a_link_outside_after_the_check_is_not_written_through(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import servers.filesystem as filesystem

    server = build_server(data_dir)
    elsewhere = data_dir / "elsewhere"
    elsewhere.mkdir()
    (project(data_dir) / "drafts").mkdir()
    checked = filesystem.resolve_inside

    def swapped_after_the_check(root: Path, path: str) -> Path:
        target = checked(root, path)
        (root / "drafts").rmdir()
        (root / "drafts").symlink_to(elsewhere)
        return target

    monkeypatch.setattr(filesystem, "resolve_inside", swapped_after_the_check)
    with anyio.fail_after(10):
        async with Client(server) as client:
            refused = error_text(
                await client.call_tool("write_file", {"path": "drafts/x.md", "content": "x"})
            )

    assert "drafts/x.md changed while it was opened" in refused
    assert list(elsewhere.iterdir()) == []
