"""The policy file's shape. Every field is documented in default.toml, line by line."""

from __future__ import annotations

import math
import posixpath
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

from policies.constraints import path_text_problem
from policies.decision import Action
from policies.names import glob_problem

Category = Literal[
    "writes files",
    "sends messages",
    "updates records",
    "controls devices",
    "runs commands",
    "financial action",
    "sensitive data",
    "destructive",
    "open world",
]
RiskLevel = Literal["low", "elevated"]
# What a tool's server says about reading (readOnlyHint), as the engine weighs it
# (policies/risk.py): "confirmed" (a trusted server says so, or a read verb in the name agrees),
# "unconfirmed" (an untrusted server says so and nothing in the name agrees), "contradicted"
# (the name, description or parameters say it acts), "false" (the server says it is not
# read-only) or "absent" (it does not say: the MCP defaults apply).
ReadOnlyHint = Literal["confirmed", "unconfirmed", "contradicted", "false", "absent"]


class _Strict(BaseModel):
    # strict: a value is taken as TOML typed it, never converted: four_eyes = "0" or "no" is
    # refused, not read as false (which turned four-eyes off), required_approvals = "2" and
    # = true are no numbers. A whole number is still a number where a float belongs (min = 0).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ReviewSettings(_Strict):
    # At most a year: a deadline past the calendar's end would crash every review using it.
    expiry_minutes: int = Field(default=30, gt=0, le=366 * 24 * 60)
    required_approvals: int = Field(default=1, ge=1, le=5)
    four_eyes: bool = True
    reviewer_roles: list[str] = Field(default_factory=lambda: ["reviewer", "admin"])


class PartialReviewSettings(_Strict):
    """A rule's overrides; anything left out comes from [defaults]."""

    expiry_minutes: int | None = Field(default=None, gt=0, le=366 * 24 * 60)
    required_approvals: int | None = Field(default=None, ge=1, le=5)
    four_eyes: bool | None = None
    reviewer_roles: list[str] | None = None


class Defaults(ReviewSettings):
    action: Action = "review"


class NumericBound(_Strict):
    # Finite: an infinite bound is no bound, and NaN makes every comparison false.
    min: float | None = Field(default=None, allow_inf_nan=False)
    max: float | None = Field(default=None, allow_inf_nan=False)


class Constraints(_Strict):
    # Path-like arguments must resolve inside the server's roots (Paths below): no "..", no
    # symlink escape.
    paths_within_roots: bool = False
    # Recipient-like arguments must be addresses at one of these domains.
    recipient_domains: list[str] | None = None
    # Numeric arguments by name, with inclusive bounds.
    numeric: dict[str, NumericBound] = Field(default_factory=dict)
    # Arguments by name that must be there with exactly this value (the same JSON: 1 is not
    # "1" nor 1.0): equals = { repo = "acme/web" }.
    equals: dict[str, JsonValue] = Field(default_factory=dict)
    # Path arguments by name that must be absolute paths resolving inside this folder (no
    # "..", no symlink leading out): under = { path = "/srv/reports" }.
    under: dict[str, str] = Field(default_factory=dict)
    # What a failed constraint does: refuse (deny) or ask a reviewer.
    on_violation: Literal["deny", "review"] = "deny"

    @field_validator("equals")
    @classmethod
    def _finite_values(cls, equals: dict[str, Any]) -> dict[str, Any]:
        for name, value in equals.items():
            if not _finite(value):
                raise ValueError(f"{name}: nan and inf are no argument's value (JSON has neither)")
        return equals

    @field_validator("under")
    @classmethod
    def _absolute_folders(cls, under: dict[str, str]) -> dict[str, str]:
        folders = {}
        for name, folder in under.items():
            problem = path_text_problem(folder)
            if not folder.startswith("/"):
                problem = "is not an absolute folder (a relative one means wherever the server is)"
            if problem is not None:
                raise ValueError(f"{name}: the folder {folder!r} {problem}")
            folders[name] = posixpath.normpath(folder)
        return folders


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    return True


class Rule(_Strict):
    name: str = Field(min_length=1)
    # Globs over capability keys ("server__name"), compared in one spelling: case, camelCase,
    # kebab-case and snake_case alike (policies/names.py).
    match: list[str] = Field(default_factory=list)
    # Globs over capability keys, compared as match is: capabilities the rule does not cover,
    # whatever its match or categories say (an allow rule of their own decides them instead).
    exclude: list[str] = Field(default_factory=list)
    # The rule also applies to every capability the engine puts in one of these categories by
    # its name or parameters, whatever it is called.
    categories: list[Category] = Field(default_factory=list)
    action: Action
    explanation: str = Field(min_length=1)
    category: Category | None = None
    # "low": the rule covers only capabilities the engine rates low-risk itself.
    risk: RiskLevel | None = None
    # The rule covers only tools whose readOnlyHint the engine weighs so (ReadOnlyHint above).
    read_only_hint: ReadOnlyHint | None = None
    # Categories an allow rule knowingly accepts; others still go to review.
    accepts: list[Category] = Field(default_factory=list)
    constraints: Constraints = Field(default_factory=Constraints)
    review: PartialReviewSettings = Field(default_factory=PartialReviewSettings)
    # False: a reviewer may approve this rule's calls one at a time only, never remember an
    # approval for more calls (reviews/grants.py).
    grantable: bool = True

    @field_validator("exclude")
    @classmethod
    def _exclude_globs(cls, exclude: list[str]) -> list[str]:
        for index, glob in enumerate(exclude):
            problem = glob_problem(glob)
            if problem is None and not glob.strip("*"):
                problem = "excludes every capability, so the rule would cover nothing"
            if problem is not None:
                raise ValueError(f"exclude[{index}] {glob!r} {problem}")
        return exclude

    @model_validator(mode="after")
    def _matches_something(self) -> Rule:
        if not self.match and not self.categories:
            raise ValueError("a rule needs match (globs) or categories, or both")
        return self


class Role(_Strict):
    request: bool = True
    # May continue, or answer the questions of, a thread someone else started (recorded in the
    # audit log; the person then counts as a requester for four-eyes).
    take_over_threads: bool = False
    # Categories this role may review; "*" for all, "uncategorised" for the rest.
    review: list[str] = Field(default_factory=list)
    # May connect remote servers (sign in to them for everyone) and sign them out: the Servers page.
    manage_servers: bool = False
    # May propose changes to this policy from the app or the CLI, and approve others' changes
    # (the Policy page; reviews/policy_changes.py).
    manage_policy: bool = False


class Paths(_Strict):
    """Where path arguments must stay, for a server, the first of: its entry in ``servers``
    here, the roots its entry in the servers file declares, ``roots`` here."""

    roots: list[str] = Field(default_factory=list)
    servers: dict[str, list[str]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _servers_name_folders(self) -> Paths:
        for server, roots in self.servers.items():
            if not roots:
                raise ValueError(f"servers.{server}: an empty list would refuse every path; name a folder")
        return self


class Output(_Strict):
    readable_mime_types: list[str] = Field(
        default_factory=lambda: [
            "text/*",
            "application/json",
            "application/xml",
            "application/yaml",
            "*+json",
        ]
    )
    # At most 16 MiB: what is kept goes into the state and every checkpoint after it.
    max_bytes: int = Field(default=64 * 1024, gt=0, le=16 * 1024 * 1024)


class Audit(_Strict):
    # More argument names (globs) to hide, on top of the built-in ones that always apply
    # (policies/secrets.py SECRET_ARGUMENTS): none unless the policy names some.
    redact_arguments: list[str] = Field(default_factory=list)


class Servers(_Strict):
    # Servers whose annotations may lower risk (e.g. readOnlyHint). Others can only raise it.
    trusted: list[str] = Field(default_factory=list)


class Sampling(_Strict):
    """Servers asking the host for a model completion (sampling/createMessage) during a call.
    Every request waits for a reviewer; these bound how many, and for how long."""

    # Requests one server may make in a minute; more are refused at once, without a review.
    # 0 refuses every request of that server.
    requests_per_minute: int = Field(default=5, ge=0, le=1000)
    # Per-server limits (server name = requests per minute) instead of requests_per_minute.
    servers: dict[str, Annotated[int, Field(ge=0, le=1000)]] = Field(default_factory=dict)
    # How long the server's call waits for a reviewer; then the request is refused (expired).
    wait_minutes: int = Field(default=10, gt=0, le=24 * 60)
    # Who may decide them (of these, the roles that review "sampling" or "*"); unset: the
    # [defaults] reviewer_roles.
    reviewer_roles: list[str] | None = None


class Elicitation(_Strict):
    """Questions servers ask the operator during a call (MCP elicitation)."""

    # Servers (globs over their names) whose questions are declined without asking anyone.
    refuse_servers: list[str] = Field(default_factory=list)
    # How long a question waits for its answer; then the call goes on with "cancel". At most a day.
    timeout_seconds: int = Field(default=300, gt=0, le=24 * 60 * 60)
    # A form that asks for a secret (a password, token, API key; the protocol forbids that in
    # form mode): "decline" it without asking, or "ask" with a warning.
    secret_forms: Literal["decline", "ask"] = "decline"


class Gateway(_Strict):
    """Clients calling through Gatehouse's MCP endpoint, `gatehouse serve` (docs/mcp-gateway.md)."""

    # HTTP requests to the endpoint one caller (a roster member, whichever of their tokens they
    # send) may make in a minute, counted in the database across every `gatehouse serve` on it;
    # more are answered 429 with Retry-After before any MCP message is read.
    requests_per_minute: int = Field(default=120, ge=1, le=100_000)
    # A role's own limit (role name = requests per minute) instead of requests_per_minute.
    roles: dict[str, Annotated[int, Field(ge=1, le=100_000)]] = Field(default_factory=dict)


class PolicyChanges(_Strict):
    """Changes to this policy proposed from the app or the command line."""

    # Someone else with manage_policy approves each change; false lets the proposer apply
    # their own (a team of one admin).
    four_eyes: bool = True


_UNGRANTABLE_BY_DEFAULT: tuple[Category, ...] = ("financial action", "destructive")


class Grants(_Strict):
    """Approvals a reviewer remembers for more calls than the one approved (reviews/grants.py)."""

    # False: every call the rules send to review is reviewed, each time.
    enabled: bool = True
    # Calls in these categories (the deciding rule's, or the engine's own rating) are never
    # covered by a remembered approval.
    ungrantable_categories: list[Category] = Field(default_factory=lambda: list(_UNGRANTABLE_BY_DEFAULT))
    # Capability keys (globs, compared as rules compare them) never covered either.
    ungrantable: list[str] = Field(default_factory=list)
    # The longest a grant lasts, whatever the reviewer asked (at most a year).
    max_hours: int = Field(default=24, gt=0, le=366 * 24)


EffectPreview = Literal["file", "email", "record"]

# Where a value for the read comes from (``read_with``): an approved argument, or a field of the
# call's structured result (the id a send returned); dotted names reach into nested objects.
_READ_SOURCE = re.compile(r"(arguments|result)\.[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")
_TEMPLATE_VARIABLE = re.compile(r"\{([^{}]+)\}")


def names_resource_template(read: str) -> bool:
    """Whether an entry of ``read`` names a resource template (its URI template) rather than a
    tool (its name)."""
    return "://" in read


class EffectDeclaration(_Strict):
    """Which capability's effect a reviewer is shown before approving, and how it is read back
    after the call (graph/effect_readback.py): the same server's tools or resource templates,
    in order of preference, that read it. Declared here, beside the rules, because the policy
    is what both the Reviews page (the preview) and the graph (the read-back) already hold, and
    what decides whether that read may run at all."""

    # Capability keys ("server__name" globs, compared as rules compare them).
    match: list[str] = Field(min_length=1)
    # file: the diff of a whole-file write; email: the message as it would be sent; record:
    # the fields an update sets on a record (a ticket, an issue).
    preview: EffectPreview
    # The same server's reads of the effect: a tool's name ("read_text_file") or a resource
    # template's URI template ("ticket://{id}"); empty: it is never verified.
    read: list[str] = Field(default_factory=list)
    # The arguments that name the file and carry its new content (file previews).
    path_argument: str = "path"
    content_argument: str = "content"
    # The read's arguments (a tool's) or its URI template's variables, each from
    # "arguments.NAME" (the approved call's argument) or "result.NAME" (a field of the call's
    # structured result). File previews read the path_argument's file and need none.
    read_with: dict[str, str] = Field(default_factory=dict)
    # Record previews: an argument -> the field of the record read back that must equal it
    # (compared only when the approved call set the argument).
    fields: dict[str, str] = Field(default_factory=dict)
    # Record previews: an argument -> the list in the record read back that must hold it (a
    # note added, a label attached).
    appended: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _reads_are_bound(self) -> EffectDeclaration:
        for name, source in self.read_with.items():
            if not _READ_SOURCE.fullmatch(source):
                raise ValueError(
                    f"read_with.{name}: {source!r} names neither an argument (arguments.id) nor a "
                    "field of the result (result.id)"
                )
        if self.preview != "file":
            for read in filter(names_resource_template, self.read):
                unbound = [v for v in _TEMPLATE_VARIABLE.findall(read) if v not in self.read_with]
                if unbound:
                    raise ValueError(f"read: {read} has {', '.join(unbound)} with no value in read_with")
        if self.preview == "record" and not (self.fields or self.appended):
            raise ValueError("a record preview needs fields or appended: what the update sets")
        return self


# The shipped declarations, used when a policy file declares none: a whole-file write_file
# read back with read_text_file (the bundled filesystem server and
# @modelcontextprotocol/server-filesystem) or read_file (its older name); the bundled e-mail
# server's send_email, read back as the sent message by the id the send returned; the bundled
# tickets server's update_ticket, read back as the ticket.
_SHIPPED_EFFECTS = (
    EffectDeclaration(match=["*__write_file"], preview="file", read=["read_text_file", "read_file"]),
    EffectDeclaration(
        match=["*__send_email"], preview="email", read=["mail://sent/{id}"], read_with={"id": "result.id"}
    ),
    EffectDeclaration(
        match=["*__update_ticket"],
        preview="record",
        read=["ticket://{id}"],
        read_with={"id": "arguments.id"},
        fields={"status": "status", "priority": "priority"},
        appended={"note": "notes"},
    ),
)


class PolicyFile(_Strict):
    version: Literal[1] = 1
    defaults: Defaults = Field(default_factory=Defaults)
    servers: Servers = Field(default_factory=Servers)
    paths: Paths = Field(default_factory=Paths)
    output: Output = Field(default_factory=Output)
    audit: Audit = Field(default_factory=Audit)
    elicitation: Elicitation = Field(default_factory=Elicitation)
    roles: dict[str, Role] = Field(default_factory=dict)
    users: dict[str, str] = Field(default_factory=dict)
    rules: list[Rule] = Field(default_factory=list)
    sampling: Sampling = Field(default_factory=Sampling)
    gateway: Gateway = Field(default_factory=Gateway)
    policy_changes: PolicyChanges = Field(default_factory=PolicyChanges)
    grants: Grants = Field(default_factory=Grants)
    effects: list[EffectDeclaration] = Field(default_factory=lambda: list(_SHIPPED_EFFECTS))
