"""Every exception the product packages define descends from GatehouseError and is drawn in the
tree of mcp_host/reported.py's docstring, under a base it has and with the module it lives in:
a new exception that is not placed there fails here."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import mcp_host.reported as tree_module
from mcp_host.reported import EXIT_USAGE, GatehouseError, ReportedError

PACKAGES = (
    "eval",
    "gatehouse",
    "graph",
    "mcp_host",
    "policies",
    "reviews",
    "servers",
    "storage",
    "telemetry",
)
# A tree line: its branch characters, the class's name, then its module or its description.
_LINE = re.compile(r"^(?P<branch>[ │├└─]*)(?P<name>_?[A-Z]\w*)\s{2,}(?P<rest>.*)$")
_MODULE = re.compile(r"^(?P<path>[\w/]+\.py)\b")
# Modules that do their work when imported: a command (`python -m`), and the graph `langgraph dev`
# imports, which opens the configured database and starts the configured servers. Importing them
# here would do that at collection, in every pytest worker at once. Their source is read instead.
RUN_ON_IMPORT = ("gatehouse.langgraph_server",)


@dataclass(frozen=True)
class Drawn:
    name: str
    parent: str | None
    path: str | None  # the module a concrete class lives in (None: a base defined in the tree's module)


def drawn_tree(docstring: str) -> list[Drawn]:
    """The tree's lines, each with the class drawn one level up from it."""
    # The docstring's only indented lines are the tree's.
    lines = [line[4:] for line in docstring.splitlines() if line.startswith("    ") and line.strip()]
    drawn: list[Drawn] = []
    stack: list[str] = []
    for line in lines:
        match = _LINE.match(line)
        assert match, f"not a line of the tree: {line!r}"
        depth = len(match["branch"]) // 4
        del stack[depth:]
        module = _MODULE.match(match["rest"])
        drawn.append(Drawn(match["name"], stack[-1] if stack else None, module["path"] if module else None))
        stack.append(match["name"])
    return drawn


def product_exceptions() -> list[type[BaseException]]:
    """Every exception class defined at the top of a module of the product packages."""
    found: list[type[BaseException]] = []
    for package in PACKAGES:
        root = importlib.import_module(package)
        names = [package] + [info.name for info in pkgutil.walk_packages(root.__path__, f"{package}.")]
        for name in names:
            if name.endswith("__main__") or name in RUN_ON_IMPORT:
                continue
            module = importlib.import_module(name)
            found += [
                value
                for value in vars(module).values()
                if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name
            ]
    return found


def classes_defined_in(module_name: str) -> list[str]:
    """The classes a module's source defines, read without importing it."""
    source = Path(module_name.replace(".", "/") + ".py").read_text(encoding="utf-8")
    return [node.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ClassDef)]


TREE = drawn_tree(tree_module.__doc__ or "")
BY_NAME = {entry.name: entry for entry in TREE}
EXCEPTIONS = product_exceptions()


def _path(cls: type[BaseException]) -> str:
    return cls.__module__.replace(".", "/") + ".py"


def test_the_tree_draws_each_class_once_from_one_root() -> None:
    assert [entry.name for entry in TREE if entry.parent is None] == ["GatehouseError"]
    assert len(BY_NAME) == len(TREE)


@pytest.mark.parametrize("cls", EXCEPTIONS, ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_every_exception_is_a_gatehouse_error_drawn_under_a_base_it_has(cls: type[BaseException]) -> None:
    assert issubclass(cls, GatehouseError), f"{cls.__qualname__} ({_path(cls)}) derives from no family"
    entry = BY_NAME.get(cls.__name__)
    assert entry is not None, f"{cls.__qualname__} ({_path(cls)}) is not drawn in mcp_host/reported.py"
    expected = None if cls.__module__ == tree_module.__name__ else _path(cls)
    assert entry.path == expected, f"{cls.__qualname__} is drawn in {entry.path}, lives in {_path(cls)}"
    if entry.parent is not None:
        assert entry.parent in {base.__name__ for base in cls.__mro__[1:]}


def test_every_class_drawn_exists() -> None:
    defined = {cls.__name__ for cls in EXCEPTIONS}
    assert [entry.name for entry in TREE if entry.name not in defined] == []


def test_the_tree_reads_its_lines_depth_and_module() -> None:
    drawn = drawn_tree(
        "Doc.\n\n    GatehouseError   root\n    ├── AError        a family\n"
        "    │   └── BError    pkg/b.py (also ValueError)\n    └── CError        pkg/c.py\n"
    )
    assert drawn == [
        Drawn("GatehouseError", None, None),
        Drawn("AError", "GatehouseError", None),
        Drawn("BError", "AError", "pkg/b.py"),
        Drawn("CError", "GatehouseError", "pkg/c.py"),
    ]


def test_an_error_for_a_person_exits_2_or_3_whatever_its_family() -> None:
    """A family sets no exit code: placing an exception under one changes none."""
    reported = [cls for cls in EXCEPTIONS if issubclass(cls, ReportedError)]
    assert reported
    assert {cls.exit_code for cls in reported} <= {EXIT_USAGE, 3}


@pytest.mark.parametrize("module_name", [*RUN_ON_IMPORT, "gatehouse.cli.__main__", "eval.__main__"])
def test_a_module_that_runs_on_import_defines_no_class_the_tree_would_miss(module_name: str) -> None:
    assert classes_defined_in(module_name) == []


def test_collecting_the_exceptions_imports_no_module_that_runs_on_import() -> None:
    import sys

    assert not [name for name in RUN_ON_IMPORT if name in sys.modules]
