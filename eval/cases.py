"""The benchmark's cases: read from eval/selection_cases.json and every eval/batches/*.json,
checked, placeholders filled in. Every case carries the batch it came in (eval/case_sets.py).

The files are data a person edits, so every mistake in them is reported as a sentence naming
the file, the case and the field (``schema_problems``, CasesFileError), never as a KeyError
halfway through a run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from graph.state import Status
from mcp_host.manifest import KEY_SEPARATOR
from mcp_host.reported import UsageError

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
_FIELDS = {
    "id",
    "group",
    "request",
    "capability",
    "status",
    "arguments",
    "missing",
    "read_only",
    "note",
    "batch",
}
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
    # The batch the case came in (eval/case_sets.py): its file's, or the one it names.
    batch: str = ""

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
            batch=self.batch,
        )

    def matches(self, selector: str) -> bool:
        """``-k``: a substring of the id, the group or the batch."""
        return selector in self.id or selector in (self.group, self.batch)


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


@dataclass(frozen=True)
class CaseRules:
    """What a case may name where it is read: the groups accuracy is reported for, the
    placeholders its runner fills in (None: none are, and braces in a request are just text)
    and the batches it may say it came in (None: any id)."""

    groups: tuple[str, ...] = GROUPS
    placeholders: tuple[str, ...] | None = PLACEHOLDERS
    batches: tuple[str, ...] | None = None
    # Whether every case must name its batch (a file that lists several).
    batch_required: bool = False


def _case_problems(raw: Any, index: int, rules: CaseRules) -> list[str]:
    if not isinstance(raw, dict):
        return [f"case {index}: not an object"]
    where = f"case {raw.get('id', index)!s}"
    required = _REQUIRED | ({"batch"} if rules.batch_required else set())
    problems = [f"{where}: unknown field {name!r}" for name in sorted(set(raw) - _FIELDS)]
    problems += [f"{where}: missing field {name!r}" for name in sorted(required - set(raw))]
    if not isinstance(raw.get("id"), str) or not _ID.match(raw.get("id", "")):
        problems.append(f"{where}: id must be lower-case words joined by '-'")
    if raw.get("group") not in rules.groups:
        problems.append(f"{where}: group must be one of {', '.join(rules.groups)}")
    problems += _request_problems(where, raw.get("request"), rules)
    if "batch" in raw:
        problems += _batch_problems(where, raw["batch"], rules)
    capability = raw.get("capability")
    problems += _capability_problems(where, capability)
    status = raw.get("status")
    statuses = _as_tuple(status) if isinstance(status, str) or _strings(status) else ()
    if not statuses or any(s not in STATUSES for s in statuses):
        problems.append(f"{where}: status must be one of {', '.join(STATUSES)}, or a list of them")
    if not isinstance(raw.get("read_only"), bool):
        problems.append(f"{where}: read_only must be true or false")
    problems += _arguments_problems(where, raw.get("arguments", {}))
    problems += _missing_problems(where, raw.get("missing", []), statuses)
    if capability is None and raw.get("arguments"):
        problems.append(f"{where}: a case that expects no capability expects no arguments")
    if "note" in raw and not isinstance(raw["note"], str):
        problems.append(f"{where}: note must be text")
    return problems


def _request_problems(where: str, request: Any, rules: CaseRules) -> list[str]:
    if not isinstance(request, str) or not request.strip():
        return [f"{where}: request must be non-empty text"]
    if rules.placeholders is None:
        return []
    return [
        f"{where}: unknown placeholder {{{name}}}"
        for name in _PLACEHOLDER.findall(request)
        if name not in rules.placeholders
    ]


def _capability_problems(where: str, capability: Any) -> list[str]:
    if not (capability is None or (isinstance(capability, str) and capability) or _strings(capability)):
        return [f"{where}: capability must be a key, a list of keys or null"]
    if any(KEY_SEPARATOR not in key for key in _as_tuple(capability)):
        return [f"{where}: a capability key is server__name"]
    return []


def _arguments_problems(where: str, arguments: Any) -> list[str]:
    if not isinstance(arguments, dict):
        return [f"{where}: arguments must be an object"]
    return [
        f'{where}: argument {name}: an object value must be {{"one_of": [...]}}'
        for name, value in arguments.items()
        if isinstance(value, dict) and (set(value) != {"one_of"} or not isinstance(value["one_of"], list))
    ]


def _missing_problems(where: str, missing: Any, statuses: tuple[str, ...]) -> list[str]:
    if missing and not _strings(missing):
        return [f"{where}: missing must be a list of argument names"]
    if missing and "needs_clarification" not in statuses:
        return [f"{where}: missing arguments go with the status needs_clarification"]
    return []


def _batch_problems(where: str, batch: Any, rules: CaseRules) -> list[str]:
    if not isinstance(batch, str) or not _ID.match(batch):
        return [f"{where}: batch must be lower-case words joined by '-'"]
    if rules.batches is not None and batch not in rules.batches:
        return [f"{where}: batch must be one of the file's batches: {', '.join(rules.batches)}"]
    return []


def schema_problems(data: Any, rules: CaseRules | None = None) -> list[str]:
    """Everything wrong with the file's cases, one sentence each (empty when they are right)."""
    rules = rules or CaseRules()
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        return ['the file must be an object with a "cases" list']
    problems: list[str] = []
    for index, raw in enumerate(data["cases"]):
        problems += _case_problems(raw, index, rules)
    ids = [str(raw.get("id")) for raw in data["cases"] if isinstance(raw, dict)]
    problems += [f"case {i}: id used more than once" for i in sorted({i for i in ids if ids.count(i) > 1})]
    return problems


def parse_case(raw: dict[str, Any], batch: str = "") -> Case:
    """A checked case; ``batch`` is its file's, unless the case names its own."""
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
        batch=raw.get("batch") or batch,
    )


class CasesFileError(UsageError, ValueError):
    """A cases file cannot be used: the file, then each problem (case and field), on one line
    (the command line shows one line; exit 2)."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        super().__init__(f"{path}: " + "; ".join(problems))


def read_json(path: Path) -> Any:
    """A cases file's JSON, or a CasesFileError naming the file and what is wrong with it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CasesFileError(path, [f"cannot be read: {exc.strerror or exc}"]) from exc
    except UnicodeDecodeError as exc:
        raise CasesFileError(path, [f"is not UTF-8 text: {exc.reason} at byte {exc.start}"]) from exc
    except json.JSONDecodeError as exc:
        raise CasesFileError(
            path, [f"is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"]
        ) from exc


def load_cases(path: Path = CASES_FILE) -> list[Case]:
    """The cases of one file, each with its batch (eval/case_sets.py reads the batches)."""
    from eval.case_sets import read_case_file

    return read_case_file(path).cases
