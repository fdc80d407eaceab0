"""Server configuration in the formats users already have.

Reads Claude Desktop's and ``.mcp.json``'s ``mcpServers`` and VS Code's ``servers``: stdio
entries (command, args, env, cwd) and remote entries (type "http", url, headers). Either kind
may declare ``roots``: the folders the server is told it may work in (MCP roots), which are
also the folders the policy confines its path arguments to (policies/engine.py). ``${VAR}``
(and VS Code's ``${env:VAR}``) in any string is taken from the environment
(mcp_host/variables.py, the expander the policy file uses too), so secrets stay out of the file.
Every problem is reported as one line naming the file, the entry and the reason, and every
problem of an entry is reported at once (each unknown key with the key it is nearest to, each
value of the wrong kind), as the policy file's are (mcp_host/reported.py FileMistakesError):
a person who fixes one key is not sent back for the next.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from mcp_host.bounded_json import BoundedJsonError, JsonObject, first_repeat, loads_bounded
from mcp_host.capability_notes import CapabilityNotes, NotesError, parse_capability_notes
from mcp_host.errors import McpHostError
from mcp_host.known_keys import did_you_mean, written_as
from mcp_host.manifest import KEY_SEPARATOR
from mcp_host.oauth_config import DEFAULT as DEFAULT_OAUTH
from mcp_host.oauth_config import OAuthConfigError, OAuthSettings, parse_oauth
from mcp_host.reported import FileMistakesError
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
_T = TypeVar("_T")


class ConfigError(McpHostError, FileMistakesError):
    """An invalid configuration: ``where`` names the file and entry (and key), ``reason`` says
    why; ``more`` holds the entry's other mistakes, each (where, reason), one line each."""


class SecretReferenceError(ConfigError):
    """An entry names one of Gatehouse's own secrets (mcp_host/variables.py): the whole file
    is refused, since a file that asks for them is not one to run any server from."""


class NoUsableServersError(ConfigError):
    """A servers file none of whose entries could be loaded: refused as a whole, naming every
    entry's problem (each its file, entry and key), one a line, so that one broken entry is
    never taken for the whole file's failure, nor the other entries' mistakes left unsaid."""

    def __init__(self, source: str, problems: Sequence[ConfigProblem]) -> None:
        self.problems = list(problems)
        super().__init__(source, f"none of the {len(problems)} entries could be used; each one's problem:")

    @property
    def lines(self) -> list[str]:
        return [
            f"{self.where}: {self.reason}",
            *(line for problem in self.problems for line in problem.lines),
        ]


class ConfigProblem(BaseModel):
    """An entry of the servers file that could not be loaded, or the file itself (entry None)."""

    model_config = ConfigDict(frozen=True)

    entry: str | None
    where: str
    reason: str
    # The entry's other mistakes, each (where, reason): every one is named, not only the first.
    more: tuple[tuple[str, str], ...] = ()

    @property
    def lines(self) -> list[str]:
        """Each mistake on a line of its own, the first first (ReportedError.lines)."""
        return self.error().lines

    @property
    def message(self) -> str:
        return "\n".join(self.lines)

    @classmethod
    def of(cls, error: ConfigError, entry: str | None) -> ConfigProblem:
        return cls(entry=entry, where=error.where, reason=error.reason, more=tuple(error.more))

    def error(self) -> ConfigError:
        return ConfigError(self.where, self.reason, self.more)


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


class _Mistakes:
    """Every mistake found in one entry, so that all are named at once, as the policy file's
    are: a key that is wrong is noted and the entry's other keys are still read. A secret
    named is not a mistake of the entry: it refuses the whole file (SecretReferenceError)."""

    def __init__(self) -> None:
        self.found: list[tuple[str, str]] = []

    def note(self, error: ConfigError) -> None:
        self.found += [(error.where, error.reason), *error.more]

    def read(self, reader: Callable[[], _T], fallback: _T) -> _T:
        """What ``reader`` reads, or, when it finds a mistake, ``fallback``: never used in a
        server, since an entry with a mistake is refused (raise_any)."""
        try:
            return reader()
        except SecretReferenceError:
            raise
        except ConfigError as exc:
            self.note(exc)
            return fallback

    def unknown_keys(self, raw: dict[str, Any], known: Iterable[str], where: str, what: str) -> None:
        """Each key ``raw`` has that ``known`` has not, in the file's order, with the one meant."""
        known = set(known)
        for key in raw:
            if key not in known:
                self.found.append((f"{where}.{key}", f"unknown key for {what}{did_you_mean(key, known)}"))

    def error(self) -> ConfigError:
        """One error naming every mistake found (there is at least one)."""
        return ConfigError.of_all(self.found)

    def raise_any(self) -> None:
        if self.found:
            raise self.error()


def _root(item: Any, where: str, environ: Mapping[str, str], base_dir: Path) -> ServerRoot:
    """A folder path (relative to the servers file, like cwd) or an MCP Root object."""
    if isinstance(item, str):
        path = _expand(item, environ, where)
        name: str | None = None
    elif isinstance(item, dict):
        found = _Mistakes()
        found.unknown_keys(item, _ROOT_KEYS, where, "a root (uri, name)")
        path = found.read(partial(_root_uri, item.get("uri"), where, environ), "/")
        name = found.read(partial(_root_name, item.get("name"), where, environ), None)
        found.raise_any()
    else:
        raise ConfigError(where, "must be a folder path (a string) or an object with a file:// uri")
    if not path.strip():
        raise ConfigError(where, "is empty: name a folder")
    return ServerRoot(path=str((base_dir / path).resolve()), name=name)


def _root_uri(uri: Any, where: str, environ: Mapping[str, str]) -> str:
    if not isinstance(uri, str) or not uri.strip():
        raise ConfigError(f"{where}.uri", "a root object needs a uri (file:///path)")
    return _file_uri_path(_expand(uri, environ, f"{where}.uri"), f"{where}.uri")


def _root_name(raw_name: Any, where: str, environ: Mapping[str, str]) -> str | None:
    if raw_name is None:
        return None
    if not isinstance(raw_name, str):
        raise ConfigError(f"{where}.name", "must be a string")
    return _expand(raw_name, environ, f"{where}.name").strip() or None


def _roots(raw: dict[str, Any], where: str, environ: Mapping[str, str], base_dir: Path) -> list[ServerRoot]:
    value = raw.get("roots")
    if value is None:
        return []
    where = f"{where}.roots"
    if not isinstance(value, list):
        raise ConfigError(where, "must be a list of folders (paths, or objects with a file:// uri)")
    if not value:
        raise ConfigError(where, "is empty: list at least one folder, or leave roots out")
    found = _Mistakes()
    roots: list[ServerRoot] = []
    for index, item in enumerate(value):
        root = found.read(partial(_root, item, f"{where}[{index}]", environ, base_dir), None)
        if root is not None and all(known.path != root.path for known in roots):
            roots.append(root)
    found.raise_any()
    return roots


def _notes(raw: dict[str, Any], where: str) -> dict[str, CapabilityNotes]:
    try:
        return parse_capability_notes(raw.get("capabilities"), where)
    except NotesError as exc:
        raise ConfigError(exc.where, exc.reason) from exc


def _entry(name: str, raw: Any, where: str, environ: Mapping[str, str], base_dir: Path) -> ServerEntry | None:
    """The server an entry configures, None for a disabled one; an entry with mistakes raises
    one ConfigError naming every one (its name, each unknown key, each value of the wrong kind)."""
    found = _Mistakes()
    if not _SERVER_NAME.match(name) or KEY_SEPARATOR in name:
        found.note(
            ConfigError(
                where,
                "a server name uses letters, digits, '.', '-' and single '_' (no '__': it separates keys)",
            )
        )
    if not isinstance(raw, dict):
        found.note(ConfigError(where, "must be an object"))
        raise found.error()
    repeat = first_repeat(raw)
    if repeat is not None:
        keys, member = repeat
        inside = f"{where}.{_key_path(keys)}" if keys else where
        found.note(
            ConfigError(
                f"{inside}.{member}",
                "is named twice in one object (JSON would keep only the last): give it once",
            )
        )
    if raw.get("disabled") is True:
        found.raise_any()
        return None
    kind = str(raw.get("type", "stdio" if "command" in raw else "http" if "url" in raw else "")).lower()
    entry: ServerEntry | None = None
    if kind == "stdio":
        found.unknown_keys(raw, _STDIO_KEYS, where, "a stdio server")
        entry = _stdio_entry(name, raw, where, environ, base_dir, found)
    elif kind in _HTTP_TYPES:
        found.unknown_keys(raw, _HTTP_KEYS, where, "an http server")
        entry = _http_entry(name, raw, where, environ, base_dir, found)
    else:
        # No kind, or one no server has: the entry is refused, and its other keys are still
        # read as either kind would read them, so that their mistakes are named with it.
        found.note(_no_kind(raw, where, kind))
        if kind:
            found.unknown_keys(raw, _STDIO_KEYS | _HTTP_KEYS, where, "a server")
        _stdio_entry(name, raw, where, environ, base_dir, found, needs=False)
        _http_entry(name, raw, where, environ, base_dir, found, needs=False)
    found.raise_any()
    return entry


def _no_kind(raw: dict[str, Any], where: str, kind: str) -> ConfigError:
    if not kind:
        return _neither_command_nor_url(raw, where)
    if kind == "sse":
        return ConfigError(
            f"{where}.type", "the SSE transport is deprecated and not supported; use type http"
        )
    return ConfigError(
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


def _args(raw: dict[str, Any], where: str, environ: Mapping[str, str]) -> list[str]:
    return [_expand(a, environ, f"{where}.args") for a in _strings(raw.get("args", []), f"{where}.args")]


def _secrets(raw: dict[str, Any], key: str, where: str, environ: Mapping[str, str]) -> dict[str, SecretStr]:
    """``env`` or ``headers``: names and their values, which are kept secret."""
    return {
        name: SecretStr(_expand(value, environ, f"{where}.{key}.{name}"))
        for name, value in _string_map(raw.get(key, {}), f"{where}.{key}").items()
    }


def _cwd(raw: dict[str, Any], where: str, environ: Mapping[str, str], base_dir: Path) -> str | None:
    cwd = raw.get("cwd")
    if cwd is None:
        return None
    if not isinstance(cwd, str):
        raise ConfigError(f"{where}.cwd", "must be a string")
    return str((base_dir / _expand(cwd, environ, f"{where}.cwd")).resolve())


def _stdio_entry(
    name: str,
    raw: dict[str, Any],
    where: str,
    environ: Mapping[str, str],
    base_dir: Path,
    found: _Mistakes,
    *,
    needs: bool = True,
) -> StdioServer | None:
    """A server Gatehouse starts: its command, arguments, environment and working folder; None
    when ``found`` holds a mistake of the entry (each key's mistakes are added to it). Without
    ``needs`` (an entry of no known kind) a missing command is no mistake of its own."""
    if "envFile" in raw:
        found.note(ConfigError(f"{where}.envFile", "envFile is not supported; name each variable in env"))
    command = raw.get("command")
    if not isinstance(command, str) or not command.strip():
        if needs or "command" in raw:
            found.note(ConfigError(f"{where}.command", "a stdio server needs a command"))
        command = ""
    args: list[str] = found.read(partial(_args, raw, where, environ), [])
    env: dict[str, SecretStr] = found.read(partial(_secrets, raw, "env", where, environ), {})
    cwd = found.read(partial(_cwd, raw, where, environ, base_dir), None)
    command = found.read(partial(_expand, command, environ, f"{where}.command"), "")
    timeout = found.read(partial(_timeout, raw, where), None)
    roots: list[ServerRoot] = found.read(partial(_roots, raw, where, environ, base_dir), [])
    notes: dict[str, CapabilityNotes] = found.read(partial(_notes, raw, where), {})
    if found.found:
        return None
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
        timeout=timeout,
        roots=roots,
        capability_notes=notes,
    )


def _oauth(raw: dict[str, Any], where: str, environ: Mapping[str, str]) -> OAuthSettings:
    try:
        return parse_oauth(raw.get("oauth"), f"{where}.oauth", lambda v, at: _expand(v, environ, at))
    except OAuthConfigError as exc:
        raise ConfigError(exc.where, exc.reason) from exc


def _http_entry(
    name: str,
    raw: dict[str, Any],
    where: str,
    environ: Mapping[str, str],
    base_dir: Path,
    found: _Mistakes,
    *,
    needs: bool = True,
) -> HttpServer | None:
    """A server Gatehouse reaches at a URL: its headers and sign-in; None when ``found`` holds
    a mistake of the entry, as _stdio_entry."""
    url = raw.get("url")
    if not isinstance(url, str) or not re.match(r"^https?://", url):
        if needs or "url" in raw:
            found.note(ConfigError(f"{where}.url", "an http server needs an http:// or https:// url"))
        url = ""
    headers: dict[str, SecretStr] = found.read(partial(_secrets, raw, "headers", where, environ), {})
    url = found.read(partial(_expand, url, environ, f"{where}.url"), "")
    oauth = found.read(partial(_oauth, raw, where, environ), DEFAULT_OAUTH)
    timeout = found.read(partial(_timeout, raw, where), None)
    roots: list[ServerRoot] = found.read(partial(_roots, raw, where, environ, base_dir), [])
    notes: dict[str, CapabilityNotes] = found.read(partial(_notes, raw, where), {})
    if found.found:
        return None
    return HttpServer(
        name=name,
        url=url,
        headers=headers,
        timeout=timeout,
        roots=roots,
        oauth=oauth,
        capability_notes=notes,
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
