"""Every Streamlit call that reads its text as Markdown gets untrusted text only made literal,
and every call that shows text plainly gets it with its invisible characters shown.

Streamlit parses Markdown (and its own ``:green-badge[...]`` directives, images, links) in
st.markdown and st.write, in captions, titles and alerts, in toasts, in every widget's label
and help text, in expander, tab, popover and status labels, in radio options and in column
configs. Text from outside (a server's names, descriptions, arguments and results, a request,
a reason, a flag, a person's name) reaches such a call only through gatehouse/web/literal.py.

Where Streamlit shows text plainly (st.text, st.code, st.json, tables, the options of a
picker), an invisible character (a zero-width space, a word joiner, a tag) is drawn as
nothing: untrusted text reaches those through gatehouse/display/visible_text.py, which shows it.

This test reads the source of the pages (app.py, views/, the gatehouse/ modules that draw)
and fails for any such argument it cannot show to be a constant, a number, or text passed
through those helpers (or built only from such parts, through variables and functions of
the same module or constants of another). Where that cannot be seen from the source,
ALLOWED says why the text is safe; it is kept small (empty today).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

# Calls whose first argument (and ``label``/``body``/``text``) Streamlit reads as Markdown.
MARKDOWN_FIRST = {
    "markdown", "caption", "title", "header", "subheader", "warning", "error", "info", "success",
    "toast", "expander", "popover", "status", "spinner", "button", "form_submit_button",
    "download_button", "link_button", "page_link", "checkbox", "toggle", "radio", "selectbox",
    "multiselect", "select_slider", "slider", "text_input", "text_area", "number_input", "date_input",
    "time_input", "datetime_input", "file_uploader", "color_picker", "camera_input", "audio_input",
    "metric", "pills", "segmented_control", "feedback", "Page", "navigation", "update", "progress",
    # st.column_config: a column's label (and help) is Markdown too.
    "Column", "TextColumn", "NumberColumn", "CheckboxColumn", "SelectboxColumn", "DatetimeColumn",
    "DateColumn", "TimeColumn", "ListColumn", "LinkColumn", "ImageColumn", "ProgressColumn",
    "LineChartColumn", "BarChartColumn", "AreaChartColumn", "JsonColumn", "MultiselectColumn",
}  # fmt: skip
MARKDOWN_KEYWORDS = {"body", "label", "help", "text", "title", "caption", "captions"}
# Every positional argument is Markdown: st.write's, and st.tabs' labels.
MARKDOWN_ALL = {"write", "tabs"}
# Widgets whose options (and what format_func makes of them) are Markdown.
MARKDOWN_OPTIONS = {"radio", "pills", "segmented_control"}
# st.progress's first argument is its value; its text is a keyword.
FIRST_NOT_TEXT = {"progress", "navigation", "update"}

# What calls are made on that is not Streamlit: loggers, streams, the secrets redactor, json.
NOT_STREAMLIT = {"log", "logger", "_log", "LOG", "logging", "sys", "secrets", "json"}

# Calls that show their first argument as plain text (no Markdown), and the pickers whose
# options (or what format_func makes of them) are plain text: an invisible character in them
# is drawn as nothing, so untrusted text reaches them through gatehouse/display/visible_text.py.
PLAIN_FIRST = {"text", "code", "json", "dataframe", "table", "data_editor"}
PLAIN_OPTIONS = {"selectbox", "multiselect", "select_slider"}
# Functions whose result shows every invisible character (markdown_literal does too).
VISIBLE_HELPERS = {"visible", "visible_in", "markdown_literal", "name_literal"}

# Functions whose result is Markdown that shows its input literally.
LITERAL_HELPERS = {"markdown_literal", "name_literal"}
# Functions returning a number (a number is never markup).
NUMBERS = {"len", "int", "round", "sum", "min", "max"}
_NUMERIC_SPEC = "bcdeEfFgGnoxX%"

# (file, the call's line as written): text the scan cannot see is safe, each with its reason.
ALLOWED: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Unsafe:
    where: str
    call: str
    argument: str

    def __str__(self) -> str:
        return f"{self.where}: {self.call}(... {self.argument} ...)"


class Module:
    """One source file: its scopes' bindings, and the modules it imports names from."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        self.parents: dict[ast.AST, ast.AST] = {
            child: parent for parent in ast.walk(self.tree) for child in ast.iter_child_nodes(parent)
        }

    def scope_of(self, node: ast.AST) -> ast.AST:
        parent = self.parents.get(node)
        while parent is not None and not isinstance(
            parent, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.Module
        ):
            parent = self.parents.get(parent)
        return parent or self.tree

    def bindings(self, scope: ast.AST, name: str) -> list[ast.expr | None]:
        """What ``name`` is bound to in ``scope`` (None: something not an expression, such as
        a parameter, a loop variable or an import from outside the project). Empty when the
        scope does not bind it."""
        found: list[ast.expr | None] = []
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            arguments = scope.args
            parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            parameters += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
            if any(parameter.arg == name for parameter in parameters):
                found.append(None)
        for node in _own_nodes(scope):
            found.extend(self._bound(node, name))
        return found

    def _bound(self, node: ast.AST, name: str) -> list[ast.expr | None]:
        if isinstance(node, ast.Assign) and any(_names(target, name) for target in node.targets):
            return [node.value]  # unpacked from a tuple: the whole tuple must be safe
        if isinstance(node, ast.AnnAssign | ast.AugAssign) and _names(node.target, name):
            return [node.value]
        if isinstance(node, ast.For | ast.comprehension) and _names(node.target, name):
            return [_element_of(node.target, node.iter, name)]
        if (
            isinstance(node, ast.withitem)
            and node.optional_vars is not None
            and _names(node.optional_vars, name)
        ):
            return [None]
        if isinstance(node, ast.NamedExpr) and node.target.id == name:
            return [node.value]
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            return [_imported(node, name)]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return [None]
        return []


def _names(target: ast.expr, name: str) -> bool:
    return any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(target))


def _element_of(target: ast.expr, iterable: ast.expr, name: str) -> ast.expr | None:
    """What a loop binds ``name`` to, as "an element of" the iterable that holds it (for
    ``zip``/``enumerate``, of the argument its part of the target comes from)."""
    if (
        isinstance(target, ast.Tuple)
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
    ):
        sources = {"zip": iterable.args, "enumerate": [ast.Constant(0), *iterable.args[:1]]}.get(
            iterable.func.id
        )
        if sources is not None and len(sources) == len(target.elts):
            part, source = next((e, a) for e, a in zip(target.elts, sources, strict=True) if _names(e, name))
            return _element_of(part, source, name) if isinstance(part, ast.Tuple) else _an_element(source)
    return _an_element(iterable)


def _an_element(iterable: ast.expr) -> ast.expr:
    return ast.Subscript(value=iterable, slice=ast.Constant(0))


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``scope`` outside the functions defined in it."""
    for child in ast.iter_child_nodes(scope):
        yield child
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            yield from _own_nodes(child)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from child.decorator_list


def _imported(node: ast.ImportFrom, name: str) -> ast.expr | None:
    """A project module's module-level constant, as an expression naming it there."""
    if node.module is None or node.level:
        return None
    path = REPO / (node.module.replace(".", "/") + ".py")
    if not path.exists():
        return None
    original = next(a.name for a in node.names if (a.asname or a.name) == name)
    return ast.Attribute(value=ast.Name(id=f"module:{path}"), attr=original)


class Checker:
    """Decides whether an expression can only be constant, numeric or literal Markdown."""

    def __init__(self, helpers: set[str]) -> None:
        self.helpers = helpers
        self.modules: dict[Path, Module] = {}

    def module(self, path: Path) -> Module:
        if path not in self.modules:
            self.modules[path] = Module(path)
        return self.modules[path]

    def safe(self, module: Module, node: ast.expr, seen: frozenset[tuple[Path, str]] = frozenset()) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.JoinedStr):
            return all(self._part(module, value, seen) for value in node.values)
        if isinstance(node, ast.BinOp):
            return self.safe(module, node.left, seen) and self.safe(module, node.right, seen)
        if isinstance(node, ast.UnaryOp):
            return self.safe(module, node.operand, seen)
        if isinstance(node, ast.IfExp):
            return self.safe(module, node.body, seen) and self.safe(module, node.orelse, seen)
        if isinstance(node, ast.BoolOp):
            return all(self.safe(module, value, seen) for value in node.values)
        if isinstance(node, ast.Compare):
            return True  # a bool
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return all(self.safe(module, element, seen) for element in node.elts)
        if isinstance(node, ast.Dict):
            return all(self.safe(module, value, seen) for value in node.values)
        if isinstance(node, ast.Call):
            return self._call(module, node, seen)
        if isinstance(node, ast.Name):
            return node.id in self.helpers or self._name(module, node, seen)
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id.startswith("module:")
        ):
            # A constant of another project module (see _imported).
            other = self.module(Path(node.value.id.removeprefix("module:")))
            return self._bound_safely(other, other.tree, node.attr, seen)
        if isinstance(node, ast.Subscript):
            # A constant table looked up: any of its values.
            return self.safe(module, node.value, seen)
        return False

    def _part(self, module: Module, value: ast.expr, seen: frozenset[tuple[Path, str]]) -> bool:
        if not isinstance(value, ast.FormattedValue):
            return True
        spec = value.format_spec
        if isinstance(spec, ast.JoinedStr) and spec.values:
            last = spec.values[-1]
            # ``{x:.1f}``, ``{n:d}``: only a number formats so (text raises).
            if isinstance(last, ast.Constant) and str(last.value)[-1:] in _NUMERIC_SPEC:
                return True
        return self.safe(module, value.value, seen)

    def _call(self, module: Module, node: ast.Call, seen: frozenset[tuple[Path, str]]) -> bool:
        function = node.func
        if isinstance(function, ast.Name):
            if function.id in self.helpers | NUMBERS:
                return True
            # A function of this module (or imported from the project) whose every return is safe.
            return self._returns_safely(module, function.id, seen)
        if isinstance(function, ast.Attribute):
            # json.dumps(data) of safe data, "sep".join(parts), TABLE.get(key, default).
            if function.attr == "dumps" and getattr(function.value, "id", "") == "json":
                return self.safe(module, node.args[0], seen)
            if function.attr == "join" and isinstance(function.value, ast.Constant):
                return all(self._elements(module, arg, seen) for arg in node.args)
            if function.attr == "get":
                return self.safe(module, function.value, seen) and all(
                    self.safe(module, arg, seen) for arg in node.args[1:]
                )
        return False

    def _elements(self, module: Module, node: ast.expr, seen: frozenset[tuple[Path, str]]) -> bool:
        """The elements of an iterable are safe."""
        if isinstance(node, ast.ListComp | ast.GeneratorExp | ast.SetComp):
            return self.safe(module, node.elt, seen)
        return self.safe(module, node, seen)

    def _name(self, module: Module, node: ast.Name, seen: frozenset[tuple[Path, str]]) -> bool:
        scope = module.scope_of(node)
        while True:
            if module.bindings(scope, node.id):
                return self._bound_safely(module, scope, node.id, seen)
            if isinstance(scope, ast.Module):
                return node.id in {"True", "False", "None"}
            scope = module.scope_of(scope)

    def _bound_safely(
        self, module: Module, scope: ast.AST, name: str, seen: frozenset[tuple[Path, str]]
    ) -> bool:
        key = (module.path, f"{id(scope)}:{name}")
        if key in seen:
            return True  # a cycle adds nothing new
        bound = module.bindings(scope, name)
        # A list built up with append()/extend(): what is added counts too.
        added = [
            arg
            for call in _own_nodes(scope)
            if isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == name
            and call.func.attr in {"append", "extend", "insert"}
            for arg in call.args[-1:]
        ]
        return bool(bound) and all(
            value is not None and self._elements(module, value, seen | {key}) for value in [*bound, *added]
        )

    def _returns_safely(self, module: Module, name: str, seen: frozenset[tuple[Path, str]]) -> bool:
        key = (module.path, f"def:{name}")
        if key in seen:
            return True
        for node in module.bindings(module.tree, name):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                other = self.module(Path(node.value.id.removeprefix("module:")))
                return self._returns_safely(other, node.attr, seen | {key})
        definition = next(
            (n for n in module.tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None
        )
        if definition is None:
            return False
        returns = [n.value for n in ast.walk(definition) if isinstance(n, ast.Return)]
        return bool(returns) and all(
            value is not None and self.safe(module, value, seen | {key}) for value in returns
        )


def _called(call: ast.Call) -> str:
    """The Streamlit function ``call`` calls; any of the alerts for ``getattr(st, kind)(...)``."""
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    if isinstance(call.func, ast.Call) and getattr(call.func.func, "id", "") == "getattr":
        return "markdown"
    return ""


def _markdown_arguments(call: ast.Call) -> Iterator[ast.expr]:
    """The arguments of ``call`` Streamlit reads as Markdown."""
    name = _called(call)
    if name in MARKDOWN_ALL:
        for arg in call.args:
            yield from (arg.elts if isinstance(arg, ast.List | ast.Tuple) else [arg])
    elif name in MARKDOWN_FIRST and call.args and name not in FIRST_NOT_TEXT:
        yield call.args[0]
    if name in MARKDOWN_OPTIONS and len(call.args) > 1:
        yield call.args[1]
    for keyword in call.keywords:
        if keyword.arg == "help" or (
            name in MARKDOWN_FIRST | MARKDOWN_ALL and keyword.arg in MARKDOWN_KEYWORDS
        ):
            yield keyword.value
        if keyword.arg == "format_func" and name in MARKDOWN_OPTIONS:
            yield keyword.value.body if isinstance(keyword.value, ast.Lambda) else keyword.value


def _streamlit_call(call: ast.Call, module: Module) -> bool:
    """A call of st (st.x, st.sidebar.x, st.column_config.X) or of what a st call returned
    (a container, a column, a status box): not of a logger, a file or a stream."""
    function = call.func
    if isinstance(function, ast.Call) and getattr(function.func, "id", "") == "getattr" and function.args:
        return getattr(function.args[0], "id", "") == "st"
    if not isinstance(function, ast.Attribute):
        return False
    root: ast.expr = function.value
    while isinstance(root, ast.Attribute | ast.Call | ast.Subscript):
        if isinstance(root, ast.Attribute) and root.attr in NOT_STREAMLIT:
            return False
        root = root.func if isinstance(root, ast.Call) else root.value
    return isinstance(root, ast.Name) and root.id not in NOT_STREAMLIT


def _position(node: ast.expr) -> tuple[int, int]:
    return node.lineno, node.col_offset


def drawing_sources() -> list[Path]:
    candidates = [
        REPO / "app.py",
        *sorted((REPO / "views").glob("*.py")),
        *sorted((REPO / "gatehouse").rglob("*.py")),
    ]
    return [path for path in candidates if "import streamlit" in path.read_text(encoding="utf-8")]


def _plain_arguments(call: ast.Call) -> Iterator[ast.expr]:
    """The arguments of ``call`` Streamlit shows as plain text."""
    name = _called(call)
    if name in PLAIN_FIRST and call.args:
        yield call.args[0]
    if name not in PLAIN_OPTIONS:
        return
    shown = next((k.value for k in call.keywords if k.arg == "format_func"), None)
    if shown is None:
        yield from call.args[1:2]
        yield from (k.value for k in call.keywords if k.arg == "options")
    else:
        yield shown.body if isinstance(shown, ast.Lambda) else shown


def unsafe_markdown(paths: list[Path]) -> list[Unsafe]:
    return unsafe_calls(paths, _markdown_arguments, LITERAL_HELPERS)


def unshown_invisibles(paths: list[Path]) -> list[Unsafe]:
    return unsafe_calls(paths, _plain_arguments, VISIBLE_HELPERS)


def unsafe_calls(
    paths: list[Path], arguments: Callable[[ast.Call], Iterator[ast.expr]], helpers: set[str]
) -> list[Unsafe]:
    """The arguments (picked by ``arguments``) of Streamlit calls in ``paths`` that are not
    shown to be constant, numeric, or passed through one of ``helpers``."""
    checker = Checker(helpers)
    found: list[Unsafe] = []
    for path in paths:
        module = checker.module(path)
        lines = path.read_text(encoding="utf-8").splitlines()
        calls = sorted((node for node in ast.walk(module.tree) if isinstance(node, ast.Call)), key=_position)
        for call in calls:
            if not _streamlit_call(call, module):
                continue
            for argument in arguments(call):
                if checker.safe(module, argument):
                    continue
                name = str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name
                if (name, lines[call.lineno - 1].strip()) in ALLOWED:
                    continue
                where = f"{name}:{call.lineno}"
                found.append(Unsafe(where, _called(call), ast.unparse(argument)))
    return found


def test_every_markdown_argument_is_constant_or_made_literal() -> None:
    assert [str(unsafe) for unsafe in unsafe_markdown(drawing_sources())] == []


def test_every_plain_text_argument_shows_its_invisible_characters() -> None:
    assert [str(unsafe) for unsafe in unshown_invisibles(drawing_sources())] == []


# A page as the scan sees it: each call in UNSAFE_PAGE hands Streamlit untrusted Markdown.
UNSAFE_PAGE = """
import streamlit as st
from gatehouse.web.literal import markdown_literal

def page(missing, title, key, labels, kind, text, user, rows):
    st.warning(f"Fill in {', '.join(missing)} first.")
    st.button(markdown_literal(title), help=key)
    with st.expander(f"{len(rows)} from {title}"):
        pass
    left, right = st.columns(2)
    left.caption(text)
    getattr(st, kind)(text)
    st.radio("Pick", list(labels), format_func=lambda v: labels[v])  # options and what they show
    st.radio("Pick", [title, "other"])
    st.dataframe(rows, column_config={"a": st.column_config.TextColumn(title)})
    st.tabs(["Form", title])
    st.sidebar.write(f"Signed in as **{user}**")
    status = st.status("Working")
    status.update(label=text)
    facts = ["done"]
    facts.append(title)
    st.markdown(" · ".join(facts))
    for label, _ in [(title, 1)]:
        st.toggle(label)
    st.metric("Pending", 3, help=f"asked by {user}")
"""
UNSAFE_CALLS = [
    "warning", "button", "expander", "caption", "markdown", "radio", "radio", "radio", "TextColumn", "tabs",
    "write", "update", "markdown", "toggle", "metric",
]  # fmt: skip

# ... and none in SAFE_PAGE does.
SAFE_PAGE = """
import streamlit as st
from gatehouse.web.literal import markdown_literal, name_literal
from gatehouse.web.flag_text import flag_markdown

BADGES = {"ok": ":green-badge[done]"}
LABEL = "Approve"

def badge(status):
    return BADGES.get(status) or markdown_literal(status)

def page(missing, title, key, rows, flag, status, seconds):
    st.warning(markdown_literal(f"Fill in {', '.join(missing)} first."))
    st.button(markdown_literal(title), help=name_literal(key))
    with st.expander(f"{len(rows)} from {markdown_literal(title)}"):
        pass
    label = LABEL if rows else f"Approve {markdown_literal(title)}"
    label += " (again)"
    st.button(label)
    st.markdown(f"- {flag_markdown(flag)} {badge(status)} {seconds:d} s, {seconds / 60:.1f} min")
    facts = [badge(status)]
    facts.append(name_literal(key))
    st.markdown(" · ".join(facts))
    st.text(title)
    st.caption("The route: " + " → ".join(name_literal(node) for node in missing))
"""


def _scanned(tmp_path: Path, source: str) -> list[Unsafe]:
    page = tmp_path / "page.py"
    page.write_text(source, encoding="utf-8")
    return unsafe_markdown([page])


def test_the_scan_finds_untrusted_text_in_every_kind_of_markdown_argument(tmp_path: Path) -> None:
    assert [unsafe.call for unsafe in _scanned(tmp_path, UNSAFE_PAGE)] == UNSAFE_CALLS


def test_the_scan_accepts_constants_numbers_and_text_made_literal(tmp_path: Path) -> None:
    assert _scanned(tmp_path, SAFE_PAGE) == []


PLAIN_PAGE = """
import json
import streamlit as st
from gatehouse.display.visible_text import visible, visible_in

def page(names, rows, diff, labels, title, app):
    st.selectbox("Name", names)
    st.multiselect("Names", names, format_func=lambda v: labels[v])
    st.dataframe(rows)
    st.code(diff)
    st.text(app.secrets.text(title))
    st.selectbox("Name", names, format_func=visible)
    st.dataframe(visible_in(rows))
    st.code(json.dumps(visible_in(rows)))
    st.text(visible(app.secrets.text(title)))
"""


def test_the_scan_finds_plain_text_that_would_hide_invisible_characters(tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text(PLAIN_PAGE, encoding="utf-8")

    assert [unsafe.call for unsafe in unshown_invisibles([page])] == [
        "selectbox", "multiselect", "dataframe", "code", "text",
    ]  # fmt: skip
