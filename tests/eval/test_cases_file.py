"""The benchmark's cases file itself: its shape and spread, and (with the peer servers) that every
expectation names what the real servers offer and agrees with the shipped policy."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval.case_sets import load_benchmark
from eval.cases import CASES_FILE, Case, load_cases, schema_problems
from eval.expectations import expectation_problems
from eval.facts import CapabilityFacts, capability_facts, policy_status
from eval.workspace import PEER_SERVERS, EvalWorkspace, PeersMissingError, build_workspace
from gatehouse.settings import Settings
from gatehouse.wiring import declared_roots, policy_file, server_pool, servers_config
from mcp_host.manifest import Manifest
from policies.engine import PolicyEngine
from policies.pins import MemoryPinStore
from tests.interop.peers import missing_peer

MIN_CASES = 120
MIN_PER_PEER = 15
MIN_BUNDLED = 30
MIN_WITHOUT_A_RUN = 15


def test_the_cases_file_is_well_formed() -> None:
    data = json.loads(CASES_FILE.read_text(encoding="utf-8"))
    assert schema_problems(data) == []
    assert len(data["cases"]) >= MIN_CASES


def test_the_cases_cover_every_server_and_every_kind_of_answer() -> None:
    cases = load_cases()
    groups = Counter(case.group for case in cases)
    for peer in PEER_SERVERS:
        assert groups[peer] >= MIN_PER_PEER, (peer, groups)
    assert groups["bundled"] >= MIN_BUNDLED, groups
    no_mcp = [c for c in cases if not c.capabilities]
    clarifications = [c for c in cases if c.missing]
    assert len(no_mcp) + len(clarifications) >= MIN_WITHOUT_A_RUN
    assert no_mcp and clarifications
    # Reads beside writes: both kinds are there, and every write expects a review, a refusal or
    # a question, never a call that just runs.
    writes = [c for c in cases if not c.read_only and c.capabilities]
    assert writes and any(c.read_only for c in cases)
    assert all("ok" not in c.statuses for c in writes), [c.id for c in writes if "ok" in c.statuses]


def test_schema_problems_name_the_case_and_the_field() -> None:
    good = {
        "id": "a-case",
        "group": "time",
        "request": "x",
        "capability": "time__now",
        "status": "ok",
        "read_only": True,
    }
    data = {
        "cases": [
            good,
            good | {"id": "Bad Id"},
            good | {"id": "no-group", "group": "weather"},
            good | {"id": "no-status", "status": "done"},
            good | {"id": "bad-key", "capability": "now"},
            good | {"id": "stray", "colour": "red"},
            good | {"id": "unasked", "missing": ["timezone"]},
            good | {"id": "placeholder", "request": "in {home}"},
            good | {"id": "none-with-args", "capability": None, "arguments": {"a": 1}},
            {k: v for k, v in good.items() if k != "read_only"} | {"id": "no-flag"},
            good,
        ]
    }
    problems = schema_problems(data)
    assert problems == [
        "case Bad Id: id must be lower-case words joined by '-'",
        "case no-group: group must be one of files, everything, memory, time, git, sqlite, calculator, excel, redis, bundled, none",
        "case no-status: status must be one of ok, answered_without_mcp, needs_clarification, needs_review, "
        "rejected, expired, cancelled, error, or a list of them",
        "case bad-key: a capability key is server__name",
        "case stray: unknown field 'colour'",
        "case unasked: missing arguments go with the status needs_clarification",
        "case placeholder: unknown placeholder {home}",
        "case none-with-args: a case that expects no capability expects no arguments",
        "case no-flag: missing field 'read_only'",
        "case no-flag: read_only must be true or false",
        "case a-case: id used more than once",
    ]


def test_placeholders_are_filled_in_requests_and_arguments() -> None:
    case = Case(
        id="x",
        group="git",
        request="Show the log of {repo}",
        capabilities=("git__git_log",),
        statuses=("ok",),
        read_only=True,
        arguments={"repo_path": "{repo}", "paths": ["{files_root}/a"]},
    )
    filled = case.filled({"repo": "/r", "files_root": "/f"})
    assert filled.request == "Show the log of /r"
    assert filled.arguments == {"repo_path": "/r", "paths": ["/f/a"]}


# -- against the real servers ----------------------------------------------------------------


class _Offered:
    def __init__(self, workspace: EvalWorkspace, manifest: Manifest, engine: PolicyEngine) -> None:
        self.workspace = workspace
        self.manifest = manifest
        self.engine = engine
        self.facts: dict[str, CapabilityFacts] = capability_facts(manifest, engine)


@pytest.fixture(scope="module")
def offered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Offered]:
    """What the benchmark's nineteen servers (the batches' eight included) offer, discovered through
    Gatehouse's own host."""
    root = tmp_path_factory.mktemp("eval")
    try:
        workspace = build_workspace(root, batch_servers=True, document_servers=True, desk_servers=True)
    except PeersMissingError as exc:
        missing_peer(str(exc))
    saved = os.environ.get("GATEHOUSE_DATA")
    os.environ["GATEHOUSE_DATA"] = str(workspace.data_dir)
    try:
        settings = Settings.resolve(db=str(workspace.db_path), servers=str(workspace.servers_file))
        # Each server held to the roots its entry gives it, as `gatehouse ask` holds it.
        roots = declared_roots(servers_config(settings))
        engine = PolicyEngine(policy_file(settings), pins=MemoryPinStore(), declared_roots=roots)
        with server_pool(settings) as pool:
            manifest = pool.discover()
        assert manifest.problems() == []
        yield _Offered(workspace, manifest, engine)
    finally:
        if saved is None:
            os.environ.pop("GATEHOUSE_DATA", None)
        else:
            os.environ["GATEHOUSE_DATA"] = saved


def _cases(offered: _Offered) -> list[Case]:
    return [case.filled(offered.workspace.placeholders) for case in load_benchmark().cases]


@pytest.mark.peers
@pytest.mark.processes
def test_every_expected_capability_is_offered_with_the_arguments_named(offered: _Offered) -> None:
    problems = []
    for case in _cases(offered):
        for key in case.capabilities:
            capability = offered.manifest.find(key)
            if capability is None:
                problems.append(f"{case.id}: no server offers {key}")
                continue
            if len(case.capabilities) == 1:
                unknown = set(case.arguments) - set(capability.properties)
                problems += [f"{case.id}: {key} has no argument {name}" for name in sorted(unknown)]
            not_required = set(case.missing) - set(capability.required_arguments)
            problems += [f"{case.id}: {name} is not required by {key}" for name in sorted(not_required)]
    assert problems == []


@pytest.mark.peers
@pytest.mark.processes
def test_the_check_every_run_makes_before_asking_leaves_no_benchmark_case_unscored(offered: _Offered) -> None:
    """`make eval` and `gatehouse eval FILE` leave out of the figures a case naming what no server
    offers (eval/expectations.py): the benchmark's cases all pass it, so its figures count them all."""
    problems = [
        f"{case.id}: {problem}"
        for case in _cases(offered)
        for problem in expectation_problems(case, offered.manifest)
    ]
    assert problems == []


@pytest.mark.peers
@pytest.mark.processes
def test_no_read_only_case_expects_a_capability_the_policy_rates_as_acting(offered: _Offered) -> None:
    """An unannotated read (a third-party server's `list_tables`) may be expected: it stays at the
    MCP defaults, which the gate treats as acting, but nothing in it says it acts."""
    wrong = [
        f"{case.id}: {key} ({offered.facts[key].why})"
        for case in _cases(offered)
        if case.read_only
        for key in case.capabilities
        if key in offered.facts and offered.facts[key].rated_acting
    ]
    assert wrong == []


@pytest.mark.peers
@pytest.mark.processes
def test_every_write_case_expects_a_side_effecting_capability(offered: _Offered) -> None:
    """The flag means what it says the other way round too: a case marked as changing something
    expects a capability the host rates as acting."""
    reads = [
        f"{case.id}: {key}"
        for case in _cases(offered)
        if not case.read_only
        for key in case.capabilities
        if key in offered.facts and not offered.facts[key].side_effecting
    ]
    assert reads == []


@pytest.mark.peers
@pytest.mark.processes
def test_expected_statuses_are_what_the_shipped_policy_gives(offered: _Offered) -> None:
    """For every case whose expected arguments hold all the capability requires: the status the
    policy gives that call is one the case accepts (a clarification case: needs_clarification)."""
    disagreements = []
    checked = 0
    for case in _cases(offered):
        arguments = {
            name: value["one_of"][0] if isinstance(value, dict) else value
            for name, value in case.arguments.items()
        }
        for key in case.capabilities:
            capability = offered.manifest.find(key)
            if capability is None:
                continue
            if case.missing:
                expected = "needs_clarification"
            elif all(name in arguments for name in capability.required_arguments):
                expected = policy_status(offered.engine, capability, arguments)
            else:
                continue  # the arguments are structured (an array of objects): not stated verbatim
            checked += 1
            if expected not in case.statuses:
                disagreements.append(
                    f"{case.id}: {key} gets {expected}, the case expects {list(case.statuses)}"
                )
    assert disagreements == []
    assert checked >= MIN_CASES - 20


@pytest.mark.peers
@pytest.mark.processes
def test_the_servers_file_names_the_five_peers_and_the_bundled_servers(offered: _Offered) -> None:
    servers = json.loads(Path(offered.workspace.servers_file).read_text(encoding="utf-8"))["mcpServers"]
    assert set(PEER_SERVERS) <= set(servers)
    assert {"filesystem", "tickets", "email", "greeter", "prompts", "documents"} <= set(servers)
    assert set(offered.manifest.server_names()) == set(servers)
