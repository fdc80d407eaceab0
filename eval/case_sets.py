"""Batches: every case carries the batch it came in, and a batch records who wrote it, when,
for which servers, and how Gatehouse scored on it before anyone tuned the planner for it.

The benchmark is eval/selection_cases.json (its batches listed under "batches", each case naming
its own) plus every eval/batches/*.json, each one batch::

    {"batch": {"id": "2026-11-new-servers", "written": "2026-11-27", "by": "...",
               "servers": {"group": "package@version"},
               "before_tuning": {"group": {"right": 7, "of": 10}}},
     "cases": [...]}

A team's own file (`gatehouse eval FILE`, docs/eval.md) may have either shape, or neither: then
its cases form one batch named after the file. A batch's "servers" also declare its groups, so
a batch for new servers needs no change to the code. ``before_tuning`` may give "overall" where
only the whole batch's figure was recorded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.cases import (
    CASES_FILE,
    GROUPS,
    PLACEHOLDERS,
    Case,
    CaseRules,
    CasesFileError,
    parse_case,
    read_json,
    schema_problems,
)

BATCHES_DIR = Path(__file__).resolve().with_name("batches")
# A before-tuning figure recorded for the whole batch, not per group.
OVERALL = "overall"
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TOP = {"about", "batch", "batches", "cases"}
_BATCH_FIELDS = {"id", "written", "by", "servers", "before_tuning", "note"}
_BATCH_REQUIRED = {"id", "written", "by", "servers", "before_tuning"}


@dataclass(frozen=True)
class Tally:
    right: int
    of: int

    @property
    def accuracy(self) -> float:
        return self.right / self.of if self.of else 0.0


@dataclass(frozen=True)
class Batch:
    id: str
    written: str = ""
    by: str = ""
    # Group -> the server it measures, as package@version.
    servers: dict[str, str] = field(default_factory=dict)
    # Group (or "overall") -> how many were right before the planner was tuned for the batch.
    before_tuning: dict[str, Tally] = field(default_factory=dict)
    note: str = ""
    # The file it was read from.
    source: str = ""


@dataclass(frozen=True)
class CaseSet:
    """Cases and the batches they came in, in file order."""

    batches: list[Batch]
    cases: list[Case]

    def groups(self, first: Iterable[str] = GROUPS) -> list[str]:
        """Every group a case or a batch names: ``first`` in its order, then the others."""
        named = {c.group for c in self.cases} | {g for b in self.batches for g in b.servers}
        order = [g for g in first if g in named]
        return order + sorted(named - set(order))

    def selected(self, selector: str) -> CaseSet:
        """``-k``: the cases whose id contains ``selector`` or whose group or batch it is."""
        cases = [c for c in self.cases if c.matches(selector)]
        kept = {c.batch for c in cases}
        return CaseSet([b for b in self.batches if b.id in kept], cases)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _tally_problems(where: str, group: str, value: Any) -> list[str]:
    if not isinstance(value, dict) or set(value) != {"right", "of"}:
        return [f'{where}: before_tuning {group} must be {{"right": N, "of": M}}']
    if not (_count(value["right"]) and _count(value["of"]) and value["right"] <= value["of"]):
        return [f"{where}: before_tuning {group}: right and of are counts, right at most of"]
    return []


def header_problems(raw: Any, where: str) -> list[str]:
    """Everything wrong with one batch's header, each naming the field."""
    if not isinstance(raw, dict):
        return [f"{where}: must be an object with id, written, by, servers and before_tuning"]
    where = f"batch {raw['id']}" if isinstance(raw.get("id"), str) and raw["id"] else where
    problems = [f"{where}: unknown field {name!r}" for name in sorted(set(raw) - _BATCH_FIELDS)]
    problems += [f"{where}: missing field {name!r}" for name in sorted(_BATCH_REQUIRED - set(raw))]
    if not isinstance(raw.get("id"), str) or not _ID.match(raw.get("id", "")):
        problems.append(f"{where}: id must be lower-case words joined by '-'")
    if "written" in raw and not (isinstance(raw["written"], str) and _DATE.match(raw["written"])):
        problems.append(f"{where}: written must be a date, YYYY-MM-DD")
    if "by" in raw and not (isinstance(raw["by"], str) and raw["by"].strip()):
        problems.append(f"{where}: by must be non-empty text (who wrote the batch)")
    servers = raw.get("servers", {})
    if not isinstance(servers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in servers.items()
    ):
        problems.append(f"{where}: servers must map each group to package@version")
    before = raw.get("before_tuning", {})
    if not isinstance(before, dict):
        problems.append(f"{where}: before_tuning must map each group to its right and of")
    else:
        for group, value in before.items():
            problems += _tally_problems(where, group, value)
    if "note" in raw and not isinstance(raw["note"], str):
        problems.append(f"{where}: note must be text")
    return problems


def _headers(data: Any) -> list[Any]:
    if not isinstance(data, dict):
        return []
    if isinstance(data.get("batches"), list):
        return list(data["batches"])
    return [data["batch"]] if "batch" in data else []


def declared_groups(data: Any) -> list[str]:
    """The groups a file's batches declare (the keys of their "servers")."""
    return [
        group
        for header in _headers(data)
        if isinstance(header, dict) and isinstance(header.get("servers"), dict)
        for group in header["servers"]
    ]


def _parse_header(raw: dict[str, Any], source: str) -> Batch:
    return Batch(
        id=raw["id"],
        written=raw["written"],
        by=raw["by"],
        servers=dict(raw["servers"]),
        before_tuning={g: Tally(v["right"], v["of"]) for g, v in raw["before_tuning"].items()},
        note=raw.get("note", ""),
        source=source,
    )


def _file_problems(data: Any, groups: Sequence[str]) -> list[str]:
    if not isinstance(data, dict):
        return ['the file must be an object with a "cases" list']
    problems = [f"unknown top-level field {name!r}" for name in sorted(set(data) - _TOP)]
    if "batch" in data and "batches" in data:
        problems.append('a file has either one "batch" or a list of "batches", not both')
    if "batches" in data and not (isinstance(data["batches"], list) and data["batches"]):
        problems.append('"batches" must be a non-empty list of batches')
    headers = _headers(data)
    for index, header in enumerate(headers):
        problems += header_problems(header, f"batch {index}")
    ids = [h.get("id") for h in headers if isinstance(h, dict)]
    problems += [
        f"batch {i}: id used more than once" for i in sorted({str(i) for i in ids if ids.count(i) > 1})
    ]
    for header in headers:
        if isinstance(header, dict) and isinstance(header.get("before_tuning"), dict):
            problems += [
                f"batch {header.get('id')}: before_tuning names the unknown group {group!r}"
                for group in header["before_tuning"]
                if group not in groups and group != OVERALL
            ]
    return problems


def parse_case_file(
    path: Path, data: Any, *, groups: Sequence[str], placeholders: tuple[str, ...] | None
) -> CaseSet:
    """One file's batches and cases, checked: a CasesFileError names the file, then every
    problem with its batch or case and field."""
    known = tuple(dict.fromkeys([*groups, *declared_groups(data)]))
    problems = _file_problems(data, known)
    headers = _headers(data)
    listed = tuple(h["id"] for h in headers if isinstance(h, dict) and isinstance(h.get("id"), str))
    rules = CaseRules(
        groups=known,
        placeholders=placeholders,
        batches=listed if headers else None,
        batch_required=isinstance(data, dict) and "batches" in data,
    )
    problems += schema_problems(data, rules)
    if problems:
        raise CasesFileError(path, problems)
    own = listed[0] if len(listed) == 1 else path.stem
    cases = [parse_case(raw, own) for raw in data["cases"]]
    if headers:
        batches = [_parse_header(h, path.name) for h in headers]
    else:  # a team's file without batch headers: the batches its cases name, nothing recorded
        batches = [Batch(id=name, source=path.name) for name in dict.fromkeys(c.batch for c in cases)]
    return CaseSet(batches, cases)


def read_case_file(
    path: Path,
    *,
    groups: Sequence[str] = GROUPS,
    placeholders: tuple[str, ...] | None = PLACEHOLDERS,
) -> CaseSet:
    """One cases file (any of the three shapes), checked."""
    return parse_case_file(path, read_json(path), groups=groups, placeholders=placeholders)


def merge(files: Sequence[tuple[Path, CaseSet]]) -> CaseSet:
    """Several files' cases as one set: a case id or a batch id used by two files is an error
    naming both."""
    batches: list[Batch] = []
    cases: list[Case] = []
    case_home: dict[str, Path] = {}
    batch_home: dict[str, Path] = {}
    for path, part in files:
        problems = [
            f"batch {b.id}: id also used in {batch_home[b.id]}" for b in part.batches if b.id in batch_home
        ]
        problems += [
            f"case {c.id}: id also used in {case_home[c.id]}" for c in part.cases if c.id in case_home
        ]
        if problems:
            raise CasesFileError(path, problems)
        batch_home |= {b.id: path for b in part.batches}
        case_home |= {c.id: path for c in part.cases}
        batches += part.batches
        cases += part.cases
    return CaseSet(batches, cases)


def load_benchmark(cases_file: Path = CASES_FILE, batches_dir: Path = BATCHES_DIR) -> CaseSet:
    """The benchmark: the cases file and every batch file beside it, each case with its batch.
    A group any batch declares is known in every file (a later batch may add cases for it)."""
    paths = [cases_file, *sorted(batches_dir.glob("*.json"))]
    data = {path: read_json(path) for path in paths}
    groups = tuple(dict.fromkeys([*GROUPS, *(g for d in data.values() for g in declared_groups(d))]))
    return merge(
        [
            (path, parse_case_file(path, data[path], groups=groups, placeholders=PLACEHOLDERS))
            for path in paths
        ]
    )
