"""Arguments said in a spreadsheet's words, read against any tool's schema: a single cell for a
property described as a cell ("Top-left cell."; "put 2750 into cell D7", "put it at F1"), a row
or column number for a property described as one ("before row 4", "column C" is 3 where A=1),
a sheet named after "on" ("Merge A1:D1 on Q3"), and one value put into one cell for a property
that takes rows of values ("put 2750 into cell D7" is [[2750]]). Each is the operator's own
words in another form; graph/planner/arguments.py calls these after its general rules."""

from __future__ import annotations

import re
from typing import Any

from graph.planner.text import compiled, split_identifier

Reading = tuple[Any, str]

_CELL = r"\$?[A-Z]{1,3}\$?[1-9]\d{0,6}"
# "cell D7", "into D7", "at F1", "in B2": one cell, not the start of a range ("A1:D6").
_ONE_CELL = re.compile(
    rf"\b(?:cell|into|at|in|to)\s+(?:cell\s+)?(?P<cell>{_CELL})(?![\w$:]|\s*(?::|to\s+{_CELL}|through|-\s*{_CELL}))"
)
_ROW = re.compile(r"\brow\s+(?:number\s+)?(?P<n>[1-9]\d{0,6})\b", re.IGNORECASE)
_COLUMN = re.compile(r"\bcolumn\s+(?P<letters>[A-Z]{1,3})\b(?!\d)")


def _describes(name: str, shape: dict[str, Any], word: str) -> bool:
    description = str(shape.get("description") or "").lower()
    return word in split_identifier(name) or bool(compiled(rf"\b{word}\b").search(description))


def one_cell(name: str, shape: dict[str, Any], text: str) -> Reading | None:
    """A single cell the request names, for a string property that takes a cell (not a range)."""
    if not _describes(name, shape, "cell") or _describes(name, shape, "range"):
        return None
    found = _ONE_CELL.search(text)
    if not found:
        return None
    return found.group("cell"), f"the cell named in the request ({found.group('cell')})"


def column_number(letters: str) -> int:
    """A column's letters as its number, A=1 (AA=27)."""
    number = 0
    for letter in letters.upper():
        number = number * 26 + ord(letter) - ord("A") + 1
    return number


def line_number(name: str, shape: dict[str, Any], text: str) -> Reading | None:
    """The row or column number an integer property takes, when its description says it takes
    one ("1-based row, or column number (A=1)"): "before row 4" is 4, "column C" is 3."""
    description = str(shape.get("description") or "").lower()
    if not re.search(r"\b(?:row|column)s?\b", description) and not {"row", "column"} & set(
        split_identifier(name)
    ):
        return None
    row = _ROW.search(text)
    column = _COLUMN.search(text)
    if row and not column:
        return int(row.group("n")), f"the row named in the request ({row.group(0)})"
    if column and not row and re.search(r"a\s*=\s*1|letter", description):
        return column_number(column.group("letters")), f"the column's number, A=1 ({column.group(0)})"
    return None


# "on Q3", "on 'Q3 2024'": a sheet's name after "on", written as a name (a capital or a digit).
_ON_SHEET = re.compile(
    r"""\bon\s+(?:"(?P<quoted>[^"]+)"|'(?P<single>[^']+)'|(?P<bare>[A-Z0-9][\w-]*))(?=\s|[.,;!?]|$)"""
)
_SHEET_NAMES = frozenset({"sheet", "worksheet", "tab"})


def sheet_after_on(name: str, text: str) -> Reading | None:
    """A sheet named after "on", for a property that takes a sheet ("Merge A1:D1 on Q3")."""
    if not _SHEET_NAMES & set(split_identifier(name)):
        return None
    for found in _ON_SHEET.finditer(text):
        value = found.group("quoted") or found.group("single") or found.group("bare")
        if "." in value:
            continue  # a file is no sheet (a name like Q3 may look like a cell, and is a sheet here)
        return value, f"the sheet after 'on' ({value})"
    return None


# "Put 2750 into cell D7", "write 'done' in B2", "enter 3.5 at C4": one value into one cell.
_ONE_VALUE = re.compile(
    rf"""\b(?:put|write|enter|type|set|store|place)\s+(?:the\s+(?:value|number)\s+)?"""
    rf"""(?:(?P<number>-?\d+(?:\.\d+)?)|"(?P<double>[^"]+)"|'(?P<single>[^']+)')"""
    rf"""\s+(?:into|in|at|to)\s+(?:cell\s+)?{_CELL}\b(?!\s*(?::|to\s))""",
    re.IGNORECASE,
)


def takes_rows_of_values(shape: dict[str, Any]) -> bool:
    """An array of arrays: a table's rows of values, as a spreadsheet tool writes them."""
    items = shape.get("items")
    return shape.get("type") == "array" and isinstance(items, dict) and items.get("type") == "array"


def one_value_as_rows(name: str, shape: dict[str, Any], text: str) -> Reading | None:
    """The one value the request puts into one cell, as one row of one value, for a property
    that takes rows of values ("Rows of values, written from `at`")."""
    if not takes_rows_of_values(shape) or not (
        _describes(name, shape, "values") or _describes(name, shape, "rows")
    ):
        return None
    found = _ONE_VALUE.search(text)
    if not found:
        return None
    number = found.group("number")
    value: Any = (
        (float(number) if "." in number else int(number))
        if number
        else found.group("double") or found.group("single")
    )
    return [[value]], f"the one value put into one cell ({found.group(0)})"
