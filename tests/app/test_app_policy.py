"""The Policy page: everyone sees the version in force; an admin proposes a change there, with
the diff checked first; another admin approves it, and the next request is judged by it."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.web.decision_style import FORWARD_KEY
from gatehouse.web.page import services
from tests.app.test_app import app_env, on_page, page_text, session

# The Propose button's key (views/policy.py), styled as a forward action (decision_style).
PROPOSE_KEY = f"{FORWARD_KEY}policy-propose"

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

__all__ = ["app_env"]  # the fixture, imported so pytest finds it here

DENY_EMAIL = """
[[rules]]
name = "no e-mail this week"
match = ["email__*"]
action = "deny"
explanation = "e-mail is paused while the mail relay moves"
"""


def policy_page(user: str) -> AppTest:
    return on_page(session(user), "policy")


def test_an_admin_proposes_on_the_page_and_another_admin_applies_it(app_env: Path) -> None:
    proposer = policy_page("admin")
    text = proposer.text_area(key="policy-text-1")
    text.set_value(f"{text.value}{DENY_EMAIL}")
    proposer.text_input(key="policy-reason-1").set_value("the relay moves")
    proposer.button(key="policy-check").click().run()
    assert '+name = "no e-mail this week"' in [block.value for block in proposer.code][-1]
    proposer.button(key=PROPOSE_KEY).click().run()
    assert not proposer.exception, proposer.exception
    [done] = [block.value for block in proposer.success]
    change = services().policy_changes.changes("pending")[0]
    assert f"change {change.id}" in done
    assert not any(b.key == f"approve-{change.id}" for b in proposer.button), "four-eyes: not the proposer"

    approver = policy_page("admin2")
    approver.button(key=f"approve-{change.id}").click().run()

    assert not approver.exception, approver.exception
    assert "applied as version 2" in approver.success[0].value
    assert "Version **2**" in page_text(approver)
    assert services().policy.policy.rules[-1].name == "no e-mail this week"


def test_an_invalid_policy_is_explained_on_the_page_and_not_proposed(app_env: Path) -> None:
    page = policy_page("admin")
    page.text_area(key="policy-text-1").set_value('[defaults]\naction = "maybe"\n')
    page.text_input(key="policy-reason-1").set_value("oops")
    page.button(key=PROPOSE_KEY).click().run()

    assert "defaults\\.action" in page.error[0].value
    assert services().policy_changes.changes() == []


def test_every_mistake_of_a_checked_policy_is_shown_on_a_line_of_its_own(app_env: Path) -> None:
    page = policy_page("admin")
    page.text_area(key="policy-text-1").set_value(
        '[defaults]\nfour_eyes = "0"\n[policy_changes]\nfour_eyes = "no"\n'
    )
    page.button(key="policy-check").click().run()

    [error] = page.error
    first, second = error.value.split("  \n")
    assert first.startswith("the proposed policy\\: defaults\\.four\\_eyes\\: must be true or false")
    assert second.startswith("the proposed policy\\: policy\\_changes\\.four\\_eyes\\: must be true or false")


def test_people_without_manage_policy_see_the_policy_but_cannot_change_it(app_env: Path) -> None:
    page = policy_page("reviewer")

    assert "Version **1**" in page_text(page)
    assert not [area for area in page.text_area if area.key == "policy-text-1"]
    assert "Changes are proposed by people whose role has `manage_policy`." in [c.value for c in page.caption]
