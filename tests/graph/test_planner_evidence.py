"""Evidence the deterministic planner reads beyond words, on made-up servers: where a path
lives, what a path names, values that are not vocabulary, lists, countries, message text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import StdioServerParameters

from graph.planner.arguments import extract_arguments
from graph.planner.scoring import rank
from graph.planner.zones import zone_mentions
from mcp_host.config import StdioServer
from mcp_host.folders import configured_folders, holds
from mcp_host.manifest import Capability, CapabilityType


def tool(server: str, name: str, description: str, properties: dict[str, Any] | None = None,
         required: list[str] | None = None, kind: CapabilityType = "tool") -> Capability:  # fmt: skip
    schema = {"type": "object", "properties": properties or {}, "required": required or []}
    return Capability(
        key=f"{server}__{name}",
        server=server,
        type=kind,
        name=name,
        description=description,
        input_schema=schema,
    )


PATH = {"path": {"type": "string"}}
# Two servers offering the same reads: only where each was started tells them apart.
TWINS = [
    tool("vault", "open_document", "Open a document and return its text.", PATH, ["path"]),
    tool("archive", "open_document", "Open a document and return its text.", PATH, ["path"]),
]


def _best(capabilities: list[Capability], text: str, **options: Any) -> list[tuple[str, float]]:
    return [(s.capability.key, s.score) for s in rank(capabilities, text, "tool", [], **options)]


def test_a_path_inside_the_folder_a_server_was_started_with_chooses_that_server(tmp_path: Path) -> None:
    folders = {"vault": [str(tmp_path / "vault")], "archive": [str(tmp_path / "archive")]}
    text = f"Open {tmp_path}/archive/2019/minutes.txt"

    without = _best(TWINS, text)
    placed = _best(TWINS, text, folders=folders)

    assert without[0][1] == without[1][1], "the words alone cannot tell the twins apart"
    assert placed[0][0] == "archive__open_document"
    assert placed[0][1] - placed[1][1] >= 2


def test_the_folders_of_a_server_are_the_existing_absolute_folders_among_its_arguments(
    tmp_path: Path,
) -> None:
    share = tmp_path / "share"
    share.mkdir()
    entry = StdioServer(
        name="files",
        command="node",
        args=[
            "server.js",
            str(share),
            "--root=" + str(share),
            "relative/dir",
            str(tmp_path / "missing"),
            "-v",
        ],
    )

    assert configured_folders(entry) == [str(share.resolve())]
    assert configured_folders(StdioServerParameters(command="x", args=[str(share)])) == [str(share.resolve())]
    assert configured_folders("http://127.0.0.1:9/mcp") == []
    assert holds(str(share), f"{share}/a/b.txt") and not holds(str(share), f"{tmp_path}/shared/b.txt")
    assert not holds(str(share), "b.txt"), "a relative path is in no folder for sure"


FOLDERS = [
    tool("disk", "list_folder", "List what a folder holds.", PATH, ["path"]),
    tool("disk", "show_file", "Show what a file says.", PATH, ["path"]),
]


def test_a_file_name_given_to_a_folder_tool_counts_against_it() -> None:
    ranked = dict(_best(FOLDERS, "what is in /srv/notes/plan.md"))

    assert max(ranked, key=lambda key: ranked[key]) == "disk__show_file"


def test_words_inside_paths_and_quotes_are_values_not_what_the_request_is_about() -> None:
    capabilities = [
        tool("books", "read_report", "Read a quarterly report.", {}),
        tool("disk", "show_file", "Show what a file says.", PATH, ["path"]),
    ]

    ranked = _best(capabilities, "show /srv/reports/report-q3.txt")

    assert ranked[0][0] == "disk__show_file"


def test_a_resource_named_like_a_file_is_named_by_that_file_name() -> None:
    capabilities = [
        tool("docs", "changelog.md", "Static document.", kind="resource"),
        tool("docs", "roadmap.md", "Static document.", kind="resource"),
    ]

    assert _best(capabilities, "what does roadmap.md say?")[0][0] == "docs__roadmap.md"


def test_lists_of_paths_and_of_names_fill_array_parameters() -> None:
    strings = {"type": "array", "items": {"type": "string"}}
    schema = {
        "type": "object",
        "properties": {"paths": strings, "labelNames": strings},
        "required": ["paths"],
    }

    found = extract_arguments(
        schema, "Compare /srv/a.txt and /srv/b.txt for Maria Lopez and Northwind Traders"
    )

    assert found.arguments == {
        "paths": ["/srv/a.txt", "/srv/b.txt"],
        "labelNames": ["Maria Lopez", "Northwind Traders"],
    }
    assert found.evidence["paths"] == "/srv/a.txt, /srv/b.txt"


def test_files_to_stage_are_the_files_not_the_folder_they_are_in() -> None:
    strings = {"type": "array", "items": {"type": "string"}}
    schema = {"type": "object", "properties": {"repo_path": {"type": "string"}, "files": strings}}

    found = extract_arguments(schema, "stage login.py and util/db.py in /srv/repo")

    assert found.arguments == {"repo_path": "/srv/repo", "files": ["login.py", "util/db.py"]}


def test_a_country_with_one_zone_names_it_and_one_with_several_names_none() -> None:
    assert [m.zone for m in zone_mentions("What time is it in India?")] == ["Asia/Kolkata"]
    assert [m.zone for m in zone_mentions("and in Japan")] == ["Asia/Tokyo"]
    assert zone_mentions("the time in Brazil") == [], "Brazil has several zones: the person must say which"


def test_message_text_after_tell_her_and_let_someone_know() -> None:
    schema = {"type": "object", "properties": {"to": {"type": "string"}, "body": {"type": "string"}}}

    told = extract_arguments(schema, "email ann@example.com and tell her the build is green")
    let_know = extract_arguments(schema, "Let bo@example.com know that the deploy finished")
    quoted = extract_arguments(schema, "write to ann@example.com containing the text 'hi there'")

    assert told.arguments["body"] == "the build is green"
    assert let_know.arguments == {"to": "bo@example.com", "body": "the deploy finished"}
    assert quoted.arguments["body"] == "hi there"


def test_an_identifier_beside_its_noun_is_that_name_and_a_plain_word_is_not() -> None:
    schema = {"type": "object", "properties": {"branch_name": {"type": "string"}}}

    assert extract_arguments(schema, "switch to the release-2.1 branch").arguments == {
        "branch_name": "release-2.1"
    }
    assert extract_arguments(schema, "switch to branch hotfix/login").arguments == {
        "branch_name": "hotfix/login"
    }
    assert extract_arguments(schema, "switch to the other branch").arguments == {}


def test_a_quotation_never_becomes_a_path() -> None:
    schema = {"type": "object", "properties": {"repo_path": {"type": "string"}}, "required": ["repo_path"]}

    found = extract_arguments(schema, "Add a note to ticket 9 saying 'customer called back'")

    assert found.arguments == {}
    assert found.missing == ["repo_path"]


def test_an_unknown_verb_the_description_opens_with_is_evidence_and_settles_the_action() -> None:
    capabilities = [
        tool("vcs", "checkout", "Switches branches.", {"branch": {"type": "string"}}, ["branch"]),
        tool("vcs", "create_branch", "Creates a new branch.", {"branch": {"type": "string"}}, ["branch"]),
    ]

    ranked = _best(capabilities, "Switch over to branch main")

    assert ranked[0][0] == "vcs__checkout"
