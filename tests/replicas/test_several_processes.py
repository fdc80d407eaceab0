"""Four Gatehouse processes on one PostgreSQL database: one queue, every review decided once,
every approved call run once, nothing lost, the audit log intact."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gatehouse.settings import Settings
from gatehouse.wiring import open_services
from tests.backends import postgres_schema

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 4
READS_PER_WORKER = 40
SENDS_PER_WORKER = 10  # 4 x (40 + 10) = 200 requests, 40 of them wait for a reviewer
REVIEWERS = ("reviewer", "reviewer2", "admin", "reviewer")
WORKER_TIMEOUT = 240


@pytest.fixture
def replica_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    data = tmp_path / "data"
    servers = {
        name: {"command": sys.executable, "args": ["-m", f"servers.{name}", "--data-dir", str(data / "demo")]}
        for name in ("filesystem", "email")
    }
    servers_file = tmp_path / "servers.json"
    servers_file.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    with postgres_schema() as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GATEHOUSE_")}
        yield env | {
            "GATEHOUSE_DB": url,
            "GATEHOUSE_DATA": str(data),
            "GATEHOUSE_SERVERS": str(servers_file),
            "GATEHOUSE_DB_POOL_SIZE": "4",
            # The replicas chain the audit log with a key, each hashing in its own process
            # under the head's lock (reviews/audit.py _chain_here).
            "GATEHOUSE_AUDIT_KEY": secrets.token_hex(32),
        }


def run_workers(env: dict[str, str], argvs: list[list[str]]) -> list[list[dict[str, Any]]]:
    """Start every worker at once, wait for all; each one's JSON lines, or fail with its stderr."""
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.replicas.worker", *argv],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv in argvs
    ]
    results = []
    for process in processes:
        try:
            out, err = process.communicate(timeout=WORKER_TIMEOUT)
        except subprocess.TimeoutExpired:
            for other in processes:
                other.kill()
            raise
        assert process.returncode == 0, err[-3000:]
        assert "database is locked" not in err and "Traceback" not in err, err[-3000:]
        results.append([json.loads(line) for line in out.splitlines() if line.strip()])
    return results


def outbox(env: dict[str, str]) -> list[dict[str, Any]]:
    path = Path(env["GATEHOUSE_DATA"]) / "demo" / "outbox.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_four_processes_share_one_queue_and_every_review_is_decided_once_and_run_once(
    replica_env: dict[str, str],
) -> None:
    asked = run_workers(
        replica_env,
        [["ask", str(READS_PER_WORKER), str(SENDS_PER_WORKER), f"w{n}"] for n in range(WORKERS)],
    )
    answers = [answer for worker in asked for answer in worker]
    assert [a for a in answers if "error" in a] == []
    assert len(answers) == WORKERS * (READS_PER_WORKER + SENDS_PER_WORKER) == 200
    assert Counter(a["status"] for a in answers) == {"ok": 160, "needs_review": 40}
    reviews = sorted(a["review"] for a in answers if a["status"] == "needs_review")
    assert len(set(reviews)) == 40

    # Three in four are approved, the rest rejected; every review is tried by two processes at
    # once (in opposite orders), and ten of them by all four.
    action = {review: ("reject" if n % 4 == 3 else "approve") for n, review in enumerate(reviews)}
    assignments: list[list[str]] = [[] for _ in range(WORKERS)]
    for n, review in enumerate(reviews):
        deciders = range(WORKERS) if n % 4 == 0 else (n % WORKERS, (n + 1) % WORKERS)
        for worker in deciders:
            assignments[worker].append(f"{review}:{action[review]}")
    decided = run_workers(
        replica_env,
        [
            ["decide", REVIEWERS[worker], *(items if worker % 2 else list(reversed(items)))]
            for worker, items in enumerate(assignments)
        ],
    )
    attempts = [attempt for worker in decided for attempt in worker]
    assert [a for a in attempts if a["outcome"] not in {"won", "already_decided"}] == []
    winners = Counter(a["review"] for a in attempts if a["outcome"] == "won")
    assert winners == dict.fromkeys(reviews, 1)  # each review decided exactly once

    settings = Settings.resolve(environ=replica_env)
    with open_services(settings, connect_servers=False) as services:
        rows = {review: services.ledger.require(review) for review in reviews}
        assert Counter(row.status for row in rows.values()) == {"executed": 30, "rejected": 10}
        for review, row in rows.items():
            expected = "executed" if action[review] == "approve" else "rejected"
            assert row.status == expected, (review, row.status)
        assert services.ledger.count("pending") == 0
        assert services.ledger.unfinished_executions(only_lost=False) == []
        # Nothing lost: every thread's conversation ends in its final answer.
        for answer in answers:
            messages = services.conversations.messages(answer["thread"])
            assert messages[0].text == answer["request"]
            final = messages[-1].output or {}
            if answer["review"] is None:
                assert final.get("status") == "ok"
            else:
                assert final.get("status") == ("ok" if action[answer["review"]] == "approve" else "rejected")
        assert services.audit.verify().ok

    sent = outbox(replica_env)
    approved_bodies = sorted(
        a["request"].rsplit("saying ", 1)[1]
        for a in answers
        if a["review"] and action[a["review"]] == "approve"
    )
    assert sorted(message["body"] for message in sent) == approved_bodies  # each approved call ran once

    verify = subprocess.run(
        [sys.executable, "-m", "gatehouse.cli", "audit", "verify", "--json"],
        cwd=ROOT,
        env=replica_env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    report = json.loads(verify.stdout)
    assert report["ok"] is True
    assert report["warnings"] == []  # every row keyed: nothing the check cannot detect
