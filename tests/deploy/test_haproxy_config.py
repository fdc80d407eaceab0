"""The proxy setup docs/replicas.md shows is the one the repository ships and the replica test
runs (deploy/haproxy.cfg): a line edited in one place and not the other fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "haproxy.cfg"
DOC = ROOT / "docs" / "replicas.md"


def _code_blocks(markdown: str) -> list[list[str]]:
    return [
        block.strip("\n").splitlines()
        for block in re.findall(r"^```[a-z]*\n(.*?)^```", markdown, re.S | re.M)
    ]


def test_the_proxy_block_the_docs_show_is_the_shipped_configs_word_for_word() -> None:
    shipped = [line.rstrip() for line in CONFIG.read_text(encoding="utf-8").splitlines()]
    [shown] = [
        block for block in _code_blocks(DOC.read_text(encoding="utf-8")) if block[0] == "backend replicas"
    ]
    start = shipped.index("backend replicas")
    assert _without_comments(shipped[start:]) == shown


def _without_comments(lines: list[str]) -> list[str]:
    return [line for line in lines if line.strip() and not line.strip().startswith("#")]


def test_every_address_the_config_reads_from_the_environment_is_documented() -> None:
    settings = _without_comments(CONFIG.read_text(encoding="utf-8").splitlines())
    variables = set(re.findall(r'"\$\{(\w+)\}"', "\n".join(settings)))
    assert variables == {"GATEHOUSE_PROXY_BIND", "GATEHOUSE_REPLICA_1", "GATEHOUSE_REPLICA_2"}
    doc = DOC.read_text(encoding="utf-8")
    assert all(name in doc for name in variables)
