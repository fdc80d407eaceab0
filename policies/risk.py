"""The engine's own rating of a capability, from its name, its schema and its annotations.

A server's annotations are its own claims. From a server the policy trusts, "read-only" may
lower the rating; from any other server annotations can only raise it. A claim that
contradicts the name or schema (read-only, but named delete_*) is itself a finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from policies.decision import Flag
from policies.model import Category

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

_WORD = re.compile(r"[a-z]+")
_VERBS: dict[str, Category] = {
    **dict.fromkeys(
        ("write", "edit", "save", "append", "move", "rename", "upload", "mkdir", "copy"), "writes files"
    ),
    **dict.fromkeys(
        ("delete", "remove", "drop", "purge", "truncate", "destroy", "wipe", "erase", "clear", "unlink", "rm"),
        "destructive",
    ),
    **dict.fromkeys(
        ("send", "post", "publish", "notify", "email", "mail", "reply", "forward", "message", "sms", "tweet"),
        "sends messages",
    ),
    **dict.fromkeys(
        (
            "update", "set", "patch", "modify", "close", "assign", "commit", "reset", "add", "create", "insert",
            "upsert", "merge", "checkout", "push", "tag", "revert", "rebase", "apply", "store", "put", "register",
        ),
        "updates records",
    ),
    **dict.fromkeys(
        ("pay", "payment", "transfer", "charge", "refund", "purchase", "buy", "invoice", "withdraw", "deposit"),
        "financial action",
    ),
    **dict.fromkeys(
        (
            "exec", "execute", "run", "shell", "command", "spawn", "eval", "kill", "restart", "reboot", "shutdown",
            "control", "switch", "turn", "unlock", "lock", "start", "stop",
        ),
        "controls devices",
    ),
}  # fmt: skip
_FILE_WORDS = frozenset({"file", "files", "directory", "directories", "folder", "dir", "path"})
_SENSITIVE_WORDS = frozenset(
    {"env", "environ", "environment", "secret", "secrets", "credential", "credentials", "token", "tokens",
     "password", "passwords", "passwd", "apikey", "private"}
)  # fmt: skip
_SENSITIVE_DESCRIPTION = re.compile(
    r"environment variables?|credentials?|secrets?|api[ _-]?keys?|passwords?|access tokens?|private keys?",
    re.IGNORECASE,
)
_RECIPIENT_PARAMS = frozenset({"to", "cc", "bcc", "recipient", "recipients", "email", "emails", "address"})
_AMOUNT_PARAMS = frozenset({"amount", "price", "total", "sum", "value_cents", "amount_cents", "cost"})
_COMMAND_PARAMS = frozenset({"command", "cmd", "script", "shell", "code", "exec", "program"})
_ORDER: tuple[Category, ...] = (
    "financial action",
    "destructive",
    "controls devices",
    "sends messages",
    "writes files",
    "updates records",
    "sensitive data",
    "open world",
)


@dataclass
class Risk:
    categories: list[Category] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    # The first reason found for each category.
    why: dict[str, str] = field(default_factory=dict)

    @property
    def low(self) -> bool:
        return not self.categories and not self.flags

    def add(self, category: Category, reason: str) -> None:
        if category not in self.categories:
            self.categories.append(category)
            self.why[category] = reason
        self.reasons.append(reason)

    def explained(self) -> list[tuple[Category, str]]:
        return [(category, self.why.get(category, "")) for category in self.ordered()]

    def ordered(self) -> list[Category]:
        return sorted(self.categories, key=_ORDER.index)


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return _WORD.findall(spaced.lower())


def _hint(annotations: dict[str, Any], name: str) -> bool | None:
    """An annotation by its snake_case or camelCase name."""
    camel = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)
    value = annotations.get(name, annotations.get(camel))
    return value if isinstance(value, bool) else None


def rate(capability: Capability, *, trusted: bool) -> Risk:
    risk = Risk()
    words = _words(capability.name)
    for word in words:
        category = _VERBS.get(word)
        if category == "updates records" and _FILE_WORDS & set(words):
            category = "writes files"
        if category is not None:
            risk.add(category, f"its name says '{word}'")
    if _SENSITIVE_WORDS & set(words) or _SENSITIVE_DESCRIPTION.search(capability.description):
        risk.add("sensitive data", "it reads environment variables, credentials or secrets")
    params = {name.lower() for name in capability.properties}
    if params & _RECIPIENT_PARAMS and capability.type == "tool" and "sends messages" not in risk.categories:
        # A recipient alone does not send (a search may filter by sender); a sending verb does.
        risk.reasons.append(f"it takes a recipient ({', '.join(sorted(params & _RECIPIENT_PARAMS))})")
    if params & _AMOUNT_PARAMS:
        risk.add("financial action", f"it takes an amount ({', '.join(sorted(params & _AMOUNT_PARAMS))})")
    if params & _COMMAND_PARAMS and capability.type == "tool":
        risk.add("controls devices", f"it takes a command ({', '.join(sorted(params & _COMMAND_PARAMS))})")

    annotations = capability.annotations
    read_only = _hint(annotations, "read_only_hint")
    if _hint(annotations, "destructive_hint") is True and read_only is not True:
        risk.add("destructive", "the server marks it destructive")
    if _hint(annotations, "open_world_hint") is True:
        risk.add("open world", "the server says it reaches the open world")
    if read_only is False and capability.type == "tool" and not risk.categories:
        risk.add("updates records", "the server says it is not read-only")
    acting = [c for c in risk.categories if c not in ("sensitive data", "open world")]
    if read_only is True and acting:
        if trusted:
            # A trusted server's read-only claim may clear what the name alone suggested.
            risk.categories = [c for c in risk.categories if c not in acting]
            risk.reasons.append("a trusted server marks it read-only")
        else:
            risk.flags.append(
                Flag(
                    code="annotation_mismatch",
                    severity="high",
                    message=f"{capability.key} is annotated read-only, but {risk.reasons[0]}",
                )
            )
    risk.categories = risk.ordered()
    return risk
