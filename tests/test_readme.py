"""The README and docs/ stay true: the policy they document is the policy that ships, the tests
the security page cites exist, the commands they name are the CLI's, and every variable the
code reads is on the configuration page."""

from __future__ import annotations

import argparse
import itertools
import re
from pathlib import Path

from gatehouse.cli.commands import _parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# The packages Gatehouse runs from (not its tests, benchmarks or evaluation).
PRODUCT = ("app.py", "gatehouse", "graph", "mcp_host", "policies", "reviews", "servers", "storage", "views")


def test_the_policy_page_shows_the_shipped_default_policy_verbatim() -> None:
    page = (DOCS / "policy.md").read_text(encoding="utf-8")
    policy = (ROOT / "policies" / "default.toml").read_text(encoding="utf-8")

    assert f"```toml\n{policy}```" in page


def test_every_test_the_security_table_cites_exists() -> None:
    page = (DOCS / "security.md").read_text(encoding="utf-8")
    section = page[page.index("# Security") :]
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


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _cli_commands() -> set[tuple[str, str | None]]:
    """Every command of the CLI as (command, action), action None for one without actions."""
    found: set[tuple[str, str | None]] = set()
    for command, sub in _subcommands(_parser()).items():
        actions = _subcommands(sub)
        found |= {(command, action) for action in actions} if actions else {(command, None)}
    return found


def _table_commands(page: Path) -> set[tuple[str, str | None]]:
    """The commands the first column of a page's command table names: `gatehouse policy show`,
    `policy history`, `policy approve\\|reject\\|withdraw ID` (one action or several)."""
    text = page.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    with_actions = {command for command, action in _cli_commands() if action is not None}
    named: set[tuple[str, str | None]] = set()
    for row in rows:
        first_column = re.split(r"(?<!\\)\|", row)[1]
        for span in re.findall(r"`([^`]+)`", first_column):
            words = span.removeprefix("gatehouse ").split()
            if words[0] in with_actions:
                named |= {(words[0], action) for action in words[1].split("\\|")}
            else:
                named.add((words[0], None))
    return named


def test_the_cli_reference_lists_every_command_and_only_commands_there_are() -> None:
    assert _table_commands(DOCS / "cli.md") == _cli_commands()


def test_the_readme_names_every_command_and_only_commands_there_are() -> None:
    named = _table_commands(ROOT / "README.md")
    assert named <= _cli_commands()
    assert {command for command, _ in named} == {command for command, _ in _cli_commands()}


def test_every_gatehouse_command_a_page_shows_exists() -> None:
    commands = _cli_commands()
    with_actions = {command for command, action in commands if action is not None}
    for page in [ROOT / "README.md", *DOCS.glob("*.md")]:
        text = page.read_text(encoding="utf-8")
        for command, action in re.findall(
            r"(?:`|\$ )(?:\.venv/bin/)?gatehouse ([a-z]+)(?: ([a-z][a-z-]*))?", text
        ):
            # A group named alone (`gatehouse reviews`) needs only the group.
            key = (command, action if command in with_actions and action else None)
            known = commands | {(command, None) for command in with_actions}
            assert key in known, f"{page.name} shows `gatehouse {command} {action}`, which is no command"


def test_every_variable_gatehouse_reads_is_on_the_configuration_page() -> None:
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    sources = itertools.chain.from_iterable(
        [ROOT / name] if name.endswith(".py") else (ROOT / name).rglob("*.py") for name in PRODUCT
    )
    read = {
        name
        for source in sources
        for name in re.findall(r"[\"'](GATEHOUSE_[A-Z_]+)[\"']", source.read_text(encoding="utf-8"))
    }
    assert len(read) > 10
    assert {name for name in read if f"`{name}`" not in page and f"`${{{name}}}`" not in page} == set()
