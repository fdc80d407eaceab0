"""The pages reach the system only through the services: app.py and views/*.py import the
services (through gatehouse/web/page.py), the helpers pages draw with, the services' data
types and the errors' hierarchy, never the graph, the MCP side, the storage or the wiring.

Every import counts, at module level or inside a function; an import under ``if
TYPE_CHECKING:`` is for annotations only and runs nothing, so it is allowed."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "app.py", *(ROOT / "views").glob("*.py")])

# What a page must not import (a prefix matches itself and its children): the layers under
# the services, the SDKs they wrap, and the composition root that builds them.
NEVER = (
    "graph",
    "mcp_host",
    "storage",
    "servers",
    "langgraph",
    "mcp",
    "gatehouse.wiring",
    "gatehouse.read_only",
    "gatehouse.cli",
)
# ... except the one module holding the errors' hierarchy, which every layer's errors derive
# from: a page catches them by family.
ALLOWED = ("mcp_host.reported",)


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    """The ids of the import nodes inside ``if TYPE_CHECKING:`` blocks."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for child in node.body:
                inside.update(id(n) for n in ast.walk(child))
    return inside


def imported(source: str) -> Iterator[str]:
    tree = ast.parse(source)
    annotations_only = _type_checking_blocks(tree)
    for node in ast.walk(tree):
        if id(node) in annotations_only:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            # `from graph import runner` imports graph.runner: count each name as a module too.
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def _matches(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def breaks(name: str) -> bool:
    return _matches(name, NEVER) and not _matches(name, ALLOWED)


@pytest.mark.parametrize("page", PAGES, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_page_imports_the_services_and_helpers_never_the_layers_under_them(page: Path) -> None:
    found = sorted({name for name in imported(page.read_text(encoding="utf-8")) if breaks(name)})
    assert found == [], f"{page.relative_to(ROOT)} reaches past the services: {found}"


def test_the_check_sees_imports_inside_functions_and_skips_annotations_only() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from graph.state import EffectBinding\n"
        "def draw():\n    from graph.trace import trace_steps\n    import mcp_host.sdk_client\n"
        "from mcp_host.reported import ReportedError\n"
        "from gatehouse import wiring\n"
    )
    assert sorted({name for name in imported(source) if breaks(name)}) == [
        "gatehouse.wiring",
        "graph.trace",
        "graph.trace.trace_steps",
        "mcp_host.sdk_client",
    ]


def test_every_page_is_checked() -> None:
    assert ROOT / "app.py" in PAGES
    assert {path.name for path in PAGES} >= {
        "chat.py",
        "review_queue.py",
        "servers.py",
        "traces.py",
        "policy.py",
    }
