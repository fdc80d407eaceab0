"""The Reviews page's view of a server's request for a model completion (sampling).

The reviewer sees what the server asks a model: its system prompt, every message, and the
limits (maximum tokens, temperature, stop sequences, model preferences, context asked for),
with the flags, and decides. An approval sends the server an answer: the text the reviewer
writes, or, left empty, the configured language model's completion (GATEHOUSE_MODEL). A
rejection sends it an error. Everything the server wrote is untrusted text: shown literally
(gatehouse/web/literal.py), never as Markdown, with secrets hidden as ``***``.
"""

from __future__ import annotations

import json

import streamlit as st
from mcp.types import CreateMessageRequestParams, TextContent

from gatehouse.web.decision_style import (
    APPROVE_KEY,
    APPROVE_SHORTCUT,
    REJECT_KEY,
    REJECT_SHORTCUT,
    SHORTCUT_HINT,
)
from gatehouse.web.flag_text import flag_markdown
from gatehouse.web.literal import markdown_literal, name_literal, show
from gatehouse.web.page import services
from gatehouse.web.short_ids import short_review, short_thread
from reviews.errors import AlreadyDecidedError, NotPermittedError, ReviewError
from reviews.ledger import Review
from reviews.sampling import REVIEWER_MODEL, answer_text, request_of

APPROVE_WRITTEN = "Approve with my answer"


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


def show_request(review: Review) -> None:
    request = request_of(review)
    server = str(review.capability.get("server") or "")
    st.markdown(f"**{name_literal(server)} asks for a language-model completion** (`sampling/createMessage`)")
    st.caption(
        "A server's own request, made during one of its calls, which waits. What you approve is sent "
        "back to the server; a rejection sends it an error."
    )
    for line in cause_lines(review):
        st.caption(markdown_literal(line))
    st.markdown("**Limits**")
    show(hidden("\n".join(limit_lines(request))))
    st.markdown("**System prompt**")
    show(hidden(request.system_prompt or "(none)"))
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
    st.markdown(f"**Validation flags** ({len(review.flags)})")
    for flag in review.flags:
        st.markdown(flag_markdown(flag | {"message": hidden(str(flag.get("message") or ""))}))


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
        st.error(markdown_literal(str(exc)))
        return
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


def decision(review: Review, user: str) -> None:
    app = services()
    # The request this page shows: a decision is made on it or refused.
    fingerprint_key = f"shown-{review.id}"
    shown = st.session_state.get(fingerprint_key, review.call_hash)
    st.session_state[fingerprint_key] = review.call_hash
    model = app.reviews.sampler.label if app.reviews.sampler is not None else None
    answer = st.text_area(
        "Your answer (the server gets exactly this)"
        if model is None
        else f"Your answer (leave it empty and the language model {markdown_literal(model)} answers)",
        key=f"answer-{review.id}",
    )
    reason = st.text_input("Reason (required to reject; kept in the record)", key=f"reason-{review.id}")
    written = bool(answer.strip())
    label = APPROVE_WRITTEN if written or model is None else f"Approve: {markdown_literal(model)} answers"
    approve_column, reject_column = st.columns(2)
    if approve_column.button(
        label, type="primary", width="stretch", key=f"{APPROVE_KEY}{review.id}", shortcut=APPROVE_SHORTCUT
    ):
        if not written and model is None:
            st.error("Write the answer the server gets: no language model is configured (GATEHOUSE_MODEL).")
        else:
            decide(
                review,
                user,
                approve=True,
                answer=answer if written else None,
                reason=reason or None,
                shown=shown,
            )
    st.caption(SHORTCUT_HINT)
    if reject_column.button(
        "Reject", width="stretch", key=f"{REJECT_KEY}{review.id}", shortcut=REJECT_SHORTCUT
    ):
        if not reason.strip():
            st.error("A rejection needs a reason, for the record.")
        else:
            decide(review, user, approve=False, answer=None, reason=reason.strip(), shown=shown)


def show_sampling_review(review: Review, user: str) -> None:
    """The request in full, then its answer (decided) or the decision (pending); why this
    person may not decide, before the request (where they would look for the decision)."""
    if review.status == "pending":
        try:
            services().reviews.check_permission(review, user)
        except NotPermittedError as exc:
            st.info(f"You cannot decide this review: {markdown_literal(str(exc))}")
            show_request(review)
            return
    show_request(review)
    if review.status != "pending":
        show_answer(review)
        return
    decision(review, user)
