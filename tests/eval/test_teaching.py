"""The servers-file examples `gatehouse eval FILE` suggests for the requests the planner missed,
on hand-made results: which cases teach, what the snippet holds, and that the text and the JSON
report carry the same (the loop on the real servers: tests/gatehouse/cli/test_cli_eval.py)."""

from __future__ import annotations

import json
from typing import Any

from eval.cases import Case
from eval.report import render_json, render_text
from eval.scoring import Answer, CaseResult, failed_case, figures, score_case
from eval.teaching import EntryExamples, suggested_examples, suggestion_lines, suggestions_json
from mcp_host.capability_notes import MAX_EXAMPLE_CHARS, MAX_PER_LIST, parse_capability_notes
from mcp_host.manifest import Capability, capability_key


def _capability(server: str, name: str, **words: Any) -> Capability:
    return Capability(key=capability_key(server, name), server=server, type="tool", name=name, **words)


LISTING = (
    _capability("tickets", "search_tickets"),
    _capability("tickets", "update_ticket"),
    _capability("email", "send_email"),
)


def _missed(
    case_id: str,
    request: str,
    expected: tuple[str, ...] = ("tickets__update_ticket",),
    statuses: tuple[str, ...] = ("needs_review",),
    got: str | None = None,
    status: str = "answered_without_mcp",
) -> CaseResult:
    case = Case(
        id=case_id,
        group="tickets",
        request=request,
        capabilities=expected,
        statuses=statuses,
        read_only=False,
    )
    return score_case(case, Answer(status=status, capability=got, arguments={}, missing=()), {})


def _taught(entries: list[EntryExamples]) -> dict[str, list[str]]:
    return {new.capability.key: list(new.requests) for entry in entries for new in entry.capabilities}


def test_the_misses_of_one_capability_are_one_list_under_its_server() -> None:
    results = [
        _missed("close-seven", "close seven, printer fixed"),
        _missed("search-urgent", "urgent ones still open?", expected=("tickets__search_tickets",)),
        # Chose another capability, and asked between two: both missed.
        _missed("bump", "Bump ticket 12 up", got="tickets__search_tickets", status="ok"),
        _missed(
            "mail-dana", "Drop Dana a line", expected=("email__send_email",), status="needs_clarification"
        ),
        _missed("close-seven-again", "Close  Seven, printer FIXED"),
    ]

    entries = suggested_examples(results, LISTING)

    assert [(entry.server, entry.snippet()) for entry in entries] == [
        (
            "tickets",
            '"capabilities": {"search_tickets": {"examples": ["urgent ones still open?"]},'
            ' "update_ticket": {"examples": ["close seven, printer fixed", "Bump ticket 12 up"]}}',
        ),
        ("email", '"capabilities": {"send_email": {"examples": ["Drop Dana a line"]}}'),
    ]
    assert entries[0].capabilities[1].cases == ("close-seven", "bump")


def test_a_case_expecting_nothing_or_a_refusal_teaches_nothing() -> None:
    results = [
        _missed(
            "sms",
            "Text the on-call engineer",
            expected=(),
            statuses=("answered_without_mcp",),
            got="email__send_email",
            status="ok",
        ),
        _missed("refused", "Close every ticket at once", statuses=("error",)),
        _missed("refused-or-held", "Close all tickets now", statuses=("needs_review", "error")),
    ]

    assert suggested_examples(results, LISTING) == []


def test_only_a_miss_of_the_capability_offered_teaches() -> None:
    case = Case(
        id="x",
        group="tickets",
        request="Close 7",
        capabilities=("tickets__update_ticket",),
        statuses=("ok",),
        read_only=False,
    )
    results = [
        # Not in the live listing (a typo, a tool renamed).
        _missed("renamed", "Archive ticket 7", expected=("tickets__archive_ticket",)),
        # The right capability with the wrong status: an example would change nothing.
        _missed(
            "held", "Close ticket 7", got="tickets__update_ticket", status="needs_review", statuses=("ok",)
        ),
        # The command failed: not the planner's miss.
        failed_case(case, "gatehouse ask exited 2"),
    ]

    assert suggested_examples(results, LISTING) == []


def test_a_case_accepting_several_capabilities_teaches_the_first_one_offered() -> None:
    results = [
        _missed(
            "either",
            "Sort out ticket 7",
            expected=("tickets__close_ticket", "tickets__update_ticket", "tickets__search_tickets"),
        )
    ]

    assert _taught(suggested_examples(results, LISTING)) == {"tickets__update_ticket": ["Sort out ticket 7"]}


def test_an_example_already_there_is_not_suggested_again_and_the_snippet_keeps_the_admins_words() -> None:
    listing = [
        _capability(
            "tickets",
            "update_ticket",
            examples=["Close ticket 7: the printer works again"],
            aliases=["triage a ticket"],
        )
    ]
    results = [
        _missed("known", "close ticket 7:  the printer works AGAIN"),
        _missed("new", "Bump ticket 12 up"),
    ]

    [entry] = suggested_examples(results, listing)

    assert _taught([entry]) == {"tickets__update_ticket": ["Bump ticket 12 up"]}
    # The capability's object whole, so it can replace the one in the file.
    assert entry.snippet() == (
        '"capabilities": {"update_ticket": {"examples": ["Close ticket 7: the printer works again",'
        ' "Bump ticket 12 up"], "aliases": ["triage a ticket"]}}'
    )
    known = [_missed("known", "Close ticket 7: the printer works again")]
    assert suggested_examples(known, listing) == []


def test_a_request_holding_a_secret_is_never_suggested() -> None:
    results = [
        _missed("token", "Close 7, token ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        _missed("password", "Close 7 and set password=Hunter2x!"),
        _missed("plain", "Close seven, printer fixed"),
    ]

    entries = suggested_examples(results, LISTING)

    assert _taught(entries) == {"tickets__update_ticket": ["Close seven, printer fixed"]}
    assert "ghp_" not in json.dumps(suggestions_json(entries))


def test_what_the_servers_file_would_refuse_is_left_out() -> None:
    listing = [_capability("tickets", "update_ticket", examples=[f"close ticket {n}" for n in range(18)])]
    results = [_missed("long", "Close 7 " + "x" * MAX_EXAMPLE_CHARS)]
    results += [_missed(f"miss-{n}", f"wrap up number {n} please") for n in range(4)]

    [entry] = suggested_examples(results, listing)
    [new] = entry.capabilities

    assert new.requests == ("wrap up number 0 please", "wrap up number 1 please")
    assert (new.left_out, len(new.examples)) == (2, MAX_PER_LIST)
    # What it suggests loads as the file's own key.
    notes = parse_capability_notes(json.loads("{" + entry.snippet() + "}")["capabilities"], "tickets")
    assert notes["update_ticket"].examples == tuple(new.examples)
    assert suggestion_lines([entry])[-1] == (
        f"  (2 more missed request(s) of update_ticket left out: at most {MAX_PER_LIST} examples a capability)"
    )


def test_the_text_report_ends_with_the_snippets_and_the_json_carries_the_same() -> None:
    results = [_missed("close-seven", "close seven, printer fixed")]
    entries = suggested_examples(results, LISTING)
    shown = (results, figures(results))

    text = render_text(*shown, planner="deterministic", seconds=1.0, suggestions=entries)
    data = render_json(*shown, planner="deterministic", seconds=1.0, suggestions=entries)

    assert text.splitlines()[-3:] == [
        "",
        'To teach the planner these requests, add to the servers file (server entry "tickets"):',
        '  "capabilities": {"update_ticket": {"examples": ["close seven, printer fixed"]}}',
    ]
    assert data["suggested_examples"] == [
        {
            "server": "tickets",
            "snippet": '"capabilities": {"update_ticket": {"examples": ["close seven, printer fixed"]}}',
            "capabilities": [
                {
                    "key": "tickets__update_ticket",
                    "name": "update_ticket",
                    "add": ["close seven, printer fixed"],
                    "cases": ["close-seven"],
                    "examples": ["close seven, printer fixed"],
                    "aliases": [],
                    "left_out": 0,
                }
            ],
        }
    ]
    # `make eval` (no suggestions): neither form changes.
    assert "To teach" not in render_text(*shown, planner="deterministic", seconds=1.0)
    assert "suggested_examples" not in render_json(*shown, planner="deterministic", seconds=1.0)


def test_the_section_says_in_one_line_what_examples_teach_and_what_they_do_not() -> None:
    entries = suggested_examples([_missed("close-seven", "close seven, printer fixed")], LISTING)

    lines = suggestion_lines(entries)

    # Once, before the snippets: an example teaches the choice of capability; an argument the
    # request does not state is still asked for (a case expecting ok then stays wrong).
    assert lines[:4] == [
        "",
        "Examples teach which capability to choose, not arguments a request does not state.",
        "",
        'To teach the planner these requests, add to the servers file (server entry "tickets"):',
    ]
    assert sum("Examples teach" in line for line in lines) == 1
    assert suggestion_lines([]) == []
