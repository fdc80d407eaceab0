"""What an approved call's effect read back as after it ran (docs/effects.md), on the pages:
the reviewer who approved sees it at once and in the Decided history (a mismatch as an error
saying what differs, "not verified" saying why, "verified" as such), a decided review opened
by its link shows it, and the operator's chat says it in its own alert.

The mismatch comes from a real server whose writes change right after they are made
(tests/drifting_files_server.py), served in this process; a check's detail quotes paths and
server text, so hostile text in it must show literally."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import services
from gatehouse.web.short_ids import short_review
from graph.state import EffectCheckData
from reviews.ledger import Review
from tests.app.test_app import app_env, ask, linked_reviewer, markdown_text, on_page, session
from tests.drifting_files_server import entry
from tests.reviews.review_support import email_review

# The bundled servers and the drifting test server run in this process: in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process", "test_servers_in_process")

__all__ = ["app_env"]  # the fixture, imported so pytest finds it here

WRITE_REPORT = 'Write "# Report" to the file report.md'
MISMATCH = "report.md on files does not hold the approved content after files__write_file wrote it"
# A detail as a hostile server or request could shape it: Streamlit's badge, a link, an image,
# emphasis and a heading, none of which may take effect.
HOSTILE = (
    "# :green-badge[Pre-approved by Security] **fine** ![x](http://evil.test/x.png) [ok](http://evil.test)"
)


@pytest.fixture
def drifting_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The app with one file server, ``files``, whose every write is changed right after it."""
    data = tmp_path / "data"
    folder = data / "files"
    folder.mkdir(parents=True)
    servers_file = tmp_path / "servers.json"
    servers = {"mcpServers": {"files": entry(folder, "\nappended after the write")}}
    servers_file.write_text(json.dumps(servers), encoding="utf-8")
    monkeypatch.setenv("GATEHOUSE_DATA", str(data))
    monkeypatch.setenv("GATEHOUSE_SERVERS", str(servers_file))
    monkeypatch.delenv("GATEHOUSE_DB", raising=False)
    monkeypatch.delenv("GATEHOUSE_POLICY", raising=False)
    services.clear()
    yield folder
    services().close()
    services.clear()


def alerts(app: AppTest, kind: str) -> list[str]:
    return [str(block.value) for block in getattr(app, kind)]


def history_column(app: AppTest, column: str) -> list[str]:
    """A column of the Decided table (the page's last table)."""
    return list(app.dataframe[-1].value[column])


def approve_first(reviewer: AppTest) -> str:
    review_id = services().ledger.queue("pending")[0].id
    reviewer.button(key=f"approve-{review_id}").click().run()
    assert not reviewer.exception, reviewer.exception
    return review_id


def executed_review(review_id: str, check: EffectCheckData) -> Review:
    """A review approved, its call run and its effect checked, as the ledger records them."""
    ledger = services().ledger
    thread = f"thread-{review_id}"
    ledger.open_review(email_review(review_id, thread, {"to": "bob@example.com", "body": "hi"}))
    ledger.record_decision(review_id, reviewer="reviewer", action="approve", reason=None, arguments=None)
    assert ledger.begin_execution(review_id, "hash", thread)
    ledger.finish_execution(review_id, "executed", {"content": []})
    ledger.record_effect_check(review_id, check)
    return ledger.require(review_id)


def test_the_reviewer_who_approved_a_write_that_changed_sees_the_mismatch_at_once_and_in_the_history(
    drifting_env: Path,
) -> None:
    ask(session(), WRITE_REPORT)
    reviewer = on_page(session("reviewer"), "review_queue")

    review_id = approve_first(reviewer)

    assert (drifting_env / "report.md").read_text(encoding="utf-8") != "# Report"
    expected = (
        f"**Effect mismatch: what the call did is not what was approved.** {markdown_literal(MISMATCH)}"
    )
    assert expected in alerts(reviewer, "error")
    in_history = [alert for alert in alerts(reviewer, "error") if alert.startswith("**Review ")]
    assert in_history == [
        f"**Review {markdown_literal(short_review(review_id))}** (`files__write_file`, executed): "
        f"the effect does not match what was approved. {markdown_literal(MISMATCH)}"
    ]
    assert history_column(reviewer, "effect") == ["MISMATCH"]


def test_the_operators_chat_says_the_mismatch_in_its_own_alert_and_not_twice(drifting_env: Path) -> None:
    operator = ask(session(), WRITE_REPORT)
    approve_first(on_page(session("reviewer"), "review_queue"))

    operator.run()

    assert not operator.exception, operator.exception
    assert [alert for alert in alerts(operator, "error") if "Effect mismatch" in alert] == [
        f"**Effect mismatch: what the call did is not what was approved.** {markdown_literal(MISMATCH)}"
    ]
    # The same detail is in the output's errors: the chat does not repeat it as an error line.
    assert markdown_literal(MISMATCH) not in markdown_text(operator)


def test_a_write_that_reads_back_as_approved_is_verified_for_the_operator_and_the_reviewer(
    app_env: Path,
) -> None:
    operator = ask(session(), WRITE_REPORT)
    reviewer = on_page(session("reviewer"), "review_queue")

    approve_first(reviewer)
    operator.run()

    verified = "**Effect verified:** " + markdown_literal(
        "report.md on filesystem holds the approved content"
    )
    assert verified in alerts(operator, "success")
    assert verified in alerts(reviewer, "success")
    assert history_column(reviewer, "effect") == ["verified"]
    assert not [alert for alert in alerts(operator, "error") if "Effect" in alert]


def test_a_decided_review_opened_by_its_link_says_why_its_effect_was_not_verified_literally(
    app_env: Path,
) -> None:
    session()  # the app's services, open
    review = executed_review("hostile-r1", {"status": "not_verified", "detail": HOSTILE})

    reviewer = linked_reviewer(review.id)

    assert f"**Effect not verified:** {markdown_literal(HOSTILE)}" in alerts(reviewer, "warning")
    assert history_column(reviewer, "effect") == ["not verified"]
    assert not [alert for alert in alerts(reviewer, "error") if "Effect" in alert or "Review " in alert]


def test_a_mismatch_in_the_history_shows_a_hostile_detail_literally(app_env: Path) -> None:
    session()
    review = executed_review("hostile-r1", {"status": "mismatch", "detail": HOSTILE})

    reviewer = on_page(session("reviewer"), "review_queue")

    [alert] = [alert for alert in alerts(reviewer, "error") if alert.startswith("**Review ")]
    assert alert.endswith(f"the effect does not match what was approved. {markdown_literal(HOSTILE)}")
    assert short_review(review.id) in alert.replace("\\", "")
    # Every character of the hostile text is escaped: no badge, link, image or heading can start.
    assert ":green-badge[" not in alert and "](" not in alert and "**fine**" not in alert
    assert history_column(reviewer, "effect") == ["MISMATCH"]
