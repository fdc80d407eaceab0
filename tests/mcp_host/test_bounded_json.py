"""JSON from outside, parsed with a bound on its nesting."""

from __future__ import annotations

import pytest

from mcp_host.bounded_json import BoundedJsonError, loads_bounded, nesting_depth


def test_json_at_the_limit_is_parsed_and_one_level_more_is_refused_with_its_place() -> None:
    assert nesting_depth(loads_bounded("[" * 64 + "]" * 64)) == 64

    with pytest.raises(BoundedJsonError, match=r"^nested deeper than 64 levels at line 2, column 65$"):
        loads_bounded("\n" + "[" * 65 + "]" * 65)


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = '{"a": "' + "[{" * 100 + '\\"]"}'

    assert loads_bounded(text, max_depth=1) == {"a": "[{" * 100 + '"]'}


def test_invalid_json_is_reported_with_line_and_column() -> None:
    with pytest.raises(BoundedJsonError, match=r"^not valid JSON: Expecting value at line 2, column 11$"):
        loads_bounded('{"a":\n  1, "b": }')
