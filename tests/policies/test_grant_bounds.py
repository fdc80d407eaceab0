"""The bounds a remembered approval holds later calls to: a domain, a folder, a limit, exactly
these arguments, and the tricky cases each must refuse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from policies.grant_bounds import BoundsError, grant_bounds, outside

APPROVED = {"to": "bob@example.com", "body": "hi"}


def _covers(bounds_within: dict[str, Any], call: dict[str, Any], approved: dict[str, Any] = APPROVED) -> bool:
    return outside(call, grant_bounds(approved, bounds_within)) is None


def test_without_bounds_a_grant_covers_exactly_the_approved_arguments() -> None:
    assert _covers({}, {"to": "bob@example.com", "body": "hi"})
    assert not _covers({}, {"to": "bob@example.com", "body": "hi!"})
    assert not _covers({}, {"to": "bob@example.com"})  # an approved argument left out
    assert not _covers({}, {"to": "bob@example.com", "body": "hi", "cc": ["eve@evil.com"]})


def test_exact_values_compare_as_json_so_a_numeric_string_is_not_the_number() -> None:
    approved = {"amount": 5, "flag": True}
    assert _covers({}, {"amount": 5, "flag": True}, approved)
    assert not _covers({}, {"amount": "5", "flag": True}, approved)
    assert not _covers({}, {"amount": 5.5, "flag": True}, approved)
    assert not _covers({}, {"amount": 5, "flag": 1}, approved)


@pytest.mark.parametrize(
    ("recipient", "covered"),
    [
        ("carol@example.com", True),
        ("Carol@EXAMPLE.COM", True),  # domains are case-insensitive
        ("carol@evil-example.com", False),
        ("carol@example.com.evil.com", False),
        ("carol@mail.example.com", False),  # a subdomain is another domain
        ("carol@example.co", False),
        ("example.com", False),  # no address at all
        ("@example.com", False),
        ("carol@evil.com@example.com", False),
        ("carol@example.com@evil.com", False),
        ("carol%evil.com@example.com", False),  # relayed through example.com to evil.com
        ("evil.com!carol@example.com", False),
        ("carol@example.com, eve@evil.com", False),  # every address counts
        ("Carol <carol@example.com>", True),
    ],
)
def test_a_domain_bound_covers_addresses_at_that_domain_only(recipient: str, covered: bool) -> None:
    assert (
        _covers({"to": {"domain": "example.com"}, "body": "any"}, {"to": recipient, "body": "x"}) is covered
    )


def test_a_domain_bound_holds_every_address_of_a_list_and_refuses_a_number() -> None:
    within = {"to": {"domain": "example.com"}, "body": "any"}
    assert _covers(within, {"to": ["a@example.com", "b@example.com"], "body": "x"})
    assert not _covers(within, {"to": ["a@example.com", "b@evil.com"], "body": "x"})
    assert not _covers(within, {"to": 42, "body": "x"})


@pytest.mark.parametrize(
    ("path", "covered"),
    [
        ("/srv/docs/a.txt", True),
        ("/srv/docs/sub/b.txt", True),
        ("/srv/docs", True),
        ("/srv/docs/../secrets/key", False),  # climbs out
        ("/srv/docs/sub/../../etc/passwd", False),
        ("/srv/docs/./a.txt", True),
        ("/srv/docs-evil/a.txt", False),  # a sibling whose name starts the same
        ("/srv/Docs/a.txt", False),  # paths are case-sensitive
        ("/srv", False),
        ("srv/docs/a.txt", False),  # relative against an absolute folder
        ("~/docs/a.txt", False),
        ("/srv/docs/a\\..\\..\\x", False),  # backslashes are refused outright
        ("/srv/docs/a\x00.txt", False),
        ("//srv/docs/a.txt", False),
    ],
)
def test_a_folder_bound_covers_paths_inside_it_only(path: str, covered: bool) -> None:
    approved = {"path": "/srv/docs/notes.txt", "content": "x"}
    assert (
        _covers({"path": {"under": "/srv/docs"}, "content": "any"}, {"path": path, "content": "y"}, approved)
        is covered
    )


def test_a_folder_bound_refuses_a_symlink_inside_it_that_leads_out(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (tmp_path / "outside").mkdir()
    (folder / "link").symlink_to(tmp_path / "outside")
    approved = {"path": str(folder / "a.txt")}
    within = {"path": {"under": str(folder)}}
    assert _covers(within, {"path": str(folder / "b.txt")}, approved)
    assert not _covers(within, {"path": str(folder / "link" / "c.txt")}, approved)


@pytest.mark.parametrize(
    ("amount", "covered"),
    [
        (100, True),
        (99.5, True),
        (0, True),
        (100.01, False),
        (-1, False),
        ("50", False),  # a number written as text is refused
        ("1e1", False),
        (True, False),
        (float("nan"), False),
        (float("inf"), False),
        (None, False),
    ],
)
def test_a_limit_covers_numbers_within_it_only(amount: Any, covered: bool) -> None:
    approved = {"amount": 20, "item": "pens"}
    assert (
        _covers({"amount": {"max": 100, "min": 0}}, {"amount": amount, "item": "pens"}, approved) is covered
    )


def test_bounds_the_approved_call_itself_breaks_are_refused() -> None:
    with pytest.raises(BoundsError, match="outside"):
        grant_bounds(APPROVED, {"to": {"domain": "example.org"}})
    with pytest.raises(BoundsError, match="outside"):
        grant_bounds({"amount": 500}, {"amount": {"max": 100}})


@pytest.mark.parametrize(
    "within",
    [
        {"to": {"domain": "bob@example.com"}},
        {"to": {"domain": ""}},
        {"to": {"domain": "example.com", "max": 3}},
        {"to": {"regex": ".*"}},
        {"to": "anything"},
        {"path": {"under": "/srv/../etc"}},
        {"amount": {"max": "100"}},
        {"amount": {"max": float("inf")}},
        {"amount": {"min": 10, "max": 1}},
    ],
)
def test_malformed_bounds_are_refused_with_a_reason(within: dict[str, Any]) -> None:
    with pytest.raises(BoundsError):
        grant_bounds({"to": "bob@example.com", "path": "/srv/x", "amount": 5}, within)


def test_any_covers_whatever_value_and_an_optional_bounded_argument_may_be_left_out() -> None:
    within = {"to": {"domain": "example.com"}, "body": "any", "cc": {"domain": "example.com"}}
    assert _covers(within, {"to": "x@example.com", "body": {"nested": [1, 2]}})
    assert _covers(within, {"to": "x@example.com", "body": "", "cc": ["y@example.com"]})
    assert not _covers(within, {"to": "x@example.com", "body": "", "cc": ["y@evil.com"]})
