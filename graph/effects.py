"""What a file write acts on, as its server describes it, and whether that changed since a
reviewer was shown it.

A reviewer approves a write on the preview (gatehouse/web/effect_preview.py): a new file, or the
diff against the file there. Both depend on the disk, which can change between the review and
the call: the file created, deleted, edited, or the path swapped for a symlink to another file.
So the approval is bound to what the preview showed (graph.state.EffectBinding: the path,
whether a file was there, the file it led to, a fingerprint of its content), and that is read
again right before the call (graph/nodes/invocation.py invoke_mcp_capability): a difference is
refused.

The current file is read through the same server's own read tool (the host has no business
reading the server's disk) and only when the policy would run that read without a review:
looking must never do something that itself needs approving.

A write to a file that does not exist yet is a new file: never a failed read. Servers say "not
found" in their own words and with no error code, so absence is read from the read's error
result by the usual wordings, and, where the wording says nothing known, from a listing of the
folder (the same server's own list tool, when the policy would run it without a review): a name
missing from it is a file that does not exist.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graph.state import EffectBinding
from mcp_host.errors import McpHostError
from mcp_host.manifest import capability_key

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mcp_host.client import McpClient
    from mcp_host.manifest import Capability, Manifest
    from mcp_host.results import McpResult
    from policies.decision import Policy, PolicyDecision
    from policies.model import EffectDeclaration

# Which tools replace a whole file, and which of the same server's tools read it, is declared
# per capability in the policy ([[effects]], policies/model.py EffectDeclaration); the folder
# listing that tells a missing file apart is the common list tool's.
LIST_TOOLS = ("list_directory",)

# How servers say a file (or a record) is not there: the bundled servers ("no such file", "no
# such ticket", "no such message"), Node's ENOENT ("ENOENT: no such file or directory",
# @modelcontextprotocol/server-filesystem), Python's FileNotFoundError and errno text, and the
# generic phrasings.
_NOT_FOUND = re.compile(
    r"\bno such \w+|\benoent\b|filenotfound|not found|does not exist|doesn't exist|"
    r"cannot find|can't find|could not find",
    re.IGNORECASE,
)
# A listing's text line as @modelcontextprotocol/server-filesystem writes it: "[FILE] name".
_LISTED = re.compile(r"^\[(?:FILE|DIR)\] (.+)$")


def says_not_found(message: str) -> bool:
    """Whether a failed read's message says the file or record is not there (in any common
    wording)."""
    return _NOT_FOUND.search(message) is not None


@dataclass(frozen=True)
class CurrentFile:
    """What the server says a path holds now: its text (and the file the path leads to, where
    the server names it), or that nothing is there, or why neither is known (``note``)."""

    server: str
    path: str
    text: str | None = None
    absent: bool = False
    target: str | None = None
    note: str | None = None

    @property
    def binding(self) -> EffectBinding | None:
        """What an approval given on this view is bound to; None when nothing is known."""
        if self.note is not None or (self.text is None and not self.absent):
            return None
        return EffectBinding(
            server=self.server,
            path=self.path,
            exists=not self.absent,
            target=self.target,
            sha256=None if self.text is None else hashlib.sha256(self.text.encode("utf-8")).hexdigest(),
        )


def refused_read(decision: PolicyDecision, reader: str) -> str | None:
    """Why the policy does not let a read of an effect run without a review, in its own terms
    (denied, or held for a review, and by which rule); None when it lets it run."""
    if decision.action == "allow":
        return None
    # No rule applied: the policy's defaults decided.
    by = "the policy's defaults" if decision.rule == "default" else f"rule {decision.rule}"
    if decision.action == "deny":
        return f"reading it with {reader} is denied by {by}"
    return f"reading it with {reader} would need a review by {by}"


def file_effect(policy: Policy, capability: dict[str, Any]) -> EffectDeclaration | None:
    """The declaration of a tool that replaces a whole file (a ``file`` preview), or None."""
    server, name = capability.get("server"), capability.get("name")
    if capability.get("type") != "tool" or not isinstance(server, str) or not isinstance(name, str):
        return None
    declared = policy.effect_of(capability_key(server, name))
    return declared if declared is not None and declared.preview == "file" else None


def written_path(declared: EffectDeclaration | None, arguments: dict[str, Any]) -> str | None:
    """The file a call replaces whole, or None when it is no such write."""
    path = arguments.get(declared.path_argument) if declared is not None else None
    return path if isinstance(path, str) else None


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


def _listed_absent(mcp: McpClient, policy: Policy, manifest: Manifest, server: str, path: str) -> bool:
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


def current_file(
    mcp: McpClient, policy: Policy, server: str, path: str, readers: Sequence[str]
) -> CurrentFile:
    """What ``path`` holds now, read through the server's own read tool (the first of
    ``readers`` it offers, see the module)."""
    try:
        manifest = mcp.discover(only=[server])
    except McpHostError as exc:
        return CurrentFile(server=server, path=path, note=f"server {server} is not reachable: {exc}")
    reader = _offered(manifest, server, readers)
    if reader is None:
        return CurrentFile(
            server=server, path=path, note=f"server {server} offers no tool to read the current file"
        )
    arguments = {"path": path}
    refused = refused_read(policy.evaluate(reader, arguments).decision, reader.key)
    if refused is not None:
        return CurrentFile(server=server, path=path, note=refused)
    result = mcp.call_tool(server, reader.name, arguments)
    if not result.success:
        message = result.error.message if result.error else "failed"
        # Only the tool's own error result can mean "not there": a timeout, an unreachable
        # server or refused credentials say nothing about the file.
        own_answer = result.error is not None and result.error.kind == "tool_error"
        if own_answer and (says_not_found(message) or _listed_absent(mcp, policy, manifest, server, path)):
            return CurrentFile(server=server, path=path, absent=True)
        return CurrentFile(server=server, path=path, note=f"{reader.key}: {message}")
    structured = result.structured or {}
    # The bundled server names the file it read, symlinks followed; others may not.
    target = structured.get("path") if isinstance(structured.get("path"), str) else None
    if isinstance(structured.get("content"), str):
        return CurrentFile(server=server, path=path, text=structured["content"], target=target)
    text = "".join(item.text or "" for item in result.content if item.type == "text")
    return CurrentFile(server=server, path=path, text=text, target=target)


def observe(
    mcp: McpClient, policy: Policy, capability: dict[str, Any], arguments: dict[str, Any]
) -> CurrentFile | None:
    """What the call would act on now: the file a whole-file write replaces, as its server
    describes it; None when the call is no such write (its effect is its arguments alone,
    which the call hash binds already: an e-mail is sent as previewed)."""
    server = capability.get("server")
    declared = file_effect(policy, capability)
    path = written_path(declared, arguments)
    if declared is None or path is None or not isinstance(server, str):
        return None
    return current_file(mcp, policy, server, path, declared.read)


def _leads_to(target: str | None, path: str) -> str:
    return f" (it leads to {target})" if target and target != path else ""


def what_changed(
    bound: EffectBinding, now: CurrentFile | None, *, then: str = "the approval was given"
) -> str | None:
    """How the file a write acts on differs from what an approval was given on, in words a
    reviewer and the operator read (``then``: the moment ``bound`` was seen, as the sentence
    names it); None when it does not."""
    path = bound.path
    if now is None or now.path != path or now.server != bound.server:
        return f"{path} on {bound.server} is not the file this call writes"
    binding = now.binding
    if binding is None:
        return f"{path} cannot be checked again against what it was when {then} ({now.note or 'no answer'})"
    if bound.exists and not binding.exists:
        return f"{path} existed when {then} and is gone now"
    if not bound.exists and binding.exists:
        return (
            f"{path} did not exist when {then} and does now{_leads_to(binding.target, path)}: "
            "the write would replace that file instead of creating a new one"
        )
    if bound.target != binding.target:
        return f"{path} led to {bound.target or 'a file the server did not name'} when {then} and leads to {binding.target or 'a file the server does not name'} now"
    if bound.sha256 != binding.sha256:
        return f"{path} changed since {then}: the diff the reviewer saw is not what the write would do"
    return None
