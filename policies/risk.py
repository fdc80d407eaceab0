"""The engine's own rating of a capability, from what it does: its name, its description, its
parameters and its annotations.

A capability is rated a read only on positive evidence, never by default. Missing annotations
mean what the MCP specification says they mean (not read-only, destructive, open world), so an
unannotated tool is never taken for harmless. A server's annotations are its own claims: from a
server the policy trusts, "read-only" may clear what the name suggested; from any other server
annotations can only raise the rating. A read-only claim that contradicts the name, the
description or the parameters is itself a finding.

Words are read the same way wherever they appear (``DeleteAll``, ``delete-all``, ``DELETE_ALL``,
"deletes all"), so a capability cannot dodge its rating by spelling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from policies.constraints import is_path_argument
from policies.decision import Flag
from policies.model import Category, ReadOnlyHint
from policies.names import normalise_name, words

if TYPE_CHECKING:
    from mcp_host.manifest import Capability
    from policies.model import Rule

Evidence = Literal["name", "parameters", "description", "annotations", "defaults"]

_DESTRUCTIVE = ("delete", "remove", "drop", "purge", "truncate", "destroy", "wipe", "erase", "unlink", "rm",
                "shred", "obliterate", "nuke", "prune", "overwrite", "format")  # fmt: skip
_WRITES = ("write", "edit", "save", "append", "move", "rename", "upload", "mkdir", "copy", "touch", "chmod")
_SENDS = ("send", "post", "publish", "notify", "email", "mail", "reply", "forward", "message", "sms", "tweet",
          "broadcast", "invite", "share", "dm")  # fmt: skip
_UPDATES = ("update", "set", "patch", "modify", "close", "assign", "commit", "reset", "add", "create", "insert",
            "upsert", "merge", "checkout", "push", "tag", "revert", "rebase", "apply", "store", "put",
            "register", "archive", "tidy", "clean", "cleanup", "import", "migrate", "deploy", "install",
            "uninstall", "grant", "revoke", "approve", "disable", "enable", "ban", "suspend", "cancel",
            "clear", "sync")  # fmt: skip
_PAYS = ("pay", "payment", "payout", "transfer", "charge", "refund", "purchase", "buy", "withdraw", "deposit",
         "wire", "remit", "bill")  # fmt: skip
_COMMANDS = ("exec", "execute", "shell", "command", "eval", "spawn", "bash", "powershell", "cmd", "script",
             "subprocess", "terminal")  # fmt: skip
_CONTROLS = ("run", "kill", "restart", "reboot", "shutdown", "control", "switch", "turn", "unlock", "lock",
             "start", "stop", "halt", "power")  # fmt: skip

# Words in a capability's name or parameter names, by the category they put it in.
_NAME_WORDS: dict[str, Category] = {
    **dict.fromkeys(_WRITES, "writes files"),
    **dict.fromkeys(_UPDATES, "updates records"),
    **dict.fromkeys(_CONTROLS, "controls devices"),
    **dict.fromkeys(_SENDS, "sends messages"),
    **dict.fromkeys(_DESTRUCTIVE, "destructive"),
    **dict.fromkeys(_PAYS, "financial action"),
    **dict.fromkeys(_COMMANDS, "runs commands"),
}
# In free text many of those words are nouns ("the last message", "open tickets by tag"): a
# description counts only the words that say an action whatever their role in the sentence.
_DESCRIPTION_WORDS: dict[str, Category] = {
    word: category
    for word, category in _NAME_WORDS.items()
    if word
    not in {"post", "email", "mail", "message", "sms", "tag", "set", "add", "close", "apply", "store", "put",
            "run", "control", "switch", "turn", "lock", "start", "stop", "power", "script", "command",
            "terminal", "format", "save", "copy", "touch", "share", "clear", "sync", "dm", "rm", "bill",
            "wire", "cmd", "clean", "merge", "checkout", "import", "cancel", "enable", "disable", "commit",
            "reset", "patch", "push", "register", "archive", "revert", "rebase", "log"}
}  # fmt: skip
# In a parameter's name only unambiguous verbs count ("message" is what a search or an echo
# takes; "delete_after" or "send_copy" says the call acts).
_PARAMETER_WORDS: dict[str, Category] = {
    **dict.fromkeys(("delete", "remove", "drop", "purge", "truncate", "destroy", "wipe", "erase", "overwrite",
                     "shred", "unlink"), "destructive"),
    **dict.fromkeys(("exec", "execute", "shell", "command", "cmd", "script", "eval", "spawn"), "runs commands"),
    **dict.fromkeys(("pay", "transfer", "refund", "withdraw"), "financial action"),
    **dict.fromkeys(("send", "notify", "forward", "publish", "broadcast"), "sends messages"),
}  # fmt: skip
# A read says so in its name: list_directory, getWeather, search-tickets, ReadFile.
_READ_WORDS = frozenset(
    {"get", "list", "read", "search", "find", "show", "fetch", "query", "describe", "lookup", "look", "view",
     "count", "inspect", "retrieve", "browse", "summarize", "summarise", "explain", "check", "peek", "stat",
     "info", "status", "preview", "download", "export", "diff", "log", "greet", "echo", "validate",
     "compare", "calculate", "convert", "resolve", "current", "time"}
)  # fmt: skip
_FILE_WORDS = frozenset({"file", "files", "directory", "directories", "folder", "dir", "path"})
# Verbs that act on files whatever they are given (there is nothing else to mkdir).
_FILE_VERBS = frozenset({"mkdir", "chmod"})
_SENSITIVE_WORDS = frozenset(
    {"env", "environ", "environment", "secret", "secrets", "credential", "credentials", "token", "tokens",
     "password", "passwords", "passwd", "apikey", "private"}
)  # fmt: skip
_SENSITIVE_DESCRIPTION = re.compile(
    r"environment variables?|credentials?|secrets?|api[ _-]?keys?|passwords?|access tokens?|private keys?",
    re.IGNORECASE,
)
_RECIPIENT_PARAMS = frozenset({"to", "cc", "bcc", "recipient", "recipients", "email", "emails", "address"})
_AMOUNT_PARAMS = frozenset(
    {"amount", "price", "total", "sum", "value_cents", "amount_cents", "cost", "quantity"}
)
_COMMAND_PARAMS = frozenset({"command", "cmd", "script", "shell", "exec", "commandline", "command_line", "argv",
                             "shell_command"})  # fmt: skip
# Code to run (or to format, or to lint): risky, but not certainly a shell, so it asks a
# reviewer rather than matching the shell rule.
_CODE_PARAMS = frozenset({"code", "program", "source_code"})
# A parameter's name counts only in base form: "delete_after" says the call deletes,
# "updated_since" is a filter of a read.
_PARTICIPLE = re.compile(r"(ed|ing)$")
_ORDER: tuple[Category, ...] = (
    "runs commands",
    "financial action",
    "destructive",
    "controls devices",
    "sends messages",
    "writes files",
    "updates records",
    "sensitive data",
    "open world",
)
# What the MCP specification says an unannotated tool is.
_SPEC_DEFAULTS = {"read_only_hint": False, "destructive_hint": True, "open_world_hint": True}


@dataclass
class Risk:
    categories: list[Category] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    # The first reason found for each category.
    why: dict[str, str] = field(default_factory=dict)
    # Where each category's evidence came from.
    evidence: dict[str, set[Evidence]] = field(default_factory=dict)
    # Positive evidence that the capability only reads (a read verb, a trusted read-only claim,
    # a resource or a prompt). Without it nothing is low risk.
    read: bool = False
    # How the tool's own read-only claim was weighed (what a rule's read_only_hint selects);
    # None for a resource or a prompt, which have no annotations.
    read_only_hint: ReadOnlyHint | None = None

    @property
    def low(self) -> bool:
        return self.read and not self.categories and not self.flags

    def add(self, category: Category, reason: str, source: Evidence) -> None:
        if category not in self.categories:
            self.categories.append(category)
            self.why[category] = reason
        self.evidence.setdefault(category, set()).add(source)
        self.reasons.append(reason)

    def identified(self) -> set[Category]:
        """Categories the capability's own name or parameters put it in: what a rule's
        ``categories`` match (a description or an annotation alone raises risk, never more)."""
        return {c for c in self.categories if self.evidence.get(c, set()) & {"name", "parameters"}}

    def explained(self) -> list[tuple[Category, str]]:
        return [(category, self.why.get(category, "")) for category in self.ordered()]

    def ordered(self) -> list[Category]:
        return sorted(self.categories, key=_ORDER.index)


def _category(word: str, table: dict[str, Category] = _NAME_WORDS) -> Category | None:
    for form in _forms(word):
        category = table.get(form)
        if category is not None:
            return category
    return None


@lru_cache(maxsize=8192)
def _forms(word: str) -> tuple[str, ...]:
    """The word and the base forms it may be inflected from: deletes, deleted, deleting,
    purging, wipes, copies."""
    forms = [word]
    for suffix, replacements in (("ies", ("y",)), ("es", ("", "e")), ("s", ("",)), ("ed", ("", "e")),
                                 ("ing", ("", "e")), ("d", ("",))):  # fmt: skip
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            stem = word[: -len(suffix)]
            forms.extend(stem + r for r in replacements)
            if len(stem) > 2 and stem[-1] == stem[-2]:
                forms.append(stem[:-1])  # stopped -> stop, dropping -> drop
    return tuple(forms)


def _hint(annotations: dict[str, Any], name: str) -> bool | None:
    """An annotation by its snake_case or camelCase name."""
    camel = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)
    value = annotations.get(name, annotations.get(camel))
    return value if isinstance(value, bool) else None


def _rate_words(risk: Risk, capability: Capability) -> list[str]:
    name_words = words(capability.name)
    for word in name_words:
        category = _category(word)
        if category == "updates records" and _FILE_WORDS & set(name_words):
            category = "writes files"
        if category is not None:
            risk.add(category, f"its name says '{word}'", "name")
    for word in words(capability.description):
        category = _category(word, _DESCRIPTION_WORDS)
        if category is not None:
            risk.add(category, f"its description says '{word}'", "description")
    for param in capability.properties:
        for word in words(param):
            if _PARTICIPLE.search(word) and word not in _COMMAND_PARAMS:
                continue
            category = _category(word, _PARAMETER_WORDS)
            if category is not None:
                risk.add(category, f"its parameter '{param}' says '{word}'", "parameters")
    return name_words


# The categories that mean a call changes something outside the answer it returns.
ACTING: frozenset[Category] = frozenset(
    {"runs commands", "financial action", "destructive", "controls devices", "sends messages",
     "writes files", "updates records"}
)  # fmt: skip


def stated_actions(capability: Capability) -> list[Category]:
    """What a capability's own words say it does (name, description, parameters), ignoring
    annotations and the specification's defaults: how a planner tells a tool that writes from
    one that reads. Rating risk is rate()'s job; this only reads the words."""
    risk = Risk()
    _rate_words(risk, capability)
    return [category for category in risk.ordered() if category in ACTING]


def action_of_word(word: str) -> Category | None:
    """The acting category a word names as a verb in a name (``delete``, ``send``, ``commit``)."""
    category = _category(word)
    return category if category in ACTING else None


def verb_form(word: str) -> str:
    """The form the tables know an acting word by ("deletes" is delete); the word itself when
    they know it by no other."""
    return next((form for form in _forms(word) if form in _NAME_WORDS), word)


def described_verbs(text: str) -> list[str]:
    """The verbs free text says an action with, as stated_actions reads a description (only the
    words that act whatever their role), in their base form and the order said: "Creates an
    issue and notifies its watchers" gives create, notify."""
    found: list[str] = []
    for word in words(text):
        form = next((form for form in _forms(word) if form in _DESCRIPTION_WORDS), None)
        if form is not None and form not in found:
            found.append(form)
    return found


def is_read_word(word: str) -> bool:
    """Whether a word is one a read says in its name (``get``, ``list``, ``show``...)."""
    return any(form in _READ_WORDS for form in _forms(word))


def rate(capability: Capability, *, trusted: bool) -> Risk:
    risk = Risk()
    name_words = _rate_words(risk, capability)
    if _SENSITIVE_WORDS & set(name_words):
        risk.add("sensitive data", "it reads environment variables, credentials or secrets", "name")
    elif _SENSITIVE_DESCRIPTION.search(capability.description):
        risk.add("sensitive data", "it reads environment variables, credentials or secrets", "description")
    params = {"_".join(words(name)) for name in capability.properties}
    if params & _RECIPIENT_PARAMS and capability.type == "tool" and "sends messages" not in risk.categories:
        # A recipient alone does not send (a search may filter by sender); a sending verb does.
        risk.reasons.append(f"it takes a recipient ({', '.join(sorted(params & _RECIPIENT_PARAMS))})")
    if params & _AMOUNT_PARAMS and capability.type == "tool":
        risk.add(
            "financial action",
            f"it takes an amount ({', '.join(sorted(params & _AMOUNT_PARAMS))})",
            "parameters",
        )
    if params & _COMMAND_PARAMS and capability.type == "tool":
        risk.add(
            "runs commands",
            f"it takes a command ({', '.join(sorted(params & _COMMAND_PARAMS))})",
            "parameters",
        )
    if params & _CODE_PARAMS and capability.type == "tool":
        risk.add(
            "controls devices", f"it takes code ({', '.join(sorted(params & _CODE_PARAMS))})", "parameters"
        )

    _unless_about_files(risk, capability, name_words)
    if capability.type != "tool":
        # Resources are read and prompts fetched: the protocol gives them no way to act.
        risk.read = True
        risk.categories = risk.ordered()
        return risk
    _rate_annotations(risk, capability, trusted=trusted, reads_by_name=bool(_READ_WORDS & set(name_words)))
    risk.categories = risk.ordered()
    return risk


def _about_files(capability: Capability, name_words: list[str]) -> bool:
    """Whether anything about a capability is a file: a path-like argument (what
    paths_within_roots checks), files or folders in its name or description, or a verb only
    files take."""
    if any(is_path_argument(name) for name in capability.properties):
        return True
    if (_FILE_WORDS | _FILE_VERBS) & set(name_words):
        return True
    return any(form in _FILE_WORDS for word in words(capability.description) for form in _forms(word))


def _unless_about_files(risk: Risk, capability: Capability, name_words: list[str]) -> None:
    """A write with nothing about files (write_query, save_note, move_card) changes data: it is
    rated "updates records", so a file-write rule's reviewer is never told to check a path
    that is not there."""
    if "writes files" not in risk.categories or _about_files(capability, name_words):
        return
    risk.categories.remove("writes files")
    why = risk.why.pop("writes files")
    sources = risk.evidence.pop("writes files")
    if "updates records" not in risk.categories:
        risk.categories.append("updates records")
        risk.why["updates records"] = why
    risk.evidence.setdefault("updates records", set()).update(sources)
    risk.reasons.append("it takes no path and says nothing of files: its writes change data")


def _rate_annotations(risk: Risk, capability: Capability, *, trusted: bool, reads_by_name: bool) -> None:
    stated = {name: _hint(capability.annotations, name) for name in _SPEC_DEFAULTS}
    read_only = stated["read_only_hint"] if stated["read_only_hint"] is not None else False
    if not read_only:
        # destructiveHint and openWorldHint mean something only for a tool that writes.
        destructive = stated["destructive_hint"]
        if destructive is None:
            risk.add(
                "destructive", "it does not say it is read-only or harmless (the MCP default)", "defaults"
            )
        elif destructive:
            risk.add("destructive", "the server marks it destructive", "annotations")
        if not risk.categories:
            source: Evidence = "annotations" if stated["read_only_hint"] is False else "defaults"
            risk.add("updates records", "it is not marked read-only", source)
    open_world = stated["open_world_hint"]
    if open_world is True or (open_world is None and not read_only):
        risk.add(
            "open world",
            "it may reach the open world (the MCP default, or the server says so)",
            "annotations",
        )

    acting = [c for c in risk.categories if c not in ("sensitive data", "open world")]
    if read_only and acting:
        if trusted:
            # A trusted server's read-only claim may clear what its words alone suggested.
            risk.categories = [c for c in risk.categories if c not in acting]
            risk.reasons.append("a trusted server marks it read-only")
            acting = []
        else:
            risk.flags.append(
                Flag(
                    code="annotation_mismatch",
                    severity="high",
                    message=f"{capability.key} is annotated read-only, but {risk.why[acting[0]]}",
                )
            )
    # A read on positive evidence only: a trusted server's read-only claim, or a read verb in
    # the name with a read-only claim nothing contradicts (an untrusted claim alone is not enough).
    risk.read = read_only and (trusted or reads_by_name) and not acting
    risk.read_only_hint = _weighed_claim(stated["read_only_hint"], risk.read, bool(acting))
    if risk.read_only_hint == "unconfirmed":
        # Nothing risky was found, and nothing confirms the claim: say so, or a reviewer sees
        # a tool held with no reason given ("nothing risky found").
        risk.reasons.append(
            "only its server says it is read-only: an untrusted server, and no read verb in its name"
        )
        risk.flags.append(
            Flag(
                code="read_only_unconfirmed",
                severity="medium",
                message=f"{capability.key}: its server marks it read-only, but the policy does not trust"
                f" '{capability.server}' ([servers] trusted) and its name says no read (list, get, search, ...)",
            )
        )


def _weighed_claim(read_only: bool | None, read: bool, acting: bool) -> ReadOnlyHint:
    if read_only is None:
        return "absent"
    if not read_only:
        return "false"
    if read:
        return "confirmed"
    return "contradicted" if acting else "unconfirmed"


def is_amount_argument(name: str) -> bool:
    """Whether an argument is an amount of money or goods (``amount``, ``priceCents``)."""
    return normalise_name(name) in _AMOUNT_PARAMS or bool({"amount", "price", "cost"} & set(words(name)))


def unbounded_amount_flags(capability: Capability, risk: Risk, rules: list[Rule]) -> list[Flag]:
    """Money moved with no bound: a financial action whose amount no matching rule limits (or
    that takes no amount at all, so nothing can limit it) is flagged, whatever it is called."""
    if "financial action" not in risk.categories or capability.type != "tool":
        return []
    amounts = sorted(name for name in capability.properties if normalise_name(name) in _AMOUNT_PARAMS)
    bounded = {
        normalise_name(name)
        for rule in rules
        for name, bound in rule.constraints.numeric.items()
        if bound.max is not None
    }
    if not amounts:
        why = "it takes no amount argument, so no bound can limit what it moves"
    else:
        unbounded = [name for name in amounts if normalise_name(name) not in bounded]
        if not unbounded:
            return []
        why = f"no rule bounds its amount ({', '.join(unbounded)})"
    return [Flag(code="unbounded_amount", severity="high", message=f"{capability.key} moves money: {why}")]
