"""What shape a tool's result has, so a person can read it: records as tables, text as text.

The result is the one in final_output (``result``: the call's content items and its structured
content, already capped at the host's output size). Servers send records in structuredContent
(often also serialised as JSON in a text item, which is the same data again), or only as JSON
text; they send prose as text, and files as images, blobs or links. This module decides which
is which; the views draw it (tables with st.dataframe, text with st.text, never Markdown).
Everything here is data from a server: the caller shows it literally.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from graph.results_view import as_text, records

MAX_ROWS = 200
# A cell holds a line of a record; longer values are clipped (the raw result keeps them).
MAX_CELL_CHARS = 500
# Structured content is searched this deep for lists of records ({"data": {"items": [...]}}).
MAX_DEPTH = 3
# A string this long, or with a line break, is prose: shown as text, not squeezed into a cell.
LONG_TEXT = 200

Scalar = str | int | float | bool | None


@dataclass(frozen=True)
class Table:
    """Records at ``title`` (a path into the result such as ``entries`` or ``data.items``)."""

    title: str
    columns: list[str]
    rows: list[dict[str, Scalar]]
    # Rows beyond the cap, not in ``rows``: the view says how many.
    left_out: int = 0

    @property
    def total(self) -> int:
        return len(self.rows) + self.left_out


@dataclass(frozen=True)
class Text:
    title: str  # "" for a text item of the result; a field's path for prose inside records
    body: str


@dataclass(frozen=True)
class ResultShape:
    tables: list[Table] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)
    # Content that is neither (images, audio, blobs, links), described in a line each.
    others: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.tables or self.texts or self.others)


def shape_of(result: Mapping[str, Any] | None, *, max_rows: int = MAX_ROWS) -> ResultShape:
    """The tables, texts and other items of a result (``{"content": [...], "structured": ...}``)."""
    if not result:
        return ResultShape()
    structured = result.get("structured")
    tables: list[Table] = []
    texts: list[Text] = []
    others: list[str] = []
    if isinstance(structured, dict) and structured and not _wraps_text(structured, result):
        _shape_value(structured, "", tables, texts, max_rows, depth=0)
    for item in result.get("content") or []:
        kind = item.get("type")
        text = item.get("text")
        if kind in {"text", "resource"} and isinstance(text, str):
            parsed = _json_container(text)
            if structured and _repeats(text, parsed, structured):
                continue  # the structured content again, serialised for older clients
            if parsed is not None and not structured:
                # Records sent as JSON text: the same data a structured result would carry.
                _shape_value(parsed, str(item.get("uri") or ""), tables, texts, max_rows, depth=0)
                continue
            texts.append(Text(title=str(item.get("uri") or ""), body=text))
        else:
            others.append(_describe_item(item))
    return ResultShape(tables=tables, texts=texts, others=others)


def hidden_shape(shape: ResultShape, hide: Callable[[Any], Any]) -> ResultShape:
    """The shape with ``hide`` (the secret redactor) applied to every piece a person reads.

    The shape is found from the result as the server sent it and hidden afterwards: hiding a
    secret inside a JSON text first can cut the JSON (``"password is ***,`` loses its closing
    quote), and the text no longer reads as the structured content again, so it would show
    beside the table as a second copy of the same records."""
    return ResultShape(
        tables=[
            replace(table, title=hide(table.title), columns=hide(table.columns), rows=hide(table.rows))
            for table in shape.tables
        ],
        texts=[Text(title=hide(text.title), body=hide(text.body)) for text in shape.texts],
        others=[hide(other) for other in shape.others],
    )


def _repeats(text: str, parsed: Any, structured: Any) -> bool:
    """Whether a text item is the structured content again: all of it, the value the SDK
    wrapped as ``{"result": ...}``, one of its records, or a damaged copy (the structured
    content, taken first under the host's output cap, holds it whole; Raw result shows it)."""
    if parsed is None:
        # JSON text that does not parse beside structured content is a damaged copy of it:
        # cut off by the output cap, or cut open where a secret inside it was hidden.
        return text.lstrip()[:1] in ("{", "[")
    wrapped = (
        structured.get("result") if isinstance(structured, dict) and list(structured) == ["result"] else None
    )
    if parsed in (structured, wrapped):
        return True
    found = records(structured) if isinstance(structured, dict) else None
    listed = wrapped if isinstance(wrapped, list) else found or []
    return isinstance(parsed, dict) and parsed in listed


def _wraps_text(structured: dict[str, Any], result: Mapping[str, Any]) -> bool:
    """A tool that returns a string gets ``{"result": "the string"}`` as structured content
    from the SDK, beside the same string as text: the text says it."""
    wrapped = structured.get("result") if list(structured) == ["result"] else None
    return isinstance(wrapped, str) and any(
        item.get("text") == wrapped for item in result.get("content") or []
    )


def _json_container(text: str) -> dict[str, Any] | list[Any] | None:
    """The object or array a text item holds, if it is exactly one (a number stays text)."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def _shape_value(
    value: Any, path: str, tables: list[Table], texts: list[Text], max_rows: int, *, depth: int
) -> None:
    """Lists become tables; an object's scalar fields become one field/value table beside
    them; long strings become text; nested objects are searched a few levels deep."""
    if isinstance(value, list):
        tables.append(_table(path, value, max_rows))
        return
    if not isinstance(value, dict):
        if _is_prose(value):
            texts.append(Text(title=path, body=value))
        else:
            tables.append(_fields_table(path, [(path or "value", value)]))
        return
    fields: list[tuple[str, Any]] = []
    for key, item in value.items():
        inner = f"{path}.{key}" if path else str(key)
        if isinstance(item, list) or (isinstance(item, dict) and item and depth + 1 < MAX_DEPTH):
            _shape_value(item, inner, tables, texts, max_rows, depth=depth + 1)
        elif _is_prose(item):
            texts.append(Text(title=inner, body=item))
        else:
            fields.append((str(key), item))
    if fields:
        # The facts around the records (a path, a total), or an object's fields: one table,
        # the result's own facts first.
        tables.insert(0 if path == "" else len(tables), _fields_table(path, fields))


def _is_prose(value: Any) -> bool:
    return isinstance(value, str) and ("\n" in value or len(value) > LONG_TEXT)


def _fields_table(path: str, fields: list[tuple[str, Any]]) -> Table:
    rows = [{"field": name, "value": _cell(value)} for name, value in fields]
    return Table(title=path, columns=["field", "value"], rows=_uniform(rows, ["field", "value"]))


def _table(path: str, items: list[Any], max_rows: int) -> Table:
    """Records: one column per key (in the order they first appear). A list of plain values is
    one column; a list mixing records and values has one column of each item as text."""
    shown = items[:max_rows]
    left_out = len(items) - len(shown)
    name = path.rsplit(".", 1)[-1] or "value"
    if shown and all(isinstance(item, dict) for item in shown):
        columns = list(dict.fromkeys(str(key) for item in shown for key in item))
        rows = [{column: _cell(item.get(column)) for column in columns} for item in shown]
    else:
        columns = [name]
        rows = [{name: _cell(item)} for item in shown]
    return Table(title=path, columns=columns, rows=_uniform(rows, columns), left_out=left_out)


def _cell(value: Any) -> Scalar:
    if value is None or isinstance(value, bool | int | float):
        return value
    text = as_text(value)
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def _uniform(rows: list[dict[str, Scalar]], columns: list[str]) -> list[dict[str, Scalar]]:
    """A column holds one kind of value (a table widget needs that): numbers stay numbers
    where the whole column is numbers, and a column mixing kinds is all text."""
    for column in columns:
        kinds = {_kind(row[column]) for row in rows if row[column] is not None}
        if len(kinds) > 1:
            for row in rows:
                value = row[column]
                if value is not None and not isinstance(value, str):
                    row[column] = json.dumps(value)
    return rows


def _kind(value: Scalar) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "text"


def _describe_item(item: Mapping[str, Any]) -> str:
    kind = str(item.get("type") or "item")
    details = [str(d) for d in (item.get("mime_type"), item.get("uri")) if d]
    size = item.get("size")
    if isinstance(size, int) and size > 0:
        details.append(f"{size} bytes")
    return f"{kind} ({', '.join(details)})" if details else kind
