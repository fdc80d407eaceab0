"""Word problems and unit conversions go to a calculator that takes only an expression, with the
expression built where the words fix it exactly: a made-up server (an "abacus" whose one tool,
``work_out``, takes a ``formula``) beside the bundled ones, in memory, through the whole graph.
Nothing here uses the words of any benchmark server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from graph.builder import CompiledGraph
from graph.planner.calculation import expression_in
from graph.planner.word_problems import conversion_expression
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from tests.calculator_server import evaluate
from tests.graphs import memory_graph
from tests.support import ask


def _abacus() -> MCPServer:
    server = MCPServer(name="abacus")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def work_out(formula: Annotated[str, Field(description="The math formula to work out.")]) -> str:
        """Works out a formula and returns the number."""
        return f"{evaluate(formula):.6g}"

    return server


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SdkMcpClient]:
    data = Path(tmp_path_factory.mktemp("data"))
    with SdkMcpClient({**build_all(data), "abacus": _abacus()}) as client:
        yield client


graph = memory_graph


@pytest.mark.parametrize(
    ("request_text", "formula", "words", "answer"),
    [
        ("How many metres is 12 feet?", "12*0.3048", "How many metres is 12 feet", "3.6576"),
        ("convert 3 pounds to grams", "3*453.59237", "3 pounds to grams", "1360.78"),
        ("What is 212 °F in Celsius?", "(212-32)*5/9", "212 °F in Celsius", "100"),
        ("how many minutes are in 2.5 days?", "2.5*1440", "how many minutes are in 2.5 days", "3600"),
        ("10 kilometres in miles please", "10/1.609344", "10 kilometres in miles", "6.21371"),
        ("the square root of 729?", "729**0.5", "square root of 729", "27"),
        ("3 to the power of 4", "3**4", "3 to the power of 4", "81"),
        ("what's the mean of 4, 8, 10 and 14?", "(4+8+10+14)/4", "the mean of 4, 8, 10 and 14", "9"),
        ("We owe 1,800 for rent. Split 1,800 between 3 flatmates", "1800/3", "Split 1,800 between 3", "600"),
        ("The taxi fare was 40. How much is a 15% tip?", "40*15/100", "40. How much is a 15% tip", "6"),
        ("remainder when 50 is divided by 6", "50%6", "remainder when 50 is divided by 6", "2"),
        # A division inside a word problem is the problem's, not a division of its own.
        ("what's the remainder of 1234 divided by 7?", "1234%7", "remainder of 1234 divided by 7", "2"),
    ],
)
def test_a_word_problem_or_conversion_goes_to_an_expression_calculator_with_the_expression_stated(
    graph: CompiledGraph, servers: SdkMcpClient, request_text: str, formula: str, words: str, answer: str
) -> None:
    outcome = ask(graph, servers, request_text)

    assert outcome.final_output.status != "answered_without_mcp", outcome.final_output.response
    assert outcome.state["selected_capability"]["key"] == "abacus__work_out"
    assert outcome.state["proposed_arguments"] == {"formula": formula}
    provenance = outcome.state["argument_provenance"]["formula"]
    assert (provenance["kind"], provenance["words"]) == ("stated", words)
    result = servers.call_tool("abacus", "work_out", {"formula": formula})
    assert result.success and result.content[0].text == answer


@pytest.mark.parametrize(
    "request_text",
    [
        "Send 15 dollars to Bob",  # money moves; nothing to compute
        "Convert 50 pounds sterling to yen at today's rate",  # a rate no words fix
        "Convert 2 GB to MB",  # 1000 or 1024: the words do not fix it
    ],
)
def test_no_expression_is_built_where_the_words_do_not_fix_one(request_text: str) -> None:
    assert expression_in(request_text) is None


def test_a_conversion_factor_is_written_as_its_exact_definition() -> None:
    assert conversion_expression("1", "mi", "m") == "1*1609.344"
    assert conversion_expression("1", "ft", "yd") == "1/3"
    assert conversion_expression("1", "kb", "b") is None


@pytest.mark.parametrize(
    "request_text",
    [
        "If a crate holds 12 bottles, how many bottles are in 9 crates?",
        "A train leaves at 60 km per hour with 3 stops. How long does it take?",
    ],
)
def test_a_word_problem_no_rule_puts_in_symbols_chooses_the_calculator_and_asks_for_the_expression(
    graph: CompiledGraph, servers: SdkMcpClient, request_text: str
) -> None:
    outcome = ask(graph, servers, request_text)

    assert outcome.final_output.status == "needs_clarification", outcome.final_output.response
    assert outcome.state["selected_capability"]["key"] == "abacus__work_out"
    assert outcome.final_output.missing_arguments == ["formula"]


@pytest.mark.parametrize(
    ("request_text", "formula"),
    [
        ("¿Cuánto es 90 dividido entre 6?", "90/6"),
        ("Wie viel ist 100 geteilt durch 4?", "100/4"),
        ("Combien font 2,5 kilomètres en mètres ?", "2.5*1000"),
    ],
)
def test_arithmetic_in_another_language_goes_to_the_calculator_with_the_expression_for_review(
    graph: CompiledGraph, servers: SdkMcpClient, request_text: str, formula: str
) -> None:
    outcome = ask(graph, servers, request_text)

    assert outcome.final_output.status != "answered_without_mcp", outcome.final_output.response
    assert outcome.state["selected_capability"]["key"] == "abacus__work_out"
    assert outcome.state["proposed_arguments"] == {"formula": formula}
    # Read through a glossary, not in the operator's own words: a reviewer sees it as derived.
    assert outcome.state["argument_provenance"]["formula"]["kind"] == "derived"


def test_a_decimal_comma_is_never_read_as_its_last_digits() -> None:
    assert expression_in("convert 3,5 km to m") is None
