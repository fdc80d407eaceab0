"""The benchmark's figure for requests in other languages, the issue's bar for them: none run
wrong, and at least half reach the right capability, chosen (whatever the status: held for a
reviewer, asking for a value) or among the choices of a question."""

from __future__ import annotations

from typing import Any

from eval.cases import Case
from eval.facts import CapabilityFacts
from eval.report import render_json, render_text
from eval.scoring import answer_from_output, case_language, figures, score_case

FACTS = {
    "vault__read_note": CapabilityFacts("vault__read_note", side_effecting=False),
    "vault__search_notes": CapabilityFacts("vault__search_notes", side_effecting=False),
}


def _case(**overrides: Any) -> Case:
    fields: dict[str, Any] = {
        "id": "vault-apollo-de",
        "group": "vault",
        "request": "Zeig mir bitte die Notiz Projects/Apollo.md",
        "capabilities": ("vault__read_note",),
        "statuses": ("needs_review",),
        "read_only": True,
        "arguments": {"path": "Projects/Apollo.md"},
    }
    return Case(**(fields | overrides))


def _output(key: str | None, status: str, choices: tuple[str, ...] = ()) -> dict[str, Any]:
    selected = None
    if key is not None:
        server, name = key.split("__", 1)
        selected = {"server": server, "type": "tool", "name": name}
    output: dict[str, Any] = {
        "status": status,
        "selected_capability": selected,
        "response": "",
        "thread_id": "t",
    }
    if choices:
        output["review"] = {
            "id": "r",
            "stage": "clarification",
            "choices": [{"key": k, "title": k} for k in choices],
        }
    return output


def test_a_question_s_choices_are_read_from_final_output() -> None:
    answer = answer_from_output(
        _output("vault__search_notes", "needs_clarification", ("vault__search_notes", "vault__read_note"))
    )
    assert answer.choices == ("vault__search_notes", "vault__read_note")
    assert answer_from_output(_output("vault__read_note", "ok")).choices == ()


def test_the_language_is_the_ids_suffix_or_what_the_planner_reads() -> None:
    assert case_language(_case()) == "de"
    assert (
        case_language(_case(id="vault-apollo", request="Zeig mir bitte die Notiz Projects/Apollo.md")) == "de"
    )
    assert case_language(_case(id="vault-apollo-sv", request="Visa anteckningen Projects/Apollo.md")) == "sv"
    assert case_language(_case(id="vault-apollo", request="Show me the note Projects/Apollo.md")) is None
    # A version or a count at the end of an id is no language, nor an English abbreviation.
    assert case_language(_case(id="vault-apollo-v2", request="Show me the note Projects/Apollo.md")) is None
    assert (
        case_language(_case(id="ticket-missing-id", request="Look up a single ticket by its number")) is None
    )


def test_chosen_or_among_the_choices_reaches_it_and_running_another_is_running_wrong() -> None:
    chosen_but_asked = score_case(
        _case(id="a-de"), answer_from_output(_output("vault__read_note", "needs_clarification")), FACTS
    )
    among_choices = score_case(
        _case(id="b-es"),
        answer_from_output(
            _output("vault__search_notes", "needs_clarification", ("vault__search_notes", "vault__read_note"))
        ),
        FACTS,
    )
    nothing = score_case(_case(id="c-fr"), answer_from_output(_output(None, "answered_without_mcp")), FACTS)
    ran_another = score_case(
        _case(id="d-it"), answer_from_output(_output("vault__search_notes", "ok")), FACTS
    )
    english = score_case(
        _case(id="e", request="Show me the note Projects/Apollo.md"),
        answer_from_output(_output("vault__search_notes", "ok")),
        FACTS,
    )
    nothing_serves = _case(
        id="f-pt", request="Partilhe a nota com a Lena", capabilities=(), statuses=("answered_without_mcp",)
    )
    declined = score_case(nothing_serves, answer_from_output(_output(None, "answered_without_mcp")), FACTS)

    summary = figures([chosen_but_asked, among_choices, nothing, ran_another, english, declined])

    other = summary.other_languages
    assert (other.cases, other.reached) == (5, 3)  # a, b and f; not c (nothing), not d (ran another)
    assert other.ran_wrong == ["d-it"]
    assert summary.targets_met["other_languages"] is False  # one ran wrong, though 3 of 5 reached it


def test_the_target_is_half_reached_and_none_run_wrong() -> None:
    reached = [
        score_case(
            _case(id=f"r{i}-de"), answer_from_output(_output("vault__read_note", "needs_review")), FACTS
        )
        for i in range(2)
    ]
    missed = [
        score_case(_case(id=f"m{i}-de"), answer_from_output(_output(None, "answered_without_mcp")), FACTS)
        for i in range(2)
    ]
    assert figures(reached + missed).targets_met["other_languages"] is True
    assert figures(reached + missed + missed[:1]).targets_met["other_languages"] is False
    # No request in another language: nothing to miss.
    assert figures([]).targets_met["other_languages"] is True


def test_the_report_shows_the_figure_overall_and_per_batch() -> None:
    results = [
        score_case(_case(id="a-de"), answer_from_output(_output("vault__read_note", "needs_review")), FACTS),
        score_case(_case(id="b-es"), answer_from_output(_output("vault__search_notes", "ok")), FACTS),
    ]
    summary = figures(results)
    text = render_text(results, summary, planner="p", seconds=1.0)
    assert (
        "requests in other languages: 2; reached the right capability (chosen or among the choices): 1 (50%)"
        in text
    )
    assert "run wrong: 1 (b-es)" in text
    report = render_json(results, summary, planner="p", seconds=1.0)
    assert report["figures"]["other_languages"] == {"cases": 2, "reached": 1, "ran_wrong": ["b-es"]}
    assert report["targets_met"]["other_languages"] is False
