"""What the configured MCP servers offer, in one JSON-serialisable shape.

Capability keys are namespaced ``server__name`` so equal names on two servers never collide.
Resource templates and prompts get an input schema too (from the URI variables and the
prompt arguments), so the planner extracts arguments for every capability type the same way.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from mcp_host.errors import ErrorInfo

CapabilityType = Literal["tool", "resource", "resource_template", "prompt"]
KEY_SEPARATOR = "__"


def capability_key(server: str, name: str) -> str:
    return f"{server}{KEY_SEPARATOR}{name}"


# How much less alike than the closest a name may be and still be offered beside it: a typo's
# one right spelling alone, several only when they are about as near.
_NEAR_AS_THE_CLOSEST = 0.05


def closest(word: str, known: Iterable[str]) -> list[str]:
    """The names in ``known`` that ``word`` most likely misspells, closest first (at most three)."""
    close = difflib.get_close_matches(word, list(known), n=3)
    alike = [difflib.SequenceMatcher(None, word, name).ratio() for name in close]
    return [
        name for name, ratio in zip(close, alike, strict=True) if ratio >= alike[0] - _NEAR_AS_THE_CLOSEST
    ]


class Capability(BaseModel):
    """One tool, resource, resource template or prompt offered by one server."""

    model_config = ConfigDict(frozen=True)

    key: str
    server: str
    type: CapabilityType
    name: str
    title: str | None = None
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=dict)
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] = Field(default_factory=dict)
    mime_type: str | None = None
    uri: str | None = None
    uri_template: str | None = None
    # The admin's words for it from the servers file (mcp_host/capability_notes.py): example
    # requests and other names. Not the server's definition, so not in the fingerprint: an
    # approval stays bound to what the server offers, whatever the team calls it.
    examples: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)

    # Cached: the model is frozen, and the hash is read many times per request.
    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def fingerprint(self) -> str:
        """A hash of what a reviewer approves: the definition, not the server's name for it.

        A server that changes a tool's description or schema after a review (a "rug pull")
        changes this value, so an approval given for the old definition no longer matches.
        """
        definition = {
            "type": self.type,
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
            "annotations": self.annotations,
            "uri": self.uri,
            "uri_template": self.uri_template,
        }
        canonical = json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    @property
    def required_arguments(self) -> list[str]:
        required = self.input_schema.get("required", [])
        return [str(name) for name in required] if isinstance(required, list) else []

    @property
    def properties(self) -> dict[str, dict[str, Any]]:
        props = self.input_schema.get("properties", {})
        return props if isinstance(props, dict) else {}

    def ref(self) -> dict[str, str]:
        """The short reference used in final_output: server, type, name."""
        return {"server": self.server, "type": self.type, "name": self.name}


class MissingMethod(BaseModel):
    """An optional list method the server declared but did not serve: answered with an error
    (-32601 Method not found, often), or not within the call timeout. The rest of the server's
    offer stands without it."""

    model_config = ConfigDict(frozen=True)

    method: str
    error: ErrorInfo

    def describe(self) -> str:
        return f"{self.method}: {self.error.message}"


class ServerManifest(BaseModel):
    """One server's offer, or the error that kept us from learning it."""

    name: str
    ok: bool
    error: ErrorInfo | None = None
    protocol_version: str | None = None
    server_version: str | None = None
    capabilities: list[Capability] = Field(default_factory=list)
    # Entries the server offered that the host could not use (bad schema, duplicate name).
    rejected: list[str] = Field(default_factory=list)
    # Optional list methods that failed (mcp_host/sdk_client.py OPTIONAL_LISTINGS): the server
    # is usable without what they would have listed. Not problems(): a gap, not a failure.
    missing: list[MissingMethod] = Field(default_factory=list)
    # The server declared list_changed for every kind it lists: it promises to say when its
    # offer changes (whether to rely on that promise is the policy's call: trusted servers).
    announces_changes: bool = False
    # Folders the server's configuration gives it (mcp_host/folders.py): where its paths live.
    folders: list[str] = Field(default_factory=list)

    def problems(self) -> list[str]:
        """This server's error and rejected entries, one line each."""
        lines = [f"server {self.name}: {self.error.kind}: {self.error.message}"] if self.error else []
        return lines + [f"server {self.name}: {reason}" for reason in self.rejected]


class Manifest(BaseModel):
    servers: list[ServerManifest] = Field(default_factory=list)

    def capabilities(self) -> list[Capability]:
        return [cap for server in self.servers if server.ok for cap in server.capabilities]

    def server_names(self) -> list[str]:
        return [server.name for server in self.servers]

    def server(self, name: str) -> ServerManifest | None:
        return next((server for server in self.servers if server.name == name), None)

    def find(self, key: str) -> Capability | None:
        return next((cap for cap in self.capabilities() if cap.key == key), None)

    def not_offered(self, key: str) -> str:
        """Why ``key`` finds nothing, for the person who wrote it: the closest keys offered (a
        typo, the server's name misremembered), else how many there are and where they are."""
        known = [cap.key for cap in self.capabilities()]
        close = closest(key, known)
        hint = (
            f"did you mean {', '.join(close)}?"
            if close
            else f"{len(known)} capabilities are offered (`gatehouse capabilities` lists them)"
        )
        return f"no configured server offers {key}; {hint}"

    def problems(self) -> list[str]:
        """Every server error and rejected entry, as lines for the record (the run's errors)."""
        return [line for server in self.servers for line in server.problems()]
