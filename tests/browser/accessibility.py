"""axe-core in the browser tests: a page's accessibility checked as a screen reader's user meets it.

axe-core (pinned in peers/package.json, installed into .peers/npm by `make peers`) is injected
into the Playwright page and run over the whole document with every rule it ships: none is
turned off here, so a rule that fires is fixed in the app, not silenced. Serious and critical
violations fail the test with one readable line per violation (rule, impact, element, what is
wrong); moderate and minor ones are reported beside it, not failed on.

Without axe-core (npm missing when the peers were built) the check skips with the reason, or
fails when GATEHOUSE_REQUIRE_PEERS=1 or GATEHOUSE_REQUIRE_BROWSER=1 says it must run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.harness import ROOT, wait_for_app

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE_SCRIPT = ROOT / ".peers" / "npm" / "node_modules" / "axe-core" / "axe.min.js"
REQUIRED_BY = ("GATEHOUSE_REQUIRE_PEERS", "GATEHOUSE_REQUIRE_BROWSER")
BLOCKING = ("critical", "serious")
# Each violation lists at most this many of its elements: the first few say where to look.
TARGETS_SHOWN = 5
# A live view (the sidebar's pending count, the review queue) redraws itself every few seconds,
# and Streamlit dims what it is redrawing for a moment: axe running then measures a faded
# colour nobody reads. So a page is checked again once its run has finished, this many times
# in all, before a violation counts: one that is really there is there every time.
CHECKS = 3

# The whole document, every rule axe ships (no runOnly, no rules option): only the result types
# are narrowed, which changes what comes back, not what is checked.
_RUN = """async () => {
    const results = await axe.run(document, { resultTypes: ["violations"] });
    return results.violations.map(v => ({
        rule: v.id,
        impact: v.impact || "unknown",
        help: v.help,
        nodes: v.nodes.map(n => ({
            target: n.target.map(t => Array.isArray(t) ? t.join(" >>> ") : String(t)).join(" "),
            summary: (n.failureSummary || "").replace(/\\s+/g, " ").trim(),
        })),
    }));
}"""


@dataclass(frozen=True)
class Violation:
    rule: str  # axe's rule id: color-contrast, heading-order, ...
    impact: str  # critical, serious, moderate, minor
    help: str  # what the rule asks for, in one line
    nodes: list[dict[str, str]]  # each element: its CSS target and axe's summary of the failure

    def describe(self) -> str:
        lines = [f"{self.rule} ({self.impact}): {self.help} - {len(self.nodes)} element(s)"]
        for node in self.nodes[:TARGETS_SHOWN]:
            lines.append(f"    {node['target']}: {node['summary']}")
        if len(self.nodes) > TARGETS_SHOWN:
            lines.append(f"    ... and {len(self.nodes) - TARGETS_SHOWN} more")
        return "\n".join(lines)


def axe_required() -> bool:
    return any(os.environ.get(variable) == "1" for variable in REQUIRED_BY)


def axe_source() -> str:
    """axe.min.js, or skip the test (fail it when axe is required) saying how to get it."""
    if not AXE_SCRIPT.is_file():
        reason = (
            f"axe-core is not installed ({AXE_SCRIPT.relative_to(ROOT)} is missing): "
            "run `make peers` (it needs npm)"
        )
        if axe_required():
            pytest.fail(f"{reason}; {' or '.join(REQUIRED_BY)}=1 requires it", pytrace=False)
        pytest.skip(reason)
    return AXE_SCRIPT.read_text(encoding="utf-8")


def axe_violations(page: Page) -> list[Violation]:
    """Every violation axe finds on the page as it is now (after the app's run has finished)."""
    wait_for_app(page)
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=axe_source())
    found: list[dict[str, Any]] = page.evaluate(_RUN)
    return [Violation(v["rule"], v["impact"], v["help"], v["nodes"]) for v in found]


def expect_accessible(page: Page, where: str) -> list[Violation]:
    """Fail when axe finds a serious or critical violation on ``page`` (``where`` names the
    page and its state in the message). Returns every violation of the last check, the lesser
    ones included, for the caller to hold the page to more."""
    for _ in range(CHECKS):
        violations = axe_violations(page)
        blocking = [v for v in violations if v.impact in BLOCKING]
        if not blocking:
            return violations
    others = [v for v in violations if v.impact not in BLOCKING]
    report = "\n".join(v.describe() for v in blocking)
    also = f"\n(also {len(others)} moderate or minor: {', '.join(v.rule for v in others)})" if others else ""
    pytest.fail(
        f"axe-core: {len(blocking)} serious or critical violation(s) on {where}:\n{report}{also}",
        pytrace=False,
    )
