"""Why nothing ran when no capability fits: a sentence for the person who asked."""

from __future__ import annotations

from graph.output import no_match_sentence
from graph.planner.scoring import ScoredCapability
from mcp_host.manifest import Capability


def capability(title: str | None) -> Capability:
    return Capability(
        key="tickets__get_ticket", server="tickets", type="tool", name="get_ticket", title=title
    )


def test_the_closest_capability_is_named_with_its_title_and_how_close_it_came() -> None:
    sentence = no_match_sentence(ScoredCapability(capability("Get ticket"), 1.5), 4.0)

    assert sentence.startswith(
        "No capability matched the request well enough to use it (the closest, "
        "Get ticket (tickets__get_ticket), matched 1.5 of the 4 points needed), so nothing was run."
    )


def test_a_capability_without_a_title_is_named_by_its_key() -> None:
    assert "the closest, tickets__get_ticket, matched 0 of" in no_match_sentence(
        ScoredCapability(capability(None), 0.0), 4.0
    )


def test_with_no_candidate_at_all_the_sentence_says_no_server_offers_one() -> None:
    sentence = no_match_sentence(None, 4.0)

    assert sentence.startswith("None of the configured servers offers a capability that matches this request")
    assert "threshold" not in sentence and "score" not in sentence
