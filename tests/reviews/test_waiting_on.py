"""Which reviews wait on whom (ReviewService.waiting_on, what each person's own count counts):
exactly those the person may decide, by the same rule decide() enforces, and has not decided.
The shipped roster: operator (decides nothing), reviewer and reviewer2, admin."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gatehouse.wiring import Services
from reviews.errors import NotPermittedError
from tests.reviews.review_support import EMAIL_TERMS, email_review, email_servers, services_for
from tests.reviews.test_ledger_paging import decide

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

PEOPLE = ("operator", "reviewer", "reviewer2", "admin", "stranger")


@pytest.fixture
def services(data_dir: Path) -> Iterator[Services]:
    with services_for(data_dir, servers=email_servers(data_dir)) as opened:
        yield opened


def review(services: Services, review_id: str, **changes: Any) -> None:
    """A pending review of an e-mail, as the shipped policy opens it, with ``changes``
    to its payload (``terms`` to its review terms)."""
    payload = dict(email_review(review_id, f"thread-{review_id}", {"to": "bob@example.com"}))
    payload["review_terms"] = EMAIL_TERMS | changes.pop("terms", {})
    services.ledger.open_review(payload | changes)  # type: ignore[arg-type]


def test_a_review_waits_on_exactly_those_who_may_decide_it_and_have_not(services: Services) -> None:
    review(services, "asked-by-operator")
    review(services, "asked-by-reviewer2", requester="reviewer2")
    review(services, "answered-by-reviewer", contributors=["reviewer"])
    review(services, "caused-by-reviewer", caused_by=[{"thread_id": "t0", "requester": "reviewer"}])
    review(services, "for-admins", terms={"reviewer_roles": ["admin"]})
    review(services, "two-approvals", terms={"required_approvals": 2})
    review(services, "own-without-four-eyes", requester="reviewer", terms={"four_eyes": False})
    review(services, "decided")
    decide(services.ledger, "two-approvals", "reviewer", "approve")
    decide(services.ledger, "decided", "reviewer2", "reject", "no")

    waiting = {name: {r.id for r in services.reviews.waiting_on(name)} for name in PEOPLE}

    assert waiting == {
        "operator": set(),
        "reviewer": {"asked-by-operator", "asked-by-reviewer2", "own-without-four-eyes"},
        "reviewer2": {
            "asked-by-operator",
            "answered-by-reviewer",
            "caused-by-reviewer",
            "two-approvals",
            "own-without-four-eyes",
        },
        "admin": {"for-admins"},
        "stranger": set(),
    }


def test_the_count_and_the_decision_follow_one_rule(services: Services) -> None:
    """Whoever a review does not wait on for want of permission is refused, with the reason the
    rule gives; whoever it waits on is not."""
    review(services, "asked-by-reviewer2", requester="reviewer2")
    pending = services.ledger.require("asked-by-reviewer2")
    for name in PEOPLE:
        problem = services.reviews.permission_problem(pending, name)
        assert services.reviews.waits_on(pending, name) == (problem is None)
        if problem is None:
            services.reviews.check_permission(pending, name)
        else:
            with pytest.raises(NotPermittedError, match=re.escape(problem)):
                services.reviews.check_permission(pending, name)
    assert "four-eyes: reviewer2 asked for this call" in str(
        services.reviews.permission_problem(pending, "reviewer2")
    )
