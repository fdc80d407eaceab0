"""The Reviews page's "Suggested rules" section, for people whose role may manage the policy:
the rules reviewers' decisions support (reviews/suggestions.py, `gatehouse policy suggest`),
each with its evidence and its replay over the recorded history, and a button proposing one
as a policy change that another admin approves on the Policy page.

Listing reads every decision of the window (about a second over 10,000 decisions, figure 13 of
docs/benchmark.md), so a listing is kept for the session and read again only when the window,
the policy in force or the number of decided reviews changes, after a proposal, or once it is
a minute old: the Reviews page reruns on every click, and the queue's work must stay quick.

Capability names, argument names and bounds come from the ledger, which servers and requesters
fill: shown as literal text (gatehouse/web/literal.py), the rule's TOML in a code block.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import streamlit as st

from gatehouse.display.visible_text import visible
from gatehouse.web.decision_style import FORWARD_KEY
from gatehouse.web.literal import markdown_literal, name_literal
from gatehouse.web.page import may_manage_policy, services
from mcp_host.reported import ReportedError
from reviews.suggestions import proposed_in

SUGGESTIONS_HEADER = "Suggested rules"
PROPOSE_LABEL = "Propose as policy change"
DAYS_KEY = "suggest-days"
MIN_DECISIONS_KEY = "suggest-min-decisions"
POLICY_PAGE = "views/policy.py"
# How long a listing stands when nothing it depends on has changed: a replay's failed and
# outcome-unknown counts move when a call ends, which changes no count the key holds.
FRESH_SECONDS = 60.0
# What the last proposal did (kind, message), shown once at the top of the section.
_NOTICE = "suggestion_notice"
_LISTING = "suggestion_listing"


def propose_key(number: int) -> str:
    # A forward action (decision_style): proposing decides nothing, so never the theme's red.
    return f"{FORWARD_KEY}suggest-{number}"


@dataclass(frozen=True)
class Listing:
    """One listing of the suggestions, and what it was read for."""

    # (days, min_decisions, the policy version, how many reviews were decided)
    asked: tuple[int, int, int, int]
    read_at: float
    reports: tuple[dict[str, Any], ...]


def suggestions_section(user: str) -> None:
    """The section, for a person who may manage the policy; nothing at all for anyone else
    (the service refuses them a proposal in any case)."""
    if not may_manage_policy(user):
        return
    app = services()
    settings = app.settings
    notice = st.session_state.pop(_NOTICE, None)
    # The heading counts the suggestions, read for the window chosen under it: drawn last, above.
    heading = st.empty()
    st.caption(
        "Rules reviewers' decisions support, each replayed over the decisions of the window. "
        "Proposing one asks for a policy change with that rule added: another admin approves it "
        "on the Policy page before it applies."
    )
    days, min_decisions = _window(settings.suggest_days, settings.suggest_min_decisions)
    _notice(notice)
    try:
        reports = _listing(days, min_decisions)
    except ReportedError as exc:
        heading.header(SUGGESTIONS_HEADER)
        st.error(markdown_literal(f"The suggestions cannot be listed: {exc.message}"))
        return
    heading.header(f"{SUGGESTIONS_HEADER} ({len(reports):d})")
    if not reports:
        st.caption(
            f"No suggestions: no capability has {min_decisions:d} or more decisions all one way"
            f" in the last {days:d} days."
        )
        return
    pending = app.policy_changes.changes("pending")
    for report in reports:
        change = proposed_in(str(report["rule"]), pending)
        with st.container(border=True, key=f"suggestion-{report['number']}"):
            _suggestion(report)
            if report.get("in_force"):
                st.caption(
                    markdown_literal(
                        f"Already in force as rule {report['in_force']} of the policy: nothing to propose."
                    )
                )
            elif report.get("not_adoptable"):
                st.caption(markdown_literal(f"Not adoptable: {report['not_adoptable']}"))
            elif change is not None:
                st.caption(
                    markdown_literal(
                        f"Proposed as policy change {change.id} by {change.proposed_by}:"
                        " pending until another admin approves it on the Policy page."
                    )
                )
            else:
                # A callback, given the suggestion as this run shows it: the click proposes
                # what the person read, before the next run lists anything afresh.
                st.button(
                    PROPOSE_LABEL,
                    key=propose_key(int(report["number"])),
                    on_click=_propose,
                    args=(report, user, days, min_decisions),
                )


def _window(default_days: int, default_min_decisions: int) -> tuple[int, int]:
    days, decisions = st.columns(2)
    chosen_days = days.number_input(
        "Days of decisions",
        min_value=1,
        max_value=max(3650, default_days),
        value=default_days,
        step=1,
        key=DAYS_KEY,
        help="How far back the decisions are read (GATEHOUSE_SUGGEST_DAYS sets the default).",
    )
    chosen_decisions = decisions.number_input(
        "Decisions needed per capability",
        min_value=1,
        max_value=max(100_000, default_min_decisions),
        value=default_min_decisions,
        step=1,
        key=MIN_DECISIONS_KEY,
        help="A rule is suggested only for a capability with this many decisions, all one way"
        " (GATEHOUSE_SUGGEST_MIN_DECISIONS sets the default).",
    )
    return int(chosen_days), int(chosen_decisions)


def _listing(days: int, min_decisions: int) -> tuple[dict[str, Any], ...]:
    """The suggestions' reports: this session's listing while it stands, else read now."""
    app = services()
    asked = (days, min_decisions, int(app.policy_changes.current().seq), app.ledger.count_decided())
    kept = st.session_state.get(_LISTING)
    if isinstance(kept, Listing) and kept.asked == asked and time.monotonic() - kept.read_at < FRESH_SECONDS:
        return kept.reports
    found = app.suggestions.suggest(days=days, min_decisions=min_decisions)
    reports = tuple(suggestion.report() for suggestion in found)
    st.session_state[_LISTING] = Listing(asked, time.monotonic(), reports)
    return reports


def _suggestion(report: dict[str, Any]) -> None:
    evidence, replay = report["evidence"], report["replay"]
    st.markdown(
        f"**{int(report['number'])}.** {name_literal(str(report['kind']))} {name_literal(str(report['capability']))}"
    )
    st.markdown(
        markdown_literal(
            f"Evidence: {evidence['decisions']} decisions ({evidence['approved_unchanged']} approved"
            f" unchanged, {evidence['edited']} edited, {evidence['rejected']} rejected)"
        )
    )
    st.markdown(
        markdown_literal(
            f"Replay: would decide {replay['would_decide']} calls; {replay['rejected']} rejected,"
            f" {replay['edited']} edited, {replay['failed']} failed,"
            f" {replay['outcome_unknown']} outcome unknown"
        )
    )
    if evidence["bounds"]:
        st.markdown(markdown_literal(f"Bounds: {evidence['bounds']}"))
    if evidence["unbounded_arguments"]:
        st.markdown(
            markdown_literal(
                f"Left free (read these before adopting it): {', '.join(map(str, evidence['unbounded_arguments']))}"
            )
        )
    if report.get("outranked_by"):
        st.markdown(
            markdown_literal(
                "No effect while these rules of the policy outrank it: "
                + ", ".join(map(str, report["outranked_by"]))
            )
        )
    if report.get("narrows"):
        st.markdown(markdown_literal(f"Narrows these rules of the policy: {_words(report['narrows'])}"))
    st.code(visible(str(report["rule"])), language="toml", wrap_lines=True)


def _words(value: object) -> str:
    """A report's value as one line of words: a list's items joined, a table's keys named."""
    if isinstance(value, dict):
        return "; ".join(f"{key}: {_words(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_words(item) for item in value)
    return str(value)


def _propose(report: dict[str, Any], user: str, days: int, min_decisions: int) -> None:
    """Propose the suggestion the page showed (refused if the listing has moved on since); the
    run the click starts shows the outcome at the top of the section, and lists afresh."""
    number = int(report["number"])
    try:
        _, change = services().suggestions.propose(
            number, by=user, days=days, min_decisions=min_decisions, shown_rule=str(report["rule"])
        )
    except ReportedError as exc:
        st.session_state[_NOTICE] = ("error", f"Suggestion {number} was not proposed: {exc.message}")
    else:
        st.session_state[_NOTICE] = (
            "success",
            f"Proposed as policy change {change.id}: it is {change.status}, and applies once another"
            " admin approves it on the Policy page.",
        )
    st.session_state.pop(_LISTING, None)


def _notice(notice: tuple[str, str] | None) -> None:
    if notice is None:
        return
    kind, message = notice
    getattr(st, kind)(markdown_literal(message))
    if kind == "success":
        st.page_link(POLICY_PAGE, label="Open the Policy page", icon=":material/policy:")
