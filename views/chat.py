"""Operators chat: each message runs through the graph; answers show status, capability, result.

The conversation shown is the one stored by the services (reviews/conversations.py), so a
thread answered by a reviewer in another browser, or reopened tomorrow, shows every answer.
It is stored with its secrets hidden, and hidden again when shown (threads stored earlier).
Requests, answers, flags and errors are shown literally (gatehouse/web/literal.py): Streamlit's
badges and colours are for Gatehouse's own facts only.

Above the conversation, *What you can ask* lists every capability the servers offer now, in
plain words with a request to try (gatehouse/web/catalogue_panel.py).

A request runs on a thread of its own (gatehouse/web/background_runs.py), which the page follows:
its steps as they complete, and, when a server asks the operator something during the call
(MCP elicitation), the question as a form the operator answers while the call waits
(gatehouse/web/question_forms.py). A question asked during a call this page did not start (a
reviewer's approval, another replica) shows too: the page looks for the thread's questions in
the database.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime, tzinfo
from functools import partial
from typing import Any

import streamlit as st

from gatehouse.display.no_call_words import NO_CALL_WORDS
from gatehouse.display.outcome import outcome_of
from gatehouse.display.reader_time import readable_time
from gatehouse.display.step_labels import step_label
from gatehouse.display.visible_text import visible, visible_in
from gatehouse.errors import ThreadBusyError, ThreadNotFoundError
from gatehouse.web.background_runs import RunInProgress
from gatehouse.web.catalogue_panel import show_catalogue
from gatehouse.web.flag_text import flag_markdown
from gatehouse.web.literal import markdown_literal, name_literal, show
from gatehouse.web.page import current_user, reader_zone, runs_in_progress, services
from gatehouse.web.question_forms import WAITING_LABEL, show_questions
from gatehouse.web.result_shape import ResultShape, shape_of
from gatehouse.web.short_ids import short_review, short_thread
from reviews.conversations import Conversation, Message
from reviews.errors import ReviewError

# Reviews are decided by other people; a waiting thread looks for its answer this often (and
# for a question a call made elsewhere asks).
FOLLOW_SECONDS = 3
# While this page follows its own request: how often it draws new steps and lets a click in.
RUN_POLL_SECONDS = 0.1
# ... and how often it looks for a server's new question in the database.
QUESTION_POLL_SECONDS = 0.5
THREADS_LISTED = 30

_BADGE = {
    "ok": ":green-badge[done]",
    # An answer stored before answers said why no server was called.
    "answered_without_mcp": ":blue-badge[answered without a server]",
    "needs_clarification": ":orange-badge[needs your answer]",
    "needs_review": ":orange-badge[waiting for a reviewer]",
    "rejected": ":red-badge[rejected]",
    "expired": ":gray-badge[expired]",
    "cancelled": ":gray-badge[withdrawn]",
    "error": ":red-badge[error]",
}


def badge(output: dict[str, Any]) -> str:
    """What happened, as a badge: for an answer without a server, why no server was called."""
    status = str(output["status"])
    reason = output.get("no_call_reason")
    if status == "answered_without_mcp" and reason in NO_CALL_WORDS:
        colour = "blue" if reason == "general_question" else "orange"
        return f":{colour}-badge[{markdown_literal(NO_CALL_WORDS[reason])}]"
    return _BADGE.get(status) or markdown_literal(status)


def show_flags(flags: list[dict[str, Any]]) -> None:
    for flag in flags:
        st.markdown(f"- {flag_markdown(flag)}")


def show_outcome(review: dict[str, Any] | None) -> None:
    """Who decided, when, the reason they gave and what they changed (before the call ran)."""
    outcome = outcome_of(review, zone=reader_zone())
    if outcome is None:
        return
    st.markdown(f"**{markdown_literal(outcome.headline)}**")
    if outcome.reason:
        st.caption("Reason given:")
        show(outcome.reason)  # the reviewer's words: never markup
    if outcome.changes:
        st.caption("What the reviewer changed (- proposed, + what ran):")
        for change in outcome.changes:
            st.markdown(name_literal(change.name))
            st.code(visible(change.diff), language="diff", wrap_lines=True)


def show_result(result: dict[str, Any], shape: ResultShape) -> None:
    """The call's result as a person reads it: records as tables, text as text, the rest named;
    the whole of it as JSON behind an expander. Every part is a server's data: literal."""
    for table in shape.tables:
        label = markdown_literal(table.title) if table.title else "Result"
        if not table.rows:
            st.caption(f"{label}: no items")
            continue
        if table.columns != ["field", "value"]:
            st.caption(f"{label} · {table.total:d} row(s)")
        # A table widget draws cells and headers as plain text (no Markdown), in key order.
        st.dataframe(visible_in(table.rows), hide_index=True)
        if table.left_out:
            st.caption(f"{table.left_out:d} more row(s) not shown here: the raw result below has them.")
    for text in shape.texts:
        if text.title:
            st.caption(markdown_literal(text.title))
        show(text.body)
    for other in shape.others:
        st.caption(markdown_literal(other))
    with st.expander("Raw result"):
        st.code(
            json.dumps(visible_in(result), indent=2, ensure_ascii=False), language="json", wrap_lines=True
        )


def show_answer(output: dict[str, Any]) -> None:
    result = output.get("result")
    # Tool output, flags and errors quote servers: control characters are shown, not hidden.
    output = visible_in(output)
    facts = [badge(output)]
    capability = output.get("selected_capability")
    if capability:
        facts.append(
            f"{name_literal(str(capability['server']))} · {markdown_literal(str(capability['type']))} · "
            f"{name_literal(str(capability['name']))}"
        )
    summary = output.get("mcp_result_summary")
    if summary:
        facts.append(
            f"{int(summary.get('item_count', 0))} item(s)"
            + (", truncated" if summary.get("truncated") else "")
            + (", untrusted output" if summary.get("untrusted") else "")
        )
    st.markdown(" · ".join(facts))
    review = output.get("review")
    show_outcome(review)
    shape = shape_of(result)
    if result and not shape.empty:
        if output.get("composed"):
            # A language model's answer written from the result: above the result it came from.
            show(output["response"])
        # The standard response says the same result in one sentence (the command line's form):
        # here the result itself is shown, as tables and text.
        show_result(result, shape)
    else:
        show(output["response"])
    if review and output["status"] == "needs_review":
        st.caption(
            f"Review {markdown_literal(short_review(str(review['id'])))}: a reviewer has to approve this "
            "before it runs.",
            help=f"Full id: {markdown_literal(str(review['id']))}",
        )
        show_flags(review.get("flags", []))
    elif review and review.get("flags"):
        short = markdown_literal(short_review(str(review["id"])))
        with st.expander(f"{len(review['flags'])} flag(s) from review {short}"):
            show_flags(review["flags"])
    for error in output.get("errors", []):
        st.markdown(f":red[:material/error: {markdown_literal(str(error))}]")


def thread_label(conversation: Conversation | None, zone: tzinfo) -> str:
    if conversation is None:
        return "New thread"
    when = datetime.fromisoformat(conversation.updated_at).astimezone(zone).strftime("%d %b %H:%M")
    status = (conversation.status or "").replace("_", " ")
    title = services().secrets.text(conversation.title)[:48]
    return visible(f"{title} · {status} · {when}" if status else f"{title} · {when}")


def _not_yours(thread: str, known: dict[str, Conversation], user: str) -> bool:
    """A thread somebody else started. The session's thread is normally one the page chose,
    but the picker's value comes from the browser, which may send any text (Streamlit hands
    one that is no option to the page as sent): the page checks whose thread it is."""
    return thread not in known and services().requests.thread_owner(thread) not in (None, user)


def linked_thread(linked: str) -> str | None:
    """The thread a link names, or None, saying why on the page (unknown, or a short id several
    threads start with: those are named)."""
    try:
        return services().requests.resolve_thread(linked)
    except ThreadNotFoundError as exc:
        st.session_state["chat_notice"] = f"The link names no thread to open: {exc}"
        return None


def choose_thread(mine: list[Conversation], user: str) -> str:
    """The thread shown: the session's current one, a new one, or one of the person's own
    reopened from the list. Never another person's: not even a role allowed to take threads
    over reads one here (it continues one from the command line, audited)."""
    known = {c.thread_id: c for c in mine}
    linked = st.query_params.get("thread")
    if (
        linked
        and linked != st.session_state.get("thread")
        and st.session_state.get("linked_thread") != linked
    ):
        # A link (?thread=ID, the full id or the short one shown on screen) opens one of the
        # person's own threads, once per link.
        st.session_state["linked_thread"] = linked
        opened = linked if linked in known else linked_thread(linked)
        if opened in known:
            st.session_state["thread"] = opened
    if "thread" not in st.session_state:
        st.session_state["thread"] = mine[0].thread_id if mine else services().requests.new_thread_id()
    if _not_yours(st.session_state["thread"], known, user):
        refused = short_thread(str(st.session_state["thread"]))
        st.session_state["chat_notice"] = (
            f"The thread {refused} is not one of yours: the chat shows only your own threads."
        )
        st.session_state["thread"] = services().requests.new_thread_id()
        st.query_params.pop("thread", None)
    current: str = st.session_state["thread"]
    zone = reader_zone()  # read in this run: the picker formats its options later, too
    options = ([] if current in known else [current]) + list(known)

    def start_new() -> None:
        st.session_state["thread"] = services().requests.new_thread_id()
        st.query_params.pop("thread", None)

    def reopen() -> None:
        st.session_state["thread"] = st.session_state["thread_picker"]
        st.query_params["thread"] = st.session_state["thread"]

    st.button("New thread", on_click=start_new, width="stretch", icon=":material/add:")
    # The picker follows the session's thread (set before the widget exists, never after).
    st.session_state["thread_picker"] = current
    st.selectbox(
        "Your threads",
        options,
        key="thread_picker",
        format_func=lambda thread: thread_label(known.get(thread), zone),
        on_change=reopen,
    )
    return current


class StreamedAnswer:
    """A language model's answer drawn as it is written (a preview: the stored answer replaces
    it when the page is redrawn), with secrets hidden and nothing parsed as markup."""

    def __init__(self, container: Any, hide_secrets: Callable[[str], str]) -> None:
        self._container = container
        self._hide_secrets = hide_secrets
        self._slot: Any = None
        self._text = ""

    def add(self, piece: str) -> None:
        if self._slot is None:
            # Made at the first piece, so it sits below the steps already written.
            self._slot = self._container.empty()
        self._text += piece
        # The whole text each time: a secret split across two pieces is still hidden.
        self._slot.text(visible(self._hide_secrets(self._text)))


def start(text: str, thread: str, user: str) -> RunInProgress | None:
    """Start the message on a thread of its own (the page follows it). A refusal is kept for
    the next run to show: it is not part of the thread."""
    app = services()

    def work(run: RunInProgress) -> None:
        app.requests.ask(text, thread_id=thread, requester=user, on_step=run.add_step, on_text=run.add_text)

    try:
        return runs_in_progress().start(thread, work)
    except ThreadBusyError as exc:
        st.session_state["chat_notice"] = str(exc)
        return None


def send(text: str, thread: str, user: str) -> None:
    """Start the message, then draw the page again: it follows the run."""
    start(text, thread, user)
    st.rerun()


def choose(key: str, thread: str, user: str) -> None:
    """Answer "which one?" with the capability's key (a button's callback: the page reruns)."""
    start(key, thread, user)


def question_ids(thread: str) -> list[str]:
    return [question.id for question in services().questions.pending(thread)]


def follow_run(run: RunInProgress, thread: str, user: str) -> None:
    """Draw the run's steps as they complete and the questions its call asks, until it ends;
    then draw the page again from the stored conversation. Never returns."""
    app = services()
    questions = app.questions.pending(thread)
    drawn = [question.id for question in questions]
    # While a question waits, the steps fold away: the form stays where the operator sees it,
    # and nothing drawn above it moves it while they fill it in.
    progress = st.status(WAITING_LABEL if questions else "Working on your request…", expanded=not questions)
    # The answer a model writes may repeat a secret of the request or the result, unnamed.
    streamed = StreamedAnswer(progress, partial(app.secrets.text, thread_id=thread))
    steps_shown = text_shown = 0

    def draw_progress() -> None:
        nonlocal steps_shown, text_shown
        for step in run.steps[steps_shown:]:
            progress.write(markdown_literal(step_label(step)))
            steps_shown += 1
        if len(run.text) > text_shown:
            streamed.add(run.text[text_shown:])
            text_shown = len(run.text)

    draw_progress()
    show_questions(questions, user)
    looked = time.monotonic()
    while True:
        finished = run.finished.wait(RUN_POLL_SECONDS)
        # A yield point: a click (an answer to a question) reruns the page now, while the call
        # still waits, instead of after it. The next run follows the same request again.
        st.session_state.get("thread")
        draw_progress()
        if finished:
            break
        if time.monotonic() - looked >= QUESTION_POLL_SECONDS:
            looked = time.monotonic()
            if question_ids(thread) != drawn:
                st.rerun()  # a question came, or was answered elsewhere: draw the forms again
    notice = runs_in_progress().collect(run)
    if notice:
        st.session_state["chat_notice"] = notice
    st.rerun()


def withdraw(thread: str, user: str) -> None:
    """Take the waiting request back: the thread ends cancelled and its review leaves the queue."""
    try:
        services().reviews.withdraw(thread, by=user)
    except ReviewError as exc:  # decided meanwhile, or not this person's to withdraw
        st.session_state["chat_notice"] = str(exc)


def clarification_form(output: dict[str, Any], thread: str, user: str) -> None:
    """One box per missing argument; the answer resumes the same thread."""
    missing: list[str] = output["missing_arguments"]
    with st.form(f"clarify-{thread}", clear_on_submit=True, border=True):
        st.markdown("**The request needs more before it can run.**")
        values = {
            name: st.text_input(markdown_literal(name), key=f"clarify-{thread}-{name}") for name in missing
        }
        if st.form_submit_button("Answer", type="primary"):
            filled = {name: value.strip() for name, value in values.items() if value.strip()}
            if not filled:
                # Argument names are the server's words: never markup.
                st.warning(markdown_literal(f"Fill in {', '.join(missing)} first."))
                return
            if len(missing) == 1:
                answer = filled[missing[0]]
            else:
                answer = ", ".join(f"{name}={_quoted(value)}" for name, value in filled.items())
            send(answer, thread, user)


def _quoted(value: str) -> str:
    return f"'{value}'" if '"' in value else f'"{value}"'


@st.fragment(run_every=FOLLOW_SECONDS)
def follow(thread: str, shown: int, questions: list[str]) -> None:
    """A thread waiting for a reviewer updates by itself once the reviewer has decided, and
    shows a question a call for it asks (a reviewer's approval, a run on another replica)."""
    if services().conversations.last_seq(thread) > shown or question_ids(thread) != questions:
        st.rerun()


def render_message(message: Message) -> None:
    if message.role == "operator":
        with st.chat_message("user"):
            show(services().secrets.text(message.text or "", thread_id=message.thread_id))
            when = readable_time(message.at, zone=reader_zone())
            st.caption(f"{markdown_literal(message.author or '')} · {markdown_literal(when)}")
    else:
        with st.chat_message("assistant", avatar=":material/shield:"):
            show_answer(services().secrets.value(message.output or {}, thread_id=message.thread_id))


user = current_user()
st.title("Chat")
if user is None:
    st.info("Sign in (or pick who you are in the sidebar) to send requests.")
    st.stop()

app = services()
if not app.policy.may_request(user):
    st.info(f"{markdown_literal(user)} is not on the policy's roster of people who may make requests.")
    st.stop()

history_column, threads_column = st.columns([3, 1])
with threads_column:
    thread = choose_thread(app.conversations.of_owner(user, limit=THREADS_LISTED), user)

messages = app.conversations.messages(thread)
last_output = messages[-1].output if messages and messages[-1].role == "gatehouse" else None
waiting_for_review = bool(last_output and last_output["status"] == "needs_review")
running = runs_in_progress().of(thread)
if running is not None and running.finished.is_set():
    notice = runs_in_progress().collect(running)
    if notice:
        st.session_state["chat_notice"] = notice
    running = None

text = st.chat_input(
    "Waiting for a reviewer: start a new thread to ask something else"
    if waiting_for_review
    else "Working on your request: wait for its answer, or start a new thread"
    if running is not None
    else "Ask for something the servers can do",
    disabled=waiting_for_review or running is not None,
    # One box whatever it says: a second one would stand in the page while a run is followed,
    # and the focus leaving the old one moves the page under the operator's next click.
    key="chat-input",
)
if text:
    started = start(text, thread, user)
    if started is not None:
        # The message shows at once, and each step of the graph as it completes; the page is
        # redrawn from the stored conversation when the run ends.
        with history_column:
            for message in messages:
                render_message(message)
            with st.chat_message("user"):
                show(app.secrets.text(text, thread_id=thread))
            follow_run(started, thread, user)
if running is not None:
    # This page's request is still running (the page was drawn again: an answer to a question,
    # another click, a message sent meanwhile and refused): follow it again.
    with history_column:
        for message in messages:
            render_message(message)
        follow_run(running, thread, user)

with history_column:
    notice = st.session_state.pop("chat_notice", None)
    if notice:
        st.warning(markdown_literal(notice))
    if not messages:
        st.markdown(
            "Ask in your own words for something the configured servers can do: *What you can ask* "
            "lists each of them with a request to try. Reads run at once; anything that changes the "
            "world waits for a reviewer."
        )
    show_catalogue(app, expanded=not messages)
    for message in messages:
        render_message(message)
    if (
        last_output
        and last_output["status"] == "needs_clarification"
        and last_output.get("missing_arguments")
    ):
        clarification_form(last_output, thread, user)
    choices = ((last_output or {}).get("review") or {}).get("choices") or []
    if last_output and last_output["status"] == "needs_clarification" and choices:
        st.markdown("**Which one do you mean?**")
        for choice in choices:
            st.button(
                markdown_literal(choice["title"]),  # a server's words: never markup
                key=f"choose-{thread}-{choice['key']}",
                on_click=choose,
                args=(choice["key"], thread, user),
                help=name_literal(choice["key"]),
            )
    if last_output and last_output["status"] in {"needs_review", "needs_clarification"}:
        st.button(
            "Withdraw this request",
            key=f"withdraw-{thread}",
            icon=":material/undo:",
            on_click=withdraw,
            args=(thread, user),
            help="Nothing has run for it; it ends cancelled and leaves the reviewers' queue.",
        )
    # Questions a call for this thread asks that this page did not start: an approved call
    # running for a reviewer, or a request running on another replica.
    pending_questions = app.questions.pending(thread)
    show_questions(pending_questions, user)

# A request on its way elsewhere (the last message is the operator's, with no answer yet) may
# ask a question; a review may be decided: either redraws the page.
under_way = bool(messages) and messages[-1].role == "operator"
if waiting_for_review or under_way or pending_questions:
    follow(thread, messages[-1].seq if messages else 0, [question.id for question in pending_questions])
