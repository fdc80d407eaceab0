"""Policy: the policy in force, its versions, and changes to it (reviews/policy_changes.py).

Everyone sees which version decides their calls and where it came from. People whose role
may manage the policy (``manage_policy``) propose a new text here, checked as `gatehouse
policy check` checks a file, with the diff to the version in force; another of them approves
or rejects it (four-eyes, as ``[policy_changes] four_eyes`` says). An approved change is the
policy on every replica within seconds. The service checks every permission; this page only
hides the buttons a person may not use.

Reasons and names are typed by people: shown as literal text, never as Markdown.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from gatehouse.display.visible_text import visible, visible_in
from gatehouse.web.decision_style import APPROVE_KEY, FORWARD_KEY, REJECT_KEY, decision_style
from gatehouse.web.literal import markdown_lines, markdown_literal, show
from gatehouse.web.page import current_user, may_manage_policy, services
from mcp_host.reported import ReportedError
from reviews.policy_changes import Applied, PolicyChange, PolicyChanges, unified_diff

# What the last action on this page did, shown once after the rerun it causes.
_DONE = "policy_page_done"
# Keyed for decision_style: applying a change reads as approving does on the Reviews page
# (green), rejecting as rejecting does, proposing as a forward action (not the theme's red).
PROPOSE_KEY = f"{FORWARD_KEY}policy-propose"


def changes() -> PolicyChanges:
    return services().policy_changes


def in_force() -> None:
    version = changes().current()
    st.header("In force")
    st.markdown(
        f"Version **{int(version.seq)}** · {markdown_literal(version.short)} · from {markdown_literal(version.origin)}"
        f" · {markdown_literal(version.recorded_at)}"
    )
    with st.expander("The policy's text"):
        st.code(visible(version.text), language="toml", wrap_lines=True)


def proposal_form(user: str) -> None:
    current = changes().current()
    st.header("Propose a change")
    st.caption(
        "Edit the whole policy below. It is checked as `gatehouse policy check` checks a file; "
        "another admin sees the diff and approves it before it applies."
    )
    # Keyed by the version: once another change applies, the editor starts from the new text.
    text = st.text_area("The new policy", value=current.text, height=420, key=f"policy-text-{current.seq}")
    reason = st.text_input("Why (the approver reads it)", key=f"policy-reason-{current.seq}")
    check, propose = st.columns(2)
    if check.button("Check", key="policy-check"):
        checked(text)
    if propose.button("Propose", type="primary", key=PROPOSE_KEY):
        try:
            change = changes().propose(text, by=user, reason=reason)
        except ReportedError as exc:
            st.error(markdown_lines(exc.lines))
        else:
            st.session_state[_DONE] = (
                f"Proposed as change {change.id}: it waits for another admin's approval."
            )
            st.rerun()


def checked(text: str) -> None:
    try:
        policy = changes().check(text)
    except ReportedError as exc:
        st.error(markdown_lines(exc.lines))
        return
    st.success(f"Valid: {len(policy.rules)} rules, {len(policy.users)} people in the roster.")
    diff = _diff_to_current(text)
    if diff:
        st.code(visible(diff), language="diff", wrap_lines=True)
    else:
        st.info("It is the policy in force: nothing would change.")


def _diff_to_current(text: str) -> str:
    current = changes().current()
    return unified_diff(current.text, text, old_name=f"policy version {current.seq}", new_name="proposed")


def pending_change(change: PolicyChange, user: str | None, manager: bool) -> None:
    with st.container(border=True):
        st.markdown(
            f"**Change {markdown_literal(change.id)}** by {markdown_literal(change.proposed_by)}"
            f" · {markdown_literal(change.proposed_at)} · on version {int(change.base_seq)}"
        )
        show(change.reason)
        st.code(visible(changes().diff(change)), language="diff", wrap_lines=True)
        if not manager or user is None:
            st.caption("Only a role with `manage_policy` approves or rejects policy changes.")
            return
        own = user == change.proposed_by
        if own and services().policy.policy.policy_changes.four_eyes:
            st.caption("Another admin approves it (four-eyes).")
        approve_or_reject(change, user, own=own)


def approve_or_reject(change: PolicyChange, user: str, *, own: bool) -> None:
    approve, reject, withdraw = st.columns(3)
    may_approve = not (own and services().policy.policy.policy_changes.four_eyes)
    if may_approve and approve.button("Approve and apply", type="primary", key=f"{APPROVE_KEY}{change.id}"):
        _act(lambda: _applied_message(changes().approve(change.id, by=user)))
    if own:
        if withdraw.button("Withdraw", key=f"withdraw-{change.id}"):
            _act(lambda: f"Change {changes().withdraw(change.id, by=user).id} withdrawn.")
        return
    reason = reject.text_input("Why not", key=f"reject-reason-{change.id}")
    if reject.button("Reject", key=f"{REJECT_KEY}{change.id}"):
        _act(lambda: f"Change {changes().reject(change.id, by=user, reason=reason).id} rejected.")


def _applied_message(applied: Applied) -> str:
    superseded = (
        f" Superseded (propose again on the new version): {', '.join(applied.superseded)}."
        if applied.superseded
        else ""
    )
    return (
        f"Change {applied.change.id} applied as version {applied.version.seq}: every replica adopts it"
        f" within seconds. Policy file: {applied.file_note}.{superseded}"
    )


def _act(action: Callable[[], str]) -> None:
    try:
        message = action()
    except ReportedError as exc:
        st.error(markdown_lines(exc.lines))
        return
    st.session_state[_DONE] = message
    st.rerun()


def history() -> None:
    st.header("History")
    versions = changes().versions.history()
    rows = [
        {"version": v.seq, "hash": v.short, "from": v.origin, "recorded": v.recorded_at} for v in versions
    ]
    st.dataframe(visible_in(rows), hide_index=True)
    decided = [
        {
            "change": c.id,
            "status": c.status,
            "proposed by": c.proposed_by,
            "reason": c.reason,
            "decided by": c.decided_by or "",
            "why": c.decision_reason or "",
        }
        for c in changes().changes()
        if c.status != "pending"
    ]
    if decided:
        st.dataframe(visible_in(decided), hide_index=True)


def main() -> None:
    decision_style()
    st.title("Policy")
    user = current_user()
    manager = may_manage_policy(user)
    done = st.session_state.pop(_DONE, None)
    if done:
        st.success(markdown_literal(done))
    in_force()
    pending = changes().changes("pending")
    st.header(f"Waiting for approval ({len(pending)})")
    if not pending:
        st.caption("No change is waiting.")
    for change in pending:
        pending_change(change, user, manager)
    if manager and user is not None:
        proposal_form(user)
    else:
        st.caption("Changes are proposed by people whose role has `manage_policy`.")
    history()


main()
