"""Arithmetic an operator states in English words goes to a calculator whose one tool takes an
expression, with the words put in symbols: number words (twelve, forty-two, one hundred and
five, a dozen, half, twice), numerals with thousands separators, percentages, splits, sums and
products of two numbers, powers, unit counts and conversions with exact factors. And requests
whose numbers are not arithmetic (dates, times of day, versions, line and row ranges, limits,
money, bytes) never become an expression.

The requests were written for this module before the planner's arithmetic was made
compositional, as phrasings an operator might type; none comes from a benchmark case. A made-up
calculator (one tool, ``calculate(expression)``, worded like PyPI's mcp-server-calculator) and a
made-up job runner with a timeout parameter sit beside the bundled servers, in memory, through
the whole graph."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from graph.builder import CompiledGraph
from graph.planner.in_digits import in_digits
from graph.planner.quantities import spoken_numbers
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from tests.calculator_server import evaluate
from tests.graphs import memory_graph
from tests.support import ask

CALCULATE = "calculator__calculate"


def _calculator() -> MCPServer:
    server = MCPServer(name="calculator")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    def calculate(expression: Annotated[str, Field(description="The expression to evaluate.")]) -> str:
        """Calculates/evaluates the given expression."""
        return f"{evaluate(expression):.10g}"

    return server


def _jobs() -> MCPServer:
    """A tool whose number argument is a duration in seconds: "30 seconds" is its argument."""
    server = MCPServer(name="jobs")

    @server.tool()
    def set_timeout(
        seconds: Annotated[int, Field(description="Timeout for background jobs, in seconds.")],
    ) -> str:
        """Sets the timeout of background jobs."""
        return f"timeout {seconds}s"

    return server


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SdkMcpClient]:
    data = Path(tmp_path_factory.mktemp("data"))
    with SdkMcpClient({**build_all(data), "calculator": _calculator(), "jobs": _jobs()}) as client:
        yield client


graph = memory_graph


# Each request, the spellings of the expression that say exactly what it asks, and its value.
ARITHMETIC: list[tuple[str, set[str], float]] = [
    # Number words and numerals with thousands separators.
    ("What's twelve percent of 48,000?", {"48000*12/100"}, 5760),
    ("what is forty-two times seventeen", {"42*17"}, 714),
    ("one hundred and five divided by seven", {"105/7"}, 15),
    ("What's a dozen times 15?", {"12*15"}, 180),
    ("What's a hundred divided by eight?", {"100/8"}, 12.5),
    ("three thousand two hundred plus nine hundred", {"3200+900"}, 4100),
    ("twenty minus eight plus three", {"20-8+3"}, 15),
    ("what is 7.5 multiplied by 12", {"7.5*12"}, 90),
    ("what's 3,600 over 48?", {"3600/48"}, 75),
    # Fractions and multiples said as words.
    ("what is half of 365", {"365/2", "365*0.5", "0.5*365"}, 182.5),
    ("what's a quarter of 1,000?", {"1000/4", "1000*0.25", "0.25*1000"}, 250),
    ("what is double 4,250?", {"2*4250", "4250*2"}, 8500),
    ("what's triple 85", {"3*85", "85*3"}, 255),
    ("what is twice 19.5", {"2*19.5", "19.5*2"}, 39),
    # Sums, products, differences and quotients of two numbers.
    ("what's the sum of 1,200 and 345?", {"1200+345"}, 1545),
    ("give me the product of six and nine", {"6*9"}, 54),
    ("what is the difference between 900 and 275", {"900-275"}, 625),
    ("what's the quotient of 144 and 12", {"144/12"}, 12),
    # Powers.
    ("what is eleven squared", {"11**2", "11^2"}, 121),
    ("five cubed?", {"5**3", "5^3"}, 125),
    ("two to the power of ten", {"2**10", "2^10"}, 1024),
    # Percentages.
    ("what is 25 per cent of 640", {"640*25/100"}, 160),
    ("what is 17.5% of 2,000", {"2000*17.5/100"}, 350),
    ("What percentage of 80 is 20?", {"20/80*100", "20*100/80", "100*20/80"}, 25),
    ("what percent is 45 of 180", {"45/180*100", "45*100/180", "100*45/180"}, 25),
    # Splits.
    ("If four of us split a 1,250 euro bill, how much does each pay?", {"1250/4"}, 312.5),
    ("How much does each get if 300 dollars is shared among 6 friends?", {"300/6"}, 50),
    ("Divide 2,400 among five teams, how much does each team get?", {"2400/5"}, 480),
    ("if 5 of us share 230 equally, how much each?", {"230/5"}, 46),
    # Rates.
    ("At 45 per hour, how much is 8 hours of work?", {"45*8", "8*45"}, 360),
    # Unit counts and conversions with exact factors.
    (
        "how many seconds are there in a week",
        {"604800", "1*604800", "7*86400", "1*7*86400", "7*24*60*60", "60*60*24*7"},
        604800,
    ),
    ("how many hours are in three days?", {"3*24"}, 72),
    ("how many grams are in 2.5 kilograms", {"2.5*1000"}, 2500),
    ("how many millilitres in two litres", {"2*1000"}, 2000),
    ("how many centimetres are there in six feet", {"6*30.48"}, 182.88),
    ("what is 5 miles in kilometres", {"5*1.609344"}, 8.04672),
    ("what's 8 km in miles?", {"8/1.609344"}, 8 / 1.609344),
    ("30 degrees Celsius is how much in Fahrenheit?", {"30*9/5+32", "(30*9/5)+32", "30*1.8+32"}, 86),
    ("what is -40 degrees Celsius in Fahrenheit", {"-40*9/5+32", "(-40*9/5)+32", "-40*1.8+32"}, -40),
]


@pytest.mark.parametrize(("request_text", "expressions", "value"), ARITHMETIC)
def test_arithmetic_in_words_goes_to_the_calculator_with_the_expression_in_symbols(
    graph: CompiledGraph, servers: SdkMcpClient, request_text: str, expressions: set[str], value: float
) -> None:
    outcome = ask(graph, servers, request_text)

    assert outcome.final_output.status != "answered_without_mcp", outcome.final_output.response
    assert outcome.state["selected_capability"]["key"] == CALCULATE
    expression = outcome.state["proposed_arguments"].get("expression")
    assert expression in expressions
    # The operator's words that fix it, a span of the request a reviewer can find.
    provenance = outcome.state["argument_provenance"]["expression"]
    assert provenance["kind"] == "stated"
    assert provenance["words"] in request_text
    assert math.isclose(evaluate(expression), value, rel_tol=1e-9)


# Numbers that are not arithmetic: another tool's arguments, dates, times, versions, ids, ranges,
# money (a rate no words fix) and bytes (1000 or 1024).
NOT_ARITHMETIC = [
    "show lines 8 to 12 of notes.md",
    "list the 3 newest files",
    "show me the top 5 tickets",
    "set the timeout to 30 seconds",
    "what changed in version 2.0.1?",
    "what time is it in Tokyo",
    "what is 100 USD in EUR?",
    "how many GB is 5000 MB",
    "find emails from 2026-03-01 to 2026-03-15",
    "read cells A1:B5 of budget.xlsx",
    "show rows 3 to 5 of orders.csv",
    "search tickets for login bug, limit 10",
    "open ticket 4521",
    "how many tickets are open?",
    "how much is 50 pounds in dollars?",
]


@pytest.mark.parametrize("request_text", NOT_ARITHMETIC)
def test_numbers_that_are_not_arithmetic_never_go_to_the_calculator(
    graph: CompiledGraph, servers: SdkMcpClient, request_text: str
) -> None:
    outcome = ask(graph, servers, request_text)

    selected = outcome.state.get("selected_capability") or {}
    assert selected.get("key") != CALCULATE, outcome.state.get("proposed_arguments")


@pytest.mark.parametrize(
    ("words", "numbers"),
    [
        ("one hundred and five", ["105"]),
        ("three thousand two hundred", ["3200"]),
        ("twelve hundred", ["1200"]),
        ("a dozen, two dozen and half a dozen", ["12", "24", "6"]),
        ("1.5 million", ["1500000"]),
        # "and" joins a number only after a hundred, a thousand or a million.
        ("six and nine", ["6", "9"]),
        ("five six", ["5", "6"]),
        ("nineteen eighty-four", ["19", "84"]),
        ("a man and a dog", []),
        ("hundreds of files", []),
    ],
)
def test_numbers_in_words_are_read_as_english_writes_them(words: str, numbers: list[str]) -> None:
    assert [n.digits for n in spoken_numbers(words)] == numbers


def test_what_a_rule_reads_in_digits_maps_back_to_the_requests_own_words() -> None:
    said = in_digits("If four of us split a $1,250 bill, how much each?")

    assert said.text == "If 4 of us split a 1,250 bill, how much each?"
    start = said.text.index("4 of us")
    end = said.text.index(" bill")
    assert said.words(start, end) == "four of us split a $1,250"
