"""The identity of one exact call, which an approval is bound to."""

from __future__ import annotations

import hashlib
from typing import Any

from gatehouse_verify.canonical import canonical_json


def call_hash(server: str, fingerprint: str, arguments: dict[str, Any]) -> str:
    """Which server, which definition (its fingerprint), which arguments: nothing else runs
    under an approval given for this hash."""
    canonical = canonical_json({"server": server, "definition": fingerprint, "arguments": arguments})
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
