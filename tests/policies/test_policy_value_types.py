"""A policy file's values are taken as TOML typed them: a string where a boolean or a number
belongs is refused, never read as one (``four_eyes = "0"`` once turned four-eyes off), and
every mistake is said in plain words naming the file, the key, what was expected and what was
given, with the key meant when a key is misspelt."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

import pytest
from pydantic import BaseModel

from policies.loader import DEFAULT_POLICY, PolicyError, load_policy, parse_policy, parse_policy_text
from policies.model import EffectDeclaration, PolicyFile, Rule

Wrap = Callable[[Any], Any]


def _in_list(wrap: Wrap) -> Wrap:
    def put(value: Any) -> Any:
        return wrap([value])

    return put


def _in_table(wrap: Wrap) -> Wrap:
    def put(value: Any) -> Any:
        return wrap({"x": value})

    return put


def _rule(name: str = "r", **extra: Any) -> dict[str, Any]:
    return {"name": name, "match": ["*"], "action": "review", "explanation": "why", **extra}


def _error(data: Any) -> PolicyError:
    with pytest.raises(PolicyError) as caught:
        parse_policy(data, source="p.toml", variables={})
    return caught.value


# The least a list item needs besides the field under test, so that only that field is wrong.
_MINIMAL: dict[type[BaseModel], dict[str, Any]] = {
    Rule: _rule(),
    EffectDeclaration: {"match": ["*__x"], "preview": "file"},
}


def _plain(annotation: Any) -> Any:
    """The type under Annotated[...] and Optional[...]."""
    while True:
        if get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
        elif get_origin(annotation) in (Union, types.UnionType):
            members = [arg for arg in get_args(annotation) if arg is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def _scalar_fields(model: type[BaseModel], where: str, wrap: Wrap) -> Iterator[tuple[str, type, Wrap]]:
    """Every boolean and number field reachable from ``model``: (its key as an error names it,
    its type, a function putting a value there in an otherwise valid policy)."""
    for name, field in model.model_fields.items():
        key = f"{where}.{name}" if where else name
        annotation = _plain(field.annotation)

        def here(value: Any, name: str = name, wrap: Wrap = wrap, model: type[BaseModel] = model) -> Any:
            return wrap({**_MINIMAL.get(model, {}), name: value})

        origin = get_origin(annotation)
        if annotation in (bool, int, float):
            yield key, annotation, here
        elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _scalar_fields(annotation, key, here)
        elif origin is list and isinstance(_plain(get_args(annotation)[0]), type):
            item = _plain(get_args(annotation)[0])
            if issubclass(item, BaseModel):
                label = " (r)" if item is Rule else ""
                yield from _scalar_fields(item, f"{key}[0]{label}", _in_list(here))
        elif origin is dict:
            value_type = _plain(get_args(annotation)[1])
            if value_type in (bool, int, float):
                yield f"{key}.x", value_type, _in_table(here)
            elif isinstance(value_type, type) and issubclass(value_type, BaseModel):
                yield from _scalar_fields(value_type, f"{key}.x", _in_table(here))


SCALARS = list(_scalar_fields(PolicyFile, "", lambda value: value))
# What each type is said to be, and a string a lenient reader would have taken for one.
_EXPECTED = {
    bool: ("must be true or false", "0"),
    int: ("must be a whole number", "2"),
    float: ("must be a number", "1"),
}


def test_the_walk_reaches_the_fields_that_once_took_strings() -> None:
    keys = {key for key, _, _ in SCALARS}

    assert {
        "defaults.four_eyes",
        "defaults.required_approvals",
        "defaults.expiry_minutes",
        "policy_changes.four_eyes",
        "rules[0] (r).review.four_eyes",
        "rules[0] (r).grantable",
        "rules[0] (r).constraints.numeric.x.max",
        "roles.x.manage_policy",
        "sampling.servers.x",
        "gateway.roles.x",
        "grants.enabled",
        "output.max_bytes",
    } <= keys


@pytest.mark.parametrize(("key", "kind", "put"), SCALARS, ids=[key for key, _, _ in SCALARS])
def test_a_string_for_a_boolean_or_number_is_refused_naming_key_type_and_value(
    key: str, kind: type, put: Wrap
) -> None:
    expected, text = _EXPECTED[kind]

    error = _error(put(text))

    assert error.where == f"p.toml: {key}"
    assert error.reason.startswith(f'{expected}, not the string "{text}"'), error.reason


@pytest.mark.parametrize(("key", "kind", "put"), SCALARS, ids=[key for key, _, _ in SCALARS])
def test_a_boolean_for_a_number_and_a_number_for_a_boolean_are_refused(
    key: str, kind: type, put: Wrap
) -> None:
    given, shown = (1, "the number 1") if kind is bool else (True, "true")

    error = _error(put(given))

    assert error.where == f"p.toml: {key}"
    assert error.reason.startswith(f"{_EXPECTED[kind][0]}, not {shown}"), error.reason


@pytest.mark.parametrize("text", ["0", "no", "false", "off", "yes"])
def test_four_eyes_as_a_string_never_turns_it_off(text: str) -> None:
    error = _error({"defaults": {"four_eyes": text}})

    assert error.where == "p.toml: defaults.four_eyes"
    assert error.reason.startswith(f'must be true or false, not the string "{text}"')


def test_a_quoted_number_is_refused_saying_how_to_write_it() -> None:
    error = _error({"defaults": {"required_approvals": "2"}})

    assert (
        error.reason
        == 'must be a whole number, not the string "2" (write required_approvals = 2, without quotes)'
    )


def test_a_quoted_boolean_is_refused_saying_how_to_write_it() -> None:
    error = _error({"policy_changes": {"four_eyes": "false"}})

    assert error.where == "p.toml: policy_changes.four_eyes"
    assert (
        error.reason
        == 'must be true or false, not the string "false" (write four_eyes = false, without quotes)'
    )


def test_a_misspelt_key_is_refused_with_the_key_meant() -> None:
    error = _error({"rules": [_rule("first"), _rule("shop reads", acepts=["destructive"])]})

    assert error.where == "p.toml: rules[1] (shop reads).acepts"
    assert error.reason == "unknown key 'acepts' (did you mean 'accepts'?)"


def test_an_unknown_key_like_no_other_names_the_keys_there_are() -> None:
    error = _error({"output": {"colour": "red"}})

    assert error.where == "p.toml: output.colour"
    assert error.reason == "unknown key 'colour'; known keys: readable_mime_types, max_bytes"


def test_a_misspelt_section_is_refused_with_the_section_meant() -> None:
    error = _error({"defualts": {"action": "deny"}})

    assert (error.where, error.reason) == (
        "p.toml: defualts",
        "unknown key 'defualts' (did you mean 'defaults'?)",
    )


def test_a_single_glob_for_match_is_refused_showing_the_list_to_write() -> None:
    error = _error({"rules": [_rule("shop reads", match="shop-db__list_tables")]})

    assert error.where == "p.toml: rules[0] (shop reads).match"
    assert error.reason == (
        'must be a list of globs, e.g. match = ["shop-db__list_tables"], not the string "shop-db__list_tables"'
    )


def test_a_table_for_a_list_of_categories_is_refused_with_an_example() -> None:
    error = _error({"rules": [_rule("pay", accepts={"x": 1})]})

    assert error.where == "p.toml: rules[0] (pay).accepts"
    assert error.reason == 'must be a list of categories, e.g. accepts = ["writes files"], not a table'


def test_a_misspelt_action_is_refused_with_the_action_meant() -> None:
    error = _error({"rules": [_rule("shop reads", action="alow")]})

    assert error.where == "p.toml: rules[0] (shop reads).action"
    assert error.reason == "must be 'allow', 'review' or 'deny', not \"alow\" (did you mean 'allow'?)"


def test_a_misspelt_category_in_a_list_names_its_place_and_the_category_meant() -> None:
    error = _error({"rules": [_rule("pay", accepts=["writes files", "destructve"])]})

    assert error.where == "p.toml: rules[0] (pay).accepts[1]"
    assert error.reason.endswith("not \"destructve\" (did you mean 'destructive'?)")


def test_every_mistake_of_a_file_is_named_not_only_the_first() -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy_text(
            '[defaults]\nfour_eyes = "no"\n[policy_changes]\nfour_eyes = "no"\n',
            source="p.toml",
            variables={},
        )

    assert caught.value.where == "p.toml: defaults.four_eyes"
    assert caught.value.lines == [
        'p.toml: defaults.four_eyes: must be true or false, not the string "no"',
        'p.toml: policy_changes.four_eyes: must be true or false, not the string "no"',
    ]
    assert str(caught.value) == "\n".join(caught.value.lines)


def test_a_whole_number_written_with_a_point_is_refused() -> None:
    error = _error({"grants": {"max_hours": 24.0}})

    assert error.reason == "must be a whole number, not the number 24.0"


def test_a_whole_number_is_taken_for_a_numeric_bound() -> None:
    policy = parse_policy(
        {"rules": [_rule("pay", constraints={"numeric": {"amount": {"min": 0, "max": 1000}}})]},
        source="p.toml",
        variables={},
    )

    assert policy.rules[0].constraints.numeric["amount"].max == 1000.0


def test_the_shipped_policy_still_loads(tmp_path: Path) -> None:
    policy = load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": str(tmp_path)})

    assert policy.defaults.four_eyes is True
    assert policy.policy_changes.four_eyes is True
