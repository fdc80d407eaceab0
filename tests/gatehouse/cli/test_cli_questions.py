"""`gatehouse ask` when a server asks a question during the call: on a terminal (a real pty) the
person answers it there and the tool uses the answer; with no terminal the question is
declined at once and stderr says so."""

from __future__ import annotations

import json
import os
import pty
import select
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.cli_support import run_cli
from tests.questions_server import Ask, entry

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes

REPO = Path(__file__).resolve().parents[3]
FORECAST = "Get the weather forecast with city=Paris"
WAIT_SECONDS = 60


def command(data: Path, ask: Ask, *options: str) -> tuple[list[str], dict[str, str]]:
    servers = data / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"almanac": entry(ask)}}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEHOUSE_")}
    argv = [
        sys.executable,
        "-m",
        "gatehouse.cli",
        "ask",
        "--json",
        "--servers",
        str(servers),
        *options,
        FORECAST,
    ]
    return argv, env | {"GATEHOUSE_DATA": str(data)}


class Terminal:
    """The person at the other end of the command's terminal (its stdin and stderr)."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.seen = ""

    def read_until(self, text: str) -> None:
        deadline = time.monotonic() + WAIT_SECONDS
        while text not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.master], [], [], left)[0]:
                raise AssertionError(f"the terminal never showed {text!r}; it showed:\n{self.seen}")
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # the command closed the terminal
                raise AssertionError(
                    f"the terminal closed before {text!r}; it showed:\n{self.seen}"
                ) from None
            self.seen += chunk.decode(errors="replace")

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")


@contextmanager
def on_a_terminal(data: Path, ask: Ask, *options: str) -> Iterator[tuple[Terminal, subprocess.Popen[str]]]:
    argv, env = command(data, ask, *options)
    master, slave = pty.openpty()
    process = subprocess.Popen(
        argv, stdin=slave, stdout=subprocess.PIPE, stderr=slave, env=env, cwd=REPO, text=True
    )
    os.close(slave)
    try:
        yield Terminal(master), process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
        os.close(master)


def output_of(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdout is not None
    out = process.stdout.read()
    assert process.wait(timeout=WAIT_SECONDS) == 0
    result: dict[str, Any] = json.loads(out)
    return result


def tool_text(output: dict[str, Any]) -> str:
    return " ".join(str(item.get("text", "")) for item in (output["result"] or {}).get("content", []))


def test_on_a_terminal_the_person_fills_in_the_form_and_the_tool_uses_the_answer(tmp_path: Path) -> None:
    with on_a_terminal(tmp_path, "form") as (terminal, process):
        terminal.read_until("almanac asks, during the call: Which units, and for how many days?")
        terminal.read_until("Answer it? [a]nswer, [d]ecline or [c]ancel: ")
        terminal.type("a")
        terminal.read_until("Units * (one of: 1 celsius, 2 fahrenheit) [celsius]: ")
        terminal.type("kelvin")
        terminal.read_until("not understood")
        terminal.type("2")
        terminal.read_until("Days (1 to 7) [3]: ")
        terminal.type("")  # Enter: the server's default
        terminal.read_until("Weather alerts (yes or no) [no]: ")
        terminal.type("y")
        output = output_of(process)

    assert output["status"] == "ok"
    assert tool_text(output) == "Forecast for Paris: 3 day(s) in fahrenheit, alerts on."


def test_on_a_terminal_a_url_question_shows_the_domain_and_is_never_opened(tmp_path: Path) -> None:
    with on_a_terminal(tmp_path, "url") as (terminal, process):
        terminal.read_until("It asks you to open a page at weather.example.com")
        terminal.read_until("the whole address: https://weather.example.com/connect?session=4f2a")
        terminal.read_until("Done? [a]ccept (done), [d]ecline or [c]ancel: ")
        terminal.type("d")
        output = output_of(process)

    assert tool_text(output) == "No forecast for Paris: the question was declined."


def test_on_a_terminal_nobody_answering_lets_the_call_go_on_with_cancel_at_the_policys_timeout(
    tmp_path: Path,
) -> None:
    shipped = (REPO / "policies" / "default.toml").read_text(encoding="utf-8")
    policy = tmp_path / "policy.toml"
    policy.write_text(shipped.replace("timeout_seconds = 300", "timeout_seconds = 2"), encoding="utf-8")
    with on_a_terminal(tmp_path, "form", "--policy", str(policy)) as (terminal, process):
        terminal.read_until("Answer it? [a]nswer, [d]ecline or [c]ancel: ")
        terminal.read_until("No answer within 2 s: the call goes on without one (cancel).")
        output = output_of(process)

    assert tool_text(output) == "No forecast for Paris: the question was cancelled."


def test_without_a_terminal_the_question_is_declined_and_stderr_says_so(tmp_path: Path) -> None:
    argv, _ = command(tmp_path, "form")
    # In this process, whose stdin is not a terminal (the cases above need a real one).
    unset: dict[str, str | None] = {name: None for name in os.environ if name.startswith("GATEHOUSE_")}
    done = run_cli(*argv[3:], env=unset | {"GATEHOUSE_DATA": str(tmp_path)})

    assert done.returncode == 0, done.stderr
    assert tool_text(json.loads(done.stdout)) == "No forecast for Paris: the question was declined."
    assert done.stderr == (
        "gatehouse: almanac asked a question during the call ('Which units, and for how many days?'); "
        "declined: gatehouse ask has no terminal to ask on (its input is not a terminal)\n"
    )


def test_on_a_terminal_a_pin_is_typed_unseen_and_never_stored_in_clear(tmp_path: Path) -> None:
    shipped = (REPO / "policies" / "default.toml").read_text(encoding="utf-8")
    policy = tmp_path / "policy.toml"
    policy.write_text(shipped.replace('secret_forms = "decline"', 'secret_forms = "ask"'), encoding="utf-8")
    pin = "4921"
    with on_a_terminal(tmp_path, "pin", "--policy", str(policy)) as (terminal, process):
        terminal.read_until("asks_for_secret")
        terminal.read_until("Answer it? [a]nswer, [d]ecline or [c]ancel: ")
        terminal.type("a")
        terminal.read_until("Card \u0420IN * (4 digits): ")
        terminal.type(pin)
        output = output_of(process)

    assert tool_text(output) == "Forecast for Paris with a PIN of 4 characters."
    assert pin not in terminal.seen
    with sqlite3.connect(tmp_path / "gatehouse.db") as db:
        rows = db.execute("SELECT content, sealed_answer FROM questions").fetchall()
    assert rows == [('{"card": "***"}', None)]
