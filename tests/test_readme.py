"""The README stays true: the policy it documents is the policy that ships."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_shows_the_shipped_default_policy_verbatim() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    policy = (ROOT / "policies" / "default.toml").read_text(encoding="utf-8")

    assert f"```toml\n{policy}```" in readme


def test_every_test_the_security_table_cites_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Security") : readme.index("## Architecture")]
    lines = section.splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith("| attack"))
    table = list(itertools.takewhile(lambda line: line.startswith("|"), lines[first:]))
    # One table: no blank line splits it (a row after one would not render as a row).
    assert sum(line.startswith("| ") for line in lines) == len(table)
    cited: list[tuple[str, str | None]] = []
    # `::name` names a test in the file named last, in this row or a row above.
    current = None
    for row in (line for line in section.splitlines() if line.startswith("| ") and "`" in line):
        for ref in re.findall(r"`((?:tests/[\w/]+\.py)?(?:::\w+)?)`", row):
            path, _, name = ref.partition("::")
            current = path or current
            assert current is not None, f"{ref} names no file: {row}"
            cited.append((current, name or None))
    assert len(cited) > 20
    for path, name in cited:
        source = (ROOT / path).read_text(encoding="utf-8")
        if name is not None:
            assert f"def {name}(" in source, f"{path} has no test {name}"
