"""What an approval would do, shown before it is given: the e-mail as it would be sent, the
diff a file write would make, the fields an update would set on a record. Which capability gets
which preview, and which of its server's tools reads the file, is the policy's declaration
([[effects]], policies/model.py).

The current file is read through the same server's own read tool, only when the policy would
run that read without a review, and a file that does not exist yet is a new file, all added
(graph/effects.py reads it). A file preview carries the binding an approval given on it is
bound to (``binding``): the file the path led to and what it held, checked again right before
the call runs.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graph.effect_records import read_values
from graph.effects import current_file, file_effect, written_path
from graph.email_message import EmailMessage, email_message
from mcp_host.manifest import capability_key

if TYPE_CHECKING:
    from graph.state import EffectBinding
    from mcp_host.client import McpClient
    from policies.engine import PolicyEngine
    from policies.model import EffectDeclaration

DIFF_CONTEXT_LINES = 3


# The message as the read-back compares it (graph/email_message.py): shown as it is compared.
EmailPreview = EmailMessage


@dataclass(frozen=True)
class RecordPreview:
    """The record an update changes (its id, as the read-back's arguments name it) and what
    the update does to it: fields set to a value, values added to a list."""

    record: dict[str, Any]
    sets: dict[str, Any]
    adds: dict[str, Any]


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
    # The file the path leads to, as the server named it (a symlink's target); None when it
    # did not name one.
    target: str | None = None
    # What an approval given on this preview is bound to (None: nothing was known to bind).
    binding: EffectBinding | None = None

    @property
    def elsewhere(self) -> bool:
        """Whether the path leads to another file (a symlink): the write changes that one."""
        return self.target is not None and self.target != self.path


def email_preview(arguments: dict[str, Any]) -> EmailPreview:
    return email_message(arguments)


def record_preview(declared: EffectDeclaration, arguments: dict[str, Any]) -> RecordPreview:
    """What the update's arguments set (``fields``) and add (``appended``), by the record's
    own field names; arguments the call leaves out change nothing and are not shown."""
    return RecordPreview(
        record=read_values(declared, arguments, None),
        sets={field: arguments[a] for a, field in declared.fields.items() if arguments.get(a) is not None},
        adds={
            field: arguments[a]
            for a, field in declared.appended.items()
            if arguments.get(a) not in (None, "")
        },
    )


def file_diff_preview(
    mcp: McpClient, policy: PolicyEngine, server: str, arguments: dict[str, Any], declared: EffectDeclaration
) -> FileDiffPreview:
    path = str(arguments.get(declared.path_argument) or "")
    new_text = str(arguments.get(declared.content_argument) or "")
    now = current_file(mcp, policy, server, path, declared.read)
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
        target=now.target,
        binding=now.binding,
    )


def effect_preview(
    mcp: McpClient, policy: PolicyEngine, capability: dict[str, Any], arguments: dict[str, Any]
) -> EmailPreview | FileDiffPreview | RecordPreview | None:
    """The preview the policy declares for this capability ([[effects]]) with these
    arguments, or None when none is declared."""
    name = capability.get("name")
    server = capability.get("server")
    if capability.get("type") != "tool" or not isinstance(server, str) or not isinstance(name, str):
        return None
    declared = policy.effect_of(capability_key(server, name))
    if declared is not None and declared.preview == "email":
        return email_preview(arguments)
    if declared is not None and declared.preview == "record":
        return record_preview(declared, arguments)
    written = file_effect(policy, capability)
    if written is not None and written_path(written, arguments) is not None:
        return file_diff_preview(mcp, policy, server, arguments, written)
    return None
