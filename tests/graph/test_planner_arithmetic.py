"""Arithmetic and unit conversions go to a server's calculator, with the expression read from
the request: a real calculator MCP server (tests/calculator_server.py) beside the bundled ones,
in memory, through the whole graph."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graph.builder import CompiledGraph
from graph.planner.arguments import extract_arguments
from graph.planner.calculation import conversion_in, expression_in
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from tests.calculator_server import build_server as build_calculator
from tests.graphs import memory_graph
from tests.support import ask


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SdkMcpClient]:
    data = Path(tmp_path_factory.mktemp("data"))
    with SdkMcpClient({**build_all(data), "calculator": build_calculator()}) as client:
        yield client


graph = memory_graph


@pytest.mark.parametrize(
    ("request_text", "expression", "words", "answer"),
    [
        ("what is 17*23?", "17*23", "17*23", "391"),
        ("2+2?", "2+2", "2+2", "4"),
        ("compute (3+4)*2", "(3+4)*2", "(3+4)*2", "14"),
        ("what's 17 times 23", "17*23", "17 times 23", "391"),
        ("What is 15% of 80?", "80*15/100", "15% of 80", "12"),
        ("How much is 250 divided by 5?", "250/5", "250 divided by 5", "50"),
        ("what's 3 squared?", "3**2", "3 squared", "9"),
        ("multiply 6 by 7", "6*7", "multiply 6 by 7", "42"),
        ("Can you work out 1234 * 5678 for me?", "1234 * 5678", "1234 * 5678", "7.00665e+06"),
        # Thousands separators and the typographer's operators, as a calculator reads them.
        ("what is 1,000 + 250?", "1000 + 250", "1,000 + 250", "1250"),
        ("12×4−6", "12*4-6", "12×4−6", "42"),
    ],
)
def test_an_arithmetic_request_chooses_the_calculator_with_the_expression_as_stated(
    graph: CompiledGraph, servers: SdkMcpClient, request_text: str, expression: str, words: str, answer: str
) -> None:
    outcome = ask(graph, servers, request_text)

    assert outcome.final_output.status != "answered_without_mcp", outcome.final_output.response
    assert outcome.state["selected_capability"]["key"] == "calculator__calculate"
    assert outcome.state["proposed_arguments"] == {"expression": expression}
    provenance = outcome.state["argument_provenance"]["expression"]
    assert (provenance["kind"], provenance["words"]) == ("stated", words)
    # What was proposed is what the server can evaluate, to the right answer.
    result = servers.call_tool("calculator", "calculate", outcome.state["proposed_arguments"])
    assert result.success and result.content[0].text == answer


@pytest.mark.parametrize(
    ("request_text", "arguments", "answer"),
    [
        ("convert 5 miles to km", {"value": 5.0, "from_unit": "mi", "to_unit": "km"}, "8.04672 km"),
        (
            "How many kilometres is 26.2 miles?",
            {"value": 26.2, "from_unit": "mi", "to_unit": "km"},
            "42.1648 km",
        ),
        ("how many feet are in 3 miles?", {"value": 3.0, "from_unit": "mi", "to_unit": "ft"}, "15840 ft"),
    ],
)
def test_a_unit_conversion_chooses_the_converter_with_units_as_its_options(
    graph: CompiledGraph, servers: SdkMcpClient, request_text: str, arguments: dict[str, object], answer: str
) -> None:
    outcome = ask(graph, servers, request_text)

    assert outcome.state["selected_capability"]["key"] == "calculator__convert_units"
    assert outcome.state["proposed_arguments"] == arguments
    assert {p["kind"] for p in outcome.state["argument_provenance"].values()} == {"stated"}
    result = servers.call_tool("calculator", "convert_units", outcome.state["proposed_arguments"])
    assert result.success and result.content[0].text == answer


@pytest.mark.parametrize(
    "request_text", ["List the files in the managed project folder.", "Show ticket 3", "what is 2024-03-01?"]
)
def test_a_calculator_is_not_chosen_for_a_request_with_no_arithmetic(
    graph: CompiledGraph, servers: SdkMcpClient, request_text: str
) -> None:
    outcome = ask(graph, servers, request_text)

    selected = outcome.state.get("selected_capability") or {}
    assert selected.get("server") != "calculator"


@pytest.mark.parametrize(
    "text",
    [
        "What happened on 2024-03-01?",
        "pages 10-20 of the report",
        "the meeting on 12/05/2024",
        "read docs/2024/plan.md",
        "release v1.2+3",
        "call 555-1234",
    ],
)
def test_dates_ranges_paths_and_versions_are_not_arithmetic(text: str) -> None:
    assert expression_in(text) is None


def test_a_conversion_needs_two_different_units() -> None:
    assert conversion_in("5 km in km") is None
    found = conversion_in("what is 100 fahrenheit in celsius")
    assert found is not None and (found.amount, found.source, found.target) == (
        100.0,
        "fahrenheit",
        "celsius",
    )


def test_a_regular_expression_parameter_is_not_an_arithmetic_one() -> None:
    pattern = {"pattern": {"type": "string", "description": "A regular expression to match."}}
    tool_schema = {"type": "object", "properties": pattern, "required": ["pattern"]}

    assert extract_arguments(tool_schema, "find lines with 3+4 in them").sources.get("pattern") != (
        "arithmetic in the request (3+4)"
    )


def test_an_identifier_longer_than_a_float_holds_keeps_every_digit() -> None:
    tool_schema = {
        "type": "object",
        "properties": {"order_id": {"type": "integer"}},
        "required": ["order_id"],
    }

    assert extract_arguments(tool_schema, "show order 12345678901234567890").arguments == {
        "order_id": 12345678901234567890
    }
