"""`gatehouse ARGS` run in this process through main(argv): what a command prints and the code it
exits with, as a user sees them, without an interpreter start per command (each one imports
LangGraph and the MCP SDK again: seconds on a loaded machine).

Tests where the process itself matters (a closed pipe, a real terminal, a signal, what an
interpreter imports, two deciders racing) start `python -m gatehouse.cli` instead."""

from __future__ import annotations

import io
import sys
from collections.abc import Mapping
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field

import pytest

from gatehouse.cli import main


@dataclass(frozen=True)
class Ran:
    """A finished command, with the fields of subprocess.CompletedProcess that tests read."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str = field(repr=False)


def run_cli(*argv: str, env: Mapping[str, str | None], stdin: str = "") -> Ran:
    """Run one command in-process. ``env`` sets variables for the command (None unsets one),
    restored afterwards; stdin is not a terminal (``stdin`` is what it reads)."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            if value is None:
                patch.delenv(name, raising=False)
            else:
                patch.setenv(name, value)
        patch.setattr(sys, "stdin", io.StringIO(stdin))
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(argv))
    return Ran(list(argv), code, out.getvalue(), err.getvalue())
