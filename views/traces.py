"""Traces: the graph drawn from its own structure, a thread's route through it numbered step by
step in the chat's plain words, each step's inputs and outputs, and what a person decided.

Told for someone watching a demo (gatehouse/display/trace_story.py): the diagram has a legend,
the steps are numbered in the order they ran (a step run twice has two numbers), a decision is
a sentence with the arguments it edited, and the raw values stay folded for experts. The
checkpoints keep real values; the steps shown have their secrets hidden. Names and values are
shown as literal text (gatehouse/web/literal.py), never as Markdown."""

from __future__ import annotations

import json

import streamlit as st

from gatehouse.display.step_labels import STEP_LABELS, step_label
from gatehouse.display.trace_story import Decision, StoryStep, executed, story
from gatehouse.display.visible_text import visible, visible_in
from gatehouse.errors import ThreadNotFoundError
from gatehouse.web.literal import markdown_literal, show
from gatehouse.web.page import reader_zone, services
from gatehouse.web.short_ids import short_thread

THREADS_LISTED = 50

LEGEND = (
    "**How to read the diagram.** Each box is a step of the workflow. "
    "A **solid** line leads to the step that always comes next; a **dashed** line to one taken "
    "only when its condition holds. **Green** boxes and thick green lines are the route this "
    "thread took, and a green box's numbers are the steps it ran as, in order (a step run twice, "
    "in a loop, has two numbers). **Grey** is not taken."
)


def pick_thread() -> str | None:
    """The thread to show: one picked from the list, or one typed (its full id, or the short
    one shown on screen, a review's too). A typed id that names none, or several, says so."""
    recent = {c.thread_id: c for c in app.conversations.recent(limit=THREADS_LISTED)}
    # The chat page's thread comes first: it is the one a demo just ran.
    current = st.session_state.get("thread")
    choices = ([current] if current in recent else []) + [t for t in recent if t != current]
    picked_column, typed_column = st.columns([3, 1])
    with picked_column:
        thread = st.selectbox(
            "Thread",
            choices,
            format_func=lambda t: visible(
                f"{app.secrets.text(recent[t].title)[:60]} · {recent[t].owner} · {short_thread(t)}"
            ),
            index=0 if choices else None,
            placeholder="No threads yet: ask something on the Chat page",
        )
    with typed_column:
        typed = st.text_input(
            "or a thread id", placeholder="e.g. e2fe764b", help="The full id or the short one shown on screen"
        ).strip()
    if not typed:
        return thread
    try:
        return app.requests.resolve_thread(typed)
    except ThreadNotFoundError as exc:
        st.warning(markdown_literal(f"{exc}."))
        return None


def show_lines(lines: list[str]) -> None:
    # Plain text: the values are requesters' and servers' words (no autolink, no markup).
    show("\n".join(lines) if lines else "nothing")


def show_decision(decision: Decision) -> None:
    """The decision as a sentence, in the colour of what it did, then each edited argument's diff."""
    box = {"approve": st.success, "answer": st.success, "reject": st.error}.get(decision.action, st.warning)
    box(markdown_literal(decision.sentence), icon=":material/gavel:")
    for change in decision.changes:
        st.caption(f"Edited argument {markdown_literal(change.name)}: proposed (−), approved (+)")
        st.code(visible(change.diff), language="diff", wrap_lines=True)


def show_step(step: StoryStep) -> None:
    raw = step.raw
    when = f"+{raw['offset_s']:.2f} s" if raw.get("offset_s") is not None else ""
    if step.number is None:
        st.info(markdown_literal(f"{when} · {step.label}"), icon=":material/hourglass_top:")
        return
    if step.decision is not None:
        show_decision(step.decision)
    took = f" · {raw['duration_s'] * 1000:.0f} ms" if raw.get("duration_s") is not None else ""
    label = f"{step.number}. {step.label} · {when}{took}"
    if step.paused:
        label += f" — {step.paused}"
    with st.expander(markdown_literal(label)):
        st.caption(
            f"{markdown_literal(raw['at'][11:19])} UTC · the graph's node "
            f"{markdown_literal(str(step.node))} · changed: {markdown_literal(trace.changes_of(raw))}"
        )
        read, produced = st.columns(2)
        with read:
            st.markdown("**What it read**")
            show_lines(step.inputs)
        with produced:
            st.markdown("**What it produced**")
            show_lines(step.outputs)
        if raw.get("interrupt"):
            st.caption("What the person was shown (JSON)")
            st.json(visible_in(raw["interrupt"]), expanded=False)
        st.caption("Raw values it wrote (JSON)")
        st.json(visible_in(raw["values"]), expanded=False)


st.title("Traces")
st.caption(
    "The workflow as compiled, drawn from the graph itself. Pick a thread to see the route it "
    "took, numbered step by step, what each step read and produced, where it waited and what "
    "a person decided."
)
app = services()
thread = pick_thread()
trace = app.requests.trace(thread, with_route=False)
told = story(trace.steps, zone=reader_zone())
route = executed(told)
st.graphviz_chart(app.requests.diagram(route, STEP_LABELS))
st.markdown(LEGEND)
if thread and not trace.exists:
    st.warning(markdown_literal(f"No checkpoints for thread {thread}."))
elif thread:
    st.markdown(
        "**Route:** "
        + " → ".join(markdown_literal(f"{n}. {step_label(node)}") for n, node in enumerate(route, start=1))
    )
    for request in sorted({step.request for step in told}):
        st.header(f"Request {request:d}", divider="gray")
        for step in (s for s in told if s.request == request):
            show_step(step)
    st.download_button(
        "Export trace (JSON)",
        json.dumps({"thread_id": thread, "route": route, "steps": trace.steps}, indent=2, default=str),
        file_name=f"trace-{thread}.json",
        mime="application/json",
    )
