"""The web app through Streamlit's AppTest: every page, and two people working one request.

Each test runs the real app script against real stdio demo servers and a real SQLite file;
two AppTest instances are two browser sessions of the same process (they share the
process-wide services, as two people on one replica do).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Button, Selectbox

from gatehouse.credentials.local_identity import COOKIE
from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import services
from gatehouse.web.short_ids import short_review
from tests.reviews.review_support import email_review
from tests.support import bundled_server_entry

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
EMAIL = "Send an email to bob@example.com saying hi"


@pytest.fixture
def app_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data = tmp_path / "data"
    entries = {name: bundled_server_entry(name, data / "demo") for name in ("filesystem", "email")}
    servers_file = tmp_path / "servers.json"
    servers_file.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    monkeypatch.setenv("GATEHOUSE_DATA", str(data))
    monkeypatch.setenv("GATEHOUSE_SERVERS", str(servers_file))
    monkeypatch.delenv("GATEHOUSE_DB", raising=False)
    monkeypatch.delenv("GATEHOUSE_POLICY", raising=False)
    services.clear()
    yield data
    services().close()
    services.clear()


def session(user: str = "operator") -> AppTest:
    """A browser session of the app, signed in (local mode) as ``user``."""
    app = AppTest.from_file(str(APP), default_timeout=60)
    app.run()
    picker = app.sidebar.selectbox(key="user")
    if picker.value != user:
        picker.set_value(user).run()
    assert not app.exception, app.exception
    return app


def on_page(app: AppTest, page: str) -> AppTest:
    app.switch_page(f"views/{page}.py").run()
    assert not app.exception, app.exception
    return app


def linked_reviewer(review: str) -> AppTest:
    """A new session opened by a review link (``?as=reviewer&review=ID``) on the app's root,
    the Chat page: it lands on the Reviews page (gatehouse/web/review_link.py)."""
    reviewer = AppTest.from_file(str(APP), default_timeout=60)
    reviewer.query_params["as"] = "reviewer"
    reviewer.query_params["review"] = review
    reviewer.run()
    assert not reviewer.exception, reviewer.exception
    assert [title.value for title in reviewer.title] == ["Reviews"]
    return reviewer


def markdown_text(app: AppTest) -> str:
    return "\n".join(block.value for block in app.markdown)


def page_text(app: AppTest) -> str:
    """What the page shows as Markdown, as plain text (untrusted text is plain: st.text) and in
    tables (a result's records are a table)."""
    return "\n".join(
        [
            *(block.value for block in app.markdown),
            *(str(block.value) for block in app.text),
            *(frame.value.to_csv(index=False) for frame in app.dataframe),
        ]
    )


def outbox(data: Path) -> list[dict[str, object]]:
    path = data / "demo" / "outbox.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def ask(app: AppTest, text: str) -> AppTest:
    app.chat_input[0].set_value(text).run()
    assert not app.exception, app.exception
    return app


def thread_picker(app: AppTest) -> Selectbox[str]:
    """The chat's thread picker (keyed by the thread it shows: views/chat.py picker_key)."""
    [picker] = [box for box in app.selectbox if box.label == "Your threads"]
    return picker


def button(app: AppTest, label: str) -> Button:
    matches = [b for b in app.button if b.label == label]
    assert matches, f"no button {label!r}; buttons: {[b.label for b in app.button]}"
    return matches[0]


# -- first screen --------------------------------------------------------------------------


def test_the_first_screen_works_on_an_empty_database(app_env: Path) -> None:
    app = AppTest.from_file(str(APP), default_timeout=60)

    app.run()

    assert not app.exception
    assert app.title[0].value == "Chat"
    assert app.sidebar.selectbox(key="user").value == "operator"
    assert not app.sidebar.metric  # an operator decides no review: no count waiting on them
    assert any("Local mode" in caption.value for caption in app.sidebar.caption)
    assert "*What you can ask* lists each of them with a request to try" in markdown_text(app)
    assert thread_picker(app).options == ["New thread"]


def test_the_sidebar_keeps_who_you_are_across_pages(app_env: Path) -> None:
    app = session("reviewer")

    on_page(app, "traces")
    on_page(app, "review_queue")

    assert app.sidebar.selectbox(key="user").value == "reviewer"
    assert any("Role: reviewer" in caption.value for caption in app.sidebar.caption)
    assert any(
        caption.value == "Planner: " + markdown_literal("deterministic (offline, no language model)")
        for caption in app.sidebar.caption
    )


# -- chat ----------------------------------------------------------------------------------


def test_an_operator_asks_in_chat_and_sees_the_answer(app_env: Path) -> None:
    app = session()

    ask(app, "List the files in the managed project folder.")

    text = page_text(app)
    assert "sample.txt" in text and "notes.md" in text
    assert "`list_directory`" in text and "done" in text
    [user_message, answer] = app.chat_message
    assert user_message.name == "user" and answer.name == "assistant"


def test_a_request_waiting_for_review_shows_its_flags_and_locks_the_input(app_env: Path) -> None:
    app = session()

    ask(app, EMAIL)

    text = markdown_text(app)
    assert "waiting for a reviewer" in text
    assert "`sends_messages`" in text
    assert app.chat_input[0].disabled
    assert outbox(app_env) == []


def test_the_requester_withdraws_a_waiting_request_from_the_chat_and_it_leaves_the_queue(
    app_env: Path,
) -> None:
    app = session()
    ask(app, EMAIL)
    reviewer = on_page(session("reviewer"), "review_queue")
    assert "Pending (1)" in markdown_text(reviewer) or reviewer.sidebar.metric[0].value == "1"

    button(app, "Withdraw this request").click().run()

    assert not app.exception, app.exception
    assert "withdrawn" in page_text(app)
    assert "operator withdrew the request" in page_text(app)
    assert not app.chat_input[0].disabled
    assert not [b for b in app.button if b.label == "Withdraw this request"]
    assert services().ledger.queue("pending") == []
    assert [r.status for r in services().ledger.queue()] == ["cancelled"]
    assert outbox(app_env) == []


def test_which_capability_is_answered_with_a_button_naming_each_candidate(app_env: Path) -> None:
    # Two equal candidates: the same filesystem server configured twice under two names.
    servers_file = app_env.parent / "servers.json"
    mirrored = json.loads(servers_file.read_text(encoding="utf-8"))
    mirrored["mcpServers"]["mirror"] = mirrored["mcpServers"]["filesystem"]
    servers_file.write_text(json.dumps(mirrored), encoding="utf-8")
    app = session()
    ask(app, "List the files in the managed project folder.")
    assert "Which one do you mean?" in page_text(app)

    button(app, markdown_literal("List directory (mirror)")).click().run()

    assert not app.exception, app.exception
    text = page_text(app)
    assert "sample.txt" in text
    assert "`list_directory`" in text and "done" in text


def test_a_question_about_a_request_in_another_language_says_so_not_that_two_fit_equally(
    app_env: Path,
) -> None:
    app = session()
    ask(app, "Envoie un courriel à bob@example.com pour dire bonjour")

    text = page_text(app)
    assert (
        "This request reads as French, which I read only roughly; these fit it best. Which one do you mean?"
        in text
    )
    assert "fit this request about equally well" not in text
    assert "Pick the one you mean:" in text


def test_local_identity_is_kept_in_the_address_so_a_reload_keeps_it(app_env: Path) -> None:
    first = session("reviewer")
    assert first.query_params["as"] == ["reviewer"] or first.query_params["as"] == "reviewer"

    reloaded = AppTest.from_file(str(APP), default_timeout=60)
    reloaded.query_params["as"] = "reviewer"
    reloaded.run()

    assert not reloaded.exception, reloaded.exception
    assert reloaded.sidebar.selectbox(key="user").value == "reviewer"
    assert any("not security" in caption.value for caption in reloaded.sidebar.caption)


def test_a_thread_link_opens_that_thread_for_its_owner(app_env: Path) -> None:
    app = session()
    ask(app, "List the files in the managed project folder.")
    thread = app.session_state["thread"]
    button(app, "New thread").click().run()
    ask(app, EMAIL)

    linked = AppTest.from_file(str(APP), default_timeout=60)
    linked.query_params["thread"] = thread
    linked.run()

    assert not linked.exception, linked.exception
    assert linked.session_state["thread"] == thread
    assert "sample.txt" in page_text(linked)


def test_threads_are_listed_by_their_first_message_and_reopen_with_their_history(app_env: Path) -> None:
    app = session()
    ask(app, "List the files in the managed project folder.")
    button(app, "New thread").click().run()
    ask(app, "Read the file notes.md")

    picker = thread_picker(app)
    # AppTest lists a selectbox's options as the labels a person sees.
    assert picker.options[0].startswith("Read the file notes.md")
    assert picker.options[1].startswith("List the files in the managed project folder.")

    [_newest, oldest] = [c.thread_id for c in services().conversations.of_owner("operator")]
    picker.set_value(oldest).run()
    assert "sample.txt" in page_text(app)
    assert "Read the file notes.md" not in page_text(app)

    # A new browser session of the same person finds both threads.
    later = session()
    later_picker = thread_picker(later)
    assert len(later_picker.options) == 2


def test_a_missing_argument_is_asked_for_and_the_answer_resumes_the_same_thread(app_env: Path) -> None:
    app = session()
    ask(app, "Send an email saying hi")
    assert "needs your answer" in markdown_text(app)
    thread = app.session_state["thread"]

    assert [box.label for box in app.text_input] == ["to"]
    app.text_input(key=f"clarify-{thread}-to").input("bob@example.com")
    button(app, "Answer").click().run()

    assert not app.exception
    assert app.session_state["thread"] == thread
    assert "waiting for a reviewer" in markdown_text(app)
    messages = services().conversations.messages(thread)
    assert [m.role for m in messages] == ["operator", "gatehouse", "operator", "gatehouse"]
    assert messages[2].text == "bob@example.com"
    assert services().ledger.queue("pending")[0].arguments == {"to": "bob@example.com", "body": "hi"}


# -- reviews -------------------------------------------------------------------------------


def test_an_operator_sees_the_queue_but_no_decision_buttons(app_env: Path) -> None:
    app = session()
    ask(app, EMAIL)

    on_page(app, "review_queue")

    assert "Pending (1)" in [header.value for header in app.header]
    assert [b.label for b in app.button if b.label in {"Approve", "Reject", "Approve with my changes"}] == []
    assert any("cannot decide" in info.value for info in app.info)


def test_turning_live_updates_off_is_said_on_the_page_until_turned_on_again(app_env: Path) -> None:
    reviewer = on_page(session("reviewer"), "review_queue")
    off_notice = "Live updates are off"
    assert not any(off_notice in caption.value for caption in reviewer.caption)

    reviewer.toggle(key="live_reviews").set_value(False).run()
    assert any(off_notice in caption.value for caption in reviewer.caption)

    reviewer.toggle(key="live_reviews").set_value(True).run()
    assert not any(off_notice in caption.value for caption in reviewer.caption)


def test_a_reviewer_approves_and_the_operators_session_shows_the_result(app_env: Path) -> None:
    operator = session()
    ask(operator, EMAIL)
    reviewer = on_page(session("reviewer"), "review_queue")

    text = page_text(reviewer)
    assert "To: bob@example.com" in text  # the e-mail preview
    assert "Send an email to bob@example.com saying hi" in text  # the request
    assert reviewer.dataframe[0].value["requester"].tolist() == ["operator"]
    button(reviewer, "Approve").click().run()

    assert not reviewer.exception
    assert any("approved" in s.value or "executed" in s.value for s in reviewer.success)
    assert "Pending (0)" in [header.value for header in reviewer.header]
    history = reviewer.dataframe[0].value
    assert history["decided by"].tolist() == ["reviewer"]

    operator.run()
    assert "done" in markdown_text(operator)
    assert not operator.chat_input[0].disabled
    assert len(outbox(app_env)) == 1
    assert outbox(app_env)[0]["to"] == ["bob@example.com"] or outbox(app_env)[0]["to"] == "bob@example.com"


def test_a_reviewer_edits_an_argument_and_the_one_decision_button_runs_the_edited_call(
    app_env: Path,
) -> None:
    ask(session(), EMAIL)
    reviewer = on_page(session("reviewer"), "review_queue")
    review_id = services().ledger.queue("pending")[0].id
    primary = reviewer.button(key=f"approve-{review_id}")
    assert (primary.label, primary.disabled) == ("Approve", False)

    reviewer.text_area(key=f"arg-{review_id}-body").input("hello from the reviewer").run()
    primary = reviewer.button(key=f"approve-{review_id}")
    assert (primary.label, primary.disabled) == ("Approve with my changes", False)
    assert [b.label for b in reviewer.button if b.label == "Approve"] == []  # nothing runs the original
    reviewer.text_area(key=f"arg-{review_id}-body").input("hi").run()  # undone: the proposal again
    assert reviewer.button(key=f"approve-{review_id}").label == "Approve"
    reviewer.text_area(key=f"arg-{review_id}-body").input("hello from the reviewer").run()
    reviewer.button(key=f"approve-{review_id}").click().run()

    assert not reviewer.exception
    [sent] = outbox(app_env)
    assert sent["body"] == "hello from the reviewer"


def test_arguments_that_do_not_fit_the_schema_are_refused_before_any_decision(app_env: Path) -> None:
    ask(session(), EMAIL)
    reviewer = on_page(session("reviewer"), "review_queue")
    review_id = services().ledger.queue("pending")[0].id

    reviewer.radio(key=f"mode-{review_id}").set_value("JSON").run()
    reviewer.text_area(key=f"json-{review_id}").input('{"to": "bob@example.com",').run()

    assert any("not valid JSON" in error.value and "line" in error.value for error in reviewer.error)
    primary = reviewer.button(key=f"approve-{review_id}")
    assert primary.disabled and primary.label == "Approve with my changes"
    assert any("not valid" in caption.value for caption in reviewer.caption)
    assert [b.label for b in reviewer.button if b.label == "Approve"] == []
    assert services().ledger.require(review_id).status == "pending"


def test_a_decision_from_a_stale_page_is_refused_and_the_page_names_who_decided(app_env: Path) -> None:
    operator = ask(session(), EMAIL)
    button(operator, "New thread").click().run()
    ask(operator, "Send an email to carol@example.com saying later")
    first = services().ledger.queue("pending")[0].id
    stale = on_page(session("reviewer"), "review_queue")
    winner = on_page(session("reviewer2"), "review_queue")

    winner.button(key=f"approve-{first}").click().run()
    stale.button(key=f"approve-{first}").click().run()

    assert not stale.exception
    # Still the review it had open, not the next one in the queue, and who decided it.
    assert f"Review {markdown_literal(short_review(first))}" in [header.value for header in stale.header]
    assert any("decided by reviewer2" in warning.value for warning in stale.warning)
    assert [b for b in stale.button if b.key == f"approve-{first}"] == []
    review = services().ledger.require(first)
    assert [d.reviewer for d in review.decisions] == ["reviewer2"]
    assert len(outbox(app_env)) == 1


def test_a_rejection_needs_a_reason_and_the_operator_reads_it(app_env: Path) -> None:
    operator = session()
    ask(operator, EMAIL)
    reviewer = on_page(session("reviewer"), "review_queue")
    review_id = services().ledger.queue("pending")[0].id

    button(reviewer, "Reject").click().run()
    assert any("needs a reason" in error.value for error in reviewer.error)
    assert services().ledger.require(review_id).status == "pending"

    reviewer.text_input(key=f"reason-{review_id}").input("not to external people today")
    button(reviewer, "Reject").click().run()

    assert services().ledger.require(review_id).status == "rejected"
    operator.run()
    text = page_text(operator)
    assert "rejected" in text and "not to external people today" in text
    assert outbox(app_env) == []


def test_a_review_link_opens_that_review_rather_than_the_oldest(app_env: Path) -> None:
    operator = session()
    ask(operator, "Send an email to bob@example.com saying first")
    button(operator, "New thread").click().run()
    ask(operator, "Send an email to bob@example.com saying second")
    newest = services().ledger.queue("pending")[-1].id

    reviewer = linked_reviewer(newest)

    assert reviewer.selectbox(key="review_picker").value == newest
    assert "second" in page_text(reviewer)


def test_a_file_write_is_previewed_as_a_diff_of_the_current_file(app_env: Path) -> None:
    ask(session(), 'Write "fresh notes" to the file notes.md')
    reviewer = on_page(session("reviewer"), "review_queue")

    [diff] = [block for block in reviewer.code if block.language == "diff"]
    assert "--- a/notes.md" in diff.value and "+++ b/notes.md" in diff.value
    assert "+fresh notes" in diff.value
    current = (app_env / "demo" / "project" / "notes.md").read_text(encoding="utf-8")
    assert f"-{current.splitlines()[0]}" in diff.value


def test_a_ticket_update_is_previewed_as_the_record_it_changes_and_the_fields_it_sets(
    app_env: Path, tmp_path: Path
) -> None:
    servers = {"mcpServers": {"tickets": bundled_server_entry("tickets", app_env / "demo")}}
    (tmp_path / "servers.json").write_text(json.dumps(servers), encoding="utf-8")
    ask(session(), "Close ticket 7 with the note 'refund sent'")
    reviewer = on_page(session("reviewer"), "review_queue")

    text = page_text(reviewer)
    assert "**Preview: the changes to the record** id 7" in text
    assert 'status: set to "closed"\nnotes: add "refund sent"' in text


def test_a_new_file_swapped_for_a_link_after_the_page_showed_it_is_refused_and_the_page_says_why(
    app_env: Path,
) -> None:
    operator = ask(session(), 'Write "# Report" to the file report.md')
    project = app_env / "demo" / "project"
    notes = (project / "notes.md").read_text(encoding="utf-8")
    reviewer = on_page(session("reviewer"), "review_queue")
    review_id = services().ledger.queue("pending")[0].id
    assert any("New file" in caption.value for caption in reviewer.caption)

    # Another local process swaps the new file for a link to a file that exists, while the
    # reviewer reads the page.
    (project / "report.md").symlink_to("notes.md")
    reviewer.button(key=f"approve-{review_id}").click().run()

    assert not reviewer.exception
    assert (project / "notes.md").read_text(encoding="utf-8") == notes
    # Shown literally: Markdown's characters come escaped.
    [refusal] = [error.value.replace("\\", "") for error in reviewer.error]
    assert "report.md did not exist when the review was shown" in refusal and "notes.md" in refusal
    assert services().ledger.require(review_id).status == "pending"
    # The page now shows where the path leads, and approving that runs it, knowingly.
    assert any("is a link to notes.md" in caption.value.replace("\\", "") for caption in reviewer.caption)
    reviewer.button(key=f"approve-{review_id}").click().run()
    assert (project / "notes.md").read_text(encoding="utf-8") == "# Report"
    operator.run()
    assert "done" in markdown_text(operator)


def test_the_queue_shows_one_page_of_many_pending_reviews(app_env: Path) -> None:
    ledger = services().ledger
    for n in range(120):
        ledger.open_review(
            email_review(
                f"t{n:03d}-r1",
                f"t{n:03d}",
                {"to": "bob@example.com", "body": str(n)},
                terms=None,
                request=f"request {n}",
            )
        )
    reviewer = on_page(session("reviewer"), "review_queue")

    assert "Pending (120)" in [header.value for header in reviewer.header]
    table = reviewer.dataframe[0].value
    assert len(table) == 50
    assert table["review"].tolist()[0] == "t000-r1"  # oldest first
    reviewer.number_input[0].set_value(3).run()
    assert reviewer.dataframe[0].value["review"].tolist() == [f"t{n:03d}-r1" for n in range(100, 120)]


# -- traces --------------------------------------------------------------------------------


def test_the_traces_page_draws_the_graph_and_the_threads_steps(app_env: Path) -> None:
    app = session()
    ask(app, "List the files in the managed project folder.")

    on_page(app, "traces")

    assert app.title[0].value == "Traces"
    labels = [expander.label for expander in app.expander]
    # Numbered in the order they ran, in the chat's words; the node's name is in its details.
    assert labels[0].startswith(markdown_literal("1. Read the request · +"))
    assert any(re.match(r"\d+\\\. Called the server", label) for label in labels)
    assert markdown_literal("invoke_mcp_capability") in " ".join(c.value for c in app.caption)
    chart = app.get("graphviz_chart")[0]
    assert '"invoke_mcp_capability" [label="Called the server\\nstep ' in chart.proto.spec


def test_the_traces_page_shows_where_a_thread_paused_and_who_decided(app_env: Path) -> None:
    operator = session()
    ask(operator, EMAIL)
    reviewer = on_page(session("reviewer"), "review_queue")
    button(reviewer, "Approve").click().run()

    on_page(operator, "traces")

    labels = [expander.label for expander in operator.expander]
    assert labels[-1].startswith(markdown_literal("10. Wrote the answer · "))
    assert re.fullmatch(r"1\\\. Read the request · \\\+\d+\\\.\d\d s · \d+ ms", labels[0])
    assert [header.value for header in operator.header] == ["Request 1"]
    [wait] = [box.value for box in operator.info if "Waited" in box.value]
    assert markdown_literal("for a person (before execution)") in wait
    [decided] = [box.value for box in operator.success]
    assert re.fullmatch(r"Approved by reviewer at \d\d:\d\d UTC", decided.replace("\\", ""))


# -- identity through the identity provider ---------------------------------------------------

AUTH_SECRETS = {
    "auth": {
        "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
        "cookie_secret": "test-only-cookie-secret",
        "client_id": "gatehouse-test",
        "client_secret": "test-only-client-secret",
        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
    }
}


@pytest.fixture
def oidc_roster(app_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped policy with identity-provider e-mail addresses on its roster."""
    policy = (ROOT / "policies" / "default.toml").read_text(encoding="utf-8")
    policy = policy.replace(
        "[users]\n", '[users]\n"grace@example.com" = "reviewer"\n"otto@example.com" = "operator"\n'
    )
    path = tmp_path / "policy.toml"
    path.write_text(policy, encoding="utf-8")
    monkeypatch.setenv("GATEHOUSE_POLICY", str(path))
    services.clear()
    return app_env


def signed_in_session(user: dict[str, object]) -> AppTest:
    app = AppTest.from_file(str(APP), default_timeout=60)
    app.secrets = dict(AUTH_SECRETS)
    app.user = user
    app.run()
    assert not app.exception, app.exception
    return app


def test_with_sign_in_configured_nobody_is_anybody_until_signed_in(oidc_roster: Path) -> None:
    app = signed_in_session({"is_logged_in": False})

    assert [b.label for b in app.sidebar.button] == ["Sign in"]
    assert not [s for s in app.sidebar.selectbox if s.label == "You are"]  # no local-mode picker
    assert any("Sign in" in info.value for info in app.info)
    assert not app.chat_input


def test_a_signed_in_user_gets_the_role_the_roster_gives_their_address(oidc_roster: Path) -> None:
    operator = signed_in_session({"is_logged_in": True, "email": "otto@example.com", "email_verified": True})
    ask(operator, EMAIL)
    reviewer = signed_in_session({"is_logged_in": True, "email": "grace@example.com", "email_verified": True})

    assert any("Role: reviewer" in caption.value for caption in reviewer.sidebar.caption)
    on_page(reviewer, "review_queue")
    button(reviewer, "Approve").click().run()

    assert services().ledger.history()[0].decided_by == "grace@example.com"
    assert len(outbox(oidc_roster)) == 1


def cookie_scripts(app: AppTest) -> list[str]:
    """The identity-cookie scripts the page holds (st.html elements naming the cookie)."""
    return [str(element.proto.body) for element in app.get("html") if COOKIE in element.proto.body]


def test_only_local_mode_keeps_the_identity_in_a_cookie(oidc_roster: Path) -> None:
    local = session("reviewer")
    [script] = cookie_scripts(local)
    assert 'encodeURIComponent("reviewer")' in script

    signed_in = signed_in_session(
        {"is_logged_in": True, "email": "grace@example.com", "email_verified": True}
    )
    assert cookie_scripts(signed_in) == []


def test_a_signed_in_user_missing_from_the_roster_can_do_nothing(oidc_roster: Path) -> None:
    operator = signed_in_session({"is_logged_in": True, "email": "otto@example.com", "email_verified": True})
    ask(operator, EMAIL)
    stranger = signed_in_session(
        {"is_logged_in": True, "email": "mallory@example.com", "email_verified": True}
    )

    assert any("not in the roster" in caption.value for caption in stranger.sidebar.caption)
    assert not stranger.chat_input
    on_page(stranger, "review_queue")
    assert [
        b.label for b in stranger.button if b.label in {"Approve", "Reject", "Approve with my changes"}
    ] == []


# -- untrusted text is never markup ------------------------------------------------------------

DRESSED_UP = (
    "Send an email to bob@example.com saying # Urgent <b>bold</b> [the docs](http://127.0.0.1:9/docs) "
    "![logo](http://127.0.0.1:9/logo.png) > :green-badge[Pre-approved by Security] Safe to approve"
)
MARKUP = (":green-badge[", "](http", "<b>", "# Urgent")


def markdown_blocks(app: AppTest) -> list[str]:
    """Every element Streamlit parses as Markdown: markdown, captions, alerts, expander labels."""
    blocks = [*app.markdown, *app.caption, *app.success, *app.warning, *app.info, *app.error]
    return [str(block.value) for block in blocks] + [expander.label for expander in app.expander]


def test_a_request_dressed_up_as_the_apps_own_markup_is_shown_literally_and_flagged(app_env: Path) -> None:
    operator = ask(session(), DRESSED_UP)
    reviewer = on_page(session("reviewer"), "review_queue")
    traces = on_page(session(), "traces")

    for page in (operator, reviewer, traces):
        leaked = [block for block in markdown_blocks(page) for markup in MARKUP if markup in block]
        assert leaked == []
    assert DRESSED_UP in [str(block.value) for block in operator.text]
    assert DRESSED_UP in [str(block.value) for block in reviewer.text]
    assert any(
        markdown_literal("imitates the app's own markup") in block.value for block in reviewer.markdown
    )


def test_the_servers_page_keeps_working_when_the_services_are_opened_afresh(
    app_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's sign-in attempts live on the services' database: services opened afresh (a
    reload of the process's services, as each of these tests does) must not leave the page on
    the closed one."""
    entries = json.loads((tmp_path / "servers.json").read_text(encoding="utf-8"))
    entries["mcpServers"]["notes"] = {"url": "http://127.0.0.1:9/mcp"}  # remote, never reached
    (tmp_path / "servers.json").write_text(json.dumps(entries), encoding="utf-8")
    monkeypatch.setenv("GATEHOUSE_SECRET_KEY", Fernet.generate_key().decode())
    services.clear()
    on_page(session("admin"), "servers")

    services().close()
    services.clear()
    again = on_page(session("admin"), "servers")

    assert "notes" in markdown_text(again)


@pytest.mark.processes
def test_the_servers_page_shows_a_failing_listing_and_when_it_is_tried_again(
    app_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = json.loads((tmp_path / "servers.json").read_text(encoding="utf-8"))
    entries["mcpServers"]["endless"] = {
        "command": sys.executable,
        "args": ["-m", "tests.mcp_host.endless_server"],
        "cwd": str(ROOT),
    }
    (tmp_path / "servers.json").write_text(json.dumps(entries), encoding="utf-8")
    services.clear()

    page = markdown_text(on_page(session("admin"), "servers"))

    assert "connected · listing failed" in page and "tools listing exceeded 1000 pages" in page
    assert re.search(r"tried again in \d+ s", page), page


def test_approving_a_review_served_by_langgraph_dev_records_it_and_says_how_its_thread_resumes(
    app_env: Path,
) -> None:
    # A review the graph `langgraph dev` serves opened (gatehouse/served_graph.py): its thread's
    # checkpoints are on that server, not here.
    services().ledger.open_review(
        email_review("served-r1", "served", {"to": "bob@example.com", "body": "hi"}),
        served_by="langgraph-api",
    )
    reviewer = on_page(session("reviewer"), "review_queue")
    button(reviewer, "Approve").click().run()

    assert not reviewer.exception, reviewer.exception
    # Shown as the characters they are (markdown_literal escapes them).
    notices = [s.value.replace("\\", "") for s in reviewer.success]
    assert any(
        "served by langgraph-api" in n and "gatehouse reviews resume-value served-r1" in n for n in notices
    )
    assert services().ledger.require("served-r1").status == "approved"
    assert outbox(app_env) == []
