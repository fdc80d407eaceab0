"""A process follows the policy versions in the database (policies/versions.py): each engine
asks this feed, every few seconds, whether a newer version is current, and adopts it.

A version this process cannot use (a variable its environment lacks, say) is reported once
and the process stays on the version it has: a replica never drops to no policy at all."""

from __future__ import annotations

import logging
from collections.abc import Callable

from policies.engine import PolicyFeed
from policies.loader import PolicyError
from policies.model import PolicyFile
from policies.versions import PolicyVersions

_log = logging.getLogger(__name__)

# A version's text, and what names it in errors -> the checked policy (PolicyError if bad).
ParsePolicy = Callable[[str, str], PolicyFile]


def database_feed(versions: PolicyVersions, parse: ParsePolicy) -> PolicyFeed:
    """The feed of ``versions``: one indexed read while nothing changed."""
    unusable: set[int] = set()

    def newer(running: int) -> tuple[int, PolicyFile] | None:
        seq = versions.head_seq()
        if seq == running or seq in unusable:
            return None
        version = versions.get(seq)
        if version is None:
            return None
        try:
            policy = parse(version.text, f"policy version {seq} ({version.origin})")
        except PolicyError as exc:
            unusable.add(seq)
            _log.error("this process stays on policy version %s: %s", running, exc.message)
            return None
        return seq, policy

    return newer
