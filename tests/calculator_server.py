"""A calculator MCP server shaped like the ones teams bring (PyPI's mcp-server-calculator offers
``calculate(expression: str)``), plus a unit converter: a real MCPServer for in-memory tests of
the planner on servers it was never tuned on. It evaluates arithmetic with a small AST walker
(no eval), so a test can run what the planner proposed and check the answer."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

_OPERATORS: dict[type[ast.AST], Callable[..., float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
}
# Metres per unit, the converter's whole table: enough for a test, as a real one would have more.
_METRES = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "ft": 0.3048, "mi": 1609.344}


def evaluate(expression: str) -> float:
    """The value of an arithmetic expression of numbers, + - * / % ** and parentheses."""

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](walk(node.operand))
        raise ToolError(f"not arithmetic: {ast.dump(node)[:60]}")

    try:
        tree = ast.parse(expression.replace("^", "**").replace("×", "*").replace("÷", "/"), mode="eval")
    except SyntaxError as exc:
        raise ToolError(f"cannot read the expression {expression!r}") from exc
    return walk(tree.body)


def build_server() -> MCPServer:
    server = MCPServer(name="calculator", instructions="Arithmetic and unit conversions.")
    reads = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

    @server.tool(annotations=reads)
    def calculate(expression: Annotated[str, Field(description="A mathematical expression.")]) -> str:
        """Calculates/evaluates the given expression."""
        return f"{evaluate(expression):g}"

    @server.tool(annotations=reads)
    def convert_units(
        value: float,
        from_unit: Annotated[str, Field(json_schema_extra={"enum": sorted(_METRES)})],
        to_unit: Annotated[str, Field(json_schema_extra={"enum": sorted(_METRES)})],
    ) -> str:
        """Convert a length from one unit of measurement to another."""
        return f"{value * _METRES[from_unit] / _METRES[to_unit]:g} {to_unit}"

    return server
