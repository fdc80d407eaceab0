"""An engine follows the newest version of the policy: it asks its feed at most every few
seconds, adopts what the feed has in one swap, and tells who listens."""

from __future__ import annotations

from policies.engine import PolicyEngine
from policies.model import PolicyFile
from policies.secrets import SecretRedactor


class Ticks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def roster(*users: str) -> PolicyFile:
    return PolicyFile.model_validate({"roles": {"operator": {}}, "users": dict.fromkeys(users, "operator")})


def test_the_engine_asks_its_feed_at_most_every_interval_and_adopts_a_newer_version() -> None:
    asked: list[int] = []
    newest: dict[str, tuple[int, PolicyFile] | None] = {"version": None}

    def feed(running: int) -> tuple[int, PolicyFile] | None:
        asked.append(running)
        return newest["version"]

    ticks = Ticks()
    engine = PolicyEngine(roster("ann"))
    engine.follow(feed, version=1, every_seconds=2.0, monotonic=ticks)
    newest["version"] = (2, roster("ann", "bob"))

    assert engine.may_request("bob") is False, "not asked before the interval is over"
    assert asked == []
    ticks.now += 2.0
    assert engine.may_request("bob") is True
    assert (asked, engine.version) == ([1], 2)
    newest["version"] = None
    ticks.now += 1.0
    engine.may_request("bob")
    assert asked == [1], "asked once per interval, however often the policy is read"


def test_a_feed_that_fails_leaves_the_engine_on_its_version() -> None:
    def feed(running: int) -> tuple[int, PolicyFile] | None:
        raise OSError("database gone for a moment")

    engine = PolicyEngine(roster("ann"))
    engine.follow(feed, version=4, every_seconds=0.0)

    assert engine.refresh() is False
    assert engine.may_request("ann") is True
    assert engine.version == 4


def test_listeners_hear_of_each_adopted_version_so_new_secret_names_are_hidden_at_once() -> None:
    secrets = SecretRedactor()
    newer = PolicyFile.model_validate({"audit": {"redact_arguments": ["badge_number"]}})
    engine = PolicyEngine(PolicyFile())
    engine.follow(lambda running: (2, newer) if running == 1 else None, version=1, every_seconds=0.0)
    engine.when_changed(lambda policy: secrets.use_names(policy.audit.redact_arguments))
    assert secrets.value({"badge_number": "4711"}) == {"badge_number": "4711"}

    assert engine.refresh() is True

    assert secrets.value({"badge_number": "4711"}) == {"badge_number": "***"}
