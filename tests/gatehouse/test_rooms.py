"""gatehouse/'s rooms keep the import rules their __init__.py docstrings state: the command line
and the pages never import each other, the MCP endpoint (gateway/) imports neither, the text
they show imports nothing of Gatehouse's wiring, Streamlit stays in the pages' room, and the
composition root reaches no front end.

Every import counts, at module level or inside a function (the CLI imports most of what a
command uses when it runs)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GATEHOUSE = ROOT / "gatehouse"
ROOMS = ("cli", "credentials", "display", "gateway", "notifications", "web")

# Per room: the module prefixes it must never import (a prefix matches itself and its children).
NEVER: dict[str, tuple[str, ...]] = {
    "cli": ("gatehouse.web", "streamlit"),
    "web": ("gatehouse.cli", "gatehouse.gateway", "argparse"),
    # The MCP endpoint is a front end of its own: it reaches neither of the others.
    "gateway": ("gatehouse.cli", "gatehouse.web", "streamlit", "argparse"),
    "display": (
        "gatehouse.cli",
        "gatehouse.web",
        "gatehouse.gateway",
        "gatehouse.credentials",
        "gatehouse.notifications",
        "gatehouse.errors",
        "gatehouse.planner_choice",
        "gatehouse.read_only",
        "gatehouse.sampling_model",
        "gatehouse.settings",
        "gatehouse.wiring",
        "streamlit",
        "argparse",
    ),
    "notifications": (
        "gatehouse.cli",
        "gatehouse.web",
        "gatehouse.gateway",
        "gatehouse.credentials",
        "gatehouse.wiring",
        "streamlit",
    ),
    "credentials": ("gatehouse.cli", "gatehouse.web", "gatehouse.gateway", "streamlit"),
    # The composition root (gatehouse/*.py) builds what both front ends use and imports neither.
    "": ("gatehouse.cli", "gatehouse.web", "gatehouse.gateway", "streamlit"),
}


def room_modules(room: str) -> list[Path]:
    folder = GATEHOUSE / room if room else GATEHOUSE
    # __main__.py (`python -m gatehouse`) is the command line's second entry point, not part
    # of the root: it only runs cli.main, as gatehouse/__init__.py says.
    return sorted(path for path in folder.glob("*.py") if path.name != "__main__.py")


def imported(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            # `from gatehouse import web` imports gatehouse.web: count each name as a module too.
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def breaks(name: str, never: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in never)


def test_every_module_of_gatehouse_lives_in_a_room_or_the_root() -> None:
    rooms = {path.parent.name for path in GATEHOUSE.glob("*/__init__.py")}
    assert rooms == set(ROOMS)
    assert not [p for p in GATEHOUSE.glob("*/*/*.py")]  # one level of rooms, no more


@pytest.mark.parametrize("room", [*ROOMS, ""], ids=[*ROOMS, "root"])
def test_a_room_imports_nothing_its_docstring_rules_out(room: str) -> None:
    found = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in room_modules(room)
        for name in imported(path)
        if breaks(name, NEVER[room])
    ]
    assert found == []


def test_the_rule_sees_imports_inside_functions_and_from_the_package(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from gatehouse import web\n    import streamlit as st\n")
    names = set(imported(source))
    assert breaks("gatehouse.web", NEVER["cli"]) and "gatehouse.web" in names
    assert "streamlit" in names
    assert not breaks("gatehouse.webhook", ("gatehouse.web",))
