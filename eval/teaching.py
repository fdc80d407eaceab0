"""What an admin can paste into the servers file to teach the planner the requests it missed.

A team's case that expects a capability the servers offer, and that the planner answered with
another one, with a question, or without calling anything, is a request the planner does not
yet read as that capability. The servers file's ``capabilities`` notes (mcp_host/
capability_notes.py) are where a team gives the planner its own words: a missed request written
as one of the capability's ``examples`` is then read as it (graph/planner/admin_words.py).
``gatehouse eval FILE`` ends with these snippets (eval/report.py), one per server entry.

Left out, each for its reason:

- a case expecting nothing, or a refusal (``error``): no capability should run for it, so there
  is nothing to teach towards;
- a case whose expected capability is not in the live listing: an example for a name the server
  does not offer is never read;
- a case whose command gave no answer: the planner was not what failed;
- a request that holds something that looks like a secret: the servers file is configuration
  people share and commit;
- a request the capability already has as an example, or one longer than an example may be
  (the servers file would refuse it), and any beyond the number of examples a capability may
  have.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eval.scoring import CaseResult
from mcp_host.capability_notes import MAX_EXAMPLE_CHARS, MAX_PER_LIST, as_phrase
from mcp_host.manifest import Capability
from policies.secrets import DEFAULT_REDACTOR, SecretRedactor

# The status a refusal by the policy ends in (docs/eval.md).
REFUSED = "error"


@dataclass(frozen=True)
class NewExamples:
    """The missed requests to add as examples of one capability."""

    # As listed, with the admin's words it has now.
    capability: Capability
    requests: tuple[str, ...]
    # The cases they come from, in the file's order.
    cases: tuple[str, ...]
    # Missed requests there is no room for (a capability has at most MAX_PER_LIST examples).
    left_out: int = 0

    @property
    def examples(self) -> list[str]:
        """The examples list as it should read: the ones it has, then the new ones. Given whole,
        so the capability's object in the snippet can replace the one in the file."""
        return [*self.capability.examples, *self.requests]

    def notes(self) -> dict[str, list[str]]:
        """The capability's object in the servers file, its aliases kept."""
        notes = {"examples": self.examples}
        if self.capability.aliases:
            notes["aliases"] = list(self.capability.aliases)
        return notes


@dataclass(frozen=True)
class EntryExamples:
    """Everything to add to one server entry of the servers file."""

    server: str
    capabilities: tuple[NewExamples, ...]

    def snippet(self) -> str:
        """The entry's ``capabilities`` key, one line, ready to paste into it."""
        notes = {new.capability.name: new.notes() for new in self.capabilities}
        return f'"capabilities": {json.dumps(notes, ensure_ascii=False)}'


def _missed(result: CaseResult) -> bool:
    """The planner did not choose the capability the case expects to run or be held."""
    case = result.case
    return (
        bool(case.capabilities)
        and REFUSED not in case.statuses
        and result.answer is not None
        and not result.capability_right
    )


def _teachable(request: str, secrets: SecretRedactor) -> bool:
    return len(request) <= MAX_EXAMPLE_CHARS and not secrets.found(request)


def suggested_examples(
    results: Sequence[CaseResult],
    listing: Sequence[Capability],
    *,
    secrets: SecretRedactor = DEFAULT_REDACTOR,
) -> list[EntryExamples]:
    """The examples each server entry needs for the cases in ``results`` the planner missed
    (see the module's docstring), by server in the listing's order."""
    offered = {capability.key: capability for capability in listing}
    wanted: dict[str, list[tuple[str, str]]] = {}
    for result in results:
        if not _missed(result):
            continue
        # A case that accepts several capabilities is taught the first one offered: teaching it
        # two would leave the planner between them.
        key = next((k for k in result.case.capabilities if k in offered), None)
        request = as_phrase(result.case.request)
        if key is not None and _teachable(request, secrets):
            wanted.setdefault(key, []).append((request, result.case.id))
    by_server: dict[str, list[NewExamples]] = {}
    for capability in listing:
        if capability.key in wanted:
            new = _new_examples(capability, wanted[capability.key])
            if new is not None:
                by_server.setdefault(capability.server, []).append(new)
    return [EntryExamples(server, tuple(found)) for server, found in by_server.items()]


def _new_examples(capability: Capability, missed: Sequence[tuple[str, str]]) -> NewExamples | None:
    """The missed requests that are not examples yet, each once, as many as there is room for."""
    known = {example.casefold() for example in capability.examples}
    requests: list[str] = []
    cases: list[str] = []
    for request, case_id in missed:
        if request.casefold() not in known:
            known.add(request.casefold())
            requests.append(request)
            cases.append(case_id)
    room = max(MAX_PER_LIST - len(capability.examples), 0)
    if not requests[:room]:
        return None
    return NewExamples(
        capability=capability,
        requests=tuple(requests[:room]),
        cases=tuple(cases[:room]),
        left_out=len(requests[room:]),
    )


# What pasting the snippets does and does not do (docs/eval.md): an example is read as its
# capability, but an argument its request does not state is still asked for, so a case that
# expects `ok` for such a request stays wrong.
TEACHES = "Examples teach which capability to choose, not arguments a request does not state."


def suggestion_lines(entries: Sequence[EntryExamples]) -> list[str]:
    """The report's closing section (none when there is nothing to teach)."""
    lines: list[str] = ["", TEACHES] if entries else []
    for entry in entries:
        lines += [
            "",
            f'To teach the planner these requests, add to the servers file (server entry "{entry.server}"):',
            f"  {entry.snippet()}",
        ]
        lines += [
            f"  ({new.left_out} more missed request(s) of {new.capability.name} left out: at most"
            f" {MAX_PER_LIST} examples a capability)"
            for new in entry.capabilities
            if new.left_out
        ]
    return lines


def suggestions_json(entries: Sequence[EntryExamples]) -> list[dict[str, Any]]:
    """The same as data. Capabilities are a list, not keyed by name: a tool named like a secret
    (``read_secret``) would have its value hidden by the redaction every printed value gets."""
    return [
        {
            "server": entry.server,
            "snippet": entry.snippet(),
            "capabilities": [
                {
                    "key": new.capability.key,
                    "name": new.capability.name,
                    "add": list(new.requests),
                    "cases": list(new.cases),
                    "examples": new.examples,
                    "aliases": list(new.capability.aliases),
                    "left_out": new.left_out,
                }
                for new in entry.capabilities
            ],
        }
        for entry in entries
    ]
