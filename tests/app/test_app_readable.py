"""The review and chat pages are readable: flag reasons in full, wrapped; long diff lines
wrapped; a new file previewed as a new file; short ids on screen (the full one in the
details); a sentence where the machine's words (scores, thresholds) would mean nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import services
from gatehouse.web.short_ids import short_review, short_thread
from tests.app.test_app import (  # noqa: F401 (app_env: a fixture)
    APP,
    EMAIL,
    app_env,
    ask,
    button,
    linked_reviewer,
    on_page,
    page_text,
    session,
)
from tests.reviews.review_support import NO_WRITES, policy_file
from tests.reviews.test_ledger_paging import open_all

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("app_env", "bundled_in_process")

FULL_ID = re.compile(r"[0-9a-f]{32}")


def everything_shown(app: AppTest) -> str:
    """Every piece of text on the page but code blocks and the details expander's ids."""
    parts = [
        *(block.value for block in app.markdown),
        *(str(block.value) for block in app.text),
        *(block.value for block in app.caption),
        *(block.value for block in app.header),
        *(block.value for block in app.subheader),
        *(block.value for block in app.warning),
        *(block.value for block in app.info),
        *(block.value for block in app.success),
        *(label for box in app.selectbox for label in box.options),
        *(expander.label for expander in app.expander),
        *(frame.value.to_string() for frame in app.dataframe),
    ]
    return "\n".join(parts)


def test_every_flag_reason_is_shown_in_full_as_text_with_gatehouses_severity_badge() -> None:
    ask(session(), EMAIL)
    review = services().ledger.queue("pending")[0]
    reviewer = on_page(session("reviewer"), "review_queue")

    markdown = [block.value for block in reviewer.markdown]
    assert review.flags
    for flag in review.flags:
        [line] = [block for block in markdown if markdown_literal(flag["message"]) in block]
        assert line.startswith(f":{'red' if flag['severity'] in {'high', 'critical'} else 'orange'}-badge[")
    # No table holds the reasons (a cell cuts them off).
    assert [frame for frame in reviewer.dataframe if "reason" in frame.value.columns] == []


def test_a_file_diff_wraps_its_long_lines() -> None:
    ask(session(), 'Write "' + "a long line of fresh notes " * 12 + '" to the file notes.md')
    reviewer = on_page(session("reviewer"), "review_queue")

    [diff] = [block for block in reviewer.code if block.language == "diff"]
    assert diff.proto.wrap_lines is True


def test_a_write_to_a_file_that_does_not_exist_is_previewed_as_a_new_file() -> None:
    ask(session(), 'Write "fresh notes" to the file brand-new.md')
    reviewer = on_page(session("reviewer"), "review_queue")

    text = everything_shown(reviewer)
    assert "New file: it does not exist yet, and writing it creates it with 1 line." in text
    assert "no such file" not in text.lower()
    [diff] = [block for block in reviewer.code if block.language == "diff"]
    assert diff.value.splitlines()[:2] == ["--- /dev/null", "+++ b/brand-new.md"]
    assert "+fresh notes" in diff.value.splitlines()


def test_ids_are_short_on_screen_never_the_first_column_and_full_in_the_details() -> None:
    operator = ask(session(), EMAIL)
    review = services().ledger.queue("pending")[0]
    reviewer = on_page(session("reviewer"), "review_queue")

    queue = reviewer.dataframe[0].value
    assert queue.columns[0] != "review"
    assert queue["review"].tolist() == [short_review(review.id)]
    assert f"Review {markdown_literal(short_review(review.id))}" in [h.value for h in reviewer.header]
    assert FULL_ID.search(everything_shown(reviewer)) is None
    # The full ids are one click away, to copy.
    [details] = [e for e in reviewer.expander if e.label.startswith("Details")]
    assert f"review {review.id}" in details.code[0].value
    assert f"thread {review.thread_id}" in details.code[0].value

    assert FULL_ID.search(everything_shown(operator)) is None
    assert any(markdown_literal(short_review(review.id)) in c.value for c in operator.caption)


def test_the_traces_page_lists_threads_by_their_short_id() -> None:
    app = ask(session(), "List the files in the managed project folder.")
    thread = services().conversations.of_owner("operator", limit=1)[0].thread_id

    on_page(app, "traces")

    [label] = app.selectbox[0].options
    assert label.endswith(f" · {short_thread(thread)}")
    assert FULL_ID.search(label) is None


def test_a_request_no_capability_fits_is_answered_with_a_sentence_not_scores() -> None:
    app = ask(session(), "Book me a flight to Lisbon next week.")

    text = page_text(app)
    assert "Nothing configured can do that, so nothing was run. The closest capabilities: 1) " in text
    assert "threshold" not in text and "score" not in text and "points" not in text


def test_a_review_link_with_the_short_id_on_screen_opens_that_review() -> None:
    operator = ask(session(), "Send an email to bob@example.com saying first")
    button(operator, "New thread").click().run()
    ask(operator, "Send an email to bob@example.com saying second")
    newest = services().ledger.queue("pending")[-1].id

    reviewer = linked_reviewer(short_review(newest))

    assert reviewer.selectbox(key="review_picker").value == newest
    assert "second" in page_text(reviewer)


def test_a_review_link_whose_short_id_fits_two_reviews_says_so_and_opens_neither() -> None:
    open_all(
        services().ledger, ["a25b381cafaf420598a8a601b2888464-r1", "a25b381c0000420598a8a601b2888464-r1"]
    )

    reviewer = linked_reviewer("a25b381c-r1")

    assert any("is ambiguous" in warning.value for warning in reviewer.warning)
    assert not reviewer.exception


def test_a_thread_link_with_the_short_id_on_screen_opens_that_thread() -> None:
    operator = ask(session(), "List the files in the managed project folder.")
    thread = operator.session_state["thread"]
    button(operator, "New thread").click().run()
    ask(operator, EMAIL)

    linked = AppTest.from_file(str(APP), default_timeout=60)
    linked.query_params["thread"] = short_thread(thread)
    linked.run()

    assert not linked.exception, linked.exception
    assert linked.session_state["thread"] == thread
    assert "sample.txt" in page_text(linked)


def test_a_thread_link_that_names_no_thread_says_so() -> None:
    ask(session(), "List the files in the managed project folder.")

    linked = AppTest.from_file(str(APP), default_timeout=60)
    linked.query_params["thread"] = "ffffffff"
    linked.run()

    assert not linked.exception, linked.exception
    assert any(
        "no thread ffffffff" in box.value.replace("\\", "")
        for box in [*linked.warning, *linked.info, *linked.error]
    )


def test_a_request_whose_closest_fit_the_policy_refuses_says_so_with_the_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = policy_file(tmp_path, "no-writes.toml", NO_WRITES)
    monkeypatch.setenv("GATEHOUSE_POLICY", str(policy))
    refusal = "policy rule no writes refused filesystem__write_file: Agents write nothing."

    app = ask(session(), "Save my notes")

    text = page_text(app)
    markdown = [block.value for block in app.markdown]
    # A refusal by the policy, badged as a refused call is: not "nothing configured can do that".
    assert ":red-badge[error]" in markdown
    assert (
        "The closest fit for this request, Create or overwrite a UTF-8 text file in the managed project "
        f"folder with the given content (filesystem), is refused by the policy whatever the arguments: {refusal} "
        "Nothing was run." in text
    )
    assert "Nothing configured can do that" not in text and "nothing configured" not in text
    assert any(markdown_literal(refusal) in block and ":red[" in block for block in markdown)
