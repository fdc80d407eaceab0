"""What an approval would do, shown before it is given: the e-mail as it would be sent, the
diff a file write would make.

The current file is read through the same server's own read tool (the host has no business
reading the server's disk) and only when the policy would run that read without a review:
opening a review page must never do something that itself needs approving.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp_host.errors import McpHostError
from mcp_host.manifest import capability_key

if TYPE_CHECKING:
    from mcp_host.client import McpClient
    from policies.engine import PolicyEngine

# Tool names that replace a whole file with new content, and the read tools that return it
# (the bundled filesystem server's and @modelcontextprotocol/server-filesystem's).
WRITE_TOOLS = frozenset({"write_file"})
READ_TOOLS = ("read_text_file", "read_file")
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
    # and ``note`` says why (no such file yet, a read the policy would not allow, a failure).
    current_known: bool
    note: str | None = None
    lines_added: int = 0
    lines_removed: int = 0
    unchanged: bool = False


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


def _current_text(
    mcp: McpClient, policy: PolicyEngine, server: str, path: str
) -> tuple[str | None, str | None]:
    """(content, None) or (None, why it could not be read)."""
    try:
        manifest = mcp.discover(only=[server])
    except McpHostError as exc:
        return None, f"server {server} is not reachable: {exc}"
    for name in READ_TOOLS:
        reader = manifest.find(capability_key(server, name))
        if reader is None:
            continue
        arguments = {"path": path}
        decision = policy.evaluate(reader, arguments)
        if decision.action != "allow":
            return None, f"reading it with {reader.key} would need a review ({decision.rule})"
        result = mcp.call_tool(server, name, arguments)
        if not result.success:
            message = result.error.message if result.error else "failed"
            return None, f"{reader.key}: {message}"
        structured = result.structured or {}
        if isinstance(structured.get("content"), str):
            return structured["content"], None
        return "".join(item.text or "" for item in result.content if item.type == "text"), None
    return None, f"server {server} offers no tool to read the current file"


def file_diff_preview(
    mcp: McpClient, policy: PolicyEngine, server: str, arguments: dict[str, Any]
) -> FileDiffPreview:
    path = str(arguments.get("path") or "")
    new_text = str(arguments.get("content") or "")
    current, note = _current_text(mcp, policy, server, path)
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
        current_known=current is not None,
        note=note,
        lines_added=added,
        lines_removed=removed,
        unchanged=current is not None and current == new_text,
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
