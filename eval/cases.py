"""The benchmark's cases: read from eval/selection_cases.json, checked, placeholders filled in.

The file is data a person edits, so every mistake in it is reported as a sentence naming the
case and the field (``schema_problems``), never as a KeyError halfway through a run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from graph.state import Status
from mcp_host.manifest import KEY_SEPARATOR

CASES_FILE = Path(__file__).resolve().with_name("selection_cases.json")
GROUPS = (
    "files",
    "everything",
    "memory",
    "time",
    "git",
    "sqlite",
    "calculator",
    "excel",
    "redis",
    "bundled",
    "none",
)
STATUSES: tuple[str, ...] = get_args(Status)
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
PLACEHOLDERS = ("files_root", "repo")
_FIELDS = {"id", "group", "request", "capability", "status", "arguments", "missing", "read_only", "note"}
_REQUIRED = {"id", "group", "request", "capability", "status", "read_only"}


@dataclass(frozen=True)
class Case:
    id: str
    group: str
    request: str
    # Every key that is right; empty when no capability should be selected.
    capabilities: tuple[str, ...]
    statuses: tuple[str, ...]
    read_only: bool
    arguments: dict[str, Any] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    note: str = ""

    def filled(self, values: dict[str, str]) -> Case:
        """The case with ``{files_root}``, ``{repo}`` replaced in its request and arguments."""
        return Case(
            id=self.id,
            group=self.group,
            request=fill(self.request, values),
            capabilities=self.capabilities,
            statuses=self.statuses,
            read_only=self.read_only,
            arguments={name: fill_value(value, values) for name, value in self.arguments.items()},
            missing=self.missing,
            note=self.note,
        )

    def matches(self, selector: str) -> bool:
        """``-k``: a substring of the id or the group."""
        return selector in self.id or selector == self.group


def fill(text: str, values: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def fill_value(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        return fill(value, values)
    if isinstance(value, list):
        return [fill_value(item, values) for item in value]
    if isinstance(value, dict):
        return {key: fill_value(item, values) for key, item in value.items()}
    return value


def _as_tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(value)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, str) for item in value)


def _case_problems(raw: Any, index: int) -> list[str]:
    if not isinstance(raw, dict):
        return [f"case {index}: not an object"]
    where = f"case {raw.get('id', index)!s}"
    problems = [f"{where}: unknown field {name!r}" for name in sorted(set(raw) - _FIELDS)]
    problems += [f"{where}: missing field {name!r}" for name in sorted(_REQUIRED - set(raw))]
    if not isinstance(raw.get("id"), str) or not _ID.match(raw.get("id", "")):
        problems.append(f"{where}: id must be lower-case words joined by '-'")
    if raw.get("group") not in GROUPS:
        problems.append(f"{where}: group must be one of {', '.join(GROUPS)}")
    request = raw.get("request")
    if not isinstance(request, str) or not request.strip():
        problems.append(f"{where}: request must be non-empty text")
    else:
        problems += [
            f"{where}: unknown placeholder {{{name}}}"
            for name in _PLACEHOLDER.findall(request)
            if name not in PLACEHOLDERS
        ]
    capability = raw.get("capability")
    if not (capability is None or (isinstance(capability, str) and capability) or _strings(capability)):
        problems.append(f"{where}: capability must be a key, a list of keys or null")
    elif any(KEY_SEPARATOR not in key for key in _as_tuple(capability)):
        problems.append(f"{where}: a capability key is server__name")
    status = raw.get("status")
    statuses = _as_tuple(status) if isinstance(status, str) or _strings(status) else ()
    if not statuses or any(s not in STATUSES for s in statuses):
        problems.append(f"{where}: status must be one of {', '.join(STATUSES)}, or a list of them")
    if not isinstance(raw.get("read_only"), bool):
        problems.append(f"{where}: read_only must be true or false")
    arguments = raw.get("arguments", {})
    if not isinstance(arguments, dict):
        problems.append(f"{where}: arguments must be an object")
    else:
        for name, value in arguments.items():
            if isinstance(value, dict) and (
                set(value) != {"one_of"} or not isinstance(value["one_of"], list)
            ):
                problems.append(f'{where}: argument {name}: an object value must be {{"one_of": [...]}}')
    missing = raw.get("missing", [])
    if missing and not _strings(missing):
        problems.append(f"{where}: missing must be a list of argument names")
    elif missing and "needs_clarification" not in statuses:
        problems.append(f"{where}: missing arguments go with the status needs_clarification")
    if capability is None and raw.get("arguments"):
        problems.append(f"{where}: a case that expects no capability expects no arguments")
    if "note" in raw and not isinstance(raw["note"], str):
        problems.append(f"{where}: note must be text")
    return problems


def schema_problems(data: Any) -> list[str]:
    """Everything wrong with the file's shape, one sentence each (empty when it is right)."""
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        return ['the file must be an object with a "cases" list']
    problems: list[str] = []
    for index, raw in enumerate(data["cases"]):
        problems += _case_problems(raw, index)
    ids = [str(raw.get("id")) for raw in data["cases"] if isinstance(raw, dict)]
    problems += [f"case {i}: id used more than once" for i in sorted({i for i in ids if ids.count(i) > 1})]
    return problems


def parse_case(raw: dict[str, Any]) -> Case:
    return Case(
        id=raw["id"],
        group=raw["group"],
        request=raw["request"],
        capabilities=_as_tuple(raw["capability"]),
        statuses=_as_tuple(raw["status"]),
        read_only=raw["read_only"],
        arguments=dict(raw.get("arguments", {})),
        missing=_as_tuple(raw.get("missing")),
        note=raw.get("note", ""),
    )


class CasesFileError(ValueError):
    """The cases file cannot be used: its problems, one a line."""


def load_cases(path: Path = CASES_FILE) -> list[Case]:
    data = json.loads(path.read_text(encoding="utf-8"))
    problems = schema_problems(data)
    if problems:
        raise CasesFileError(f"{path}:\n" + "\n".join(f"  {p}" for p in problems))
    return [parse_case(raw) for raw in data["cases"]]
