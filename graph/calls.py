"""The identity of one exact call, which an approval is bound to."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def call_hash(server: str, fingerprint: str, arguments: dict[str, Any]) -> str:
    """Which server, which definition (its fingerprint), which arguments: nothing else runs
    under an approval given for this hash."""
    canonical = json.dumps(
        {"server": server, "definition": fingerprint, "arguments": arguments},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
