"""A relative path names the server whose folder holds it: "People/Priya.md" is the vault's when
the vault's folder has People/Priya.md and the file server's folder does not; a file a change
would create names the server whose folder has the folder it goes in. A bare new name, or a
path every folder holds alike, names none. Names written in camel case (oldPath) take paths as
snake case ones do. Made-up servers on real folders (tmp_path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.context import Limits
from graph.planner.arguments import extract_arguments
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from graph.planner.relative_places import servers_holding
from tests.capabilities import tool

_TEXT = {"type": "string"}
_PATHS = {"type": "array", "items": {"type": "string"}}
SERVERS = [
    tool("vault", "read_multiple_notes", "Read multiple notes in a batch", {"paths": _PATHS}, ["paths"]),
    tool("vault", "move_file", "Move or rename any file in the vault",
         {"oldPath": {"type": "string", "description": "Current path of the file"},
          "newPath": {"type": "string", "description": "New path for the file"}}, ["oldPath", "newPath"]),
    tool("vault", "write_note", "Write a note in the vault", {"path": _TEXT, "content": _TEXT}, ["path", "content"]),
    tool("disk", "read_multiple_files", "Read the contents of multiple files at once.", {"paths": _PATHS}, ["paths"]),
    tool("disk", "move_file", "Move or rename files and directories.", {"source": _TEXT, "destination": _TEXT},
         ["source", "destination"]),
    tool("disk", "write_file", "Create a new file or overwrite a file.", {"path": _TEXT, "content": _TEXT},
         ["path", "content"]),
]  # fmt: skip


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, tuple[str, ...]]:
    vault, disk = tmp_path / "vault", tmp_path / "disk"
    for folder in (vault / "People", vault / "Attachments", vault / "Meetings", disk / "reports"):
        folder.mkdir(parents=True)
    for note in ("People/Priya.md", "People/Tomas.md", "Attachments/architecture.svg"):
        (vault / note).write_text("x", encoding="utf-8")
    (disk / "todo.txt").write_text("x", encoding="utf-8")
    return {"vault": (str(vault),), "disk": (str(disk),)}


def _chosen(text: str, folders: dict[str, tuple[str, ...]]) -> str | None:
    selection = DeterministicPlanner().select(PlanningRequest(text=text, folders=folders), SERVERS, Limits())
    return selection.chosen.capability.key if selection.chosen else None


def test_paths_only_one_servers_folder_holds_name_that_server(folders: dict[str, tuple[str, ...]]) -> None:
    assert _chosen("I need People/Priya.md and People/Tomas.md side by side, read both", folders) == (
        "vault__read_multiple_notes"
    )
    assert _chosen("Move Attachments/architecture.svg to Attachments/old.svg", folders) == "vault__move_file"


def test_a_new_file_names_the_server_whose_folder_it_goes_in(folders: dict[str, tuple[str, ...]]) -> None:
    assert servers_holding(["Meetings/2026-12-04-demo.md"], folders) == frozenset({"vault"})
    assert servers_holding(["reports/q4.csv"], folders) == frozenset({"disk"})


def test_a_bare_new_name_or_a_path_outside_every_folder_names_none(
    folders: dict[str, tuple[str, ...]],
) -> None:
    assert servers_holding(["notes.md"], folders) is None
    assert servers_holding(["Nowhere/else.md"], folders) is None
    assert servers_holding(["../elsewhere/People/Priya.md"], folders) is None
    # A path that climbs out of a folder names no server, even one whose folder it climbs into.
    assert servers_holding(["../vault/People/Priya.md"], folders) is None


def test_where_a_file_is_lifts_no_weak_match_of_the_server_that_holds_it(
    folders: dict[str, tuple[str, ...]],
) -> None:
    # Where the file is says which server, not which tool: the holder's tools gain nothing, so
    # a request no tool of it serves ("undo") is still answered by none.
    ranked = DeterministicPlanner().select(
        PlanningRequest(text="Undo the last change I made to People/Priya.md", folders=folders),
        SERVERS,
        Limits(),
    )

    assert ranked.chosen is None
    assert not any(
        "folder" in reason
        for c in ranked.candidates
        if c.capability.server == "vault"
        for reason in c.reasons
    )
    assert servers_holding(["/etc/passwd", "https://x.org/a.md"], folders) is None


def test_a_name_in_camel_case_takes_a_path_as_one_in_snake_case() -> None:
    schema = SERVERS[1].input_schema

    extraction = extract_arguments(schema, "Move Attachments/architecture.svg to Attachments/old.svg")

    assert extraction.arguments == {
        "oldPath": "Attachments/architecture.svg",
        "newPath": "Attachments/old.svg",
    }


def test_a_new_file_sharing_a_bare_name_with_one_elsewhere_names_no_server(
    folders: dict[str, tuple[str, ...]],
) -> None:
    # "Put a README.md in the project folder": a README.md in the vault is a coincidence, not
    # where the change goes; a bare name still names its holder for a read.
    (Path(folders["vault"][0]) / "README.md").write_text("x", encoding="utf-8")
    assert servers_holding(["README.md"], folders, bare_names=False) is None
    assert servers_holding(["README.md"], folders) == frozenset({"vault"})

    ranked = DeterministicPlanner().select(
        PlanningRequest(text="Write a README.md that just says 'hello'", folders=folders), SERVERS, Limits()
    )

    assert not any("folder of" in reason for c in ranked.candidates for reason in c.reasons)
