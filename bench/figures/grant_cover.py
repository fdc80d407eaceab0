"""Figure 12: a call covered by a remembered approval (a grant) against the same call allowed by
a rule. Two Gatehouses in one run, each on its own SQLite file with the bundled e-mail server
over stdio on a warm pool: one whose policy allows sending to the demo's domain, one with the
shipped policy (which sends it to review) and a grant a reviewer made for it. The same request,
through the whole app (`RequestService.ask`: the graph, its checkpoints, the audit events and
the conversation), interleaved between the two, in rounds each judged on its own."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

from bench.report import Figure, Target, listed, summary_ms
from bench.workspace import SEND_REQUEST, Workspace
from gatehouse.settings import Settings
from gatehouse.wiring import Services
from reviews.grant_service import parse_remember

SECTION = "12 a call under a grant"
REQUESTS = 280
WARMUP = 20
ROUNDS = 7
RATIO_TARGET = 1.1
ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "policies" / "default.toml"
# The shipped rule for outgoing messages, made an allow that knowingly accepts what the engine
# rates the demo e-mail tool: the same call, allowed by a rule instead of reviewed.
REVIEWED = 'action = "review"\ncategory = "sends messages"'
ALLOWED = 'action = "allow"\naccepts = ["sends messages", "open world", "writes files"]\ncategory = "sends messages"'


def _policy(folder: Path, *, allow: bool) -> Path:
    text = SHIPPED.read_text(encoding="utf-8")
    assert text.count(REVIEWED) == 1, "the shipped policy's outgoing-messages rule changed"
    path = folder / ("allowed.toml" if allow else "shipped.toml")
    path.write_text(text.replace(REVIEWED, ALLOWED) if allow else text, encoding="utf-8")
    return path


def _this_checkout(settings: Settings) -> Settings:
    """The servers run this checkout's code (an MCP client starts them with a bare
    environment: without this, whatever the interpreter's installation points at)."""
    assert settings.servers_path is not None
    servers = json.loads(settings.servers_path.read_text(encoding="utf-8"))
    for entry in servers["mcpServers"].values():
        entry["cwd"] = str(ROOT)
        entry["env"] = {"PYTHONPATH": str(ROOT)}
    settings.servers_path.write_text(json.dumps(servers), encoding="utf-8")
    return settings


def _grant(services: Services) -> str:
    """The reviewer's approval of the first request, remembered for the requester's later ones."""
    paused = services.requests.ask(SEND_REQUEST, requester="operator").final_output
    if paused.review is None:
        raise RuntimeError(f"the shipped policy did not send the e-mail to review: {paused.status}")
    decided = services.reviews.decide(
        paused.review.id,
        reviewer="reviewer",
        approve=True,
        remember=parse_remember("requester", within={"to": {"domain": "example.com"}, "body": "any"}),
    )
    if decided.grant is None:
        raise RuntimeError("the approval was not remembered")
    return decided.grant.id


def _timed_send(services: Services, *, grant: str | None) -> float:
    began = time.perf_counter()
    final = services.requests.ask(SEND_REQUEST, requester="operator").final_output
    seconds = time.perf_counter() - began
    ran_under = final.grant.id if final.grant is not None else None
    if final.status != "ok" or ran_under != grant:
        raise RuntimeError(
            f"the e-mail did not run as measured ({final.status}, grant {ran_under}): {final.response}"
        )
    return seconds


def run(space: Workspace) -> list[Figure]:
    allowed_settings = space.demo("email", name="allowed")
    granted_settings = space.demo("email", name="granted")
    allowed_settings = _this_checkout(replace(allowed_settings, policy_path=_policy(space.root, allow=True)))
    granted_settings = _this_checkout(replace(granted_settings, policy_path=_policy(space.root, allow=False)))
    allowed: list[float] = []
    granted: list[float] = []
    ratios: list[float] = []
    per_round = REQUESTS // ROUNDS
    with space.services(allowed_settings) as by_rule, space.services(granted_settings) as by_grant:
        grant = _grant(by_grant)
        for _ in range(WARMUP):
            _timed_send(by_rule, grant=None)
            _timed_send(by_grant, grant=grant)
        for _ in range(ROUNDS):
            rule_round: list[float] = []
            grant_round: list[float] = []
            # Interleaved, so a burst of load on this shared machine hits both sides alike, and
            # each side first every other time, so neither always runs right after the other.
            for n in range(per_round):
                if n % 2:
                    grant_round.append(_timed_send(by_grant, grant=grant))
                    rule_round.append(_timed_send(by_rule, grant=None))
                else:
                    rule_round.append(_timed_send(by_rule, grant=None))
                    grant_round.append(_timed_send(by_grant, grant=grant))
            ratios.append(statistics.median(grant_round) / statistics.median(rule_round))
            allowed += rule_round
            granted += grant_round
    by_rule_ms, by_grant_ms = summary_ms(allowed), summary_ms(granted)
    return [
        Figure(
            SECTION,
            "covered by a grant / allowed by a rule",
            statistics.median(ratios),
            "x",
            Target("<=", RATIO_TARGET),
            f"median of {ROUNDS} rounds of {per_round} requests each side, interleaved (each side first every other "
            f"time), every round its own "
            f"ratio of medians ({listed(ratios)}); SQLite file, e-mail server over stdio",
            {"rounds": ratios},
        ),
        Figure(
            SECTION,
            "covered by a grant, median",
            by_grant_ms["median_ms"],
            "ms",
            None,
            "the shipped policy sends it to review; a grant covers it: its use taken and audited",
            by_grant_ms,
        ),
        Figure(
            SECTION,
            "allowed by a rule, median",
            by_rule_ms["median_ms"],
            "ms",
            None,
            "the outgoing-messages rule made an allow that accepts the tool's risks",
            by_rule_ms,
        ),
    ]
