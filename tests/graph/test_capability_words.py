"""The catalogue's request to try (graph/capability_words.py) says what the capability does: a
tool that acts is asked for with its verb, never with "Show the ...", and the request, asked as
it is, never selects another capability.

The servers are made up here: names whose verb is not their first word, or is only in the
description, which is where a request made from the name alone went wrong."""

from __future__ import annotations

import pytest

from graph.capability_words import example_request
from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from mcp_host.manifest import Capability
from tests.capabilities import tool

TEXT = {"type": "string"}
READ_ONLY = {"readOnlyHint": True}

# Tools that act, each beside a read about the same thing (a request that only reads would be
# served by the read: the wrong capability, not merely none).
ACTING = [
    tool("tracker", "issue_create", "Create an issue in a project.", {"title": TEXT}, ["title"]),
    tool("chat", "channel_message", "Sends a message to a channel.", {"channel": TEXT}, ["channel"]),
    tool("crm", "contact_removal", "Deletes a contact from the address book.", {"id": TEXT}, ["id"]),
    tool("billing", "new_invoice", "Creates an invoice for a customer.", {"customer": TEXT}, ["customer"]),
    # Acting only by its annotation: no word says how.
    tool("lab", "centrifuge", "The lab's centrifuge.", {}, [], {"destructiveHint": True}),
]
READS = [
    tool("tracker", "issue_search", "Search issues by their text.", {"text": TEXT}, ["text"], READ_ONLY),
    tool("chat", "channel_history", "The latest messages of a channel.", {"channel": TEXT}, ["channel"], READ_ONLY),
    tool("crm", "contacts", "Every contact in the address book.", {}, [], READ_ONLY),
    tool("billing", "invoices", "The invoices of a customer.", {"customer": TEXT}, ["customer"], READ_ONLY),
    tool("lab", "centrifuge_state", "Whether the lab's centrifuge is spinning.", {}, [], READ_ONLY),
]  # fmt: skip


@pytest.mark.parametrize(
    ("capability", "expected"),
    [
        (ACTING[0], "Create issue with title …"),
        # "message" after a noun is a noun: the description says the verb.
        (ACTING[1], "Send channel message with channel …"),
        (ACTING[2], "Delete contact removal with id …"),
        (ACTING[3], "Create new invoice with customer …"),
    ],
    ids=lambda value: value.key if isinstance(value, Capability) else None,
)
def test_a_tool_that_acts_is_asked_for_with_the_verb_its_name_or_description_says(
    capability: Capability, expected: str
) -> None:
    assert example_request(capability) == expected


def test_a_tool_that_acts_with_no_verb_said_is_not_asked_for_as_a_read() -> None:
    # No verb to say, and "Show" would say it reads.
    assert example_request(ACTING[4]) == "Use the centrifuge tool"


def test_a_read_whose_name_says_no_verb_is_still_shown() -> None:
    assert example_request(READS[2]) == "Show the contacts"
    assert example_request(READS[3]) == "Show the invoices with customer …"


@pytest.mark.parametrize("capability", ACTING, ids=lambda capability: capability.key)
def test_the_request_to_try_for_a_tool_that_acts_never_selects_another_capability(
    capability: Capability,
) -> None:
    request = PlanningRequest(text=example_request(capability))

    selection = DeterministicPlanner().select(request, [*ACTING, *READS], Limits())

    assert selection.chosen is None or selection.chosen.capability.key == capability.key, request.text
