"""The operator reads how a request ended: who decided, when, why, what the reviewer changed,
and the result itself (records as a table, text as text, the raw JSON behind an expander)."""

from __future__ import annotations

import secrets
import string
from datetime import UTC
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.display.reader_time import readable_time
from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import services
from tests.app.test_app import EMAIL, app_env, ask, button, markdown_text, on_page, page_text, session

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

__all__ = ["app_env"]  # the fixture, imported so pytest finds it here


def headline(verb: str, review_id: str) -> str:
    """``Approved by reviewer at 14:33 UTC`` as the chat's Markdown source holds it: the
    ledger's time of the decision, in UTC (AppTest sends no browser zone: the page's fallback)."""
    review = services().ledger.require(review_id)
    assert review.decided_at is not None
    return markdown_literal(f"{verb} by {review.decided_by} at {readable_time(review.decided_at, zone=UTC)}")


def raw_results(app: AppTest) -> list[str]:
    return [
        str(block.value)
        for expander in app.expander
        if expander.label == "Raw result"
        for block in expander.code
    ]


def test_after_an_edited_approval_the_operator_reads_who_when_the_diff_and_the_result(app_env: Path) -> None:
    operator = session()
    ask(operator, EMAIL)
    review_id = services().ledger.queue("pending")[0].id
    reviewer = on_page(session("reviewer"), "review_queue")
    reviewer.text_area(key=f"arg-{review_id}-body").input("hello from the reviewer").run()
    reviewer.button(key=f"approve-{review_id}").click().run()
    assert not reviewer.exception

    operator.run()

    assert not operator.exception
    assert headline("Approved", review_id) in markdown_text(operator)
    assert "- hi\n+ hello from the reviewer" in [block.value for block in operator.code]
    assert "`body`" in markdown_text(operator)  # which argument changed
    # The tool's result as fields, not JSON in the answer; the JSON behind an expander.
    [fields] = operator.dataframe
    shown = dict(zip(fields.value["field"], fields.value["value"], strict=True))
    assert shown["queued"] == "true" and shown["to"] == "bob@example.com"
    assert '"queued"' not in page_text(operator)
    [raw] = raw_results(operator)
    assert '"queued": true' in raw


def test_a_listing_is_a_table_of_its_records(app_env: Path) -> None:
    operator = ask(session(), "List the files in the managed project folder.")

    tables = [frame.value for frame in operator.dataframe]
    entries = next(table for table in tables if "name" in table.columns)
    assert {"sample.txt", "notes.md"} <= set(entries["name"])
    assert any("entries · " in caption.value for caption in operator.caption)
    assert raw_results(operator) and "sample.txt" in raw_results(operator)[0]


def test_a_rejection_shows_who_when_and_the_reason_as_the_reviewer_wrote_it(app_env: Path) -> None:
    operator = session()
    ask(operator, EMAIL)
    review_id = services().ledger.queue("pending")[0].id
    reviewer = on_page(session("reviewer"), "review_queue")
    reason = "**not** today :red[see] [docs](https://example.com)"
    reviewer.text_input(key=f"reason-{review_id}").input(reason)
    button(reviewer, "Reject").click().run()

    operator.run()

    assert headline("Rejected", review_id) in markdown_text(operator)
    assert reason in [str(text.value) for text in operator.text]  # literally, as plain text
    assert all("**not**" not in block.value for block in operator.markdown)
    assert operator.dataframe.len == 0 and raw_results(operator) == []  # nothing ran


def test_a_withdrawn_request_says_who_withdrew_it_and_when(app_env: Path) -> None:
    operator = ask(session(), EMAIL)
    review_id = services().ledger.queue("pending")[0].id

    button(operator, "Withdraw this request").click().run()

    assert headline("Withdrawn", review_id) in markdown_text(operator)


def test_a_secret_the_reviewer_typed_into_an_argument_is_hidden_in_the_diff_and_the_result(
    app_env: Path,
) -> None:
    token = "ghp_" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(36))
    operator = ask(session(), EMAIL)
    review_id = services().ledger.queue("pending")[0].id
    reviewer = on_page(session("reviewer"), "review_queue")
    reviewer.text_area(key=f"arg-{review_id}-body").input(f"use {token}").run()
    reviewer.button(key=f"approve-{review_id}").click().run()

    operator.run()

    assert "- hi\n+ use ghp_***" in [block.value for block in operator.code]
    shown = [
        *(
            str(e.value)
            for group in (operator.markdown, operator.text, operator.code, operator.caption)
            for e in group
        ),
        *(frame.value.to_csv() for frame in operator.dataframe),
    ]
    assert not [part for part in shown if token in part]
