"""The chat's question for a missing argument: one field per argument asked for, built from the
capability's input schema by the same rule as the reviews page's argument editor
(gatehouse/web/argument_form.py form_fields), so a file's content gets a text area whose line
breaks reach the tool as typed.

The values go to the service as typed (RequestService.ask's ``answers``); the answer's words,
which the conversation shows and the planner reads, are written from them here.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from gatehouse.display.visible_text import visible
from gatehouse.web.argument_form import FormField, form_fields, initial_text, read_fields
from gatehouse.web.literal import markdown_literal


def asked_fields(schema: dict[str, Any], missing: list[str]) -> list[FormField]:
    """A field for each argument asked for, in the order asked: the schema's field, or a line
    of text for a name the schema does not declare (nothing is left unasked)."""
    declared = {field.name: field for field in form_fields(schema, {})}
    return [declared.get(name) or FormField(name, "text", True, "") for name in missing]


def field_widget(field: FormField, key: str) -> Any:
    """One field's widget; what it holds comes back for read_field. Names, descriptions and
    options are the server's words: drawn literally."""
    label = markdown_literal(field.name)
    help_text = markdown_literal(field.description) if field.description else None
    if field.kind == "boolean":
        return st.checkbox(label, key=key, help=help_text)
    if field.kind == "choice":
        options = list(field.options)
        return st.selectbox(
            label, options, index=None, key=key, help=help_text, format_func=lambda v: visible(str(v))
        )
    if field.kind in {"long_text", "lines", "json"}:
        return st.text_area(label, initial_text(field, None), key=key, help=help_text)
    return st.text_input(label, key=key, help=help_text)


def answer_words(values: dict[str, Any]) -> str:
    """The answer as the operator's message: a single value as it is; several as one
    ``name: value`` line each (a value of several lines keeps them)."""
    if len(values) == 1:
        [value] = values.values()
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return "\n".join(
        f"{name}: {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
        for name, value in values.items()
    )


def _whitespace_only(held: Any) -> bool:
    return isinstance(held, str) and not held.strip()


def read_answers(fields: list[FormField], raw: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The values the form holds, by name (an empty field left out: the question is asked
    again for it), and what is wrong with it, each naming its field."""
    # Whitespace alone answers nothing (an empty text is no file's content here).
    answered = [field for field in fields if not _whitespace_only(raw.get(field.name))]
    values, problems = read_fields(answered, raw)
    if not values and not problems:
        problems.append(f"Fill in {', '.join(field.name for field in fields)} first.")
    return values, problems
