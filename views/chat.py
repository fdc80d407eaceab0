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
from datetime import tzinfo
from functools import partial
from typing import Any

import streamlit as st

from gatehouse.display.counted import counted
from gatehouse.display.no_call_words import NO_CALL_WORDS
from gatehouse.display.outcome import outcome_of
from gatehouse.display.reader_time import readable_time
from gatehouse.display.status_words import status_words
from gatehouse.display.step_labels import step_label
from gatehouse.display.visible_text import visible, visible_in
from gatehouse.display.which_one import which_one_question
from gatehouse.errors import ThreadBusyError, ThreadNotFoundError
from gatehouse.web.background_runs import RunInProgress
from gatehouse.web.catalogue_panel import show_catalogue
from gatehouse.web.clarification_form import answer_words, asked_fields, field_widget, read_answers
from gatehouse.web.effect_check_panel import show_effect_check
from gatehouse.web.flag_text import flag_markdown
from gatehouse.web.literal import markdown_literal, name_literal, show
from gatehouse.web.page import current_user, reader_zone, runs_in_progress, services
from gatehouse.web.question_forms import WAITING_LABEL, show_questions
from gatehouse.web.result_shape import ResultShape, hidden_shape, shape_of
from gatehouse.web.short_ids import short_review, short_thread
from reviews.conversations import TITLE_CHARS, Conversation, Message
from reviews.errors import ReviewError

# Reviews are decided by other people; a waiting thread looks for its answer this often (and
# for a question a call made elsewhere asks).
FOLLOW_SECONDS = 3
# While this page follows its own request: how often it draws new steps and lets a click in.
RUN_POLL_SECONDS = 0.1
# ... and how often it looks for a server's new question in the database.
QUESTION_POLL_SECONDS = 0.5
# The picker lists this many threads and "New thread": up to 25 options Streamlit draws a plain
# list, whose long labels wrap (gatehouse/web/page.css); above, rows of a fixed height cut them.
THREADS_LISTED = 24

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
            st.caption(f"{label} · {markdown_literal(counted(table.total, 'row'))}")
        # A table widget draws cells and headers as plain text (no Markdown), in key order.
        st.dataframe(visible_in(table.rows), hide_index=True)
        if table.left_out:
            more = markdown_literal(counted(table.left_out, "more row"))
            st.caption(f"{more} not shown here: the raw result below has them.")
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


def _offers_choice(output: dict[str, Any]) -> bool:
    """The answer asks which capability the operator means: none is chosen yet."""
    return output["status"] == "needs_clarification" and bool((output.get("review") or {}).get("choices"))


def show_answer(output: dict[str, Any], shape: ResultShape) -> None:
    """An answer, with secrets hidden, and its result's shape (found before they were hidden:
    render_message)."""
    result = output.get("result")
    # Tool output, flags and errors quote servers: control characters are shown, not hidden.
    output = visible_in(output)
    facts = [badge(output)]
    capability = output.get("selected_capability")
    if capability and not _offers_choice(output):
        facts.append(
            f"{name_literal(str(capability['server']))} · {markdown_literal(str(capability['type']))} · "
            f"{name_literal(str(capability['name']))}"
        )
    summary = output.get("mcp_result_summary")
    if summary:
        facts.append(
            markdown_literal(counted(int(summary.get("item_count", 0)), "item"))
            + (", truncated" if summary.get("truncated") else "")
            + (", untrusted output" if summary.get("untrusted") else "")
        )
    st.markdown(" · ".join(facts))
    review = output.get("review")
    show_outcome(review)
    if result and not shape.empty:
        if output.get("composed"):
            # A language model's answer written from the result: above the result it came from.
            show(output["response"])
        # The standard response says the same result in one sentence (the command line's form):
        # here the result itself is shown, as tables and text.
        show_result(result, shape)
    elif _offers_choice(output):
        # The graph's sentence names the candidates by their keys, for the command line; here
        # they are the buttons below, in the servers' words, and the question says why it asks.
        review = output["review"]
        show(which_one_question(review))
    else:
        show(output["response"])
    checked = output.get("effect_check")
    if checked:
        # What the approved effect read back as after the call (docs/effects.md): said once,
        # here, a mismatch in its own alert rather than as one more line of the errors.
        show_effect_check(str(checked["status"]), str(checked["detail"]))
    if review:
        show_review_facts(review, output["status"])
    for error in output.get("errors", []):
        if checked and checked["status"] == "mismatch" and error == checked["detail"]:
            continue
        st.markdown(f":red[:material/error: {markdown_literal(str(error))}]")
    # A server this answer needed was in trouble: a quiet note (its state is on Servers), not
    # an error; another server's trouble is not this answer's (graph/server_notes.py).
    for note in output.get("server_notes", []):
        st.caption(f":material/info: {markdown_literal(str(note).rstrip('.'))}. See the Servers page.")


def show_review_facts(review: dict[str, Any], status: str) -> None:
    """The review a request waits on (with when it expires) or went through, and its flags. A
    question to the operator (the clarification stage) opens no review: its flags are what
    the request leaves open, said without a review's words."""
    flags = review.get("flags") or []
    if review.get("stage") == "clarification":
        if flags:
            with st.expander(
                f"What the request leaves open ({markdown_literal(counted(len(flags), 'point'))})"
            ):
                show_flags(flags)
        return
    short = markdown_literal(short_review(str(review["id"])))
    if status == "needs_review":
        st.caption(
            f"Review {short}: a reviewer has to approve this before it runs.",
            help=f"Full id: {markdown_literal(str(review['id']))}",
        )
        expiry = expiry_note(str(review["id"]))
        if expiry:
            st.caption(expiry)
        show_flags(flags)
    elif flags:
        with st.expander(f"{markdown_literal(counted(len(flags), 'flag'))} from review {short}"):
            show_flags(flags)


def expiry_note(review_id: str) -> str | None:
    """When a review still waiting expires, in the reader's zone; None once it is decided (the
    thread's next answer says how)."""
    waiting = services().reviews.ledger.get(review_id)
    if waiting is None or waiting.status != "pending":
        return None
    when = readable_time(waiting.expires_at, zone=reader_zone())
    return markdown_literal(f"If no reviewer decides by {when}, the request expires and nothing runs.")


def thread_label(conversation: Conversation | None, zone: tzinfo) -> str:
    """Its first request, its status and when it last changed, in the reader's zone. The list
    wraps a long label (gatehouse/web/page.css), so all of it shows; a title stored cut short
    (TITLE_CHARS) ends in "…": the thread itself shows the whole request."""
    if conversation is None:
        return "New thread"
    title = services().secrets.text(conversation.title)
    if len(conversation.title) >= TITLE_CHARS:
        title += "…"
    when = readable_time(conversation.updated_at, zone=zone)
    return visible(" · ".join(part for part in (title, status_words(conversation.status), when) if part))


def picker_label(thread: str, conversation: Conversation | None, zone: tzinfo) -> str:
    """A thread as the picker lists it: its label and its short id. A picker's value is the
    label shown, so two threads with the same title, status and minute would be one option to
    it (the browser's pick came back as the other thread, issue 32 item 9); the id tells them
    apart, also to the person."""
    label = thread_label(conversation, zone)
    return label if conversation is None else f"{label} · {short_thread(thread)}"


def _not_yours(thread: str, known: dict[str, Conversation], user: str) -> bool:
    """A thread somebody else started. The session's thread is normally one the page chose,
    but the picker's value comes from the browser, which may send any text (Streamlit hands
    one that is no option to the page as sent): the page checks whose thread it is."""
    return thread not in known and services().requests.thread_owner(thread) not in (None, user)


def picker_key(thread: str) -> str:
    """The thread picker's key while ``thread`` is shown."""
    return f"thread_picker-{thread}"


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
    # Links this session has followed, and the addresses the page wrote itself (reopen): the
    # browser sends its address with every message, and one a step behind the page (the
    # thread it showed before "New thread") must not open that thread again.
    followed: set[str] = st.session_state.setdefault("linked_threads", set())
    if linked and linked not in followed:
        # A link (?thread=ID, the full id or the short one shown on screen) opens one of the
        # person's own threads, once per link.
        followed.add(linked)
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

    def reopen(picker: str, shown: str, offered: list[str]) -> None:
        picked = st.session_state.get(picker)
        if st.session_state.get("thread") != shown or picked not in offered:
            return  # the browser's copy of an earlier page: see below
        st.session_state["thread"] = picked
        st.session_state.setdefault("linked_threads", set()).add(picked)
        st.query_params["thread"] = picked

    st.button("New thread", on_click=start_new, width="stretch", icon=":material/add:")
    # The browser sends every widget's value with each message, and a message sent before it
    # has drawn this run (just after "New thread") carries the previous page's picker: on the
    # old thread, or on a label the thread no longer has (a picker's value is the label shown,
    # and a label changes with the thread's status; a label no option has comes back as the
    # label itself). Read as a pick, either filed the message under another thread (issue 32,
    # item 9). So there is one picker per thread shown, set to it on every run; its callback
    # (Streamlit runs one for a widget the last run did not draw, too) takes a pick only while
    # its thread is the one shown, and only of a thread it offered.
    picker = picker_key(current)
    st.session_state[picker] = current  # set before the widget exists, never after
    st.selectbox(
        "Your threads",
        options,
        key=picker,
        format_func=lambda thread: visible(picker_label(thread, known.get(thread), zone)),
        on_change=reopen,
        args=(picker, current, options),
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


def start(text: str, thread: str, user: str, answers: dict[str, Any] | None = None) -> RunInProgress | None:
    """Start the message (with ``answers``: the clarification form's values) on a thread of its
    own (the page follows it). A refusal is kept for the next run to show: it is not part of
    the thread."""
    app = services()

    def work(run: RunInProgress) -> None:
        app.requests.ask(
            text,
            thread_id=thread,
            requester=user,
            on_step=run.add_step,
            on_text=run.add_text,
            answers=answers,
        )

    try:
        return runs_in_progress().start(thread, work)
    except ThreadBusyError as exc:
        st.session_state["chat_notice"] = str(exc)
        return None


def send(text: str, thread: str, user: str, answers: dict[str, Any] | None = None) -> None:
    """Start the message, then draw the page again: it follows the run."""
    start(text, thread, user, answers)
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


def asked_schema(output: dict[str, Any]) -> dict[str, Any]:
    """The input schema of the capability whose arguments are asked for, as its server offers
    it now ({} when it is gone: each argument is then asked for as a line of text)."""
    chosen = output.get("selected_capability") or {}
    found = (
        c.input_schema
        for c in services().requests.offered().capabilities()
        if c.server == chosen.get("server") and c.name == chosen.get("name")
    )
    return next(found, {})


def clarification_form(output: dict[str, Any], thread: str, user: str) -> None:
    """One field per missing argument, built from the capability's schema (a file's content
    gets a text area); the answer resumes the same thread with the values as typed."""
    fields = asked_fields(asked_schema(output), list(output["missing_arguments"]))
    with st.form(f"clarify-{thread}", clear_on_submit=True, border=True):
        st.markdown("**The request needs more before it can run.**")
        raw = {field.name: field_widget(field, f"clarify-{thread}-{field.name}") for field in fields}
        if st.form_submit_button("Answer", type="primary"):
            values, problems = read_answers(fields, raw)
            if problems:
                # Argument names are the server's words: never markup.
                st.warning(markdown_literal("; ".join(problems)))
                return
            send(answer_words(values), thread, user, answers=values)


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
            raw = message.output or {}
            # Hidden first: the thread remembers every secret found in the whole answer, which
            # the shape's pieces are then hidden of (gatehouse/web/result_shape.py hidden_shape).
            shown = services().secrets.value(raw, thread_id=message.thread_id)
            hide = partial(services().secrets.value, thread_id=message.thread_id)
            show_answer(shown, hidden_shape(shape_of(raw.get("result")), hide))


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
        st.markdown("**Pick the one you mean:**" if len(choices) > 1 else "**Pick it if you mean it:**")
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
