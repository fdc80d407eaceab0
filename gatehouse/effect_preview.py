"""What an approval would do, shown before it is given: the e-mail as it would be sent, the
diff a file write would make.

The current file is read through the same server's own read tool (the host has no business
reading the server's disk) and only when the policy would run that read without a review:
opening a review page must never do something that itself needs approving.

A write to a file that does not exist yet is a new file, shown as all added: never as a failed
read. Servers say "not found" in their own words and with no error code, so absence is read
from the read's error result by the usual wordings, and, where the wording says nothing
known, from a listing of the folder (the same server's own list tool, when the policy would
run it without a review): a name missing from it is a file that does not exist.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp_host.errors import McpHostError
from mcp_host.manifest import capability_key

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mcp_host.client import McpClient
    from mcp_host.manifest import Capability, Manifest
    from mcp_host.results import McpResult
    from policies.engine import PolicyEngine

# Tool names that replace a whole file with new content, and the read tools that return it
# (the bundled filesystem server's and @modelcontextprotocol/server-filesystem's).
WRITE_TOOLS = frozenset({"write_file"})
READ_TOOLS = ("read_text_file", "read_file")
LIST_TOOLS = ("list_directory",)
SEND_TOOLS = frozenset({"send_email"})
DIFF_CONTEXT_LINES = 3


@dataclass(frozen=True)
class EmailPreview:
    to: list[str]
    cc: list[str]
    subject: str
    body: str


@dataclass(frozen=True)
class FileDiffPreview:
    path: str
    diff: str
    # False when the current content could not be read: the diff is then against nothing,
    # and ``note`` says why (a read the policy would not allow, a failure).
    current_known: bool
    note: str | None = None
    lines_added: int = 0
    lines_removed: int = 0
    unchanged: bool = False
    # The file does not exist yet: the write creates it, every line is added.
    new_file: bool = False


# How servers say a file is not there: the bundled server ("no such file"), Node's ENOENT
# ("ENOENT: no such file or directory", @modelcontextprotocol/server-filesystem), Python's
# FileNotFoundError and errno text, and the generic phrasings.
_NOT_FOUND = re.compile(
    r"no such file|\benoent\b|filenotfound|not found|does not exist|doesn't exist|"
    r"cannot find|can't find|could not find|no such path",
    re.IGNORECASE,
)
# A listing's text line as @modelcontextprotocol/server-filesystem writes it: "[FILE] name".
_LISTED = re.compile(r"^\[(?:FILE|DIR)\] (.+)$")


def says_not_found(message: str) -> bool:
    """Whether a failed read's message says the file is not there (in any common wording)."""
    return _NOT_FOUND.search(message) is not None


def _addresses(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, str) and value.strip():
        return [part.strip() for part in value.replace(";", ",").split(",") if part.strip()]
    return []


def email_preview(arguments: dict[str, Any]) -> EmailPreview:
    return EmailPreview(
        to=_addresses(arguments.get("to")),
        cc=_addresses(arguments.get("cc")),
        subject=str(arguments.get("subject") or "(no subject)"),
        body=str(arguments.get("body") or ""),
    )


@dataclass(frozen=True)
class _Current:
    """What the server says the file holds now: its text, or that it is absent, or why
    neither is known (``note``)."""

    text: str | None = None
    absent: bool = False
    note: str | None = None


def _listed_names(result: McpResult) -> set[str] | None:
    """The names a directory listing holds, or None when its shape is not one known here."""
    entries = (result.structured or {}).get("entries")
    if isinstance(entries, list):
        return {str(e["name"]) for e in entries if isinstance(e, dict) and "name" in e}
    lines = [
        line.strip()
        for item in result.content
        if item.type == "text"
        for line in (item.text or "").splitlines()
        if line.strip()
    ]
    matches = [_LISTED.match(line) for line in lines]
    if not lines or not all(matches):
        return None
    return {match.group(1) for match in matches if match}


def _offered(manifest: Manifest, server: str, tools: Sequence[str]) -> Capability | None:
    """The first of ``tools`` (in order of preference) that the server offers."""
    found = (manifest.find(capability_key(server, tool)) for tool in tools)
    return next((capability for capability in found if capability is not None), None)


def _listed_absent(mcp: McpClient, policy: PolicyEngine, manifest: Manifest, server: str, path: str) -> bool:
    """True when the server's own listing of the file's folder shows no such name."""
    folder, name = posixpath.split(path.rstrip("/"))
    lister = _offered(manifest, server, LIST_TOOLS)
    if lister is None:
        return False
    arguments = {"path": folder or "."}
    if policy.evaluate(lister, arguments).decision.action != "allow":
        return False
    listing = mcp.call_tool(server, lister.name, arguments)
    names = _listed_names(listing) if listing.success else None
    return names is not None and name not in names


def _current_text(mcp: McpClient, policy: PolicyEngine, server: str, path: str) -> _Current:
    try:
        manifest = mcp.discover(only=[server])
    except McpHostError as exc:
        return _Current(note=f"server {server} is not reachable: {exc}")
    reader = _offered(manifest, server, READ_TOOLS)
    if reader is None:
        return _Current(note=f"server {server} offers no tool to read the current file")
    arguments = {"path": path}
    decision = policy.evaluate(reader, arguments).decision
    if decision.action != "allow":
        return _Current(note=f"reading it with {reader.key} would need a review ({decision.rule})")
    result = mcp.call_tool(server, reader.name, arguments)
    if not result.success:
        message = result.error.message if result.error else "failed"
        # Only the tool's own error result can mean "not there": a timeout, an unreachable
        # server or refused credentials say nothing about the file.
        own_answer = result.error is not None and result.error.kind == "tool_error"
        if own_answer and (says_not_found(message) or _listed_absent(mcp, policy, manifest, server, path)):
            return _Current(absent=True)
        return _Current(note=f"{reader.key}: {message}")
    structured = result.structured or {}
    if isinstance(structured.get("content"), str):
        return _Current(text=structured["content"])
    return _Current(text="".join(item.text or "" for item in result.content if item.type == "text"))


def file_diff_preview(
    mcp: McpClient, policy: PolicyEngine, server: str, arguments: dict[str, Any]
) -> FileDiffPreview:
    path = str(arguments.get("path") or "")
    new_text = str(arguments.get("content") or "")
    now = _current_text(mcp, policy, server, path)
    current = now.text
    before = current or ""
    before_lines = before.splitlines(keepends=True)
    after_lines = new_text.splitlines(keepends=True)
    diff_lines = list(
        difflib.unified_diff(
            before_lines,
            after_lines,
            fromfile=f"a/{path}" if current is not None else "/dev/null",
            tofile=f"b/{path}",
            n=DIFF_CONTEXT_LINES,
        )
    )
    # A last line without a newline would run into the next diff line.
    diff = "".join(line if line.endswith("\n") else line + "\n" for line in diff_lines)
    # Past the two header lines, a line's first character is its kind; a removed "---" line
    # reads "----", so the header must be skipped by position, not by prefix.
    body = diff_lines[2:]
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    return FileDiffPreview(
        path=path,
        diff=diff,
        # A file that does not exist is known: it holds nothing, and the write creates it.
        current_known=current is not None or now.absent,
        note=now.note,
        lines_added=added,
        lines_removed=removed,
        unchanged=current is not None and current == new_text,
        new_file=now.absent,
    )


def effect_preview(
    mcp: McpClient, policy: PolicyEngine, capability: dict[str, Any], arguments: dict[str, Any]
) -> EmailPreview | FileDiffPreview | None:
    """The preview for this capability and these arguments, or None when none is known."""
    name = capability.get("name")
    server = capability.get("server")
    if capability.get("type") != "tool" or not isinstance(server, str):
        return None
    if name in SEND_TOOLS:
        return email_preview(arguments)
    if name in WRITE_TOOLS and isinstance(arguments.get("path"), str):
        return file_diff_preview(mcp, policy, server, arguments)
    return None
