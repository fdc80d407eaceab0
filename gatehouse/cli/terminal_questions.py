"""A server's question during `gatehouse ask`, put to the person at the terminal.

The prompts go to stderr (stdout is the command's output, perhaps piped or JSON), the answers
come from stdin, one line each, read with the question's deadline: a person who walks away
does not hold the call past the policy's timeout. A form is asked field by field, each with
its default (Enter takes it), its choices by number or value, and checked as it is typed; a
URL question shows the domain the address leads to and the whole address, and never opens it.
Everything a server wrote is shown with its control characters escaped (gatehouse/display/visible_text.py);
a field that could hold a secret (reviews/asking.py ``secret_fields``) is read without echo.
"""

from __future__ import annotations

import contextlib
import os
import select
import termios
import threading
import time
from collections.abc import Iterator
from typing import Any, TextIO

from gatehouse.display.visible_text import visible
from mcp_host.elicitation import FormField, check_answer, typed_value
from mcp_host.reported import UnavailableError
from reviews.asking import Answer
from reviews.questions import Question


class _Timeout(UnavailableError):
    """The question's deadline passed while waiting for a line."""


class _LineReader:
    """Lines from a file descriptor, each waited for at most until a deadline. Reads the
    descriptor itself, not through Python's buffer, so select() sees every line not yet read."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending = b""
        self.ended = False

    def line(self, deadline: float) -> str | None:
        """The next line without its newline; None at the end of input; _Timeout past ``deadline``."""
        while b"\n" not in self._pending:
            if self.ended:
                if not self._pending:
                    return None
                break
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._fd], [], [], left)[0]:
                raise _Timeout
            chunk = os.read(self._fd, 4096)
            if not chunk:
                self.ended = True
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode("utf-8", errors="replace").rstrip("\r")


@contextlib.contextmanager
def _no_echo(fd: int) -> Iterator[None]:
    """What is typed is not shown (a secret), when the input is a terminal."""
    try:
        before = termios.tcgetattr(fd)
    except termios.error:
        yield
        return
    quiet = list(before)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, before)


class TerminalQuestions:
    """Asks on a terminal; one question at a time (a call may ask several at once)."""

    def __init__(self, stdin: TextIO, out: TextIO) -> None:
        self._fd = stdin.fileno()
        self._reader = _LineReader(self._fd)
        self._out = out
        self._lock = threading.Lock()

    def __call__(
        self, question: Question, fields: list[FormField], secret: set[str], seconds: float
    ) -> Answer | None:
        with self._lock:
            deadline = time.monotonic() + seconds
            try:
                return self._ask(question, fields, secret, deadline)
            except _Timeout:
                self._say(f"\nNo answer within {seconds:.0f} s: the call goes on without one (cancel).")
                return None

    def _say(self, text: str, *, end: str = "\n") -> None:
        self._out.write(text + end)
        self._out.flush()

    def _read(self, prompt: str, deadline: float, *, secret: bool = False) -> str | None:
        self._say(prompt, end="")
        if not secret:
            return self._reader.line(deadline)
        with _no_echo(self._fd):
            line = self._reader.line(deadline)
        self._say("")  # the newline the person typed was not echoed
        return line

    def _ask(
        self, question: Question, fields: list[FormField], secret: set[str], deadline: float
    ) -> Answer | None:
        self._say(f"\n{visible(question.server)} asks, during the call: {visible(question.message)}")
        for flag in question.flags:
            self._say(f"  [{flag['severity']}] {flag['code']}: {visible(str(flag['message']))}")
        if question.mode == "url":
            self._say(f"It asks you to open a page at {visible(question.domain or '?')}")
            self._say(f"  the whole address: {visible(question.url or '')}")
            self._say(
                "  Gatehouse does not open it: open it in your browser yourself if you trust that domain."
            )
            return self._choose("Done? [a]ccept (done), [d]ecline or [c]ancel: ", deadline)
        choice = self._choose("Answer it? [a]nswer, [d]ecline or [c]ancel: ", deadline)
        if choice.action != "accept":
            return choice
        content: dict[str, Any] = {}
        for field in fields:
            # A field that could hold a secret (a PIN as a number too) is read without echo.
            value = self._field(field, deadline, secret=field.name in secret)
            if value is None and self._reader.ended:
                return Answer("cancel")
            if value is not None:
                content[field.name] = value
        return Answer("accept", content)

    def _choose(self, prompt: str, deadline: float) -> Answer:
        while True:
            line = self._read(prompt, deadline)
            if line is None:
                return Answer("cancel")  # the input ended: nobody chose
            word = line.strip().lower()
            if word in ("a", "accept", "answer", "done", "y", "yes"):
                return Answer("accept")
            if word in ("d", "decline", "n", "no"):
                return Answer("decline")
            if word in ("c", "cancel"):
                return Answer("cancel")

    def _field(self, field: FormField, deadline: float, *, secret: bool) -> Any:
        prompt = self._prompt(field)
        while True:
            line = self._read(prompt, deadline, secret=secret)
            if line is None:
                return None
            text = line.strip()
            value = field.default if not text else typed_value(field, text)
            if value is None and not field.required and not text:
                return None
            problems = (
                ["not understood"] if text and value is None else check_answer([field], {field.name: value})
            )
            if not problems:
                return value
            self._say(f"  {visible('; '.join(problems))}")

    @staticmethod
    def _prompt(field: FormField) -> str:
        hints: list[str] = []
        if field.description:
            hints.append(field.description)
        if field.kind in ("choice", "choices"):
            listed = ", ".join(f"{n} {label}" for n, (_, label) in enumerate(field.options, start=1))
            hints.append(("one of: " if field.kind == "choice" else "any of, by commas: ") + listed)
        elif field.kind == "boolean":
            hints.append("yes or no")
        elif field.kind in ("number", "integer") and (field.minimum is not None or field.maximum is not None):
            low = "" if field.minimum is None else f"{field.minimum:g}"
            high = "" if field.maximum is None else f"{field.maximum:g}"
            hints.append(f"{low} to {high}".strip())
        elif field.string_format:
            hints.append(field.string_format)
        hint = f" ({'; '.join(hints)})" if hints else ""
        default = field.default
        shown = (
            ""
            if default is None
            else f" [{'yes' if default is True else 'no' if default is False else ', '.join(default) if isinstance(default, list) else default}]"
        )
        required = " *" if field.required else ""
        return visible(f"{field.label}{required}{hint}{shown}: ")
