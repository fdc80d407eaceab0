"""The shipped default policy on the real manifests of servers nobody here wrote.

Each peer is started once per module and asked for its manifest; every case evaluates one of
its tools with realistic arguments (paths inside the temporary root, the temporary
repository) through a fresh engine, so no case depends on another's pins.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

from mcp_host.manifest import Capability, Manifest
from mcp_host.sdk_client import SdkMcpClient
from policies.decision import PolicyDecision
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, load_policy
from tests.interop.peers import (
    everything_server,
    filesystem_server,
    git_server,
    memory_server,
    missing_peer,
)


@dataclass
class Peers:
    """The folders the peers work on, and each peer's manifest once it has been asked for."""

    data: Path  # GATEHOUSE_DATA: the shipped policy's root is data/demo/project
    root: Path
    outside: Path
    repo: Path
    memory_file: Path
    manifests: dict[str, Manifest] = field(default_factory=dict)

    def target(self, server: str) -> StdioServerParameters:
        if server == "filesystem":
            return filesystem_server(self.root)
        if server == "memory":
            return memory_server(self.memory_file)
        if server == "git":
            return git_server(self._repository())
        if server == "everything":
            return everything_server()
        raise AssertionError(f"no peer called {server}")

    def _repository(self) -> Path:
        if not (self.repo / ".git").is_dir():
            _init_repository(self.repo)
        return self.repo

    def capability(self, key: str) -> Capability:
        server = key.split("__", 1)[0]
        if server not in self.manifests:
            with SdkMcpClient({server: self.target(server)}) as client:
                self.manifests[server] = client.discover()
        manifest = self.manifests[server]
        assert not manifest.problems(), manifest.problems()
        capability = manifest.find(key)
        offered = sorted(c.key for c in manifest.capabilities())
        assert capability is not None, f"{key} is not offered; the manifest has {offered}"
        return capability

    def engine(self) -> PolicyEngine:
        return PolicyEngine(load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": str(self.data)}))

    def evaluate(self, key: str, arguments: dict[str, Any]) -> PolicyDecision:
        return self.engine().evaluate(self.capability(key), arguments).decision


def _init_repository(repo: Path) -> None:
    try:
        for args in (
            ["init", "--quiet", "--initial-branch=main"],
            ["add", "README.md"],
            ["commit", "--quiet", "-m", "first commit"],
        ):
            subprocess.run(
                ["git", "-c", "user.name=Interop", "-c", "user.email=interop@example.invalid", *args],
                cwd=repo,
                check=True,
                capture_output=True,
                timeout=30,
            )
    except FileNotFoundError:
        missing_peer("git not found: the git peer's repository needs it on PATH")


@pytest.fixture(scope="module")
def peers(tmp_path_factory: pytest.TempPathFactory) -> Peers:
    base = tmp_path_factory.mktemp("policy-peers")
    data = base / "data"
    root = data / "demo" / "project"
    root.mkdir(parents=True)
    (root / "notes.md").write_text("# Notes\n", encoding="utf-8")
    (root / "sample.txt").write_text("hello from the sample file\n", encoding="utf-8")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not for the project\n", encoding="utf-8")
    # A link inside the root that leads out of it.
    (root / "escape").symlink_to(outside, target_is_directory=True)
    repo = base / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("tracked\n", encoding="utf-8")
    return Peers(data=data, root=root, outside=outside, repo=repo, memory_file=base / "memory.jsonl")


Arguments = Callable[[Peers], dict[str, Any]]


def _no_arguments(_: Peers) -> dict[str, Any]:
    return {}


def _in_root(name: str, **extra: Any) -> Arguments:
    return lambda p: {"path": str(p.root / name), **extra}


def _in_repo(**extra: Any) -> Arguments:
    return lambda p: {"repo_path": str(p.repo), **extra}


@dataclass(frozen=True)
class Case:
    key: str
    expected: str
    arguments: Arguments = _no_arguments

    @property
    def id(self) -> str:
        return f"{self.key}->{self.expected}"


CASES = [
    # server-filesystem: writes wait for a reviewer, reads run.
    Case("filesystem__write_file", "review", _in_root("new.txt", content="hello")),
    Case(
        "filesystem__edit_file",
        "review",
        _in_root("notes.md", edits=[{"oldText": "# Notes", "newText": "# Notes (edited)"}]),
    ),
    Case(
        "filesystem__move_file",
        "review",
        lambda p: {"source": str(p.root / "sample.txt"), "destination": str(p.root / "moved.txt")},
    ),
    Case("filesystem__create_directory", "review", _in_root("reports")),
    Case("filesystem__read_text_file", "allow", _in_root("sample.txt")),
    Case("filesystem__read_file", "allow", _in_root("sample.txt")),
    Case("filesystem__read_media_file", "allow", _in_root("sample.txt")),
    Case(
        "filesystem__read_multiple_files",
        "allow",
        lambda p: {"paths": [str(p.root / "sample.txt"), str(p.root / "notes.md")]},
    ),
    Case("filesystem__list_directory", "allow", lambda p: {"path": str(p.root)}),
    Case("filesystem__list_directory_with_sizes", "allow", lambda p: {"path": str(p.root), "sortBy": "size"}),
    Case("filesystem__directory_tree", "allow", lambda p: {"path": str(p.root)}),
    Case("filesystem__search_files", "allow", lambda p: {"path": str(p.root), "pattern": "*.md"}),
    Case("filesystem__get_file_info", "allow", _in_root("notes.md")),
    Case("filesystem__list_allowed_directories", "allow"),
    # server-memory: creating and deleting change the graph; reading it does not.
    Case(
        "memory__create_entities",
        "review",
        lambda _: {"entities": [{"name": "Ada", "entityType": "person", "observations": ["writes code"]}]},
    ),
    Case(
        "memory__create_relations",
        "review",
        lambda _: {"relations": [{"from": "Ada", "to": "Grace", "relationType": "knows"}]},
    ),
    Case(
        "memory__add_observations",
        "review",
        lambda _: {"observations": [{"entityName": "Ada", "contents": ["likes tea"]}]},
    ),
    Case("memory__delete_entities", "review", lambda _: {"entityNames": ["Ada"]}),
    Case(
        "memory__delete_observations",
        "review",
        lambda _: {"deletions": [{"entityName": "Ada", "observations": ["likes tea"]}]},
    ),
    Case(
        "memory__delete_relations",
        "review",
        lambda _: {"relations": [{"from": "Ada", "to": "Grace", "relationType": "knows"}]},
    ),
    Case("memory__read_graph", "allow"),
    Case("memory__search_nodes", "allow", lambda _: {"query": "Ada"}),
    # "open" says nothing about reading (open_door, open_valve): from an untrusted server that
    # is no positive evidence of a read, so it waits, however it is annotated.
    Case("memory__open_nodes", "review", lambda _: {"names": ["Ada"]}),
    # mcp-server-git: anything that moves history or the index waits; looking does not.
    Case("git__git_commit", "review", _in_repo(message="Update the notes")),
    Case("git__git_add", "review", _in_repo(files=["README.md"])),
    Case("git__git_reset", "review", _in_repo()),
    Case("git__git_checkout", "review", _in_repo(branch_name="main")),
    Case("git__git_create_branch", "review", _in_repo(branch_name="feature")),
    Case("git__git_status", "allow", _in_repo()),
    Case("git__git_log", "allow", _in_repo(max_count=5)),
    Case("git__git_diff_unstaged", "allow", _in_repo()),
    Case("git__git_show", "allow", _in_repo(revision="HEAD")),
    # server-everything: plain demo reads run; what it says changes state waits.
    Case("everything__echo", "allow", lambda _: {"message": "hello"}),
    Case("everything__get-sum", "allow", lambda _: {"a": 2, "b": 3}),
    Case("everything__toggle-simulated-logging", "review"),
    Case("everything__gzip-file-as-resource", "review", lambda _: {"name": "notes.gz", "data": "aGVsbG8="}),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_default_policy_decides_each_peer_tool_as_expected(peers: Peers, case: Case) -> None:
    decision = peers.evaluate(case.key, case.arguments(peers))

    assert decision.action == case.expected, (decision.explanation, decision.flags)
    assert decision.args_valid, decision.flags
    if case.expected == "allow":
        assert decision.rule == "low-risk reads"
        assert decision.risk == "low"
        assert decision.flags == []


@pytest.mark.parametrize(
    ("key", "rule", "category"),
    [
        ("filesystem__write_file", "file writes", "writes files"),
        ("memory__delete_entities", "record updates", "updates records"),
        ("git__git_commit", "record updates", "updates records"),
    ],
    ids=["write_file-is-a-file-write", "delete_entities-is-a-record-update", "git_commit-is-a-record-update"],
)
def test_a_reviewed_peer_tool_names_the_rule_and_category_that_sent_it(
    peers: Peers, key: str, rule: str, category: str
) -> None:
    by_key: dict[str, dict[str, Any]] = {
        "filesystem__write_file": {"path": str(peers.root / "new.txt"), "content": "x"},
        "memory__delete_entities": {"entityNames": ["Ada"]},
        "git__git_commit": {"repo_path": str(peers.repo), "message": "m"},
    }

    decision = peers.evaluate(key, by_key[key])

    assert decision.action == "review"
    assert decision.rule == rule
    assert decision.category == category
    assert decision.review.reviewer_roles == ["reviewer", "admin"]


def test_server_everything_get_env_is_reviewed_as_sensitive_although_annotated_read_only(
    peers: Peers,
) -> None:
    capability = peers.capability("everything__get-env")

    decision = peers.evaluate("everything__get-env", {})

    assert capability.annotations.get("read_only_hint") is True
    assert decision.action == "review"
    assert "sensitive data" in decision.categories
    flags = {flag.code: flag for flag in decision.flags}
    assert flags["sensitive_data"].severity == "high"
    assert decision.rule == "default"


def test_a_write_that_climbs_out_of_the_root_with_dot_dot_is_denied_naming_the_path_argument(
    peers: Peers,
) -> None:
    decision = peers.evaluate("filesystem__write_file", {"path": "../../etc/passwd", "content": "x"})

    assert decision.action == "deny"
    assert decision.rule == "file writes"
    by_code = {flag.code: flag for flag in decision.flags}
    assert {"path_outside_roots", "path_traversal"} <= set(by_code)
    assert by_code["path_outside_roots"].message.startswith("argument path: '../../etc/passwd'")
    assert by_code["path_traversal"].message.startswith("argument path:")


def test_a_write_through_a_symlink_that_leads_out_of_the_root_is_denied(peers: Peers) -> None:
    through_link = peers.root / "escape" / "secret.txt"

    absolute = peers.evaluate("filesystem__write_file", {"path": str(through_link), "content": "x"})
    relative = peers.evaluate("filesystem__write_file", {"path": "escape/secret.txt", "content": "x"})

    for decision in (absolute, relative):
        assert decision.action == "deny"
        codes = [flag.code for flag in decision.flags]
        assert "path_outside_roots" in codes
        assert "path_traversal" not in codes  # no "..": only the link leads out


def test_a_move_whose_destination_leaves_the_root_is_denied_naming_destination(peers: Peers) -> None:
    decision = peers.evaluate(
        "filesystem__move_file",
        {"source": str(peers.root / "sample.txt"), "destination": str(peers.outside / "stolen.txt")},
    )

    assert decision.action == "deny"
    outside = [flag for flag in decision.flags if flag.code == "path_outside_roots"]
    assert [flag.message.split(":", 1)[0] for flag in outside] == ["argument destination"]


def test_a_write_inside_the_root_is_reviewed_not_denied_and_its_arguments_are_left_as_given(
    peers: Peers,
) -> None:
    arguments = {"path": "reports/summary.md", "content": "# Summary\n"}

    decision = peers.evaluate("filesystem__write_file", arguments)

    assert decision.action == "review"
    assert arguments == {"path": "reports/summary.md", "content": "# Summary\n"}
    assert not [flag for flag in decision.flags if flag.code.startswith("path_")]


def test_reads_outside_the_root_are_left_to_server_filesystem_which_refuses_them(peers: Peers) -> None:
    # The shipped policy confines only writes; reading outside the root is refused by the server.
    secret = peers.root / "escape" / "secret.txt"
    decision = peers.evaluate("filesystem__read_text_file", {"path": str(secret)})

    with SdkMcpClient({"filesystem": peers.target("filesystem")}) as client:
        result = client.call_tool("filesystem", "read_text_file", {"path": str(secret)})

    assert decision.action == "allow"
    assert not result.success
    assert result.error is not None
    assert "not for the project" not in (result.error.message or "")


def test_server_filesystem_create_directory_description_is_not_flagged_as_suspicious(peers: Peers) -> None:
    decision = peers.evaluate("filesystem__create_directory", {"path": str(peers.root / "reports")})

    assert "suspicious_text" not in [flag.code for flag in decision.flags]
