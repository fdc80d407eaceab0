"""What one scenario of the conformance suite came to, whichever side it tested."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    scenario: str
    passed_checks: int
    checks: int
    failed_checks: int
    seconds: float
    detail: str
    # The ids of the checks that failed and passed, where the suite's report names them.
    failed_ids: tuple[str, ...] = ()
    passed_ids: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        # A scenario that exercised nothing reports 0/0 and "PASSED": that is no pass.
        return self.checks > 0 and self.failed_checks == 0
