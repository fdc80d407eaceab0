"""Helpers for the review-ledger tests that run the whole app: real SQLite files, real server
processes, the real `gatehouse` command line (in-process through main(argv), or as processes of
their own where that is the point)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

from gatehouse.settings import AUDIT_KEY_ENV, AUDIT_OLD_KEYS_ENV, Settings
from gatehouse.wiring import Services, open_services
from graph.state import FlagData, ReviewPayload, ReviewTermsData
from mcp_host.client import McpClient
from reviews.ledger import ReviewLedger
from reviews.service import ReviewService
from tests.cli_support import Ran, run_cli
from tests.held_server import Hold, entry
from tests.support import bundled_server_entry

REPO = Path(__file__).resolve().parents[2]
DEFAULT_POLICY_TEXT = (REPO / "policies" / "default.toml").read_text(encoding="utf-8")
EMAIL_REQUEST = "Send an email to bob@example.com saying hi"
# The outgoing-messages rule's constraint line in the shipped policy, edited by some tests.
VIOLATION_LINE = next(
    line for line in DEFAULT_POLICY_TEXT.splitlines() if line.startswith('on_violation = "review"')
)
# The CLI's own configuration variables: a test names everything it uses explicitly.
_CONFIG_VARIABLES = ("GATEHOUSE_DB", "GATEHOUSE_SERVERS", "GATEHOUSE_POLICY")


def email_servers(data: Path) -> Path:
    """A servers file with only the bundled e-mail server (one fork of the tests' prefork process)."""
    entry = bundled_server_entry("email", data / "demo")
    path = data / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"email": entry}}), encoding="utf-8")
    return path


def slow_servers(
    data: Path, effects: Path, *, delay: float, timeout: float | None = None, exit_after_effect: bool = False
) -> Path:
    """A servers file with only tests/held_server.py's mail server, which records its effect and
    answers ``delay`` seconds later; ``timeout`` is the host's for it."""
    server = entry("mail", Hold(delay), effects=effects, exit_after_effect=exit_after_effect)
    if timeout is not None:
        server["timeout"] = timeout
    path = data / "slow-servers.json"
    path.write_text(json.dumps({"mcpServers": {"slow": server}}), encoding="utf-8")
    return path


def policy_file(data: Path, name: str, *edits: tuple[str, str], users: dict[str, str] | None = None) -> Path:
    """The shipped policy with exact text edits (each must match once) and extra users."""
    text = DEFAULT_POLICY_TEXT
    for old, new in edits:
        assert text.count(old) == 1, f"the shipped policy no longer has exactly one {old!r}"
        text = text.replace(old, new)
    if users:
        assert text.count("\n[users]\n") == 1
        extra = "".join(f'{user} = "{role}"\n' for user, role in users.items())
        text = text.replace("\n[users]\n", "\n[users]\n" + extra)
    path = data / name
    path.write_text(text, encoding="utf-8")
    return path


# An edit for policy_file: a rule before the shipped ones that refuses the demo's file writes
# whatever the arguments.
NO_WRITES = (
    '[[rules]]\nname = "shell access"\n',
    '[[rules]]\nname = "no writes"\nmatch = ["filesystem__write_file"]\naction = "deny"\n'
    'explanation = "Agents write nothing."\n\n[[rules]]\nname = "shell access"\n',
)


# Set by tests/reviews/conftest.py for the PostgreSQL variant of each test.
TEST_DB_URL = "GATEHOUSE_TEST_DB_URL"


def settings_for(data: Path, *, servers: Path | None = None, policy: Path | None = None) -> Settings:
    """The data folder's settings; the database is the test's backend (SQLite file or PostgreSQL)."""
    return Settings(
        data_dir=data,
        db_path=data / "gatehouse.db",
        servers_path=servers,
        policy_path=policy,
        db_url=os.environ.get(TEST_DB_URL) or None,
        db_pool_size=4,
        # As the app reads them: a test that sets an audit key gets a keyed audit chain.
        audit_key=os.environ.get(AUDIT_KEY_ENV) or None,
        audit_old_keys=os.environ.get(AUDIT_OLD_KEYS_ENV) or None,
    )


@contextmanager
def services_for(
    data: Path, *, servers: Path | None = None, policy: Path | None = None, mcp: McpClient | None = None
) -> Iterator[Services]:
    with open_services(settings_for(data, servers=servers, policy=policy), mcp=mcp) as services:
        yield services


@contextmanager
def later_reviews(services: Services, clock: Callable[[], datetime]) -> Iterator[ReviewService]:
    """The same app later: a review service over a ledger with its own clock (open_services has
    no clock to inject), on the services' open database, which they close."""
    ledger = ReviewLedger(services.ledger.database, clock=clock)
    yield ReviewService(
        services.graph, services.context, ledger, services.audit, services.policy, services.conversations
    )


def postgres() -> bool:
    return bool(os.environ.get(TEST_DB_URL))


def run_sql(data: Path, *statements: str) -> None:
    """Change the test's database by hand (tampering, deleting), on whichever backend it is."""
    url = os.environ.get(TEST_DB_URL)
    if url:
        with psycopg.connect(url, autocommit=True) as pg:
            for statement in statements:
                pg.execute(statement)
        return
    with sqlite3.connect(data / "gatehouse.db") as conn:
        for statement in statements:
            conn.execute(statement)


def outbox(data: Path) -> list[dict[str, Any]]:
    path = data / "demo" / "outbox.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def json_lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _env(data: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in _CONFIG_VARIABLES}
    url = os.environ.get(TEST_DB_URL)
    return env | {"GATEHOUSE_DATA": str(data)} | ({"GATEHOUSE_DB": url} if url else {})


def _cli_env(data: Path) -> dict[str, str | None]:
    """_env's changes to this process's environment, for a command run in-process."""
    url = os.environ.get(TEST_DB_URL)
    unset: dict[str, str | None] = dict.fromkeys(_CONFIG_VARIABLES)
    return unset | {"GATEHOUSE_DATA": str(data)} | ({"GATEHOUSE_DB": url} if url else {})


def gatehouse(data: Path, *args: str) -> Ran:
    """`gatehouse ARGS` on the data folder ``data``, run in this process through main(argv)."""
    return run_cli(*args, env=_cli_env(data))


def gatehouse_process(data: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`gatehouse ARGS` as a process of its own, for the tests that are about separate
    processes (one opens a review, another decides it)."""
    return subprocess.run(
        [sys.executable, "-m", "gatehouse.cli", *args],
        capture_output=True,
        text=True,
        env=_env(data),
        cwd=REPO,
        timeout=timeout,
        check=False,
    )


def start_gatehouse(data: Path, *args: str, new_session: bool = False) -> subprocess.Popen[str]:
    """`gatehouse ARGS` started and left running; the caller waits (with a timeout) or kills it."""
    return subprocess.Popen(
        [sys.executable, "-m", "gatehouse.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(data),
        cwd=REPO,
        start_new_session=new_session,
    )


def finish(process: subprocess.Popen[str], *, timeout: float = 60) -> tuple[int, str, str]:
    """Wait for a started command; kill it if it overstays, after asking it for every thread's
    stack (the CLI prints them on SIGUSR1), which the failure then shows."""
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        process.send_signal(signal.SIGUSR1)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=2)
        process.kill()
        _, err = process.communicate()
        raise AssertionError(f"{process.args!r} did not end within {timeout} s; its stacks:\n{err}") from exc
    return process.returncode, out, err


def finish_all(processes: list[subprocess.Popen[str]], *, timeout: float = 60) -> list[tuple[int, str, str]]:
    """Wait for every started command; each one is reaped even when another overstays, so
    one hang does not leave pipes open for a later test to trip over."""
    results: list[tuple[int, str, str]] = []
    failure: AssertionError | None = None
    for process in processes:
        try:
            results.append(finish(process, timeout=timeout))
        except AssertionError as exc:
            failure = failure or exc
    if failure is not None:
        raise failure
    return results


# The terms the shipped policy gives a review of an outgoing message.
EMAIL_TERMS: ReviewTermsData = {
    "expiry_minutes": 30,
    "required_approvals": 1,
    "four_eyes": True,
    "reviewer_roles": ["reviewer"],
}


def email_review(
    review_id: str,
    thread_id: str,
    arguments: dict[str, Any],
    *,
    flags: list[FlagData] | None = None,
    terms: ReviewTermsData | None = EMAIL_TERMS,
    request: str | None = None,
) -> ReviewPayload:
    """The payload of a review of email__send_email as graph/nodes/review.py review_payload builds it,
    for the tests that open reviews in the ledger without running the graph."""
    return {
        "review_id": review_id,
        "stage": "before_execution",
        "thread_id": thread_id,
        "request": request,
        "requester": "operator",
        "contributors": [],
        "capability": {
            "key": "email__send_email",
            "server": "email",
            "type": "tool",
            "name": "send_email",
            "description": "Send an e-mail.",
            "input_schema": {"type": "object"},
            "annotations": {},
            "fingerprint": "f1",
        },
        "arguments": arguments,
        "argument_sources": {},
        "argument_provenance": {},
        "missing_arguments": [],
        "flags": flags or [],
        "category": "sends messages",
        "matched_rule": "outgoing-messages",
        "explanation": None,
        "risk_reasons": [],
        "review_terms": terms,
        "reason": None,
    }


# When the tests' clocks start: a fixed moment, so stored times are the same on every run.
CLOCK_START = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


class Clock:
    """Moves one second every time it is read, so every change has its own time; ``skip`` jumps."""

    def __init__(self) -> None:
        self.now = CLOCK_START

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now

    def skip(self, minutes: int) -> None:
        self.now += timedelta(minutes=minutes)


class StillClock:
    """Time stands still until the test sets ``now`` or moves it with ``advance``: for the
    tests that decide exactly which side of a deadline the code looks from."""

    def __init__(self, now: datetime = CLOCK_START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
