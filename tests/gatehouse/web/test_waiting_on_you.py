"""What is announced as new to the person at the browser, and the script that tells the tab:
only reviews that started waiting on them since the last refresh, and no text can break out
of the script (the browser tests, tests/browser/test_waiting_on_you.py, run it in Chromium)."""

from __future__ import annotations

import json
import re

from gatehouse.web.tab_attention import NewReview, attention_script
from gatehouse.web.waiting_on_you import new_since
from reviews.ledger import Review
from tests.reviews.review_support import email_review


def pending(review_id: str) -> Review:
    payload = email_review(review_id, f"thread-{review_id}", {"to": "bob@example.com"})
    return Review.model_validate(
        {
            "id": review_id,
            "thread_id": payload["thread_id"],
            "stage": payload["stage"],
            "capability_key": "email__send_email",
            "capability": payload["capability"],
            "arguments": payload["arguments"],
            "call_hash": "h",
            "flags": [],
            "requester": "operator",
            "required_approvals": 1,
            "four_eyes": True,
            "reviewer_roles": ["reviewer"],
            "created_at": "2026-11-01T12:00:00+00:00",
            "expires_at": "2026-11-01T12:30:00+00:00",
            "status": "pending",
            "payload": dict(payload),
        }
    )


def test_only_reviews_new_since_the_last_refresh_of_the_same_person_are_announced() -> None:
    first, second = pending("r1"), pending("r2")

    assert new_since(None, "reviewer", [first]) == []  # the page just opened: counted, not news
    assert new_since(("reviewer", frozenset({"r1"})), "reviewer", [first, second]) == [second]
    assert new_since(("reviewer", frozenset({"r1", "r2"})), "reviewer", [second]) == []
    # Another name picked: what waits on them is not news either.
    assert new_since(("reviewer", frozenset()), "reviewer2", [first, second]) == []


def test_the_script_carries_its_values_as_json_that_no_text_can_close() -> None:
    hostile = NewReview("r1", "</script><script>alert(1)</script> asks for x")

    script = attention_script(2, [hostile], offer=True)

    assert script.startswith("<script>") and script.endswith("</script>")
    assert script.count("</script>") == 1
    data = re.search(r"const data = (\{.*?\});\n", script)
    assert data is not None
    assert json.loads(data.group(1)) | {"title": "", "ask": ""} == {
        "count": 2,
        "fresh": [{"id": "r1", "text": hostile.text}],
        "offer": True,
        "title": "",
        "ask": "",
    }
