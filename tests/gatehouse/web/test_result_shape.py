"""A tool's result is read as records (tables), text, or other content, whatever way the
server sent it; huge lists are cut to a cap that is said."""

from __future__ import annotations

import json
from typing import Any

from gatehouse.web.result_shape import MAX_CELL_CHARS, Table, Text, hidden_shape, shape_of
from policies.secrets import DEFAULT_REDACTOR


def result(structured: dict[str, Any] | None = None, *texts: str, **extra: Any) -> dict[str, Any]:
    content = [{"type": "text", "text": text} for text in texts]
    if structured is not None and not texts:
        content = [{"type": "text", "text": json.dumps(structured)}]  # as the SDK sends it
    return {"content": content + extra.get("items", []), "structured": structured}


def test_records_in_structured_content_are_one_table_beside_the_results_own_fields() -> None:
    listing = {
        "path": ".",
        "entries": [
            {"name": "notes.md", "type": "file", "size": 120},
            {"name": "docs", "type": "directory", "size": None},
        ],
    }

    shape = shape_of(result(listing))

    assert shape.texts == [] and shape.others == []  # the JSON text copy is not shown again
    [fields, entries] = shape.tables
    assert fields == Table(title="", columns=["field", "value"], rows=[{"field": "path", "value": "."}])
    assert entries.title == "entries"
    assert entries.columns == ["name", "type", "size"]
    assert entries.rows == listing["entries"] and entries.left_out == 0


def test_records_with_different_keys_get_every_column_and_empty_cells() -> None:
    shape = shape_of(result({"rows": [{"a": 1}, {"b": "x"}, {"a": 2, "c": True}]}))

    [table] = shape.tables
    assert table.columns == ["a", "b", "c"]
    assert table.rows == [
        {"a": 1, "b": None, "c": None},
        {"a": None, "b": "x", "c": None},
        {"a": 2, "b": None, "c": True},
    ]


def test_nested_records_are_found_and_nested_values_become_text_cells() -> None:
    nested = {
        "data": {
            "items": [{"id": 7, "owner": {"name": "ada"}, "tags": ["a", "b"]}],
            "page": 1,
        }
    }

    shape = shape_of(result(nested))

    [items, page] = shape.tables
    assert items.title == "data.items"
    assert items.rows == [{"id": 7, "owner": '{"name": "ada"}', "tags": '["a", "b"]'}]
    assert page.title == "data" and page.rows == [{"field": "page", "value": 1}]


def test_a_column_mixing_numbers_and_text_is_all_text() -> None:
    shape = shape_of(result({"rows": [{"v": 1}, {"v": "two"}, {"v": None}, {"v": False}]}))

    assert shape.tables[0].rows == [{"v": "1"}, {"v": "two"}, {"v": None}, {"v": "false"}]


def test_plain_text_is_text_and_a_string_tool_is_not_shown_twice() -> None:
    assert shape_of(result(None, "Hello, Ada!")).texts == [Text(title="", body="Hello, Ada!")]
    # A tool returning a string: the SDK sends {"result": "..."} beside the same text.
    wrapped = shape_of(result({"result": "Hello, Ada!"}, "Hello, Ada!"))
    assert wrapped.texts == [Text(title="", body="Hello, Ada!")] and wrapped.tables == []


def test_records_sent_only_as_json_text_are_a_table_and_a_json_number_stays_text() -> None:
    shape = shape_of(result(None, json.dumps([{"id": 1, "title": "Printer"}, {"id": 2, "title": "VPN"}])))

    assert shape.texts == []
    assert shape.tables[0].rows == [{"id": 1, "title": "Printer"}, {"id": 2, "title": "VPN"}]
    assert shape_of(result(None, "42")).texts == [Text(title="", body="42")]
    assert shape_of(result(None, "[not json")).texts == [Text(title="", body="[not json")]


def test_a_long_or_multi_line_field_is_text_not_a_cell() -> None:
    file = {"path": "notes.md", "content": "# Notes\n- ship it\n", "size": 18}

    shape = shape_of(result(file))

    assert shape.texts == [Text(title="content", body="# Notes\n- ship it\n")]
    # One column holds one kind of value: a field's value column mixing kinds is text.
    assert shape.tables[0].rows == [{"field": "path", "value": "notes.md"}, {"field": "size", "value": "18"}]


def test_mixed_content_keeps_text_and_names_images_and_links() -> None:
    items = [
        {"type": "image", "mime_type": "image/png", "size": 2048},
        {"type": "resource_link", "uri": "file:///report.pdf"},
    ]

    shape = shape_of(result(None, "Here is the chart.", items=items))

    assert shape.texts == [Text(title="", body="Here is the chart.")]
    assert shape.others == ["image (image/png, 2048 bytes)", "resource_link (file:///report.pdf)"]


def test_an_empty_result_is_empty_and_an_empty_list_is_a_table_without_rows() -> None:
    assert shape_of(None).empty
    assert shape_of({"content": [], "structured": None}).empty
    [table] = shape_of(result({"entries": []})).tables
    assert table.rows == [] and table.total == 0


def test_a_huge_list_is_cut_to_the_cap_and_says_how_many_were_left_out() -> None:
    rows = [{"n": n, "text": "x" * (MAX_CELL_CHARS + 10)} for n in range(1000)]

    [table] = shape_of(result({"rows": rows}), max_rows=50).tables

    assert len(table.rows) == 50 and table.left_out == 950 and table.total == 1000
    assert table.rows[-1]["n"] == 49
    assert len(str(table.rows[0]["text"])) == MAX_CELL_CHARS and str(table.rows[0]["text"]).endswith("…")


def test_a_list_of_plain_values_is_one_column_named_after_its_field() -> None:
    [table] = shape_of(result({"files": ["a.txt", "b.txt"]})).tables

    assert table.columns == ["files"] and table.rows == [{"files": "a.txt"}, {"files": "b.txt"}]


def test_records_whose_json_text_reads_as_holding_a_secret_show_once() -> None:
    # The tickets server's own record: in its JSON text, "password is" and what follows (the
    # text's closing quote included) read as a password to the redactor.
    record = {"id": 1, "description": "The reset link works but the new password is rejected."}
    structured = {"tickets": [record], "total": 1}
    sent = {"content": [{"type": "text", "text": json.dumps(structured, indent=2)}], "structured": structured}
    hide = DEFAULT_REDACTOR.value

    shape = hidden_shape(shape_of(sent), hide)

    assert shape.texts == []
    assert [table.title for table in shape.tables] == ["", "tickets"]
    [row] = shape.tables[1].rows
    assert row["description"] == hide(record["description"])
    # Hidden first (as the conversation stores it), the JSON text no longer parses: still
    # no second copy.
    assert shape_of(hide(sent)).texts == []


def test_a_list_the_sdk_wrapped_as_result_is_not_shown_again_as_its_json_text() -> None:
    rows = [{"name": "a.txt", "size": 1}, {"name": "b.txt", "size": 2}]

    whole = shape_of(result({"result": rows}, json.dumps(rows)))
    each = shape_of(result({"result": rows}, *(json.dumps(row) for row in rows)))

    for shape in (whole, each):
        assert shape.texts == []
        assert [table.title for table in shape.tables] == ["result"]


def test_json_text_cut_off_by_the_output_cap_is_not_a_second_copy_but_other_text_is_kept() -> None:
    structured = {"tickets": [{"id": n, "title": f"ticket {n}"} for n in range(3)]}
    cut = json.dumps(structured, indent=2)[:40]

    shape = shape_of(result(structured, cut, "3 tickets found."))

    assert [text.body for text in shape.texts] == ["3 tickets found."]
