"""`gatehouse audit verify [--anchor ANCHOR_OR_FILE]` and `audit anchor [--append FILE]`:
the chain checked, against anchors kept outside the database when given; the chain's head
signed for keeping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reviews.audit import ChainCheck
from reviews.audit_anchor import Anchor, anchor_problems, append_anchor, make_anchor
from reviews.clock import Clock, iso, utc_now


def verify_report(chain: ChainCheck, anchors: list[Anchor] | None = None) -> dict[str, Any]:
    """``problems``: tampering found (exit 1). ``unverified``: rows chained with a key not given,
    so not checked (exit 2 when nothing else is wrong). ``warnings``: what the check cannot
    detect (without a key, a rewrite with every later hash recomputed)."""
    problems = chain.report.problems + (anchor_problems(chain, anchors) if anchors else [])
    unverified = chain.report.unverified
    report: dict[str, Any] = {
        "ok": not problems and not unverified,
        "events": chain.report.events,
        "problems": problems,
        "unverified": unverified,
        "warnings": chain.report.warnings,
    }
    if anchors is not None:
        report["anchors"] = len(anchors)
    return report


def render_verify(report: dict[str, Any]) -> str:
    lines = [f"  {line}" for line in report["problems"] + report["unverified"]]
    if report["problems"]:
        head = "audit log TAMPERED:"
    elif report["unverified"]:
        head = "audit log NOT VERIFIED (a key is missing):"
    else:
        held = ""
        if report.get("anchors"):
            count = report["anchors"]
            held = f"; {count} anchor holds" if count == 1 else f"; {count} anchors hold"
        head = f"audit log ok: {report['events']} events, chain intact{held}"
    warnings = [f"warning: {warning}" for warning in report["warnings"]]
    return "\n".join([head, *lines, *warnings])


def anchor_head(chain: ChainCheck, *, key: bytes, append: Path | None, clock: Clock = utc_now) -> Anchor:
    """The chain's last row signed, and appended to ``append`` when given. Only an intact chain
    is anchored (the caller checks): signing a tampered log would vouch for the tampering."""
    anchor = make_anchor(chain, at=iso(clock()), key=key)
    if append is not None:
        append_anchor(append, anchor)
    return anchor
