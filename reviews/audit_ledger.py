"""The decisions the audit log records, held against the ledger's (reviews/ledger.py).

Both are written in one transaction (storage/transactions.py), so they agree: every decision
in `review_decisions` has one `decision` event with the same review, reviewer and action, and
a review the ledger says a decision settled names as its decider someone whose decision on it
is recorded. A row changed on one side only (who decided, or what they decided) shows here,
with or without an audit key; changing both sides consistently takes rewriting the audit
chain, which only the keyed chain (or an anchor) shows.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from storage.database import Connection

# Statuses a review reaches only through a decision (ReviewLedger.record_decision and after).
_SETTLED_BY_DECISION = ("approved", "rejected", "executed", "failed", "outcome_unknown", "not_run")

# One statement: one snapshot of both sides, so a decision committed while verify reads (with
# its event, in one transaction) is seen on both sides or neither.
_BOTH_SIDES = f"""
SELECT 'audit' AS side, seq, review_id, actor AS who, data AS what FROM audit_log WHERE kind = 'decision'
UNION ALL
SELECT 'ledger', NULL, review_id, reviewer, action FROM review_decisions
UNION ALL
SELECT 'settled', NULL, id, decided_by, status FROM reviews
  WHERE status IN ({", ".join(f"'{status}'" for status in _SETTLED_BY_DECISION)})"""

_Decision = tuple[str | None, str | None, str | None]  # review id, who, action


def decision_problems(conn: Connection) -> list[str]:
    """Where the audit log's decisions and the ledger's differ, naming the row or the review;
    nothing when the database has no ledger (an audit log on its own)."""
    has_ledger = conn.execute("SELECT 1 FROM gatehouse_schema WHERE store = 'ledger'").fetchone()
    if has_ledger is None:
        return []
    rows = conn.execute(_BOTH_SIDES).fetchall()
    audited: list[tuple[int, _Decision]] = []
    recorded: Counter[_Decision] = Counter()
    settled: list[tuple[str, str | None, str]] = []
    for row in rows:
        if row["side"] == "audit":
            audited.append((row["seq"], (row["review_id"], row["who"], _action(row["what"]))))
        elif row["side"] == "ledger":
            recorded[(row["review_id"], row["who"], row["what"])] += 1
        else:
            settled.append((row["review_id"], row["who"], row["what"]))
    return _unmatched(audited, recorded) + _unsettled(settled, recorded)


def _action(data: str) -> str | None:
    try:
        value: Any = json.loads(data)
    except ValueError:
        return None
    action = value.get("action") if isinstance(value, dict) else None
    return action if isinstance(action, str) else None


def _unmatched(audited: list[tuple[int, _Decision]], recorded: Counter[_Decision]) -> list[str]:
    left = Counter(recorded)
    problems: list[str] = []
    for seq, decision in audited:
        if left[decision] > 0:
            left[decision] -= 1
            continue
        review_id, who, action = decision
        problems.append(
            f"row {seq} records {who!r} deciding review {review_id} ({action}), but the ledger holds"
            " no such decision (the audit row or the ledger was changed)"
        )
    for (review_id, who, action), count in sorted(left.items(), key=str):
        problems += [
            f"the ledger holds {who!r} deciding review {review_id} ({action}), but no decision"
            " event in the audit log records it (the ledger or the audit row was changed)"
        ] * count
    return problems


def _unsettled(settled: list[tuple[str, str | None, str]], recorded: Counter[_Decision]) -> list[str]:
    problems: list[str] = []
    for review_id, who, status in settled:
        action = "reject" if status == "rejected" else "approve"
        if recorded[(review_id, who, action)] == 0:
            problems.append(
                f"the ledger says review {review_id} was settled ({status}) by {who!r}, whose"
                f" decision to {action} it the ledger's decisions do not hold (the ledger was changed)"
            )
    return problems
