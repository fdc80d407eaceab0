"""Server configuration in the formats users already have.

Reads Claude Desktop's and ``.mcp.json``'s ``mcpServers`` and VS Code's ``servers``: stdio
entries (command, args, env, cwd) and remote entries (type "http", url, headers). Either kind
may declare ``roots``: the folders the server is told it may work in (MCP roots), which are
also the folders the policy confines its path arguments to (policies/engine.py). ``${VAR}``
(and VS Code's ``${env:VAR}``) in any string is taken from the environment
(mcp_host/variables.py, the expander the policy file uses too), so secrets stay out of the file.
Every problem is reported as one line naming the file, the entry and the reason.

One broken entry (a bad key, a missing command, an unset variable, a bad URL, a key given
twice inside it) costs only that entry when the file is read with ``skip_broken``: the others
load, and the broken one is kept as a ConfigProblem on the config, for the Servers page and
the command line to name. A name given twice (JSON would keep the last without a word) loads
the first; each repeat is a problem of its own (``crm (2nd)``). A file none of whose entries
loads is one error naming every entry's problem (ServersConfig.unusable), and a key no entry
has is named with the known key nearest to it (mcp_host/known_keys.py: ``comand``).

A ``command`` written as a relative path is taken from the entry's ``cwd``, else from the
file's folder (like ``cwd`` and ``roots``); a bare name is looked up on the PATH when the server
starts, as other hosts do. ``args`` are passed as written. A file
that cannot be read at all, and one that names one of Gatehouse's own secrets (a file out to
take them, whichever entry asks), load nothing. Gatehouse's own ``capabilities`` key holds an
admin's example requests and aliases per capability (mcp_host/capability_notes.py,
docs/capabilities.md).

Secrets (env values and headers) are held in ``SecretStr``: their repr, their model dump and
every description this module produces show them redacted, and so are user:password and
secret-like query parameters in URLs and secrets in a command line (policies/secrets.py).
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from mcp_host.bounded_json import BoundedJsonError, JsonObject, first_repeat, loads_bounded
from mcp_host.capability_notes import CapabilityNotes, NotesError, parse_capability_notes
from mcp_host.errors import McpHostError
from mcp_host.known_keys import did_you_mean, written_as
from mcp_host.manifest import KEY_SEPARATOR
from mcp_host.oauth_config import DEFAULT as DEFAULT_OAUTH
from mcp_host.oauth_config import OAuthConfigError, OAuthSettings, parse_oauth
from mcp_host.reported import UsageError
from mcp_host.variables import SecretVariableError, VariableError, expand_variables
from policies.names import normalise_name
from policies.secrets import DEFAULT_REDACTOR, REDACTED

_SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_HTTP_TYPES = {"http", "streamable-http", "streamablehttp", "streamable_http"}
# "timeout" (seconds per call) and "capabilities" (an admin's examples and aliases,
# mcp_host/capability_notes.py) are Gatehouse's own keys; the others are the common format.
_STDIO_KEYS = {
    "type",
    "command",
    "args",
    "env",
    "cwd",
    "envFile",
    "disabled",
    "timeout",
    "roots",
    "capabilities",
}
_HTTP_KEYS = {"type", "url", "headers", "disabled", "timeout", "roots", "oauth", "capabilities"}
_ROOT_KEYS = {"uri", "name"}
# A call that may take longer than a day is not waited for by a person at a terminal.
MAX_TIMEOUT_SECONDS = 24 * 60 * 60


class ConfigError(McpHostError, UsageError):
    """An invalid configuration: ``where`` names the file and entry, ``reason`` says why."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


class SecretReferenceError(ConfigError):
    """An entry names one of Gatehouse's own secrets (mcp_host/variables.py): the whole file
    is refused, since a file that asks for them is not one to run any server from."""


class NoUsableServersError(ConfigError):
    """A servers file none of whose entries could be loaded: refused as a whole, naming every
    entry's problem (each its file, entry and key), one a line, so that one broken entry is
    never taken for the whole file's failure, nor the other entries' mistakes left unsaid."""

    def __init__(self, source: str, problems: Sequence[ConfigProblem]) -> None:
        super().__init__(source, f"none of the {len(problems)} entries could be used; each one's problem:")
        self.problems = list(problems)

    @property
    def lines(self) -> list[str]:
        return [f"{self.where}: {self.reason}", *(problem.message for problem in self.problems)]

    def __str__(self) -> str:
        return "\n".join(self.lines)


class ConfigProblem(BaseModel):
    """An entry of the servers file that could not be loaded, or the file itself (entry None)."""

    model_config = ConfigDict(frozen=True)

    entry: str | None
    where: str
    reason: str

    @property
    def message(self) -> str:
        return f"{self.where}: {self.reason}"

    @classmethod
    def of(cls, error: ConfigError, entry: str | None) -> ConfigProblem:
        return cls(entry=entry, where=error.where, reason=error.reason)

    def error(self) -> ConfigError:
        return ConfigError(self.where, self.reason)


class ServerRoot(BaseModel):
    """One declared root: an absolute folder (resolved, like ``cwd``) and an optional name."""

    model_config = ConfigDict(frozen=True)

    path: str
    name: str | None = None

    @property
    def uri(self) -> str:
        """The root as MCP sends it: a file:// URI."""
        return Path(self.path).as_uri()

    def describe(self) -> str:
        return f"{self.path} ({self.name})" if self.name else self.path


class StdioServer(BaseModel):
    model_config = ConfigDict(frozen=True)

    transport: Literal["stdio"] = "stdio"
    name: str
    command: str
    args: list[str] = Field(default_factory=list)
    env: dict[str, SecretStr] = Field(default_factory=dict)
    cwd: str | None = None
    # The folder a command written as a relative path (``./bin/server``) was taken from: the
    # entry's cwd, else the servers file's folder; None for an absolute path or a bare name.
    command_from: str | None = None
    timeout: float | None = None
    # Empty: the entry declares no roots (and the host does not offer the roots capability).
    roots: list[ServerRoot] = Field(default_factory=list)
    # The admin's examples and aliases, by capability name (mcp_host/capability_notes.py).
    capability_notes: dict[str, CapabilityNotes] = Field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {
            "transport": "stdio",
            "command": DEFAULT_REDACTOR.text(self.command),
            "args": DEFAULT_REDACTOR.argv(self.args),
            "env": dict.fromkeys(self.env, REDACTED),
            "cwd": self.cwd,
            "roots": [root.describe() for root in self.roots],
        }

    def shown(self) -> str:
        """The command line with its arguments, as a person tells servers apart by it, secrets
        hidden (a ``--token VALUE``, a token in an argument); the environment variables it
        sets are named, their values never shown."""
        line = shlex.join([DEFAULT_REDACTOR.text(self.command), *DEFAULT_REDACTOR.argv(self.args)])
        return f"{line} (environment: {', '.join(sorted(self.env))})" if self.env else line


class HttpServer(BaseModel):
    model_config = ConfigDict(frozen=True)

    transport: Literal["http"] = "http"
    name: str
    url: str
    headers: dict[str, SecretStr] = Field(default_factory=dict)
    timeout: float | None = None
    # How the host signs in when the server asks for OAuth (mcp_host/oauth_config.py).
    oauth: OAuthSettings = DEFAULT_OAUTH
    roots: list[ServerRoot] = Field(default_factory=list)
    capability_notes: dict[str, CapabilityNotes] = Field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {
            "transport": "http",
            "url": redact_url(self.url),
            "headers": dict.fromkeys(self.headers, REDACTED),
            "oauth": self.oauth.describe(),
            "roots": [root.describe() for root in self.roots],
        }

    def shown(self) -> str:
        """The server's address, without its secrets."""
        return redact_url(self.url)


ServerEntry = StdioServer | HttpServer


class ServersConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    source: str
    servers: list[ServerEntry] = Field(default_factory=list)
    # Entries left out because they are broken (read with skip_broken), in the file's order.
    problems: list[ConfigProblem] = Field(default_factory=list)

    def names(self) -> list[str]:
        return [server.name for server in self.servers]

    def describe(self) -> dict[str, Any]:
        return {"source": self.source, "servers": {s.name: s.describe() for s in self.servers}}

    def unusable(self) -> ConfigError | None:
        """The error of a file whose every entry is broken (read with skip_broken): nothing
        would run, so a command that needs servers stops, naming each problem; a file of one
        entry, by that entry's own error (its one line says all there is)."""
        if not self.problems or self.servers:
            return None
        if len(self.problems) == 1:
            return self.problems[0].error()
        return NoUsableServersError(self.source, self.problems)

    def declared_roots(self) -> dict[str, list[str]]:
        """The folders of every server that declares roots, by server name."""
        return {s.name: [root.path for root in s.roots] for s in self.servers if s.roots}


def redact_url(url: str) -> str:
    """The URL without user:password or secret-like query values, the rest readable."""
    return DEFAULT_REDACTOR.url(url)


def _expand(value: str, environ: Mapping[str, str], where: str) -> str:
    try:
        return expand_variables(value, environ, where)
    except SecretVariableError as exc:
        raise SecretReferenceError(exc.where, exc.reason) from exc
    except VariableError as exc:
        raise ConfigError(exc.where, exc.reason) from exc


def _strings(value: Any, where: str) -> list[str]:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    if isinstance(value, list):
        wrong = next(item for item in value if not isinstance(item, str))
        raise ConfigError(where, f"must be a list of strings, not a list holding {written_as(wrong)}")
    example = ""
    if isinstance(value, str):
        # One string where a list belongs: most often a command line's arguments in one piece.
        try:
            words = shlex.split(value)
        except ValueError:
            words = []
        key = where.rsplit(".", 1)[-1]
        example = f' (e.g. "{key}": {json.dumps(words, ensure_ascii=False)})' if words else ""
    raise ConfigError(where, f"must be a list of strings, not {written_as(value)}{example}")


def _string_map(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(where, "must be an object of string values")
    return value


def _timeout(raw: dict[str, Any], where: str) -> float | None:
    value = raw.get("timeout")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        unquoted = isinstance(value, str) and _positive_number(value)
        hint = f' (write "timeout": {value.strip()}, without quotes)' if unquoted else ""
        raise ConfigError(
            f"{where}.timeout", f"must be a positive number of seconds, not {written_as(value)}{hint}"
        )
    if not math.isfinite(value) or value > MAX_TIMEOUT_SECONDS:
        raise ConfigError(f"{where}.timeout", f"must be at most {MAX_TIMEOUT_SECONDS} seconds (a day)")
    return float(value)


def _positive_number(text: str) -> bool:
    try:
        number = float(text)
    except ValueError:
        return False
    return math.isfinite(number) and number > 0


def _file_uri_path(uri: str, where: str) -> str:
    parts = urlsplit(uri)
    if (
        parts.scheme.lower() != "file"
        or parts.netloc not in {"", "localhost"}
        or parts.query
        or parts.fragment
    ):
        raise ConfigError(where, f"{uri!r} is not a file:// URI of a local folder (file:///path)")
    path = unquote(parts.path)
    if not path.startswith("/"):
        raise ConfigError(where, f"{uri!r} names no absolute folder")
    return path


def _root(item: Any, where: str, environ: Mapping[str, str], base_dir: Path) -> ServerRoot:
    """A folder path (relative to the servers file, like cwd) or an MCP Root object."""
    name: str | None = None
    if isinstance(item, str):
        path = _expand(item, environ, where)
    elif isinstance(item, dict):
        unknown = sorted(set(item) - _ROOT_KEYS)
        if unknown:
            raise ConfigError(
                f"{where}.{unknown[0]}",
                f"unknown key for a root (uri, name){did_you_mean(unknown[0], _ROOT_KEYS)}",
            )
        uri = item.get("uri")
        if not isinstance(uri, str) or not uri.strip():
            raise ConfigError(f"{where}.uri", "a root object needs a uri (file:///path)")
        path = _file_uri_path(_expand(uri, environ, f"{where}.uri"), f"{where}.uri")
        raw_name = item.get("name")
        if raw_name is not None:
            if not isinstance(raw_name, str):
                raise ConfigError(f"{where}.name", "must be a string")
            name = _expand(raw_name, environ, f"{where}.name").strip() or None
    else:
        raise ConfigError(where, "must be a folder path (a string) or an object with a file:// uri")
    if not path.strip():
        raise ConfigError(where, "is empty: name a folder")
    return ServerRoot(path=str((base_dir / path).resolve()), name=name)


def _roots(raw: dict[str, Any], where: str, environ: Mapping[str, str], base_dir: Path) -> list[ServerRoot]:
    value = raw.get("roots")
    if value is None:
        return []
    where = f"{where}.roots"
    if not isinstance(value, list):
        raise ConfigError(where, "must be a list of folders (paths, or objects with a file:// uri)")
    if not value:
        raise ConfigError(where, "is empty: list at least one folder, or leave roots out")
    roots: list[ServerRoot] = []
    for index, item in enumerate(value):
        root = _root(item, f"{where}[{index}]", environ, base_dir)
        if all(known.path != root.path for known in roots):
            roots.append(root)
    return roots


def _notes(raw: dict[str, Any], where: str) -> dict[str, CapabilityNotes]:
    try:
        return parse_capability_notes(raw.get("capabilities"), where)
    except NotesError as exc:
        raise ConfigError(exc.where, exc.reason) from exc


def _entry(name: str, raw: Any, where: str, environ: Mapping[str, str], base_dir: Path) -> ServerEntry | None:
    if not _SERVER_NAME.match(name) or KEY_SEPARATOR in name:
        raise ConfigError(
            where, "a server name uses letters, digits, '.', '-' and single '_' (no '__': it separates keys)"
        )
    if not isinstance(raw, dict):
        raise ConfigError(where, "must be an object")
    repeat = first_repeat(raw)
    if repeat is not None:
        keys, member = repeat
        inside = f"{where}.{_key_path(keys)}" if keys else where
        raise ConfigError(
            f"{inside}.{member}", "is named twice in one object (JSON would keep only the last): give it once"
        )
    if raw.get("disabled") is True:
        return None
    kind = str(raw.get("type", "stdio" if "command" in raw else "http" if "url" in raw else "")).lower()
    if not kind:
        raise _neither_command_nor_url(raw, where)
    if kind == "stdio":
        return _stdio_entry(name, raw, where, environ, base_dir)
    if kind in _HTTP_TYPES:
        return _http_entry(name, raw, where, environ, base_dir)
    if kind == "sse":
        raise ConfigError(f"{where}.type", "the SSE transport is deprecated and not supported; use type http")
    raise ConfigError(
        f"{where}.type", f"unknown server type {kind!r}: use stdio (with command) or http (with url)"
    )


def _neither_command_nor_url(raw: dict[str, Any], where: str) -> ConfigError:
    """An entry with no command, url or type: most often one of them misspelt ("comand"), so
    every key no server has is named, with the key it is nearest to."""
    needs = "a server needs a command (stdio) or a url (http)"
    unknown = [key for key in raw if key not in _STDIO_KEYS | _HTTP_KEYS]
    if not unknown:
        return ConfigError(where, needs)
    named = ", ".join(f"{key!r}{did_you_mean(key, _STDIO_KEYS | _HTTP_KEYS)}" for key in unknown)
    keys = "key" if len(unknown) == 1 else "keys"
    return ConfigError(f"{where}.{unknown[0]}", f"unknown {keys} {named}: {needs}")


def _stdio_entry(
    name: str, raw: dict[str, Any], where: str, environ: Mapping[str, str], base_dir: Path
) -> StdioServer:
    """A server Gatehouse starts: its command, arguments, environment and working folder."""
    unknown = sorted(set(raw) - _STDIO_KEYS)
    if unknown:
        raise ConfigError(
            f"{where}.{unknown[0]}", f"unknown key for a stdio server{did_you_mean(unknown[0], _STDIO_KEYS)}"
        )
    if "envFile" in raw:
        raise ConfigError(f"{where}.envFile", "envFile is not supported; name each variable in env")
    command = raw.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{where}.command", "a stdio server needs a command")
    args = [_expand(a, environ, f"{where}.args") for a in _strings(raw.get("args", []), f"{where}.args")]
    env = {
        key: SecretStr(_expand(value, environ, f"{where}.env.{key}"))
        for key, value in _string_map(raw.get("env", {}), f"{where}.env").items()
    }
    cwd = raw.get("cwd")
    if cwd is not None:
        if not isinstance(cwd, str):
            raise ConfigError(f"{where}.cwd", "must be a string")
        cwd = str((base_dir / _expand(cwd, environ, f"{where}.cwd")).resolve())
    command = _expand(command, environ, f"{where}.command")
    # A relative path is taken from where the file says (its cwd, itself relative to the file),
    # never from wherever Gatehouse happens to run; a bare name is looked up on the PATH.
    command_from = None
    if "/" in command and not Path(command).is_absolute():
        command_from = cwd or str(base_dir.resolve())
        command = str(Path(command_from) / command)
    return StdioServer(
        name=name,
        command=command,
        command_from=command_from,
        args=args,
        env=env,
        cwd=cwd,
        timeout=_timeout(raw, where),
        roots=_roots(raw, where, environ, base_dir),
        capability_notes=_notes(raw, where),
    )


def _http_entry(
    name: str, raw: dict[str, Any], where: str, environ: Mapping[str, str], base_dir: Path
) -> HttpServer:
    """A server Gatehouse reaches at a URL: its headers and sign-in."""
    unknown = sorted(set(raw) - _HTTP_KEYS)
    if unknown:
        raise ConfigError(
            f"{where}.{unknown[0]}", f"unknown key for an http server{did_you_mean(unknown[0], _HTTP_KEYS)}"
        )
    url = raw.get("url")
    if not isinstance(url, str) or not re.match(r"^https?://", url):
        raise ConfigError(f"{where}.url", "an http server needs an http:// or https:// url")
    headers = {
        key: SecretStr(_expand(value, environ, f"{where}.headers.{key}"))
        for key, value in _string_map(raw.get("headers", {}), f"{where}.headers").items()
    }
    url = _expand(url, environ, f"{where}.url")
    try:
        oauth = parse_oauth(raw.get("oauth"), f"{where}.oauth", lambda v, at: _expand(v, environ, at))
    except OAuthConfigError as exc:
        raise ConfigError(exc.where, exc.reason) from exc
    return HttpServer(
        name=name,
        url=url,
        headers=headers,
        timeout=_timeout(raw, where),
        roots=_roots(raw, where, environ, base_dir),
        oauth=oauth,
        capability_notes=_notes(raw, where),
    )


def parse_servers_config(
    data: Any,
    *,
    source: str,
    environ: Mapping[str, str] | None = None,
    base_dir: Path | None = None,
    skip_broken: bool = False,
) -> ServersConfig:
    """The servers ``data`` (read from ``source``) configures. A broken entry raises its
    ConfigError, or with ``skip_broken`` is left out and kept in ``problems``; a problem with
    the file as a whole, and a reference to one of Gatehouse's secrets, always raise."""
    env = os.environ if environ is None else environ
    if not isinstance(data, dict):
        raise ConfigError(source, "the top level must be a JSON object")
    key = "mcpServers" if "mcpServers" in data else "servers" if "servers" in data else None
    if key is None:
        raise ConfigError(source, "no 'mcpServers' (Claude Desktop, .mcp.json) or 'servers' (VS Code) object")
    entries = data[key]
    if not isinstance(entries, dict):
        raise ConfigError(f"{source}: {key}", "must be an object of named servers")
    _no_repeats_outside(data, key, source)
    servers: list[ServerEntry] = []
    problems: list[ConfigProblem] = []
    seen: dict[str, str] = {}
    given: dict[str, int] = {}
    members = entries.members if isinstance(entries, JsonObject) else list(entries.items())
    for name, raw in members:
        given[name] = given.get(name, 0) + 1
        entry_name = name if given[name] == 1 else f"{name} ({_ordinal(given[name])})"
        try:
            if given[name] > 1:
                raise _given_again(name, given[name], source, key)
            entry = _entry(name, raw, f"{source}: {key}.{name}", env, base_dir or Path.cwd())
            if entry is not None:
                _one_spelling_each(seen, name, source, key)
                servers.append(entry)
        except SecretReferenceError:
            raise
        except ConfigError as exc:
            if not skip_broken:
                raise
            problems.append(ConfigProblem.of(exc, entry_name))
    return ServersConfig(source=source, servers=servers, problems=problems)


def _ordinal(count: int) -> str:
    return {2: "2nd", 3: "3rd"}.get(count, f"{count}th")


def _given_again(name: str, count: int, source: str, key: str) -> ConfigError:
    """The error of an entry whose name an earlier entry has already: the first keeps it (JSON
    would keep the last without a word, and the first would vanish)."""
    return ConfigError(
        f"{source}: {key}.{name} ({_ordinal(count)})",
        f"{key}.{name} is given {count} times in the file: the first loads and this one is left "
        "out; rename it or remove it",
    )


def _no_repeats_outside(data: dict[str, Any], key: str, source: str) -> None:
    """Refuse the file when an object outside the servers object names a member twice (which
    of two ``mcpServers`` objects, say, would be the file's?); a repeat inside an entry costs
    only that entry (_entry), and a repeated entry only the repeat."""
    if isinstance(data, JsonObject) and data.repeated():
        raise ConfigError(source, f"{data.repeated()[0]!r} is named twice at the top level: give it once")
    found = first_repeat({name: value for name, value in data.items() if name != key})
    if found is not None:
        keys, name = found
        raise ConfigError(f"{source}: {_key_path(keys)}", f"{name!r} is named twice: give it once")


def _key_path(keys: list[str]) -> str:
    return "".join(k if k.startswith("[") or not index else f".{k}" for index, k in enumerate(keys))


def _one_spelling_each(seen: dict[str, str], name: str, source: str, key: str) -> None:
    """Refuse two servers whose names read as one (``my-server``, ``my_server``, ``MyServer``):
    the policy matches keys in one spelling (policies/names.py), so a rule written for one would
    also mean the other. This also keeps keys unique as they are written: two servers' keys
    ``s1__n1`` and ``s2__n2`` can only be equal when one name is the other plus '_' (``a`` and
    ``a_``: ``a___lookup_price`` is a's ``_lookup_price`` and a_'s ``lookup_price``), since
    neither name holds '__', and such names read as one. ``seen``: each spelling kept so far,
    with the name that has it (the first entry keeps its name; the second is refused)."""
    spelling = normalise_name(name)
    first = seen.setdefault(spelling, name)
    if first != name:
        raise ConfigError(
            f"{source}: {key}.{name}",
            f"reads as the same name as {key}.{first} ({spelling!r}), and policy rules and "
            "capability keys would not tell the two servers apart: rename one",
        )


def load_servers_config(
    path: Path, *, environ: Mapping[str, str] | None = None, skip_broken: bool = False
) -> ServersConfig:
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ConfigError(str(path), f"cannot read the file: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(str(path), f"not valid UTF-8 (byte {exc.start} of the file)") from exc
    try:
        data = loads_bounded(text, repeats=True)
    except BoundedJsonError as exc:
        raise ConfigError(str(path), str(exc)) from exc
    return parse_servers_config(
        data, source=str(path), environ=environ, base_dir=path.parent, skip_broken=skip_broken
    )
