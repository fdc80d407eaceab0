"""Reviewers: the pending queue, one review in full, a decision, and the history."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import streamlit as st

from gatehouse.review_commands import review_row
from gatehouse.web import current_user, may_review, services
from reviews.errors import AlreadyDecidedError, ReviewError

st.title("Reviews")
user = current_user()
app = services()
if user is None:
    st.info("Sign in (or pick who you are in the sidebar) to see the queue.")
    st.stop()

queue = app.reviews.queue("pending")
now = datetime.now(UTC)
rows = [review_row(review, now) for review in queue]
st.subheader(f"Pending ({len(rows)})")
if rows:
    st.dataframe(
        [
            {
                "id": r["id"],
                "time left (min)": (r["seconds_left"] or 0) // 60,
                "category": r["category"],
                "requester": r["requester"],
                "server": r["server"],
                "capability": r["capability"],
                "flags": ", ".join(r["flags"]),
            }
            for r in rows
        ],
        hide_index=True,
        use_container_width=True,
    )
    chosen = st.selectbox("Open review", [r["id"] for r in rows])
    review = next(r for r in queue if r.id == chosen)
    payload = review.payload
    st.markdown(f"**Request** ({review.requester}): {payload.get('request')}")
    capability = review.capability
    st.markdown(
        f"**Capability** `{capability.get('key')}` — {capability.get('description') or '(no description)'}"
    )
    left, right = st.columns(2)
    with left:
        st.markdown("**Flags**")
        for flag in review.flags:
            st.markdown(f"- **{flag.get('severity')}** `{flag.get('code')}` — {flag.get('message')}")
        st.markdown(f"**Policy**: rule `{payload.get('matched_rule')}` — {payload.get('explanation')}")
        if payload.get("previous_capability"):
            st.markdown("**Definition changed** since it was first seen; before:")
            st.json(payload["previous_capability"])
    with right:
        st.markdown("**Server annotations** (the server's own claims)")
        st.json(capability.get("annotations") or {})
        st.markdown("**Policy rating**: " + "; ".join(payload.get("risk_reasons") or ["low risk"]))
    if capability.get("name") == "send_email":
        args = review.arguments
        st.markdown("**Preview**")
        st.text(
            f"To: {args.get('to')}\nCc: {', '.join(args.get('cc') or [])}\nSubject: {args.get('subject', '(no subject)')}\n\n{args.get('body', '')}"
        )
    edited_text = st.text_area(
        "Arguments (JSON; edit to approve different ones)", json.dumps(review.arguments, indent=2)
    )
    reason = st.text_input("Reason (required to reject)")
    if not may_review(user):
        st.caption(f"{user} may not review; the buttons are hidden.")
    else:
        approve, edit, reject = st.columns(3)
        action = None
        if approve.button("Approve", type="primary"):
            action = ("approve", None)
        if edit.button("Edit & approve"):
            try:
                action = ("approve", json.loads(edited_text))
            except json.JSONDecodeError as exc:
                st.error(f"The arguments are not valid JSON: {exc.msg} at line {exc.lineno}")
        if reject.button("Reject"):
            action = ("reject", None)
        if action is not None:
            try:
                result = app.reviews.decide(
                    chosen,
                    reviewer=user,
                    approve=action[0] == "approve",
                    reason=reason or None,
                    arguments=action[1],
                )
            except AlreadyDecidedError as exc:
                st.warning(str(exc))
            except ReviewError as exc:
                st.error(str(exc))
            else:
                if result.run is None:
                    st.success(f"Approval recorded ({result.approvals} of {result.required}).")
                else:
                    st.success(f"{result.review.status}: {result.run.final_output.response}")
else:
    st.caption("Nothing waits for a decision.")

st.subheader("Decided")
decided = [r for r in app.ledger.queue() if r.status != "pending"][-50:]
if decided:
    st.dataframe(
        [
            {
                "id": r.id,
                "status": r.status,
                "by": r.decided_by,
                "at": r.decided_at,
                "capability": r.capability_key,
            }
            for r in reversed(decided)
        ],
        hide_index=True,
        use_container_width=True,
    )
