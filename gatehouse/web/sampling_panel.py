"""The Reviews page's view of a server's request for a model completion (sampling).

The reviewer sees what the server asks a model: its system prompt, every message, and the
limits (maximum tokens, temperature, stop sequences, model preferences, context asked for),
with the flags, and decides. An approval sends the server an answer: the text the reviewer
writes, or, left empty, the configured language model's completion (GATEHOUSE_MODEL). A
rejection sends it an error. Everything the server wrote is untrusted text: shown literally
(gatehouse/web/literal.py), never as Markdown, with secrets hidden as ``***``.

Laid out as a tool call's review (gatehouse/web/decision_bar.py): the decision bar first, the
messages in a box that scrolls by itself beside the rest, so both are on the first screen of a
laptop and a phone; the buttons disabled, saying what runs, while the decision is carried out.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import streamlit as st
from mcp.types import CreateMessageRequestParams, TextContent

from gatehouse.web.decision_bar import (
    ApproveButton,
    BarWords,
    decision_bar,
    proposal_columns,
    refuse_later,
    why_not_decide,
)
from gatehouse.web.decision_style import MESSAGES_KEY
from gatehouse.web.flag_text import flag_markdown
from gatehouse.web.literal import markdown_literal, name_literal, show
from gatehouse.web.page import services
from gatehouse.web.short_ids import short_review, short_thread
from reviews.errors import AlreadyDecidedError, ReviewError
from reviews.ledger import Review
from reviews.sampling import REVIEWER_MODEL, answer_text, request_of

APPROVE_WRITTEN = "Approve with my answer"
T = TypeVar("T")


def hidden(text: str) -> str:
    return services().secrets.text(text)


def limit_lines(request: CreateMessageRequestParams) -> list[str]:
    """The request's limits and wishes, one line each (the server's words as plain text)."""
    lines = [f"Maximum tokens: {request.max_tokens}"]
    if request.temperature is not None:
        lines.append(f"Temperature: {request.temperature:g}")
    if request.stop_sequences:
        lines.append(f"Stop sequences: {json.dumps(request.stop_sequences, ensure_ascii=False)}")
    preferences = request.model_preferences
    if preferences is not None:
        wishes = (
            [f"hints {', '.join(hint.name or '?' for hint in preferences.hints)}"]
            if preferences.hints
            else []
        )
        wishes += [
            f"{name} priority {value:g}"
            for name, value in (
                ("cost", preferences.cost_priority),
                ("speed", preferences.speed_priority),
                ("intelligence", preferences.intelligence_priority),
            )
            if value is not None
        ]
        lines.append(
            f"Model preferences: {'; '.join(wishes) or 'none'} (advisory: the configured model, or your text, answers)"
        )
    context = request.include_context or "none"
    lines.append(
        f"Include context: {context}"
        + ("" if context == "none" else " (Gatehouse adds no context to what is shown here)")
    )
    if request.metadata:
        lines.append(f"Metadata for the provider: {json.dumps(request.metadata, ensure_ascii=False)}")
    return lines


def cause_lines(review: Review) -> list[str]:
    """Whose request's call the server asked during (several when it cannot be told which)."""
    lines = []
    for cause in review.payload.get("caused_by", []):
        line = f"During a call for {cause.get('requester')}'s request (thread {short_thread(str(cause.get('thread_id')))}"
        if cause.get("review_id"):
            line += f", approved in review {short_review(str(cause['review_id']))}"
        line += ")"
        if cause.get("contributors"):
            line += f", shaped also by {', '.join(map(str, cause['contributors']))}"
        lines.append(line)
    return lines


def show_messages(review: Review, request: CreateMessageRequestParams) -> None:
    """Every message the server asks a model to answer, each in a box of its own."""
    st.markdown(f"**Messages** ({len(request.messages)})")
    for number, message in enumerate(request.messages, start=1):
        with st.container(border=True):
            st.caption(f"{number:d}. {markdown_literal(message.role)}")
            for block in message.content_as_list:
                if isinstance(block, TextContent):
                    show(hidden(block.text))
                else:
                    st.caption(
                        markdown_literal(f"({block.type} content: not shown, and not given to a model)")
                    )


def show_asker(review: Review, request: CreateMessageRequestParams) -> None:
    """Who asks, during whose request, what an approval sends, the system prompt and the limits."""
    st.caption(
        "A server's own request, made during one of its calls, which waits. What you approve is sent "
        "back to the server; a rejection sends it an error."
    )
    for line in cause_lines(review):
        st.caption(markdown_literal(line))
    st.markdown("**System prompt**")
    show(hidden(request.system_prompt or "(none)"))
    st.markdown("**Limits**")
    show(hidden("\n".join(limit_lines(request))))


def show_flags(review: Review) -> None:
    st.markdown(f"**Validation flags** ({len(review.flags)})")
    for flag in review.flags:
        st.markdown(flag_markdown(flag | {"message": hidden(str(flag.get("message") or ""))}))


def show_request(review: Review, *, answer_field: Callable[[], T]) -> T:
    """The request, laid out as every review's proposal (decision_bar.proposal_columns): its
    messages in a box that scrolls by itself, beside who asks, the system prompt, the limits and
    ``answer_field`` (drawn there; its result returned); the flags below."""
    request = request_of(review)
    server = str(review.capability.get("server") or "")
    messages_box, side = proposal_columns(f"{MESSAGES_KEY}{review.id}")
    with messages_box:
        show_messages(review, request)
    with side:
        st.markdown(
            f"**{name_literal(server)} asks for a language-model completion** (`sampling/createMessage`)"
        )
        show_asker(review, request)
        answer = answer_field()
    show_flags(review)
    return answer


def show_answer(review: Review) -> None:
    answer = review.approved_arguments()
    if not answer:
        return
    model = str(answer.get("model") or "")
    st.markdown("**The answer**" + (" (written by the reviewer)" if model == REVIEWER_MODEL else ""))
    if model != REVIEWER_MODEL:
        st.caption(markdown_literal(f"Written by the language model {model}"))
    show(hidden(answer_text(answer)))


def decide(
    review: Review, user: str, *, approve: bool, answer: str | None, reason: str | None, shown: str
) -> None:
    try:
        result = services().reviews.decide(
            review.id, reviewer=user, approve=approve, reason=reason, answer=answer, expected=shown
        )
    except AlreadyDecidedError:
        st.session_state["review_notice"] = ("warning", "Your decision was not recorded.", "")
    except ReviewError as exc:
        # Shown by the next run beside the buttons, live again there (this run drew them disabled):
        # a model that gave no answer, for one, leaves the review pending for another try.
        refuse_later(review.id, hidden(str(exc)))
    else:
        server = review.capability.get("server")
        gets = "the answer" if approve else "an error saying a reviewer declined"
        st.session_state["review_notice"] = (
            "success",
            f"Review {short_review(review.id)} {result.review.status}: {server} gets {gets}.",
            hidden(answer_text(result.review.approved_arguments() or {})),
        )
        st.session_state.pop("open_review", None)
    st.rerun()


@dataclass(frozen=True)
class Answer:
    """The answer field as the reviewer leaves it, and the model that answers when it is empty."""

    text: str
    model: str | None

    @property
    def written(self) -> bool:
        return bool(self.text.strip())


def answer_field(review: Review) -> Answer:
    sampler = services().reviews.sampler
    model = sampler.label if sampler is not None else None
    text = st.text_area(
        "Your answer (the server gets exactly this)"
        if model is None
        else f"Your answer (leave it empty and the language model {markdown_literal(model)} answers)",
        key=f"answer-{review.id}",
    )
    return Answer(text, model)


def approve_button(answer: Answer) -> ApproveButton:
    if answer.written or answer.model is None:
        return ApproveButton(
            APPROVE_WRITTEN,
            help="The server gets your answer, exactly as written.",
            missing=None
            if answer.written
            else "Write the answer the server gets: no language model is configured (GATEHOUSE_MODEL).",
        )
    return ApproveButton(
        f"Approve: {markdown_literal(answer.model)} answers",
        help="The language model writes the answer to the messages shown; the server gets it.",
    )


def running_words(review: Review, answer: Answer, approve: bool) -> str:
    """What the page says while the decision is carried out (a model's answer takes a while)."""
    server = name_literal(str(review.capability.get("server") or "the server"))
    if not approve:
        return f"Rejected: sending {server} the error…"
    if answer.written:
        return f"Approved: sending {server} your answer…"
    return (
        f"Approved: the language model {markdown_literal(answer.model or '')} writes the answer for {server}…"
    )


def show_sampling_review(review: Review, user: str, asked: object) -> None:
    """The request in full, then its answer (decided); pending, the decision first (or why this
    person may not decide, where they would look for it), as for a tool call: the bar above the
    messages, both on the first screen. ``asked``: the click this run was started by
    (decision_bar.take_click); its decision is carried out last, the page drawn with its buttons
    disabled meanwhile."""
    if review.status != "pending":
        show_request(review, answer_field=lambda: None)
        show_answer(review)
        return
    refused = why_not_decide(review, user)
    # Filled once the answer field below has been read (Approve's label follows it).
    bar = st.container()
    if refused is not None:
        bar.info(markdown_literal(refused))
        show_request(review, answer_field=lambda: None)
        return
    # The request this page showed on the run before a click: a decision is made on it or refused.
    fingerprint_key = f"shown-{review.id}"
    shown = st.session_state.get(fingerprint_key, review.call_hash)
    st.session_state[fingerprint_key] = review.call_hash
    answer = show_request(review, answer_field=lambda: answer_field(review))
    words = BarWords(
        reason_label="Reason (required to reject; kept in the record)",
        reason_needed="A rejection needs a reason, for the record.",
        running=lambda approve: running_words(review, answer, approve),
    )
    with bar:
        decision = decision_bar(review.id, asked, approve_button(answer), words)
    if decision is not None:
        # Last, once the whole review is drawn with its buttons disabled: a model's answer
        # may take its time.
        decide(
            review,
            user,
            approve=decision.approve,
            answer=answer.text if decision.approve and answer.written else None,
            reason=decision.reason,
            shown=shown,
        )
