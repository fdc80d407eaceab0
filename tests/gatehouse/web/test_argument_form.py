"""The reviews page's argument form: fields from an input schema, values read back or refused."""

from __future__ import annotations

from typing import Any

import pytest

from gatehouse.web.argument_form import (
    LONG_MAX_LENGTH,
    LONG_TEXT_CHARS,
    ArgumentError,
    FieldKind,
    FormField,
    form_fields,
    initial_text,
    parse_json_arguments,
    read_field,
    read_fields,
    schema_problems,
)


def kinds(schema: dict[str, Any], arguments: dict[str, Any] | None = None) -> dict[str, FieldKind]:
    return {field.name: field.kind for field in form_fields(schema, arguments or {})}


def field(kind: FieldKind, *, required: bool = False, name: str = "value") -> FormField:
    return FormField(name, kind, required, "")


def optional(shape: dict[str, Any], **outer: Any) -> dict[str, Any]:
    """An Optional property as pydantic publishes it: anyOf [X, null], the rest outside."""
    return {"anyOf": [shape, {"type": "null"}], "default": None, **outer}


# -- fields from a schema ------------------------------------------------------------------------


def test_each_declared_type_gets_its_own_kind_of_field_in_the_schemas_order() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "urgent": {"type": "boolean"},
            "mode": {"type": "string", "enum": ["fast", "safe"]},
            "labels": {"type": "array", "items": {"type": "string"}},
            "numbers": {"type": "array", "items": {"type": "integer"}},
            "attachments": {"type": "array", "items": {"type": "object"}},
            "headers": {"type": "object", "properties": {"x": {"type": "string"}}},
            "either": {"type": ["string", "integer"]},
        },
    }

    fields = form_fields(schema, {})

    assert [(f.name, f.kind) for f in fields] == [
        ("path", "text"),
        ("count", "integer"),
        ("ratio", "number"),
        ("urgent", "boolean"),
        ("mode", "choice"),
        ("labels", "lines"),
        ("numbers", "json"),
        ("attachments", "json"),
        ("headers", "json"),
        ("either", "json"),
    ]


def test_required_and_description_come_from_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the project folder."},
            "note": {"type": "string"},
        },
        "required": ["path"],
    }

    fields = {f.name: f for f in form_fields(schema, {})}

    assert (fields["path"].required, fields["path"].description) == (
        True,
        "File path relative to the project folder.",
    )
    assert (fields["note"].required, fields["note"].description) == (False, "")


def test_an_enum_is_a_choice_offering_exactly_its_values() -> None:
    schema = {"properties": {"priority": {"type": "integer", "enum": [1, 2, 3]}}}

    (priority,) = form_fields(schema, {})

    assert (priority.kind, priority.options) == ("choice", (1, 2, 3))


def test_an_empty_enum_is_not_a_choice_with_nothing_to_choose() -> None:
    assert kinds({"properties": {"mode": {"type": "string", "enum": []}}}) == {"mode": "text"}


@pytest.mark.parametrize("name", ["body", "content", "text", "message", "description", "comment", "Body"])
def test_strings_whose_names_say_prose_get_a_text_area_even_when_empty(name: str) -> None:
    assert kinds({"properties": {name: {"type": "string"}}}, {name: ""}) == {name: "long_text"}


def test_a_string_gets_a_text_area_once_its_value_is_long_or_has_a_newline() -> None:
    schema = {"properties": {"subject": {"type": "string"}}}

    assert kinds(schema, {"subject": "x" * LONG_TEXT_CHARS}) == {"subject": "text"}
    assert kinds(schema, {"subject": "x" * (LONG_TEXT_CHARS + 1)}) == {"subject": "long_text"}
    assert kinds(schema, {"subject": "two\nlines"}) == {"subject": "long_text"}


def test_a_string_formatted_as_textarea_gets_a_text_area() -> None:
    assert kinds({"properties": {"notes": {"type": "string", "format": "textarea"}}}) == {
        "notes": "long_text"
    }


@pytest.mark.parametrize("name", ["file_content", "fileContent", "body_text", "html-body", "notes"])
def test_strings_named_for_prose_in_any_of_their_words_get_a_text_area(name: str) -> None:
    assert kinds({"properties": {name: {"type": "string"}}}) == {name: "long_text"}


@pytest.mark.parametrize("name", ["path", "subject", "to", "title", "contention"])
def test_strings_named_otherwise_stay_one_line(name: str) -> None:
    assert kinds({"properties": {name: {"type": "string"}}}) == {name: "text"}


@pytest.mark.parametrize(
    "shape",
    [
        {"type": "string", "maxLength": LONG_MAX_LENGTH + 1},
        {"type": "string", "default": "first line\nsecond line"},
        {"type": "string", "format": "multiline"},
        {"type": "string", "description": "The page's multi-line markdown source."},
    ],
)
def test_a_schema_that_says_several_lines_gets_a_text_area(shape: dict[str, Any]) -> None:
    assert kinds({"properties": {"summary": shape}}) == {"summary": "long_text"}


def test_room_for_a_one_line_column_is_no_reason_for_a_text_area() -> None:
    assert kinds({"properties": {"summary": {"type": "string", "maxLength": LONG_MAX_LENGTH}}}) == {
        "summary": "text"
    }


def test_optional_properties_published_as_anyof_with_null_get_the_inner_kind() -> None:
    schema = {
        "type": "object",
        "properties": {
            "limit": optional({"type": "integer"}, description="At most this many."),
            "mode": optional({"type": "string", "enum": ["a", "b"]}),
            "cc": optional({"type": "array", "items": {"type": "string"}}),
            "body": optional({"type": "string"}),
            "flag": optional({"type": "boolean"}),
        },
    }

    fields = {f.name: f for f in form_fields(schema, {})}

    assert {name: f.kind for name, f in fields.items()} == {
        "limit": "integer",
        "mode": "choice",
        "cc": "lines",
        "body": "long_text",
        "flag": "boolean",
    }
    assert fields["limit"].description == "At most this many."
    # null is how the property is left out, not a value to choose.
    assert fields["mode"].options == ("a", "b")


def test_arguments_the_schema_does_not_declare_are_appended_as_json_fields() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}

    fields = form_fields(schema, {"extra": {"nested": [1]}, "path": "a.txt", "other": 3})

    assert [(f.name, f.kind, f.required) for f in fields] == [
        ("path", "text", True),
        ("extra", "json", False),
        ("other", "json", False),
    ]
    assert "not declared" in fields[1].description


def test_a_schema_without_properties_still_shows_every_argument() -> None:
    fields = form_fields({"type": "object"}, {"a": 1, "b": "x"})

    assert [(f.name, f.kind) for f in fields] == [("a", "json"), ("b", "json")]


def test_a_property_that_is_not_a_schema_object_falls_back_to_json() -> None:
    assert kinds({"properties": {"anything": True}}) == {"anything": "json"}


# -- initial text --------------------------------------------------------------------------------


def test_initial_text_puts_one_list_item_per_line_and_pretty_prints_json() -> None:
    assert initial_text(field("lines"), ["a@example.com", "b@example.com"]) == "a@example.com\nb@example.com"
    assert initial_text(field("json"), {"k": [1, "é"]}) == '{\n  "k": [\n    1,\n    "é"\n  ]\n}'
    assert initial_text(field("integer"), 42) == "42"
    assert initial_text(field("text"), None) == ""
    assert initial_text(field("json"), None) == ""


def test_a_lines_field_whose_value_is_not_a_list_shows_it_as_json() -> None:
    assert initial_text(field("lines"), "one@example.com") == '"one@example.com"'


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("text", "a.txt"),
        ("long_text", "line one\nline two\n"),
        ("integer", -7),
        ("number", 2.5),
        ("lines", ["bob@example.com", "carol@example.com"]),
        ("json", {"nested": {"list": [1, 2], "none": None}}),
    ],
)
def test_reading_back_a_fields_initial_text_gives_the_value_it_started_with(
    kind: FieldKind, value: Any
) -> None:
    f = field(kind, required=True)

    assert read_field(f, initial_text(f, value)) == (True, value)


# -- reading a field -----------------------------------------------------------------------------


def test_an_integer_field_reads_a_whole_number_with_surrounding_space() -> None:
    assert read_field(field("integer"), " 12 ") == (True, 12)


@pytest.mark.parametrize("typed", ["twelve", "1.5", "12 apples"])
def test_an_integer_that_does_not_parse_is_an_error_naming_the_field(typed: str) -> None:
    with pytest.raises(ArgumentError, match=r"^count: .* is not a whole number$") as raised:
        read_field(field("integer", name="count"), typed)

    assert repr(typed) in str(raised.value)


def test_a_number_field_keeps_whole_numbers_whole_and_fractions_fractional() -> None:
    f = field("number")

    assert read_field(f, "3") == (True, 3)
    assert isinstance(read_field(f, "3")[1], int)
    assert read_field(f, "3.0") == (True, 3.0)
    assert isinstance(read_field(f, "3.0")[1], float)
    assert read_field(f, "0.25") == (True, 0.25)
    assert read_field(f, "1e3") == (True, 1000)


def test_a_number_that_does_not_parse_is_an_error_naming_the_field() -> None:
    with pytest.raises(ArgumentError, match=r"^ratio: 'half' is not a number$"):
        read_field(field("number", name="ratio"), "half")


@pytest.mark.parametrize("typed", ["nan", "NaN", "inf", "-Infinity", "1e999"])
def test_a_number_that_is_not_finite_is_refused(typed: str) -> None:
    with pytest.raises(ArgumentError, match=r"^ratio: .* is not a finite number$"):
        read_field(field("number", name="ratio"), typed)


def test_a_json_field_reads_any_json_value() -> None:
    f = field("json")

    assert read_field(f, '{"a": [1, null, true]}') == (True, {"a": [1, None, True]})
    assert read_field(f, "[]") == (True, [])
    assert read_field(f, '"just text"') == (True, "just text")


def test_invalid_json_in_a_field_is_an_error_naming_the_field_and_the_line() -> None:
    with pytest.raises(ArgumentError) as raised:
        read_field(field("json", name="headers"), '{\n  "a": 1,\n  "b": \n}')

    message = str(raised.value)
    assert message.startswith("headers: not valid JSON")
    assert "line 4" in message


def test_a_json_field_refuses_nan_which_is_not_json() -> None:
    with pytest.raises(ArgumentError, match=r"^limits: "):
        read_field(field("json", name="limits"), '{"max": NaN}')


def test_a_lines_field_gives_one_trimmed_item_per_non_blank_line() -> None:
    typed = "  bob@example.com \n\n carol@example.com\n   \n"

    assert read_field(field("lines"), typed) == (True, ["bob@example.com", "carol@example.com"])


def test_a_boolean_field_is_always_sent() -> None:
    assert read_field(field("boolean"), False) == (True, False)
    assert read_field(field("boolean"), True) == (True, True)


def test_a_choice_is_sent_when_one_is_made_and_left_out_otherwise() -> None:
    assert read_field(field("choice"), "safe") == (True, "safe")
    assert read_field(field("choice"), 0) == (True, 0)
    assert read_field(field("choice"), None) == (False, None)


@pytest.mark.parametrize("kind", ["integer", "number", "lines", "json"])
def test_an_empty_required_non_text_field_is_an_error_naming_the_field(kind: FieldKind) -> None:
    with pytest.raises(ArgumentError, match=r"^amount: required, but empty$"):
        read_field(field(kind, required=True, name="amount"), "   ")


@pytest.mark.parametrize("kind", ["integer", "number", "lines", "json", "text", "long_text"])
def test_an_empty_optional_field_is_left_out(kind: FieldKind) -> None:
    f = field(kind)

    assert read_field(f, "") == (False, None)
    assert read_field(f, None) == (False, None)


@pytest.mark.parametrize("kind", ["text", "long_text"])
def test_an_empty_required_text_is_sent_as_an_empty_string(kind: FieldKind) -> None:
    # An empty file's content is a real value.
    assert read_field(field(kind, required=True), "") == (True, "")
    assert read_field(field(kind, required=True), None) == (True, "")


def test_text_is_sent_exactly_as_typed() -> None:
    assert read_field(field("long_text"), "  indented\n\ttabbed\n") == (True, "  indented\n\ttabbed\n")


# -- arguments as one JSON object ----------------------------------------------------------------


def test_a_forms_fields_are_all_read_each_error_named_and_the_values_kept_in_the_forms_order() -> None:
    fields = [
        field("integer", name="count"),
        field("text", name="note"),
        field("number", name="ratio", required=True),
        field("lines", name="tags"),
        field("boolean", name="draft"),
    ]
    held = {"count": "twelve", "note": "as typed ", "ratio": "", "tags": "a\n b\n", "draft": True}

    values, problems = read_fields(fields, held)

    assert list(values.items()) == [("note", "as typed "), ("tags", ["a", "b"]), ("draft", True)]
    assert problems == ["count: 'twelve' is not a whole number", "ratio: required, but empty"]


def test_json_mode_reads_an_object() -> None:
    assert parse_json_arguments('{"path": "a.txt", "content": "x"}') == {"path": "a.txt", "content": "x"}


def test_json_mode_says_where_the_json_breaks() -> None:
    with pytest.raises(ArgumentError) as raised:
        parse_json_arguments('{\n  "path": "a.txt",\n  "content": \n}')

    message = str(raised.value)
    assert message.startswith("arguments: not valid JSON")
    assert "line 4, column 1" in message


@pytest.mark.parametrize(("typed", "kind"), [("[1, 2]", "list"), ('"a.txt"', "str"), ("null", "NoneType")])
def test_json_mode_refuses_anything_but_an_object(typed: str, kind: str) -> None:
    with pytest.raises(ArgumentError, match=f"^arguments: expected a JSON object, got {kind}$"):
        parse_json_arguments(typed)


# -- the arguments against the schema as a whole -------------------------------------------------


WRITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "content": {"type": "string"},
        "options": {
            "type": "object",
            "properties": {
                "mode": {"type": "integer"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
        },
    },
    "required": ["path", "content"],
}


def test_arguments_that_fit_the_schema_have_no_problems() -> None:
    arguments = {"path": "a.txt", "content": "", "options": {"mode": 1, "tags": ["x"]}}

    assert schema_problems(WRITE_SCHEMA, arguments) == []


def test_schema_problems_name_the_path_of_nested_errors() -> None:
    arguments = {"path": "a.txt", "options": {"mode": "fast", "tags": ["ok", 7]}}

    problems = schema_problems(WRITE_SCHEMA, arguments)

    assert problems == [
        "arguments: 'content' is a required property",
        "options.mode: 'fast' is not of type 'integer'",
        "options.tags.1: 7 is not of type 'string'",
    ]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "nonsense"},
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
        {"type": "object", "properties": {"a": {"type": "string", "minLength": "five"}}},
    ],
    ids=["unknown type", "dangling $ref", "non-numeric minLength"],
)
def test_a_broken_schema_is_reported_not_raised(schema: dict[str, Any]) -> None:
    problems = schema_problems(schema, {"a": "x"})

    assert len(problems) == 1
    assert problems[0].startswith("the input schema itself is broken: ")


def test_a_schema_with_a_malformed_keyword_is_reported_as_broken() -> None:
    problems = schema_problems({"type": "object", "required": "path"}, {})

    assert len(problems) == 1
    assert problems[0].startswith("the input schema itself is broken: ")


@pytest.mark.parametrize("text", ["1_000", "+3", "\u0663", "5.0", "0x10"])
def test_a_whole_number_is_plain_digits_and_nothing_python_would_also_read(text: str) -> None:
    with pytest.raises(ArgumentError, match=r"^count: .* is not a whole number"):
        read_field(field("integer", name="count"), text)


def test_a_required_choice_left_empty_is_an_error_naming_it() -> None:
    with pytest.raises(ArgumentError, match=r"^priority: required, but nothing is chosen"):
        read_field(field("choice", required=True, name="priority"), None)
