"""The canonical JSON a call is identified by: keys sorted, no spaces, text as it is (UTF-8).

Gatehouse's call hash (graph/calls.py), which each approval is bound to, and the argument
digest a signed grant carries are both computed from this form, so Gatehouse and a verifying
server hash the same bytes for the same arguments. Standard library only: a server imports it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    """``value`` as canonical JSON text (sorted keys, compact separators, non-ASCII kept)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def arguments_digest(arguments: dict[str, Any]) -> str:
    """The SHA-256 of a call's arguments in canonical JSON, as lowercase hex: what a grant
    binds, so the server can tell that it is asked to run exactly what was approved."""
    return hashlib.sha256(canonical_json(arguments).encode("utf-8")).hexdigest()
