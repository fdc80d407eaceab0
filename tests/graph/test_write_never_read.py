"""A request that asks for a change is never answered by running a capability that only reads
and reporting ok: the operator is told nothing configured can do it. (Found by trying orders in
verbs no table knows on the bundled servers: "Pin ticket 3" read ticket 3 and said ok.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graph.builder import CompiledGraph
from graph.planner.scoring import rank
from mcp_host.manifest import Capability
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from tests.fakes import FaultInjectingClient
from tests.graphs import memory_graph
from tests.support import ask


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SdkMcpClient]:
    with SdkMcpClient(build_all(Path(tmp_path_factory.mktemp("data")))) as client:
        yield client


@pytest.fixture
def client(servers: SdkMcpClient) -> FaultInjectingClient:
    return FaultInjectingClient(servers)


graph = memory_graph


@pytest.mark.parametrize(
    "request_text",
    [
        "Pin ticket 3",
        "Subscribe me to ticket 3",
        "Reassign ticket 3 to Bob",
        "Bookmark the support handbook",
        "Sign the support handbook",
        # A phrase that sets the scene first: the order comes after its comma.
        "For ticket 3, pin it to the top",
        "In the support handbook, bookmark the triage section",
    ],
)
def test_an_order_to_change_something_runs_no_read_and_says_nothing_configured_can_do_it(
    graph: CompiledGraph, client: FaultInjectingClient, request_text: str
) -> None:
    outcome = ask(graph, client, request_text)

    assert outcome.final_output.status == "answered_without_mcp"
    assert client.calls == []
    assert outcome.final_output.response.startswith("Nothing configured can do that: the request asks to ")
    assert "points needed" not in outcome.final_output.response


@pytest.mark.parametrize(
    ("request_text", "name"),
    [
        ("Read the support handbook document.", "support-handbook"),
        ("Print notes.md", "read_file"),
        ("Open the support handbook", "support-handbook"),
        ("Give me ticket 3", "ticket"),
    ],
)
def test_a_read_said_in_many_verbs_still_runs_the_read(
    graph: CompiledGraph, client: FaultInjectingClient, request_text: str, name: str
) -> None:
    outcome = ask(graph, client, request_text)

    assert outcome.final_output.status == "ok"
    assert outcome.final_output.selected_capability is not None
    assert outcome.final_output.selected_capability.name == name


def tool(name: str, description: str, properties: dict[str, Any], *, read_only: bool = True) -> Capability:
    return Capability(
        key=f"billing__{name}",
        server="billing",
        type="tool",
        name=name,
        description=description,
        input_schema={"type": "object", "properties": properties, "required": list(properties)},
        annotations={"readOnlyHint": read_only},
    )


BILLING = [
    tool(
        "get_invoice",
        "Get one invoice by its number: amount, customer, status.",
        {"invoice_id": {"type": "integer"}},
    ),
    tool("list_invoices", "List the invoices of a customer.", {"customer": {"type": "string"}}),
]


@pytest.mark.parametrize(
    "request_text", ["Cancel invoice 42", "Delete invoice 42", "Archive invoice 42", "Star invoice 42"]
)
def test_a_read_that_names_the_thing_to_change_is_never_above_the_threshold(request_text: str) -> None:
    best = rank(BILLING, request_text, "tool", [])[0]

    assert best.score < 0, best.reasons
    assert any("it only reads" in reason for reason in best.reasons)


def test_a_read_whose_name_or_description_says_the_verb_may_still_serve_it() -> None:
    # "Audit" is a verb no table knows; a read that says it audits is what was asked for.
    auditor = [
        tool(
            "audit_invoice",
            "Audit an invoice: checks its totals and taxes.",
            {"invoice_id": {"type": "integer"}},
        )
    ]

    assert rank(auditor, "Audit invoice 42", "tool", [])[0].score >= 4.0


def test_an_acting_word_after_a_read_verb_is_its_object_and_the_read_may_serve() -> None:
    # "Read the deploy status board": deploy names which board, it orders nothing.
    board = [
        tool("read_status_board", "Read the deploy status board: what shipped and what failed.", {}),
    ]

    assert rank(board, "Read the deploy status board", "tool", [])[0].score >= 4.0


SQLITE = [
    tool("read_query", "Execute a SELECT query on the SQLite database", {"query": {"type": "string", "description": "SELECT SQL query to execute"}}),
    tool("write_query", "Execute an INSERT, UPDATE, or DELETE query on the SQLite database", {"query": {"type": "string", "description": "SQL query to execute"}}, read_only=False),
    tool("describe_table", "Get the schema information for a specific table", {"table_name": {"type": "string", "description": "Name of the table to describe"}}),
]  # fmt: skip


@pytest.mark.parametrize(
    "request_text", ["run SELECT * FROM orders LIMIT 5", "Execute SELECT count(*) FROM orders"]
)
def test_running_a_select_statement_is_a_read_and_goes_to_the_read_query_tool(request_text: str) -> None:
    best = rank(SQLITE, request_text, "tool", [])[0]

    assert best.capability.name == "read_query"
    assert best.score >= 4.0
    assert best.extraction is not None and best.extraction.arguments["query"].startswith(("SELECT", "select"))


@pytest.mark.parametrize(
    "request_text",
    ["Execute INSERT INTO orders VALUES (1, 'x')", "Empty the orders table", "Drop the orders table"],
)
def test_a_statement_or_order_that_changes_data_never_goes_to_a_read(request_text: str) -> None:
    scores = {s.capability.name: s.score for s in rank(SQLITE, request_text, "tool", [])}

    assert scores["read_query"] < 0 and scores["describe_table"] < 0


# A document store's reads, for orders that make a file or change one set in a leading phrase.
DOCUMENTS = [
    Capability(
        key=f"library__{name}",
        server="library",
        type="tool",
        name=name,
        description=description,
        input_schema={"type": "object", "properties": properties, "required": list(properties)},
        annotations={"readOnlyHint": True},
    )
    for name, description, properties in [
        ("get_document", "Get a document's text by its path.", {"path": {"type": "string"}}),
        ("describe_collection", "Describe a collection: its documents and their sizes.", {"name": {"type": "string"}}),
    ]
]  # fmt: skip


@pytest.mark.parametrize(
    "request_text",
    [
        # An order after a path that sets the scene, with no comma.
        "In /srv/library/intro.md change the title from Draft to Final",
        "On /srv/library/faq.md rename the heading to Questions",
        # Exporting or saving into a file makes a file, which no read does.
        "Export the handbook collection to a JSON file",
        "Save the intro document as intro-v2.md",
        "Download the faq collection as a zip",
    ],
)
def test_an_order_to_make_or_change_a_file_is_never_served_by_a_read(request_text: str) -> None:
    for scored in rank(DOCUMENTS, request_text, "tool", []):
        assert scored.score < 0, (scored.capability.name, scored.reasons)


def test_a_verb_after_a_permission_in_a_question_orders_nothing() -> None:
    from graph.planner.actions import request_action

    assert request_action("Which collections is the library allowed to delete?").verbs == ()
    assert request_action("What am I permitted to send from here?").verbs == ()
    # An order stays an order.
    assert request_action("Delete the faq collection").verbs == ("delete",)
