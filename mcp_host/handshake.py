"""Why a local (stdio) server's session did not open, in words that say what to do.

Before its session opens, a stdio server fails in ways the SDK's words hide. A program that
could not be started is a bare ``FileNotFoundError``, whether its name is not on the PATH, a
relative path was taken from a folder nobody meant, or the folder it is to run in is missing.
A program that is not an MCP server at all reads as an MCP server with a gap: ``/bin/cat``
echoes the initialize request back, the host answers that request "Method not found", and cat
echoes the answer, so the handshake fails with ``Method not found (-32601)``; one that prints
its usage and waits is a timeout; one that prints it and exits is "exited with status 0".

These say which program it was, that it did not answer as an MCP server (initialize failed,
no answer, or it ended first), what it wrote on stdout that is not JSON-RPC and its stderr's
last line, and, where a path was taken relative to a folder, which folder and how to name
another (an absolute path, or the entry's ``cwd``). The kind of error stays what it was
(unavailable, timeout, protocol): only the words change.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcp import MCPError, StdioServerParameters

from mcp_host.config import StdioServer
from mcp_host.errors import ErrorInfo, first_leaf
from mcp_host.server_logs import log_reason
from policies.secrets import DEFAULT_REDACTOR

StdioTarget = StdioServer | StdioServerParameters
# Every MCP server serves initialize: "Method not found" for it means no MCP server answered.
_METHOD_NOT_FOUND = -32601
# How many of a server's relative-looking arguments a message names.
_NAMED_ARGUMENTS = 2


def failed_open(
    target: StdioTarget,
    cause: ErrorInfo,
    *,
    raised: BaseException | None,
    ended: bool,
    stdout_line: str | None,
    log: Path | None,
    connect_timeout: float,
) -> ErrorInfo:
    """The error of a stdio server whose session did not open: ``cause`` as the pool
    classified it, reworded. ``raised``: what opening raised (None when it timed out);
    ``ended``: the process ended during the handshake (``cause`` then says how);
    ``stdout_line``: the first line it wrote on stdout that is not JSON-RPC; ``log``: its log
    (for its stderr's last line)."""
    leaf = None if raised is None else first_leaf(raised)
    if isinstance(leaf, OSError) and not ended:
        return ErrorInfo(kind="unavailable", message=_cannot_start(target, leaf), sent=False)
    command = DEFAULT_REDACTOR.text(target.command)
    if ended:
        detail = f"it ended before answering initialize ({cause.message})"
    elif isinstance(leaf, MCPError) and leaf.code == _METHOD_NOT_FOUND:
        detail = (
            "it answered initialize, which every MCP server serves, with 'Method not found'"
            f" (JSON-RPC error {_METHOD_NOT_FOUND}): a program that echoes its input answers so"
        )
    elif raised is None and cause.kind == "timeout":
        detail = f"no answer to initialize within {connect_timeout:g} s"
    else:
        detail = f"initialize failed: {cause.message}"
    message = f"{command} did not answer as an MCP server: {detail}"
    if stdout_line:
        message += f"; it wrote {stdout_line!r} on stdout, which is not JSON-RPC"
    stderr = log_reason(log, own_only=True) if log is not None else None
    if stderr and stderr not in message:
        message += f"; its stderr's last line: {DEFAULT_REDACTOR.text(stderr)}"
    if ended:
        message += _relative_arguments_hint(target)
    return cause.model_copy(update={"message": message})


def _cannot_start(target: StdioTarget, error: OSError) -> str:
    command = DEFAULT_REDACTOR.text(target.command)
    said = f"cannot start {command}"
    if isinstance(error, PermissionError):
        return f"{said}: permission denied (is it an executable file?)"
    if not isinstance(error, FileNotFoundError):
        return f"{said}: {error.strerror or error}"
    if target.cwd is not None and not Path(target.cwd).is_dir():
        return f"{said}: the folder it is to run in (its cwd), {target.cwd}, does not exist"
    if "/" not in target.command:
        return (
            f"{said}: no program of that name on the PATH the server gets ({_server_path(target)}):"
            " give its absolute path, or install it in a folder on that PATH"
        )
    if Path(target.command).exists():
        return f"{said}: the interpreter its first line (#!) names was not found"
    taken_from = getattr(target, "command_from", None)
    if taken_from is None:
        return f"{said}: no such file"
    folder = (
        f"its cwd, {taken_from}" if taken_from == target.cwd else f"the servers file's folder, {taken_from}"
    )
    return (
        f"{said}: no such file (its relative path was taken from {folder}):"
        " give an absolute path, or set the entry's cwd to the folder the path is relative to"
    )


def _server_path(target: StdioTarget) -> str:
    """The PATH the server's process gets: its entry's, else the host's (mcp_host/transports.py)."""
    if isinstance(target, StdioServer):
        own = target.env.get("PATH")
        if own is not None:
            return own.get_secret_value()
    elif target.env and "PATH" in target.env:
        return target.env["PATH"]
    return os.environ.get("PATH", "")


def _relative_arguments_hint(target: StdioTarget) -> str:
    """For a server that ended at once: where its arguments that read as relative paths
    (``build/index.js``) were taken from, since nothing but its working folder places them.
    A package name (``@scope/name``), a URL, an option and a line of code are not paths."""
    relative = [
        arg
        for arg in target.args
        if "/" in arg
        and not arg.startswith(("/", "-", "@", "~"))
        and "://" not in arg
        and not any(space.isspace() for space in arg)
    ]
    if not relative:
        return ""
    named = ", ".join(DEFAULT_REDACTOR.argv(relative[:_NAMED_ARGUMENTS]))
    folder = (
        f"its cwd, {target.cwd}"
        if target.cwd is not None
        else f"the folder Gatehouse runs in, {Path.cwd()}, as the entry sets no cwd"
    )
    return (
        f"; a relative path among its arguments ({named}) is taken from {folder}:"
        " give absolute paths, or set the entry's cwd (relative to the servers file)"
    )
