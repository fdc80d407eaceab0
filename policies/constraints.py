"""Argument checks: the input schema, then the matched rules' constraints.

A failed check is a flag naming the argument. Values are never rewritten: a path outside the
roots is refused or reviewed as it was given, not "fixed" to something the operator never asked.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from policies.decision import Flag

if TYPE_CHECKING:
    from mcp_host.manifest import Capability
    from policies.model import Constraints

_PATH_NAMES = frozenset(
    {"path", "paths", "file", "files", "filename", "file_path", "filepath", "source", "destination", "target",
     "dir", "directory", "folder", "root", "cwd", "repo_path", "repository"}
)  # fmt: skip
_RECIPIENT_NAMES = frozenset({"to", "cc", "bcc", "recipient", "recipients", "email", "emails", "address"})
_ADDRESS = re.compile(r"[^\s<>,;\"']+@[^\s<>,;\"']+")


@dataclass(frozen=True)
class Roots:
    """The folders path arguments were checked against, and where they were set (for messages).
    ``catch_all``: the policy's [paths] roots, held to because nothing names folders for the
    server itself (no [paths.servers] entry, no declared roots, no folder it is started on)."""

    paths: tuple[str, ...]
    origin: str
    catch_all: bool = False
    # The folder a server given no folder of its own runs in (its cwd, else the folder
    # Gatehouse runs in, which the child inherits): with no folder to read a relative path
    # from, it reads it from there, so the path must land inside from there too. None for a
    # server given its folders, and for a remote one (where it runs is not known here).
    working_folder: str | None = None


@dataclass(frozen=True)
class DeclaredRoots:
    """The roots servers declare in the servers file (mcp_host/config.py), by server name, and
    the file's name; handed to the engine by whoever read the file (gatehouse/wiring.py).

    ``started_on``: for servers that declare none, the folders each is started on
    (mcp_host/folders.py root_folders), which stand for its roots when the policy names none
    for it either: a file server started on the team's folder is held to that folder.

    ``working_folders``: for each local server given no folder (neither roots nor one in its
    arguments: mcp_host/folders.py names_a_place), the folder it runs in (Roots.working_folder)."""

    source: str = "the servers file"
    servers: Mapping[str, Sequence[str]] = field(default_factory=dict)
    started_on: Mapping[str, Sequence[str]] = field(default_factory=dict)
    working_folders: Mapping[str, str] = field(default_factory=dict)


def started_on_roots(server: str, folders: Sequence[str], policy_roots: Sequence[str]) -> Roots:
    """The roots of a server started on ``folders``: each folder, or the policy's [paths]
    roots inside it where there are any (the policy's narrower word on that folder: the demo
    servers are started on the whole demo data folder, and their paths stay in its project).

    Args:
        server: the server's name (for the origin named in messages).
        folders: the folders it is started on, resolved.
        policy_roots: the policy's [paths] roots.

    Returns:
        The roots, and where they come from.
    """
    roots: list[str] = []
    narrowed = False
    for folder in folders:
        inner = [root for root in policy_roots if is_within(root, folder)]
        narrowed = narrowed or bool(inner)
        roots += [root for root in inner or [folder] if root not in roots]
    origin = f"the folders server '{server}' is started on (from its arguments)"
    if narrowed:
        origin = f"the policy's [paths] roots inside {origin}"
    return Roots(tuple(roots), origin)


def is_within(path: str, folder: str) -> bool:
    """Whether a path is the folder or inside it, once both are resolved (symlinks followed)."""
    resolved, base = os.path.realpath(path), os.path.realpath(folder)
    return resolved == base or resolved.startswith(base.rstrip(os.sep) + os.sep)


_VALIDATORS_CACHED = 1024
# Checking a schema costs more than validating arguments with it: one checked validator per
# definition (its fingerprint covers the schema), reused for every request.
_validators: dict[str, Draft202012Validator] = {}


def _validator(capability: Capability) -> Draft202012Validator:
    validator = _validators.get(capability.fingerprint)
    if validator is None:
        Draft202012Validator.check_schema(capability.input_schema)
        validator = Draft202012Validator(capability.input_schema)
        if len(_validators) >= _VALIDATORS_CACHED:
            _validators.clear()
        _validators[capability.fingerprint] = validator
    return validator


def schema_flags(capability: Capability, arguments: dict[str, Any]) -> list[Flag]:
    try:
        errors = list(_validator(capability).iter_errors(arguments))
    except SchemaError as exc:
        return [Flag(code="invalid_schema", severity="high", message=f"{capability.key}: {exc.message}")]
    except Exception as exc:  # noqa: BLE001 - a broken schema (unknown type, bad $ref) is the server's fault
        return [Flag(code="invalid_schema", severity="high", message=f"{capability.key}: {exc}")]
    flags = []
    for error in errors:
        if error.validator == "required":
            continue  # a missing argument is the operator's to supply, reported by name elsewhere
        where = ".".join(str(p) for p in error.absolute_path) or "arguments"
        flags.append(
            Flag(code="invalid_argument", severity="medium", message=f"argument {where}: {error.message}")
        )
    return flags


# Argument names repeat from call to call (a replay checks thousands of one capability's).
@lru_cache(maxsize=4096)
def _snake(name: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).replace("-", "_").lower()


def _is_path_argument(name: str) -> bool:
    lowered = _snake(name)
    return lowered in _PATH_NAMES or lowered.endswith(("_path", "_file", "_dir", "_paths", "_files"))


def is_path_argument(name: str) -> bool:
    """Whether an argument names a place in a file system (``path``, ``source_file``, ``dirs``)."""
    return _is_path_argument(name)


def is_recipient_argument(name: str) -> bool:
    """Whether an argument names who a message goes to (``to``, ``cc``, ``recipients``)."""
    return _snake(name) in _RECIPIENT_NAMES


def _values(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def _lands_inside(path: Path, roots: Sequence[str]) -> bool:
    # is_within follows every symlink that exists, so a link pointing out is caught too.
    return any(is_within(str(path), root) for root in roots)


def _escape(candidate: str, roots: Roots) -> str | None:
    """How a path gets out of the roots, in words for the flag's message; None when it stays in.

    An absolute path is read one way. A relative one is read by a server from the folders it
    was given (the reference filesystem server tries each of its roots), which the roots stand
    for; one given none (a server the policy's [paths] roots hold) can only read it from the
    folder it runs in, so it must land inside from there as well. Checking it against the
    policy's first root alone let a reviewed relative path be written wherever Gatehouse was
    started."""
    if not roots.paths:
        return "resolves outside"
    path = Path(candidate).expanduser()
    if path.is_absolute():
        return None if _lands_inside(path, roots.paths) else "resolves outside"
    if not all(_lands_inside(Path(root) / path, roots.paths) for root in roots.paths):
        return "resolves outside"
    folder = roots.working_folder
    if folder is not None and not _lands_inside(Path(folder) / path, roots.paths):
        return (
            f"is relative, and the server, given no folder of its own, reads it from the folder it"
            f" runs in ({folder}: its entry's cwd, else the folder Gatehouse was started in), which puts it outside"
        )
    return None


def path_flags(arguments: dict[str, Any], roots: Roots) -> list[Flag]:
    flags = []
    for name, value in arguments.items():
        if not _is_path_argument(name):
            continue
        for path in _values(value):
            if ".." in PurePath(path).parts:
                flags.append(
                    Flag(
                        code="path_traversal",
                        severity="high",
                        message=f"argument {name}: '{path}' climbs out with '..'",
                    )
                )
            escape = _escape(path, roots)
            if escape is not None:
                flags.append(
                    Flag(
                        code="path_outside_roots",
                        severity="high",
                        message=f"argument {name}: '{path}' {escape} {roots.origin} ({', '.join(roots.paths)})",
                    )
                )
    return flags


def recipient_addresses(value: Any) -> list[str]:
    """Every address in a recipient argument's value (a string or a list of them), however it
    is separated (",", ";", spaces, "Name <a@b>"); a string with no address is kept whole."""
    return [address for item in _values(value) for address in (_ADDRESS.findall(item) or [item.strip()])]


def recipient_flags(arguments: dict[str, Any], domains: list[str]) -> list[Flag]:
    allowed = {domain.lower() for domain in domains}
    flags = []
    for name, value in arguments.items():
        if _snake(name) not in _RECIPIENT_NAMES:
            continue
        for address in recipient_addresses(value):
            domain = address.rsplit("@", 1)[-1].lower() if "@" in address else ""
            if domain not in allowed:
                flags.append(
                    Flag(
                        code="recipient_domain",
                        severity="high",
                        message=f"argument {name}: '{address}' is not at an allowed domain ({', '.join(domains)})",
                    )
                )
    return flags


def numeric_flags(arguments: dict[str, Any], constraints: Constraints) -> list[Flag]:
    flags = []
    for name, bound in constraints.numeric.items():
        value = arguments.get(name)
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue
        outside = (bound.min is not None and value < bound.min) or (
            bound.max is not None and value > bound.max
        )
        if math.isnan(value) or math.isinf(value) or outside:
            limits = f"{bound.min if bound.min is not None else '-inf'}..{bound.max if bound.max is not None else 'inf'}"
            flags.append(
                Flag(
                    code="out_of_bounds",
                    severity="high",
                    message=f"argument {name}: {value} is outside {limits}",
                )
            )
    return flags


def canonical(value: Any) -> str:
    """A JSON value in one spelling (keys sorted, no spaces): equal values, equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def equals_flags(arguments: dict[str, Any], equals: Mapping[str, Any]) -> list[Flag]:
    """Arguments held to one value (a rule's ``equals``): each must be there, with the same
    JSON (``1`` is not ``"1"`` nor ``1.0``). A missing one is a violation too: the server's
    default for it is not the value the rule names."""
    flags = []
    for name, wanted in equals.items():
        if name not in arguments:
            message = f"argument {name} is missing; the rule allows only {canonical(wanted)}"
        elif canonical(arguments[name]) != canonical(wanted):
            message = f"argument {name}: {canonical(arguments[name])} is not {canonical(wanted)}, the one value the rule allows"
        else:
            continue
        flags.append(Flag(code="not_the_allowed_value", severity="high", message=message))
    return flags


def path_text_problem(path: str) -> str | None:
    """Why a path is refused before it is compared at all, or None: a NUL or a backslash (a
    separator to some servers), a leading ``~`` (someone's home), or a ``..`` part."""
    if "\x00" in path or "\\" in path:
        return "holds a NUL or a backslash"
    if path.startswith("~"):
        return "starts with ~"
    if ".." in path.split("/"):
        return "climbs out with '..'"
    return None


def _outside_folder(path: Any, folder: str) -> str | None:
    """Why one path is not one the rule's folder allows, or None."""
    if not isinstance(path, str):
        return f"{canonical(path)} is not a path; the rule allows only paths under {folder}"
    problem = path_text_problem(path)
    if problem is None and not path.startswith("/"):
        problem = "is not an absolute path, so where it leads depends on the server"
    if problem is not None:
        return f"'{path}' {problem}; the rule allows only paths under {folder}"
    if not is_within(path, folder):
        return f"'{path}' resolves outside {folder}, the folder the rule allows"
    return None


def under_flags(arguments: dict[str, Any], under: Mapping[str, str]) -> list[Flag]:
    """Path arguments held inside a folder (a rule's ``under``): each path of the argument (a
    string or a list of them) absolute, without ``..``, and inside the folder once every
    symlink that exists here is followed. A missing one is a violation: the server's default
    place is not known to be inside."""
    flags = []
    for name, folder in under.items():
        if name not in arguments:
            messages = [f"argument {name} is missing; the rule allows only paths under {folder}"]
        else:
            value = arguments[name]
            paths = value if isinstance(value, list) else [value]
            messages = [f"argument {name}: {why}" for p in paths if (why := _outside_folder(p, folder))]
        flags += [Flag(code="path_outside_folder", severity="high", message=m) for m in messages]
    return flags


def constraint_flags(arguments: dict[str, Any], constraints: Constraints, roots: Roots) -> list[Flag]:
    flags = []
    if constraints.paths_within_roots:
        flags += path_flags(arguments, roots)
    if constraints.recipient_domains is not None:
        flags += recipient_flags(arguments, constraints.recipient_domains)
    flags += numeric_flags(arguments, constraints)
    flags += equals_flags(arguments, constraints.equals)
    flags += under_flags(arguments, constraints.under)
    return flags
