"""Reviewers: the pending queue, one review in full, a decision, and the history.

Each run reads one page of the queue and one page of the history (never the whole ledger),
and the one review opened; for admins, the Suggested rules section reads the window of
decisions only when its listing is out of date (gatehouse/web/suggestion_panel.py). The queue, its count and the open review's status refresh every
few seconds by themselves (live_queue, a fragment: the argument form being edited is left
alone); a review decided elsewhere is drawn again, saying who decided it, without buttons. Every decision goes through ReviewService.decide, which checks
permission again: the page only hides the buttons a person may not use. Secrets are shown as
``***`` (policies/secrets.py); an argument left as shown keeps its real value when approved.

What you see is what runs: one decision button follows the argument form ("Approve" while it
holds the proposal, "Approve with my changes" once it differs, disabled while it is invalid),
and every decision carries the call hash of the proposal the page showed, so a review that
changed or was decided meanwhile is refused and the page says so where the review was.
Requests, descriptions, arguments, previews and reasons are untrusted text: shown literally
(gatehouse/web/literal.py), never as Markdown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import streamlit as st

from gatehouse.display.reader_time import readable_time, table_time
from gatehouse.display.review_text import review_row
from gatehouse.display.visible_text import visible, visible_in
from gatehouse.web.argument_form import (
    ArgumentError,
    FormField,
    form_fields,
    initial_text,
    parse_json_arguments,
    read_fields,
    schema_problems,
)
from gatehouse.web.argument_provenance import provenance_markdown, provenance_words
from gatehouse.web.decision_bar import (
    ApproveButton,
    BarWords,
    decision_bar,
    proposal_columns,
    refuse_later,
    take_click,
    why_not_decide,
)
from gatehouse.web.decision_style import PREVIEW_KEY, decision_style
from gatehouse.web.effect_check_panel import (
    effect_word,
    keep_effect_notice,
    show_effect_notice,
    show_history_mismatches,
    show_review_effect,
)
from gatehouse.web.effect_preview import EmailPreview, FileDiffPreview, RecordPreview, effect_preview
from gatehouse.web.flag_text import flag_markdown
from gatehouse.web.grant_panel import grants_section, remember_choice
from gatehouse.web.literal import markdown_literal, name_literal, show
from gatehouse.web.live_queue import (
    REFRESH_SECONDS,
    follow,
    page_count,
    review_to_show,
)
from gatehouse.web.notification_panel import notification_status
from gatehouse.web.page import current_user, pending_count, reader_zone, services, shared_looks
from gatehouse.web.review_link import open_linked_review
from gatehouse.web.sampling_panel import show_sampling_review
from gatehouse.web.short_ids import short_review
from gatehouse.web.suggestion_panel import suggestions_section
from mcp_host.reported import McpHostError
from policies.secrets import REDACTED
from reviews.errors import AlreadyDecidedError, ReviewError
from reviews.ledger import Review
from reviews.sampling import SAMPLING_STAGE

if TYPE_CHECKING:
    from graph.state import EffectBinding
    from reviews.grant_service import Remember

PAGE_SIZE = 50
HISTORY_SIZE = 50


def hidden(text: str, review: Review) -> str:
    """Text as a reviewer sees it: secrets as ***, also those the review's thread holds
    elsewhere (its request's key in a fragment of the arguments, in a result echoing it)."""
    return services().secrets.text(text, thread_id=review.thread_id)


def time_left(seconds: int | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 3600:
        return f"{seconds // 3600:d} h {seconds % 3600 // 60:d} min"
    return f"{seconds // 60:d} min {seconds % 60:d} s" if seconds < 600 else f"{seconds // 60:d} min"


def queue_table(rows: list[dict[str, Any]]) -> None:
    zone = reader_zone()
    # What a person scans first leads; the id comes last and short (the full one is in the
    # review's details and its link). Names are a server's and a requester's: shown visibly.
    st.dataframe(
        visible_in(
            [
                {
                    "waiting since": table_time(r["created_at"], zone),
                    "time left": time_left(r["seconds_left"]),
                    "category": r["category"] or "-",
                    "requester": r["requester"],
                    "server": r["server"],
                    "capability": r["capability"],
                    "approvals": f"{len(r['approvals'])}/{r['required_approvals']}",
                    "flags": ", ".join(r["flags"]),
                    "review": short_review(r["id"]),
                }
                for r in rows
            ]
        ),
        hide_index=True,
        width="stretch",
    )


def show_definition(review: Review) -> None:
    capability = review.capability
    st.markdown(
        f"**Capability** {name_literal(str(capability.get('key')))} "
        f"({markdown_literal(str(capability.get('type')))})"
    )
    # A server's words: shown as text, its control characters visible.
    show(hidden(capability.get("description") or "(no description)", review))
    server, key = capability.get("server"), capability.get("key")
    try:
        live = services().reviews.live_definition(review)
    except McpHostError as exc:
        st.warning(
            markdown_literal(f"Server {server} cannot be reached to compare the live definition: {exc}")
        )
        return
    if live is None:
        st.warning(markdown_literal(f"{key} is no longer offered by {server}: approving it will fail."))
    elif capability.get("fingerprint") and live.fingerprint != capability.get("fingerprint"):
        st.warning(
            "The server changed this capability's definition since the review opened. An approval "
            "is checked against the live definition before the call runs and asks again if it differs."
        )
        st.markdown("Live description:")
        show(hidden(live.description or "(none)", review))


def show_flags_and_rating(review: Review) -> None:
    """Flags, the rule and the ratings, one after another at full width: each reason wraps
    (never cut off in a table cell), and no column waits for a taller one beside it."""
    payload = review.payload
    st.markdown(f"**Validation flags** ({len(review.flags)})")
    for flag in review.flags:
        st.markdown(flag_markdown(flag | {"message": hidden(str(flag.get("message") or ""), review)}))
    st.markdown(f"Policy rule {markdown_literal(str(payload.get('matched_rule')))}:")
    show(hidden(str(payload.get("explanation") or ""), review))
    if payload.get("previous_capability"):
        with st.expander("The definition before it changed"):
            shown = services().secrets.value(payload["previous_capability"], thread_id=review.thread_id)
            st.json(visible_in(shown))
    st.markdown("**The policy's own rating**")
    show("\n".join(f"- {reason}" for reason in payload.get("risk_reasons") or ["nothing risky found"]))
    annotations = review.capability.get("annotations") or {}
    st.markdown("**The server's annotations** (its own claims)")
    # A server's words: one line, as text.
    show(
        " · ".join(f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in annotations.items())
        or "(none)"
    )


def show_preview(review: Review, arguments: dict[str, Any]) -> EffectBinding | None:
    """The preview of what approving ``arguments`` would do, and what an approval given on it
    is bound to of the file the call writes (None: nothing)."""
    app = services()
    try:
        preview = effect_preview(app.mcp, app.policy, review.capability, arguments)
    except McpHostError as exc:
        st.warning(markdown_literal(f"No preview: {exc}"))
        return None
    if isinstance(preview, FileDiffPreview) and preview.elsewhere:
        st.caption(
            markdown_literal(
                hidden(
                    f"{preview.path} is a link to {preview.target}: the write changes {preview.target}.",
                    review,
                )
            )
        )
    if isinstance(preview, EmailPreview):
        st.markdown("**Preview: the e-mail as it would be sent**")
        with st.container(border=True):
            lines = [f"To: {', '.join(preview.to) or '(nobody)'}"]
            if preview.cc:
                lines.append(f"Cc: {', '.join(preview.cc)}")
            lines.append(f"Subject: {preview.subject}")
            show(hidden("\n".join(lines), review))
            show(hidden(preview.body, review))
    elif isinstance(preview, FileDiffPreview) and preview.new_file:
        st.markdown(f"**Preview: a new file,** {markdown_literal(hidden(preview.path, review))}")
        count = "1 line" if preview.lines_added == 1 else f"{preview.lines_added:d} lines"
        st.caption(f"New file: it does not exist yet, and writing it creates it with {count}.")
        if preview.diff:
            st.code(visible(hidden(preview.diff, review)), language="diff", wrap_lines=True)
    elif isinstance(preview, FileDiffPreview):
        st.markdown(f"**Preview: the change to** {markdown_literal(hidden(preview.path, review))}")
        if preview.note:
            st.caption(
                markdown_literal(
                    f"Current content unknown ({hidden(preview.note, review)}); the diff shows the new content in full."
                )
            )
        if preview.unchanged:
            st.caption("The file already has exactly this content: writing it changes nothing.")
        else:
            st.caption(f"+{preview.lines_added:d} / -{preview.lines_removed:d} lines")
            # Long lines wrap: a clipped line hides what the write puts at its end.
            st.code(visible(hidden(preview.diff, review)), language="diff", wrap_lines=True)
    elif isinstance(preview, RecordPreview):
        show_record_preview(preview, review)
    return preview.binding if isinstance(preview, FileDiffPreview) else None


def show_record_preview(preview: RecordPreview, review: Review) -> None:
    """The record an update changes and what it sets and adds, by the record's field names."""
    which = ", ".join(f"{name} {value}" for name, value in preview.record.items())
    st.markdown(f"**Preview: the changes to the record** {markdown_literal(hidden(which, review))}")
    lines = [
        f"{field}: set to {json.dumps(value, ensure_ascii=False)}" for field, value in preview.sets.items()
    ]
    lines += [
        f"{field}: add {json.dumps(value, ensure_ascii=False)}" for field, value in preview.adds.items()
    ]
    with st.container(border=True):
        show(hidden("\n".join(lines) or "(nothing set)", review))


def argument_editor(review: Review) -> dict[str, Any] | None:
    """The arguments as the reviewer leaves them, or None while what they typed is invalid.

    The editor shows the arguments with secrets hidden; what the reviewer leaves as shown gets
    its real value back, and a hidden secret inside text the reviewer changed must be retyped."""
    schema = review.capability.get("input_schema") or {}
    secrets = services().secrets
    shown = secrets.value(review.arguments, thread_id=review.thread_id)
    mode = st.radio("Edit arguments as", ["Form", "JSON"], horizontal=True, key=f"mode-{review.id}")
    try:
        if mode == "JSON":
            text = st.text_area(
                "Arguments (JSON)",
                json.dumps(shown, indent=2, ensure_ascii=False),
                key=f"json-{review.id}",
            )
            edited = parse_json_arguments(text)
        else:
            fields = form_fields(schema, shown)
            held = {field.name: field_widget(review, field, shown) for field in fields}
            # A wholly hidden value left as shown (a number too): the real one stands.
            standing = {name for name, raw in held.items() if raw == REDACTED and shown.get(name) == REDACTED}
            read, errors = read_fields([field for field in fields if field.name not in standing], held)
            kept = {name: review.arguments[name] for name in standing} | read
            edited = {name: kept[name] for name in held if name in kept}  # in the form's order
            if errors:
                raise ArgumentError("; ".join(errors))
        edited = secrets.restore(edited, review.arguments, thread_id=review.thread_id)
        if REDACTED in json.dumps(edited) and REDACTED not in json.dumps(review.arguments):
            raise ArgumentError(
                f"a hidden secret ({REDACTED}) is in text you changed: retype the secret, or undo the change"
            )
    except ArgumentError as exc:
        st.error(markdown_literal(hidden(str(exc), review)))
        return None
    problems = schema_problems(schema, edited)
    for problem in problems:
        st.error(markdown_literal(hidden(f"Does not fit the input schema: {problem}", review)))
    return None if problems else edited


def field_widget(review: Review, field: FormField, shown: dict[str, Any]) -> Any:
    current = shown.get(field.name)
    # A server names and describes its fields: labels and help are Markdown to Streamlit.
    label = markdown_literal(field.name) + (" *" if field.required else "")
    key = f"arg-{review.id}-{field.name}"
    help_text = markdown_literal(field.description) if field.description else None
    if field.kind == "boolean":
        return st.checkbox(label, value=bool(current), key=key, help=help_text)
    if field.kind == "choice":
        options = list(field.options)
        index = options.index(current) if current in options else None
        # A server's choices: each shown with its invisible characters visible.
        return st.selectbox(
            label, options, index=index, key=key, help=help_text, format_func=lambda v: visible(str(v))
        )
    if field.kind in {"long_text", "lines", "json"}:
        return st.text_area(label, initial_text(field, current), key=key, help=help_text)
    return st.text_input(label, initial_text(field, current), key=key, help=help_text)


APPROVE = "Approve"
APPROVE_CHANGES = "Approve with my changes"
REASON = "Reason (required to reject; shown to the operator)"


def approval_label(review: Review, edited: dict[str, Any] | None) -> tuple[str, str | None]:
    """The decision button's label, and why it is disabled (None while it may be clicked).

    It follows the form: the proposal as it stands is "Approve"; anything else the form holds
    is "Approve with my changes", and only that runs. Nothing runs while the form is invalid."""
    if edited is None:
        return APPROVE_CHANGES, "The arguments are not valid: correct them (or undo the change) first."
    if edited == review.arguments:
        return APPROVE, None
    if review.stage != "before_execution":
        return APPROVE_CHANGES, "Arguments can be changed only before the call runs: undo the change."
    return APPROVE_CHANGES, None


def running_words(review: Review, approve: bool) -> str:
    """What the page says while a decision is recorded and what it starts runs."""
    if not approve:
        return "Recording the rejection…"
    if len(review.approvals()) + 1 < review.required_approvals:
        return "Recording your approval…"
    if review.stage in {"before_execution", "after_failure"}:
        name = str(review.capability.get("name") or review.capability_key or "the call")
        return f"Approved: running {name}…"
    return "Approved: the request goes on…"


@dataclass(frozen=True)
class Decision:
    """What a click asks for: approve (with the form's arguments when they differ) or reject."""

    approve: bool
    arguments: dict[str, Any] | None
    reason: str | None


def tool_decision_bar(review: Review, edited: dict[str, Any] | None, asked: object) -> Decision | None:
    """The shared decision bar (gatehouse/web/decision_bar.py) for a tool call: Approve follows
    the argument form. Returns the decision the click ``asked`` asked for, once it may be made."""
    label, disabled_because = approval_label(review, edited)
    button = ApproveButton(
        label,
        help="The arguments as the form shows them run, checked against the schema and the policy again."
        if label == APPROVE_CHANGES
        else "The proposed arguments run, exactly as shown.",
        disabled_because=disabled_because,
    )
    words = BarWords(
        reason_label=REASON,
        reason_needed="A rejection needs a reason the operator can read.",
        running=lambda approve: running_words(review, approve),
    )
    asked_for = decision_bar(review.id, asked, button, words)
    if asked_for is None:
        return None
    arguments = edited if asked_for.approve and label == APPROVE_CHANGES else None
    return Decision(asked_for.approve, arguments, asked_for.reason)


def decide(
    review: Review,
    user: str,
    *,
    approve: bool,
    arguments: dict[str, Any] | None,
    reason: str | None,
    shown: str,
    shown_effect: EffectBinding | None,
    remember: Remember | None = None,
) -> None:
    try:
        result = services().reviews.decide(
            review.id,
            reviewer=user,
            approve=approve,
            reason=reason,
            arguments=arguments,
            expected=shown,
            shown_effect=shown_effect,
            remember=remember if approve else None,
        )
    except AlreadyDecidedError:
        # The page shows who decided, where the review was (show_decided): nothing moves.
        st.session_state["review_notice"] = ("warning", "Your decision was not recorded.", "")
    except ReviewError as exc:
        # A refusal may quote the arguments (a path): secrets stay hidden. Shown by the next run
        # beside the buttons, live again there (this run drew them disabled).
        refuse_later(review.id, hidden(str(exc), review))
    else:
        if result.run is None and result.review.served_by is not None and result.review.status != "pending":
            # The thread is on the LangGraph API server: its caller resumes it with the decision.
            notice = (
                "success",
                f"Review {short_review(review.id)} {result.review.status} (recorded). Its thread is served by "
                f"{result.review.served_by}: resume it with `gatehouse reviews resume-value {review.id}`.",
                "",
            )
        elif result.run is None:
            notice = (
                "success",
                f"Approval recorded ({result.approvals} of {result.required}); it waits for another reviewer.",
                "",
            )
        else:
            output = result.run.final_output
            remembered = f" Remembered as grant {result.grant.id}." if result.grant is not None else ""
            notice = (
                "success",
                f"Review {short_review(review.id)} {result.review.status}. Outcome: {output.status}.{remembered}",
                hidden(output.response, review),
            )
            check = output.effect_check
            keep_effect_notice(check, hidden(check.detail, review) if check is not None else "")
        st.session_state["review_notice"] = notice
        # Decided here: the notice says how it ended, and the page goes on to the queue.
        st.session_state.pop("open_review", None)
    st.rerun()


def show_decided(review: Review) -> None:
    """A review opened on this page that is no longer pending: who decided it and when, in
    place of its decision buttons (another tab, another reviewer, or its deadline)."""
    zone = reader_zone()
    if review.status == "expired":
        text = f"Review {short_review(review.id)} expired at {readable_time(review.expires_at, zone=zone)}."
    else:
        who = review.decided_by or "someone"
        # A cancelled review was taken back by its requester (or an admin), not decided.
        verb = "withdrawn" if review.status == "cancelled" else "decided"
        text = (
            f"Review {short_review(review.id)} was {verb} by {who}"
            + (f" at {readable_time(review.decided_at, zone=zone)}" if review.decided_at else "")
            + f" ({review.status})."
        )
    st.warning(markdown_literal(text), icon=":material/how_to_reg:")
    if review.reason:
        st.markdown("**Reason given**")
        show(hidden(review.reason, review))
    show_review_effect(review, hidden)


def review_header(review: Review) -> None:
    """Which review, who asked, and how long it may wait: one heading and one line."""
    row = review_row(review, datetime.now(UTC))
    st.header(
        f"Review {markdown_literal(short_review(review.id))}", help=f"Full id: {markdown_literal(review.id)}"
    )
    asked = readable_time(review.created_at, zone=reader_zone())
    st.caption(
        f"Asked by **{markdown_literal(review.requester)}** at {markdown_literal(asked)} · "
        f"{time_left(row['seconds_left'])} left · stage {markdown_literal(review.stage)} · "
        f"{len(row['approvals'])} of {review.required_approvals:d} approval(s)"
    )


def review_details(review: Review) -> None:
    """What a reviewer checks beside the proposal, below it: the capability and its
    definition, a held error, the flags, the rule, the ratings, and the full ids."""
    show_definition(review)
    error = (review.payload.get("result") or {}).get("error")
    if review.stage == "untrusted_output" and error:
        st.markdown("**The server's error message** (held: the operator has not seen it)")
        st.code(visible(hidden(str(error.get("message")), review)), language=None)
    show_flags_and_rating(review)
    with st.expander("Details: full ids and link"):
        # A thread's id can be one the operator chose (gatehouse ask --thread).
        ids = f"review {review.id}\nthread {review.thread_id}\nlink   ?review={review.id}"
        st.code(visible(ids), language=None)


def proposal(review: Review) -> tuple[dict[str, Any] | None, EffectBinding | None]:
    """The preview of what approving does (in a box that scrolls by itself) beside the request
    and the arguments' form (below them on a narrow screen): the arguments as the reviewer
    leaves them (None while invalid), and what of the written file the preview showed."""
    payload = review.payload
    # The editor is drawn first (the preview shows what it holds) but sits on the right.
    preview_box, arguments_column = proposal_columns(f"{PREVIEW_KEY}{review.id}")
    with arguments_column:
        st.markdown("**Request**")
        show(hidden(str(payload.get("request") or ""), review))
        st.markdown("**Proposed arguments**")
        # Beside the values: which the operator stated, and which a planner derived (and from what).
        recorded = payload.get("argument_provenance")
        provenance = recorded if isinstance(recorded, dict) else {}
        for name in review.arguments:
            st.markdown(provenance_markdown(name, provenance.get(name), lambda text: hidden(text, review)))
            words = provenance_words(provenance.get(name), lambda text: hidden(text, review))
            if words is not None:
                show(words)
        edited = argument_editor(review)
    with preview_box:
        previewed = show_preview(review, edited if edited is not None else review.arguments)
    return edited, previewed


def show_review(review: Review, user: str) -> None:
    """One review: the decision (or why this person may not decide) and what is decided first,
    on one screen: the buttons, the preview, the request and the arguments; the rest below."""
    # What this review's own request, arguments and result hold is hidden wherever it shows
    # (the thread may have been recalled from an older checkpoint before this request came).
    services().secrets.remember(review.thread_id, review.secret_sources())
    # A click counts on the run it starts only, and only for the review it was made on.
    asked = take_click()
    review_header(review)
    if review.status != "pending":
        show_decided(review)
    if review.stage == SAMPLING_STAGE:
        show_sampling_review(review, user, asked)
        return
    if review.status != "pending":
        st.markdown("**Request**")
        show(hidden(str(review.payload.get("request") or ""), review))
        review_details(review)
        return
    refused = why_not_decide(review, user)
    # The decision (or why there is none) first, right above the preview: both on the first
    # screen of a laptop or a phone. Drawn once the form below has been read (its label follows it).
    bar = st.container()
    if refused is not None:
        bar.info(markdown_literal(refused))
    # The proposal this page shows: a decision is made on it or refused (see decide). It is the
    # one the page showed on the run before a click, not the one read on the click's own run.
    fingerprint_key = f"shown-{review.id}"
    shown = st.session_state.get(fingerprint_key, review.call_hash)
    st.session_state[fingerprint_key] = review.call_hash
    edited, previewed = proposal(review)
    # Likewise the file the preview showed: an approval is bound to what the reviewer saw on
    # the run before the click, and refused if the file is no longer that.
    effect_key = f"shown-effect-{review.id}"
    shown_effect = st.session_state.get(effect_key, previewed)
    st.session_state[effect_key] = previewed
    decision = None
    if refused is None:
        with bar:
            decision = tool_decision_bar(review, edited, asked)
    review_details(review)
    # Under the review, not beside the buttons: the first screen stays the decision and its
    # preview (on a phone too). Read on the click's run as the previous run left it.
    remember = remember_choice(review) if refused is None else None
    if decision is not None:
        # Last, once the whole review is drawn: the page shows it, buttons disabled, while
        # the decision and the call it starts run.
        decide(
            review,
            user,
            approve=decision.approve,
            arguments=decision.arguments,
            reason=decision.reason,
            shown=shown,
            shown_effect=shown_effect,
            remember=remember,
        )


def history_table(reviews: list[Review]) -> None:
    zone = reader_zone()
    st.dataframe(
        visible_in(
            [
                {
                    "status": r.status,
                    "decided by": r.decided_by or "-",
                    "decided at": table_time(r.decided_at, zone),
                    "requester": r.requester,
                    "capability": r.capability_key,
                    "reason": hidden(r.reason or "", r),
                    "effect": effect_word(r.effect_check),
                    "review": short_review(r.id),
                }
                for r in reviews
            ]
        ),
        hide_index=True,
        width="stretch",
    )


def reopen() -> None:
    st.session_state["open_review"] = st.session_state["review_picker"]
    st.query_params["review"] = st.session_state["open_review"]


def review_picker(review: Review, queue: list[Review]) -> None:
    """Which review is open: the one shown, or any on the queue page (a pick draws the page
    again, see live_queue)."""
    by_id = {review.id: review} | {r.id: r for r in queue}
    # The picker follows the session's open review (set before the widget exists).
    st.session_state["review_picker"] = st.session_state["open_review"] = review.id
    st.selectbox(
        "Open review",
        list(by_id),
        key="review_picker",
        on_change=reopen,
        format_func=lambda rid: visible(
            f"{by_id[rid].capability_key} · asked by {by_id[rid].requester} · {short_review(rid)}"
            + ("" if by_id[rid].status == "pending" else f" · {by_id[rid].status}")
        ),
    )


def live_queue(run: int) -> Review | None:
    """The counts, the queue and the picker, read again every few seconds by themselves (a
    fragment: the rest of the page, a half-edited argument form above all, stays as it is).

    The open review is drawn by the page's full run ``run``, from the review returned here.
    A refresh that finds it decided or changed elsewhere, or another one picked, or a first
    one arrived, draws the whole page again (see gatehouse/web/live_queue.follow)."""
    app = services()
    drawn = st.session_state.get("review_drawn")
    # A timed look (not this run's first) shares the process's reads of the last second with
    # every other tab; the page's own run reads afresh (gatehouse/web/live_view.py).
    fresh = drawn is None or drawn.run != run
    pending = pending_count(fresh=fresh)
    # The whole queue; the sidebar counts those waiting on this person (gatehouse/web/waiting_on_you.py).
    st.header(f"Pending ({pending:d})")
    pages = page_count(pending, PAGE_SIZE)
    page = 1
    if pages > 1:
        st.session_state["queue_page"] = min(int(st.session_state.get("queue_page", 1)), pages)
        page = int(
            st.number_input(
                f"Page (of {pages}, oldest first)", min_value=1, max_value=pages, step=1, key="queue_page"
            )
        )
    queue = (
        list(
            shared_looks().look(
                ("queue", page),
                lambda: tuple(app.ledger.queue("pending", limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)),
                fresh=fresh,
            )
        )
        if pending
        else []
    )
    if not queue:
        st.caption("Nothing waits for a decision.")
    review = review_to_show(app.ledger, st.session_state.get("open_review"), queue)
    if review is not None:
        review_picker(review, queue)
    if queue:
        # Folded: open, the table shows every review of the page at once; closed, the open
        # review's decision stays on the first screen however long the queue is.
        with st.expander(f"The queue as a table ({len(queue):d} on this page)"):
            queue_table([review_row(review) for review in queue])
    drawn, redraw = follow(st.session_state.get("review_drawn"), run, review)
    st.session_state["review_drawn"] = drawn
    if redraw:
        st.rerun()
    return review


decision_style()
# The title and the switch share a row (on a phone too): the first screen is the review's.
heading = st.container(horizontal=True, vertical_alignment="center")
heading.title("Reviews", width="content")
user = current_user()
if user is None:
    st.info("Sign in (or pick who you are in the sidebar) to see the queue.")
    st.stop()
app = services()
live = heading.toggle(
    "Live updates",
    value=True,
    key="live_reviews",
    help=f"The queue, both pending counts and the open review's status refresh every "
    f"{REFRESH_SECONDS} s, without touching what you are typing. Off: they change when you act.",
)
if not live:
    # Said on the page, not only by the switch: a reviewer who turned it off in another moment
    # should not take a still queue for an empty one.
    st.caption("Live updates are off: the queue and this review change only when you act.")
notice = st.session_state.pop("review_notice", None)
if notice:
    getattr(st, notice[0])(markdown_literal(notice[1]))
    if notice[2]:
        show(notice[2])
show_effect_notice()

# A link (?review=ID, e.g. from a notification) opens that review, once per link.
open_linked_review(app.ledger)
# The review this session opened stays open once decided (here or elsewhere): the page says
# who decided it instead of moving to another review.
run = st.session_state["reviews_run"] = int(st.session_state.get("reviews_run", 0)) + 1
refreshing = st.fragment(live_queue, run_every=REFRESH_SECONDS if live else None)
opened = refreshing(run)
if opened is not None:
    show_review(opened, user)

grants_section(user)
# Admins only (manage_policy): rules the decisions below support, proposed as policy changes.
suggestions_section(user)
st.header(f"Decided ({app.ledger.count_decided():d})")
history = app.ledger.history(limit=HISTORY_SIZE)
if history:
    show_history_mismatches(history, hidden)
    history_table(history)
    if len(history) == HISTORY_SIZE:
        st.caption(f"The {HISTORY_SIZE} most recent; `gatehouse reviews list --status ...` lists all.")
else:
    st.caption("No review has been decided yet.")

notification_status(app)
