"""A cases file checked against what the servers offer, before any case is asked.

A case is written by hand from a tool listing, so it can name a key no configured server offers
(``shop-db__list_table`` for ``shop-db__list_tables``) or an argument the capability's schema
does not have (``stauts``). Asked anyway, such a case reads as the planner's fault ("got
shop-db__list_tables: wrong capability", "argument stauts: not proposed", "invented
status='closed'"). Each mistake is said here instead, with what was most likely meant, and
eval/asking.py neither asks nor scores the case (eval/scoring.py ``unscored_case``): the report
lists it as the file's problem, and the run fails until the file is fixed (docs/eval.md).

A key of a server that failed to start or list is not the file's mistake: the server's own
problem is reported, and its cases are asked and count as wrong, as before.
"""

from __future__ import annotations

from collections.abc import Iterable

from eval.cases import Case
from mcp_host.manifest import KEY_SEPARATOR, Capability, Manifest, closest


def _takes_any_name(capability: Capability) -> bool:
    """A schema that lists no properties, or that admits others, puts no bound on the names: a
    name cannot be called wrong against it."""
    schema = capability.input_schema
    return (
        "properties" not in schema
        or bool(schema.get("additionalProperties"))
        or "patternProperties" in schema
    )


def _takes(capability: Capability, name: str) -> bool:
    return name in capability.properties or _takes_any_name(capability)


def _unknown_key(key: str, manifest: Manifest) -> str | None:
    if manifest.find(key) is not None:
        return None
    server = manifest.server(key.partition(KEY_SEPARATOR)[0])
    if server is not None and not server.ok:
        return None  # the server failed: its problem, reported on its own
    return manifest.not_offered(key)


def _unknown_argument(name: str, found: list[Capability], *, in_missing: bool) -> str | None:
    if any(_takes(capability, name) for capability in found):
        return None
    names = sorted({known for capability in found for known in capability.properties})
    close = closest(name, names)
    keys = [capability.key for capability in found]
    where = " (named in missing)" if in_missing else ""
    if len(keys) == 1:
        said = f"{keys[0]} has no argument {name!r}{where}"
        takes = "it takes"
    else:
        said = f"none of {', '.join(keys)} has an argument {name!r}{where}"
        takes = "they take"
    hint = f"did you mean {', '.join(close)}?" if close else f"{takes} {', '.join(names) or 'none'}"
    return f"{said}; {hint}"


def expectation_problems(case: Case, manifest: Manifest) -> list[str]:
    """Each key of ``case`` no configured server offers, and each argument name it expects (in
    ``arguments`` or ``missing``) that none of its offered capabilities takes, one sentence each."""
    problems = [problem for key in case.capabilities if (problem := _unknown_key(key, manifest))]
    found = [capability for key in case.capabilities if (capability := manifest.find(key)) is not None]
    if not found:
        return problems
    named: Iterable[tuple[str, bool]] = [
        *((name, False) for name in case.arguments),
        *((name, True) for name in case.missing if name not in case.arguments),
    ]
    for name, in_missing in named:
        problem = _unknown_argument(name, found, in_missing=in_missing)
        if problem:
            problems.append(problem)
    return problems
