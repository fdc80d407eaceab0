"""The policy's [[effects]] declarations: what the shipped file declares, and a declaration
that cannot work refused when the policy loads, naming the key and why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from policies.loader import DEFAULT_POLICY, PolicyError, load_policy, parse_policy
from policies.model import PolicyFile


def _error(*effects: dict[str, Any]) -> PolicyError:
    with pytest.raises(PolicyError) as caught:
        parse_policy({"effects": list(effects)}, source="p.toml", variables={})
    return caught.value


RECORD = {"match": ["*__update_ticket"], "preview": "record", "read": ["ticket://{id}"]}


def test_the_shipped_file_declares_exactly_what_a_policy_without_effects_gets(tmp_path: Path) -> None:
    shipped = load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": str(tmp_path)})

    assert shipped.effects == PolicyFile().effects
    by_preview = {declared.preview: declared for declared in shipped.effects}
    assert by_preview["email"].read == ["mail://sent/{id}"]
    assert by_preview["email"].read_with == {"id": "result.id"}
    assert by_preview["record"].read_with == {"id": "arguments.id"}
    assert by_preview["record"].fields == {"status": "status", "priority": "priority"}
    assert by_preview["record"].appended == {"note": "notes"}


def test_a_read_value_from_neither_the_arguments_nor_the_result_is_refused() -> None:
    error = _error(RECORD | {"read_with": {"id": "response.id"}, "fields": {"status": "status"}})

    assert error.where == "p.toml: effects[0]"
    assert error.reason == (
        "read_with.id: 'response.id' names neither an argument (arguments.id) nor a field "
        "of the result (result.id)"
    )


def test_a_template_variable_with_no_value_is_refused() -> None:
    error = _error(
        RECORD
        | {
            "read": ["ticket://{queue}/{id}"],
            "read_with": {"id": "arguments.id"},
            "fields": {"status": "status"},
        }
    )

    assert "ticket://{queue}/{id} has queue with no value in read_with" in error.reason


def test_a_record_preview_that_compares_nothing_is_refused() -> None:
    error = _error(RECORD | {"read_with": {"id": "arguments.id"}})

    assert "a record preview needs fields or appended" in error.reason
