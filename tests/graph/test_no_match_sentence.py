"""Why nothing ran when no capability fits: "Nothing configured can do that", and the closest
capabilities in words (their descriptions), never the planner's scores; one the policy
refuses whatever the arguments is never offered, and when it is the closest fit, the answer
is its refusal."""

from __future__ import annotations

from graph.output import no_match_sentence, refusal_sentence, refused_fit_sentence
from graph.planner.scoring import ScoredCapability
from mcp_host.manifest import Capability
from policies.decision import StandingRefusal


def scored(name: str, score: float, description: str = "", title: str | None = None) -> ScoredCapability:
    capability = Capability(
        key=f"tickets__{name}", server="tickets", type="tool", name=name, description=description, title=title
    )
    return ScoredCapability(capability, score)


def test_the_answer_says_nothing_configured_can_do_it_and_names_the_closest_in_words() -> None:
    sentence = no_match_sentence(
        [
            scored("get_ticket", 1.5, "Fetch one support ticket by id.\nReturns JSON with every field."),
            scored("search_tickets", -0.25, "Search support tickets by priority and status."),
        ]
    )

    assert sentence.startswith(
        "Nothing configured can do that, so nothing was run. The closest capabilities: "
        "1) Fetch one support ticket by id (tickets); 2) Search support tickets by priority and status (tickets). "
    )
    assert "1.5" not in sentence and "-0.25" not in sentence and "points" not in sentence


def test_at_most_three_are_named_each_once() -> None:
    sentence = no_match_sentence(
        [
            scored("a", 3, "Does the first thing."),
            scored("b", 2, "Does the first thing."),
            scored("c", 1, "Does the second thing."),
            scored("d", 0, title="Does the third thing"),
            scored("e", -1, "Does the fourth thing."),
        ]
    )

    assert (
        "1) Does the first thing (tickets); 2) Does the second thing (tickets); 3) Does the third thing"
        in sentence
    )
    assert "fourth" not in sentence


def test_a_capability_without_a_description_or_title_is_named_by_its_name_in_words() -> None:
    assert "1) Get ticket (tickets)" in no_match_sentence([scored("get_ticket", 0.0)])


def test_with_no_candidate_at_all_the_sentence_says_no_server_offers_one() -> None:
    sentence = no_match_sentence([])

    assert sentence.startswith(
        "Nothing configured can do that: the configured servers offer no capability for it"
    )
    assert "threshold" not in sentence and "score" not in sentence


REFUSED = StandingRefusal(rule="no updates", explanation="Tickets are changed by people.")


def refused_update(capability: Capability) -> StandingRefusal | None:
    return REFUSED if capability.name == "update_ticket" else None


def test_a_refused_capability_is_never_offered_among_the_closest_but_named_with_its_rule() -> None:
    sentence = no_match_sentence(
        [
            scored("update_ticket", 1, "Change a support ticket."),
            scored("get_ticket", 0.5, "Fetch one support ticket by id."),
            scored("search_tickets", 0, "Search support tickets."),
            scored("list_all_tickets", -1, "Every ticket."),
        ],
        refused_update,
    )

    assert sentence.startswith(
        "Nothing configured can do that, so nothing was run. The closest capabilities: "
        "1) Fetch one support ticket by id (tickets); 2) Search support tickets (tickets); "
        "3) Every ticket (tickets). If you meant one of these"
    )
    assert sentence.endswith(
        " Not offered: Change a support ticket (tickets), which the policy refuses whatever the arguments "
        "(policy rule no updates refused tickets__update_ticket: Tickets are changed by people)."
    )


def test_with_every_close_capability_refused_none_is_offered() -> None:
    sentence = no_match_sentence([scored("update_ticket", 1, "Change a support ticket.")], refused_update)

    assert sentence == (
        "Nothing configured can do that, so nothing was run. Not offered: Change a support ticket (tickets), "
        "which the policy refuses whatever the arguments "
        "(policy rule no updates refused tickets__update_ticket: Tickets are changed by people)."
    )
    assert "If you meant" not in sentence


def test_a_refused_closest_fit_is_said_with_the_words_of_a_refused_call() -> None:
    closest = scored("update_ticket", 1, "Change a support ticket.")
    others = [
        scored("get_ticket", 0.5, "Fetch one support ticket by id."),
        scored("search_tickets", 0, "Search support tickets."),
    ]
    others[0].referred_to = True  # the request pointed at it; nothing pointed at the search

    sentence = refused_fit_sentence([closest, *others], REFUSED, refused_update)

    assert sentence == (
        "The closest fit for this request, Change a support ticket (tickets), is refused by the policy "
        "whatever the arguments: policy rule no updates refused tickets__update_ticket: Tickets are changed "
        "by people. Nothing was run. Also near it: 1) Fetch one support ticket by id (tickets). "
        "If you meant one of these, say so in other words."
    )
    assert (
        refusal_sentence("no updates", "tickets__update_ticket", "Tickets are changed by people.") in sentence
    )
