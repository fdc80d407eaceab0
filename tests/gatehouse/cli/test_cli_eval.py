"""`gatehouse eval FILE`: a team's own cases through `gatehouse ask` on its configured servers
(here the bundled ones, from servers/bundled.mcp.json, started for real) and policy, reported as
`make eval` reports, on a temporary database; a bad file is one line naming the file, the case
and the field, exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_support import Ran, run_cli
from tests.in_process_servers import serve_bundled_in_process

REPO = Path(__file__).resolve().parents[3]
BUNDLED = REPO / "servers" / "bundled.mcp.json"


def _case(
    case_id: str, group: str, request: str, capability: str | None, status: str, **more: Any
) -> dict[str, Any]:
    return {
        "id": case_id,
        "group": group,
        "request": request,
        "capability": capability,
        "status": status,
    } | more


# What the deterministic planner does with each request was seen on the bundled servers; the
# expectations of the last three are written to be broken on purpose.
CASES = [
    _case(
        "read-notes",
        "filesystem",
        "Read notes.md from the project folder",
        "filesystem__read_file",
        "ok",
        read_only=True,
    ),
    _case(
        "save-todo",
        "filesystem",
        "Save a file called todo.md in the project folder with the text 'buy milk'",
        "filesystem__write_file",
        "needs_review",
        read_only=False,
    ),
    _case("sms", "none", "Send an SMS to my mother", None, "answered_without_mcp", read_only=False),
    # Wrong, no invariant: the planner greets, the case expects another tool.
    _case(
        "greet-ada",
        "greeter",
        "Greet Ada",
        "email__send_email",
        "needs_review",
        read_only=True,
        note="wrong on purpose",
    ),
    # A write that the planner answers by listing the folder (a read), with ok.
    _case(
        "list-as-write",
        "filesystem",
        "List the files in the managed project folder.",
        "filesystem__write_file",
        "needs_review",
        read_only=False,
    ),
    # Nothing expected, and the planner runs the listing.
    _case(
        "list-for-nothing",
        "none",
        "what's in the project folder?",
        None,
        "answered_without_mcp",
        read_only=True,
    ),
]


def _eval(tmp_path: Path, cases_file: Path, *more: str, servers: Path = BUNDLED) -> Ran:
    return run_cli(
        "eval",
        str(cases_file),
        "--servers",
        str(servers),
        *more,
        env={
            "GATEHOUSE_DATA": str(tmp_path / "data"),
            # The team's real database: eval must never write to it.
            "GATEHOUSE_DB": str(tmp_path / "real.db"),
            "GATEHOUSE_SERVERS": None,
            "GATEHOUSE_MODEL": None,
            "GATEHOUSE_WEBHOOK_URL": None,
        },
    )


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Ran]:
    """One run of the six cases, as JSON (the bundled servers start once for the module, in
    this process: tests/in_process_servers.py)."""
    root = tmp_path_factory.mktemp("team")
    cases_file = root / "our-cases.json"
    cases_file.write_text(json.dumps({"cases": CASES}), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        serve_bundled_in_process(patch)
        return root, _eval(root, cases_file, "--json")


def test_the_report_counts_right_and_wrong_per_group_and_overall(reported: tuple[Path, Ran]) -> None:
    _, ran = reported
    report = json.loads(ran.stdout)

    right = {case["id"]: case["right"] for case in report["cases"]}
    assert right == {
        "read-notes": True,
        "save-todo": True,
        "sms": True,
        "greet-ada": False,
        "list-as-write": False,
        "list-for-nothing": False,
    }
    assert (report["figures"]["cases"], report["figures"]["right"]) == (6, 3)
    assert report["figures"]["groups"] == {
        "filesystem": {"cases": 3, "right": 2, "accuracy": 2 / 3},
        "greeter": {"cases": 1, "right": 0, "accuracy": 0.0},
        "none": {"cases": 2, "right": 1, "accuracy": 0.5},
    }
    # The file has no batch: its cases are one, named after it, with nothing recorded before.
    assert [(b["id"], b["now"]["right"], b["before_tuning"]) for b in report["batches"]] == [
        ("our-cases", 3, None)
    ]
    assert ran.returncode == 1  # a target missed, as `make eval`


def test_a_write_answered_by_a_read_and_a_run_where_nothing_was_expected_break_the_invariants(
    reported: tuple[Path, Ran],
) -> None:
    _, ran = reported
    report = json.loads(ran.stdout)

    assert report["figures"]["invariants"] == {
        "broken": 2,
        "write_answered_by_read": ["list-as-write"],
        "ran_for_nothing": ["list-for-nothing"],
    }
    assert report["targets_met"]["invariants"] is False
    by_id = {case["id"]: case for case in report["cases"]}
    assert by_id["list-as-write"]["got"]["status"] == "ok"
    assert by_id["list-as-write"]["got"]["capability"] == "filesystem__list_directory"


def test_the_teams_database_is_never_written(reported: tuple[Path, Ran]) -> None:
    root, ran = reported

    assert ran.stdout  # it ran
    assert not (root / "real.db").exists()
    assert not (root / "data" / "gatehouse.db").exists()


def test_a_case_with_an_unknown_group_is_one_line_naming_the_file_the_case_and_the_field(
    tmp_path: Path,
) -> None:
    cases_file = tmp_path / "cases.json"
    cases_file.write_text(
        json.dumps({"cases": [CASES[0], _case("x", "weather", "Rain?", None, "done", read_only=True)]}),
        encoding="utf-8",
    )

    ran = _eval(tmp_path, cases_file)

    assert ran.returncode == 2
    assert ran.stdout == ""
    assert ran.stderr.count("\n") == 1
    assert ran.stderr.startswith(
        f"gatehouse: {cases_file}: case x: group must be one of filesystem, tickets, "
    )
    assert "case x: status must be one of" in ran.stderr
    assert not (tmp_path / "real.db").exists()


def test_a_file_that_is_missing_or_not_json_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = _eval(tmp_path, tmp_path / "nope.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    not_json = _eval(tmp_path, broken)

    assert (missing.returncode, not_json.returncode) == (2, 2)
    assert missing.stderr.startswith(f"gatehouse: {tmp_path / 'nope.json'}: cannot be read: No such file")
    assert not_json.stderr.startswith(f"gatehouse: {broken}: is not JSON: ")
    assert missing.stderr.count("\n") == not_json.stderr.count("\n") == 1


def test_the_help_says_the_database_is_a_temporary_one() -> None:
    ran = run_cli("eval", "--help", env={})

    assert ran.returncode == 0
    assert "temporary" in ran.stdout and "never writes to your database" in " ".join(ran.stdout.split())
    assert "[--db" not in ran.stdout


def test_the_json_report_suggests_examples_for_the_missed_capabilities_only(
    reported: tuple[Path, Ran],
) -> None:
    _, ran = reported
    report = json.loads(ran.stdout)

    # greet-ada and list-as-write expect a capability the servers offer and got another one;
    # sms and list-for-nothing expect nothing, so nothing is taught for them.
    assert [
        (entry["server"], [(c["name"], c["add"], c["cases"]) for c in entry["capabilities"]])
        for entry in report["suggested_examples"]
    ] == [
        (
            "filesystem",
            [("write_file", ["List the files in the managed project folder."], ["list-as-write"])],
        ),
        ("email", [("send_email", ["Greet Ada"], ["greet-ada"])]),
    ]
    assert report["suggested_examples"][1]["snippet"] == (
        '"capabilities": {"send_email": {"examples": ["Greet Ada"]}}'
    )


# Requests the deterministic planner answers without calling anything on the bundled servers
# (seen on them), though each asks to update a ticket; the same request twice (spaced apart
# differently) is taught once, and the one holding a token never.
MISSED = [
    _case(
        "mark-done",
        "tickets",
        "Mark 7 as done, the printer works again",
        "tickets__update_ticket",
        "needs_review",
        read_only=False,
    ),
    _case(
        "wrap-up",
        "tickets",
        "Wrap up number 7, the printer works",
        "tickets__update_ticket",
        "needs_review",
        read_only=False,
    ),
    _case(
        "mark-done-again",
        "tickets",
        "Mark 7 as done,  the printer works again",
        "tickets__update_ticket",
        "needs_review",
        read_only=False,
    ),
    _case(
        "sign-off-with-token",
        "tickets",
        "Sign off 7 for me, my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "tickets__update_ticket",
        "needs_review",
        read_only=False,
    ),
]


def _snippets(report: str) -> dict[str, str]:
    """The closing section's snippets, by server entry, as the admin reads them."""
    lines = report.splitlines()
    found = {}
    for at, line in enumerate(lines):
        if line.startswith("To teach the planner these requests, add to the servers file (server entry"):
            found[line.split('"')[1]] = lines[at + 1].strip()
    return found


def test_the_snippet_eval_suggests_teaches_the_planner_the_requests_it_missed(
    tmp_path: Path, bundled_in_process: None
) -> None:
    cases_file = tmp_path / "our-cases.json"
    cases_file.write_text(json.dumps({"cases": MISSED}), encoding="utf-8")

    before = _eval(tmp_path, cases_file)
    snippets = _snippets(before.stdout)

    assert before.returncode == 1
    assert snippets == {
        "tickets": '"capabilities": {"update_ticket": {"examples": ["Mark 7 as done, the printer works again",'
        ' "Wrap up number 7, the printer works"]}}'
    }
    # The section closes the report.
    assert before.stdout.rstrip().endswith(snippets["tickets"])
    as_data = json.loads(_eval(tmp_path, cases_file, "--json").stdout)
    assert [entry["snippet"] for entry in as_data["suggested_examples"]] == [snippets["tickets"]]

    # The admin pastes it into the tickets entry of (a copy of) the servers file.
    servers = json.loads(BUNDLED.read_text(encoding="utf-8"))
    servers["mcpServers"]["tickets"] |= json.loads("{" + snippets["tickets"] + "}")
    taught = tmp_path / "taught.mcp.json"
    taught.write_text(json.dumps(servers), encoding="utf-8")
    after = json.loads(_eval(tmp_path, cases_file, "--json", servers=taught).stdout)

    right = {case["id"]: case["right"] for case in after["cases"]}
    assert right == {
        "mark-done": True,
        "wrap-up": True,
        "mark-done-again": True,
        "sign-off-with-token": False,
    }
    assert after["suggested_examples"] == []


# A key one letter short and an argument name misspelt: mistakes in the file, not the planner's.
TYPOS = [
    _case(
        "close-3",
        "tickets",
        "Close ticket 3, the customer confirmed the fix",
        "tickets__update_tiket",
        "needs_review",
        read_only=False,
    ),
    _case(
        "close-4",
        "tickets",
        "Close ticket 4, the customer confirmed the fix",
        "tickets__update_ticket",
        "needs_review",
        arguments={"id": 4, "stauts": "closed"},
        read_only=False,
    ),
    CASES[0],
]


def test_an_expectation_no_server_offers_is_the_files_problem_not_the_planners(
    tmp_path: Path, bundled_in_process: None
) -> None:
    cases_file = tmp_path / "our-cases.json"
    cases_file.write_text(json.dumps({"cases": TYPOS}), encoding="utf-8")

    text = _eval(tmp_path, cases_file)
    report = json.loads(_eval(tmp_path, cases_file, "--json").stdout)

    # Said plainly for each case, with the key or the name it most likely meant.
    assert (
        "no configured server offers tickets__update_tiket; did you mean tickets__update_ticket?"
        in text.stdout
    )
    assert "tickets__update_ticket has no argument 'stauts'; did you mean status?" in text.stdout
    assert "wrong capability" not in text.stdout
    by_id = {case["id"]: case for case in report["cases"]}
    assert by_id["close-3"]["scored"] is False and by_id["close-3"]["got"] is None
    assert by_id["close-3"]["file_problems"] == [
        "no configured server offers tickets__update_tiket; did you mean tickets__update_ticket?"
    ]
    assert by_id["close-4"]["scored"] is False
    assert by_id["read-notes"]["scored"] is True and by_id["read-notes"]["right"] is True
    # Not asked, so not in the accuracy; listed, and the run fails until the file is fixed.
    assert (report["figures"]["cases"], report["figures"]["right"]) == (1, 1)
    assert report["figures"]["not_scored"] == ["close-3", "close-4"]
    assert report["targets_met"]["accuracy"] is True
    assert report["targets_met"]["cases_file"] is False
    assert text.returncode == 1
    # Nothing to teach for a key nobody offers.
    assert report["suggested_examples"] == []
