"""A server's question in the chat: a form built from the schema it sent, or a page to open.

The question, the field names, titles, descriptions and choices are the server's words: they
are drawn literally (gatehouse/web/literal.py), never as Markdown, and the policy's flags beside
them are Gatehouse's. A form starts with the server's defaults (SEP-1034); Accept sends what
it holds, checked against the schema by the service (reviews/asking.py), Decline and Cancel
send nothing. A field that could hold a secret is typed unseen (reviews/asking.py). A URL
question shows the host a browser opens, as the policy read it from the address itself
(policies/web_address.py), and the whole address as text; the page opens only when the
operator clicks Open, which opens the address as Gatehouse read it (so the host it opens is the
one shown), and Done tells the server they went through it.
"""

from __future__ import annotations

from typing import Any, Literal

import streamlit as st

from gatehouse.display.reader_time import readable_time
from gatehouse.display.visible_text import visible
from gatehouse.web.argument_form import is_long_text
from gatehouse.web.flag_text import flag_markdown
from gatehouse.web.literal import markdown_literal, name_literal, show
from gatehouse.web.page import reader_zone, services
from mcp_host.elicitation import FormField, typed_value
from policies.web_address import AddressError, parse_web_address
from reviews.asking import question_fields
from reviews.questions import AnswerAction, Question, QuestionError

ButtonType = Literal["primary", "secondary"]
# A server's questions as the chat names them in its status line.
WAITING_LABEL = "Waiting for your answer to the server's question…"


def _key(question: Question, name: str) -> str:
    return f"question-{question.id}-{name}"


def _label(f: FormField) -> str:
    """A field's label, literal (the server wrote it), starred when required."""
    return markdown_literal(f.label) + (" *" if f.required else "")


def _help(f: FormField) -> str | None:
    """A field's help text, literal: its description and its string format."""
    hints = [f.description or ""]
    if f.kind == "string" and f.string_format:
        hints.append(f"({f.string_format})")
    return markdown_literal(" ".join(h for h in hints if h)) or None


def _secret_help(f: FormField) -> str | None:
    """The help of a field typed unseen: a choice lists its options by number, literally."""
    if f.kind not in ("choice", "choices"):
        return _help(f)
    listed = ", ".join(f"{n} {visible(label)}" for n, (_, label) in enumerate(f.options, start=1))
    return " ".join(h for h in (_help(f), markdown_literal(f"({listed})")) if h)


def _secret_widget(question: Question, f: FormField) -> None:
    """A field that could hold a secret (a PIN, a code, a password, whatever its kind): typed
    unseen, as text, read as the field's kind when the answer is sent (``_value``). A choice
    is typed too (its number, value or label): a picked option would show."""
    st.text_input(_label(f), value="", key=_key(question, f.name), help=_secret_help(f), type="password")


def _widget(question: Question, f: FormField, secret: bool) -> None:
    """One field, starting at the server's default. Labels, help and choices are literal."""
    key = _key(question, f.name)
    label = _label(f)
    help_text = _help(f)
    if secret:
        _secret_widget(question, f)
    elif f.kind == "boolean":
        st.checkbox(label, value=bool(f.default), key=key, help=help_text)
    elif f.kind in ("choice", "choices"):
        labels = dict(f.options)
        values = list(labels)
        if f.kind == "choice":
            index = values.index(f.default) if f.default in values else None
            st.selectbox(
                label, values, index=index, key=key, help=help_text, format_func=lambda v: visible(labels[v])
            )
        else:
            chosen = [v for v in (f.default if isinstance(f.default, list) else []) if v in labels]
            st.multiselect(
                label,
                values,
                default=chosen,
                key=key,
                help=help_text,
                format_func=lambda v: visible(labels[v]),
            )
    elif f.kind == "integer":
        st.number_input(
            label,
            min_value=None if f.minimum is None else int(f.minimum),
            max_value=None if f.maximum is None else int(f.maximum),
            value=f.default if isinstance(f.default, int) else None,
            step=1,
            key=key,
            help=help_text,
        )
    elif f.kind == "number":
        st.number_input(
            label,
            min_value=None if f.minimum is None else float(f.minimum),
            max_value=None if f.maximum is None else float(f.maximum),
            value=float(f.default) if isinstance(f.default, int | float) else None,
            key=key,
            help=help_text,
        )
    elif is_long_text(f.name, _string_shape(f)):
        # Several lines (a message, instructions): a one-line box would drop the newlines.
        st.text_area(label, value=f.default if isinstance(f.default, str) else "", key=key, help=help_text)
    else:
        st.text_input(
            label,
            value=f.default if isinstance(f.default, str) else "",
            key=key,
            help=help_text,
        )


def _string_shape(f: FormField) -> dict[str, Any]:
    """What of a string field's schema tells long text from a line (argument_form.is_long_text)."""
    return {"maxLength": f.max_length, "description": f.description or "", "default": f.default}


def _value(f: FormField, raw: Any, secret: bool) -> Any:
    """What a widget holds, as the answer carries it; None leaves the field out."""
    if raw is None:
        return None
    if secret:
        typed = str(raw).strip()
        if not typed:
            return None
        value = typed_value(f, typed)
        if value is None:
            raise QuestionError(f"the answer does not fit the form: {f.label}: not understood")
        return value
    if f.kind == "boolean":
        return bool(raw)
    if f.kind == "integer":
        return int(raw)
    if f.kind == "number":
        return float(raw)
    if f.kind == "choices":
        return list(raw) if raw or f.required else None
    if f.kind == "string" and raw == "":
        return None
    return raw


def _opened(url: str) -> str:
    """The address the Open button opens: rebuilt from what Gatehouse read (the host it names
    and nothing that could read as another), so the browser opens the host shown."""
    try:
        address = parse_web_address(url)
    except AddressError:
        address = None
    # The policy declined what it could not read; a row that says otherwise opens nothing.
    return address.href if address is not None else "about:blank"


def _answer(question: Question, action: AnswerAction, user: str) -> None:
    """A button's callback: the answer goes to the database, where the waiting call reads it."""
    content: dict[str, Any] | None = None
    try:
        if action == "accept" and question.mode == "form":
            secret = services().questions.secret_fields(question)
            content = {}
            for f in question_fields(question):
                value = _value(f, st.session_state.get(_key(question, f.name)), f.name in secret)
                if value is not None:
                    content[f.name] = value
        services().questions.answer(question.id, by=user, action=action, content=content)
    except QuestionError as exc:
        st.session_state[_key(question, "problem")] = str(exc)


def _buttons(question: Question, user: str) -> None:
    columns = st.columns(3)
    # A page to open is accepted once the operator went through it; a form, with what it holds.
    choices: list[tuple[str, AnswerAction, ButtonType]] = [
        ("Done" if question.mode == "url" else "Accept", "accept", "primary"),
        ("Decline", "decline", "secondary"),
        ("Cancel", "cancel", "secondary"),
    ]
    for column, (label, action, kind) in zip(columns, choices, strict=True):
        with column:
            st.button(
                label,
                key=_key(question, action),
                on_click=_answer,
                args=(question, action, user),
                type=kind,
                width="stretch",
            )


def show_question(question: Question, user: str) -> None:
    """One pending question, with what answers it."""
    app = services()
    with st.container(border=True, key=_key(question, "box")):
        st.markdown(f"**:material/help: {name_literal(question.server)} asks, during the call:**")
        show(app.secrets.text(question.message, thread_id=question.thread_id))
        for flag in question.flags:
            st.markdown(flag_markdown(flag))
        problem = st.session_state.pop(_key(question, "problem"), None)
        if problem:
            st.error(markdown_literal(problem))
        if question.mode == "url":
            domain = question.domain or "?"
            st.markdown(f"It asks you to open a page at **{markdown_literal(domain)}**")
            st.caption("The whole address:")
            st.code(visible(question.url or ""), language=None, wrap_lines=True)
            st.link_button(
                f"Open the page at {markdown_literal(domain)}",
                _opened(question.url or ""),
                icon=":material/open_in_new:",
            )
            st.caption("Done when you have finished there; Decline if you do not want to.")
            _buttons(question, user)
        else:
            fields = question_fields(question)
            secret = app.questions.secret_fields(question)
            # Plain widgets, not st.form: the page's script is still running (it follows the call),
            # and Streamlit 1.67's browser side drops a form's submit while its run has not ended.
            for f in fields:
                _widget(question, f, f.name in secret)
            _buttons(question, user)
        when = readable_time(question.deadline, zone=reader_zone())
        st.caption(f"Unanswered by {markdown_literal(when)}, the call goes on without your answer (cancel).")


def show_questions(questions: list[Question], user: str) -> None:
    """The questions this person may answer: their own, or any when their role may take
    threads over (the service refuses anyone else anyway)."""
    may_take_over = services().policy.may_take_over(user)
    for question in questions:
        if question.operator == user or may_take_over:
            show_question(question, user)
