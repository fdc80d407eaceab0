"""The decisions' stylesheet: what a phone is spared (tests/browser/test_review_layout.py checks
the first screen itself)."""

from __future__ import annotations

import re

from gatehouse.web.decision_style import KEYS_HINT_KEY, style_sheet


def test_the_keys_hint_is_hidden_on_a_narrow_or_touch_screen_and_only_there() -> None:
    sheet = style_sheet()
    hidden = re.search(r"@media ([^{]+)\{([^{}]*\{[^{}]*\})\}", sheet)
    assert hidden is not None, sheet
    conditions, rule = hidden.groups()
    assert "max-width: 640px" in conditions and "hover: none" in conditions
    assert f'st-key-{KEYS_HINT_KEY}"]' in rule and "display: none" in rule
    # Outside the media query nothing hides it: a laptop keeps the hint.
    assert sheet.count(f"st-key-{KEYS_HINT_KEY}") == 1
