"""Narrowing rules in a policy's text (policies/narrowing.py): the capability keys go into the
rule's ``exclude``, and nothing else of the text changes."""

from __future__ import annotations

import difflib
import tomllib

import pytest

from policies.loader import DEFAULT_POLICY, parse_policy_text
from policies.narrowing import NOTE, NarrowingError, with_exclusions


def _changed(old: str, new: str) -> tuple[list[str], list[str]]:
    diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0))
    added = [line[1:] for line in diff if line.startswith("+") and not line.startswith("+++")]
    removed = [line[1:] for line in diff if line.startswith("-") and not line.startswith("---")]
    return added, removed


def test_narrowing_the_shipped_policy_adds_one_line_per_rule_under_its_match() -> None:
    text = DEFAULT_POLICY.read_text(encoding="utf-8")

    narrowed = with_exclusions(
        text,
        {
            "outgoing messages": ["email__send_email"],
            "file writes": ["files__write_file", "files__move_file"],
        },
    )

    added, removed = _changed(text, narrowed)
    assert removed == []
    assert added == [
        f'exclude = ["files__write_file", "files__move_file"]   {NOTE}',
        f'exclude = ["email__send_email"]   {NOTE}',
    ]
    lines = narrowed.splitlines()
    at = lines.index(added[1])
    assert lines[at - 1].startswith('match = ["*__send_*"')
    policy = parse_policy_text(narrowed, source="narrowed", variables={"GATEHOUSE_DATA": "/data"})
    rules = {rule.name: rule for rule in policy.rules}
    assert rules["outgoing messages"].exclude == ["email__send_email"]
    assert rules["payments"].exclude == []


def test_a_rule_that_excludes_some_already_keeps_them_and_gains_the_new_ones() -> None:
    text = '''# the team's policy
[[rules]]
name = "file writes"   # reviewed
match = [
  "*__write_*",   # writes
  "*__move_*",
]
exclude = [
  "files__write_log",   # logs are ours
]
action = "review"
explanation = """
[[rules]] is how a rule starts
"""
[rules.constraints]
paths_within_roots = false

[[rules]]
name = "shell"
match = ["*__exec*"]
action = "deny"
explanation = "never"
'''
    narrowed = with_exclusions(text, {"file writes": ["files__write_file", "files__write_log"]})

    data = tomllib.loads(narrowed)
    assert data["rules"][0]["exclude"] == ["files__write_log", "files__write_file"]
    assert data["rules"][0]["explanation"] == "[[rules]] is how a rule starts\n"
    added, removed = _changed(text, narrowed)
    assert added == [f'exclude = ["files__write_log", "files__write_file"]   {NOTE}']
    assert removed == ["exclude = [", '  "files__write_log",   # logs are ours', "]"]
    assert with_exclusions(narrowed, {"file writes": ["files__write_file"]}) == narrowed


def test_a_rule_not_written_as_its_own_table_is_not_edited() -> None:
    inline = (
        'rules = [{ name = "file writes", match = ["*__write_*"], action = "review", explanation = "x" }]\n'
    )
    with pytest.raises(NarrowingError, match="not each written as a \\[\\[rules\\]\\] table"):
        with_exclusions(inline, {"file writes": ["files__write_file"]})
    with pytest.raises(NarrowingError, match="no rule named 'wire transfers'"):
        with_exclusions(DEFAULT_POLICY.read_text(encoding="utf-8"), {"wire transfers": ["x__pay"]})
