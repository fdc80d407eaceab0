"""Running the malicious servers of this folder through the real CLI, in-process.

Each test gets a data folder (server logs land in ``logs/servers/``), a SQLite file, a servers
file naming only the servers it needs (each started with this interpreter as
``python -m tests.adversarial.<module>``) and a small policy that trusts them, so what the
test shows does not depend on how the shipped policy rates an unknown server.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gatehouse.cli import main

REPO = Path(__file__).resolve().parents[2]

# Everything a terminal may act on instead of showing: C0 controls other than tab and newline
# (ESC, CR, BS, BEL, ...), DEL, the C1 controls (CSI U+009B, OSC U+009D, ...) and the Unicode
# line and paragraph separators.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")

_POLICY = """
version = 1

[defaults]
action = "review"
reviewer_roles = ["reviewer"]

[servers]
trusted = {trusted}

[roles.operator]
request = true
review = []

[roles.reviewer]
request = true
review = ["*"]

[users]
operator = "operator"
reviewer = "reviewer"

[[rules]]
name = "reads"
match = ["*"]
risk = "low"
action = "allow"
explanation = "Reads that change nothing."
"""


def control_characters(text: str) -> list[str]:
    """The terminal control characters in ``text``, as U+XXXX, each once."""
    return sorted({f"U+{ord(ch):04X}" for ch in _CONTROL.findall(text)})


# Drawn as nothing, beside the format characters: the combining grapheme joiner, Hangul
# fillers, Khmer inherent vowels, variation selectors and the blank Braille pattern.
_BLANK = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0, *range(0xFE00, 0xFE10)}


def invisible_characters(text: str) -> list[str]:
    """The characters in ``text`` a reader cannot see (format characters such as the zero-width
    space, word joiner, BOM and tags, and the blanks above), as U+XXXX, each once."""
    return sorted(
        {f"U+{ord(ch):04X}" for ch in text if unicodedata.category(ch) == "Cf" or ord(ch) in _BLANK}
    )


@dataclass(frozen=True)
class Printed:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@dataclass(frozen=True)
class Gatehouse:
    """The CLI with this test's data folder, database, servers and policy."""

    data: Path
    options: tuple[str, ...]
    capsys: pytest.CaptureFixture[str]

    def run(self, *args: str) -> Printed:
        code = main([*args, *self.options])
        captured = self.capsys.readouterr()
        return Printed(code=code, out=captured.out, err=captured.err)

    def server_log(self, name: str) -> str:
        return (self.data / "logs" / "servers" / f"{name}.log").read_text(encoding="utf-8")


def write_configuration(tmp_path: Path, servers: dict[str, str]) -> tuple[Path, Path]:
    """A servers file and a policy for ``servers`` (server name -> module in this folder)."""
    entries = {
        name: {"command": sys.executable, "args": ["-m", f"tests.adversarial.{module}"], "cwd": str(REPO)}
        for name, module in servers.items()
    }
    servers_file = tmp_path / "servers.json"
    servers_file.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    policy = tmp_path / "policy.toml"
    policy.write_text(_POLICY.format(trusted=json.dumps(sorted(servers))), encoding="utf-8")
    return servers_file, policy


@contextmanager
def web_app_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, servers: dict[str, str]) -> Iterator[None]:
    """The web app's services (tests/app/test_app.py drives its pages) on ``servers`` (server name
    -> module in this folder), this test's data folder and SQLite file; closed afterwards."""
    from gatehouse.web.page import services  # imports Streamlit: only for the tests of the pages

    servers_file, policy = write_configuration(tmp_path, servers)
    monkeypatch.setenv("GATEHOUSE_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("GATEHOUSE_SERVERS", str(servers_file))
    monkeypatch.setenv("GATEHOUSE_POLICY", str(policy))
    monkeypatch.delenv("GATEHOUSE_DB", raising=False)
    services.clear()
    yield
    services().close()
    services.clear()


def gatehouse_with(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    servers: dict[str, str],
) -> Gatehouse:
    """``servers`` maps a server name to its module in this folder."""
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("GATEHOUSE_DATA", str(data))
    for variable in ("GATEHOUSE_DB", "GATEHOUSE_SERVERS", "GATEHOUSE_POLICY"):
        monkeypatch.delenv(variable, raising=False)
    servers_file, policy = write_configuration(tmp_path, servers)
    options = (
        "--servers",
        str(servers_file),
        "--policy",
        str(policy),
        "--db",
        str(tmp_path / "gatehouse.db"),
    )
    return Gatehouse(data=data, options=options, capsys=capsys)
