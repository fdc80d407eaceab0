"""What the policy and review modules' docstrings and comments cite is in the repository: no
design brief, no spec outside it, no file that is not there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(path for folder in ("policies", "reviews") for path in (ROOT / folder).rglob("*.py"))
# A file cited by its path; a name in double quotes (or after a backslash) is an example of
# what a tool prints ("src/auth/token.py:12: ..."), not a citation.
_FILE_NAMED = re.compile(r"(?<![\w./\"\\-])[\w./-]+\.(?:py|md|toml|txt|json)\b")


def test_every_file_the_sources_name_exists() -> None:
    missing = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in SOURCES
        for name in _FILE_NAMED.findall(path.read_text(encoding="utf-8"))
        if not (ROOT / name).exists() and not (path.parent / name).exists()
    ]

    assert missing == []


def test_no_source_cites_the_design_brief_or_an_outside_spec() -> None:
    citing = [
        str(path.relative_to(ROOT))
        for path in SOURCES
        if re.search(r"DESIGN\.md|\bthe spec\b|design brief", path.read_text(encoding="utf-8"), re.IGNORECASE)
    ]

    assert citing == []
