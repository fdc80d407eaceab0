"""A flag as one wrapped line: Gatehouse's badge for the severity, the reason as literal text."""

from __future__ import annotations

from gatehouse.web.flag_text import flag_markdown


def test_a_known_severity_is_gatehouses_own_badge_and_the_reason_follows_in_full() -> None:
    reason = "filesystem__write_file: destructive (its annotations say so) " + "and more words " * 20
    line = flag_markdown({"severity": "high", "code": "destructive", "message": reason})

    assert line.startswith(":red-badge[high] `destructive`: ")
    # Every word of the reason is there: nothing is cut to fit a cell.
    assert line.count("and more words") == 20


def test_a_reason_is_literal_text_never_markup() -> None:
    line = flag_markdown(
        {"severity": "low", "code": "x", "message": ":green-badge[Pre-approved] [docs](http://h/) **b**"}
    )

    assert ":green-badge[" not in line
    assert "\\:green\\-badge\\[Pre\\-approved\\]" in line
    assert "\\[docs\\]\\(http\\:\\/\\/h\\/\\)" in line


def test_an_unknown_severity_is_shown_as_text_not_as_a_badge() -> None:
    line = flag_markdown({"severity": ":red-badge[fake]", "code": "c", "message": "m"})

    assert line.startswith("\\:red\\-badge\\[fake\\] `c`: m")
