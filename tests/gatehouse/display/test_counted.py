"""Counts read as English: one flag, four flags; never "flag(s)"."""

from __future__ import annotations

import pytest

from gatehouse.display.counted import counted


@pytest.mark.parametrize(
    ("count", "expected"), [(0, "0 flags"), (1, "1 flag"), (2, "2 flags"), (40, "40 flags")]
)
def test_a_count_takes_the_singular_only_for_one(count: int, expected: str) -> None:
    assert counted(count, "flag") == expected


def test_an_irregular_plural_is_given() -> None:
    assert counted(1, "capability", "capabilities") == "1 capability"
    assert counted(3, "capability", "capabilities") == "3 capabilities"
