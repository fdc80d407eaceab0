"""The Reviews page remembers an approval when the reviewer asks (the choice beside Approve),
lists the grants that cover calls now, and revokes one."""

from __future__ import annotations

from pathlib import Path

import pytest

from gatehouse.web.grant_panel import GRANTS_HEADER, REVOKE_LABEL, remember_key, within_key
from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import services
from tests.app.test_app import EMAIL, app_env, ask, on_page, outbox, session

pytestmark = pytest.mark.usefixtures("bundled_in_process")

__all__ = ["app_env"]  # the fixture, imported so pytest finds it here


def test_a_reviewer_remembers_an_approval_lists_the_grant_and_revokes_it(app_env: Path) -> None:
    operator = session()
    ask(operator, EMAIL)
    review_id = services().ledger.queue("pending")[0].id
    reviewer = on_page(session("reviewer"), "review_queue")

    reviewer.selectbox(key=remember_key(review_id)).set_value(
        "For the same call asked by this requester"
    ).run()
    reviewer.text_input(key=within_key(review_id)).input(
        '{"to": {"domain": "example.com"}, "body": "any"}'
    ).run()
    reviewer.button(key=f"approve-{review_id}").click().run()

    assert not reviewer.exception, reviewer.exception
    [grant] = services().grants.list()
    assert (grant.created_by, grant.requester, grant.review_id) == ("reviewer", "operator", review_id)
    assert [h.value for h in reviewer.header if h.value.startswith(GRANTS_HEADER)] == [f"{GRANTS_HEADER} (1)"]
    assert any(markdown_literal(grant.id) in block.value for block in reviewer.markdown)
    # The operator's next message to the same domain runs under it, with no review.
    operator.run()
    ask(operator, "Send an email to carol@example.com saying hello")
    assert services().ledger.count("pending") == 0
    assert [mail["to"] for mail in outbox(app_env)] == ["bob@example.com", "carol@example.com"]

    reviewer.button(key=f"revoke-{grant.id}").click().run()

    assert not reviewer.exception, reviewer.exception
    assert services().grants.list() == []
    assert services().grants.require(grant.id).revoked_by == "reviewer"
    assert not [b for b in reviewer.button if b.label == REVOKE_LABEL]
    ask(operator, "Send an email to dave@example.com saying hello")
    assert services().ledger.count("pending") == 1


def test_approving_for_this_call_only_remembers_nothing(app_env: Path) -> None:
    operator = session()
    ask(operator, EMAIL)
    review_id = services().ledger.queue("pending")[0].id
    reviewer = on_page(session("reviewer"), "review_queue")

    reviewer.button(key=f"approve-{review_id}").click().run()

    assert not reviewer.exception, reviewer.exception
    assert services().grants.list(everything=True) == []
    assert [h.value for h in reviewer.header if h.value.startswith(GRANTS_HEADER)] == [f"{GRANTS_HEADER} (0)"]
