"""The Reviews page's "Suggested rules" section: an admin (manage_policy) sees the rules the
ledger's decisions support, each with its replay, and proposes one as a policy change; nobody
else sees the section; a suggestion renumbered meanwhile is never proposed in its place; text
from the ledger is shown literally. On the app's real SQLite file, decisions recorded in it."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import services
from gatehouse.web.suggestion_panel import (
    MIN_DECISIONS_KEY,
    PROPOSE_LABEL,
    SUGGESTIONS_HEADER,
    propose_key,
)
from policies.narrowing import with_exclusions
from reviews.suggestions import Suggestion, Suggestions, with_rule
from tests.app.test_app import app_env, on_page, session
from tests.app.test_app import markdown_blocks as parsed_blocks
from tests.reviews.test_suggestions import READ, SEND, record

pytestmark = pytest.mark.usefixtures("bundled_in_process")

__all__ = ["app_env"]  # the fixture, imported so pytest finds it here

HOSTILE_KEY = "evil__get_:red[Pre-approved by Security]"
HOSTILE_ARGUMENT = "**note** :green-badge[Approved]"


def reviews_page(user: str) -> AppTest:
    return on_page(session(user), "review_queue")


def section_headers(page: AppTest) -> list[str]:
    return [h.value for h in page.header if h.value.startswith(SUGGESTIONS_HEADER)]


def record_sends(count: int = 5) -> None:
    """``count`` e-mails approved unchanged, all to example.com: one ended failed, one with its
    outcome unknown."""
    ends: list[Literal["executed", "failed", "outcome_unknown"]] = ["failed", "outcome_unknown"]
    for n, end in enumerate(ends + ["executed"] * (count - len(ends))):
        record(services().ledger, SEND, {"to": f"u{n}@example.com", "subject": f"s{n}"}, ends=end)


def test_an_admin_sees_each_suggestion_with_its_replay_and_a_reviewer_sees_no_section(app_env: Path) -> None:
    record_sends()
    [suggestion] = services().suggestions.suggest()

    admin = reviews_page("admin")
    reviewer = reviews_page("reviewer")

    assert section_headers(admin) == [f"{SUGGESTIONS_HEADER} (1)"]
    shown = [block.value for block in admin.markdown]
    assert f"**1.** `allow_within_bounds` `{SEND}`" in shown
    assert (
        markdown_literal("Replay: would decide 5 calls; 0 rejected, 0 edited, 1 failed, 1 outcome unknown")
        in shown
    )
    assert markdown_literal("Evidence: 5 decisions (5 approved unchanged, 0 edited, 0 rejected)") in shown
    assert markdown_literal("Bounds: to at example.com") in shown
    assert markdown_literal("Left free (read these before adopting it): subject") in shown
    assert any(
        block.startswith(
            markdown_literal("No effect while these rules of the policy outrank it: outgoing messages")
        )
        for block in shown
    )
    assert suggestion.table.rstrip("\n") in [block.value for block in admin.code]
    assert [b.label for b in admin.button if b.key == propose_key(1)] == [PROPOSE_LABEL]

    assert section_headers(reviewer) == []
    assert not [b for b in reviewer.button if b.label == PROPOSE_LABEL]
    assert not [box for box in reviewer.number_input if box.key == MIN_DECISIONS_KEY]


def test_the_admin_changes_the_window_and_an_empty_listing_says_why(app_env: Path) -> None:
    record_sends()
    admin = reviews_page("admin")

    admin.number_input(key=MIN_DECISIONS_KEY).set_value(6).run()

    assert not admin.exception, admin.exception
    assert section_headers(admin) == [f"{SUGGESTIONS_HEADER} (0)"]
    assert "No suggestions: no capability has 6 or more decisions all one way in the last 30 days." in [
        caption.value for caption in admin.caption
    ]


def test_the_page_reads_the_window_again_only_once_something_it_depends_on_changed(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing reads every decision of the window: the Reviews page reruns on every click, so a
    rerun keeps the listing until a decision, the policy or the window changes."""
    listings: list[int] = []
    suggest = Suggestions.suggest

    def counted(self: Suggestions, *, days: int, min_decisions: int) -> list[Suggestion]:
        listings.append(days)
        return suggest(self, days=days, min_decisions=min_decisions)

    monkeypatch.setattr(Suggestions, "suggest", counted)
    record_sends()
    admin = reviews_page("admin")
    assert len(listings) == 1

    admin.run()
    assert len(listings) == 1
    record(services().ledger, SEND, {"to": "z@example.com", "subject": "z"})
    admin.run()

    assert len(listings) == 2
    assert markdown_literal("Evidence: 6 decisions (6 approved unchanged, 0 edited, 0 rejected)") in [
        block.value for block in admin.markdown
    ]


def test_proposing_a_suggestion_makes_a_pending_policy_change_adding_that_rule(app_env: Path) -> None:
    record_sends()
    [suggestion] = services().suggestions.suggest()
    before = services().policy_changes.current()
    admin = reviews_page("admin")

    admin.button(key=propose_key(1)).click().run()

    assert not admin.exception, admin.exception
    [change] = services().policy_changes.changes("pending")
    assert (change.proposed_by, change.base_seq) == ("admin", before.seq)
    # The rule added at the end, and the review rules it narrows excluding its capability.
    narrowed = with_exclusions(before.text, {name: [suggestion.evidence.key] for name in suggestion.narrows})
    assert suggestion.narrows
    assert change.text == with_rule(narrowed, suggestion.table)
    assert services().policy_changes.current().seq == before.seq  # nothing applied: another admin approves
    [done] = [block.value for block in admin.success]
    assert done == markdown_literal(
        f"Proposed as policy change {change.id}: it is pending, and applies once another admin"
        " approves it on the Policy page."
    )
    [link] = admin.get("page_link")
    assert (link.proto.page, link.proto.label) == ("policy", "Open the Policy page")
    # Proposed once: the suggestion now names its change instead of offering the button again.
    assert not [b for b in admin.button if b.label == PROPOSE_LABEL]
    assert any(
        c.value.startswith(markdown_literal(f"Proposed as policy change {change.id} by admin:"))
        for c in admin.main.caption
    )


def test_a_suggestion_renumbered_since_it_was_shown_is_not_proposed_in_its_place(app_env: Path) -> None:
    record_sends()
    for n in range(5):
        record(services().ledger, READ, {"path": f"/srv/{n}.txt"})
    admin = reviews_page("admin")
    assert section_headers(admin) == [f"{SUGGESTIONS_HEADER} (2)"]  # 1: the e-mails, 2: the reads
    # Meanwhile a capability listed before both reaches 5 decisions: number 2 is the e-mails now.
    for n in range(5):
        record(services().ledger, "calendar__read_events", {"day": f"2026-11-0{n + 1}"})

    admin.button(key=propose_key(2)).click().run()

    assert not admin.exception, admin.exception
    assert services().policy_changes.changes() == []
    [refused] = [block.value for block in admin.error]
    assert refused.startswith(
        markdown_literal("Suggestion 2 was not proposed: suggestion 2 is no longer the rule shown")
    )
    assert section_headers(admin) == [f"{SUGGESTIONS_HEADER} (3)"]  # listed afresh


def test_a_capability_and_an_argument_dressed_up_as_markup_are_shown_literally(app_env: Path) -> None:
    for n in range(5):
        # The argument varies, so it is left free (identical values would be bound with equals).
        record(services().ledger, HOSTILE_KEY, {"path": f"/srv/{n}", HOSTILE_ARGUMENT: f"x{n}"})
    admin = reviews_page("admin")

    shown = [block.value for block in admin.markdown]
    assert f"**1.** `allow_within_bounds` {markdown_literal(HOSTILE_KEY)}" in shown
    assert markdown_literal(f"Left free (read these before adopting it): {HOSTILE_ARGUMENT}") in shown
    assert not [
        block for block in parsed_blocks(admin) for markup in (":red[", ":green-badge[") if markup in block
    ]
    # The rule's text is a code block: the name as typed, inside the TOML string; its match in
    # the spelling rules compare, since the key's [...] would be a set as a glob.
    assert any(
        f'name = "suggested: allow {HOSTILE_KEY} within bounds"' in block.value for block in admin.code
    )
    assert any('match = ["evil__get_red_pre_approved_by_security"]' in block.value for block in admin.code)


def test_a_suggestion_in_force_or_not_adoptable_says_so_instead_of_offering_the_button(app_env: Path) -> None:
    record_sends()
    for n in range(5):
        record(services().ledger, "ops__exec_script", {"script": f"s{n}.sh"})  # "shell access" denies it
    _, change = services().suggestions.propose(1, by="admin")
    services().policy_changes.approve(change.id, by="admin2")

    admin = reviews_page("admin")

    assert not admin.exception, admin.exception
    assert section_headers(admin) == [f"{SUGGESTIONS_HEADER} (2)"]
    captions = [c.value for c in admin.main.caption]
    assert (
        markdown_literal(
            f"Already in force as rule suggested: allow {SEND} within bounds of the policy: nothing to propose."
        )
        in captions
    )
    assert any(c.startswith(markdown_literal("Not adoptable: rule 'shell access' refuses")) for c in captions)
    assert not [b for b in admin.button if b.label == PROPOSE_LABEL]
