"""`gatehouse eval FILE`: a team's own requests (the benchmark's case format, docs/eval.md)
through `gatehouse ask` on the team's own servers and policy, scored and reported exactly as
`make eval` is (eval/asking.py, eval/report.py).

It never writes to the team's database: every case runs on a temporary SQLite file, deleted
when the run ends (the checkpoints, the reviews its writes wait in, the audit log). Everything
else is the team's: the servers file (--servers or GATEHOUSE_SERVERS, else the bundled ones),
the policy (--policy or GATEHOUSE_POLICY, else the shipped one), the data folder
(GATEHOUSE_DATA) and the planner (GATEHOUSE_MODEL). No notification is sent.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from eval.asking import Evaluation, Progress, Target, evaluate
from eval.case_sets import read_case_file
from eval.cases import CasesFileError
from gatehouse.settings import Settings
from gatehouse.wiring import servers_config

# The group of a request nothing configured should serve.
NOTHING = "none"


def run_file(
    path: Path,
    *,
    servers: str | None,
    policy: str | None,
    selector: str | None,
    progress: Progress,
) -> Evaluation:
    """Every case of ``path`` (those ``selector`` picks, as `make eval -k`) on the configured
    servers, on a temporary database.

    Raises:
        CasesFileError: the file is not a cases file (naming the file, the case and the field),
            or ``selector`` picks no case.
        ConfigError: the servers file or the policy cannot be used.
    """
    settings = Settings.resolve(servers=servers, policy=policy)
    # A case's group is one of the team's servers, "none", or a group its batch declares.
    groups = [*servers_config(settings).names(), NOTHING]
    case_set = read_case_file(path, groups=groups, placeholders=None)
    if selector:
        case_set = case_set.selected(selector)
        if not case_set.cases:
            raise CasesFileError(path, [f"no case matches -k {selector!r}"])
    with tempfile.TemporaryDirectory(prefix="gatehouse-eval-") as scratch:
        database = str(Path(scratch) / "gatehouse.db")
        options = ["--db", database]
        options += ["--servers", servers] if servers else []
        options += ["--policy", policy] if policy else []
        target = Target(
            settings=Settings.resolve(db=database, servers=servers, policy=policy),
            options=options,
            placeholders={},
        )
        return evaluate(case_set, target, progress=progress, group_order=groups)
